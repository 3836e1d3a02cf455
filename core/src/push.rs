//! LINE pushes as LINE-native messages: what a queued push is (a [`Push`]: its kind and ids, no
//! rendered text), the Flex Message it becomes in the member's language when it is sent
//! ([`render`]), the permanent LIFF link each one opens ([`Push::path`], [`permanent_link`]), and
//! LINE's documented limits with a checker ([`check_messages`]) that both the server (before a
//! push leaves) and its mock LINE platform (which refuses what LINE would refuse) apply.
//!
//! Privacy, decided: a push carries no other member's photo and no message text (LINE keeps its
//! chats after a member blocks or leaves Kizuna, and a lock screen shows pushes to anyone), so a
//! bubble shows Kizuna's own artwork (its wordmark and colours), at most a nickname, and counts.
//!
//! ```
//! use kizuna_core::{locale::Locale, push::{Push, render, check_messages}};
//! let push = Push::NewMessage { match_id: 7 };
//! let message = render(&push, Locale::En, "1234-abcd", Some("Mei"));
//! let json = serde_json::to_value([&message]).unwrap();
//! assert!(check_messages(&json).is_ok());
//! assert_eq!(json[0]["type"], "flex");
//! assert!(json.to_string().contains("https://liff.line.me/1234-abcd/chat?match=7&via=message"));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::locale::Locale;

// LINE's limits. Sources: the Messaging API reference (developers.line.biz/en/reference/
// messaging-api/: "Send push message" — messages max 5; "Text message" — max 5000 characters;
// "Flex Message" — altText max 1500 characters; "Bubble" — max size 30 KB; "Carousel" — max 12
// bubbles, max size 50 KB; "Image" component — url HTTPS (TLS 1.2 or later), max 2000
// characters; "URI action" — uri max 1000 characters, http, https, line or tel; action label
// max 20 characters, the strictest of its variants), the Node SDK's FlexCarousel type
// (line.github.io/line-bot-sdk-nodejs: "Max: 12 bubbles"), and "Text character count"
// (developers.line.biz/en/docs/messaging-api/text-character-count/: characters are counted in
// UTF-16 code units). A KB is taken as 1,000 bytes, the stricter reading.

/// Messages in one push request.
pub const MAX_MESSAGES: usize = 5;
/// UTF-16 code units of a text message.
pub const MAX_TEXT_CHARS: usize = 5000;
/// UTF-16 code units of a Flex Message's `altText` (what notifications and old clients show).
pub const MAX_ALT_TEXT_CHARS: usize = 1500;
/// Bytes of one bubble's JSON.
pub const MAX_BUBBLE_BYTES: usize = 30_000;
/// Bytes of one carousel's JSON.
pub const MAX_CAROUSEL_BYTES: usize = 50_000;
/// Bubbles in one carousel.
pub const MAX_CAROUSEL_BUBBLES: usize = 12;
/// Characters of an image URL (which must be HTTPS).
pub const MAX_IMAGE_URL_CHARS: usize = 2000;
/// Characters of a URI action's `uri`.
pub const MAX_URI_CHARS: usize = 1000;
/// Characters of an action's `label`.
pub const MAX_ACTION_LABEL_CHARS: usize = 20;

/// Arrivals through a push's link counted a minute per client address (one member opens a few
/// links a minute at most; more is someone inflating the funnel).
pub const VISITS_PER_MINUTE_PER_ADDRESS: u32 = 10;

/// What the outbox keeps of a push: its kind and ids, rendered in the member's language only
/// when it is sent. The sender of a new message is the row's `about_user_id`, not stored here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "push", rename_all = "snake_case")]
pub enum Push {
    /// A like back made the match `match_id`.
    NewMatch {
        /// The match (its chat opens).
        match_id: i64,
    },
    /// A message arrived in the match `match_id` (who wrote is the row's `about_user_id`).
    NewMessage {
        /// The match (its chat opens).
        match_id: i64,
    },
    /// Today's introductions are ready.
    Introductions {
        /// How many.
        count: u32,
    },
    /// The profile was approved (or reinstated).
    Approved,
    /// The profile was sent back: the reasons' (translation key, code) and the reviewer's note.
    ChangesRequested {
        /// Each reason as (translation key, code).
        reasons: Vec<(String, String)>,
        /// The reviewer's note to the member.
        note: Option<String>,
    },
    /// The account was suspended for these reasons (translation key, code).
    Suspended {
        /// Each reason as (translation key, code).
        reasons: Vec<(String, String)>,
    },
    /// Changes to an approved profile were approved.
    RevisionApproved,
    /// A member the recipient was matched with was removed for breaking the rules (a suspension
    /// whose reasons warrant telling, kizuna-core's `review::removal_notice_due`). It names
    /// nobody, not even the nickname: a lock screen shows it to anyone, LINE keeps it after the
    /// decision could be reversed, and the app shows who it was behind the member's session.
    MatchRemoved,
    /// A reviewer other than the one who suspended looked at the member's appeal again:
    /// `reinstated` (the member is back) or not (the suspension is upheld), with their note.
    AppealDecided {
        /// The member was reinstated.
        reinstated: bool,
        /// The reviewer's note to the member.
        note: Option<String>,
    },
    /// The recipient is asked, privately, whether they met the other member of `match_id` (who
    /// is the row's `about_user_id`, named by their nickname as it is when the push is sent;
    /// kizuna-core's `met::question_due`).
    WeMet {
        /// The match asked about.
        match_id: i64,
    },
    /// Nobody has written in the match `match_id` since it was made
    /// (`rules::QUIET_MATCH_REMINDER_DAYS` ago): say hello before it expires. Sent once to each
    /// member; it names the other (the row's `about_user_id`).
    QuietMatch {
        /// The match (its chat opens).
        match_id: i64,
    },
    /// Changes to an approved profile were sent back.
    RevisionRejected {
        /// Each reason as (translation key, code).
        reasons: Vec<(String, String)>,
        /// The reviewer's note to the member.
        note: Option<String>,
    },
}

