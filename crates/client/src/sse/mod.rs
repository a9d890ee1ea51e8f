//! An incremental Server-Sent Events parser (WHATWG event-stream rules).
//!
//! Bytes go in as the socket delivers them, split anywhere (inside a CRLF pair
//! or a multi-byte UTF-8 character too); completed events and comments come
//! out in order. Memory is capped: the pending line plus the pending event
//! never exceed the limit given to [`SseParser::new`].

use std::borrow::Cow;
use std::mem;

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// Longest excerpt (in chars) of undispatched text that [`SseParser::finish`] quotes.
const EXCERPT_CHARS: usize = 512;

/// One thing read from an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A dispatched event (blank line seen). `data` is the data lines joined with '\n'.
    Frame(SseFrame),
    /// A comment line (starts with ':'), text after the colon with one leading space stripped. Keep-alives are comments.
    Comment(String),
}

/// A dispatched event. Fields hold what this event's own lines said: unlike a
/// browser's `lastEventId`, `id` is not carried over from earlier events.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    /// The last `event` field of the event, as sent; `None` if it had none
    /// (a browser would call it `message`).
    pub event: Option<String>,
    /// The `data` field values joined with '\n' (no trailing '\n').
    pub data: String,
    /// The last `id` field of the event; an `id` containing NUL is ignored.
    pub id: Option<String>,
    /// The last `retry` field of the event that was all ASCII digits and fits a `u64`.
    pub retry: Option<u64>,
}

/// The stream broke the memory cap; the parser stays failed afterwards.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// The pending line plus the pending event grew past the cap.
    #[error("an SSE event grew past the {limit}-byte cap without ending")]
    FrameTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A single line grew past the cap (no event pending) without a line ending.
    #[error("an SSE line grew past the {limit}-byte cap without a line ending")]
    LineTooLong {
        /// The cap, in bytes.
        limit: usize,
    },
}

/// Incremental event-stream parser; see the module docs.
///
/// Dispatch rule: a blank line dispatches the pending event when at least one
/// `data` field line was seen since the previous blank line, even if every
/// such line was empty (then `data` is ""). A block without `data` lines is
/// dropped whole, its `event`, `id` and `retry` included.
#[derive(Debug)]
pub struct SseParser {
    max: usize,
    bytes_seen: u64,
    /// Bytes of a leading BOM matched so far; `None` once past the stream start.
    bom_matched: Option<usize>,
    /// The last line ended with CR, so an LF right after belongs to that ending.
    after_cr: bool,
    line: Vec<u8>,
    event: Option<String>,
    data: String,
    data_lines: usize,
    id: Option<String>,
    retry: Option<u64>,
    /// Field lines (comments excluded) since the last blank line.
    field_lines: usize,
    failed: Option<SseError>,
}

