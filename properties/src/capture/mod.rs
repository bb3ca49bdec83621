//! What a run captured, in the formats network engineers' tools read:
//! [`pcap`] (pcapng for Wireshark and tshark, with the run's TLS secrets
//! embedded), [`ip`] (the IPv4/UDP headers around a captured datagram) and
//! [`perfetto`] (the trace as Chrome trace events). Only this module writes
//! them, from what the run collected; the run never knows.

pub mod ip;
pub mod pcap;
pub mod perfetto;
pub mod qlog;

use std::path::{Path, PathBuf};

use ftw_sim::net::capture::Capture;
use ftw_sim::RunOutcome;

/// The link `--pcap FILE` writes to FILE itself: the cloud's, where every
/// connection arrives once. The others go beside it ([`link_path`]).
pub const MAIN_LINK: &str = "cloud";

/// The links named so are NATs' outsides (`nat-wifi`, `nat-cell`, `nat-home`:
/// `ftw_sim::net::capture`); they share one file, named [`NAT_FILE`].
pub const NAT_PREFIX: &str = "nat-";
pub const NAT_FILE: &str = "nat";

/// One pcapng file written: where, its links (one interface each), what it holds.
pub struct Written {
    pub path: PathBuf,
    pub links: Vec<String>,
    pub pcap: pcap::Pcapng,
}

/// The file named `name` beside `path`: `run.pcapng` gives `run.phone.pcapng`.
pub fn link_path(path: &Path, name: &str) -> PathBuf {
    let ext = path.extension().map_or("pcapng".to_string(), |e| e.to_string_lossy().into_owned());
    path.with_extension(format!("{name}.{ext}"))
}

/// The files `--pcap` writes, as (name beside FILE, or None for FILE itself;
/// links): each one vantage point, where a packet shows once. FILE: the cloud's
/// link (the first link if the run has no cloud); each other host's leg its own
/// file (`phone`, `box`: inside their NATs); every NAT's outside together (`nat`:
/// the internet side of the NATs, so a connection that moved from one NAT to
/// another is in one file with its handshake).
pub fn vantage_points(capture: &Capture) -> Vec<(Option<String>, Vec<String>)> {
    let names: Vec<&str> = capture.links.iter().map(|l| l.name.as_str()).collect();
    let Some(main) = names.iter().find(|n| **n == MAIN_LINK).or(names.first()).copied() else { return Vec::new() };
    let mut out = vec![(None, vec![main.to_string()])];
    let nats: Vec<String> = names.iter().filter(|n| n.starts_with(NAT_PREFIX) && **n != main).map(|n| n.to_string()).collect();
    for n in names.iter().filter(|n| !n.starts_with(NAT_PREFIX) && **n != main) {
        out.push((Some(n.to_string()), vec![n.to_string()]));
    }
    if !nats.is_empty() {
        out.push((Some(NAT_FILE.to_string()), nats));
    }
    out
}

/// One file a vantage point ([`vantage_points`]), each with the TLS secrets
/// embedded: what Wireshark's and tshark's QUIC decryption needs (the same
/// packet seen inside and outside a NAT looks like a second client to them).
/// `what` names the flag or file in an error.
pub fn write_per_link(capture: &Capture, keys: &str, path: &Path, what: &str) -> Result<Vec<Written>, String> {
    let points = vantage_points(capture);
    if points.is_empty() {
        let file = pcap::pcapng(capture, keys).map_err(|e| format!("{what} {}: {e}", path.display()))?;
        pcap::write(path, what, &file)?;
        return Ok(vec![Written { path: path.to_path_buf(), links: Vec::new(), pcap: file }]);
    }
    let mut out = Vec::new();
    for (name, links) in points {
        let one = pcap::only_links(capture, &links)?;
        let file_path = name.map_or_else(|| path.to_path_buf(), |n| link_path(path, &n));
        let file = pcap::pcapng(&one, keys).map_err(|e| format!("{what} {}: {e}", file_path.display()))?;
        pcap::write(&file_path, what, &file)?;
        out.push(Written { path: file_path, links, pcap: file });
    }
    Ok(out)
}