/// A push's kind as the funnel counts it and its link carries it (`via=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PushKind {
    /// A new match.
    Match,
    /// New messages.
    Message,
    /// Today's introductions.
    Introductions,
    /// A review decision.
    Review,
    /// A safety notice: a member the recipient was matched with was removed.
    Safety,
    /// "Did you meet?", a few days after both members of a match wrote.
    WeMet,
    /// A reminder to say hello in a match where nobody has written yet.
    Reminder,
}

impl PushKind {
    /// Every kind.
    pub const ALL: [PushKind; 7] = [
        PushKind::Match,
        PushKind::Message,
        PushKind::Introductions,
        PushKind::Review,
        PushKind::Safety,
        PushKind::WeMet,
        PushKind::Reminder,
    ];

    /// The stored and linked name.
    pub fn as_str(self) -> &'static str {
        match self {
            PushKind::Match => "match",
            PushKind::Message => "message",
            PushKind::Introductions => "introductions",
            PushKind::Review => "review",
            PushKind::Safety => "safety",
            PushKind::WeMet => "we_met",
            PushKind::Reminder => "reminder",
        }
    }

    /// The kind a name stands for.
    pub fn parse(name: &str) -> Option<PushKind> {
        PushKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl Push {
    /// The morning push of a day's list of `picked` introductions: none for an empty list, for a
    /// member who switched the push off, or when the day's push went out already (a run again
    /// enqueues nothing twice).
    pub fn morning(picked: u32, wanted: bool, pushed_already: bool) -> Option<Push> {
        (picked > 0 && wanted && !pushed_already).then_some(Push::Introductions { count: picked })
    }

    /// Its kind.
    pub fn kind(&self) -> PushKind {
        match self {
            Push::NewMatch { .. } => PushKind::Match,
            Push::NewMessage { .. } => PushKind::Message,
            Push::Introductions { .. } => PushKind::Introductions,
            Push::MatchRemoved => PushKind::Safety,
            Push::WeMet { .. } => PushKind::WeMet,
            Push::QuietMatch { .. } => PushKind::Reminder,
            _ => PushKind::Review,
        }
    }

    /// The match whose end withdraws this push unsent: a new match, a new message, the
    /// reminder and the "We met" question are about one live match (their chat link would answer
    /// 404, their nickname may be someone the recipient blocked, and `met::question_due` asks
    /// only about a live match). None for every other push: a review decision stands whatever
    /// became of a match, and the safety notice is sent because a match was ended.
    pub fn only_while_live(&self) -> Option<i64> {
        match self {
            Push::NewMatch { match_id }
            | Push::NewMessage { match_id }
            | Push::QuietMatch { match_id }
            | Push::WeMet { match_id } => Some(*match_id),
            Push::Introductions { .. }
            | Push::Approved
            | Push::ChangesRequested { .. }
            | Push::Suspended { .. }
            | Push::RevisionApproved
            | Push::MatchRemoved
            | Push::AppealDecided { .. }
            | Push::RevisionRejected { .. } => None,
        }
    }

    /// The screen its one action opens (path and query inside the app), with `via={kind}` so
    /// that the arrival is counted by kind (and by nothing else).
    pub fn path(&self) -> String {
        let via = self.kind().as_str();
        match self {
            Push::NewMatch { match_id }
            | Push::NewMessage { match_id }
            | Push::QuietMatch { match_id } => {
                format!("/chat?match={match_id}&via={via}")
            }
            Push::Introductions { .. }
            | Push::Approved
            | Push::AppealDecided {
                reinstated: true, ..
            } => format!("/today?via={via}"),
            Push::ChangesRequested { .. }
            | Push::RevisionApproved
            | Push::RevisionRejected { .. }
            | Push::AppealDecided {
                reinstated: false, ..
            } => format!("/profile?via={via}"),
            // Signed out everywhere: the app's start shows why.
            Push::Suspended { .. } => format!("/?via={via}"),
            // The notice tops the matches list.
            Push::MatchRemoved => format!("/matches?via={via}"),
            // The question waits on top of the matches list.
            Push::WeMet { .. } => format!("/matches?via={via}"),
        }
    }
}

/// The LIFF app's permanent link to `path` (LINE opens the app and hands it the path as
/// `liff.state`).
pub fn permanent_link(liff_id: &str, path: &str) -> String {
    format!("https://liff.line.me/{liff_id}{path}")
}

/// Length as LINE counts it: UTF-16 code units.
pub fn line_chars(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `text` cut to at most `max` UTF-16 code units, an ellipsis marking a cut.
pub fn truncate(text: &str, max: usize) -> String {
    if line_chars(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        if used + c.len_utf16() > max.saturating_sub(1) {
            break;
        }
        used += c.len_utf16();
        out.push(c);
    }
    out.push('…');
    out
}

// ---- Flex Message types (only what Kizuna sends; serialised as LINE's JSON) ----

/// One message object of a push.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    /// A text message.
    Text {
        /// The text.
        text: String,
    },
    /// A Flex Message.
    Flex {
        /// What notifications, the chat list and clients without Flex show.
        #[serde(rename = "altText")]
        alt_text: String,
        /// A bubble or a carousel.
        contents: Container,
    },
}

/// A Flex container.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Container {
    /// One bubble (boxed: a bubble is large beside a carousel's list).
    Bubble(Box<Bubble>),
    /// Bubbles side by side.
    Carousel(Carousel),
}

/// A bubble: header, body and footer boxes.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "bubble")]
pub struct Bubble {
    /// `nano` … `giga`.
    pub size: &'static str,
    /// The top block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<FlexBox>,
    /// An image block (Kizuna's own artwork only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero: Option<Image>,
    /// The main block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<FlexBox>,
    /// The action block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footer: Option<FlexBox>,
}

/// A carousel of bubbles.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "carousel")]
pub struct Carousel {
    /// Its bubbles.
    pub contents: Vec<Bubble>,
}

/// A component of a box.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Component {
    /// A nested box.
    Box(FlexBox),
    /// A text.
    Text(Text),
    /// A button.
    Button(Button),
    /// An image.
    Image(Image),
}

