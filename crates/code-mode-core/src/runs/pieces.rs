//! A large tool input cut into pieces the JavaScript thread can parse one at
//! a time, so that turning it into a value spreads over several turns of the
//! event loop instead of holding one.
//!
//! The input is JSON text the sandbox wrote (compact and valid). Containers
//! larger than the piece size are opened, filled with runs of members parsed
//! together, and closed; everything else travels as the JSON it is. Each piece
//! is one operation, named by its first character ([`PieceOp`], which
//! `src-js/pieces.js` reads from `src-js/boundary.js`):
//!
//! - `o` / `a` followed by a member's key as JSON text (nothing for an array
//!   element or the root): open an object / an array there;
//! - `m{...}`: define these members on the open object;
//! - `e[...]`: append these elements to the open array;
//! - `c`: close the open container.
//!
//! Replaying the operations in order gives exactly what parsing the whole
//! text gives (`__proto__` keys included, when members are defined rather
//! than assigned).
//!
//! Cutting scans each opened container once more, so containers are opened
//! at most [`PIECE_OPEN_DEPTH`] levels deep: the work stays a small multiple of
//! the input's length, and a large container deeper than that travels whole.

use crate::limits::PIECE_OPEN_DEPTH;

/// The operations of a value cut into pieces ([`crate::runs::pieces`]):
/// each piece starts with the code of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceOp {
    /// Open an object: at the root, as the next element of the open array,
    /// or as the member whose key (JSON text) follows the code.
    OpenObject,
    /// Open an array, placed as an object is.
    OpenArray,
    /// Define the members of the JSON object that follows on the open object.
    Members,
    /// Append the elements of the JSON array that follows to the open array.
    Elements,
    /// Close the open container.
    Close,
}

impl PieceOp {
    pub const ALL: [PieceOp; 5] = [
        PieceOp::OpenObject,
        PieceOp::OpenArray,
        PieceOp::Members,
        PieceOp::Elements,
        PieceOp::Close,
    ];

    /// The character a piece of this operation starts with.
    pub const fn code(self) -> char {
        match self {
            PieceOp::OpenObject => 'o',
            PieceOp::OpenArray => 'a',
            PieceOp::Members => 'm',
            PieceOp::Elements => 'e',
            PieceOp::Close => 'c',
        }
    }

    /// The operation a piece starts with.
    pub fn of(piece: &str) -> Option<PieceOp> {
        let code = piece.chars().next()?;
        PieceOp::ALL.into_iter().find(|op| op.code() == code)
    }

    /// Its name in `src-js/boundary.js`.
    pub const fn js_name(self) -> &'static str {
        match self {
            PieceOp::OpenObject => "OPEN_OBJECT",
            PieceOp::OpenArray => "OPEN_ARRAY",
            PieceOp::Members => "MEMBERS",
            PieceOp::Elements => "ELEMENTS",
            PieceOp::Close => "CLOSE",
        }
    }
}

/// The size of the pieces [`split`] cuts.
#[derive(Clone, Copy, Debug)]
pub struct PieceSize {
    /// About this many bytes per piece (a member or element longer than that
    /// and not a container travels whole).
    pub bytes: usize,
    /// At most this many members or elements per piece.
    pub members: usize,
}

/// Cuts `json` into pieces of at most `size`. `None` when it is no longer
/// than `size.bytes` (a whole input is parsed at once, whatever its count of
/// members), is not a container, or is not the compact JSON this expects.
pub fn split(json: &str, size: PieceSize) -> Option<Vec<String>> {
    let piece_bytes = size.bytes;
    if json.len() <= piece_bytes {
        return None;
    }
    let bytes = json.as_bytes();
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return None;
    }
    if value_end(bytes, 0)? != bytes.len() {
        return None;
    }
    let mut pieces = Vec::new();
    container(json, 0, "", 0, size, &mut pieces)?;
    Some(pieces)
}

