//! `removal_notices`: the members told that someone they were matched with was removed, one row
//! per member and match. Who is told is kizuna-core's (`review::removal_notice_due`,
//! `review::removal_notice_reaches`); this module reads matches and writes rows.

use anyhow::Context;
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// A match of a member, ended or not: its id, the other member and when it ended.
pub struct MatchOf {
    pub match_id: i64,
    pub other: i64,
    pub ended_at: Option<i64>,
}

/// Every match the member ever had.
pub async fn matches_of(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Vec<MatchOf>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT id, low_id, high_id, ended_at FROM matches \
             WHERE low_id = $1 OR high_id = $1 ORDER BY id",
            vec![member.into()],
        ))
        .await
        .context("reading a member's matches")?;
    rows.iter()
        .map(|row| {
            let low: i64 = row.try_get("", "low_id").context("decoding a match")?;
            let high: i64 = row.try_get("", "high_id").context("decoding a match")?;
            Ok(MatchOf {
                match_id: row.try_get("", "id").context("decoding a match")?,
                other: if low == member { high } else { low },
                ended_at: row.try_get("", "ended_at").context("decoding a match")?,
            })
        })
        .collect()
}

/// Tells `member` of the removal that ended `match_id` unless they were told of it already:
/// true when this call wrote the notice (one statement, so two racing suspensions write it once).
pub async fn tell(
    db: &impl ConnectionTrait,
    member: i64,
    match_id: i64,
    now: i64,
) -> Result<bool, StorageError> {
    let done = db
        .execute_raw(sql(
            db.get_database_backend(),
            "INSERT INTO removal_notices (member_id, match_id, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (member_id, match_id) DO NOTHING",
            vec![member.into(), match_id.into(), now.into()],
        ))
        .await
        .context("writing a removal notice")?;
    Ok(done.rows_affected() == 1)
}

/// A notice the member has not dismissed.
pub struct OpenNotice {
    pub match_id: i64,
    pub created_at: i64,
    /// The removed member's nickname while their profile exists (the match row goes with it).
    pub nickname: Option<String>,
}

/// The member's notices they have not dismissed, newest first.
pub async fn open_of(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Vec<OpenNotice>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT n.match_id AS match_id, n.created_at AS created_at, p.nickname AS nickname \
             FROM removal_notices n \
             LEFT JOIN matches m ON m.id = n.match_id \
             LEFT JOIN profiles p ON p.id = \
               (CASE WHEN m.low_id = n.member_id THEN m.high_id ELSE m.low_id END) \
             WHERE n.member_id = $1 AND n.dismissed_at IS NULL \
             ORDER BY n.created_at DESC, n.match_id DESC",
            vec![member.into()],
        ))
        .await
        .context("reading removal notices")?;
    rows.iter()
        .map(|row| {
            Ok(OpenNotice {
                match_id: row.try_get("", "match_id").context("decoding a notice")?,
                created_at: row.try_get("", "created_at").context("decoding a notice")?,
                nickname: row.try_get("", "nickname").context("decoding a notice")?,
            })
        })
        .collect()
}

/// Records that the member dismissed their notice about `match_id` (the first dismissal's time
/// stays). None when they have no such notice.
pub async fn dismiss(
    db: &impl ConnectionTrait,
    member: i64,
    match_id: i64,
    now: i64,
) -> Result<Option<()>, StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "UPDATE removal_notices SET dismissed_at = $3 \
         WHERE member_id = $1 AND match_id = $2 AND dismissed_at IS NULL",
        vec![member.into(), match_id.into(), now.into()],
    ))
    .await
    .context("dismissing a removal notice")?;
    let found = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT 1 AS ok FROM removal_notices WHERE member_id = $1 AND match_id = $2",
            vec![member.into(), match_id.into()],
        ))
        .await
        .context("reading a removal notice")?;
    Ok(found.map(|_| ()))
}
