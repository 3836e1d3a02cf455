//! The registration payload (`UserProfileCreate`, spec §3) and its one validator.
//!
//! The wire struct is deliberately loose (every field optional) so that a missing field is a
//! `required` rule failure reported with all the others, rather than a parse error that hides
//! them. `parse` turns it into `ValidProfile`, whose fields are already checked: nothing
//! downstream validates again.

use crate::catalogue;
use crate::choices::*;
use crate::conditions::{self, Condition, MatchFacts};
use crate::date::Date;
use crate::email::EmailAddress;
use crate::files::FileName;
use crate::line::LineUserId;
use crate::rules::{self, FieldErrors, RangeRule, RuleCode, check_text};
use crate::url::{HttpsUrl, UrlError};
use serde::{Deserialize, Serialize};

/// POST /user-profile. Wire names exactly as the spec spells them, plus `companyEmail` (the work
/// address of the COMPANY_EMAIL verification, which the spec's list has no field for).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct UserProfileCreate {
    /// The LINE user id; must equal `password` and the verified ID token's subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gender: Option<Gender>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_gender: Option<MatchGender>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupation_type: Option<OccupationType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occupation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub achievement: Option<String>,
    /// Centimetres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub income_range: Option<IncomeRange>,
    /// `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub birthday: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub school: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub education: Option<Education>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marriage_record: Option<MarriageRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_children: Option<HasChildren>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smoke: Option<Smoke>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tattoo: Option<Tattoo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drink: Option<Drink>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about_me: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub personality_tag_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercise_tag_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hobby_tag_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marriage_type_tag_ids: Option<Vec<u32>>,
    /// Exactly one element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fertility_plan_tag_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pet_tag_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dating_question: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daily_life: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surprise_point: Option<String>,
    /// A city code of the catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    /// 0 (the default) means anywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommend_distance_km: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mbti: Option<Mbti>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_link: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_temp_file_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_method: Option<VerifyMethod>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company_email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub photo_name_list: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_item: Option<Vec<Condition>>,
}

/// Every wire field of `UserProfileCreate`; a test keeps it in step with the struct.
pub const FIELDS: [&str; 43] = [
    "account",
    "password",
    "nickname",
    "name",
    "gender",
    "matchGender",
    "occupationType",
    "occupation",
    "achievement",
    "height",
    "incomeRange",
    "birthday",
    "school",
    "education",
    "marriageRecord",
    "hasChildren",
    "smoke",
    "tattoo",
    "drink",
    "aboutMe",
    "personalityTagIds",
    "exerciseTagIds",
    "hobbyTagIds",
    "marriageTypeTagIds",
    "fertilityPlanTagIds",
    "petTagIds",
    "datingQuestion",
    "dailyLife",
    "surprisePoint",
    "city",
    "address",
    "latitude",
    "longitude",
    "recommendDistanceKm",
    "feedback",
    "mbti",
    "reviewLink",
    "verifyTempFileName",
    "verifyDescription",
    "verifyMethod",
    "companyEmail",
    "photoNameList",
    "valueItem",
];

/// A registration that passed every rule.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidProfile {
    pub account: LineUserId,
    pub nickname: String,
    pub name: String,
    pub gender: Gender,
    pub match_gender: MatchGender,
    pub occupation_type: OccupationType,
    pub occupation: String,
    pub achievement: Option<String>,
    pub height_cm: u32,
    pub income_range: IncomeRange,
    pub birthday: Date,
    pub school: Option<String>,
    pub education: Education,
    pub marriage_record: MarriageRecord,
    pub has_children: HasChildren,
    pub smoke: Smoke,
    pub tattoo: Tattoo,
    pub drink: Drink,
    pub about_me: String,
    pub tags: ProfileTags,
    pub dating_question: Option<String>,
    pub daily_life: Option<String>,
    pub surprise_point: Option<String>,
    pub city: String,
    pub address: Option<String>,
    pub location: Option<Coordinates>,
    pub recommend_distance_km: u32,
    pub feedback: Option<String>,
    pub mbti: Option<Mbti>,
    pub verification: Verification,
    pub photos: Vec<FileName>,
    pub conditions: Vec<Condition>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfileTags {
    pub personality: Vec<u32>,
    pub exercise: Vec<u32>,
    pub hobby: Vec<u32>,
    pub marriage_type: Vec<u32>,
    pub fertility_plan: u32,
    pub pet: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coordinates {
    pub latitude: f64,
    pub longitude: f64,
}

/// Proof of employment. The method's own evidence is guaranteed present; the other fields are
/// kept when given (a reviewer may use them) and were validated all the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification {
    pub method: VerifyMethod,
    pub company_email: Option<EmailAddress>,
    /// The employer the company e-mail belongs to.
    pub employer_id: Option<String>,
    pub review_link: Option<HttpsUrl>,
    pub temp_file: Option<FileName>,
    pub description: Option<String>,
}

