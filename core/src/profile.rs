//! The registration payload (`UserProfileCreate`) and its one validator.
//!
//! The wire struct is deliberately loose (every field optional) so that a missing field is a
//! `required` rule failure reported with all the others, rather than a parse error that hides
//! them. Its field rules are declared on it with [validator]'s `#[derive(Validate)]`, every limit
//! named from [`rules`]; [`UserProfileCreate::parse`] applies them and turns the payload into a
//! [`ValidProfile`], whose fields are already checked: nothing downstream validates again.
//!
//! ```
//! use kizuna_core::{date::Date, profile::UserProfileCreate, rules::RuleCode};
//! use serde_json::json;
//!
//! let today = Date::parse("2026-11-22").unwrap();
//! let body = json!({
//!     "account": "U4af4980629a1b2c3d4e5f60718293a4b",
//!     "password": "U4af4980629a1b2c3d4e5f60718293a4b",
//!     "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
//!     "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
//!     "height": 163, "incomeRange": "INCOME_100_150", "birthday": "1995-03-14",
//!     "education": "MASTER", "marriageRecord": 0, "hasChildren": 0, "smoke": 0,
//!     "tattoo": "NONE", "drink": 1,
//!     "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
//!     "personalityTagIds": [101, 104], "hobbyTagIds": [301], "fertilityPlanTagIds": [502],
//!     "city": "TPE", "verifyMethod": "COMPANY_EMAIL", "companyEmail": "mei@tsmc.com",
//!     "photoNameList": ["0123456789abcdef0123456789abcdef"],
//!     "valueItem": [{"type": "HEIGHT", "from": 170, "to": 190}]
//! });
//!
//! // Wrong types and unknown fields are reported first, all at once ...
//! let mut unknown = body.clone();
//! unknown["isAdmin"] = json!(true);
//! let errors = UserProfileCreate::from_json(unknown).unwrap_err();
//! assert_eq!(errors.get("isAdmin"), Some(&[RuleCode::UnknownField][..]));
//!
//! // ... then every rule, each failing field with every rule it breaks ...
//! let mut short = body.clone();
//! short["aboutMe"] = json!("Hi!");
//! short["height"] = json!(300);
//! let errors = UserProfileCreate::from_json(short)?.parse(today).unwrap_err();
//! assert_eq!(
//!     serde_json::to_value(&errors).unwrap(),
//!     json!({"aboutMe": ["too_short"], "height": ["out_of_range"]})
//! );
//!
//! // ... and a payload that passes is a ValidProfile of checked, typed fields.
//! let profile = UserProfileCreate::from_json(body)?.parse(today)?;
//! assert_eq!(profile.account.as_str(), "U4af4980629a1b2c3d4e5f60718293a4b");
//! assert_eq!(profile.verification.employer_id.as_deref(), Some("tsmc"));
//! # Ok::<(), kizuna_core::rules::FieldErrors>(())
//! ```

use crate::catalogue;
use crate::choices::*;
use crate::conditions::{self, Condition, MatchFacts};
use crate::date::Date;
use crate::email::EmailAddress;
use crate::files::FileName;
pub use crate::geo::Coordinates;
use crate::line::LineUserId;
use crate::rules::{
    self, ABOUT_ME, ACHIEVEMENT, ADDRESS, DAILY_LIFE, DATING_QUESTION, EXERCISE_TAGS, FEEDBACK,
    FERTILITY_PLAN_TAGS, FieldErrors, HEIGHT_CM, HOBBY_TAGS, LATITUDE, LONGITUDE,
    MARRIAGE_TYPE_TAGS, NAME, NICKNAME, OCCUPATION, PERSONALITY_TAGS, PET_TAGS, PHOTOS,
    RECOMMEND_DISTANCE_KM, RuleCode, SCHOOL, SURPRISE_POINT, VERIFY_DESCRIPTION, struct_error,
};
use crate::url::{HttpsUrl, UrlError};
use serde::{Deserialize, Serialize};
use validator::{Validate, ValidateArgs, ValidationError};

