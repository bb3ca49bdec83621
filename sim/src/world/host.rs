//! The parties of SPEC section 1 as a type, the world's addresses, and what
//! every host shares: its wall clock and the cloud's certificates.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use ftw_crypto::{CloudCerts, SimClock};
use rustls::pki_types::UnixTime;
use serde::{Deserialize, Serialize};

/// A party of the simulated system (SPEC section 1). Its name is the turmoil
/// host name, the trace's `host`, and how a fault plan writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Host {
    Phone,
    Box,
    Cloud,
}

impl Host {
    /// Every host, in declaration order.
    pub const ALL: [Host; 3] = [Host::Phone, Host::Box, Host::Cloud];

    pub const fn name(self) -> &'static str {
        match self {
            Host::Phone => "phone",
            Host::Box => "box",
            Host::Cloud => "cloud",
        }
    }

    /// The host's address inside its network (the cloud's is public).
    pub const fn ip(self) -> IpAddr {
        match self {
            Host::Phone => addr::PHONE,
            Host::Box => addr::BOX,
            Host::Cloud => addr::CLOUD,
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The turmoil host names of the three parties, for the places that take a `&str`.
pub const PHONE: &str = Host::Phone.name();
pub const BOX: &str = Host::Box.name();
pub const CLOUD: &str = Host::Cloud.name();

/// Addresses of the simulated world (documentation ranges of RFC 5737 outside,
/// RFC 1918 inside).
pub mod addr {
    use super::*;
    pub const CLOUD_V4: Ipv4Addr = Ipv4Addr::new(203, 0, 113, 10);
    pub const CLOUD: IpAddr = IpAddr::V4(CLOUD_V4);
    pub const PHONE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 1, 2));
    pub const BOX: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 2, 2));
    pub const NAT_WIFI: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    pub const NAT_CELL: IpAddr = IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1));
    pub const NAT_HOME: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
    /// The cloud's QUIC door (UDP) and WebSocket door (TCP) share the URL's port.
    pub const CLOUD_PORT: u16 = 443;
    pub fn cloud_door() -> SocketAddr {
        SocketAddr::new(CLOUD, CLOUD_PORT)
    }
    /// The cloud's door as a `SocketAddrV4` (the WebSocket dials take one).
    pub fn cloud_door_v4() -> std::net::SocketAddrV4 {
        std::net::SocketAddrV4::new(CLOUD_V4, CLOUD_PORT)
    }
}

/// NAT mapping idle timeout (SPEC section 6: 30 s), the phone model's constant.
pub const NAT_IDLE_TIMEOUT: Duration = Duration::from_millis(ftw_phone::consts::NAT_IDLE_TIMEOUT_MS);

/// `host`'s wall clock for rustls and quinn-proto (epoch + elapsed + the host's jumps).
pub fn sim_clock(host: &'static str) -> SimClock {
    SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(crate::world::time::wall_since_unix(host))))
}

/// The cloud's certificates (fixed seed: identical in every run).
pub fn cloud_certs() -> CloudCerts {
    CloudCerts::generate(ftw_crypto::consts::CERT_SEED_DEFAULT, &[addr::CLOUD])
}
