//! sea-orm entities, one module per table (see the migration for the schema).

pub mod block;
pub mod chat_message;
pub mod email_code;
pub mod file;
pub mod introduction;
pub mod introduction_day;
pub mod kept_photo_hash;
pub mod line_friendship;
pub mod line_webhook_event;
pub mod match_pool;
pub mod pair_match;
pub mod profile;
pub mod profile_condition;
pub mod profile_photo;
pub mod profile_submission;
pub mod profile_tag;
pub mod push_outbox;
pub mod reaction;
pub mod report;
pub mod review_claim;
pub mod review_history;
pub mod reviewer;
pub mod route_rule;
pub mod session;
pub mod user;
