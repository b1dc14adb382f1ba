//! A bound on how deep the parsers can recurse, checked before any of them
//! runs.
//!
//! swc's parser (and the visitors, the TypeScript stripper and the drop of
//! the AST after it) recurse once per level of nesting, with no limit of
//! their own: a few hundred thousand nested parentheses overflow even a
//! worker's 256 MiB stack and kill the process. Telling nesting apart from
//! sequence exactly would take a full JavaScript lexer (is this `/` a regex or
//! a division?), and a wrong guess is a crash; so this guard counts something
//! simpler that bounds the depth whatever the lexing.
//!
//! Every cycle of recursion in the parser consumes at least one token that
//! can open a level: a bracket (`(`, `[`, `{`, `${`), an operator (`!`, `=`,
//! `=>`, `?`, `:`, `<`, ...) or a keyword (`typeof`, `new`, `if`, `keyof`,
//! ...). Identifiers, numbers, strings, `,`, `;`, `.` and closing brackets
//! never do. So the number of *opening units* in the source, counted
//! character by character with no lexing at all (one per punctuation
//! character that is not one of `, ; . ) ] } " ' \``, one per word that is a
//! keyword), bounds the depth. Counting inside strings and comments only
//! makes the bound larger, never smaller.
//!
//! Measured on this build, one unit costs at most about 3.3 KiB of stack (a
//! nested parenthesis, TypeScript included), so [`MAX_OPENING_UNITS`] keeps
//! the deepest possible source well inside the worker's stack.

use crate::limits::MAX_OPENING_UNITS;

/// Keywords and contextual keywords of JavaScript and TypeScript: words
/// after which the parser may descend. Sorted, for a binary search per word.
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "abstract", "accessor", "as", "asserts", "async", "await", "case", "catch", "class", "const",
    "declare", "default", "delete", "do", "else", "enum", "export", "extends", "finally", "for",
    "function", "get", "if", "implements", "import", "in", "infer", "instanceof", "interface",
    "is", "keyof", "let", "module", "namespace", "new", "of", "out", "override", "private",
    "protected", "public", "readonly", "return", "satisfies", "set", "static", "switch", "throw",
    "try", "type", "typeof", "unique", "using", "var", "void", "while", "with", "yield",
];

/// Why the guard refused a cell: where the limit was passed (a byte offset
/// into the source it was given).
#[derive(Debug, PartialEq)]
pub(super) struct TooDeep {
    pub(super) offset: usize,
}

/// Refuses `source` at its first opening unit past [`MAX_OPENING_UNITS`].
pub(super) fn check(source: &str) -> Result<(), TooDeep> {
    match units(source).nth(MAX_OPENING_UNITS) {
        Some(offset) => Err(TooDeep { offset }),
        None => Ok(()),
    }
}

/// The byte offsets of the opening units of `source`, in order.
fn units(source: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = source.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let start = i;
            if is_word_byte(bytes[i]) {
                while i < bytes.len() && is_word_byte(bytes[i]) {
                    i += 1;
                }
                if KEYWORDS.binary_search(&&source[start..i]).is_ok() {
                    return Some(start);
                }
            } else {
                i += 1;
                if opens(bytes[start]) {
                    return Some(start);
                }
            }
        }
        None
    })
}

/// Letters, digits, `_`, `$` and every byte of a non-ASCII character (so a
/// word never splits a character and `source[start..i]` stays valid).
fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// ASCII punctuation that can open a level of nesting.
fn opens(byte: u8) -> bool {
    byte.is_ascii_punctuation()
        && !matches!(
            byte,
            b',' | b';' | b'.' | b')' | b']' | b'}' | b'"' | b'\'' | b'`' | b'_' | b'$'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(source: &str) -> usize {
        units(source).count()
    }

    #[test]
    fn keywords_are_sorted() {
        assert!(KEYWORDS.is_sorted());
    }

    #[test]
    fn counts_openers_and_keywords_only() {
        assert_eq!(count("foo.bar(baz, 1.5, 'x;y')"), 1);
        // const, =, typeof, ===, ?, [, :, {, :
        assert_eq!(count("const a = typeof b === 'string' ? [c] : {d: e}"), 11);
        assert_eq!(count("importance, format, newt, $if, if_"), 0);
        assert_eq!(count("`a ${b} c`"), 1);
    }

    #[test]
    fn ordinary_code_passes() {
        let cell = "const files = await tools.search('read file')\nfor (const f of files) text(f.id)\nreturn files.length\n";
        assert_eq!(check(&cell.repeat(500)), Ok(()));
    }

    #[test]
    fn deep_nesting_is_refused_where_the_limit_is_passed() {
        let deep = format!("return {}1{}", "(".repeat(200_000), ")".repeat(200_000));
        let refused = check(&deep).unwrap_err();
        // `return` is the first unit; the limit is passed inside the parens.
        assert_eq!(refused.offset, "return ".len() + MAX_OPENING_UNITS - 1);
        assert!(check(&"!".repeat(1_000_000)).is_err());
        assert!(check(&"typeof ".repeat(100_000)).is_err());
        let within = format!(
            "{}1{}",
            "(".repeat(MAX_OPENING_UNITS),
            ")".repeat(MAX_OPENING_UNITS)
        );
        assert_eq!(check(&within), Ok(()));
    }

    #[test]
    fn non_ascii_text_is_one_word() {
        assert_eq!(check("const café = 'naïve ✓'; return café"), Ok(()));
    }
}
