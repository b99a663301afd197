//! The register obligation: every register value an *effect* observes is
//! defined (SPEC §4 rule 9, with §6's guards).
//!
//! **Input**: the checked kernel (`crate::checked`): for each `apply` the
//! bytes each repeat coordinate reads and writes, the guard it runs under
//! (its `pred` and the bounds guards the compiler added), and whether it is
//! an effect; the runtime `if`s and loops around them; the conditions that
//! read predicate registers.
//! **Output**: diagnostics only (TK0302, TK0303, TK0306). No IR is built
//! here, and the walk has no side effects, so loops are walked to a
//! fixpoint.
//!
//! **The model.** Each register byte has a *definedness*
//! ([`Defined`]): never written on some path ([`Defined::No`]), holding a
//! value on every path ([`Defined::Yes`]), or holding one wherever a
//! condition holds ([`Defined::Under`]). The condition is over values that
//! never change once computed (atoms, and predicate registers by version),
//! so it means the same wherever it is read.
//! - An instruction under guard `G` that reads bytes defined under `D1 ..
//!   Dn` writes its destinations defined under `G && D1 && .. && Dn`
//!   (simplified to `G` where the facts in scope and `G` imply the `Di`).
//!   With `preserve_dst`, where `G` is false the old value stays, so the
//!   destination is at least as defined as both the new and the old value.
//! - Computing on an undefined value is not an error (PTX registers hold
//!   some bits; the result is as undefined as its inputs, which is what the
//!   CPU interpreter models). An *effect* that observes it is: a store or
//!   atomic (the value reaches memory), a collective or barrier (it reaches
//!   other threads), a condition (`if`, `pred`) that branches on it. Such a
//!   read needs its own guard, with the facts in scope, to imply the value's
//!   condition: [`implied`].
//! - After an `if`, a byte the `then` arm wrote (`T`) and the `else` arm
//!   did not is defined under `cond && T`, and the other way round; written
//!   on both it is defined where both arms define it.
//! - A runtime loop body may run zero or more times, after any earlier
//!   iteration: it is walked from the meet of the state before the loop and
//!   the state its body leaves, to a fixpoint. Conditions over the body's own
//!   values (the loop variable, its `let`s, predicates it writes) mean
//!   another iteration's values there, so they are dropped to "defined
//!   nowhere we can name" ([`Defined::Under`] of `false`) on the way round.
//!
//! Guarantee: when this pass reports nothing, no store, atomic, collective,
//! barrier or condition of any execution reads a register byte its thread
//! left undefined (the CPU interpreter faults on exactly those reads).

use std::rc::Rc;

use crate::checked::{Apply, CondRead, Loop, Node, Reader, writes_registers};
use crate::diag::{Code, Diagnostic};
use crate::layout::storage_index;
use crate::program::{CmpOp, Cond, Lane, Tile};
use crate::sym::{Atoms, Fact, Poly, ProofMemo};

/// Where one register byte holds a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Defined {
    /// Not written on some path to here.
    No,
    /// Holds a value on every path.
    Yes,
    /// Holds a value wherever this condition holds (`false`: written on
    /// some path, but defined nowhere the checker can name). Shared: one
    /// condition covers every byte an instruction writes.
    Under(Rc<Cond>),
}

/// How often a loop body is walked looking for its fixpoint before every
/// byte it writes is taken as defined nowhere we can name (always sound).
const LOOP_PASSES: usize = 3;

/// Repeat coordinates the fixpoint walks may visit in all (nested loops
/// multiply): past it, loops skip straight to the sound fallback.
const WALK_BUDGET: usize = 1 << 22;

/// Checks the register obligation of a kernel body.
pub(crate) fn prove(
    flow: &[Node],
    tiles: &[Tile],
    atoms: &Atoms,
    facts: &[Fact],
    param_names: &[String],
) -> Vec<Diagnostic> {
    let mut walk = Walk {
        tiles,
        atoms,
        param_names,
        facts: facts.to_vec(),
        path: Vec::new(),
        state: tiles
            .iter()
            .map(|t| Rc::new(vec![Defined::No; t.registers() * t.dtype.size_bytes()]))
            .collect(),
        report: true,
        diags: Vec::new(),
        budget: WALK_BUDGET,
        proofs: ProofMemo::default(),
    };
    walk.block(flow);
    walk.diags
}

