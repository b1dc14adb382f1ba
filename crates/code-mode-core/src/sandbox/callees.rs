//! Errors a model can act on when it calls a tool by a name that is not
//! there: `tools.websearch(...)` with `web_search` in the catalog fails in
//! QuickJS as "TypeError: not a function". `tools.<name>` itself must stay
//! `undefined` for a name with no convenience function (`typeof`, `in` and
//! `Object.keys` see the catalog as it is), so nothing changes while the cell
//! runs. Instead each cell's script is scanned once for the calls it spells
//! out (`tools.<name>(`, `MCP.<server>.<tool>(`) and where their arguments
//! end, and when the run fails with that TypeError inside one of them whose
//! name is missing (not inside another call in its arguments), the error
//! says which name was not found and what is close (`docs/errors.md`).

use super::toolbox::Toolbox;
use crate::catalog::near::{near_miss, normalize};
use crate::limits::MAX_SUGGESTIONS;
use crate::messages;

/// Call sites kept per cell, and the longest name kept: what a run holds for
/// this stays small whatever the script.
const MAX_SITES: usize = 64;
const MAX_NAME_BYTES: usize = 128;

/// Other calls kept inside the sites' arguments: a site with more is not
/// explained (its error may be one of theirs).
const MAX_HOLES: usize = 1024;

/// Parentheses followed inside each other; deeper ones are only counted.
const MAX_OPEN: usize = 1024;

/// How many lines above the error a call site whose end the scan did not
/// find may start (a call whose arguments span lines reports the position
/// of an argument).
const MAX_LINES_ABOVE: u32 = 8;

/// A place in the script: 1-based line, and column in characters.
type Pos = (u32, u32);

/// `tools.<name>(` or `MCP.<server>.<tool>(` in the script: where it starts,
/// and where its argument list closes (`None` when the scan did not see it).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Site {
    line: u32,
    column: u32,
    callee: Callee,
    end: Option<Pos>,
    /// More calls in its arguments than [`MAX_HOLES`] allows keeping.
    crowded: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Callee {
    Tools(String),
    Mcp(String, String),
}

/// The call sites of a script, in source order, at most [`MAX_SITES`], and
/// the calls of anything else made inside their arguments (`holes`): an
/// error in one of those is that call's, not the site's.
#[derive(Debug, Default)]
pub(super) struct CallSites {
    sites: Vec<Site>,
    /// Start, end and the innermost site whose arguments hold it.
    holes: Vec<(Pos, Pos, usize)>,
}

