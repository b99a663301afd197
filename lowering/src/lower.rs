//! Lowering: a checked kernel whose obligations are all proven becomes a
//! [`Program`], the IR the emitter and the interpreter read.
//!
//! **Input**: the checked kernel (`crate::checked`) with the proofs' results
//! folded in (each apply's guard with its bounds guards; the symbols'
//! launch requirements), and the kernel's declarations. **Output**: the
//! program: one [`Statement`] per apply with one instruction per repeat
//! coordinate, structured control flow, constant conditions folded.
//!
//! Lowering cannot fail: it runs only when no diagnostic was reported, and
//! every choice it makes was made by the checker or a proof. Nodes that
//! exist only for the proofs (register havoc after an error, condition
//! reads) lower to nothing.

use crate::ast::LiteralValue;
use crate::checked::{self, Apply, Implicit, Value, operand_access};
use crate::layout::Layout;
use crate::memory::MemorySpace;
use crate::program::{CmpOp, Cond, Instruction, Node, OperandValue, Program, Statement, TensorMap};
use crate::ptx::types::literal_bits;
use crate::ptx::{Access, OperandKind, Space};
use crate::shared_layout::SharedLayout;

/// The program of a checked kernel; `program.body` is replaced by the
/// lowered `body`, and `program.tensor_maps` lists the maps its tensor
/// copies read (one per tensor and box, in order of first use).
pub(crate) fn lower(mut program: Program, body: &[checked::Node]) -> Program {
    let mut out = Vec::new();
    let mut maps = Maps {
        maps: Vec::new(),
        shared_layouts: program.shared.iter().map(|b| b.layout).collect(),
    };
    block(body, &mut out, &mut maps);
    program.body = out;
    program.tensor_maps = maps.maps;
    program
}

/// The tensor maps found so far, and what decides a map's swizzle: the
/// layout of the shared buffer its copy meets.
struct Maps {
    maps: Vec<TensorMap>,
    shared_layouts: Vec<SharedLayout>,
}

fn block(body: &[checked::Node], out: &mut Vec<Node>, maps: &mut Maps) {
    for node in body {
        match node {
            checked::Node::Apply(apply) => out.push(Node::Statement(statement(apply, maps))),
            checked::Node::Define(atom) => out.push(Node::Define(*atom)),
            checked::Node::If {
                cond,
                then,
                otherwise,
            } => match cond {
                Some(crate::program::Cond::Const(true)) => block(then, out, maps),
                Some(crate::program::Cond::Const(false)) => block(otherwise, out, maps),
                Some(cond) => {
                    let (mut then_out, mut otherwise_out) = (Vec::new(), Vec::new());
                    block(then, &mut then_out, maps);
                    block(otherwise, &mut otherwise_out, maps);
                    out.push(Node::If {
                        cond: cond.clone(),
                        then: then_out,
                        otherwise: otherwise_out,
                    });
                }
                // Its condition failed to check: reported, so not lowered.
                None => {}
            },
            checked::Node::Loop(body) => {
                // `None`: its bounds failed to check (reported).
                if let Some(header) = &body.header {
                    let mut inner = Vec::new();
                    block(&body.body, &mut inner, maps);
                    out.push(Node::Loop {
                        var: header.var,
                        start: header.start.clone(),
                        end: header.end.clone(),
                        step: header.step.clone(),
                        body: inner,
                    });
                }
            }
            checked::Node::Havoc(_)
            | checked::Node::CondRead(_)
            | checked::Node::CtaBarrier { .. } => {}
        }
    }
}

