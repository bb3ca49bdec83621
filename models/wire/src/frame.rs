//! The frame: `ver u8 = 1 | lane u8 | flags u8 | rsvd u8 = 0 | len u16 BE | payload | zero pad`.
//!
//! Lane 0 (control/telemetry) is exactly one bucket, 256 or 512 bytes, chosen for the life of
//! a session; it never grows and never fragments (the constancy is the privacy control).
//! Lane 1 (bulk) takes the smallest of 1024 / 4096 / 16384 that holds the frame.
//!
//! The encoder never truncates on its own: an oversized lane-0 payload is an error
//! ([`EncodeError::ExceedsBucket`]). TRUNC (`0x02`) is set by the message layer when it drops
//! the lower-priority fields of a delta so that it fits (see
//! [`crate::envelope::fit_delta`]); this is what vector `delta_truncated` shows: a short
//! payload, flags 2, the same 512-byte bucket.
//!
//! Decoding ignores everything past `len` (the AEAD covers the padding). Decoding errors are
//! typed; unknown lanes are an error ([`DecodeError::UnknownLane`]), the caller may choose to
//! drop such a frame.

use crate::consts::{BULK_BUCKETS_LEN, CONTROL_BUCKETS_LEN, FLAG_TRUNC, FRAME_HEADER_LEN, FRAME_PAYLOAD_LEN_MAX, FRAME_VERSION, LANE_BULK, LANE_CONTROL};

/// The lane-0 bucket of a session (fixed for its life).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ControlBucket {
    /// 256 bytes.
    Small256,
    /// 512 bytes (the earlier design's default).
    #[default]
    Large512,
}

impl ControlBucket {
    /// The bucket length in bytes.
    pub fn len_bytes(self) -> usize {
        match self {
            ControlBucket::Small256 => CONTROL_BUCKETS_LEN[0],
            ControlBucket::Large512 => CONTROL_BUCKETS_LEN[1],
        }
    }

    /// The bucket for a length, if that length is a lane-0 bucket.
    pub fn from_len(len: usize) -> Option<ControlBucket> {
        match len {
            x if x == CONTROL_BUCKETS_LEN[0] => Some(ControlBucket::Small256),
            x if x == CONTROL_BUCKETS_LEN[1] => Some(ControlBucket::Large512),
            _ => None,
        }
    }

    /// Largest payload that fits this bucket.
    pub fn payload_len_max(self) -> usize {
        self.len_bytes() - FRAME_HEADER_LEN
    }
}

/// One frame (one Noise transport message carries exactly one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    /// 0 = control/telemetry, 1 = bulk.
    pub lane: u8,
    /// Bit flags; `0x02` = TRUNC.
    pub flags: u8,
    /// The CBOR envelope bytes (unpadded).
    pub payload: Vec<u8>,
}

/// Why a frame could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// Lane is neither 0 nor 1.
    UnknownLane(u8),
    /// The payload does not fit the u16 length field.
    PayloadTooLarge { payload_len: usize },
    /// The frame does not fit the (lane-0) bucket, or no bulk bucket holds it.
    ExceedsBucket { needed_len: usize, bucket_len: usize },
    /// Not a bucket this lane may use.
    BadBucket { lane: u8, bucket_len: usize },
}

/// Why bytes are not a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Shorter than the 6-byte header.
    Short { len: usize },
    /// Byte 0 is not 1.
    BadVersion(u8),
    /// Byte 3 (reserved) is not 0.
    NonzeroRsvd(u8),
    /// Lane is neither 0 nor 1.
    UnknownLane(u8),
    /// The declared length overruns the frame.
    BadLength { declared_len: usize, available_len: usize },
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::error::Error for EncodeError {}
impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::error::Error for DecodeError {}

/// The smallest bulk bucket that holds a payload of `payload_len` bytes and the header.
pub fn bulk_bucket_for(payload_len: usize) -> Option<usize> {
    let needed_len = payload_len + FRAME_HEADER_LEN;
    BULK_BUCKETS_LEN.iter().copied().find(|&b| b >= needed_len)
}

/// Whether `bucket_len` is a bucket `lane` may use (lane 0: only the session's bucket).
pub fn bucket_allowed(lane: u8, bucket_len: usize, control: ControlBucket) -> bool {
    match lane {
        LANE_CONTROL => bucket_len == control.len_bytes(),
        LANE_BULK => BULK_BUCKETS_LEN.contains(&bucket_len),
        _ => false,
    }
}

impl Frame {
    /// A lane-0 frame.
    pub fn control(payload: Vec<u8>) -> Frame {
        Frame { lane: LANE_CONTROL, flags: 0, payload }
    }

    /// A lane-1 frame.
    pub fn bulk(payload: Vec<u8>) -> Frame {
        Frame { lane: LANE_BULK, flags: 0, payload }
    }

    /// Whether TRUNC is set.
    pub fn is_trunc(&self) -> bool {
        self.flags & FLAG_TRUNC != 0
    }

