use sea_orm::entity::prelude::*;

/// One tag of a profile; `kind` is the payload list it came from (personalityTagIds, …).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "profile_tags")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub profile_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub tag_id: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
