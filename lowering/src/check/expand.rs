//! Expansion of one checked `apply` into one instruction per repeat
//! coordinate, with the per-element rules: 8 (overlapping destinations),
//! 9 (reads of never-written elements) and 10 (alignment).

use std::collections::HashSet;

use crate::ast;
use crate::diag::Diagnostic;
use crate::program::{Guard, Instruction, Lane, OperandValue, ParamKind, Statement};
use crate::ptx::Modifiers;
use crate::ptx::form::{Access, ResolvedOperand};

use super::operands::literal_bits;
use super::{Checker, MAX_INSTRUCTIONS, TileState, Value, advance, index_text, storage_index};

impl Checker<'_> {
    /// Rules 8, 9 (reads) and 10 (alignment) per repeat coordinate, then the
    /// instructions themselves.
    pub(super) fn expand(
        &mut self,
        apply: &ast::Apply,
        form: &Modifiers,
        slots: &[ResolvedOperand],
        values: &[Value],
        guard: Guard,
    ) {
        let repeat: Vec<usize> = values
            .iter()
            .find_map(|v| v.layout().map(|l| l.shape[..l.shape.len() - 1].to_vec()))
            .unwrap_or_default();
        let count = repeat.iter().fold(1usize, |acc, d| acc.saturating_mul(*d));
        if self.instruction_count.saturating_add(count) > MAX_INSTRUCTIONS {
            self.diags.error(
                apply.span,
                format!("this kernel would expand to more than {MAX_INSTRUCTIONS} instructions"),
            );
            return;
        }
        self.instruction_count += count;
        let opcode = form.opcode_text();
        let mut instructions = Vec::with_capacity(count);
        let mut reported = vec![false; values.len()];
        let mut written_now: HashSet<(usize, usize)> = HashSet::new();
        let mut writes: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut failed = false;
        let mut index = vec![0usize; repeat.len()];
        for _ in 0..count {
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
                                let state = &self.tiles[*tile].written;
                                if !reported[i] && bytes.iter().any(|b| !state[*b]) {
                                    reported[i] = true;
                                    failed = true;
                                    let element = element(&self.tiles);
                                    self.diags.push(
                                        Diagnostic::new(
                                            span,
                                            format!(
                                                "`{opcode}` reads `{name}{element}`, which no earlier statement wrote",
                                            ),
                                        )
                                        .with_help(format!("write `{name}` (for example with `ld.global` or `mov`) before reading it")),
                                    );
                                }
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
                                            span,
                                            format!(
                                                "destination `{name}{element}` is written more than once by this `apply`",
                                            ),
                                        )
                                        .with_note("no register may be written twice by one `apply`: destination operands must not overlap"),
                                    );
                                }
                                writes.push((*tile, bytes));
                            }
                        }
                        operands.push(OperandValue::Registers {
                            lanes,
                            write: slot.access == Access::Write,
                            braced: slot.braced,
                        });
                    }
                    Value::Global {
                        param,
                        name,
                        layout,
                    } => {
                        let mut full = index.clone();
                        full.push(0);
                        let offset = layout.byte_offset(&full);
                        let size = slot.lanes as usize * layout.dtype.size_bytes();
                        if offset % size != 0 && !reported[i] {
                            reported[i] = true;
                            failed = true;
                            let element = match &self.params[*param].kind {
                                ParamKind::Tensor { dtype, shape, .. } => {
                                    storage_index(shape, dtype.size_bytes(), offset)
                                }
                                ParamKind::Scalar(_) => index_text(&full),
                            };
                            self.diags.push(
                                Diagnostic::new(
                                    span,
                                    format!(
                                        "`{opcode}` accesses `{name}{element}` at byte offset {offset}, which is not aligned to the {size}-byte access size",
                                    ),
                                )
                                .with_note("PTX memory accesses must be aligned to their total size"),
                            );
                        }
                        operands.push(OperandValue::Memory {
                            param: *param,
                            offset,
                        });
                    }
                    Value::Scalar { param, dtype, .. } => {
                        operands.push(OperandValue::Param {
                            param: *param,
                            bits: dtype.bits(),
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
                guard,
                operands,
            });
            advance(&mut index, &repeat);
        }
        for (tile, bytes) in writes {
            for byte in bytes {
                self.tiles[tile].written[byte] = true;
            }
        }
        if !failed {
            self.statements.push(Statement {
                opcode,
                instructions,
            });
        }
    }
}
