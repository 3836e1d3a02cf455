//! The LINE Messaging API side of the server: pushes through an outbox (`push`), their texts
//! (`messages`), the message type and LINE's limits both use (here), and the webhook (`webhook`).
//! Identity (LINE Login's ID tokens) lives in
//! `crate::identity`.

pub mod deauthorize;
pub mod messages;
pub mod push;
pub mod webhook;

use serde::{Deserialize, Serialize};

/// LINE's limits (messages in one push, characters of a text), with their source, in the core.
pub use kizuna_core::push::{MAX_MESSAGES, MAX_TEXT_CHARS};

/// One message object of a push (only text so far): what `messages` writes and `push` sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    Text { text: String },
}

impl Message {
    pub fn text(text: impl Into<String>) -> Message {
        Message::Text { text: text.into() }
    }
}
