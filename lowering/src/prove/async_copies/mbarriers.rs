//! mbarrier phases in the async-ownership walk.
//!
//! **Model** (PTX ISA, "Parallel synchronization: mbarrier"): an mbarrier
//! object counts the arrivals of its current phase; when they reach the
//! count given at `mbarrier.init`, the phase completes and the next begins.
//! `mbarrier.try_wait.parity p` returns once the phase of parity `p` has
//! completed: with `n` phases completed it returns when `n % 2 != p`, and
//! it acquires what the arriving threads did before arriving (their
//! accesses, and the `cp.async` copies a `cp.async.mbarrier.arrive`
//! attached to that phase). A wait whose phase is not the last completed
//! one, or one not yet completed by anything before it, is a wrong value
//! or a hang.
//!
//! **Rings.** The checker follows an `alloc_shared::<Mbarrier>([S])`
//! buffer as a ring: its phases complete in *ticket* order, ticket `t`
//! being phase `t / S` of object `t % S`. The walk is lock-step (every
//! thread runs a statement before the next, the two arms of an `if` on the
//! thread's index one after the other), and counts per ring the tickets
//! completed (`F`, a polynomial in the loop variables: `3 + j` in a
//! loop whose iterations complete one phase each) and the arrivals toward
//! ticket `F`. An arrival must land on object `F % S` (an index written
//! `(j + 3) % 4` where `F` is `j + 3`); at the init count ticket `F`
//! completes. A wait on object `x % S` with parity `p` acquires the last
//! completed ticket `t` of that object: `t` is `x` or `x - S`, whichever
//! lies in `[F - S, F)`, and `p` must be `(t / S) % 2` (written
//! `(x / S) % 2`, `(x / S) & 1`, `(x / S + 1) % 2` or `1 - (x / S) % 2`).
//! A runtime loop's iterations must complete the same number of tickets:
//! the walk measures it on a silent pass and counts `F = F0 + d * (k -
//! start)`.
//!
//! **Tail guards.** A uniform `if` whose arms complete different numbers
//! of tickets (a refill under `if k + 2 < chunks`) is counted as its fuller
//! arm, the tickets from a bound `B` on *virtual* ([`Ring::virtual_from`],
//! [`Walk::virtual_join`]): every ticket below `B` is real on both paths.
//! Every wait must then be for a ticket below `B` (TK0418) and every
//! arrival or signalling copy go to one (TK0419), proven from the facts
//! where it runs; what exists only on one arm is tagged with that arm's
//! facts (`exists_if`), so that later statements and a loop's exits
//! contradicting them do not see it.
//!
//! **Rules.** A use of an object not initialized on every path (TK0415),
//! an init of a live object (TK0416), a parity that is not the last
//! completed phase's (TK0417), a wait no earlier arrival completes
//! (TK0418: a hang), arrivals that do not match the init count or the
//! ticket in progress (TK0419), and a phase completed by fewer than all
//! threads while other threads may still be waiting for that object's
//! previous phase (TK0420: the parity would alias).
//!
//! Guarantee: in a kernel the walk accepts, every wait returns after the
//! arrivals of the ticket its program order names, no phase of an object
//! completes while a thread may still wait for the one before, and a copy
//! attached to a ticket is retired only by a wait that acquires it.

use super::*;

/// One `alloc_shared::<Mbarrier>` buffer as the lock-step walk counts it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ring {
    pub buffer: usize,
    /// Objects in the buffer: ticket `t` is object `t % size`.
    pub size: i128,
    /// Per object, its init count (`None`: not initialized on every path).
    pub counts: Vec<Option<i128>>,
    /// Tickets completed so far (`None`: not countable here).
    pub completed: Option<Poly>,
    /// Tickets from this one on may be *virtual*: counted in `completed`
    /// although the refill that would complete them was skipped by a tail
    /// guard (`if k + 2 < chunks`); `None`: every counted ticket is real.
    /// No wait may acquire a virtual ticket and no arrival may go to one
    /// (both proven where they run): see [`Walk::virtual_join`].
    pub virtual_from: Option<Poly>,
    /// Arrivals toward ticket `completed` so far.
    pub arrivals: i128,
    /// Whether every thread of the CTA took part in those arrivals.
    pub everyone: bool,
    /// Whether every one of those arrivals releases the thread's accesses
    /// before it (a plain `mbarrier.arrive` that is not `.relaxed`).
    pub releasing: bool,
    /// Transaction bytes the arrivals toward ticket `completed` expect
    /// (`mbarrier.arrive.expect_tx`) so far.
    pub expected: i128,
    /// Bytes the bulk copies signalling ticket `completed` deliver so far.
    pub delivered: i128,
    /// Whether a `fence.mbarrier_init` or `fence.proxy.async` ran after
    /// the inits, by the threads that ran them: the async proxy (a bulk
    /// copy's completion) may signal the objects.
    pub fenced: bool,
    /// The conditions on the thread under which the inits ran (`None`:
    /// inits under different ones).
    pub init_threads: Option<Vec<Fact>>,
    /// Whether a `fence.mbarrier_init.release.cluster` of the init
    /// threads followed the inits: a cluster barrier after it publishes
    /// them to the other CTAs.
    pub init_fenced_for_cluster: bool,
    /// Whether a cluster barrier followed that fence: other CTAs may
    /// signal the objects (multicast copies, remote arrivals).
    pub cluster_published: bool,
    /// For a ring that crosses CTAs (`cluster_rings`): per rank, the
    /// CTAs whose object that rank's arrivals toward the ticket in
    /// progress reached (a bit per rank), and whether the phase's
    /// arrival statements all ran on the same threads.
    pub coverage: Vec<u32>,
    pub same_arrivers: bool,
    /// The conditions on the thread of the phase's first arrival statement.
    pub phase_arrivers: Vec<Fact>,
}

impl Ring {
    pub(super) fn new(buffer: usize, size: i128) -> Ring {
        Ring {
            buffer,
            size,
            counts: vec![None; usize::try_from(size).unwrap_or(0)],
            completed: Some(Poly::constant(0)),
            virtual_from: None,
            arrivals: 0,
            everyone: true,
            releasing: true,
            expected: 0,
            delivered: 0,
            fenced: false,
            init_threads: Some(Vec::new()),
            init_fenced_for_cluster: false,
            cluster_published: false,
            coverage: Vec::new(),
            same_arrivers: true,
            phase_arrivers: Vec::new(),
        }
    }

    /// No arrival yet toward the ticket in progress.
    fn begin_phase(&mut self) {
        self.arrivals = 0;
        self.everyone = true;
        self.releasing = true;
        self.expected = 0;
        self.delivered = 0;
        self.coverage.clear();
        self.same_arrivers = true;
        self.phase_arrivers.clear();
    }

    /// Whether `other` has made the same progress toward its ticket in
    /// progress (arrivals and transaction bytes).
    pub(super) fn same_progress(&self, other: &Ring) -> bool {
        self.arrivals == other.arrivals
            && self.expected == other.expected
            && self.delivered == other.delivered
            && self.coverage == other.coverage
    }

    /// The count every object was initialized with, when they agree.
    fn count(&self) -> Option<i128> {
        let first = (*self.counts.first()?)?;
        self.counts
            .iter()
            .all(|c| *c == Some(first))
            .then_some(first)
    }
}

