//! Naming a network: its interfaces and gateways, kept only as a hash.
//!
//! The canonical string is `if=<sorted, deduplicated interfaces joined by ','>;gw=<sorted,
//! deduplicated gateways joined by ','>`, and the network's id is the lower-case hex of its
//! SHA-256. The memory never sees the interfaces or gateways themselves. In the sim a
//! network is "which NAT the phone is behind": [`NetworkDesc::behind_nat`].

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// What the phone's network watch sees: interface names and gateway addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkDesc {
    pub interfaces: Vec<String>,
    pub gateways: Vec<String>,
}

impl NetworkDesc {
    pub fn new<I, G>(interfaces: I, gateways: G) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
        G: IntoIterator,
        G::Item: Into<String>,
    {
        Self { interfaces: interfaces.into_iter().map(Into::into).collect(), gateways: gateways.into_iter().map(Into::into).collect() }
    }

    /// The sim's network: one interface behind the NAT named `nat` (its gateway).
    pub fn behind_nat(nat: &str) -> Self {
        Self::new(["en0"], [nat])
    }

    /// The canonical string: order and duplicates of the inputs do not matter.
    pub fn canonical(&self) -> String {
        let mut ifs: Vec<&str> = self.interfaces.iter().map(String::as_str).collect();
        let mut gws: Vec<&str> = self.gateways.iter().map(String::as_str).collect();
        ifs.sort_unstable();
        ifs.dedup();
        gws.sort_unstable();
        gws.dedup();
        format!("if={};gw={}", ifs.join(","), gws.join(","))
    }

    pub fn id(&self) -> NetworkId {
        NetworkId::of(self)
    }
}

/// A network as the memory keeps it: the hex SHA-256 of its canonical string.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NetworkId(String);

impl NetworkId {
    pub fn of(desc: &NetworkDesc) -> Self {
        let digest = Sha256::digest(desc.canonical().as_bytes());
        let id = Self(hex::encode(digest));
        debug_assert_eq!(id.0.len(), 64);
        id
    }

    pub fn as_hex(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NetworkId {
    /// The first 8 hex digits, enough to tell networks apart in a trace.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0[..8.min(self.0.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_ignores_order_and_duplicates() {
        let a = NetworkDesc::new(["pdp_ip0", "en0"], ["10.0.0.1", "192.168.1.1"]);
        let b = NetworkDesc::new(["en0", "pdp_ip0", "en0"], ["192.168.1.1", "10.0.0.1"]);
        assert_eq!(a.canonical(), "if=en0,pdp_ip0;gw=10.0.0.1,192.168.1.1");
        assert_eq!(a.id(), b.id());
    }

    #[test]
    fn id_is_sha256_hex_and_hides_the_names() {
        let d = NetworkDesc::behind_nat("nat-a");
        let id = d.id();
        assert_eq!(id.as_hex().len(), 64);
        assert!(!id.as_hex().contains("nat-a"));
        // sha256("if=en0;gw=nat-a") computed independently of this module's canonical().
        let expect = hex::encode(Sha256::digest(b"if=en0;gw=nat-a"));
        assert_eq!(id.as_hex(), expect);
        assert_ne!(id, NetworkDesc::behind_nat("nat-b").id());
    }
}
