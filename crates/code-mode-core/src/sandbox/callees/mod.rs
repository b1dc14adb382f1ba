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

mod scan;

pub(super) use scan::{scan, CallSites};
use scan::{Callee, Pos, Site};

use super::toolbox::Toolbox;
use crate::catalog::near::{near_miss, normalize};
use crate::limits::MAX_SUGGESTIONS;
use crate::messages;

/// How many lines above the error a call site whose end the scan did not
/// find may start (a call whose arguments span lines reports the position
/// of an argument).
const MAX_LINES_ABOVE: u32 = 8;

/// QuickJS's own message (the engine writes it, not us: it is not in
/// `messages/`) for calling a value that is not a function: matched here,
/// never written.
const QUICKJS_NOT_A_FUNCTION: &str = "not a function";

/// QuickJS's own message for reading `property` of `undefined` (as
/// `MCP.<unknown>.<tool>` does): matched here, never written.
fn quickjs_read_of_undefined(property: &str) -> String {
    format!("cannot read property '{property}' of undefined")
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
    let not_a_function = message == QUICKJS_NOT_A_FUNCTION;
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
                Ok(entry) => messages::call_it_with(&entry.id),
                Err(unknown_or_ambiguous) => unknown_or_ambiguous,
            };
            Some(messages::tool_not_a_function(tool, &why))
        }
        Callee::Mcp(server, tool) => {
            let servers = &toolbox.mcp.servers;
            let Some((index, found)) = servers
                .iter()
                .enumerate()
                .find(|(_, s)| &s.identifier == server)
            else {
                // `MCP.<unknown>.x(...)`: reading x of undefined.
                if message != quickjs_read_of_undefined(tool) {
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
mod tests;
