//! The rules the web build asks of the core at build time (`virtual:core-rules`, through the
//! `kizuna-wasm-rules` package run in Node): each is defined in its own module, and gathered here
//! so that no rule module depends on another for the web's sake.

use crate::error_code::ErrorCode;
use crate::push;
use crate::review::{ReviewAction, ReviewStatus, reviewer_picks_employer};
use crate::revision::{self, OnSave};
use crate::rules::{self, RangeRule};
use serde::Serialize;

/// The rules the web applies in code that does not load the core (a like's comment, a report's
/// text, the pass's undo, when the matchmaking day starts, how long a session lasts and which
/// errors end it, the fields fixed after approval, the review console's decisions). The web build
/// asks them of a wasm package of their own at build time (`virtual:core-rules`), so each is
/// defined only here and none of it weighs on the register form's wasm.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct WebRules {
    /// The limits of every field, by wire name ([`rules::limits`]).
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, RangeRule>"))]
    #[serde(serialize_with = "crate::catalogue::as_map")]
    pub limits: Vec<(&'static str, RangeRule)>,
    /// How long a pass may be taken back, in seconds ([`rules::PASS_UNDO_SECS`]): the web's Undo
    /// shows as long.
    pub pass_undo_secs: i64,
    /// The matchmaking day's offset from UTC, in seconds ([`rules::TAIPEI_UTC_OFFSET_SECS`]):
    /// the web says when the next introductions come.
    pub taipei_utc_offset_secs: i64,
    /// How long a session lasts, in seconds ([`rules::SESSION_TTL_SECS`]): the web's cookies
    /// last as long.
    pub session_ttl_secs: i64,
    /// The error codes after which the web drops its session ([`ErrorCode::clears_session`]).
    pub session_clearing_codes: Vec<ErrorCode>,
    /// Days after which a match where nobody wrote closes ([`rules::QUIET_MATCH_EXPIRY_DAYS`]):
    /// the matches list says so.
    pub quiet_match_expiry_days: i64,
    /// Conversations waiting on the member's reply from which a new like first shows them
    /// ([`rules::YOUR_TURN_LIMIT`]): the "Your turn" sheet says so.
    pub your_turn_limit: usize,
    /// The fields an approved member cannot change in the app ([`OnSave::Fixed`]): the edit
    /// form shows them read-only.
    pub fixed_fields: Vec<&'static str>,
    /// What the review console's decision form offers ([`console_rules`]).
    pub console: ConsoleRules,
    /// What a message the web hands LINE's share target picker must keep to ([`line_share`]).
    pub line_share: LineShareRules,
    /// The introduction card's main photo ([`CARD_PHOTO`]).
    pub card_photo: CardPhoto,
}

/// The renditions of an introduction card's main photo (/today) the image proxy is asked for: the
/// web's card asks for them, and the server puts the same `srcset` in a returning member's page
/// (the first card's photo in the frame, before any script), so that the browser picks the same
/// file for both and downloads it once. The card is `min(100vw - 2rem, 528px)` wide and 4:5; the
/// widths are what it shows on the common phones at densities 1, 2 and 3 (a 390 px screen shows
/// 358 px: 360, 720 and 1,200 px), so that a phone downloads about the pixels it shows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct CardPhoto {
    /// The `src` rendition's width (the widest the card shows at density 1), px.
    pub width: u32,
    /// Its height (width × 5 / 4), px.
    pub height: u32,
    /// The `srcset`'s widths, ascending; each rendition is `w × w·5/4`.
    pub widths: &'static [u32],
    /// The `sizes` attribute: how wide the card is on the page.
    pub sizes: &'static str,
}

/// See [`CardPhoto`].
pub const CARD_PHOTO: CardPhoto = CardPhoto {
    width: 528,
    height: 660,
    widths: &[360, 400, 528, 720, 800, 1056, 1200],
    sizes: "(max-width: 560px) calc(100vw - 2rem), 528px",
};

impl CardPhoto {
    /// The height of the rendition `width` wide (the card's 4:5).
    pub const fn height_of(&self, width: u32) -> u32 {
        width * 5 / 4
    }
}

/// The chat's "Share my date" and "Invite a friend" build a Flex Message in the browser (it goes
/// from the member's LINE to the friend they pick, never through Kizuna's server, so the server's
/// builder in [`crate::push`] cannot make it): these are the limits it keeps to, LINE's as
/// [`crate::push`] states them with their source, and the plan's own.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LineShareRules {
    /// [`push::MAX_ALT_TEXT_CHARS`], in UTF-16 code units.
    pub alt_text_max_chars: usize,
    /// [`push::MAX_BUBBLE_BYTES`], bytes of the bubble's JSON.
    pub bubble_max_bytes: usize,
    /// [`push::MAX_ACTION_LABEL_CHARS`], in UTF-16 code units.
    pub action_label_max_chars: usize,
    /// [`push::MAX_URI_CHARS`].
    pub uri_max_chars: usize,
    /// [`rules::DATE_PLACE`]: the place's length after trimming, in characters. Here rather
    /// than among the field limits, which the register form's wasm carries too.
    pub date_place: RangeRule,
    /// [`rules::DATE_SHARE_PAST_SECS`]: how long ago a shared date may have started.
    pub date_past_secs: i64,
    /// [`rules::DATE_SHARE_AHEAD_SECS`]: how far ahead a shared date may be.
    pub date_ahead_secs: i64,
}

