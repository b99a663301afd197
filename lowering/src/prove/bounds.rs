//! The in-bounds obligation: every memory access stays in its buffer,
//! proven from the facts in scope or guarded by a predicate the compiler
//! adds itself (SPEC §6).
//!
//! **Input**: one checked `apply`: the bounds of its memory operands' views
//! (`base + extent <= N` per sliced axis) and the facts where it runs (its
//! `pred`'s included). **Output**: the guard the apply runs under, its
//! `pred` and every bound the facts do not prove, and those bounds, so the
//! caller can check that their values fit index arithmetic. Nothing is
//! reported here: an unproven bound is never an error, it is guarded.
//!
//! Guarantee: where the returned guard holds, every memory access of the
//! apply is in bounds of its buffer; a `zero_fill` copy reads only the
//! `src-size` bytes of its source that lie in the tensor.

use crate::checked::{Apply, Value};
use crate::diag::SpanId;
use crate::layout::{Bound, BoundKind, Layout};
use crate::program::{CmpOp, Cond};
use crate::ptx::form::Access;
use crate::sym::{Atoms, Poly, ProofMemo};

/// What an apply runs under: the guard with its bounds guards, each bound
/// it guards (`le0 <= 0`, with the span of its operand), and, for a
/// `zero_fill` copy, its `src-size` (`Value::SourceBytes` filled in).
pub(crate) struct Guarded {
    pub guard: Cond,
    pub bounds: Vec<(Poly, SpanId)>,
    pub source_bytes: Option<Value>,
}

/// The guard of `apply` with its bounds guards. A `zero_fill` copy's
/// source is not guarded: the bytes past the end of its tensor's last axis
/// are zero-filled (its `src-size` counts the ones before), and where
/// another of its bounds fails nothing is read (`src-size` 0).
/// `proofs` remembers the prover's answers over `atoms` between calls.
pub(crate) fn guard(apply: &Apply, atoms: &Atoms, proofs: &ProofMemo) -> Guarded {
    let proven = |le0: &Poly| proofs.prove_le0(atoms, &apply.facts, le0);
    let mut guard = apply.user_guard.clone();
    let mut guarded = Vec::new();
    let size = apply.operands.iter().find_map(|o| match o.value {
        Value::SourceBytes { size, .. } => Some(size),
        _ => None,
    });
    let mut source_bytes = None;
    for operand in &apply.operands {
        let Value::Memory { bounds, view, .. } = &operand.value else {
            continue;
        };
        let unproven = bounds.iter().filter(|b| !proven(&b.le0));
        match size {
            Some(size) if operand.slot.access == Access::Read => {
                let (in_bounds, remaining) = zero_filled(view, size, unproven.clone());
                guarded.extend(unproven.map(|b| (b.le0.clone(), operand.span)));
                source_bytes = Some(Value::SourceBytes {
                    in_bounds,
                    remaining,
                    size,
                });
            }
            _ => {
                for bound in unproven {
                    guard = guard.and(Cond::Cmp(CmpOp::Le, bound.le0.clone()));
                    guarded.push((bound.le0.clone(), operand.span));
                }
            }
        }
    }
    Guarded {
        guard,
        bounds: guarded,
        source_bytes,
    }
}

/// The `src-size` of a zero-filled source of `size` bytes whose bounds
/// `unproven` the facts do not prove: the bytes before the end of the
/// tensor's last axis (when the view runs along it contiguously), where
/// every other bound holds.
fn zero_filled<'b>(
    view: &Layout,
    size: i128,
    unproven: impl Iterator<Item = &'b Bound>,
) -> (Cond, Poly) {
    let region = &view.region;
    let last = region.starts.len().checked_sub(1);
    let element = view.dtype.size_bytes() as i128;
    // The view's last axis is the tensor's, with consecutive elements.
    let along_last = last.is_some_and(|last| {
        region
            .axes
            .as_ref()
            .is_some_and(|axes| axes.last() == Some(&last))
            && region.steps[last] == 1
            && view.strides.last().and_then(Poly::as_const) == Some(element)
    });
    let mut in_bounds = Cond::Const(true);
    let mut remaining = Poly::constant(size);
    for bound in unproven {
        if along_last && Some(bound.axis) == last && bound.what == BoundKind::End {
            // `le0 = start + count - N`: `N - start = count - le0` elements
            // lie in the tensor.
            let count = region.counts[bound.axis].as_const().unwrap_or(0);
            remaining = Poly::constant(count).sub(&bound.le0).scale(element);
        } else {
            in_bounds = in_bounds.and(Cond::Cmp(CmpOp::Le, bound.le0.clone()));
        }
    }
    (in_bounds, remaining)
}
