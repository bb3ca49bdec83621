//! The deterministic crypto kit: real TLS 1.3 and real QUIC (rustls 0.23, quinn-proto 0.11.19)
//! as a pure function of the run seed.
//!
//! Every source of randomness and time listed in design/SIMULATION.md section 1 that falls to
//! this crate is fixed here:
//!
//! | source | fix here |
//! |---|---|
//! | quinn-proto endpoint RNG | [`quic_endpoint_config`] sets `rng_seed(Some(..))` |
//! | connection ids | [`quic_endpoint_config`] installs the caller's [`CidFactory`] ([`seeded_cid_factory`] by default) |
//! | the client's first destination id | [`quic_client_config`] installs [`seeded_initial_dcid_provider`] |
//! | stateless-reset key, token key | [`reset_key`], [`handshake_token_key`] from fixed seeds |
//! | rustls client random, session ids, extension order, ticket nonces, age-add | [`crypto_provider`]'s `secure_random` reads a [`SeededRng`] |
//! | rustls key exchange | [`crypto_provider`]'s only group is X25519 drawing its secret from the [`SeededRng`] |
//! | rustls session ticket keys and nonces (TLS over TCP) | [`SeededTicketer`] |
//! | QUIC resumption with 0-RTT | stateful: ids from the seeded `secure_random`, [`new_server_session_store`] per run (rustls refuses 0-RTT with stateless tickets) |
//! | ECDSA/RSA signatures | [`CloudCerts`] are Ed25519, from a fixed seed, fixed serials and dates |
//! | wall clock in tokens and certificate checks | [`SimClock`] as rustls `TimeProvider` (`builder_with_details`) and quinn `TimeSource` |
//! | caches in shared configs | every builder here makes fresh configs, stores and token caches: build them per run |
//!
//! Naming streams: [`derive_seed`] `(run_seed, host)` is THE way a host's stream is named;
//! [`SeededRng::sub_seed`] names purpose streams inside it.
//!
//! quinn-proto takes `std::time::Instant` values. Drivers capture ONE base `Instant` once and
//! only ever pass `base + offset`; quinn-proto uses only differences of instants, so the base's
//! value changes no byte on the wire (tests/quic_memory.rs proves it by hashing).
//!
//! Every rustls configuration logs its secrets into the run's [`keylog`] sink (never a file);
//! with qlog on for the run, every QUIC transport configuration carries a [`qlog`] stream.
//!
//! snow is not configured here (see ftw-wire).

pub mod certs;
pub mod consts;
pub mod keylog;
pub mod provider;
pub mod qlog;
pub mod quic;
pub mod rng;
pub mod tls;

pub use certs::CloudCerts;
pub use provider::{crypto_provider, SeededSecureRandom, SeededX25519, SimClock, WallClock};
pub use quic::{
    handshake_token_key, quic_client_config, quic_endpoint_config, quic_server_config, reset_key, seeded_cid_factory, seeded_initial_dcid_provider, CidFactory,
    InitialDcidProvider, QuicTransportParams, SeededCidGenerator,
};
pub use rng::{derive_seed, SeededRng};
pub use tls::{
    new_client_session_store, new_server_session_store, tls_client_config, tls_server_config, ClientResumption, ForgetfulSessionStore, SeededTicketer,
};
