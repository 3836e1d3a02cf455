//! What follows a use-case's committed transaction, done with the whole application at hand
//! (the session ends, the push worker, the chat hub, every process's pool, LINE, the files): the
//! routes call [`Outcome::apply`] here, so that no use-case reaches the application's state.

use crate::{
    state::AppState,
    usecases::{AfterCommit, Outcome},
};

impl<T> Outcome<T> {
    /// Does what follows the commit and answers the result.
    pub async fn apply(self, state: &AppState) -> T {
        let AfterCommit {
            sessions_ended,
            accounts_changed,
            pushes,
            events,
            pool_changed,
            files_queued,
            purge,
            departed,
            deauthorize,
            export,
        } = self.after;
        state
            .session_ends
            .announce(&state.db, &sessions_ended, &accounts_changed)
            .await;
        if pushes {
            state.push.wake();
        }
        for event in events {
            state.chat.publish(&state.db, event).await;
        }
        state.pool.changed(&state.db, &pool_changed).await;
        if let Some(token) = deauthorize
            && let Err(err) = state.deauthorizer.revoke(&token).await
        {
            tracing::warn!(error = ?err, "LINE did not revoke a leaving member's authorisation");
        }
        if files_queued || purge {
            let (db, files) = (state.db.clone(), state.files.clone());
            tokio::spawn(async move {
                if files_queued
                    && let Err(err) = crate::cleanup::remove_departed_files(&db, &files).await
                {
                    tracing::warn!(error = ?err, "removing deleted accounts' files failed");
                }
                // After the removals: their queue's rows named the files too.
                if purge {
                    crate::cleanup::purge_deleted_bytes(&db).await;
                }
            });
        }
        if departed {
            let (db, files, now) = (state.db.clone(), state.files.clone(), state.now());
            tokio::spawn(async move {
                if let Err(err) = crate::deletions::record_missing(&db, &files, now).await {
                    tracing::warn!(error = ?err, "writing the deletion record failed");
                }
            });
        }
        if let Some(export_id) = export {
            let (db, files, now) = (state.db.clone(), state.files.clone(), state.now());
            tokio::spawn(async move {
                if let Err(err) = crate::data_export::prepare(&db, &files, export_id, now).await {
                    tracing::warn!(error = ?err, "a data export failed");
                }
            });
        }
        self.value
    }
}