struct Walk<'a> {
    tiles: &'a [Tile],
    atoms: &'a Atoms,
    param_names: &'a [String],
    /// Facts (`p <= 0`) in scope.
    facts: Vec<Fact>,
    /// Conditions of the enclosing `if` arms (negated in `else` arms), for
    /// conditions no fact can state (predicate registers, `bool` params).
    path: Vec<Cond>,
    /// Each tile's bytes, shared copy-on-write: an `if` or a loop pass
    /// copies only the tiles it writes.
    state: Vec<Rc<Vec<Defined>>>,
    /// Whether to report (the fixpoint passes of a loop do not).
    report: bool,
    diags: Vec<Diagnostic>,
    budget: usize,
    /// The prover's answers ([`Walk::implied`]): an unrolled loop's
    /// statements, and a runtime loop's passes, ask the same conditions
    /// under the same facts again. Exactly [`Prover::prove_le0`](crate::sym::Prover::prove_le0)'s.
    proofs: ProofMemo,
}

impl Walk<'_> {
    fn block(&mut self, flow: &[Node]) {
        for node in flow {
            match node {
                Node::Apply(apply) => self.apply(apply),
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => self.branch(cond.as_ref(), then, otherwise),
                Node::Loop(body) => self.runtime_loop(body),
                Node::Havoc(lanes) => {
                    for lane in lanes {
                        for byte in self.bytes_mut(lane) {
                            *byte = Defined::Yes;
                        }
                    }
                }
                Node::CondRead(read) => self.cond_read(read),
                Node::Define(_) | Node::CtaBarrier { .. } => {}
            }
        }
    }

    fn bytes_mut(&mut self, lane: &Lane) -> &mut [Defined] {
        let bytes = Rc::make_mut(&mut self.state[lane.tile]);
        let end = (lane.byte_offset + lane.bytes).min(bytes.len());
        &mut bytes[lane.byte_offset.min(end)..end]
    }

    fn implied(&self, cond: &Cond, guard: &Cond) -> bool {
        implied_by(cond, guard, &self.facts, &self.path, |in_scope, p| {
            self.proofs.prove_le0_from(self.atoms, || in_scope.get(), p)
        })
    }

    /// [`Self::implied`] for the bytes of one statement, which share their
    /// conditions.
    fn implied_cached(
        &self,
        cond: &Rc<Cond>,
        guard: &Cond,
        memo: &mut Vec<(Rc<Cond>, bool)>,
    ) -> bool {
        if let Some((_, known)) = memo.iter().find(|(c, _)| Rc::ptr_eq(c, cond)) {
            return *known;
        }
        let known = self.implied(cond, guard);
        memo.push((Rc::clone(cond), known));
        known
    }

    fn apply(&mut self, apply: &Apply) {
        self.budget = self.budget.saturating_sub(apply.coordinates.len().max(1));
        if apply.guard == Cond::Const(false) {
            // Never runs: reads nothing, writes nothing.
            return;
        }
        let mut reported = vec![false; apply.operands.len()];
        let mut memo: Vec<(Rc<Cond>, bool)> = Vec::new();
        let mut preserve_reported = false;
        let guard = Rc::new(apply.guard.clone());
        let effect = apply.is_effect();
        // Writes land after every read of the statement (and every
        // coordinate reads the state before the statement: order
        // independence is proven elsewhere).
        let mut updates: Vec<(Lane, Defined)> = Vec::new();
        for coordinate in apply.coordinates.iter() {
            let mut inputs: Vec<Rc<Cond>> = Vec::new();
            for (operand, lane) in &coordinate.reads {
                let mut problem: Option<(usize, Option<Rc<Cond>>)> = None;
                // The condition of the previous byte, already asked about:
                // a lane's bytes (a register's, a tile's run of registers)
                // mostly share one.
                let mut asked: *const Cond = std::ptr::null();
                for offset in lane.byte_offset..lane.byte_offset + lane.bytes {
                    let Some(defined) = self.state[lane.tile].get(offset) else {
                        break;
                    };
                    match defined {
                        Defined::Yes => {}
                        Defined::Under(cond) if std::ptr::eq(Rc::as_ptr(cond), asked) => {}
                        Defined::No => {
                            problem = Some((offset, None));
                            break;
                        }
                        Defined::Under(cond) if effect => {
                            if !self.implied_cached(cond, &apply.guard, &mut memo) {
                                problem = Some((offset, Some(Rc::clone(cond))));
                                break;
                            }
                            asked = Rc::as_ptr(cond);
                        }
                        Defined::Under(cond) => {
                            if !inputs.contains(cond) {
                                inputs.push(Rc::clone(cond));
                            }
                            asked = Rc::as_ptr(cond);
                        }
                    }
                }
                match problem {
                    Some((offset, None)) => {
                        self.never_written(apply, *operand, lane.tile, offset, &mut reported);
                    }
                    Some((offset, Some(cond))) => self.observed_undefined(
                        apply,
                        *operand,
                        lane.tile,
                        offset,
                        &cond,
                        &mut reported,
                    ),
                    None => {}
                }
            }
            let inputs_cond = inputs
                .iter()
                .fold(Cond::Const(true), |acc, c| conjoin(&acc, c));
            let computed = if self.implied(&inputs_cond, &apply.guard) {
                match &*guard {
                    Cond::Const(true) => Defined::Yes,
                    _ => Defined::Under(Rc::clone(&guard)),
                }
            } else {
                Defined::Under(Rc::new(conjoin(&guard, &inputs_cond)))
            };
            for (operand, lane) in &coordinate.writes {
                if apply.preserve.is_some() {
                    // Where the guard is false the old value stays: byte by
                    // byte, as defined as the new and the old value.
                    let mut unwritten = None;
                    for offset in lane.byte_offset..lane.byte_offset + lane.bytes {
                        let old = self.state[lane.tile]
                            .get(offset)
                            .cloned()
                            .unwrap_or(Defined::No);
                        if old == Defined::No && unwritten.is_none() {
                            unwritten = Some(offset);
                        }
                        let byte = Lane {
                            tile: lane.tile,
                            byte_offset: offset,
                            bytes: 1,
                        };
                        updates.push((byte, preserved(&computed, &old, &guard)));
                    }
                    if let Some(offset) = unwritten
                        && !std::mem::replace(&mut preserve_reported, true)
                    {
                        self.preserve_unwritten(apply, *operand, lane.tile, offset);
                    }
                } else {
                    updates.push((*lane, computed.clone()));
                }
            }
        }
        for (lane, defined) in updates {
            for byte in self.bytes_mut(&lane) {
                *byte = defined.clone();
            }
        }
    }

    fn branch(&mut self, cond: Option<&Cond>, then: &[Node], otherwise: &[Node]) {
        match cond {
            Some(Cond::Const(true)) => return self.block(then),
            Some(Cond::Const(false)) => return self.block(otherwise),
            _ => {}
        }
        if !writes_registers(then) && !writes_registers(otherwise) {
            // Each arm leaves the state as it was, and the join of a state
            // with itself is that state: no copy to join (an epilogue's
            // guarded stores).
            self.arm(cond, true, then);
            self.arm(cond, false, otherwise);
            return;
        }
        let before = self.state.clone();
        self.arm(cond, true, then);
        let after_then = std::mem::replace(&mut self.state, before);
        self.arm(cond, false, otherwise);
        for (then_bytes, else_bytes) in after_then.iter().zip(&mut self.state) {
            // Where the arms agree (a tile neither wrote is the one from
            // before the `if`, found by its address) the join is what both
            // hold.
            if then_bytes == else_bytes {
                continue;
            }
            let else_bytes = Rc::make_mut(else_bytes);
            for (then_state, else_state) in then_bytes.iter().zip(else_bytes.iter_mut()) {
                if then_state != else_state {
                    *else_state = join_arms(then_state, else_state, cond);
                }
            }
        }
    }

    /// Walks one arm of an `if` with its condition in scope.
    fn arm(&mut self, cond: Option<&Cond>, positive: bool, body: &[Node]) {
        let (facts, path) = (self.facts.len(), self.path.len());
        if let Some(cond) = cond {
            self.facts.extend(cond.facts(positive));
            self.path.push(if positive {
                cond.clone()
            } else {
                cond.clone().not()
            });
        }
        self.block(body);
        self.facts.truncate(facts);
        self.path.truncate(path);
    }

    fn runtime_loop(&mut self, body: &Loop) {
        let before = self.state.clone();
        let facts = self.facts.len();
        self.facts.extend(body.facts.iter().cloned());
        let report = self.report;
        self.report = false;
        let mut entry = before.clone();
        let mut converged = false;
        for _ in 0..LOOP_PASSES {
            if self.budget == 0 {
                break;
            }
            self.state = entry.clone();
            self.block(&body.body);
            let next = self.round_trip(&before, body);
            if next == entry {
                converged = true;
                break;
            }
            entry = next;
        }
        if !converged {
            // Every byte the body writes: defined nowhere we can name (or
            // never written, where it was not before the loop). A
            // post-fixpoint: no walk from here weakens these further.
            entry = before.clone();
            let nowhere = Rc::new(Cond::Const(false));
            for (tile, byte) in body.writes() {
                if let Some(bytes) = entry.get_mut(tile)
                    && bytes.get(byte).is_some_and(|state| *state != Defined::No)
                {
                    Rc::make_mut(bytes)[byte] = Defined::Under(Rc::clone(&nowhere));
                }
            }
        }
        self.report = report;
        self.state = entry;
        self.block(&body.body);
        self.state = self.round_trip(&before, body);
        self.facts.truncate(facts);
    }

    /// The state at a loop's head (and after it): before the loop, or after
    /// some iteration, with that iteration's values forgotten.
    fn round_trip(&self, before: &[Rc<Vec<Defined>>], body: &Loop) -> Vec<Rc<Vec<Defined>>> {
        before
            .iter()
            .zip(&self.state)
            .map(|(b, after)| {
                Rc::new(
                    b.iter()
                        .zip(after.iter())
                        .map(|(b, a)| meet(b, &carried(a, body)))
                        .collect(),
                )
            })
            .collect()
    }

    fn cond_read(&mut self, read: &CondRead) {
        let Some(state) = self.state.get(read.tile).and_then(|t| t.get(read.register)) else {
            return;
        };
        let reader = match read.reader {
            Reader::Condition => "condition",
            Reader::Index => "index",
        };
        let problem = match state {
            Defined::Yes => None,
            Defined::Under(cond) if self.implied(cond, &Cond::Const(true)) => None,
            Defined::Under(cond) => {
                let (message, help) = self.undefined_text(cond);
                Some(
                    Diagnostic::new(
                        Code::READ_OF_PREDICATED_WRITE,
                        read.span,
                        format!("this {reader} reads `{}`, which {message}", read.text),
                    )
                    .with_help(match (read.reader, help) {
                        (Reader::Condition, Some(guard)) => format!(
                            "branch on it only where `{guard}` holds, or write the predicate on every path (an unguarded `setp`)"
                        ),
                        (Reader::Condition, None) => "write the predicate on every path (an unguarded `setp`) before branching on it".to_string(),
                        (Reader::Index, Some(guard)) => format!(
                            "index with it only where `{guard}` holds (inside `if {guard} {{ .. }}`), or write it on every path"
                        ),
                        (Reader::Index, None) => "write it on every path before indexing with it".to_string(),
                    }),
                )
            }
            Defined::No => Some(
                Diagnostic::new(
                    Code::READ_BEFORE_WRITE,
                    read.span,
                    format!(
                        "this {reader} reads `{}`, which no earlier statement wrote",
                        read.text
                    ),
                )
                .with_help(match read.reader {
                    Reader::Condition => {
                        format!("compute `{}` first, for example with `setp`", read.base)
                    }
                    Reader::Index => format!("load or compute `{}` first", read.base),
                }),
            ),
        };
        if let Some(diag) = problem {
            self.push(diag);
        }
    }

    /// Reports `diag` unless the same rule was already reported at its
    /// span: the iterations of an unrolled loop are statements of one
    /// span, and one mistake gets one error (at its first element).
    fn push(&mut self, diag: Diagnostic) {
        let repeated = self
            .diags
            .iter()
            .any(|d| d.code == diag.code && d.span == diag.span);
        if self.report && !repeated {
            self.diags.push(diag);
        }
    }

    fn element(&self, tile: usize, offset: usize) -> String {
        let t = &self.tiles[tile];
        storage_index(&t.shape, t.dtype.size_bytes(), offset)
    }

    fn never_written(
        &mut self,
        apply: &Apply,
        operand: usize,
        tile: usize,
        offset: usize,
        reported: &mut [bool],
    ) {
        if std::mem::replace(&mut reported[operand], true) {
            return;
        }
        let (span, name) = (
            &apply.operands[operand].span,
            apply.operands[operand].value.name(),
        );
        let element = self.element(tile, offset);
        let opcode = &apply.opcode;
        self.push(
            Diagnostic::new(
                Code::READ_BEFORE_WRITE,
                *span,
                format!("`{opcode}` reads `{name}{element}`, which no earlier statement wrote"),
            )
            .with_help(format!(
                "write `{name}` (for example with `ld.global` or `mov`) before reading it on every path to here"
            )),
        );
    }

    fn observed_undefined(
        &mut self,
        apply: &Apply,
        operand: usize,
        tile: usize,
        offset: usize,
        cond: &Cond,
        reported: &mut [bool],
    ) {
        if std::mem::replace(&mut reported[operand], true) {
            return;
        }
        let (span, name) = (
            &apply.operands[operand].span,
            apply.operands[operand].value.name(),
        );
        let element = self.element(tile, offset);
        let opcode = &apply.opcode;
        let (mut undefined, guard) = self.undefined_text(cond);
        let rewritten = self.rewritten_predicates(cond, &apply.guard);
        let help = if let Some(predicate) = rewritten.first() {
            undefined = format!(
                "is undefined where `{predicate}` was false when `{name}` was written; `{predicate}` has been written again since"
            );
            format!(
                "write `{name}` again after the last write of `{predicate}`, or keep the predicate `{name}` was written under in a tile of its own"
            )
        } else {
            match guard {
                Some(guard) => format!(
                    "run this statement only where `{guard}` holds (inside `if {guard} {{ .. }}`, or with a `pred` that implies it), or write `{name}` on every path"
                ),
                None => format!(
                    "write `{name}` on every path to here, in every iteration (an unguarded instruction, or both arms of an `if`)"
                ),
            }
        };
        self.push(
            Diagnostic::new(
                Code::READ_OF_PREDICATED_WRITE,
                *span,
                format!("`{opcode}` reads `{name}{element}`, which {undefined}"),
            )
            .with_note("an instruction under a guard (a `pred`, an enclosing `if`, or a bounds guard the compiler added) leaves its destination undefined where the guard is false, and what is computed from it is undefined there too; a store, atomic, collective or condition must not observe such a value")
            .with_help(help),
        );
    }

    fn preserve_unwritten(&mut self, apply: &Apply, operand: usize, tile: usize, offset: usize) {
        let Some(span) = apply.preserve else { return };
        let name = apply.operands[operand].value.name();
        let element = self.element(tile, offset);
        self.push(
            Diagnostic::new(
                Code::PRESERVE_DST_UNWRITTEN,
                span,
                format!(
                    "`preserve_dst = true` keeps the old value of `{name}` where `pred` is false, but `{name}{element}` was never written before",
                ),
            )
            .with_help("initialise the destination first, or drop `preserve_dst` if its old value does not matter"),
        );
    }

    /// The predicate registers `cond` reads at a value (version) other than
    /// the one `guard` or the enclosing arms read: written again since.
    fn rewritten_predicates(&self, cond: &Cond, guard: &Cond) -> Vec<String> {
        let mut read = Vec::new();
        cond.predicate_registers(&mut read);
        let mut current = Vec::new();
        guard.predicate_registers(&mut current);
        for c in &self.path {
            c.predicate_registers(&mut current);
        }
        let mut names: Vec<String> = read
            .iter()
            .filter(|(t, r, v)| {
                current
                    .iter()
                    .any(|(t2, r2, v2)| t == t2 && r == r2 && v != v2)
            })
            .map(|(tile, register, version)| {
                let register = Cond::Register {
                    tile: *tile,
                    register: *register,
                    version: *version,
                };
                cond_text(&register, self.atoms, self.tiles, self.param_names)
            })
            .collect();
        names.dedup();
        names
    }

    /// "is undefined where `c` is false", and the guard that would fix a
    /// read (none for a condition the checker cannot name).
    fn undefined_text(&self, cond: &Cond) -> (String, Option<String>) {
        if matches!(cond, Cond::Const(false)) {
            return (
                "may be undefined here: a runtime loop writes it (or a value it is computed from) under a guard over the loop's own values, which need not hold in every iteration".to_string(),
                None,
            );
        }
        let text = cond_text(cond, self.atoms, self.tiles, self.param_names);
        (format!("is undefined where `{text}` is false"), Some(text))
    }
}

