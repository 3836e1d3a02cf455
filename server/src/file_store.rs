//! Where the bytes of uploaded files live: originals, the upload-time previews and the image
//! proxy's variants, behind one `object_store`: files under `KIZUNA_DATA_DIR` by default (one
//! machine needs nothing else), a private S3 bucket when `KIZUNA_FILE_STORE=s3://…` (several
//! machines share it). Nothing here decides who may read a file: the routes do, before they ask.
//!
//! Keys are the data dir's layout of before, so an existing data dir is a valid local store and
//! `kizuna-server files copy-to-s3` copies it key for key:
//! `files/{id[0..2]}/{id}`, `files/{id[0..2]}/{id}.preview.jpg` and
//! `cache/ipx/{id[0..2]}/{id}/{variant}`.

use std::{
    path::{Path as FsPath, PathBuf},
    sync::Arc,
    time::{Duration, SystemTime},
};

use anyhow::Context;
use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use object_store::{
    ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig, aws::AmazonS3Builder,
    local::LocalFileSystem, path::Path,
};

use crate::{
    configuration::FileStoreSettings,
    images::{decoded::DecodedPixels, is_file_id},
};

/// The bytes of every stored file, wherever the operator put them.
#[derive(Clone)]
pub struct FileStore {
    objects: Arc<dyn ObjectStore>,
    /// Set for the local store: its root, where half-written files of a crash are swept.
    local_root: Option<PathBuf>,
    /// The store named for operators' messages (`local files under ./data`, `s3://bucket`):
    /// never a credential.
    name: String,
    /// The pixels the image proxy decoded from these files in the last few seconds: they live
    /// here so that removing a file ends them too.
    decoded: Arc<DecodedPixels>,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileStore")
            .field("name", &self.name)
            .finish()
    }
}

/// One object's key and size, as a listing gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredObject {
    pub key: String,
    pub size: u64,
    pub modified: SystemTime,
}

impl FileStore {
    /// The store the settings name: local files under `data_dir`, or the S3 bucket.
    pub fn open(settings: &FileStoreSettings, data_dir: &FsPath) -> anyhow::Result<FileStore> {
        match settings {
            FileStoreSettings::Local => FileStore::local(data_dir),
            FileStoreSettings::S3(s3) => {
                let mut builder = AmazonS3Builder::new()
                    .with_client_options(ClientOptions::new().with_timeout(REQUEST_TIMEOUT))
                    // A store that does not answer is an error within seconds, not minutes: a
                    // request waiting on it holds a connection and a member.
                    .with_retry(RetryConfig {
                        max_retries: 2,
                        retry_timeout: REQUEST_TIMEOUT,
                        ..RetryConfig::default()
                    })
                    .with_bucket_name(&s3.bucket)
                    .with_region(&s3.region)
                    .with_access_key_id(&s3.access_key_id)
                    .with_secret_access_key(&s3.secret_access_key);
                if let Some(endpoint) = &s3.endpoint {
                    builder = builder
                        .with_endpoint(endpoint)
                        .with_allow_http(endpoint.starts_with("http://"));
                }
                let bucket = builder
                    .build()
                    .with_context(|| format!("opening the S3 bucket {}", s3.bucket))?;
                let objects: Arc<dyn ObjectStore> = match &s3.prefix {
                    Some(prefix) => Arc::new(object_store::prefix::PrefixStore::new(
                        bucket,
                        prefix.as_str(),
                    )),
                    None => Arc::new(bucket),
                };
                Ok(FileStore {
                    objects,
                    local_root: None,
                    name: s3.url(),
                    decoded: DecodedPixels::new(),
                })
            }
        }
    }

    /// Local files under `data_dir` (created when missing).
    pub fn local(data_dir: &FsPath) -> anyhow::Result<FileStore> {
        for dir in ["files", "cache/ipx"] {
            let dir = data_dir.join(dir);
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let objects = LocalFileSystem::new_with_prefix(data_dir)
            .with_context(|| format!("opening the data dir {}", data_dir.display()))?
            // A deleted file's variants leave no empty directory behind.
            .with_automatic_cleanup(true);
        Ok(FileStore {
            objects: Arc::new(objects),
            local_root: Some(data_dir.to_path_buf()),
            name: format!("local files under {}", data_dir.display()),
            decoded: DecodedPixels::new(),
        })
    }

    /// What an operator reads in a message about this store.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_local(&self) -> bool {
        self.local_root.is_some()
    }

    /// The uploaded file itself.
    pub fn original(id: &str) -> Path {
        Path::from(format!("files/{}/{id}", &id[..2]))
    }

    /// The upload-time preview (a JPEG), when the upload was big enough to get one.
    pub fn preview(id: &str) -> Path {
        Path::from(format!("files/{}/{id}.preview.jpg", &id[..2]))
    }

    /// One image proxy variant of the file; `name` is the variant's cache key and extension.
    pub fn variant(id: &str, name: &str) -> Path {
        Path::from(format!("cache/ipx/{}/{id}/{name}", &id[..2]))
    }

