//! Leaving: deleting a user's rows (the database cascades from `users` to everything that is
//! theirs), what is kept of them keyed by a hash of their LINE user id (and the pairs they had,
//! by a hash of both LINE user ids), and the queue of stored files still to remove. See
//! docs/design.md, "Deleting an account".

use anyhow::Context;
use kizuna_core::rules::FORMER_PAIR_DAYS;
use sea_orm::{ConnectionTrait, DbBackend};
use sha2::{Digest, Sha256};

use super::{StorageError, statements::sql};

/// The key of everything kept about someone who left: a SHA-256 of their LINE user id (hex).
pub fn line_hash(line_user_id: &str) -> String {
    hex::encode(Sha256::digest(line_user_id.as_bytes()))
}

/// The key of a pair kept after one of them left: a SHA-256 of both LINE user ids (hex), the
/// same whichever of the two is named first. Neither id can be read from it; only someone who
/// holds both can find it.
pub fn pair_hash(a: &str, b: &str) -> String {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    let mut hasher = Sha256::new();
    hasher.update(low.as_bytes());
    hasher.update(b"\n");
    hasher.update(high.as_bytes());
    hex::encode(hasher.finalize())
}

/// How long a kept pair counts (and is kept): `rules::FORMER_PAIR_DAYS` after the departure.
pub const PAIRS_KEPT_SECS: i64 = FORMER_PAIR_DAYS as i64 * 86_400;

/// Pairs looked up per statement when a member registers again.
const PAIR_LOOKUP_BATCH: usize = 500;

async fn run(
    db: &impl ConnectionTrait,
    text: &str,
    values: Vec<sea_orm::Value>,
    what: &'static str,
) -> Result<u64, StorageError> {
    let done = db
        .execute_raw(sql(db.get_database_backend(), text, values))
        .await
        .context(what)?;
    Ok(done.rows_affected())
}

/// Records a departure (a second one of the same LINE user keeps the stricter record: once
/// suspended, always).
pub async fn record(
    db: &impl ConnectionTrait,
    hash: &str,
    suspended: bool,
    now: i64,
) -> Result<(), StorageError> {
    let upsert = if db.get_database_backend() == DbBackend::Postgres {
        "INSERT INTO departures (line_hash, suspended, departed_at) VALUES ($1, $2, $3) \
         ON CONFLICT (line_hash) DO UPDATE SET suspended = departures.suspended OR EXCLUDED.suspended, \
         departed_at = EXCLUDED.departed_at"
    } else {
        "INSERT INTO departures (line_hash, suspended, departed_at) VALUES ($1, $2, $3) \
         ON CONFLICT (line_hash) DO UPDATE SET suspended = departures.suspended OR excluded.suspended, \
         departed_at = excluded.departed_at"
    };
    run(
        db,
        upsert,
        vec![hash.into(), suspended.into(), now.into()],
        "recording a departure",
    )
    .await?;
    Ok(())
}

/// Whether the LINE user left while suspended (they cannot register again).
pub async fn left_suspended(db: &impl ConnectionTrait, hash: &str) -> Result<bool, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT 1 AS found FROM departures WHERE line_hash = $1 AND suspended",
            vec![hash.into()],
        ))
        .await
        .context("reading a departure")?;
    Ok(row.is_some())
}

/// Whether the LINE user left before (what is kept of them waits for their return).
pub async fn departed(db: &impl ConnectionTrait, hash: &str) -> Result<bool, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT 1 AS found FROM departures WHERE line_hash = $1",
            vec![hash.into()],
        ))
        .await
        .context("reading a departure")?;
    Ok(row.is_some())
}

/// Keeps the blocks between the leaving member and others, by the hash of their LINE user id.
pub async fn keep_blocks(
    db: &impl ConnectionTrait,
    member: i64,
    hash: &str,
    now: i64,
) -> Result<u64, StorageError> {
    let blocked_by_others = run(
        db,
        "INSERT INTO kept_blocks (member_id, departed_hash, departed_blocked, created_at) \
         SELECT b.blocker_id, $2, $3, $4 FROM blocks b WHERE b.blocked_id = $1",
        vec![member.into(), hash.into(), true.into(), now.into()],
        "keeping blocks",
    )
    .await?;
    let blocking_others = run(
        db,
        "INSERT INTO kept_blocks (member_id, departed_hash, departed_blocked, created_at) \
         SELECT b.blocked_id, $2, $3, $4 FROM blocks b WHERE b.blocker_id = $1",
        vec![member.into(), hash.into(), false.into(), now.into()],
        "keeping blocks",
    )
    .await?;
    Ok(blocked_by_others + blocking_others)
}

