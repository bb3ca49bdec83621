//! TLS 1.3 over an in-memory byte pipe with rustls `ServerConnection`/`ClientConnection`: a
//! full handshake, then a resumed one from the ticket, every byte a function of the seed.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ftw_crypto::consts::{CERT_NOT_BEFORE_UNIX_S, CERT_SEED_DEFAULT, TCP_ALPN_HTTP1};
use ftw_crypto::{
    crypto_provider, new_client_session_store, tls_client_config, tls_server_config, ClientResumption, CloudCerts, SeededRng, SeededTicketer, SimClock,
};
use rustls::pki_types::{ServerName, UnixTime};
use rustls::{ClientConnection, HandshakeKind, ServerConnection};
use sha2::{Digest, Sha256};

/// 2026-06-01T00:00:00Z: inside the certificates' validity.
const SIM_EPOCH_UNIX_S: u64 = 1_780_272_000;
const _: () = assert!(CERT_NOT_BEFORE_UNIX_S < SIM_EPOCH_UNIX_S);

fn cloud_ips() -> Vec<IpAddr> {
    vec![IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))]
}

#[test]
fn certificates_are_byte_identical_across_generations() {
    let a = CloudCerts::generate(CERT_SEED_DEFAULT, &cloud_ips());
    let b = CloudCerts::generate(CERT_SEED_DEFAULT, &cloud_ips());
    assert_eq!(a.ca_der.as_ref(), b.ca_der.as_ref());
    assert_eq!(a.server_der.as_ref(), b.server_der.as_ref());
    assert_eq!(a.server_key_pkcs8.secret_pkcs8_der(), b.server_key_pkcs8.secret_pkcs8_der());
    // The seed and the IPs matter.
    let c = CloudCerts::generate([1; 32], &cloud_ips());
    assert_ne!(a.ca_der.as_ref(), c.ca_der.as_ref());
    let d = CloudCerts::generate(CERT_SEED_DEFAULT, &[]);
    assert_ne!(a.server_der.as_ref(), d.server_der.as_ref());
    assert_eq!(a.ca_der.as_ref(), d.ca_der.as_ref());
}

/// Moves bytes between the two ends until neither has anything to send; returns the bytes.
fn pump(client: &mut ClientConnection, server: &mut ServerConnection, wire: &mut Sha256) {
    for _round in 0..32 {
        let mut moved = false;
        let mut buf = Vec::new();
        while client.wants_write() {
            client.write_tls(&mut buf).unwrap();
        }
        if !buf.is_empty() {
            moved = true;
            wire.update(b"c>s");
            wire.update((buf.len() as u64).to_be_bytes());
            wire.update(&buf);
            let mut slice = &buf[..];
            while !slice.is_empty() {
                server.read_tls(&mut slice).unwrap();
                server.process_new_packets().unwrap();
            }
        }
        let mut buf = Vec::new();
        while server.wants_write() {
            server.write_tls(&mut buf).unwrap();
        }
        if !buf.is_empty() {
            moved = true;
            wire.update(b"s>c");
            wire.update((buf.len() as u64).to_be_bytes());
            wire.update(&buf);
            let mut slice = &buf[..];
            while !slice.is_empty() {
                client.read_tls(&mut slice).unwrap();
                client.process_new_packets().unwrap();
            }
        }
        if !moved {
            return;
        }
    }
    panic!("the TLS exchange did not settle in 32 rounds");
}

fn read_all(reader: &mut dyn std::io::Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("read failed: {e}"),
        }
    }
    out
}

