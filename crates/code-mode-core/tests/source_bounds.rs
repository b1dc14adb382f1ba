//! The work the host does on a cell's source before it runs is bounded before
//! it starts: shapes that made swc's parser backtrack quadratically or
//! exponentially, nested labels, and the rewriting of TypeScript are refused
//! with `invalid_input`; ordinary cells, large ones included, are not.
//! Outcomes only, never timing: each refused shape below was accepted (after
//! seconds of work) before these bounds.

mod common;

use code_mode_core::config::{CodeModeConfig, Language};
use code_mode_core::runs::Engine;
use code_mode_core::source::{prepare, SourceError};
use swc_common::sync::Lrc;
use swc_common::{BytePos, SourceMap, GLOBALS};
use swc_ecma_parser::budget::with_budget;
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};

use common::exec_with;

/// Prepares on a thread with a worker's stack (the parsers recurse).
fn prepared(code: String, language: Language) -> Result<(), SourceError> {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || prepare(&code, language).map(|_| ()))
        .unwrap()
        .join()
        .unwrap()
}

fn ts(code: String) -> Result<(), SourceError> {
    prepared(code, Language::Typescript)
}

fn js(code: String) -> Result<(), SourceError> {
    prepared(code, Language::Javascript)
}

fn too_costly(result: Result<(), SourceError>) -> bool {
    match result {
        Err(error @ SourceError::TooCostly { .. }) => error
            .message()
            .starts_with("code is too costly to parse: the parser would backtrack too often (the limit is passed at line "),
        _ => false,
    }
}

#[test]
fn chains_of_type_assertions_are_refused() {
    // Each `<any>` first tries a generic arrow function over the rest: quadratic.
    let result = ts(format!("return {}1", "<any>".repeat(1000)));
    assert!(too_costly(result));
}

#[test]
fn nests_that_double_the_parse_per_level_are_refused() {
    // A type assertion around parentheses, and an arrow function with a
    // return type inside `? :`: each level parses what it holds twice.
    for code in [
        format!("return {}1{}", "<any>(".repeat(16), ")".repeat(16)),
        format!("return {}1{}", "a ? (b): c => (".repeat(16), ")".repeat(16)),
    ] {
        let result = ts(code.clone());
        assert!(too_costly(result), "{code}");
    }
}

#[test]
fn comparisons_that_read_as_type_arguments_are_refused() {
    // Each `<` first tries type arguments, which read on to the end.
    for code in [
        format!("return {}1", "a < ".repeat(300)),
        format!("return {}1{}", "a < (".repeat(200), ")".repeat(200)),
        format!("return {}c", "a < b, ".repeat(200)),
    ] {
        let result = ts(code.clone());
        assert!(too_costly(result), "{}", &code[..40]);
    }
}

#[test]
fn labels_inside_labels_are_refused_in_both_languages() {
    // Each label is checked against every label around it (and a duplicate
    // is an error each): quadratic.
    for code in [
        format!("{}1", "a: ".repeat(2000)),
        format!("{}1{}", "a: {".repeat(2000), "}".repeat(2000)),
        (0..1000).map(|i| format!("l{i}: ")).collect::<String>() + "1",
    ] {
        assert!(too_costly(js(code.clone())), "{}", &code[..20]);
        assert!(too_costly(ts(code.clone())), "{}", &code[..20]);
    }
}

