//! What the deletion record outside the database (`crate::deletions`) reads from the database:
//! the recent departures, and the users a recorded deletion may name.

use anyhow::Context;
use sea_orm::ConnectionTrait;

use super::{StorageError, statements::sql};

/// One row of `departures`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departed {
    pub line_hash: String,
    pub suspended: bool,
    pub departed_at: i64,
}

/// The departures at or after `since`, oldest first.
pub async fn departed_since(
    db: &impl ConnectionTrait,
    since: i64,
) -> Result<Vec<Departed>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT line_hash, suspended, departed_at FROM departures WHERE departed_at >= $1 \
             ORDER BY departed_at",
            vec![since.into()],
        ))
        .await
        .context("reading the recent departures")?;
    rows.iter()
        .map(|row| {
            Ok(Departed {
                line_hash: row.try_get("", "line_hash").context("a departure")?,
                suspended: row.try_get("", "suspended").context("a departure")?,
                departed_at: row.try_get("", "departed_at").context("a departure")?,
            })
        })
        .collect()
}

/// When each of `hashes` departed as far as this database knows (absent: never).
pub async fn departed_at(
    db: &impl ConnectionTrait,
    hashes: &[String],
) -> Result<std::collections::HashMap<String, i64>, StorageError> {
    let mut known = std::collections::HashMap::new();
    for chunk in hashes.chunks(500) {
        let marks = (1..=chunk.len())
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = db
            .query_all_raw(sql(
                db.get_database_backend(),
                &format!(
                    "SELECT line_hash, departed_at FROM departures WHERE line_hash IN ({marks})"
                ),
                chunk.iter().map(|h| h.clone().into()).collect(),
            ))
            .await
            .context("reading departures")?;
        for row in rows {
            known.insert(
                row.try_get("", "line_hash").context("a departure")?,
                row.try_get("", "departed_at").context("a departure")?,
            );
        }
    }
    Ok(known)
}

/// Every user: id, LINE user id and when they first signed in.
pub async fn users(db: &impl ConnectionTrait) -> Result<Vec<(i64, String, i64)>, StorageError> {
    let rows = db
        .query_all_raw(sql(
            db.get_database_backend(),
            "SELECT id, line_user_id, created_at FROM users",
            vec![],
        ))
        .await
        .context("reading the users")?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("", "id").context("a user")?,
                row.try_get("", "line_user_id").context("a user")?,
                row.try_get("", "created_at").context("a user")?,
            ))
        })
        .collect()
}
