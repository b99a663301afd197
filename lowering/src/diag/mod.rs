//! Diagnostics: every legality problem becomes one [`Diagnostic`] anchored at a
//! [`SpanId`] and carrying its catalogue [`Code`]. Passes collect them instead
//! of stopping at the first, so a user sees every mistake of a kernel in one
//! compile.

mod codes;

use std::fmt;

pub use codes::{Area, CODES, Code};

/// An opaque reference to a source location.
///
/// The lowering library never sees `proc_macro` spans: the macro crate keeps a
/// table of real spans and hands out these indices. Tests use arbitrary ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SpanId(pub u32);

/// One compile-time error with its code, location and optional help/notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Which entry of the catalogue (`docs/errors.md`) this is.
    pub code: Code,
    pub span: SpanId,
    pub message: String,
    /// Actionable suggestions ("write `.unsqueeze(-1)`"), rendered as `help:` lines.
    pub help: Vec<String>,
    /// Extra facts ("the form is `cvt.rn.f16x2.f32 d, a, b`"), rendered as `note:` lines.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(code: Code, span: SpanId, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            span,
            message: message.into(),
            help: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help.push(help.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The code and message followed by its notes and help lines, the way
    /// the macro prints it through `compile_error!` (stable proc macros have
    /// no separate help channel): `TK0212: `cvt.rn.f16x2.f32` takes ..`.
    pub fn rendered(&self) -> String {
        let mut out = self.code.tag(&self.message);
        for note in &self.notes {
            out.push_str("\n  = note: ");
            out.push_str(note);
        }
        for help in &self.help {
            out.push_str("\n  = help: ");
            out.push_str(help);
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered())
    }
}

/// Collects diagnostics across a pass.
#[derive(Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    pub fn error(&mut self, code: Code, span: SpanId, message: impl Into<String>) {
        self.push(Diagnostic::new(code, span, message));
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Drops the diagnostics from the `len`-th on (a trial check's, whose
    /// statements are then checked another way).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    /// Whether a diagnostic of `code` at `span` was reported already.
    pub fn reported_at(&self, code: Code, span: SpanId) -> bool {
        self.list.iter().any(|d| d.code == code && d.span == span)
    }

    /// Whether an error (not a lint) is among the diagnostics from the
    /// `from`-th on.
    pub fn has_error_from(&self, from: usize) -> bool {
        self.list.iter().skip(from).any(|d| !d.code.is_lint())
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }

    /// Drops the diagnostics of `code` from the `from`-th on (follow-ups
    /// of a mistake reported instead).
    pub fn drop_from(&mut self, from: usize, code: Code) {
        let mut index = 0;
        self.list.retain(|d| {
            index += 1;
            index <= from || d.code != code
        });
    }

    /// Adds `note` to every diagnostic from the `from`-th on.
    pub fn note_from(&mut self, from: usize, note: &str) {
        for diagnostic in self.list.iter_mut().skip(from) {
            diagnostic.notes.push(note.to_string());
        }
    }
}
