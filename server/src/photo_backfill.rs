//! At start, the photos stored before their regions were hashed (or before they were hashed at
//! all) get their hashes from their stored bytes, so that a copy cropped out of them is seen
//! too (kizuna-core's `photos`). One pass over them in id order; a photo whose bytes are gone or
//! do not decode is skipped (it stays compared by what it has) and tried again at the next start.
//! Several processes starting together may hash the same photo twice: the row is written once.
//! The hashes of members who left while suspended (`kept_photo_hashes`) have no picture left to
//! hash: they stay compared by their whole image.

use sea_orm::DatabaseConnection;

use crate::{file_store::FileStore, images, storage::photo_hashes};

/// Photos read per query.
const BATCH: u64 = 100;

/// One pass; answers how many photos got their hashes.
pub async fn run(db: &DatabaseConnection, files: &FileStore) -> anyhow::Result<usize> {
    let mut after = String::new();
    let mut filled = 0;
    loop {
        let ids = photo_hashes::without_regions(db, &after, BATCH).await?;
        let Some(last) = ids.last() else {
            return Ok(filled);
        };
        after = last.clone();
        for id in ids {
            let Some(bytes) = files.get(&FileStore::original(&id)).await? else {
                tracing::warn!(file = %id, "a photo to hash has no stored bytes");
                continue;
            };
            // One at a time on a blocking thread: uploads keep the image workers.
            let hash = tokio::task::spawn_blocking(move || images::hash_stored(&bytes)).await?;
            match hash {
                Ok(hash) => filled += usize::from(photo_hashes::fill(db, &id, &hash).await?),
                Err(err) => {
                    tracing::warn!(file = %id, error = ?err, "a stored photo does not decode")
                }
            }
        }
    }
}

/// Runs the pass once, in the background, logging its outcome.
pub fn spawn(db: DatabaseConnection, files: FileStore) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        match run(&db, &files).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(photos = n, "stored photos hashed"),
            Err(err) => tracing::warn!(error = ?err, "hashing stored photos failed"),
        }
    })
}