impl SseParser {
    /// A parser whose pending line plus pending event may hold at most
    /// `max_event_bytes` bytes (event bytes counted as stored, after decoding).
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max: max_event_bytes,
            bytes_seen: 0,
            bom_matched: Some(0),
            after_cr: false,
            line: Vec::new(),
            event: None,
            data: String::new(),
            data_lines: 0,
            id: None,
            retry: None,
            field_lines: 0,
            failed: None,
        }
    }

    /// Feed the next chunk of bytes as read from the socket; returns every item completed by it, in order.
    ///
    /// On `Err` the items completed earlier in the same chunk are lost, the
    /// buffers are freed, and every later call returns the same error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseItem>, SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        self.bytes_seen += chunk.len() as u64;
        let mut out = Vec::new();
        let mut rest = chunk;
        let mut replay: &[u8] = &[];
        if let Some(mut matched) = self.bom_matched {
            while matched < BOM.len() && rest.first() == Some(&BOM[matched]) {
                matched += 1;
                rest = &rest[1..];
            }
            if matched == BOM.len() {
                self.bom_matched = None;
            } else if rest.is_empty() {
                self.bom_matched = Some(matched);
                return Ok(out);
            } else {
                // Not a BOM after all: the bytes matched so far are ordinary input.
                self.bom_matched = None;
                replay = &BOM[..matched];
            }
        }
        let scanned = self
            .scan(replay, &mut out)
            .and_then(|()| self.scan(rest, &mut out));
        match scanned {
            Ok(()) => Ok(out),
            Err(err) => {
                *self = SseParser {
                    bytes_seen: self.bytes_seen,
                    bom_matched: None,
                    failed: Some(err.clone()),
                    ..SseParser::new(self.max)
                };
                Err(err)
            }
        }
    }

    /// The stream ended. Returns a description of what was left undispatched (partial line or event without the terminating blank line), if anything — per the spec it is NOT dispatched, but the caller records it as evidence.
    ///
    /// After a cap error it describes that error. Otherwise the parser is
    /// reset to a fresh stream (`bytes_seen` kept).
    pub fn finish(&mut self) -> Option<String> {
        if let Some(err) = &self.failed {
            return Some(format!("parsing stopped at an error: {err}"));
        }
        let mut parts = Vec::new();
        if self.field_lines > 0 {
            let mut s = format!(
                "event not dispatched: no blank line after its {} field line(s)",
                self.field_lines
            );
            if let Some(event) = &self.event {
                s += &format!("; event {:?}", excerpt(event));
            }
            if let Some(id) = &self.id {
                s += &format!("; id {:?}", excerpt(id));
            }
            if self.data_lines > 0 {
                s += &format!(
                    "; data ({} line(s), {} bytes) {:?}",
                    self.data_lines,
                    self.data.len(),
                    excerpt(&self.data)
                );
            }
            parts.push(s);
        }
        let partial = match self.bom_matched {
            Some(n) if n > 0 => &BOM[..n],
            _ => &self.line[..],
        };
        if !partial.is_empty() {
            parts.push(format!(
                "partial line without a line ending ({} bytes) {:?}",
                partial.len(),
                excerpt(&String::from_utf8_lossy(partial))
            ));
        }
        *self = SseParser {
            bytes_seen: self.bytes_seen,
            ..SseParser::new(self.max)
        };
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Total bytes consumed so far.
    pub(crate) fn bytes_seen(&self) -> u64 {
        self.bytes_seen
    }

    /// Splits `bytes` into lines on LF, CRLF or lone CR, even across calls.
    fn scan(&mut self, mut bytes: &[u8], out: &mut Vec<SseItem>) -> Result<(), SseError> {
        while let Some(&first) = bytes.first() {
            if mem::take(&mut self.after_cr) && first == b'\n' {
                bytes = &bytes[1..];
                continue;
            }
            match memchr::memchr2(b'\n', b'\r', bytes) {
                Some(end) if self.line.is_empty() => {
                    // The whole line is in this chunk: read it in place.
                    let line = &bytes[..end];
                    self.check_line(line.len())?;
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    self.process_line(line, out)?;
                }
                Some(end) => {
                    self.push_line_bytes(&bytes[..end])?;
                    self.after_cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    let line = mem::take(&mut self.line);
                    let done = self.process_line(&line, out);
                    self.line = line;
                    self.line.clear();
                    done?;
                }
                None => {
                    self.push_line_bytes(bytes)?;
                    bytes = &[];
                }
            }
        }
        Ok(())
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        self.check_line(bytes.len())?;
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    /// Errs if the pending line grown by `adding` bytes, plus the pending
    /// event, would pass the cap.
    fn check_line(&self, adding: usize) -> Result<(), SseError> {
        let pending = self.pending_event_bytes();
        if self.line.len() + adding + pending > self.max {
            // Decided at the first byte past the cap, so chunking can't change it.
            let limit = self.max;
            return Err(if pending == 0 {
                SseError::LineTooLong { limit }
            } else {
                SseError::FrameTooLarge { limit }
            });
        }
        Ok(())
    }

    fn pending_event_bytes(&self) -> usize {
        self.data.len()
            + self.event.as_ref().map_or(0, String::len)
            + self.id.as_ref().map_or(0, String::len)
    }

    /// Errs if storing `adding` bytes in place of `replacing` would pass the cap.
    fn check_room(&self, adding: usize, replacing: Option<&String>) -> Result<(), SseError> {
        let kept = self.pending_event_bytes() - replacing.map_or(0, String::len);
        if kept + adding > self.max {
            return Err(SseError::FrameTooLarge { limit: self.max });
        }
        Ok(())
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseItem>) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => {
                let text = utf8(strip_space(&line[1..]));
                out.push(SseItem::Comment(text.into_owned()));
                return Ok(());
            }
            Some(colon) => (&line[..colon], strip_space(&line[colon + 1..])),
            None => (line, &[][..]),
        };
        self.field_lines += 1;
        match name {
            b"data" => {
                let value = utf8(value);
                let sep = usize::from(self.data_lines > 0);
                self.check_room(sep + value.len(), None)?;
                if sep == 1 {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.data_lines += 1;
            }
            b"event" => {
                let value = utf8(value);
                self.check_room(value.len(), self.event.as_ref())?;
                self.event = Some(value.into_owned());
            }
            b"id" if !value.contains(&0) => {
                let value = utf8(value);
                self.check_room(value.len(), self.id.as_ref())?;
                self.id = Some(value.into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // All ASCII digits, so valid UTF-8; too big for u64 is ignored.
                if let Some(ms) = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok()) {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseItem>) {
        let frame = SseFrame {
            event: self.event.take(),
            data: mem::take(&mut self.data),
            id: self.id.take(),
            retry: self.retry.take(),
        };
        self.field_lines = 0;
        if mem::take(&mut self.data_lines) > 0 {
            out.push(SseItem::Frame(frame));
        }
    }
}

/// The text of a field value: borrowed when it is valid UTF-8 (the fast,
/// common case), else decoded with U+FFFD for each invalid sequence.
fn utf8(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn strip_space(value: &[u8]) -> &[u8] {
    value.strip_prefix(b" ").unwrap_or(value)
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}… (+{} bytes)", &text[..cut], text.len() - cut),
    }
}

#[cfg(test)]
mod tests;
