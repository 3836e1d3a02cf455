//! Names of uploaded files as the payload refers to them.
//!
//! ```
//! use kizuna_core::files::FileName;
//!
//! assert!(FileName::parse("0123456789abcdef0123456789abcdef").is_some());
//! assert!(FileName::parse("../etc/passwd").is_none());
//! ```

use std::fmt;

/// An opaque file name: 1 to 64 characters of `A-Z a-z 0-9 _ -`. The server's random ids
/// (32 lowercase hex digits) satisfy it, and so do the client's placeholders for photos that are
/// chosen but not uploaded yet; no path separator or dot can ever reach a file system.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileName(String);

impl FileName {
    /// The longest name, in characters.
    pub const MAX_LEN: usize = 64;

    /// The name, if it is one.
    pub fn parse(text: &str) -> Option<FileName> {
        let valid = !text.is_empty()
            && text.len() <= Self::MAX_LEN
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        valid.then(|| FileName(text.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_cannot_carry_paths_or_dots() {
        assert!(FileName::parse("0123456789abcdef0123456789abcdef").is_some());
        assert!(FileName::parse("local-3").is_some());
        for bad in [
            "",
            "../etc/passwd",
            "a/b",
            "a.jpg",
            "a b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(FileName::parse(bad).is_none(), "{bad:?}");
        }
    }
}
