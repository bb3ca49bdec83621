//! The laws and the corpus.