/// A box.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "box", rename_all = "camelCase")]
pub struct FlexBox {
    /// `vertical`, `horizontal` or `baseline`.
    pub layout: &'static str,
    /// Its components.
    pub contents: Vec<Component>,
    /// The space between components.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spacing: Option<&'static str>,
    /// Its padding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding_all: Option<&'static str>,
    /// Its background (`#RRGGBB`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_color: Option<&'static str>,
}

/// A text component.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "text", rename_all = "camelCase")]
pub struct Text {
    /// The text.
    pub text: String,
    /// `xxs` … `5xl`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<&'static str>,
    /// `regular` or `bold`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<&'static str>,
    /// `#RRGGBB`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<&'static str>,
    /// Wraps rather than cuts.
    pub wrap: bool,
}

/// A button component.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "button")]
pub struct Button {
    /// What it does.
    pub action: Action,
    /// `primary`, `secondary` or `link`.
    pub style: &'static str,
    /// Its colour (`#RRGGBB`).
    pub color: &'static str,
}

/// An image component.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename = "image", rename_all = "camelCase")]
pub struct Image {
    /// HTTPS, at most [`MAX_IMAGE_URL_CHARS`].
    pub url: String,
    /// `full`, `sm`, ….
    pub size: &'static str,
    /// `w:h`.
    pub aspect_ratio: &'static str,
}

/// An action.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Action {
    /// Opens a URI.
    Uri {
        /// The button's words.
        label: String,
        /// The link.
        uri: String,
    },
}

// ---- Kizuna's bubbles ----

/// Kizuna's rose (the web app's primary colour).
const BRAND: &str = "#C2185B";
const MUTED: &str = "#5F6368";

fn text(text: impl Into<String>) -> Text {
    Text {
        text: text.into(),
        size: None,
        weight: None,
        color: None,
        wrap: true,
    }
}

fn vertical(contents: Vec<Component>) -> FlexBox {
    FlexBox {
        layout: "vertical",
        contents,
        spacing: Some("md"),
        padding_all: None,
        background_color: None,
    }
}

/// The wordmark header: Kizuna's artwork, drawn by LINE, with no image to fetch.
fn wordmark() -> FlexBox {
    FlexBox {
        layout: "vertical",
        contents: vec![Component::Text(Text {
            size: Some("sm"),
            weight: Some("bold"),
            color: Some("#FFFFFF"),
            ..text("Kizuna 絆")
        })],
        spacing: None,
        padding_all: Some("12px"),
        background_color: Some(BRAND),
    }
}

/// The label of a stored reason: its translation in `locale`, else its code.
fn reason_label(locale: Locale, (key, code): &(String, String)) -> String {
    locale
        .text(key)
        .map(str::to_string)
        .unwrap_or_else(|| code.clone())
}

/// How long a reviewer's note may be inside a bubble (the altText carries it whole, up to its
/// own limit): keeps every bubble far under [`MAX_BUBBLE_BYTES`].
const NOTE_IN_BUBBLE_CHARS: usize = 1000;

/// The push as a Flex Message in `locale`: one bubble, one button opening [`Push::path`] through
/// the LIFF app `liff_id`. `nickname` is the sender's, for a new message.
pub fn render(push: &Push, locale: Locale, liff_id: &str, nickname: Option<&str>) -> Message {
    use Locale::*;
    let nickname = nickname.map(str::trim).filter(|n| !n.is_empty());
    let t = texts(push, locale, nickname);
    let mut body = vec![Component::Text(Text {
        size: Some("lg"),
        weight: Some("bold"),
        ..text(t.title.clone())
    })];
    if let Push::Introductions { count } = push {
        body.push(Component::Text(Text {
            size: Some("4xl"),
            weight: Some("bold"),
            color: Some(BRAND),
            ..text(count.to_string())
        }));
    }
    if let Some(detail) = &t.detail {
        body.push(Component::Text(Text {
            size: Some("sm"),
            color: Some(MUTED),
            ..text(detail.clone())
        }));
    }
    match push {
        Push::AppealDecided { note, .. } => {
            if let Some(note) = note.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                body.push(Component::Text(Text {
                    size: Some("sm"),
                    color: Some(MUTED),
                    ..text(truncate(
                        &format!("{}{note}", note_heading(locale)),
                        NOTE_IN_BUBBLE_CHARS,
                    ))
                }));
            }
        }
        Push::ChangesRequested { reasons, note } | Push::RevisionRejected { reasons, note } => {
            for reason in reasons {
                body.push(Component::Text(Text {
                    size: Some("sm"),
                    ..text(format!("• {}", reason_label(locale, reason)))
                }));
            }
            if let Some(note) = note.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                let heading = match locale {
                    ZhTw => "審核人員的留言：",
                    En => "A note from our reviewer: ",
                    Ja => "審査担当者からのメッセージ：",
                };
                body.push(Component::Text(Text {
                    size: Some("sm"),
                    color: Some(MUTED),
                    ..text(truncate(&format!("{heading}{note}"), NOTE_IN_BUBBLE_CHARS))
                }));
            }
        }
        Push::Suspended { reasons } => {
            for reason in reasons {
                body.push(Component::Text(Text {
                    size: Some("sm"),
                    ..text(format!("• {}", reason_label(locale, reason)))
                }));
            }
        }
        _ => {}
    }
    let button = Button {
        action: Action::Uri {
            label: truncate(t.button, MAX_ACTION_LABEL_CHARS),
            uri: permanent_link(liff_id, &push.path()),
        },
        style: "primary",
        color: BRAND,
    };
    Message::Flex {
        alt_text: truncate(&alt_text(push, locale, nickname), MAX_ALT_TEXT_CHARS),
        contents: Container::Bubble(Box::new(Bubble {
            size: "kilo",
            header: Some(wordmark()),
            hero: None,
            body: Some(vertical(body)),
            footer: Some(vertical(vec![Component::Button(button)])),
        })),
    }
}

fn note_heading(locale: Locale) -> &'static str {
    match locale {
        Locale::ZhTw => "審核人員的留言：",
        Locale::En => "A note from our reviewer: ",
        Locale::Ja => "審査担当者からのメッセージ：",
    }
}

