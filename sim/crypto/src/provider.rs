//! A rustls `CryptoProvider` whose every random byte comes from a [`SeededRng`], and the sim's
//! wall clock as a rustls `TimeProvider` and a quinn-proto `TimeSource`.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rustls::crypto::{ActiveKeyExchange, CryptoProvider, GetRandomFailed, SecureRandom, SharedSecret, SupportedKxGroup};
use rustls::pki_types::UnixTime;
use rustls::time_provider::TimeProvider;
use rustls::{Error, NamedGroup, PeerMisbehaved};
use x25519_dalek::{PublicKey, StaticSecret};

use crate::consts::X25519_LEN;
use crate::rng::SeededRng;

/// The sim's wall clock as the caller supplies it (seconds resolution, as rustls wants).
pub type WallClock = Arc<dyn Fn() -> UnixTime + Send + Sync>;

/// The rustls `CryptoProvider` of one host: *ring*'s algorithms, with
/// * `secure_random` reading `rng` (client/server randoms, legacy session ids, extension order
///   seed, ticket nonces and age-add);
/// * `kx_groups` = one X25519 group whose `start()` draws its secret from `rng` (ring's own group
///   makes its own `SystemRandom`);
/// * TLS 1.3 cipher suites only, `TLS13_AES_128_GCM_SHA256` first (QUIC's initial suite).
///
/// Signing keys come from *ring*'s key provider: use Ed25519 keys only (deterministic
/// signatures; ring's ECDSA and RSA-PSS draw from `SystemRandom`).
///
/// rustls wants `&'static` randomness and groups: each call leaks two small objects (about
/// 0.5 KiB with the ChaCha state they keep alive). Build one provider per host per run and share
/// it between that host's configs.
pub fn crypto_provider(rng: &SeededRng) -> Arc<CryptoProvider> {
    let ring = rustls::crypto::ring::default_provider();
    let secure_random: &'static SeededSecureRandom = Box::leak(Box::new(SeededSecureRandom { rng: rng.clone() }));
    let x25519: &'static SeededX25519 = Box::leak(Box::new(SeededX25519 { rng: rng.clone() }));
    use rustls::crypto::ring::cipher_suite as suites;
    Arc::new(CryptoProvider {
        cipher_suites: vec![suites::TLS13_AES_128_GCM_SHA256, suites::TLS13_AES_256_GCM_SHA384, suites::TLS13_CHACHA20_POLY1305_SHA256],
        kx_groups: vec![x25519],
        signature_verification_algorithms: ring.signature_verification_algorithms,
        secure_random,
        key_provider: ring.key_provider,
    })
}

/// rustls `SecureRandom` reading a [`SeededRng`].
pub struct SeededSecureRandom {
    rng: SeededRng,
}

impl fmt::Debug for SeededSecureRandom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededSecureRandom").field("rng", &self.rng).finish()
    }
}

impl SecureRandom for SeededSecureRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        self.rng.fill(buf);
        Ok(())
    }
}

/// X25519 (RFC 7748) key exchange whose ephemeral secret is 32 bytes drawn from a [`SeededRng`].
pub struct SeededX25519 {
    rng: SeededRng,
}

impl fmt::Debug for SeededX25519 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededX25519").field("rng", &self.rng).finish()
    }
}

impl SupportedKxGroup for SeededX25519 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let mut secret_bytes = [0u8; X25519_LEN];
        self.rng.fill(&mut secret_bytes);
        let secret = StaticSecret::from(secret_bytes);
        let public = PublicKey::from(&secret);
        Ok(Box::new(X25519Exchange { secret, public }))
    }

    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

struct X25519Exchange {
    secret: StaticSecret,
    public: PublicKey,
}

impl ActiveKeyExchange for X25519Exchange {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        let peer: [u8; X25519_LEN] = peer_pub_key.try_into().map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        let shared = self.secret.diffie_hellman(&PublicKey::from(peer));
        // RFC 7748 section 6.1 / RFC 8446 section 7.4.2: reject the all-zero output of a
        // small-order peer key.
        if !shared.was_contributory() {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        Ok(SharedSecret::from(&shared.as_bytes()[..]))
    }

    fn pub_key(&self) -> &[u8] {
        self.public.as_bytes()
    }

    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

/// The sim's wall clock for rustls (`TimeProvider`: certificate validity, ticket ages) and
/// quinn-proto (`TimeSource`: validation and retry token issue times).
#[derive(Clone)]
pub struct SimClock {
    now: WallClock,
}

impl SimClock {
    /// Wraps the caller's wall-clock closure.
    pub fn new(now: WallClock) -> Self {
        Self { now }
    }

    /// A clock that always reads `unix_s` (tests, fixed-time tools).
    pub fn fixed(unix_s: u64) -> Self {
        Self::new(Arc::new(move || UnixTime::since_unix_epoch(Duration::from_secs(unix_s))))
    }

    /// The current sim wall time.
    pub fn now(&self) -> UnixTime {
        (self.now)()
    }

    /// As an `Arc<dyn TimeProvider>` for `ConfigBuilder::builder_with_details`.
    pub fn time_provider(&self) -> Arc<dyn TimeProvider> {
        Arc::new(self.clone())
    }

    /// As an `Arc<dyn TimeSource>` for `quinn_proto::ServerConfig::time_source`.
    pub fn time_source(&self) -> Arc<dyn quinn_proto::TimeSource> {
        Arc::new(self.clone())
    }
}

impl fmt::Debug for SimClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimClock").field("now_unix_s", &self.now().as_secs()).finish()
    }
}

impl TimeProvider for SimClock {
    fn current_time(&self) -> Option<UnixTime> {
        Some(self.now())
    }
}

impl quinn_proto::TimeSource for SimClock {
    fn now(&self) -> SystemTime {
        // A pure conversion of the sim's time; no clock is read.
        SystemTime::UNIX_EPOCH + Duration::from_secs(SimClock::now(self).as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x25519_agrees_and_is_a_function_of_the_seed() {
        let a = SeededX25519 { rng: SeededRng::from_seed([1; 32]) };
        let b = SeededX25519 { rng: SeededRng::from_seed([2; 32]) };
        let ka = a.start().unwrap();
        let kb = b.start().unwrap();
        let (pa, pb) = (ka.pub_key().to_vec(), kb.pub_key().to_vec());
        assert_ne!(pa, pb);
        let sa = ka.complete(&pb).unwrap();
        let sb = kb.complete(&pa).unwrap();
        assert_eq!(sa.secret_bytes(), sb.secret_bytes());
        // Same seed, same share.
        let again = SeededX25519 { rng: SeededRng::from_seed([1; 32]) };
        assert_eq!(again.start().unwrap().pub_key(), &pa[..]);
    }

    #[test]
    fn x25519_rejects_bad_shares() {
        let a = SeededX25519 { rng: SeededRng::from_seed([1; 32]) };
        assert!(a.start().unwrap().complete(&[9u8; 31]).is_err());
        // The all-zero point has small order: the output is all zeros.
        assert!(a.start().unwrap().complete(&[0u8; 32]).is_err());
    }

    #[test]
    fn secure_random_follows_the_stream() {
        let rng = SeededRng::from_seed([5; 32]);
        let provider = crypto_provider(&rng);
        let mut got = [0u8; 16];
        provider.secure_random.fill(&mut got).unwrap();
        let mut want = [0u8; 16];
        SeededRng::from_seed([5; 32]).fill(&mut want);
        assert_eq!(got, want);
        assert!(provider.cipher_suites.iter().all(|s| s.version() == &rustls::version::TLS13));
        assert_eq!(provider.kx_groups.len(), 1);
    }
}
