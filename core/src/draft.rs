//! The register draft: what the form keeps in local storage while a person fills it in, and the
//! one function that turns it into the payload.
//!
//! Drafts outlive app versions and live in storage that users, extensions and crashes can mangle,
//! so reading one back never fails: `repair` keeps every field it can use, converts what it can
//! (numbers where text is expected, the v1 fertility list), and drops only what it cannot, field
//! by field. Version history:
//! - v1 (unversioned): `fertilityPlanTagIds` was a list; numeric inputs were stored as numbers.
//! - v2: `version: 2`, `fertilityPlanTagId` a single string, every input stored as text.
//!
//! ```
//! use kizuna_core::date::Date;
//! use kizuna_core::draft::{self, RegisterDraft};
//! use kizuna_core::rules::RuleCode;
//! use serde_json::json;
//!
//! // Damage is dropped field by field; the rest is kept.
//! let repaired = draft::repair(&json!({"version": 2, "nickname": "Mei", "name": {"x": 1}}));
//! assert_eq!(repaired.draft.nickname, "Mei");
//! assert_eq!(repaired.dropped, ["name"]);
//! // Something that is no draft at all gives an empty one.
//! assert!(draft::repair(&json!("garbage")).discarded);
//!
//! // The payload comes only with a draft that passes every rule; the errors say why not.
//! let today = Date::parse("2026-11-22").unwrap();
//! let mut form = RegisterDraft::default();
//! form.height = "tall".into();
//! let outcome = draft::build_payload(&form, "U4af4980629a1b2c3d4e5f60718293a4b", today);
//! assert!(outcome.payload.is_none());
//! assert_eq!(outcome.errors.get("height"), Some(&[RuleCode::Invalid][..]));
//! assert_eq!(outcome.errors.get("nickname"), Some(&[RuleCode::Required][..]));
//! ```

use crate::choices::*;
use crate::conditions::{Bounds, CONDITION_TYPES, Condition};
use crate::date::Date;
use crate::profile::UserProfileCreate;
use crate::rules::{FieldErrors, RuleCode};
use serde::Serialize;
use serde_json::Value;

/// The version a draft is stored as now.
pub const DRAFT_VERSION: u32 = 2;
/// Photo slots of the form.
pub const PHOTO_SLOTS: usize = 6;
/// Longer stored text is cut here on repair: far beyond every field's limit (which validation
/// reports), but small enough that a mangled value cannot bloat the form.
const MAX_STORED_TEXT: usize = 5_000;

/// The form as typed. Text inputs and selects hold strings ('' = nothing chosen);
/// `marriageRecord`, `hasChildren`, `smoke` and `drink` hold JSON strings ("0", "1", …).
///
/// Deliberately not `Deserialize`: a draft from outside is read with `repair`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct RegisterDraft {
    /// [`DRAFT_VERSION`] once repaired.
    pub version: u32,
    /// Text input: the nickname.
    pub nickname: String,
    /// Text input: the legal name.
    pub name: String,
    /// Select: a [`Gender`] wire value.
    pub gender: String,
    /// Select: a [`MatchGender`] wire value.
    pub match_gender: String,
    /// Date input: `YYYY-MM-DD`.
    pub birthday: String,
    /// Number input: centimetres.
    pub height: String,
    /// Select: an [`OccupationType`] wire value.
    pub occupation_type: String,
    /// Text input: the job title.
    pub occupation: String,
    /// Text area: a work achievement.
    pub achievement: String,
    /// Select: an [`IncomeRange`] wire value.
    pub income_range: String,
    /// Text input: the school.
    pub school: String,
    /// Select: an [`Education`] wire value.
    pub education: String,
    /// Select: a [`MarriageRecord`] code as JSON text (`"0"`).
    pub marriage_record: String,
    /// Select: a [`HasChildren`] code as JSON text.
    pub has_children: String,
    /// Select: a [`Smoke`] code as JSON text.
    pub smoke: String,
    /// Select: a [`Drink`] code as JSON text.
    pub drink: String,
    /// Select: a [`Tattoo`] wire value.
    pub tattoo: String,
    /// Select: an [`Mbti`] wire value, or empty.
    pub mbti: String,
    /// Chosen personality tag ids, as text.
    pub personality_tag_ids: Vec<String>,
    /// Chosen exercise tag ids, as text.
    pub exercise_tag_ids: Vec<String>,
    /// Chosen hobby tag ids, as text.
    pub hobby_tag_ids: Vec<String>,
    /// Chosen marriage-type tag ids, as text.
    pub marriage_type_tag_ids: Vec<String>,
    /// The chosen fertility-plan tag id, as text (one, where the payload has a list).
    pub fertility_plan_tag_id: String,
    /// Chosen pet tag ids, as text.
    pub pet_tag_ids: Vec<String>,
    /// Text area: the introduction.
    pub about_me: String,
    /// Text area: a question for a first date.
    pub dating_question: String,
    /// Text area: a day in the person's life.
    pub daily_life: String,
    /// Text area: something surprising.
    pub surprise_point: String,
    /// Select: a city code of the catalogue.
    pub city: String,
    /// Text input: the address.
    pub address: String,
    // Serialised as null when absent (the form keeps the key), so declared that way for TypeScript.
    /// From geolocation, if the person allowed it.
    #[cfg_attr(feature = "ts", tsify(type = "number | null"))]
    pub latitude: Option<f64>,
    /// From geolocation, if the person allowed it.
    #[cfg_attr(feature = "ts", tsify(type = "number | null"))]
    pub longitude: Option<f64>,
    /// Number input: kilometres; empty means 0, anywhere.
    pub recommend_distance_km: String,
    /// Text area: how the person heard of Kizuna.
    pub feedback: String,
    /// Select: a [`VerifyMethod`] wire value.
    pub verify_method: String,
    /// Text input: the work address (COMPANY_EMAIL).
    pub company_email: String,
    /// Text input: the `https://` page (REVIEW_LINK).
    pub review_link: String,
    /// The uploaded employee-card photo (EMPLOYEE_ID).
    pub verify_temp_file_name: String,
    /// Text area: a note to the reviewer.
    pub verify_description: String,
    /// One entry per photo slot ('' = empty); a file name once uploaded, or a local placeholder.
    pub photo_name_list: Vec<String>,
    /// The condition section.
    pub conditions: DraftConditions,
}

