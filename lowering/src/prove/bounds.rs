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
//! apply is in bounds of its buffer.

use crate::checked::{Apply, Value};
use crate::diag::SpanId;
use crate::program::{CmpOp, Cond};
use crate::sym::{Atoms, Poly, Prover};

/// The guard of `apply` with its bounds guards, and each bound it guards
/// (`le0 <= 0`, with the span of its operand).
pub(crate) fn guard(apply: &Apply, atoms: &Atoms) -> (Cond, Vec<(Poly, SpanId)>) {
    let prover = Prover {
        atoms,
        facts: &apply.facts,
    };
    let mut guard = apply.user_guard.clone();
    let mut guarded = Vec::new();
    for operand in &apply.operands {
        let Value::Memory { bounds, .. } = &operand.value else {
            continue;
        };
        for bound in bounds.iter().filter(|b| !prover.prove_le0(&b.le0)) {
            guard = guard.and(Cond::Cmp(CmpOp::Le, bound.le0.clone()));
            guarded.push((bound.le0.clone(), operand.span));
        }
    }
    (guard, guarded)
}
