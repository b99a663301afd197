//! The checked kernel: what semantic analysis (`sema`) resolved, between
//! it and the proofs (`prove`) and lowering (`lower`).
//!
//! **Input**: built by the checker's walk, one [`Node`] per statement that
//! passed the rules of its kind (names, views, opcode, form choice, rules
//! 1-7), and a node for each runtime `if` and loop around them.
//! **Guarantee**: every [`Apply`] names one table form ([`Apply::form`])
//! whose operand kinds, widths and repeat shapes its operands meet; each
//! operand is a register layout, memory of one space with its view and
//! bounds, a scalar, a literal or a special register; the apply carries the
//! guard it runs under, the facts in scope there and, per repeat coordinate,
//! the register bytes it reads and writes. Unrolled loops are unrolled;
//! statements that failed are [`Node::Havoc`], so the proofs see what they
//! would have written and add no follow-up errors.
//!
//! What is still to prove about it is [`crate::prove::Obligation`]'s list.

use std::collections::BTreeSet;

use crate::ast::LiteralValue;
use crate::diag::SpanId;
use crate::dtype::DType;
use crate::layout::{Bound, Layout, StaticLayout, shape_text};
use crate::memory::Buffer;
use crate::program::{Cond, Lane};
use crate::ptx::Modifiers;
use crate::ptx::form::ResolvedOperand;
use crate::sym::{AtomId, Fact, Poly};

/// A kernel body, in program order.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Apply(Apply),
    /// Compute a [`crate::sym::AtomKind::Computed`] atom here.
    Define(AtomId),
    /// A runtime `if` (`cond: None`: its condition failed to check, and
    /// either arm may run; a constant condition is kept, and lowering keeps
    /// only the arm that runs).
    If {
        cond: Option<Cond>,
        then: Vec<Node>,
        otherwise: Vec<Node>,
    },
    /// A runtime loop: its body runs zero or more times, with `facts` (the
    /// loop variable's range) in scope.
    Loop(Loop),
    /// A statement that failed to check (already reported): what it names
    /// counts as written on every path, so one mistake adds no follow-up
    /// "never written" errors.
    Havoc(Vec<Lane>),
    /// A condition (`if`, `pred`, a `bool` `let`) reads a predicate
    /// register here.
    CondRead(CondRead),
    /// Every thread of the CTA waits at a barrier here: a CTA barrier
    /// statement without a `pred` (its [`Apply`] comes just before), or
    /// one that was rejected (its error is the one to fix: it still counts,
    /// so no race is reported that the barrier would have prevented). Ends
    /// an epoch of the shared race obligation; lowering emits nothing.
    /// `cluster`: the barrier is a `barrier.cluster.wait` (after its
    /// arrive): every thread of the cluster waits here, which also ends an
    /// epoch of the buffers other CTAs reach (`.in_cta`).
    CtaBarrier {
        cluster: bool,
    },
}

/// How many statements `nodes` holds, the bodies of `if`s and loops
/// included (each once): the size the proofs walk.
pub(crate) fn statement_count(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::If {
                then, otherwise, ..
            } => 1 + statement_count(then) + statement_count(otherwise),
            Node::Loop(looped) => 1 + statement_count(&looped.body),
            _ => 1,
        })
        .sum()
}

/// One `apply` that passed rules 1-7: its form and resolved operands.
#[derive(Debug, Clone)]
pub(crate) struct Apply {
    /// The chosen form.
    pub form: Modifiers,
    /// Its PTX spelling (`form.opcode_text()`).
    pub opcode: String,
    /// Position among the kernel's `apply`s in source order, from 1.
    pub number: usize,
    /// The guard the user wrote (`pred`; `true` without one).
    pub user_guard: Cond,
    /// What every instruction runs under: `user_guard` and the bounds
    /// guards the in-bounds obligation adds (`crate::prove::bounds`);
    /// `user_guard` until that obligation ran.
    pub guard: Cond,
    /// The facts in scope where it runs, with those of `user_guard`.
    pub facts: Vec<Fact>,
    /// `preserve_dst = true` (with a `pred`), at this span.
    pub preserve: Option<SpanId>,
    pub operands: Vec<Operand>,
    /// The repeat shape: one instruction per coordinate, row-major.
    pub repeat: Vec<usize>,
    /// Per repeat coordinate: the register bytes read and written, each
    /// with the index of its operand, in lane order. Shared by a rolled
    /// loop's copies of the `apply` that name the same registers (a
    /// `wgmma`'s accumulator, a hundred lanes).
    pub coordinates: std::sync::Arc<Vec<Coordinate>>,
    /// Its own obligations (bounds, order, alignment) hold: the
    /// whole-kernel race obligation skips it otherwise (its error is the
    /// one to fix).
    pub own_proofs_hold: bool,
}

