//! Uploaded files: a temp file until a profile (as a photo or the verification) or the avatar
//! claims it. The bytes live in `images::FileStore`; this is their rows.

use anyhow::Context;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QuerySelect, sea_query::Expr,
};

use super::{StorageError, entity::file};

/// What a file is for once claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Photo,
    Verification,
    Avatar,
}

impl Purpose {
    /// The stored `files.purpose`.
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Photo => file::PURPOSE_PHOTO,
            Purpose::Verification => file::PURPOSE_VERIFY,
            Purpose::Avatar => file::PURPOSE_AVATAR,
        }
    }
}

/// A new temp upload, already written to the file store.
pub struct NewTempFile<'a> {
    pub id: &'a str,
    pub owner_id: i64,
    pub content_type: &'a str,
    pub width: u32,
    pub height: u32,
    pub size_bytes: usize,
    pub hash: kizuna_core::photos::PhotoHash,
    pub now: i64,
}

pub async fn insert_temp(
    db: &impl ConnectionTrait,
    new: NewTempFile<'_>,
) -> Result<(), StorageError> {
    file::Entity::insert(file::ActiveModel {
        id: Set(new.id.to_string()),
        owner_id: Set(new.owner_id),
        purpose: Set(file::PURPOSE_TEMP.into()),
        content_type: Set(new.content_type.into()),
        width: Set(i32::try_from(new.width).context("an upload's width")?),
        height: Set(i32::try_from(new.height).context("an upload's height")?),
        size_bytes: Set(i64::try_from(new.size_bytes).context("an upload's size")?),
        profile_id: Set(None),
        created_at: Set(new.now),
        claimed_at: Set(None),
        photo_hash: Set(Some(new.hash.plain as i64)),
        photo_hash_mirrored: Set(Some(new.hash.mirrored as i64)),
        photo_regions: Set(new
            .hash
            .regions
            .map(|r| super::photo_hashes::regions_text(&r))),
    })
    .exec(db)
    .await
    .context("recording an upload")?;
    Ok(())
}

/// The file `id` if `owner_id` owns it (None for unknown ids and for other people's files alike).
pub async fn find_owned(
    db: &impl ConnectionTrait,
    owner_id: i64,
    id: &str,
) -> Result<Option<file::Model>, StorageError> {
    Ok(file::Entity::find_by_id(id.to_string())
        .one(db)
        .await
        .context("looking up a file")?
        .filter(|f| f.owner_id == owner_id))
}

/// Which files a new profile may claim: for photos, this user's unclaimed temp files or the file
/// they already set as their avatar before registering; for the verification, only unclaimed temp
/// files (an avatar is shown to others, proof of employment never).
fn claimable_condition(owner_id: i64, purpose: Purpose) -> Condition {
    let unclaimed = file::Column::ClaimedAt.is_null();
    let free = match purpose {
        Purpose::Photo => Condition::any().add(unclaimed).add(
            Condition::all()
                .add(file::Column::Purpose.eq(file::PURPOSE_AVATAR))
                .add(file::Column::ProfileId.is_null()),
        ),
        Purpose::Verification | Purpose::Avatar => Condition::all().add(unclaimed),
    };
    Condition::all()
        .add(file::Column::OwnerId.eq(owner_id))
        .add(free)
}

/// For each of `ids`, whether a new profile of `owner_id` may claim it for `purpose`.
pub async fn claimable(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
    purpose: Purpose,
) -> Result<Vec<bool>, StorageError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let found = file::Entity::find()
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(claimable_condition(owner_id, purpose))
        .all(db)
        .await
        .context("looking up temp files")?;
    Ok(ids
        .iter()
        .map(|id| found.iter().any(|f| &f.id == id))
        .collect())
}

/// Of `ids`, the files a resubmission of `profile_id` may use for `purpose`: each either
/// claimable as for a new profile, or already that profile's for the same purpose. Answers for
/// each id whether it may be used, and whether it is the profile's already (nothing to claim).
pub async fn usable_for_resubmission(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
    purpose: Purpose,
    profile_id: i64,
) -> Result<Vec<(bool, bool)>, StorageError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let kept = Condition::all()
        .add(file::Column::OwnerId.eq(owner_id))
        .add(file::Column::ProfileId.eq(profile_id))
        .add(file::Column::Purpose.eq(purpose.as_str()));
    let found = file::Entity::find()
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(
            Condition::any()
                .add(claimable_condition(owner_id, purpose))
                .add(kept),
        )
        .all(db)
        .await
        .context("looking up a resubmission's files")?;
    Ok(ids
        .iter()
        .map(|id| match found.iter().find(|f| &f.id == id) {
            Some(f) => (
                true,
                f.profile_id == Some(profile_id) && f.purpose == purpose.as_str(),
            ),
            None => (false, false),
        })
        .collect())
}

