//! Measures what a deeply nested cell costs `source::prepare` in stack: it
//! prepares one generated cell on a thread with the given stack and prints
//! the outcome. A stack overflow aborts the process, so drive it from a
//! script, one run per size. `MAX_OPENING_UNITS` (`limits.rs`) was chosen
//! with it: at the limit, every shape below prepares within 96 MiB.
//!
//! `cargo run -p code-mode-core --profile ci --example depth_probe -- paren 24990 96 [ts]`
//! (shape, nesting levels, stack in MiB, TypeScript).

use code_mode_core::config::Language;
use code_mode_core::source;

fn outcome(code: String, lang: Language, stack: usize) -> String {
    let h = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || match source::prepare(&code, lang) {
            Ok(_) => "ok".to_owned(),
            Err(e) => format!("err:{}", e.message().chars().take(60).collect::<String>()),
        })
        .unwrap();
    h.join().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args[1].as_str();
    let n: usize = args[2].parse().unwrap();
    let stack: usize = args[3].parse::<usize>().unwrap() << 20;
    let ts = args.get(4).is_some_and(|a| a == "ts");
    let code = match kind {
        "paren" => format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
        "bracket" => format!("return {}1{}", "[".repeat(n), "]".repeat(n)),
        "brace" => format!("{}{}", "{".repeat(n), "}".repeat(n)),
        "obj" => format!("return {}1{}", "{a:".repeat(n), "}".repeat(n)),
        "not" => format!("return {}1", "!".repeat(n)),
        "neg" => format!("return {}1", "- ".repeat(n)),
        "typeof" => format!("return {}1", "typeof ".repeat(n)),
        "assign" => format!("let a; {}1", "a=".repeat(n)),
        "arrow" => format!("return {}1", "()=>".repeat(n)),
        "cond" => format!("return {}1", "1?1:".repeat(n)),
        "pow" => format!("return {}1", "1**".repeat(n)),
        "tmpl" => format!("return {}1{}", "`${".repeat(n), "}`".repeat(n)),
        "if" => format!("{}1", "if(1)".repeat(n)),
        "else" => format!("if(0);{}1", "else if(0);".repeat(n)),
        "label" => format!("{}1", "a:".repeat(n)),
        "new" => format!("return {}X", "new ".repeat(n)),
        "cast" => format!("return {}1", "<any>".repeat(n)),
        "keyof" => format!("let x: {}T", "keyof ".repeat(n)),
        "fn" => format!(
            "return {}1{}",
            "function(){return ".repeat(n),
            "}".repeat(n)
        ),
        "arrowp" => format!("return {}1", "(a)=>".repeat(n)),
        "spread" => format!("return [{}1]", "...".repeat(n)),
        "union" => format!("let x: {}T", "T|".repeat(n)),
        "tfn" => format!("let x: {}T", "()=>".repeat(n)),
        "tarr" => format!("let x: T{}", "[]".repeat(n)),
        "generic" => format!("let x: {}T{}", "A<".repeat(n), ">".repeat(n)),
        "condt" => format!("type X = {}T", "T extends U ? V : ".repeat(n)),
        "call" => format!("return f{}", "()".repeat(n)),
        "member" => format!("return a{}", ".b".repeat(n)),
        "plus" => format!("return 1{}", "+1".repeat(n)),
        "await" => format!("return {}1", "await ".repeat(n)),
        "class" => format!(
            "return {}X{}",
            "class extends (".repeat(n),
            ") {}".repeat(n)
        ),
        "do" => format!("{}1;{}", "do ".repeat(n), "while(0);".repeat(n)),
        other => panic!("unknown shape {other}"),
    };
    let lang = if ts {
        Language::Typescript
    } else {
        Language::Javascript
    };
    let len = code.len();
    let t = std::time::Instant::now();
    let outcome = outcome(code, lang, stack);
    println!(
        "{kind} n={n} bytes={len} result={outcome} {:?}",
        t.elapsed()
    );
}
