//! ftw-sim patch: turmoil's maps with a fast fixed hasher.
//!
//! Stock turmoil keys its hosts, runtimes, links and sockets in `IndexMap`s
//! with std's `RandomState` (SipHash-1-3), looked up several times per host on
//! every step of a simulation. An `IndexMap`'s order is the order of insertion
//! whatever its hasher, so a cheaper hasher changes no behaviour: only the
//! time a lookup takes. The hasher multiplies each word into a rotating state
//! (the multiplier is the 64-bit constant of rustc's own FxHasher); it is not
//! meant to resist crafted keys, and the keys here are the simulation's own.

use std::hash::{BuildHasherDefault, Hasher};

/// `indexmap::IndexMap` with [`FastHasher`].
pub(crate) type IndexMap<K, V> = indexmap::IndexMap<K, V, BuildHasherDefault<FastHasher>>;

/// `indexmap::IndexSet` with [`FastHasher`].
pub(crate) type IndexSet<T> = indexmap::IndexSet<T, BuildHasherDefault<FastHasher>>;

/// The word multiplier (rustc's FxHasher's 64-bit constant).
const MULTIPLIER: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// A fast, fixed (unseeded) hasher for small keys.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher {
    hash: u64,
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