/// `computed` written under `guard` with `preserve_dst` over `old`: where
/// the guard holds the new value, elsewhere the old one.
fn preserved(computed: &Defined, old: &Defined, guard: &Rc<Cond>) -> Defined {
    match (computed, old) {
        (_, Defined::No) => computed.clone(),
        (Defined::Yes, Defined::Yes) => Defined::Yes,
        // Where the guard is false the old value is all there is; where it
        // holds, both the new value's condition and the guard do.
        (Defined::Under(new), Defined::Yes) if **new == **guard => Defined::Yes,
        _ => meet(computed, old),
    }
}

/// After an `if`: the byte as the `then` arm left it and as the `else` arm
/// did.
fn join_arms(then: &Defined, otherwise: &Defined, cond: Option<&Cond>) -> Defined {
    if then == otherwise {
        return then.clone();
    }
    match (then, otherwise, cond) {
        (Defined::No, Defined::Yes, Some(c)) => Defined::Under(Rc::new(c.clone().not())),
        (Defined::No, Defined::Under(d), Some(c)) => {
            Defined::Under(Rc::new(conjoin(&c.clone().not(), d)))
        }
        (Defined::Yes, Defined::No, Some(c)) => Defined::Under(Rc::new(c.clone())),
        (Defined::Under(d), Defined::No, Some(c)) => Defined::Under(Rc::new(conjoin(c, d))),
        _ => meet(then, otherwise),
    }
}

