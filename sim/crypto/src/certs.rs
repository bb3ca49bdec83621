//! The kit's certificates: an Ed25519 CA and the cloud's server certificate, byte-identical
//! every time for a given seed and IP list.

use std::net::IpAddr;

use ed25519_dalek::pkcs8::EncodePrivateKey;
use ed25519_dalek::SigningKey;
use rcgen::{
    date_time_ymd, BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, SanType,
    SerialNumber, PKCS_ED25519,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::RootCertStore;
use sha2::{Digest, Sha256};

use crate::consts::{CA_COMMON_NAME, CA_SERIAL, CERT_NOT_AFTER_YMD, CERT_NOT_BEFORE_YMD, CLOUD_SERVER_NAME, LOCALHOST_NAME, SERVER_SERIAL};

/// The CA and the cloud's certificate and key (all DER).
#[derive(Debug)]
pub struct CloudCerts {
    /// The self-signed CA certificate every client trusts.
    pub ca_der: CertificateDer<'static>,
    /// The cloud's certificate, signed by the CA. SANs: "cloud.ftw", "localhost", then the IPs.
    pub server_der: CertificateDer<'static>,
    /// The cloud's Ed25519 private key, PKCS#8.
    pub server_key_pkcs8: PrivatePkcs8KeyDer<'static>,
}

impl Clone for CloudCerts {
    fn clone(&self) -> Self {
        Self { ca_der: self.ca_der.clone(), server_der: self.server_der.clone(), server_key_pkcs8: self.server_key_pkcs8.clone_key() }
    }
}

impl CloudCerts {
    /// Generates the CA and server certificate from `seed` (use [`crate::consts::CERT_SEED_DEFAULT`]
    /// unless a test wants another CA). The CA key is `SHA-256("ftw-sim/ca-key" || seed)`, the
    /// server key `SHA-256("ftw-sim/server-key" || seed)`; serials, names and validity are fixed
    /// and Ed25519 signs deterministically, so the DER depends only on `seed` and `server_ips`.
    pub fn generate(seed: [u8; 32], server_ips: &[IpAddr]) -> Self {
        let ca_key = ed25519_key_pair(&key_seed(b"ftw-sim/ca-key", &seed));
        let server_key_pkcs8 = ed25519_pkcs8(&key_seed(b"ftw-sim/server-key", &seed));
        let server_key =
            KeyPair::from_pkcs8_der_and_sign_algo(&server_key_pkcs8, &PKCS_ED25519).expect("an Ed25519 PKCS#8 key from ed25519-dalek loads in rcgen");

        let mut ca_params = CertificateParams::default();
        fixed_validity(&mut ca_params);
        ca_params.serial_number = Some(SerialNumber::from_slice(&[CA_SERIAL]));
        ca_params.distinguished_name = {
            let mut dn = DistinguishedName::new();
            dn.push(DnType::CommonName, CA_COMMON_NAME);
            dn
        };
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let ca_cert = ca_params.self_signed(&ca_key).expect("CA parameters are valid");

        let mut server_params = CertificateParams::default();
        fixed_validity(&mut server_params);
        server_params.serial_number = Some(SerialNumber::from_slice(&[SERVER_SERIAL]));
        server_params.distinguished_name = {
            let mut dn = DistinguishedName::new();
            dn.push(DnType::CommonName, CLOUD_SERVER_NAME);
            dn
        };
        let mut sans =
            vec![SanType::DnsName(CLOUD_SERVER_NAME.try_into().expect("valid DNS name")), SanType::DnsName(LOCALHOST_NAME.try_into().expect("valid DNS name"))];
        sans.extend(server_ips.iter().map(|ip| SanType::IpAddress(*ip)));
        server_params.subject_alt_names = sans;
        server_params.is_ca = IsCa::ExplicitNoCa;
        server_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        server_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        server_params.use_authority_key_identifier_extension = true;
        let server_cert = server_params.signed_by(&server_key, &ca_cert, &ca_key).expect("server parameters are valid");

        Self { ca_der: ca_cert.der().clone(), server_der: server_cert.der().clone(), server_key_pkcs8 }
    }

    /// The server's chain for rustls: `[server certificate]` (the CA is the trust anchor).
    pub fn server_chain(&self) -> Vec<CertificateDer<'static>> {
        vec![self.server_der.clone()]
    }

    /// The server's private key for rustls.
    pub fn server_key(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(self.server_key_pkcs8.clone_key())
    }

    /// A root store holding only the kit's CA.
    pub fn root_store(&self) -> RootCertStore {
        let mut roots = RootCertStore::empty();
        roots.add(self.ca_der.clone()).expect("the kit's CA parses as a trust anchor");
        roots
    }
}

fn fixed_validity(params: &mut CertificateParams) {
    let (y, m, d) = CERT_NOT_BEFORE_YMD;
    params.not_before = date_time_ymd(y, m, d);
    let (y, m, d) = CERT_NOT_AFTER_YMD;
    params.not_after = date_time_ymd(y, m, d);
}

fn key_seed(label: &[u8], seed: &[u8; 32]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(label);
    hasher.update(seed);
    hasher.finalize().into()
}

fn ed25519_pkcs8(secret: &[u8; 32]) -> PrivatePkcs8KeyDer<'static> {
    let document = SigningKey::from_bytes(secret).to_pkcs8_der().expect("an Ed25519 key encodes as PKCS#8");
    PrivatePkcs8KeyDer::from(document.as_bytes().to_vec())
}

fn ed25519_key_pair(secret: &[u8; 32]) -> KeyPair {
    KeyPair::from_pkcs8_der_and_sign_algo(&ed25519_pkcs8(secret), &PKCS_ED25519).expect("an Ed25519 PKCS#8 key from ed25519-dalek loads in rcgen")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consts::{CERT_NOT_AFTER_UNIX_S, CERT_NOT_BEFORE_UNIX_S};

    #[test]
    fn validity_constants_match_the_dates() {
        let (y, m, d) = CERT_NOT_BEFORE_YMD;
        assert_eq!(date_time_ymd(y, m, d).unix_timestamp(), CERT_NOT_BEFORE_UNIX_S as i64);
        let (y, m, d) = CERT_NOT_AFTER_YMD;
        assert_eq!(date_time_ymd(y, m, d).unix_timestamp(), CERT_NOT_AFTER_UNIX_S as i64);
    }
}