struct Texts {
    title: String,
    detail: Option<String>,
    button: &'static str,
}

fn texts(push: &Push, locale: Locale, nickname: Option<&str>) -> Texts {
    use Locale::*;
    let someone = match locale {
        ZhTw => "您的配對對象",
        En => "Your match",
        Ja => "マッチのお相手",
    };
    let who = nickname
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or(someone);
    let (title, detail, button) = match push {
        Push::NewMatch { .. } => match locale {
            ZhTw => (
                "配對成功！",
                Some("你們互相喜歡。現在就打聲招呼吧。"),
                "開始聊天",
            ),
            En => (
                "It's a match!",
                Some("You like each other. Say hello."),
                "Say hello",
            ),
            Ja => (
                "マッチしました！",
                Some("お互いにいいねしました。メッセージを送ってみましょう。"),
                "メッセージを送る",
            ),
        },
        Push::NewMessage { .. } => {
            let title = match locale {
                ZhTw => format!("{who} 傳了新訊息給您"),
                En => format!("New message from {who}"),
                Ja => format!("{who} さんから新しいメッセージ"),
            };
            let button = match locale {
                ZhTw => "查看訊息",
                En => "Read it",
                Ja => "メッセージを見る",
            };
            return Texts {
                title,
                detail: None,
                button,
            };
        }
        Push::WeMet { .. } => {
            let title = match (locale, nickname.map(str::trim).filter(|n| !n.is_empty())) {
                (ZhTw, Some(n)) => format!("您和 {n} 見面了嗎？"),
                (ZhTw, None) => "您和配對對象見面了嗎？".to_string(),
                (En, Some(n)) => format!("Did you meet {n}?"),
                (En, None) => "Did you meet your match?".to_string(),
                (Ja, Some(n)) => format!("{n} さんと会いましたか？"),
                (Ja, None) => "マッチのお相手と会いましたか？".to_string(),
            };
            let detail = match locale {
                ZhTw => "只有您看得到您的回答，對方不會知道。",
                En => "Only you see your answer; they are never told.",
                Ja => "回答はあなただけのものです。お相手に伝わることはありません。",
            };
            let button = match locale {
                ZhTw => "回答",
                En => "Answer",
                Ja => "回答する",
            };
            return Texts {
                title,
                detail: Some(detail.to_string()),
                button,
            };
        }
        Push::Introductions { count } => {
            let title = match (locale, count) {
                (ZhTw, _) => "今天的介紹對象".to_string(),
                (En, 1) => "Today's introduction".to_string(),
                (En, _) => "Today's introductions".to_string(),
                (Ja, _) => "今日の紹介".to_string(),
            };
            let button = match locale {
                ZhTw => "查看介紹",
                En => "See them",
                Ja => "紹介を見る",
            };
            return Texts {
                title,
                detail: None,
                button,
            };
        }
        Push::Approved => match locale {
            ZhTw => (
                "個人檔案已通過審核",
                Some("我們很快就會開始為您介紹對象。"),
                "查看今天的介紹",
            ),
            En => (
                "Your profile is approved",
                Some("Your introductions start soon."),
                "Open Kizuna",
            ),
            Ja => (
                "プロフィールが承認されました",
                Some("まもなく紹介が始まります。"),
                "Kizuna を開く",
            ),
        },
        Push::ChangesRequested { .. } => match locale {
            ZhTw => (
                "請修改您的個人檔案",
                Some("修改以下項目後重新送出："),
                "修改個人檔案",
            ),
            En => (
                "Please update your profile",
                Some("Change the following and submit it again:"),
                "Edit my profile",
            ),
            Ja => (
                "プロフィールを修正してください",
                Some("次の点を修正して、もう一度送信してください："),
                "プロフィールを編集",
            ),
        },
        Push::Suspended { .. } => match locale {
            ZhTw => ("您的帳號已被停權", Some("原因："), "開啟 Kizuna"),
            En => ("Your account is suspended", Some("Reason:"), "Open Kizuna"),
            Ja => (
                "アカウントは利用停止になりました",
                Some("理由："),
                "Kizuna を開く",
            ),
        },
        Push::MatchRemoved => match locale {
            ZhTw => (
                "安全通知：一位配對對象已被移除",
                Some(
                    "一位您最近配對過的會員因違反規定，已被移出 Kizuna。如果對方向您要錢或個人資料，請什麼都不要給。有疑慮請撥 165 反詐騙專線。",
                ),
                "查看通知",
            ),
            En => (
                "Safety notice: a match was removed",
                Some(
                    "Someone you matched with recently was removed from Kizuna for breaking the rules. If they asked you for money or personal details, send nothing. Worried? Call 165 (Taiwan) or #9110 (Japan).",
                ),
                "Read the notice",
            ),
            Ja => (
                "安全のお知らせ：マッチのお相手が退会処分になりました",
                Some(
                    "最近マッチしたお相手が、規約違反により Kizuna から退会処分となりました。お金や個人情報を求められていても、何も送らないでください。不安なときは #9110（警察相談専用電話）へ。",
                ),
                "お知らせを見る",
            ),
        },
        Push::QuietMatch { .. } => {
            let (days, expiry) = (
                crate::rules::QUIET_MATCH_REMINDER_DAYS,
                crate::rules::QUIET_MATCH_EXPIRY_DAYS,
            );
            let (title, detail, button) = match locale {
                ZhTw => (
                    format!("和 {who} 打聲招呼吧"),
                    format!(
                        "你們配對 {days} 天了，還沒有人傳訊息。配對後 {expiry} 天內都沒有訊息，配對就會結束。"
                    ),
                    "傳送訊息",
                ),
                En => (
                    format!("Say hello to {who}"),
                    format!(
                        "You matched {days} days ago and neither of you has written yet. A match with no message closes after {expiry} days."
                    ),
                    "Say hello",
                ),
                Ja => (
                    format!("{who} さんにあいさつしませんか"),
                    format!(
                        "マッチして {days} 日、まだどちらもメッセージを送っていません。{expiry} 日間メッセージがないマッチは終了します。"
                    ),
                    "メッセージを送る",
                ),
            };
            return Texts {
                title,
                detail: Some(detail),
                button,
            };
        }
        Push::RevisionApproved => match locale {
            ZhTw => (
                "修改已通過審核",
                Some("其他會員現在看到的是新版本。"),
                "查看個人檔案",
            ),
            En => (
                "Your changes are approved",
                Some("Others now see them."),
                "See my profile",
            ),
            Ja => (
                "変更が承認されました",
                Some("他の会員にも新しい内容が表示されます。"),
                "プロフィールを見る",
            ),
        },
        Push::AppealDecided {
            reinstated: true, ..
        } => match locale {
            ZhTw => (
                "申訴結果：帳號已恢復",
                Some("另一位審核人員重新審視了您的申訴，並恢復了您的帳號。"),
                "開啟 Kizuna",
            ),
            En => (
                "Your appeal: account reinstated",
                Some("Another reviewer looked at your appeal and reinstated your account."),
                "Open Kizuna",
            ),
            Ja => (
                "申し立ての結果：アカウントを復元しました",
                Some("別の審査担当者が申し立てを確認し、アカウントを復元しました。"),
                "Kizuna を開く",
            ),
        },
        Push::AppealDecided {
            reinstated: false, ..
        } => match locale {
            ZhTw => (
                "申訴結果：維持停權",
                Some("另一位審核人員重新審視了您的申訴，決定維持停權。"),
                "查看說明",
            ),
            En => (
                "Your appeal: the suspension stands",
                Some("Another reviewer looked at your appeal and kept the suspension."),
                "See why",
            ),
            Ja => (
                "申し立ての結果：利用停止を継続します",
                Some("別の審査担当者が申し立てを確認し、利用停止を継続すると判断しました。"),
                "詳細を見る",
            ),
        },
        Push::RevisionRejected { .. } => match locale {
            ZhTw => (
                "修改未通過審核",
                Some("其他會員仍看到原本的版本。請修改以下項目："),
                "修改個人檔案",
            ),
            En => (
                "Your changes were not approved",
                Some("Others still see the approved version. Please change:"),
                "Edit my profile",
            ),
            Ja => (
                "変更は承認されませんでした",
                Some("他の会員には元の内容が表示されています。次の点を修正してください："),
                "プロフィールを編集",
            ),
        },
    };
    Texts {
        title: title.to_string(),
        detail: detail.map(str::to_string),
        button,
    }
}