/// Emits the operations of the container starting at `start`; returns the
/// offset just past it.
fn container(
    json: &str,
    start: usize,
    key: &str,
    depth: usize,
    size: PieceSize,
    pieces: &mut Vec<String>,
) -> Option<usize> {
    let piece_bytes = size.bytes;
    let bytes = json.as_bytes();
    let object = bytes[start] == b'{';
    let (open, close, fill) = if object {
        (PieceOp::OpenObject, b'}', PieceOp::Members)
    } else {
        (PieceOp::OpenArray, b']', PieceOp::Elements)
    };
    pieces.push(format!("{}{key}", open.code()));
    let mut batch = String::new();
    let mut members = 0;
    let flush = |batch: &mut String, members: &mut usize, pieces: &mut Vec<String>| {
        *members = 0;
        if !batch.is_empty() {
            batch.push(char::from(close));
            pieces.push(std::mem::take(batch));
        }
    };
    let mut at = start + 1;
    if bytes.get(at) == Some(&close) {
        pieces.push(PieceOp::Close.code().to_string());
        return Some(at + 1);
    }
    loop {
        let member_key = if object {
            let key_end = value_end(bytes, at)?;
            if bytes.get(at) != Some(&b'"') || bytes.get(key_end) != Some(&b':') {
                return None;
            }
            let key = &json[at..key_end];
            at = key_end + 1;
            Some(key)
        } else {
            None
        };
        let end = value_end(bytes, at)?;
        let value = &json[at..end];
        let open = depth + 1 < PIECE_OPEN_DEPTH && matches!(bytes[at], b'{' | b'[');
        if value.len() > piece_bytes && open {
            flush(&mut batch, &mut members, pieces);
            container(json, at, member_key.unwrap_or(""), depth + 1, size, pieces)?;
        } else {
            let len = member_key.map_or(0, |key| key.len() + 1) + value.len();
            if !batch.is_empty() && (batch.len() + len + 1 > piece_bytes || members == size.members)
            {
                flush(&mut batch, &mut members, pieces);
            }
            members += 1;
            if batch.is_empty() {
                batch.push(fill.code());
                batch.push(char::from(bytes[start]));
            } else {
                batch.push(',');
            }
            if let Some(key) = member_key {
                batch.push_str(key);
                batch.push(':');
            }
            batch.push_str(value);
        }
        at = end;
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(&byte) if byte == close => break,
            _ => return None,
        }
    }
    flush(&mut batch, &mut members, pieces);
    pieces.push(PieceOp::Close.code().to_string());
    Some(at + 1)
}

