//! `pauses`: which members are taking a break, since when.

use anyhow::Context;
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// Pauses the member (pausing again keeps the first time); answers since when.
pub async fn pause(db: &impl ConnectionTrait, member: i64, now: i64) -> Result<i64, StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "INSERT INTO pauses (profile_id, paused_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        vec![member.into(), now.into()],
    ))
    .await
    .context("pausing a member")?;
    Ok(paused_since(db, member).await?.unwrap_or(now))
}

/// Ends the member's pause.
pub async fn resume(db: &impl ConnectionTrait, member: i64) -> Result<(), StorageError> {
    db.execute_raw(sql(
        db.get_database_backend(),
        "DELETE FROM pauses WHERE profile_id = $1",
        vec![member.into()],
    ))
    .await
    .context("resuming a member")?;
    Ok(())
}

/// Since when the member is paused; None when they are not.
pub async fn paused_since(
    db: &impl ConnectionTrait,
    member: i64,
) -> Result<Option<i64>, StorageError> {
    let row = db
        .query_one_raw(sql(
            db.get_database_backend(),
            "SELECT paused_at FROM pauses WHERE profile_id = $1",
            vec![member.into()],
        ))
        .await
        .context("reading a pause")?;
    Ok(match row {
        Some(row) => Some(
            row.try_get::<i64>("", "paused_at")
                .context("decoding a pause")?,
        ),
        None => None,
    })
}

/// Which of `members` are paused.
pub async fn paused_among(
    db: &impl ConnectionTrait,
    members: &[i64],
) -> Result<Vec<i64>, StorageError> {
    if members.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (1..=members.len()).map(|n| format!("${n}")).collect();
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            &format!(
                "SELECT profile_id FROM pauses WHERE profile_id IN ({})",
                placeholders.join(", ")
            ),
            members.iter().map(|id| sea_orm::Value::from(*id)).collect(),
        ))
        .await
        .context("reading pauses")?;
    rows.iter()
        .map(|r| {
            Ok(r.try_get::<i64>("", "profile_id")
                .context("decoding a pause")?)
        })
        .collect()
}
