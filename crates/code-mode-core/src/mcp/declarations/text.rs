//! Text helpers of the declarations: comments that cannot be closed early,
//! descriptions clipped to what a model needs, property keys and literals.

use serde_json::Value;

use crate::identifiers::is_identifier;
use crate::limits::{
    DECLARATION_DESCRIPTION_LINES, DECLARATION_LINE_CHARS, DECLARATION_VALUE_CHARS,
    DECLARATION_WRAP_CHARS,
};

/// Text safe inside a `/* */` comment: `*/` cannot end it early, and is
/// written `*\/`, as a JavaScript string would escape it.
pub fn comment_safe(text: &str) -> String {
    text.replace("*/", "*\\/")
}

/// `text` with every run of whitespace (line breaks included) turned into one
/// space, clipped to `max` characters with a trailing `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            break;
        }
    }
    clip(&out, max)
}

/// At most `max` characters: longer text keeps `max - 1` and ends with `…`.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let end = text
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(text.len(), |(at, _)| at);
            format!("{}…", &text[..end])
        }
    }
}

/// A tool description as comment lines: blank lines at either end dropped,
/// runs of blank lines kept as one, long lines wrapped at [`DECLARATION_WRAP_CHARS`], at
/// most [`DECLARATION_DESCRIPTION_LINES`]; `more` names where the rest is when lines are
/// cut.
pub fn description_lines(text: &str, more: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            if lines.last().is_some_and(|last| !last.is_empty()) {
                lines.push(String::new());
            }
            continue;
        }
        wrap(line, &mut lines);
    }
    while lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    if lines.len() > DECLARATION_DESCRIPTION_LINES {
        let cut = lines.len() - (DECLARATION_DESCRIPTION_LINES - 1);
        lines.truncate(DECLARATION_DESCRIPTION_LINES - 1);
        lines.push(crate::messages::more_lines(cut, more));
    }
    lines
}

/// `line` wrapped at spaces into lines of at most [`DECLARATION_WRAP_CHARS`] (a longer
/// word gets a line of its own, clipped), its indentation kept on the first.
fn wrap(line: &str, lines: &mut Vec<String>) {
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut current = indent.to_owned();
    let mut width = current.chars().count();
    for word in line.split_whitespace() {
        let word = clip(word, DECLARATION_LINE_CHARS);
        let chars = word.chars().count();
        if width > indent.len() && width + 1 + chars > DECLARATION_WRAP_CHARS {
            lines.push(std::mem::take(&mut current));
            width = 0;
        }
        if width > 0 && !current.trim().is_empty() {
            current.push(' ');
            width += 1;
        }
        current.push_str(&word);
        width += chars;
    }
    lines.push(current);
}

/// A property key as TypeScript writes it: bare when it is an identifier,
/// else a quoted string.
pub fn key(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        quoted(name)
    }
}

/// A string as a JSON (and so TypeScript) string literal.
pub fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// A JSON value as a TypeScript literal type: every JSON text is one
/// (`"a"`, `1`, `true`, `null`, `{"a":1}`, `[1,2]`).
pub fn literal(value: &Value) -> String {
    value.to_string()
}

/// A JSON value quoted in a comment, clipped.
pub fn shown(value: &Value) -> String {
    clip(&literal(value), DECLARATION_VALUE_CHARS)
}

/// A `/** */` comment at `indent`: one line when there is one line, else a
/// block. Nothing for no lines.
pub fn doc_comment(indent: &str, lines: &[String]) -> String {
    match lines {
        [] => String::new(),
        [line] if !line.is_empty() => format!("{indent}/** {} */\n", comment_safe(line)),
        _ => {
            let mut out = format!("{indent}/**\n");
            for line in lines {
                if line.is_empty() {
                    out.push_str(indent);
                    out.push_str(" *\n");
                } else {
                    out.push_str(indent);
                    out.push_str(" * ");
                    out.push_str(&comment_safe(line));
                    out.push('\n');
                }
            }
            out.push_str(indent);
            out.push_str(" */\n");
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_cannot_be_closed_by_their_text() {
        let out = doc_comment("", &["a */ b".to_owned(), "c".to_owned()]);
        assert_eq!(out, "/**\n * a *\\/ b\n * c\n */\n");
        assert_eq!(doc_comment("  ", &["x*/".to_owned()]), "  /** x*\\/ */\n");
    }

    #[test]
    fn descriptions_keep_twelve_lines_and_say_where_the_rest_is() {
        let text: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let lines = description_lines(&format!("\n\n{text}\n\n"), "see $api");
        assert_eq!(lines.len(), 12);
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[10], "line 11");
        assert_eq!(lines[11], "(9 more lines: see $api)");
        assert_eq!(description_lines("a\n\n\n\nb", ""), ["a", "", "b"]);
        let long = "word ".repeat(50);
        let wrapped = description_lines(&long, "");
        assert_eq!(wrapped.len(), 3);
        assert!(
            wrapped.iter().all(|l| l.len() <= DECLARATION_WRAP_CHARS),
            "{wrapped:?}"
        );
        assert_eq!(wrapped.join(" "), long.trim_end());
        assert_eq!(description_lines("  - item one", ""), ["  - item one"]);
    }

    #[test]
    fn clipping_counts_characters() {
        assert_eq!(clip("ééééé", 3), "éé…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(one_line("a \n  b\tc", 10), "a b c");
        assert_eq!(one_line(&"word ".repeat(1000), 12), "word word w…");
    }

    #[test]
    fn keys_are_bare_only_when_they_are_identifiers() {
        assert_eq!(key("owner"), "owner");
        assert_eq!(key("$ref"), "$ref");
        assert_eq!(key("per-page"), "\"per-page\"");
        assert_eq!(key("a\"b"), "\"a\\\"b\"");
        assert_eq!(key(""), "\"\"");
    }
}