/// The condition section of the form: one entry per condition type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct DraftConditions {
    /// Height range, in centimetres.
    pub height: RangeDraft,
    /// Age range, in years.
    pub age: RangeDraft,
    /// Income range, in 10,000 TWD a year.
    pub income: RangeDraft,
    /// At least this education.
    pub education: ValueDraft,
    /// Exactly this marital history.
    pub marriage_record: ValueDraft,
    /// Exactly this situation with children.
    pub has_children: ValueDraft,
    /// At most this much smoking.
    pub smoke: ValueDraft,
    /// At most this visible a tattoo.
    pub tattoo: ValueDraft,
    /// At most this much drinking.
    pub drink: ValueDraft,
}

/// A range condition as typed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct RangeDraft {
    /// The condition's checkbox.
    pub selected: bool,
    /// The lower bound as typed; empty for none.
    pub from: String,
    /// The upper bound as typed; empty for none.
    pub to: String,
}

/// A one-value condition as chosen.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ValueDraft {
    /// The condition's checkbox.
    pub selected: bool,
    /// The chosen value as the select holds it; empty for none.
    pub value: String,
}

impl Default for RegisterDraft {
    fn default() -> RegisterDraft {
        RegisterDraft {
            version: DRAFT_VERSION,
            nickname: String::new(),
            name: String::new(),
            gender: String::new(),
            match_gender: String::new(),
            birthday: String::new(),
            height: String::new(),
            occupation_type: String::new(),
            occupation: String::new(),
            achievement: String::new(),
            income_range: String::new(),
            school: String::new(),
            education: String::new(),
            marriage_record: String::new(),
            has_children: String::new(),
            smoke: String::new(),
            drink: String::new(),
            tattoo: String::new(),
            mbti: String::new(),
            personality_tag_ids: Vec::new(),
            exercise_tag_ids: Vec::new(),
            hobby_tag_ids: Vec::new(),
            marriage_type_tag_ids: Vec::new(),
            fertility_plan_tag_id: String::new(),
            pet_tag_ids: Vec::new(),
            about_me: String::new(),
            dating_question: String::new(),
            daily_life: String::new(),
            surprise_point: String::new(),
            city: String::new(),
            address: String::new(),
            latitude: None,
            longitude: None,
            recommend_distance_km: String::new(),
            feedback: String::new(),
            verify_method: String::new(),
            company_email: String::new(),
            review_link: String::new(),
            verify_temp_file_name: String::new(),
            verify_description: String::new(),
            photo_name_list: vec![String::new(); PHOTO_SLOTS],
            conditions: DraftConditions::default(),
        }
    }
}

/// What `repair` made of a stored draft.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct RepairedDraft {
    /// Every field that could be kept; the rest empty.
    pub draft: RegisterDraft,
    /// Fields kept after conversion (a number where text belongs, an old shape, a cut text).
    pub repaired: Vec<String>,
    /// Fields that could not be used and were reset, and unknown fields that were removed.
    pub dropped: Vec<String>,
    /// The stored value was not a draft at all (not an object); nothing could be kept.
    pub discarded: bool,
}

