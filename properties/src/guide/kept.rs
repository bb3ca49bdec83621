//! Kept plans on disk (issue 36 point 2): each plan the guided search kept, as a
//! corpus entry (the TOML of `corpus/`, with its expectation and its recorded
//! trace hash), under `DIR/<scenario>/`, named `<scenario>-<seed>-<plan>.toml`
//! where `<plan>` is the first 8 hex digits of the SHA-256 of the plan's TOML: the
//! same plan kept by two shards or two nights is one file. `cargo sim replay DIR/<scenario>`
//! replays them; `cargo sim fuzz --kept-from DIR` starts from them.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use ftw_sim::scenario::Verdict;
use ftw_sim::RunSpec;
use sha2::{Digest, Sha256};

use crate::corpus::{self, Expect, Recorded};
use crate::strategy::Case;

/// Write the kept run `spec` (its verdict and trace hash) under `dir`; the file written.
pub fn write(dir: &Path, spec: &RunSpec, verdict: &Verdict, hash: &str, note: &str) -> Result<PathBuf, String> {
    let sub = dir.join(spec.scenario.name());
    std::fs::create_dir_all(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
    let plan = toml::to_string(&spec.plan).expect("plan renders");
    let tag = hex::encode(&Sha256::digest(plan.as_bytes())[..4]);
    let path = sub.join(format!("{}-{}-{tag}.toml", spec.scenario, spec.seed.0));
    let expect = match verdict {
        Verdict::Pass => Expect::Pass,
        Verdict::Fail { property, .. } => Expect::Fails(property.clone()),
    };
    let text = corpus::render(spec, &expect, note, None, Some(Recorded::now(hash)));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The kept plans under each of `dirs` (the files of `DIR` and of its
/// subfolders, sorted), as cases of the scenarios of `scenarios` (by index);
/// entries of other scenarios are left out, and shard `(i, n)` takes the
/// files numbered i, i+n, ... of each folder.
pub fn load(dirs: &[PathBuf], scenarios: &[String], (shard_i, shard_n): (u64, u64)) -> Result<Vec<VecDeque<Case>>, String> {
    let mut out: Vec<VecDeque<Case>> = scenarios.iter().map(|_| VecDeque::new()).collect();
    for d in dirs {
        let mut paths = vec![d.clone()];
        let mut subs: Vec<PathBuf> =
            std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
        subs.sort();
        paths.extend(subs);
        for f in corpus::collect(&paths)?.into_iter().skip(shard_i as usize).step_by(shard_n as usize) {
            let e = corpus::load(&f)?;
            if let Some(i) = scenarios.iter().position(|s| *s == e.spec.scenario.name()) {
                out[i].push_back(Case { seed: e.spec.seed, plan: e.spec.plan });
            }
        }
    }
    Ok(out)
}
