//! sea-orm entities, one module per table (see the migration for the schema).

pub mod file;
pub mod profile;
pub mod profile_condition;
pub mod profile_photo;
pub mod profile_tag;
pub mod review_history;
pub mod route_rule;
pub mod session;
pub mod user;
