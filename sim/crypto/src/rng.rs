//! Seeded, shareable crypto RNG streams and THE way streams are named.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use sha2::{Digest, Sha256};

use crate::consts::{DERIVE_SEED_DOMAIN, SUB_SEED_DOMAIN};

/// THE way a random stream is named: the 32-byte seed of the stream called `name` in the run
/// `run_seed`.
///
/// `SHA-256(DERIVE_SEED_DOMAIN || run_seed as u64 big-endian || name.len() as u64 big-endian ||
/// name as UTF-8)`. The length prefix makes the encoding canonical (no two `(run_seed, name)`
/// pairs share an input). Give every host its own name (`"phone"`, `"box"`, `"cloud"`, ...) so
/// that adding a host does not change anyone else's bytes (SIMULATION.md section 1); derive
/// purpose streams inside a host with [`SeededRng::sub_seed`] (e.g. `"quic/endpoint"`).
pub fn derive_seed(run_seed: u64, name: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(DERIVE_SEED_DOMAIN);
    hasher.update(run_seed.to_be_bytes());
    hasher.update((name.len() as u64).to_be_bytes());
    hasher.update(name.as_bytes());
    hasher.finalize().into()
}

/// A ChaCha20 crypto RNG stream that several owners draw from (clones share one stream).
///
/// Draw order is the caller's: the sim is single-threaded, so the order is a pure function of
/// the run. Named sub-streams ([`SeededRng::sub`]) depend only on this stream's seed, never on
/// how much was drawn, so they stay stable when a draw is added elsewhere.
#[derive(Clone)]
pub struct SeededRng {
    seed: [u8; 32],
    inner: Arc<Mutex<ChaCha20Rng>>,
}

impl SeededRng {
    /// A stream starting at `seed`.
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self { seed, inner: Arc::new(Mutex::new(ChaCha20Rng::from_seed(seed))) }
    }

    /// The stream of host `host` in run `run_seed`: `from_seed(derive_seed(run_seed, host))`.
    pub fn for_host(run_seed: u64, host: &str) -> Self {
        Self::from_seed(derive_seed(run_seed, host))
    }

    /// The seed this stream started from.
    pub fn seed(&self) -> [u8; 32] {
        self.seed
    }

    /// The seed of this stream's sub-stream `label`:
    /// `SHA-256(SUB_SEED_DOMAIN || seed || label.len() as u64 BE || label)`.
    /// Independent of how much has been drawn from `self`.
    pub fn sub_seed(&self, label: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(SUB_SEED_DOMAIN);
        hasher.update(self.seed);
        hasher.update((label.len() as u64).to_be_bytes());
        hasher.update(label.as_bytes());
        hasher.finalize().into()
    }

    /// A new, independent stream named `label` under this one (`from_seed(sub_seed(label))`).
    pub fn sub(&self, label: &str) -> SeededRng {
        Self::from_seed(self.sub_seed(label))
    }

    /// Fills `dest` with the next bytes of the stream.
    pub fn fill(&self, dest: &mut [u8]) {
        self.lock().fill_bytes(dest);
    }

    /// The next 32 bytes of the stream, e.g. to seed something else.
    pub fn draw_seed(&self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        self.fill(&mut seed);
        seed
    }

    /// The next `u64` of the stream.
    pub fn draw_u64(&self) -> u64 {
        self.lock().next_u64()
    }

    /// True if both handles draw from the same stream.
    pub fn same_stream(&self, other: &SeededRng) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    fn lock(&self) -> MutexGuard<'_, ChaCha20Rng> {
        // A panic while holding this lock can only come from inside ChaCha (it does not
        // panic); recover the state rather than spread the poison.
        match self.inner.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl fmt::Debug for SeededRng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The seed is secret-ish and long; show a short fingerprint only.
        write!(f, "SeededRng({:02x}{:02x}{:02x}{:02x}..)", self.seed[0], self.seed[1], self.seed[2], self.seed[3])
    }
}

impl RngCore for SeededRng {
    fn next_u32(&mut self) -> u32 {
        self.lock().next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        self.lock().next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.fill(dest);
    }
}

impl CryptoRng for SeededRng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_seed_is_stable_and_separates_names_and_runs() {
        let a = derive_seed(7, "phone");
        assert_eq!(a, derive_seed(7, "phone"));
        assert_ne!(a, derive_seed(8, "phone"));
        assert_ne!(a, derive_seed(7, "box"));
        // Canonical: the length prefix keeps ("ab", run) and ("a", run) + "b" apart.
        assert_ne!(derive_seed(7, "ab"), derive_seed(7, "a"));
    }

    #[test]
    fn clones_share_one_stream_and_subs_ignore_draws() {
        let rng = SeededRng::from_seed([3; 32]);
        let clone = rng.clone();
        assert!(rng.same_stream(&clone));
        let first = rng.draw_u64();
        let second = clone.draw_u64();
        let fresh = SeededRng::from_seed([3; 32]);
        assert_eq!(fresh.draw_u64(), first);
        assert_eq!(fresh.draw_u64(), second);
        // Sub-streams depend on the seed only.
        let untouched = SeededRng::from_seed([3; 32]);
        assert_eq!(rng.sub_seed("quic"), untouched.sub_seed("quic"));
        assert_ne!(rng.sub_seed("quic"), rng.sub_seed("tls"));
        assert_eq!(rng.sub("quic").draw_u64(), untouched.sub("quic").draw_u64());
    }
}
