//! The guided search (issue 36): protocol-state keys, typed plan mutations,
//! LibAFL for the corpus, its scheduling and the stacking of mutations.
pub mod engine;
pub mod keys;
pub mod mutate;
