//! What one member sees of another.

#[allow(unused_imports)]
use super::*;

/// Everything one member is shown of another, and by construction nothing else: no name,
/// birthday, address, coordinates, e-mail, income, employer name or verification can be put in
/// it. Serialised in camelCase; the photos are file names for the server's image proxy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublicProfile {
    /// The nickname.
    pub nickname: String,
    /// Age in completed years on the day shown (never the birthday).
    pub age: u16,
    /// City code of the catalogue.
    pub city: String,
    /// How far the member is (never a finer distance).
    pub distance_band: DistanceBand,
    /// Occupation type.
    pub occupation_type: OccupationType,
    /// Job title (the `occupation` field).
    pub occupation: String,
    /// A reviewer checked the member's proof of employment and approved them (every APPROVED
    /// member, however they proved it; the employer's name and the proof stay private).
    pub verified_employer: bool,
    /// Height in centimetres.
    pub height: u32,
    /// Highest completed education.
    pub education: Education,
    /// Marital history.
    pub marriage_record: MarriageRecord,
    /// Children, and whether they live with the member (the plans are `fertility_plan_tag_ids`).
    pub has_children: HasChildren,
    /// Smoking.
    pub smoke: Smoke,
    /// Drinking.
    pub drink: Drink,
    /// Tattoo visibility.
    pub tattoo: Tattoo,
    /// Myers–Briggs type, if the member shares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbti: Option<Mbti>,
    /// Personality tag ids.
    pub personality_tag_ids: Vec<u32>,
    /// Exercise tag ids.
    pub exercise_tag_ids: Vec<u32>,
    /// Hobby tag ids.
    pub hobby_tag_ids: Vec<u32>,
    /// Marriage-type tag ids.
    pub marriage_type_tag_ids: Vec<u32>,
    /// The fertility plan tag id (one).
    pub fertility_plan_tag_ids: Vec<u32>,
    /// Pet tag ids.
    pub pet_tag_ids: Vec<u32>,
    /// About me.
    pub about_me: String,
    /// Q&A: what the member would like to be asked on a date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dating_question: Option<String>,
    /// Q&A: the member's daily life.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daily_life: Option<String>,
    /// Q&A: something surprising about the member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surprise_point: Option<String>,
    /// Photo file names, in the member's order.
    pub photo_name_list: Vec<String>,
}

impl PublicProfile {
    /// Every wire field a public profile can carry.
    pub const FIELDS: [&'static str; 26] = [
        "nickname",
        "age",
        "city",
        "distanceBand",
        "occupationType",
        "occupation",
        "verifiedEmployer",
        "height",
        "education",
        "marriageRecord",
        "hasChildren",
        "smoke",
        "drink",
        "tattoo",
        "mbti",
        "personalityTagIds",
        "exerciseTagIds",
        "hobbyTagIds",
        "marriageTypeTagIds",
        "fertilityPlanTagIds",
        "petTagIds",
        "aboutMe",
        "datingQuestion",
        "dailyLife",
        "surprisePoint",
        "photoNameList",
    ];

    /// What another member sees of `profile`, whose review stands at `status`, on `today`,
    /// `band` away ([`MatchProfile::band`] or [`DistanceBand::between`]).
    pub fn new(
        profile: &ValidProfile,
        status: ReviewStatus,
        today: Date,
        band: DistanceBand,
    ) -> PublicProfile {
        PublicProfile {
            nickname: profile.nickname.clone(),
            age: profile.birthday.age_on(today).unwrap_or(0),
            city: profile.city.clone(),
            distance_band: band,
            occupation_type: profile.occupation_type,
            occupation: profile.occupation.clone(),
            verified_employer: status == ReviewStatus::Approved,
            height: profile.height_cm,
            education: profile.education,
            marriage_record: profile.marriage_record,
            has_children: profile.has_children,
            smoke: profile.smoke,
            drink: profile.drink,
            tattoo: profile.tattoo,
            mbti: profile.mbti,
            personality_tag_ids: profile.tags.personality.clone(),
            exercise_tag_ids: profile.tags.exercise.clone(),
            hobby_tag_ids: profile.tags.hobby.clone(),
            marriage_type_tag_ids: profile.tags.marriage_type.clone(),
            fertility_plan_tag_ids: vec![profile.tags.fertility_plan],
            pet_tag_ids: profile.tags.pet.clone(),
            about_me: profile.about_me.clone(),
            dating_question: profile.dating_question.clone(),
            daily_life: profile.daily_life.clone(),
            surprise_point: profile.surprise_point.clone(),
            photo_name_list: profile.photos.iter().map(|f| f.to_string()).collect(),
        }
    }
}
