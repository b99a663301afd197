//! Semantic analysis: turns an [`ast::Kernel`] into the checked kernel
//! (`crate::checked`) and, through the proofs (`crate::prove`) and
//! lowering (`crate::lower`), into a [`Program`]; or into a list of
//! diagnostics (all of them, not just the first).
//!
//! Rule numbers in comments refer to the legality rules of SPEC §4:
//! 1 opcode, 2 operand count, 3 register vs memory, 4 repeat shapes,
//! 5 register axis, 6 dtype/carrier, 7 scalars, 8 overlapping destinations,
//! 9 pred/preserve_dst/uninitialised reads, 10 memory contiguity/alignment;
//! and to the scale rules of SPEC §6 (bounds, alignment, races, order
//! independence, control flow, register budget).
//!
//! - this file: the driver: signature and symbols, scopes, statements and
//!   control flow (facts of conditions and loops, predicate versions), an
//!   `apply`'s opcode, scope and form; at the end, the whole-kernel
//!   obligations and lowering;
//! - `values`: integer and bool expressions -> [`crate::sym::Poly`] / [`Cond`];
//! - `views`: names and view chains -> operand values, slice bounds;
//! - `form_choice`: which form of an opcode an `apply` means, and the
//!   nearest one to explain a mistake with;
//! - `operands`: one candidate form against the operands (rules 2-7, 10);
//! - `apply`: an `apply` with its form becomes a checked apply, with its
//!   own obligations proven as it is added (bounds, order, alignment:
//!   `crate::prove`; convergence is asked where a collective is met);
//! - `scopes`: group tiles and the binding of group axes to the threads of
//!   a scope;
//! - `shared`: shared-memory buffers (declaration, the static budget); the
//!   walk marks where CTA barriers end an epoch (`checked::Node::CtaBarrier`)
//!   for the race obligation;
//! - `limits`: the walk's own compile-time limits (nesting, statement
//!   counts, the size of what a message prints);
//! - `ewise`: `ewise(function, dst, inputs..)` checked and expanded into
//!   `apply`s over temporary tiles; `scalar` types a scalar function into
//!   straight-line code, `scalar_ops` is its operator/call/cast -> PTX
//!   table (data);
//! - `calls`: kernel functions, inlined at each call in a scope that sees
//!   only their parameters;
//! - `names`: the names in scope, one table for every open block.
//!
//! Guarantee: a [`Program`] is returned only when no diagnostic was produced;
//! it satisfies every invariant documented on [`crate::program`].

mod apply;
mod calls;
mod ewise;
mod form_choice;
pub mod limits;
mod matrices;
mod names;
mod operands;
mod rolled;
mod scalar;
mod scalar_ops;
mod scopes;
mod shared;
mod tensor_maps;
mod values;
mod views;
mod zero_fill;

use std::collections::HashMap;

use crate::ast::{self, LiteralValue, Stmt};
use crate::checked::{self, LoopHeader, Value};
use crate::diag::{Code, Diagnostic, Diagnostics, SpanId};
use crate::dtype::DType;
use crate::layout::{Bound, Layout, StaticLayout};
use crate::memory::Buffer;
use crate::program::{
    Borrow, Cond, Lane, Launch, LaunchFormula, ParamKind, Program, ProgramParam, Symbol, Tile,
};
use crate::prove::convergence::{self, ControlFrame, LoopUniformity, Uniformities};
use crate::prove::races::{self, LoopClass, Threads};
use crate::prove::{async_copies, budget, register_pool, registers};
use crate::ptx::form::{Access, OperandKind, ResolvedOperand, Usability};
use crate::ptx::table::FORMS;
use crate::ptx::{Modifiers, resolve};
use crate::scope::{Scope, Uniformity};
use crate::sym::{AtomId, Atoms, Fact, Poly, WordMap};
use crate::target::Requirement;

pub use crate::prove::budget::REGISTER_BUDGET;

/// The named functions of scalar functions with what each computes, in
/// documentation order (`docs/language.md` lists them).
pub fn scalar_functions() -> impl Iterator<Item = (&'static str, &'static str)> {
    scalar_ops::FUNCTIONS.iter().map(|f| (f.name, f.doc))
}

/// Whether `name` is a function scalar functions can always call (`fma`,
/// `ex2_approx`, .., `to_bits`): not one the kernel must define.
pub fn is_builtin_scalar_function(name: &str) -> bool {
    scalar_ops::function(name).is_some()
        || scalar_ops::method_function(name).is_some()
        || name == "to_bits"
        || name.ends_with("::from_bits")
}

/// Upper bound on a tile's elements and on a kernel's expanded instructions,
/// so a typo like `alloc_local::<f32>([1 << 30])` fails fast instead of
/// exhausting the compiler.
pub const MAX_TILE_ELEMENTS: usize = 1 << 16;
pub const MAX_INSTRUCTIONS: usize = 1 << 20;
/// The most iterations a constant-bound (unrolled) loop may have.
pub const MAX_UNROLL: i128 = 1 << 12;

/// Output of [`check`].
#[derive(Debug)]
pub struct Checked {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
    /// Per parameter: does the kernel store into it (launcher takes `&mut`)?
    pub param_writes: Vec<bool>,
}

/// Checks a kernel, collecting every diagnostic.
pub fn check(kernel: &ast::Kernel) -> Checked {
    check_with(kernel, true)
}

/// [`check`] with every constant-bound loop checked once per iteration:
/// the reference the rolled check (`sema/rolled.rs`) is tested against.
pub fn check_unrolled(kernel: &ast::Kernel) -> Checked {
    check_with(kernel, false)
}

pub use rolled::{loops_rolled, statements_rolled};

fn check_with(kernel: &ast::Kernel, rolling_enabled: bool) -> Checked {
    check_then(kernel, rolling_enabled, None::<fn(&Program)>).0
}

/// The program of `declarations` and the checked `body`, and `then` of it.
fn lower_then<T>(
    declarations: Program,
    body: &[checked::Node],
    then: Option<impl FnOnce(&Program) -> T>,
) -> (Program, Option<T>) {
    let program = crate::lower::lower(declarations, body);
    let made = then.map(|then| then(&program));
    (program, made)
}

/// [`check`], and `then` of the program where the kernel is legal: a
/// large kernel's `then` runs beside its proofs (`Checker::finish`).
pub(crate) fn check_then<T: Send>(
    kernel: &ast::Kernel,
    rolling_enabled: bool,
    then: Option<impl FnOnce(&Program) -> T + Send>,
) -> (Checked, Option<T>) {
    // Nesting first: every later pass recurses over expressions and blocks.
    let nesting = limits::nesting_errors(kernel);
    if !nesting.is_empty() {
        let checked = Checked {
            program: None,
            diagnostics: nesting,
            // Best effort for the fallback launcher: `&` everywhere, which
            // callers passing `&mut` still satisfy.
            param_writes: vec![false; kernel.params.len()],
        };
        return (checked, None);
    }
    let mut checker = Checker::new(kernel);
    checker.rolling_enabled = rolling_enabled;
    checker.check_signature();
    checker.check_launch();
    checker.block(&kernel.body);
    checker.finish(then)
}

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // few live at once; lookups clone them
enum Binding {
    Param(usize),
    Tile(usize),
    /// A shared-memory buffer (`alloc_shared`).
    Shared(usize),
    /// A parameter whose type was unreadable: uses are skipped silently.
    Unparsed,
    /// A size symbol (its value as a polynomial of its atom).
    Symbol(Poly),
    /// A runtime integer (`let`, loop variable).
    Int(Poly),
    /// A runtime predicate (`let p = i < n;`).
    Bool(Cond),
    /// A named view of a tile or tensor.
    View(View),
    /// A `let` whose initialiser failed (already reported): uses are silent.
    Failed,
    /// A scalar function (`fn` item or closure) for `ewise`.
    Function(std::rc::Rc<ast::scalar::Function>),
    /// A kernel function (`fn name(t: Tile) { .. }`).
    KernelFunction(std::rc::Rc<ast::KernelFunction>),
}