/// POST /user-profile. Wire names exactly as the spec spells them, plus `companyEmail` (the work
/// address of the COMPANY_EMAIL verification, which the spec's list has no field for).
///
/// The field rules are the `#[validate(...)]` attributes below (validator's derive, with
/// [`Date`] — today — as its context). They judge the *normalised* payload (see
/// [`normalised`](Self::normalised)): call [`parse`](Self::parse), which normalises, validates
/// and builds the [`ValidProfile`] in one go. Struct-level rules (`schema`) name the fields they
/// concern, and [`FieldErrors::from`] puts validator's report into the wire shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Validate)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[validate(
    context = Date,
    schema(function = password_repeats_account, skip_on_field_errors = false),
    schema(function = location_is_a_pair, skip_on_field_errors = false),
    schema(function = verification_has_its_evidence, skip_on_field_errors = false),
    schema(function = conditions_in_range, skip_on_field_errors = false),
    schema(function = conditions_are_ranges, skip_on_field_errors = false),
    schema(function = one_condition_per_type, skip_on_field_errors = false)
)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct UserProfileCreate {
    /// The LINE user id; must equal `password` and the verified ID token's subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required, custom(function = line_user_id))]
    pub account: Option<String>,
    /// The LINE user id again.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub password: Option<String>,
    /// The name other members see.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(NICKNAME.min), max = u64::from(NICKNAME.max)),
        non_control_character
    )]
    pub nickname: Option<String>,
    /// The legal name, for reviewers only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(NAME.min), max = u64::from(NAME.max)),
        non_control_character
    )]
    pub name: Option<String>,
    /// The person's gender.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub gender: Option<Gender>,
    /// Whom the person wants to be introduced to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub match_gender: Option<MatchGender>,
    /// The field of work.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub occupation_type: Option<OccupationType>,
    /// The job title.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(OCCUPATION.min), max = u64::from(OCCUPATION.max)),
        non_control_character
    )]
    pub occupation: Option<String>,
    /// A work achievement; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(ACHIEVEMENT.min), max = u64::from(ACHIEVEMENT.max)),
        custom(function = multiline_text)
    )]
    pub achievement: Option<String>,
    /// Centimetres.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required, range(min = HEIGHT_CM.min, max = HEIGHT_CM.max))]
    pub height: Option<u32>,
    /// Yearly income band.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub income_range: Option<IncomeRange>,
    /// `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required, custom(function = adult_birthday, use_context))]
    pub birthday: Option<String>,
    /// The school last attended.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(SCHOOL.min), max = u64::from(SCHOOL.max)),
        non_control_character
    )]
    pub school: Option<String>,
    /// Highest completed education.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub education: Option<Education>,
    /// Marital history, as its numeric code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub marriage_record: Option<MarriageRecord>,
    /// Children, as its numeric code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub has_children: Option<HasChildren>,
    /// Smoking, as its numeric code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub smoke: Option<Smoke>,
    /// Tattoo visibility.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub tattoo: Option<Tattoo>,
    /// Drinking, as its numeric code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub drink: Option<Drink>,
    /// The introduction other members read; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(ABOUT_ME.min), max = u64::from(ABOUT_ME.max)),
        custom(function = multiline_text)
    )]
    pub about_me: Option<String>,
    /// Ids from the personality tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(PERSONALITY_TAGS.min), max = u64::from(PERSONALITY_TAGS.max)),
        custom(function = personality_tags),
        custom(function = distinct)
    )]
    pub personality_tag_ids: Option<Vec<u32>>,
    /// Ids from the exercise tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(EXERCISE_TAGS.min), max = u64::from(EXERCISE_TAGS.max)),
        custom(function = exercise_tags),
        custom(function = distinct)
    )]
    pub exercise_tag_ids: Option<Vec<u32>>,
    /// Ids from the hobby tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(HOBBY_TAGS.min), max = u64::from(HOBBY_TAGS.max)),
        custom(function = hobby_tags),
        custom(function = distinct)
    )]
    pub hobby_tag_ids: Option<Vec<u32>>,
    /// Ids from the marriage-type tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(MARRIAGE_TYPE_TAGS.min), max = u64::from(MARRIAGE_TYPE_TAGS.max)),
        custom(function = marriage_type_tags),
        custom(function = distinct)
    )]
    pub marriage_type_tag_ids: Option<Vec<u32>>,
    /// Exactly one id from the fertility-plan tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(FERTILITY_PLAN_TAGS.min), max = u64::from(FERTILITY_PLAN_TAGS.max)),
        custom(function = fertility_plan_tags),
        custom(function = distinct)
    )]
    pub fertility_plan_tag_ids: Option<Vec<u32>>,
    /// Ids from the pet tag catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(PET_TAGS.min), max = u64::from(PET_TAGS.max)),
        custom(function = pet_tags),
        custom(function = distinct)
    )]
    pub pet_tag_ids: Option<Vec<u32>>,
    /// A question for a first date; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(DATING_QUESTION.min), max = u64::from(DATING_QUESTION.max)),
        custom(function = multiline_text)
    )]
    pub dating_question: Option<String>,
    /// A day in the person's life; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(DAILY_LIFE.min), max = u64::from(DAILY_LIFE.max)),
        custom(function = multiline_text)
    )]
    pub daily_life: Option<String>,
    /// Something surprising about the person; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(SURPRISE_POINT.min), max = u64::from(SURPRISE_POINT.max)),
        custom(function = multiline_text)
    )]
    pub surprise_point: Option<String>,
    /// A city code of the catalogue.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required, custom(function = known_city))]
    pub city: Option<String>,
    /// Where the person lives, in words; for reviewers only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(ADDRESS.min), max = u64::from(ADDRESS.max)),
        non_control_character
    )]
    pub address: Option<String>,
    /// Degrees; given together with `longitude` or not at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(range(min = LATITUDE.min, max = LATITUDE.max))]
    pub latitude: Option<f64>,
    /// Degrees; given together with `latitude` or not at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(range(min = LONGITUDE.min, max = LONGITUDE.max))]
    pub longitude: Option<f64>,
    /// 0 (the default) means anywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(range(min = RECOMMEND_DISTANCE_KM.min, max = RECOMMEND_DISTANCE_KM.max))]
    pub recommend_distance_km: Option<u32>,
    /// How the person heard of Kizuna; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(FEEDBACK.min), max = u64::from(FEEDBACK.max)),
        custom(function = multiline_text)
    )]
    pub feedback: Option<String>,
    /// Myers–Briggs type, if the person shares it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mbti: Option<Mbti>,
    /// An `https://` page that shows the person's job (REVIEW_LINK verification).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(custom(function = https_link))]
    pub review_link: Option<String>,
    /// The uploaded photo of an employee card (EMPLOYEE_ID verification).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(custom(function = file_name))]
    pub verify_temp_file_name: Option<String>,
    /// A note to the reviewer; may span lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        length(min = u64::from(VERIFY_DESCRIPTION.min), max = u64::from(VERIFY_DESCRIPTION.max)),
        custom(function = multiline_text)
    )]
    pub verify_description: Option<String>,
    /// How the person proves where they work; decides which evidence field is required.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(required)]
    pub verify_method: Option<VerifyMethod>,
    /// A work address at an employer of the catalogue (COMPANY_EMAIL verification).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(custom(function = work_email))]
    pub company_email: Option<String>,
    /// Names of the uploaded profile photos, in display order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[validate(
        required,
        length(min = u64::from(PHOTOS.min), max = u64::from(PHOTOS.max)),
        custom(function = distinct),
        custom(function = file_names)
    )]
    pub photo_name_list: Option<Vec<String>>,
    /// What the person asks of the people they are introduced to; one condition per type. Its
    /// rules are struct-level (`conditions_*` above), so that each finding is keyed by the
    /// condition's type (`valueItem.HEIGHT`).
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

