//! Source handling before a cell reaches QuickJS: syntactic screening for module
//! access, TypeScript stripping (decorators lowered), and the async-function
//! wrapper. Every swc parse runs under a budget proportional to the cell's
//! size (`budget.rs`), after a guard on its nesting (`guard.rs`).
//!
//! The cell is the body of an async function. It is wrapped as
//! `(async () => {` + newline + code + newline + `})()`, so line N of the user's
//! source is line N + 1 of the script and columns are unchanged.

#[cfg(test)]
mod bound_tests;
mod budget;
mod decorators;
mod guard;
mod position;
mod screen;
mod shell;
mod typescript;

use crate::config::Language;
use crate::messages;
pub use position::Location;
pub use typescript::typescript_initialized;

const WRAP_OPEN: &str = "(async () => {\n";
const WRAP_CLOSE: &str = "\n})()";

/// Lines the wrapper adds above the user's first line.
pub const WRAPPER_LINES: u32 = 1;

/// A cell ready for evaluation.
#[derive(Debug)]
pub struct PreparedSource {
    /// Plain JavaScript: an expression whose value is the cell's promise.
    pub script: String,
}

/// Why a cell was refused before evaluation.
#[derive(Debug, PartialEq)]
pub enum SourceError {
    /// import/export/import()/import.meta/require: `invalid_input`.
    ModuleAccess,
    /// A TypeScript diagnostic: `invalid_input`.
    TypeScript(String),
    /// A JavaScript syntax error: `internal_error`, like any uncaught guest
    /// error. `hint` is the line for a cell that reads like a shell command.
    Syntax {
        message: String,
        location: Location,
        hint: Option<String>,
    },
    /// The source is larger than the cell limit: `invalid_input`.
    TooLarge,
    /// The source could nest deeper than the parsers can safely follow:
    /// `invalid_input`.
    TooDeep { location: Location },
    /// Parsing the source needs more work than its budget allows (ambiguous
    /// TypeScript that makes the parser backtrack, deeply nested labels):
    /// `invalid_input`.
    TooCostly { location: Location },
    /// The TypeScript has more constructs to rewrite (enums, namespaces,
    /// parameter properties, decorators, auto-accessors) than
    /// [`MAX_REWRITTEN_CONSTRUCTS`](crate::limits::MAX_REWRITTEN_CONSTRUCTS): `invalid_input`.
    TooManyRewrites { location: Location },
    /// The TypeScript must be rewritten (not only stripped) and declares one
    /// name more often than [`MAX_SAME_NAME_PAIRS`](crate::limits::MAX_SAME_NAME_PAIRS) allows: `invalid_input`.
    TooManySameNames { location: Location },
}

impl SourceError {
    /// The message the result carries.
    pub fn message(&self) -> String {
        match self {
            SourceError::ModuleAccess => messages::MODULE_ACCESS_DISABLED.to_owned(),
            SourceError::TypeScript(detail) => {
                format!("{}{detail}", messages::TYPESCRIPT_FAILED_PREFIX)
            }
            SourceError::Syntax {
                message,
                location,
                hint,
            } => messages::syntax_error(message, location, hint.as_deref()),
            SourceError::TooLarge => messages::source_too_large(),
            SourceError::TooDeep { location } => messages::source_too_deep(&location.to_string()),
            SourceError::TooCostly { location } => {
                messages::source_too_costly(&location.to_string())
            }
            SourceError::TooManyRewrites { location } => {
                messages::too_many_rewrites(&location.to_string())
            }
            SourceError::TooManySameNames { location } => {
                messages::too_many_same_names(&location.to_string())
            }
        }
    }
}