impl CallSites {
    pub(super) fn clear(&mut self) {
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
    /// Parentheses opened past [`MAX_OPEN`] and not closed yet.
    untracked: usize,
    /// The site whose `(` is at this byte, when one was found before it.
    pending: Option<(usize, usize)>,
    /// Braces open in code, and for each template `${` being scanned, how
    /// many were open when it started (at most [`MAX_OPEN`]).
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
                    if self.templates.len() < MAX_OPEN {
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
        if self.open.len() >= MAX_OPEN {
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
                if self.found.holes.len() < MAX_HOLES {
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
            && self.found.sites.len() < MAX_SITES
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
pub(super) fn scan(script: &str) -> CallSites {
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
    if i == begin || i - begin > MAX_NAME_BYTES || bytes[begin].is_ascii_digit() {
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

/// The site whose call threw at `at`: the innermost site whose call spans
/// it, unless another call inside that site's arguments does.
fn failing_site(found: &CallSites, at: Pos) -> Option<&Site> {
    let (index, site) = found
        .sites
        .iter()
        .enumerate()
        .filter(|(_, site)| {
            let start = (site.line, site.column);
            match site.end {
                Some(end) => start <= at && at <= end,
                None => start <= at && at.0 - site.line <= MAX_LINES_ABOVE,
            }
        })
        .max_by_key(|(_, site)| (site.line, site.column))?;
    let in_hole = found
        .holes
        .iter()
        .any(|&(start, end, of)| of == index && start <= at && at <= end);
    (!in_hole && !site.crowded).then_some(site)
}

/// A better message for an uncaught `name: message` thrown at script `line`
/// and `column`, when it is QuickJS's error for calling a missing tool or
/// server method spelt out at or just before that place.
pub(super) fn explain(
    found: &CallSites,
    toolbox: &Toolbox,
    name: &str,
    message: &str,
    (line, column): (u32, u32),
) -> Option<String> {
    if name != "TypeError" {
        return None;
    }
    let site = failing_site(found, (line, column))?;
    let not_a_function = message == "not a function";
    match &site.callee {
        Callee::Tools(tool) if not_a_function => {
            if matches!(tool.as_str(), "search" | "describe" | "call")
                || toolbox.catalog.has_shortcut(tool)
            {
                return None;
            }
            let why = match toolbox.catalog.lookup(tool) {
                // A tool of that name with no shortcut (not an identifier
                // the shortcut rules allow): tools.call reaches it.
                Ok(entry) => format!(
                    "Call it with tools.call('{}', input).",
                    entry.id.replace('\\', "\\\\").replace('\'', "\\'")
                ),
                Err(unknown_or_ambiguous) => unknown_or_ambiguous,
            };
            Some(format!("TypeError: tools.{tool} is not a function. {why}"))
        }
        Callee::Mcp(server, tool) => {
            let servers = &toolbox.mcp.servers;
            let Some((index, found)) = servers
                .iter()
                .enumerate()
                .find(|(_, s)| &s.identifier == server)
            else {
                // `MCP.<unknown>.x(...)`: reading x of undefined.
                let expected = format!("cannot read property '{tool}' of undefined");
                if message != expected {
                    return None;
                }
                let names = servers.iter().map(|s| s.identifier.as_str());
                return Some(messages::unknown_mcp_server(
                    server,
                    &closest(server, names),
                ));
            };
            let names = || {
                found
                    .tools
                    .iter()
                    .filter_map(|t| t.path.first().map(String::as_str))
            };
            // A member the server has (`$api`, a tool, a refused tool, a
            // group) is not what failed: some other call on that line was.
            let member = toolbox
                .mcp
                .layout(index)
                .is_some_and(|layout| layout.find(tool).is_some());
            if !not_a_function || member {
                return None;
            }
            Some(messages::unknown_mcp_tool(
                server,
                tool,
                &closest(tool, names()),
            ))
        }
        Callee::Tools(_) => None,
    }
}

/// At most [`MAX_SUGGESTIONS`] distinct names close to `needle`, closest
/// first, ties in plain order.
fn closest<'a>(needle: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let near = normalize(needle);
    let mut scored: Vec<(u32, &str)> = names
        .map(|name| (near_miss(&near, &normalize(name)), name))
        .filter(|&(score, _)| score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{failing_site, scan, CallSites, Callee};

    /// Where each site starts, and its callee.
    fn starts(found: &CallSites) -> Vec<(u32, u32, Callee)> {
        found
            .sites
            .iter()
            .map(|site| (site.line, site.column, site.callee.clone()))
            .collect()
    }

    /// The callee the error at `at` is put down to, if any.
    fn blamed(script: &str, at: (u32, u32)) -> Option<Callee> {
        failing_site(&scan(script), at).map(|site| site.callee.clone())
    }

    #[test]
    fn finds_the_calls_a_script_spells_out() {
        let script = "const a = await tools.websearch({ q: 1 })\n  await tools . read_file (\n {})\nMCP.docs.serch({})\nMCP.docs.resources.read({}); x.tools.y(); tools.search('q'); tools.x; mytools.y(); ALL_TOOLS.z()\n'tools.a()'; // tools.b()\n/* tools.c()\n */ `tools.d(${1})\n`; tools.e()";
        assert_eq!(
            starts(&scan(script)),
            vec![
                (1, 17, Callee::Tools("websearch".into())),
                (2, 9, Callee::Tools("read_file".into())),
                (4, 1, Callee::Mcp("docs".into(), "serch".into())),
                (5, 43, Callee::Tools("search".into())),
                (9, 4, Callee::Tools("e".into())),
            ]
        );
        let found = scan(script);
        let ends: Vec<_> = found.sites.iter().map(|site| site.end).collect();
        assert_eq!(
            ends,
            [
                Some((1, 41)),
                Some((3, 4)),
                Some((4, 18)),
                Some((5, 59)),
                Some((9, 12))
            ]
        );
    }

    #[test]
    fn an_error_is_put_down_to_the_innermost_call_that_spans_it() {
        // QuickJS reports a failed call at its callee's last name, or for a
        // call over several lines at one of its arguments.
        let websearch = Some(Callee::Tools("websearch".into()));
        assert_eq!(blamed("tools.websearch(1)", (1, 7)), websearch);
        assert_eq!(blamed("tools.websearch(\n1,\n2)", (2, 1)), websearch);
        assert_eq!(
            blamed("tools.websearch(\n  {q: 1},\n  (() => 1)())", (3, 10)),
            websearch
        );
        // Another call's error: after the site, or inside its arguments.
        assert_eq!(
            blamed("const f = 1\nif (false) tools.a()\nf()", (3, 1)),
            None
        );
        assert_eq!(
            blamed(
                "const o = {}\nconst x = tools.websearch(o.nope(), 2)",
                (2, 29)
            ),
            None
        );
        assert_eq!(blamed("tools.a((() => o.nope())())", (1, 18)), None);
        // A site inside another's arguments is the innermost.
        assert_eq!(
            blamed("tools.a(1, tools.b(2))", (1, 18)),
            Some(Callee::Tools("b".into()))
        );
        assert_eq!(
            blamed("tools.a(1, tools.b(2))", (1, 7)),
            Some(Callee::Tools("a".into()))
        );
        // Parentheses in strings and comments do not count; calls in a
        // template's `${...}` do, and the template goes on after it.
        assert_eq!(blamed("tools.a(')', /* ( */ 1,\n f(2))", (2, 2)), None);
        let template = "text(`${await tools.b({ q: `${x}` })} (`)\ntools.c(1)";
        assert_eq!(blamed(template, (1, 21)), Some(Callee::Tools("b".into())));
        assert_eq!(blamed(template, (2, 7)), Some(Callee::Tools("c".into())));
        assert_eq!(blamed(template, (1, 2)), None);
        assert_eq!(
            blamed("tools.a(')', /* ) */ 1,\n 2)", (2, 2)),
            Some(Callee::Tools("a".into()))
        );
    }

    #[test]
    fn a_site_whose_end_is_not_seen_spans_a_few_lines() {
        let script = format!("tools.a(\n{}", "1,\n".repeat(20));
        assert_eq!(blamed(&script, (9, 1)), Some(Callee::Tools("a".into())));
        assert_eq!(blamed(&script, (10, 1)), None);
    }

    #[test]
    fn keeps_a_bounded_number_of_short_names_and_holes() {
        let script = "tools.a();".repeat(1000);
        assert_eq!(scan(&script).sites.len(), super::MAX_SITES);
        let long = format!("tools.{}()", "n".repeat(200));
        assert!(scan(&long).sites.is_empty());
        // At MAX_HOLES calls in its arguments a site is still explained; one
        // more and it is not.
        for (calls, explained) in [(super::MAX_HOLES, true), (super::MAX_HOLES + 1, false)] {
            let script = format!("tools.a({}1)", "f(),".repeat(calls));
            assert_eq!(
                blamed(&script, (1, 7)).is_some(),
                explained,
                "{calls} calls"
            );
        }
        // Deep parentheses are counted, not kept.
        let deep = format!("tools.a({}1{})", "(".repeat(100_000), ")".repeat(100_000));
        let found = scan(&deep);
        assert_eq!(found.sites[0].end, Some((1, 200_010)));
    }

    #[test]
    fn columns_count_characters_once_per_line() {
        // 1.5 MiB of `tools ` on one line: no site (counting from the
        // line's start at each occurrence was 10^11 steps).
        let script = "tools ".repeat(1 << 18);
        assert!(scan(&script).sites.is_empty());
        let script = format!("{}tools.a(); tools.b()", "é".repeat(1000));
        let found = scan(&script);
        assert_eq!(
            found.sites.iter().map(|s| s.column).collect::<Vec<_>>(),
            [1001, 1012]
        );
    }
}