/// A view of a tile or a tensor, before it is used as an operand.
#[derive(Debug, Clone)]
struct View {
    base: ViewBase,
    name: String,
    layout: Layout,
    /// Conditions for the view to stay in bounds (tensors; tiles are
    /// checked when sliced).
    bounds: Vec<Bound>,
    /// Leading group axes in front of `layout` (a view of a group tile
    /// that still covers the whole scope); `layout` is one thread's part.
    group: Option<scopes::Group>,
    /// `.in_cta(rank)`: the rank in the cluster of the CTA whose copy of
    /// the shared buffer the view addresses (`None`: the thread's own).
    cta: Option<Poly>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ViewBase {
    Tile(usize),
    /// A buffer of a memory space (a tensor parameter, a shared buffer).
    Memory(Buffer),
}

struct TileState {
    /// The issuing thread's part (all of it for a per-thread tile).
    tile: Tile,
    /// A group tile's group axes (`alloc_local(.., scope = "warp")`).
    group: Option<scopes::Group>,
    /// The `alloc_local` statement, for errors about the tile as a whole.
    span: SpanId,
    /// Some statement, on any path, writes some byte of the tile.
    ever_written: bool,
    /// Some statement, on any path, reads some byte of the tile (directly
    /// or through a view).
    ever_read: bool,
}

struct SymbolState {
    symbol: Symbol,
}

/// `(tile, register)` -> version of a `bool` tile register's value.
type PredVersions = HashMap<(usize, usize), u64>;

/// What one opcode spelling resolves to: worked out once per spelling, as
/// unrolled loops check their body once per iteration and resolving a
/// misspelling (with its suggestions) is not cheap.
struct ResolvedOpcode {
    /// Rule 1: the forms it names.
    forms: Result<Vec<Modifiers>, crate::ptx::OpcodeError>,
    /// The positions of its descriptor operands
    /// ([`crate::ptx::resolve::descriptor_operands`]).
    descriptors: Vec<usize>,
}

struct Checker<'k> {
    kernel: &'k ast::Kernel,
    diags: Diagnostics,
    params: Vec<ProgramParam>,
    scopes: names::Names,
    tiles: Vec<TileState>,
    symbols: Vec<SymbolState>,
    atoms: Atoms,
    launch: Launch,
    /// Facts (`poly <= 0`) that hold at the current point.
    facts: Vec<Fact>,
    /// The bounds prover's answers ([`crate::prove::bounds::guard`]): the statements of
    /// an unrolled loop ask the same bounds under the same facts.
    proofs: crate::sym::ProofMemo,
    loop_classes: HashMap<AtomId, LoopClass>,
    /// The checked body being built (the innermost block).
    body: Vec<checked::Node>,
    requirement: Requirement,
    instruction_count: usize,
    /// Some parameter type was unreadable (reported by the parser).
    unparsed_params: bool,
    /// Some statement was unreadable (reported by the parser).
    invalid_statements: bool,
    /// Statements and unrolled iterations checked so far
    /// ([`limits::MAX_CHECKED_STATEMENTS`]).
    checked_statements: usize,
    /// Opcode spellings already resolved.
    opcodes: WordMap<String, ResolvedOpcode>,
    /// The 32-bit registers of the tiles allocated so far (saturating).
    tile_registers: usize,
    /// The constant-bound loops being unrolled, outermost first.
    unrolling: Vec<SpanId>,
    /// The version of each `bool` tile register's value
    /// ([`Cond::Register`]); absent = 0, the value before any write.
    pred_versions: PredVersions,
    /// The last version handed out.
    next_pred_version: u64,
    /// Per enclosing block (innermost last): the register atoms read there,
    /// by `(tile, register, version)`. A read of a register whose value has
    /// not changed since a read in this block or an enclosing one is that
    /// atom again, so facts about it (`if row < V`) hold for it.
    index_reads: Vec<HashMap<(usize, usize, u64), AtomId>>,
    /// Each `apply` and `ewise` of the kernel's body (by address: the body
    /// is borrowed for the checker's life) with its position in source
    /// order, from 1.
    apply_numbers: HashMap<*const (), usize>,
    /// The runtime `if`s and loops around the current statement.
    control: Vec<ControlFrame>,
    /// Over which threads each runtime loop variable is the same.
    loop_uniformity: LoopUniformity,
    /// The number of the `apply` being checked ([`Self::statement_number`]).
    current_statement: usize,
    /// The CTA's shared-memory buffers.
    shared: Vec<shared::SharedState>,
    /// TK0611 was reported (once per kernel: the block shape is the mistake).
    partial_scope_reported: bool,
    /// A `barrier.cluster.arrive` whose `barrier.cluster.wait` has not come
    /// yet in the current block (`cluster_barrier`).
    cluster_arrive: Option<SpanId>,
    /// An arrive was reported without its wait: the next wait without an
    /// arrive is its follow-up, not a mistake of its own.
    cluster_arrive_unpaired: bool,
    /// The temporary tiles of `ewise` expansions.
    ewise_temps: ewise::TempPool,
    /// The number of the `ewise` being expanded, or of the kernel-function
    /// call being inlined: the `apply`s inside report as it.
    inline_statement: usize,
    /// The kernel functions being inlined, outermost first.
    inlining: Vec<String>,
    /// While a kernel function is inlined: the first scope of its own
    /// names (names in outer scopes are invisible, except functions).
    lookup_floor: Option<usize>,
    /// A compile-time budget ran out (instructions, statements, registers):
    /// the error is reported once and later statements are not checked,
    /// which keeps the compile bounded and adds no follow-up errors.
    halted: bool,
    /// The statements whose check reported an error ([`Self::unless_failed`]).
    failed_statements: std::collections::HashSet<SpanId>,
    /// Whether constant-bound loops may be checked once in their variable
    /// ([`rolled`]; off: [`check_unrolled`]).
    rolling_enabled: bool,
    /// The constant-bound loop being checked once in its variable.
    rolling: Option<rolled::Rolling>,
    /// The loops whose rolled trial was refused: met again (an inner loop
    /// of an unrolled one), they are unrolled without another trial.
    unrollable: std::collections::HashSet<SpanId>,
}

/// Every `apply` in `body` (nested ones included) numbered in source
/// order from 1: how runtime reports name statements
/// ([`crate::program::Statement::number`]).
fn apply_numbers(body: &[ast::Stmt]) -> HashMap<*const (), usize> {
    fn walk(body: &[ast::Stmt], numbers: &mut HashMap<*const (), usize>) {
        for stmt in body {
            match stmt {
                ast::Stmt::Apply(a) => {
                    let next = numbers.len() + 1;
                    numbers.insert(std::ptr::from_ref(a).cast(), next);
                }
                ast::Stmt::Ewise(e) => {
                    let next = numbers.len() + 1;
                    numbers.insert(std::ptr::from_ref(e).cast(), next);
                }
                ast::Stmt::Call(c) => {
                    let next = numbers.len() + 1;
                    numbers.insert(std::ptr::from_ref(c).cast(), next);
                }
                ast::Stmt::For(f) => walk(&f.body, numbers),
                ast::Stmt::If(i) => {
                    walk(&i.then, numbers);
                    walk(&i.otherwise, numbers);
                }
                _ => {}
            }
        }
    }
    let mut numbers = HashMap::new();
    walk(body, &mut numbers);
    numbers
}

