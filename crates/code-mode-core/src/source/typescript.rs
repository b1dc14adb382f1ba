//! TypeScript -> JavaScript with swc, loaded lazily: a process that only runs
//! JavaScript cells never touches this module.
//!
//! Strip-only mode replaces types with spaces, so QuickJS's line:column in errors
//! match the user's TypeScript. Syntax that strip-only mode cannot erase (`enum`,
//! `namespace`, parameter properties) goes through swc's transform mode instead,
//! which reformats the code: positions in such cells are approximate. Both
//! modes keep decorators, which `decorators.rs` then lowers (approximate
//! positions too).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use swc_common::errors::{DiagnosticBuilder, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{SourceMap, GLOBALS};
use swc_ecma_parser::Syntax;
use swc_ts_fast_strip::{ErrorCode, Mode, Options, TsError};

use super::position::Location;
use super::{budget, decorators, screen, SourceError};

static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Whether any TypeScript cell has been transformed in this process.
pub fn typescript_initialized() -> bool {
    INITIALIZED.load(Ordering::Relaxed)
}

/// What stripping may have to do beyond erasing types.
pub(super) struct Rewrite {
    /// Lower decorators and auto-accessors (`decorators.rs`).
    pub(super) lower: bool,
    /// Why the cell may not be rewritten, if it may not: swc's rewriting
    /// (transform mode, lowering) would cost it too much.
    pub(super) refused: Option<SourceError>,
}

/// Strips the wrapped TypeScript cell to JavaScript: types are erased, what
/// cannot be erased is rewritten (swc's transform mode), and decorators are
/// lowered, each only if `rewrite` allows it.
pub(super) fn strip(wrapped: String, rewrite: Rewrite) -> Result<String, SourceError> {
    INITIALIZED.store(true, Ordering::Relaxed);
    let mut refused = rewrite.refused;
    if rewrite.lower {
        if let Some(refused) = refused.take() {
            return Err(refused);
        }
    }
    let stripped = match operate(wrapped.clone(), Mode::StripOnly) {
        Err(Failed::Ts(error, _)) if matches!(error.code, ErrorCode::UnsupportedSyntax) => {
            if let Some(refused) = refused {
                return Err(refused);
            }
            operate(wrapped.clone(), Mode::Transform)
        }
        other => other,
    }
    .map_err(|failed| match failed {
        Failed::Ts(error, diagnostics) => {
            SourceError::TypeScript(describe(&wrapped, &error, &diagnostics))
        }
        // Screening parsed the same source with the same options within the
        // same budget, so this is not expected; the cell is refused all the
        // same, located at its end.
        Failed::TooCostly => SourceError::TooCostly {
            location: Location::of_wrapped(&wrapped, wrapped.len()),
        },
    })?;
    if rewrite.lower {
        decorators::lower(&stripped)
    } else {
        Ok(stripped)
    }
}

/// Why [`operate`] failed.
enum Failed {
    /// swc's error, with the diagnostics it emitted.
    Ts(TsError, Collected),
    /// The parse budget ran out.
    TooCostly,
}

/// Diagnostic messages with their byte offset into the wrapped source.
type Collected = Vec<(String, Option<usize>)>;
type Diagnostics = Arc<Mutex<Collected>>;

fn operate(source: String, mode: Mode) -> Result<String, Failed> {
    let cm: Lrc<SourceMap> = Default::default();
    let diagnostics: Diagnostics = Default::default();
    let handler = Handler::with_emitter(
        false,
        false,
        Box::new(Collect(diagnostics.clone(), cm.clone())),
    );
    let Syntax::Typescript(parser) = screen::syntax(true, false) else {
        unreachable!("TypeScript syntax")
    };
    let options = Options {
        module: Some(false),
        mode,
        parser,
        ..Default::default()
    };
    let len = source.len();
    let (result, within) = budget::run(len, || {
        GLOBALS.set(&Default::default(), || {
            swc_ts_fast_strip::operate(&cm, &handler, source, options)
        })
    });
    if within.is_err() {
        return Err(Failed::TooCostly);
    }
    let collected = std::mem::take(&mut *diagnostics.lock());
    result
        .map(|output| output.code)
        .map_err(|error| Failed::Ts(error, collected))
}

/// The first located diagnostic, with its position in the user's source.
fn describe(wrapped: &str, error: &TsError, diagnostics: &[(String, Option<usize>)]) -> String {
    match diagnostics.first() {
        Some((message, Some(offset))) => {
            crate::messages::at_location(message, Location::of_wrapped(wrapped, *offset))
        }
        Some((message, None)) => message.clone(),
        None => error.message.clone(),
    }
}

struct Collect(Diagnostics, Lrc<SourceMap>);

impl Emitter for Collect {
    fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
        let offset = db.span.primary_span().map(|span| {
            let file = self.1.lookup_byte_offset(span.lo);
            file.pos.0 as usize
        });
        self.0.lock().push((db.message(), offset));
    }
}