/// Screens and (for TypeScript) strips one cell.
pub fn prepare(code: &str, language: Language) -> Result<PreparedSource, SourceError> {
    if code.len() > crate::limits::MAX_SOURCE_BYTES {
        return Err(SourceError::TooLarge);
    }
    let wrapped = format!("{WRAP_OPEN}{code}{WRAP_CLOSE}");
    if let Err(refused) = guard::check(code) {
        let location = Location::of_wrapped(&wrapped, WRAP_OPEN.len() + refused.offset);
        return Err(SourceError::TooDeep { location });
    }
    let typescript = language == Language::Typescript;
    // An offset in the user's source, as a location (an offset in the
    // wrapper's closing line is the end of the cell).
    let locate =
        |offset: usize| Location::of_wrapped(&wrapped, offset.min(WRAP_OPEN.len() + code.len()));
    let screened = match screen::screen(&wrapped, code, typescript) {
        Ok(screened) => screened,
        Err(screen::Refusal::ModuleAccess) => return Err(SourceError::ModuleAccess),
        Err(screen::Refusal::TooCostly { offset }) => {
            return Err(SourceError::TooCostly {
                location: locate(offset),
            })
        }
        Err(screen::Refusal::TooManyRewrites { offset }) => {
            return Err(SourceError::TooManyRewrites {
                location: locate(offset),
            })
        }
        Err(screen::Refusal::Syntax { message, offset }) => {
            let location = locate(offset);
            let hint = shell::hint(code);
            return Err(if typescript {
                let hint = hint.map(|hint| format!("\n{hint}")).unwrap_or_default();
                SourceError::TypeScript(messages::at_location(&message, location) + &hint)
            } else {
                SourceError::Syntax {
                    message,
                    location,
                    hint,
                }
            });
        }
    };
    let script = if typescript {
        let rewrite = typescript::Rewrite {
            lower: screened.decorator.is_some() || screened.auto_accessor,
            refused: screened
                .same_names_past_limit
                .map(|offset| SourceError::TooManySameNames {
                    location: locate(offset),
                }),
        };
        typescript::strip(wrapped, rewrite)?
    } else if let Some(offset) = screened.decorator {
        // Decorators are TypeScript (and a proposal for JavaScript that
        // QuickJS does not implement): as for type annotations, a
        // JavaScript cell with one has a syntax error.
        return Err(SourceError::Syntax {
            message: messages::JAVASCRIPT_DECORATOR.to_owned(),
            location: locate(offset),
            hint: None,
        });
    } else {
        wrapped
    };
    Ok(PreparedSource { script })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(code: &str) -> Result<PreparedSource, SourceError> {
        prepare(code, Language::Javascript)
    }

    #[test]
    fn rejects_every_module_access_form() {
        for code in [
            "import fs from 'fs';",
            "import { readFile } from 'node:fs'\nreturn 1",
            "import * as x from 'y'",
            "import 'side-effect'",
            "export const x = 1;",
            "export default 5",
            "export { a as b }",
            "const m = await import('fs');",
            "return import(`x${1}`)",
            "return import.meta.url",
            "const fs = require('fs');",
            "return (require)('x')",
            "await (async () => require('x'))()",
            "return require?.('fs')",
            "return require`fs`",
            "return new require('fs')",
            "return import?.('fs')",
            "return f(require('x'), function g() { return 1 })",
        ] {
            assert_eq!(js(code).err(), Some(SourceError::ModuleAccess), "{code}");
        }
        for code in [
            "import x = require('fs');",
            "import type { A } from './a';",
            "export type T = 1",
        ] {
            assert_eq!(
                prepare(code, Language::Typescript).err(),
                Some(SourceError::ModuleAccess),
                "{code}"
            );
        }
    }

    #[test]
    fn words_and_strings_that_mention_import_pass() {
        for code in [
            "const important = 1; return important",
            "return \"import docs later\"",
            "// import fs from 'fs'\nreturn 1",
            "/* require('x') */ return 2",
            "const o = {import: 1, require: 2, export: 3}; return o.import + o.require",
            "const s = `import('x') ${'require(1)'}`; return s",
            "class A { import() { return 1 } } return new A().import()",
            "const requirement = 'x'; return requirement",
            "const {require: r} = {require: 1}; return r",
            "return typeof require",
            "const require = (x) => x; return require('ok')",
            "function f(require) { return require(1) } return f((x) => x + 1)",
            "function require(x) { return x } return require(2)",
        ] {
            assert!(js(code).is_ok(), "{code}: {:?}", js(code).err());
        }
    }

    #[test]
    fn javascript_syntax_errors_point_into_user_source() {
        let err = js("const a = 1;\nconst b = ;").unwrap_err();
        match err {
            SourceError::Syntax { location, .. } => {
                assert_eq!((location.line, location.column), (2, 11))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_cell_cannot_close_the_wrapper() {
        let err = js("return 1\n})(), (async () => {").unwrap_err();
        assert!(matches!(err, SourceError::Syntax { .. }), "{err:?}");
        assert!(err.message().starts_with("SyntaxError: "));
    }

    #[test]
    fn type_annotations_are_a_syntax_error_in_javascript() {
        assert!(matches!(
            js("let x: number = 1"),
            Err(SourceError::Syntax { .. })
        ));
    }

    #[test]
    fn typescript_errors_are_located_in_user_source() {
        let err = prepare("const a: number = 1;\nlet b = (;", Language::Typescript).unwrap_err();
        let SourceError::TypeScript(message) = err else {
            panic!("{err:?}")
        };
        assert!(message.ends_with("at line 2:10"), "{message}");
    }

    #[test]
    fn sources_that_could_nest_too_deep_are_refused_before_parsing() {
        // On this 2 MiB test thread any parser would overflow long before.
        for code in [
            format!("return {}1{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("let x: {}T", "keyof ".repeat(60_000)),
        ] {
            for language in [Language::Javascript, Language::Typescript] {
                let err = prepare(&code, language).unwrap_err();
                assert!(matches!(err, SourceError::TooDeep { .. }), "{err:?}");
                assert!(err
                    .message()
                    .starts_with("code nests too deeply to parse safely"));
            }
        }
    }

    #[test]
    fn oversized_source_is_refused() {
        let code = "1;".repeat(crate::limits::MAX_SOURCE_BYTES);
        assert_eq!(js(&code).err(), Some(SourceError::TooLarge));
    }
}