/// What holds on either of two paths.
fn meet(a: &Defined, b: &Defined) -> Defined {
    match (a, b) {
        _ if a == b => a.clone(),
        (Defined::No, _) | (_, Defined::No) => Defined::No,
        (Defined::Yes, other) | (other, Defined::Yes) => other.clone(),
        (Defined::Under(x), Defined::Under(y)) => Defined::Under(Rc::new(conjoin(x, y))),
    }
}

/// A byte's state carried round a loop: conditions over the body's own
/// values mean another iteration's values at the head.
fn carried(defined: &Defined, body: &Loop) -> Defined {
    match defined {
        Defined::Under(cond) if mentions_body(cond, body) => {
            Defined::Under(Rc::new(Cond::Const(false)))
        }
        other => other.clone(),
    }
}

fn mentions_body(cond: &Cond, body: &Loop) -> bool {
    match cond {
        Cond::Const(_) | Cond::Param(_) => false,
        Cond::Cmp(_, p) => p.atoms().iter().any(|a| *a >= body.first_atom),
        Cond::Register { version, .. } => *version > body.last_version_before,
        Cond::Not(inner) => mentions_body(inner, body),
        Cond::And(a, b) | Cond::Or(a, b) => mentions_body(a, body) || mentions_body(b, body),
    }
}

