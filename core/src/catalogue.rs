//! The data-driven catalogues: tags, cities and employers live in `core/data/*.json` (edited as
//! data, not code) and are compiled in, so client and server always agree on them.
//!
//! ```
//! use kizuna_core::catalogue;
//!
//! assert_eq!(catalogue::employer_for_email("jane@mail.tsmc.com").map(|e| e.id), Some("tsmc"));
//! assert!(catalogue::employer_for_email("jane@tsmc.com.evil.io").is_none());
//! assert_eq!(catalogue::city("TPE").map(|city| city.key), Some("city.taipei_city"));
//! assert!(catalogue::tags().fertility_plan.iter().any(|tag| tag.id == 502));
//! ```

use crate::choices::*;
use crate::email::{EmailAddress, domain_is_within};
use crate::rules::{self, RangeRule};
use serde::Serialize;

/// A tag with a stable numeric id (stored in profiles; never reused) and its translation key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Tag {
    /// Stable id, stored in profiles and never reused.
    pub id: u32,
    /// Translation key of the tag's label.
    pub key: &'static str,
}

/// Every tag, by kind; a profile's tags of each kind come from that kind's list.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TagCatalogue {
    /// Personality tags.
    pub personality: &'static [Tag],
    /// Exercise tags.
    pub exercise: &'static [Tag],
    /// Hobby tags.
    pub hobby: &'static [Tag],
    /// Marriage-type tags.
    pub marriage_type: &'static [Tag],
    /// Fertility-plan tags.
    pub fertility_plan: &'static [Tag],
    /// Pet tags.
    pub pet: &'static [Tag],
}

/// A city or county; its seat's coordinates stand in for the person's location when they decline
/// geolocation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct City {
    /// The code profiles store (`TPE`).
    pub code: &'static str,
    /// Translation key of the city's name.
    pub key: &'static str,
    /// Latitude of the seat, in degrees.
    pub latitude: f64,
    /// Longitude of the seat, in degrees.
    pub longitude: f64,
}

/// An employer whose staff may register, recognised by its corporate e-mail domains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Employer {
    /// Stable id, stored with a verification.
    pub id: &'static str,
    /// The employer's name as the form shows it.
    pub name: &'static str,
    /// Corporate e-mail domains; their subdomains count too.
    pub domains: &'static [&'static str],
    /// Asset path of the logo mark under the web app's public folder.
    pub logo: &'static str,
    /// Brand colour of the generated mark.
    pub color: &'static str,
}

/// What the web app draws its choices and limits with, in one object (the register form's
/// choices, every field's limits, how long a pass may be taken back). The web build also asks it
/// of the wasm package for the screens drawn before the core is loaded (`virtual:core-*`), so a
/// limit is defined only here, in [`rules`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Catalogues {
    /// Every tag, by kind.
    pub tags: &'static TagCatalogue,
    /// Every city and county.
    pub cities: &'static [City],
    /// Every employer.
    pub employers: &'static [Employer],
    /// The options of every closed choice.
    pub choices: Choices,
    /// The limits of every field, by wire name ([`rules::limits`]).
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, RangeRule>"))]
    #[serde(serialize_with = "as_map")]
    pub limits: Vec<(&'static str, RangeRule)>,
    /// How long a pass may be taken back, in seconds ([`rules::PASS_UNDO_SECS`]): the web's Undo
    /// shows as long.
    pub pass_undo_secs: i64,
}

/// The options of every closed choice of the form, in the order it shows them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Choices {
    /// [`Gender`] options.
    pub gender: Vec<ChoiceOption>,
    /// [`MatchGender`] options.
    pub match_gender: Vec<ChoiceOption>,
    /// [`OccupationType`] options.
    pub occupation_type: Vec<ChoiceOption>,
    /// [`Education`] options.
    pub education: Vec<ChoiceOption>,
    /// [`IncomeRange`] options.
    pub income_range: Vec<ChoiceOption>,
    /// [`MarriageRecord`] options.
    pub marriage_record: Vec<ChoiceOption>,
    /// [`HasChildren`] options.
    pub has_children: Vec<ChoiceOption>,
    /// [`Smoke`] options.
    pub smoke: Vec<ChoiceOption>,
    /// [`Tattoo`] options.
    pub tattoo: Vec<ChoiceOption>,
    /// [`Drink`] options.
    pub drink: Vec<ChoiceOption>,
    /// [`Mbti`] options.
    pub mbti: Vec<ChoiceOption>,
    /// [`VerifyMethod`] options.
    pub verify_method: Vec<ChoiceOption>,
}

// TAGS, CITIES and EMPLOYERS, generated by build.rs from core/data/*.json.
include!(concat!(env!("OUT_DIR"), "/catalogue_data.rs"));