/// One operand of an [`Apply`], in the slot of its form it fills.
#[derive(Debug, Clone)]
pub(crate) struct Operand {
    pub span: SpanId,
    pub slot: ResolvedOperand,
    pub value: Value,
    /// A `wgmma` descriptor operand's matrix (`crate::sema::matrices`).
    pub matrix: Option<crate::shared_layout::MatrixOperand>,
}

/// The register bytes one repeat coordinate reads and writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Coordinate {
    pub reads: Vec<(usize, Lane)>,
    pub writes: Vec<(usize, Lane)>,
}

impl Coordinate {
    /// The lanes of operand `operand`, in lane order (an operand both
    /// read and written, `wgmma`'s accumulating D, once).
    pub(crate) fn lanes_of(&self, operand: usize) -> impl Iterator<Item = Lane> + '_ {
        let written = self.writes.iter().any(|(i, _)| *i == operand);
        let reads = self.reads.iter().filter(move |_| !written);
        reads
            .chain(&self.writes)
            .filter(move |(i, _)| *i == operand)
            .map(|(_, lane)| *lane)
    }
}

impl Apply {
    /// Its register inputs reach memory or other threads (a store, atomic,
    /// collective or barrier: the form's table effect); a pure
    /// instruction's reach only its destinations.
    pub(crate) fn is_effect(&self) -> bool {
        self.form.effect().observes_inputs()
    }

    /// The number of repeat coordinates (instructions).
    pub(crate) fn count(&self) -> usize {
        self.repeat
            .iter()
            .fold(1usize, |acc, d| acc.saturating_mul(*d))
    }

    /// Each repeat coordinate's multi-index, row-major.
    pub(crate) fn indices(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        let count = self.count();
        let mut index = vec![0usize; self.repeat.len()];
        (0..count).map(move |_| {
            let current = index.clone();
            advance(&mut index, &self.repeat);
            current
        })
    }
}

/// A memory operand's access at repeat coordinate `index` of `view`,
/// `lanes` elements wide: the element index with its register axis (at
/// 0), the byte offset there, and the access size in bytes.
pub(crate) fn memory_access(
    view: &Layout,
    index: &[usize],
    lanes: u8,
) -> (Vec<usize>, Poly, usize) {
    let mut full = index.to_vec();
    full.push(0);
    let offset = view.byte_offset(&full);
    (full, offset, usize::from(lanes) * view.dtype.size_bytes())
}

/// A memory operand's access at repeat coordinate `index`, as
/// [`memory_access`] gives it, plus the alignment its address needs: the
/// access size, or for a whole-view operand (at the view's first element,
/// as long as the view) the slot's `whole_alignment`: 16 for a bulk
/// copy's run of bytes, 128 for a tensor copy's shared side, the element
/// size for a tensor copy's box (whose start the coordinates name).
pub(crate) fn operand_access(
    slot: &ResolvedOperand,
    view: &Layout,
    index: &[usize],
) -> (Vec<usize>, Poly, usize, usize) {
    if slot.whole {
        let full = vec![0; view.shape.len()];
        let offset = view.byte_offset(&full);
        let bytes = view
            .shape
            .iter()
            .map(|e| {
                e.as_const()
                    .and_then(|e| usize::try_from(e).ok())
                    .unwrap_or(0)
            })
            .fold(view.dtype.size_bytes(), usize::saturating_mul);
        let align = match slot.whole_alignment {
            0 => view.dtype.size_bytes(),
            align => align,
        };
        return (full, offset, bytes, align);
    }
    let (full, offset, size) = memory_access(view, index, slot.lanes);
    (full, offset, size, size)
}

/// The alignment of a bulk copy's addresses and size (PTX ISA,
/// `cp.async.bulk`: 16 bytes).
pub(crate) const BULK_ALIGNMENT: usize = 16;

