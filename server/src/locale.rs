//! The member's language for what the server itself writes to them (LINE pushes, e-mails):
//! kizuna-core's [`Locale`] (zh-TW, en or ja, picked as the web app picks it, from the one table in
//! `core/data/locales.json`).
//!
//! The web app sends its current locale as `Accept-Language`; login stores it on `users.locale`
//! (see `storage::locale`), so a push written later by a reviewer's decision speaks the member's
//! language.

pub use kizuna_core::locale::Locale;

/// The locale of a request's `Accept-Language`, if it names one of ours.
pub fn of_request(req: &poem::Request) -> Option<Locale> {
    req.headers()
        .get(poem::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(Locale::from_accept_language)
}
