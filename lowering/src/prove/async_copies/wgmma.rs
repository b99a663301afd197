//! The registers of `wgmma.mma_async` in the async-ownership walk.
//!
//! **Model** (PTX ISA 9.7.15.6-9.7.15.8): a thread's `wgmma.mma_async`
//! operations join a wgmma group at its next `wgmma.commit_group`;
//! `wgmma.wait_group n` waits until at most the `n` most recent groups are
//! pending. Until then the operation may read its accumulator and its A
//! fragment registers and write the accumulator: "accessing the
//! accumulator register or the input registers containing fragments of
//! matrix A ... before the wgmma.wait_group ... is undefined behaviour".
//! One exception: further `wgmma.mma_async` of the same shape into the same
//! accumulator are ordered after it by the hardware (a chain over K).
//! `wgmma.fence` must come between any register access of the warpgroup
//! and a `wgmma.mma_async` that accesses the same registers (accumulator or
//! A fragment), and before the first `wgmma.mma_async`; again the chain of
//! same-shape accumulations needs none.
//!
//! **The walk** keeps, per path, the operations that may be in flight
//! ([`InFlight`]: their registers and the range of commits since their
//! issue), the register bytes of the kernel's wgmma tiles other
//! instructions accessed since the last `wgmma.fence`, and whether a
//! `wgmma.fence` ran on every path. Joins take the union (a fence on both
//! paths only counts); registers do not move with loop variables, so a
//! loop's iterations need no re-expression.
//!
//! **Rules**: TK0427 an access to in-flight registers; TK0426 a
//! `wgmma.mma_async` whose registers were accessed since the last
//! `wgmma.fence` (or with no fence before it); TK0428 an operation still
//! in flight where the kernel ends. The shared bytes its descriptors read
//! are the parent walk's copies ([`super::Role::WgmmaSource`]).
//!
//! Guarantee: in a kernel this obligation accepts, no instruction touches
//! the registers of a `wgmma.mma_async` between its issue and the wait that
//! retires it, every `wgmma.mma_async` follows a `wgmma.fence` that follows
//! every other access to its registers, and none is in flight at the end.

use std::rc::Rc;

use super::key_index::KeyIndex;
use super::thread_sets::ThreadSet;
use super::{COMMIT_CAP, SCAN_UP_TO, Status, join_status, wait_count};
use crate::checked::{Apply, Node};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::{Cond, Lane};
use crate::ptx::Slot;
use crate::ptx::form::Effect;

/// A `wgmma.mma_async` that may be in flight.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct InFlight {
    number: usize,
    opcode: Rc<str>,
    span: SpanId,
    shape: Rc<str>,
    /// The accumulator's register bytes (D, and C when it accumulates).
    accumulator: Rc<Vec<Lane>>,
    /// The A fragment's register bytes (the register-A form).
    inputs: Rc<Vec<Lane>>,
    status: Status,
    /// An access to its registers was reported: its missing wait is not
    /// reported again where the kernel ends.
    reported: bool,
    /// The threads that issued it (`None`: not known).
    issuers: Option<ThreadSet>,
}

/// What one thread's path holds of the wgmma protocol.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Registers {
    in_flight: Vec<InFlight>,
    /// Register bytes of wgmma tiles accessed since the last fence, with
    /// the statement that accessed them: shared by the states the walk
    /// makes of it until one changes it (a warpgroup's whole accumulator,
    /// copied at every `if` otherwise), and found unchanged by address.
    touched: Rc<Vec<(Lane, usize)>>,
    /// On some path to here no `wgmma.fence` ran (the kernel starts
    /// unfenced: [`Registers::at_entry`]). The default, `false`, is what
    /// joins keep: a join is unfenced if either path is.
    unfenced: bool,
}

impl Registers {
    /// The state where the kernel starts: nothing in flight, no fence.
    pub(super) fn at_entry() -> Registers {
        Registers {
            unfenced: true,
            ..Registers::default()
        }
    }
}

/// Whether `touched` holds register bytes `lane` (by any statement). A
/// loop over the slice comparing fields: built without optimizations (the
/// macro's default), an iterator adapter and a derived `==` per entry are
/// calls each, and a warpgroup's accumulator holds a hundred lanes.
fn holds_lane(touched: &[(Lane, usize)], lane: &Lane) -> bool {
    let mut at = 0;
    while at < touched.len() {
        let held = &touched[at].0;
        if held.byte_offset == lane.byte_offset
            && held.tile == lane.tile
            && held.bytes == lane.bytes
        {
            return true;
        }
        at += 1;
    }
    false
}