/// The limits of [`LineShareRules`], from their definitions.
pub fn line_share() -> LineShareRules {
    LineShareRules {
        alt_text_max_chars: push::MAX_ALT_TEXT_CHARS,
        bubble_max_bytes: push::MAX_BUBBLE_BYTES,
        action_label_max_chars: push::MAX_ACTION_LABEL_CHARS,
        uri_max_chars: push::MAX_URI_CHARS,
        date_place: RangeRule {
            min: rules::DATE_PLACE.min,
            max: rules::DATE_PLACE.max,
        },
        date_past_secs: rules::DATE_SHARE_PAST_SECS,
        date_ahead_secs: rules::DATE_SHARE_AHEAD_SECS,
    }
}

/// The rules of [`WebRules`], from their definitions.
pub fn web_rules() -> WebRules {
    WebRules {
        limits: rules::limits(),
        pass_undo_secs: rules::PASS_UNDO_SECS,
        taipei_utc_offset_secs: rules::TAIPEI_UTC_OFFSET_SECS,
        session_ttl_secs: rules::SESSION_TTL_SECS,
        session_clearing_codes: ErrorCode::session_clearing(),
        quiet_match_expiry_days: rules::QUIET_MATCH_EXPIRY_DAYS,
        your_turn_limit: rules::YOUR_TURN_LIMIT,
        fixed_fields: revision::fields(OnSave::Fixed),
        console: console_rules(),
        line_share: line_share(),
        card_photo: CARD_PHOTO,
    }
}

/// What the review console draws its decision form with, so that it offers exactly what the
/// server then accepts: the decisions of each status, those of a revision, the verification's
/// fields and the methods whose employer the reviewer picks. Wire names throughout.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ConsoleRules {
    /// [`ReviewStatus::reviewer_actions`] of every status, by status.
    #[cfg_attr(
        feature = "ts",
        tsify(
            type = "Record<ReviewStatus, (\"APPROVE\" | \"REJECT\" | \"SUSPEND\" | \"REINSTATE\")[]>"
        )
    )]
    #[serde(serialize_with = "actions_by_status")]
    pub actions: Vec<(&'static str, Vec<&'static str>)>,
    /// [`revision::REVISION_ACTIONS`].
    #[cfg_attr(feature = "ts", tsify(type = "(\"APPROVE\" | \"REJECT\")[]"))]
    pub revision_actions: Vec<&'static str>,
    /// [`revision::VERIFICATION_FIELDS`]: a revision changing one puts the employer on
    /// record anew ([`revision::verification_changed`]).
    pub verification_fields: &'static [&'static str],
    /// The methods for which [`reviewer_picks_employer`] holds.
    pub employer_picked_for: Vec<&'static str>,
}

/// The console's rules, from the definitions above.
pub fn console_rules() -> ConsoleRules {
    ConsoleRules {
        actions: ReviewStatus::ALL
            .into_iter()
            .map(|status| {
                let actions = status
                    .reviewer_actions()
                    .into_iter()
                    .map(ReviewAction::as_str);
                (status.as_str(), actions.collect())
            })
            .collect(),
        revision_actions: revision::REVISION_ACTIONS
            .into_iter()
            .map(ReviewAction::as_str)
            .collect(),
        verification_fields: &revision::VERIFICATION_FIELDS,
        employer_picked_for: crate::VerifyMethod::ALL
            .iter()
            .filter(|&&method| reviewer_picks_employer(method))
            .map(|method| method.as_str())
            .collect(),
    }
}

fn actions_by_status<S: serde::Serializer>(
    pairs: &[(&'static str, Vec<&'static str>)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(status, actions)| (status, actions)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_limits_travel_by_wire_name_and_are_lines() {
        let rules = serde_json::to_value(web_rules()).unwrap();
        assert_eq!(rules["lineShare"]["altTextMaxChars"], 1500);
        assert_eq!(rules["lineShare"]["bubbleMaxBytes"], 30_000);
        assert_eq!(rules["lineShare"]["actionLabelMaxChars"], 20);
        assert_eq!(rules["lineShare"]["dateAheadSecs"], 90 * 24 * 60 * 60);
        assert_eq!(rules["lineShare"]["datePlace"]["max"], 100);
        assert!(rules["limits"].get("datePlace").is_none());
    }

    #[test]
    fn the_card_photo_is_4_to_5_at_every_width_within_the_proxy_cap() {
        let card = CARD_PHOTO;
        assert_eq!(card.height, card.height_of(card.width));
        assert!(card.widths.contains(&card.width));
        assert!(card.widths.windows(2).all(|w| w[0] < w[1]));
        for &w in card.widths {
            // Exactly 4:5, so the web's `Math.round(w * height / width)` names the same file.
            assert_eq!(w * 5 % 4, 0, "{w}");
            assert!(card.height_of(w) <= 3072, "{w}");
        }
        let rules = serde_json::to_value(web_rules()).unwrap();
        assert_eq!(rules["cardPhoto"]["widths"][0], 360);
        assert_eq!(rules["cardPhoto"]["sizes"], CARD_PHOTO.sizes);
    }

    #[test]
    fn the_employer_is_picked_for_the_employee_id_and_the_review_link() {
        assert_eq!(
            console_rules().employer_picked_for,
            ["EMPLOYEE_ID", "REVIEW_LINK"]
        );
    }

    #[test]
    fn the_console_rules_travel_as_wire_names_by_status() {
        let rules = serde_json::to_value(console_rules()).unwrap();
        assert_eq!(
            rules["actions"]["PENDING"],
            serde_json::json!(["APPROVE", "REJECT"])
        );
        assert_eq!(rules["actions"]["REJECTED"], serde_json::json!([]));
        assert_eq!(
            rules["revisionActions"],
            serde_json::json!(["APPROVE", "REJECT"])
        );
        assert_eq!(rules["verificationFields"][0], "verifyMethod");
    }
}
