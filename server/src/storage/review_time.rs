//! The waits behind the usual review time (kizuna-core's `review_time`): for each first decision
//! (APPROVE or REJECT of a PENDING profile) made since a time, how long that submission had
//! waited since the profile last became PENDING (its first submission or a resubmission).

use anyhow::Context;
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// The waits (seconds) of the first decisions made at or after `since`.
pub async fn first_decision_waits(
    db: &impl ConnectionTrait,
    since: i64,
) -> Result<Vec<i64>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT h.created_at - (SELECT s.created_at FROM review_history s \
               WHERE s.profile_id = h.profile_id AND s.to_status = 'PENDING' AND s.id < h.id \
               ORDER BY s.id DESC LIMIT 1) AS waited \
             FROM review_history h \
             WHERE h.created_at >= $1 AND h.from_status = 'PENDING' \
               AND h.action IN ('APPROVE', 'REJECT')",
            vec![since.into()],
        ))
        .await
        .context("reading the review waits")?;
    let mut waits = Vec::with_capacity(rows.len());
    for row in &rows {
        // A decision without a submission before it (never written so) is no wait.
        if let Some(w) = row
            .try_get::<Option<i64>>("", "waited")
            .context("decoding a wait")?
        {
            waits.push(w);
        }
    }
    Ok(waits)
}
