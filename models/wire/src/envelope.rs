//! The CBOR envelope `{t: text, id?: u32, b?: any}` and the typed messages.
//!
//! # Encoding
//!
//! The envelope is a CBOR map written in the key order `t`, `id`, `b` (what the reference
//! implementation emits and what the vector bytes show: `a3 6174.. 626964.. 6162..`); decoding
//! accepts any order. Bodies are maps with text keys written in **declaration order** of the
//! fields below (the vectors' `cmd` body is `cmdId, op, args, notValidAfterMs, expect`, not
//! sorted), integers in their shortest form, absent optional fields left out. Maps keyed by a
//! field id (`fields`, `dict`) have decimal text keys in ascending numeric order (as the
//! reference's JavaScript objects do); maps keyed by names are sorted by name. So equal values
//! always give equal bytes ("deterministic").
//!
//! Unknown keys (in the envelope and in bodies) and unknown types are ignored: an unknown type
//! decodes to [`Msg::Unknown`]. An `id` that is not a u32 is dropped, not fatal.
//!
//! # Messages and their fields (chosen here where the public design does not say)
//!
//! | `t` | dir | lane | body keys |
//! |---|---|---|---|
//! | `hello` | phone→box | 0 | `proto: {min, max}`, `caps: [text]`, `sub: {fields: [u32], live: bool, hidden: bool}` |
//! | `hello_ok` | box→phone | 1 | `proto: u32`, `mode: text` ("full"/"floor"), `caps: [text]`, `clock: {source, syncedAtMs, uptimeMs}`, `boot: text`, `hint?: text` |
//! | `snap` | box→phone | 1 | `rev: u64`, `dict: {"<fid>": {name, unit, srcId}}`, `fields: {"<fid>": i64}`, `sources: {srcId: {kind, name?, lastOkMs, staleAfterMs, state}}` |
//! | `delta` | box→phone | 0 | `seq: u64`, `fields: {"<fid>": i64}` (TRUNC set when fields were dropped) |
//! | `tick` | box→phone | 0 | none, or `seq: u64` |
//! | `cmd` | phone→box | 0 | `cmdId: text`, `op: text`, `args: any`, `notValidAfterMs: u64`, `expect?: {rev: u64, guards: [any]}` |
//! | `cmd.ack` | box→phone | 0 | `cmdId: text`, `accepted: bool`, `code?: text` |
//! | `cmd.result` | box→phone | 0 | `cmdId: text`, `ok: bool`, `code?: text` |
//! | `hb` | box→phone (datagram) | 0 | `liveSeq: u64` (latest `live` sent, so a lost `live` shows as a gap) |
//! | `live` | box→phone (datagram) | 0 | `liveSeq: u64`, `srcRev: u64` (source table revision it was built against), `wallMs: u64` (box wall clock), `values: {name: i64}` (e.g. `grid_w`, `pv_w`, `battery_w`, `soc_pct`) |
//! | `error` | box→phone | 0 | `code: text` (registry `E_*`), `args?: {text: text}` |
//! | `session.terminate` | box→phone | 0 | `reason: text` |
//! | `now.tun` | phone→cloud (outer msg 1 payload) | - | `box: text` (box id), `m1: bytes` (the box session's handshake message 1) |
//!
//! `fid` is a frozen field id of registry.yaml (2 = grid_w, 3 = pv_w, 4 = battery_w, ...).

use std::collections::BTreeMap;

use ciborium::Value;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::consts::{FLAG_TRUNC, LANE_BULK, LANE_CONTROL};
use crate::frame::{ControlBucket, Frame};

/// The raw envelope: type, optional request id, optional body left as a CBOR value.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// Message type.
    pub t: String,
    /// Request id; replies echo it.
    pub id: Option<u32>,
    /// Body.
    pub b: Option<Value>,
}