/// The push as one sentence (the Flex Message's `altText`, which notifications show).
pub fn alt_text(push: &Push, locale: Locale, nickname: Option<&str>) -> String {
    use Locale::*;
    let labels = |reasons: &[(String, String)]| {
        reasons
            .iter()
            .map(|r| reason_label(locale, r))
            .collect::<Vec<_>>()
    };
    match push {
        Push::Introductions { count } => match (locale, count) {
            (ZhTw, n) => format!("今天有 {n} 位新的介紹對象在等您。"),
            (En, 1) => "You have 1 new introduction today.".to_string(),
            (En, n) => format!("You have {n} new introductions today."),
            (Ja, n) => format!("今日は新しい紹介が {n} 件あります。"),
        },
        Push::NewMessage { .. } => texts(push, locale, nickname).title,
        Push::ChangesRequested { reasons, note } | Push::RevisionRejected { reasons, note } => {
            let t = texts(push, locale, nickname);
            let mut out = format!("{}: {}", t.title, labels(reasons).join(" / "));
            if let Some(note) = note.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                out.push_str(" — ");
                out.push_str(note);
            }
            out
        }
        Push::Suspended { reasons } => {
            let t = texts(push, locale, nickname);
            format!("{} {}", t.title, labels(reasons).join(" / "))
        }
        _ => {
            let t = texts(push, locale, nickname);
            match t.detail {
                Some(detail) => format!("{} {detail}", t.title),
                None => t.title,
            }
        }
    }
}

// ---- The funnel `kizuna-server funnel` prints ----

/// The counts of a day or range: introduction → like → match → first message → reply within a
/// day, and per push kind the pushes LINE accepted and the visits their links brought.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Funnel {
    /// Introductions shown.
    pub introductions: i64,
    /// Likes given.
    pub likes: i64,
    /// Matches made.
    pub matches: i64,
    /// Of those matches, the ones with a first message.
    pub first_messages: i64,
    /// Of those, the ones the other member answered within a day of the first message.
    pub replies_within_a_day: i64,
    /// "We met" answers given in the range that say they met (one per member and match).
    pub we_met: i64,
    /// Of those, the ones that want to see the other again.
    pub see_again: i64,
    /// Of the matches made, the ones that expired because nobody wrote
    /// (`conversation::quiet_match_step`).
    pub expired: i64,
    /// Per push kind: (kind, sent, visits).
    pub pushes: Vec<(String, i64, i64)>,
}

/// `part` as a percentage of `whole` (one decimal), or "–" when there is no whole.
pub fn percent(part: i64, whole: i64) -> String {
    if whole <= 0 {
        return "–".to_string();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

impl Funnel {
    /// The table: each stage with its count and its rate from the stage before, then the pushes
    /// by kind (every kind, sent or not) with the visits they brought.
    pub fn table(&self, title: &str) -> String {
        let mut out = format!("Funnel {title}\n");
        out.push_str(&format!("{:<24}{:>10}  {}\n", "stage", "count", "rate"));
        let stages = [
            ("introductions", self.introductions, None),
            (
                "likes",
                self.likes,
                Some(("introductions", self.introductions)),
            ),
            ("matches", self.matches, Some(("likes", self.likes))),
            (
                "first messages",
                self.first_messages,
                Some(("matches", self.matches)),
            ),
            (
                "replies within a day",
                self.replies_within_a_day,
                Some(("first messages", self.first_messages)),
            ),
            (
                "expired, nobody wrote",
                self.expired,
                Some(("matches", self.matches)),
            ),
            ("we met", self.we_met, None),
            (
                "want to see again",
                self.see_again,
                Some(("we met", self.we_met)),
            ),
        ];
        for (name, count, before) in stages {
            let rate = before
                .map(|(of, whole)| format!("{} of {of}", percent(count, whole)))
                .unwrap_or_default();
            out.push_str(format!("{name:<24}{count:>10}  {rate}").trim_end());
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&format!(
            "{:<24}{:>10}{:>10}  {}\n",
            "push", "sent", "visits", "visits per push"
        ));
        for kind in PushKind::ALL {
            let (sent, visits) = self
                .pushes
                .iter()
                .find(|(k, _, _)| k == kind.as_str())
                .map_or((0, 0), |(_, s, v)| (*s, *v));
            out.push_str(&format!(
                "{:<24}{sent:>10}{visits:>10}  {}\n",
                kind.as_str(),
                percent(visits, sent)
            ));
        }
        out
    }
}

// ---- LINE's limits, checked on the JSON that is sent ----

/// Why LINE would refuse a push (its wording, for the mock's 400 answer and the server's log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into()))
}

fn size_of(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |v| v.len())
}

