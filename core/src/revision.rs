//! Editing an approved profile: which field takes effect at once, which goes to
//! review as a revision, which cannot be changed in the app; what a revision changes; and which
//! decisions a reviewer makes on one.
//!
//! A revision is stored beside the approved profile. Everybody but its member and the reviewers
//! reads the approved version until a reviewer approves the revision, which then swaps in its
//! fields (and only those: what took effect at once since the revision was saved stays).
//!
//! ```
//! use kizuna_core::revision::{OnSave, on_save};
//!
//! assert_eq!(on_save("recommendDistanceKm"), OnSave::AtOnce);
//! assert_eq!(on_save("photoNameList"), OnSave::Review);
//! assert_eq!(on_save("birthday"), OnSave::Fixed);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::profile::{FIELDS, UserProfileCreate};
use crate::review::{Decision, ReviewAction, changed_fields};
use crate::rules::{FieldErrors, RuleCode};

/// What saving the edit form does with a changed field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OnSave {
    /// Takes effect at once, from the member's next list (what they look for, where they live,
    /// their income, how they heard of us): nothing others read as written by the member.
    AtOnce,
    /// Goes to review as a revision: everything others see of the member, and the verification.
    Review,
    /// Cannot be changed in the app: the identity a reviewer checked against the proof.
    Fixed,
}

/// What saving does with the wire field `field` (a name of [`FIELDS`]; an unknown name is
/// [`OnSave::Review`], the safe side: a reviewer looks at it).
pub fn on_save(field: &str) -> OnSave {
    match field {
        // The identity: the LINE account, and what the reviewer checked against the proof.
        "account" | "password" | "name" | "birthday" | "gender" => OnSave::Fixed,
        // Whom they look for and where: the partner conditions, the radius, whom, the home
        // location and district; their income (others never read it, it only filters); the
        // private answer to "how did you hear of us".
        "matchGender"
        | "valueItem"
        | "recommendDistanceKm"
        | "city"
        | "address"
        | "latitude"
        | "longitude"
        | "incomeRange"
        | "feedback" => OnSave::AtOnce,
        _ => OnSave::Review,
    }
}

/// The wire fields of one kind, in [`FIELDS`] order.
pub fn fields(kind: OnSave) -> Vec<&'static str> {
    FIELDS
        .into_iter()
        .filter(|field| on_save(field) == kind)
        .collect()
}

/// The verification's wire fields: a revision changing one needs the employer on record anew.
pub const VERIFICATION_FIELDS: [&str; 5] = [
    "verifyMethod",
    "companyEmail",
    "verifyTempFileName",
    "reviewLink",
    "verifyDescription",
];

/// What a save of the edit form changes, by kind (wire names in [`FIELDS`] order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditPlan {
    /// Changed fields that take effect at once.
    pub at_once: Vec<&'static str>,
    /// Changed fields that go to review.
    pub for_review: Vec<&'static str>,
}

/// Compares the edited form with the approved profile (both normalised payloads). A changed
/// fixed field is refused, `not_editable` on that field: the form shows them read-only and says
/// how to ask for a change.
pub fn plan_edit(
    approved: &UserProfileCreate,
    edited: &UserProfileCreate,
) -> Result<EditPlan, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut plan = EditPlan::default();
    for field in changed_fields(approved, edited) {
        match on_save(field) {
            OnSave::Fixed => errors.add(field, RuleCode::NotEditable),
            OnSave::AtOnce => plan.at_once.push(field),
            OnSave::Review => plan.for_review.push(field),
        }
    }
    if errors.is_empty() {
        Ok(plan)
    } else {
        Err(errors)
    }
}

/// `base` with the fields of `kind` taken from `from` (a field `from` leaves out is left out).
fn with_fields(
    base: &UserProfileCreate,
    from: &UserProfileCreate,
    kind: OnSave,
) -> UserProfileCreate {
    let as_map = |payload: &UserProfileCreate| match serde_json::to_value(payload) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let (mut out, from) = (as_map(base), as_map(from));
    for field in fields(kind) {
        match from.get(field) {
            Some(value) => out.insert(field.to_string(), value.clone()),
            None => out.remove(field),
        };
    }
    // Both came from payloads of this type, so the mix reads back; should it not, the base
    // stands (nothing of `from` sneaks in half-read).
    serde_json::from_value(Value::Object(out)).unwrap_or_else(|_| base.clone())
}

/// The approved profile after a save: the edited form's at-once fields on the approved ones.
pub fn apply_at_once(
    approved: &UserProfileCreate,
    edited: &UserProfileCreate,
) -> UserProfileCreate {
    with_fields(approved, edited, OnSave::AtOnce)
}