/// A registration that passed every rule: checked, typed and normalised (texts trimmed, blank
/// optional texts absent, the e-mail lower-cased).
#[derive(Clone, Debug, PartialEq)]
pub struct ValidProfile {
    /// The LINE user the profile belongs to.
    pub account: LineUserId,
    /// The name other members see.
    pub nickname: String,
    /// The legal name, for reviewers only.
    pub name: String,
    /// The person's gender.
    pub gender: Gender,
    /// Whom the person wants to be introduced to.
    pub match_gender: MatchGender,
    /// The field of work.
    pub occupation_type: OccupationType,
    /// The job title.
    pub occupation: String,
    /// A work achievement.
    pub achievement: Option<String>,
    /// Height in centimetres, within [`rules::HEIGHT_CM`].
    pub height_cm: u32,
    /// Yearly income band.
    pub income_range: IncomeRange,
    /// Date of birth; the person was of age on the day of validation.
    pub birthday: Date,
    /// The school last attended.
    pub school: Option<String>,
    /// Highest completed education.
    pub education: Education,
    /// Marital history.
    pub marriage_record: MarriageRecord,
    /// Children.
    pub has_children: HasChildren,
    /// Smoking.
    pub smoke: Smoke,
    /// Tattoo visibility.
    pub tattoo: Tattoo,
    /// Drinking.
    pub drink: Drink,
    /// The introduction other members read.
    pub about_me: String,
    /// Tags of every catalogue.
    pub tags: ProfileTags,
    /// A question for a first date.
    pub dating_question: Option<String>,
    /// A day in the person's life.
    pub daily_life: Option<String>,
    /// Something surprising about the person.
    pub surprise_point: Option<String>,
    /// A city code of the catalogue.
    pub city: String,
    /// Where the person lives, in words; for reviewers only.
    pub address: Option<String>,
    /// The person's location, when they shared it.
    pub location: Option<Coordinates>,
    /// How far away introductions may live, in kilometres; 0 means anywhere.
    pub recommend_distance_km: u32,
    /// How the person heard of Kizuna.
    pub feedback: Option<String>,
    /// Myers–Briggs type, if shared.
    pub mbti: Option<Mbti>,
    /// Proof of employment.
    pub verification: Verification,
    /// Names of the profile photos, in display order; distinct.
    pub photos: Vec<FileName>,
    /// What the person asks of the people they are introduced to; one per type.
    pub conditions: Vec<Condition>,
}