/// Why bytes are not an envelope, or a known type's body is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvelopeError {
    /// Not valid CBOR.
    Cbor(String),
    /// Valid CBOR but not a map.
    NotAMap,
    /// No `t` key.
    NoType,
    /// `t` is not text.
    TypeNotText,
    /// A known type whose body does not have the expected shape.
    Body { t: String, reason: String },
}

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::error::Error for EnvelopeError {}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// Serialize a value to CBOR bytes (infallible for the types used here).
pub fn to_cbor<T: Serialize>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::into_writer(v, &mut out).expect("CBOR encoding into a Vec cannot fail");
    out
}

impl Envelope {
    /// Encode as `{t, id?, b?}` in that key order.
    pub fn encode(&self) -> Vec<u8> {
        let mut map = vec![(text("t"), text(&self.t))];
        if let Some(id) = self.id {
            map.push((text("id"), Value::Integer(id.into())));
        }
        if let Some(b) = &self.b {
            map.push((text("b"), b.clone()));
        }
        to_cbor(&Value::Map(map))
    }

    /// Decode, ignoring unknown keys; an `id` that is not a u32 is dropped.
    pub fn decode(bytes: &[u8]) -> Result<Envelope, EnvelopeError> {
        let value: Value = ciborium::from_reader(bytes).map_err(|e| EnvelopeError::Cbor(e.to_string()))?;
        let Value::Map(entries) = value else { return Err(EnvelopeError::NotAMap) };
        let mut t = None;
        let mut id = None;
        let mut b = None;
        for (k, v) in entries {
            match k.as_text() {
                Some("t") if t.is_none() => match v {
                    Value::Text(s) => t = Some(s),
                    _ => return Err(EnvelopeError::TypeNotText),
                },
                Some("id") if id.is_none() => {
                    id = v.as_integer().and_then(|i| u32::try_from(i).ok());
                }
                Some("b") if b.is_none() => b = Some(v),
                _ => {} // unknown keys are ignored
            }
        }
        Ok(Envelope { t: t.ok_or(EnvelopeError::NoType)?, id, b })
    }
}

/// A map keyed by a numeric field id, written with decimal text keys in ascending order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdMap<T>(pub BTreeMap<u32, T>);

impl<T> IdMap<T> {
    /// Empty map.
    pub fn new() -> Self {
        IdMap(BTreeMap::new())
    }
}

impl<T, const N: usize> From<[(u32, T); N]> for IdMap<T> {
    fn from(a: [(u32, T); N]) -> Self {
        IdMap(BTreeMap::from(a))
    }
}

impl<T: Serialize> Serialize for IdMap<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(&k.to_string(), v)?;
        }
        m.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IdMap<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = BTreeMap::<String, T>::deserialize(d)?;
        // A key that is not a field id is an unknown key: ignored.
        Ok(IdMap(raw.into_iter().filter_map(|(k, v)| k.parse::<u32>().ok().map(|k| (k, v))).collect()))
    }
}

/// `hello.proto`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtoRange {
    pub min: u32,
    pub max: u32,
}

/// `hello.sub`: what the phone subscribes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Subscription {
    /// Field ids wanted on lane 0 (empty = all).
    pub fields: Vec<u32>,
    /// Whether `live`/`hb` datagrams are wanted.
    pub live: bool,
    /// The view is hidden: lane-0 cadence 0.2 Hz instead of 1 Hz.
    pub hidden: bool,
}

/// `hello` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub proto: ProtoRange,
    pub caps: Vec<String>,
    pub sub: Subscription,
}

/// `hello_ok.clock`: ages are uptime deltas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Clock {
    pub source: String,
    pub synced_at_ms: u64,
    pub uptime_ms: u64,
}

/// `hello_ok` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloOk {
    pub proto: u32,
    pub mode: String,
    pub caps: Vec<String>,
    pub clock: Clock,
    pub boot: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `snap.dict` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldDef {
    pub name: String,
    pub unit: String,
    pub src_id: String,
}

