//! rustls configurations for TLS 1.3 over TCP (the WebSocket door) and the pieces QUIC shares:
//! a seeded session ticketer and a client session store kept across reconnects within one run.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ring::aead;
use rustls::client::{ClientSessionMemoryCache, ClientSessionStore, Resumption};
use rustls::crypto::CryptoProvider;
use rustls::server::{ProducesTickets, ServerSessionMemoryCache, StoresServerSessions};

use crate::certs::CloudCerts;
use crate::consts::{
    CLIENT_SESSION_STORE_LEN, SERVER_SESSION_STORE_LEN, TICKET_KEY_NAME_LEN, TICKET_LIFETIME_S, TICKET_NONCE_LEN, TICKET_PLAIN_LEN_MAX, TICKET_TAG_LEN,
};
use crate::provider::SimClock;
use crate::rng::SeededRng;

/// Session tickets sealed with ChaCha20-Poly1305 under a key drawn from a [`SeededRng`]; each
/// ticket's nonce is drawn from the same stream. Replaces rustls' default ticketer, whose keys
/// and nonces come from `SystemRandom`. Share one ticketer between every server (reactor) that
/// must accept another's tickets. Keys do not rotate (see `TICKET_LIFETIME_S`).
pub struct SeededTicketer {
    rng: SeededRng,
    key: aead::LessSafeKey,
    key_name: [u8; TICKET_KEY_NAME_LEN],
    /// Longest ticket produced so far: longer inputs to `decrypt` are refused at once (as in
    /// rustls' own ticketer).
    ciphertext_len_max: AtomicUsize,
}

impl SeededTicketer {
    /// A ticketer whose key (32 bytes) and key name (16 bytes) are the next 48 bytes of `rng`;
    /// later tickets draw their nonces from `rng` too.
    pub fn new(rng: &SeededRng) -> Arc<Self> {
        let mut key_bytes = [0u8; 32];
        rng.fill(&mut key_bytes);
        let mut key_name = [0u8; TICKET_KEY_NAME_LEN];
        rng.fill(&mut key_name);
        let key = aead::UnboundKey::new(&aead::CHACHA20_POLY1305, &key_bytes).expect("32 bytes is a ChaCha20-Poly1305 key");
        Arc::new(Self { rng: rng.clone(), key: aead::LessSafeKey::new(key), key_name, ciphertext_len_max: AtomicUsize::new(0) })
    }
}

impl fmt::Debug for SeededTicketer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededTicketer").field("rng", &self.rng).finish_non_exhaustive()
    }
}

impl ProducesTickets for SeededTicketer {
    fn enabled(&self) -> bool {
        true
    }

    fn lifetime(&self) -> u32 {
        TICKET_LIFETIME_S
    }

    /// `key_name || nonce || AEAD(plain, aad = key_name)`.
    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        if plain.len() > TICKET_PLAIN_LEN_MAX {
            return None;
        }
        let mut nonce = [0u8; TICKET_NONCE_LEN];
        self.rng.fill(&mut nonce);
        let mut out = Vec::with_capacity(TICKET_KEY_NAME_LEN + TICKET_NONCE_LEN + plain.len() + TICKET_TAG_LEN);
        out.extend_from_slice(&self.key_name);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(plain);
        let header_len = TICKET_KEY_NAME_LEN + TICKET_NONCE_LEN;
        let tag =
            self.key.seal_in_place_separate_tag(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(self.key_name), &mut out[header_len..]).ok()?;
        out.extend_from_slice(tag.as_ref());
        assert_eq!(out.len(), header_len + plain.len() + TICKET_TAG_LEN);
        self.ciphertext_len_max.fetch_max(out.len(), Ordering::Relaxed);
        Some(out)
    }

    fn decrypt(&self, cipher: &[u8]) -> Option<Vec<u8>> {
        let header_len = TICKET_KEY_NAME_LEN + TICKET_NONCE_LEN;
        if cipher.len() < header_len + TICKET_TAG_LEN || cipher.len() > self.ciphertext_len_max.load(Ordering::Relaxed) {
            return None;
        }
        let (key_name, rest) = cipher.split_at(TICKET_KEY_NAME_LEN);
        // Constant-time comparison of the key name (no early exit).
        let differs = key_name.iter().zip(self.key_name.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if differs != 0 {
            return None;
        }
        let (nonce, sealed) = rest.split_at(TICKET_NONCE_LEN);
        let nonce = aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut buf = sealed.to_vec();
        let plain_len = self.key.open_in_place(nonce, aead::Aad::from(self.key_name), &mut buf).ok()?.len();
        buf.truncate(plain_len);
        Some(buf)
    }
}

/// Whether a client resumes sessions.
#[derive(Clone, Debug)]
pub enum ClientResumption {
    /// Full handshake every time, nothing stored (the phone).
    Disabled,
    /// Resume from this store; over QUIC also send 0-RTT (the box). Keep the store across
    /// reconnects within one run and make a fresh one per run ([`new_client_session_store`]).
    Store(Arc<dyn ClientSessionStore>),
}

/// A fresh, empty client session store (rustls' in-memory cache of
/// `CLIENT_SESSION_STORE_LEN` server names; its eviction order is insertion order, so it is
/// deterministic).
pub fn new_client_session_store() -> Arc<dyn ClientSessionStore> {
    Arc::new(ClientSessionMemoryCache::new(CLIENT_SESSION_STORE_LEN))
}

