//! The convergence obligation: a collective of scope S (`shfl.sync`,
//! `redux.sync`, `bar.sync`, ..) runs in every thread of one S together.
//!
//! **Input**: the collective (its opcode, scope, `pred` guard and what it
//! is, for the message), the runtime `if`s and loops around it
//! ([`ControlFrame`], each with the uniformity of its condition or trip
//! count) and what uniformity is read from ([`Uniformities`]: the atoms,
//! the block shape, the uniformity of each runtime loop variable).
//! **Output**: TK0516 at the first enclosing condition, loop or `pred` that
//! can differ between the threads of one S; nothing when all are uniform
//! over S. Per-apply, like bounds, order and alignment: the walk asks as it
//! meets each collective, so its error comes in statement order and the
//! statement is not checked further.
//!
//! The compiler supplies the collective's member mask (the whole scope), so
//! a collective that passes is executed by every thread the mask names.

use std::collections::HashMap;

use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::Cond;
use crate::scope::{Scope, Uniformity};
use crate::sym::{AtomId, AtomKind, Atoms, Poly};

/// An enclosing runtime `if` or loop, for the convergence rule.
#[derive(Debug, Clone)]
pub(crate) struct ControlFrame {
    pub span: SpanId,
    pub uniformity: Uniformity,
    /// "`if` condition", "loop bounds".
    pub what: &'static str,
}

/// The uniformity of runtime loop variables, by atom.
pub(crate) type LoopUniformity = HashMap<AtomId, Uniformity>;

/// What the uniformity of a value is read from.
pub(crate) struct Uniformities<'a> {
    pub atoms: &'a Atoms,
    /// The block shape.
    pub block: [u32; 3],
    pub loops: &'a LoopUniformity,
}

impl Uniformities<'_> {
    /// Over which threads `poly` is the same.
    pub(crate) fn of_poly(&self, poly: &Poly) -> Uniformity {
        poly.atoms()
            .into_iter()
            .map(|atom| self.of_atom(atom))
            .min()
            .unwrap_or(Uniformity::Grid)
    }

    fn of_atom(&self, atom: AtomId) -> Uniformity {
        let [bx, by, _] = self.block;
        match &self.atoms.get(atom).kind {
            AtomKind::Symbol(_) | AtomKind::Param(_) | AtomKind::GridDim(_) => Uniformity::Grid,
            // A `CtaId` atom exists only along axes no cluster spans, where
            // the CTAs of a cluster share it.
            AtomKind::CtaId(_) | AtomKind::ClusterId(_) => Uniformity::Cluster,
            AtomKind::ClusterCtaId(_) => Uniformity::Cta,
            AtomKind::WarpId | AtomKind::WarpInGroup => Uniformity::Warp,
            AtomKind::WarpgroupId => Uniformity::Warpgroup,
            // A value read from a register: any thread's own.
            AtomKind::LaneId | AtomKind::LaneField { .. } | AtomKind::Register { .. } => {
                Uniformity::Thread
            }
            // A warp lies inside one row of x when the row is whole warps.
            AtomKind::ThreadId(1) if bx % 32 == 0 => Uniformity::Warp,
            AtomKind::ThreadId(2) if (bx * by) % 32 == 0 => Uniformity::Warp,
            AtomKind::ThreadId(_) => Uniformity::Thread,
            AtomKind::LoopVar => self.loops.get(&atom).copied().unwrap_or(Uniformity::Thread),
            AtomKind::Computed(_, args) => args
                .iter()
                .map(|a| self.of_poly(a))
                .min()
                .unwrap_or(Uniformity::Grid),
        }
    }

    /// Over which threads `cond` is the same. A predicate register is
    /// assumed to differ between threads.
    pub(crate) fn of_cond(&self, cond: &Cond) -> Uniformity {
        match cond {
            Cond::Const(_) | Cond::Param(_) => Uniformity::Grid,
            Cond::Cmp(_, poly) => self.of_poly(poly),
            Cond::Register { .. } => Uniformity::Thread,
            Cond::Not(inner) => self.of_cond(inner),
            Cond::And(a, b) | Cond::Or(a, b) => self.of_cond(a).min(self.of_cond(b)),
        }
    }
}

/// One collective or barrier as the rule reads it.
pub(crate) struct Collective<'a> {
    pub opcode: &'a str,
    pub scope: Scope,
    /// Its `pred` (`true` without one), and where the `pred` is written
    /// (the statement without one).
    pub guard: &'a Cond,
    pub guard_span: SpanId,
    /// "a CTA barrier", "a warp collective".
    pub what: &'a str,
}

/// The convergence error of `collective` under `control`, if any: no
/// enclosing condition, runtime loop or `pred` may differ between the
/// threads of one scope.
pub(crate) fn prove(
    collective: &Collective<'_>,
    control: &[ControlFrame],
    uniform: &Uniformities<'_>,
) -> Option<Diagnostic> {
    let scope = collective.scope;
    let needs = scope.needs();
    let (span, kind) = control
        .iter()
        .find(|frame| frame.uniformity < needs)
        .map(|frame| (frame.span, frame.what))
        .or_else(|| {
            (uniform.of_cond(collective.guard) < needs).then_some((collective.guard_span, "`pred`"))
        })?;
    Some(
        Diagnostic::new(
            Code::DIVERGENT_COLLECTIVE,
            span,
            format!(
                "this {kind} can differ between the threads of a {}, but `{}` ({}) runs under it: every thread of the {} must execute it together",
                scope.prose(),
                collective.opcode,
                collective.what,
                scope.prose()
            ),
        )
        .with_note(if scope == Scope::Cluster {
            "values the same across a cluster: symbols, scalar parameters, `cluster_id`, `grid_dim`, loop variables of such bounds".to_string()
        } else {
            format!(
                "values the same across a {}: symbols, scalar parameters, `cta_id`, `grid_dim`{}, loop variables of such bounds",
                scope.prose(),
                if scope == Scope::Warp { ", `warp_id()`" } else { "" }
            )
        })
        .with_help(if matches!(scope, Scope::Cta | Scope::Cluster) {
            format!(
                "move the barrier out of the branch or loop, where every thread of the {} reaches it",
                scope.prose()
            )
        } else {
            format!(
                "run the collective unconditionally and predicate what uses its result, or make the condition the same for the whole {}",
                scope.prose()
            )
        }),
    )
}
