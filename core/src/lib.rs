//! Kizuna's domain, shared by the server (natively) and the LIFF web app (through kizuna-wasm).
//!
//! Every rule that both sides apply lives here exactly once: the client runs it for instant
//! feedback, the server runs the same code on the same payload because a client check is no
//! security control. The crate is pure: no I/O, no clock (callers pass `today`), no framework.

#![recursion_limit = "256"]

pub mod catalogue;
pub mod conditions;
pub mod date;
pub mod draft;
pub mod email;
pub mod error_code;
pub mod files;
pub mod line;
pub mod profile;
pub mod review;
pub mod rules;
pub mod url;

mod choices;

pub use choices::*;
