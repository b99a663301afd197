//! Expansion of one checked `apply` into one instruction per repeat
//! coordinate, with the per-element rules: 8 (overlapping destinations),
//! the register flow rule 9 is proven over (`crate::prove::registers`:
//! which bytes each coordinate reads and writes, under which guard),
//! order independence (no coordinate
//! reads what another coordinate of the same `apply` writes), and for memory
//! operands: bounds (proven from the facts in scope, or guarded) and
//! alignment (proven from the offset polynomial, or a launch-time
//! requirement on a symbol).

use std::collections::{HashMap, HashSet};

use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::layout::Bound;
use crate::program::{CmpOp, Cond, Instruction, Lane, Node, OperandValue, ParamKind, Statement};
use crate::ptx::Modifiers;
use crate::ptx::form::{Access, Effect, ResolvedOperand};
use crate::sym::{AtomKind, Poly, Prover};

use super::operands::literal_bits;
use super::{
    AccessRecord, Checker, MAX_INSTRUCTIONS, TileState, Value, advance, index_text, storage_index,
    values,
};
use crate::dtype::DType;
use crate::prove::registers::{Coordinate, Flow, FlowApply};

impl Checker<'_> {
    /// Rules 8, 10 (alignment), bounds and order independence per repeat
    /// coordinate, the register flow for rule 9, then the instructions
    /// themselves.
    pub(super) fn expand(
        &mut self,
        apply: &ast::Apply,
        form: &Modifiers,
        slots: &[ResolvedOperand],
        values: &[Value],
        user_guard: Cond,
    ) {
        let repeat: Vec<usize> = values
            .iter()
            .find_map(|v| v.layout().map(|l| l.shape[..l.shape.len() - 1].to_vec()))
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
        let opcode = form.opcode_text();
        let pred_span = apply.pred.as_ref().map_or(apply.span, ast::Expr::span);
        if !self.materialize_cond(&user_guard, pred_span) {
            return;
        }

        // Bounds of the memory operands: proven where the instruction runs
        // (the facts in scope plus `pred`), else guarded.
        let mut facts = self.facts.clone();
        facts.extend(values::facts_of(&user_guard, true));
        let mut guard = user_guard.clone();
        let mut failed = false;
        for (value, operand) in values.iter().zip(&apply.operands) {
            if let Value::Global { bounds, .. } | Value::Shared { bounds, .. } = value {
                let unproven: Vec<&Bound> = {
                    let prover = Prover {
                        atoms: &self.atoms,
                        facts: &facts,
                    };
                    bounds
                        .iter()
                        .filter(|b| !prover.prove_le0(&b.le0))
                        .collect()
                };
                for bound in unproven {
                    if !self.materialize(&bound.le0, operand.span()) {
                        failed = true;
                    }
                    guard = guard.and(Cond::Cmp(CmpOp::Le, bound.le0.clone()));
                }
            }
        }

        let mut instructions = Vec::with_capacity(count);
        let mut reported = vec![false; values.len()];
        let mut written_now: HashSet<(usize, usize)> = HashSet::new();
        // Order independence: which coordinate writes each register byte.
        let mut writer: HashMap<(usize, usize), usize> = HashMap::new();
        let mut reads: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut written_tiles: Vec<usize> = Vec::new();
        let mut pred_writes: Vec<(usize, usize)> = Vec::new();
        let mut flow_coordinates = Vec::with_capacity(count);
        let mut index = vec![0usize; repeat.len()];
        for coordinate in 0..count {
            let mut flow_coordinate = Coordinate::default();
            let mut operands = Vec::with_capacity(values.len());
            for (i, ((slot, value), operand)) in
                slots.iter().zip(values).zip(&apply.operands).enumerate()
            {
                let span = operand.span();
                match value {
                    Value::Local { tile, name, layout } => {
                        let element_size = layout.dtype.size_bytes();
                        let mut lanes = Vec::with_capacity(slot.lanes as usize);
                        for lane in 0..slot.lanes as usize {
                            let mut full = index.clone();
                            full.push(lane);
                            let offset = layout.byte_offset(&full);
                            lanes.push(Lane {
                                tile: *tile,
                                byte_offset: offset,
                                bytes: element_size,
                            });
                            let bytes: Vec<usize> = (offset..offset + element_size).collect();
                            // Named in the tile's own coordinates, built only on error.
                            let element = |tiles: &[TileState]| {
                                let t = &tiles[*tile].tile;
                                storage_index(&t.shape, t.dtype.size_bytes(), offset)
                            };
                            if slot.access == Access::Read {
                                self.tiles[*tile].ever_read = true;
                                for b in &bytes {
                                    reads.push((*tile, *b, coordinate, i));
                                }
                                flow_coordinate.reads.push((
                                    i,
                                    Lane {
                                        tile: *tile,
                                        byte_offset: offset,
                                        bytes: element_size,
                                    },
                                ));
                            } else {
                                // Rule 8.
                                let overlap =
                                    bytes.iter().any(|b| !written_now.insert((*tile, *b)));
                                if overlap && !reported[i] {
                                    reported[i] = true;
                                    failed = true;
                                    let element = element(&self.tiles);
                                    self.diags.push(
                                        Diagnostic::new(
                                            Code::OVERLAPPING_DESTINATIONS,
                                            span,
                                            format!(
                                                "destination `{name}{element}` is written more than once by this `apply`",
                                            ),
                                        )
                                        .with_note("no register may be written twice by one `apply`: destination operands must not overlap"),
                                    );
                                }
                                for b in &bytes {
                                    writer.insert((*tile, *b), coordinate);
                                }
                                written_tiles.push(*tile);
                                if element_size == 1 && self.tiles[*tile].tile.dtype == DType::Bool
                                {
                                    // One byte per predicate register.
                                    pred_writes.push((*tile, offset));
                                }
                                flow_coordinate.writes.push((
                                    i,
                                    Lane {
                                        tile: *tile,
                                        byte_offset: offset,
                                        bytes: element_size,
                                    },
                                ));
                            }
                        }
                        operands.push(OperandValue::Registers {
                            lanes,
                            write: slot.access == Access::Write,
                            braced: slot.braced,
                            piped: slot.piped,
                            after_pipe: slot.after_pipe,
                            own_braces: slot.own_braces,
                        });
                    }
                    Value::Global {
                        param, name, view, ..
                    } => {
                        let (full, offset, size) = memory_access(view, &index, slot.lanes);
                        if !reported[i] && !self.aligned(&offset, size) {
                            reported[i] = true;
                            failed = true;
                            self.alignment_error(*param, name, &offset, &full, size, span, &opcode);
                        }
                        // No overflow check: PTX integer arithmetic wraps
                        // modulo 2^64, so the address is exact whenever the
                        // true offset fits, which it does wherever the access
                        // executes (in bounds of a tensor smaller than 2^62
                        // bytes); out-of-bounds addresses are never used.
                        operands.push(OperandValue::Memory {
                            param: *param,
                            offset,
                            generic: form.space() == crate::ptx::Space::Generic,
                        });
                    }
                    Value::Shared {
                        buffer, name, view, ..
                    } => {
                        let (_, offset, size) = memory_access(view, &index, slot.lanes);
                        if !reported[i] && !self.aligned(&offset, size) {
                            reported[i] = true;
                            failed = true;
                            self.shared_alignment_error(
                                *buffer, name, &offset, size, span, &opcode,
                            );
                        }
                        operands.push(OperandValue::Shared {
                            buffer: *buffer,
                            offset,
                        });
                    }
                    Value::Scalar { param, dtype, .. } => {
                        operands.push(OperandValue::Param {
                            param: *param,
                            bits: dtype.bits(),
                        });
                    }
                    Value::Special(name) => {
                        operands.push(OperandValue::Special { name: name.clone() });
                    }
                    Value::Literal(crate::ast::LiteralValue::Int(value))
                        if matches!(slot.kind, crate::ptx::OperandKind::Immediate { .. }) =>
                    {
                        // In range: `operand_errors` checked it.
                        operands.push(OperandValue::Immediate {
                            value: i64::try_from(*value).unwrap_or(0),
                        });
                    }
                    Value::Literal(literal) => {
                        let value = literal_bits(*literal, slot.ty).unwrap_or(0);
                        operands.push(OperandValue::Constant {
                            value,
                            bits: slot.ty.carrier_bits(),
                        });
                    }
                }
            }
            instructions.push(Instruction {
                opcode: opcode.clone(),
                guard: guard.clone(),
                operands,
            });
            flow_coordinates.push(flow_coordinate);
            advance(&mut index, &repeat);
        }
        // Order independence: a read at one coordinate of a byte that another
        // coordinate writes would see the other coordinate's result or not,
        // depending on the expansion order.
        for (tile, byte, coordinate, i) in reads {
            if reported[i] {
                continue;
            }
            if let Some(&by) = writer.get(&(tile, byte))
                && by != coordinate
            {
                reported[i] = true;
                failed = true;
                let t = &self.tiles[tile].tile;
                let element = storage_index(&t.shape, t.dtype.size_bytes(), byte);
                let name = t.name.clone();
                self.diags.push(
                    Diagnostic::new(
                        Code::ORDER_DEPENDENCE,
                        apply.operands[i].span(),
                        format!(
                            "`{opcode}` reads `{name}{element}` at one repeat coordinate and writes it at another, so the result would depend on the expansion order"
                        ),
                    )
                    .with_note("each repeat coordinate of an `apply` must read only registers that no other coordinate writes; in-place at the same coordinate (`add x, x, y`) is fine")
                    .with_help("write the result into another tile"),
                );
            }
        }
        // What the register obligation needs (`crate::prove::registers`):
        // where the guard is false a destination keeps its old value only
        // with `preserve_dst`; otherwise it is defined only under the guard.
        for tile in written_tiles {
            self.tiles[tile].ever_written = true;
        }
        for (tile, register) in pred_writes {
            self.fresh_pred_version(tile, register);
        }
        let effect = form.effect().observes_inputs();
        self.flow.push(Flow::Apply(FlowApply {
            opcode: opcode.clone(),
            guard: guard.clone(),
            effect,
            preserve: match apply.preserve_dst {
                Some((true, span)) if apply.pred.is_some() => Some(span),
                _ => None,
            },
            operands: values
                .iter()
                .zip(&apply.operands)
                .map(|(value, operand)| (operand.span(), super::value_name(value).to_string()))
                .collect(),
            coordinates: flow_coordinates,
        }));
        if failed {
            return;
        }
        // Race analysis input: every global access with its separations.
        for ((slot, value), operand) in slots.iter().zip(values).zip(&apply.operands) {
            if let Value::Shared { buffer, view, .. } = value {
                self.record_shared(
                    *buffer,
                    operand.span(),
                    slot.access == Access::Write,
                    super::safety::atomic_of(form),
                    view,
                    &facts,
                );
            }
            if let Value::Global { param, view, .. } = value {
                let separations = self.separations(view, &facts);
                let pinned = self.pinned_digits(&facts);
                self.accesses.push(AccessRecord {
                    param: *param,
                    span: operand.span(),
                    store: slot.access == Access::Write,
                    // `ldu` also needs data that stays read-only.
                    non_coherent: form.effect() == Effect::Load { non_coherent: true },
                    atomic: super::safety::atomic_of(form),
                    separations,
                    pinned,
                    footprints: self.uniform_footprints(view),
                });
            }
        }
        self.out.push(Node::Statement(Statement {
            opcode,
            variant: form.id(),
            number: self.current_statement,
            instructions,
        }));
    }

    /// A shared access whose offset is not provably a multiple of its size.
    fn shared_alignment_error(
        &mut self,
        buffer: usize,
        name: &str,
        offset: &Poly,
        size: usize,
        span: crate::diag::SpanId,
        opcode: &str,
    ) {
        self.diags.push(
            Diagnostic::new(
                Code::ALIGNMENT_UNPROVEN,
                span,
                format!(
                    "`{opcode}` moves {size} bytes, so its address must be a multiple of {size}, but its byte offset `{}` into shared buffer `{name}` is not provably one",
                    super::limits::poly_text(offset, &self.atoms)
                ),
            )
            .with_help(format!("start the slice at a multiple of {} elements", size / self.shared[buffer].buffer.dtype.size_bytes().max(1))),
        );
    }

    /// Whether `offset` is provably a multiple of `size` (given 16-byte
    /// aligned bases). Records a launch-time requirement on a symbol where
    /// one makes it so (`K % 4 == 0` for a row of `K` floats).
    fn aligned(&mut self, offset: &Poly, size: usize) -> bool {
        let size = size as i128;
        let mut requirements: Vec<(usize, i128)> = Vec::new();
        for (monomial, coef) in offset.terms() {
            if coef % size == 0 {
                continue;
            }
            // A symbol in the monomial can carry the missing factor.
            let symbol = monomial.iter().find_map(|a| match self.atoms.get(*a).kind {
                AtomKind::Symbol(index) => Some(index),
                _ => None,
            });
            match symbol {
                Some(index) if !monomial.is_empty() => {
                    let missing = size / crate::sym::gcd(coef, size);
                    requirements.push((index, missing));
                }
                _ => return false,
            }
        }
        for (index, missing) in requirements {
            let symbol = &mut self.symbols[index].symbol;
            // The kernel sees value / divisor; the user's value must be a
            // multiple of divisor * missing.
            let need = u64::try_from(missing).unwrap_or(1) * symbol.divisor;
            symbol.multiple_of = lcm_u64(symbol.multiple_of, need);
        }
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn alignment_error(
        &mut self,
        param: usize,
        name: &str,
        offset: &Poly,
        full: &[usize],
        size: usize,
        span: crate::diag::SpanId,
        opcode: &str,
    ) {
        if let Some(constant) = offset.as_const() {
            let constant = usize::try_from(constant).unwrap_or(0);
            let element = match &self.params[param].kind {
                ParamKind::Tensor { dtype, dims, .. } => {
                    let shape: Option<Vec<usize>> = dims
                        .iter()
                        .map(|d| match d {
                            crate::program::DimSpec::Const(v) => usize::try_from(*v).ok(),
                            _ => None,
                        })
                        .collect();
                    match shape {
                        Some(shape) => storage_index(&shape, dtype.size_bytes(), constant),
                        None => index_text(full),
                    }
                }
                ParamKind::Scalar(_) => index_text(full),
            };
            self.diags.push(
                Diagnostic::new(
                    Code::MISALIGNED,
                    span,
                    format!(
                        "`{opcode}` accesses `{name}{element}` at byte offset {constant}, which is not aligned to the {size}-byte access size",
                    ),
                )
                .with_note("PTX memory accesses must be aligned to their total size"),
            );
            return;
        }
        self.diags.push(
            Diagnostic::new(
                Code::ALIGNMENT_UNPROVEN,
                span,
                format!(
                    "`{opcode}` accesses `{name}` at byte offset `{}`, which is not provably a multiple of the {size}-byte access size",
                    super::limits::poly_text(offset, &self.atoms)
                ),
            )
            .with_note("PTX memory accesses must be aligned to their total size; tensor bases are 16-byte aligned")
            .with_help("make the element offset a multiple of the elements one access moves, e.g. `thread_id(0) * 4` for `.v4`"),
        );
    }
}

fn lcm_u64(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a.checked_div(x).map_or(a.max(b), |q| q * b)
}

/// A memory operand's access at `index` of `view`, `lanes` elements wide:
/// the element index with its register axis (at 0), the byte offset there,
/// and the access size in bytes.
fn memory_access(
    view: &crate::layout::Layout,
    index: &[usize],
    lanes: u8,
) -> (Vec<usize>, Poly, usize) {
    let mut full = index.to_vec();
    full.push(0);
    let offset = view.byte_offset(&full);
    (full, offset, usize::from(lanes) * view.dtype.size_bytes())
}