/// Joins a ring's state on two paths of a uniform `if`: what differs is
/// not countable after it.
pub(super) fn join_rings(a: &mut Vec<Ring>, b: Vec<Ring>) {
    for ring in b {
        match a.iter_mut().find(|r| r.buffer == ring.buffer) {
            Some(found) if *found == ring => {}
            Some(found) => {
                for (mine, theirs) in found.counts.iter_mut().zip(&ring.counts) {
                    if mine != theirs {
                        *mine = None;
                    }
                }
                if found.completed != ring.completed || !found.same_progress(&ring) {
                    found.completed = None;
                }
                match (&found.virtual_from, ring.virtual_from) {
                    (a, b) if *a == b => {}
                    (None, b) => found.virtual_from = b,
                    (Some(_), None) => {}
                    // Two bounds: not countable (no `min` of them).
                    (Some(_), Some(_)) => found.completed = None,
                }
                found.everyone &= ring.everyone;
                found.releasing &= ring.releasing;
                found.fenced &= ring.fenced;
                found.init_fenced_for_cluster &= ring.init_fenced_for_cluster;
                found.cluster_published &= ring.cluster_published;
                found.same_arrivers &= ring.same_arrivers;
                if found.init_threads != ring.init_threads {
                    found.init_threads = None;
                }
            }
            None => a.push(ring),
        }
    }
}

/// The barrier operand of an mbarrier `apply`: its span, buffer and the
/// objects it names (`[start, start + len)`).
struct BarrierOperand<'a> {
    span: SpanId,
    name: &'a str,
    buffer: usize,
    start: Option<Poly>,
    len: i128,
}

/// A copy waited for through a ring: the ring's buffer and its ticket
/// (`None`: no longer known, after its loop).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Attachment {
    pub ring: usize,
    pub ticket: Option<Poly>,
}

