//! TypeScript -> JavaScript with swc, loaded lazily: a process that only runs
//! JavaScript cells never touches this module.
//!
//! Strip-only mode replaces types with spaces, so QuickJS's line:column in errors
//! match the user's TypeScript. Syntax that strip-only mode cannot erase (`enum`,
//! `namespace`, parameter properties) goes through swc's transform mode instead,
//! which reformats the code: positions in such cells are approximate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use swc_common::errors::{DiagnosticBuilder, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{SourceMap, GLOBALS};
use swc_ts_fast_strip::{ErrorCode, Mode, Options, TsError};

use super::position::Location;
use super::SourceError;

static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Whether any TypeScript cell has been transformed in this process.
pub fn typescript_initialized() -> bool {
    INITIALIZED.load(Ordering::Relaxed)
}

/// Strips the wrapped TypeScript cell to JavaScript.
pub(super) fn strip(wrapped: String) -> Result<String, SourceError> {
    INITIALIZED.store(true, Ordering::Relaxed);
    match operate(wrapped.clone(), Mode::StripOnly) {
        Err((error, _)) if matches!(error.code, ErrorCode::UnsupportedSyntax) => {
            operate(wrapped.clone(), Mode::Transform)
        }
        other => other,
    }
    .map_err(|(error, diagnostics)| {
        SourceError::TypeScript(describe(&wrapped, &error, &diagnostics))
    })
}

/// Diagnostic messages with their byte offset into the wrapped source.
type Collected = Vec<(String, Option<usize>)>;
type Diagnostics = Arc<Mutex<Collected>>;

fn operate(source: String, mode: Mode) -> Result<String, (TsError, Collected)> {
    let cm: Lrc<SourceMap> = Default::default();
    let diagnostics: Diagnostics = Default::default();
    let handler = Handler::with_emitter(
        false,
        false,
        Box::new(Collect(diagnostics.clone(), cm.clone())),
    );
    let options = Options {
        module: Some(false),
        mode,
        ..Default::default()
    };
    let result = GLOBALS.set(&Default::default(), || {
        swc_ts_fast_strip::operate(&cm, &handler, source, options)
    });
    let collected = std::mem::take(&mut *diagnostics.lock());
    result
        .map(|output| output.code)
        .map_err(|error| (error, collected))
}

/// The first located diagnostic, with its position in the user's source.
fn describe(wrapped: &str, error: &TsError, diagnostics: &[(String, Option<usize>)]) -> String {
    match diagnostics.first() {
        Some((message, Some(offset))) => {
            format!("{message} at {}", Location::of_wrapped(wrapped, *offset))
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