/// The tags of a profile, one list per catalogue; every id exists in its own catalogue, once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfileTags {
    /// Personality tag ids.
    pub personality: Vec<u32>,
    /// Exercise tag ids.
    pub exercise: Vec<u32>,
    /// Hobby tag ids.
    pub hobby: Vec<u32>,
    /// Marriage-type tag ids.
    pub marriage_type: Vec<u32>,
    /// The one fertility-plan tag id.
    pub fertility_plan: u32,
    /// Pet tag ids.
    pub pet: Vec<u32>,
}

/// Proof of employment. The method's own evidence is guaranteed present; the other fields are
/// kept when given (a reviewer may use them) and were validated all the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification {
    /// How the person proves where they work.
    pub method: VerifyMethod,
    /// The work address, at an employer of the catalogue.
    pub company_email: Option<EmailAddress>,
    /// The employer the company e-mail belongs to.
    pub employer_id: Option<String>,
    /// An `https://` page that shows the person's job.
    pub review_link: Option<HttpsUrl>,
    /// The uploaded photo of an employee card.
    pub temp_file: Option<FileName>,
    /// A note to the reviewer.
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

    /// The payload as its rules judge it: texts trimmed, and blank texts absent (so a blank
    /// required text is `required`). The LINE ids are only made absent when empty: a padded id
    /// is no id.
    pub fn normalised(mut self) -> UserProfileCreate {
        for id in [&mut self.account, &mut self.password] {
            if id.as_deref() == Some("") {
                *id = None;
            }
        }
        for text in [
            &mut self.nickname,
            &mut self.name,
            &mut self.occupation,
            &mut self.achievement,
            &mut self.birthday,
            &mut self.school,
            &mut self.about_me,
            &mut self.dating_question,
            &mut self.daily_life,
            &mut self.surprise_point,
            &mut self.city,
            &mut self.address,
            &mut self.feedback,
            &mut self.review_link,
            &mut self.verify_temp_file_name,
            &mut self.verify_description,
            &mut self.company_email,
        ] {
            if let Some(value) = text.take() {
                let trimmed = value.trim();
                *text = match trimmed.len() {
                    0 => None,
                    n if n == value.len() => Some(value),
                    _ => Some(trimmed.to_owned()),
                };
            }
        }
        self
    }

    /// Applies every rule of registration; `today` decides the age rules. Every failing field is
    /// reported, with every rule it breaks.
    ///
    /// The same as `normalised()`, validator's `validate_with_args(&today)` and, when that
    /// passes, the conversion into typed fields.
    pub fn parse(self, today: Date) -> Result<ValidProfile, FieldErrors> {
        // Every rule passed, so every conversion below succeeds. Should a rule ever let through
        // what its conversion refuses, the payload is still refused, never half-read.
        self.checked(today)?
            .into_valid()
            .ok_or_else(|| FieldErrors::single("", RuleCode::Invalid))
    }

    /// The normalised payload once it passed every rule.
    pub(crate) fn checked(self, today: Date) -> Result<UserProfileCreate, FieldErrors> {
        let payload = self.normalised();
        payload
            .validate_with_args(&today)
            .map_err(FieldErrors::from)?;
        Ok(payload)
    }

    /// The facts conditions are checked against, of a [`checked`](Self::checked) payload.
    pub(crate) fn facts(&self) -> Option<MatchFacts> {
        Some(MatchFacts {
            height_cm: self.height?,
            birthday: Date::parse(self.birthday.as_deref()?)?,
            income_range: self.income_range?,
            education: self.education?,
            marriage_record: self.marriage_record?,
            has_children: self.has_children?,
            smoke: self.smoke?,
            tattoo: self.tattoo?,
            drink: self.drink?,
        })
    }

    /// The typed profile of a normalised payload that passed its rules. The typed parses read
    /// borrowed text and the required fields are taken in one pattern, so that a failure (which
    /// the rules rule out) has one exit that drops the payload whole.
    fn into_valid(self) -> Option<ValidProfile> {
        let account = LineUserId::parse(self.account.as_deref()?)?;
        let birthday = Date::parse(self.birthday.as_deref()?)?;
        let company_email = optional(self.company_email.as_deref(), EmailAddress::parse)?;
        let employer_id = match &company_email {
            Some(email) => Some(
                catalogue::employer_for_domain(email.domain())?
                    .id
                    .to_owned(),
            ),
            None => None,
        };
        let review_link = optional(self.review_link.as_deref(), |link| {
            HttpsUrl::parse(link).ok()
        })?;
        let temp_file = optional(self.verify_temp_file_name.as_deref(), FileName::parse)?;
        let photos = self
            .photo_name_list
            .as_deref()?
            .iter()
            .map(|name| FileName::parse(name))
            .collect::<Option<Vec<_>>>()?;
        let fertility_plan = *self.fertility_plan_tag_ids.as_deref()?.first()?;
        let location = match (self.latitude, self.longitude) {
            (Some(latitude), Some(longitude)) => Some(Coordinates {
                latitude,
                longitude,
            }),
            _ => None,
        };
        let UserProfileCreate {
            nickname: Some(nickname),
            name: Some(name),
            gender: Some(gender),
            match_gender: Some(match_gender),
            occupation_type: Some(occupation_type),
            occupation: Some(occupation),
            height: Some(height_cm),
            income_range: Some(income_range),
            education: Some(education),
            marriage_record: Some(marriage_record),
            has_children: Some(has_children),
            smoke: Some(smoke),
            tattoo: Some(tattoo),
            drink: Some(drink),
            about_me: Some(about_me),
            personality_tag_ids: Some(personality),
            hobby_tag_ids: Some(hobby),
            city: Some(city),
            verify_method: Some(method),
            achievement,
            school,
            exercise_tag_ids,
            marriage_type_tag_ids,
            pet_tag_ids,
            dating_question,
            daily_life,
            surprise_point,
            address,
            recommend_distance_km,
            feedback,
            mbti,
            verify_description,
            value_item,
            ..
        } = self
        else {
            return None;
        };
        Some(ValidProfile {
            account,
            nickname,
            name,
            gender,
            match_gender,
            occupation_type,
            occupation,
            achievement,
            height_cm,
            income_range,
            birthday,
            school,
            education,
            marriage_record,
            has_children,
            smoke,
            tattoo,
            drink,
            about_me,
            tags: ProfileTags {
                personality,
                exercise: exercise_tag_ids.unwrap_or_default(),
                hobby,
                marriage_type: marriage_type_tag_ids.unwrap_or_default(),
                fertility_plan,
                pet: pet_tag_ids.unwrap_or_default(),
            },
            dating_question,
            daily_life,
            surprise_point,
            city,
            address,
            location,
            recommend_distance_km: recommend_distance_km.unwrap_or(0),
            feedback,
            mbti,
            verification: Verification {
                method,
                company_email,
                employer_id,
                review_link,
                temp_file,
                description: verify_description,
            },
            photos,
            conditions: value_item.unwrap_or_default(),
        })
    }
}

