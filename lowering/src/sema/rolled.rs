//! Constant-bound loops checked once in their variable ("rolled").
//!
//! A `for k in 0..16` loop is unrolled: the emitted PTX has one copy of
//! its body per value of `k`, and `k` names registers
//! (`v.slice(s![.., k..k + 1])`). Checking the body once per value costs
//! the same again for every iteration. A loop whose body is `apply`s,
//! `let`s, `ewise`s, runtime `if`s of such statements and constant-bound
//! loops (unrolled inside the one check) is first checked once with `k` an
//! atom whose range is the loop's values, the way a runtime loop's
//! variable is; each iteration's checked statements are then that check's
//! with `k` replaced by its value.
//!
//! **Why the copies are what checking each iteration gives.** The rolled
//! check proves what it proves for every value in the range: slices of
//! tiles in bounds from `k`'s range, memory bounds and alignment under the
//! same facts plus that range. A tile view may move with `k` (its offset
//! `c + s * k`, constant `c` and `s`): its registers are the first
//! iteration's, moved by `s` bytes per unit. Whatever the rolled check
//! cannot follow it refuses, and the loop is checked unrolled as before,
//! with every trace of the trial undone: a diagnostic of any kind, a new
//! atom other than a value computed from `k` alone (a register read as an
//! index, a value computed from other atoms too: `(t + k) % 4`), a
//! condition that reads a predicate register, a checked statement other
//! than a plain
//! `apply` or an `if` (barriers, async copies, matrix multiplies, another
//! CTA's shared memory, descriptor operands, runtime loops), an operand
//! whose value would be a literal in an iteration (a runtime integer
//! operand in `k`), two views of one tile in one statement that move
//! differently (their overlap would change), a move that changes a lane's
//! place in its register, a guard the bounds obligation added, and a
//! substituted condition (a guard's or an `if`'s) that became a constant.
//! A value computed from `k` alone (`k % 4`, `k % 4 / 2`, `min(k, 3)`) is
//! an atom of the one check, with its range; each copy replaces it by its
//! value in that iteration ([`ComputedOp::fold`]: for the operands the one
//! check admitted, non-negative, a divisor of at least 1, a shift below
//! 64, the constant checking the iteration folds it to), and drops its
//! definition.
//! The trial never reports, and a loop whose trial was refused is not
//! tried again (met as the inner loop of an unrolled one). The
//! temporaries an `ewise` allocates at its first use stay allocated after
//! a rolled check (unrolling allocates the same ones at the same point);
//! otherwise they are undone with the rest.
//!
//! What the copies do not share is then replayed per copy as unrolling
//! does it: the statement and instruction budgets, and the versions of the
//! predicate and index registers each copy writes (after an `if`, a fresh
//! version of each register either arm wrote). The register, race and
//! async obligations read the copies afterwards, exactly as they read an
//! unrolled loop's.
//!
//! `crate::sema::check_unrolled` checks with every constant loop unrolled:
//! the tests compare it with [`crate::sema::check`] on every shipped
//! kernel, program for program.

use std::collections::HashSet;

use crate::ast::{self, Stmt};
use crate::checked::{self, Value};
use crate::diag::SpanId;
use crate::layout::{Layout, StaticLayout};
use crate::program::Cond;
use crate::ptx::form::Effect;
use crate::scope::Uniformity;
use crate::sym::{Atom, AtomId, AtomKind, ComputedOp, Poly};

use super::{Checker, MAX_INSTRUCTIONS, PredVersions, limits};

/// Loops checked rolled so far in this process ([`loops_rolled`]).
static ROLLED_LOOPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// Checked statements made as copies so far ([`statements_rolled`]).
static ROLLED_STATEMENTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many constant-bound loops this process has checked once in their
/// variable: the tests' evidence that the shipped kernels take the rolled
/// check.
pub fn loops_rolled() -> u64 {
    ROLLED_LOOPS.load(std::sync::atomic::Ordering::Relaxed)
}

