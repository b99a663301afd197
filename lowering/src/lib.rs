//! tile-kernel's language core, independent of `proc_macro`.
//!
//! ```text
//! ast::Kernel          the kernel as written
//!   | sema             names, views, opcodes, form choice, rules 1-7
//!   v
//! checked kernel       each apply with its form, operands, guard, facts;
//!   |                  the runtime ifs and loops around them
//!   | prove            every Obligation: bounds, order, alignment,
//!   v                  registers, races, convergence, budgets
//! proofs               the guards added, launch requirements (or errors)
//!   | lower            never fails
//!   v
//! program::Program     the IR: values as polynomials, access maps,
//!   | emit             structured control flow; never fails
//!   v
//! PTX text             one .entry
//! ```
//!
//! - [`ast`]: the kernel as written (built by the macro crate from Rust tokens).
//! - [`sema`]: semantic analysis: resolves names, views and opcodes,
//!   chooses each `apply`'s form, enforces rules 1-7 and builds the checked
//!   kernel (`checked`: each apply with its form, operands, guard, facts and
//!   control path), collecting *all* diagnostics.
//! - [`prove`]: the proof obligations ([`prove::Obligation`] lists every
//!   one and which module discharges it), over the checked kernel; no IR is
//!   built there.
//! - `lower`: checked kernel + proofs -> [`program::Program`]. Runs only
//!   when nothing was reported; never fails.
//! - `parallel`: a large kernel's independent proofs (and its PTX text
//!   and program bytes) on more than one thread; the result is the same
//!   as one after the other.
//! - [`memory`]: memory spaces (global, shared) and their rules: one model,
//!   not parallel arms.
//! - [`diag`]: diagnostics and the error-code catalogue ([`diag::CODES`],
//!   documented in `docs/errors.md`).
//! - [`layout`]: strided tile views (slice, view, reshape, unsqueeze).
//! - [`ptx`]: the PTX instruction table and opcode resolution.
//! - [`sym`]: symbolic runtime integers (polynomials over atoms) and the
//!   prover that discharges bounds, alignment and race obligations.
//! - [`program`]: the lowered IR: runtime values, access maps, structured
//!   control flow, register tiles expanded per repeat coordinate.
//! - [`emit`]: PTX text from a program. Never fails.
//! - [`signature`]: which tensor parameters the launcher takes `&mut`,
//!   from the kernel as written (stable while the body has errors).
//! - [`spec`]: the launch description (parameters, symbols, launch-size
//!   formulas) as `const` data, shared with the runtime.
//! - [`encoding`]: a [`program::Program`] as bytes (the macro embeds each
//!   kernel's program in its spec for the runtime's CPU interpreter).

#![forbid(unsafe_code)]

pub mod ast;
pub(crate) mod checked;
pub mod diag;
pub mod dtype;
pub mod emit;
pub mod encoding;
pub mod layout;
mod lower;
pub mod memory;
mod parallel;
pub mod program;
pub mod prove;
pub mod ptx;
mod roles;
pub(crate) mod scope;
pub mod sema;
pub mod shared_layout;
pub mod signature;
pub mod spec;
pub mod sym;
pub mod target;
pub mod variants;
mod word_map;

pub use diag::{Code, Diagnostic, SpanId};
pub use dtype::DType;
pub use target::{PtxVersion, Target};

/// The result of compiling one kernel.
#[derive(Debug, Clone)]
pub struct Compilation {
    /// The PTX text, when the kernel is legal.
    pub ptx: Option<String>,
    /// The lowered kernel (launch shape, symbols, parameters), when legal.
    pub program: Option<program::Program>,
    /// Every problem found (empty exactly when `ptx` is `Some`).
    pub diagnostics: Vec<Diagnostic>,
    /// For each kernel parameter: whether the launcher takes it `&mut`.
    /// Decided from the kernel as written ([`signature::tensor_writes`]),
    /// so it is the same with and without errors in the body.
    pub param_writes: Vec<bool>,
}

/// Checks a kernel and, if it is legal, emits its PTX.
pub fn compile(kernel: &ast::Kernel) -> Compilation {
    let checked = sema::check(kernel);
    let ptx = checked.program.as_ref().map(emit::emit);
    compilation(kernel, checked, ptx)
}

/// [`compile`], and the program as bytes ([`encoding::encode`]), what the
/// macro embeds for the CPU interpreter. The PTX text and the bytes read
/// the program alone: a large kernel makes both at once, beside its
/// proofs when nothing was wrong before them (`sema::check_then`).
pub fn compile_embedded(kernel: &ast::Kernel) -> (Compilation, Option<Vec<u8>>) {
    let (checked, made) = sema::check_then(
        kernel,
        true,
        Some(|program: &program::Program| {
            let parallel =
                program::statement_count(&program.body) >= parallel::PARALLEL_FROM_STATEMENTS;
            parallel::join(
                parallel,
                || emit::emit(program),
                || encoding::encode(program),
            )
        }),
    );
    let (ptx, bytes) = made.unzip();
    (compilation(kernel, checked, ptx), bytes)
}

/// The compilation of `kernel` from its check and its PTX.
fn compilation(kernel: &ast::Kernel, checked: sema::Checked, ptx: Option<String>) -> Compilation {
    let mut param_writes = signature::tensor_writes(kernel);
    // A legal kernel writes exactly what the syntax says (tested on every
    // shipped kernel); should the checker find another write, the launcher
    // still borrows that tensor exclusively.
    if ptx.is_some() {
        for (syntactic, checked) in param_writes.iter_mut().zip(&checked.param_writes) {
            *syntactic |= *checked;
        }
    }
    Compilation {
        ptx,
        program: checked.program,
        diagnostics: checked.diagnostics,
        param_writes,
    }
}
