//! Syntactic screening: parse the wrapped cell with swc and refuse module access.
//! Detection walks the AST, so words and strings that mention `import` pass.
//! The same walk finds decorators. Every parse runs under the cell's parse
//! budget (`budget.rs`).

use std::collections::HashMap;

use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    AssignTarget, AutoAccessor, BindingIdent, Callee, ClassDecl, ClassExpr, Decorator, EsVersion,
    Expr, FnDecl, FnExpr, Id, Ident, MetaPropKind, Module, ModuleDecl, ModuleItem, NewExpr,
    OptCall, Param, Program, Script, Stmt, TaggedTpl, TsEnumDecl, TsImportEqualsDecl,
    TsModuleBlock, TsModuleDecl, TsModuleName, TsNamespaceDecl, TsParamProp,
};
use swc_ecma_parser::error::SyntaxError;
use swc_ecma_parser::lexer::Lexer;
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};
use swc_ecma_visit::{Visit, VisitWith};

use super::budget;
use crate::limits::{MAX_REWRITTEN_CONSTRUCTS, MAX_SAME_NAME_PAIRS};
use crate::messages;

/// Why screening refused a cell. Offsets are bytes into the wrapped script.
pub(super) enum Refusal {
    ModuleAccess,
    Syntax {
        message: String,
        offset: usize,
    },
    /// Parsing needed more work than the cell's budget; where it stopped.
    TooCostly {
        offset: usize,
    },
    /// More than [`MAX_REWRITTEN_CONSTRUCTS`]; where the first one past it is.
    TooManyRewrites {
        offset: usize,
    },
}

/// What screening learned about an accepted cell.
pub(super) struct Screened {
    /// The offset (into the wrapped script) of the first decorator, if any.
    pub(super) decorator: Option<usize>,
    /// Whether a class has an auto-accessor (`accessor x = 1`), which
    /// QuickJS does not parse either (TypeScript only).
    pub(super) auto_accessor: bool,
    /// The declaration past [`MAX_SAME_NAME_PAIRS`], if any: such a cell may
    /// not be rewritten (`typescript.rs`).
    pub(super) same_names_past_limit: Option<usize>,
}

/// Parses `wrapped` (the cell inside its async wrapper) and refuses module access.
/// `raw` is the user's code alone, parsed as a module only to tell an import or
/// export declaration apart from other syntax errors.
pub(super) fn screen(wrapped: &str, raw: &str, typescript: bool) -> Result<Screened, Refusal> {
    match parse(wrapped, typescript, false) {
        Ok(Program::Script(script)) => {
            check_wrapper_shape(&script, wrapped.len())?;
            let program = Program::Script(script);
            let walk = walk(&program);
            if walk.module_access() {
                return Err(Refusal::ModuleAccess);
            }
            if let Some(offset) = walk.misplaced_decorator {
                return Err(Refusal::Syntax {
                    message: messages::MISPLACED_DECORATOR.to_owned(),
                    offset,
                });
            }
            // (JavaScript has none of them but decorators, refused on their own.)
            if let (true, Some(offset)) = (typescript, walk.rewrite_past_limit) {
                return Err(Refusal::TooManyRewrites { offset });
            }
            Ok(Screened {
                decorator: walk.decorator,
                auto_accessor: walk.auto_accessor,
                same_names_past_limit: walk.same_names_past_limit,
            })
        }
        Ok(Program::Module(_)) => unreachable!("parsed as a script"),
        Err(Failure::TooCostly { offset }) => Err(Refusal::TooCostly { offset }),
        Err(Failure::Syntax { import: true, .. }) => Err(Refusal::ModuleAccess),
        Err(Failure::Syntax {
            message, offset, ..
        }) => {
            // `import`/`export` declarations cannot appear inside the wrapper; if the
            // raw code parses as a module that has them, that is the real problem.
            if let Ok(program) = parse(raw, typescript, true) {
                if walk(&program).module_access() {
                    return Err(Refusal::ModuleAccess);
                }
            }
            Err(Refusal::Syntax { message, offset })
        }
    }
}

