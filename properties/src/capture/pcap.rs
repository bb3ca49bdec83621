//! A run's capture as pcapng (`ftwsim run --pcap`): one interface per link,
//! every packet at its simulated time from the trace's epoch, lost packets
//! carrying a comment that says where and why, and the run's TLS secrets in a
//! Decryption Secrets Block so Wireshark and tshark decrypt QUIC and the
//! WebSocket's TLS from this one file.
//!
//! Blocks are written by the `pcap-file` crate. It has no type for the
//! Decryption Secrets Block (pcapng block type 0x0000000A), so that one block
//! goes through its `UnknownBlock` with a body laid out here: secrets type
//! `TLSK` (0x544c534b), secrets length, the NSS key log text (the crate pads
//! the block to 32 bits and writes both lengths).

use std::borrow::Cow;
use std::io::Write;
use std::time::Duration;

use ftw_sim::net::capture::{Capture, Packet};
use ftw_sim::time::EPOCH_UNIX_MS;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::blocks::unknown::UnknownBlock;
use pcap_file::pcapng::{Block, PcapNgWriter};
use pcap_file::{DataLink, Endianness};

use super::ip::packet_bytes;

/// pcapng block type of a Decryption Secrets Block.
pub const DSB_BLOCK_TYPE: u32 = 0x0000_000A;
/// Secrets type of a TLS key log in a Decryption Secrets Block ("TLSK").
pub const DSB_TLS_KEY_LOG: u32 = 0x544c_534b;
/// Nanosecond timestamps (`if_tsresol` 9): the crate writes EPB times in ns.
const TS_RESOL_NS: u8 = 9;
const SNAPLEN: u32 = 0xffff;

/// What one capture file holds, and its bytes.
pub struct Pcapng {
    pub bytes: Vec<u8>,
    /// Enhanced Packet Blocks written (every packet of the capture).
    pub packets: usize,
    pub lost: usize,
    pub interfaces: usize,
}

/// Keep only the packets of the links named in `only` (all if empty); an
/// unknown name is an error that lists the capture's links.
pub fn only_links(capture: &Capture, only: &[String]) -> Result<Capture, String> {
    if only.is_empty() {
        return Ok(capture.clone());
    }
    if let Some(bad) = only.iter().find(|n| !capture.links.iter().any(|l| &l.name == *n)) {
        let known: Vec<&str> = capture.links.iter().map(|l| l.name.as_str()).collect();
        return Err(format!("no link {bad:?} in this run's capture; its links: {}", known.join(", ")));
    }
    let mut out = capture.clone();
    out.links.retain(|l| only.contains(&l.name));
    out.packets.retain(|p| only.contains(&p.link));
    Ok(out)
}

/// The pcapng of a capture, with `keylog` (NSS key log text) embedded if not empty.
pub fn pcapng(capture: &Capture, keylog: &str) -> Result<Pcapng, String> {
    let section = SectionHeaderBlock {
        endianness: Endianness::Little,
        options: vec![SectionHeaderOption::UserApplication(Cow::Borrowed("ftwsim (simulated time)"))],
        ..Default::default()
    };
    let mut w = PcapNgWriter::with_section_header(Vec::new(), section).map_err(|e| e.to_string())?;
    for link in &capture.links {
        let options = vec![
            InterfaceDescriptionOption::IfName(Cow::Borrowed(&link.name)),
            InterfaceDescriptionOption::IfDescription(Cow::Borrowed(&link.what)),
            InterfaceDescriptionOption::IfTsResol(TS_RESOL_NS),
        ];
        let idb = InterfaceDescriptionBlock { linktype: DataLink::RAW, snaplen: SNAPLEN, options };
        w.write_block(&Block::InterfaceDescription(idb)).map_err(|e| e.to_string())?;
    }
    if !keylog.is_empty() {
        w.write_block(&Block::Unknown(secrets_block(keylog))).map_err(|e| e.to_string())?;
    }
    let mut order: Vec<&Packet> = capture.packets.iter().collect();
    order.sort_by_key(|p| p.t);
    for p in &order {
        w.write_block(&Block::EnhancedPacket(epb(capture, p))).map_err(|e| e.to_string())?;
    }
    let lost = order.iter().filter(|p| p.lost).count();
    Ok(Pcapng { bytes: w.into_inner(), packets: order.len(), lost, interfaces: capture.links.len() })
}

/// A Decryption Secrets Block carrying an NSS key log.
fn secrets_block(keylog: &str) -> UnknownBlock<'static> {
    let mut body = Vec::with_capacity(8 + keylog.len());
    body.extend_from_slice(&DSB_TLS_KEY_LOG.to_le_bytes());
    body.extend_from_slice(&(keylog.len() as u32).to_le_bytes());
    body.extend_from_slice(keylog.as_bytes());
    UnknownBlock { type_: DSB_BLOCK_TYPE, length: 0, value: Cow::Owned(body) }
}

/// The Enhanced Packet Block of one packet on its link's interface.
fn epb<'a>(capture: &Capture, p: &Packet) -> EnhancedPacketBlock<'a> {
    let interface_id = capture.links.iter().position(|l| l.name == p.link).expect("every packet's link is listed") as u32;
    let data = packet_bytes(p);
    let mut options = Vec::new();
    if let Some(note) = &p.note {
        let text = if p.lost { format!("LOST: {note}") } else { note.clone() };
        options.push(EnhancedPacketOption::Comment(Cow::Owned(text)));
    }
    let timestamp = Duration::from_millis(EPOCH_UNIX_MS) + p.t;
    EnhancedPacketBlock { interface_id, timestamp, original_len: data.len() as u32, data: Cow::Owned(data), options }
}

/// Write `pcap` to `path`, naming the flag in the error.
pub fn write(path: &std::path::Path, flag: &str, pcap: &Pcapng) -> Result<(), String> {
    let mut f = std::fs::File::create(path).map_err(|e| format!("{flag} {}: {e}", path.display()))?;
    f.write_all(&pcap.bytes).map_err(|e| format!("{flag} {}: {e}", path.display()))
}