impl RepairedDraft {
    /// For a stored value that cannot even be read as JSON.
    pub fn unreadable() -> RepairedDraft {
        RepairedDraft {
            draft: RegisterDraft::default(),
            repaired: Vec::new(),
            dropped: Vec::new(),
            discarded: true,
        }
    }
}

/// What `build_payload` made of a draft.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct BuildOutcome {
    /// Present only when the draft passes every rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub payload: Option<UserProfileCreate>,
    /// Every failing field (empty when the payload is present).
    pub errors: FieldErrors,
}

/// Tag ids are short numbers; anything longer in a stored list is damage.
const MAX_STORED_TAG_ID: usize = 10;

impl RegisterDraft {
    /// The text input stored under a wire name. With `list_slot` and the coordinate, photo and
    /// condition fields handled in `repair`, this is the one map from stored names to fields.
    fn text_slot(&mut self, name: &str) -> Option<&mut String> {
        Some(match name {
            "nickname" => &mut self.nickname,
            "name" => &mut self.name,
            "gender" => &mut self.gender,
            "matchGender" => &mut self.match_gender,
            "birthday" => &mut self.birthday,
            "height" => &mut self.height,
            "occupationType" => &mut self.occupation_type,
            "occupation" => &mut self.occupation,
            "achievement" => &mut self.achievement,
            "incomeRange" => &mut self.income_range,
            "school" => &mut self.school,
            "education" => &mut self.education,
            "marriageRecord" => &mut self.marriage_record,
            "hasChildren" => &mut self.has_children,
            "smoke" => &mut self.smoke,
            "drink" => &mut self.drink,
            "tattoo" => &mut self.tattoo,
            "mbti" => &mut self.mbti,
            "fertilityPlanTagId" => &mut self.fertility_plan_tag_id,
            "aboutMe" => &mut self.about_me,
            "datingQuestion" => &mut self.dating_question,
            "dailyLife" => &mut self.daily_life,
            "surprisePoint" => &mut self.surprise_point,
            "city" => &mut self.city,
            "address" => &mut self.address,
            "recommendDistanceKm" => &mut self.recommend_distance_km,
            "feedback" => &mut self.feedback,
            "verifyMethod" => &mut self.verify_method,
            "companyEmail" => &mut self.company_email,
            "reviewLink" => &mut self.review_link,
            "verifyTempFileName" => &mut self.verify_temp_file_name,
            "verifyDescription" => &mut self.verify_description,
            _ => return None,
        })
    }

    fn list_slot(&mut self, name: &str) -> Option<&mut Vec<String>> {
        Some(match name {
            "personalityTagIds" => &mut self.personality_tag_ids,
            "exerciseTagIds" => &mut self.exercise_tag_ids,
            "hobbyTagIds" => &mut self.hobby_tag_ids,
            "marriageTypeTagIds" => &mut self.marriage_type_tag_ids,
            "petTagIds" => &mut self.pet_tag_ids,
            _ => return None,
        })
    }

    fn coordinate_slot(&mut self, name: &str) -> Option<&mut Option<f64>> {
        Some(match name {
            "latitude" => &mut self.latitude,
            "longitude" => &mut self.longitude,
            _ => return None,
        })
    }
}

impl DraftConditions {
    fn range_slot(&mut self, kind: &str) -> Option<&mut RangeDraft> {
        Some(match kind {
            "HEIGHT" => &mut self.height,
            "AGE" => &mut self.age,
            "INCOME" => &mut self.income,
            _ => return None,
        })
    }

    fn value_slot(&mut self, kind: &str) -> Option<&mut ValueDraft> {
        Some(match kind {
            "EDUCATION" => &mut self.education,
            "MARRIAGE_RECORD" => &mut self.marriage_record,
            "HAS_CHILDREN" => &mut self.has_children,
            "SMOKE" => &mut self.smoke,
            "TATTOO" => &mut self.tattoo,
            "DRINK" => &mut self.drink,
            _ => return None,
        })
    }
}

#[derive(Default)]
struct Repairer {
    repaired: Vec<String>,
    dropped: Vec<String>,
}

impl Repairer {
    fn note(list: &mut Vec<String>, field: &str) {
        if !list.iter().any(|f| f == field) {
            list.push(field.to_owned());
        }
    }

    fn repaired(&mut self, field: &str) {
        Self::note(&mut self.repaired, field);
    }

    fn dropped(&mut self, field: &str) {
        Self::note(&mut self.dropped, field);
    }