/// A fresh, empty server session store for stateful resumption (rustls' in-memory cache of
/// `SERVER_SESSION_STORE_LEN` sessions; session ids come from the provider's seeded
/// `secure_random`). QUIC uses it because rustls allows 0-RTT only with stateful resumption
/// (RFC 8446 section 8.1). Share one store between all reactors of one cloud, fresh per run.
pub fn new_server_session_store() -> Arc<dyn StoresServerSessions> {
    ServerSessionMemoryCache::new(SERVER_SESSION_STORE_LEN)
}

/// A server session store the cloud can lose, as a restart loses its memory: rustls'
/// in-memory cache ([`new_server_session_store`]) behind a swap. After [`forget`](Self::forget)
/// no ticket issued before resumes, so a client's 0-RTT is rejected and it makes a full
/// handshake (RFC 8446 section 4.2.10).
#[derive(Debug)]
pub struct ForgetfulSessionStore {
    inner: std::sync::Mutex<Arc<dyn StoresServerSessions>>,
}

impl ForgetfulSessionStore {
    pub fn new() -> Arc<ForgetfulSessionStore> {
        Arc::new(ForgetfulSessionStore { inner: std::sync::Mutex::new(new_server_session_store()) })
    }

    /// Lose every stored session.
    pub fn forget(&self) {
        *self.inner.lock().expect("single-threaded") = new_server_session_store();
    }

    fn now(&self) -> Arc<dyn StoresServerSessions> {
        self.inner.lock().expect("single-threaded").clone()
    }
}

impl StoresServerSessions for ForgetfulSessionStore {
    fn put(&self, key: Vec<u8>, value: Vec<u8>) -> bool {
        self.now().put(key, value)
    }
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.now().get(key)
    }
    fn take(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.now().take(key)
    }
    fn can_cache(&self) -> bool {
        true
    }
}

/// Builds a TLS 1.3-only server configuration (shared by TCP and QUIC), no resumption set.
pub(crate) fn server_config_inner(provider: &Arc<CryptoProvider>, clock: &SimClock, certs: &CloudCerts, alpn: &[&[u8]]) -> rustls::ServerConfig {
    let mut config = rustls::ServerConfig::builder_with_details(provider.clone(), clock.time_provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("the kit's provider supports TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(certs.server_chain(), certs.server_key())
        .expect("the kit's Ed25519 key matches its certificate");
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    config.key_log = Arc::new(crate::keylog::RunKeyLog);
    config
}

/// Builds a TLS 1.3-only client configuration trusting only the kit's CA.
pub(crate) fn client_config_inner(
    provider: &Arc<CryptoProvider>,
    clock: &SimClock,
    certs: &CloudCerts,
    alpn: &[&[u8]],
    resumption: &ClientResumption,
) -> rustls::ClientConfig {
    let mut config = rustls::ClientConfig::builder_with_details(provider.clone(), clock.time_provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("the kit's provider supports TLS 1.3")
        .with_root_certificates(certs.root_store())
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    config.resumption = match resumption {
        ClientResumption::Disabled => Resumption::disabled(),
        ClientResumption::Store(store) => Resumption::store(store.clone()),
    };
    config.key_log = Arc::new(crate::keylog::RunKeyLog);
    config
}

/// Server configuration for TLS 1.3 over TCP (the WebSocket door): the cloud's certificate,
/// ALPN `alpn` (e.g. `[b"http/1.1"]`), tickets from `ticketer`, no early data.
pub fn tls_server_config(
    provider: &Arc<CryptoProvider>,
    clock: &SimClock,
    certs: &CloudCerts,
    alpn: &[&[u8]],
    ticketer: Arc<dyn ProducesTickets>,
) -> Arc<rustls::ServerConfig> {
    let mut config = server_config_inner(provider, clock, certs, alpn);
    config.ticketer = ticketer;
    Arc::new(config)
}

/// Client configuration for TLS 1.3 over TCP: trusts the kit's CA, ALPN `alpn`, resumes with
/// tickets if `resumption` holds a store (no early data over TCP).
pub fn tls_client_config(
    provider: &Arc<CryptoProvider>,
    clock: &SimClock,
    certs: &CloudCerts,
    alpn: &[&[u8]],
    resumption: ClientResumption,
) -> Arc<rustls::ClientConfig> {
    Arc::new(client_config_inner(provider, clock, certs, alpn, &resumption))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticketer_round_trips_and_rejects_tampering() {
        let ticketer = SeededTicketer::new(&SeededRng::from_seed([4; 32]));
        let ticket = ticketer.encrypt(b"session state").unwrap();
        assert_eq!(ticketer.decrypt(&ticket).unwrap(), b"session state");
        let mut bad = ticket.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(ticketer.decrypt(&bad).is_none());
        let mut wrong_name = ticket.clone();
        wrong_name[0] ^= 1;
        assert!(ticketer.decrypt(&wrong_name).is_none());
        assert!(ticketer.decrypt(&ticket[..10]).is_none());
        // Another seed, another key.
        let other = SeededTicketer::new(&SeededRng::from_seed([5; 32]));
        other.encrypt(b"warm up the length bound").unwrap();
        assert!(other.decrypt(&ticket).is_none());
    }

    #[test]
    fn ticketer_is_a_function_of_the_seed() {
        let a = SeededTicketer::new(&SeededRng::from_seed([4; 32]));
        let b = SeededTicketer::new(&SeededRng::from_seed([4; 32]));
        assert_eq!(a.encrypt(b"x"), b.encrypt(b"x"));
        // Nonces advance: two tickets of the same plaintext differ.
        assert_ne!(a.encrypt(b"x"), a.encrypt(b"x"));
    }
}