/// Checks a push request's `messages` array against LINE's limits: 1 to [`MAX_MESSAGES`]
/// messages; a text of 1 to [`MAX_TEXT_CHARS`]; a Flex Message with an `altText` of 1 to
/// [`MAX_ALT_TEXT_CHARS`] and a bubble or carousel within its size and bubble count; every image
/// HTTPS and every URI action's link and label within their limits.
pub fn check_messages(messages: &Value) -> Result<(), Refusal> {
    let Some(list) = messages.as_array() else {
        return refuse("messages must be an array");
    };
    if !(1..=MAX_MESSAGES).contains(&list.len()) {
        return refuse(format!(
            "Number of messages should be in range 1 to {MAX_MESSAGES}."
        ));
    }
    for message in list {
        match message["type"].as_str() {
            Some("text") => {
                let text = message["text"].as_str().unwrap_or_default();
                if text.trim().is_empty() || line_chars(text) > MAX_TEXT_CHARS {
                    return refuse(format!(
                        "A text message has 1 to {MAX_TEXT_CHARS} characters."
                    ));
                }
            }
            Some("flex") => {
                let alt = message["altText"].as_str().unwrap_or_default();
                if alt.trim().is_empty() || line_chars(alt) > MAX_ALT_TEXT_CHARS {
                    return refuse(format!(
                        "altText must have 1 to {MAX_ALT_TEXT_CHARS} characters."
                    ));
                }
                check_container(&message["contents"])?;
            }
            _ => return refuse("unknown message type"),
        }
    }
    Ok(())
}

fn check_container(contents: &Value) -> Result<(), Refusal> {
    match contents["type"].as_str() {
        Some("bubble") => check_bubble(contents),
        Some("carousel") => {
            let Some(bubbles) = contents["contents"].as_array() else {
                return refuse("a carousel has bubbles");
            };
            if bubbles.is_empty() || bubbles.len() > MAX_CAROUSEL_BUBBLES {
                return refuse(format!(
                    "A carousel has 1 to {MAX_CAROUSEL_BUBBLES} bubbles."
                ));
            }
            if size_of(contents) > MAX_CAROUSEL_BYTES {
                return refuse(format!("A carousel is at most {MAX_CAROUSEL_BYTES} bytes."));
            }
            bubbles.iter().try_for_each(check_bubble)
        }
        _ => refuse("contents must be a bubble or a carousel"),
    }
}

fn check_bubble(bubble: &Value) -> Result<(), Refusal> {
    if bubble["type"] != "bubble" {
        return refuse("a carousel holds bubbles only");
    }
    if size_of(bubble) > MAX_BUBBLE_BYTES {
        return refuse(format!("A bubble is at most {MAX_BUBBLE_BYTES} bytes."));
    }
    check_parts(bubble)
}

