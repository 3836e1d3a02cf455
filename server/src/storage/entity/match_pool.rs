use sea_orm::entity::prelude::*;

/// The matchable snapshot of a profile (see the matchmaking migration): the columns
/// kizuna-core's `MatchColumns` is rebuilt from. Holds no name, text or coordinates.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "match_pool")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub profile_id: i64,
    pub source_hash: String,
    pub gender: i32,
    pub match_gender: i32,
    pub height: i32,
    pub birthday: i32,
    pub income_range: i32,
    pub education: i32,
    pub marriage_record: i32,
    pub has_children: i32,
    pub smoke: i32,
    pub tattoo: i32,
    pub drink: i32,
    pub want_height_from: i32,
    pub want_height_to: i32,
    pub want_age_from: i32,
    pub want_age_to: i32,
    pub want_income_from: i32,
    pub want_income_to: i32,
    pub want_education: Option<i32>,
    pub want_marriage_record: Option<i32>,
    pub want_has_children: Option<i32>,
    pub want_smoke: Option<i32>,
    pub want_tattoo: Option<i32>,
    pub want_drink: Option<i32>,
    pub home_row: i32,
    pub home_col: i32,
    pub radius_km: i32,
    /// Every tag id, comma-separated.
    pub tag_ids: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