/// `Some(None)` for an absent value, `Some(Some(_))` for one that parses, `None` otherwise.
fn optional<T>(value: Option<&str>, parse: impl FnOnce(&str) -> Option<T>) -> Option<Option<T>> {
    match value {
        None => Some(None),
        Some(text) => parse(text).map(Some),
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

// The custom rules: what validator has no rule of its own for. Each reports a `RuleCode`.

fn line_user_id(text: &str) -> Result<(), ValidationError> {
    LineUserId::parse(text).ok_or(RuleCode::Invalid)?;
    Ok(())
}

/// Line breaks and tabs are allowed in multi-line texts; every other control character is not
/// (validator's `non_control_character` refuses line breaks too, so single-line texts use it).
fn multiline_text(text: &str) -> Result<(), ValidationError> {
    let allowed = |c: char| !c.is_control() || matches!(c, '\n' | '\r' | '\t');
    if text.chars().all(allowed) {
        Ok(())
    } else {
        Err(RuleCode::ControlChars.into())
    }
}

fn adult_birthday(text: &str, today: &Date) -> Result<(), ValidationError> {
    let birthday = Date::parse(text).ok_or(RuleCode::InvalidDate)?;
    match birthday.age_on(*today).map(u32::from) {
        None => Err(RuleCode::InvalidDate.into()),
        Some(age) if age < rules::AGE_YEARS.min => Err(RuleCode::TooYoung.into()),
        Some(age) if age > rules::AGE_YEARS.max => Err(RuleCode::TooOld.into()),
        Some(_) => Ok(()),
    }
}

fn tags_in(ids: &[u32], catalogue: &[catalogue::Tag]) -> Result<(), ValidationError> {
    if ids
        .iter()
        .all(|id| catalogue.iter().any(|tag| tag.id == *id))
    {
        Ok(())
    } else {
        Err(RuleCode::InvalidChoice.into())
    }
}

fn personality_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().personality)
}

