//! An `apply` whose form is chosen becomes a checked apply
//! ([`checked::Apply`]): its operands in their slots, its repeat shape and
//! the register bytes each coordinate reads and writes, the guard and the
//! facts where it runs.
//!
//! The apply's own obligations are discharged as it is added, so their
//! errors come in statement order: in bounds or guarded
//! (`crate::prove::bounds`), order independent (`crate::prove::order`),
//! aligned or a launch requirement (`crate::prove::alignment`). The
//! register and race obligations (`crate::prove::registers`,
//! `crate::prove::races`) read the checked kernel when the walk is done. No IR is built here: lowering
//! (`crate::lower`) does that from the checked kernel.

use crate::ast;
use crate::checked::{self, Coordinate};
use crate::diag::Code;
use crate::dtype::DType;
use crate::program::{Cond, Lane};
use crate::prove::{alignment, bounds, order};
use crate::ptx::Modifiers;
use crate::ptx::form::{Access, Effect, ResolvedOperand};
use crate::scope::Uniformity;

use super::{Checker, MAX_INSTRUCTIONS, Value};

impl Checker<'_> {
    /// Adds the checked apply of `apply` (form `form`, operands `values` in
    /// `slots`) to the body, with the proofs of its own obligations.
    /// `source_bytes`: the slot, placeholder and span of the compiler's
    /// `src-size` (`zero_fill`), which no written operand fills.
    pub(super) fn add_apply(
        &mut self,
        apply: &ast::Apply,
        form: &Modifiers,
        slots: &[ResolvedOperand],
        values: Vec<Value>,
        user_guard: Cond,
        source_bytes: Option<super::zero_fill::SourceBytesSlot>,
    ) {
        // A whole-view operand (a bulk copy's bytes) has no repeat axes.
        let repeat: Vec<usize> = slots
            .iter()
            .zip(&values)
            .filter(|(slot, _)| !slot.whole && !slot.descriptor)
            .find_map(|(_, v)| v.layout().map(|l| l.shape[..l.shape.len() - 1].to_vec()))
            .unwrap_or_default();
        let count = repeat.iter().fold(1usize, |acc, d| acc.saturating_mul(*d));
        if self.instruction_count.saturating_add(count) > MAX_INSTRUCTIONS {
            self.diags.error(
                Code::INSTRUCTION_LIMIT,
                apply.span,
                format!("this kernel would expand to more than {MAX_INSTRUCTIONS} instructions"),
            );
            // Reported once: later statements are not checked.
            self.halted = true;
            return;
        }
        self.instruction_count += count;
        let pred_span = apply.pred.as_ref().map_or(apply.span, ast::Expr::span);
        if !self.materialize_cond(&user_guard, pred_span) {
            return;
        }
        let mut facts = self.facts.clone();
        facts.extend(user_guard.facts(true));
        let mut written = values
            .into_iter()
            .zip(apply.operands.iter().map(ast::Operand::span));
        let mut source_bytes = source_bytes;
        let operands: Vec<checked::Operand> = slots
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| {
                let (value, span) = match source_bytes.take() {
                    Some((at, value, span)) if at == i => (value, span),
                    other => {
                        source_bytes = other;
                        written.next()?
                    }
                };
                let matrix = slot
                    .descriptor
                    .then(|| self.matrix_operand(form, slot, &value).ok())
                    .flatten();
                Some(checked::Operand {
                    span,
                    slot: *slot,
                    value,
                    matrix,
                })
            })
            .collect();
        let mut checked = checked::Apply {
            form: form.clone(),
            opcode: form.opcode_text(),
            number: self.current_statement,
            guard: user_guard.clone(),
            user_guard,
            facts,
            preserve: match apply.preserve_dst {
                Some((true, span)) if apply.pred.is_some() => Some(span),
                _ => None,
            },
            coordinates: Default::default(),
            repeat,
            operands,
            own_proofs_hold: false,
        };
        checked.coordinates = std::sync::Arc::new(register_accesses(&checked));

        // In bounds: proven, or guarded; the guards' values must fit index
        // arithmetic.
        let guarded = bounds::guard(&checked, &self.atoms, &self.proofs);
        let mut failed = false;
        if checked.form.effect() == Effect::WarpgroupMma && !self.warpgroup_operands(&checked) {
            failed = true;
        }
        // A warpgroup's matrix multiply cannot be guarded: its operands are
        // proven in their buffers, or it is an error.
        if checked.form.effect() == Effect::WarpgroupMma
            && let Some((le0, span)) = guarded.bounds.first()
        {
            self.diags.push(
                crate::diag::Diagnostic::new(
                    Code::MATRIX_OPERAND,
                    *span,
                    format!(
                        "this `{}` is not provably inside its buffers, and a warpgroup's matrix multiply cannot be guarded",
                        checked.opcode
                    ),
                )
                .with_note(format!(
                    "the checker cannot prove `{} <= 0` here",
                    super::limits::poly_text(le0, &self.atoms)
                ))
                .with_help("slice the operands with indices whose range the enclosing loops and `if`s bound"),
            );
            self.note_register_accesses(&checked);
            self.body.push(checked::Node::Apply(checked));
            return;
        }
        // A bulk copy that signals an mbarrier cannot be guarded: skipped,
        // its bytes would never reach the mbarrier that expects them (a
        // store completing in a bulk group may be).
        let signals_mbarrier =
            checked.form.get(crate::ptx::Slot::Completion) == Some("mbarrier::complete_tx::bytes");
        if let Some((le0, span)) = guarded
            .bounds
            .first()
            .filter(|_| signals_mbarrier && checked.operands.iter().any(|o| o.slot.whole))
        {
            let unproven = format!(
                "the checker cannot prove `{} <= 0` here",
                super::limits::poly_text(le0, &self.atoms)
            );
            self.diags.push(
                crate::diag::Diagnostic::new(
                    Code::BULK_BOUNDS,
                    *span,
                    format!(
                        "this `{}` is not provably inside its buffers, and a bulk copy cannot be guarded: skipped, its bytes would never reach the mbarrier that expects them",
                        checked.opcode
                    ),
                )
                .with_note(format!("{unproven}; a bulk copy's bounds are proven from the facts where it runs: the enclosing `if`s, loop ranges and the grid"))
                .with_help("put the copy in an `if` that proves its slices in bounds (and expect its bytes there), or give the tensor a dim that makes them so (`{1024 * C}`)"),
            );
            self.note_register_accesses(&checked);
            self.body.push(checked::Node::Apply(checked));
            return;
        }
        for (le0, span) in guarded.bounds {
            if !self.materialize(&le0, span) {
                failed = true;
            }
        }
        checked.guard = guarded.guard;
        if let Some(bytes) = guarded.source_bytes {
            for operand in &mut checked.operands {
                if matches!(operand.value, Value::SourceBytes { .. }) {
                    operand.value = bytes.clone();
                }
            }
        }
        let disorder = order::prove(&checked, |tile| &self.tiles[tile].tile);
        for diag in disorder {
            failed = true;
            self.diags.push(diag);
        }
        let proof = alignment::prove(
            &checked,
            &alignment::Context {
                atoms: &self.atoms,
                params: &self.params,
                shared_dtype: &|buffer| self.shared[buffer].buffer.dtype,
                shared_alignment: &|buffer| {
                    let buffer = &self.shared[buffer].buffer;
                    if buffer.is_dynamic() {
                        crate::memory::MemorySpace::Shared.base_alignment()
                    } else {
                        buffer.alignment()
                    }
                },
                shared_layout: &|buffer| self.shared[buffer].buffer.layout,
            },
        );
        for diag in proof.diagnostics {
            failed = true;
            self.diags.push(diag);
        }
        for requirement in proof.requirements {
            let symbol = &mut self.symbols[requirement.symbol].symbol;
            // The kernel sees value / divisor; the user's value must be a
            // multiple of divisor * missing.
            let need = u64::try_from(requirement.missing).unwrap_or(1) * symbol.divisor;
            symbol.multiple_of = lcm_u64(symbol.multiple_of, need);
        }

        self.note_register_accesses(&checked);
        checked.own_proofs_hold = !failed;
        self.body.push(checked::Node::Apply(checked));
    }

    /// `wgmma`'s shared matrices and `scale-d` are the same for every
    /// thread of the warpgroup (its descriptors are one instruction's);
    /// whether they are (else reported).
    fn warpgroup_operands(&mut self, apply: &checked::Apply) -> bool {
        let uniformities = self.uniformities();
        let mut diverging = None;
        for operand in &apply.operands {
            let value = match &operand.value {
                Value::Memory { view, .. } if operand.slot.descriptor => &view.offset,
                Value::Index { value, .. } => value,
                _ => continue,
            };
            if uniformities.of_poly(value) < Uniformity::Warpgroup {
                diverging = Some((operand.span, operand.slot.name));
                break;
            }
        }
        let Some((span, slot)) = diverging else {
            return true;
        };
        self.diags.push(
            crate::diag::Diagnostic::new(
                Code::WARPGROUP_OPERAND,
                span,
                format!(
                    "operand `{slot}` of `{}` may differ between the threads of a warpgroup, but the warpgroup issues one matrix multiply with one value of it",
                    apply.opcode
                ),
            )
            .with_help("compute it from values every thread of the warpgroup shares: loop variables, `cta_id`, `warp_id() / 4`"),
        );
        false
    }

    /// Which tiles are ever read and written, and the new versions of the
    /// predicate registers the apply writes.
    pub(super) fn note_register_accesses(&mut self, apply: &checked::Apply) {
        for coordinate in apply.coordinates.iter() {
            for (_, lane) in &coordinate.reads {
                self.tiles[lane.tile].ever_read = true;
            }
            for (_, lane) in &coordinate.writes {
                self.tiles[lane.tile].ever_written = true;
                let dtype = self.tiles[lane.tile].tile.dtype;
                if dtype == DType::Bool {
                    // One byte per predicate register.
                    self.fresh_pred_version(lane.tile, lane.byte_offset);
                } else if super::versioned(dtype) {
                    // Every register the lane touches has a new value.
                    let size = dtype.size_bytes();
                    for register in
                        lane.byte_offset / size..(lane.byte_offset + lane.bytes).div_ceil(size)
                    {
                        self.fresh_pred_version(lane.tile, register);
                    }
                }
            }
        }
    }
}

