//! The cluster ring obligation, static half: the statements of an mbarrier
//! ring that crosses the CTAs of a cluster run alike in every CTA, so
//! that the async-ownership walk (`super::async_copies`), which follows
//! one CTA, proves the ring for all of them.
//!
//! **Model** (PTX ISA 8.0, "cp.async.bulk.tensor" with
//! `.multicast::cluster`, "mbarrier.arrive" on a `.shared::cluster`
//! address). A multicast tensor copy writes its box at the same offset of
//! every CTA's copy of its destination named in `ctaMask`, and signals the
//! mbarrier at the same offset in each of them. An arrive on another
//! CTA's mbarrier counts toward that CTA's phase and, with `.release` at
//! `.cluster` scope, orders the arriving thread's earlier accesses before
//! the threads of that CTA that wait (`.acquire.cluster`) for the phase.
//!
//! **The symmetric cluster.** The walk follows one CTA and counts for it
//! what every CTA does, which is exact when every CTA runs the ring's
//! statements alike: each issues its multicast (mask: every CTA) and so
//! each CTA's object receives the boxes of all of them; each statement
//! that arrives on `ring.in_cta(q)` sends every CTA's arrivals to one CTA
//! and gives every CTA the arrivals of one, when `q` is a permutation of
//! the ranks. This module proves those premises:
//!
//! - a multicast copy's mask is every CTA of the declared cluster
//!   (TK0433; that the CTAs' destinations are apart is the walk's, which
//!   sees each CTA's);
//! - an arrival's CTA is, over the ranks, one permutation of them fixed
//!   by the rank alone (TK0434), and one that reaches another CTA releases
//!   at cluster scope (`.release.cluster`, TK0434);
//! - a wait on a ring other CTAs arrive on acquires at cluster scope
//!   (`.acquire.cluster`, TK0435);
//! - multicast copies, those arrivals and every operation on a ring they
//!   signal run under conditions, loop bounds and `pred`s that are the
//!   same in every CTA of the cluster: built from the thread's index,
//!   launch values, the cluster's id and other such loop variables, never
//!   from `cluster_ctarank()`, `cluster_ctaid`, a `cta_id` along the
//!   cluster's axes or a value read from memory (TK0432).
//!
//! Guarantee: in a kernel this module accepts, the CTAs of a cluster run
//! the same sequence of operations on every ring that crosses them, with
//! the same thread sets, so the walk's per-CTA counts of arrivals,
//! transaction bytes and tickets hold in each CTA.

use std::collections::BTreeSet;

use crate::checked::{Apply, Node, Value};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::Cond;
use crate::ptx::{Effect, Slot};
use crate::sym::{AtomId, AtomKind, Atoms, Poly};

/// The table's form ids of the multicast tensor copies start with this.
const MULTICAST_FORM: &str = "cp.async.bulk.tensor.load.tile.multicast";
/// The table's form of an arrive on a `.shared::cluster` mbarrier.
pub(crate) const REMOTE_ARRIVE_FORM: &str = "mbarrier.arrive.remote";

/// Whether `apply` is a multicast tensor copy.
pub(crate) fn is_multicast(apply: &Apply) -> bool {
    apply.form.form.id.starts_with(MULTICAST_FORM)
}

/// Whether `apply` arrives on a `.shared::cluster` mbarrier address.
pub(crate) fn is_remote_arrive(apply: &Apply) -> bool {
    apply.form.form.id == REMOTE_ARRIVE_FORM
}

/// Whether the body issues a multicast copy anywhere.
pub(crate) fn has_multicast(body: &[Node]) -> bool {
    body.iter().any(|node| match node {
        Node::Apply(apply) => is_multicast(apply),
        Node::If {
            then, otherwise, ..
        } => has_multicast(then) || has_multicast(otherwise),
        Node::Loop(looped) => has_multicast(&looped.body),
        _ => false,
    })
}

/// The CTAs of a cluster of shape `cluster`.
pub(crate) fn cluster_size(cluster: [u32; 3]) -> i128 {
    cluster.iter().map(|c| i128::from(*c)).product()
}

/// `%cluster_ctaid` of the CTA of rank `rank` (x fastest).
pub(crate) fn cluster_coordinates(cluster: [u32; 3], rank: i128) -> [i128; 3] {
    let [cx, cy, _] = cluster.map(i128::from);
    [rank % cx, (rank / cx) % cy, rank / (cx * cy)]
}

/// The value of `p` in the CTA at `coordinates` of its cluster, where `p`
/// is built from constants and the CTA's cluster index alone (`None`
/// otherwise).
pub(crate) fn value_at_rank(atoms: &Atoms, p: &Poly, coordinates: [i128; 3]) -> Option<i128> {
    let mut total = 0i128;
    for (term, coefficient) in p.terms() {
        let mut value = coefficient;
        for atom in term {
            value = value.checked_mul(atom_at_rank(atoms, *atom, coordinates)?)?;
        }
        total = total.checked_add(value)?;
    }
    Some(total)
}