/// The conjuncts of `cond` (`a && b && c` -> `[a, b, c]`).
fn conjuncts(cond: &Cond) -> Vec<&Cond> {
    match cond {
        Cond::And(a, b) => {
            let mut all = conjuncts(a);
            all.extend(conjuncts(b));
            all
        }
        Cond::Const(true) => Vec::new(),
        other => vec![other],
    }
}

/// `a && b`, each conjunct once.
fn conjoin(a: &Cond, b: &Cond) -> Cond {
    let mut all: Vec<&Cond> = conjuncts(a);
    for c in conjuncts(b) {
        if !all.contains(&c) {
            all.push(c);
        }
    }
    if all.contains(&&Cond::Const(false)) {
        return Cond::Const(false);
    }
    all.into_iter()
        .cloned()
        .fold(Cond::Const(true), |acc, c| acc.and(c))
}

/// Whether `cond` holds wherever an instruction under `guard` runs, with
/// `facts` and the enclosing arms' conditions `path` in scope: each
/// conjunct is one of the guard's or the path's, or follows from the facts
/// (linear conditions, by [`Prover`](crate::sym::Prover)). The walk asks through a
/// [`ProofMemo`]; the tests ask this form.
#[cfg(test)]
pub(crate) fn implied(
    cond: &Cond,
    guard: &Cond,
    facts: &[Fact],
    path: &[Cond],
    atoms: &Atoms,
) -> bool {
    implied_by(cond, guard, facts, path, |in_scope, p| {
        crate::sym::Prover {
            atoms,
            facts: in_scope.get(),
        }
        .prove_le0(p)
    })
}

