//! Byte offsets in the wrapped script -> line:column in the user's source.

use std::fmt;

use super::WRAPPER_LINES;

/// A 1-based line and column in the user's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: u32,
    pub column: u32,
}

impl Location {
    /// The user-source location of a byte offset into the wrapped script.
    pub fn of_wrapped(wrapped: &str, offset: usize) -> Self {
        let offset = floor_char_boundary(wrapped, offset.min(wrapped.len()));
        let before = &wrapped[..offset];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() as u32 + 1;
        Self {
            line: line.saturating_sub(WRAPPER_LINES).max(1),
            column,
        }
    }

    /// A location reported by QuickJS for the wrapped script (1-based line and column).
    pub fn of_script_line(line: u32, column: u32) -> Self {
        Self {
            line: line.saturating_sub(WRAPPER_LINES).max(1),
            column: column.max(1),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::messages::location(self.line, self.column))
    }
}

fn floor_char_boundary(s: &str, mut index: usize) -> usize {
    while !s.is_char_boundary(index) {
        index -= 1;
    }
    index
}
