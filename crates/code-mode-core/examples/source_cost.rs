//! Measures what `source::prepare` costs in time for one generated cell, on a
//! thread with a worker's stack. The parse budget and the TypeScript bounds
//! (`source/budget.rs`, `source/screen.rs`) were chosen with it: every shape
//! below is refused or prepared in well under 100 ms at 40 KB.
//!
//! `cargo run -p code-mode-core --profile ci --example source_cost -- cast 4000 ts`
//! (shape, repetitions, TypeScript).

use code_mode_core::config::Language;
use code_mode_core::source;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args[1].as_str();
    let n: usize = args[2].parse().unwrap();
    let ts = args.get(3).is_some_and(|a| a == "ts");
    let code = match kind {
        // Quadratic: each `<any>` tries a generic arrow over the rest.
        "cast" => format!("return {}1", "<any>".repeat(n)),
        // Exponential: each level parses what it holds twice.
        "cast_paren" => format!("return {}1{}", "<any>(".repeat(n), ")".repeat(n)),
        "cond_arrow" => format!("return {}1{}", "a ? (b): c => (".repeat(n), ")".repeat(n)),
        // Each `<` tries type arguments that read on.
        "lt_chain" => format!("return {}1", "a < ".repeat(n)),
        "lt_nest" => format!("return {}1{}", "a < (".repeat(n), ")".repeat(n)),
        "lt_comma" => format!("return {}c", "a < b, ".repeat(n)),
        // Labels: each is checked against all around it.
        "label" => format!("{}1", "a: ".repeat(n)),
        "label_blocks" => format!("{}1{}", "a: {".repeat(n), "}".repeat(n)),
        "labels_distinct" => (0..n).map(|i| format!("l{i}: ")).collect::<String>() + "1",
        // Linear for comparison.
        "arrow_paren" => format!("return {}1{}", "((a, b) => ".repeat(n), ")".repeat(n)),
        "generic_call" => format!("return {}x{}", "f<T>(".repeat(n), ")".repeat(n)),
        // TypeScript rewriting: quadratic in nesting and in same-name declarations.
        "namespaces" => format!(
            "{}export const x = 1 {}\nreturn 1",
            "namespace A { ".repeat(n),
            "}".repeat(n)
        ),
        "same_names" => format!(
            "let z = <any>1;\n{}return 1",
            "{ let E = 1; E; }\n".repeat(n)
        ),
        "decorated" => format!(
            "function d(v: any, c: any) {{ return v }}\n{}return 1",
            "@d class A { @d accessor x = 1 }\n".repeat(n)
        ),
        other => panic!("unknown shape {other}"),
    };
    let lang = if ts {
        Language::Typescript
    } else {
        Language::Javascript
    };
    let len = code.len();
    let h = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let t = std::time::Instant::now();
            let outcome = match source::prepare(&code, lang) {
                Ok(_) => "ok".to_owned(),
                Err(e) => format!("err:{}", e.message().chars().take(60).collect::<String>()),
            };
            (outcome, t.elapsed())
        })
        .unwrap();
    let (outcome, elapsed) = h.join().unwrap();
    println!("{kind} n={n} bytes={len} {elapsed:?} result={outcome}");
}
