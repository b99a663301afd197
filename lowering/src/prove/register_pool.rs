//! The register pool obligation: every `setmaxnreg` of a kernel is
//! granted, and none can wait forever.
//!
//! **Model** (PTX ISA 8.0, "setmaxnreg", sm_90a). A CTA's warps start with
//! the registers the kernel is compiled for; `setmaxnreg.dec n` returns a
//! warp's registers above `n` per thread to the CTA's pool, `setmaxnreg.inc
//! n` blocks until the pool holds what the warp needs to reach `n` and
//! takes it. All warps of a warpgroup must execute the same `setmaxnreg`
//! (the `apply`'s `scope = "warpgroup"`, whose convergence the convergence
//! obligation proves), and must synchronize before a second one; `n` is a
//! multiple of 8 in `[24, 256]` (the range is the table's). ptxas honours a
//! `setmaxnreg` only where it knows the count at entry, so a kernel that
//! has one is emitted with `.maxnreg` [`entry_registers`] (measured with
//! ptxas 12.9: without it, "'setmaxnreg' ignored; unable to determine
//! register count at entry").
//!
//! **Rules.** TK0616: a count that is not a multiple of 8, a `.dec` above
//! the entry count or an `.inc` below it (the instruction moves registers
//! the other way), or counts that the warpgroups end with summing past the
//! pool (every thread's final count, `.maxnreg` for threads that run
//! none): an `.inc` would wait forever. TK0617: a `setmaxnreg` a thread
//! may run other than once where its conditions say (in a runtime loop,
//! under a condition that is not on the thread's index alone, under a
//! `pred`, a second one for the same threads on one path, or threads the
//! checker cannot enumerate), or a `.dec` after a CTA barrier or mbarrier
//! wait that not every thread passes before its `setmaxnreg` (the threads
//! blocked in `.inc` would never arrive: a deadlock).
//!
//! Guarantee: in a kernel this obligation accepts, each thread runs at most
//! one `setmaxnreg`, exactly where the conditions on its index say, each
//! `.dec` runs without waiting for another thread after the roles split,
//! and the final counts fit the registers the CTA was launched with, so
//! every `.inc` is granted.

use crate::checked::{Apply, Node, Value};
use crate::diag::{Code, Diagnostic, SpanId};
use crate::program::{Cond, Launch};
use crate::ptx::Slot;
use crate::ptx::form::Effect;
use crate::scope::Uniformity;

use super::convergence::{LoopUniformity, Uniformities};
use super::races::Threads;

/// Registers of an SM's register file available to one CTA.
const REGISTER_FILE: u32 = 65536;
/// The most registers a thread may hold at entry, as a multiple of 8 (a
/// thread has 255).
const MOST_PER_THREAD: u32 = 248;

/// The registers per thread a kernel with a `setmaxnreg` starts with
/// (its `.maxnreg`): the register file shared by the block's warps, down
/// to a multiple of 8, at most [`MOST_PER_THREAD`].
pub(crate) fn entry_registers(launch: &Launch) -> u32 {
    // Saturating: a block past the hardware's limit is reported elsewhere
    // (TK0602), and the count only has to stay defined for it.
    let threads = launch
        .block
        .iter()
        .fold(1u64, |n, b| n.saturating_mul(u64::from(*b)));
    let lanes = threads.div_ceil(32).max(1).saturating_mul(32);
    let entry = u64::from(REGISTER_FILE) / lanes / 8 * 8;
    u32::try_from(entry).map_or(MOST_PER_THREAD, |e| e.min(MOST_PER_THREAD))
}

/// What the obligation reads besides the checked body.
pub(crate) struct Context<'a, 't> {
    pub threads: &'a Threads<'t>,
    pub loop_uniformity: &'a LoopUniformity,
}

/// One `setmaxnreg` a thread set runs.
struct Request {
    increase: bool,
    count: u32,
    threads: Vec<usize>,
    opcode: String,
    span: SpanId,
}

