//! kizuna-server: the spec's API on poem + sea-orm, verified LINE identity, private files, an
//! ipx-compatible image proxy and the built web app. See `configuration` for the operator
//! contract and `startup` for how it is wired.

pub mod access;
pub mod after_commit;
pub mod chat;
pub mod cleanup;
pub mod cli;
pub mod client_address;
pub mod clock;
pub mod compress;
pub mod configuration;
pub mod connections;
pub mod data_export;
pub mod deletions;
pub mod error;
pub mod extract;
pub mod file_store;
pub mod identity;
pub mod images;
pub mod instance;
pub mod line;
pub mod locale;
pub mod mail;
pub mod matchmaking;
pub mod metric_names;
pub mod middleware;
pub mod mock_line;
pub mod mock_review;
pub mod monitoring;
pub mod photo_backfill;
pub mod rate_limit;
pub mod readiness;
pub mod relay;
pub mod restore;
pub mod routes;
pub mod security_headers;
pub mod startup;
pub mod state;
pub mod static_site;
pub mod storage;
pub mod telemetry;
pub mod usecases;
pub mod we_met;