/// `snap.sources` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub last_ok_ms: u64,
    pub stale_after_ms: u64,
    /// One of registry.yaml `source_states`.
    pub state: String,
}

/// `snap` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snap {
    pub rev: u64,
    pub dict: IdMap<FieldDef>,
    pub fields: IdMap<i64>,
    pub sources: BTreeMap<String, SourceInfo>,
}

/// `delta` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    pub seq: u64,
    pub fields: IdMap<i64>,
}

/// `cmd.expect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expect {
    pub rev: u64,
    pub guards: Vec<Value>,
}

/// `cmd` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cmd {
    pub cmd_id: String,
    pub op: String,
    pub args: Value,
    pub not_valid_after_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// `cmd.ack` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdAck {
    pub cmd_id: String,
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `cmd.result` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdResult {
    pub cmd_id: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `hb` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hb {
    pub live_seq: u64,
}

/// `live` body: the readable copy the cloud may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Live {
    pub live_seq: u64,
    pub src_rev: u64,
    pub wall_ms: u64,
    pub values: BTreeMap<String, i64>,
}

/// `error` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorMsg {
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<BTreeMap<String, String>>,
}

/// `session.terminate` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terminate {
    pub reason: String,
}

/// `now.tun` body: the box session's message 1, carried in the outer handshake's message 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NowTun {
    /// Which box the phone wants.
    pub box_id: String,
    /// The box session's handshake message 1.
    pub m1: Vec<u8>,
}

/// A typed message.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    Hello(Hello),
    HelloOk(HelloOk),
    Snap(Snap),
    Delta(Delta),
    /// `tick`; `seq` absent gives an envelope with no body.
    Tick {
        seq: Option<u64>,
    },
    Cmd(Cmd),
    CmdAck(CmdAck),
    CmdResult(CmdResult),
    Hb(Hb),
    Live(Live),
    Error(ErrorMsg),
    SessionTerminate(Terminate),
    NowTun(NowTun),
    /// A type this side does not know: ignored by the caller.
    Unknown(String),
}

#[derive(Serialize, Deserialize)]
struct TickBody {
    seq: u64,
}

fn body<T: Serialize>(v: &T) -> Option<Value> {
    Some(Value::serialized(v).expect("body serializes to a CBOR value"))
}

fn parse<T: DeserializeOwned>(t: &str, b: &Option<Value>) -> Result<T, EnvelopeError> {
    let v = b.as_ref().ok_or_else(|| EnvelopeError::Body { t: t.into(), reason: "no body".into() })?;
    v.deserialized().map_err(|e| EnvelopeError::Body { t: t.into(), reason: e.to_string() })
}

impl Msg {
    /// The envelope type string.
    pub fn type_name(&self) -> &str {
        match self {
            Msg::Hello(_) => "hello",
            Msg::HelloOk(_) => "hello_ok",
            Msg::Snap(_) => "snap",
            Msg::Delta(_) => "delta",
            Msg::Tick { .. } => "tick",
            Msg::Cmd(_) => "cmd",
            Msg::CmdAck(_) => "cmd.ack",
            Msg::CmdResult(_) => "cmd.result",
            Msg::Hb(_) => "hb",
            Msg::Live(_) => "live",
            Msg::Error(_) => "error",
            Msg::SessionTerminate(_) => "session.terminate",
            Msg::NowTun(_) => "now.tun",
            Msg::Unknown(t) => t,
        }
    }

    /// The lane this message travels on (SPEC.md §2: snap and hello_ok bulk, the rest control).
    pub fn lane(&self) -> u8 {
        match self {
            Msg::Snap(_) | Msg::HelloOk(_) => LANE_BULK,
            _ => LANE_CONTROL,
        }
    }

