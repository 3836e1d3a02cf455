//! Schema migrations, run at start (`serve`) and by `kizuna-server migrate` (`run`: how they
//! are applied).
//!
//! The PostgreSQL SQL of every migration after [`BASELINE`] is checked by squawk in the tests
//! (`server/tests/api/migrations.rs`): take locks briefly (the runner sets `lock_timeout`), add
//! columns nullable or with a constant default, build an index on a table that can be large with
//! [`run::create_index_concurrently`] in a migration of its own that runs outside a transaction
//! (`fn use_transaction(&self) -> Option<bool> { Some(false) }`), and never drop or rename what
//! the previous release still reads (expand now, contract in a later release).

use sea_orm_migration::prelude::*;

pub mod run;

/// The last migration written before the migrations were linted: it and those before it ran on
/// databases that exist, and stay as they are.
pub const BASELINE: &str = "m20261129_000001_profile_revisions";

mod m20261122_000001_create_tables;
mod m20261123_000001_review_infra;
mod m20261123_000002_review_flow;
mod m20261124_000001_matchmaking;
mod m20261125_000001_chat;
mod m20261125_000002_job_runs;
mod m20261126_000001_departures;
mod m20261126_000002_kept_reports;
mod m20261126_000003_data_exports;
mod m20261126_000004_pauses;
mod m20261126_000005_push_kinds;
mod m20261127_000001_shared_limits;
mod m20261127_000002_presence_process;
mod m20261127_000003_like_comments;
mod m20261127_000004_chat_events;
mod m20261128_000001_colleagues;
mod m20261129_000001_profile_revisions;
mod m20261130_000001_departed_pairs;
mod m20261130_000002_push_outbox_about;
mod m20261201_000001_message_safety;
mod m20261201_000041_push_kinds_rendered;
mod m20261202_000002_photo_hashes;
mod m20261202_000043_appeals;
mod m20261202_000401_removal_notices;
mod m20261203_000001_quiet_matches;
mod m20261203_000402_photo_regions;
mod m20261203_000420_we_met;
mod m20261203_000421_review_history_time;
mod m20261204_000001_introductions_unchecked;
mod m20261205_000001_session_announcements;
mod m20261206_000001_flagged_messages;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_create_tables::Migration),
            Box::new(m20261123_000001_review_infra::Migration),
            Box::new(m20261123_000002_review_flow::Migration),
            Box::new(m20261124_000001_matchmaking::Migration),
            Box::new(m20261125_000001_chat::Migration),
            Box::new(m20261125_000002_job_runs::Migration),
            Box::new(m20261126_000001_departures::Migration),
            Box::new(m20261126_000002_kept_reports::Migration),
            Box::new(m20261126_000003_data_exports::Migration),
            Box::new(m20261126_000004_pauses::Migration),
            Box::new(m20261126_000005_push_kinds::Migration),
            Box::new(m20261127_000001_shared_limits::Migration),
            Box::new(m20261127_000002_presence_process::Migration),
            Box::new(m20261127_000003_like_comments::Migration),
            Box::new(m20261127_000004_chat_events::Migration),
            Box::new(m20261128_000001_colleagues::Migration),
            Box::new(m20261129_000001_profile_revisions::Migration),
            Box::new(m20261130_000001_departed_pairs::Migration),
            Box::new(m20261130_000002_push_outbox_about::Migration),
            Box::new(m20261201_000001_message_safety::Migration),
            Box::new(m20261201_000041_push_kinds_rendered::Migration),
            Box::new(m20261202_000002_photo_hashes::Migration),
            Box::new(m20261202_000043_appeals::Migration),
            Box::new(m20261202_000401_removal_notices::Migration),
            Box::new(m20261203_000001_quiet_matches::Migration),
            Box::new(m20261203_000402_photo_regions::Migration),
            Box::new(m20261203_000420_we_met::Migration),
            Box::new(m20261203_000421_review_history_time::Migration),
            Box::new(m20261204_000001_introductions_unchecked::Migration),
            Box::new(m20261205_000001_session_announcements::Migration),
            Box::new(m20261206_000001_flagged_messages::Migration),
        ]
    }
}
