//! Behind a TLS-terminating proxy (`http.behind_tls_proxy`): which requests
//! came to the proxy over https. Only a proxy of `http.trusted_proxies` is
//! believed, and only its `X-Forwarded-Proto`; anyone else could write that
//! header.

use crate::error::ServerError;
use http::HeaderMap;
use std::net::IpAddr;

/// `X-Forwarded-Proto`: the scheme the client used to reach the proxy.
const FORWARDED_PROTO: &str = "x-forwarded-proto";

/// The addresses and networks whose forwarding headers are believed.
#[derive(Debug, Default)]
pub(crate) struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// Parses `10.0.0.5`, `10.0.0.0/8`, `::1` or `fd00::/8` entries.
    pub(crate) fn parse(entries: &[String]) -> Result<Self, ServerError> {
        entries
            .iter()
            .map(|entry| {
                let invalid = || {
                    ServerError::Config(format!(
                        "http.trusted_proxies: `{entry}` is neither an IP address nor a network (address/prefix)"
                    ))
                };
                let (address, prefix) = match entry.split_once('/') {
                    Some((address, prefix)) => (address, Some(prefix)),
                    None => (entry.as_str(), None),
                };
                let address: IpAddr = address.trim().parse().map_err(|_| invalid())?;
                let bits = if address.is_ipv4() { 32 } else { 128 };
                let prefix = match prefix {
                    Some(prefix) => prefix.trim().parse::<u8>().map_err(|_| invalid())?,
                    None => bits,
                };
                if prefix > bits {
                    return Err(invalid());
                }
                Ok((address, prefix))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    fn trusts(&self, peer: IpAddr) -> bool {
        let peer = peer.to_canonical();
        self.0.iter().any(|(network, prefix)| match (network, peer) {
            (IpAddr::V4(network), IpAddr::V4(peer)) => same_prefix(
                u128::from(u32::from(*network)) << 96,
                u128::from(u32::from(peer)) << 96,
                *prefix,
            ),
            (IpAddr::V6(network), IpAddr::V6(peer)) => {
                same_prefix(u128::from(*network), u128::from(peer), *prefix)
            }
            _ => false,
        })
    }

    /// True when `peer` is a trusted proxy and says the client reached it
    /// over https (the first, client-side, value of `X-Forwarded-Proto`).
    pub(crate) fn came_over_https(&self, peer: IpAddr, headers: &HeaderMap) -> bool {
        self.trusts(peer)
            && headers
                .get(FORWARDED_PROTO)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.split(',').next())
                .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"))
    }
}

/// Whether `a` and `b` (left-aligned in 128 bits) agree in their first
/// `prefix` bits.
fn same_prefix(a: u128, b: u128, prefix: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
    a & mask == b & mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn forwarded(proto: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(FORWARDED_PROTO, HeaderValue::from_static(proto));
        headers
    }

    #[test]
    fn only_a_trusted_proxy_saying_https_counts() {
        let proxies = TrustedProxies::parse(&["10.1.0.0/16".into(), "192.0.2.7".into(), "fd00::/8".into()])
            .expect("valid");
        let https = forwarded("https");
        for trusted in ["10.1.255.3", "192.0.2.7", "fd12::1", "::ffff:10.1.0.9"] {
            assert!(
                proxies.came_over_https(trusted.parse().expect("ip"), &https),
                "{trusted}"
            );
        }
        for untrusted in ["10.2.0.1", "192.0.2.8", "fe80::1", "127.0.0.1"] {
            assert!(
                !proxies.came_over_https(untrusted.parse().expect("ip"), &https),
                "{untrusted}"
            );
        }
        let proxy = "192.0.2.7".parse().expect("ip");
        assert!(proxies.came_over_https(proxy, &forwarded("HTTPS, http")));
        assert!(!proxies.came_over_https(proxy, &forwarded("http, https")));
        assert!(!proxies.came_over_https(proxy, &HeaderMap::new()));
    }

    #[test]
    fn a_zero_prefix_trusts_every_address_of_its_family() {
        let proxies = TrustedProxies::parse(&["0.0.0.0/0".into()]).expect("valid");
        assert!(proxies.came_over_https("203.0.113.9".parse().expect("ip"), &forwarded("https")));
        assert!(!proxies.came_over_https("2001:db8::1".parse().expect("ip"), &forwarded("https")));
    }

    #[test]
    fn malformed_entries_are_refused_by_name() {
        for entry in ["10.0.0.0/33", "::/129", "proxy.local", "10.0.0.1/x", ""] {
            let error = TrustedProxies::parse(&[entry.to_string()]).expect_err(entry);
            assert_eq!(
                error.to_string(),
                format!(
                    "invalid server configuration: http.trusted_proxies: `{entry}` is neither an IP address nor \
                     a network (address/prefix)"
                )
            );
        }
    }
}