/// The tiles any `wgmma.mma_async` of the body uses as D or A: the only
/// ones whose accesses the fence rule follows.
pub(super) fn wgmma_tiles(body: &[Node], out: &mut Vec<usize>) {
    for node in body {
        match node {
            Node::Apply(apply) if apply.form.effect() == Effect::WarpgroupMma => {
                for coordinate in apply.coordinates.iter() {
                    for (_, lane) in coordinate.reads.iter().chain(&coordinate.writes) {
                        if !out.contains(&lane.tile) {
                            out.push(lane.tile);
                        }
                    }
                }
            }
            Node::If {
                then, otherwise, ..
            } => {
                wgmma_tiles(then, out);
                wgmma_tiles(otherwise, out);
            }
            Node::Loop(looped) => wgmma_tiles(&looped.body, out),
            _ => {}
        }
    }
}

fn overlaps(a: &Lane, b: &Lane) -> bool {
    a.tile == b.tile
        && a.byte_offset < b.byte_offset + b.bytes
        && b.byte_offset < a.byte_offset + a.bytes
}

/// Every register byte `apply` reads or writes.
pub(super) fn lanes(apply: &Apply) -> impl Iterator<Item = &Lane> {
    apply
        .coordinates
        .iter()
        .flat_map(|c| c.reads.iter().chain(&c.writes).map(|(_, lane)| lane))
}

impl Registers {
    /// Joins two paths.
    pub(super) fn join(&mut self, other: Registers) {
        for op in other.in_flight {
            match self.in_flight.iter_mut().find(|o| o.number == op.number) {
                Some(found) => {
                    found.status = join_status(found.status, op.status);
                    found.reported |= op.reported;
                }
                None => self.in_flight.push(op),
            }
        }
        // Both paths mostly touched the same registers first (a
        // warpgroup's whole accumulator), in the same order: those are
        // held already.
        if !Rc::ptr_eq(&self.touched, &other.touched) {
            let common = self
                .touched
                .iter()
                .zip(other.touched.iter())
                .take_while(|(a, b)| a == b)
                .count();
            let rest = &other.touched[common..];
            // A whole accumulator's registers past the common part: find
            // them by lane, not by a scan of the list per register.
            let mut by_lane =
                (rest.len() > SCAN_UP_TO).then(|| KeyIndex::of(&self.touched, |(lane, _)| *lane));
            for &touch in rest {
                let held = match &by_lane {
                    Some(index) => index
                        .find(&touch.0, |at| self.touched[at].1 == touch.1)
                        .is_some(),
                    None => self.touched.contains(&touch),
                };
                if !held {
                    if let Some(index) = &mut by_lane {
                        index.push(touch.0);
                    }
                    Rc::make_mut(&mut self.touched).push(touch);
                }
            }
        }
        self.unfenced |= other.unfenced;
    }

    /// On the arm of an `if` on the thread's index that `arm`'s threads
    /// run: the operations none of them issued are not theirs (the other
    /// arm's threads hold them), so the join keeps the issuers' arm.
    pub(super) fn keep_issued_by(&mut self, arm: &Option<ThreadSet>) {
        let Some(arm) = arm else { return };
        self.in_flight
            .retain(|op| !op.issuers.as_ref().is_some_and(|i| i.disjoint(arm)));
    }

    /// Whether `self` holds everything `other` does (a loop head has
    /// converged).
    pub(super) fn subsumes(&self, other: &Registers) -> bool {
        (self.unfenced || !other.unfenced)
            && (Rc::ptr_eq(&self.touched, &other.touched)
                || self.touched == other.touched
                || other.touched.iter().all(|t| self.touched.contains(t)))
            && other.in_flight.iter().all(|op| {
                self.in_flight.iter().any(|o| {
                    o.number == op.number
                        && match (o.status, op.status) {
                            // Only `lo` decides (a wait retires what at least
                            // `n + 1` commits followed): `hi` may grow with
                            // every iteration without changing a verdict.
                            (Status::Pending { lo, .. }, Status::Pending { lo: l2, .. }) => {
                                lo <= l2
                            }
                            (Status::Pending { .. }, Status::Retired) => true,
                            (Status::Retired, Status::Retired) => true,
                            (Status::Retired, Status::Pending { .. }) => false,
                        }
                })
            })
    }