impl<'k> Checker<'k> {
    fn new(kernel: &'k ast::Kernel) -> Self {
        Checker {
            kernel,
            diags: Diagnostics::default(),
            params: Vec::new(),
            scopes: names::Names::new(),
            tiles: Vec::new(),
            symbols: Vec::new(),
            atoms: Atoms::default(),
            launch: Launch {
                grid: [1, 1, 1].map(LaunchFormula::constant),
                block: kernel.launch.block,
                max_registers: None,
                cluster: kernel.launch.cluster,
            },
            facts: Vec::new(),
            proofs: Default::default(),
            loop_classes: HashMap::new(),
            body: Vec::new(),
            requirement: Requirement::new(0, 0, 0),
            instruction_count: 0,
            apply_numbers: apply_numbers(&kernel.body),
            unparsed_params: false,
            invalid_statements: false,
            checked_statements: 0,
            opcodes: WordMap::default(),
            tile_registers: 0,
            unrolling: Vec::new(),
            pred_versions: HashMap::new(),
            next_pred_version: 0,
            index_reads: vec![HashMap::new()],
            control: Vec::new(),
            loop_uniformity: HashMap::new(),
            current_statement: 0,
            shared: Vec::new(),
            partial_scope_reported: false,
            cluster_arrive: None,
            cluster_arrive_unpaired: false,
            ewise_temps: ewise::TempPool::default(),
            inline_statement: 0,
            inlining: Vec::new(),
            lookup_floor: None,
            halted: false,
            failed_statements: std::collections::HashSet::new(),
            rolling_enabled: true,
            rolling: None,
            unrollable: std::collections::HashSet::new(),
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        let (depth, binding) = self.scopes.innermost(name)?;
        match self.lookup_floor {
            // Inside a kernel function: its own names, then the kernel's
            // functions and `ewise` temporaries (which are the compiler's),
            // in the blocks below its own.
            Some(floor) if depth < floor => {
                (matches!(binding, Binding::Function(_) | Binding::KernelFunction(_))
                    || name.starts_with(ewise::TEMP_PREFIX))
                .then_some(binding)
            }
            _ => Some(binding),
        }
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        self.scopes.bind(name, binding);
    }

    /// Every name in scope, for "did you mean" suggestions.
    fn names_in_scope(&self) -> Vec<String> {
        self.scopes.all()
    }

    fn check_signature(&mut self) {
        if !self.kernel.name.is_ascii() {
            self.diags.error(
                Code::NON_ASCII_NAME,
                self.kernel.name_span,
                format!(
                    "the kernel name `{}` becomes the PTX entry name, which must be ASCII",
                    self.kernel.name
                ),
            );
        }
        self.collect_symbols();
        for (index, param) in self.kernel.params.iter().enumerate() {
            if self.lookup(&param.name).is_some() {
                let what = if matches!(self.lookup(&param.name), Some(Binding::Symbol(_))) {
                    "is also a size symbol of a tensor dim"
                } else {
                    "is declared more than once"
                };
                self.diags.error(
                    Code::NAME_CLASH,
                    param.span,
                    format!("parameter `{}` {what}", param.name),
                );
            }
            self.bind(&param.name.clone(), Binding::Param(index));
            let kind = match &param.ty {
                ast::ParamType::Tensor { dtype, dims } => {
                    if !dtype.is_tile_element() {
                        self.diags.error(
                            Code::BOOL_ELEMENT,
                            param.span,
                            format!(
                                "tensors of `{dtype}` are not supported; use `u8` for byte flags"
                            ),
                        );
                    }
                    if dims.is_empty() {
                        self.diags.error(
                            Code::MALFORMED_TENSOR,
                            param.span,
                            "a tensor needs at least one dimension",
                        );
                    }
                    let before = self.diags.len();
                    let dims = self.tensor_dims(param, *dtype, dims);
                    if self.diags.len() > before {
                        // A dim that is malformed, negative or too large
                        // (reported): uses of the tensor are skipped
                        // silently rather than computed with a wrong shape.
                        self.bind(&param.name.clone(), Binding::Failed);
                    }
                    ParamKind::Tensor {
                        dtype: *dtype,
                        dims,
                        borrow: Borrow::Shared,
                    }
                }
                ast::ParamType::Scalar(dtype) => ParamKind::Scalar(*dtype),
                ast::ParamType::Unparsed => {
                    self.unparsed_params = true;
                    self.bind(&param.name.clone(), Binding::Unparsed);
                    // Placeholder keeping parameter indices aligned; no
                    // program is produced for this kernel.
                    ParamKind::Scalar(DType::U8)
                }
            };
            self.params.push(ProgramParam {
                name: param.name.clone(),
                kind,
            });
        }
    }

    /// Checks `Stmt`s of one block in order.
    fn block(&mut self, stmts: &[Stmt]) {
        // Kernel functions are items: callable anywhere in their block.
        for stmt in stmts {
            if let Stmt::KernelFunction(def) = stmt {
                self.kernel_function_def(def);
            }
        }
        for stmt in stmts {
            if self.rolling_refused() {
                // A rolled check that cannot succeed: undone, and the loop
                // checked unrolled.
                break;
            }
            if self.halted {
                // Allocations stay cheap, and keep the register budget's
                // error exact.
                if let Stmt::AllocLocal(alloc) = stmt {
                    self.alloc(alloc);
                }
                continue;
            }
            if !self.count_statement() {
                continue;
            }
            let mark = self.body.len();
            match stmt {
                Stmt::AllocLocal(alloc) => self.alloc(alloc),
                Stmt::Apply(apply) => self.unless_failed(apply.span, |c| c.apply(apply)),
                Stmt::Let(binding) => self.let_binding(binding),
                Stmt::For(for_loop) => self.for_loop(for_loop),
                Stmt::If(branch) => self.if_branch(branch),
                Stmt::Ewise(ewise) => self.unless_failed(ewise.span, |c| {
                    c.as_statement(std::ptr::from_ref(ewise).cast(), |c| c.ewise(ewise));
                }),
                Stmt::Function(def) => self.function_def(def),
                // Bound before the block's statements (above).
                Stmt::KernelFunction(_) => {}
                Stmt::Call(call) => self.unless_failed(call.span, |c| c.call(call)),
                Stmt::Invalid(invalid) => self.invalid(invalid),
            }
            self.refuse_unrollable(mark);
        }
    }

    /// Checks a statement that binds no name (an `apply`, an `ewise`, a
    /// kernel-function call) unless an earlier check of it (an earlier
    /// unrolled iteration, an earlier call of the kernel function around
    /// it) reported an error. That error fails the kernel already and is
    /// reported once; checking the statement again would only repeat it,
    /// once per iteration of a loop nest (a mistake inside a
    /// `for j in 0..4096 { for k in 0..4096 { .. } }` took a minute).
    fn unless_failed(&mut self, span: SpanId, check: impl FnOnce(&mut Self)) {
        if self.failed_statements.contains(&span) {
            return;
        }
        let before = self.diags.len();
        check(self);
        if self.diags.has_error_from(before) {
            self.failed_statements.insert(span);
        }
    }

    /// Counts one checked statement or unrolled iteration against
    /// [`limits::MAX_CHECKED_STATEMENTS`]; `false` once checking has halted.
    fn count_statement(&mut self) -> bool {
        if self.halted {
            return false;
        }
        self.checked_statements += 1;
        if self.checked_statements <= limits::MAX_CHECKED_STATEMENTS {
            return true;
        }
        // Only unrolling multiplies statements: blame the outermost loop.
        let span = self
            .unrolling
            .first()
            .copied()
            .unwrap_or(self.kernel.name_span);
        self.diags.push(
            Diagnostic::new(
                Code::UNROLL_LIMIT,
                span,
                format!(
                    "unrolled, this loop nest would check more than {} statements and iterations",
                    limits::MAX_CHECKED_STATEMENTS
                ),
            )
            .with_help("use runtime bounds (a symbol or parameter) for a loop the GPU runs"),
        );
        self.halted = true;
        false
    }

    /// Runs `f` in a new name scope and a new output block; returns the
    /// block.
    fn nested(&mut self, facts: Vec<Fact>, f: impl FnOnce(&mut Self)) -> Vec<checked::Node> {
        // The halves of a cluster barrier pair up inside one block.
        if let Some(arrive) = self.cluster_arrive.take() {
            self.unpaired_cluster_arrive(arrive, "an `if` or loop comes first");
        }
        let outer = std::mem::take(&mut self.body);
        let fact_count = self.facts.len();
        self.facts.extend(facts);
        self.scopes.open();
        self.index_reads.push(HashMap::new());
        f(self);
        if let Some(arrive) = self.cluster_arrive.take() {
            self.unpaired_cluster_arrive(arrive, "the block ends first");
        }
        self.index_reads.pop();
        self.scopes.close();
        self.facts.truncate(fact_count);
        std::mem::replace(&mut self.body, outer)
    }

    /// The version of predicate register `register` of `bool` tile `tile`.
    fn pred_version(&self, tile: usize, register: usize) -> u64 {
        self.pred_versions
            .get(&(tile, register))
            .copied()
            .unwrap_or(0)
    }

    /// The register atom already read from `(tile, register)` at its
    /// current version on this path, if any.
    fn index_read(&self, tile: usize, register: usize) -> Option<AtomId> {
        let key = (tile, register, self.pred_version(tile, register));
        self.index_reads
            .iter()
            .rev()
            .find_map(|reads| reads.get(&key).copied())
    }

    /// A write (or a merge of paths) gives the register a new value.
    fn fresh_pred_version(&mut self, tile: usize, register: usize) {
        self.next_pred_version += 1;
        self.pred_versions
            .insert((tile, register), self.next_pred_version);
    }

    /// The two arms of an `if`, each from the versions `before` (taken at
    /// the `if`), `then` first; then [`Self::merge_pred_versions`] of the
    /// two. What each arm returns, in order.
    pub(super) fn arms<A, B>(
        &mut self,
        before: PredVersions,
        then: impl FnOnce(&mut Self) -> A,
        otherwise: impl FnOnce(&mut Self) -> B,
    ) -> (A, B) {
        let then = then(self);
        let then_versions = std::mem::replace(&mut self.pred_versions, before.clone());
        let otherwise = otherwise(self);
        self.merge_pred_versions(before, &then_versions);
        (then, otherwise)
    }

    /// After an `if` with branches that ran from `before` to `then` and to
    /// the current versions: a register either branch wrote may hold
    /// either value, so it gets a fresh version; the others keep theirs.
    fn merge_pred_versions(&mut self, before: PredVersions, then: &PredVersions) {
        let mut changed: Vec<(usize, usize)> = self
            .pred_versions
            .iter()
            .chain(then)
            .filter(|(key, version)| before.get(key) != Some(version))
            .map(|(key, _)| *key)
            .collect();
        changed.sort_unstable();
        changed.dedup();
        self.pred_versions = before;
        for (tile, register) in changed {
            self.fresh_pred_version(tile, register);
        }
    }

    /// Versions for the body of a runtime loop: the body may run after an
    /// earlier iteration rewrote any predicate, so every predicate register
    /// gets a fresh version. Returns (before, at entry) for
    /// [`Self::leave_loop_pred_versions`].
    fn enter_loop_pred_versions(&mut self) -> (PredVersions, PredVersions) {
        let before = self.pred_versions.clone();
        let registers: Vec<(usize, usize)> = self
            .tiles
            .iter()
            .enumerate()
            .filter(|(_, t)| versioned(t.tile.dtype))
            .flat_map(|(i, t)| (0..t.tile.registers()).map(move |r| (i, r)))
            .collect();
        for (tile, register) in registers {
            self.fresh_pred_version(tile, register);
        }
        (before, self.pred_versions.clone())
    }

    /// After a runtime loop: registers the body did not write keep their
    /// version from before the loop; written ones get a fresh version (the
    /// body may have run zero or more times).
    fn leave_loop_pred_versions(&mut self, (before, entry): (PredVersions, PredVersions)) {
        let current = std::mem::take(&mut self.pred_versions);
        let mut written = Vec::new();
        for (key, version) in &current {
            if entry.get(key) != Some(version) {
                written.push(*key);
            }
        }
        self.pred_versions = before;
        written.sort_unstable();
        for (tile, register) in written {
            self.fresh_pred_version(tile, register);
        }
    }

    /// An unreadable statement (already reported): bind what it would have
    /// bound and treat what it names as written, silently.
    fn invalid(&mut self, invalid: &ast::Invalid) {
        self.invalid_statements = true;
        for name in &invalid.binds {
            self.bind(name, Binding::Failed);
        }
        if invalid.writes_any_tile {
            for tile in 0..self.tiles.len() {
                self.havoc_tile(tile);
            }
        }
        for (position, name) in invalid.touches.iter().enumerate() {
            match self.lookup(name).cloned() {
                Some(
                    Binding::Tile(tile)
                    | Binding::View(View {
                        base: ViewBase::Tile(tile),
                        ..
                    }),
                ) => self.havoc_tile(tile),
                Some(Binding::Param(param)) if invalid.stores && position == 0 => {
                    self.mark_tensor_written(param);
                }
                _ => {}
            }
        }
    }

    fn let_binding(&mut self, binding: &ast::Let) {
        let binding_value = match &binding.value {
            ast::Expr::View(place) => match self.view(place) {
                Some(view) => Binding::View(view),
                None => Binding::Failed,
            },
            ast::Expr::Name(name, _)
                if matches!(
                    self.lookup(name),
                    Some(Binding::Tile(_) | Binding::View(_) | Binding::Shared(_))
                ) || matches!(self.lookup(name), Some(Binding::Param(p)) if matches!(self.params[*p].kind, ParamKind::Tensor { .. })) =>
            {
                let place = ast::PlaceExpr {
                    base: name.clone(),
                    base_span: binding.value.span(),
                    views: Vec::new(),
                    span: binding.value.span(),
                };
                match self.view(&place) {
                    Some(view) => Binding::View(view),
                    None => Binding::Failed,
                }
            }
            expr => match self.eval(expr) {
                Some(values::ExprValue::Int(poly)) => {
                    let poly = self.name_value(poly, &binding.name, binding.value.span());
                    Binding::Int(poly)
                }
                Some(values::ExprValue::Bool(cond)) => Binding::Bool(cond),
                None => Binding::Failed,
            },
        };
        self.bind(&binding.name, binding_value);
    }

    fn if_branch(&mut self, branch: &ast::If) {
        let versions = self.pred_versions.clone();
        let Some(cond) = self.eval_bool(&branch.cond, "an `if` condition") else {
            // Still check both bodies for their own errors.
            let (then, otherwise) = self.arms(
                versions,
                |c| c.nested(Vec::new(), |c| c.block(&branch.then)),
                |c| c.nested(Vec::new(), |c| c.block(&branch.otherwise)),
            );
            self.body.push(checked::Node::If {
                cond: None,
                then,
                otherwise,
            });
            return;
        };
        let _ = self.materialize_cond(&cond, branch.cond.span());
        self.control.push(ControlFrame {
            span: branch.cond.span(),
            uniformity: self.uniformities().of_cond(&cond),
            what: "`if` condition",
        });
        let (then, otherwise) = self.arms(
            versions,
            |c| c.nested(cond.facts(true), |c| c.block(&branch.then)),
            |c| c.nested(cond.facts(false), |c| c.block(&branch.otherwise)),
        );
        self.control.pop();
        self.body.push(checked::Node::If {
            cond: Some(cond),
            then,
            otherwise,
        });
    }

    fn for_loop(&mut self, for_loop: &ast::For) {
        let start = self.eval_int(&for_loop.start);
        let end = self.eval_int(&for_loop.end);
        let step = match &for_loop.step {
            Some(step) => self.eval_int(step),
            None => Some(Poly::constant(1)),
        };
        let (Some(start), Some(end), Some(step)) = (start, end, step) else {
            self.scopes.open();
            self.bind(&for_loop.var, Binding::Failed);
            let first_atom = self.next_atom();
            let last_version = self.next_pred_version;
            let versions = self.enter_loop_pred_versions();
            let body = self.nested(Vec::new(), |c| c.block(&for_loop.body));
            self.leave_loop_pred_versions(versions);
            self.body.push(checked::Node::Loop(checked::Loop::new(
                None,
                Vec::new(),
                first_atom,
                last_version,
                body,
            )));
            self.scopes.close();
            return;
        };
        if let (Some(a), Some(b), Some(s)) = (start.as_const(), end.as_const(), step.as_const()) {
            self.unrolled_loop(for_loop, a, b, s);
            return;
        }
        self.runtime_loop(for_loop, start, end, step);
    }

    /// `for k in A..B` with constant bounds: the body once per `k`, with `k`
    /// a constant.
    fn unrolled_loop(&mut self, for_loop: &ast::For, start: i128, end: i128, step: i128) {
        let step_span = for_loop
            .step
            .as_ref()
            .map_or(for_loop.span, ast::Expr::span);
        if step < 1 {
            self.diags.error(
                Code::LOOP_STEP,
                step_span,
                format!("a loop step must be at least 1, but it is {step}"),
            );
            return;
        }
        // In u128: constant bounds may be anywhere in i128.
        let count: u128 = if end > start {
            end.abs_diff(start).div_ceil(step.unsigned_abs())
        } else {
            0
        };
        if count > MAX_UNROLL.unsigned_abs() {
            self.diags.push(
                Diagnostic::new(
                    Code::UNROLL_LIMIT,
                    for_loop.span,
                    format!(
                        "this constant-bound loop would unroll {count} times (at most {MAX_UNROLL})"
                    ),
                )
                .with_help("use runtime bounds (a symbol or parameter) for a loop the GPU runs"),
            );
            return;
        }
        if self.rolled_loop(for_loop, start, step, count as i128) {
            return;
        }
        self.unrolling.push(for_loop.span);
        for i in 0..count as i128 {
            if !self.count_statement() {
                break;
            }
            // `i * step < end - start`, so this neither overflows nor
            // leaves the range.
            let k = start + i * step;
            let body = self.nested(Vec::new(), |c| {
                c.bind(&for_loop.var, Binding::Int(Poly::constant(k)));
                c.block(&for_loop.body);
            });
            self.body.extend(body);
        }
        self.unrolling.pop();
    }

    fn runtime_loop(&mut self, for_loop: &ast::For, start: Poly, end: Poly, step: Poly) {
        let step_span = for_loop
            .step
            .as_ref()
            .map_or(for_loop.span, ast::Expr::span);
        if self.atoms.range(&step).0 < 1 {
            self.diags.push(
                Diagnostic::new(
                    Code::LOOP_STEP,
                    step_span,
                    format!(
                        "the step `{}` of this runtime loop is not provably at least 1",
                        limits::poly_text(&step, &self.atoms)
                    ),
                )
                .with_note("a step of 0 or less would never finish"),
            );
            return;
        }
        let ok = self.materialize(&start, for_loop.start.span())
            && self.materialize(&end, for_loop.end.span())
            && self.materialize(&step, step_span)
            // The variable may pass `end` by up to `step - 1` before the
            // exit test: that must fit too.
            && self.materialize(&end.add(&step), for_loop.span);
        if !ok {
            return;
        }
        let (lo, _) = self.atoms.range(&start);
        let (_, hi) = self.atoms.range(&end);
        let var = self.atoms.push(crate::sym::Atom {
            kind: crate::sym::AtomKind::LoopVar,
            name: for_loop.var.clone(),
            lo,
            hi: (hi - 1).max(lo),
        });
        if let Some(class) = self.threads().loop_class(&start, &step, &self.facts) {
            self.loop_classes.insert(var, class);
        }
        let var_poly = Poly::atom(var);
        let facts = vec![start.sub(&var_poly), var_poly.sub(&end).add_const(1)];
        let last_version = self.next_pred_version;
        let versions = self.enter_loop_pred_versions();
        // The trip count, and the variable, are as uniform as the bounds.
        let uniformity = [&start, &end, &step]
            .into_iter()
            .map(|p| self.uniformities().of_poly(p))
            .min()
            .unwrap_or(Uniformity::Grid);
        self.loop_uniformity.insert(var, uniformity);
        self.control.push(ControlFrame {
            span: for_loop.span,
            uniformity,
            what: "loop's trip count",
        });
        let body = self.nested(facts.clone(), |c| {
            c.bind(&for_loop.var, Binding::Int(Poly::atom(var)));
            c.block(&for_loop.body);
        });
        self.control.pop();
        self.leave_loop_pred_versions(versions);
        let header = LoopHeader {
            var,
            start,
            end,
            step,
        };
        self.body.push(checked::Node::Loop(checked::Loop::new(
            Some(header),
            facts,
            var,
            last_version,
            body,
        )));
    }

    fn alloc(&mut self, alloc: &ast::AllocLocal) {
        // A failed allocation still binds the name, so uses add no
        // "cannot find" errors (one mistake, one error).
        self.bind(&alloc.name, Binding::Failed);
        if alloc.shape.is_empty() {
            self.diags.push(
                Diagnostic::new(
                    Code::TILE_SHAPE,
                    alloc.span,
                    "a local tile needs at least one axis (its register axis)",
                )
                .with_help("write `alloc_local::<T>([1])` for a single register"),
            );
            return;
        }
        if alloc.space.is_shared() {
            self.alloc_shared(alloc);
            return;
        }
        let mut shape = Vec::new();
        for dim in &alloc.shape {
            match values::const_int(&dim.expr) {
                Some(v) if v >= 0 => shape.push(usize::try_from(v).unwrap_or(usize::MAX)),
                Some(_) => {
                    self.diags.error(
                        Code::TILE_SHAPE,
                        dim.span,
                        "a tile extent cannot be negative",
                    );
                    return;
                }
                None => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::NOT_CONSTANT,
                            dim.span,
                            "a tile extent must be an integer constant",
                        )
                        .with_note("tiles live in registers, which are allocated at compile time"),
                    );
                    return;
                }
            }
        }
        // A group tile: the program holds one thread's part.
        let Some(scope) = self.tile_scope(alloc.scope.as_ref()) else {
            return;
        };
        let group = self.alloc_group(scope, &shape, alloc);
        if scope != Scope::Thread && group.is_none() {
            return;
        }
        if let Some(group) = &group {
            shape.drain(..group.axes.len());
        }
        let elements = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
        if elements.is_none_or(|n| n > MAX_TILE_ELEMENTS) {
            self.diags.error(
                Code::TILE_TOO_LARGE,
                alloc.span,
                format!(
                    "local tile `{}` would hold more than {MAX_TILE_ELEMENTS} registers",
                    alloc.name
                ),
            );
            return;
        }
        let tile = Tile {
            name: alloc.name.clone(),
            dtype: alloc.dtype,
            shape,
        };
        self.bind(&alloc.name, Binding::Tile(self.tiles.len()));
        self.tiles.push(TileState {
            tile,
            group,
            span: alloc.span,
            ever_written: false,
            ever_read: false,
        });
        // Over the register budget the kernel cannot compile (`finish`
        // reports it); stop checking statements, whose cost grows with the
        // tiles' size, but keep collecting allocations for that error.
        self.tile_registers = self.tile_registers.saturating_add(budget::tile_registers(
            &self.tiles[self.tiles.len() - 1].tile,
        ));
        if budget::over_budget(self.tile_registers) {
            self.halted = true;
        }
    }

    /// `apply`'s position among the kernel's `apply`s in source order,
    /// from 1 (0 for one not in the kernel's body).
    fn statement_number(&self, apply: &ast::Apply) -> usize {
        match self.statement_number_of(std::ptr::from_ref(apply).cast()) {
            // An `apply` of an `ewise`'s expansion, or of an inlined
            // kernel function, reports as the `ewise` or the call.
            0 => self.inline_statement,
            number => number,
        }
    }

    /// Runs `f` with the `apply`s it adds reporting as the statement at
    /// `address` (an `ewise` or a kernel-function call of the kernel's
    /// body; inside an inlined function, the outer call's number stays).
    fn as_statement<T>(&mut self, address: *const (), f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.inline_statement;
        let number = self.statement_number_of(address);
        if number != 0 {
            self.inline_statement = number;
        }
        let result = f(self);
        self.inline_statement = outer;
        result
    }

    /// The number of the statement at `address` (0 if it is not one of
    /// the kernel's).
    fn statement_number_of(&self, address: *const ()) -> usize {
        self.apply_numbers.get(&address).copied().unwrap_or(0)
    }

    fn apply(&mut self, apply: &ast::Apply) {
        let errors = self.diags.len();
        let half = self.cluster_barrier_half(&apply.opcode);
        if half.is_none() && self.cluster_arrive.is_some() && self.orders_or_accesses(apply) {
            self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_BARRIER_PAIRING,
                    apply.opcode_span,
                    format!("`{}` runs between `barrier.cluster.arrive` and its `barrier.cluster.wait`", apply.opcode),
                )
                .with_note("an access after a thread's arrival is not ordered before other threads' accesses after the wait: between the two halves a kernel may only compute in registers")
                .with_help("move it before the arrive or after the wait"),
            );
        }
        self.apply_statement(apply);
        // A CTA barrier ends an epoch of the shared race analysis, also
        // when the statement was rejected (its error is the one to fix:
        // no follow-up races from a barrier that did not count). A barrier
        // under a `pred` (uniform, else rejected) may not run at all: like
        // a barrier in one arm of an `if`, it ends no epoch.
        let rejected = self.diags.len() > errors;
        if let Some(half) = half {
            self.cluster_barrier(apply, half, rejected);
        }
        if self.names_cta_barrier(&apply.opcode) && (apply.pred.is_none() || rejected) {
            self.body.push(checked::Node::CtaBarrier {
                cluster: half == Some(true),
            });
        }
    }

    /// Which half of the cluster barrier `opcode` is (`Some(true)`: the
    /// wait), if it is one.
    fn cluster_barrier_half(&mut self, opcode: &str) -> Option<bool> {
        let candidates = self.resolved(opcode).as_ref().ok()?;
        let form = candidates.first()?;
        (form.form.mnemonic == "barrier" && form.get(crate::ptx::Slot::Scope) == Some("cluster"))
            .then(|| form.effect() == crate::ptx::Effect::Barrier { waits: true })
    }

    /// Whether `apply` accesses memory, orders it or synchronizes (what may
    /// not come between the halves of a cluster barrier: a fence there,
    /// say a `fence.proxy.async` after the arrival, is not released by it).
    fn orders_or_accesses(&mut self, apply: &ast::Apply) -> bool {
        if apply.operands.iter().any(|op| self.names_memory(op)) {
            return true;
        }
        self.resolved(&apply.opcode)
            .as_ref()
            .is_ok_and(|candidates| {
                candidates.iter().any(|m| {
                    use crate::ptx::Effect;
                    matches!(
                        m.effect(),
                        Effect::Barrier { .. }
                            | Effect::Fence
                            | Effect::Mbarrier
                            | Effect::AsyncCopy
                            | Effect::AsyncGroup
                            | Effect::WarpgroupMma
                    )
                })
            })
    }

    /// The pairing of the cluster barrier's halves (TK0429): each
    /// `barrier.cluster.wait` follows a `barrier.cluster.arrive` of the same
    /// block with only register work between, and neither runs under a
    /// `pred`. So every thread's arrivals and waits alternate (a wait
    /// without an arrival would never complete), and the wait ends an epoch
    /// of the race rule like a CTA barrier: what a thread did before its
    /// arrival is ordered before what any thread does after its wait.
    /// `rejected`: the statement had an error of its own (the pairing is
    /// still followed, not reported).
    fn cluster_barrier(&mut self, apply: &ast::Apply, wait: bool, rejected: bool) {
        if let Some(pred) = apply.pred.as_ref().filter(|_| !rejected) {
            self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_BARRIER_PAIRING,
                    pred.span(),
                    format!("`{}` runs under a `pred`: a half of the cluster barrier runs in every thread of the cluster, unconditionally", apply.opcode),
                )
                .with_help("remove the `pred`, or put both halves inside an `if` whose condition is the same for the whole cluster"),
            );
        }
        let pending = if wait {
            self.cluster_arrive.take()
        } else {
            self.cluster_arrive.replace(apply.opcode_span)
        };
        let orphan = std::mem::take(&mut self.cluster_arrive_unpaired);
        if rejected || (wait && pending.is_none() && orphan) {
            return;
        }
        match (wait, pending) {
            (true, None) => self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_BARRIER_PAIRING,
                    apply.opcode_span,
                    "this `barrier.cluster.wait` has no `barrier.cluster.arrive` before it in its block: the thread never arrives, so the barrier never completes",
                )
                .with_help("put `apply(ptx[\"barrier.cluster.arrive\"], scope = \"cluster\");` before it, in the same block"),
            ),
            (false, Some(_)) => self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_BARRIER_PAIRING,
                    apply.opcode_span,
                    "a second `barrier.cluster.arrive` before the first one's `barrier.cluster.wait`: a thread arrives once per phase",
                )
                .with_help("put `apply(ptx[\"barrier.cluster.wait\"], scope = \"cluster\");` between the two"),
            ),
            _ => {}
        }
    }

    /// TK0429 at a `barrier.cluster.arrive` whose wait does not follow in
    /// its block (`why`: what comes first).
    fn unpaired_cluster_arrive(&mut self, arrive: SpanId, why: &str) {
        self.cluster_arrive_unpaired = true;
        self.diags.push(
            Diagnostic::new(
                Code::CLUSTER_BARRIER_PAIRING,
                arrive,
                format!("this `barrier.cluster.arrive` needs its `barrier.cluster.wait` later in the same block, but {why}"),
            )
            .with_help("put `apply(ptx[\"barrier.cluster.wait\"], scope = \"cluster\");` after it, before the block ends"),
        );
    }

    /// Whether an operand names a tensor parameter or a shared buffer (or
    /// a view of one), not a tile.
    fn names_memory(&self, operand: &ast::Operand) -> bool {
        let ast::Operand::Place(place) = operand else {
            return false;
        };
        match self.lookup(&place.base) {
            Some(Binding::Shared(_) | Binding::Param(_)) => true,
            Some(Binding::View(view)) => matches!(view.base, ViewBase::Memory(_)),
            _ => false,
        }
    }

    /// Whether `opcode` names a waiting barrier of the CTA (`bar.sync`,
    /// `barrier.red`, .., and `barrier.cluster.wait`, whose threads include
    /// the CTA's).
    fn names_cta_barrier(&mut self, opcode: &str) -> bool {
        self.resolved(opcode).as_ref().is_ok_and(|candidates| {
            candidates
                .iter()
                .any(|m| m.effect() == crate::ptx::Effect::Barrier { waits: true })
        })
    }

    /// Rule 1: the forms `opcode` names ([`ResolvedOpcode`]).
    fn resolved(&mut self, opcode: &str) -> &Result<Vec<Modifiers>, crate::ptx::OpcodeError> {
        &self.resolved_opcode(opcode).forms
    }

    /// What the spelling `opcode` resolves to, worked out on its first use.
    fn resolved_opcode(&mut self, opcode: &str) -> &ResolvedOpcode {
        if !self.opcodes.contains_key(opcode) {
            let resolved = ResolvedOpcode {
                forms: resolve(opcode),
                descriptors: crate::ptx::resolve::descriptor_operands(opcode),
            };
            self.opcodes.insert(opcode.to_string(), resolved);
        }
        &self.opcodes[opcode]
    }

    fn apply_statement(&mut self, apply: &ast::Apply) {
        self.current_statement = self.statement_number(apply);
        let scope = self.scope_of(apply.scope.as_ref());
        // Resolve operands first so name and view errors are reported even
        // when the opcode is wrong. (With an unknown scope, as per thread.)
        // (A cluster's threads share no tiles: its operands are per thread.)
        let operand_scope = match scope {
            Some(Scope::Cluster) | None => Scope::Thread,
            Some(scope) => scope,
        };
        let before_operands = self.diags.len();
        // A descriptor operand (`wgmma`'s shared matrices) is a whole view
        // the warpgroup reads together, not one part per thread.
        let descriptors = self.resolved_opcode(&apply.opcode).descriptors.clone();
        let values: Vec<Option<Value>> = apply
            .operands
            .iter()
            .enumerate()
            .map(|(i, op)| {
                let scope = if descriptors.contains(&i) && self.names_memory(op) {
                    Scope::Thread
                } else {
                    operand_scope
                };
                self.operand_value(op, scope)
            })
            .collect();
        let guard = match &apply.pred {
            None => Some(Cond::Const(true)),
            Some(pred) => self.eval_bool(pred, "`pred`"),
        };
        let Some(scope) = scope else {
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        };

        // Rule 1: the opcode names legal forms.
        let candidates = match self.resolved(&apply.opcode).clone() {
            Ok(candidates) => candidates,
            Err(err) => {
                let mut diag = Diagnostic::new(err.code, apply.opcode_span, err.message);
                diag.help = err.help;
                diag.notes = err.notes;
                self.diags.push(diag);
                self.note_guessed_memory_writes(&apply.opcode, &values);
                self.mark_destinations_written_best_effort(values.iter().flatten());
                return;
            }
        };
        // Forms the language cannot use yet: one error naming what is
        // missing, whatever the operands.
        // Warp collectives are usable in warp scope.
        // Each candidate's usability, computed once.
        let (usable, unusable): (Vec<_>, Vec<_>) = candidates
            .into_iter()
            .map(|m| {
                let usability = m.usability();
                (m, usability)
            })
            .partition(|(_, usability)| match usability {
                Usability::Yes => true,
                Usability::NeedsScope => scope == Scope::Warp,
                Usability::CtaBarrier => scope == Scope::Cta,
                Usability::Warpgroup => scope == Scope::Warpgroup,
                Usability::ClusterBarrier => scope == Scope::Cluster,
                Usability::NotYet(_) => false,
            });
        if usable.is_empty()
            && let Some((_, usability)) = unusable.first()
            && let Some((what, own)) = match usability {
                Usability::NeedsScope => Some((
                    "a warp collective: the 32 lanes of a warp execute it together",
                    "warp",
                )),
                Usability::CtaBarrier => Some((
                    "a CTA barrier: every thread of the CTA executes it together",
                    "cta",
                )),
                Usability::Warpgroup => Some((
                    "a warpgroup collective: the 128 threads of a warpgroup execute it together",
                    "warpgroup",
                )),
                Usability::ClusterBarrier => Some((
                    "half of the cluster barrier: every thread of the cluster executes it",
                    "cluster",
                )),
                _ => None,
            }
        {
            let at = apply
                .scope
                .as_ref()
                .map_or(apply.opcode_span, |(_, span)| *span);
            let given = match &apply.scope {
                Some(_) => format!(", not `scope = \"{}\"`", scope.name()),
                None => String::new(),
            };
            let mut diag = Diagnostic::new(
                Code::COLLECTIVE_SCOPE,
                at,
                format!(
                    "`{}` is {what}, so its `apply` needs `scope = \"{own}\"`{given}",
                    apply.opcode
                ),
            );
            if own == "warp" {
                diag = diag.with_note("in a warp-scope `apply` every tile operand is a warp tile, `alloc_local::<T>([32, ..], scope = \"warp\")`; lane `l` issues the instruction on its part `[l, ..]`");
            }
            // Group tiles of the collective's own scope were the right
            // operands: the missing scope is the one mistake.
            if apply.scope.is_none() {
                self.diags.drop_from(before_operands, Code::SCOPE_MISMATCH);
            }
            self.diags
                .push(diag.with_help(format!("add `scope = \"{own}\"` to the `apply`")));
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        }
        if usable.is_empty()
            && let Some((_, usability)) = unusable.first()
        {
            let needs = match usability {
                Usability::NotYet(what) => what.to_string(),
                Usability::Yes
                | Usability::NeedsScope
                | Usability::CtaBarrier
                | Usability::Warpgroup
                | Usability::ClusterBarrier => String::new(),
            };
            self.diags.push(
                Diagnostic::new(
                    Code::FORM_NOT_USABLE,
                    apply.opcode_span,
                    format!("`{}` is a valid PTX instruction, but kernels cannot use it yet: it needs {needs}", apply.opcode),
                )
                .with_note("`docs/ptx-table.md` lists which forms kernels can use"),
            );
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        }
        let (candidates, usabilities): (Vec<Modifiers>, Vec<Usability>) =
            usable.into_iter().unzip();
        if scope == Scope::Cluster && !usabilities.contains(&Usability::ClusterBarrier) {
            let at = apply
                .scope
                .as_ref()
                .map_or(apply.opcode_span, |(_, span)| *span);
            self.diags.push(
                Diagnostic::new(
                    Code::UNKNOWN_SCOPE,
                    at,
                    format!("`scope = \"cluster\"` is the scope of the cluster barrier's halves only (`barrier.cluster.arrive`, `barrier.cluster.wait`), not of `{}`", apply.opcode),
                )
                .with_help("remove `scope = \"cluster\"`, or name a scope whose threads share the operands: \"warp\", \"warpgroup\" or \"cta\""),
            );
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        }
        // An mbarrier form's leading `state` or `done` is the compiler's.
        let with_implicit;
        let (apply, values) = match self.implicit_destination(apply, &candidates, &values) {
            Err(()) => {
                self.mark_destinations_written_best_effort(values.iter().flatten());
                return;
            }
            Ok(None) => (apply, values),
            Ok(Some(implicit)) => {
                let mut owned = apply.clone();
                owned.operands.insert(
                    0,
                    ast::Operand::Literal(ast::Literal {
                        value: LiteralValue::Int(0),
                        span: apply.opcode_span,
                    }),
                );
                with_implicit = owned;
                let mut values = values;
                values.insert(0, Some(Value::Implicit(implicit)));
                (&with_implicit, values)
            }
        };
        // A collective's member mask comes from the scope: the whole warp
        // (whose lanes all run it: see `crate::prove::convergence`).
        let collective = usabilities.iter().any(|u| {
            matches!(
                u,
                Usability::NeedsScope
                    | Usability::CtaBarrier
                    | Usability::Warpgroup
                    | Usability::ClusterBarrier
            )
        });
        let warpgroup = usabilities.contains(&Usability::Warpgroup);
        let barrier = usabilities.contains(&Usability::CtaBarrier);
        let cluster_barrier = usabilities.contains(&Usability::ClusterBarrier);
        let with_mask;
        let (apply, values) = if collective {
            let masked = candidates.iter().all(|m| {
                m.form
                    .operands
                    .last()
                    .is_some_and(|slot| slot.name == "membermask")
            });
            // Given explicitly: no candidate takes one operand more than
            // written (`shfl.sync d, a, b, c` and `d|p, a, b, c` differ in
            // count).
            let given = masked
                && !candidates
                    .iter()
                    .any(|m| m.form.operands.len() == values.len() + 1)
                && candidates
                    .iter()
                    .any(|m| m.form.operands.len() == values.len());
            if given {
                let span = apply.operands.last().map_or(apply.span, ast::Operand::span);
                self.diags.push(
                    Diagnostic::new(
                        Code::MEMBERMASK_GIVEN,
                        span,
                        format!("the member mask of `{}` comes from the scope; remove this operand", apply.opcode),
                    )
                    .with_note("in a warp-scope `apply` every lane of the warp takes part: the compiler passes the full mask 0xffffffff"),
                );
                self.mark_destinations_written_best_effort(values.iter().flatten());
                return;
            }
            let collective = convergence::Collective {
                opcode: &apply.opcode,
                scope,
                guard: guard.as_ref().unwrap_or(&Cond::Const(true)),
                guard_span: apply.pred.as_ref().map_or(apply.span, ast::Expr::span),
                what: if barrier {
                    "a CTA barrier"
                } else if cluster_barrier {
                    "half of the cluster barrier"
                } else if warpgroup {
                    "a warpgroup collective"
                } else {
                    "a warp collective"
                },
            };
            if let Some(diag) = convergence::prove(&collective, &self.control, &self.uniformities())
            {
                // Two collectives under one divergent `if`: its one error.
                if !self.diags.reported_at(diag.code, diag.span) {
                    self.diags.push(diag);
                }
                self.mark_destinations_written_best_effort(values.iter().flatten());
                return;
            }
            let mut values = values;
            let mut owned = apply.clone();
            if masked {
                let span = apply.scope.as_ref().map_or(apply.span, |(_, span)| *span);
                owned.operands.push(ast::Operand::Literal(ast::Literal {
                    value: LiteralValue::Int(0xffff_ffff),
                    span,
                }));
                values.push(Some(Value::Literal(LiteralValue::Int(0xffff_ffff))));
            }
            with_mask = owned;
            (&with_mask, values)
        } else {
            (apply, values)
        };
        if values.iter().any(Option::is_none) || guard.is_none() {
            self.mark_destinations_written_best_effort(values.iter().flatten());
            return;
        }
        let values: Vec<Value> = values.into_iter().flatten().collect();
        let Some(guard) = guard else { return };

        // Rules 2-7: the form whose rules hold for the operands; when none
        // does, the mistake is explained with the nearest form
        // (`form_choice`).
        let mut chosen: Option<(Modifiers, Vec<Diagnostic>)> = None;
        let mut nearest: Option<(form_choice::Distance, Modifiers)> = None;
        for candidate in candidates {
            let errors = self.operand_errors(apply, &candidate, &values);
            if errors.is_empty() {
                chosen = Some((candidate, errors));
                break;
            }
            let distance = form_choice::distance(&candidate, &values);
            if nearest.as_ref().is_none_or(|(d, _)| distance < *d) {
                nearest = Some((distance, candidate));
            }
        }
        let chosen = chosen.or_else(|| {
            nearest.map(|(_, form)| {
                let errors = self.operand_errors(apply, &form, &values);
                (form, errors)
            })
        });
        let Some((form, errors)) = chosen else {
            return;
        };
        let slots = form.operands();
        self.note_memory_writes(&slots, &values);
        if !errors.is_empty() {
            for diag in errors {
                self.diags.push(diag);
            }
            self.mark_destinations_written_best_effort(&values);
            return;
        }

        // Target requirement of this variant.
        let requirement = form.requirement(self.kernel.target);
        if !requirement.is_met_by(self.kernel.target) {
            self.diags.push(
                Diagnostic::new(
                    Code::TARGET_TOO_OLD,
                    apply.opcode_span,
                    format!(
                        "`{}` requires {} (PTX ISA {}), but this kernel targets {}",
                        apply.opcode,
                        requirement.targets_text(),
                        requirement.ptx,
                        self.kernel.target
                    ),
                )
                .with_help(format!(
                    "raise the target with `#[tile_kernel(arch = \"{}\", ..)]`",
                    requirement.floor_target()
                )),
            );
            // Rule 11: no "never written" follow-ups from this statement.
            self.mark_destinations_written_best_effort(&values);
            return;
        }
        self.requirement = self.requirement.max(requirement);

        self.check_preserve_dst(apply, &slots, &values);
        let Some((form, source_bytes)) = self.zero_fill_form(apply, form, &values) else {
            self.mark_destinations_written_best_effort(&values);
            return;
        };
        let slots = form.operands();
        // A tensor map's box has no bounds: the hardware clips it to the
        // tensor (`tensor_maps`).
        let mut values = values;
        for (slot, value) in slots.iter().zip(values.iter_mut()) {
            if slot.kind == crate::ptx::OperandKind::TensorCoords
                && let Value::Memory { bounds, .. } = value
            {
                bounds.clear();
            }
        }
        self.add_apply(apply, &form, &slots, values, guard, source_bytes);
    }

    /// The leading destination the compiler supplies to an mbarrier form
    /// written without it: the sink `_` for an arrive's `state`, a retry
    /// loop for a `try_wait`'s `done`. `Err`: a `done` written by the user
    /// (reported): the checker follows only the blocking wait.
    fn implicit_destination(
        &mut self,
        apply: &ast::Apply,
        candidates: &[Modifiers],
        values: &[Option<Value>],
    ) -> Result<Option<crate::checked::Implicit>, ()> {
        use crate::checked::Implicit;
        // The slots' names, kinds and accesses: no types to resolve.
        let leading = |m: &Modifiers| {
            let first = m.form.operands.first()?;
            match (m.effect(), first.name, first.kind) {
                (crate::ptx::Effect::Mbarrier, "state", crate::ptx::OperandKind::Register)
                    if first.access == Access::Write =>
                {
                    Some(Implicit::Sink)
                }
                (crate::ptx::Effect::Mbarrier, "done", crate::ptx::OperandKind::Predicate) => {
                    Some(Implicit::RetryUntilDone)
                }
                _ => None,
            }
        };
        // A leading destination is written as a tile; the barrier (the
        // first operand otherwise) is a shared buffer.
        let given = matches!(values.first(), Some(Some(Value::Local { .. })));
        let waits = candidates
            .iter()
            .any(|m| leading(m) == Some(Implicit::RetryUntilDone));
        if waits && given {
            let span = apply
                .operands
                .first()
                .map_or(apply.opcode_span, ast::Operand::span);
            self.diags.push(
                Diagnostic::new(
                    Code::WAIT_PREDICATE_GIVEN,
                    span,
                    format!(
                        "the `done` predicate of `{}` is the compiler's: the wait loops until the phase has completed",
                        apply.opcode
                    ),
                )
                .with_help("remove this operand: `apply(ptx[\"mbarrier.try_wait.parity.shared::cta.b64\"], bar, parity)` blocks until the phase of that parity has completed"),
            );
            return Err(());
        }
        let sink_only = |m: &Modifiers| {
            m.form.operands.first().is_some_and(|first| first.sink_only)
                && m.form.operands.len() == values.len()
        };
        if given && candidates.iter().any(sink_only) {
            let span = apply
                .operands
                .first()
                .map_or(apply.opcode_span, ast::Operand::span);
            self.diags.push(
                Diagnostic::new(
                    Code::SINK_ONLY_GIVEN,
                    span,
                    format!(
                        "`{}` takes no destination: its `state` is the sink `_`, which the compiler writes",
                        apply.opcode
                    ),
                )
                .with_help("remove this operand: the arrive's only operand is the mbarrier object"),
            );
            return Err(());
        }
        if given {
            return Ok(None);
        }
        Ok(candidates
            .iter()
            .filter(|m| m.form.operands.len() == values.len() + 1)
            .find_map(leading))
    }

    /// Rule 9: `preserve_dst = true` keeps an old value, so it needs `pred`
    /// and a register destination that was written before.
    fn check_preserve_dst(
        &mut self,
        apply: &ast::Apply,
        slots: &[ResolvedOperand],
        values: &[Value],
    ) {
        let Some((true, span)) = apply.preserve_dst else {
            return;
        };
        if apply.pred.is_none() {
            self.diags.push(
                Diagnostic::new(Code::PRESERVE_DST_WITHOUT_PRED, span, "`preserve_dst = true` needs `pred = ..`: without a predicate the destination is always written")
                    .with_help("add `pred = <bool parameter>` or remove `preserve_dst`"),
            );
            return;
        }
        let destination = slots
            .iter()
            .zip(values)
            .find(|(slot, _)| slot.access == Access::Write && slot.kind == OperandKind::Register);
        let Some((_, Value::Local { .. })) = destination else {
            self.diags.error(Code::PRESERVE_DST_MEMORY, span, format!("`preserve_dst = true` needs a register destination, but `{}` writes only memory", apply.opcode));
            return;
        };
        // Whether the old value was written is the register obligation's
        // to prove (`crate::prove::registers`).
    }

    /// Records which tensor parameters the kernel stores into.
    fn note_memory_writes(&mut self, slots: &[ResolvedOperand], values: &[Value]) {
        for (slot, value) in slots.iter().zip(values) {
            if let (Access::Write, Value::Memory { buffer, .. }) = (slot.access, value)
                && let Some(param) = buffer.param()
            {
                self.mark_tensor_written(param);
            }
        }
    }

    /// The launcher will take this tensor parameter `&mut`.
    fn mark_tensor_written(&mut self, param: usize) {
        if let ParamKind::Tensor { borrow, .. } = &mut self.params[param].kind {
            *borrow = Borrow::Exclusive;
        }
    }

    /// For a misspelled opcode, still mark the tensors its mnemonic would
    /// store into (every form of `st` writes operand 0), so the fallback
    /// launcher keeps `&mut` there and correct callers see no type errors.
    fn note_guessed_memory_writes(&mut self, opcode: &str, values: &[Option<Value>]) {
        let mnemonic = opcode.split('.').next().unwrap_or_default();
        let forms: Vec<_> = FORMS.iter().filter(|f| f.mnemonic == mnemonic).collect();
        if forms.is_empty() {
            return;
        }
        for (position, value) in values.iter().enumerate() {
            let always_stored = forms.iter().all(|f| {
                f.operands
                    .get(position)
                    .is_some_and(|o| o.access == Access::Write && o.kind == OperandKind::Address)
            });
            if let (true, Some(Value::Memory { buffer, .. })) = (always_stored, value)
                && let Some(param) = buffer.param()
            {
                self.mark_tensor_written(param);
            }
        }
    }

    /// After an erroneous statement, treat every local operand as written so
    /// one mistake does not cascade into "never written" errors later.
    fn mark_destinations_written_best_effort<'v>(
        &mut self,
        values: impl IntoIterator<Item = &'v Value>,
    ) {
        let mut lanes = Vec::new();
        for value in values {
            if let Value::Local { tile, layout, .. } = value {
                let size = layout.dtype.size_bytes();
                for_each_element(layout, |offset| {
                    lanes.push(Lane {
                        tile: *tile,
                        byte_offset: offset,
                        bytes: size,
                    });
                });
            }
        }
        // Also without lanes: the proofs learn that a statement failed
        // here (a rejected copy may be what a phase is short of).
        self.body.push(checked::Node::Havoc(lanes));
    }

    /// A tile counts as written on every path from here (after an error
    /// that concerns it: one mistake, one error).
    pub(super) fn havoc_tile(&mut self, tile: usize) {
        let t = &self.tiles[tile].tile;
        self.body.push(checked::Node::Havoc(vec![Lane {
            tile,
            byte_offset: 0,
            bytes: t.registers() * t.dtype.size_bytes(),
        }]));
    }

    /// What the race proofs read about the launch.
    fn uniformities(&self) -> Uniformities<'_> {
        Uniformities {
            atoms: &self.atoms,
            block: self.kernel.launch.block,
            loops: &self.loop_uniformity,
        }
    }

    fn threads(&self) -> Threads<'_> {
        Threads::new(&self.atoms, &self.launch, &self.loop_classes)
    }

    /// The id the next atom will get.
    fn next_atom(&self) -> crate::sym::AtomId {
        crate::sym::AtomId::try_from(self.atoms.len()).unwrap_or(crate::sym::AtomId::MAX)
    }

    /// The whole-kernel obligations, then the program of a legal kernel,
    /// and `then(program)`: for a large kernel with no error before the
    /// proofs, the lowering and `then` run beside the proofs (what a
    /// proof rejects is thrown away), so the expansion waits for the
    /// slowest proof, not for the proofs and then the emission.
    fn finish<T: Send>(
        mut self,
        mut then: Option<impl FnOnce(&Program) -> T + Send>,
    ) -> (Checked, Option<T>) {
        if let Some(arrive) = self.cluster_arrive.take() {
            self.unpaired_cluster_arrive(arrive, "the kernel ends first");
        }
        let shared_names: Vec<String> = self.shared.iter().map(|s| s.buffer.name.clone()).collect();
        let param_names: Vec<String> = self.params.iter().map(|p| p.name.clone()).collect();
        let mbarriers: Vec<Option<i128>> = self
            .shared
            .iter()
            .map(|s| {
                s.buffer
                    .mbarrier
                    .then(|| s.buffer.static_bytes().map(|b| (b / 8) as i128))
                    .flatten()
            })
            .collect();
        // Where the CTA's own shared accesses land among a cluster's copies.
        let cluster_rank = self.launch.clustered().then(|| self.cluster_rank());
        let tiles: Vec<Tile> = self.tiles.iter().map(|t| t.tile.clone()).collect();
        // The register count a `setmaxnreg` kernel states at entry is part
        // of the program: proven first (it is quick), so that a program
        // lowered beside the other proofs is the final one.
        let (pool, max_registers) = register_pool::prove(
            &self.body,
            &register_pool::Context {
                threads: &Threads::new(&self.atoms, &self.launch, &self.loop_classes),
                loop_uniformity: &self.loop_uniformity,
            },
        );
        self.launch.max_registers = max_registers;
        // The obligations read the checked kernel and nothing else of the
        // checker: a large kernel proves them on threads of their own, and
        // lowers it beside them.
        let parallel =
            checked::statement_count(&self.body) >= crate::parallel::PARALLEL_FROM_STATEMENTS;
        let legal_so_far = self.diags.is_empty() && pool.is_empty() && !self.unparsed_params;
        let speculative = (parallel && legal_so_far).then(|| (self.declarations(), then.take()));
        let (body, atoms, launch, facts) = (&self.body, &self.atoms, &self.launch, &self.facts);
        let (params, loop_classes) = (&self.params, &self.loop_classes);
        let loop_uniformity = &self.loop_uniformity;
        let halted = self.halted;
        let (undefined, (ownership, (races, lowered))) = crate::parallel::join(
            parallel,
            // The register obligation over the recorded flow: every value
            // an effect observes is defined. Statements after a halt were
            // not recorded: their reads are not checked. The facts are
            // those of the launch shape (`cta_id(0) < grid_dim(0)`), what
            // is left in scope at the end of the body.
            || {
                if halted {
                    Vec::new()
                } else {
                    registers::prove(body, &tiles, atoms, facts, &param_names)
                }
            },
            || {
                crate::parallel::join(
                    parallel,
                    || {
                        let limit_hits = async_copies::loops_walked_to_the_limit();
                        let threads = Threads::new(atoms, launch, loop_classes);
                        let cluster_rings = crate::prove::cluster_rings::prove(
                            body,
                            &crate::prove::cluster_rings::Context {
                                atoms,
                                cluster: launch.cluster,
                                shared_names: &shared_names,
                            },
                        );
                        // The ring walk counts for every CTA what one does:
                        // only where they all run the ring alike.
                        let ownership = if cluster_rings.is_empty() {
                            async_copies::prove(
                                body,
                                &async_copies::Context {
                                    threads: &threads,
                                    shared_names: &shared_names,
                                    param_names: &param_names,
                                    mbarriers: &mbarriers,
                                    loop_uniformity,
                                },
                            )
                        } else {
                            cluster_rings
                        };
                        let limit_hits = async_copies::loops_walked_to_the_limit() - limit_hits;
                        (ownership, limit_hits)
                    },
                    || {
                        crate::parallel::join(
                            parallel,
                            || {
                                let threads = Threads::new(atoms, launch, loop_classes);
                                races::prove(
                                    body,
                                    &races::Context {
                                        threads: &threads,
                                        params,
                                        shared_names: &shared_names,
                                        cluster_rank: cluster_rank.as_ref(),
                                        kernel_facts: facts,
                                    },
                                )
                            },
                            || {
                                speculative.map(|(declarations, then)| {
                                    lower_then(declarations, body, then)
                                })
                            },
                        )
                    },
                )
            },
        );
        let (ownership, limit_hits) = ownership;
        // The count is per thread: the walk's thread hands it to this one.
        async_copies::count_walked_to_the_limit(limit_hits);
        for diag in undefined {
            self.diags.push(diag);
        }
        for diag in races.into_iter().chain(ownership).chain(pool) {
            self.diags.push(diag);
        }
        let tiles: Vec<(&Tile, SpanId)> = self.tiles.iter().map(|t| (&t.tile, t.span)).collect();
        if let Some(diag) = budget::prove(&tiles, self.kernel.name_span) {
            self.diags.push(diag);
        }
        self.check_unread_tiles();
        let param_writes = self
            .params
            .iter()
            .map(|p| {
                matches!(
                    p.kind,
                    ParamKind::Tensor {
                        borrow: Borrow::Exclusive,
                        ..
                    }
                )
            })
            .collect();
        if !self.diags.is_empty() || self.unparsed_params {
            let checked = Checked {
                program: None,
                diagnostics: dedup(self.diags.into_vec()),
                param_writes,
            };
            return (checked, None);
        }
        let (program, made) = match lowered {
            Some(lowered) => lowered,
            None => lower_then(self.take_declarations(), &self.body, then),
        };
        let checked = Checked {
            program: Some(program),
            diagnostics: Vec::new(),
            param_writes,
        };
        (checked, made)
    }

    /// The program's declarations (everything but its body and tensor
    /// maps, which lowering adds), as the checker leaves them: a copy, for
    /// the lowering beside the proofs (which read the checker's).
    fn declarations(&self) -> Program {
        Program {
            params: self.params.clone(),
            symbols: self.symbols.iter().map(|s| s.symbol.clone()).collect(),
            atoms: self.atoms.clone(),
            tiles: self.tiles.iter().map(|t| t.tile.clone()).collect(),
            shared: self.shared.iter().map(|s| s.buffer.clone()).collect(),
            ..self.program_header()
        }
    }

    /// [`Checker::declarations`], moved out of the checker (once its
    /// proofs are done: the lowering after them).
    fn take_declarations(&mut self) -> Program {
        Program {
            params: std::mem::take(&mut self.params),
            symbols: std::mem::take(&mut self.symbols)
                .into_iter()
                .map(|s| s.symbol)
                .collect(),
            atoms: std::mem::take(&mut self.atoms),
            tiles: std::mem::take(&mut self.tiles)
                .into_iter()
                .map(|t| t.tile)
                .collect(),
            shared: std::mem::take(&mut self.shared)
                .into_iter()
                .map(|s| s.buffer)
                .collect(),
            ..self.program_header()
        }
    }

    /// A program with the kernel's name, target, PTX version and launch,
    /// and nothing declared yet.
    fn program_header(&self) -> Program {
        let target = self.kernel.target;
        let base = target
            .min_ptx_version()
            .unwrap_or(crate::target::PtxVersion::new(7, 8));
        Program {
            name: self.kernel.name.clone(),
            target,
            ptx_version: base.max(self.requirement.ptx),
            launch: self.launch.clone(),
            params: Vec::new(),
            symbols: Vec::new(),
            atoms: Atoms::default(),
            tiles: Vec::new(),
            shared: Vec::new(),
            tensor_maps: Vec::new(),
            body: Vec::new(),
        }
    }
}