/// Every tag, by kind.
pub fn tags() -> &'static TagCatalogue {
    &TAGS
}

/// Every city and county of Taiwan.
pub fn cities() -> &'static [City] {
    CITIES
}

/// Every employer.
pub fn employers() -> &'static [Employer] {
    EMPLOYERS
}

/// The city of a code.
pub fn city(code: &str) -> Option<&'static City> {
    cities().iter().find(|city| city.code == code)
}

/// The employer of an id.
pub fn employer(id: &str) -> Option<&'static Employer> {
    employers().iter().find(|employer| employer.id == id)
}

/// A small number for an employer id, for matching's compact member: its place in the catalogue
/// plus one; 0 for an id this build does not know (which keeps nobody apart).
pub fn employer_key(id: &str) -> u16 {
    employers()
        .iter()
        .position(|employer| employer.id == id)
        .map_or(0, |index| u16::try_from(index + 1).unwrap_or(0))
}

/// The employer whose corporate domain (or a subdomain of it) the address belongs to.
/// Unparseable addresses and look-alike domains have none.
pub fn employer_for_email(address: &str) -> Option<&'static Employer> {
    let email = EmailAddress::parse(address)?;
    employer_for_domain(email.domain())
}

pub(crate) fn employer_for_domain(domain: &str) -> Option<&'static Employer> {
    employers().iter().find(|employer| {
        employer
            .domains
            .iter()
            .any(|listed| domain_is_within(domain, listed))
    })
}

/// The options of every closed choice.
pub fn choices() -> Choices {
    Choices {
        gender: Gender::options(),
        match_gender: MatchGender::options(),
        occupation_type: OccupationType::options(),
        education: Education::options(),
        income_range: IncomeRange::options(),
        marriage_record: MarriageRecord::options(),
        has_children: HasChildren::options(),
        smoke: Smoke::options(),
        tattoo: Tattoo::options(),
        drink: Drink::options(),
        mbti: Mbti::options(),
        verify_method: VerifyMethod::options(),
    }
}

/// Everything the register form needs to draw its choices, in one object.
pub fn all() -> Catalogues {
    Catalogues {
        tags: tags(),
        cities: cities(),
        employers: employers(),
        choices: choices(),
        limits: rules::limits(),
        pass_undo_secs: rules::PASS_UNDO_SECS,
    }
}

fn as_map<S: serde::Serializer>(
    pairs: &[(&'static str, RangeRule)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(field, rule)| (field, rule)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn there_are_thirty_one_employers_with_unique_ids_and_domains() {
        assert_eq!(employers().len(), 31);
        let ids: HashSet<_> = employers().iter().map(|e| &e.id).collect();
        assert_eq!(ids.len(), 31);
        let domains: Vec<_> = employers()
            .iter()
            .flat_map(|e| e.domains.iter().copied())
            .collect();
        assert_eq!(domains.iter().collect::<HashSet<_>>().len(), domains.len());
        assert!(domains.iter().all(|d| crate::email::is_domain(d)));
    }

    #[test]
    fn taiwan_has_twenty_two_cities_and_counties() {
        assert_eq!(cities().len(), 22);
        assert!(city("TPE").is_some());
        assert!(
            cities().iter().all(
                |c| (21.0..27.0).contains(&c.latitude) && (118.0..123.0).contains(&c.longitude)
            )
        );
    }

    #[test]
    fn tag_ids_are_unique_across_every_catalogue() {
        let t = tags();
        let all: Vec<u32> = [
            t.personality,
            t.exercise,
            t.hobby,
            t.marriage_type,
            t.fertility_plan,
            t.pet,
        ]
        .into_iter()
        .flatten()
        .map(|tag| tag.id)
        .collect();
        assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len());
    }

    #[test]
    fn work_addresses_map_to_their_employer_including_subdomains() {
        assert_eq!(
            employer_for_email("jane@tsmc.com").map(|e| e.id),
            Some("tsmc")
        );
        assert_eq!(
            employer_for_email("Jane@Mail.TSMC.com").map(|e| e.id),
            Some("tsmc")
        );
        assert_eq!(employer_for_email("kim@fb.com").map(|e| e.id), Some("meta"));
    }

    #[test]
    fn look_alike_and_malformed_addresses_map_to_no_employer() {
        for address in [
            "jane@tsmc.com.evil.io",
            "jane@xtsmc.com",
            "jane@gmail.com",
            "tsmc.com",
            "jane@tsmc",
            "jane@@tsmc.com",
            "jane@tsmc.com@evil.io",
        ] {
            assert!(employer_for_email(address).is_none(), "{address:?}");
        }
    }
}
