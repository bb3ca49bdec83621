//! Seeded connection-id generators: the server's shard-stamped ids, plain ids for clients, and
//! the client's initial destination id.
//!
//! No generator here reads entropy from the machine: each is a `ChaCha20Rng` built from a
//! 32-byte seed the caller gives, so a run replays from its seed (quinn-proto's own generators
//! call `rand::rng()`, which is why they are replaced).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use quinn_proto::{ConnectionId, ConnectionIdGenerator, InvalidCid};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::consts::{LOCAL_CID_LEN, REACTOR_COUNT_MAX};
use crate::ReactorId;

/// A server-minted id: always [`LOCAL_CID_LEN`] bytes.
pub type Cid = [u8; LOCAL_CID_LEN];

/// A shared log of the ids a [`ShardCidGenerator`] minted, so the fleet can learn which ids a
/// reactor holds without the driver reaching into quinn-proto (which does not expose its id
/// table). Attach it with [`crate::Fleet::attach_minted`]; the fleet drains it before every
/// routing decision. Single-threaded use only (the lock is never contended; it exists because
/// quinn-proto wants its generator `Send + Sync`).
#[derive(Debug, Clone, Default)]
pub struct MintedCids(Arc<Mutex<Vec<Cid>>>);

impl MintedCids {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&self, cid: Cid) {
        self.0.lock().expect("minted-id log poisoned").push(cid);
    }

    /// Takes every id logged since the last drain, in minting order.
    pub fn drain(&self) -> Vec<Cid> {
        std::mem::take(&mut *self.0.lock().expect("minted-id log poisoned"))
    }
}

/// The connection-id generator of one reactor: 8-byte ids with `cid[0] % reactor_count == owner`
/// and every other bit random (seed 002, `iq_stamp_shard`). Byte 0 is drawn uniformly from
/// the values that name the owner, so it carries no more than the owner's index.
pub struct ShardCidGenerator {
    owner: ReactorId,
    reactor_count: usize,
    rng: ChaCha20Rng,
    minted: Option<MintedCids>,
}

impl ShardCidGenerator {
    /// The generator of reactor `owner` in a fleet of `reactor_count`, seeded by `seed`.
    pub fn new(owner: ReactorId, reactor_count: usize, seed: [u8; 32]) -> Self {
        assert!((1..=REACTOR_COUNT_MAX).contains(&reactor_count), "reactor_count {reactor_count} out of 1..={REACTOR_COUNT_MAX}");
        assert!(owner.index() < reactor_count, "owner {owner} not in a fleet of {reactor_count}");
        Self { owner, reactor_count, rng: ChaCha20Rng::from_seed(seed), minted: None }
    }

    /// One generator per reactor, each seeded with 32 bytes drawn in reactor order from a
    /// `ChaCha20Rng` built on `fleet_seed`.
    pub fn for_fleet(reactor_count: usize, fleet_seed: [u8; 32]) -> Vec<Self> {
        let mut master = ChaCha20Rng::from_seed(fleet_seed);
        (0..reactor_count)
            .map(|r| {
                let mut seed = [0u8; 32];
                master.fill_bytes(&mut seed);
                Self::new(ReactorId::new(r), reactor_count, seed)
            })
            .collect()
    }

    /// Also log every minted id into `minted` (see [`MintedCids`]).
    pub fn with_minted_log(mut self, minted: MintedCids) -> Self {
        self.minted = Some(minted);
        self
    }

    /// The reactor this generator stamps into its ids.
    pub fn owner(&self) -> ReactorId {
        self.owner
    }

    /// A new id (the same as [`ConnectionIdGenerator::generate_cid`], as a plain array).
    pub fn next_cid(&mut self) -> Cid {
        let mut cid: Cid = [0; LOCAL_CID_LEN];
        self.rng.fill_bytes(&mut cid[1..]);
        // Values v in 0..=255 with v % n == owner: owner, owner + n, ... (at least one).
        let n = self.reactor_count;
        let owner = self.owner.index();
        let choices = (255 - owner) / n + 1;
        let k = self.rng.random_range(0..choices);
        let first = owner + k * n;
        assert!(first <= 255 && first % n == owner);
        cid[0] = first as u8;
        if let Some(log) = &self.minted {
            log.push(cid);
        }
        cid
    }
}

impl std::fmt::Debug for ShardCidGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardCidGenerator").field("owner", &self.owner).field("reactor_count", &self.reactor_count).finish_non_exhaustive()
    }
}

impl ConnectionIdGenerator for ShardCidGenerator {
    fn generate_cid(&mut self) -> ConnectionId {
        ConnectionId::new(&self.next_cid())
    }

    /// An id not stamped with this reactor is refused, so a reactor's endpoint never answers a
    /// sibling's id with a stateless reset (quinn-proto drops such a packet silently).
    fn validate(&self, cid: &ConnectionId) -> Result<(), InvalidCid> {
        if cid.len() == LOCAL_CID_LEN && usize::from(cid[0]) % self.reactor_count == self.owner.index() {
            Ok(())
        } else {
            Err(InvalidCid)
        }
    }

    fn cid_len(&self) -> usize {
        LOCAL_CID_LEN
    }

    /// Ids never retire by age: they retire when their connection ends or the peer
    /// retires them.
    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

// Client-side ids (plain seeded generators, the initial destination id) are the
// crypto kit's: `ftw_crypto::SeededCidGenerator`, `ftw_crypto::seeded_initial_dcid_provider`.

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(b: u8) -> [u8; 32] {
        [b; 32]
    }

    #[test]
    fn shard_ids_name_their_owner_and_replay_from_the_seed() {
        for n in [1usize, 2, 3, 4, 7] {
            for r in 0..n {
                let mut a = ShardCidGenerator::new(ReactorId::new(r), n, seed(5));
                let mut b = ShardCidGenerator::new(ReactorId::new(r), n, seed(5));
                let mut firsts = std::collections::BTreeSet::new();
                for _ in 0..1000 {
                    let x = a.generate_cid();
                    let y = b.generate_cid();
                    assert_eq!(x.len(), 8);
                    assert_eq!(usize::from(x[0]) % n, r, "id {x} in fleet of {n} for r{r}");
                    assert_eq!(x, y, "same seed, same ids");
                    assert!(a.validate(&x).is_ok());
                    firsts.insert(x[0]);
                }
                // Byte 0 is random among the values naming the owner, not a constant.
                assert!(firsts.len() > 1 || n > 128);
            }
        }
        // Another seed gives other ids; a sibling refuses them.
        let mut a = ShardCidGenerator::new(ReactorId::new(1), 4, seed(5));
        let mut c = ShardCidGenerator::new(ReactorId::new(1), 4, seed(6));
        let sibling = ShardCidGenerator::new(ReactorId::new(2), 4, seed(6));
        let x = a.generate_cid();
        assert_ne!(x, c.generate_cid());
        assert!(sibling.validate(&x).is_err());
    }

    #[test]
    fn fleet_generators_differ_per_reactor_and_log_what_they_mint() {
        let mut gens = ShardCidGenerator::for_fleet(4, seed(9));
        assert_eq!(gens.len(), 4);
        let log = MintedCids::new();
        let mut g0 = gens.remove(0).with_minted_log(log.clone());
        let ids: Vec<Cid> = (0..3).map(|_| g0.next_cid()).collect();
        assert_eq!(log.drain(), ids);
        assert!(log.drain().is_empty());
        let mut g1 = gens.remove(0);
        assert_eq!(g1.owner(), ReactorId::new(1));
        assert_eq!(g1.next_cid()[0] % 4, 1);
    }
}