/// Images and actions anywhere inside.
fn check_parts(value: &Value) -> Result<(), Refusal> {
    match value {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("image") {
                let url = map.get("url").and_then(Value::as_str).unwrap_or_default();
                if !url.starts_with("https://") || url.chars().count() > MAX_IMAGE_URL_CHARS {
                    return refuse(format!(
                        "An image URL is HTTPS and at most {MAX_IMAGE_URL_CHARS} characters."
                    ));
                }
            }
            if let Some(action) = map.get("action").filter(|a| a["type"] == "uri") {
                let uri = action["uri"].as_str().unwrap_or_default();
                let scheme_ok = ["http://", "https://", "line://", "tel:"]
                    .iter()
                    .any(|s| uri.starts_with(s));
                if !scheme_ok || uri.chars().count() > MAX_URI_CHARS {
                    return refuse(format!(
                        "A URI action's uri is http, https, line or tel, at most {MAX_URI_CHARS} characters."
                    ));
                }
                let label = action["label"].as_str().unwrap_or_default();
                if line_chars(label) > MAX_ACTION_LABEL_CHARS {
                    return refuse(format!(
                        "An action's label is at most {MAX_ACTION_LABEL_CHARS} characters."
                    ));
                }
            }
            map.values().try_for_each(check_parts)
        }
        Value::Array(items) => items.iter().try_for_each(check_parts),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_we_met_question_names_the_match_by_nickname_in_every_language_and_says_it_is_private() {
        let push = Push::WeMet { match_id: 9 };
        assert_eq!(push.kind(), PushKind::WeMet);
        assert_eq!(PushKind::parse("we_met"), Some(PushKind::WeMet));
        for (locale, title) in [
            (Locale::En, "Did you meet Mei?"),
            (Locale::ZhTw, "您和 Mei 見面了嗎？"),
            (Locale::Ja, "Mei さんと会いましたか？"),
        ] {
            let alt = alt_text(&push, locale, Some("Mei"));
            assert!(alt.starts_with(title), "{alt}");
        }
        assert!(alt_text(&push, Locale::En, None).starts_with("Did you meet your match?"));
        assert!(alt_text(&push, Locale::En, Some("Mei")).contains("never told"));
    }

    #[test]
    fn the_morning_push_goes_to_a_member_with_picks_who_wants_it_once() {
        assert_eq!(
            Push::morning(3, true, false),
            Some(Push::Introductions { count: 3 })
        );
        assert_eq!(Push::morning(0, true, false), None, "an empty list");
        assert_eq!(Push::morning(3, false, false), None, "switched off");
        assert_eq!(Push::morning(3, true, true), None, "pushed already");
    }

    const LIFF: &str = "2000000000-AbCdEfGh";

    fn reasons() -> Vec<(String, String)> {
        vec![
            (
                "review.reject.EMAIL_NOT_CONFIRMED".to_string(),
                "EMAIL_NOT_CONFIRMED".to_string(),
            ),
            ("no.such.key".to_string(), "NEW_CODE".to_string()),
        ]
    }

    fn every_push() -> Vec<Push> {
        vec![
            Push::NewMatch { match_id: 3 },
            Push::NewMessage { match_id: 4 },
            Push::Introductions { count: 5 },
            Push::Approved,
            Push::ChangesRequested {
                reasons: reasons(),
                note: Some("Smile!".into()),
            },
            Push::Suspended { reasons: reasons() },
            Push::MatchRemoved,
            Push::RevisionApproved,
            Push::RevisionRejected {
                reasons: reasons(),
                note: None,
            },
            Push::AppealDecided {
                reinstated: true,
                note: Some("Sorry for the trouble.".into()),
            },
            Push::AppealDecided {
                reinstated: false,
                note: None,
            },
            Push::WeMet { match_id: 9 },
            Push::QuietMatch { match_id: 6 },
        ]
    }

    fn json_of(message: &Message) -> Value {
        serde_json::to_value([message]).unwrap()
    }

    #[test]
    fn every_push_in_every_language_is_a_flex_message_line_accepts() {
        for push in every_push() {
            for locale in Locale::ALL {
                let json = json_of(&render(&push, locale, LIFF, Some("Mei")));
                check_messages(&json).unwrap_or_else(|r| panic!("{push:?} {locale}: {r}"));
                assert_eq!(json[0]["type"], "flex");
                assert_eq!(json[0]["contents"]["type"], "bubble");
                assert!(!json[0]["altText"].as_str().unwrap().trim().is_empty());
            }
        }
    }

    #[test]
    fn a_push_about_a_match_goes_only_while_that_match_is_live_and_no_other_push_waits_on_one() {
        for (push, live) in [
            (Push::NewMatch { match_id: 3 }, Some(3)),
            (Push::NewMessage { match_id: 4 }, Some(4)),
            (Push::QuietMatch { match_id: 6 }, Some(6)),
            (Push::WeMet { match_id: 9 }, Some(9)),
            (Push::Introductions { count: 2 }, None),
            (Push::Approved, None),
            (Push::MatchRemoved, None),
            (Push::RevisionApproved, None),
            (
                Push::Suspended {
                    reasons: vec![("k".into(), "c".into())],
                },
                None,
            ),
            (
                Push::AppealDecided {
                    reinstated: false,
                    note: None,
                },
                None,
            ),
        ] {
            assert_eq!(push.only_while_live(), live, "{push:?}");
        }
    }

    #[test]
    fn each_push_has_one_action_opening_its_exact_screen_by_permanent_link() {
        let expected = [
            "/chat?match=3&via=match",
            "/chat?match=4&via=message",
            "/today?via=introductions",
            "/today?via=review",
            "/profile?via=review",
            "/?via=review",
            "/matches?via=safety",
            "/profile?via=review",
            "/profile?via=review",
            "/today?via=review",
            "/profile?via=review",
            "/matches?via=we_met",
            "/chat?match=6&via=reminder",
        ];
        assert_eq!(expected.len(), every_push().len());
        for (push, path) in every_push().iter().zip(expected) {
            let json = json_of(&render(push, Locale::Ja, LIFF, None)).to_string();
            let links: Vec<_> = json.match_indices("\"uri\":").collect();
            assert_eq!(links.len(), 1, "{push:?}");
            assert!(
                json.contains(&format!("https://liff.line.me/{LIFF}{path}")),
                "{push:?}: {json}"
            );
        }
    }

    #[test]
    fn no_push_carries_a_photo_or_another_members_text() {
        for push in every_push() {
            let json = json_of(&render(&push, Locale::En, LIFF, Some("Mei")));
            assert!(!json.to_string().contains("\"image\""), "{push:?}");
            let names = json.to_string().matches("Mei").count();
            let expected = usize::from(matches!(
                push,
                Push::NewMessage { .. } | Push::WeMet { .. } | Push::QuietMatch { .. }
            )) * 2;
            assert_eq!(
                names, expected,
                "{push:?}: only the other member's nickname, title and altText"
            );
        }
    }

    #[test]
    fn texts_differ_by_language_and_fill_their_placeholders() {
        for push in every_push() {
            let alts: Vec<String> = Locale::ALL
                .iter()
                .map(|&l| alt_text(&push, l, Some("Ken")))
                .collect();
            assert_ne!(alts[0], alts[1], "{push:?}");
            assert_ne!(alts[1], alts[2], "{push:?}");
        }
        assert_eq!(
            alt_text(&Push::Introductions { count: 1 }, Locale::En, None),
            "You have 1 new introduction today."
        );
        assert!(
            alt_text(&Push::NewMessage { match_id: 1 }, Locale::Ja, Some("Ken")).starts_with("Ken")
        );
        // A sender without a nickname is still a sentence.
        assert_eq!(
            alt_text(&Push::NewMessage { match_id: 1 }, Locale::En, Some("  ")),
            "New message from Your match"
        );
        let rejected = alt_text(&every_push()[4], Locale::En, None);
        assert!(
            rejected.contains("NEW_CODE"),
            "an unknown reason stays visible: {rejected}"
        );
        assert!(rejected.contains("Smile!"), "{rejected}");
    }

    #[test]
    fn a_huge_note_is_cut_to_lines_limits() {
        let push = Push::ChangesRequested {
            reasons: reasons(),
            note: Some("😀".repeat(40_000)),
        };
        let message = render(&push, Locale::En, LIFF, None);
        let json = json_of(&message);
        check_messages(&json).unwrap();
        let alt = json[0]["altText"].as_str().unwrap();
        assert!(line_chars(alt) <= MAX_ALT_TEXT_CHARS && alt.ends_with('…'));
    }

    #[test]
    fn counting_is_in_utf16_code_units() {
        assert_eq!(line_chars("a絆😀"), 4);
        assert_eq!(truncate("😀😀😀", 4), "😀…");
        assert_eq!(truncate("abc", 3), "abc");
    }

    fn bubble_with(component: Value) -> Value {
        json!({"type": "bubble", "body": {"type": "box", "layout": "vertical", "contents": [component]}})
    }

    fn flex(contents: Value) -> Value {
        json!([{"type": "flex", "altText": "hi", "contents": contents}])
    }

    #[test]
    fn the_limits_refuse_what_line_refuses() {
        let ok_text = json!({"type": "text", "text": "x"});
        assert!(check_messages(&flex(bubble_with(ok_text.clone()))).is_ok());
        // altText
        let alt = |alt: String| json!([{"type": "flex", "altText": alt, "contents": bubble_with(ok_text.clone())}]);
        assert!(check_messages(&alt("a".repeat(MAX_ALT_TEXT_CHARS))).is_ok());
        assert!(check_messages(&alt("a".repeat(MAX_ALT_TEXT_CHARS + 1))).is_err());
        assert!(check_messages(&alt("😀".repeat(MAX_ALT_TEXT_CHARS / 2 + 1))).is_err());
        assert!(check_messages(&alt(" ".into())).is_err());
        // bubble size
        let big = |n: usize| bubble_with(json!({"type": "text", "text": "a".repeat(n)}));
        let overhead = size_of(&big(0));
        assert!(check_messages(&flex(big(MAX_BUBBLE_BYTES - overhead))).is_ok());
        assert!(check_messages(&flex(big(MAX_BUBBLE_BYTES - overhead + 1))).is_err());
        // carousel: count and size
        let carousel = |bubbles: Vec<Value>| json!({"type": "carousel", "contents": bubbles});
        let small = bubble_with(ok_text.clone());
        assert!(check_messages(&flex(carousel(vec![small.clone(); MAX_CAROUSEL_BUBBLES]))).is_ok());
        assert!(check_messages(&flex(carousel(vec![small; MAX_CAROUSEL_BUBBLES + 1]))).is_err());
        assert!(check_messages(&flex(carousel(vec![big(20_000); 2]))).is_ok());
        assert!(check_messages(&flex(carousel(vec![big(20_000); 3]))).is_err());
        // images: HTTPS and length
        let image = |url: String| flex(bubble_with(json!({"type": "image", "url": url})));
        assert!(check_messages(&image("https://kizuna.example/a.png".into())).is_ok());
        assert!(check_messages(&image("http://kizuna.example/a.png".into())).is_err());
        let long = format!("https://k.example/{}", "a".repeat(MAX_IMAGE_URL_CHARS));
        assert!(check_messages(&image(long)).is_err());
        // URI actions
        let button = |label: &str, uri: String| {
            flex(bubble_with(
                json!({"type": "button", "action": {"type": "uri", "label": label, "uri": uri}}),
            ))
        };
        assert!(check_messages(&button("Go", "https://liff.line.me/x".into())).is_ok());
        assert!(check_messages(&button("Go", "javascript:alert(1)".into())).is_err());
        assert!(
            check_messages(&button(
                "Go",
                format!("https://x/{}", "a".repeat(MAX_URI_CHARS))
            ))
            .is_err()
        );
        assert!(
            check_messages(&button(
                &"a".repeat(MAX_ACTION_LABEL_CHARS + 1),
                "https://x".into()
            ))
            .is_err()
        );
        // messages per push, text length
        let texts = |n: usize| Value::Array(vec![json!({"type": "text", "text": "x"}); n]);
        assert!(check_messages(&texts(MAX_MESSAGES)).is_ok());
        assert!(check_messages(&texts(MAX_MESSAGES + 1)).is_err());
        assert!(check_messages(&texts(0)).is_err());
        let long_text = json!([{"type": "text", "text": "a".repeat(MAX_TEXT_CHARS + 1)}]);
        assert!(check_messages(&long_text).is_err());
        assert!(
            check_messages(&json!([{"type": "flex", "altText": "x", "contents": {"type": "box"}}]))
                .is_err()
        );
    }

    #[test]
    fn the_funnel_prints_counts_and_rates_for_every_stage_and_kind() {
        let funnel = Funnel {
            introductions: 10,
            likes: 4,
            matches: 2,
            first_messages: 1,
            replies_within_a_day: 0,
            we_met: 4,
            see_again: 3,
            expired: 1,
            pushes: vec![("match".into(), 2, 1)],
        };
        let table = funnel.table("2026-11-25");
        assert!(
            table.contains("likes                            4  40.0% of introductions"),
            "{table}"
        );
        assert!(
            table.contains("replies within a day             0  0.0% of first messages"),
            "{table}"
        );
        assert!(
            table.contains("expired, nobody wrote            1  50.0% of matches"),
            "{table}"
        );
        assert!(
            table.contains("reminder                         0         0  –"),
            "{table}"
        );
        assert!(
            table.contains("match                            2         1  50.0%"),
            "{table}"
        );
        assert!(
            table.contains("introductions                    0         0  –"),
            "{table}"
        );
        assert!(
            table.contains("want to see again                3  75.0% of we met"),
            "{table}"
        );
        assert!(
            table.contains("we_met                           0         0  –"),
            "{table}"
        );
        assert_eq!(percent(1, 0), "–");
    }

    #[test]
    fn the_stored_form_is_kind_and_ids() {
        let stored = serde_json::to_value(Push::NewMessage { match_id: 9 }).unwrap();
        assert_eq!(stored, json!({"push": "new_message", "match_id": 9}));
        for push in every_push() {
            let back: Push = serde_json::from_value(serde_json::to_value(&push).unwrap()).unwrap();
            assert_eq!(back, push);
            assert_eq!(PushKind::parse(push.kind().as_str()), Some(push.kind()));
        }
    }
}