/// [`implied`], each `p <= 0` proven from all the facts by `prove_le0`
/// (a [`Prover`](crate::sym::Prover), or a [`ProofMemo`] of its answers).
/// Most conditions are a conjunct of the guard or the path, or need no
/// facts: the list of all the facts is built only for a proof that reads
/// it ([`FactsInScope`]).
fn implied_by(
    cond: &Cond,
    guard: &Cond,
    facts: &[Fact],
    path: &[Cond],
    prove_le0: impl Fn(&FactsInScope, &Poly) -> bool,
) -> bool {
    let known = |c: &Cond| has_conjunct(guard, c) || path.iter().any(|p| has_conjunct(p, c));
    let in_scope = FactsInScope {
        facts,
        guard,
        path,
        all: std::cell::OnceCell::new(),
    };
    holds(cond, &known, &|p| prove_le0(&in_scope, p))
}

/// The facts [`implied_by`] proves from, made at the first proof that
/// needs them: those in scope, then the guard's, then each enclosing arm's
/// condition's.
struct FactsInScope<'a> {
    facts: &'a [Fact],
    guard: &'a Cond,
    path: &'a [Cond],
    all: std::cell::OnceCell<Vec<Fact>>,
}

impl FactsInScope<'_> {
    fn get(&self) -> &[Fact] {
        self.all.get_or_init(|| {
            let mut all = self.facts.to_vec();
            all.extend(self.guard.facts(true));
            for c in self.path {
                all.extend(c.facts(true));
            }
            all
        })
    }
}

