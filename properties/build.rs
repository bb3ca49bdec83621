//! The first 16 hex digits of the SHA-256 of the workspace's `Cargo.lock`, as
//! `FTW_CARGO_LOCK_SHA256`: what built a corpus entry's recorded bytes (issue 19 section 1).

use sha2::{Digest, Sha256};

fn main() {
    let lock = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let bytes = std::fs::read(&lock).unwrap_or_default();
    let hex: String = Sha256::digest(&bytes).iter().take(8).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FTW_CARGO_LOCK_SHA256={hex}");
}