fn atom_at_rank(atoms: &Atoms, atom: AtomId, coordinates: [i128; 3]) -> Option<i128> {
    match &atoms.get(atom).kind {
        AtomKind::ClusterCtaId(axis) => Some(coordinates[usize::from(*axis)]),
        AtomKind::Computed(op, args) if args.len() == 2 => op.fold(
            value_at_rank(atoms, &args[0], coordinates)?,
            value_at_rank(atoms, &args[1], coordinates)?,
        ),
        _ => None,
    }
}

/// The rank `q` names in each CTA of the cluster, by the CTA's rank, when
/// it is a permutation of the ranks fixed by the rank alone.
pub(crate) fn rank_permutation(atoms: &Atoms, cluster: [u32; 3], q: &Poly) -> Option<Vec<i128>> {
    let size = cluster_size(cluster);
    let named: Vec<i128> = (0..size)
        .map(|r| value_at_rank(atoms, q, cluster_coordinates(cluster, r)))
        .collect::<Option<_>>()?;
    let distinct: BTreeSet<i128> = named.iter().copied().collect();
    (distinct.len() == named.len() && named.iter().all(|n| (0..size).contains(n))).then_some(named)
}

/// The mbarrier operand of `apply`: its buffer, span and the CTA it names
/// (`None`: the executing CTA's own).
fn barrier_of(apply: &Apply) -> Option<(usize, SpanId, Option<&Poly>)> {
    apply.operands.iter().find_map(|o| match &o.value {
        Value::Memory { buffer, cta, .. } if o.slot.mbarrier => {
            Some((buffer.index, o.span, cta.as_ref()))
        }
        _ => None,
    })
}

/// What the async-ownership walk needs to know of a kernel's rings that
/// cross CTAs.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClusterRings {
    /// The cluster's shape (`[1, 1, 1]`: none).
    pub shape: [u32; 3],
    /// The kernel issues multicast copies.
    pub multicast: bool,
    /// Rings other CTAs arrive on (an arrival statement whose CTA is
    /// another for some rank).
    pub reached: BTreeSet<usize>,
}

impl ClusterRings {
    /// Reads `body` of a kernel with cluster shape `shape`.
    pub(crate) fn of(body: &[Node], atoms: &Atoms, shape: [u32; 3]) -> ClusterRings {
        let mut rings = ClusterRings {
            shape,
            multicast: has_multicast(body),
            reached: BTreeSet::new(),
        };
        rings.find_reached(body, atoms);
        rings
    }

    fn find_reached(&mut self, nodes: &[Node], atoms: &Atoms) {
        for node in nodes {
            match node {
                Node::Apply(apply) if is_remote_arrive(apply) => {
                    let Some((ring, _, Some(q))) = barrier_of(apply) else {
                        continue;
                    };
                    let crosses = rank_permutation(atoms, self.shape, q)
                        .is_none_or(|p| p.iter().enumerate().any(|(r, q)| *q != r as i128));
                    if crosses {
                        self.reached.insert(ring);
                    }
                }
                Node::If {
                    then, otherwise, ..
                } => {
                    self.find_reached(then, atoms);
                    self.find_reached(otherwise, atoms);
                }
                Node::Loop(looped) => self.find_reached(&looped.body, atoms),
                _ => {}
            }
        }
    }
}

/// What the module reads.
pub(crate) struct Context<'a> {
    pub atoms: &'a Atoms,
    pub cluster: [u32; 3],
    pub shared_names: &'a [String],
}

/// TK0432-TK0435 over `body` (module doc).
pub(crate) fn prove(body: &[Node], context: &Context<'_>) -> Vec<Diagnostic> {
    let mut check = Check {
        context,
        signalled: BTreeSet::new(),
        reached: BTreeSet::new(),
        symmetric_loops: BTreeSet::new(),
        diags: Vec::new(),
    };
    check.collect(body);
    if check.signalled.is_empty() {
        return check.diags;
    }
    check.walk(body, None);
    check.diags
}

/// Why a point of the body may run differently in the CTAs of a cluster,
/// and whether a statement under it was reported already.
struct Asymmetry {
    why: &'static str,
    reported: bool,
}

struct Check<'a, 'c> {
    context: &'a Context<'c>,
    /// Rings a multicast copy or an arrival from another CTA signals.
    signalled: BTreeSet<usize>,
    /// Rings another CTA arrives on.
    reached: BTreeSet<usize>,
    /// Loop variables whose loops run alike in every CTA.
    symmetric_loops: BTreeSet<AtomId>,
    diags: Vec<Diagnostic>,
}

