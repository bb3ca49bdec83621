//! `ftwsim triage`: the summaries and entries of several fuzzing shards or
//! nights as one: failures grouped by [`signature::Signature`], the smallest
//! entry of each kept, each signature marked new or known (an entry in
//! `corpus/` with the same signature).

pub mod signature;
