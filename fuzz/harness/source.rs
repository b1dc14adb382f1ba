//! `source`: screening and TypeScript stripping, `source::prepare`, on a
//! thread with a worker's stack, as the engine runs it.
//!
//! Input: a flags byte, then the cell. Flags: bit 0 TypeScript, bit 1 nested
//! mode, bit 2 leave the nesting unclosed. In nested mode the cell is built:
//! an opener byte, a prefix byte, a decimal count (at most 200000) and a
//! middle text; the cell is `prefix + opener * count + middle + closer * count`,
//! deep enough to reach the depth guard. Refusals are fine; a crash, an abort
//! or a stack overflow is not.

use code_mode_core::config::Language;
use code_mode_core::limits::{MAX_SOURCE_BYTES, WORKER_STACK_BYTES};
use code_mode_core::source::{prepare, Location, SourceError};

use super::Reader;

/// What the nested mode repeats, and what closes one repetition.
const NESTERS: &[(&str, &str)] = &[
    ("(", ")"),
    ("[", "]"),
    ("{a:", "}"),
    ("!", ""),
    ("()=>", ""),
    ("`${", "}`"),
    ("-", ""),
    ("typeof ", ""),
    ("new ", ""),
    ("a?b:", ""),
    ("<any>", ""),
    ("async()=>", ""),
    ("function(){return ", "}"),
    ("if(1)", ""),
    ("{", "}"),
    ("[...", "]"),
    ("x=", ""),
    ("await ", ""),
    ("f(", ")"),
    ("Array<", ">"),
    ("keyof ", ""),
    ("{[k:string]:", "}"),
    ("class{m(){", "}}"),
    ("try{", "}finally{}"),
    ("/(", ")/"),
    ("x as ", ""),
];

const PREFIXES: &[&str] = &["", "return ", "let x: ", "const f = ", "type T = ", "//\n"];

/// Far past the guard's 25000 opening units, within the 1 MiB source cap for
/// one-byte openers.
const MAX_REPEAT: usize = 200_000;

pub fn run(data: &[u8]) {
    let mut input = Reader::new(data);
    let flags = input.byte();
    let language = match flags & 1 {
        0 => Language::Javascript,
        _ => Language::Typescript,
    };
    let code = match flags & 2 {
        0 => input.rest(),
        _ => nested(input, flags & 4 != 0),
    };
    on_worker_stack(move || check(&code, language));
}

fn nested(mut input: Reader<'_>, unclosed: bool) -> String {
    let (open, close) = NESTERS[usize::from(input.byte()) % NESTERS.len()];
    let prefix = PREFIXES[usize::from(input.byte()) % PREFIXES.len()];
    let count = input.number(MAX_REPEAT);
    let middle = input.rest();
    let mut code = String::with_capacity(prefix.len() + count * (open.len() + close.len()));
    code.push_str(prefix);
    code.push_str(&open.repeat(count));
    code.push_str(&middle);
    if !unclosed {
        code.push_str(&close.repeat(count));
    }
    code
}

fn check(code: &str, language: Language) {
    let prepared = prepare(code, language);
    assert_eq!(
        matches!(prepared, Err(SourceError::TooLarge)),
        code.len() > MAX_SOURCE_BYTES,
        "the size cap"
    );
    match prepared {
        Ok(prepared) => match language {
            Language::Javascript => assert!(prepared.script.contains(code)),
            // Stripped TypeScript is JavaScript that passes the JavaScript
            // screen (wrapped once more, it may pass the caps and bounds).
            Language::Typescript => match prepare(&prepared.script, Language::Javascript) {
                Ok(_) => {}
                Err(error) if refused_for_size(&error) => {}
                Err(error) => panic!(
                    "stripped TypeScript is not JavaScript: {}\n{}",
                    error.message(),
                    prepared.script
                ),
            },
        },
        Err(error) => {
            assert!(!error.message().is_empty());
            if let SourceError::Syntax { location, .. }
            | SourceError::TooDeep { location }
            | SourceError::TooCostly { location }
            | SourceError::TooManyRewrites { location }
            | SourceError::TooManySameNames { location } = error
            {
                check_location(code, location);
            }
        }
    }
}

/// The refusals of a cell too large, too deep or too costly to handle.
fn refused_for_size(error: &SourceError) -> bool {
    matches!(
        error,
        SourceError::TooLarge
            | SourceError::TooDeep { .. }
            | SourceError::TooCostly { .. }
            | SourceError::TooManyRewrites { .. }
            | SourceError::TooManySameNames { .. }
    )
}

/// A location inside the user's source (its end included).
fn check_location(code: &str, location: Location) {
    let lines = code.matches('\n').count() + 1;
    assert!(
        location.line >= 1 && location.line as usize <= lines,
        "{location} of {lines} lines"
    );
    assert!(location.column >= 1, "{location}");
}

/// Runs `work` on a thread with the stack of an engine worker and re-raises
/// its panic here.
fn on_worker_stack(work: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new()
        .name("fuzz-source".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(work)
        .expect("spawn a worker-sized thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}
