//! The fuzz harness: one `run(data)` per target, driving code-mode-core's real
//! entry points. The fuzz targets call it, and so does the replay test
//! `crates/code-mode-core/tests/fuzz_regressions.rs`, which includes this
//! module by path, so a saved input replays through exactly this code.
//!
//! Each `run` panics when the core breaks a promise it makes (a panic, a
//! result that is not JSON, a value that changed on its way through the
//! bridge); errors the core reports are fine.
//!
//! Inputs are decoded by hand (a first byte of flags, then text), not with
//! `arbitrary`: the replay test then needs no extra dependency, and the seed
//! files stay readable and easy to write.

pub mod catalog_search;
pub mod exec_input;
pub mod json_bridge;
pub mod oom;
pub mod source;

/// A cursor over the fuzzer's bytes. Reading past the end yields zeros and
/// empty text, so every input decodes.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&first, rest)) => {
                self.bytes = rest;
                first
            }
            None => 0,
        }
    }

    /// Leading ASCII digits as a number, at most `max`; `0` when none.
    pub fn number(&mut self, max: usize) -> usize {
        let digits = self.bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        let (number, rest) = self.bytes.split_at(digits);
        self.bytes = rest;
        number
            .iter()
            .fold(0usize, |n, &d| {
                n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
            })
            .min(max)
    }

    /// Everything left, as text (invalid UTF-8 becomes U+FFFD).
    pub fn rest(self) -> String {
        String::from_utf8_lossy(self.bytes).into_owned()
    }
}

/// Whether `text` is one JSON value (RFC 8259), checked without recursion:
/// serde_json's own parser stops at 128 levels, and the bridge lets values
/// nest up to 1000 deep.
pub fn is_json(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    // For each open container: whether it is an object.
    let mut open: Vec<bool> = Vec::new();
    loop {
        // A value.
        skip_space(bytes, &mut i);
        match bytes.get(i) {
            Some(b'{') | Some(b'[') => {
                let object = bytes[i] == b'{';
                i += 1;
                skip_space(bytes, &mut i);
                let close = if object { b'}' } else { b']' };
                if bytes.get(i) == Some(&close) {
                    i += 1;
                } else {
                    open.push(object);
                    if object && !key(bytes, &mut i) {
                        return false;
                    }
                    continue;
                }
            }
            Some(b'"') => {
                if !string(bytes, &mut i) {
                    return false;
                }
            }
            Some(b't') if bytes[i..].starts_with(b"true") => i += 4,
            Some(b'f') if bytes[i..].starts_with(b"false") => i += 5,
            Some(b'n') if bytes[i..].starts_with(b"null") => i += 4,
            Some(_) => {
                if !number(bytes, &mut i) {
                    return false;
                }
            }
            None => return false,
        }
        // After a value: close containers, or go on to the next member.
        loop {
            skip_space(bytes, &mut i);
            let Some(&object) = open.last() else {
                return i == bytes.len();
            };
            match bytes.get(i) {
                Some(b',') => {
                    i += 1;
                    if object && !key(bytes, &mut i) {
                        return false;
                    }
                    break;
                }
                Some(b'}') if object => {
                    i += 1;
                    open.pop();
                }
                Some(b']') if !object => {
                    i += 1;
                    open.pop();
                }
                _ => return false,
            }
        }
    }
}

fn skip_space(bytes: &[u8], i: &mut usize) {
    while matches!(bytes.get(*i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        *i += 1;
    }
}

/// `"name" :`
fn key(bytes: &[u8], i: &mut usize) -> bool {
    skip_space(bytes, i);
    if bytes.get(*i) != Some(&b'"') || !string(bytes, i) {
        return false;
    }
    skip_space(bytes, i);
    if bytes.get(*i) != Some(&b':') {
        return false;
    }
    *i += 1;
    true
}

fn string(bytes: &[u8], i: &mut usize) -> bool {
    *i += 1;
    loop {
        match bytes.get(*i) {
            None => return false,
            Some(b'"') => {
                *i += 1;
                return true;
            }
            Some(b'\\') => {
                *i += 1;
                match bytes.get(*i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *i += 1,
                    Some(b'u') => {
                        let hex = bytes.get(*i + 1..*i + 5);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        *i += 5;
                    }
                    _ => return false,
                }
            }
            Some(&b) if b < 0x20 => return false,
            Some(_) => *i += 1,
        }
    }
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
fn number(bytes: &[u8], i: &mut usize) -> bool {
    let digits = |i: &mut usize| {
        let start = *i;
        while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if bytes.get(*i) == Some(&b'-') {
        *i += 1;
    }
    match bytes.get(*i) {
        Some(b'0') => *i += 1,
        Some(b'1'..=b'9') => {
            digits(i);
        }
        _ => return false,
    }
    if bytes.get(*i) == Some(&b'.') {
        *i += 1;
        if !digits(i) {
            return false;
        }
    }
    if matches!(bytes.get(*i), Some(b'e' | b'E')) {
        *i += 1;
        if matches!(bytes.get(*i), Some(b'+' | b'-')) {
            *i += 1;
        }
        if !digits(i) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn json_validator() {
        for ok in [
            "0",
            "-0.5e+3",
            "\"a\\u00e9\\n\"",
            "[]",
            "{}",
            " [1, {\"a\": [null, true, false]}] ",
            "{\"a\":{\"b\":{}},\"c\":[[]]}",
        ] {
            assert!(is_json(ok), "{ok}");
        }
        for bad in [
            "",
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "[1 2]",
            "\"\\x\"",
            "\"\u{1}\"",
            "[",
            "]",
            "{1:2}",
            "nul",
            "1 2",
            "[}",
            "{]",
            "\"\\u12\"",
        ] {
            assert!(!is_json(bad), "{bad}");
        }
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(is_json(&deep));
        assert!(!is_json(&deep[1..]));
    }
}