/// BytePos(0) is reserved by swc, so sources start at 1.
const START: u32 = 1;

/// Why a parse failed.
enum Failure {
    /// The first error, where, and whether it is misplaced `import`/`export`
    /// syntax (such as `import?.("x")`), which is module access all the same.
    Syntax {
        message: String,
        offset: usize,
        import: bool,
    },
    /// The parse budget ran out; where the parser stopped.
    TooCostly { offset: usize },
}

/// The syntax a cell is parsed with: the same options as the TypeScript
/// stripper's (`typescript.rs`), so that its parse does the work this one was
/// allowed. Decorators are parsed in JavaScript too, to be refused with a
/// clear message (`mod.rs`).
pub(super) fn syntax(typescript: bool, as_module: bool) -> Syntax {
    if typescript {
        Syntax::Typescript(TsSyntax {
            decorators: true,
            ..Default::default()
        })
    } else {
        Syntax::Es(EsSyntax {
            allow_return_outside_function: as_module,
            explicit_resource_management: true,
            decorators: true,
            ..Default::default()
        })
    }
}

/// A parser for the latest JavaScript, like the TypeScript stripper's.
pub(super) fn parser(syntax: Syntax, input: StringInput<'_>) -> Parser<Lexer<'_>> {
    Parser::new_from(Lexer::new(syntax, EsVersion::latest(), input, None))
}

fn parse(src: &str, typescript: bool, as_module: bool) -> Result<Program, Failure> {
    let ((program, first_recovered), within) = budget::run(src.len(), || {
        let input = StringInput::new(src, BytePos(START), BytePos(START + src.len() as u32));
        let mut parser = parser(syntax(typescript, as_module), input);
        let program = if as_module {
            parser.parse_module().map(Program::Module)
        } else {
            parser.parse_script().map(Program::Script)
        };
        (program, parser.take_errors().into_iter().next())
    });
    let offset = |pos: BytePos| (pos.0.saturating_sub(START)) as usize;
    let error = match (program, first_recovered) {
        (Ok(program), None) if within.is_ok() => return Ok(program),
        // The budget ran out: the parser stopped at the end of a statement
        // and the program is cut short there.
        (Ok(program), None) => {
            return Err(Failure::TooCostly {
                offset: offset(program.span().hi),
            })
        }
        (Err(error), _) | (Ok(_), Some(error)) => error,
    };
    if within.is_err() {
        // The error is where the parser stopped.
        return Err(Failure::TooCostly {
            offset: offset(error.span().lo),
        });
    }
    Err(Failure::Syntax {
        message: error.kind().msg().into_owned(),
        offset: offset(error.span().lo),
        // `import`/`export` syntax the script grammar rejects (a statement
        // that starts `import?.(` or `import(`, a nested declaration) is
        // module access too.
        import: matches!(
            error.kind(),
            SyntaxError::InvalidImport
                | SyntaxError::ImportExportInScript
                | SyntaxError::NonTopLevelImportExport
                | SyntaxError::ImportMetaInScript
        ),
    })
}

/// The script must be exactly the wrapper call; code that closes the wrapper early
/// (`})(), (async () => {`) is a syntax error of the cell, as in a real function body.
fn check_wrapper_shape(script: &Script, wrapped_len: usize) -> Result<(), Refusal> {
    let closes_early = match script.body.as_slice() {
        [Stmt::Expr(stmt)] => match &*stmt.expr {
            Expr::Call(call) => {
                let end = (call.span.hi.0 - START) as usize;
                let callee_is_wrapper =
                    matches!(&call.callee, Callee::Expr(e) if matches!(&**e, Expr::Paren(_)));
                !(callee_is_wrapper && call.args.is_empty() && end == wrapped_len)
            }
            _ => true,
        },
        _ => true,
    };
    if !closes_early {
        return Ok(());
    }
    // The first `}` that closes the wrapper: the end of the arrow's body.
    let offset = match script.body.first() {
        Some(Stmt::Expr(stmt)) => first_arrow_body_end(&stmt.expr).unwrap_or(0),
        _ => 0,
    };
    Err(Refusal::Syntax {
        message: messages::UNEXPECTED_CLOSING_BRACE.to_owned(),
        offset,
    })
}

fn first_arrow_body_end(expr: &Expr) -> Option<usize> {
    let mut finder = ArrowEnd(None);
    expr.visit_with(&mut finder);
    finder.0
}

struct ArrowEnd(Option<usize>);

impl Visit for ArrowEnd {
    fn visit_arrow_expr(&mut self, arrow: &swc_ecma_ast::ArrowExpr) {
        if self.0.is_none() {
            self.0 = Some((arrow.body.span().hi.0 - START - 1) as usize);
        }
    }
}

/// Walks a parsed cell for module access and decorators.
fn walk(program: &Program) -> Findings {
    let mut finder = Findings::default();
    program.visit_with(&mut finder);
    finder
}

/// What the walk found: module syntax, calls of `require` (plain, optional,
/// tagged or with `new`), whether the cell declares a `require` of its
/// own (then its calls are ordinary calls: there is no global `require`),
/// the first decorator, and the first one on a parameter (TypeScript's
/// `experimentalDecorators` only, which cells do not have).
#[derive(Default)]
struct Findings {
    found: bool,
    require_called: bool,
    require_declared: bool,
    decorator: Option<usize>,
    misplaced_decorator: Option<usize>,
    auto_accessor: bool,
    /// Constructs swc rewrites, and the first one past
    /// [`MAX_REWRITTEN_CONSTRUCTS`].
    rewrites: usize,
    rewrite_past_limit: Option<usize>,
    /// Declarations per name, the pairs of them that share a name, and the
    /// declaration past [`MAX_SAME_NAME_PAIRS`].
    declared: HashMap<Id, u64>,
    same_name_pairs: u64,
    same_names_past_limit: Option<usize>,
    /// Inside the target of an assignment (not in its expressions).
    assigning: bool,
}

impl Findings {
    fn module_access(&self) -> bool {
        self.found || (self.require_called && !self.require_declared)
    }

    fn declare(&mut self, ident: &Ident) {
        self.require_declared |= &*ident.sym == "require";
        let earlier = self.declared.entry(ident.to_id()).or_insert(0);
        self.same_name_pairs += *earlier;
        *earlier += 1;
        if self.same_name_pairs > MAX_SAME_NAME_PAIRS && self.same_names_past_limit.is_none() {
            self.same_names_past_limit = Some((ident.span.lo.0.saturating_sub(START)) as usize);
        }
    }

    fn rewritten(&mut self, span: Span) {
        self.rewrites += 1;
        if self.rewrites > MAX_REWRITTEN_CONSTRUCTS && self.rewrite_past_limit.is_none() {
            self.rewrite_past_limit = Some((span.lo.0.saturating_sub(START)) as usize);
        }
    }

    fn misplaced(&mut self, decorators: &[Decorator]) {
        if let Some(first) = decorators.first() {
            let offset = offset_of(first);
            self.misplaced_decorator = Some(
                self.misplaced_decorator
                    .map_or(offset, |seen| seen.min(offset)),
            );
        }
    }
}

fn offset_of(decorator: &Decorator) -> usize {
    (decorator.span.lo.0.saturating_sub(START)) as usize
}

impl Visit for Findings {
    fn visit_module(&mut self, module: &Module) {
        if module
            .body
            .iter()
            .any(|item| matches!(item, ModuleItem::ModuleDecl(_)))
        {
            self.found = true;
            return;
        }
        module.visit_children_with(self);
    }

    fn visit_module_decl(&mut self, _: &ModuleDecl) {
        self.found = true;
    }

    /// `export` inside a TypeScript `namespace` is a member, not module access.
    fn visit_ts_module_block(&mut self, block: &TsModuleBlock) {
        for item in &block.body {
            match item {
                ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => {
                    export.decl.visit_with(self)
                }
                other => other.visit_with(self),
            }
        }
    }

    fn visit_ts_import_equals_decl(&mut self, _: &TsImportEqualsDecl) {
        self.found = true;
    }

    fn visit_meta_prop_expr(&mut self, meta: &swc_ecma_ast::MetaPropExpr) {
        if meta.kind == MetaPropKind::ImportMeta {
            self.found = true;
        }
    }

    fn visit_callee(&mut self, callee: &Callee) {
        match callee {
            Callee::Import(_) => self.found = true,
            Callee::Expr(expr) if is_require(expr) => self.require_called = true,
            _ => {}
        }
        callee.visit_children_with(self);
    }

    fn visit_opt_call(&mut self, call: &OptCall) {
        self.require_called |= is_require(&call.callee);
        call.visit_children_with(self);
    }

    fn visit_tagged_tpl(&mut self, tagged: &TaggedTpl) {
        self.require_called |= is_require(&tagged.tag);
        tagged.visit_children_with(self);
    }

    fn visit_new_expr(&mut self, new: &NewExpr) {
        self.require_called |= is_require(&new.callee);
        new.visit_children_with(self);
    }

    fn visit_binding_ident(&mut self, ident: &BindingIdent) {
        if self.assigning {
            // Assigning to `require` counts as having one, as before.
            self.require_declared |= &*ident.id.sym == "require";
        } else {
            self.declare(&ident.id);
        }
    }

    fn visit_fn_decl(&mut self, decl: &FnDecl) {
        self.declare(&decl.ident);
        decl.visit_children_with(self);
    }

    fn visit_fn_expr(&mut self, function: &FnExpr) {
        if let Some(ident) = &function.ident {
            self.declare(ident);
        }
        function.visit_children_with(self);
    }

    fn visit_class_decl(&mut self, decl: &ClassDecl) {
        self.declare(&decl.ident);
        decl.visit_children_with(self);
    }

    fn visit_class_expr(&mut self, class: &ClassExpr) {
        if let Some(ident) = &class.ident {
            self.declare(ident);
        }
        class.visit_children_with(self);
    }

    fn visit_ts_enum_decl(&mut self, decl: &TsEnumDecl) {
        self.rewritten(decl.span);
        self.declare(&decl.id);
        decl.visit_children_with(self);
    }

    fn visit_ts_module_decl(&mut self, decl: &TsModuleDecl) {
        self.rewritten(decl.span);
        if let TsModuleName::Ident(ident) = &decl.id {
            self.declare(ident);
        }
        decl.visit_children_with(self);
    }

    /// Each part of `namespace A.B.C` is a namespace of its own.
    fn visit_ts_namespace_decl(&mut self, decl: &TsNamespaceDecl) {
        self.rewritten(decl.span);
        self.declare(&decl.id);
        decl.visit_children_with(self);
    }

    fn visit_decorator(&mut self, decorator: &Decorator) {
        self.rewritten(decorator.span);
        let offset = offset_of(decorator);
        self.decorator = Some(self.decorator.map_or(offset, |first| first.min(offset)));
        decorator.visit_children_with(self);
    }

    fn visit_auto_accessor(&mut self, accessor: &AutoAccessor) {
        self.rewritten(accessor.span);
        self.auto_accessor = true;
        accessor.visit_children_with(self);
    }

    fn visit_param(&mut self, param: &Param) {
        self.misplaced(&param.decorators);
        param.visit_children_with(self);
    }

    fn visit_ts_param_prop(&mut self, param: &TsParamProp) {
        self.rewritten(param.span);
        self.misplaced(&param.decorators);
        param.visit_children_with(self);
    }

    /// The names an assignment writes to are not declarations (its default
    /// values and computed keys, expressions, are walked as usual).
    fn visit_assign_target(&mut self, target: &AssignTarget) {
        let outer = std::mem::replace(&mut self.assigning, true);
        target.visit_children_with(self);
        self.assigning = outer;
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if self.found {
            return;
        }
        let outer = std::mem::replace(&mut self.assigning, false);
        // Hostile nesting must not overflow the worker's stack.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || expr.visit_children_with(self));
        self.assigning = outer;
    }
}

fn is_require(expr: &Expr) -> bool {
    match expr {
        Expr::Ident(ident) => &*ident.sym == "require",
        Expr::Paren(paren) => is_require(&paren.expr),
        _ => false,
    }
}
