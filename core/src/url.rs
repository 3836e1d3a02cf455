//! HTTPS links (the review link of a verification), checked by hand to keep `url`/`idna` out of
//! the wasm build.
//!
//! ```
//! use kizuna_core::url::{HttpsUrl, UrlError};
//!
//! let link = HttpsUrl::parse("HTTPS://www.LinkedIn.com/in/mei").unwrap();
//! assert_eq!(link.as_str(), "https://www.linkedin.com/in/mei");
//! assert_eq!(HttpsUrl::parse("http://example.com"), Err(UrlError::NotHttps));
//! assert_eq!(HttpsUrl::parse("https://user:pw@example.com"), Err(UrlError::Invalid));
//! ```

use crate::email::is_domain;
use std::fmt;

/// An absolute `https://` URL with a DNS host name, an optional port, no credentials, and no
/// white space or control characters anywhere.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HttpsUrl(String);

/// Why a text is no [`HttpsUrl`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlError {
    /// Some other scheme, or none.
    NotHttps,
    /// The scheme is https but the rest is not a usable URL.
    Invalid,
}

impl HttpsUrl {
    /// The longest link accepted, in bytes.
    pub const MAX_LEN: usize = 500;

    /// Checks a link, trimmed; the scheme and host come back lower-cased.
    pub fn parse(text: &str) -> Result<HttpsUrl, UrlError> {
        let text = text.trim();
        // A byte search rather than `find("://")`, whose substring searcher costs the wasm ~1 KB.
        let scheme_end = text
            .as_bytes()
            .windows(3)
            .position(|window| window == b"://")
            .ok_or(UrlError::NotHttps)?;
        if !text[..scheme_end].eq_ignore_ascii_case("https") {
            return Err(UrlError::NotHttps);
        }
        if text.len() > Self::MAX_LEN || text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UrlError::Invalid);
        }
        let rest = &text[scheme_end + 3..];
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if authority.contains('@') {
            return Err(UrlError::Invalid);
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        let port_ok = port.is_none_or(|p| {
            !p.is_empty()
                && p.len() <= 5
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n > 0)
        });
        if !port_ok || !is_domain(&host.to_ascii_lowercase()) {
            return Err(UrlError::Invalid);
        }
        let normalised = format!(
            "https://{}{}",
            authority.to_ascii_lowercase(),
            &rest[authority_end..]
        );
        Ok(HttpsUrl(normalised))
    }

    /// The normalised link.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HttpsUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_links_with_paths_and_queries_are_accepted() {
        let url = HttpsUrl::parse("HTTPS://www.LinkedIn.com/in/jane-doe?trk=x#top").unwrap();
        assert_eq!(
            url.as_str(),
            "https://www.linkedin.com/in/jane-doe?trk=x#top"
        );
        assert!(HttpsUrl::parse("https://example.com:8443").is_ok());
    }

    #[test]
    fn other_schemes_are_not_https() {
        for bad in [
            "http://example.com",
            "javascript:alert(1)",
            "ftp://example.com",
            "example.com",
            "data:text/html,x",
        ] {
            assert_eq!(HttpsUrl::parse(bad), Err(UrlError::NotHttps), "{bad:?}");
        }
    }

    #[test]
    fn broken_https_links_are_invalid() {
        for bad in [
            "https://",
            "https://localhost",
            "https://user:pw@example.com",
            "https://exa mple.com",
            "https://example.com:0",
            "https://example.com:99999",
            "https://1.2.3.4/",
            "https://example.com/\u{7}",
            "https://ex_ample.com",
        ] {
            assert_eq!(HttpsUrl::parse(bad), Err(UrlError::Invalid), "{bad:?}");
        }
    }
}