impl UserProfileCreate {
    /// Reads a JSON body, reporting every field of the wrong type and every unknown field at
    /// once instead of stopping at the first.
    pub fn from_json(value: serde_json::Value) -> Result<UserProfileCreate, FieldErrors> {
        let serde_json::Value::Object(map) = value else {
            return Err(FieldErrors::single("", RuleCode::InvalidType));
        };
        let mut errors = FieldErrors::new();
        for (key, field_value) in &map {
            if !FIELDS.contains(&key.as_str()) {
                errors.add(key, RuleCode::UnknownField);
                continue;
            }
            let alone = serde_json::Value::Object(serde_json::Map::from_iter([(
                key.clone(),
                field_value.clone(),
            )]));
            if let Err(error) = serde_json::from_value::<UserProfileCreate>(alone) {
                errors.add(key, classify_type_error(&error.to_string()));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|_| FieldErrors::single("", RuleCode::InvalidType))
    }

    /// Applies every rule of registration; `today` decides the age rules.
    pub fn parse(self, today: Date) -> Result<ValidProfile, FieldErrors> {
        let mut errors = FieldErrors::new();
        let e = &mut errors;

        let account = parse_account(self.account.as_deref(), self.password.as_deref(), e);
        let nickname = check_text("nickname", self.nickname.as_deref(), rules::NICKNAME, e);
        let name = check_text("name", self.name.as_deref(), rules::NAME, e);
        let gender = required("gender", self.gender, e);
        let match_gender = required("matchGender", self.match_gender, e);
        let occupation_type = required("occupationType", self.occupation_type, e);
        let occupation = check_text(
            "occupation",
            self.occupation.as_deref(),
            rules::OCCUPATION,
            e,
        );
        let achievement = check_text(
            "achievement",
            self.achievement.as_deref(),
            rules::ACHIEVEMENT,
            e,
        );
        let height_cm = required("height", self.height, e)
            .filter(|&h| in_range("height", h, rules::HEIGHT_CM, e));
        let income_range = required("incomeRange", self.income_range, e);
        let birthday = parse_birthday(self.birthday.as_deref(), today, e);
        let school = check_text("school", self.school.as_deref(), rules::SCHOOL, e);
        let education = required("education", self.education, e);
        let marriage_record = required("marriageRecord", self.marriage_record, e);
        let has_children = required("hasChildren", self.has_children, e);
        let smoke = required("smoke", self.smoke, e);
        let tattoo = required("tattoo", self.tattoo, e);
        let drink = required("drink", self.drink, e);
        let about_me = check_text("aboutMe", self.about_me.as_deref(), rules::ABOUT_ME, e);
        let tag_catalogue = catalogue::tags();
        let tags = ProfileTags {
            personality: check_tags(
                "personalityTagIds",
                self.personality_tag_ids,
                tag_catalogue.personality,
                rules::PERSONALITY_TAGS,
                e,
            ),
            exercise: check_tags(
                "exerciseTagIds",
                self.exercise_tag_ids,
                tag_catalogue.exercise,
                rules::EXERCISE_TAGS,
                e,
            ),
            hobby: check_tags(
                "hobbyTagIds",
                self.hobby_tag_ids,
                tag_catalogue.hobby,
                rules::HOBBY_TAGS,
                e,
            ),
            marriage_type: check_tags(
                "marriageTypeTagIds",
                self.marriage_type_tag_ids,
                tag_catalogue.marriage_type,
                rules::MARRIAGE_TYPE_TAGS,
                e,
            ),
            fertility_plan: check_tags(
                "fertilityPlanTagIds",
                self.fertility_plan_tag_ids,
                tag_catalogue.fertility_plan,
                rules::FERTILITY_PLAN_TAGS,
                e,
            )
            .first()
            .copied()
            .unwrap_or_default(),
            pet: check_tags(
                "petTagIds",
                self.pet_tag_ids,
                tag_catalogue.pet,
                rules::PET_TAGS,
                e,
            ),
        };
        let dating_question = check_text(
            "datingQuestion",
            self.dating_question.as_deref(),
            rules::DATING_QUESTION,
            e,
        );
        let daily_life = check_text(
            "dailyLife",
            self.daily_life.as_deref(),
            rules::DAILY_LIFE,
            e,
        );
        let surprise_point = check_text(
            "surprisePoint",
            self.surprise_point.as_deref(),
            rules::SURPRISE_POINT,
            e,
        );
        let city = match self.city.as_deref().map(str::trim) {
            None | Some("") => missing("city", e),
            Some(code) if catalogue::city(code).is_some() => Some(code.to_owned()),
            Some(_) => invalid("city", RuleCode::InvalidChoice, e),
        };
        let address = check_text("address", self.address.as_deref(), rules::ADDRESS, e);
        let location = parse_location(self.latitude, self.longitude, e);
        let recommend_distance_km = self.recommend_distance_km.unwrap_or(0);
        in_range(
            "recommendDistanceKm",
            recommend_distance_km,
            rules::RECOMMEND_DISTANCE_KM,
            e,
        );
        let feedback = check_text("feedback", self.feedback.as_deref(), rules::FEEDBACK, e);
        let verification = parse_verification(
            self.verify_method,
            self.company_email.as_deref(),
            self.review_link.as_deref(),
            self.verify_temp_file_name.as_deref(),
            self.verify_description.as_deref(),
            e,
        );
        let photos = parse_photos(self.photo_name_list, e);
        let conditions = self.value_item.unwrap_or_default();
        conditions::check(&conditions, e);

        // Every `None` below has recorded its error, so the profile is built only when all passed.
        let valid = (|| {
            Some(ValidProfile {
                account: account?,
                nickname: nickname?,
                name: name?,
                gender: gender?,
                match_gender: match_gender?,
                occupation_type: occupation_type?,
                occupation: occupation?,
                achievement,
                height_cm: height_cm?,
                income_range: income_range?,
                birthday: birthday?,
                school,
                education: education?,
                marriage_record: marriage_record?,
                has_children: has_children?,
                smoke: smoke?,
                tattoo: tattoo?,
                drink: drink?,
                about_me: about_me?,
                tags,
                dating_question,
                daily_life,
                surprise_point,
                city: city?,
                address,
                location,
                recommend_distance_km,
                feedback,
                mbti: self.mbti,
                verification: verification?,
                photos,
                conditions,
            })
        })();
        match valid {
            Some(profile) if errors.is_empty() => Ok(profile),
            _ => {
                debug_assert!(!errors.is_empty(), "a field failed without recording why");
                Err(errors)
            }
        }
    }
}

impl ValidProfile {
    /// The normalised payload (trimmed texts, lower-cased e-mail and link host), which parses
    /// back into the same profile.
    pub fn to_payload(&self) -> UserProfileCreate {
        let v = &self.verification;
        UserProfileCreate {
            account: Some(self.account.to_string()),
            password: Some(self.account.to_string()),
            nickname: Some(self.nickname.clone()),
            name: Some(self.name.clone()),
            gender: Some(self.gender),
            match_gender: Some(self.match_gender),
            occupation_type: Some(self.occupation_type),
            occupation: Some(self.occupation.clone()),
            achievement: self.achievement.clone(),
            height: Some(self.height_cm),
            income_range: Some(self.income_range),
            birthday: Some(self.birthday.to_string()),
            school: self.school.clone(),
            education: Some(self.education),
            marriage_record: Some(self.marriage_record),
            has_children: Some(self.has_children),
            smoke: Some(self.smoke),
            tattoo: Some(self.tattoo),
            drink: Some(self.drink),
            about_me: Some(self.about_me.clone()),
            personality_tag_ids: Some(self.tags.personality.clone()),
            exercise_tag_ids: Some(self.tags.exercise.clone()),
            hobby_tag_ids: Some(self.tags.hobby.clone()),
            marriage_type_tag_ids: Some(self.tags.marriage_type.clone()),
            fertility_plan_tag_ids: Some(vec![self.tags.fertility_plan]),
            pet_tag_ids: Some(self.tags.pet.clone()),
            dating_question: self.dating_question.clone(),
            daily_life: self.daily_life.clone(),
            surprise_point: self.surprise_point.clone(),
            city: Some(self.city.clone()),
            address: self.address.clone(),
            latitude: self.location.map(|c| c.latitude),
            longitude: self.location.map(|c| c.longitude),
            recommend_distance_km: Some(self.recommend_distance_km),
            feedback: self.feedback.clone(),
            mbti: self.mbti,
            review_link: v.review_link.as_ref().map(|url| url.to_string()),
            verify_temp_file_name: v.temp_file.as_ref().map(|file| file.to_string()),
            verify_description: v.description.clone(),
            verify_method: Some(v.method),
            company_email: v.company_email.as_ref().map(|email| email.to_string()),
            photo_name_list: Some(self.photos.iter().map(|file| file.to_string()).collect()),
            value_item: Some(self.conditions.clone()),
        }
    }

