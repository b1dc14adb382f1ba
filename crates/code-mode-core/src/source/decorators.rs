//! Decorators, lowered to plain JavaScript for QuickJS (which does not parse
//! them), with the semantics TypeScript 5 gives them by default: the TC39
//! proposal (2023-11), not `experimentalDecorators`. Auto-accessors
//! (`accessor x = 1`), from the same proposal, are lowered with them.
//!
//! Only a TypeScript cell that has one of them comes here, after stripping:
//! its JavaScript is parsed again (under the parse budget), swc's
//! `decorator_2023_11` pass rewrites the decorated classes, and the code is
//! printed anew. The helper functions the rewrite calls are printed after the
//! cell's wrapper (function declarations are hoisted), so the lines of the
//! cell come first; positions in such a cell are approximate all the same.

use swc_common::sync::Lrc;
use swc_common::{BytePos, Mark, SourceMap, Spanned, GLOBALS};
use swc_ecma_ast::{Decl, EsVersion, Module, ModuleItem, Program, Script, Stmt};
use swc_ecma_codegen::text_writer::JsWriter;
use swc_ecma_codegen::{Config, Emitter};
use swc_ecma_parser::{EsSyntax, StringInput, Syntax};
use swc_ecma_transforms_base::fixer::fixer;
use swc_ecma_transforms_base::helpers::{inject_helpers, Helpers, HELPERS};
use swc_ecma_transforms_base::hygiene::hygiene;
use swc_ecma_transforms_base::resolver;
use swc_ecma_transforms_proposal::decorator_2023_11::decorator_2023_11;

use super::position::Location;
use super::{budget, screen, SourceError};

/// Lowers the decorators of a stripped cell (`script`: the wrapped cell as
/// JavaScript that still has its decorators).
pub(super) fn lower(script: &str) -> Result<String, SourceError> {
    GLOBALS.set(&Default::default(), || {
        let parsed = parse(script)?;
        // The pass renames references to a decorated class only in a
        // module's items (not in a script's statements), so the cell is
        // handed to it as a module; it was parsed as the script it is.
        let mut program = Program::Module(Module {
            span: parsed.span,
            body: parsed.body.into_iter().map(ModuleItem::Stmt).collect(),
            shebang: None,
        });
        let unresolved = Mark::new();
        let top_level = Mark::new();
        HELPERS.set(&Helpers::new(false), || {
            program.mutate(resolver(unresolved, top_level, false));
            program.mutate(decorator_2023_11());
            program.mutate(inject_helpers(unresolved));
            program.mutate(hygiene());
            program.mutate(fixer(None));
        });
        let Program::Module(module) = program else {
            unreachable!("passes keep the program's kind")
        };
        let mut lowered = Script {
            span: module.span,
            body: Vec::with_capacity(module.body.len()),
            shebang: None,
        };
        for item in module.body {
            match item {
                ModuleItem::Stmt(stmt) => lowered.body.push(stmt),
                // Inline helpers are statements; nothing here is exported.
                ModuleItem::ModuleDecl(_) => unreachable!("a lowered cell has no module syntax"),
            }
        }
        helpers_last(&mut lowered);
        Ok(print(&Program::Script(lowered)))
    })
}

/// Parses the stripped cell. It parsed as TypeScript already, so an error
/// here would be swc's; it is reported as a TypeScript error all the same.
fn parse(script: &str) -> Result<Script, SourceError> {
    const START: u32 = 1;
    let (parsed, within) = budget::run(script.len(), || {
        let end = BytePos(START + script.len() as u32);
        let input = StringInput::new(script, BytePos(START), end);
        let syntax = Syntax::Es(EsSyntax {
            decorators: true,
            auto_accessors: true,
            explicit_resource_management: true,
            ..Default::default()
        });
        let mut parser = screen::parser(syntax, input);
        let parsed = parser.parse_script();
        (parsed, parser.take_errors().into_iter().next())
    });
    let locate = |pos: BytePos| Location::of_wrapped(script, (pos.0 - START) as usize);
    match parsed {
        (Ok(script_ast), None) if within.is_ok() => Ok(script_ast),
        (Ok(script_ast), None) => Err(SourceError::TooCostly {
            location: locate(script_ast.span.hi),
        }),
        (Err(error), _) | (Ok(_), Some(error)) if within.is_err() => Err(SourceError::TooCostly {
            location: locate(error.span().lo),
        }),
        (Err(error), _) | (Ok(_), Some(error)) => Err(SourceError::TypeScript(
            crate::messages::at_location(&error.kind().msg(), locate(error.span().lo)),
        )),
    }
}

/// Moves the helper functions `inject_helpers` put before the cell's wrapper
/// (its only expression statement) to after it. Only function declarations
/// move: they are hoisted, so they exist before the wrapper runs.
fn helpers_last(script: &mut Script) {
    let leading = script
        .body
        .iter()
        .take_while(|stmt| matches!(stmt, Stmt::Decl(Decl::Fn(_))))
        .count();
    if leading > 0 && leading < script.body.len() {
        script.body.rotate_left(leading);
    }
}

fn print(program: &Program) -> String {
    let cm: Lrc<SourceMap> = Default::default();
    let mut out = Vec::new();
    {
        let mut emitter = Emitter {
            cfg: Config::default().with_target(EsVersion::latest()),
            comments: None,
            cm: cm.clone(),
            wr: JsWriter::new(cm, "\n", &mut out, None),
        };
        // Writing to a Vec cannot fail.
        emitter.emit_program(program).expect("printing to memory");
    }
    String::from_utf8(out).expect("swc prints UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_follow_the_wrapper() {
        let lowered = lower(
            "(async () => {\nfunction d(v) { return v }\n@d class A {}\nreturn new A()\n})()",
        )
        .unwrap();
        let wrapper = lowered.find("(async ()=>").expect(&lowered);
        let helper = lowered.find("function _apply_decs_2311").expect(&lowered);
        assert!(wrapper < helper, "{lowered}");
        assert!(!lowered.contains("@d"), "{lowered}");
    }
}
