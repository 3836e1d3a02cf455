//! The address a request came from, for the limits keyed on it.
//!
//! Behind a reverse proxy every request's peer is the proxy, so every anonymous caller would
//! share one allowance. `KIZUNA_TRUSTED_PROXY_HEADER` names the header the operator's proxy sets
//! (`X-Forwarded-For`, `X-Real-IP`, `CF-Connecting-IP`, …): the address is the last one in it,
//! the one the proxy itself appended (earlier entries are whatever the client claimed). Without
//! the setting the header is ignored, since any client can send it; with it, the server must be
//! reachable only through that proxy.

use std::net::IpAddr;

use poem::{Request, http::HeaderName};

/// Reads a header name as configured; an invalid one stops the start.
pub fn parse_header_name(value: &str) -> anyhow::Result<HeaderName> {
    HeaderName::from_bytes(value.trim().as_bytes()).map_err(|_| {
        anyhow::anyhow!("KIZUNA_TRUSTED_PROXY_HEADER must be an HTTP header name, not {value:?}")
    })
}

/// The client's address: from the trusted proxy header when one is configured and it holds an
/// address, else the connection's peer. None only for a peer that is no IP socket.
pub fn client_ip(req: &Request, trusted_header: Option<&HeaderName>) -> Option<IpAddr> {
    let from_proxy = trusted_header.and_then(|name| {
        let last = req.headers().get_all(name).iter().next_back()?;
        let entry = last.to_str().ok()?.rsplit(',').next()?.trim();
        parse_address(entry)
    });
    from_proxy.or_else(|| req.remote_addr().as_socket_addr().map(|a| a.ip()))
}

/// An address as proxies write it: bare, with a port, or bracketed IPv6.
fn parse_address(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<std::net::SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| {
            entry
                .strip_prefix('[')?
                .strip_suffix(']')?
                .parse::<IpAddr>()
                .ok()
        })
}

/// The key of a limit counted per client address.
pub fn address_key(req: &Request, trusted_header: Option<&HeaderName>) -> String {
    match client_ip(req, trusted_header) {
        Some(ip) => format!("ip:{ip}"),
        None => "ip:unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(header: Option<(&str, &str)>) -> Request {
        let mut builder = Request::builder();
        if let Some((name, value)) = header {
            builder = builder.header(name, value);
        }
        builder.finish()
    }

    #[test]
    fn the_last_address_the_trusted_proxy_wrote_is_the_clients() {
        let xff = parse_header_name("X-Forwarded-For").unwrap();
        let ip = |value: &str| client_ip(&request(Some(("x-forwarded-for", value))), Some(&xff));
        assert_eq!(ip("203.0.113.7"), Some("203.0.113.7".parse().unwrap()));
        assert_eq!(
            ip("10.9.9.9, 198.51.100.2, 203.0.113.7"),
            Some("203.0.113.7".parse().unwrap()),
            "what the client claimed before the proxy does not count"
        );
        assert_eq!(ip("203.0.113.7:4711"), Some("203.0.113.7".parse().unwrap()));
        assert_eq!(ip("[2001:db8::1]"), Some("2001:db8::1".parse().unwrap()));
        assert_eq!(ip("2001:db8::1"), Some("2001:db8::1".parse().unwrap()));
        // Not an address: the peer (none in a request built without a connection).
        assert_eq!(ip("unknown"), None);
    }

    #[test]
    fn without_the_setting_the_header_is_ignored() {
        let req = request(Some(("x-forwarded-for", "203.0.113.7")));
        assert_eq!(client_ip(&req, None), None);
        assert_eq!(address_key(&req, None), "ip:unknown");
    }

    #[test]
    fn a_header_name_that_is_no_header_name_is_refused() {
        assert!(parse_header_name("X-Real-IP").is_ok());
        assert!(parse_header_name("not a header").is_err());
    }
}