    /// What conditions are checked against.
    pub fn facts(&self) -> MatchFacts {
        MatchFacts {
            height_cm: self.height_cm,
            birthday: self.birthday,
            income_range: self.income_range,
            education: self.education,
            marriage_record: self.marriage_record,
            has_children: self.has_children,
            smoke: self.smoke,
            tattoo: self.tattoo,
            drink: self.drink,
        }
    }
}

fn classify_type_error(message: &str) -> RuleCode {
    // serde's own wording: "invalid type: …" for the wrong JSON kind, "unknown variant …" or
    // "invalid value: …" for the right kind with a value outside the field's choices or range.
    if message.starts_with("unknown variant") || message.starts_with("invalid value") {
        RuleCode::InvalidChoice
    } else {
        RuleCode::InvalidType
    }
}

fn missing<T>(field: &str, errors: &mut FieldErrors) -> Option<T> {
    errors.add(field, RuleCode::Required);
    None
}

fn invalid<T>(field: &str, code: RuleCode, errors: &mut FieldErrors) -> Option<T> {
    errors.add(field, code);
    None
}

fn required<T>(field: &str, value: Option<T>, errors: &mut FieldErrors) -> Option<T> {
    if value.is_none() {
        errors.add(field, RuleCode::Required);
    }
    value
}

fn in_range(field: &str, value: u32, rule: RangeRule, errors: &mut FieldErrors) -> bool {
    let ok = rule.contains(value);
    if !ok {
        errors.add(field, RuleCode::OutOfRange);
    }
    ok
}

fn parse_account(
    account: Option<&str>,
    password: Option<&str>,
    e: &mut FieldErrors,
) -> Option<LineUserId> {
    let account = match account {
        None | Some("") => missing("account", e),
        Some(text) => LineUserId::parse(text).or_else(|| invalid("account", RuleCode::Invalid, e)),
    };
    match password {
        None | Some("") => missing("password", e),
        Some(password) if account.as_ref().is_some_and(|id| id.as_str() != password) => {
            invalid("password", RuleCode::Mismatch, e)
        }
        Some(_) => account,
    }
}

fn parse_birthday(text: Option<&str>, today: Date, e: &mut FieldErrors) -> Option<Date> {
    let birthday = match text.map(str::trim) {
        None | Some("") => return missing("birthday", e),
        Some(text) => {
            Date::parse(text).or_else(|| invalid("birthday", RuleCode::InvalidDate, e))?
        }
    };
    match birthday.age_on(today).map(u32::from) {
        None => invalid("birthday", RuleCode::InvalidDate, e),
        Some(age) if age < rules::AGE_YEARS.min => invalid("birthday", RuleCode::TooYoung, e),
        Some(age) if age > rules::AGE_YEARS.max => invalid("birthday", RuleCode::TooOld, e),
        Some(_) => Some(birthday),
    }
}

fn check_tags(
    field: &str,
    ids: Option<Vec<u32>>,
    allowed: &[catalogue::Tag],
    rule: RangeRule,
    e: &mut FieldErrors,
) -> Vec<u32> {
    let ids = match ids {
        None if rule.min > 0 => return missing(field, e).unwrap_or_default(),
        None => return Vec::new(),
        Some(ids) => ids,
    };
    let count = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    if count < rule.min {
        e.add(field, RuleCode::TooFew);
    }
    if count > rule.max {
        e.add(field, RuleCode::TooMany);
    }
    if ids
        .iter()
        .any(|id| !allowed.iter().any(|tag| tag.id == *id))
    {
        e.add(field, RuleCode::InvalidChoice);
    }
    if has_duplicates(&ids) {
        e.add(field, RuleCode::Duplicate);
    }
    ids
}

fn has_duplicates<T: PartialEq>(items: &[T]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, item)| items[..i].contains(item))
}

