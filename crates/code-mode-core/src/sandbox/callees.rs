//! Errors a model can act on when it calls a tool by a name that is not
//! there: `tools.websearch(...)` with `web_search` in the catalog fails in
//! QuickJS as "TypeError: not a function". `tools.<name>` itself must stay
//! `undefined` for a name with no convenience function (`typeof`, `in` and
//! `Object.keys` see the catalog as it is), so nothing changes while the cell
//! runs. Instead each cell's script is scanned once for the calls it spells
//! out (`tools.<name>(`, `MCP.<server>.<tool>(`), and when the run fails
//! with that TypeError next to one of them whose name is missing, the error
//! says which name was not found and what is close (`docs/errors.md`).

use super::toolbox::Toolbox;
use crate::catalog::near::{near_miss, normalize};
use crate::limits::MAX_SUGGESTIONS;
use crate::messages;

/// Call sites kept per cell, and the longest name kept: what a run holds for
/// this stays small whatever the script.
const MAX_SITES: usize = 64;
const MAX_NAME_BYTES: usize = 128;

/// How many lines above the error a call site may start (a call whose
/// arguments span lines reports the position of an argument).
const MAX_LINES_ABOVE: u32 = 8;

/// `tools.<name>(` or `MCP.<server>.<tool>(` in the script, where it starts
/// (1-based script line and column).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Site {
    line: u32,
    column: u32,
    callee: Callee,
}

#[derive(Debug, Clone, PartialEq)]
enum Callee {
    Tools(String),
    Mcp(String, String),
}

/// The call sites of a script, in source order, at most [`MAX_SITES`].
pub(super) fn scan(script: &str) -> Vec<Site> {
    let bytes = script.as_bytes();
    let mut sites = Vec::new();
    let mut line = 1u32;
    // The column is counted in characters, up to where it was last counted
    // on this line: one pass over the script, however many sites it has.
    let (mut counted_to, mut column) = (0usize, 1u32);
    let mut i = 0;
    while i < bytes.len() && sites.len() < MAX_SITES {
        let byte = bytes[i];
        if byte == b'\n' {
            line += 1;
            (counted_to, column) = (i + 1, 1);
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b'.');
        let word = match () {
            _ if !starts_word => None,
            _ if bytes[i..].starts_with(b"tools") => Some(5),
            _ if bytes[i..].starts_with(b"MCP") => Some(3),
            _ => None,
        };
        let Some(length) = word else {
            i += 1;
            continue;
        };
        if let Some(callee) = callee_at(bytes, i, length) {
            column += script[counted_to..i].chars().count() as u32;
            counted_to = i;
            sites.push(Site {
                line,
                column,
                callee,
            });
        }
        i += length;
    }
    sites
}

/// The callee spelt out at `start` (`tools` or `MCP`, `length` bytes), when
/// a call of it follows.
fn callee_at(bytes: &[u8], start: usize, length: usize) -> Option<Callee> {
    let mut at = start + length;
    if bytes.get(at).copied().is_some_and(is_ident) {
        return None;
    }
    let first = member(bytes, &mut at)?;
    if length == 5 {
        call_follows(bytes, at).then_some(Callee::Tools(first))
    } else {
        let second = member(bytes, &mut at)?;
        call_follows(bytes, at).then_some(Callee::Mcp(first, second))
    }
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

fn call_follows(bytes: &[u8], at: usize) -> bool {
    bytes.get(skip_spaces(bytes, at)) == Some(&b'(')
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

/// A better message for an uncaught `name: message` thrown at script `line`
/// and `column`, when it is QuickJS's error for calling a missing tool or
/// server method spelt out at or just before that place.
pub(super) fn explain(
    sites: &[Site],
    toolbox: &Toolbox,
    name: &str,
    message: &str,
    (line, column): (u32, u32),
) -> Option<String> {
    if name != "TypeError" {
        return None;
    }
    let site = sites
        .iter()
        .rev()
        .find(|site| (site.line, site.column) <= (line, column))
        .filter(|site| line - site.line <= MAX_LINES_ABOVE)?;
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
    use super::{scan, Callee, Site};

    fn site(line: u32, column: u32, callee: Callee) -> Site {
        Site {
            line,
            column,
            callee,
        }
    }

    #[test]
    fn finds_the_calls_a_script_spells_out() {
        let script = "const a = await tools.websearch({ q: 1 })\n  await tools . read_file (\n {})\nMCP.docs.serch({})\nMCP.docs.resources.read({}); x.tools.y(); tools.search('q'); tools.x; mytools.y(); ALL_TOOLS.z()";
        assert_eq!(
            scan(script),
            vec![
                site(1, 17, Callee::Tools("websearch".into())),
                site(2, 9, Callee::Tools("read_file".into())),
                site(4, 1, Callee::Mcp("docs".into(), "serch".into())),
                site(5, 43, Callee::Tools("search".into())),
            ]
        );
    }

    #[test]
    fn keeps_a_bounded_number_of_short_names() {
        let script = "tools.a();".repeat(1000);
        assert_eq!(scan(&script).len(), super::MAX_SITES);
        let long = format!("tools.{}()", "n".repeat(200));
        assert!(scan(&long).is_empty());
    }

    #[test]
    fn columns_count_characters_once_per_line() {
        // 1.5 MiB of `tools ` on one line: no site (counting from the
        // line's start at each occurrence was 10^11 steps).
        let script = "tools ".repeat(1 << 18);
        assert!(scan(&script).is_empty());
        let script = format!("{}tools.a(); tools.b()", "é".repeat(1000));
        let sites = scan(&script);
        assert_eq!(
            sites.iter().map(|s| s.column).collect::<Vec<_>>(),
            [1001, 1012]
        );
    }
}
