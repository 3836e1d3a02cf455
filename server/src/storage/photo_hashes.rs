//! The perceptual hashes of members' photos (`files.photo_hash`, `files.photo_hash_mirrored`,
//! `files.photo_regions`) and the ones kept of members who left while suspended
//! (`kept_photo_hashes`). Which of them resemble is kizuna-core's `photos`.

use anyhow::Context;
use kizuna_core::photos::{PHOTO_REGIONS, PhotoHash};
use sea_orm::ConnectionTrait;

use super::{StorageError, entity::profile, statements::sql};

/// Files whose hash is compared: what a member shows or proposes to show (photos, the avatar,
/// a revision's photos), never the verification nor an unclaimed upload.
const COMPARED: &str = "f.purpose IN ('photo', 'avatar', 'proposed')";

/// The member who owns a stored photo.
#[derive(Clone, Debug, PartialEq)]
pub struct Owner {
    pub profile_id: i64,
    pub nickname: Option<String>,
    pub status: profile::Status,
}

/// A stored photo's hash and whose it is: `None` for a member who left while suspended.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPhoto {
    pub file_id: String,
    pub hash: PhotoHash,
    pub owner: Option<Owner>,
}

/// `photo_regions` as stored: each region's 64 bits, big-endian, in their order, in hex.
pub fn regions_text(regions: &[u64; PHOTO_REGIONS]) -> String {
    hex::encode(
        regions
            .iter()
            .flat_map(|r| r.to_be_bytes())
            .collect::<Vec<u8>>(),
    )
}

fn regions_of(text: &str) -> Result<[u64; PHOTO_REGIONS], StorageError> {
    let bytes = hex::decode(text).map_err(|_| StorageError::Unreadable("photo_regions".into()))?;
    if bytes.len() != PHOTO_REGIONS * 8 {
        return Err(StorageError::Unreadable("photo_regions".into()));
    }
    Ok(std::array::from_fn(|i| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
        u64::from_be_bytes(word)
    }))
}

fn hash_of(row: &sea_orm::QueryResult) -> Result<PhotoHash, StorageError> {
    let plain: i64 = row.try_get("", "photo_hash").context("decoding a hash")?;
    let mirrored: i64 = row
        .try_get("", "photo_hash_mirrored")
        .context("decoding a hash")?;
    let regions: Option<String> = row
        .try_get("", "photo_regions")
        .context("decoding a hash")?;
    Ok(PhotoHash {
        plain: plain as u64,
        mirrored: mirrored as u64,
        regions: regions.as_deref().map(regions_of).transpose()?,
    })
}

/// The hashes of `ids` among the files of `owner_id` (those stored before hashes were have none).
pub async fn of_files(
    db: &impl ConnectionTrait,
    owner_id: i64,
    ids: &[String],
) -> Result<Vec<(String, PhotoHash)>, StorageError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = (0..ids.len())
        .map(|i| format!("${}", i + 2))
        .collect::<Vec<_>>()
        .join(", ");
    let mut values: Vec<sea_orm::Value> = vec![owner_id.into()];
    values.extend(ids.iter().map(|id| sea_orm::Value::from(id.as_str())));
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT id, photo_hash, photo_hash_mirrored, photo_regions FROM files \
                 WHERE owner_id = $1 AND photo_hash IS NOT NULL AND id IN ({marks})"
            ),
            values,
        ))
        .await
        .context("reading a member's photo hashes")?;
    rows.iter()
        .map(|r| Ok((r.try_get("", "id").context("decoding")?, hash_of(r)?)))
        .collect()
}