/// Two connections from one client (same session store): full, then resumed. Returns the
/// SHA-256 of every byte on the wire, and the two handshake kinds.
fn tls_run(run_seed: u64) -> ([u8; 32], Vec<HandshakeKind>) {
    let now_s = Arc::new(AtomicU64::new(SIM_EPOCH_UNIX_S));
    let clock = {
        let now_s = now_s.clone();
        SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(Duration::from_secs(now_s.load(Ordering::SeqCst)))))
    };
    let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &cloud_ips());
    let cloud_rng = SeededRng::for_host(run_seed, "cloud");
    let phone_rng = SeededRng::for_host(run_seed, "phone");
    let cloud_provider = crypto_provider(&cloud_rng);
    let phone_provider = crypto_provider(&phone_rng);
    let ticketer = SeededTicketer::new(&cloud_rng.sub("tls/ticketer"));
    let server_config = tls_server_config(&cloud_provider, &clock, &certs, &[TCP_ALPN_HTTP1], ticketer);
    let store = new_client_session_store();
    let client_config = tls_client_config(&phone_provider, &clock, &certs, &[TCP_ALPN_HTTP1], ClientResumption::Store(store));

    let mut wire = Sha256::new();
    let mut kinds = Vec::new();
    for attempt in 0..2u8 {
        let name = ServerName::try_from("cloud.ftw").unwrap();
        let mut client = ClientConnection::new(client_config.clone(), name).unwrap();
        let mut server = ServerConnection::new(server_config.clone()).unwrap();
        pump(&mut client, &mut server, &mut wire);
        assert!(!client.is_handshaking() && !server.is_handshaking());
        assert_eq!(client.alpn_protocol(), Some(TCP_ALPN_HTTP1));
        kinds.push(client.handshake_kind().unwrap());
        assert_eq!(server.handshake_kind(), client.handshake_kind());

        // Application data both ways (this also carries the tickets to the client).
        use std::io::Write;
        client.writer().write_all(&[b'q', attempt]).unwrap();
        server.writer().write_all(&[b's', attempt]).unwrap();
        pump(&mut client, &mut server, &mut wire);
        assert_eq!(read_all(&mut server.reader()), vec![b'q', attempt]);
        assert_eq!(read_all(&mut client.reader()), vec![b's', attempt]);

        client.send_close_notify();
        pump(&mut client, &mut server, &mut wire);
        now_s.fetch_add(60, Ordering::SeqCst);
    }
    (wire.finalize().into(), kinds)
}

#[test]
fn tls_full_then_resumed_and_deterministic() {
    let (first, kinds) = tls_run(42);
    assert_eq!(kinds, vec![HandshakeKind::Full, HandshakeKind::Resumed]);
    let (second, _) = tls_run(42);
    assert_eq!(first, second, "same seed, same bytes");
    let (other, kinds_other) = tls_run(43);
    assert_eq!(kinds_other, vec![HandshakeKind::Full, HandshakeKind::Resumed]);
    assert_ne!(first, other, "another seed, other bytes");
    println!("TLS_HASH={}", hex::encode(first));
}

#[test]
fn tls_rejects_a_clock_outside_the_certificate() {
    // 2025-06-01: before not_before. The client must refuse the certificate, which shows the
    // verifier reads the sim clock and not the machine's.
    let clock = SimClock::fixed(1_748_736_000);
    let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &cloud_ips());
    let rng = SeededRng::for_host(1, "cloud");
    let provider = crypto_provider(&rng);
    let server_config = tls_server_config(&provider, &clock, &certs, &[TCP_ALPN_HTTP1], SeededTicketer::new(&rng));
    let client_config = tls_client_config(&provider, &clock, &certs, &[TCP_ALPN_HTTP1], ClientResumption::Disabled);
    let mut client = ClientConnection::new(client_config, ServerName::try_from("cloud.ftw").unwrap()).unwrap();
    let mut server = ServerConnection::new(server_config).unwrap();
    let mut buf = Vec::new();
    client.write_tls(&mut buf).unwrap();
    server.read_tls(&mut &buf[..]).unwrap();
    server.process_new_packets().unwrap();
    let mut buf = Vec::new();
    while server.wants_write() {
        server.write_tls(&mut buf).unwrap();
    }
    client.read_tls(&mut &buf[..]).unwrap();
    let err = client.process_new_packets().unwrap_err();
    assert!(
        matches!(
            err,
            rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidYet)
                | rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidYetContext { .. })
        ),
        "got {err:?}"
    );
}