impl Check<'_, '_> {
    /// The rings that cross CTAs; the mask, target and order of each
    /// multicast copy and remote arrival.
    fn collect(&mut self, nodes: &[Node]) {
        for node in nodes {
            match node {
                Node::Apply(apply) if is_multicast(apply) => self.multicast(apply),
                Node::Apply(apply) if is_remote_arrive(apply) => self.remote_arrive(apply),
                Node::If {
                    then, otherwise, ..
                } => {
                    self.collect(then);
                    self.collect(otherwise);
                }
                Node::Loop(looped) => self.collect(&looped.body),
                _ => {}
            }
        }
    }

    fn cluster_size(&self) -> i128 {
        cluster_size(self.context.cluster)
    }

    fn multicast(&mut self, apply: &Apply) {
        let Some((ring, span, _)) = barrier_of(apply) else {
            return;
        };
        self.signalled.insert(ring);
        let size = self.cluster_size();
        let every = (1i128 << size) - 1;
        let mask = apply.operands.iter().find(|o| o.slot.name == "ctaMask");
        let value = mask.and_then(|o| match &o.value {
            Value::Literal(crate::ast::LiteralValue::Int(v)) => Some(*v),
            Value::Index { value, .. } => value.as_const(),
            _ => None,
        });
        if size > 1 && value == Some(every) {
            return;
        }
        let at = mask.map_or(span, |o| o.span);
        let diag = if size == 1 {
            Diagnostic::new(
                Code::MULTICAST_COPY,
                at,
                format!(
                    "`{}` copies to the CTAs of a cluster, but this kernel declares none",
                    apply.opcode
                ),
            )
            .with_help("declare the cluster in the attribute (`cluster = [2, 1, 1]`), or copy with the form without `.multicast::cluster`")
        } else {
            Diagnostic::new(
                Code::MULTICAST_COPY,
                at,
                format!(
                    "this multicast's CTA mask must name every CTA of the cluster of {size}: the checker proves rings that every CTA fills alike"
                ),
            )
            .with_help(format!("pass the mask {every:#b}"))
        };
        self.diags.push(diag);
    }

    fn remote_arrive(&mut self, apply: &Apply) {
        let Some((ring, span, cta)) = barrier_of(apply) else {
            return;
        };
        let name = &self.context.shared_names[ring];
        let size = self.cluster_size();
        let permutation = match cta {
            None => Some((0..size).collect::<Vec<_>>()),
            Some(q) => rank_permutation(self.context.atoms, self.context.cluster, q),
        };
        let Some(permutation) = permutation else {
            self.diags.push(
                Diagnostic::new(
                    Code::REMOTE_ARRIVAL,
                    span,
                    format!("the checker cannot tell which CTA's `{name}` each CTA arrives on here: the rank must be computed from `cluster_ctarank()` and constants, and send each CTA's arrivals to a different CTA"),
                )
                .with_note("the ring proof follows one CTA and counts what every CTA does: each CTA's object must receive the arrivals of exactly one CTA per statement")
                .with_help("arrive on `(cluster_ctarank() + d) % n` for a constant `d`, one statement per `d`"),
            );
            return;
        };
        self.signalled.insert(ring);
        let crosses = permutation.iter().enumerate().any(|(r, q)| *q != r as i128);
        if !crosses {
            return;
        }
        self.reached.insert(ring);
        let sem = apply.form.get(Slot::Sem);
        let scope = apply.form.get(Slot::Scope);
        if sem == Some("relaxed") || scope != Some("cluster") {
            self.diags.push(
                Diagnostic::new(
                    Code::REMOTE_ARRIVAL,
                    span,
                    format!(
                        "`{}` arrives on another CTA's `{name}` without releasing at cluster scope: that CTA's waits would not be ordered after this thread's accesses",
                        apply.opcode
                    ),
                )
                .with_help("arrive with `.release.cluster`: `mbarrier.arrive.release.cluster.shared::cluster.b64`"),
            );
        }
    }

    /// Whether `p` is the same in every CTA of a cluster (for the same
    /// thread index).
    fn symmetric_poly(&self, p: &Poly) -> bool {
        p.atoms().into_iter().all(|atom| self.symmetric_atom(atom))
    }

    fn symmetric_atom(&self, atom: AtomId) -> bool {
        match &self.context.atoms.get(atom).kind {
            // `cta_id` is an atom only along axes no cluster spans.
            AtomKind::ClusterCtaId(_) | AtomKind::Register { .. } => false,
            AtomKind::LoopVar => self.symmetric_loops.contains(&atom),
            AtomKind::Computed(_, args) => args.iter().all(|a| self.symmetric_poly(a)),
            _ => true,
        }
    }

