//! Whether the database answers, for the health and readiness checks.

use std::time::Duration;

use sea_orm::DatabaseConnection;

/// Whether the database answers within `within`: a check that hangs for the pool's whole
/// acquire timeout would look like a dead server to a balancer that gives up sooner.
pub async fn database_answers(db: &DatabaseConnection, within: Duration) -> bool {
    tokio::time::timeout(within, crate::storage::ping(db))
        .await
        .unwrap_or(false)
}
