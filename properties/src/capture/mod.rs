//! What a run captured, in the formats network engineers' tools read:
//! [`pcap`] (pcapng for Wireshark and tshark, with the run's TLS secrets
//! embedded), [`ip`] (the IPv4/UDP headers around a captured datagram) and
//! [`perfetto`] (the trace as Chrome trace events). Only this module writes
//! them, from what the run collected; the run never knows.

pub mod ip;
pub mod pcap;
pub mod perfetto;
pub mod qlog;

use std::path::Path;

use ftw_sim::world::RunOutcome;

/// Write the pcapng (`--pcap`, only the `links` named if any: `--pcap-link`)
/// and the key log (`--keylog`) of a finished run; the error names the flag
/// and the file or value.
pub fn write_captures(outcome: &RunOutcome, pcap: Option<&Path>, links: &[String], keylog: Option<&Path>) -> Result<Option<pcap::Pcapng>, String> {
    let keys = outcome.keylog.to_text();
    if let Some(path) = keylog {
        std::fs::write(path, &keys).map_err(|e| format!("--keylog {}: {e}", path.display()))?;
    }
    let Some(path) = pcap else { return Ok(None) };
    let capture = pcap::only_links(&outcome.capture, links).map_err(|e| format!("--pcap-link: {e}"))?;
    let file = pcap::pcapng(&capture, &keys).map_err(|e| format!("--pcap {}: {e}", path.display()))?;
    pcap::write(path, "--pcap", &file)?;
    Ok(Some(file))
}

/// Run `spec` again with capture on and write its pcapng (all links, secrets
/// embedded) to `path`: the pcapng of a corpus entry or a fuzz failure.
pub fn pcap_of_spec(spec: &ftw_sim::world::topology::RunSpec, path: &Path) -> Result<pcap::Pcapng, String> {
    let mut spec = spec.clone();
    spec.capture = true;
    let report = crate::reference::run(&spec)?;
    let keys = report.outcome.keylog.to_text();
    let file = pcap::pcapng(&report.outcome.capture, &keys).map_err(|e| format!("{}: {e}", path.display()))?;
    pcap::write(path, "pcapng", &file)?;
    // The cloud's link alone as well (`<entry>.cloud.pcapng`): tshark decrypts QUIC
    // only from one vantage point (docs/tools.md), the all-links file shows where
    // each packet was lost.
    if let Ok(cloud) = pcap::only_links(&report.outcome.capture, &["cloud".to_string()]) {
        let one = path.with_extension("cloud.pcapng");
        let f = pcap::pcapng(&cloud, &keys).map_err(|e| format!("{}: {e}", one.display()))?;
        pcap::write(&one, "pcapng", &f)?;
    }
    Ok(file)
}