    fn variants(id: &str) -> Path {
        Path::from(format!("cache/ipx/{}/{id}", &id[..2]))
    }

    /// Stores `bytes` at `key` whole or not at all (a crash never leaves half a file readable).
    pub async fn put(&self, key: &Path, bytes: impl Into<Bytes>) -> anyhow::Result<()> {
        self.objects
            .put(key, PutPayload::from_bytes(bytes.into()))
            .await
            .with_context(|| format!("storing {key} in {}", self.name))?;
        Ok(())
    }

    /// The bytes at `key`; None when there are none.
    pub async fn get(&self, key: &Path) -> anyhow::Result<Option<Bytes>> {
        let found = match self.objects.get(key).await {
            Ok(found) => found,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(err) => {
                return Err(err).with_context(|| format!("reading {key} from {}", self.name));
            }
        };
        match found.bytes().await {
            Ok(bytes) => Ok(Some(bytes)),
            // Removed between the answer's head and its body.
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(err) => Err(err).with_context(|| format!("reading {key} from {}", self.name)),
        }
    }

    /// Whether there are bytes at `key`.
    pub async fn exists(&self, key: &Path) -> anyhow::Result<bool> {
        match self.objects.head(key).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(err) => Err(err).with_context(|| format!("looking up {key} in {}", self.name)),
        }
    }

    /// The size of the object at `key`; None when there is none.
    pub async fn size_of(&self, key: &Path) -> anyhow::Result<Option<u64>> {
        match self.objects.head(key).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(err) => Err(err).with_context(|| format!("looking up {key} in {}", self.name)),
        }
    }

    /// How many variants of the file are stored.
    pub async fn variant_count(&self, id: &str) -> anyhow::Result<usize> {
        let prefix = FileStore::variants(id);
        let mut listing = self.objects.list(Some(&prefix));
        let mut n = 0;
        while let Some(entry) = listing.next().await {
            entry.with_context(|| format!("listing {prefix} in {}", self.name))?;
            n += 1;
        }
        Ok(n)
    }

    /// The image proxy's decoded pixels of these files (`images::decoded`).
    pub fn decoded(&self) -> Arc<DecodedPixels> {
        self.decoded.clone()
    }

    /// Removes the file, its preview, every variant and its decoded pixels. Deleting what is not there is no error;
    /// any other failure is (the caller keeps the removal queued and tries again).
    pub async fn remove(&self, id: &str) -> anyhow::Result<()> {
        if !is_file_id(id) {
            return Ok(());
        }
        self.decoded.forget(id);
        let variants: Vec<Path> = self
            .objects
            .list(Some(&FileStore::variants(id)))
            .map_ok(|meta| meta.location)
            .try_collect()
            .await
            .with_context(|| format!("listing the variants of {id} in {}", self.name))?;
        for key in [FileStore::original(id), FileStore::preview(id)]
            .into_iter()
            .chain(variants)
        {
            match self.objects.delete(&key).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(err) => {
                    return Err(err).with_context(|| format!("deleting {key} in {}", self.name));
                }
            }
        }
        Ok(())
    }

    /// Deletes one object (nothing when it is not there).
    pub async fn delete_key(&self, key: &Path) -> anyhow::Result<()> {
        match self.objects.delete(key).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(err) => Err(err).with_context(|| format!("deleting {key} in {}", self.name)),
        }
    }

    /// Every object under `prefix`, in key order (a page of a thousand keys at a time).
    pub async fn list_all(&self, prefix: &str) -> anyhow::Result<Vec<StoredObject>> {
        let mut all: Vec<StoredObject> = Vec::new();
        loop {
            let after = all.last().map(|o| o.key.clone());
            let page = self.list_page(prefix, after.as_deref(), 1000).await?;
            let full = page.len() == 1000;
            all.extend(page);
            if !full {
                return Ok(all);
            }
        }
    }

    /// Up to `limit` objects under `prefix` (`files` or `cache`), in key order, after `after`
    /// (the last key of the previous page): listing a bucket is paid per thousand keys, so the
    /// sweep reads it a page at a time.
    pub async fn list_page(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> anyhow::Result<Vec<StoredObject>> {
        let prefix = Path::from(prefix);
        let listing = match after {
            Some(after) => self
                .objects
                .list_with_offset(Some(&prefix), &Path::from(after)),
            None => self.objects.list(Some(&prefix)),
        };
        let object = |meta: object_store::ObjectMeta| StoredObject {
            key: meta.location.to_string(),
            size: meta.size,
            modified: meta.last_modified.into(),
        };
        let failed = || format!("listing {prefix} in {}", self.name);
        if self.is_local() {
            // A directory walk has no order: the page is the first keys of the whole listing.
            let mut all: Vec<StoredObject> = listing
                .map_ok(object)
                .try_collect()
                .await
                .with_context(failed)?;
            all.sort_by(|a, b| a.key.cmp(&b.key));
            all.truncate(limit);
            Ok(all)
        } else {
            // S3 lists in key order: only the page is fetched.
            listing
                .take(limit)
                .map_ok(object)
                .try_collect()
                .await
                .with_context(failed)
        }
    }

    /// The local store's half-written files (`{key}#{n}` beside their destination) older than
    /// `before`, which only a crash in the middle of a write leaves; none for a bucket (S3
    /// writes are whole or nothing). Walks the whole data dir: call it rarely, off the async
    /// workers.
    pub fn stale_partial_writes(&self, before: SystemTime) -> Vec<PathBuf> {
        let Some(root) = &self.local_root else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut dirs = vec![root.join("files"), root.join("cache")];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(meta) = entry.metadata() else { continue };
                if meta.is_dir() {
                    dirs.push(path);
                } else if path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.contains('#'))
                    && meta.modified().is_ok_and(|t| t < before)
                {
                    out.push(path);
                }
            }
        }
        out
    }
}

