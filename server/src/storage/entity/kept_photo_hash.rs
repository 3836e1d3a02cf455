use sea_orm::entity::prelude::*;

/// The perceptual hash of a photo of a member who left while suspended: kept (naming nobody) so
/// that the review console sees the photo come back. `file_id` is the gone file's id.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "kept_photo_hashes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub file_id: String,
    pub photo_hash: i64,
    pub photo_hash_mirrored: i64,
    /// The hashes of its regions, as `files.photo_regions` (None if it had none).
    pub photo_regions: Option<String>,
    pub kept_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
