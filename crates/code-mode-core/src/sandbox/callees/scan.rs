//! The scan of a cell's script for the calls it spells out
//! (`tools.<name>(`, `MCP.<server>.<tool>(`): one pass that skips strings
//! and comments, pairs parentheses, and keeps where each such call's
//! arguments end and which other calls are made inside them.

use crate::limits::{MAX_CALL_HOLES, MAX_CALL_NAME_BYTES, MAX_CALL_SCAN_DEPTH, MAX_CALL_SITES};

/// A place in the script: 1-based line, and column in characters.
pub(super) type Pos = (u32, u32);

/// `tools.<name>(` or `MCP.<server>.<tool>(` in the script: where it starts,
/// and where its argument list closes (`None` when the scan did not see it).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::sandbox) struct Site {
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) callee: Callee,
    pub(super) end: Option<Pos>,
    /// More calls in its arguments than [`MAX_CALL_HOLES`] allows keeping.
    pub(super) crowded: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Callee {
    Tools(String),
    Mcp(String, String),
}

/// The call sites of a script, in source order, at most [`MAX_CALL_SITES`], and
/// the calls of anything else made inside their arguments (`holes`): an
/// error in one of those is that call's, not the site's.
#[derive(Debug, Default)]
pub(in crate::sandbox) struct CallSites {
    pub(super) sites: Vec<Site>,
    /// Start, end and the innermost site whose arguments hold it.
    pub(super) holes: Vec<(Pos, Pos, usize)>,
}

impl CallSites {
    pub(in crate::sandbox) fn clear(&mut self) {
        self.sites.clear();
        self.holes.clear();
    }
}

/// An open parenthesis: a call (where its callee starts, the site it is,
/// the innermost site it is in) or a group.
struct Open {
    call: Option<(Pos, Option<usize>)>,
    inside: Option<usize>,
}

/// The last token before a `(`: whether the parenthesis opens a call.
#[derive(Clone, Copy)]
enum Prev {
    /// An identifier or keyword, from byte to byte, starting at `Pos`.
    Word(usize, usize, Pos),
    /// `)` or `]` at `Pos`.
    Close(Pos),
    Other,
}

/// Words after which a parenthesis opens no call.
const NOT_CALLEES: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "with",
    "return",
    "typeof",
    "void",
    "delete",
    "in",
    "of",
    "instanceof",
    "case",
    "do",
    "else",
    "yield",
    "await",
    "function",
    "throw",
    "new",
    "let",
    "const",
    "var",
];

/// One pass over the script: lines and columns (counted in characters, up
/// to where they were last counted on the line: one pass however many
/// places are asked for), strings and comments skipped, parentheses paired.
struct Scanner<'a> {
    script: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: u32,
    counted_to: usize,
    column: u32,
    found: CallSites,
    open: Vec<Open>,
    /// Parentheses opened past [`MAX_CALL_SCAN_DEPTH`] and not closed yet.
    untracked: usize,
    /// The site whose `(` is at this byte, when one was found before it.
    pending: Option<(usize, usize)>,
    /// Braces open in code, and for each template `${` being scanned, how
    /// many were open when it started (at most [`MAX_CALL_SCAN_DEPTH`]).
    braces: usize,
    templates: Vec<usize>,
}

