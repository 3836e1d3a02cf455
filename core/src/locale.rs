//! The member's language: zh-TW, en or ja, from a language tag (LIFF's language, the
//! `Accept-Language` the web app sends). The languages, the fallback and which primary subtag picks
//! which language are data in `core/data/locales.json`, which the web app reads too; the texts both
//! sides show (reason labels) are `core/data/texts/<tag>.json`, which the web app's message
//! catalogues include at build time and the server reads through [`Locale::text`].
#![warn(missing_docs)]

use std::fmt;

include!(concat!(env!("OUT_DIR"), "/locale_data.rs"));

/// One of the service's languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Locale {
    /// Traditional Chinese (Taiwan).
    ZhTw,
    /// English.
    En,
    /// Japanese.
    Ja,
}

impl Locale {
    /// Every locale, in `locales.json`'s order.
    pub const ALL: [Locale; 3] = [Locale::ZhTw, Locale::En, Locale::Ja];

    /// The BCP 47 tag, as the web app names its locales.
    pub fn tag(self) -> &'static str {
        match self {
            Locale::ZhTw => "zh-TW",
            Locale::En => "en",
            Locale::Ja => "ja",
        }
    }

    /// The locale named exactly by one of `locales.json`'s tags (listed in [`Locale::ALL`]'s
    /// order, which a test checks).
    fn of_exact_tag(tag: &str) -> Option<Locale> {
        LOCALE_TAGS
            .iter()
            .position(|t| *t == tag)
            .map(|i| Locale::ALL[i])
    }

    /// What a member without a stored (or recognised) language reads.
    pub fn fallback() -> Locale {
        Locale::of_exact_tag(FALLBACK_TAG).expect("locales.json's fallback is one of the locales")
    }

    /// The locale of a language tag (`zh-Hant-TW`, `ja-JP`, `en-US`, …) by its primary subtag, if
    /// it is one of ours.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        let primary = tag
            .trim()
            .split(['-', '_'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        PRIMARY_LANGUAGES
            .iter()
            .find(|(language, _)| *language == primary)
            .and_then(|(_, tag)| Locale::of_exact_tag(tag))
    }

    /// The locale the app shows for a language tag: [`Locale::from_tag`], else the fallback.
    pub fn pick(language: &str) -> Locale {
        Locale::from_tag(language).unwrap_or_else(Locale::fallback)
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

    /// A text both the web app and the server show (`review.reject.PHOTOS_UNCLEAR`), in this
    /// language.
    pub fn text(self, key: &str) -> Option<&'static str> {
        TEXTS
            .iter()
            .find(|(tag, _)| *tag == self.tag())
            .and_then(|(_, texts)| texts.iter().find(|(k, _)| *k == key))
            .map(|(_, text)| *text)
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
    use crate::report::ReportReason;
    use crate::review::{RejectReason, SuspendReason};

    #[test]
    fn the_locales_of_the_data_are_the_enums() {
        let tags: Vec<&str> = Locale::ALL.iter().map(|l| l.tag()).collect();
        assert_eq!(tags, LOCALE_TAGS);
        assert_eq!(Locale::fallback(), Locale::En);
        for (_, tag) in PRIMARY_LANGUAGES {
            assert!(Locale::of_exact_tag(tag).is_some(), "{tag}");
        }
    }

    #[test]
    fn the_web_apps_own_tags_map_to_themselves() {
        for locale in Locale::ALL {
            assert_eq!(Locale::from_tag(locale.tag()), Some(locale));
            assert_eq!(Locale::from_accept_language(locale.tag()), Some(locale));
        }
    }

    #[test]
    fn regional_and_script_variants_map_by_their_primary_language() {
        assert_eq!(Locale::from_tag("zh-Hant-TW"), Some(Locale::ZhTw));
        assert_eq!(Locale::from_tag("ja-JP"), Some(Locale::Ja));
        assert_eq!(Locale::from_tag("EN_us"), Some(Locale::En));
        assert_eq!(Locale::from_tag("th"), None);
        assert_eq!(Locale::from_tag(""), None);
        assert_eq!(Locale::pick("th"), Locale::En);
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

    #[test]
    fn every_reason_has_a_distinct_label_in_every_locale() {
        let keys: Vec<&str> = RejectReason::ALL
            .iter()
            .map(|r| r.key())
            .chain(SuspendReason::ALL.iter().map(|r| r.key()))
            .chain(ReportReason::ALL.iter().map(|r| r.key()))
            .collect();
        for locale in Locale::ALL {
            for key in &keys {
                let label = locale.text(key);
                assert!(
                    label.is_some_and(|l| !l.trim().is_empty() && l != *key),
                    "{key} in {locale}"
                );
            }
        }
        assert_ne!(Locale::Ja.text(keys[0]), Locale::En.text(keys[0]));
    }

    #[test]
    fn every_locale_has_the_same_texts() {
        let keys = |tag: &str| -> Vec<&str> {
            let (_, texts) = TEXTS.iter().find(|(t, _)| *t == tag).unwrap();
            let mut keys: Vec<&str> = texts.iter().map(|(k, _)| *k).collect();
            keys.sort_unstable();
            keys
        };
        for tag in LOCALE_TAGS {
            assert_eq!(keys(tag), keys(FALLBACK_TAG), "{tag}");
        }
    }
}
