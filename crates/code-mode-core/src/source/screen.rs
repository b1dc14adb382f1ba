//! Syntactic screening: parse the wrapped cell with swc and refuse module access.
//! Detection walks the AST, so words and strings that mention `import` pass.

use swc_common::{BytePos, Spanned};
use swc_ecma_ast::{
    BindingIdent, Callee, ClassDecl, Expr, FnDecl, FnExpr, MetaPropKind, Module, ModuleDecl,
    ModuleItem, NewExpr, OptCall, Program, Script, Stmt, TaggedTpl, TsImportEqualsDecl,
    TsModuleBlock,
};
use swc_ecma_parser::error::SyntaxError;
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};
use swc_ecma_visit::{Visit, VisitWith};

/// Why screening refused a cell. Offsets are bytes into the wrapped script.
pub(super) enum Refusal {
    ModuleAccess,
    Syntax { message: String, offset: usize },
}

/// Parses `wrapped` (the cell inside its async wrapper) and refuses module access.
/// `raw` is the user's code alone, parsed as a module only to tell an import or
/// export declaration apart from other syntax errors.
pub(super) fn screen(wrapped: &str, raw: &str, typescript: bool) -> Result<(), Refusal> {
    match parse(wrapped, typescript, false) {
        Ok(Program::Script(script)) => {
            check_wrapper_shape(&script, wrapped.len())?;
            if uses_module_access(&Program::Script(script)) {
                return Err(Refusal::ModuleAccess);
            }
            Ok(())
        }
        Ok(Program::Module(_)) => unreachable!("parsed as a script"),
        Err(failure) if failure.import => Err(Refusal::ModuleAccess),
        Err(Failure {
            message, offset, ..
        }) => {
            // `import`/`export` declarations cannot appear inside the wrapper; if the
            // raw code parses as a module that has them, that is the real problem.
            if let Ok(program) = parse(raw, typescript, true) {
                if uses_module_access(&program) {
                    return Err(Refusal::ModuleAccess);
                }
            }
            Err(Refusal::Syntax { message, offset })
        }
    }
}

/// BytePos(0) is reserved by swc, so sources start at 1.
const START: u32 = 1;

/// Why a parse failed: the first error, where, and whether it is a misplaced
/// `import` (such as `import?.("x")`), which is module access all the same.
struct Failure {
    message: String,
    offset: usize,
    import: bool,
}

fn parse(src: &str, typescript: bool, as_module: bool) -> Result<Program, Failure> {
    let syntax = if typescript {
        Syntax::Typescript(TsSyntax {
            decorators: true,
            ..Default::default()
        })
    } else {
        Syntax::Es(EsSyntax {
            allow_return_outside_function: as_module,
            explicit_resource_management: true,
            ..Default::default()
        })
    };
    let input = StringInput::new(src, BytePos(START), BytePos(START + src.len() as u32));
    let mut parser = Parser::new(syntax, input, None);
    let program = if as_module {
        parser.parse_module().map(Program::Module)
    } else {
        parser.parse_script().map(Program::Script)
    };
    let first_recovered = parser.take_errors().into_iter().next();
    let error = match (program, first_recovered) {
        (Ok(program), None) => return Ok(program),
        (Err(error), _) | (Ok(_), Some(error)) => error,
    };
    let offset = (error.span().lo.0.saturating_sub(START)) as usize;
    Err(Failure {
        message: error.kind().msg().into_owned(),
        offset,
        import: matches!(error.kind(), SyntaxError::InvalidImport),
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
        message: "Unexpected token `}`".to_owned(),
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

fn uses_module_access(program: &Program) -> bool {
    let mut finder = ModuleAccess::default();
    program.visit_with(&mut finder);
    finder.found || (finder.require_called && !finder.require_declared)
}

/// What the walk found: module syntax, calls of `require` (plain, optional,
/// tagged or with `new`), and whether the cell declares a `require` of its
/// own (then its calls are ordinary calls: there is no global `require`).
#[derive(Default)]
struct ModuleAccess {
    found: bool,
    require_called: bool,
    require_declared: bool,
}

impl Visit for ModuleAccess {
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
        self.require_declared |= &*ident.id.sym == "require";
    }

    fn visit_fn_decl(&mut self, decl: &FnDecl) {
        self.require_declared |= &*decl.ident.sym == "require";
        decl.visit_children_with(self);
    }

    fn visit_fn_expr(&mut self, function: &FnExpr) {
        self.require_declared |= function
            .ident
            .as_ref()
            .is_some_and(|ident| &*ident.sym == "require");
        function.visit_children_with(self);
    }

    fn visit_class_decl(&mut self, decl: &ClassDecl) {
        self.require_declared |= &*decl.ident.sym == "require";
        decl.visit_children_with(self);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        if self.found {
            return;
        }
        // Hostile nesting must not overflow the worker's stack.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || expr.visit_children_with(self));
    }
}

fn is_require(expr: &Expr) -> bool {
    match expr {
        Expr::Ident(ident) => &*ident.sym == "require",
        Expr::Paren(paren) => is_require(&paren.expr),
        _ => false,
    }
}