/// The file id a stored key belongs to (`files/ab/{id}`, `files/ab/{id}.preview.jpg`,
/// `cache/ipx/ab/{id}/…`); None for anything else.
pub fn file_id_of(key: &str) -> Option<&str> {
    let parts: Vec<&str> = key.split('/').collect();
    let candidate = match parts.as_slice() {
        ["files", _, name] => name.split('.').next()?,
        ["cache", "ipx", _, id, ..] => id,
        _ => return None,
    };
    is_file_id(candidate).then_some(candidate)
}

/// How long one S3 request may take, and its retries in all, before it is an error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn keys_keep_the_data_dirs_layout() {
        assert_eq!(
            FileStore::original(ID).to_string(),
            format!("files/01/{ID}")
        );
        assert_eq!(
            FileStore::preview(ID).to_string(),
            format!("files/01/{ID}.preview.jpg")
        );
        assert_eq!(
            FileStore::variant(ID, "w_100.webp").to_string(),
            format!("cache/ipx/01/{ID}/w_100.webp")
        );
    }

    #[test]
    fn every_key_of_a_file_names_its_id_and_nothing_else_names_one() {
        for key in [
            FileStore::original(ID),
            FileStore::preview(ID),
            FileStore::variant(ID, "k.jpg"),
        ] {
            assert_eq!(file_id_of(key.as_ref()), Some(ID), "{key}");
        }
        for other in [
            "files/01/notanid",
            "tmp/x.part",
            "kizuna.db",
            "files/01",
            "cache/ipx/01",
        ] {
            assert_eq!(file_id_of(other), None, "{other}");
        }
    }

    #[tokio::test]
    async fn a_removed_file_takes_its_preview_and_variants_along() {
        let dir = std::env::temp_dir().join(format!("kizuna-store-{}", crate::images::random_id()));
        let store = FileStore::local(&dir).unwrap();
        let other = "fedcba9876543210fedcba9876543210";
        for id in [ID, other] {
            store
                .put(&FileStore::original(id), b"x".to_vec())
                .await
                .unwrap();
            store
                .put(&FileStore::preview(id), b"p".to_vec())
                .await
                .unwrap();
            store
                .put(&FileStore::variant(id, "a.webp"), b"a".to_vec())
                .await
                .unwrap();
            store
                .put(&FileStore::variant(id, "b.webp"), b"b".to_vec())
                .await
                .unwrap();
        }
        assert_eq!(store.variant_count(ID).await.unwrap(), 2);
        store.remove(ID).await.unwrap();
        assert!(!store.exists(&FileStore::original(ID)).await.unwrap());
        assert_eq!(store.get(&FileStore::preview(ID)).await.unwrap(), None);
        assert_eq!(store.variant_count(ID).await.unwrap(), 0);
        assert_eq!(store.variant_count(other).await.unwrap(), 2);
        assert_eq!(
            store
                .get(&FileStore::original(other))
                .await
                .unwrap()
                .as_deref(),
            Some(&b"x"[..])
        );
        // Removing again, or what never was, is no error.
        store.remove(ID).await.unwrap();
        let keys: Vec<String> = store
            .list_page("files", None, 100)
            .await
            .unwrap()
            .into_iter()
            .map(|o| o.key)
            .collect();
        assert_eq!(
            keys,
            vec![
                format!("files/fe/{other}"),
                format!("files/fe/{other}.preview.jpg")
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_listing_goes_page_by_page_in_key_order() {
        let dir = std::env::temp_dir().join(format!("kizuna-store-{}", crate::images::random_id()));
        let store = FileStore::local(&dir).unwrap();
        let ids: Vec<String> = (0..5).map(|n| format!("{n:02}{}", &ID[2..])).collect();
        for id in &ids {
            store
                .put(&FileStore::original(id), b"x".to_vec())
                .await
                .unwrap();
        }
        let first = store.list_page("files", None, 2).await.unwrap();
        let second = store
            .list_page("files", Some(&first[1].key), 2)
            .await
            .unwrap();
        let third = store
            .list_page("files", Some(&second[1].key), 2)
            .await
            .unwrap();
        let seen: Vec<&str> = first
            .iter()
            .chain(&second)
            .chain(&third)
            .filter_map(|o| file_id_of(&o.key))
            .collect();
        assert_eq!(seen, ids.iter().map(String::as_str).collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