    /// The bucket this frame takes: lane 0 the session's bucket, lane 1 the smallest that
    /// holds it.
    pub fn bucket_len(&self, control: ControlBucket) -> Result<usize, EncodeError> {
        match self.lane {
            LANE_CONTROL => Ok(control.len_bytes()),
            LANE_BULK => bulk_bucket_for(self.payload.len()).ok_or(EncodeError::ExceedsBucket {
                needed_len: self.payload.len() + FRAME_HEADER_LEN,
                bucket_len: BULK_BUCKETS_LEN[BULK_BUCKETS_LEN.len() - 1],
            }),
            lane => Err(EncodeError::UnknownLane(lane)),
        }
    }

    /// Encode with the session's lane-0 bucket (lane 1 picks its own step).
    pub fn encode(&self, control: ControlBucket) -> Result<Vec<u8>, EncodeError> {
        let bucket_len = self.bucket_len(control)?;
        self.encode_padded(bucket_len, control)
    }

    /// Encode padded to an explicit bucket, which must be one this lane may use.
    pub fn encode_padded(&self, bucket_len: usize, control: ControlBucket) -> Result<Vec<u8>, EncodeError> {
        if self.lane != LANE_CONTROL && self.lane != LANE_BULK {
            return Err(EncodeError::UnknownLane(self.lane));
        }
        if !bucket_allowed(self.lane, bucket_len, control) {
            return Err(EncodeError::BadBucket { lane: self.lane, bucket_len });
        }
        let payload_len = self.payload.len();
        if payload_len > FRAME_PAYLOAD_LEN_MAX {
            return Err(EncodeError::PayloadTooLarge { payload_len });
        }
        let needed_len = FRAME_HEADER_LEN + payload_len;
        if needed_len > bucket_len {
            return Err(EncodeError::ExceedsBucket { needed_len, bucket_len });
        }
        let mut out = vec![0u8; bucket_len]; // zero-filled: the padding
        out[0] = FRAME_VERSION;
        out[1] = self.lane;
        out[2] = self.flags;
        out[3] = 0;
        out[4..6].copy_from_slice(&(payload_len as u16).to_be_bytes());
        out[FRAME_HEADER_LEN..needed_len].copy_from_slice(&self.payload);
        debug_assert_eq!(out.len(), bucket_len);
        Ok(out)
    }