/// Advances a row-major multi-index.
pub(crate) fn advance(index: &mut [usize], shape: &[usize]) {
    for axis in (0..index.len()).rev() {
        index[axis] += 1;
        if index[axis] < shape[axis] {
            return;
        }
        index[axis] = 0;
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Loop {
    /// What lowering emits: `None` when the loop's bounds failed to check
    /// (its body is still recorded for the proofs).
    pub header: Option<LoopHeader>,
    pub facts: Vec<Fact>,
    /// The first atom the body's values use (its loop variable): atoms from
    /// here on are another iteration's values on the way round.
    pub first_atom: AtomId,
    /// Predicate versions above this one are handed out in (or at the entry
    /// of) the body.
    pub last_version_before: u64,
    pub body: Vec<Node>,
}

/// `for var in (start..end).step_by(step)`, `step >= 1` proven.
#[derive(Debug, Clone)]
pub(crate) struct LoopHeader {
    pub var: AtomId,
    pub start: Poly,
    pub end: Poly,
    pub step: Poly,
}

impl Loop {
    pub(crate) fn new(
        header: Option<LoopHeader>,
        facts: Vec<Fact>,
        first_atom: AtomId,
        last_version_before: u64,
        body: Vec<Node>,
    ) -> Loop {
        Loop {
            header,
            facts,
            first_atom,
            last_version_before,
            body,
        }
    }

    /// Every register byte the body may write, as `(tile, byte)`. Made
    /// when asked: only a loop whose register walk does not converge needs
    /// the whole set ([`writes_registers`] answers whether there is one).
    pub(crate) fn writes(&self) -> BTreeSet<(usize, usize)> {
        let mut writes = BTreeSet::new();
        collect_writes(&self.body, &mut writes);
        writes
    }
}

/// Whether some statement of `body` may write a register byte (what
/// [`Loop::writes`] collects, without collecting it).
pub(crate) fn writes_registers(body: &[Node]) -> bool {
    body.iter().any(|node| match node {
        Node::Apply(apply) => apply.coordinates.iter().any(|c| !c.writes.is_empty()),
        Node::Havoc(lanes) => !lanes.is_empty(),
        Node::If {
            then, otherwise, ..
        } => writes_registers(then) || writes_registers(otherwise),
        Node::Loop(inner) => writes_registers(&inner.body),
        Node::Define(_) | Node::CondRead(_) | Node::CtaBarrier { .. } => false,
    })
}

fn collect_writes(body: &[Node], out: &mut BTreeSet<(usize, usize)>) {
    fn add(lane: &Lane, out: &mut BTreeSet<(usize, usize)>) {
        for byte in lane.byte_offset..lane.byte_offset + lane.bytes {
            out.insert((lane.tile, byte));
        }
    }
    for node in body {
        match node {
            Node::Apply(apply) => {
                for coordinate in apply.coordinates.iter() {
                    for (_, lane) in &coordinate.writes {
                        add(lane, out);
                    }
                }
            }
            Node::Havoc(lanes) => lanes.iter().for_each(|lane| add(lane, out)),
            Node::If {
                then, otherwise, ..
            } => {
                collect_writes(then, out);
                collect_writes(otherwise, out);
            }
            Node::Loop(inner) => collect_writes(&inner.body, out),
            Node::Define(_) | Node::CondRead(_) | Node::CtaBarrier { .. } => {}
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct CondRead {
    pub tile: usize,
    pub register: usize,
    /// What reads it: a condition, or an index expression (a register
    /// atom, [`crate::sym::AtomKind::Register`]).
    pub reader: Reader,
    pub span: SpanId,
    /// The condition as written (`p[0]`) and the tile's name.
    pub text: String,
    pub base: String,
}

/// What reads the register of a [`CondRead`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    Condition,
    Index,
}

/// An operand after name resolution and views.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a handful per apply, moved not copied
pub(crate) enum Value {
    /// Registers of a local tile.
    Local {
        tile: usize,
        name: String,
        layout: StaticLayout,
        /// While a constant-bound loop is checked once in its variable
        /// (`crate::sema::rolled`): the bytes `layout` moves per unit of
        /// that variable (its offset is the first iteration's). 0
        /// everywhere else.
        roll_shift: i128,
    },
    /// A view of a buffer in a memory space: a global tensor or a shared
    /// buffer. `layout` is its static shape for the operand rules; `view`
    /// its runtime layout, `bounds` what keeps it in the buffer.
    ///
    /// `cta`: the rank in the cluster of the CTA whose copy of a shared
    /// buffer the view addresses (`buf.in_cta(rank)`; `bounds` keep it in
    /// the cluster), `None` for the executing CTA's own (and tensors).
    Memory {
        buffer: Buffer,
        name: String,
        layout: StaticLayout,
        view: Layout,
        bounds: Vec<Bound>,
        cta: Option<Poly>,
    },
    Scalar {
        param: usize,
        name: String,
        dtype: DType,
    },
    Literal(LiteralValue),
    /// `sreg("%name")`.
    Special(String),
    /// A runtime integer: a size symbol, a launch value, a loop variable
    /// or arithmetic on them (`N`, `thread_id(0) * 4`), as written
    /// (`text`). Every thread's value lies in `range` (inclusive), from the
    /// atoms' ranges: what the launcher's checks admit.
    Index {
        value: Poly,
        text: String,
        range: (i128, i128),
    },
    /// The `src-size` of a `zero_fill = true` copy, which the compiler
    /// computes: the bytes of the source that lie in its tensor,
    /// `clamp(remaining, 0, size)` where `in_bounds` holds and 0 elsewhere
    /// (`crate::prove::bounds` fills it in).
    SourceBytes {
        in_bounds: Cond,
        remaining: Poly,
        size: i128,
    },
    /// A leading destination of an `mbarrier` form that the compiler
    /// supplies (the user writes the form without it).
    Implicit(Implicit),
}

/// The destinations of `mbarrier` forms the compiler supplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Implicit {
    /// An arrive's `state`, which nothing reads (phases are waited by
    /// parity): the sink `_` where the form takes it, else a scratch
    /// register.
    Sink,
    /// The same where the form has no `_`: a register written, never read.
    Discard,
    /// A `try_wait`'s `done`: a predicate the emitted code loops on until
    /// the phase has completed (the wait blocks).
    RetryUntilDone,
}

impl Value {
    pub(crate) fn layout(&self) -> Option<&StaticLayout> {
        match self {
            Value::Local { layout, .. } | Value::Memory { layout, .. } => Some(layout),
            _ => None,
        }
    }

    /// The name as written, for messages.
    pub(crate) fn name(&self) -> &str {
        match self {
            Value::Local { name, .. }
            | Value::Memory { name, .. }
            | Value::Scalar { name, .. }
            | Value::Special(name)
            | Value::Index { text: name, .. } => name,
            Value::Literal(_) => "literal",
            Value::SourceBytes { .. } => "src-size",
            Value::Implicit(Implicit::Sink | Implicit::Discard) => "state",
            Value::Implicit(Implicit::RetryUntilDone) => "done",
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            Value::Local { name, layout, .. } => {
                format!(
                    "local tile `{name}` ({} {})",
                    layout.dtype,
                    shape_text(&layout.shape)
                )
            }
            Value::Memory {
                buffer,
                name,
                layout,
                ..
            } => {
                format!(
                    "{} `{name}` ({} {})",
                    buffer.space.noun(),
                    layout.dtype,
                    shape_text(&layout.shape)
                )
            }
            Value::Scalar { name, dtype, .. } => format!("scalar parameter `{name}: {dtype}`"),
            Value::Literal(LiteralValue::Int(v)) => format!("integer literal `{v}`"),
            Value::Literal(LiteralValue::Float(v)) => format!("float literal `{v:?}`"),
            Value::Literal(LiteralValue::Bool(v)) => format!("bool literal `{v}`"),
            Value::Special(name) => format!("special register `{name}`"),
            Value::Index { text, .. } => format!("runtime integer `{text}`"),
            Value::SourceBytes { .. } => "the copy's `src-size` (from `zero_fill`)".to_string(),
            Value::Implicit(Implicit::Sink | Implicit::Discard) => {
                "the discarded `state`".to_string()
            }
            Value::Implicit(Implicit::RetryUntilDone) => "the wait's retry predicate".to_string(),
        }
    }
}
