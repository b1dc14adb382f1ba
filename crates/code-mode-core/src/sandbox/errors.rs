//! Uncaught guest exceptions -> "Name: message at line L:C" in the user's source.

use rquickjs::{Ctx, Value};

use super::callees;
use super::json::string_capped;
use super::state::VmState;
use crate::limits::MAX_ERROR_PART_BYTES;
use crate::messages;
use crate::source::Location;

/// The file name cells are evaluated under; only frames in it are reported.
pub(super) const CELL_FILE: &str = "cell";

/// Describes an uncaught guest value without any host frame; a call of a
/// missing tool says which (`callees/`).
pub(super) fn describe(ctx: &Ctx<'_>, state: &VmState, exception: &Value<'_>) -> String {
    let Some(object) = exception.as_object() else {
        return messages::uncaught(&cut(primitive_text(ctx, exception)));
    };
    let text = |key: &str| -> Option<String> {
        let value: Value = object.get(key).ok()?;
        value
            .is_string()
            .then(|| string_capped(ctx, &value, MAX_ERROR_PART_BYTES + 1))
    };
    let name = cut(text("name").unwrap_or_else(|| "Error".to_owned()));
    let message = cut(text("message").unwrap_or_default());
    let at = text("stack").as_deref().and_then(first_cell_position);
    let explained = at.and_then(|at| {
        let toolbox = state.toolbox.borrow().clone()?;
        callees::explain(&state.sites.borrow(), &toolbox, &name, &message, at)
    });
    let head = match explained {
        Some(head) => head,
        None if message.is_empty() => name,
        None => format!("{name}: {message}"),
    };
    match at {
        Some((line, column)) => {
            messages::at_location(&head, Location::of_script_line(line, column))
        }
        None => head,
    }
}

/// A thrown primitive as `String(value)` shows it (a symbol as
/// `Symbol(description)`, which plain conversion refuses).
fn primitive_text(ctx: &Ctx<'_>, value: &Value<'_>) -> String {
    let Some(symbol) = value.as_symbol() else {
        // A thrown string is copied only as far as it will be shown.
        return string_capped(ctx, value, MAX_ERROR_PART_BYTES + 1);
    };
    let description = match symbol.description() {
        Ok(text) if text.is_string() => string_capped(ctx, &text, MAX_ERROR_PART_BYTES),
        _ => {
            let _ = ctx.catch();
            String::new()
        }
    };
    format!("Symbol({description})")
}

/// At most [`MAX_ERROR_PART_BYTES`] bytes (on a character boundary), with `…`
/// when cut.
fn cut(text: String) -> String {
    messages::cut(text, MAX_ERROR_PART_BYTES)
}

/// The first `cell:L:C` in a QuickJS stack string: its script line and
/// column.
fn first_cell_position(stack: &str) -> Option<(u32, u32)> {
    let needle = format!("{CELL_FILE}:");
    let mut rest = stack;
    while let Some(at) = rest.find(&needle) {
        let tail = &rest[at + needle.len()..];
        let mut parts = tail.splitn(3, |c: char| !c.is_ascii_digit());
        if let (Some(line), Some(column)) = (parts.next(), parts.next()) {
            let sep = tail.as_bytes().get(line.len()).copied();
            if let (Ok(line), Ok(column), Some(b':')) = (line.parse(), column.parse(), sep) {
                return Some((line, column));
            }
        }
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_cell_frame() {
        let stack = "    at f (cell:4:7)\n    at <anonymous> (cell:9:1)\n";
        assert_eq!(first_cell_position(stack), Some((4, 7)));
        assert_eq!(first_cell_position("    at native\n"), None);
        assert_eq!(first_cell_position("cell:x cell:2:3"), Some((2, 3)));
    }
}