impl<'c> Walk<'c, '_> {
    /// The rings of the kernel's mbarrier buffers, before any statement.
    pub(super) fn rings(&self) -> Vec<Ring> {
        self.context
            .mbarriers
            .iter()
            .enumerate()
            .filter_map(|(buffer, size)| size.map(|size| Ring::new(buffer, size)))
            .collect()
    }

    /// An mbarrier `apply`: init, inval, an arrive (also a copy's), a wait.
    pub(super) fn mbarrier(&mut self, apply: &Apply, state: &mut State<'c>) {
        let Some(operand) = barrier_operand(apply, self.context.mbarriers) else {
            return;
        };
        let Some(index) = state.rings.iter().position(|r| r.buffer == operand.buffer) else {
            return;
        };
        let mnemonic = apply.form.form.mnemonic;
        match mnemonic {
            "mbarrier.init" => self.init(apply, &operand, &mut state.rings[index]),
            "mbarrier.inval" => {
                for object in self.objects(&operand, &state.rings[index]) {
                    state.rings[index].counts[object] = None;
                }
            }
            "mbarrier.arrive" | "mbarrier.arrive.expect_tx" | "cp.async.mbarrier.arrive" => {
                if !self.initialized(apply, &operand, &state.rings[index]) {
                    return;
                }
                let copies = mnemonic == "cp.async.mbarrier.arrive";
                let arrives = !copies || apply.form.get(crate::ptx::Slot::Noinc).is_some();
                if copies {
                    // The thread's copies not yet attached complete the
                    // ticket in progress.
                    let ticket = state.rings[index].completed.clone();
                    update_listed(
                        &mut state.copies,
                        |copy| {
                            copy.attachment.is_none()
                                && copy.role == Role::CpAsync
                                && matches!(copy.status, Status::Pending { .. })
                        },
                        |copy| {
                            copy.attachment = Some(Attachment {
                                ring: operand.buffer,
                                ticket: ticket.clone(),
                            });
                        },
                    );
                }
                if arrives {
                    self.arrive(apply, &operand, index, state);
                }
            }
            "mbarrier.try_wait" if self.initialized(apply, &operand, &state.rings[index]) => {
                self.wait(apply, &operand, index, state);
            }
            _ => {}
        }
    }

    /// The objects `operand` names, when they are constant.
    fn objects(&mut self, operand: &BarrierOperand<'_>, ring: &Ring) -> Vec<usize> {
        let start = operand
            .start
            .as_ref()
            .map(|s| self.known(s))
            .and_then(|s| s.as_const());
        match start {
            Some(start) => (start..start + operand.len)
                .filter_map(|o| usize::try_from(o).ok())
                .filter(|o| *o < ring.counts.len())
                .collect(),
            None => (0..ring.counts.len()).collect(),
        }
    }

    /// `mbarrier.init`: constant objects, a constant count, none live.
    fn init(&mut self, apply: &Apply, operand: &BarrierOperand<'_>, ring: &mut Ring) {
        let count = apply.operands.iter().find_map(|o| match &o.value {
            Value::Literal(crate::ast::LiteralValue::Int(n)) => Some(*n),
            Value::Index { value, .. } => value.as_const(),
            _ => None,
        });
        let constant_objects = operand
            .start
            .as_ref()
            .is_some_and(|s| self.known(s).as_const().is_some());
        let Some(count) = count.filter(|_| constant_objects) else {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_ARRIVALS,
                    operand.span,
                    format!(
                        "the checker counts the phases of `{}` from constant objects and a constant count, which this `{}` does not give",
                        operand.name, apply.opcode
                    ),
                )
                .with_help("initialize each object with a literal count, in a `for` loop with constant bounds or one `apply` over the buffer"),
            );
            return;
        };
        if apply.guard != Cond::Const(true) {
            // It may not run: its objects are not known to be initialized.
            return;
        }
        let first_init = ring.counts.iter().all(Option::is_none);
        for object in self.objects(operand, ring) {
            if ring.counts[object].is_some() {
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::MBARRIER_REINIT,
                        operand.span,
                        format!(
                            "object {object} of `{}` may still be live here: initializing a live mbarrier is undefined",
                            operand.name
                        ),
                    )
                    .with_help("invalidate it first: `apply(ptx[\"mbarrier.inval.shared::cta.b64\"], ..)`"),
                );
                return;
            }
            ring.counts[object] = Some(count);
        }
        let threads = self.on_thread_facts(apply);
        ring.fenced = false;
        ring.init_fenced_for_cluster = false;
        ring.cluster_published = false;
        ring.init_threads = match &ring.init_threads {
            Some(before) if !first_init && *before != threads => None,
            None if !first_init => None,
            _ => Some(threads),
        };
        if ring.counts.iter().all(Option::is_some) {
            ring.completed = Some(Poly::constant(0));
            ring.begin_phase();
        }
    }

    /// Whether every object of the ring is initialized, with one count
    /// (reported otherwise).
    fn initialized(&mut self, apply: &Apply, operand: &BarrierOperand<'_>, ring: &Ring) -> bool {
        if ring.count().is_some() {
            return true;
        }
        let uninitialized = ring.counts.iter().position(Option::is_none);
        let (message, help) = match uninitialized {
            Some(object) => (
                format!(
                    "`{}` uses `{}` where its object {object} may not be initialized",
                    apply.opcode, operand.name
                ),
                "initialize every object of the buffer (`mbarrier.init`, by one thread) and put a CTA barrier between the init and the first use",
            ),
            None => (
                format!(
                    "the objects of `{}` were initialized with different counts; the checker follows rings of one count",
                    operand.name
                ),
                "give every object of the buffer the same count, or use a buffer per count",
            ),
        };
        self.ring_error(
            operand.buffer,
            Diagnostic::new(Code::MBARRIER_UNINITIALIZED, operand.span, message).with_help(help),
        );
        false
    }

    /// The threads that run `apply` together: all of the CTA's outside
    /// `if`s on the thread's index, one where the facts pin every thread
    /// axis; `None` otherwise.
    ///
    /// One thread counts only where it provably runs the statement: with
    /// the pinned thread indices put in, every condition on the thread in
    /// scope holds given the others (an `if t == 0 && k < n` arm may run for
    /// no thread, and its arrivals would never happen).
    pub(super) fn running(&mut self, apply: &Apply) -> Option<i128> {
        // A `pred` or a bounds guard may skip it.
        if apply.guard != Cond::Const(true) {
            return None;
        }
        let block = self.context.threads.launch.block;
        if self.divergent == 0 {
            return Some(self.block_threads());
        }
        let threads = &self.context.threads;
        let pinned = threads.pinned_digits(&threads.under(&apply.facts));
        let mut values = Vec::new();
        for axis in 0..3u8 {
            if block[usize::from(axis)] <= 1 {
                continue;
            }
            let (_, value) = pinned.iter().find(|(d, _)| *d == Digit::Thread(axis))?;
            let atom = self
                .atoms
                .iter()
                .find(|(_, a)| a.kind == AtomKind::ThreadId(axis))
                .map(|(id, _)| id)?;
            values.push((atom, *value));
        }
        let (on_thread, uniform): (Vec<&Fact>, Vec<&Fact>) =
            apply.facts.iter().partition(|f| self.differs_in_cta(f));
        let uniform: Vec<Fact> = uniform.into_iter().cloned().collect();
        for fact in on_thread {
            let mut known = fact.clone();
            for (atom, value) in &values {
                known = self.substitute(&known, *atom, &Poly::constant(*value), 0, false)?;
            }
            if self.differs_in_cta(&known) {
                return None;
            }
            if !self.prove_le0(&uniform, &known) {
                return None;
            }
        }
        Some(1)
    }

    /// [`Self::running`], and where no thread index is pinned, the threads
    /// the conditions on the thread admit, counted over the block (`if
    /// warp_id() / 4 < 2`: the first two warpgroups). A count of zero is
    /// no count: such an arm never runs.
    pub(super) fn running_threads(&mut self, apply: &Apply) -> Option<i128> {
        if let Some(count) = self.running(apply) {
            return Some(count);
        }
        if apply.guard != Cond::Const(true) {
            return None;
        }
        let running = self.threads_of_apply(apply)?;
        i128::try_from(running.len()).ok().filter(|n| *n > 0)
    }

    /// The arrivals of `apply` on the ring's object: toward the ticket in
    /// progress, completing it at the init count.
    fn arrive(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        index: usize,
        state: &mut State<'c>,
    ) {
        let block: i128 = self.block_threads();
        let Some(running) = self.running_threads(apply) else {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_ARRIVALS,
                    operand.span,
                    format!(
                        "the checker cannot count the threads that run this `{}`: it counts all the CTA's threads, or one thread (an `if` that fixes every thread index)",
                        apply.opcode
                    ),
                )
                .with_help("arrive from every thread, or from one (`if thread_id(0) == 0 { .. }`), and give `mbarrier.init` that count"),
            );
            return;
        };
        let ring = &state.rings[index];
        let (Some(count), Some(completed)) = (ring.count(), ring.completed.clone()) else {
            match ring.count() {
                Some(count) if running < count && ring.completed.is_none() => {
                    self.short_arrivals(operand, running, count);
                }
                _ => self.unknown_phases(apply, operand),
            }
            return;
        };
        if operand.len != 1 {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_ARRIVALS,
                    operand.span,
                    format!(
                        "`{}` arrives on one object at a time; this operand names {}",
                        apply.opcode, operand.len
                    ),
                ),
            );
            return;
        }
        let size = ring.size;
        if !self.names_ticket(operand, &completed, size, &apply.facts) {
            let ticket = self.known(&completed);
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_ARRIVALS,
                    operand.span,
                    format!(
                        "this arrival on `{}` must go to the object of the phase in progress, ticket `{}`: object `({}) % {}`",
                        operand.name,
                        ticket.display(&self.atoms),
                        ticket.display(&self.atoms),
                        size
                    ),
                )
                .with_note("the checker follows the objects of an mbarrier buffer as a ring: their phases complete in turn, object `t % S` for the `t`-th completion")
                .with_help("arrive on the objects in turn: the `t`-th phase to complete on a ring of `S` is object `t % S`'s"),
            );
        }
        // Counted as if real (reported otherwise): one mistake, one error.
        self.real_ticket_in_progress(apply, operand, &state.rings[index]);
        let ring = &state.rings[index];
        let arrivals = ring.arrivals + running;
        if arrivals > count {
            self.ring_error(operand.buffer, Diagnostic::new(
                Code::MBARRIER_ARRIVALS,
                operand.span,
                format!(
                    "{arrivals} arrivals reach this phase of `{}`, initialized to complete after {count}: the extra ones would count toward the next phase",
                    operand.name
                ),
            ).with_help(format!("initialize the objects with the arrivals each phase gets: {arrivals}")));
            return;
        }
        // `arrive.expect_tx`: each arriving thread raises the phase's
        // expected transaction bytes first.
        let expect = if apply.form.form.mnemonic == "mbarrier.arrive.expect_tx" {
            match constant_operand(apply, "txCount") {
                Some(bytes) => bytes * running,
                None => {
                    self.ring_error(
                        operand.buffer,
                        Diagnostic::new(
                            Code::MBARRIER_TX,
                            operand.span,
                            format!(
                                "the checker counts the transaction bytes of `{}` from a constant `txCount`, which this `{}` does not give",
                                operand.name, apply.opcode
                            ),
                        )
                        .with_help("pass the bytes of the copies that signal this phase as a literal"),
                    );
                    return;
                }
            }
        } else {
            0
        };
        let expected = ring.expected + expect;
        if expected > MAX_TX_BYTES {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_TX,
                    operand.span,
                    format!(
                        "this phase of `{}` would expect {expected} transaction bytes, above the {MAX_TX_BYTES} an mbarrier counts",
                        operand.name
                    ),
                )
                .with_help("split the transfer over more phases"),
            );
            return;
        }
        // A plain arrive releases what the thread did before it (unless
        // `.relaxed`); the arrive-on of `cp.async.mbarrier.arrive` does
        // not (PTX gives it no release of the thread's other accesses).
        let releases = apply.form.form.mnemonic.starts_with("mbarrier.arrive")
            && apply.form.get(crate::ptx::Slot::Sem) != Some("relaxed");
        let first = ring.arrivals == 0;
        let releasing = releases && (first || ring.releasing);
        let everyone = running == block || (!first && ring.everyone);
        {
            let ring = &mut state.rings[index];
            ring.arrivals = arrivals;
            ring.everyone = everyone;
            ring.releasing = releasing;
            ring.expected = expected;
        }
        // A ring that crosses CTAs: what the phase's plain arrivals
        // release is the cluster's only when they reach every CTA from
        // every CTA (`cluster_rings`); they release it from the first one.
        let crosses =
            self.crosses_ctas(operand.buffer) && apply.form.form.mnemonic == "mbarrier.arrive";
        if crosses {
            let permutation = self.arrival_permutation(apply);
            let remote = permutation.iter().enumerate().any(|(r, q)| *q != r as i128);
            if remote {
                // Reported where not; counted as if it were.
                self.published_to_cluster(apply, operand, &state.rings[index]);
            }
            let facts = self.on_thread_facts(apply);
            let ring = &mut state.rings[index];
            if first {
                ring.coverage = vec![0; permutation.len()];
                ring.phase_arrivers = facts;
            } else if ring.phase_arrivers != facts {
                ring.same_arrivers = false;
            }
            for (covered, q) in ring.coverage.iter_mut().zip(&permutation) {
                *covered |= 1 << q;
            }
            if first && releasing && arrivals < count {
                let arrivers = self.threads_of_apply(apply);
                self.release_phase(
                    operand.buffer,
                    &completed,
                    (running, block),
                    &arrivers,
                    state,
                );
            }
        }
        if arrivals < count {
            return;
        }
        if crosses && releasing {
            let ring = &state.rings[index];
            let every = (1u32 << ring.coverage.len()) - 1;
            let covered = ring.same_arrivers && ring.coverage.iter().all(|c| *c == every);
            // Reported where not; released as if it were (one mistake,
            // one error).
            if !covered {
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::REMOTE_ARRIVAL,
                        operand.span,
                        format!(
                            "this phase of `{}` completes, but its arrivals do not reach every CTA's object from the same threads of every CTA: another CTA's refill of this CTA's bytes (a multicast) would not be ordered after these threads' accesses",
                            operand.name
                        ),
                    )
                    .with_note("in a cluster, each CTA's producer refills every CTA's stage: it must wait for the arrivals of every CTA's readers")
                    .with_help("after their reads, the same threads arrive on the object in every CTA: `.in_cta((cluster_ctarank() + d) % n)` for each `d` in `0..n`, with `mbarrier.arrive.release.cluster.shared::cluster.b64`"),
                );
            }
        }
        // The arrivals are in: the phase completes once its transaction
        // bytes are. Unless every thread took part in its arrivals (each
        // after its wait for the object's previous phase), a waiter may
        // still be behind.
        let every_thread_arrived = everyone && !first;
        let arrivers = self.threads_of_apply(apply);
        if running != block && !every_thread_arrived {
            self.overrun(apply, operand, &state.touches, &arrivers);
        }
        // Every thread's accesses before its arrival are ordered before the
        // waits for this ticket when every thread arrived once, releasing;
        // where this one statement's threads complete the phase, theirs.
        if first && releasing {
            self.release_phase(
                operand.buffer,
                &completed,
                (running, block),
                &arrivers,
                state,
            );
        }
        self.settle(apply, operand, index, state);
    }

    /// What the arrivals of `running` threads (`arrivers`, of the
    /// `block`'s) toward ticket `ticket` of `ring` release: their accesses
    /// before, and the copies they had acquired.
    fn release_phase(
        &mut self,
        ring: usize,
        ticket: &Poly,
        (running, block): (i128, i128),
        arrivers: &Option<ThreadSet>,
        state: &mut State<'c>,
    ) {
        let makers = if running == block {
            None
        } else {
            arrivers.as_ref()
        };
        if running == block || makers.is_some() {
            self.release(&mut state.touches, ring, ticket, makers);
        }
        // The copies an arriving thread acquired are complete before
        // the phase: a wait for it acquires them.
        let seen = |copy: &Copy<'_>| match (&copy.acquired, arrivers) {
            (Some(acquired), _) if running == block => !acquired.is_empty(),
            (Some(acquired), Some(arrivers)) => !acquired.disjoint(arrivers),
            _ => false,
        };
        update_listed(
            &mut state.copies,
            |copy| copy.released.is_none() && seen(copy),
            |copy| {
                copy.released = Some((ring, Rc::new(ticket.clone())));
                copy.ticket_carried = 0;
            },
        );
    }

    /// Whether ring `ring` crosses CTAs: other CTAs arrive on it, or the
    /// kernel multicasts (every ring that orders a refill then orders
    /// other CTAs' refills too).
    fn crosses_ctas(&self, ring: usize) -> bool {
        self.cluster.multicast || self.cluster.reached.contains(&ring)
    }

    /// Per rank of the cluster, the rank whose object an arrival statement
    /// reaches (`cluster_rings` proved it a permutation; the identity for
    /// the CTA's own object).
    fn arrival_permutation(&self, apply: &Apply) -> Vec<i128> {
        let size = super::super::cluster_rings::cluster_size(self.cluster.shape);
        let named = apply.operands.iter().find_map(|o| match &o.value {
            Value::Memory { cta: Some(q), .. } if o.slot.mbarrier => Some(q),
            _ => None,
        });
        named
            .and_then(|q| {
                super::super::cluster_rings::rank_permutation(&self.atoms, self.cluster.shape, q)
            })
            .unwrap_or_else(|| (0..size).collect())
    }

    /// Whether other CTAs may signal `ring` here: its inits were fenced
    /// with `fence.mbarrier_init.release.cluster` and a cluster barrier
    /// followed (reported otherwise, TK0415; where no cluster barrier ran
    /// at all, the lifetime rule's TK0430 is the one error).
    fn published_to_cluster(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        ring: &Ring,
    ) -> bool {
        if ring.cluster_published {
            return true;
        }
        if !self.cluster_barrier_seen || self.unpublished_reported {
            return false;
        }
        if self.quiet == 0 {
            self.unpublished_reported = true;
        }
        self.ring_error(
            operand.buffer,
            Diagnostic::new(
                Code::MBARRIER_UNINITIALIZED,
                operand.span,
                format!(
                    "other CTAs of the cluster signal `{}` here, but its inits may not be visible to them yet",
                    operand.name
                ),
            )
            .with_note(format!("`{}` reaches every CTA's objects; a CTA's init is seen by the others only after a fence and a cluster barrier", apply.opcode))
            .with_help("after the inits, run `apply(ptx[\"fence.mbarrier_init.release.cluster\"])` and then a cluster barrier (`barrier.cluster.arrive` + `barrier.cluster.wait`)"),
        );
        false
    }

    /// The ticket in progress of a ring whose arrivals are all in:
    /// complete once the bulk copies signalling it delivered the bytes it
    /// expects; more bytes than expected is an error (a copy's bytes would
    /// count toward the next phase, which could then complete before this
    /// phase's copies land).
    fn settle(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        index: usize,
        state: &mut State<'c>,
    ) {
        let ring = &state.rings[index];
        let (expected, delivered) = (ring.expected, ring.delivered);
        if Some(ring.arrivals) != ring.count() || delivered < expected {
            return;
        }
        if delivered > expected {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_TX,
                    operand.span,
                    format!(
                        "the bulk copies signalling this phase of `{}` deliver {delivered} bytes, but its arrivals expect {expected}: the extra bytes would count toward the next phase",
                        operand.name
                    ),
                )
                .with_note(format!("`{}` is where the phase's arrivals and copies are all in", apply.opcode))
                .with_help(format!("expect the bytes of every copy that signals the phase: `mbarrier.arrive.expect_tx` with {delivered} in all")),
            );
        }
        let ring = &mut state.rings[index];
        ring.completed = ring.completed.take().map(|c| c.add_const(1));
        ring.begin_phase();
    }

    /// `apply`'s facts, with the values of the loop variables of the
    /// iterations walked at a known value (`k = 1`).
    pub(super) fn facts_here(&self, apply: &Apply) -> Vec<Fact> {
        let mut facts = apply.facts.clone();
        for (var, _, value) in &self.exact {
            let var = Poly::atom(*var);
            facts.push(var.sub(value));
            facts.push(value.sub(&var));
        }
        facts
    }

    /// Checks that the ticket in progress on `ring` is a real one: below
    /// its [`Ring::virtual_from`], proven from `apply`'s facts (reported
    /// otherwise). An arrival on a virtual ticket would go, where a tail
    /// guard skipped a refill, to an earlier ticket's object.
    fn real_ticket_in_progress(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        ring: &Ring,
    ) {
        let (Some(from), Some(completed)) = (&ring.virtual_from, &ring.completed) else {
            return;
        };
        if self.le(&self.facts_here(apply), &completed.add_const(1), from) {
            return;
        }
        let (from, completed) = (from.clone(), self.known(completed));
        self.ring_error(
            operand.buffer,
            Diagnostic::new(
                Code::MBARRIER_ARRIVALS,
                operand.span,
                format!(
                    "this `{}` goes to ticket `{}` of `{}`, but the tickets from `{}` on are counted only where a guarded refill ran: where it was skipped, this would complete an earlier phase",
                    apply.opcode,
                    completed.display(&self.atoms),
                    operand.name,
                    from.display(&self.atoms)
                ),
            )
            .with_note("the checker counts a refill under a tail guard (`if k + 2 < chunks`) as if it ran; arrivals after it must be under the same guard")
            .with_help(format!(
                "arrive only where `{} < {}` holds",
                completed.display(&self.atoms),
                from.display(&self.atoms)
            )),
        );
    }

    /// The rings after a uniform `if` whose arms complete different
    /// numbers of tickets: where one arm (`more`) completes `d` tickets
    /// more than the other (`fewer`, whose facts hold `e <= 0`), both
    /// count `F_more`, the tickets from `B = F_fewer + e` on *virtual*
    /// ([`Ring::virtual_from`]): on the `more` path they are real, on the
    /// `fewer` path `B <= F_fewer`, so every ticket below `B` is real on
    /// both. A tail guard `if k + 2 < chunks` around a refill gives `B =
    /// chunks`. Rings left as they were where this does not apply (the
    /// join makes them uncountable).
    pub(super) fn virtual_join(
        &mut self,
        then_rings: &mut [Ring],
        else_rings: &mut [Ring],
        cond: &Cond,
    ) -> bool {
        let mut joined = false;
        for then_ring in then_rings.iter_mut() {
            let Some(else_ring) = else_rings.iter_mut().find(|r| r.buffer == then_ring.buffer)
            else {
                continue;
            };
            let (Some(ft), Some(fe)) = (&then_ring.completed, &else_ring.completed) else {
                continue;
            };
            if ft == fe
                || !then_ring.same_progress(else_ring)
                || then_ring.counts != else_ring.counts
            {
                continue;
            }
            let (more, fewer, fewer_facts) = match ft.sub(fe).as_const() {
                Some(d) if d > 0 => (&mut *then_ring, &mut *else_ring, cond.facts(false)),
                Some(d) if d < 0 => (&mut *else_ring, &mut *then_ring, cond.facts(true)),
                _ => continue,
            };
            // One fact of the fewer arm bounds the real tickets.
            let [e] = fewer_facts.as_slice() else {
                continue;
            };
            let bound = fewer.completed.as_ref().map(|f| f.add(e));
            let Some(bound) = bound else { continue };
            // With an earlier bound, the lower of the two: tickets below
            // either are real where it holds, and the `fewer` path has
            // `B <= F_fewer` for both.
            let mut lowest = Some(bound);
            for earlier in [more.virtual_from.clone(), fewer.virtual_from.clone()]
                .into_iter()
                .flatten()
            {
                lowest = lowest.and_then(|b| {
                    if self.le(&[], &b, &earlier) {
                        Some(b)
                    } else if self.le(&[], &earlier, &b) {
                        Some(earlier)
                    } else {
                        None
                    }
                });
            }
            match lowest {
                Some(lowest) => more.virtual_from = Some(lowest),
                // Two bounds, neither provably the lower: not countable.
                None if self.quiet == 0 => continue,
                // A pass that only measures tickets per iteration keeps
                // the earlier bound (its loop variable is not in the count).
                None => {}
            }
            *fewer = more.clone();
            joined = true;
        }
        joined
    }

    /// Whether `operand` names the object of ticket `completed`, `F % S`.
    fn names_ticket(
        &mut self,
        operand: &BarrierOperand<'_>,
        completed: &Poly,
        size: i128,
        facts: &[Fact],
    ) -> bool {
        let ticket = self.known(completed);
        let object = operand.start.as_ref().map(|s| self.known(s));
        match (&object, ticket.as_const()) {
            (Some(o), Some(t)) => o.as_const() == Some(t.rem_euclid(size)),
            (Some(o), None) => {
                // `F % S` is `F` itself while `F` stays below `S`.
                let (lo, hi) = self.atoms.range(&ticket);
                let remainder = if lo >= 0 && hi < size {
                    Some(ticket.clone())
                } else {
                    self.computed(ComputedOp::Rem, vec![ticket.clone(), Poly::constant(size)])
                };
                // `x % S` with `x` the ticket plus a multiple of `S`
                // (`(k + 3) % 4` for ticket `k - 1`): both non-negative
                // (a ticket counts phases; `%` is defined only there).
                let shifted = self
                    .remainder_of(o, size)
                    .and_then(|x| x.sub(&ticket).as_const())
                    .is_some_and(|d| d % size == 0);
                shifted || remainder.is_some_and(|r| r == *o || self.equal(&r, o, facts))
            }
            (None, _) => false,
        }
    }

    /// A bulk copy (the last of `state.copies`) signalling its mbarrier:
    /// its bytes count toward the ring's ticket in progress, which must be
    /// its object's, and it lands when that ticket completes.
    pub(super) fn bulk_copy(&mut self, apply: &Apply, state: &mut State<'c>) {
        let Some(operand) = barrier_operand(apply, self.context.mbarriers) else {
            return;
        };
        let Some(index) = state.rings.iter().position(|r| r.buffer == operand.buffer) else {
            return;
        };
        if !self.initialized(apply, &operand, &state.rings[index]) {
            return;
        }
        if !state.rings[index].fenced {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::PROXY_FENCE,
                    operand.span,
                    format!(
                        "this `{}` signals `{}` through the async proxy, but no `fence.mbarrier_init` (or `fence.proxy.async`) ran after its init, by the threads that ran it",
                        apply.opcode, operand.name
                    ),
                )
                .with_note("`mbarrier.init` is a generic-proxy write: the async proxy may not see it without a fence")
                .with_help("after the inits, the same threads run `apply(ptx[\"fence.mbarrier_init.release.cluster\"])`, then a CTA barrier"),
            );
            // Counted on: what follows is checked as if it were there.
        }
        let Some(running) = self.running_threads(apply) else {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_TX,
                    operand.span,
                    format!(
                        "the checker cannot count the threads that issue this `{}`, so not the bytes it delivers to `{}`: it counts all the CTA's threads, or one thread (an `if` that fixes every thread index)",
                        apply.opcode, operand.name
                    ),
                )
                .with_help("issue bulk copies from one thread (`if thread_id(0) == 0 { .. }`), without a `pred`"),
            );
            return;
        };
        let ring = &state.rings[index];
        let (Some(_), Some(completed)) = (ring.count(), ring.completed.clone()) else {
            self.unknown_phases(apply, &operand);
            return;
        };
        let size = ring.size;
        if operand.len != 1 || !self.names_ticket(&operand, &completed, size, &apply.facts) {
            let ticket = self.known(&completed);
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_TX,
                    operand.span,
                    format!(
                        "this copy's bytes must go to the object of the phase in progress on `{}`, ticket `{}`: object `({}) % {}`",
                        operand.name,
                        ticket.display(&self.atoms),
                        ticket.display(&self.atoms),
                        size
                    ),
                )
                .with_note("the checker follows the objects of an mbarrier buffer as a ring: their phases complete in turn, object `t % S` for the `t`-th completion"),
            );
            // Counted as if it went there (as an arrival is): a pass that
            // only measures tickets per iteration does not know the
            // object's index yet.
        }
        let bytes = apply
            .operands
            .iter()
            .find_map(|o| match &o.value {
                Value::Memory { view, .. } if o.slot.whole => {
                    Some(crate::checked::operand_access(&o.slot, view, &[]).2)
                }
                _ => None,
            })
            .unwrap_or(0);
        // Counted as if real (reported otherwise).
        self.real_ticket_in_progress(apply, &operand, &state.rings[index]);
        // A multicast copy is every CTA's (`cluster_rings`): each CTA's
        // object receives the box of each, which lands in each CTA's
        // copy of the destination (one copy of the walk per CTA's box).
        let boxes = if super::super::cluster_rings::is_multicast(apply) {
            // Reported where not; counted as if it were.
            self.published_to_cluster(apply, &operand, &state.rings[index]);
            super::super::cluster_rings::cluster_size(self.cluster.shape)
        } else {
            1
        };
        let issued = usize::try_from(boxes).unwrap_or(1);
        let first = state.copies.len().saturating_sub(issued);
        for copy in &mut Rc::make_mut(&mut state.copies)[first..] {
            Rc::make_mut(copy).attachment = Some(Attachment {
                ring: operand.buffer,
                ticket: Some(completed.clone()),
            });
        }
        state.rings[index].delivered += i128::try_from(bytes).unwrap_or(0) * running * boxes;
        self.settle(apply, &operand, index, state);
    }

    /// A fence after inits: the rings whose inits ran for the threads the
    /// fence runs for may be signalled by the async proxy.
    pub(super) fn fence_inits(&mut self, apply: &Apply, rings: &mut [Ring]) {
        if apply.guard != Cond::Const(true) {
            return;
        }
        let threads = self.issuers(apply);
        for ring in rings.iter_mut() {
            let covers = match &ring.init_threads {
                // Every fact the fence runs under held at the inits.
                Some(init) => threads.iter().all(|f| init.contains(f)),
                None => threads.is_empty(),
            };
            if covers {
                ring.fenced = true;
                ring.init_fenced_for_cluster |= apply.form.form.mnemonic == "fence.mbarrier_init";
            }
        }
    }

    /// The facts of `apply` that differ between the CTA's threads: which
    /// threads run it (with no `pred`).
    pub(super) fn on_thread_facts(&self, apply: &Apply) -> Vec<Fact> {
        apply
            .facts
            .iter()
            .filter(|f| self.differs_in_cta(f))
            .cloned()
            .collect()
    }

    /// Touches of the CTA made before every thread's arrival on ticket
    /// `ticket` (`arrivers`: made by those threads, the only ones that
    /// arrived toward it): acquired by a wait on it.
    fn release(
        &self,
        touches: &mut Listed<Touch<'c>>,
        ring: usize,
        ticket: &Poly,
        arrivers: Option<&ThreadSet>,
    ) {
        // One ticket for every touch it releases, made at the first.
        let mut shared: Option<Rc<Poly>> = None;
        update_listed(
            touches,
            |touch| {
                touch.released.is_none()
                    && arrivers.is_none_or(|arrivers| touch.made_within(arrivers))
            },
            |touch| {
                let ticket = shared.get_or_insert_with(|| Rc::new(ticket.clone()));
                touch.released = Some((ring, Rc::clone(ticket)));
                touch.ticket_carried = 0;
            },
        );
    }

    /// A phase completed by some threads only, against the waits on its
    /// object other threads made since the last CTA barrier.
    fn overrun(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        touches: &[Rc<Touch<'c>>],
        arrivers: &Option<ThreadSet>,
    ) {
        let Some(start) = &operand.start else { return };
        let here: Footprint = Rc::new(vec![Some((start.clone(), 1))]);
        // A wait the arriving threads made themselves, or acquired
        // (through a phase its threads released), is ordered before their
        // arrival.
        let own = |t: &Touch<'_>| arrivers.as_ref().is_some_and(|a| t.made_within(a));
        for touch in touches.iter().filter(|t| {
            t.buffer == operand.buffer
                && t.released.is_none()
                && !own(t)
                && !acquired_by(&t.acquired, arrivers)
        }) {
            let there: Footprint = Rc::new(touch.footprint.iter().take(1).cloned().collect());
            if self.apart(&there, &here, &apply.facts) {
                continue;
            }
            let Some(view) = apply.operands.iter().find_map(|o| match &o.value {
                Value::Memory { view, buffer, .. } if buffer.index == operand.buffer => Some(view),
                _ => None,
            }) else {
                return;
            };
            if self.own_bytes(&touch.separated, apply, view) {
                continue;
            }
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_OVERRUN,
                    operand.span,
                    format!(
                        "this arrival completes a phase of `{}` while other threads may still be waiting for the object's previous phase: their parity would then name the wrong phase",
                        operand.name
                    ),
                )
                .with_help("order the other threads' wait before this arrival: a CTA barrier (`bar.sync`), or an mbarrier they arrive on after waiting, waited for here (lanes of one warp: a `bar.warp.sync` after their wait, before one lane's arrival)"),
            );
            return;
        }
    }

    /// Phases a loop cannot count because its arrivals fall short of the
    /// init count: most likely the count names threads that never arrive.
    fn short_arrivals(&mut self, operand: &BarrierOperand<'_>, running: i128, count: i128) {
        self.ring_error(
            operand.buffer,
            Diagnostic::new(
                Code::MBARRIER_PHASE,
                operand.span,
                format!(
                    "{running} threads arrive here on `{}`, initialized to complete a phase after {count} arrivals: no phase completes, so the checker cannot count them",
                    operand.name
                ),
            )
            .with_help(format!(
                "initialize `{}` with the arrivals each phase gets ({running}), or arrive from the threads the count names",
                operand.name
            )),
        );
    }

    fn unknown_phases(&mut self, apply: &Apply, operand: &BarrierOperand<'_>) {
        self.ring_error(
            operand.buffer,
            Diagnostic::new(
                Code::MBARRIER_PHASE,
                operand.span,
                format!(
                    "the checker cannot count the phases of `{}` completed before this `{}`",
                    operand.name, apply.opcode
                ),
            )
            .with_note("phases are counted through `if`s whose arms complete the same phases (or, under a guard on launch values, one more on one arm), and through loops whose iterations complete the same number (with step 1)")
            .with_help("complete the same phases on every path: arrive unconditionally and let bounds guards skip the copies"),
        );
    }

    /// After a wait the checker rejected: what it would have acquired is
    /// taken as acquired, so its mistake is reported once.
    fn acquire_all(&mut self, ring: usize, state: &mut State<'c>) {
        retain_listed(
            &mut state.touches,
            |t| !matches!(&t.released, Some((r, _)) if *r == ring),
        );
        retain_listed(&mut state.copies, |c| {
            !matches!(&c.attachment, Some(a) if a.ring == ring)
                && !matches!(&c.released, Some((r, _)) if *r == ring)
        });
        // A ring whose phases the walk lost (reported): whatever a phase
        // of it could have passed on is taken as passed on, so the roles
        // it orders report nothing more.
        if self.failed_rings.contains(&ring) {
            state.touches = Listed::default();
            retain_listed(&mut state.copies, |c| c.acquired.is_none());
        }
    }

    /// `mbarrier.try_wait.parity`: acquires the last completed ticket of
    /// its object, which its parity must name.
    fn wait(
        &mut self,
        apply: &Apply,
        operand: &BarrierOperand<'_>,
        index: usize,
        state: &mut State<'c>,
    ) {
        let ring = &state.rings[index];
        let Some(completed) = ring.completed.clone() else {
            self.unknown_phases(apply, operand);
            self.acquire_all(operand.buffer, state);
            return;
        };
        let size = ring.size;
        let parity = apply
            .operands
            .iter()
            .find_map(|o| match (&o.value, o.slot.name) {
                (Value::Literal(crate::ast::LiteralValue::Int(p)), "parity") => {
                    Some(Poly::constant(*p))
                }
                (Value::Index { value, .. }, "parity") => Some(value.clone()),
                _ => None,
            });
        let (Some(object), Some(parity)) = (operand.start.clone(), parity) else {
            self.unknown_phases(apply, operand);
            return;
        };
        // As written (`j % 4`, whose messages name `j`), then with the
        // known iteration's values put in (a prologue's constants).
        let written = self.acquired_ticket(&object, &parity, &completed, size, &apply.facts);
        let verdict = match written {
            Ok(ticket) => Ok(ticket),
            Err(error) => {
                let (object, parity, known) = (
                    self.known(&object),
                    self.known(&parity),
                    self.known(&completed),
                );
                let constant = (object.as_const().is_some() && known.as_const().is_some())
                    .then(|| self.acquired_ticket(&object, &parity, &known, size, &apply.facts));
                match constant {
                    Some(Ok(ticket)) => Ok(ticket),
                    Some(Err(constant_error))
                        if self.remainder_of(&operand_start(operand), size).is_none() =>
                    {
                        Err(constant_error)
                    }
                    _ => Err(error),
                }
            }
        };
        let completed = self.known(&completed);
        let ticket = match verdict {
            Ok(ticket) => self.known(&ticket),
            Err(WaitError::NotCompleted)
                if ring_awaits_bytes(&state.rings[index]) && self.saw_failed =>
            {
                // A rejected statement (a copy) may be what was missing:
                // its error is the one to fix.
                self.acquire_all(operand.buffer, state);
                return;
            }
            Err(WaitError::NotCompleted) if ring_awaits_bytes(&state.rings[index]) => {
                let ring = &state.rings[index];
                let (expected, delivered) = (ring.expected, ring.delivered);
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::MBARRIER_TX,
                        operand.span,
                        format!(
                            "the phase of `{}` this wait waits for expects {expected} transaction bytes, but the bulk copies signalling it deliver {delivered}: it would wait forever",
                            operand.name
                        ),
                    )
                    .with_help("expect exactly the bytes of the copies that signal the phase (`mbarrier.arrive.expect_tx`), and issue every one of them before the wait"),
                );
                self.acquire_all(operand.buffer, state);
                return;
            }
            Err(WaitError::NotCompleted) => {
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::MBARRIER_NEVER_COMPLETES,
                        operand.span,
                        format!(
                            "no arrival before this wait completes the phase of `{}` it waits for: it would wait forever",
                            operand.name
                        ),
                    )
                    .with_note(if completed.as_const() == Some(0) {
                        format!("no phase of `{}` has completed here", operand.name)
                    } else {
                        format!(
                            "the tickets below `{}` of `{}` are complete here (ticket `t` is phase `t / {size}` of object `t % {size}`)",
                            completed.display(&self.atoms),
                            operand.name,
                        )
                    })
                    .with_help("wait on the object of a ticket that completed before this statement"),
                );
                self.acquire_all(operand.buffer, state);
                return;
            }
            Err(WaitError::Parity(expected)) => {
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::MBARRIER_PHASE,
                        operand.span,
                        format!(
                            "this wait on `{}` names the wrong phase: the object's last completed phase has parity `{expected}`",
                            operand.name
                        ),
                    )
                    .with_note("a wait on object `x % S` of a ring of `S` acquires ticket `x`, phase `x / S`: its parity is `(x / S) % 2`")
                    .with_help(format!("pass the parity `{expected}`")),
                );
                self.acquire_all(operand.buffer, state);
                return;
            }
            Err(WaitError::Unknown) => {
                self.ring_error(
                    operand.buffer,
                    Diagnostic::new(
                        Code::MBARRIER_PHASE,
                        operand.span,
                        format!(
                            "the checker cannot tell which phase of `{}` this wait names",
                            operand.name
                        ),
                    )
                    .with_note(format!(
                        "{} phases are complete here; the wait must name one of the last {size}, as object `x % {size}` with parity `(x / {size}) % 2`",
                        completed.display(&self.atoms)
                    ))
                    .with_help(format!("write the object as `x % {size}` and the parity as `(x / {size}) % 2` for the ticket `x` it waits for")),
                );
                self.acquire_all(operand.buffer, state);
                return;
            }
        };
        if let Some(from) = state.rings[index].virtual_from.clone()
            && !self.le(&self.facts_here(apply), &ticket.add_const(1), &from)
        {
            self.ring_error(
                operand.buffer,
                Diagnostic::new(
                    Code::MBARRIER_NEVER_COMPLETES,
                    operand.span,
                    format!(
                        "this wait on `{}` is for ticket `{}`, but the tickets of `{}` from `{}` on are completed only where a guarded refill ran: where it was skipped, the wait would wait forever",
                        operand.name,
                        ticket.display(&self.atoms),
                        operand.name,
                        from.display(&self.atoms)
                    ),
                )
                .with_note("the checker counts a refill under a tail guard (`if k + 2 < chunks`) as if it ran, and proves that no wait is for a ticket it skipped")
                .with_help(format!(
                    "wait only where `{} < {}` holds (the chunk exists)",
                    ticket.display(&self.atoms),
                    from.display(&self.atoms)
                )),
            );
            self.acquire_all(operand.buffer, state);
            return;
        }
        // A `.relaxed` wait acquires nothing: the phase is checked, but the
        // copies and accesses stay as they were; nor does a wait a `pred` or
        // a bounds guard may skip.
        if apply.form.get(crate::ptx::Slot::Sem) == Some("relaxed")
            || apply.guard != Cond::Const(true)
        {
            return;
        }
        // What the arrivals of tickets up to this one released is ordered
        // before the waiting threads.
        let everyone = self.running(apply) == Some(self.block_threads());
        let waiters = if everyone {
            None
        } else {
            self.threads_of_apply(apply)
        };
        // Tickets as this iteration knows them (a loop walked at a known
        // iteration puts its variable's value in).
        // Tickets as this iteration knows them (a loop walked at a known
        // iteration puts its variable's value in), each put in once (the
        // versions of the touches and copies share a few tickets), in the
        // order of the items.
        let mut distinct: Vec<Poly> = Vec::new();
        let mut index_of: WordMap<Poly, usize> = WordMap::default();
        // The last ticket asked, by address: borrowed from the state,
        // which holds every ticket through the three passes (no other
        // takes a held one's address).
        let mut last: Option<(*const Poly, usize)> = None;
        let mut index = |walk: &mut Self, t: &Poly| -> usize {
            if let Some((at, i)) = last
                && std::ptr::eq(at, t)
            {
                return i;
            }
            let i = match index_of.get(t) {
                Some(i) => *i,
                None => {
                    distinct.push(walk.known(t));
                    index_of.insert(t.clone(), distinct.len() - 1);
                    distinct.len() - 1
                }
            };
            last = Some((t as *const Poly, i));
            i
        };
        let released: Vec<Option<usize>> = state
            .touches
            .iter()
            .map(|touch| match &touch.released {
                Some((ring, t)) if *ring == operand.buffer => Some(index(self, t)),
                _ => None,
            })
            .collect();
        let attached: Vec<Option<usize>> = state
            .copies
            .iter()
            .map(|copy| match &copy.attachment {
                Some(Attachment {
                    ring,
                    ticket: Some(t),
                }) if *ring == operand.buffer => Some(index(self, t)),
                _ => None,
            })
            .collect();
        let copies_released: Vec<Option<usize>> = state
            .copies
            .iter()
            .map(|copy| match &copy.released {
                Some((ring, t)) if *ring == operand.buffer => Some(index(self, t)),
                _ => None,
            })
            .collect();
        // Each known ticket's verdict asked once, when first needed.
        let mut verdicts: Vec<Option<bool>> = vec![None; distinct.len()];
        let mut acquired = |walk: &Self, t: Option<usize>| {
            t.is_some_and(|i| {
                *verdicts[i].get_or_insert_with(|| walk.le(&apply.facts, &distinct[i], &ticket))
            })
        };
        // Every thread acquired what it released: nothing left to follow.
        // Some threads (a role's `if`): the accesses are ordered before
        // those threads' later ones only. Threads the checker cannot
        // enumerate acquire nothing.
        let every_thread = Some(self.every_thread.clone());
        let mut kept = Vec::with_capacity(state.touches.len());
        for (mut touch, ticket) in Rc::unwrap_or_clone(std::mem::take(&mut state.touches))
            .into_iter()
            .zip(released)
        {
            if acquired(self, ticket) {
                if everyone {
                    continue;
                }
                if let Some(waiters) = &waiters {
                    thread_sets::acquire(&mut Rc::make_mut(&mut touch).acquired, waiters);
                    if touch.acquired == every_thread || self.touch_settled(&touch) {
                        continue;
                    }
                }
            }
            kept.push(touch);
        }
        state.touches = Rc::new(kept);
        let mut kept = Vec::with_capacity(state.copies.len());
        for ((mut copy, ticket), released) in Rc::unwrap_or_clone(std::mem::take(&mut state.copies))
            .into_iter()
            .zip(attached)
            .zip(copies_released)
        {
            // Through the phase an acquiring thread released it on, or
            // through the ticket its bytes complete (which retires it).
            let (by_release, by_ticket) = (acquired(self, released), acquired(self, ticket));
            let retires = by_ticket && copy.status != Status::Retired;
            if everyone && (by_release || retires) {
                continue;
            }
            if retires {
                Rc::make_mut(&mut copy).status = Status::Retired;
            }
            if (by_release || by_ticket)
                && let Some(waiters) = &waiters
            {
                thread_sets::acquire(&mut Rc::make_mut(&mut copy).acquired, waiters);
            }
            let settles =
                (by_release && waiters.is_some()) || (by_ticket && copy.acquired.is_some());
            if settles && self.copy_settled(&copy) {
                continue;
            }
            kept.push(copy);
        }
        state.copies = Rc::new(kept);
    }

    /// The ticket a wait on `object` with `parity` acquires when
    /// `completed` tickets are done (module doc).
    fn acquired_ticket(
        &mut self,
        object: &Poly,
        parity: &Poly,
        completed: &Poly,
        size: i128,
        facts: &[Fact],
    ) -> Result<Poly, WaitError> {
        if let (Some(o), Some(f)) = (object.as_const(), completed.as_const()) {
            // The last ticket below `f` on object `o` (negative: none yet,
            // whose "phase -1" counts as complete, parity 1).
            if !(0..size).contains(&o) {
                return Err(WaitError::Unknown);
            }
            let t = f - 1 - (f - 1 - o).rem_euclid(size);
            let expected = t.div_euclid(size).rem_euclid(2);
            return match parity.as_const() {
                Some(p) if p == expected => Ok(Poly::constant(t)),
                // The other parity waits for the object's next phase.
                Some(_) if t < 0 => Err(WaitError::NotCompleted),
                Some(_) => Err(WaitError::Parity(expected.to_string())),
                None => Err(WaitError::Unknown),
            };
        }
        // Object `x % size`: ticket `x` or `x - size`.
        let Some(x) = self.remainder_of(object, size) else {
            return Err(WaitError::Unknown);
        };
        let below = |t: &Poly| self.le(facts, &t.add_const(1), completed);
        let recent = |t: &Poly| self.le(facts, &completed.add_const(-size), t);
        let candidates = [(x.clone(), 0), (x.add_const(-size), -1)];
        let Some((ticket, shift)) = candidates.into_iter().find(|(t, _)| below(t) && recent(t))
        else {
            // Ticket `x` not completed yet, or not countable.
            return Err(if self.le(facts, completed, &x) {
                WaitError::NotCompleted
            } else {
                WaitError::Unknown
            });
        };
        // The kernel may compute `x / size` more than once (one atom each).
        let quotients = self.find_computed(ComputedOp::Div, &x, size);
        if quotients.is_empty() {
            return Err(WaitError::Unknown);
        }
        let offset = quotients
            .iter()
            .find_map(|quotient| self.parity_offset(parity, quotient));
        match offset {
            Some(offset) if (offset - shift).rem_euclid(2) == 0 => Ok(ticket),
            _ => Err(WaitError::Parity(if shift == 0 {
                format!("({} / {size}) % 2", x.display(&self.atoms))
            } else {
                format!("({} / {size} + 1) % 2", x.display(&self.atoms))
            })),
        }
    }

    /// `x` where `p` is the atom `x % size`.
    fn remainder_of(&self, p: &Poly, size: i128) -> Option<Poly> {
        let [atom] = p.atoms()[..] else { return None };
        if *p != Poly::atom(atom) {
            return None;
        }
        match &self.atoms.get(atom).kind {
            AtomKind::Computed(ComputedOp::Rem, args) if args[1].as_const() == Some(size) => {
                Some(args[0].clone())
            }
            _ => None,
        }
    }

    /// The atoms `op(x, divisor)` of the table, where the kernel computes
    /// it.
    fn find_computed(&self, op: ComputedOp, x: &Poly, divisor: i128) -> Vec<Poly> {
        let kind = AtomKind::Computed(op, vec![x.clone(), Poly::constant(divisor)]);
        self.atoms
            .iter()
            .filter(|(_, a)| a.kind == kind)
            .map(|(id, _)| Poly::atom(id))
            .collect()
    }

    /// `c` such that `parity` is `(quotient + c) % 2` (also written with
    /// `& 1`, or as `1 - (quotient + c) % 2`).
    fn parity_offset(&self, parity: &Poly, quotient: &Poly) -> Option<i128> {
        let bit = |atom: AtomId| -> Option<i128> {
            match &self.atoms.get(atom).kind {
                AtomKind::Computed(ComputedOp::Rem, args) if args[1].as_const() == Some(2) => {
                    args[0].sub(quotient).as_const()
                }
                AtomKind::Computed(ComputedOp::And, args) if args[1].as_const() == Some(1) => {
                    args[0].sub(quotient).as_const()
                }
                _ => None,
            }
        };
        let [atom] = parity.atoms()[..] else {
            return None;
        };
        let offset = bit(atom)?;
        if *parity == Poly::atom(atom) {
            Some(offset)
        } else if *parity == Poly::constant(1).sub(&Poly::atom(atom)) {
            Some(offset + 1)
        } else {
            None
        }
    }

    /// Reports the first mistake found on a ring; what follows from it is
    /// not reported again.
    fn ring_error(&mut self, ring: usize, diag: Diagnostic) {
        if self.quiet > 0 || self.failed_rings.contains(&ring) {
            return;
        }
        self.failed_rings.push(ring);
        self.report(diag);
    }

    /// `p` with the loop variables of the iterations walked at a known
    /// value put in.
    pub(super) fn known(&mut self, p: &Poly) -> Poly {
        let mut out = p.clone();
        for i in 0..self.exact.len() {
            let (var, first, value) = self.exact[i].clone();
            out = self
                .substitute(&out, var, &value, first, false)
                .unwrap_or(out);
        }
        out
    }

    /// Whether `a == b` under `facts`.
    fn equal(&self, a: &Poly, b: &Poly, facts: &[Fact]) -> bool {
        self.le(facts, a, b) && self.le(facts, b, a)
    }
}

