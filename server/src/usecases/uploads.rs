//! Temp uploads: the quota of unclaimed ones, and storing a new one (decode and re-encode on an
//! image worker, the bytes on disk, the row) within it.
//!
//! The quota counts a user's uploads that nothing claimed yet (no profile, submission or avatar)
//! and that are under a day old (older ones are the sweep's): `rules::UNCLAIMED_UPLOADS_*` files
//! and `rules::UNCLAIMED_UPLOAD_BYTES_*` stored bytes (`images::admission::UploadLimits`), tighter
//! for a user without a profile. It is
//! checked twice: before the body is read (a user at the quota costs no transfer and no decode),
//! and again when the row is written, under the user's row lock, so two uploads racing for the
//! last place cannot both take it.

use std::sync::Arc;

use anyhow::Context;
use sea_orm::DatabaseConnection;

use crate::{
    cleanup::TEMP_FILE_TTL_SECS,
    file_store::FileStore,
    images::{
        self, ImageError, Processed,
        admission::{Quota, UploadLimits, UploadSlot},
        workers::ImageWorkers,
    },
    storage::{
        self, StorageError,
        files::{self, NewTempFile},
    },
};

/// What storing an upload reaches.
pub struct UploadDeps<'a> {
    pub db: &'a DatabaseConnection,
    pub workers: &'a ImageWorkers,
    pub files: &'a FileStore,
    pub limits: &'a UploadLimits,
}

#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The user holds `count` unclaimed uploads, the most the quota allows (`has_profile`: a
    /// member's quota, else the tighter one).
    #[error("upload quota reached: {count} files")]
    TooManyFiles { count: u32, has_profile: bool },
    /// One more would go past the quota's `limit_bytes` of unclaimed uploads.
    #[error("upload quota reached: {limit_bytes} bytes")]
    TooManyBytes { limit_bytes: u64, has_profile: bool },
    /// The bytes are no image the service takes.
    #[error(transparent)]
    Image(#[from] ImageError),
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// The quota's verdict: refused when `adding` more stored bytes (one more file) to `usage`
/// would go past it.
fn within(
    quota: Quota,
    has_profile: bool,
    usage: (u32, u64),
    adding: u64,
) -> Result<(), UploadError> {
    let (count, bytes) = usage;
    if count >= quota.files {
        return Err(UploadError::TooManyFiles { count, has_profile });
    }
    if bytes >= quota.bytes || bytes.saturating_add(adding) > quota.bytes {
        return Err(UploadError::TooManyBytes {
            limit_bytes: quota.bytes,
            has_profile,
        });
    }
    Ok(())
}

/// Whether the user may start one more upload (before its body is read): refused at the quota.
pub async fn admit(
    db: &DatabaseConnection,
    limits: &UploadLimits,
    user_id: i64,
    has_profile: bool,
    now: i64,
) -> Result<(), UploadError> {
    let usage = files::unclaimed_usage(db, user_id, now - TEMP_FILE_TTL_SECS).await?;
    within(limits.quota(has_profile), has_profile, usage, 0)
}

/// What a stored upload is.
pub struct Stored {
    pub id: String,
    pub processed: Processed,
}

/// Decodes and re-encodes `bytes` on an image worker (the slot goes with the job, so a decode
/// that outlives its request still counts), stores the result and records it as the user's temp
/// file, within the quota.
pub async fn store(
    deps: &UploadDeps<'_>,
    user_id: i64,
    has_profile: bool,
    bytes: Vec<u8>,
    slot: Arc<UploadSlot>,
    now: i64,
) -> Result<Stored, UploadError> {
    let processed = deps
        .workers
        .run(move || {
            let _slot = slot;
            images::process_upload(&bytes)
        })
        .await??;
    let id = images::random_id();
    let written = write_bytes(deps.files, &id, &processed)
        .await
        .map_err(UploadError::from);
    let recorded = match written {
        Ok(()) => record(deps, user_id, has_profile, &id, &processed, now).await,
        Err(err) => Err(err),
    };
    if let Err(err) = recorded {
        // Whatever was written goes; what a failure leaves, the orphan sweep finds.
        if let Err(removal) = deps.files.remove(&id).await {
            tracing::warn!(error = ?removal, "could not remove an upload that was not recorded");
        }
        return Err(err);
    }
    tracing::info!(
        user = user_id,
        bytes = processed.bytes.len(),
        "temp file stored"
    );
    Ok(Stored { id, processed })
}

async fn write_bytes(files: &FileStore, id: &str, processed: &Processed) -> anyhow::Result<()> {
    if let Some(preview) = &processed.preview {
        files
            .put(&FileStore::preview(id), preview.bytes.clone())
            .await?;
    }
    files
        .put(&FileStore::original(id), processed.bytes.clone())
        .await?;
    Ok(())
}

/// The row, under the user's row lock: the quota is counted again there, so of two uploads racing
/// for the last place one gets it and the other 413.
async fn record(
    deps: &UploadDeps<'_>,
    user_id: i64,
    has_profile: bool,
    id: &str,
    processed: &Processed,
    now: i64,
) -> Result<(), UploadError> {
    // The file's own bytes (its preview, when it has one, is at most 1600 px a side).
    let size = processed.bytes.len();
    let txn = storage::begin_user_write(deps.db, user_id).await?;
    let usage = files::unclaimed_usage(&txn, user_id, now - TEMP_FILE_TTL_SECS).await?;
    within(
        deps.limits.quota(has_profile),
        has_profile,
        usage,
        size as u64,
    )?;
    files::insert_temp(
        &txn,
        NewTempFile {
            id,
            owner_id: user_id,
            content_type: processed.kind.content_type(),
            width: processed.width,
            height: processed.height,
            size_bytes: size,
            hash: processed.hash,
            now,
        },
    )
    .await?;
    txn.commit().await.context("committing an upload")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::images::admission::UploadLimits;

    #[test]
    fn the_quota_is_tighter_without_a_profile_and_counts_files_and_bytes() {
        let limits = UploadLimits::for_workers(1);
        let (without, member) = (limits.quota(false), limits.quota(true));
        assert!(without.files < member.files && without.bytes < member.bytes);
        assert!(within(without, false, (without.files - 1, 0), 1024).is_ok());
        assert!(within(without, false, (without.files, 0), 0).is_err());
        assert!(within(member, true, (without.files, 0), 0).is_ok());
        assert!(within(without, false, (0, without.bytes - 10), 10).is_ok());
        assert!(within(without, false, (0, without.bytes - 10), 11).is_err());
        assert!(within(without, false, (0, without.bytes), 0).is_err());
        assert!(matches!(
            within(without, false, (without.files, 0), 0),
            Err(UploadError::TooManyFiles {
                has_profile: false,
                ..
            })
        ));
    }
}
