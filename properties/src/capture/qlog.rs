//! A run's qlog as files for qvis (`ftwsim run --qlog DIR`): one `.sqlog`
//! (JSON-SEQ, RFC 7464) per connection and side, named
//! `<client|server>-<original destination connection id>.sqlog`, so the two
//! ends of a connection sit side by side.
//!
//! quinn-proto writes one stream per transport configuration (a client's
//! configuration dials many connections; the cloud's accepts them all); each
//! event names its connection in `group_id`: on the server the client's source
//! connection id, on a client its first destination id until the server's
//! first Initial arrives, the server's source id after it. A client's events
//! under an id that does not begin with a sent Initial (or 0-RTT) packet are
//! the same connection's as the last one begun, renamed to its first id: exact
//! for a configuration's connections one after another (every client here),
//! a guess if one configuration had two handshakes at once.
//! Each file is the stream's header, with the vantage point set to the side,
//! followed by that connection's events, in order.

use std::collections::BTreeMap;
use std::path::Path;

use ftw_crypto::qlog::QlogBytes;
use serde_json::Value;

/// JSON-SEQ record separator.
const RS: u8 = 0x1e;

/// One file: its name and its bytes.
pub struct SqlogFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub events: usize,
}

fn records(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let texts = bytes.split(|&b| b == RS).map(|r| String::from_utf8_lossy(r).trim().to_string()).filter(|t| !t.is_empty());
    texts.map(|t| serde_json::from_str(&t).map_err(|e| format!("a qlog record that is not JSON ({e}): {t}"))).collect()
}

fn record_bytes(out: &mut Vec<u8>, v: &Value) {
    out.push(RS);
    out.extend_from_slice(v.to_string().as_bytes());
    out.push(b'\n');
}

/// A client's first event of a connection: a sent Initial or 0-RTT packet.
fn begins_connection(r: &Value) -> bool {
    r["name"] == "transport:packet_sent" && matches!(r["data"]["header"]["packet_type"].as_str(), Some("initial" | "0RTT"))
}

/// The per-connection files of one stream.
fn split(stream: &QlogBytes) -> Result<Vec<SqlogFile>, String> {
    let mut recs = records(&stream.bytes)?.into_iter();
    let Some(mut header) = recs.next() else { return Ok(Vec::new()) };
    header["trace"]["vantage_point"] = serde_json::json!({ "name": format!("ftw-sim {}", stream.role), "type": stream.role });
    let mut by_conn: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut alias: BTreeMap<String, String> = BTreeMap::new();
    for mut r in recs {
        let raw = r["group_id"].as_str().unwrap_or("no-group").to_string();
        let id = match alias.get(&raw) {
            Some(id) => id.clone(),
            None => {
                let id = match order.last() {
                    Some(last) if stream.role == "client" && !begins_connection(&r) => last.clone(),
                    _ => raw.clone(),
                };
                alias.insert(raw, id.clone());
                if !by_conn.contains_key(&id) {
                    order.push(id.clone());
                }
                id
            }
        };
        r["group_id"] = Value::String(id.clone());
        by_conn.entry(id).or_default().push(r);
    }
    let files = order.into_iter().map(|id| {
        let events = &by_conn[&id];
        let mut bytes = Vec::new();
        let mut h = header.clone();
        h["trace"]["common_fields"] = serde_json::json!({ "group_id": id });
        record_bytes(&mut bytes, &h);
        events.iter().for_each(|e| record_bytes(&mut bytes, e));
        SqlogFile { name: format!("{}-{id}.sqlog", stream.role), bytes, events: events.len() }
    });
    Ok(files.collect())
}

/// Write every connection's `.sqlog` into `dir` (made if missing); how many files.
pub fn write_dir(dir: &Path, streams: &[QlogBytes]) -> Result<usize, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("--qlog {}: {e}", dir.display()))?;
    let mut n = 0;
    for s in streams {
        for f in split(s).map_err(|e| format!("--qlog: {e}"))? {
            let path = dir.join(&f.name);
            std::fs::write(&path, &f.bytes).map_err(|e| format!("--qlog {}: {e}", path.display()))?;
            n += 1;
        }
    }
    Ok(n)
}