    /// The first operation still in flight (the kernel's end).
    pub(super) fn never_waited(&self) -> Option<Diagnostic> {
        let first = self
            .in_flight
            .iter()
            .filter(|o| matches!(o.status, Status::Pending { .. }) && !o.reported)
            .min_by_key(|o| o.number)?;
        Some(
            Diagnostic::new(
                Code::WGMMA_NEVER_WAITED,
                first.span,
                format!(
                    "this `{}` (statement {}) may still be in flight when the kernel ends",
                    first.opcode, first.number
                ),
            )
            .with_help("commit its group and wait for it before the kernel ends: `apply(ptx[\"wgmma.commit_group.sync.aligned\"], scope = \"warpgroup\")`, then `apply(ptx[\"wgmma.wait_group.sync.aligned\"], 0, scope = \"warpgroup\")`"),
        )
    }
}

/// The walk's steps for the wgmma protocol; `report` receives errors.
pub(super) struct Step<'a> {
    /// The tiles [`wgmma_tiles`] found.
    pub tiles: &'a [usize],
    pub report: &'a mut dyn FnMut(Diagnostic),
    /// The threads that run the `apply` (for a `wgmma.mma_async`).
    pub issuers: Option<ThreadSet>,
}

impl Step<'_> {
    /// One `apply` (any form) against the wgmma state.
    pub(super) fn apply(&mut self, apply: &Apply, state: &mut Registers) {
        match apply.form.effect() {
            Effect::WarpgroupMma => self.issue(apply, state),
            Effect::Fence if apply.form.form.mnemonic == "wgmma.fence" => {
                state.unfenced = false;
                if !state.touched.is_empty() {
                    state.touched = Rc::default();
                }
            }
            Effect::AsyncGroup if apply.form.form.mnemonic.starts_with("wgmma.") => {
                group(apply, state);
            }
            _ => self.access(apply, state),
        }
    }

    /// Another instruction's register accesses: not to in-flight
    /// registers; remembered for the fence rule.
    fn access(&mut self, apply: &Apply, state: &mut Registers) {
        if self.tiles.is_empty() {
            return;
        }
        let mut reported = false;
        for lane in lanes(apply) {
            if !self.tiles.contains(&lane.tile) {
                continue;
            }
            if !reported
                && let Some(op) = state.in_flight.iter_mut().find(|op| {
                    matches!(op.status, Status::Pending { .. })
                        && op
                            .accumulator
                            .iter()
                            .chain(op.inputs.iter())
                            .any(|l| overlaps(l, lane))
                })
            {
                reported = true;
                op.reported = true;
                let op = op.clone();
                let span = operand_span(apply, lane);
                let what = if op.accumulator.iter().any(|l| overlaps(l, lane)) {
                    "its accumulator"
                } else {
                    "its A fragment"
                };
                (self.report)(
                    Diagnostic::new(
                        Code::WGMMA_IN_FLIGHT,
                        span,
                        format!(
                            "this `{}` accesses registers of the `{}` of statement {} ({what}), which may still be in flight",
                            apply.opcode, op.opcode, op.number
                        ),
                    )
                    .with_note("a wgmma reads and writes its registers at any time until a `wgmma.wait_group` retires it")
                    .with_help(wait_help(&op)),
                );
            }
            if !holds_lane(&state.touched, lane) {
                Rc::make_mut(&mut state.touched).push((*lane, apply.number));
            }
        }
    }

    /// A `wgmma.mma_async`: fenced, not meeting other in-flight
    /// operations' registers but its chain's, then in flight.
    fn issue(&mut self, apply: &Apply, state: &mut Registers) {
        let accumulator: Vec<Lane> = apply
            .coordinates
            .iter()
            .flat_map(|c| c.writes.iter().map(|(_, lane)| *lane))
            .collect();
        let inputs: Vec<Lane> = apply
            .coordinates
            .iter()
            .flat_map(|c| {
                c.reads
                    .iter()
                    .filter(|(i, _)| *i == 1)
                    .map(|(_, lane)| *lane)
            })
            .collect();
        let shape: Rc<str> = Rc::from(apply.form.get(Slot::Shape).unwrap_or(""));
        let span = apply.operands.first().map_or(SpanId::default(), |o| o.span);
        let mine = |lane: &Lane| accumulator.iter().chain(&inputs).any(|l| overlaps(l, lane));
        if state.unfenced {
            (self.report)(
                Diagnostic::new(
                    Code::WGMMA_FENCE,
                    span,
                    format!("this `{}` has no `wgmma.fence` before it", apply.opcode),
                )
                .with_note("the warpgroup's register accesses must be ordered before a wgmma reads its registers")
                .with_help("put `apply(ptx[\"wgmma.fence.sync.aligned\"], scope = \"warpgroup\")` before the first wgmma and after any other access to its registers"),
            );
        } else if let Some((_, statement)) = state.touched.iter().find(|(l, _)| mine(l)) {
            (self.report)(
                Diagnostic::new(
                    Code::WGMMA_FENCE,
                    span,
                    format!(
                        "statement {statement} accessed registers of this `{}` after the last `wgmma.fence`",
                        apply.opcode
                    ),
                )
                .with_note("the warpgroup's register accesses must be ordered before a wgmma reads its registers")
                .with_help(format!("put `apply(ptx[\"wgmma.fence.sync.aligned\"], scope = \"warpgroup\")` between statement {statement} and this wgmma")),
            );
        }
        // In flight: only the chain of the same shape into the same
        // accumulator (A fragments never written by the chain) may meet it.
        let chained = |op: &InFlight| {
            op.shape == shape
                && *op.accumulator == accumulator
                && !op
                    .inputs
                    .iter()
                    .any(|l| accumulator.iter().any(|a| overlaps(a, l)))
                && !inputs
                    .iter()
                    .any(|l| op.accumulator.iter().any(|a| overlaps(a, l)))
        };
        if let Some(op) = state.in_flight.iter().find(|op| {
            matches!(op.status, Status::Pending { .. })
                && op.accumulator.iter().chain(op.inputs.iter()).any(&mine)
                && !chained(op)
        }) {
            (self.report)(
                Diagnostic::new(
                    Code::WGMMA_IN_FLIGHT,
                    span,
                    format!(
                        "this `{}` uses registers of the `{}` of statement {}, which may still be in flight",
                        apply.opcode, op.opcode, op.number
                    ),
                )
                .with_note("only wgmmas of the same shape accumulating into the same registers may follow one another in flight")
                .with_help(wait_help(op)),
            );
        }
        let op = InFlight {
            number: apply.number,
            opcode: Rc::from(apply.opcode.as_str()),
            span,
            shape,
            accumulator: Rc::new(accumulator),
            inputs: Rc::new(inputs),
            status: Status::Pending { lo: 0, hi: 0 },
            reported: false,
            issuers: self.issuers.clone(),
        };
        match state.in_flight.iter_mut().find(|o| o.number == op.number) {
            Some(found) => {
                found.status = join_status(found.status, op.status);
            }
            None => state.in_flight.push(op),
        }
    }
}