    /// The envelope of this message.
    pub fn to_envelope(&self, id: Option<u32>) -> Envelope {
        let b = match self {
            Msg::Hello(x) => body(x),
            Msg::HelloOk(x) => body(x),
            Msg::Snap(x) => body(x),
            Msg::Delta(x) => body(x),
            Msg::Tick { seq } => seq.map(|seq| body(&TickBody { seq }).expect("some")),
            Msg::Cmd(x) => body(x),
            Msg::CmdAck(x) => body(x),
            Msg::CmdResult(x) => body(x),
            Msg::Hb(x) => body(x),
            Msg::Live(x) => body(x),
            Msg::Error(x) => body(x),
            Msg::SessionTerminate(x) => body(x),
            Msg::NowTun(x) => Some(Value::Map(vec![(text("box"), text(&x.box_id)), (text("m1"), Value::Bytes(x.m1.clone()))])),
            Msg::Unknown(_) => None,
        };
        Envelope { t: self.type_name().to_string(), id, b }
    }

    /// The message of an envelope; unknown types give [`Msg::Unknown`].
    pub fn from_envelope(env: &Envelope) -> Result<Msg, EnvelopeError> {
        let t = env.t.as_str();
        let b = &env.b;
        Ok(match t {
            "hello" => Msg::Hello(parse(t, b)?),
            "hello_ok" => Msg::HelloOk(parse(t, b)?),
            "snap" => Msg::Snap(parse(t, b)?),
            "delta" => Msg::Delta(parse(t, b)?),
            "tick" => Msg::Tick {
                seq: match b {
                    None => None,
                    Some(_) => Some(parse::<TickBody>(t, b)?.seq),
                },
            },
            "cmd" => Msg::Cmd(parse(t, b)?),
            "cmd.ack" => Msg::CmdAck(parse(t, b)?),
            "cmd.result" => Msg::CmdResult(parse(t, b)?),
            "hb" => Msg::Hb(parse(t, b)?),
            "live" => Msg::Live(parse(t, b)?),
            "error" => Msg::Error(parse(t, b)?),
            "session.terminate" => Msg::SessionTerminate(parse(t, b)?),
            "now.tun" => {
                let bad = |reason: &str| EnvelopeError::Body { t: t.into(), reason: reason.into() };
                let Some(Value::Map(entries)) = b else { return Err(bad("body is not a map")) };
                let mut box_id = None;
                let mut m1 = None;
                for (k, v) in entries {
                    match (k.as_text(), v) {
                        (Some("box"), Value::Text(s)) => box_id = Some(s.clone()),
                        (Some("m1"), Value::Bytes(m)) => m1 = Some(m.clone()),
                        _ => {}
                    }
                }
                Msg::NowTun(NowTun { box_id: box_id.ok_or_else(|| bad("no box"))?, m1: m1.ok_or_else(|| bad("no m1"))? })
            }
            other => Msg::Unknown(other.to_string()),
        })
    }

    /// Envelope bytes of this message.
    pub fn encode(&self, id: Option<u32>) -> Vec<u8> {
        self.to_envelope(id).encode()
    }

    /// Decode envelope bytes into (id, message).
    pub fn decode(bytes: &[u8]) -> Result<(Option<u32>, Msg), EnvelopeError> {
        let env = Envelope::decode(bytes)?;
        Ok((env.id, Msg::from_envelope(&env)?))
    }

    /// The frame carrying this message on its lane (flags 0).
    pub fn to_frame(&self, id: Option<u32>) -> Frame {
        Frame { lane: self.lane(), flags: 0, payload: self.encode(id) }
    }
}