/// The offset just past the compact JSON value starting at `start`.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    let mut depth = 0usize;
    loop {
        match *bytes.get(at)? {
            b'"' => {
                at += 1;
                loop {
                    match *bytes.get(at)? {
                        b'\\' => at += 2,
                        b'"' => break,
                        _ => at += 1,
                    }
                }
                at += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                at += 1;
                continue;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                at += 1;
            }
            _ => {
                // A number or literal: up to the next delimiter.
                while let Some(byte) = bytes.get(at) {
                    if matches!(byte, b',' | b':' | b'}' | b']') {
                        break;
                    }
                    at += 1;
                }
                if at == start {
                    return None;
                }
            }
        }
        if depth == 0 {
            return Some(at);
        }
        // Inside a container: skip separators up to the next value or its end.
        while let Some(b',' | b':') = bytes.get(at) {
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{split, PieceOp, PieceSize};
    use serde_json::{Map, Value};

    /// Replays the operations as `src-js/pieces.js` does (the JavaScript
    /// suite replays the same pieces through it: `__test__/pieces.test.mjs`).
    fn assemble(pieces: &[String]) -> Value {
        let mut stack: Vec<(Option<String>, Value)> = Vec::new();
        let mut root = None;
        for piece in pieces {
            let rest = &piece[1..];
            match PieceOp::of(piece).expect("a known op") {
                op @ (PieceOp::OpenObject | PieceOp::OpenArray) => {
                    let key = (!rest.is_empty()).then(|| serde_json::from_str(rest).unwrap());
                    let value = if op == PieceOp::OpenObject {
                        Value::Object(Map::new())
                    } else {
                        Value::Array(Vec::new())
                    };
                    stack.push((key, value));
                }
                PieceOp::Members => {
                    let members: Map<String, Value> = serde_json::from_str(rest).unwrap();
                    let Some((_, Value::Object(top))) = stack.last_mut() else {
                        panic!("m outside an object")
                    };
                    top.extend(members);
                }
                PieceOp::Elements => {
                    let items: Vec<Value> = serde_json::from_str(rest).unwrap();
                    let Some((_, Value::Array(top))) = stack.last_mut() else {
                        panic!("e outside an array")
                    };
                    top.extend(items);
                }
                PieceOp::Close => {
                    let (key, value) = stack.pop().unwrap();
                    match stack.last_mut() {
                        None => root = Some(value),
                        Some((_, Value::Object(parent))) => {
                            parent.insert(key.unwrap(), value);
                        }
                        Some((_, Value::Array(parent))) => parent.push(value),
                        Some(_) => unreachable!(),
                    }
                }
            }
        }
        assert!(stack.is_empty());
        root.unwrap()
    }

    fn size(bytes: usize) -> PieceSize {
        PieceSize {
            bytes,
            members: usize::MAX,
        }
    }

    fn round_trip(json: &str, piece_bytes: usize) -> Vec<String> {
        round_trip_at(json, size(piece_bytes))
    }

    fn round_trip_at(json: &str, size: PieceSize) -> Vec<String> {
        let piece_bytes = size.bytes;
        let pieces = split(json, size).expect("split");
        let expected: Value = serde_json::from_str(json).unwrap();
        assert_eq!(assemble(&pieces), expected, "{json}");
        for piece in &pieces {
            if piece.starts_with(['m', 'e']) {
                let count = match serde_json::from_str(&piece[1..]).unwrap() {
                    Value::Object(members) => members.len(),
                    Value::Array(items) => items.len(),
                    _ => panic!("{piece}"),
                };
                assert!(count <= size.members, "{piece}");
            }
            // Pieces stay within the size, except one long member alone.
            if piece.len() > piece_bytes + 2 {
                let parsed: Value = serde_json::from_str(&piece[1..]).unwrap();
                let count = match parsed {
                    Value::Object(members) => members.len(),
                    Value::Array(items) => items.len(),
                    _ => panic!("{piece}"),
                };
                assert_eq!(count, 1, "{piece}");
            }
        }
        pieces
    }

    #[test]
    fn small_inputs_and_leaves_are_not_split() {
        assert_eq!(split(r#"{"a":1}"#, size(64)), None);
        assert_eq!(split(&format!("\"{}\"", "x".repeat(100)), size(10)), None);
        assert_eq!(split("1234567890123", size(4)), None);
    }

    #[test]
    fn wide_objects_and_arrays_travel_in_runs_of_members() {
        let object: Map<String, Value> = (0..500)
            .map(|i| (format!("k{i}"), Value::from(i)))
            .collect();
        let json = serde_json::to_string(&Value::Object(object)).unwrap();
        let pieces = round_trip(&json, 256);
        assert!(pieces.len() > 20);
        assert_eq!(pieces.first().unwrap(), "o");
        assert_eq!(pieces.last().unwrap(), "c");
        let array = serde_json::to_string(&(0..2000).collect::<Vec<_>>()).unwrap();
        round_trip(&array, 300);
    }

    #[test]
    fn wide_runs_of_small_members_are_cut_by_count() {
        let object: Map<String, Value> = (0..1000)
            .map(|i| (format!("k{i}"), Value::from(i)))
            .collect();
        let json = serde_json::to_string(&Value::Object(object)).unwrap();
        let pieces = round_trip_at(
            &json,
            PieceSize {
                bytes: 8 * 1024,
                members: 64,
            },
        );
        // "o", 16 runs of at most 64 members (the last one 40), "c".
        assert_eq!(pieces.len(), 18);
        let array = serde_json::to_string(&vec![0; 130]).unwrap();
        let pieces = round_trip_at(
            &array,
            PieceSize {
                bytes: 200,
                members: 50,
            },
        );
        // 261 bytes: runs of 50, 50 and 30 elements (the bytes allow 99).
        assert_eq!(pieces.len(), 2 + 3, "{pieces:?}");
    }

    #[test]
    fn nested_containers_open_and_close_under_their_keys() {
        let json = r#"{"a":{"x":[1,2,3,4,5,6,7,8,9,10],"y":"yyyyyyyyyyyyyyyyyyyy"},"__proto__":{"p":1},"b":[[1,2,3,4,5,6,7,8],{"q\"\\":"z"}],"e":{},"f":[],"n":null,"t":true,"s":"a,b:c}]"}"#;
        for piece_bytes in [8, 16, 32, 64, 128] {
            round_trip(json, piece_bytes);
        }
        round_trip(
            r#"[{"a":[{"b":[1,2,3,4,5,6,7,8,9]}]},[[[[[1,2,3,4,5,6,7,8,9]]]]]]"#,
            6,
        );
    }

    #[test]
    fn containers_deeper_than_the_opening_depth_travel_whole() {
        let mut json = String::from("[1,2,3,4,5,6,7,8]");
        for level in 0..12 {
            json = format!(
                r#"{{"level":{level},"pad":"{}","inner":{json}}}"#,
                "p".repeat(10)
            );
        }
        let pieces = round_trip(&json, 16);
        let opened = pieces.iter().filter(|piece| piece.starts_with('o')).count();
        assert_eq!(opened, super::PIECE_OPEN_DEPTH);
    }

    #[test]
    fn unexpected_text_is_left_whole() {
        assert_eq!(split(r#"{"a":1,"b":2} trailing"#, size(4)), None);
        assert_eq!(split(r#"{"a":1,"b":[2,3"#, size(4)), None);
        assert_eq!(split(r#"{"a" : 1, "b": 2}"#, size(4)), None);
    }
}
