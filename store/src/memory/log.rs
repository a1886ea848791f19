//! A task's event log as the memory store keeps it: open (each event's
//! encoded JSON) while the task runs, sealed once it rests (ended, or
//! waiting on its client): the events packed into one buffer and compressed
//! with LZ4, the task's encoded body serving as the dictionary. A resting
//! task's events repeat most of its body (the task as submitted, statuses
//! that carry its messages, its ids in every event), so the sealed log of a
//! finished one-message task takes about a hundred bytes against nine
//! hundred open, in one allocation instead of four. Only replays read a log
//! back, and a task that moves again is unsealed first: the cost of sealing
//! is paid about once per task, never per event of a long run.
//!
//! A sealed log can only be read with the body it was sealed with: the
//! table unseals it before it replaces the body.

use crate::{StoreError, StoreResult};

/// One event as stored: its sequence number and its encoded JSON.
pub(super) type Encoded = (u64, Box<str>);

/// The bytes each packed event starts with: its sequence number and the
/// length of its text, both little-endian `u64`.
const HEADER: usize = 16;

pub(super) enum EventLog {
    Open(Vec<Encoded>),
    /// The packed events, compressed against the body the task had when
    /// sealed, their packed length first.
    Sealed(Box<[u8]>),
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog::Open(Vec::new())
    }
}

impl EventLog {
    /// `events`, sealed against `body` when the task rests, open otherwise.
    pub(super) fn new(events: Vec<Encoded>, body: &str, resting: bool) -> Self {
        if !resting || events.is_empty() {
            return EventLog::Open(events);
        }
        let mut packed = Vec::with_capacity(events.iter().map(|(_, text)| HEADER + text.len()).sum());
        for (seq, text) in &events {
            packed.extend_from_slice(&seq.to_le_bytes());
            packed.extend_from_slice(&(text.len() as u64).to_le_bytes());
            packed.extend_from_slice(text.as_bytes());
        }
        let sealed = lz4_flex::block::compress_prepend_size_with_dict(&packed, body.as_bytes());
        EventLog::Sealed(sealed.into_boxed_slice())
    }

    /// Takes the events out, open (`body` is the one the log was sealed
    /// with); on failure the log is left as it was.
    pub(super) fn take(&mut self, body: &str) -> StoreResult<Vec<Encoded>> {
        match self {
            EventLog::Open(events) => Ok(std::mem::take(events)),
            EventLog::Sealed(sealed) => {
                let packed = unseal(sealed, body)?;
                let mut events = Vec::new();
                for event in Packed(&packed) {
                    let (seq, text) = event?;
                    events.push((seq, text.into()));
                }
                *self = EventLog::default();
                Ok(events)
            }
        }
    }

    /// Calls `each` with every event in order, stopping at its first error.
    pub(super) fn each(
        &self,
        body: &str,
        mut each: impl FnMut(u64, &str) -> StoreResult<()>,
    ) -> StoreResult<()> {
        match self {
            EventLog::Open(events) => events.iter().try_for_each(|(seq, text)| each(*seq, text)),
            EventLog::Sealed(sealed) => {
                let packed = unseal(sealed, body)?;
                Packed(&packed).try_for_each(|event| event.and_then(|(seq, text)| each(seq, text)))
            }
        }
    }
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("a sealed event log is unreadable: {what}"))
}

fn unseal(sealed: &[u8], body: &str) -> StoreResult<Vec<u8>> {
    lz4_flex::block::decompress_size_prepended_with_dict(sealed, body.as_bytes()).map_err(corrupt)
}

/// The events of an unsealed buffer, in order.
struct Packed<'a>(&'a [u8]);

impl<'a> Iterator for Packed<'a> {
    type Item = StoreResult<(u64, &'a str)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let Some((header, rest)) = self.0.split_first_chunk::<HEADER>() else {
            self.0 = &[];
            return Some(Err(corrupt("an event's header is cut short")));
        };
        let (seq, len) = header.split_at(HEADER / 2);
        let seq = u64::from_le_bytes(seq.try_into().unwrap_or_default());
        let len = u64::from_le_bytes(len.try_into().unwrap_or_default());
        let Some((text, rest)) = usize::try_from(len)
            .ok()
            .and_then(|len| rest.split_at_checked(len))
        else {
            self.0 = &[];
            return Some(Err(corrupt("an event is cut short")));
        };
        self.0 = rest;
        Some(std::str::from_utf8(text).map(|text| (seq, text)).map_err(corrupt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = r#"{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}"#;

    fn events() -> Vec<Encoded> {
        vec![
            (1, r#"{"task":{"id":"t-1","contextId":"c-1"}}"#.into()),
            (2, r#"{"statusUpdate":{"taskId":"t-1","contextId":"c-1"}}"#.into()),
            (7, "".into()),
        ]
    }

    fn read(log: &EventLog, body: &str) -> StoreResult<Vec<(u64, String)>> {
        let mut out = Vec::new();
        log.each(body, |seq, text| {
            out.push((seq, text.to_string()));
            Ok(())
        })?;
        Ok(out)
    }

    fn owned(events: &[Encoded]) -> Vec<(u64, String)> {
        events
            .iter()
            .map(|(seq, text)| (*seq, text.to_string()))
            .collect()
    }

    #[test]
    fn a_sealed_log_reads_back_every_event_in_order() {
        let log = EventLog::new(events(), BODY, true);
        assert!(matches!(log, EventLog::Sealed(_)));
        assert_eq!(read(&log, BODY).unwrap(), owned(&events()));
        let mut log = log;
        assert_eq!(owned(&log.take(BODY).unwrap()), owned(&events()));
        assert!(matches!(&log, EventLog::Open(events) if events.is_empty()));
    }

    #[test]
    fn a_running_task_and_an_empty_log_stay_open() {
        assert!(matches!(EventLog::new(events(), BODY, false), EventLog::Open(e) if e.len() == 3));
        assert!(matches!(EventLog::new(vec![], BODY, true), EventLog::Open(e) if e.is_empty()));
    }

    #[test]
    fn the_body_is_the_dictionary() {
        let log = EventLog::new(events(), BODY, true);
        let EventLog::Sealed(sealed) = &log else {
            unreachable!()
        };
        let packed: usize = events().iter().map(|(_, t)| HEADER + t.len()).sum();
        assert!(sealed.len() < packed, "{} >= {packed}", sealed.len());
        // Read with another body, the log is wrong or unreadable: never the events.
        let other = BODY.replace("t-1", "x-9");
        assert_ne!(read(&log, &other).ok(), Some(owned(&events())));
    }

    #[test]
    fn a_damaged_log_is_an_error_and_stays_as_it_was() {
        let EventLog::Sealed(sealed) = EventLog::new(events(), BODY, true) else {
            unreachable!()
        };
        let mut cut = EventLog::Sealed(sealed[..sealed.len() - 3].into());
        assert!(matches!(cut.take(BODY), Err(StoreError::Backend(_))));
        assert!(matches!(&cut, EventLog::Sealed(s) if s.len() == sealed.len() - 3));
        assert!(read(&cut, BODY).is_err());
        // A header promising more text than there is.
        let mut packed = 1u64.to_le_bytes().to_vec();
        packed.extend_from_slice(&100u64.to_le_bytes());
        packed.extend_from_slice(b"{}");
        let forged = lz4_flex::block::compress_prepend_size_with_dict(&packed, BODY.as_bytes());
        assert!(read(&EventLog::Sealed(forged.into()), BODY).is_err());
    }
}
