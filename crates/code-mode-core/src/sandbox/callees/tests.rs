//! The scan and the attribution of errors to call sites.

use super::scan::Callee;
use super::{failing_site, scan, CallSites};
use crate::limits::{MAX_CALL_HOLES, MAX_CALL_SITES};

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
    assert_eq!(scan(&script).sites.len(), MAX_CALL_SITES);
    let long = format!("tools.{}()", "n".repeat(200));
    assert!(scan(&long).sites.is_empty());
    // At MAX_CALL_HOLES calls in its arguments a site is still explained; one
    // more and it is not.
    for (calls, explained) in [(MAX_CALL_HOLES, true), (MAX_CALL_HOLES + 1, false)] {
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