#[test]
fn ordinary_cells_are_well_within_the_budget() {
    // Dense TypeScript: generics, comparisons, arrow functions with types,
    // casts both ways, conditionals: about 0.6 units of parse work per byte.
    let dense = r#"
const xs: Array<Record<string, number>> = [];
for (let i = 0; i < 10; i++) { if (i < xs.length && xs[i] > 2) xs.push({ a: i } as Record<string, number>); }
const f = <T,>(x: T): T => x;
const g = async <T>(x: Promise<T>): Promise<T> => await x;
const h = (a: number, b: number): number => a < b ? a : b;
const m = new Map<string, Array<number>>();
const r = f<number>(1) + f<string>("a").length;
const c = (x: unknown) => (x as any) < 3 ? (y: number): number => y : (z: number) => z;
type A<T> = T extends string ? { k: T } : never;
interface I { a: number; b: (x: number) => Promise<Map<string, Set<number>>> }
const o = { a: (p: number) => p < 1, b: <U>(u: U) => [u] as U[], c: h(1, 2) < h(3, 4) };
const arr = xs.filter((x): x is Record<string, number> => x != null).map((x, i) => i < 3 ? x : null);
let z = <any>o; let w = <Array<number>>[1, 2];
"#;
    let cell = format!("{}return 1", format!("{{{dense}}}\n").repeat(40));
    assert_eq!(ts(cell), Ok(()));
    // The densest legitimate shapes measured: generic calls and comparisons.
    assert_eq!(ts("f<T>(x);\n".repeat(2000) + "return 1"), Ok(()));
    assert_eq!(ts("r = a < b, c > d;\n".repeat(2000) + "return 1"), Ok(()));
    // A large data cell (800 KB of numbers) and a few labels.
    let numbers = vec!["1"; 400_000].join(",");
    assert_eq!(
        js(format!("const a = [{numbers}];\nreturn a.length")),
        Ok(())
    );
    let labels = "outer: for (const a of [1]) { inner: for (const b of [2]) { if (b) continue outer; break inner } }\n";
    assert_eq!(js(labels.repeat(200) + "return 1"), Ok(()));
    let nested: String = (0..60).map(|i| format!("l{i}: {{ ")).collect();
    assert_eq!(ts(format!("{nested}1{}", "}".repeat(60))), Ok(()));
}

#[test]
fn too_many_typescript_rewrites_are_refused() {
    let refused = |code: String| {
        match ts(code) {
        Err(error @ SourceError::TooManyRewrites { .. }) => error
            .message()
            .starts_with("code has more than 500 enums, namespaces, parameter properties, decorators and accessors (the limit is passed at line "),
        _ => false,
    }
    };
    // Nested namespaces cost quadratic work to rewrite, so do many of them.
    assert!(refused(format!(
        "{}export const x = 1 {}\nreturn 1",
        "namespace A { ".repeat(600),
        "}".repeat(600)
    )));
    assert!(refused(format!(
        "namespace A{} {{ export const x = 1 }}\nreturn 1",
        ".A".repeat(600)
    )));
    assert!(refused("{ enum E { A } }\n".repeat(501) + "return 1"));
    let decorated = "function d(v: any, c: any) { return v }\n".to_owned()
        + &"@d class A {}\n".repeat(501)
        + "return 1";
    assert!(refused(decorated));
    // At the limit, still fine.
    assert_eq!(ts("{ enum E { A } }\n".repeat(500) + "return 1"), Ok(()));
}

#[test]
fn too_many_declarations_of_one_name_are_refused_in_typescript() {
    // One `<T>x` sends the cell through swc's rewriting, whose renaming pass
    // compares each declaration with the earlier ones of its name.
    let many = |n: usize| {
        format!(
            "let z = <any>1;\n{}return 1",
            "{ let E = 1; E; }\n".repeat(n)
        )
    };
    match ts(many(1500)) {
        Err(error @ SourceError::TooManySameNames { .. }) => assert!(error
            .message()
            .starts_with("code declares the same names too often: more than 1000000 pairs")),
        other => panic!("{other:?}"),
    }
    assert_eq!(ts(many(1400)), Ok(()));
    // A decorator sends it through the decorator rewrite: the same bound.
    let decorated = many(1500).replace(
        "let z = <any>1;",
        "function d(v: any, c: any) { return v }\n@d class A {}",
    );
    assert!(matches!(
        ts(decorated),
        Err(SourceError::TooManySameNames { .. })
    ));
    // Cells that are only stripped, or JavaScript, are never rewritten.
    assert_eq!(ts(many(1500).replace("<any>", "")), Ok(()));
    assert_eq!(js(many(1500).replace("<any>", "")), Ok(()));
    let callbacks = "xs.map((x: number) => x + 1);\n".repeat(2000);
    assert_eq!(ts(format!("const xs = [1];\n{callbacks}return 1")), Ok(()));
}