/// Claims `ids` for a profile; answers whether every one of them was still claimable (false when
/// a concurrent request of the same user got to one first: the caller rolls back).
pub async fn claim_for_profile(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
    purpose: Purpose,
    profile_id: i64,
    now: i64,
) -> Result<bool, StorageError> {
    if ids.is_empty() {
        return Ok(true);
    }
    let claimed = file::Entity::update_many()
        .col_expr(file::Column::ClaimedAt, Expr::value(now))
        .col_expr(file::Column::Purpose, Expr::value(purpose.as_str()))
        .col_expr(file::Column::ProfileId, Expr::value(profile_id))
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(claimable_condition(owner_id, purpose))
        .exec(db)
        .await
        .context("claiming temp files")?;
    Ok(claimed.rows_affected == ids.len() as u64)
}

/// Of `ids`, the files a revision of `profile_id` may name for `purpose` (photos or the proof of
/// employment): each either claimable as for a new profile, or already the profile's (an
/// approved photo, one proposed by an earlier revision, the proof on record). Answers for each id
/// whether it may be used, and whether it is the profile's already (nothing to claim).
pub async fn usable_for_revision(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
    purpose: Purpose,
    profile_id: i64,
) -> Result<Vec<(bool, bool)>, StorageError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let held_purposes: &[&str] = match purpose {
        Purpose::Photo => &[file::PURPOSE_PHOTO, file::PURPOSE_PROPOSED],
        Purpose::Verification | Purpose::Avatar => &[purpose.as_str()],
    };
    let held = Condition::all()
        .add(file::Column::OwnerId.eq(owner_id))
        .add(file::Column::ProfileId.eq(profile_id))
        .add(file::Column::Purpose.is_in(held_purposes.iter().copied()));
    let found = file::Entity::find()
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(
            Condition::any()
                .add(claimable_condition(owner_id, purpose))
                .add(held),
        )
        .all(db)
        .await
        .context("looking up a revision's files")?;
    Ok(ids
        .iter()
        .map(|id| match found.iter().find(|f| &f.id == id) {
            Some(f) => (
                true,
                f.profile_id == Some(profile_id) && held_purposes.contains(&f.purpose.as_str()),
            ),
            None => (false, false),
        })
        .collect())
}

/// Claims `ids` for a revision of `profile_id`: photos as proposed (their owner and the
/// reviewers see them, nobody else until the revision is approved), the proof as the proof. A
/// claimed file is no longer swept as an expired upload. Answers whether every one was still
/// claimable (false: a concurrent request got to one first; the caller rolls back).
pub async fn claim_for_revision(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
    purpose: Purpose,
    profile_id: i64,
    now: i64,
) -> Result<bool, StorageError> {
    if ids.is_empty() {
        return Ok(true);
    }
    let stored = match purpose {
        Purpose::Photo => file::PURPOSE_PROPOSED,
        Purpose::Verification | Purpose::Avatar => purpose.as_str(),
    };
    let claimed = file::Entity::update_many()
        .col_expr(file::Column::ClaimedAt, Expr::value(now))
        .col_expr(file::Column::Purpose, Expr::value(stored))
        .col_expr(file::Column::ProfileId, Expr::value(profile_id))
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(claimable_condition(owner_id, purpose))
        .exec(db)
        .await
        .context("claiming a revision's files")?;
    Ok(claimed.rows_affected == ids.len() as u64)
}

/// Once a revision is approved: its photos become the profile's photos (seen by whoever may see
/// the profile), and the photos it dropped go back to their owner and the reviewers alone.
pub async fn swap_photos(
    db: &impl ConnectionTrait,
    profile_id: i64,
    photos: &[String],
) -> Result<(), StorageError> {
    file::Entity::update_many()
        .col_expr(file::Column::Purpose, Expr::value(file::PURPOSE_PROPOSED))
        .filter(file::Column::ProfileId.eq(profile_id))
        .filter(file::Column::Purpose.eq(file::PURPOSE_PHOTO))
        .filter(file::Column::Id.is_not_in(photos.iter().cloned()))
        .exec(db)
        .await
        .context("retiring replaced photos")?;
    if !photos.is_empty() {
        file::Entity::update_many()
            .col_expr(file::Column::Purpose, Expr::value(file::PURPOSE_PHOTO))
            .filter(file::Column::ProfileId.eq(profile_id))
            .filter(file::Column::Purpose.eq(file::PURPOSE_PROPOSED))
            .filter(file::Column::Id.is_in(photos.iter().cloned()))
            .exec(db)
            .await
            .context("publishing a revision's photos")?;
    }
    Ok(())
}

/// Claims a temp file as the avatar: it no longer expires. A file claimed already keeps its
/// purpose (a photo made the avatar stays a photo). False when the file is gone (swept since it
/// was read).
pub async fn claim_as_avatar(
    db: &impl ConnectionTrait,
    file: &file::Model,
    now: i64,
) -> Result<bool, StorageError> {
    if file.claimed_at.is_some() {
        return Ok(true);
    }
    let claimed = file::Entity::update_many()
        .col_expr(file::Column::ClaimedAt, Expr::value(now))
        .col_expr(file::Column::Purpose, Expr::value(file::PURPOSE_AVATAR))
        .filter(file::Column::Id.eq(file.id.clone()))
        .exec(db)
        .await
        .context("claiming the avatar file")?;
    // Nothing: the sweep removed the temp file since it was read.
    Ok(claimed.rows_affected == 1)
}