/// One instruction per repeat coordinate, in row-major order.
fn statement(apply: &Apply, maps: &mut Maps) -> Statement {
    let swizzle = copy_swizzle(apply, &maps.shared_layouts);
    let instructions = apply
        .indices()
        .zip(apply.coordinates.iter())
        .map(|(index, coordinate)| Instruction {
            operands: apply
                .operands
                .iter()
                .enumerate()
                .map(|(i, operand)| {
                    let slot = &operand.slot;
                    // A `wgmma` matrix: its descriptor, not an address.
                    if let (Value::Memory { buffer, view, .. }, Some(matrix)) =
                        (&operand.value, operand.matrix)
                    {
                        return OperandValue::Descriptor {
                            buffer: *buffer,
                            start: view.offset.clone(),
                            matrix,
                        };
                    }
                    match &operand.value {
                        Value::Local { .. } => OperandValue::Registers {
                            lanes: coordinate.lanes_of(i).collect(),
                            write: slot.access == Access::Write,
                            braced: slot.braced,
                            piped: slot.piped,
                            after_pipe: slot.after_pipe,
                            own_braces: slot.own_braces,
                        },
                        // No overflow check: PTX integer arithmetic wraps
                        // modulo 2^64, so the address is exact whenever the
                        // true offset fits, which it does wherever the
                        // access executes (in bounds of a buffer smaller
                        // than 2^62 bytes); out-of-bounds addresses are
                        // never used.
                        // A tensor copy's box: the map of its tensor and
                        // extents, and its starts.
                        Value::Memory { buffer, view, .. }
                            if slot.kind == OperandKind::TensorCoords =>
                        {
                            OperandValue::TensorMap {
                                map: maps.index(TensorMap {
                                    param: buffer.index,
                                    box_dims: box_dims(view),
                                    swizzle,
                                }),
                                coords: view.region.starts.clone(),
                            }
                        }
                        Value::Memory {
                            buffer, view, cta, ..
                        } => OperandValue::Memory {
                            buffer: *buffer,
                            offset: operand_access(slot, view, &index).1,
                            generic: buffer.space == MemorySpace::Global
                                && apply.form.operand_space(slot.name) == Space::Generic,
                            cta: cta.clone(),
                        },
                        Value::Index { value, .. } if slot.kind == OperandKind::Predicate => {
                            OperandValue::Condition(Cond::Cmp(CmpOp::Ne, value.clone()))
                        }
                        Value::Literal(literal) if slot.kind == OperandKind::Predicate => {
                            OperandValue::Condition(Cond::Const(!matches!(
                                literal,
                                LiteralValue::Int(0) | LiteralValue::Bool(false)
                            )))
                        }
                        Value::Scalar { param, dtype, .. } => OperandValue::Param {
                            param: *param,
                            bits: dtype.bits(),
                        },
                        Value::Special(name) => OperandValue::Special { name: name.clone() },
                        // In the slot type's range: the operand rules
                        // checked it.
                        Value::Index { value, .. } => OperandValue::Index {
                            value: value.clone(),
                            bits: slot.ty.carrier_bits(),
                        },
                        // In range: the operand rules checked it.
                        Value::Literal(LiteralValue::Int(value))
                            if matches!(slot.kind, OperandKind::Immediate { .. }) =>
                        {
                            OperandValue::Immediate {
                                value: i64::try_from(*value).unwrap_or(0),
                            }
                        }
                        Value::SourceBytes {
                            in_bounds,
                            remaining,
                            size,
                        } => OperandValue::SourceBytes {
                            in_bounds: in_bounds.clone(),
                            remaining: remaining.clone(),
                            size: u64::try_from(*size).unwrap_or(0),
                        },
                        // `_` only where the form takes it.
                        Value::Implicit(Implicit::Sink) if !slot.sink => {
                            OperandValue::Implicit(Implicit::Discard)
                        }
                        Value::Implicit(implicit) => OperandValue::Implicit(*implicit),
                        Value::Literal(literal) => OperandValue::Constant {
                            value: literal_bits(*literal, slot.ty).unwrap_or(0),
                            bits: slot.ty.carrier_bits(),
                        },
                    }
                })
                .collect(),
        })
        .collect();
    Statement {
        opcode: apply.opcode.clone(),
        variant: apply.form.id(),
        number: apply.number,
        guard: apply.guard.clone(),
        instructions,
    }
}

/// The extents of a tensor copy's box `view` (a plain slice with constant
/// extents: `crate::sema` checked it).
fn box_dims(view: &Layout) -> Vec<u32> {
    view.shape
        .iter()
        .map(|e| {
            e.as_const()
                .and_then(|e| u32::try_from(e).ok())
                .unwrap_or(0)
        })
        .collect()
}

/// The swizzle span of the shared buffer a tensor copy meets (0 for a
/// row-major one): its map writes or reads the box in that pattern, which
/// `crate::sema` checked matches the box's rows.
fn copy_swizzle(apply: &Apply, shared_layouts: &[SharedLayout]) -> u32 {
    apply
        .operands
        .iter()
        .find_map(|operand| match &operand.value {
            Value::Memory { buffer, .. }
                if operand.slot.whole && buffer.space == MemorySpace::Shared =>
            {
                match shared_layouts.get(buffer.index) {
                    Some(SharedLayout::Swizzle { span }) => Some(*span),
                    _ => None,
                }
            }
            _ => None,
        })
        .unwrap_or(0)
}

impl Maps {
    /// The index of `map`, added on first use.
    fn index(&mut self, map: TensorMap) -> usize {
        match self.maps.iter().position(|m| *m == map) {
            Some(index) => index,
            None => {
                self.maps.push(map);
                self.maps.len() - 1
            }
        }
    }
}