    /// Text as stored, or converted from a scalar; `None` when unusable.
    fn text(&mut self, field: &str, value: &Value) -> Option<String> {
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => {
                self.repaired(field);
                number.to_string()
            }
            Value::Bool(flag) => {
                self.repaired(field);
                flag.to_string()
            }
            Value::Null => {
                self.repaired(field);
                String::new()
            }
            Value::Array(_) | Value::Object(_) => {
                self.dropped(field);
                return None;
            }
        };
        if text.chars().count() > MAX_STORED_TEXT {
            self.repaired(field);
            return Some(text.chars().take(MAX_STORED_TEXT).collect());
        }
        Some(text)
    }

    fn list(&mut self, field: &str, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.dropped(field);
            return None;
        };
        let kept: Vec<String> = items
            .iter()
            .filter_map(|item| {
                let text = match item {
                    Value::String(text) => text.clone(),
                    // An id stored as a number is kept as its digits, by the same length rule.
                    Value::Number(number) if number.is_u64() => number.to_string(),
                    _ => return None,
                };
                (!text.is_empty() && text.len() <= MAX_STORED_TAG_ID).then_some(text)
            })
            .collect();
        if kept.len() != items.len() || items.iter().any(Value::is_number) {
            self.repaired(field);
        }
        Some(kept)
    }

    fn coordinate(&mut self, field: &str, value: &Value) -> Option<Option<f64>> {
        let number = match value {
            Value::Null => return Some(None),
            Value::Number(number) => number.as_f64(),
            _ => None,
        };
        match number.filter(|n| n.is_finite()) {
            Some(number) => Some(Some(number)),
            None => {
                self.dropped(field);
                None
            }
        }
    }

    fn photos(&mut self, value: &Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            self.dropped("photoNameList");
            return None;
        };
        let mut changed = items.len() > PHOTO_SLOTS;
        let mut slots: Vec<String> = items
            .iter()
            .take(PHOTO_SLOTS)
            .map(|item| match item {
                Value::String(text) if text.len() <= 64 => text.clone(),
                Value::Null => String::new(),
                _ => {
                    changed = true;
                    String::new()
                }
            })
            .collect();
        slots.resize(PHOTO_SLOTS, String::new());
        if changed {
            self.repaired("photoNameList");
        }
        Some(slots)
    }

    fn conditions(&mut self, value: &Value) -> Option<DraftConditions> {
        let Value::Object(stored) = value else {
            self.dropped("conditions");
            return None;
        };
        let mut clean = DraftConditions::default();
        for (kind, entry) in stored {
            let field = format!("conditions.{kind}");
            let Some(Value::Object(entry)) =
                CONDITION_TYPES.contains(&kind.as_str()).then_some(entry)
            else {
                self.dropped(&field);
                continue;
            };
            let selected = match entry.get("selected") {
                Some(Value::Bool(selected)) => *selected,
                _ => {
                    self.repaired(&field);
                    false
                }
            };
            let mut part = |name: &str| {
                entry
                    .get(name)
                    .and_then(|v| self.text(&field, v))
                    .unwrap_or_default()
            };
            if let Some(range) = clean.range_slot(kind) {
                *range = RangeDraft {
                    selected,
                    from: part("from"),
                    to: part("to"),
                };
            } else if let Some(choice) = clean.value_slot(kind) {
                *choice = ValueDraft {
                    selected,
                    value: part("value"),
                };
            }
        }
        Some(clean)
    }
}

/// Reads back whatever was stored (already JSON-parsed; `null` when nothing was), keeping every
/// usable field. Never fails. Every draft from outside (storage, the web app's state) comes in
/// through here, so nothing else has to cope with a malformed one.
pub fn repair(stored: &Value) -> RepairedDraft {
    let Value::Object(stored) = stored else {
        let nothing_stored = RepairedDraft {
            discarded: false,
            ..RepairedDraft::unreadable()
        };
        return if stored.is_null() {
            nothing_stored
        } else {
            RepairedDraft::unreadable()
        };
    };
    let mut draft = RegisterDraft::default();
    let mut fixer = Repairer::default();
    let is_v1 = !stored.contains_key("version");
    for (field, value) in stored {
        let name = field.as_str();
        if name == "version" {
            continue;
        } else if name == "fertilityPlanTagIds" && is_v1 {
            // v1 kept the single fertility plan as a one-element list.
            fixer.repaired("fertilityPlanTagId");
            let none = Value::String(String::new());
            let first = value
                .as_array()
                .and_then(|items| items.first())
                .unwrap_or(&none);
            if let Some(text) = fixer.text("fertilityPlanTagId", first) {
                draft.fertility_plan_tag_id = text;
            }
        } else if draft.text_slot(name).is_some() {
            if let (Some(text), Some(slot)) = (fixer.text(name, value), draft.text_slot(name)) {
                *slot = text;
            }
        } else if draft.list_slot(name).is_some() {
            if let (Some(items), Some(slot)) = (fixer.list(name, value), draft.list_slot(name)) {
                *slot = items;
            }
        } else if draft.coordinate_slot(name).is_some() {
            if let (Some(number), Some(slot)) =
                (fixer.coordinate(name, value), draft.coordinate_slot(name))
            {
                *slot = number;
            }
        } else if name == "photoNameList" {
            if let Some(slots) = fixer.photos(value) {
                draft.photo_name_list = slots;
            }
        } else if name == "conditions" {
            if let Some(conditions) = fixer.conditions(value) {
                draft.conditions = conditions;
            }
        } else {
            fixer.dropped(name);
        }
    }
    RepairedDraft {
        draft,
        repaired: fixer.repaired,
        dropped: fixer.dropped,
        discarded: false,
    }
}