/// The obligation's errors, and the kernel's `.maxnreg` where it has a
/// `setmaxnreg`.
pub(crate) fn prove(body: &[Node], context: &Context<'_, '_>) -> (Vec<Diagnostic>, Option<u32>) {
    if !mentions_setmaxnreg(body) {
        return (Vec::new(), None);
    }
    let launch = context.threads.launch;
    let entry = entry_registers(launch);
    // A block too large to enumerate is reported elsewhere (TK0602).
    let Some(block) = context.threads.enumerable_block() else {
        return (Vec::new(), Some(entry));
    };
    let mut walk = Walk {
        context,
        entry,
        requests: Vec::new(),
        diags: Vec::new(),
        prologue: true,
    };
    let mut ran = vec![false; block];
    let everyone = Some(vec![true; block]);
    walk.block(body, &mut ran, &everyone, Placement::default());
    if walk.diags.is_empty() {
        walk.check_pool(block);
    }
    (walk.diags, Some(entry))
}

fn mentions_setmaxnreg(body: &[Node]) -> bool {
    body.iter().any(|node| match node {
        Node::Apply(apply) => apply.form.effect() == Effect::RegisterCount,
        Node::If {
            then, otherwise, ..
        } => mentions_setmaxnreg(then) || mentions_setmaxnreg(otherwise),
        Node::Loop(looped) => mentions_setmaxnreg(&looped.body),
        _ => false,
    })
}

/// Where the walk is: what surrounds the current statement.
#[derive(Clone, Copy, Default)]
struct Placement {
    /// Inside a runtime loop.
    in_loop: bool,
    /// Under a condition that holds or fails for the whole CTA (data, a
    /// size): the threads it names may not run what follows.
    on_data: bool,
    /// Inside an `if` on the thread's index.
    on_thread: bool,
    /// A CTA barrier or mbarrier wait ran on this path inside an `if` on
    /// the thread's index, or after a `setmaxnreg`.
    waited: bool,
}

struct Walk<'a, 'c, 't> {
    context: &'a Context<'c, 't>,
    entry: u32,
    requests: Vec<Request>,
    diags: Vec<Diagnostic>,
    /// No `setmaxnreg` walked yet: a wait outside `if`s on the thread is
    /// passed by every thread before any `setmaxnreg`.
    prologue: bool,
}

