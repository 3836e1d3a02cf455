//! The member's language for what the server itself writes to them (LINE pushes, e-mails): zh-TW,
//! en or ja, with en as the fallback, matched the way the web app picks its locale (`zh*` →
//! zh-TW, `ja*` → ja, `en*` → en).
//!
//! The web app sends its current locale as `Accept-Language`; login stores it on `users.locale`
//! (see `storage::locale`), so a push written later by a reviewer's decision speaks the member's
//! language.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Locale {
    ZhTw,
    En,
    Ja,
}

impl Locale {
    pub const ALL: [Locale; 3] = [Locale::ZhTw, Locale::En, Locale::Ja];

    /// What a member without a stored (or recognised) language reads.
    pub const FALLBACK: Locale = Locale::En;

    /// The BCP 47 tag, as the web app names its locales.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::ZhTw => "zh-TW",
            Locale::En => "en",
            Locale::Ja => "ja",
        }
    }

    /// The locale of a language tag (`zh-Hant-TW`, `ja-JP`, `en-US`, …), if it is one of ours.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag
            .trim()
            .split(['-', '_'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match primary.as_str() {
            "zh" => Some(Locale::ZhTw),
            "ja" => Some(Locale::Ja),
            "en" => Some(Locale::En),
            _ => None,
        }
    }

    /// The preferred one of our locales in an `Accept-Language` header (highest `q` first, the
    /// earlier entry on a tie); None when it names none of them.
    pub fn from_accept_language(header: &str) -> Option<Locale> {
        let mut best: Option<(f32, Locale)> = None;
        for entry in header.split(',') {
            let mut parts = entry.split(';');
            let Some(locale) = parts.next().and_then(Locale::from_tag) else {
                continue;
            };
            let mut q = 1.0f32;
            for param in parts {
                if let Some((name, value)) = param.split_once('=')
                    && name.trim().eq_ignore_ascii_case("q")
                {
                    q = value.trim().parse().unwrap_or(0.0);
                }
            }
            if q > 0.0 && best.is_none_or(|(best_q, _)| q > best_q) {
                best = Some((q, locale));
            }
        }
        best.map(|(_, locale)| locale)
    }

    /// The locale of a request's `Accept-Language`, if it names one of ours.
    pub fn of_request(req: &poem::Request) -> Option<Locale> {
        req.headers()
            .get(poem::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .and_then(Locale::from_accept_language)
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_apps_own_tags_map_to_themselves() {
        for locale in Locale::ALL {
            assert_eq!(Locale::from_tag(locale.tag()), Some(locale));
            assert_eq!(Locale::from_accept_language(locale.tag()), Some(locale));
        }
    }

    #[test]
    fn regional_and_script_variants_map_like_the_web_app() {
        assert_eq!(Locale::from_tag("zh-Hant-TW"), Some(Locale::ZhTw));
        assert_eq!(Locale::from_tag("ja-JP"), Some(Locale::Ja));
        assert_eq!(Locale::from_tag("EN_us"), Some(Locale::En));
        assert_eq!(Locale::from_tag("th"), None);
        assert_eq!(Locale::from_tag(""), None);
    }

    #[test]
    fn the_highest_quality_known_language_wins() {
        assert_eq!(
            Locale::from_accept_language("th-TH,th;q=0.9,ja;q=0.5,en;q=0.4"),
            Some(Locale::Ja)
        );
        assert_eq!(
            Locale::from_accept_language("en;q=0.2, zh-TW"),
            Some(Locale::ZhTw)
        );
        assert_eq!(
            Locale::from_accept_language("ja, en"),
            Some(Locale::Ja),
            "the earlier entry wins a tie"
        );
        assert_eq!(
            Locale::from_accept_language("ja;q=0, en;q=0.1"),
            Some(Locale::En)
        );
        assert_eq!(Locale::from_accept_language("fr, de;q=0.8"), None);
        assert_eq!(Locale::from_accept_language(""), None);
        assert_eq!(Locale::from_accept_language("*"), None);
    }
}