fn parse_location(
    latitude: Option<f64>,
    longitude: Option<f64>,
    e: &mut FieldErrors,
) -> Option<Coordinates> {
    match (latitude, longitude) {
        (None, None) => None,
        (Some(latitude), Some(longitude)) => {
            let lat_ok = latitude.is_finite() && (-90.0..=90.0).contains(&latitude);
            let lng_ok = longitude.is_finite() && (-180.0..=180.0).contains(&longitude);
            if !lat_ok {
                e.add("latitude", RuleCode::OutOfRange);
            }
            if !lng_ok {
                e.add("longitude", RuleCode::OutOfRange);
            }
            (lat_ok && lng_ok).then_some(Coordinates {
                latitude,
                longitude,
            })
        }
        _ => {
            e.add("latitude", RuleCode::BothOrNeither);
            e.add("longitude", RuleCode::BothOrNeither);
            None
        }
    }
}

fn parse_verification(
    method: Option<VerifyMethod>,
    company_email: Option<&str>,
    review_link: Option<&str>,
    temp_file: Option<&str>,
    description: Option<&str>,
    e: &mut FieldErrors,
) -> Option<Verification> {
    let (company_email, review_link, temp_file) = (
        non_blank(company_email),
        non_blank(review_link),
        non_blank(temp_file),
    );

    let email = company_email.and_then(|text| {
        EmailAddress::parse(text).or_else(|| invalid("companyEmail", RuleCode::InvalidEmail, e))
    });
    let employer_id = email.as_ref().and_then(|email| {
        catalogue::employer_for_domain(email.domain())
            .map(|employer| employer.id.to_owned())
            .or_else(|| invalid("companyEmail", RuleCode::UnknownEmployer, e))
    });
    let link = review_link.and_then(|text| match HttpsUrl::parse(text) {
        Ok(url) => Some(url),
        Err(UrlError::NotHttps) => invalid("reviewLink", RuleCode::NotHttps, e),
        Err(UrlError::Invalid) => invalid("reviewLink", RuleCode::Invalid, e),
    });
    let file = temp_file.and_then(|text| {
        FileName::parse(text).or_else(|| invalid("verifyTempFileName", RuleCode::Invalid, e))
    });
    let description = check_text(
        "verifyDescription",
        description,
        rules::VERIFY_DESCRIPTION,
        e,
    );

    let method = required("verifyMethod", method, e)?;
    let evidence_given = match method {
        VerifyMethod::CompanyEmail => {
            company_email.is_some() || missing::<()>("companyEmail", e).is_some()
        }
        VerifyMethod::EmployeeId => {
            temp_file.is_some() || missing::<()>("verifyTempFileName", e).is_some()
        }
        VerifyMethod::ReviewLink => {
            review_link.is_some() || missing::<()>("reviewLink", e).is_some()
        }
    };
    let evidence_valid = match method {
        VerifyMethod::CompanyEmail => employer_id.is_some(),
        VerifyMethod::EmployeeId => file.is_some(),
        VerifyMethod::ReviewLink => link.is_some(),
    };
    (evidence_given && evidence_valid).then_some(Verification {
        method,
        company_email: email,
        employer_id,
        review_link: link,
        temp_file: file,
        description,
    })
}

