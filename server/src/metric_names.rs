//! Every metric's name: one place, so that the alert rules and docs/operations.md name what
//! exists. A leaf module: storage records its pool waits here without depending on the collector.

/// Requests answered, by `method`, `route` (the pattern) and `status`.
pub const HTTP_REQUESTS: &str = "kizuna_http_requests_total";
/// Time to the answer's head, by `method` and `route`.
pub const HTTP_DURATION: &str = "kizuna_http_request_duration_seconds";
/// Profiles waiting for a reviewer (PENDING and pending revisions).
pub const REVIEW_QUEUE: &str = "kizuna_review_queue_length";
/// How long the longest-waiting of them has waited.
pub const REVIEW_OLDEST_AGE: &str = "kizuna_review_queue_oldest_age_seconds";
/// LINE pushes in the outbox not delivered yet, and the oldest one's age.
pub const PUSHES_PENDING: &str = "kizuna_push_outbox_pending";
pub const PUSHES_OLDEST_AGE: &str = "kizuna_push_outbox_oldest_age_seconds";
/// Push attempts, by `outcome` (sent, retried, refused, expired, unfollowed, withdrawn) and `code`
/// (LINE's HTTP status, or timeout/connect/transport/none).
pub const LINE_PUSHES: &str = "kizuna_line_push_attempts_total";
/// Chat event streams open on this process.
pub const CHAT_STREAMS: &str = "kizuna_chat_streams_open";
/// Members in this process's match pool, and how long ago it last changed.
pub const POOL_MEMBERS: &str = "kizuna_match_pool_members";
pub const POOL_AGE: &str = "kizuna_match_pool_update_age_seconds";
/// The database pool: connections open, idle, and the most it may open.
pub const DB_CONNECTIONS: &str = "kizuna_db_pool_connections";
pub const DB_IDLE: &str = "kizuna_db_pool_idle";
pub const DB_MAX: &str = "kizuna_db_pool_max";
/// Time for a write transaction to begin (`storage::begin_write`): waiting for a pool
/// connection, then BEGIN (on SQLite, IMMEDIATE: waiting for the write lock too).
pub const DB_BEGIN_WAIT: &str = "kizuna_db_begin_wait_seconds";
/// Uploads being received or decoded on this process.
pub const UPLOADS_IN_FLIGHT: &str = "kizuna_uploads_in_flight";
/// Image proxy renders (variants not cached yet) being made on this process, and made.
pub const RENDERS_IN_FLIGHT: &str = "kizuna_image_renders_in_flight";
pub const RENDERS: &str = "kizuna_image_renders_total";
/// Requests refused by a limit, by `limit`: a rate limit's name in `rate_limit`, or
/// uploads-in-flight, uploads-per-member, connections, connections-address, chat-streams,
/// data-exports.
pub const LIMIT_REFUSALS: &str = "kizuna_rate_limit_refusals_total";
/// The daily introductions: each run's wall time, the members it served, and when a run last
/// finished (from `job_runs`, whichever process ran it).
pub const JOB_DURATION: &str = "kizuna_daily_job_duration_seconds";
pub const JOB_MEMBERS: &str = "kizuna_daily_job_members";
pub const JOB_FINISHED: &str = "kizuna_daily_job_last_finished_timestamp_seconds";
/// The last finished run's wall time and the lists it made (from `job_runs`: runs of the
/// `introductions` command too).
pub const JOB_LAST_DURATION: &str = "kizuna_daily_job_last_duration_seconds";
pub const JOB_LAST_LISTS: &str = "kizuna_daily_job_last_lists";
/// Answers E503 because the database could not be reached, and E500 (a bug, or a store error).
pub const STORE_UNAVAILABLE: &str = "kizuna_store_unavailable_total";
pub const INTERNAL_ERRORS: &str = "kizuna_internal_errors_total";
/// Whether the gauges read from the database could be read at the last scrape (1) or not.
pub const GAUGES_READ: &str = "kizuna_gauges_read";

/// Review decisions, by `decision` (approve, reject, suspend, reinstate, approve-revision,
/// reject-revision, appeal-upheld, appeal-reinstated).
pub const REVIEW_DECISIONS: &str = "kizuna_review_decisions_total";
/// Revocations of a member's sessions, by `why` (sign-out: one session; everywhere,
/// suspension, deletion: all of the member's).
pub const SESSIONS_REVOKED: &str = "kizuna_sessions_revoked_total";
/// Accounts deleted (by the member, an operator's command or a replayed deletion).
pub const ACCOUNTS_DELETED: &str = "kizuna_accounts_deleted_total";
/// Data exports, by `stage` (requested, ready, failed).
pub const EXPORTS: &str = "kizuna_data_exports_total";
/// A chat message's commit to its delivery to an open stream, on whichever process holds
/// the stream (the commit's wall-clock time travels with the event).
pub const CHAT_DELIVERY_LAG: &str = "kizuna_chat_delivery_lag_seconds";
/// Safety cautions shown, by `kind` (once they exist).
pub const SAFETY_CAUTIONS: &str = "kizuna_safety_cautions_total";