/// The most transaction bytes a phase may expect (PTX: the tx-count lies
/// in `[-(2^20 - 1), 2^20 - 1]`).
const MAX_TX_BYTES: i128 = (1 << 20) - 1;

/// The constant value of operand `name` of `apply`, if it is one.
fn constant_operand(apply: &Apply, name: &str) -> Option<i128> {
    apply
        .operands
        .iter()
        .find(|o| o.slot.name == name)
        .and_then(|o| match &o.value {
            Value::Literal(crate::ast::LiteralValue::Int(n)) => Some(*n),
            Value::Index { value, .. } => value.as_const(),
            _ => None,
        })
}

/// Why a wait's ticket is not accepted.
enum WaitError {
    /// No completed ticket of its object matches: it would block for good.
    NotCompleted,
    /// The last completed phase of its object has the other parity.
    Parity(String),
    /// The checker cannot tell which ticket the wait names.
    Unknown,
}

/// Whether a ring's arrivals toward its ticket in progress are all in
/// while its transaction bytes are not.
fn ring_awaits_bytes(ring: &Ring) -> bool {
    Some(ring.arrivals) == ring.count() && ring.delivered < ring.expected
}

/// The first object a barrier operand names (unknown: a fresh constant
/// that names nothing).
fn operand_start(operand: &BarrierOperand<'_>) -> Poly {
    operand.start.clone().unwrap_or_default()
}

/// The barrier operand of an mbarrier `apply`.
fn barrier_operand<'a>(apply: &'a Apply, mbarriers: &[Option<i128>]) -> Option<BarrierOperand<'a>> {
    apply.operands.iter().find_map(|operand| {
        let Value::Memory {
            buffer, view, name, ..
        } = &operand.value
        else {
            return None;
        };
        if buffer.space != crate::memory::MemorySpace::Shared {
            return None;
        }
        mbarriers.get(buffer.index).copied().flatten()?;
        let axis = footprint(view).first().cloned().flatten();
        Some(BarrierOperand {
            span: operand.span,
            name,
            buffer: buffer.index,
            start: axis.as_ref().map(|(s, _)| s.clone()),
            len: axis.map_or(0, |(_, l)| l),
        })
    })
}
