//! The guided search (issue 36): protocol-state keys, typed plan mutations,
//! LibAFL for the corpus, its scheduling and the stacking of mutations, and
//! the kept plans on disk. `crate::fuzz` runs it.
pub mod engine;
pub mod kept;
pub mod keys;
pub mod mutate;
