//! The data-driven catalogues: tags, cities and employers live in `core/data/*.json` (edited as
//! data, not code) and are compiled in, so client and server always agree on them.

use crate::choices::*;
use crate::email::{EmailAddress, domain_is_within};
use crate::rules::{self, RangeRule};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A tag with a stable numeric id (stored in profiles; never reused) and its translation key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Tag {
    pub id: u32,
    pub key: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TagCatalogue {
    pub personality: Vec<Tag>,
    pub exercise: Vec<Tag>,
    pub hobby: Vec<Tag>,
    pub marriage_type: Vec<Tag>,
    pub fertility_plan: Vec<Tag>,
    pub pet: Vec<Tag>,
}

/// A city or county; its seat's coordinates stand in for the person's location when they decline
/// geolocation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct City {
    pub code: String,
    pub key: String,
    pub latitude: f64,
    pub longitude: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Employer {
    pub id: String,
    pub name: String,
    /// Corporate e-mail domains; their subdomains count too.
    pub domains: Vec<String>,
    /// Asset path of the logo mark under the web app's public folder.
    pub logo: String,
    /// Brand colour of the generated mark.
    pub color: String,
}

/// What the register form needs to draw its choices, in one object.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Catalogues {
    pub tags: TagCatalogue,
    pub cities: Vec<City>,
    pub employers: Vec<Employer>,
    pub choices: Choices,
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, RangeRule>"))]
    pub limits: BTreeMap<String, RangeRule>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Choices {
    pub gender: Vec<ChoiceOption>,
    pub match_gender: Vec<ChoiceOption>,
    pub occupation_type: Vec<ChoiceOption>,
    pub education: Vec<ChoiceOption>,
    pub income_range: Vec<ChoiceOption>,
    pub marriage_record: Vec<ChoiceOption>,
    pub has_children: Vec<ChoiceOption>,
    pub smoke: Vec<ChoiceOption>,
    pub tattoo: Vec<ChoiceOption>,
    pub drink: Vec<ChoiceOption>,
    pub mbti: Vec<ChoiceOption>,
    pub verify_method: Vec<ChoiceOption>,
}

pub fn tags() -> &'static TagCatalogue {
    static TAGS: OnceLock<TagCatalogue> = OnceLock::new();
    TAGS.get_or_init(|| serde_json::from_str(include_str!("../data/tags.json")).expect("core/data/tags.json is valid"))
}

pub fn cities() -> &'static [City] {
    static CITIES: OnceLock<Vec<City>> = OnceLock::new();
    CITIES.get_or_init(|| serde_json::from_str(include_str!("../data/cities.json")).expect("core/data/cities.json is valid"))
}

pub fn employers() -> &'static [Employer] {
    static EMPLOYERS: OnceLock<Vec<Employer>> = OnceLock::new();
    EMPLOYERS.get_or_init(|| serde_json::from_str(include_str!("../data/employers.json")).expect("core/data/employers.json is valid"))
}

pub fn city(code: &str) -> Option<&'static City> {
    cities().iter().find(|city| city.code == code)
}

pub fn employer(id: &str) -> Option<&'static Employer> {
    employers().iter().find(|employer| employer.id == id)
}

/// The employer whose corporate domain (or a subdomain of it) the address belongs to.
/// Unparseable addresses and look-alike domains have none.
pub fn employer_for_email(address: &str) -> Option<&'static Employer> {
    let email = EmailAddress::parse(address)?;
    employer_for_domain(email.domain())
}

pub(crate) fn employer_for_domain(domain: &str) -> Option<&'static Employer> {
    employers().iter().find(|employer| employer.domains.iter().any(|listed| domain_is_within(domain, listed)))
}

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

pub fn all() -> Catalogues {
    Catalogues {
        tags: tags().clone(),
        cities: cities().to_vec(),
        employers: employers().to_vec(),
        choices: choices(),
        limits: rules::limits().into_iter().map(|(field, rule)| (field.to_owned(), rule)).collect(),
    }
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
        let domains: Vec<_> = employers().iter().flat_map(|e| &e.domains).collect();
        assert_eq!(domains.iter().collect::<HashSet<_>>().len(), domains.len());
        assert!(domains.iter().all(|d| crate::email::is_domain(d)));
    }

    #[test]
    fn taiwan_has_twenty_two_cities_and_counties() {
        assert_eq!(cities().len(), 22);
        assert!(city("TPE").is_some());
        assert!(cities().iter().all(|c| (21.0..27.0).contains(&c.latitude) && (118.0..123.0).contains(&c.longitude)));
    }

    #[test]
    fn tag_ids_are_unique_across_every_catalogue() {
        let t = tags();
        let all: Vec<u32> = [&t.personality, &t.exercise, &t.hobby, &t.marriage_type, &t.fertility_plan, &t.pet]
            .into_iter()
            .flatten()
            .map(|tag| tag.id)
            .collect();
        assert_eq!(all.iter().collect::<HashSet<_>>().len(), all.len());
    }

    #[test]
    fn work_addresses_map_to_their_employer_including_subdomains() {
        assert_eq!(employer_for_email("jane@tsmc.com").map(|e| e.id.as_str()), Some("tsmc"));
        assert_eq!(employer_for_email("Jane@Mail.TSMC.com").map(|e| e.id.as_str()), Some("tsmc"));
        assert_eq!(employer_for_email("kim@fb.com").map(|e| e.id.as_str()), Some("meta"));
    }

    #[test]
    fn look_alike_and_malformed_addresses_map_to_no_employer() {
        for address in ["jane@tsmc.com.evil.io", "jane@xtsmc.com", "jane@gmail.com", "tsmc.com", "jane@tsmc", "jane@@tsmc.com", "jane@tsmc.com@evil.io"] {
            assert!(employer_for_email(address).is_none(), "{address:?}");
        }
    }
}