/// Turns the draft into the payload: JSON-string choices parsed, tag ids to
/// numbers, the fertility plan as a one-element list, empty photo slots skipped, the distance
/// defaulting to 0, and only selected conditions that carry data. Then applies every rule, so the
/// payload comes back only when the server will accept it (save for its own checks of file
/// ownership and identity).
pub fn build_payload(draft: &RegisterDraft, line_user_id: &str, today: Date) -> BuildOutcome {
    let (payload, conversion_errors) = convert(draft, line_user_id);
    let mut errors = payload.clone().checked(today).err().unwrap_or_default();
    // A value that could not even be converted is reported as such, not as missing.
    for (field, _) in conversion_errors.iter() {
        errors.remove(field);
    }
    errors.merge(conversion_errors);
    let payload = errors.is_empty().then_some(payload);
    BuildOutcome { payload, errors }
}

/// The conditions a draft's condition section stands for, and what is wrong with them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ConditionsOutcome {
    /// Selected conditions that carry data, in form order.
    pub conditions: Vec<Condition>,
    /// What is wrong with them, keyed `valueItem.<TYPE>`.
    pub errors: FieldErrors,
}

/// The conditions of a draft's condition section (the `valueItem` the form would send), checked.
pub fn conditions_of(draft: &RegisterDraft) -> ConditionsOutcome {
    let mut errors = FieldErrors::new();
    let conditions = conditions(&draft.conditions, &mut errors);
    crate::conditions::check(&conditions, &mut errors);
    ConditionsOutcome { conditions, errors }
}

/// Does the person of one complete draft meet the conditions chosen in another? Matchmaking
/// proper runs on stored profiles; this lets the form preview a condition against a sample.
pub fn satisfies(
    person: &RegisterDraft,
    seeker: &RegisterDraft,
    line_user_id: &str,
    today: Date,
) -> Result<bool, FieldErrors> {
    // The facts alone, not a whole `ValidProfile`: the wasm then carries no code to build one.
    let facts = match build_payload(person, line_user_id, today).payload {
        Some(payload) => payload.checked(today)?.facts(),
        None => return Err(validate(person, line_user_id, today)),
    };
    let facts = facts.ok_or_else(|| FieldErrors::single("", RuleCode::Invalid))?;
    let wanted = conditions_of(seeker);
    if !wanted.errors.is_empty() {
        return Err(wanted.errors);
    }
    Ok(crate::conditions::satisfies(
        &facts,
        &wanted.conditions,
        today,
    ))
}

/// Every failing field of the draft, keyed by payload wire name (`{}` when it would be accepted).
pub fn validate(draft: &RegisterDraft, line_user_id: &str, today: Date) -> FieldErrors {
    build_payload(draft, line_user_id, today).errors
}