/// Whether `target` is one of [`conjuncts`]`(cond)`, without listing them.
fn has_conjunct(cond: &Cond, target: &Cond) -> bool {
    match cond {
        Cond::And(a, b) => has_conjunct(a, target) || has_conjunct(b, target),
        Cond::Const(true) => false,
        other => other == target,
    }
}

fn holds(cond: &Cond, known: &dyn Fn(&Cond) -> bool, prove_le0: &dyn Fn(&Poly) -> bool) -> bool {
    if known(cond) {
        return true;
    }
    match cond {
        Cond::Const(value) => *value,
        Cond::And(a, b) => holds(a, known, prove_le0) && holds(b, known, prove_le0),
        Cond::Or(a, b) => holds(a, known, prove_le0) || holds(b, known, prove_le0),
        Cond::Cmp(..) | Cond::Not(_) => {
            let needed = cond.facts(true);
            // `!=` states no fact: only the same condition proves it.
            !needed.is_empty() && needed.iter().all(prove_le0)
        }
        Cond::Param(_) | Cond::Register { .. } => false,
    }
}

/// A condition as people write it: `i + 1 <= N`, `p`, `flags[2]`.
pub(crate) fn cond_text(cond: &Cond, atoms: &Atoms, tiles: &[Tile], params: &[String]) -> String {
    let text = |c: &Cond| cond_text(c, atoms, tiles, params);
    let grouped = |c: &Cond| match c {
        Cond::And(..) | Cond::Or(..) => format!("({})", text(c)),
        _ => text(c),
    };
    match cond {
        Cond::Const(value) => value.to_string(),
        Cond::Cmp(op, p) => {
            let (left, right) = sides(p);
            let op = match op {
                CmpOp::Lt => "<",
                CmpOp::Le => "<=",
                CmpOp::Eq => "==",
                CmpOp::Ne => "!=",
            };
            format!("{} {op} {}", left.display(atoms), right.display(atoms))
        }
        Cond::Param(index) => params.get(*index).cloned().unwrap_or_default(),
        Cond::Register { tile, register, .. } => match tiles.get(*tile) {
            Some(t) => format!("{}{}", t.name, storage_index(&t.shape, 1, *register)),
            None => "a predicate".to_string(),
        },
        Cond::Not(inner) => format!(
            "!{}",
            match **inner {
                Cond::Cmp(..) | Cond::And(..) | Cond::Or(..) => format!("({})", text(inner)),
                _ => text(inner),
            }
        ),
        Cond::And(a, b) => format!("{} && {}", grouped(a), grouped(b)),
        Cond::Or(a, b) => format!("{} || {}", grouped(a), grouped(b)),
    }
}

