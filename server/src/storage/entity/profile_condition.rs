use sea_orm::entity::prelude::*;

/// One matching condition (valueItem): a range (HEIGHT, AGE, INCOME) or a single value.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "profile_conditions")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub profile_id: i64,
    pub condition_type: String,
    pub range_from: Option<i32>,
    pub range_to: Option<i32>,
    pub value: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
