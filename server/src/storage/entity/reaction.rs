use sea_orm::entity::prelude::*;

pub const LIKE: &str = "LIKE";
pub const PASS: &str = "PASS";

/// A viewer's latest like or pass on a target.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "reactions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub viewer_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub target_id: i64,
    pub kind: String,
    /// The Asia/Taipei day of the reaction, as days since 1970-01-01.
    pub day: i32,
    pub created_at: i64,
    /// A like's comment (kizuna-core's `LikeComment`), about `comment_photo` (a file name of the
    /// target's photos) or `comment_answer` (a `QaAnswer` wire value).
    pub comment: Option<String>,
    pub comment_photo: Option<String>,
    pub comment_answer: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