fn non_blank(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|text| !text.is_empty())
}

fn parse_photos(names: Option<Vec<String>>, e: &mut FieldErrors) -> Vec<FileName> {
    let Some(names) = names else {
        return missing("photoNameList", e).unwrap_or_default();
    };
    let count = u32::try_from(names.len()).unwrap_or(u32::MAX);
    if count < rules::PHOTOS.min {
        e.add("photoNameList", RuleCode::TooFew);
    }
    if count > rules::PHOTOS.max {
        e.add("photoNameList", RuleCode::TooMany);
    }
    if has_duplicates(&names) {
        e.add("photoNameList", RuleCode::Duplicate);
    }
    let parsed: Vec<FileName> = names
        .iter()
        .filter_map(|name| FileName::parse(name))
        .collect();
    if parsed.len() != names.len() {
        e.add("photoNameList", RuleCode::Invalid);
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn complete_payload() -> serde_json::Value {
        json!({
            "account": "U4af4980629a1b2c3d4e5f60718293a4b",
            "password": "U4af4980629a1b2c3d4e5f60718293a4b",
            "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
            "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
            "achievement": "Led the payments migration", "height": 163, "incomeRange": "INCOME_100_150",
            "birthday": "1995-03-14", "school": "NTU", "education": "MASTER", "marriageRecord": 0,
            "hasChildren": 0, "smoke": 0, "tattoo": "NONE", "drink": 1,
            "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
            "personalityTagIds": [101, 104], "exerciseTagIds": [204], "hobbyTagIds": [301, 310],
            "marriageTypeTagIds": [402], "fertilityPlanTagIds": [502], "petTagIds": [602],
            "datingQuestion": "Favourite trail?", "dailyLife": "Code, climb, cook.", "surprisePoint": "I can juggle.",
            "city": "TPE", "address": "Da'an District", "latitude": 25.026, "longitude": 121.543,
            "recommendDistanceKm": 30, "feedback": "A friend told me", "mbti": "INTJ",
            "reviewLink": "https://www.linkedin.com/in/mei", "verifyDescription": "Team lead", "verifyTempFileName": "aaaabbbbccccddddeeeeffff00001111",
            "verifyMethod": "COMPANY_EMAIL", "companyEmail": "mei@tsmc.com",
            "photoNameList": ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"],
            "valueItem": [{"type": "HEIGHT", "from": 170, "to": 190}, {"type": "EDUCATION", "value": "BACHELOR"}]
        })
    }

    fn today() -> Date {
        Date::parse("2026-11-22").unwrap()
    }

    fn parse(value: serde_json::Value) -> Result<ValidProfile, FieldErrors> {
        UserProfileCreate::from_json(value)?.parse(today())
    }

    fn with(changes: serde_json::Value) -> serde_json::Value {
        let mut payload = complete_payload();
        for (key, value) in changes.as_object().unwrap() {
            if value.is_null() {
                payload.as_object_mut().unwrap().remove(key);
            } else {
                payload[key] = value.clone();
            }
        }
        payload
    }

    #[test]
    fn the_field_list_names_every_wire_field_of_a_complete_payload() {
        let payload = complete_payload();
        let keys: std::collections::BTreeSet<&str> = payload
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let listed: std::collections::BTreeSet<&str> = FIELDS.into_iter().collect();
        assert_eq!(keys, listed);
    }

    #[test]
    fn a_complete_payload_parses_and_round_trips_through_its_normalised_form() {
        let profile = parse(complete_payload()).unwrap();
        assert_eq!(profile.verification.employer_id.as_deref(), Some("tsmc"));
        assert_eq!(profile.tags.fertility_plan, 502);
        let again =
            UserProfileCreate::from_json(serde_json::to_value(profile.to_payload()).unwrap())
                .unwrap()
                .parse(today())
                .unwrap();
        assert_eq!(again, profile);
    }

    #[test]
    fn an_empty_body_reports_every_required_field_at_once() {
        let errors = parse(json!({})).unwrap_err();
        for field in [
            "account",
            "password",
            "nickname",
            "name",
            "gender",
            "matchGender",
            "occupationType",
            "occupation",
            "height",
            "incomeRange",
            "birthday",
            "education",
            "marriageRecord",
            "hasChildren",
            "smoke",
            "tattoo",
            "drink",
            "aboutMe",
            "personalityTagIds",
            "hobbyTagIds",
            "fertilityPlanTagIds",
            "city",
            "verifyMethod",
            "photoNameList",
        ] {
            assert_eq!(
                errors.get(field),
                Some(&[RuleCode::Required][..]),
                "{field}"
            );
        }
        assert_eq!(errors.get("school"), None);
        assert_eq!(errors.get("recommendDistanceKm"), None);
    }

    #[test]
    fn wrong_types_and_unknown_fields_are_all_reported_before_any_rule() {
        let errors = UserProfileCreate::from_json(with(
            json!({"height": "tall", "gender": "ALIEN", "smoke": 9, "isAdmin": true, "photoNameList": "a"}),
        ))
        .unwrap_err();
        assert_eq!(errors.get("height"), Some(&[RuleCode::InvalidType][..]));
        assert_eq!(errors.get("gender"), Some(&[RuleCode::InvalidChoice][..]));
        assert_eq!(errors.get("smoke"), Some(&[RuleCode::InvalidChoice][..]));
        assert_eq!(errors.get("isAdmin"), Some(&[RuleCode::UnknownField][..]));
        assert_eq!(
            errors.get("photoNameList"),
            Some(&[RuleCode::InvalidType][..])
        );
        assert_eq!(errors.len(), 5);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_an_invalid_type() {
        for body in [json!([]), json!("x"), json!(null), json!(3)] {
            assert_eq!(
                UserProfileCreate::from_json(body).unwrap_err(),
                FieldErrors::single("", RuleCode::InvalidType)
            );
        }
    }

    #[test]
    fn the_password_must_repeat_the_account() {
        let errors = parse(with(
            json!({"password": "U00000000000000000000000000000000"}),
        ))
        .unwrap_err();
        assert_eq!(errors.get("password"), Some(&[RuleCode::Mismatch][..]));
    }

    #[test]
    fn people_under_eighteen_cannot_register() {
        let errors = parse(with(json!({"birthday": "2008-11-23"}))).unwrap_err();
        assert_eq!(errors.get("birthday"), Some(&[RuleCode::TooYoung][..]));
        assert!(parse(with(json!({"birthday": "2008-11-22"}))).is_ok());
    }

    #[test]
    fn each_verification_method_requires_its_own_evidence() {
        let email_missing = parse(with(json!({"companyEmail": null}))).unwrap_err();
        assert_eq!(
            email_missing.get("companyEmail"),
            Some(&[RuleCode::Required][..])
        );
        let look_alike = parse(with(json!({"companyEmail": "mei@tsmc.com.evil.io"}))).unwrap_err();
        assert_eq!(
            look_alike.get("companyEmail"),
            Some(&[RuleCode::UnknownEmployer][..])
        );
        let id_card = parse(with(
            json!({"verifyMethod": "EMPLOYEE_ID", "verifyTempFileName": null}),
        ))
        .unwrap_err();
        assert_eq!(
            id_card.get("verifyTempFileName"),
            Some(&[RuleCode::Required][..])
        );
        let link = parse(with(
            json!({"verifyMethod": "REVIEW_LINK", "reviewLink": "http://www.linkedin.com/in/mei"}),
        ))
        .unwrap_err();
        assert_eq!(link.get("reviewLink"), Some(&[RuleCode::NotHttps][..]));
    }

    #[test]
    fn coordinates_come_in_pairs_within_range() {
        let half = parse(with(json!({"longitude": null}))).unwrap_err();
        assert_eq!(half.get("latitude"), Some(&[RuleCode::BothOrNeither][..]));
        let far = parse(with(json!({"latitude": 91.0}))).unwrap_err();
        assert_eq!(far.get("latitude"), Some(&[RuleCode::OutOfRange][..]));
        assert!(parse(with(json!({"latitude": null, "longitude": null}))).is_ok());
    }

    #[test]
    fn photos_are_one_to_six_distinct_safe_names() {
        assert_eq!(
            parse(with(json!({"photoNameList": []})))
                .unwrap_err()
                .get("photoNameList"),
            Some(&[RuleCode::TooFew][..])
        );
        let seven: Vec<String> = (0..7).map(|i| format!("photo{i}")).collect();
        assert_eq!(
            parse(with(json!({"photoNameList": seven})))
                .unwrap_err()
                .get("photoNameList"),
            Some(&[RuleCode::TooMany][..])
        );
        assert_eq!(
            parse(with(json!({"photoNameList": ["a", "a"]})))
                .unwrap_err()
                .get("photoNameList"),
            Some(&[RuleCode::Duplicate][..])
        );
        assert_eq!(
            parse(with(json!({"photoNameList": ["../x"]})))
                .unwrap_err()
                .get("photoNameList"),
            Some(&[RuleCode::Invalid][..])
        );
    }

    #[test]
    fn tags_must_exist_in_their_own_catalogue_and_fertility_plan_is_exactly_one() {
        let errors = parse(with(
            json!({"personalityTagIds": [101, 301], "fertilityPlanTagIds": [501, 502]}),
        ))
        .unwrap_err();
        assert_eq!(
            errors.get("personalityTagIds"),
            Some(&[RuleCode::InvalidChoice][..])
        );
        assert_eq!(
            errors.get("fertilityPlanTagIds"),
            Some(&[RuleCode::TooMany][..])
        );
    }
}
