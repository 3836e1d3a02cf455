//! What the pushes say lives in kizuna-core (`kizuna_core::push`): a queued push is stored as its
//! kind and ids and rendered there, as a Flex Message in the member's language, when the worker
//! sends it (`line::push`). Here: the LIFF app's address.
//!
//! ```
//! use kizuna_server::line::messages::liff_url;
//! assert_eq!(liff_url("1234-abcd"), "https://liff.line.me/1234-abcd");
//! ```

/// The LIFF URL that opens the app inside LINE (its permanent link to the start screen).
pub fn liff_url(liff_id: &str) -> String {
    kizuna_core::push::permanent_link(liff_id, "")
}
