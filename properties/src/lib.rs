//! The laws, the corpus and the `ftwsim` command.

pub mod corpus;
