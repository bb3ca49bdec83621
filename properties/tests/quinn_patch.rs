//! sim/vendor/quinn-proto/PATCH.md sections 3 (challenge-budget) and 5
//! (return-to-validated), end to end, each shown both ways on corpus entries.
//!
//! * Section 3: with upstream's padding (every datagram carrying a
//!   PATH_CHALLENGE padded to 1200 B whatever the anti-amplification budget) a
//!   rebind or a move under loss loses the connection once the one or two
//!   challenges the phone's small packets paid for are lost; with the patch it
//!   carries on.
//! * Section 5: with section 3 on and upstream's return to the real address
//!   after forged moves (a fresh, unvalidated path, the backoff grown while the
//!   attacker's address was the path), a pin flood loses a client; with both it
//!   keeps every one.
//!
//! The toggles are thread-locals of the vendored crate, set here only.

use std::path::PathBuf;

use ftw_properties::{corpus, reference};
use ftw_sim::scenario::Verdict;
use quinn_proto::ftw_sim_patch::{set_upstream_challenge_padding, set_upstream_revalidates_old_path};

/// Lost with upstream's padding, kept with the patch: a rebind in a blackhole at
/// 13.5 % loss (the cloud's one 1200 B challenge lost, the phone's 35 B probes
/// never pay for another), and the older entry of the same family.
const PADDING: [&str; 2] = ["quic-echo-gone-seed-11416.toml", "quic-echo-rebinds-path-reverted.toml"];
/// A pin flood that loses one client when only section 3 is on.
const FLOOD: &str = "fleet-pin-flood-lossy-two-give-up.toml";

/// Which of the two patches run (`true`: the patch, `false`: upstream).
#[derive(Clone, Copy)]
struct Patches {
    budget_padding: bool,
    return_to_validated: bool,
}

const BOTH: Patches = Patches { budget_padding: true, return_to_validated: true };

fn verdict(entry: &str, p: Patches) -> Verdict {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(entry);
    let spec = corpus::load(&path).expect("the entry loads").spec;
    set_upstream_challenge_padding(!p.budget_padding);
    set_upstream_revalidates_old_path(!p.return_to_validated);
    let report = reference::run(&spec).expect("the entry runs");
    set_upstream_challenge_padding(false);
    set_upstream_revalidates_old_path(false);
    report.verdict()
}

/// `entry` run both ways at once (independent worlds, one a thread).
fn both_ways(entry: &'static str, upstream: Patches) -> (Verdict, Verdict) {
    std::thread::scope(|s| {
        let up = s.spawn(move || verdict(entry, upstream));
        let patched = verdict(entry, BOTH);
        (up.join().expect("runs"), patched)
    })
}

#[test]
fn upstream_padding_loses_the_connection_the_patch_keeps() {
    for entry in PADDING {
        let (upstream, patched) = both_ways(entry, Patches { budget_padding: false, ..BOTH });
        match upstream {
            Verdict::Fail { property, .. } => assert_eq!(property, "run", "{entry} with upstream's padding"),
            Verdict::Pass => panic!("{entry} passed with upstream's padding"),
        }
        assert_eq!(patched, Verdict::Pass, "{entry} with the patches");
    }
}

#[test]
fn revalidating_the_real_address_loses_a_client_under_forged_moves() {
    let (upstream, patched) = both_ways(FLOOD, Patches { return_to_validated: false, ..BOTH });
    match upstream {
        Verdict::Fail { property, .. } => assert_eq!(property, "forged-moves-keep-connections"),
        Verdict::Pass => panic!("{FLOOD} passed with upstream's return to the real address"),
    }
    assert_eq!(patched, Verdict::Pass, "{FLOOD} with the patches");
}
