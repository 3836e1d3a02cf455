use sea_orm::entity::prelude::*;

pub const PURPOSE_TEMP: &str = "temp";
pub const PURPOSE_PHOTO: &str = "photo";
pub const PURPOSE_VERIFY: &str = "verify";
pub const PURPOSE_AVATAR: &str = "avatar";
/// A photo of a profile's revision not approved yet, or one an approved revision replaced: its
/// owner and the reviewers only (never a profile photo others may fetch).
pub const PURPOSE_PROPOSED: &str = "proposed";

/// An uploaded (re-encoded) image. `claimed_at` is None while it is a temp file.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "files")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub owner_id: i64,
    pub purpose: String,
    pub content_type: String,
    pub width: i32,
    pub height: i32,
    pub size_bytes: i64,
    pub profile_id: Option<i64>,
    pub created_at: i64,
    pub claimed_at: Option<i64>,
    /// The perceptual hash of the image (kizuna-core's `photos::PhotoHash::plain`, its 64 bits
    /// as a signed number); None for files stored before hashes were.
    pub photo_hash: Option<i64>,
    /// The same of its mirror image.
    pub photo_hash_mirrored: Option<i64>,
    /// The hashes of its regions (kizuna-core's `photos::PhotoHash::regions`, 64 bits each,
    /// big-endian, in hex); None for files hashed before regions were.
    pub photo_regions: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