/// The revision a save proposes: the approved profile with the edited form's fields for review.
pub fn proposal(approved: &UserProfileCreate, edited: &UserProfileCreate) -> UserProfileCreate {
    with_fields(approved, edited, OnSave::Review)
}

/// The approved profile once a reviewer approved `revision`: its fields for review on the
/// profile as it is now (at-once changes saved since the revision stay).
pub fn swap_in(
    approved_now: &UserProfileCreate,
    revision: &UserProfileCreate,
) -> UserProfileCreate {
    with_fields(approved_now, revision, OnSave::Review)
}

/// What a revision changes, as the reviewer sees it: the fields for review that differ from the
/// approved profile (wire names in [`FIELDS`] order).
pub fn revision_changes(
    approved: &UserProfileCreate,
    revision: &UserProfileCreate,
) -> Vec<&'static str> {
    changed_fields(approved, revision)
        .into_iter()
        .filter(|field| on_save(field) == OnSave::Review)
        .collect()
}

/// Whether approving a revision that changes `changes` puts the member's employer on record
/// anew (a new verification is checked like the first: the e-mail's employer, or the reviewer's
/// pick); otherwise the employer on record stays.
pub fn verification_changed(changes: &[&str]) -> bool {
    changes
        .iter()
        .any(|field| VERIFICATION_FIELDS.contains(field))
}

/// Where a revision stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RevisionStatus {
    /// Saved and waiting for a reviewer (at most one per profile).
    Pending,
    /// Swapped in: others see it.
    Approved,
    /// Sent back with reasons: the approved version stands, the member may edit and save again.
    Rejected,
}

impl RevisionStatus {
    /// The wire and column name.
    pub fn as_str(self) -> &'static str {
        match self {
            RevisionStatus::Pending => "PENDING",
            RevisionStatus::Approved => "APPROVED",
            RevisionStatus::Rejected => "REJECTED",
        }
    }

    /// The status of a stored name.
    pub fn parse(text: &str) -> Option<RevisionStatus> {
        [
            RevisionStatus::Pending,
            RevisionStatus::Approved,
            RevisionStatus::Rejected,
        ]
        .into_iter()
        .find(|status| status.as_str() == text)
    }
}

/// What a save does to the profile's revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevisionStep {
    /// Nothing for review changed and there is no revision: nothing to store.
    None,
    /// Nothing for review differs from the approved profile any more: the revision there is
    /// (pending or rejected) is withdrawn.
    Withdraw,
    /// The same proposal as the pending revision (a retry): it stays as it is, in its place in
    /// the queue.
    Keep,
    /// A new proposal: it becomes the one pending revision, replacing any earlier one, and goes
    /// (back) to the queue.
    Open,
}

/// The step a save takes, given the approved profile, the revision stored (with its status), and
/// the save's proposal ([`proposal`]).
pub fn next_step(
    approved: &UserProfileCreate,
    stored: Option<(&UserProfileCreate, RevisionStatus)>,
    proposed: &UserProfileCreate,
) -> RevisionStep {
    let open = stored.filter(|(_, status)| *status != RevisionStatus::Approved);
    if revision_changes(approved, proposed).is_empty() {
        return match open {
            Some(_) => RevisionStep::Withdraw,
            None => RevisionStep::None,
        };
    }
    match open {
        Some((pending, RevisionStatus::Pending))
            if revision_changes(pending, proposed).is_empty() =>
        {
            RevisionStep::Keep
        }
        _ => RevisionStep::Open,
    }
}

/// A reviewer decides a revision by approving or rejecting it (with the rejection's reasons);
/// suspending or reinstating is a decision on the member, not on a revision (`action`:
/// `invalid_choice`).
pub fn check_revision_decision(decision: &Decision) -> Result<(), FieldErrors> {
    if REVISION_ACTIONS.contains(&decision.action()) {
        Ok(())
    } else {
        Err(FieldErrors::single("action", RuleCode::InvalidChoice))
    }
}