/// Every compared photo of a registered member other than `owner_id`, with its owner, and every
/// kept hash of a member who left while suspended.
pub async fn others(
    db: &impl ConnectionTrait,
    owner_id: i64,
) -> Result<Vec<StoredPhoto>, StorageError> {
    let backend = db.get_database_backend();
    let rows = db
        .query_all_raw(sql(
            backend,
            &format!(
                "SELECT f.id, f.photo_hash, f.photo_hash_mirrored, f.photo_regions, p.id AS profile_id, \
                 p.nickname, p.status FROM files f JOIN profiles p ON p.user_id = f.owner_id \
                 WHERE f.owner_id <> $1 AND f.photo_hash IS NOT NULL AND {COMPARED}"
            ),
            vec![owner_id.into()],
        ))
        .await
        .context("reading other members' photo hashes")?;
    let mut stored = Vec::with_capacity(rows.len());
    for r in &rows {
        let status: String = r.try_get("", "status").context("decoding")?;
        let status = match status.as_str() {
            "APPROVED" => profile::Status::Approved,
            "PENDING" => profile::Status::Pending,
            "REJECTED" => profile::Status::Rejected,
            "SUSPENDED" => profile::Status::Suspended,
            _ => return Err(StorageError::Unreadable("profiles.status".into())),
        };
        stored.push(StoredPhoto {
            file_id: r.try_get("", "id").context("decoding")?,
            hash: hash_of(r)?,
            owner: Some(Owner {
                profile_id: r.try_get("", "profile_id").context("decoding")?,
                nickname: r.try_get("", "nickname").context("decoding")?,
                status,
            }),
        });
    }
    let kept = db
        .query_all_raw(sql(
            backend,
            "SELECT file_id, photo_hash, photo_hash_mirrored, photo_regions FROM kept_photo_hashes",
            vec![],
        ))
        .await
        .context("reading kept photo hashes")?;
    for r in &kept {
        stored.push(StoredPhoto {
            file_id: r.try_get("", "file_id").context("decoding")?,
            hash: hash_of(r)?,
            owner: None,
        });
    }
    Ok(stored)
}

/// Keeps the hashes of the compared photos of `owner_id`, who leaves while suspended (their files
/// and rows go; these name nobody).
pub async fn keep(db: &impl ConnectionTrait, owner_id: i64, now: i64) -> Result<u64, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            &format!(
                "INSERT INTO kept_photo_hashes \
                 (file_id, photo_hash, photo_hash_mirrored, photo_regions, kept_at) \
                 SELECT f.id, f.photo_hash, f.photo_hash_mirrored, f.photo_regions, $2 FROM files f \
                 WHERE f.owner_id = $1 AND f.photo_hash IS NOT NULL AND {COMPARED} \
                 ON CONFLICT DO NOTHING"
            ),
            vec![owner_id.into(), now.into()],
        ))
        .await
        .context("keeping photo hashes")?;
    Ok(done.rows_affected())
}

/// Up to `limit` compared files (ids after `after`, in id order) whose regions are not hashed:
/// stored before they were (`usecases::photo_backfill`).
pub async fn without_regions(
    db: &impl ConnectionTrait,
    after: &str,
    limit: u64,
) -> Result<Vec<String>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT f.id FROM files f WHERE f.photo_regions IS NULL AND {COMPARED} \
                 AND f.id > $1 ORDER BY f.id LIMIT {limit}"
            ),
            vec![after.into()],
        ))
        .await
        .context("finding photos without region hashes")?;
    rows.iter()
        .map(|r| Ok(r.try_get("", "id").context("decoding")?))
        .collect()
}

/// Stores the hashes of file `id` if its regions are still not hashed; answers whether it did.
pub async fn fill(
    db: &impl ConnectionTrait,
    id: &str,
    hash: &PhotoHash,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "UPDATE files SET photo_hash = $1, photo_hash_mirrored = $2, photo_regions = $3 \
             WHERE id = $4 AND photo_regions IS NULL",
            vec![
                (hash.plain as i64).into(),
                (hash.mirrored as i64).into(),
                hash.regions.map(|r| regions_text(&r)).into(),
                id.into(),
            ],
        ))
        .await
        .context("storing a photo's hashes")?;
    Ok(done.rows_affected() == 1)
}