/// Restores the kept blocks of someone who left and registered again as `member`.
pub async fn restore_blocks(
    db: &impl ConnectionTrait,
    hash: &str,
    member: i64,
    now: i64,
) -> Result<u64, StorageError> {
    let mut restored = 0;
    for (departed_blocked, insert) in [
        (
            true,
            "INSERT INTO blocks (blocker_id, blocked_id, created_at) \
             SELECT k.member_id, $1, $3 FROM kept_blocks k \
             WHERE k.departed_hash = $2 AND k.departed_blocked = $4 ON CONFLICT DO NOTHING",
        ),
        (
            false,
            "INSERT INTO blocks (blocker_id, blocked_id, created_at) \
             SELECT $1, k.member_id, $3 FROM kept_blocks k \
             WHERE k.departed_hash = $2 AND k.departed_blocked = $4 ON CONFLICT DO NOTHING",
        ),
    ] {
        restored += run(
            db,
            insert,
            vec![
                member.into(),
                hash.into(),
                now.into(),
                departed_blocked.into(),
            ],
            "restoring blocks",
        )
        .await?;
    }
    run(
        db,
        "DELETE FROM kept_blocks WHERE departed_hash = $1",
        vec![hash.into()],
        "restoring blocks",
    )
    .await?;
    Ok(restored)
}

/// Keeps the pairs the leaving member had with members who stay that ended (every match of
/// theirs: the live ones end with the departure) or were passed (either way), each as
/// [`pair_hash`] with the departure's time and nothing else; a pair kept before stays as it was.
pub async fn keep_pairs(
    db: &impl ConnectionTrait,
    member: i64,
    line_user_id: &str,
    now: i64,
) -> Result<u64, StorageError> {
    let others = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT DISTINCT u.line_user_id AS line FROM profiles p JOIN users u ON u.id = p.user_id \
             WHERE p.id IN ( \
               SELECT CASE WHEN m.low_id = $1 THEN m.high_id ELSE m.low_id END FROM matches m \
               WHERE m.low_id = $1 OR m.high_id = $1 \
               UNION SELECT r.target_id FROM reactions r WHERE r.viewer_id = $1 AND r.kind = $2 \
               UNION SELECT r.viewer_id FROM reactions r WHERE r.target_id = $1 AND r.kind = $2)",
            vec![member.into(), super::entity::reaction::PASS.into()],
        ))
        .await
        .context("reading the pairs of a departure")?;
    let mut kept = 0;
    for row in others {
        let other: String = row.try_get("", "line").context("decoding a pair")?;
        kept += run(
            db,
            "INSERT INTO kept_pairs (pair_hash, departed_at) VALUES ($1, $2) \
             ON CONFLICT (pair_hash) DO UPDATE SET departed_at = excluded.departed_at",
            vec![pair_hash(line_user_id, &other).into(), now.into()],
            "keeping a pair",
        )
        .await?;
    }
    Ok(kept)
}

/// Restores the kept pairs of someone who left and registered again as `member` (LINE user
/// `line_user_id`) with every member present, as `former_pairs` rows with the departure's time
/// (the core keeps such a pair apart; either profile's deletion takes the row). The kept pairs
/// stay for their year: the other member may leave and come back too. Each present member's pair
/// hash is computed and looked up, a batch at a time: a cost paid once, on a returning member's
/// registration only.
pub async fn restore_pairs(
    db: &impl ConnectionTrait,
    line_user_id: &str,
    member: i64,
    now: i64,
) -> Result<u64, StorageError> {
    let backend = db.get_database_backend();
    let since = now - PAIRS_KEPT_SECS;
    let present = db
        .query_all_raw(sql(
            backend,
            "SELECT p.id AS id, u.line_user_id AS line FROM profiles p \
             JOIN users u ON u.id = p.user_id WHERE p.id <> $1",
            vec![member.into()],
        ))
        .await
        .context("reading the members present")?;
    let mut by_hash = std::collections::HashMap::with_capacity(present.len());
    for row in &present {
        let id: i64 = row.try_get("", "id").context("decoding a member")?;
        let line: String = row.try_get("", "line").context("decoding a member")?;
        by_hash.insert(pair_hash(line_user_id, &line), id);
    }
    let hashes: Vec<&String> = by_hash.keys().collect();
    let mut restored = 0;
    for batch in hashes.chunks(PAIR_LOOKUP_BATCH) {
        let marks: Vec<String> = (0..batch.len()).map(|i| format!("${}", i + 2)).collect();
        let mut values: Vec<sea_orm::Value> = vec![since.into()];
        values.extend(batch.iter().map(|h| sea_orm::Value::from(h.as_str())));
        let found = db
            .query_all_raw(sql(
                backend,
                &format!(
                    "SELECT pair_hash, departed_at FROM kept_pairs \
                     WHERE departed_at > $1 AND pair_hash IN ({})",
                    marks.join(", ")
                ),
                values,
            ))
            .await
            .context("looking up kept pairs")?;
        for row in found {
            let hash: String = row.try_get("", "pair_hash").context("decoding a pair")?;
            let departed_at: i64 = row.try_get("", "departed_at").context("decoding a pair")?;
            let Some(&other) = by_hash.get(&hash) else {
                continue;
            };
            restored += run(
                db,
                "INSERT INTO former_pairs (low_id, high_id, departed_at) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
                vec![
                    member.min(other).into(),
                    member.max(other).into(),
                    departed_at.into(),
                ],
                "restoring a pair",
            )
            .await?;
        }
    }
    Ok(restored)
}