#[test]
fn the_engine_answers_invalid_input() {
    let engine = Engine::new(1).unwrap();
    let result = exec_with(
        &engine,
        CodeModeConfig::default(),
        &format!("return {}1", "<any>".repeat(1000)),
        Language::Typescript,
    );
    assert_eq!(result["code"], "invalid_input", "{result}");
    assert!(result["error"]
        .as_str()
        .unwrap()
        .starts_with("code is too costly to parse"));
    // The next cell on the same worker runs.
    let result = exec_with(
        &engine,
        CodeModeConfig::default(),
        "return <number>(1 + 1)",
        Language::Typescript,
    );
    assert_eq!(result["value"], 2, "{result}");
}

/// Sources the sweep below parses under every budget up to what they need.
fn sweep_sources() -> Vec<(String, bool)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/typescript");
    let mut sources: Vec<(String, bool)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ts"))
        .map(|path| (std::fs::read_to_string(path).unwrap(), true))
        .collect();
    for code in [
        format!("{}1{}", "<any>(".repeat(6), ")".repeat(6)),
        format!("{}1{}", "a ? (b): c => (".repeat(6), ")".repeat(6)),
        format!("{}1", "a < b, ".repeat(20)),
        "@d class A { @d accessor x = 1; @d m() {} static { } }".to_owned(),
        "const t = `a${`b${c}`}d`; const r = /x{2}/g.test(s); f<T>(x) >> 2; a: b: while (1) break a".to_owned(),
        "enum E { A = 1, B = A << 2 } namespace N { export const x = <any>1 }".to_owned(),
    ] {
        sources.push((code, true));
    }
    sources.push((
        "label: { if (a) break label; } const re = /[/]/; x = a / b / c; `${{a: 1}.a}`".to_owned(),
        false,
    ));
    sources
}

/// A parse whose budget runs out sees the end of its input at that point:
/// every budget must end it cleanly (no panic, no hang), report the budget
/// spent whenever it was short, and change nothing when it was not.
#[test]
fn every_budget_ends_a_parse_cleanly() {
    for (source, typescript) in sweep_sources() {
        let syntax = if typescript {
            Syntax::Typescript(TsSyntax {
                decorators: true,
                ..Default::default()
            })
        } else {
            Syntax::Es(EsSyntax {
                decorators: true,
                ..Default::default()
            })
        };
        let parse = || {
            let input = StringInput::new(&source, BytePos(1), BytePos(1 + source.len() as u32));
            let mut parser = Parser::new(syntax, input, None);
            let script = parser.parse_script();
            (script.is_ok(), parser.take_errors().len())
        };
        let (unbounded, spending) = with_budget(u64::MAX, parse);
        assert!(!spending.spent);
        let needed = spending.used;
        let step = (needed / 300).max(1);
        for units in (0..needed).step_by(step as usize) {
            let (_, spending) = with_budget(units, parse);
            assert!(spending.spent, "{units} < {needed}: {source}");
        }
        let (exact, spending) = with_budget(needed, parse);
        assert!(!spending.spent);
        assert_eq!(exact, unbounded);
        if typescript {
            // swc's stripper, in both of its modes, under short budgets too.
            for mode in [
                swc_ts_fast_strip::Mode::StripOnly,
                swc_ts_fast_strip::Mode::Transform,
            ] {
                let strip = |mode| {
                    let cm: Lrc<SourceMap> = Default::default();
                    let handler = swc_common::errors::Handler::with_emitter_writer(
                        Box::new(std::io::sink()),
                        None,
                    );
                    let options = swc_ts_fast_strip::Options {
                        mode,
                        module: Some(false),
                        parser: TsSyntax {
                            decorators: true,
                            ..Default::default()
                        },
                        ..Default::default()
                    };
                    GLOBALS.set(&Default::default(), || {
                        swc_ts_fast_strip::operate(&cm, &handler, source.clone(), options).is_ok()
                    })
                };
                let mode_copy = || match mode {
                    swc_ts_fast_strip::Mode::StripOnly => swc_ts_fast_strip::Mode::StripOnly,
                    swc_ts_fast_strip::Mode::Transform => swc_ts_fast_strip::Mode::Transform,
                };
                let (_, spending) = with_budget(u64::MAX, || strip(mode_copy()));
                let needed = spending.used;
                for units in (0..needed).step_by((needed / 50).max(1) as usize) {
                    let (_, spending) = with_budget(units, || strip(mode_copy()));
                    assert!(spending.spent, "{units} < {needed}: {source}");
                }
            }
        }
    }
}
