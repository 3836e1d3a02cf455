//! E-mail addresses, parsed by hand and strictly: work addresses are matched to employers by
//! domain, so what counts as the domain must be beyond doubt. ASCII only, which also keeps
//! internationalised-domain tables (idna) out of the wasm build.
//!
//! ```
//! use kizuna_core::email::EmailAddress;
//!
//! let email = EmailAddress::parse(" Jane.Doe@TSMC.com ").unwrap();
//! assert_eq!(email.as_str(), "jane.doe@tsmc.com");
//! assert_eq!(email.domain(), "tsmc.com");
//! assert!(EmailAddress::parse("jane@tsmc").is_none());
//! ```

use std::fmt;

/// A syntactically valid address, lower-cased.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EmailAddress {
    address: String,
    at: usize,
}

const MAX_LOCAL_LEN: usize = 64;
const MAX_DOMAIN_LEN: usize = 253;
const MAX_LABEL_LEN: usize = 63;

impl EmailAddress {
    /// Accepts `local@domain` where the local part is dot-separated atoms of letters, digits and
    /// ``!#$%&'*+-/=?^_`{|}~`` (no quoted strings, no comments) and the domain is at least two
    /// dot-separated labels of letters, digits and inner hyphens, the last one not all digits.
    pub fn parse(text: &str) -> Option<EmailAddress> {
        let address = normalise(text);
        let at = address.rfind('@')?;
        let (local, domain) = (&address[..at], &address[at + 1..]);
        (is_local_part(local) && is_domain(domain)).then_some(EmailAddress { address, at })
    }

    /// The address, lower-cased.
    pub fn as_str(&self) -> &str {
        &self.address
    }

    /// The part after the `@`.
    pub fn domain(&self) -> &str {
        &self.address[self.at + 1..]
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.address)
    }
}

/// An address as it is stored, compared and sent a code: trimmed and ASCII lower-cased. Only
/// ASCII letters change, because only ASCII addresses are valid ([`EmailAddress::parse`]): a
/// Unicode lower-casing would turn a look-alike such as the Kelvin sign (`\u{212A}`) into a `k`
/// and make an address the core refuses equal to one it accepts.
pub fn normalise(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

fn is_local_part(local: &str) -> bool {
    let atom_char = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b);
    !local.is_empty()
        && local.len() <= MAX_LOCAL_LEN
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(atom_char))
}

/// A DNS host name of at least two labels whose top label is not numeric (so no bare IPs).
pub(crate) fn is_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let label_ok = |label: &&str| {
        !label.is_empty()
            && label.len() <= MAX_LABEL_LEN
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    domain.len() <= MAX_DOMAIN_LEN
        && labels.len() >= 2
        && labels.iter().all(label_ok)
        && labels
            .last()
            .is_some_and(|top| !top.bytes().all(|b| b.is_ascii_digit()))
}

/// True when `domain` is `listed` or one of its subdomains (`mail.tsmc.com` for `tsmc.com`),
/// never for look-alikes such as `xtsmc.com` or `tsmc.com.evil.io`.
pub fn domain_is_within(domain: &str, listed: &str) -> bool {
    domain == listed
        || domain
            .strip_suffix(listed)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_work_addresses_parse_and_are_lower_cased() {
        let email = EmailAddress::parse(" Jane.Doe+kizuna@TSMC.com ").unwrap();
        assert_eq!(email.as_str(), "jane.doe+kizuna@tsmc.com");
        assert_eq!(email.domain(), "tsmc.com");
    }

    #[test]
    fn normalising_lower_cases_ascii_letters_only() {
        assert_eq!(normalise("  Jane.Doe@TSMC.com\n"), "jane.doe@tsmc.com");
        assert_eq!(normalise("JANÉ@TSMC.COM"), "janÉ@tsmc.com");
        assert_eq!(
            normalise("jane@\u{212A}izuna.com"),
            "jane@\u{212A}izuna.com"
        );
        assert!(EmailAddress::parse("jane@\u{212A}izuna.com").is_none());
    }

    #[test]
    fn malformed_addresses_are_refused() {
        let long_local = format!("{}@tsmc.com", "a".repeat(65));
        for bad in [
            "",
            "jane",
            "@tsmc.com",
            "jane@",
            "jane@tsmc",
            "jane@@tsmc.com",
            "jane.@tsmc.com",
            ".jane@tsmc.com",
            "ja..ne@tsmc.com",
            "jane@tsmc..com",
            "jane@-tsmc.com",
            "jane@tsmc-.com",
            "jane doe@tsmc.com",
            "\"jane\"@tsmc.com",
            "jane@tsmc.com.",
            "jane@127.0.0.1",
            "jané@tsmc.com",
            "jane@tsmç.com",
            "jane@[127.0.0.1]",
            &long_local,
        ] {
            assert!(EmailAddress::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_domain_contains_its_subdomains_but_not_look_alikes() {
        assert!(domain_is_within("tsmc.com", "tsmc.com"));
        assert!(domain_is_within("mail.tsmc.com", "tsmc.com"));
        assert!(!domain_is_within("xtsmc.com", "tsmc.com"));
        assert!(!domain_is_within("tsmc.com.evil.io", "tsmc.com"));
        assert!(!domain_is_within("com", "tsmc.com"));
    }
}