fn convert(d: &RegisterDraft, line_user_id: &str) -> (UserProfileCreate, FieldErrors) {
    let mut errors = FieldErrors::new();
    let e = &mut errors;
    let payload = UserProfileCreate {
        account: Some(line_user_id.to_owned()),
        password: Some(line_user_id.to_owned()),
        nickname: text(&d.nickname),
        name: text(&d.name),
        gender: choice("gender", &d.gender, Gender::parse, e),
        match_gender: choice("matchGender", &d.match_gender, MatchGender::parse, e),
        occupation_type: choice(
            "occupationType",
            &d.occupation_type,
            OccupationType::parse,
            e,
        ),
        occupation: text(&d.occupation),
        achievement: text(&d.achievement),
        height: number("height", &d.height, e),
        income_range: choice("incomeRange", &d.income_range, IncomeRange::parse, e),
        birthday: text(&d.birthday),
        school: text(&d.school),
        education: choice("education", &d.education, Education::parse, e),
        marriage_record: json_choice("marriageRecord", &d.marriage_record, e),
        has_children: json_choice("hasChildren", &d.has_children, e),
        smoke: json_choice("smoke", &d.smoke, e),
        tattoo: choice("tattoo", &d.tattoo, Tattoo::parse, e),
        drink: json_choice("drink", &d.drink, e),
        about_me: text(&d.about_me),
        personality_tag_ids: tag_ids("personalityTagIds", &d.personality_tag_ids, e),
        exercise_tag_ids: tag_ids("exerciseTagIds", &d.exercise_tag_ids, e),
        hobby_tag_ids: tag_ids("hobbyTagIds", &d.hobby_tag_ids, e),
        marriage_type_tag_ids: tag_ids("marriageTypeTagIds", &d.marriage_type_tag_ids, e),
        fertility_plan_tag_ids: number("fertilityPlanTagIds", &d.fertility_plan_tag_id, e)
            .map(|id| vec![id]),
        pet_tag_ids: tag_ids("petTagIds", &d.pet_tag_ids, e),
        dating_question: text(&d.dating_question),
        daily_life: text(&d.daily_life),
        surprise_point: text(&d.surprise_point),
        city: text(&d.city),
        address: text(&d.address),
        latitude: d.latitude,
        longitude: d.longitude,
        recommend_distance_km: Some(
            number("recommendDistanceKm", &d.recommend_distance_km, e).unwrap_or(0),
        ),
        feedback: text(&d.feedback),
        mbti: choice("mbti", &d.mbti, Mbti::parse, e),
        review_link: text(&d.review_link),
        verify_temp_file_name: text(&d.verify_temp_file_name),
        verify_description: text(&d.verify_description),
        verify_method: choice("verifyMethod", &d.verify_method, VerifyMethod::parse, e),
        company_email: text(&d.company_email),
        photo_name_list: Some(
            d.photo_name_list
                .iter()
                .map(|slot| slot.trim())
                .filter(|slot| !slot.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
        value_item: Some(conditions(&d.conditions, e)),
    };
    (payload, errors)
}

fn text(value: &str) -> Option<String> {
    (!value.trim().is_empty()).then(|| value.to_owned())
}

fn choice<T>(
    field: &str,
    value: &str,
    parse: fn(&str) -> Option<T>,
    e: &mut FieldErrors,
) -> Option<T> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let parsed = parse(value);
    if parsed.is_none() {
        e.add(field, RuleCode::InvalidChoice);
    }
    parsed
}

/// A choice whose select holds a JSON string ("0"), parsed as JSON.
fn json_choice<T: NumericChoice>(field: &str, value: &str, e: &mut FieldErrors) -> Option<T> {
    if value.trim().is_empty() {
        return None;
    }
    let parsed = T::from_json_text(value);
    if parsed.is_none() {
        e.add(field, RuleCode::InvalidChoice);
    }
    parsed
}

fn number(field: &str, value: &str, e: &mut FieldErrors) -> Option<u32> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let parsed = value.parse().ok();
    if parsed.is_none() {
        e.add(field, RuleCode::Invalid);
    }
    parsed
}

/// Tag ids as numbers; a list the form never touched stays absent, so a required list is
/// reported as `required` rather than `too_few`.
fn tag_ids(field: &str, ids: &[String], e: &mut FieldErrors) -> Option<Vec<u32>> {
    (!ids.is_empty()).then(|| ids.iter().filter_map(|id| number(field, id, e)).collect())
}

/// A range condition of the form: its type, what was typed, and how to make the condition.
type RangeSection<'a> = (&'a str, &'a RangeDraft, fn(Bounds) -> Condition);

