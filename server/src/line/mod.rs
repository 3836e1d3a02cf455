//! The LINE Messaging API side of the server: pushes through an outbox (`push`), their texts
//! (`messages`) and the webhook (`webhook`). Identity (LINE Login's ID tokens) lives in
//! `crate::identity`.

pub mod messages;
pub mod push;
pub mod webhook;