    /// Decode one frame; the padding past `len` is ignored.
    pub fn decode(bytes: &[u8]) -> Result<Frame, DecodeError> {
        if bytes.len() < FRAME_HEADER_LEN {
            return Err(DecodeError::Short { len: bytes.len() });
        }
        if bytes[0] != FRAME_VERSION {
            return Err(DecodeError::BadVersion(bytes[0]));
        }
        if bytes[3] != 0 {
            return Err(DecodeError::NonzeroRsvd(bytes[3]));
        }
        let lane = bytes[1];
        if lane != LANE_CONTROL && lane != LANE_BULK {
            return Err(DecodeError::UnknownLane(lane));
        }
        let declared_len = u16::from_be_bytes([bytes[4], bytes[5]]) as usize;
        let available_len = bytes.len() - FRAME_HEADER_LEN;
        if declared_len > available_len {
            return Err(DecodeError::BadLength { declared_len, available_len });
        }
        Ok(Frame { lane, flags: bytes[2], payload: bytes[FRAME_HEADER_LEN..FRAME_HEADER_LEN + declared_len].to_vec() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_padding() {
        let f = Frame { lane: 0, flags: FLAG_TRUNC, payload: vec![0xa1, 0x61, 0x74, 0x60] };
        let bytes = f.encode(ControlBucket::Small256).unwrap();
        assert_eq!(bytes.len(), 256);
        assert_eq!(&bytes[..6], &[1, 0, 2, 0, 0, 4]);
        assert!(bytes[10..].iter().all(|&b| b == 0));
        assert_eq!(Frame::decode(&bytes).unwrap(), f);
        assert!(Frame::decode(&bytes).unwrap().is_trunc());
    }

    #[test]
    fn lane0_never_grows() {
        let f = Frame::control(vec![7u8; 507]);
        assert_eq!(f.encode(ControlBucket::Large512), Err(EncodeError::ExceedsBucket { needed_len: 513, bucket_len: 512 }));
        let f = Frame::control(vec![7u8; 506]);
        assert_eq!(f.encode(ControlBucket::Large512).unwrap().len(), 512);
        // Lane 0 may not take a bulk bucket nor the other control bucket.
        assert_eq!(f.encode_padded(1024, ControlBucket::Large512), Err(EncodeError::BadBucket { lane: 0, bucket_len: 1024 }));
        assert!(Frame::control(vec![]).encode_padded(256, ControlBucket::Large512).is_err());
    }

    #[test]
    fn bulk_steps() {
        assert_eq!(bulk_bucket_for(0), Some(1024));
        assert_eq!(bulk_bucket_for(1018), Some(1024));
        assert_eq!(bulk_bucket_for(1019), Some(4096));
        assert_eq!(bulk_bucket_for(16378), Some(16384));
        assert_eq!(bulk_bucket_for(16379), None);
        assert_eq!(Frame::bulk(vec![1; 2000]).encode(ControlBucket::Small256).unwrap().len(), 4096);
        assert!(Frame::bulk(vec![1; 20000]).encode(ControlBucket::Small256).is_err());
    }

    #[test]
    fn typed_decode_errors() {
        let good = Frame::control(vec![1, 2, 3]).encode(ControlBucket::Small256).unwrap();
        assert_eq!(Frame::decode(&good[..5]), Err(DecodeError::Short { len: 5 }));
        let mut b = good.clone();
        b[0] = 2;
        assert_eq!(Frame::decode(&b), Err(DecodeError::BadVersion(2)));
        let mut b = good.clone();
        b[3] = 9;
        assert_eq!(Frame::decode(&b), Err(DecodeError::NonzeroRsvd(9)));
        let mut b = good.clone();
        b[1] = 5;
        assert_eq!(Frame::decode(&b), Err(DecodeError::UnknownLane(5)));
        let mut b = good.clone();
        b[4] = 0x01; // declares 259 bytes in a 256-byte frame
        assert_eq!(Frame::decode(&b), Err(DecodeError::BadLength { declared_len: 259, available_len: 250 }));
        assert_eq!(Frame::encode(&Frame { lane: 3, flags: 0, payload: vec![] }, ControlBucket::Small256), Err(EncodeError::UnknownLane(3)));
    }

    /// Only 256 and 512 are lane-0 buckets; every other length is none.
    #[test]
    fn control_bucket_from_len() {
        assert_eq!(ControlBucket::from_len(256), Some(ControlBucket::Small256));
        assert_eq!(ControlBucket::from_len(512), Some(ControlBucket::Large512));
        for other in [0, 255, 257, 511, 513, 1024] {
            assert_eq!(ControlBucket::from_len(other), None, "{other}");
        }
    }

    /// Every encode and decode error prints a message naming the error and its values.
    #[test]
    fn errors_display_their_values() {
        let shown = EncodeError::ExceedsBucket { needed_len: 513, bucket_len: 512 }.to_string();
        assert!(shown.contains("ExceedsBucket") && shown.contains("513") && shown.contains("512"), "{shown}");
        assert!(EncodeError::UnknownLane(7).to_string().contains('7'));
        let shown = DecodeError::BadLength { declared_len: 259, available_len: 250 }.to_string();
        assert!(shown.contains("BadLength") && shown.contains("259") && shown.contains("250"), "{shown}");
        assert!(DecodeError::BadVersion(9).to_string().contains('9'));
    }

    /// A bulk payload no bucket holds reports the frame length it needed: payload + 6-byte header.
    #[test]
    fn oversized_bulk_reports_payload_plus_header() {
        let f = Frame::bulk(vec![1; 20_000]);
        let want = EncodeError::ExceedsBucket { needed_len: 20_006, bucket_len: 16_384 };
        assert_eq!(f.bucket_len(ControlBucket::Small256), Err(want.clone()));
        assert_eq!(f.encode(ControlBucket::Small256), Err(want));
    }

    /// PayloadTooLarge means the u16 len field cannot say it (> 65535); a 65535-byte payload
    /// is describable and only exceeds every bucket.
    #[test]
    fn payload_too_large_only_past_u16() {
        let f = Frame::bulk(vec![1; FRAME_PAYLOAD_LEN_MAX]);
        assert_eq!(f.encode_padded(16_384, ControlBucket::Large512), Err(EncodeError::ExceedsBucket { needed_len: 65_541, bucket_len: 16_384 }));
        let f = Frame::control(vec![1; FRAME_PAYLOAD_LEN_MAX]);
        assert_eq!(f.encode_padded(512, ControlBucket::Large512), Err(EncodeError::ExceedsBucket { needed_len: 65_541, bucket_len: 512 }));
        let f = Frame::bulk(vec![1; FRAME_PAYLOAD_LEN_MAX + 1]);
        assert_eq!(f.encode_padded(16_384, ControlBucket::Large512), Err(EncodeError::PayloadTooLarge { payload_len: 65_536 }));
    }

    /// A declared len equal to the bytes after the header decodes (a payload that fills its
    /// bucket, or an unpadded frame).
    #[test]
    fn declared_len_equal_to_available_decodes() {
        assert_eq!(Frame::decode(&[1, 0, 0, 0, 0, 3, 7, 8, 9]), Ok(Frame::control(vec![7, 8, 9])));
        assert_eq!(Frame::decode(&[1, 1, 0, 0, 0, 0]), Ok(Frame::bulk(vec![])));
        let full = Frame::control(vec![5; 250]);
        let wire = full.encode(ControlBucket::Small256).unwrap();
        assert_eq!(wire.len(), 256);
        assert_eq!(Frame::decode(&wire), Ok(full));
    }
}