/// How many checked statements (an `if` and each statement of its arms
/// counting one each) this process has made as copies of a rolled check
/// instead of checking them: how much of the shipped kernels' checking the
/// rolled check covers. A loop rolled around an inner one counts the inner
/// one's statements too, so it grows where [`loops_rolled`] may not.
pub fn statements_rolled() -> u64 {
    ROLLED_STATEMENTS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The loop being checked once in its variable.
pub(super) struct Rolling {
    /// The atom standing for the loop variable.
    var: AtomId,
    /// The variable's first value.
    start: i128,
    /// Something the rolled check cannot follow was met: the loop is
    /// checked unrolled instead.
    refused: bool,
}

/// How a trial of the rolled check ended.
enum Trial {
    /// Checked rolled: each iteration's statements were added.
    Rolled,
    /// To be checked unrolled; nothing changed.
    Unrolled,
    /// Clean but for these atoms of special registers or parameters,
    /// first made in the loop (nothing changed).
    NewAtoms(Vec<Atom>),
}

/// The atoms a trial made after its loop variable's, as the copies can
/// treat them.
struct MadeAtoms {
    /// Special registers and parameters first used in the loop: made
    /// before it, the loop is tried again ([`Trial::NewAtoms`]).
    singletons: Vec<Atom>,
    /// Values computed from the loop variable alone (`j % 4`, `(j % 4) /
    /// 2`), in the order they were made: each copy replaces them by their
    /// values in its iteration, which checking that iteration folds to
    /// the same constants.
    of_var: Vec<OfVar>,
    /// Anything else (a register read as an index, a value computed from
    /// other atoms): each iteration would make its own atom.
    others: bool,
}

/// A computed atom of the loop variable alone: `op(a, b)`, where `a` and
/// `b` name only the variable and earlier such atoms.
struct OfVar {
    atom: AtomId,
    op: ComputedOp,
    a: Poly,
    b: Poly,
}

/// One iteration's value of each atom the rolled check stands for: the
/// loop variable's first, then its computed atoms' in the order made.
type IterationValues = [(AtomId, i128)];

/// What the trial may change, as it was before it.
struct Before {
    diags: usize,
    atoms: usize,
    pred_versions: PredVersions,
    next_pred_version: u64,
    instruction_count: usize,
    checked_statements: usize,
    failed_statements: HashSet<SpanId>,
    tile_marks: Vec<(bool, bool)>,
    multiples: Vec<u64>,
    params: Vec<crate::program::ProgramParam>,
    requirement: crate::target::Requirement,
    facts: usize,
    /// The flags that make an error reported once, or stop checking: a
    /// trial that set one and was undone must not silence the unrolled
    /// check's own report.
    halted: bool,
    partial_scope_reported: bool,
    invalid_statements: bool,
    cluster_arrive: Option<SpanId>,
    cluster_arrive_unpaired: bool,
    /// The tiles: `ewise`'s temporaries are allocated at their first use
    /// (in the kernel's outermost scope).
    tiles: usize,
    /// The shared buffers: one allocated in the loop (in an inner loop)
    /// is one per iteration unrolled, which the copies cannot give; the
    /// same holds for a register tile other than an `ewise` temporary.
    shared: usize,
    tile_registers: usize,
    ewise_temps: super::ewise::TempPool,
}

impl Checker<'_> {
    /// A tile view's offset in a rolled loop: its value at the first
    /// iteration and the bytes it moves per unit of the variable, where it
    /// is `c + s * k` with constants `c` and `s` (`None` elsewhere, and
    /// outside a rolled check).
    pub(super) fn rolled_offset(&self, offset: &Poly) -> Option<(i128, i128)> {
        let rolling = self.rolling.as_ref()?;
        if !offset.contains(rolling.var) {
            return None;
        }
        let (shift, rest) = offset.split_on(rolling.var);
        let (shift, rest) = (shift.as_const()?, rest.as_const()?);
        let first = shift.checked_mul(rolling.start)?.checked_add(rest)?;
        Some((first, shift))
    }

    /// Whether a tile view whose offset is not a constant moves only with
    /// the rolled loop's variable (its strides constant).
    pub(super) fn rolls_statically(&self, layout: &Layout) -> bool {
        layout.strides.iter().all(Poly::is_const) && self.rolled_offset(&layout.offset).is_some()
    }

    /// Marks the rolled check as unable to follow what it met (no effect
    /// outside one).
    pub(super) fn refuse_rolling(&mut self) {
        if let Some(rolling) = &mut self.rolling {
            rolling.refused = true;
        }
    }

    /// Checks `for_loop` (`count >= 2` iterations from `start` by `step`)
    /// once in its variable and adds each iteration's statements; `false`,
    /// with nothing changed, where the loop must be checked unrolled.
    pub(super) fn rolled_loop(
        &mut self,
        for_loop: &ast::For,
        start: i128,
        step: i128,
        count: i128,
    ) -> bool {
        if !self.rolling_enabled
            || self.rolling.is_some()
            || self.halted
            || count < 2
            || self.cluster_arrive.is_some()
            || self.unrollable.contains(&for_loop.span)
            || !for_loop.body.iter().all(|s| {
                matches!(
                    s,
                    Stmt::Apply(_) | Stmt::Let(_) | Stmt::Ewise(_) | Stmt::For(_) | Stmt::If(_)
                )
            })
        {
            return false;
        }
        let Some(last) = step
            .checked_mul(count - 1)
            .and_then(|span| start.checked_add(span))
        else {
            return false;
        };
        let rolled = match self.trial(for_loop, start, last, step, count) {
            Trial::Rolled => true,
            Trial::Unrolled => false,
            // A special register or parameter first used in the loop: its
            // atom, made before the loop as the first iteration would make
            // it, and the trial again.
            Trial::NewAtoms(atoms) => {
                for atom in atoms {
                    self.atoms.push(atom);
                }
                matches!(
                    self.trial(for_loop, start, last, step, count),
                    Trial::Rolled
                )
            }
        };
        if !rolled {
            self.unrollable.insert(for_loop.span);
        }
        rolled
    }

    /// The atoms from `first` on (made by the trial of the loop whose
    /// variable is `var`), sorted ([`MadeAtoms`]).
    fn made_atoms(&self, first: usize, var: AtomId) -> MadeAtoms {
        let mut made = MadeAtoms {
            singletons: Vec::new(),
            of_var: Vec::new(),
            others: false,
        };
        for (id, atom) in self.atoms.iter().skip(first) {
            match &atom.kind {
                AtomKind::Computed(op, args) => {
                    let of_var = |p: &Poly| {
                        p.atoms()
                            .iter()
                            .all(|a| *a == var || made.of_var.iter().any(|o| o.atom == *a))
                    };
                    match args.as_slice() {
                        [a, b] if of_var(a) && of_var(b) => made.of_var.push(OfVar {
                            atom: id,
                            op: *op,
                            a: a.clone(),
                            b: b.clone(),
                        }),
                        _ => made.others = true,
                    }
                }
                AtomKind::LoopVar | AtomKind::Register { .. } => made.others = true,
                _ => made.singletons.push(atom.clone()),
            }
        }
        made
    }

    /// One rolled check of `for_loop`, its values `start..=last` by `step`.
    fn trial(
        &mut self,
        for_loop: &ast::For,
        start: i128,
        last: i128,
        step: i128,
        count: i128,
    ) -> Trial {
        let before = Before {
            diags: self.diags.len(),
            atoms: self.atoms.len(),
            pred_versions: self.pred_versions.clone(),
            next_pred_version: self.next_pred_version,
            instruction_count: self.instruction_count,
            checked_statements: self.checked_statements,
            failed_statements: self.failed_statements.clone(),
            tile_marks: self
                .tiles
                .iter()
                .map(|t| (t.ever_read, t.ever_written))
                .collect(),
            multiples: self.symbols.iter().map(|s| s.symbol.multiple_of).collect(),
            params: self.params.clone(),
            requirement: self.requirement,
            facts: self.facts.len(),
            halted: self.halted,
            partial_scope_reported: self.partial_scope_reported,
            invalid_statements: self.invalid_statements,
            cluster_arrive: self.cluster_arrive,
            cluster_arrive_unpaired: self.cluster_arrive_unpaired,
            tiles: self.tiles.len(),
            shared: self.shared.len(),
            tile_registers: self.tile_registers,
            ewise_temps: self.ewise_temps.clone(),
        };
        let var = self.atoms.push(Atom {
            kind: AtomKind::LoopVar,
            name: for_loop.var.clone(),
            lo: start,
            hi: last,
        });
        // Every copy has its own constant: the same for every thread.
        self.loop_uniformity.insert(var, Uniformity::Grid);
        self.rolling = Some(Rolling {
            var,
            start,
            refused: false,
        });
        let var_poly = Poly::atom(var);
        let range = vec![
            Poly::constant(start).sub(&var_poly),
            var_poly.sub(&Poly::constant(last)),
        ];
        self.unrolling.push(for_loop.span);
        let body = self.nested(range.clone(), |c| {
            c.bind(&for_loop.var, super::Binding::Int(Poly::atom(var)));
            c.block(&for_loop.body);
        });
        self.unrolling.pop();
        let refused = self.rolling.take().is_some_and(|r| r.refused);
        let clean = !refused
            && !self.halted
            && self.diags.len() == before.diags
            && self.shared.len() == before.shared
            && self.tiles[before.tiles..]
                .iter()
                .all(|t| t.tile.name.starts_with(super::ewise::TEMP_PREFIX));
        let made = self.made_atoms(before.atoms + 1, var);
        // The budgets, as unrolling counts them: each iteration, and each
        // statement of it. Over them, no copies are made (`count` copies of
        // a body with inner loops unrolled could fill the memory): the
        // trial is undone, and the unrolled check reports the budget where
        // it runs out.
        let statements = (self.checked_statements - before.checked_statements) as i128;
        let instructions = (self.instruction_count - before.instruction_count) as i128;
        let checked = count.saturating_mul(statements + 1);
        let emitted = count.saturating_mul(instructions);
        let over_budget = (before.checked_statements as i128).saturating_add(checked)
            > limits::MAX_CHECKED_STATEMENTS as i128
            || (before.instruction_count as i128).saturating_add(emitted)
                > MAX_INSTRUCTIONS as i128;
        let copies = if clean && !over_budget && !made.others && made.singletons.is_empty() {
            self.copies(
                &body,
                (var, &made.of_var),
                (before.facts, &range),
                (start, step, count),
            )
        } else {
            None
        };
        // The trial leaves no trace: its atoms' ids are handed out again.
        self.loop_uniformity.remove(&var);
        self.atoms.truncate(before.atoms);
        self.proofs.forget_atoms_from(var);
        self.pred_versions = before.pred_versions;
        self.next_pred_version = before.next_pred_version;
        let Some(copies) = copies else {
            self.diags.truncate(before.diags);
            self.instruction_count = before.instruction_count;
            self.checked_statements = before.checked_statements;
            self.failed_statements = before.failed_statements;
            for (tile, (read, written)) in self.tiles.iter_mut().zip(before.tile_marks) {
                tile.ever_read = read;
                tile.ever_written = written;
            }
            for (symbol, multiple) in self.symbols.iter_mut().zip(before.multiples) {
                symbol.symbol.multiple_of = multiple;
            }
            self.params = before.params;
            self.requirement = before.requirement;
            self.halted = before.halted;
            self.partial_scope_reported = before.partial_scope_reported;
            self.invalid_statements = before.invalid_statements;
            self.cluster_arrive = before.cluster_arrive;
            self.cluster_arrive_unpaired = before.cluster_arrive_unpaired;
            // Temporaries the trial made are made again, where unrolling
            // makes them (and reports what their allocation reports).
            for temps in self.ewise_temps.values() {
                for name in temps {
                    if !before.ewise_temps.values().any(|old| old.contains(name)) {
                        self.scopes.unbind_outermost(name);
                    }
                }
            }
            self.ewise_temps = before.ewise_temps;
            self.tiles.truncate(before.tiles);
            self.shared.truncate(before.shared);
            self.tile_registers = before.tile_registers;
            return if clean && !made.others && !made.singletons.is_empty() {
                Trial::NewAtoms(made.singletons)
            } else {
                Trial::Unrolled
            };
        };
        self.checked_statements = before.checked_statements + checked as usize;
        self.instruction_count = before.instruction_count + emitted as usize;
        ROLLED_STATEMENTS.fetch_add(
            checked::statement_count(&copies) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        for node in copies {
            self.replay_register_writes(&node);
            self.body.push(node);
        }
        ROLLED_LOOPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Trial::Rolled
    }

    /// What checking a copy's statements would have done to the register
    /// versions, in the order the unrolled check does it: each write a
    /// fresh version, and after an `if` a fresh one for every register
    /// either arm wrote (as [`Checker::if_branch`] merges them).
    fn replay_register_writes(&mut self, node: &checked::Node) {
        match node {
            checked::Node::Apply(apply) => self.note_register_accesses(apply),
            checked::Node::If {
                then, otherwise, ..
            } => {
                let replay = |c: &mut Self, arm: &[checked::Node]| {
                    for node in arm {
                        c.replay_register_writes(node);
                    }
                };
                self.arms(
                    self.pred_versions.clone(),
                    |c| replay(c, then),
                    |c| replay(c, otherwise),
                );
            }
            // Not in a rolled body ([`Checker::rolls_node`]).
            _ => {}
        }
    }

    /// Each iteration's statements from the rolled body, in order; `None`
    /// where one is not what checking that iteration would give (see the
    /// module's list). `rolled`: the loop variable and its computed atoms;
    /// `iterations`: its values, `(start, step, count)`.
    fn copies(
        &self,
        body: &[checked::Node],
        rolled: (AtomId, &[OfVar]),
        range: (usize, &[Poly]),
        iterations: (i128, i128, i128),
    ) -> Option<Vec<checked::Node>> {
        let (start, step, count) = iterations;
        let (var, of_var) = rolled;
        let stands_for = |atom: AtomId| atom == var || of_var.iter().any(|o| o.atom == atom);
        if !body
            .iter()
            .all(|node| self.rolls_node(node, &stands_for, range))
        {
            return None;
        }
        let mut copies = Vec::with_capacity(body.len() * count as usize);
        let mut values: Vec<(AtomId, i128)> = Vec::with_capacity(1 + of_var.len());
        for i in 0..count {
            let k = start + i * step;
            values.clear();
            values.push((var, k));
            for computed in of_var {
                let x = substituted(&computed.a, &values).as_const()?;
                let y = substituted(&computed.b, &values).as_const()?;
                values.push((computed.atom, computed.op.fold(x, y)?));
            }
            copy_nodes(body, &values, k - start, range.0, &mut copies)?;
        }
        Some(copies)
    }

    /// Whether one checked node of the rolled body is one the copies
    /// reproduce: an `apply` ([`Self::rolls`]) under the loop's range facts,
    /// the definition of a computed atom of the loop variable (made of
    /// `stands_for`'s atoms: a constant in every copy), or a runtime `if`
    /// whose condition reads no predicate register, of such nodes.
    fn rolls_node(
        &self,
        node: &checked::Node,
        stands_for: &impl Fn(AtomId) -> bool,
        range: (usize, &[Poly]),
    ) -> bool {
        // The loop's range facts follow the enclosing ones.
        let (outer, range_facts) = range;
        node_rolls(
            node,
            &|apply| {
                self.rolls(apply, stands_for)
                    && apply.facts.get(outer..outer + 2) == Some(range_facts)
            },
            stands_for,
        )
    }

    /// Whether one checked statement of the rolled body is one the copies
    /// reproduce.
    fn rolls(&self, apply: &checked::Apply, stands_for: &impl Fn(AtomId) -> bool) -> bool {
        self.rolls_apart_from_atoms(apply)
            && apply.operands.iter().all(|operand| match &operand.value {
                Value::Index { value, .. } => !value.atoms().into_iter().any(stands_for),
                _ => true,
            })
    }

    /// [`Self::rolls_node`] for what is known as soon as a node is checked:
    /// all of it but the atoms the check made (an index operand must not
    /// name them, an atom defined must be one), which are known at its end.
    fn may_roll(&self, node: &checked::Node) -> bool {
        node_rolls(node, &|apply| self.rolls_apart_from_atoms(apply), &|_| true)
    }

    /// In a rolled check, refuses it where a node the statement just
    /// checked (those of the block being checked from `mark` on) is one the
    /// copies cannot reproduce: the loop will be checked unrolled, so the
    /// rest of the rolled check would be for nothing ([`Self::rolling_refused`]).
    pub(super) fn refuse_unrollable(&mut self, mark: usize) {
        if self.rolling.as_ref().is_some_and(|r| !r.refused)
            && !self
                .body
                .get(mark..)
                .unwrap_or(&[])
                .iter()
                .all(|node| self.may_roll(node))
        {
            self.refuse_rolling();
        }
    }

    /// Whether the rolled check under way has been refused: its remaining
    /// statements need no check (the trial is undone).
    pub(super) fn rolling_refused(&self) -> bool {
        self.rolling.as_ref().is_some_and(|r| r.refused)
    }

    /// [`Self::rolls`] but for the index operands' atoms.
    fn rolls_apart_from_atoms(&self, apply: &checked::Apply) -> bool {
        let plain = matches!(
            apply.form.effect(),
            Effect::Pure | Effect::Load { .. } | Effect::Store | Effect::Collective
        );
        if !plain || !apply.own_proofs_hold || apply.guard != apply.user_guard {
            return false;
        }
        if reads_predicate(&apply.guard) {
            return false;
        }
        let mut shifts: Vec<(usize, i128)> = Vec::new();
        for operand in &apply.operands {
            if operand.matrix.is_some() || operand.slot.descriptor {
                return false;
            }
            match &operand.value {
                Value::Local {
                    tile,
                    layout,
                    roll_shift,
                    ..
                } => {
                    // Whether a lane is an aligned part of its register, or
                    // aligned whole registers, depends on its offset modulo
                    // the smaller of the two sizes only.
                    let register = self.tiles[*tile].tile.dtype.size_bytes();
                    let unit = register.min(layout.dtype.size_bytes()) as i128;
                    if roll_shift % unit != 0 {
                        return false;
                    }
                    match shifts.iter().find(|(t, _)| t == tile) {
                        Some((_, shift)) if shift != roll_shift => return false,
                        Some(_) => {}
                        None => shifts.push((*tile, *roll_shift)),
                    }
                }
                // Another CTA's copy of a shared buffer: its rank's bounds
                // are the cluster's, kept apart from the view's.
                Value::Memory { cta, .. } => {
                    if cta.is_some() {
                        return false;
                    }
                }
                Value::Index { .. }
                | Value::Scalar { .. }
                | Value::Literal(_)
                | Value::Special(_) => {}
                Value::SourceBytes { .. } | Value::Implicit(_) => return false,
            }
        }
        true
    }
}

/// Whether a rolled copy reproduces `node`: an `apply` that `apply_rolls`,
/// the definition of an atom that `defined_rolls`, or a runtime `if` whose
/// condition reads no predicate register, of such nodes; nothing else.
fn node_rolls(
    node: &checked::Node,
    apply_rolls: &impl Fn(&checked::Apply) -> bool,
    defined_rolls: &impl Fn(AtomId) -> bool,
) -> bool {
    match node {
        checked::Node::Apply(apply) => apply_rolls(apply),
        checked::Node::Define(atom) => defined_rolls(*atom),
        checked::Node::If {
            cond: Some(cond),
            then,
            otherwise,
        } => {
            !reads_predicate(cond)
                && then
                    .iter()
                    .chain(otherwise)
                    .all(|node| node_rolls(node, apply_rolls, defined_rolls))
        }
        _ => false,
    }
}

/// Iteration `k` (`moved = k - start`; `values`: the loop variable's value
/// `k`, then its computed atoms') of the rolled nodes `nodes`
/// ([`Checker::rolls_node`]), appended to `out` without the computed
/// atoms' definitions (constants there, which need none); `None` where
/// one is not what checking that iteration gives.
fn copy_nodes(
    nodes: &[checked::Node],
    values: &IterationValues,
    moved: i128,
    outer_facts: usize,
    out: &mut Vec<checked::Node>,
) -> Option<()> {
    for node in nodes {
        out.push(match node {
            checked::Node::Apply(apply) => {
                checked::Node::Apply(copy(apply, values, moved, outer_facts)?)
            }
            checked::Node::Define(_) => continue,
            checked::Node::If {
                cond: Some(cond),
                then,
                otherwise,
            } => {
                let arm = |nodes: &[checked::Node]| {
                    let mut arm = Vec::with_capacity(nodes.len());
                    copy_nodes(nodes, values, moved, outer_facts, &mut arm).map(|()| arm)
                };
                checked::Node::If {
                    cond: Some(substitute_cond(cond, values)?),
                    then: arm(then)?,
                    otherwise: arm(otherwise)?,
                }
            }
            _ => return None,
        });
    }
    Some(())
}

/// Iteration `moved` after the first (`values` as in [`copy_nodes`]) of one
/// rolled statement.
fn copy(
    apply: &checked::Apply,
    values: &IterationValues,
    moved: i128,
    outer_facts: usize,
) -> Option<checked::Apply> {
    let user_guard = substitute_cond(&apply.user_guard, values)?;
    // The enclosing facts were stated before the loop, so they name none
    // of its atoms (its variable and the values computed from it are made
    // inside it): they stay as they are. The loop's range facts after them
    // name only `k` and go; the facts of `if`s inside the loop follow.
    let mut facts = Vec::with_capacity(apply.facts.len());
    facts.extend_from_slice(&apply.facts[..outer_facts.min(apply.facts.len())]);
    facts.extend(
        apply
            .facts
            .iter()
            .skip(outer_facts + 2)
            .map(|f| substituted(f, values)),
    );
    // Field by field: the facts are not cloned only to be replaced.
    let mut out = checked::Apply {
        form: apply.form.clone(),
        opcode: apply.opcode.clone(),
        number: apply.number,
        guard: user_guard.clone(),
        user_guard,
        facts,
        preserve: apply.preserve,
        operands: apply.operands.clone(),
        repeat: apply.repeat.clone(),
        coordinates: apply.coordinates.clone(),
        own_proofs_hold: apply.own_proofs_hold,
    };
    let mut shifts = Vec::with_capacity(out.operands.len());
    for operand in &mut out.operands {
        let mut shift = 0;
        match &mut operand.value {
            Value::Local {
                layout, roll_shift, ..
            } => {
                shift = roll_shift.checked_mul(moved)?;
                layout.offset = moved_by(layout.offset, shift)?;
                *roll_shift = 0;
            }
            Value::Memory {
                layout,
                view,
                bounds,
                ..
            } => {
                for &(atom, value) in values {
                    *view = view.substitute_value(atom, value);
                }
                *layout = StaticLayout::of(view)?;
                for bound in bounds.iter_mut() {
                    bound.le0 = substituted(&bound.le0, values);
                }
            }
            _ => {}
        }
        shifts.push(shift);
    }
    // Registers that move with the iteration (a tile indexed by the loop
    // variable): the copy's own lanes; otherwise it shares the original's.
    if shifts.iter().any(|&shift| shift != 0) {
        for coordinate in std::sync::Arc::make_mut(&mut out.coordinates) {
            for (operand, lane) in coordinate.reads.iter_mut().chain(&mut coordinate.writes) {
                lane.byte_offset = moved_by(lane.byte_offset, shifts[*operand])?;
            }
        }
    }
    Some(out)
}

/// `p` with each atom of `values` replaced by its value.
fn substituted(p: &Poly, values: &IterationValues) -> Poly {
    let mut out: Option<Poly> = None;
    for &(atom, value) in values {
        let current = out.as_ref().unwrap_or(p);
        if current.contains(atom) {
            out = Some(current.substitute_value(atom, value));
        }
    }
    out.unwrap_or_else(|| p.clone())
}

/// Whether `cond` reads a predicate register (each copy would read its
/// own version of it, which the one check does not know).
fn reads_predicate(cond: &Cond) -> bool {
    let mut predicates = Vec::new();
    cond.predicate_registers(&mut predicates);
    !predicates.is_empty()
}

/// `offset + shift`, where it stays a byte offset.
fn moved_by(offset: usize, shift: i128) -> Option<usize> {
    usize::try_from((offset as i128).checked_add(shift)?).ok()
}

/// `cond` with the atoms of `values` replaced by their values; `None`
/// where a comparison became a constant (checking the iteration would
/// have folded it).
fn substitute_cond(cond: &Cond, values: &IterationValues) -> Option<Cond> {
    Some(match cond {
        Cond::Cmp(op, p) => {
            let substituted = substituted(p, values);
            if substituted.is_const() && !p.is_const() {
                return None;
            }
            Cond::Cmp(*op, substituted)
        }
        Cond::Not(inner) => Cond::Not(Box::new(substitute_cond(inner, values)?)),
        Cond::And(a, b) => Cond::And(
            Box::new(substitute_cond(a, values)?),
            Box::new(substitute_cond(b, values)?),
        ),
        Cond::Or(a, b) => Cond::Or(
            Box::new(substitute_cond(a, values)?),
            Box::new(substitute_cond(b, values)?),
        ),
        Cond::Const(_) | Cond::Param(_) | Cond::Register { .. } => cond.clone(),
    })
}
