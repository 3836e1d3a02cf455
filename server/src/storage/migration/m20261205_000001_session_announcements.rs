//! The database announces what ends a session or changes what a session carries, inside the
//! transaction that does it (PostgreSQL; issue 46, the session read): a `NOTIFY kizuna_sessions`
//! with the payload the servers send themselves (`identity::ends`), without an origin, so every
//! process (the one that made the change included) evicts the sessions from its cache and ends
//! their open events streams. Whoever makes the change, the API, the CLI or an operator by hand,
//! it commits with its announcement, in commit order with every other notification: this is what
//! lets a process that hears its own heartbeat keep a session in memory beyond a second.
//!
//! - `sessions`: revoked, or deleted while live (an account's deletion; the housekeeping sweep
//!   deletes sessions that ended a day before, which nothing holds): `{"s": [token hash]}`.
//! - `profiles` (status), `users` (name, avatar) and `reviewers` (a period opened or closed):
//!   `{"c": [user id]}`. A new profile is announced by the server after its commit (bulk seeding
//!   of profiles stays free of a notification per row).
//!
//! SQLite has one process, which tells itself.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const UP: [&str; 7] = [
    "CREATE FUNCTION announce_session_end() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
       PERFORM pg_notify('kizuna_sessions', \
         json_build_object('s', json_build_array(OLD.token_hash))::text); \
       RETURN NULL; \
     END $$",
    "CREATE FUNCTION announce_account_change() RETURNS trigger LANGUAGE plpgsql AS $$ \
     DECLARE changed bigint; BEGIN \
       IF TG_TABLE_NAME = 'reviewers' THEN \
         SELECT id INTO changed FROM users WHERE line_user_id = NEW.line_user_id; \
       ELSIF TG_TABLE_NAME = 'users' THEN \
         changed := NEW.id; \
       ELSE \
         changed := NEW.user_id; \
       END IF; \
       IF changed IS NOT NULL THEN \
         PERFORM pg_notify('kizuna_sessions', \
           json_build_object('c', json_build_array(changed))::text); \
       END IF; \
       RETURN NULL; \
     END $$",
    "CREATE TRIGGER announce_session_revoked AFTER UPDATE OF revoked_at ON sessions \
     FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) \
     EXECUTE FUNCTION announce_session_end()",
    "CREATE TRIGGER announce_session_deleted AFTER DELETE ON sessions \
     FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND OLD.expires_at > extract(epoch FROM now())) \
     EXECUTE FUNCTION announce_session_end()",
    "CREATE TRIGGER announce_profile_status AFTER UPDATE OF status ON profiles \
     FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) \
     EXECUTE FUNCTION announce_account_change()",
    "CREATE TRIGGER announce_user_shown AFTER UPDATE OF display_name, avatar_file_id ON users \
     FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name \
       OR OLD.avatar_file_id IS DISTINCT FROM NEW.avatar_file_id) \
     EXECUTE FUNCTION announce_account_change()",
    "CREATE TRIGGER announce_reviewer_period AFTER INSERT OR UPDATE OF removed_at ON reviewers \
     FOR EACH ROW EXECUTE FUNCTION announce_account_change()",
];

const DOWN: [&str; 7] = [
    "DROP TRIGGER announce_reviewer_period ON reviewers",
    "DROP TRIGGER announce_user_shown ON users",
    "DROP TRIGGER announce_profile_status ON profiles",
    "DROP TRIGGER announce_session_deleted ON sessions",
    "DROP TRIGGER announce_session_revoked ON sessions",
    "DROP FUNCTION announce_account_change()",
    "DROP FUNCTION announce_session_end()",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != sea_orm::DbBackend::Postgres {
            return Ok(());
        }
        for statement in UP {
            manager
                .get_connection()
                .execute_unprepared(statement)
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != sea_orm::DbBackend::Postgres {
            return Ok(());
        }
        for statement in DOWN {
            manager
                .get_connection()
                .execute_unprepared(statement)
                .await?;
        }
        Ok(())
    }
}