/// The file `id`, whoever owns it: `crate::access::file` decides who may see it.
pub async fn find(
    db: &impl ConnectionTrait,
    id: &str,
) -> Result<Option<file::Model>, StorageError> {
    Ok(file::Entity::find_by_id(id.to_string())
        .one(db)
        .await
        .context("looking up a file")?)
}

/// What a user's unclaimed uploads created at or after `since` add up to: how many, and their
/// stored bytes.
pub async fn unclaimed_usage(
    db: &impl ConnectionTrait,
    owner_id: i64,
    since: i64,
) -> Result<(u32, u64), StorageError> {
    let (count, bytes) = file::Entity::find()
        .select_only()
        .column_as(file::Column::Id.count(), "count")
        // SUM of a BIGINT is NUMERIC on PostgreSQL: cast back to read it as an integer.
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(size_bytes), 0) AS BIGINT)"),
            "bytes",
        )
        .filter(file::Column::OwnerId.eq(owner_id))
        .filter(file::Column::ClaimedAt.is_null())
        .filter(file::Column::CreatedAt.gte(since))
        .into_tuple::<(i64, i64)>()
        .one(db)
        .await
        .context("adding up a user's unclaimed uploads")?
        .unwrap_or((0, 0));
    Ok((
        u32::try_from(count).unwrap_or(u32::MAX),
        u64::try_from(bytes).unwrap_or(0),
    ))
}

/// Lets the avatar `id` go when another replaces it: an upload claimed only as the avatar becomes
/// a temp file again, which the sweep removes a day after its upload. A photo of a submission
/// (the avatar chosen among the photos) stays what it is.
pub async fn release_avatar(
    db: &impl ConnectionTrait,
    owner_id: i64,
    id: &str,
) -> Result<bool, StorageError> {
    let released = file::Entity::update_many()
        .col_expr(file::Column::ClaimedAt, Expr::value(Option::<i64>::None))
        .col_expr(file::Column::Purpose, Expr::value(file::PURPOSE_TEMP))
        .filter(file::Column::Id.eq(id))
        .filter(file::Column::OwnerId.eq(owner_id))
        .filter(file::Column::Purpose.eq(file::PURPOSE_AVATAR))
        .filter(file::Column::ProfileId.is_null())
        .exec(db)
        .await
        .context("releasing the replaced avatar")?;
    Ok(released.rows_affected == 1)
}

/// Every stored file's id (the operator's copy checks each is in the new store).
pub async fn all_ids(db: &impl ConnectionTrait) -> Result<Vec<String>, StorageError> {
    Ok(file::Entity::find()
        .select_only()
        .column(file::Column::Id)
        .into_tuple::<String>()
        .all(db)
        .await
        .context("listing stored files")?)
}

/// Up to `limit` temp files nobody claimed that were uploaded before `before`.
pub async fn unclaimed_before(
    db: &impl ConnectionTrait,
    before: i64,
    limit: u64,
) -> Result<Vec<String>, StorageError> {
    Ok(file::Entity::find()
        .select_only()
        .column(file::Column::Id)
        .filter(file::Column::ClaimedAt.is_null())
        .filter(file::Column::CreatedAt.lt(before))
        .limit(limit)
        .into_tuple::<String>()
        .all(db)
        .await
        .context("listing expired temp files")?)
}

/// Deletes the rows of those of `ids` that are still unclaimed; answers the ids whose row is
/// gone now (deleted here, or before).
pub async fn delete_unclaimed(
    db: &impl ConnectionTrait,
    ids: &[String],
) -> Result<Vec<String>, StorageError> {
    file::Entity::delete_many()
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .filter(file::Column::ClaimedAt.is_null())
        .exec(db)
        .await
        .context("deleting expired temp files")?;
    let kept = known(db, ids).await?;
    Ok(ids
        .iter()
        .filter(|id| !kept.contains(*id))
        .cloned()
        .collect())
}

/// Those of `ids` that have a row.
pub async fn known(
    db: &impl ConnectionTrait,
    ids: &[String],
) -> Result<std::collections::HashSet<String>, StorageError> {
    Ok(file::Entity::find()
        .select_only()
        .column(file::Column::Id)
        .filter(file::Column::Id.is_in(ids.iter().cloned()))
        .into_tuple::<String>()
        .all(db)
        .await
        .context("looking up stored files")?
        .into_iter()
        .collect())
}

/// How many files have a row.
pub async fn count(db: &impl ConnectionTrait) -> Result<u64, StorageError> {
    use sea_orm::PaginatorTrait;
    Ok(file::Entity::find()
        .count(db)
        .await
        .context("counting stored files")?)
}

/// The ids of the `limit` newest files.
pub async fn newest(db: &impl ConnectionTrait, limit: u64) -> Result<Vec<String>, StorageError> {
    use sea_orm::QueryOrder;
    Ok(file::Entity::find()
        .select_only()
        .column(file::Column::Id)
        .order_by_desc(file::Column::CreatedAt)
        .limit(limit)
        .into_tuple::<String>()
        .all(db)
        .await
        .context("listing stored files")?)
}
