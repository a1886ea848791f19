//! `--listen` and `--url`: where the receiver listens, and the URL the agent
//! is given to reach it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Where the receiver listens unless `--listen` says otherwise.
const DEFAULT_LISTEN: &str = "127.0.0.1:0";

/// `--listen`: a socket address.
pub(super) fn listen_address(given: Option<&str>) -> Result<SocketAddr, String> {
    let text = given.unwrap_or(DEFAULT_LISTEN);
    text.trim().parse().map_err(|_| {
        format!("--listen `{text}` is not an address: give IP:PORT, e.g. 127.0.0.1:8000 or [::1]:0")
    })
}

/// `--url`: an absolute http(s) URL.
pub(super) fn webhook_url(given: &str) -> Result<String, String> {
    match reqwest::Url::parse(given.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(url.to_string()),
        _ => Err(format!("--url `{given}` is not an http or https URL")),
    }
}

/// The address to give for the bound one: an unspecified address (listening
/// on every interface) is reached on the loopback of its family.
pub(super) fn reachable(bound: SocketAddr) -> SocketAddr {
    match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), bound.port())
        }
        _ => bound,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_urls() {
        assert_eq!(listen_address(None), Ok("127.0.0.1:0".parse().expect("addr")));
        assert!(listen_address(Some("localhost")).is_err());
        assert_eq!(
            reachable("0.0.0.0:8000".parse().expect("addr")).to_string(),
            "127.0.0.1:8000"
        );
        assert_eq!(
            reachable("[::]:8000".parse().expect("addr")).to_string(),
            "[::1]:8000"
        );
        assert_eq!(
            webhook_url("https://tunnel.example/hook"),
            Ok("https://tunnel.example/hook".to_string())
        );
        assert!(webhook_url("ftp://tunnel.example/").is_err());
        assert!(webhook_url("/hook").is_err());
    }
}