/// `p <op> 0` as `left <op> right`, each side with positive coefficients
/// (`i + 1 - N` -> `i + 1`, `N`).
fn sides(p: &Poly) -> (Poly, Poly) {
    let mut left = Poly::constant(0);
    let mut right = Poly::constant(0);
    for (monomial, coef) in p.terms() {
        let term = monomial
            .iter()
            .fold(Poly::constant(1), |acc, a| acc.mul(&Poly::atom(*a)))
            .scale(coef.abs());
        if coef > 0 {
            left = left.add(&term);
        } else {
            right = right.add(&term);
        }
    }
    (left, right)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sym::{Atom, AtomKind};

    fn atoms() -> (Atoms, Poly, Poly) {
        let mut atoms = Atoms::default();
        let i = atoms.push(Atom {
            kind: AtomKind::LoopVar,
            name: "i".into(),
            lo: 0,
            hi: 1 << 20,
        });
        let n = atoms.push(Atom {
            kind: AtomKind::Symbol(0),
            name: "N".into(),
            lo: 0,
            hi: 1 << 40,
        });
        (atoms, Poly::atom(i), Poly::atom(n))
    }

    #[test]
    fn a_bounds_guard_implies_the_same_bound_and_weaker_ones() {
        let (atoms, i, n) = atoms();
        // i + 1 <= N
        let bound = Cond::Cmp(CmpOp::Le, i.add_const(1).sub(&n));
        assert!(implied(&bound, &bound, &[], &[], &atoms));
        // i < N follows from i + 1 <= N; i + 2 <= N does not.
        let weaker = Cond::Cmp(CmpOp::Lt, i.sub(&n));
        assert!(implied(&weaker, &bound, &[], &[], &atoms));
        let stronger = Cond::Cmp(CmpOp::Le, i.add_const(2).sub(&n));
        assert!(!implied(&stronger, &bound, &[], &[], &atoms));
        // A fact in scope (an enclosing `if`) works as well as the guard.
        let fact = bound.facts(true);
        assert!(implied(&weaker, &Cond::Const(true), &fact, &[], &atoms));
        assert!(!implied(&weaker, &Cond::Const(true), &[], &[], &atoms));
    }

    #[test]
    fn predicate_conditions_need_the_same_predicate_version() {
        let (atoms, _, _) = atoms();
        let p = |version| Cond::Register {
            tile: 0,
            register: 0,
            version,
        };
        assert!(implied(&p(1), &p(1), &[], &[], &atoms));
        assert!(!implied(&p(1), &p(2), &[], &[], &atoms));
        assert!(implied(&p(1), &Cond::Const(true), &[], &[p(1)], &atoms));
        assert!(implied(&p(1), &Cond::Param(0).and(p(1)), &[], &[], &atoms));
        assert!(!implied(&Cond::Const(false), &p(1), &[], &[], &atoms));
    }

    #[test]
    fn arms_join_with_the_condition_of_the_arm_that_wrote() {
        let c = Cond::Param(0);
        let joined = join_arms(&Defined::Yes, &Defined::No, Some(&c));
        assert_eq!(joined, Defined::Under(Rc::new(c.clone())));
        let joined = join_arms(&Defined::No, &Defined::Yes, Some(&c));
        assert_eq!(joined, Defined::Under(Rc::new(c.clone().not())));
        assert_eq!(join_arms(&Defined::Yes, &Defined::No, None), Defined::No);
        let d = Rc::new(Cond::Param(1));
        let joined = join_arms(&Defined::Under(d.clone()), &Defined::Yes, Some(&c));
        assert_eq!(joined, Defined::Under(d));
    }

    /// What [`Walk::branch`] relies on when neither arm writes a register:
    /// an arm that left a byte as it was joins with the other into that
    /// byte, whatever the condition.
    #[test]
    fn a_state_joined_with_itself_is_that_state() {
        let c = Cond::Param(0);
        let states = [
            Defined::Yes,
            Defined::No,
            Defined::Under(Rc::new(Cond::Param(1))),
        ];
        for state in &states {
            for cond in [None, Some(&c)] {
                assert_eq!(&join_arms(state, state, cond), state);
            }
        }
    }

    #[test]
    fn conditions_read_as_written() {
        let (atoms, i, n) = atoms();
        let bound = Cond::Cmp(CmpOp::Le, i.add_const(1).sub(&n));
        assert_eq!(cond_text(&bound, &atoms, &[], &[]), "i + 1 <= N");
        let p = Cond::Param(0).and(bound.clone().not());
        assert_eq!(
            cond_text(&p, &atoms, &[], &["p".into()]),
            "p && !(i + 1 <= N)"
        );
    }
}