fn exercise_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().exercise)
}

fn hobby_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().hobby)
}

fn marriage_type_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().marriage_type)
}

fn fertility_plan_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().fertility_plan)
}

fn pet_tags(ids: &[u32]) -> Result<(), ValidationError> {
    tags_in(ids, catalogue::tags().pet)
}

fn distinct<T: PartialEq>(items: &[T]) -> Result<(), ValidationError> {
    let repeated = items
        .iter()
        .enumerate()
        .any(|(i, item)| items[..i].contains(item));
    if repeated {
        Err(RuleCode::Duplicate.into())
    } else {
        Ok(())
    }
}

fn known_city(code: &str) -> Result<(), ValidationError> {
    catalogue::city(code).ok_or(RuleCode::InvalidChoice)?;
    Ok(())
}

// Hand-written, not validator's `url`: that one would link `url` and `idna` into the wasm.
fn https_link(text: &str) -> Result<(), ValidationError> {
    match HttpsUrl::parse(text) {
        Ok(_) => Ok(()),
        Err(UrlError::NotHttps) => Err(RuleCode::NotHttps.into()),
        Err(UrlError::Invalid) => Err(RuleCode::Invalid.into()),
    }
}

fn file_name(text: &str) -> Result<(), ValidationError> {
    FileName::parse(text).ok_or(RuleCode::Invalid)?;
    Ok(())
}

fn file_names(names: &[String]) -> Result<(), ValidationError> {
    if names.iter().all(|name| FileName::parse(name).is_some()) {
        Ok(())
    } else {
        Err(RuleCode::Invalid.into())
    }
}

// Hand-written, not validator's `email`: that one would link `regex` and `idna` into the wasm.
fn work_email(text: &str) -> Result<(), ValidationError> {
    let email = EmailAddress::parse(text).ok_or(RuleCode::InvalidEmail)?;
    catalogue::employer_for_domain(email.domain()).ok_or(RuleCode::UnknownEmployer)?;
    Ok(())
}

// The struct-level rules: each names the wire fields its finding belongs to.

fn password_repeats_account(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    let account = payload.account.as_deref().and_then(LineUserId::parse);
    match (account, payload.password.as_deref()) {
        (Some(account), Some(password)) if account.as_str() != password => {
            Err(struct_error(RuleCode::Mismatch, &["password"]))
        }
        _ => Ok(()),
    }
}

