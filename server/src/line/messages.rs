//! The texts of the LINE pushes the server sends, in zh-TW, en and ja: review decisions now,
//! matchmaking later. The member's locale comes from `storage::locale` (fallback en).
//!
//! Reject and suspend reasons arrive as labels already translated into the member's locale
//! (kizuna-core's review catalogue translates its reason codes); [`reason_labels`] maps codes
//! through any such lookup and keeps an unknown code as it is rather than dropping it.
//!
//! ```
//! use kizuna_server::{line::messages::{PushText, push_messages}, locale::Locale};
//! let messages = push_messages(Locale::Ja, &PushText::Approved, None);
//! assert_eq!(messages.len(), 1);
//! ```

pub use super::MAX_TEXT_CHARS;
use crate::{line::Message, locale::Locale};

/// What a push tells the member.
#[derive(Clone, Debug, PartialEq)]
pub enum PushText<'a> {
    /// Their profile was approved.
    Approved,
    /// Their profile was rejected: what to change (translated labels) and the reviewer's
    /// optional note.
    ChangesRequested {
        reasons: &'a [String],
        note: Option<&'a str>,
    },
    /// Their account was suspended, with the (translated) reason.
    Suspended { reason: &'a str },
    /// The changes they saved to their approved profile were approved: others see them now.
    RevisionApproved,
    /// The changes they saved were sent back (the approved version stands): what to change and
    /// the reviewer's optional note.
    RevisionRejected {
        reasons: &'a [String],
        note: Option<&'a str>,
    },
    /// Today's introductions are ready.
    Introductions { count: u32 },
    /// A like back made a match.
    NewMatch,
    /// A chat message arrived from a match.
    NewMessage { nickname: &'a str },
}

/// The push text in a locale; with `app_url` (the LIFF URL) a last line invites the member to
/// open the app (LINE makes it a link).
pub fn text(locale: Locale, what: &PushText<'_>, app_url: Option<&str>) -> String {
    use Locale::*;
    let mut text = match what {
        PushText::Approved => match locale {
            ZhTw => "您的 Kizuna 個人檔案已通過審核！我們很快就會開始為您介紹對象。".to_string(),
            En => "Your Kizuna profile has been approved! Your introductions will start soon."
                .to_string(),
            Ja => "Kizuna のプロフィールが承認されました！まもなく紹介が始まります。".to_string(),
        },
        PushText::RevisionApproved => match locale {
            ZhTw => "您修改的 Kizuna 個人檔案已通過審核，其他會員現在看到的是新版本。".to_string(),
            En => "The changes to your Kizuna profile have been approved: others now see them."
                .to_string(),
            Ja => "Kizuna のプロフィールの変更が承認されました。他の会員にも新しい内容が表示されます。"
                .to_string(),
        },
        PushText::ChangesRequested { reasons, note }
        | PushText::RevisionRejected { reasons, note } => {
            let revision = matches!(what, PushText::RevisionRejected { .. });
            let mut text = match (locale, revision) {
                (ZhTw, false) => "請修改您的 Kizuna 個人檔案後重新送出：".to_string(),
                (En, false) => {
                    "Please change the following in your Kizuna profile and submit it again:"
                        .to_string()
                }
                (Ja, false) => {
                    "Kizuna のプロフィールの次の点を修正して、もう一度送信してください："
                        .to_string()
                }
                (ZhTw, true) => {
                    "您修改的個人檔案未通過審核，其他會員仍看到原本的版本。請修改以下項目：".to_string()
                }
                (En, true) => "The changes to your Kizuna profile were not approved; others still                                see the approved version. Please change the following:"
                    .to_string(),
                (Ja, true) => "プロフィールの変更は承認されませんでした（他の会員には元の内容が表示されています）。次の点を修正してください："
                    .to_string(),
            };
            for reason in reasons.iter() {
                text.push_str("\n• ");
                text.push_str(reason.trim());
            }
            if let Some(note) = note.map(str::trim).filter(|n| !n.is_empty()) {
                text.push_str(match locale {
                    ZhTw => "\n\n審核人員的留言：",
                    En => "\n\nA note from our reviewer: ",
                    Ja => "\n\n審査担当者からのメッセージ：",
                });
                text.push_str(note);
            }
            text
        }
        PushText::Suspended { reason } => match locale {
            ZhTw => format!("您的 Kizuna 帳號已被停權。原因：{}", reason.trim()),
            En => format!(
                "Your Kizuna account has been suspended. Reason: {}",
                reason.trim()
            ),
            Ja => format!(
                "Kizuna のアカウントは利用停止になりました。理由：{}",
                reason.trim()
            ),
        },
        PushText::Introductions { count } => match (locale, count) {
            (ZhTw, n) => format!("今天有 {n} 位新的介紹對象在等您。"),
            (En, 1) => "You have 1 new introduction today.".to_string(),
            (En, n) => format!("You have {n} new introductions today."),
            (Ja, n) => format!("今日は新しい紹介が {n} 件あります。"),
        },
        PushText::NewMatch => match locale {
            ZhTw => "配對成功！現在就開始聊天吧。".to_string(),
            En => "You have a new match! Say hello.".to_string(),
            Ja => "新しいマッチが成立しました！メッセージを送ってみましょう。".to_string(),
        },
        PushText::NewMessage { nickname } => match locale {
            ZhTw => format!("{} 傳了一則新訊息給您。", nickname.trim()),
            En => format!("New message from {}.", nickname.trim()),
            Ja => format!("{} さんから新しいメッセージが届きました。", nickname.trim()),
        },
    };
    if let Some(url) = app_url {
        text.push_str(match locale {
            ZhTw => "\n\n開啟 Kizuna：",
            En => "\n\nOpen Kizuna: ",
            Ja => "\n\nKizuna を開く：",
        });
        text.push_str(url);
    }
    // A reviewer's long note must not make LINE refuse the whole push.
    if text.chars().count() > MAX_TEXT_CHARS {
        text = text.chars().take(MAX_TEXT_CHARS - 1).collect();
        text.push('…');
    }
    text
}

/// The `messages` of the push: one text message.
pub fn push_messages(locale: Locale, what: &PushText<'_>, app_url: Option<&str>) -> Vec<Message> {
    vec![Message::text(text(locale, what, app_url))]
}

/// The LIFF URL that opens the app inside LINE.
pub fn liff_url(liff_id: &str) -> String {
    format!("https://liff.line.me/{liff_id}")
}

/// Reason codes as labels in `locale`, through `lookup` (kizuna-core's review catalogue once it
/// has one); a code the lookup does not know is shown as it is.
pub fn reason_labels(
    codes: &[&str],
    locale: Locale,
    lookup: impl Fn(&str, Locale) -> Option<String>,
) -> Vec<String> {
    codes
        .iter()
        .map(|code| lookup(code, locale).unwrap_or_else(|| code.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_text(reasons: &[String]) -> Vec<PushText<'_>> {
        vec![
            PushText::Approved,
            PushText::ChangesRequested {
                reasons,
                note: Some("Smile!"),
            },
            PushText::Suspended { reason: "spam" },
            PushText::RevisionApproved,
            PushText::RevisionRejected {
                reasons,
                note: Some("Smile!"),
            },
            PushText::Introductions { count: 3 },
            PushText::NewMatch,
            PushText::NewMessage { nickname: "Mei" },
        ]
    }

    #[test]
    fn every_push_has_a_distinct_text_in_every_locale() {
        let reasons = vec!["Photo".to_string()];
        for what in every_text(&reasons) {
            let texts: Vec<String> = Locale::ALL.iter().map(|&l| text(l, &what, None)).collect();
            for t in &texts {
                assert!(!t.trim().is_empty(), "{what:?}");
            }
            assert_ne!(texts[0], texts[1], "{what:?}");
            assert_ne!(texts[1], texts[2], "{what:?}");
            assert_ne!(texts[0], texts[2], "{what:?}");
        }
    }

    #[test]
    fn a_rejection_lists_every_reason_and_the_note() {
        let reasons = vec!["Blurry photo".to_string(), "Missing job title".to_string()];
        let t = text(
            Locale::En,
            &PushText::ChangesRequested {
                reasons: &reasons,
                note: Some("  Please use a recent photo. "),
            },
            Some("https://liff.line.me/x"),
        );
        assert!(t.contains("• Blurry photo\n• Missing job title"), "{t}");
        assert!(t.contains("Please use a recent photo."), "{t}");
        assert!(t.ends_with("Open Kizuna: https://liff.line.me/x"), "{t}");
        let without_note = text(
            Locale::Ja,
            &PushText::ChangesRequested {
                reasons: &reasons,
                note: Some(" "),
            },
            None,
        );
        assert!(!without_note.contains("審査担当者"), "{without_note}");
    }

    #[test]
    fn placeholders_are_filled() {
        assert_eq!(
            text(Locale::En, &PushText::Introductions { count: 1 }, None),
            "You have 1 new introduction today."
        );
        assert!(text(Locale::ZhTw, &PushText::Introductions { count: 4 }, None).contains('4'));
        assert!(
            text(Locale::Ja, &PushText::NewMessage { nickname: "Ken" }, None).starts_with("Ken")
        );
        assert!(
            text(
                Locale::En,
                &PushText::Suspended {
                    reason: "Fake photos"
                },
                None
            )
            .ends_with("Reason: Fake photos")
        );
    }

    #[test]
    fn a_text_never_exceeds_lines_limit() {
        let note = "x".repeat(MAX_TEXT_CHARS * 2);
        let t = text(
            Locale::En,
            &PushText::ChangesRequested {
                reasons: &[],
                note: Some(&note),
            },
            None,
        );
        assert_eq!(t.chars().count(), MAX_TEXT_CHARS);
    }

    #[test]
    fn reason_codes_go_through_the_lookup_and_unknown_ones_stay_visible() {
        let lookup = |code: &str, locale: Locale| {
            (code == "photo_unclear").then(|| format!("{}:photo", locale.tag()))
        };
        assert_eq!(
            reason_labels(&["photo_unclear", "new_code"], Locale::Ja, lookup),
            vec!["ja:photo".to_string(), "new_code".to_string()]
        );
    }
}