/// Only selected conditions that carry data are sent.
fn conditions(c: &DraftConditions, e: &mut FieldErrors) -> Vec<Condition> {
    let mut out = Vec::new();
    let ranges: [RangeSection; 3] = [
        ("HEIGHT", &c.height, Condition::Height),
        ("AGE", &c.age, Condition::Age),
        ("INCOME", &c.income, Condition::Income),
    ];
    for (kind, draft, make) in ranges {
        if !draft.selected {
            continue;
        }
        let key = format!("valueItem.{kind}");
        let bound = |text: &str, e: &mut FieldErrors| {
            if text.trim().is_empty() {
                Some(0)
            } else {
                number(&key, text, e)
            }
        };
        if let (Some(from), Some(to)) = (bound(&draft.from, e), bound(&draft.to, e))
            && (from, to) != (0, 0)
        {
            out.push(make(Bounds { from, to }));
        }
    }

    let key = |kind: &str| format!("valueItem.{kind}");
    let picked = |draft: &ValueDraft| {
        (draft.selected && !draft.value.trim().is_empty()).then(|| draft.value.clone())
    };
    if let Some(value) = picked(&c.education) {
        out.extend(
            choice(&key("EDUCATION"), &value, Education::parse, e)
                .map(|value| Condition::Education { value }),
        );
    }
    if let Some(value) = picked(&c.marriage_record) {
        out.extend(
            json_choice(&key("MARRIAGE_RECORD"), &value, e)
                .map(|value| Condition::MarriageRecord { value }),
        );
    }
    if let Some(value) = picked(&c.has_children) {
        out.extend(
            json_choice(&key("HAS_CHILDREN"), &value, e)
                .map(|value| Condition::HasChildren { value }),
        );
    }
    if let Some(value) = picked(&c.smoke) {
        out.extend(json_choice(&key("SMOKE"), &value, e).map(|value| Condition::Smoke { value }));
    }
    if let Some(value) = picked(&c.tattoo) {
        out.extend(
            choice(&key("TATTOO"), &value, Tattoo::parse, e)
                .map(|value| Condition::Tattoo { value }),
        );
    }
    if let Some(value) = picked(&c.drink) {
        out.extend(json_choice(&key("DRINK"), &value, e).map(|value| Condition::Drink { value }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LINE_ID: &str = "U4af4980629a1b2c3d4e5f60718293a4b";

    fn today() -> Date {
        Date::parse("2026-11-22").unwrap()
    }

    fn complete_draft() -> RegisterDraft {
        let mut d = RegisterDraft {
            nickname: "Mei".into(),
            name: "Lin Mei-Ling".into(),
            gender: "FEMALE".into(),
            match_gender: "MALE".into(),
            birthday: "1995-03-14".into(),
            height: "163".into(),
            occupation_type: "SOFTWARE_ENGINEERING".into(),
            occupation: "Backend engineer".into(),
            income_range: "INCOME_100_150".into(),
            education: "MASTER".into(),
            marriage_record: "0".into(),
            has_children: "0".into(),
            smoke: "0".into(),
            drink: "1".into(),
            tattoo: "NONE".into(),
            personality_tag_ids: vec!["101".into(), "104".into()],
            hobby_tag_ids: vec!["301".into()],
            fertility_plan_tag_id: "502".into(),
            about_me: "I enjoy weekend hikes and trying new coffee shops.".into(),
            city: "TPE".into(),
            verify_method: "COMPANY_EMAIL".into(),
            company_email: "mei@tsmc.com".into(),
            ..RegisterDraft::default()
        };
        d.photo_name_list[1] = "local-1".into();
        d
    }

    #[test]
    fn an_empty_draft_is_the_current_version_with_six_photo_slots() {
        let draft = RegisterDraft::default();
        assert_eq!(draft.version, DRAFT_VERSION);
        assert_eq!(draft.photo_name_list.len(), PHOTO_SLOTS);
    }

    #[test]
    fn a_complete_draft_builds_the_spec_shaped_payload() {
        let outcome = build_payload(&complete_draft(), LINE_ID, today());
        assert_eq!(outcome.errors, FieldErrors::new());
        let payload = serde_json::to_value(outcome.payload.unwrap()).unwrap();
        assert_eq!(payload["account"], LINE_ID);
        assert_eq!(payload["password"], LINE_ID);
        assert_eq!(payload["marriageRecord"], 0);
        assert_eq!(payload["drink"], 1);
        assert_eq!(payload["personalityTagIds"], json!([101, 104]));
        assert_eq!(payload["fertilityPlanTagIds"], json!([502]));
        assert_eq!(payload["photoNameList"], json!(["local-1"]));
        assert_eq!(payload["recommendDistanceKm"], 0);
        assert_eq!(payload["valueItem"], json!([]));
        assert!(payload.get("exerciseTagIds").is_none());
    }

    #[test]
    fn only_selected_conditions_carrying_data_are_sent() {
        let mut draft = complete_draft();
        draft.conditions.height = RangeDraft {
            selected: true,
            from: "170".into(),
            to: "".into(),
        };
        draft.conditions.age = RangeDraft {
            selected: true,
            from: "".into(),
            to: "".into(),
        };
        draft.conditions.income = RangeDraft {
            selected: false,
            from: "100".into(),
            to: "".into(),
        };
        draft.conditions.smoke = ValueDraft {
            selected: true,
            value: "0".into(),
        };
        draft.conditions.drink = ValueDraft {
            selected: true,
            value: "".into(),
        };
        let payload = build_payload(&draft, LINE_ID, today()).payload.unwrap();
        assert_eq!(
            serde_json::to_value(payload.value_item).unwrap(),
            json!([{"type": "HEIGHT", "from": 170, "to": 0}, {"type": "SMOKE", "value": 0}])
        );
    }

    #[test]
    fn unconvertible_input_is_reported_as_invalid_rather_than_missing() {
        let mut draft = complete_draft();
        draft.height = "tall".into();
        draft.smoke = "\"0\"".into();
        draft.gender = "ALIEN".into();
        let errors = validate(&draft, LINE_ID, today());
        assert_eq!(errors.get("height"), Some(&[RuleCode::Invalid][..]));
        assert_eq!(errors.get("smoke"), Some(&[RuleCode::InvalidChoice][..]));
        assert_eq!(errors.get("gender"), Some(&[RuleCode::InvalidChoice][..]));
        assert_eq!(errors.len(), 3);
    }

    #[test]
    fn a_draft_meets_the_conditions_of_another_draft() {
        let person = complete_draft();
        let mut seeker = RegisterDraft::default();
        seeker.conditions.height = RangeDraft {
            selected: true,
            from: "160".into(),
            to: "170".into(),
        };
        assert_eq!(satisfies(&person, &seeker, LINE_ID, today()), Ok(true));
        seeker.conditions.education = ValueDraft {
            selected: true,
            value: "DOCTORATE".into(),
        };
        assert_eq!(satisfies(&person, &seeker, LINE_ID, today()), Ok(false));
        seeker.conditions.age = RangeDraft {
            selected: true,
            from: "40".into(),
            to: "30".into(),
        };
        assert!(satisfies(&person, &seeker, LINE_ID, today()).is_err());
    }

    #[test]
    fn nothing_stored_gives_an_empty_draft_without_complaint() {
        let repaired = repair(&Value::Null);
        assert_eq!(repaired.draft, RegisterDraft::default());
        assert!(!repaired.discarded);
    }

    #[test]
    fn a_stored_value_that_is_not_an_object_is_discarded() {
        for stored in [json!("garbage"), json!([1, 2]), json!(42)] {
            let repaired = repair(&stored);
            assert!(repaired.discarded);
            assert_eq!(repaired.draft, RegisterDraft::default());
        }
    }

    #[test]
    fn a_current_draft_survives_a_round_trip_untouched() {
        let draft = complete_draft();
        let repaired = repair(&serde_json::to_value(&draft).unwrap());
        assert_eq!(repaired.draft, draft);
        assert!(
            repaired.repaired.is_empty() && repaired.dropped.is_empty(),
            "{repaired:?}"
        );
    }

    #[test]
    fn a_v1_draft_is_migrated_field_by_field() {
        let stored = json!({"nickname": "Mei", "height": 163, "fertilityPlanTagIds": [502], "personalityTagIds": [101, "104"], "latitude": 25.03, "longitude": "121.5"});
        let repaired = repair(&stored);
        assert_eq!(repaired.draft.nickname, "Mei");
        assert_eq!(repaired.draft.height, "163");
        assert_eq!(repaired.draft.fertility_plan_tag_id, "502");
        assert_eq!(repaired.draft.personality_tag_ids, ["101", "104"]);
        assert_eq!(repaired.draft.latitude, Some(25.03));
        assert_eq!(repaired.draft.longitude, None);
        assert!(repaired.repaired.contains(&"height".to_string()));
        assert_eq!(repaired.dropped, ["longitude"]);
    }

    #[test]
    fn a_tag_id_stored_as_a_number_too_long_for_an_id_is_dropped_as_its_digits_would_be() {
        // Found by the draft_repair fuzz target: the number was kept as 11 digits, which the next
        // repair dropped, so a repaired draft changed when repaired again.
        let stored =
            json!({"version": 2, "exerciseTagIds": [55555555555u64, 55555553, "55555555555"]});
        let repaired = repair(&stored);
        assert_eq!(repaired.draft.exercise_tag_ids, ["55555553"]);
        assert_eq!(repaired.repaired, ["exerciseTagIds"]);
        let again = repair(&serde_json::to_value(&repaired.draft).unwrap());
        assert_eq!(again.draft, repaired.draft);
        assert!(
            again.repaired.is_empty() && again.dropped.is_empty(),
            "{again:?}"
        );
    }

    #[test]
    fn damaged_fields_are_dropped_one_by_one_and_the_rest_kept() {
        let stored = json!({"version": 2, "nickname": {"x": 1}, "name": "Lin", "hobbyTagIds": "301", "photoNameList": [1, "abc", null], "conditions": {"HEIGHT": {"selected": "yes", "from": 170}, "WEIGHT": {}}, "isAdmin": true});
        let repaired = repair(&stored);
        assert_eq!(repaired.draft.name, "Lin");
        assert_eq!(repaired.draft.nickname, "");
        assert_eq!(repaired.draft.photo_name_list, ["", "abc", "", "", "", ""]);
        assert_eq!(
            repaired.draft.conditions.height,
            RangeDraft {
                selected: false,
                from: "170".into(),
                to: "".into()
            }
        );
        for field in ["nickname", "hobbyTagIds", "conditions.WEIGHT", "isAdmin"] {
            assert!(
                repaired.dropped.contains(&field.to_string()),
                "{field} in {:?}",
                repaired.dropped
            );
        }
    }
}