/// The decisions a reviewer may take on a revision: approve it, or reject it with reasons.
pub const REVISION_ACTIONS: [ReviewAction; 2] = [ReviewAction::Approve, ReviewAction::Reject];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload() -> UserProfileCreate {
        UserProfileCreate::from_json(json!({
            "account": "U4af4980629a1b2c3d4e5f60718293a4b",
            "password": "U4af4980629a1b2c3d4e5f60718293a4b",
            "nickname": "Mei", "name": "Lin Mei-Ling", "gender": "FEMALE", "matchGender": "MALE",
            "occupationType": "SOFTWARE_ENGINEERING", "occupation": "Backend engineer",
            "height": 163, "incomeRange": "INCOME_100_150", "birthday": "1995-03-14",
            "education": "MASTER", "marriageRecord": 0, "hasChildren": 0, "smoke": 0,
            "tattoo": "NONE", "drink": 1,
            "aboutMe": "I enjoy weekend hikes and trying new coffee shops.",
            "personalityTagIds": [101, 104], "hobbyTagIds": [301], "fertilityPlanTagIds": [502],
            "city": "TPE", "recommendDistanceKm": 20,
            "verifyMethod": "COMPANY_EMAIL", "companyEmail": "mei@tsmc.com",
            "photoNameList": ["0123456789abcdef0123456789abcdef"],
            "valueItem": [{"type": "AGE", "from": 25, "to": 40}]
        }))
        .unwrap()
    }

    #[test]
    fn every_field_of_the_form_has_exactly_one_fate() {
        let all: usize = [OnSave::AtOnce, OnSave::Review, OnSave::Fixed]
            .into_iter()
            .map(|kind| fields(kind).len())
            .sum();
        assert_eq!(all, FIELDS.len());
        assert_eq!(
            fields(OnSave::Fixed),
            ["account", "password", "name", "gender", "birthday"]
        );
    }

    #[test]
    fn what_one_looks_for_where_one_lives_and_the_income_take_effect_at_once() {
        for field in [
            "matchGender",
            "valueItem",
            "recommendDistanceKm",
            "city",
            "address",
            "latitude",
            "longitude",
            "incomeRange",
        ] {
            assert_eq!(on_save(field), OnSave::AtOnce, "{field}");
        }
    }

    #[test]
    fn what_others_see_and_the_verification_go_to_review() {
        for field in [
            "photoNameList",
            "nickname",
            "aboutMe",
            "datingQuestion",
            "dailyLife",
            "surprisePoint",
            "hobbyTagIds",
            "fertilityPlanTagIds",
            "occupationType",
            "occupation",
            "achievement",
            "school",
            "education",
            "height",
            "marriageRecord",
            "hasChildren",
            "smoke",
            "drink",
            "tattoo",
            "mbti",
        ]
        .into_iter()
        .chain(VERIFICATION_FIELDS)
        {
            assert_eq!(on_save(field), OnSave::Review, "{field}");
        }
    }

    #[test]
    fn a_changed_name_birthday_or_gender_is_refused_as_not_editable() {
        let approved = payload();
        let mut edited = payload();
        edited.name = Some("Someone Else".into());
        edited.birthday = Some("1990-01-01".into());
        edited.gender = Some(crate::Gender::Male);
        edited.about_me = Some("Changed as well, which alone would be fine.".into());
        let errors = plan_edit(&approved, &edited).unwrap_err();
        for field in ["name", "birthday", "gender"] {
            assert_eq!(
                errors.get(field),
                Some(&[RuleCode::NotEditable][..]),
                "{field}"
            );
        }
        assert_eq!(errors.get("aboutMe"), None);
    }

    #[test]
    fn the_fields_fixed_after_approval_are_the_account_the_name_the_birthday_and_the_gender() {
        let mut fixed = fields(OnSave::Fixed);
        fixed.sort_unstable();
        assert_eq!(fixed, ["account", "birthday", "gender", "name", "password"]);
    }

    #[test]
    fn a_revision_is_approved_or_rejected_and_nothing_else() {
        for (action, reasons) in [
            ("APPROVE", &[][..]),
            ("REJECT", &["PHOTOS_UNCLEAR"][..]),
            ("SUSPEND", &["SCAM"][..]),
            ("REINSTATE", &[][..]),
        ] {
            let decision = Decision::parse(action, reasons, None).unwrap();
            assert_eq!(
                check_revision_decision(&decision).is_ok(),
                REVISION_ACTIONS.contains(&decision.action()),
                "{action}"
            );
        }
        assert_eq!(
            REVISION_ACTIONS,
            [ReviewAction::Approve, ReviewAction::Reject]
        );
    }

    #[test]
    fn a_plan_sorts_the_changes_into_at_once_and_for_review() {
        let approved = payload();
        let mut edited = payload();
        edited.recommend_distance_km = Some(50);
        edited.about_me = Some("New words about me, long enough to pass.".into());
        edited.photo_name_list = Some(vec!["fedcba9876543210fedcba9876543210".into()]);
        let plan = plan_edit(&approved, &edited).unwrap();
        assert_eq!(plan.at_once, ["recommendDistanceKm"]);
        assert_eq!(plan.for_review, ["aboutMe", "photoNameList"]);
        assert_eq!(plan_edit(&approved, &approved), Ok(EditPlan::default()));
    }

    #[test]
    fn saving_applies_only_the_at_once_fields_and_proposes_only_the_others() {
        let approved = payload();
        let mut edited = payload();
        edited.recommend_distance_km = Some(50);
        edited.school = Some("NTU".into());
        let now = apply_at_once(&approved, &edited);
        assert_eq!(now.recommend_distance_km, Some(50));
        assert_eq!(now.school, None);
        let proposed = proposal(&approved, &edited);
        assert_eq!(proposed.school.as_deref(), Some("NTU"));
        assert_eq!(proposed.recommend_distance_km, Some(20));
        assert_eq!(revision_changes(&approved, &proposed), ["school"]);
    }

    #[test]
    fn a_field_left_out_of_the_form_is_left_out_of_the_result() {
        let mut approved = payload();
        approved.school = Some("NTU".into());
        let edited = payload();
        assert_eq!(proposal(&approved, &edited).school, None);
    }

    #[test]
    fn approving_a_revision_keeps_what_took_effect_at_once_since_it_was_saved() {
        let approved = payload();
        let mut edited = payload();
        edited.about_me = Some("New words about me, long enough to pass.".into());
        let revision = proposal(&approved, &edited);
        let mut later = edited.clone();
        later.recommend_distance_km = Some(80);
        let approved_now = apply_at_once(&approved, &later);
        let swapped = swap_in(&approved_now, &revision);
        assert_eq!(swapped.recommend_distance_km, Some(80));
        assert_eq!(swapped.about_me, edited.about_me);
        assert_eq!(swapped.name, approved.name);
    }

    #[test]
    fn a_changed_verification_puts_the_employer_on_record_anew() {
        assert!(verification_changed(&["companyEmail"]));
        assert!(verification_changed(&["aboutMe", "verifyMethod"]));
        assert!(!verification_changed(&["aboutMe", "photoNameList"]));
    }

    #[test]
    fn saving_nothing_for_review_stores_no_revision_and_withdraws_one_there_is() {
        let approved = payload();
        let mut edited = payload();
        edited.recommend_distance_km = Some(50);
        let proposed = proposal(&approved, &edited);
        assert_eq!(next_step(&approved, None, &proposed), RevisionStep::None);
        let mut open = payload();
        open.school = Some("NTU".into());
        for status in [RevisionStatus::Pending, RevisionStatus::Rejected] {
            assert_eq!(
                next_step(&approved, Some((&open, status)), &proposed),
                RevisionStep::Withdraw
            );
        }
        assert_eq!(
            next_step(
                &approved,
                Some((&open, RevisionStatus::Approved)),
                &proposed
            ),
            RevisionStep::None
        );
    }

    #[test]
    fn saving_again_replaces_the_revision_unless_it_is_the_same_pending_one() {
        let approved = payload();
        let mut first = payload();
        first.school = Some("NTU".into());
        let first = proposal(&approved, &first);
        assert_eq!(next_step(&approved, None, &first), RevisionStep::Open);
        assert_eq!(
            next_step(&approved, Some((&first, RevisionStatus::Pending)), &first),
            RevisionStep::Keep
        );
        // Sent back: the same again is a new submission for the reviewers.
        assert_eq!(
            next_step(&approved, Some((&first, RevisionStatus::Rejected)), &first),
            RevisionStep::Open
        );
        let mut second = payload();
        second.school = Some("NTHU".into());
        let second = proposal(&approved, &second);
        assert_eq!(
            next_step(&approved, Some((&first, RevisionStatus::Pending)), &second),
            RevisionStep::Open
        );
    }

    #[test]
    fn a_revision_is_approved_or_rejected_never_suspended() {
        let approve = Decision::parse("APPROVE", &[] as &[&str], None).unwrap();
        let reject = Decision::parse("REJECT", &["PHOTOS_UNCLEAR"], None).unwrap();
        let suspend = Decision::parse("SUSPEND", &["SPAM"], None).unwrap();
        assert!(check_revision_decision(&approve).is_ok());
        assert!(check_revision_decision(&reject).is_ok());
        assert_eq!(
            check_revision_decision(&suspend)
                .unwrap_err()
                .get("action")
                .map(<[_]>::to_vec),
            Some(vec![RuleCode::InvalidChoice])
        );
    }

    #[test]
    fn revision_statuses_travel_as_upper_case_names() {
        for status in [
            RevisionStatus::Pending,
            RevisionStatus::Approved,
            RevisionStatus::Rejected,
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
            assert_eq!(RevisionStatus::parse(status.as_str()), Some(status));
        }
    }
}