impl Walk<'_, '_, '_> {
    /// Walks `body`, which the threads `here` run (`None`: not known);
    /// `ran` marks the threads that ran a `setmaxnreg` on this path.
    fn block(
        &mut self,
        body: &[Node],
        ran: &mut Vec<bool>,
        here: &Option<Vec<bool>>,
        mut at: Placement,
    ) -> Placement {
        for node in body {
            match node {
                Node::Apply(apply) if apply.form.effect() == Effect::RegisterCount => {
                    self.request(apply, ran, here, at);
                    self.prologue = false;
                }
                Node::Apply(apply) if waits(apply) => {
                    at.waited |= at.on_thread || !self.prologue;
                }
                Node::CtaBarrier { .. } => at.waited |= at.on_thread || !self.prologue,
                Node::If {
                    cond: Some(Cond::Const(holds)),
                    then,
                    otherwise,
                } => {
                    at = self.block(if *holds { then } else { otherwise }, ran, here, at);
                }
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let on_thread = cond.as_ref().is_some_and(|c| self.on_thread(c));
                    let inner = Placement {
                        on_thread: at.on_thread || on_thread,
                        on_data: at.on_data || !on_thread,
                        ..at
                    };
                    // The threads of each arm, where the condition is on
                    // the thread's index alone.
                    let holds = cond
                        .as_ref()
                        .filter(|_| on_thread)
                        .and_then(|c| self.context.threads.where_holds(c));
                    let arm = |value: bool| -> Option<Vec<bool>> {
                        let (here, holds) = (here.as_ref()?, holds.as_ref()?);
                        Some(
                            here.iter()
                                .zip(holds)
                                .map(|(h, c)| *h && *c == value)
                                .collect(),
                        )
                    };
                    let (then_here, else_here) = if on_thread {
                        (arm(true), arm(false))
                    } else {
                        (here.clone(), here.clone())
                    };
                    let mut other = ran.clone();
                    let then_at = self.block(then, ran, &then_here, inner);
                    let else_at = self.block(otherwise, &mut other, &else_here, inner);
                    for (mine, theirs) in ran.iter_mut().zip(other) {
                        *mine |= theirs;
                    }
                    at.waited = then_at.waited || else_at.waited;
                }
                Node::Loop(looped) => {
                    let inner = Placement {
                        in_loop: true,
                        ..at
                    };
                    at.waited |= self.block(&looped.body, ran, here, inner).waited;
                }
                Node::Apply(_) | Node::Havoc(_) | Node::Define(_) | Node::CondRead(_) => {}
            }
        }
        at
    }

    /// One `setmaxnreg`: where it may run, its count, and the threads
    /// that run it.
    fn request(
        &mut self,
        apply: &Apply,
        ran: &mut [bool],
        here: &Option<Vec<bool>>,
        at: Placement,
    ) {
        let increase = apply.form.get(Slot::Action) == Some("inc");
        let Some((count, span)) = apply.operands.iter().find_map(|o| match o.value {
            Value::Literal(crate::ast::LiteralValue::Int(n)) => {
                Some((u32::try_from(n).ok()?, o.span))
            }
            _ => None,
        }) else {
            return;
        };
        let placement = |what: &str| {
            Diagnostic::new(
                Code::SETMAXNREG_PLACEMENT,
                span,
                format!("this `{}` {what}", apply.opcode),
            )
        };
        let misplaced = if at.in_loop {
            Some(
                placement("is in a runtime loop: its warpgroup would run it more than once")
                    .with_help("run it once, before the loop (at the start of the role's branch)"),
            )
        } else if at.on_data {
            Some(
                placement("is under a condition that is not on the thread's index: the threads it names may not run it")
                    .with_help("put it directly in the role's `if` on the thread's index (`if warp_id() / 4 == 2`), outside conditions on data or sizes"),
            )
        } else if apply.user_guard != Cond::Const(true) {
            Some(placement(
                "has a `pred`: its warpgroup may not run it, and an `.inc` would wait for registers a skipped `.dec` never returned",
            ))
        } else if !increase && at.waited {
            Some(
                placement("comes after a barrier or mbarrier wait: threads waiting in a `setmaxnreg.inc` for the registers it returns may never get there (a deadlock)")
                    .with_help("give the registers back first, at the start of the role's branch, before it waits for anything"),
            )
        } else {
            None
        };
        if let Some(diag) = misplaced {
            self.diags.push(diag);
            return;
        }
        let Some(threads) = here
            .as_ref()
            .map(|here| (0..here.len()).filter(|&t| here[t]).collect::<Vec<usize>>())
        else {
            self.diags.push(placement(
                "is under conditions the checker cannot tell the threads of: write them on `thread_id`, `warp_id` and `lane_id` alone",
            ));
            return;
        };
        if threads
            .iter()
            .any(|&t| ran.get(t).copied().unwrap_or(false))
        {
            self.diags.push(
                placement("runs for threads that already ran a `setmaxnreg` on this path")
                    .with_note("after a `setmaxnreg` the warps of the warpgroup must synchronize before another; this compiler accepts one per thread")
                    .with_help("keep one `setmaxnreg` per role, with the count the role needs"),
            );
            return;
        }
        if count % 8 != 0 {
            self.diags.push(
                Diagnostic::new(
                    Code::SETMAXNREG_POOL,
                    span,
                    format!(
                        "`{}` needs a multiple of 8 registers, not {count}",
                        apply.opcode
                    ),
                )
                .with_help(format!(
                    "use {} or {}",
                    count / 8 * 8,
                    count / 8 * 8 + 8
                )),
            );
            return;
        }
        let entry = self.entry;
        let backwards = if increase {
            (count < entry).then_some(("fewer", "raises"))
        } else {
            (count > entry).then_some(("more", "lowers"))
        };
        if let Some((than, only)) = backwards {
            self.diags.push(
                Diagnostic::new(
                    Code::SETMAXNREG_POOL,
                    span,
                    format!(
                        "this `{}` asks for {count} registers per thread, {than} than the {entry} a thread of this block starts with: it only {only} the count",
                        apply.opcode
                    ),
                )
                .with_note(format!(
                    "a kernel with a `setmaxnreg` starts each thread with {entry} registers (the register file over the block's threads, `.maxnreg {entry}`)"
                ))
                .with_help(if increase {
                    "use `setmaxnreg.dec` to give registers back"
                } else {
                    "use `setmaxnreg.inc` to take registers"
                }),
            );
            return;
        }
        for &t in &threads {
            if let Some(slot) = ran.get_mut(t) {
                *slot = true;
            }
        }
        self.requests.push(Request {
            increase,
            count,
            threads,
            opcode: apply.opcode.clone(),
            span,
        });
    }

    /// The final counts fit the pool: every thread's last count (the entry
    /// count for threads that run none) sums to no more than the block's.
    fn check_pool(&mut self, block: usize) {
        let entry = u64::from(self.entry);
        let lanes = block.div_ceil(32) * 32;
        let mut last = vec![entry; lanes];
        for request in &self.requests {
            for &t in &request.threads {
                if let Some(slot) = last.get_mut(t) {
                    *slot = u64::from(request.count);
                }
            }
        }
        let wanted: u64 = last.iter().sum();
        let pool = entry * lanes as u64;
        if wanted <= pool {
            return;
        }
        // At the `.inc` that asks for the most: the one to lower.
        let Some(largest) = self
            .requests
            .iter()
            .filter(|r| r.increase)
            .max_by_key(|r| r.count)
        else {
            return;
        };
        let asks: Vec<String> = self
            .requests
            .iter()
            .map(|r| format!("{} threads `{} {}`", r.threads.len(), r.opcode, r.count))
            .collect();
        let rest =
            lanes.saturating_sub(self.requests.iter().map(|r| r.threads.len()).sum::<usize>());
        let rest = if rest > 0 {
            format!(", {rest} threads keep {entry}")
        } else {
            String::new()
        };
        self.diags.push(
            Diagnostic::new(
                Code::SETMAXNREG_POOL,
                largest.span,
                format!(
                    "the warpgroups' `setmaxnreg`s ask for {wanted} registers, more than the {pool} this CTA has: this `.inc` would wait forever"
                ),
            )
            .with_note(format!(
                "the CTA starts with {lanes} threads x {entry} registers (`.maxnreg {entry}`); after the `setmaxnreg`s: {}{rest}",
                asks.join(", ")
            ))
            .with_help(format!(
                "lower the `.inc` counts, or the `.dec` counts further, so that the final counts sum to at most {pool}"
            )),
        );
    }

    fn uniformities(&self) -> Uniformities<'_> {
        Uniformities {
            atoms: self.context.threads.atoms,
            block: self.context.threads.launch.block,
            loops: self.context.loop_uniformity,
        }
    }

    fn on_thread(&self, cond: &Cond) -> bool {
        self.uniformities().of_cond(cond) < Uniformity::Cta
    }
}