/// Both coordinates or neither; and each a number, which validator's `range` does not check (NaN
/// compares false both ways). JSON has no NaN, but a caller in Rust can build one.
fn location_is_a_pair(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    match (payload.latitude, payload.longitude) {
        (None, None) => Ok(()),
        (Some(latitude), Some(longitude)) => {
            let not_numbers: Vec<&str> = [("latitude", latitude), ("longitude", longitude)]
                .into_iter()
                .filter(|(_, degrees)| degrees.is_nan())
                .map(|(field, _)| field)
                .collect();
            if not_numbers.is_empty() {
                Ok(())
            } else {
                Err(struct_error(RuleCode::OutOfRange, &not_numbers))
            }
        }
        _ => Err(struct_error(
            RuleCode::BothOrNeither,
            &["latitude", "longitude"],
        )),
    }
}

fn verification_has_its_evidence(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    let (evidence, field) = match payload.verify_method {
        None => return Ok(()),
        Some(VerifyMethod::CompanyEmail) => (&payload.company_email, "companyEmail"),
        Some(VerifyMethod::EmployeeId) => (&payload.verify_temp_file_name, "verifyTempFileName"),
        Some(VerifyMethod::ReviewLink) => (&payload.review_link, "reviewLink"),
    };
    match evidence {
        Some(_) => Ok(()),
        None => Err(struct_error(RuleCode::Required, &[field])),
    }
}

fn condition_rule(payload: &UserProfileCreate, code: RuleCode) -> Result<(), ValidationError> {
    let conditions = payload.value_item.as_deref().unwrap_or_default();
    let keys = conditions::keys_breaking(conditions, code);
    if keys.is_empty() {
        Ok(())
    } else {
        Err(struct_error(code, &keys))
    }
}

fn conditions_in_range(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    condition_rule(payload, RuleCode::OutOfRange)
}

fn conditions_are_ranges(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    condition_rule(payload, RuleCode::InvalidRange)
}