impl Scanner<'_> {
    /// The place of byte `at`, on the current line at or after the last
    /// place asked for.
    fn pos(&mut self, at: usize) -> Pos {
        self.column += self.script[self.counted_to..at].chars().count() as u32;
        self.counted_to = at;
        (self.line, self.column)
    }

    /// Moves past the newline at `self.i`.
    fn newline(&mut self) {
        self.line += 1;
        self.i += 1;
        (self.counted_to, self.column) = (self.i, 1);
    }

    /// Moves past a string or template opened by `quote` at `self.i`. A
    /// quoted string also ends at a line's end (it cannot span lines). A
    /// template stops at `${`: its code is scanned like any other, and the
    /// `}` that closes it resumes the template ([`Self::close_brace`]).
    fn skip_string(&mut self, quote: u8) {
        self.i += 1;
        while let Some(&byte) = self.bytes.get(self.i) {
            match byte {
                b'$' if quote == b'`' && self.bytes.get(self.i + 1) == Some(&b'{') => {
                    self.i += 2;
                    if self.templates.len() < MAX_CALL_SCAN_DEPTH {
                        self.templates.push(self.braces);
                        return;
                    }
                    // Too deep to follow: the rest of it is skipped as text.
                }
                b'\\' if self.bytes.get(self.i + 1) == Some(&b'\n') => {
                    self.i += 1;
                    self.newline();
                }
                b'\\' => self.i += 2,
                b'\n' if quote == b'`' => self.newline(),
                b'\n' => return,
                _ if byte == quote => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// A `}` at `self.i`: it ends a template's `${...}` when it closes the
    /// brace that opened it, and the template goes on.
    fn close_brace(&mut self) {
        if self.templates.last() == Some(&self.braces) {
            self.templates.pop();
            // `skip_string` starts past the quote: here, past the brace.
            self.skip_string(b'`');
        } else {
            self.braces = self.braces.saturating_sub(1);
            self.i += 1;
        }
    }

    /// Moves past a comment at `self.i` (`//` up to the line's end).
    fn skip_comment(&mut self) {
        let block = self.bytes[self.i + 1] == b'*';
        self.i += 2;
        while let Some(&byte) = self.bytes.get(self.i) {
            match byte {
                b'\n' if block => self.newline(),
                b'\n' => return,
                b'*' if block && self.bytes.get(self.i + 1) == Some(&b'/') => {
                    self.i += 2;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    fn open_paren(&mut self, prev: Prev) {
        if self.open.len() >= MAX_CALL_SCAN_DEPTH {
            self.untracked += 1;
            return;
        }
        let outer = self.open.last().and_then(|open| open.inside);
        let site = self
            .pending
            .take()
            .filter(|&(_, paren)| paren == self.i)
            .map(|(site, _)| site);
        let call = match (site, prev) {
            (Some(site), _) => {
                let start = &self.found.sites[site];
                Some(((start.line, start.column), Some(site)))
            }
            (None, Prev::Word(from, to, start)) => {
                let word = &self.script[from..to];
                (!NOT_CALLEES.contains(&word)).then_some((start, None))
            }
            (None, Prev::Close(start)) => Some((start, None)),
            (None, Prev::Other) => None,
        };
        self.open.push(Open {
            call,
            inside: site.or(outer),
        });
    }

    fn close_paren(&mut self) {
        let at = self.pos(self.i);
        if self.untracked > 0 {
            self.untracked -= 1;
            return;
        }
        let Some(open) = self.open.pop() else {
            return;
        };
        match open.call {
            Some((_, Some(site))) => self.found.sites[site].end = Some(at),
            Some((start, None)) => {
                let Some(site) = open.inside else { return };
                if self.found.holes.len() < MAX_CALL_HOLES {
                    self.found.holes.push((start, at, site));
                } else {
                    self.found.sites[site].crowded = true;
                }
            }
            None => {}
        }
    }

    fn run(mut self) -> CallSites {
        let mut prev = Prev::Other;
        while let Some(&byte) = self.bytes.get(self.i) {
            match byte {
                b'\n' => {
                    self.newline();
                    continue;
                }
                b'\'' | b'"' | b'`' => {
                    self.skip_string(byte);
                    prev = Prev::Other;
                    continue;
                }
                b'/' if matches!(self.bytes.get(self.i + 1), Some(b'/' | b'*')) => {
                    self.skip_comment();
                    continue;
                }
                b'{' => self.braces += 1,
                b'}' => {
                    self.close_brace();
                    prev = Prev::Other;
                    continue;
                }
                b'(' => self.open_paren(prev),
                b')' | b']' => {
                    if byte == b')' {
                        self.close_paren();
                    }
                    prev = Prev::Close(self.pos(self.i));
                    self.i += 1;
                    continue;
                }
                _ if byte.is_ascii_whitespace() => {
                    self.i += 1;
                    continue;
                }
                _ if is_ident(byte) => {
                    prev = self.word();
                    continue;
                }
                _ => {}
            }
            prev = Prev::Other;
            self.i += 1;
        }
        self.found
    }

    /// Reads the identifier (or number) at `self.i`; a `tools` or `MCP`
    /// that starts a spelt-out call becomes a site.
    fn word(&mut self) -> Prev {
        let from = self.i;
        let mut to = from;
        while self.bytes.get(to).copied().is_some_and(is_ident) {
            to += 1;
        }
        self.i = to;
        let start = self.pos(from);
        let member = from > 0 && self.bytes[from - 1] == b'.';
        let length = to - from;
        if !member
            && self.found.sites.len() < MAX_CALL_SITES
            && matches!(&self.bytes[from..to], b"tools" | b"MCP")
        {
            if let Some((callee, paren)) = callee_at(self.bytes, from, length) {
                self.pending = Some((self.found.sites.len(), paren));
                self.found.sites.push(Site {
                    line: start.0,
                    column: start.1,
                    callee,
                    end: None,
                    crowded: false,
                });
            }
        }
        Prev::Word(from, to, start)
    }
}

/// The call sites of a script ([`CallSites`]).
pub(in crate::sandbox) fn scan(script: &str) -> CallSites {
    Scanner {
        script,
        bytes: script.as_bytes(),
        i: 0,
        line: 1,
        counted_to: 0,
        column: 1,
        found: CallSites::default(),
        open: Vec::new(),
        untracked: 0,
        pending: None,
        braces: 0,
        templates: Vec::new(),
    }
    .run()
}

/// The callee spelt out at `start` (`tools` or `MCP`, `length` bytes), when
/// a call of it follows, and the byte of that call's `(`.
fn callee_at(bytes: &[u8], start: usize, length: usize) -> Option<(Callee, usize)> {
    let mut at = start + length;
    let first = member(bytes, &mut at)?;
    let callee = if length == 5 {
        Callee::Tools(first)
    } else {
        let second = member(bytes, &mut at)?;
        Callee::Mcp(first, second)
    };
    let paren = skip_spaces(bytes, at);
    (bytes.get(paren) == Some(&b'(')).then_some((callee, paren))
}

/// `.name` after optional spaces; moves `at` past it.
fn member(bytes: &[u8], at: &mut usize) -> Option<String> {
    let mut i = skip_spaces(bytes, *at);
    if bytes.get(i) != Some(&b'.') {
        return None;
    }
    i = skip_spaces(bytes, i + 1);
    let begin = i;
    while bytes.get(i).copied().is_some_and(is_ident) {
        i += 1;
    }
    if i == begin || i - begin > MAX_CALL_NAME_BYTES || bytes[begin].is_ascii_digit() {
        return None;
    }
    *at = i;
    // ASCII only, so the bytes are a string.
    Some(String::from_utf8_lossy(&bytes[begin..i]).into_owned())
}

fn skip_spaces(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}