/// Per repeat coordinate (row-major): the register bytes each register
/// operand reads or writes, in lane order.
fn register_accesses(apply: &checked::Apply) -> Vec<Coordinate> {
    let mut coordinates = Vec::with_capacity(apply.count());
    for index in apply.indices() {
        let mut coordinate = Coordinate::default();
        for (i, operand) in apply.operands.iter().enumerate() {
            let Value::Local { tile, layout, .. } = &operand.value else {
                continue;
            };
            let bytes = layout.dtype.size_bytes();
            for lane in 0..usize::from(operand.slot.lanes) {
                let mut full = index.clone();
                full.push(lane);
                let lane = Lane {
                    tile: *tile,
                    byte_offset: layout.byte_offset(&full),
                    bytes,
                };
                match operand.slot.access {
                    Access::Read => coordinate.reads.push((i, lane)),
                    Access::Write => coordinate.writes.push((i, lane)),
                }
            }
        }
        coordinates.push(coordinate);
    }
    // `wgmma` reads its accumulator unless `scale-d` is a literal 0.
    if apply.form.effect() == Effect::WarpgroupMma && accumulates(apply) {
        for coordinate in &mut coordinates {
            let reads: Vec<(usize, Lane)> = coordinate
                .writes
                .iter()
                .filter(|(i, _)| *i == 0)
                .copied()
                .collect();
            coordinate.reads.extend(reads);
        }
    }
    coordinates
}

/// Whether a `wgmma` adds into D: its `scale-d` is not a literal 0.
pub(crate) fn accumulates(apply: &checked::Apply) -> bool {
    !apply.operands.iter().any(|o| {
        o.slot.name == "scale-d"
            && matches!(
                o.value,
                Value::Literal(ast::LiteralValue::Int(0) | ast::LiteralValue::Bool(false))
            )
    })
}

fn lcm_u64(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a.checked_div(x).map_or(a.max(b), |q| q * b)
}