/// Whether an `apply` makes its thread wait for others: a CTA barrier or
/// an mbarrier wait.
fn waits(apply: &Apply) -> bool {
    match apply.form.effect() {
        Effect::Barrier { waits } => waits,
        Effect::Mbarrier => apply.form.form.mnemonic.contains("wait"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::LaunchFormula;

    fn launch(block: [u32; 3]) -> Launch {
        Launch {
            grid: [1, 1, 1].map(LaunchFormula::constant),
            block,
            max_registers: None,
            cluster: [1, 1, 1],
        }
    }

    /// The register file over the block's warps, down to a multiple of 8,
    /// at most 248: what `.maxnreg` states and the pool is made of.
    #[test]
    fn entry_counts_share_the_register_file() {
        assert_eq!(entry_registers(&launch([384, 1, 1])), 168);
        assert_eq!(entry_registers(&launch([128, 3, 1])), 168);
        assert_eq!(entry_registers(&launch([256, 1, 1])), 248);
        assert_eq!(entry_registers(&launch([640, 1, 1])), 96);
        assert_eq!(entry_registers(&launch([1024, 1, 1])), 64);
        // A partial warp holds a whole warp's registers.
        assert_eq!(entry_registers(&launch([330, 1, 1])), 184);
        // Past the hardware's limits (reported elsewhere): defined, no panic.
        assert_eq!(entry_registers(&launch([u32::MAX, u32::MAX, 1024])), 0);
        assert_eq!(entry_registers(&launch([0, 1, 1])), 248);
    }
}