/// Forgets the pairs kept (and restored) more than a year ago.
pub async fn sweep_pairs(db: &impl ConnectionTrait, now: i64) -> Result<u64, StorageError> {
    let before = now - PAIRS_KEPT_SECS;
    let mut forgotten = 0;
    for text in [
        "DELETE FROM kept_pairs WHERE departed_at <= $1",
        "DELETE FROM former_pairs WHERE departed_at <= $1",
    ] {
        forgotten += run(db, text, vec![before.into()], "forgetting kept pairs").await?;
    }
    Ok(forgotten)
}

/// Keeps the open reports about the leaving member for their return, under the hash (the
/// schema then clears `target_id` with the profile), and drops the settled ones. Reports they
/// filed need nothing here: the schema clears their `reporter_id`, and the reviewer still has them.
pub async fn keep_reports(
    db: &impl ConnectionTrait,
    member: i64,
    hash: &str,
) -> Result<u64, StorageError> {
    run(
        db,
        "DELETE FROM reports WHERE target_id = $1 AND status <> 'OPEN'",
        vec![member.into()],
        "dropping settled reports",
    )
    .await?;
    run(
        db,
        "UPDATE reports SET target_departed = $2 WHERE target_id = $1",
        vec![member.into(), hash.into()],
        "keeping reports",
    )
    .await
}

/// Puts the open reports kept about someone who left back in the reviewers' queue, now about
/// their new profile `member`.
pub async fn restore_reports(
    db: &impl ConnectionTrait,
    hash: &str,
    member: i64,
) -> Result<u64, StorageError> {
    run(
        db,
        "UPDATE reports SET target_id = $1, target_departed = NULL WHERE target_departed = $2",
        vec![member.into(), hash.into()],
        "restoring reports",
    )
    .await
}

/// Queues every stored file of the user for removal (bytes, preview and variants).
pub async fn queue_files(
    db: &impl ConnectionTrait,
    user_id: i64,
    now: i64,
) -> Result<u64, StorageError> {
    run(
        db,
        "INSERT INTO file_removals (file_id, queued_at) SELECT f.id, $2 FROM files f \
         WHERE f.owner_id = $1 ON CONFLICT DO NOTHING",
        vec![user_id.into(), now.into()],
        "queueing file removals",
    )
    .await
}

/// Deletes the user's row and, through the schema's cascades, every row that is theirs
/// (sessions, files, profile and its children, lists, likes, matches and their messages, blocks,
/// e-mail codes; reports lose their name: see [`keep_reports`]), plus the rows keyed by their
/// LINE user id (pushes, friendship).
pub async fn delete_user(
    db: &impl ConnectionTrait,
    user_id: i64,
    line_user_id: &str,
) -> Result<(), StorageError> {
    for (text, value, what) in [
        (
            "DELETE FROM push_outbox WHERE line_user_id = $1",
            sea_orm::Value::from(line_user_id),
            "cancelling pushes",
        ),
        (
            "DELETE FROM line_friendships WHERE line_user_id = $1",
            sea_orm::Value::from(line_user_id),
            "forgetting a friendship",
        ),
        (
            "DELETE FROM users WHERE id = $1",
            sea_orm::Value::from(user_id),
            "deleting a user",
        ),
    ] {
        run(db, text, vec![value], what).await?;
    }
    Ok(())
}

/// Up to `limit` queued file ids, oldest first.
pub async fn queued_files(
    db: &impl ConnectionTrait,
    limit: u64,
) -> Result<Vec<String>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!("SELECT file_id FROM file_removals ORDER BY queued_at, file_id LIMIT {limit}"),
            vec![],
        ))
        .await
        .context("reading file removals")?;
    rows.iter()
        .map(|r| Ok(r.try_get::<String>("", "file_id").context("decoding")?))
        .collect()
}

/// A queued file is gone from the store.
pub async fn file_removed(db: &impl ConnectionTrait, file_id: &str) -> Result<(), StorageError> {
    run(
        db,
        "DELETE FROM file_removals WHERE file_id = $1",
        vec![file_id.into()],
        "finishing a file removal",
    )
    .await?;
    Ok(())
}
