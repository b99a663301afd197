//! Form choice (SPEC §4 rules 2-7): which of the forms an opcode names an
//! `apply` means.
//!
//! A form is chosen when its rules hold for the operands (the table keeps
//! the forms of one spelling apart, so at most one does). When none does,
//! the mistake is explained with the *nearest* form: the one whose slots
//! the operands miss by the least, compared by operand count first, then
//! by operand kind (register, memory, immediate, special register), then by
//! element type, then by lane count. Ties go to the table's order. The
//! number of errors a form would report plays no part.

use crate::ast::LiteralValue;
use crate::dtype::DType;
use crate::ptx::Modifiers;
use crate::ptx::form::{Access, OperandKind, ResolvedOperand};

use super::Value;

/// How far an `apply`'s operands are from one form's slots, compared
/// lexicographically (fields in order of importance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Distance {
    /// Operands missing or extra.
    count: usize,
    /// Operands of the wrong kind (a tile where memory goes, a special
    /// register where a register goes, ..).
    kind: usize,
    /// Operands whose element type the slot does not accept.
    ty: usize,
    /// Register or memory operands whose last axis is not the slot's lane
    /// count.
    lanes: usize,
}

/// The distance from `values` to the slots of `form`.
pub(super) fn distance(form: &Modifiers, values: &[Value]) -> Distance {
    let slots = form.operands();
    let mut distance = Distance {
        count: slots.len().abs_diff(values.len()),
        kind: 0,
        ty: 0,
        lanes: 0,
    };
    for (slot, value) in slots.iter().zip(values) {
        if !kind_fits(slot, value) {
            distance.kind += 1;
            continue;
        }
        if !type_fits(slot, value) {
            distance.ty += 1;
        }
        if value
            .layout()
            .and_then(|l| l.shape.last())
            .is_some_and(|lanes| *lanes != usize::from(slot.lanes))
        {
            distance.lanes += 1;
        }
    }
    distance
}

/// Whether `value` is the kind of operand `slot` takes.
fn kind_fits(slot: &ResolvedOperand, value: &Value) -> bool {
    let read = slot.access == Access::Read;
    match (slot.kind, value) {
        (OperandKind::Register, Value::Local { .. }) => true,
        (OperandKind::Register, Value::Scalar { .. } | Value::Literal(_) | Value::Index { .. }) => {
            read
        }
        (OperandKind::Predicate, Value::Local { layout, .. }) => layout.dtype == DType::Bool,
        (OperandKind::Predicate, Value::Scalar { dtype, .. }) => read && *dtype == DType::Bool,
        (OperandKind::Predicate, Value::Literal(LiteralValue::Bool(_))) => read,
        (OperandKind::Address, Value::Memory { .. }) => true,
        (OperandKind::Immediate { .. }, Value::Literal(LiteralValue::Int(_))) => true,
        (OperandKind::Special(_), Value::Special(_)) => true,
        _ => false,
    }
}

/// Whether the slot's type accepts the value's element type.
fn type_fits(slot: &ResolvedOperand, value: &Value) -> bool {
    match value {
        Value::Local { layout, .. } | Value::Memory { layout, .. } => {
            slot.kind == OperandKind::Predicate || slot.ty.accepts(layout.dtype)
        }
        Value::Scalar { dtype, .. } => {
            slot.kind == OperandKind::Predicate || slot.ty.accepts(*dtype)
        }
        Value::Literal(_) | Value::Special(_) => true,
        Value::Index { .. } => slot.ty.integer_range().is_some(),
        Value::SourceBytes { .. } | Value::Implicit(_) => true,
    }
}