/// A `delta` frame that fits the lane-0 bucket: fields go in ascending id order (the frozen,
/// highest-priority ids first); if they do not all fit, the tail is dropped and TRUNC is set
/// (the rest follows on a later tick or as a snapshot). Returns the frame and the ids left out.
pub fn fit_delta(seq: u64, fields: &IdMap<i64>, bucket: ControlBucket) -> (Frame, Vec<u32>) {
    let all: Vec<(u32, i64)> = fields.0.iter().map(|(&k, &v)| (k, v)).collect();
    let encode = |n: usize| {
        let d = Delta { seq, fields: IdMap(all[..n].iter().copied().collect()) };
        Msg::Delta(d).encode(None)
    };
    let mut n = all.len();
    let mut payload = encode(n);
    while payload.len() > bucket.payload_len_max() {
        assert!(n > 0, "an empty delta must fit any lane-0 bucket");
        n -= 1;
        payload = encode(n);
    }
    let dropped: Vec<u32> = all[n..].iter().map(|&(k, _)| k).collect();
    let flags = if dropped.is_empty() { 0 } else { FLAG_TRUNC };
    (Frame { lane: LANE_CONTROL, flags, payload }, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: Vec<(&str, Value)>) -> Vec<u8> {
        to_cbor(&Value::Map(entries.into_iter().map(|(k, v)| (text(k), v)).collect()))
    }

    /// Every envelope error prints a message naming what went wrong (and its details).
    #[test]
    fn errors_display_what_went_wrong() {
        for (e, want) in [
            (EnvelopeError::Cbor("eof".into()), "eof"),
            (EnvelopeError::NotAMap, "NotAMap"),
            (EnvelopeError::NoType, "NoType"),
            (EnvelopeError::TypeNotText, "TypeNotText"),
            (EnvelopeError::Body { t: "hb".into(), reason: "no body".into() }, "no body"),
        ] {
            let shown = e.to_string();
            assert!(shown.contains(want), "{shown:?} should name {want:?}");
        }
        assert!(EnvelopeError::Body { t: "hb".into(), reason: "x".into() }.to_string().contains("hb"));
    }

    /// A key given twice in an envelope keeps its first value: a later copy overrides nothing.
    #[test]
    fn duplicate_envelope_keys_keep_the_first_value() {
        let int = |i: u32| Value::Integer(i.into());
        let env = Envelope::decode(&map(vec![("t", text("hb")), ("t", text("tick"))])).unwrap();
        assert_eq!(env.t, "hb");
        let env = Envelope::decode(&map(vec![("t", text("hb")), ("id", int(1)), ("id", int(2))])).unwrap();
        assert_eq!(env.id, Some(1));
        let env = Envelope::decode(&map(vec![("t", text("hb")), ("b", int(1)), ("b", int(2))])).unwrap();
        assert_eq!(env.b, Some(int(1)));
    }

    /// A delta whose payload is exactly the bucket's largest payload fits whole: no TRUNC,
    /// nothing dropped, and the frame fills the bucket to the last byte.
    #[test]
    fn delta_of_exactly_the_bucket_payload_fits_whole() {
        for bucket in [ControlBucket::Small256, ControlBucket::Large512] {
            let max = bucket.payload_len_max();
            // Search a field count and a seq width (1, 2, 3, 5 or 9 CBOR bytes) that land on `max`.
            let exact = (1..200u32)
                .flat_map(|n| [0u64, 24, 256, 65_536, 1 << 32].map(|seq| (n, seq)))
                .map(|(n, seq)| (seq, IdMap((1..=n).map(|k| (k, 1_000_000i64)).collect())))
                .find(|(seq, fields)| Msg::Delta(Delta { seq: *seq, fields: fields.clone() }).encode(None).len() == max);
            let (seq, fields) = exact.expect("some delta lands exactly on the limit");
            let (f, dropped) = fit_delta(seq, &fields, bucket);
            assert_eq!(dropped, Vec::<u32>::new());
            assert!(!f.is_trunc());
            assert_eq!(f.payload.len(), max);
            let wire = f.encode(bucket).expect("fits its bucket");
            assert_eq!(wire.len(), bucket.len_bytes());
            assert_eq!(&wire[4..6], &(max as u16).to_be_bytes(), "len says the bucket's whole payload: no padding");
        }
    }
}