impl Checker<'_> {
    /// A tile that some statement writes but no statement reads (no byte of
    /// it, on any path, directly or through a view) holds dead values: the
    /// kernel computes something it never uses, almost always a forgotten
    /// store. A lint ([`Code::is_lint`]): checked only when the kernel has
    /// no other error, since a failed, unreadable or skipped statement may
    /// be the missing read.
    fn check_unread_tiles(&mut self) {
        if !self.diags.is_empty() || self.unparsed_params || self.invalid_statements {
            return;
        }
        for state in &self.tiles {
            if !state.ever_written || state.ever_read {
                continue;
            }
            let name = &state.tile.name;
            self.diags.push(
                Diagnostic::new(
                    Code::UNREAD_TILE,
                    state.span,
                    format!("tile `{name}` is written but never read"),
                )
                .with_note(format!(
                    "no statement reads any element of `{name}`, directly or through a view, on any path: the instructions that write it compute nothing the kernel uses"
                ))
                .with_help("remove it, or store it with `st.global`"),
            );
        }
    }
}

/// Whether registers of a tile of `dtype` carry versions: predicates (for
/// conditions) and the integers an index may read ([`crate::sym::AtomKind::Register`]).
pub(super) fn versioned(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::I8 | DType::I16 | DType::I32
    )
}

/// Unrolled loop bodies are checked once per iteration: report each
/// distinct problem once.
fn dedup(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    diags
        .into_iter()
        .filter(|d| seen.insert((d.span, d.message.clone())))
        .collect()
}

/// Calls `f` with the byte offset of each element of `layout`.
fn for_each_element(layout: &StaticLayout, mut f: impl FnMut(usize)) {
    let mut index = vec![0usize; layout.shape.len()];
    for _ in 0..layout.len() {
        f(layout.byte_offset(&index));
        checked::advance(&mut index, &layout.shape);
    }
}

// Last in the file: `ui-tests/tests/catalogue.rs` reads each source file up
// to its first `#[cfg(test)]`.
#[cfg(test)]
mod tests;
