//! Seeds: one run seed, and a named `rand_chacha` stream for every consumer.
//!
//! A stream's key is SHA-256 over a fixed tag, the run seed and the stream's
//! name, so adding a host or a model (a new name) never changes the bytes of
//! any other stream. Names are dotted paths: `net`, `host.phone.crypto`,
//! `model.box.site`, `fleet.reactor.2.cid`.

use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The seed of one run. Everything random in a run derives from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunSeed(pub u64);

impl RunSeed {
    /// 32 bytes for the stream called `name` (`ftw_crypto::derive_seed`, the one
    /// derivation every part of the project uses).
    pub fn key(self, name: &str) -> [u8; 32] {
        ftw_crypto::derive_seed(self.0, name)
    }

    /// The shareable crypto RNG of stream `name` (for rustls and quinn-proto).
    pub fn crypto(self, name: &str) -> ftw_crypto::SeededRng {
        ftw_crypto::SeededRng::for_host(self.0, name)
    }

    /// The ChaCha20 stream called `name`.
    pub fn stream(self, name: &str) -> ChaCha20Rng {
        ChaCha20Rng::from_seed(self.key(name))
    }

    /// A u64 sub-seed called `name` (for APIs that take a u64, such as turmoil's).
    pub fn sub_seed(self, name: &str) -> u64 {
        let k = self.key(name);
        u64::from_be_bytes(k[..8].try_into().expect("8 bytes"))
    }
}

/// Parse a seed as a user types it: decimal, or hex with `0x`.
pub fn parse_seed(text: &str) -> Result<RunSeed, String> {
    let t = text.trim();
    let parsed = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) { u64::from_str_radix(hex, 16) } else { t.parse::<u64>() };
    parsed.map(RunSeed).map_err(|_| format!("bad seed {text:?}: expected a whole number from 0 to 18446744073709551615 (decimal, or hex with 0x)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::RngCore;

    #[test]
    fn streams_are_independent_and_stable() {
        let s = RunSeed(7);
        let a1 = s.stream("host.phone").next_u64();
        let a2 = s.stream("host.phone").next_u64();
        let b = s.stream("host.box").next_u64();
        let other = RunSeed(8).stream("host.phone").next_u64();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, other);
    }

    #[test]
    fn seeds_parse_or_explain() {
        assert_eq!(parse_seed("42"), Ok(RunSeed(42)));
        assert_eq!(parse_seed("0x2a"), Ok(RunSeed(42)));
        let e = parse_seed("-1").unwrap_err();
        assert!(e.contains("\"-1\""), "{e}");
        assert!(parse_seed("12abc").is_err());
    }
}