fn one_condition_per_type(payload: &UserProfileCreate) -> Result<(), ValidationError> {
    condition_rule(payload, RuleCode::Duplicate)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::check_text;
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
    fn every_text_field_follows_its_rule_in_rules_rs() {
        // The derive's attributes against the TextRule each field names: same required-ness,
        // limits and line-break policy.
        let fields = [
            ("nickname", rules::NICKNAME),
            ("name", rules::NAME),
            ("occupation", rules::OCCUPATION),
            ("achievement", rules::ACHIEVEMENT),
            ("school", rules::SCHOOL),
            ("aboutMe", rules::ABOUT_ME),
            ("datingQuestion", rules::DATING_QUESTION),
            ("dailyLife", rules::DAILY_LIFE),
            ("surprisePoint", rules::SURPRISE_POINT),
            ("address", rules::ADDRESS),
            ("feedback", rules::FEEDBACK),
            ("verifyDescription", rules::VERIFY_DESCRIPTION),
        ];
        for (field, rule) in fields {
            let (min, max) = (rule.min as usize, rule.max as usize);
            let samples = [
                String::new(),
                "   ".to_owned(),
                "字".repeat(min.max(1)),
                "字".repeat(min.saturating_sub(1).max(1)),
                format!("  {}  ", "字".repeat(max)),
                "字".repeat(max + 1),
                format!("{}\n{}", "a".repeat(min), "b"),
                format!("{}\u{7}", "a".repeat(min)),
                format!("{}\u{7}", "a".repeat(max + 1)),
            ];
            for sample in samples {
                let mut expected = FieldErrors::new();
                check_text(field, Some(&sample), rule, &mut expected);
                let found = parse(with(json!({ field: sample })))
                    .err()
                    .unwrap_or_default();
                let sorted = |codes: Option<&[RuleCode]>| {
                    let mut codes = codes.unwrap_or_default().to_vec();
                    codes.sort();
                    codes
                };
                assert_eq!(
                    sorted(found.get(field)),
                    sorted(expected.get(field)),
                    "{field} = {sample:?}"
                );
            }
        }
    }

    #[test]
    fn every_tag_list_follows_its_count_rule_in_rules_rs() {
        let tags = catalogue::tags();
        let lists = [
            (
                "personalityTagIds",
                rules::PERSONALITY_TAGS,
                tags.personality,
            ),
            ("exerciseTagIds", rules::EXERCISE_TAGS, tags.exercise),
            ("hobbyTagIds", rules::HOBBY_TAGS, tags.hobby),
            (
                "marriageTypeTagIds",
                rules::MARRIAGE_TYPE_TAGS,
                tags.marriage_type,
            ),
            (
                "fertilityPlanTagIds",
                rules::FERTILITY_PLAN_TAGS,
                tags.fertility_plan,
            ),
            ("petTagIds", rules::PET_TAGS, tags.pet),
        ];
        let errors_of = |field: &str, value: serde_json::Value| {
            parse(with(json!({ field: value })))
                .err()
                .and_then(|errors| errors.get(field).map(<[RuleCode]>::to_vec))
        };
        for (field, rule, catalogue) in lists {
            let ids = |count: u32| -> Vec<u32> {
                catalogue
                    .iter()
                    .map(|tag| tag.id)
                    .take(count as usize)
                    .collect()
            };
            let absent = errors_of(field, serde_json::Value::Null);
            let required = rule.min > 0;
            assert_eq!(
                absent,
                required.then(|| vec![RuleCode::Required]),
                "{field}"
            );
            assert_eq!(errors_of(field, json!(ids(rule.max))), None, "{field}");
            if catalogue.len() > rule.max as usize {
                let too_many = errors_of(field, json!(ids(rule.max + 1)));
                assert_eq!(too_many, Some(vec![RuleCode::TooMany]), "{field}");
            }
            if rule.min > 0 {
                let too_few = errors_of(field, json!(ids(rule.min - 1)));
                assert_eq!(too_few, Some(vec![RuleCode::TooFew]), "{field}");
            }
        }
    }

    #[test]
    fn errors_are_keyed_by_wire_names() {
        let errors =
            parse(json!({"latitude": 1.0, "valueItem": [{"type": "HEIGHT"}]})).unwrap_err();
        for field in errors.fields() {
            assert!(
                FIELDS.contains(&field) || field.starts_with("valueItem."),
                "{field}"
            );
        }
        assert_eq!(errors.get("matchGender"), Some(&[RuleCode::Required][..]));
        assert_eq!(
            errors.get("longitude"),
            Some(&[RuleCode::BothOrNeither][..])
        );
    }

    #[test]
    fn conditions_of_a_payload_are_reported_by_type() {
        let errors = parse(with(json!({"valueItem": [
            {"type": "HEIGHT", "from": 190, "to": 170},
            {"type": "AGE", "from": 16},
            {"type": "SMOKE", "value": 0},
            {"type": "SMOKE", "value": 1},
        ]})))
        .unwrap_err();
        assert_eq!(
            errors.get("valueItem.HEIGHT"),
            Some(&[RuleCode::InvalidRange][..])
        );
        assert_eq!(
            errors.get("valueItem.AGE"),
            Some(&[RuleCode::OutOfRange][..])
        );
        assert_eq!(
            errors.get("valueItem.SMOKE"),
            Some(&[RuleCode::Duplicate][..])
        );
        assert_eq!(errors.len(), 3);
    }

    #[test]
    fn a_coordinate_that_is_not_a_number_is_out_of_range() {
        let payload = UserProfileCreate {
            latitude: Some(f64::NAN),
            ..UserProfileCreate::from_json(complete_payload()).unwrap()
        };
        let errors = payload.parse(today()).unwrap_err();
        assert_eq!(errors.get("latitude"), Some(&[RuleCode::OutOfRange][..]));
        assert_eq!(errors.get("longitude"), None);
    }

    #[test]
    fn a_checked_payload_has_the_facts_of_its_profile() {
        let payload = UserProfileCreate::from_json(complete_payload()).unwrap();
        let facts = payload.clone().checked(today()).unwrap().facts();
        assert_eq!(facts, Some(payload.parse(today()).unwrap().facts()));
    }

    #[test]
    fn validator_can_be_called_directly_on_a_normalised_payload() {
        let mut payload = UserProfileCreate::from_json(complete_payload()).unwrap();
        payload.nickname = Some("  ".into());
        let report = payload
            .normalised()
            .validate_with_args(&today())
            .unwrap_err();
        assert_eq!(
            FieldErrors::from(report),
            FieldErrors::single("nickname", RuleCode::Required)
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