/// `wgmma.commit_group` and `wgmma.wait_group n`.
fn group(apply: &Apply, state: &mut Registers) {
    let unconditional = apply.user_guard == Cond::Const(true);
    let commit = apply.form.form.mnemonic == "wgmma.commit_group";
    for op in &mut state.in_flight {
        let Status::Pending { lo, hi } = op.status else {
            continue;
        };
        op.status = if commit {
            Status::Pending {
                lo: if unconditional {
                    (lo + 1).min(COMMIT_CAP)
                } else {
                    lo
                },
                hi: (hi + 1).min(COMMIT_CAP),
            }
        } else if unconditional && lo > wait_count(apply) {
            Status::Retired
        } else {
            op.status
        };
    }
    state.in_flight.retain(|op| op.status != Status::Retired);
}

/// How to retire `op`.
fn wait_help(op: &InFlight) -> String {
    match op.status {
        Status::Pending { lo: 0, .. } => "commit its group (`wgmma.commit_group.sync.aligned`) and wait for it (`wgmma.wait_group.sync.aligned`) before this statement".to_string(),
        Status::Pending { lo, .. } => format!(
            "wait for its group before this statement: `apply(ptx[\"wgmma.wait_group.sync.aligned\"], {}, scope = \"warpgroup\")` retires it",
            lo - 1
        ),
        Status::Retired => String::new(),
    }
}

/// The span of the operand of `apply` that holds `lane`.
fn operand_span(apply: &Apply, lane: &Lane) -> SpanId {
    apply
        .coordinates
        .iter()
        .flat_map(|c| c.reads.iter().chain(&c.writes))
        .find(|(_, l)| l == lane)
        .and_then(|(i, _)| apply.operands.get(*i))
        .map_or(SpanId::default(), |o| o.span)
}
