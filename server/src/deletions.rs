//! The deletion record kept outside the database, so that a restore from a backup never brings
//! back an account deleted after that backup was taken (docs/operations.md, "Restoring").
//!
//! Every departure (`departures`: the SHA-256 of the LINE user id, when, whether suspended) is
//! also written to the file store as an empty object
//! `deletions/{departed_at}-{hash}-{m|s}`: right after the deletion commits, and by the
//! housekeeping task for any the store lacks (a write that failed). The key is the whole record,
//! so a listing reads it without fetching an object. A restore puts back the database and the
//! bucket from a backup and then this record from the live bucket (or its newest copy); `serve`
//! replays at start (`restore`) every recorded deletion that the database does not reflect: each
//! account of that LINE user registered before the deletion is deleted as the member's own
//! deletion deletes it. Entries older than [`RECORD_KEEP_SECS`] are pruned: no backup kept is
//! older.

use std::collections::HashMap;

use object_store::path::Path;
use sea_orm::DatabaseConnection;

use crate::{file_store::FileStore, storage::deletion_record};

/// Where the record lives in the file store (never under `files/` or `cache/`, which the
/// orphan sweep reads).
pub const PREFIX: &str = "deletions";

/// How long a departure stays recorded: longer than the oldest backup kept (30 days,
/// docs/operations.md), so a restore from any backup can replay every deletion made after it.
pub const RECORD_KEEP_SECS: i64 = 35 * 86_400;

/// One recorded deletion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub line_hash: String,
    pub departed_at: i64,
    pub suspended: bool,
}

impl Recorded {
    /// Its key: the time first (zero-padded, so that keys sort by it), then the hash and the
    /// kind (`s` suspended, `m` member).
    pub fn key(&self) -> Path {
        Path::from(format!(
            "{PREFIX}/{:011}-{}-{}",
            self.departed_at,
            self.line_hash,
            if self.suspended { 's' } else { 'm' }
        ))
    }

    /// The entry a key names; None for anything else.
    pub fn from_key(key: &str) -> Option<Recorded> {
        let name = key.strip_prefix(PREFIX)?.strip_prefix('/')?;
        let mut parts = name.split('-');
        let (time, hash, kind) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || hash.len() != 64
            || !hash
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            || time.is_empty()
            || !time.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        Some(Recorded {
            line_hash: hash.to_string(),
            departed_at: time.parse().ok()?,
            suspended: match kind {
                "s" => true,
                "m" => false,
                _ => return None,
            },
        })
    }
}

/// Every deletion the store records.
pub async fn recorded(files: &FileStore) -> anyhow::Result<Vec<Recorded>> {
    Ok(files
        .list_all(PREFIX)
        .await?
        .iter()
        .filter_map(|o| Recorded::from_key(&o.key))
        .collect())
}

/// Writes every departure of the last [`RECORD_KEEP_SECS`] that the store does not record yet;
/// answers how many it wrote.
pub async fn record_missing(
    db: &DatabaseConnection,
    files: &FileStore,
    now: i64,
) -> anyhow::Result<usize> {
    let departed = deletion_record::departed_since(db, now - RECORD_KEEP_SECS).await?;
    if departed.is_empty() {
        return Ok(0);
    }
    let have: std::collections::HashSet<String> = files
        .list_all(PREFIX)
        .await?
        .into_iter()
        .map(|o| o.key)
        .collect();
    let mut written = 0;
    for d in departed {
        let entry = Recorded {
            line_hash: d.line_hash,
            departed_at: d.departed_at,
            suspended: d.suspended,
        };
        let key = entry.key();
        if !have.contains(key.as_ref()) {
            files.put(&key, Vec::new()).await?;
            written += 1;
        }
    }
    Ok(written)
}

/// Deletes the entries older than [`RECORD_KEEP_SECS`]; answers how many.
pub async fn prune(files: &FileStore, now: i64) -> anyhow::Result<usize> {
    let mut pruned = 0;
    for entry in recorded(files).await? {
        if entry.departed_at < now - RECORD_KEEP_SECS {
            files.delete_key(&entry.key()).await?;
            pruned += 1;
        }
    }
    Ok(pruned)
}

/// The recorded deletions that `departed` (the database's departures by hash) does not reflect:
/// the database knows no departure of that LINE user at or after the recorded time.
pub fn unreflected(recorded: Vec<Recorded>, departed: &HashMap<String, i64>) -> Vec<Recorded> {
    recorded
        .into_iter()
        .filter(|r| {
            departed
                .get(&r.line_hash)
                .is_none_or(|t| *t < r.departed_at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_key_reads_back_as_the_entry_it_was_made_of() {
        for suspended in [false, true] {
            let entry = Recorded {
                line_hash: HASH.into(),
                departed_at: 1_795_305_600,
                suspended,
            };
            let key = entry.key();
            assert!(key.as_ref().starts_with("deletions/01795305600-9f86"));
            assert_eq!(Recorded::from_key(key.as_ref()), Some(entry));
        }
    }

    #[test]
    fn keys_sort_by_time() {
        let at = |t| {
            Recorded {
                line_hash: HASH.into(),
                departed_at: t,
                suspended: false,
            }
            .key()
            .to_string()
        };
        assert!(at(999_999_999) < at(1_000_000_000));
    }

    #[test]
    fn anything_else_in_the_prefix_is_no_entry() {
        for key in [
            "deletions/x",
            &format!("deletions/12-{HASH}-q"),
            &format!("deletions/12-{}-m", &HASH[1..]),
            &format!("deletions/12-{}-m", HASH.to_uppercase()),
            &format!("deletions/-{HASH}-m"),
            &format!("deletions/12-{HASH}-m-extra"),
            &format!("files/12-{HASH}-m"),
        ] {
            assert_eq!(Recorded::from_key(key), None, "{key}");
        }
    }

    #[test]
    fn only_deletions_the_database_does_not_know_are_replayed() {
        let entry = |hash: &str, t| Recorded {
            line_hash: hash.into(),
            departed_at: t,
            suspended: false,
        };
        let recorded = vec![entry("a", 100), entry("b", 200), entry("c", 300)];
        let departed = HashMap::from([("a".to_string(), 100), ("b".to_string(), 150)]);
        // a: known; b: the database knows an earlier departure only; c: unknown.
        assert_eq!(
            unreflected(recorded, &departed),
            vec![entry("b", 200), entry("c", 300)]
        );
    }
}