    fn symmetric_cond(&self, cond: &Cond) -> bool {
        match cond {
            Cond::Const(_) | Cond::Param(_) => true,
            Cond::Cmp(_, poly) => self.symmetric_poly(poly),
            Cond::Register { .. } => false,
            Cond::Not(inner) => self.symmetric_cond(inner),
            Cond::And(a, b) | Cond::Or(a, b) => self.symmetric_cond(a) && self.symmetric_cond(b),
        }
    }

    /// Whether `apply` is part of a ring that crosses CTAs.
    fn on_cluster_ring(&self, apply: &Apply) -> bool {
        if is_multicast(apply) || is_remote_arrive(apply) {
            return true;
        }
        matches!(apply.form.effect(), Effect::Mbarrier | Effect::AsyncCopy)
            && barrier_of(apply).is_some_and(|(ring, _, _)| self.signalled.contains(&ring))
    }

    fn walk(&mut self, nodes: &[Node], mut asymmetry: Option<&mut Asymmetry>) {
        for node in nodes {
            match node {
                Node::Apply(apply) if self.on_cluster_ring(apply) => {
                    self.wait_scope(apply);
                    let guard = (!self.symmetric_cond(&apply.user_guard))
                        .then_some("its `pred` may differ between the CTAs of a cluster");
                    let why = match (&asymmetry, guard) {
                        (Some(a), _) if !a.reported => Some(a.why),
                        (Some(_), _) => None,
                        (None, guard) => guard,
                    };
                    if let Some(why) = why {
                        self.asymmetric(apply, why);
                        if let Some(a) = asymmetry.as_deref_mut() {
                            a.reported = true;
                        }
                    }
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let symmetric = cond.as_ref().is_none_or(|c| self.symmetric_cond(c));
                    if symmetric || asymmetry.is_some() {
                        self.walk(then, asymmetry.as_deref_mut());
                        self.walk(otherwise, asymmetry.as_deref_mut());
                    } else {
                        let mut inner = Asymmetry {
                            why: "it runs under an `if` whose condition may differ between the CTAs of a cluster",
                            reported: false,
                        };
                        self.walk(then, Some(&mut inner));
                        self.walk(otherwise, Some(&mut inner));
                    }
                }
                Node::Loop(looped) => {
                    let symmetric = looped.header.as_ref().is_some_and(|h| {
                        self.symmetric_poly(&h.start)
                            && self.symmetric_poly(&h.end)
                            && self.symmetric_poly(&h.step)
                    });
                    if let (true, Some(header)) = (symmetric, &looped.header) {
                        self.symmetric_loops.insert(header.var);
                    }
                    if symmetric || asymmetry.is_some() {
                        self.walk(&looped.body, asymmetry.as_deref_mut());
                    } else {
                        let mut inner = Asymmetry {
                            why: "it runs in a loop whose bounds may differ between the CTAs of a cluster",
                            reported: false,
                        };
                        self.walk(&looped.body, Some(&mut inner));
                    }
                }
                _ => {}
            }
        }
    }

    fn asymmetric(&mut self, apply: &Apply, why: &str) {
        let Some((ring, span, _)) = barrier_of(apply) else {
            return;
        };
        let name = &self.context.shared_names[ring];
        self.diags.push(
            Diagnostic::new(
                Code::CLUSTER_RING_ASYMMETRIC,
                span,
                format!(
                    "`{}` is part of ring `{name}`, which the CTAs of the cluster signal for each other, but {why}",
                    apply.opcode
                ),
            )
            .with_note("every CTA must run a cluster ring's statements alike: conditions and loop bounds may use the thread's index and launch values, not `cluster_ctarank()`, `cluster_ctaid`, `cta_id` along the cluster's axes or values read from memory")
            .with_help("move the condition off the ring's statements: let every CTA run them, and guard only what differs (the coordinates of its box, its stores)"),
        );
    }

    /// A wait on a ring other CTAs arrive on acquires at cluster scope.
    fn wait_scope(&mut self, apply: &Apply) {
        if apply.form.form.mnemonic != "mbarrier.try_wait" {
            return;
        }
        let Some((ring, span, _)) = barrier_of(apply) else {
            return;
        };
        if !self.reached.contains(&ring) {
            return;
        }
        let acquires = apply.form.get(Slot::Sem) != Some("relaxed")
            && apply.form.get(Slot::Scope) == Some("cluster");
        if !acquires {
            let name = &self.context.shared_names[ring];
            self.diags.push(
                Diagnostic::new(
                    Code::CLUSTER_WAIT_SCOPE,
                    span,
                    format!(
                        "other CTAs arrive on `{name}`, but `{}` acquires at CTA scope: it is not ordered after their accesses",
                        apply.opcode
                    ),
                )
                .with_help("wait with `.acquire.cluster`: `mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64`"),
            );
        }
    }
}
