//! The webhook URL check. Whatever it accepts must be an http(s) URL naming a
//! host that is not, by the standard library's own reading, loopback, private,
//! link-local, unspecified or multicast, also when written as an IPv4-mapped
//! IPv6 address or a host name of the loopback domain.

use app::push::PushConfig;
use std::net::IpAddr;
use url::{Host, Url};

pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if PushConfig::default().check_url(&text).is_err() {
        return;
    }
    let url = Url::parse(&text).expect("an accepted URL parses");
    assert!(matches!(url.scheme(), "http" | "https"), "{text}");
    match url.host().expect("an accepted URL names a host") {
        Host::Ipv4(ip) => assert!(!obviously_internal(IpAddr::V4(ip)), "{text}"),
        Host::Ipv6(ip) => {
            assert!(!obviously_internal(IpAddr::V6(ip)), "{text}");
            if let Some(v4) = ip.to_ipv4_mapped() {
                assert!(!obviously_internal(IpAddr::V4(v4)), "{text}");
            }
        }
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            assert!(name != "localhost" && !name.ends_with(".localhost"), "{text}");
        }
    }
}

fn obviously_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_multicast()
        }
        IpAddr::V6(ip) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
    }
}
