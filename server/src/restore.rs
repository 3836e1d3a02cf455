//! What `serve` does at start for a database restored from a backup: it replays the deletions
//! recorded outside the database (`deletions`) that the database does not reflect, so that no
//! account deleted after the backup comes back (docs/operations.md, "Restoring").

use std::collections::HashMap;

use anyhow::Context;

use crate::{
    deletions::{self, unreflected},
    state::AppState,
    storage::{self, deletion_record, departures::line_hash},
};

/// At start: replays every recorded deletion the database does not reflect (it was restored
/// from a backup older than the deletion). Each user of that LINE user id who signed in before
/// the deletion is deleted through the member's own use-case (matches end, files go, what is
/// kept is kept); a LINE user who signed in again afterwards keeps the new account. Answers how
/// many accounts were deleted.
pub async fn replay(state: &AppState) -> anyhow::Result<usize> {
    let recorded = deletions::recorded(&state.files).await?;
    if recorded.is_empty() {
        return Ok(0);
    }
    let hashes: Vec<String> = recorded.iter().map(|r| r.line_hash.clone()).collect();
    let departed = deletion_record::departed_at(&state.db, &hashes).await?;
    let missing = unreflected(recorded, &departed);
    if missing.is_empty() {
        return Ok(0);
    }
    let mut users: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    for (_, line_user_id, created_at) in deletion_record::users(&state.db).await? {
        users
            .entry(line_hash(&line_user_id))
            .or_default()
            .push((line_user_id, created_at));
    }
    let mut deleted = 0;
    for entry in &missing {
        let mut found = false;
        for (line_user_id, created_at) in users.get(&entry.line_hash).into_iter().flatten() {
            if *created_at > entry.departed_at {
                continue;
            }
            let Some(user) = storage::users::find_by_line_id(&state.db, line_user_id).await? else {
                continue;
            };
            crate::usecases::membership::delete_account(&state.db, &user, None, state.now())
                .await
                .map_err(|err| anyhow::anyhow!("{err}"))
                .context("replaying a recorded deletion")?
                .apply(state)
                .await;
            found = true;
            deleted += 1;
        }
        if !found {
            // Registered and deleted between the backup and the restore: nothing to delete, but
            // the departure counts (a suspended member may not register again).
            storage::departures::record(
                &state.db,
                &entry.line_hash,
                entry.suspended,
                entry.departed_at,
            )
            .await?;
        }
    }
    tracing::warn!(
        recorded = missing.len(),
        accounts = deleted,
        "replayed deletions made after this database's backup"
    );
    Ok(deleted)
}