/// Write the pcapng files (`--pcap`: one a link, [`write_per_link`]; with
/// `--pcap-link`, only the `links` named, together in the one file) and the
/// key log (`--keylog`) of a finished run; the error names the flag and the
/// file or value.
pub fn write_captures(outcome: &RunOutcome, pcap: Option<&Path>, links: &[String], keylog: Option<&Path>) -> Result<Vec<Written>, String> {
    let keys = outcome.keylog.to_text();
    if let Some(path) = keylog {
        std::fs::write(path, &keys).map_err(|e| format!("--keylog {}: {e}", path.display()))?;
    }
    let Some(path) = pcap else { return Ok(Vec::new()) };
    if links.is_empty() {
        return write_per_link(&outcome.capture, &keys, path, "--pcap");
    }
    let capture = pcap::only_links(&outcome.capture, links).map_err(|e| format!("--pcap-link: {e}"))?;
    let file = pcap::pcapng(&capture, &keys).map_err(|e| format!("--pcap {}: {e}", path.display()))?;
    pcap::write(path, "--pcap", &file)?;
    Ok(vec![Written { path: path.to_path_buf(), links: links.to_vec(), pcap: file }])
}

/// Run `spec` again with capture on and write its pcapng files, one a link as
/// `--pcap` does, `path` the cloud's: the capture of a corpus entry or a fuzz failure.
pub fn pcap_of_spec(spec: &ftw_sim::RunSpec, path: &Path) -> Result<Vec<Written>, String> {
    let mut spec = spec.clone();
    spec.capture = true;
    let report = ftw_sim::scenario::run(&spec)?;
    let keys = report.outcome.keylog.to_text();
    write_per_link(&report.outcome.capture, &keys, path, "pcapng")
}

/// The files beside `path` that [`write_per_link`] may have written for its
/// other vantage points: `<stem>.<name>.pcapng` (to list them).
pub fn link_files_beside(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else { return Vec::new() };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let prefix = format!("{}.", stem.to_string_lossy());
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let link_of = |name: &str| name.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".pcapng")).is_some_and(|l| !l.is_empty() && !l.contains('.'));
    let mut out: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().is_some_and(|n| link_of(&n.to_string_lossy())))
        .map(|p| dir_as_given(path, &p))
        .collect();
    out.sort();
    out
}

/// `found` (read from `path`'s directory) spelt as `path` spells its directory.
fn dir_as_given(path: &Path, found: &Path) -> PathBuf {
    match (path.parent(), found.file_name()) {
        (Some(d), Some(name)) => d.join(name),
        _ => found.to_path_buf(),
    }
}

/// One line for people: what a file holds and the command that opens it.
pub fn summary(w: &Written) -> String {
    let p = &w.pcap;
    let on = match w.links.len() {
        1 => format!("link {}", w.links[0]),
        0 => format!("{} links", p.interfaces),
        _ => format!("links {}", w.links.join(", ")),
    };
    format!(
        "{}: {} packets on {on} ({} lost, marked LOST in their comments), TLS secrets embedded; open with: tshark -r {}",
        w.path.display(),
        p.packets,
        p.lost,
        w.path.display()
    )
}

/// How to open the files written for `path` (the cloud's link) and its other
/// links beside it: `tshark -r <path>   (other links: ...)`.
pub fn open_hint(path: &Path) -> String {
    let others: Vec<String> = link_files_beside(path).iter().map(|p| p.display().to_string()).collect();
    match others.is_empty() {
        true => format!("tshark -r {}", path.display()),
        false => format!("tshark -r {}   (the cloud's link; the other vantage points, QUIC decrypted in each: {})", path.display(), others.join(", ")),
    }
}
