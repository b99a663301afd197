//! Whole-kernel safety proofs: no two threads touch the same bytes of a
//! tensor that the kernel writes (races), `.nc` loads only of tensors the
//! kernel never writes, and tiles that fit the register file.
//!
//! **Races.** A thread is identified by its *digits*: `thread_id(a)` for each
//! block axis of extent > 1 and `cta_id(a)` for each grid axis that may
//! exceed 1. An access *separates* the threads that differ in a set of
//! digits along one tensor axis when the indices it reaches there are
//! `c * v + r` with `0 <= r` and `r + span <= c`, where `v` is
//! - an injective rank of those digits (`cta_id(0) * 256 + thread_id(0)`:
//!   the digits weighted as a mixed-radix number, proven from the block and
//!   grid extents), or
//! - a grid-stride loop variable `for i in (rank..n).step_by(p)` with
//!   `p >= ` the rank's range, so `i` is congruent to the thread's rank
//!   modulo `p` (cuda-oxide's congruence argument), or
//! - `rank + p * k` for the rank's constant range `p` and any integer `k`
//!   (a cyclic distribution: `j * 256 + thread_id(0)` in a block of 256),
//!   again congruent to the rank modulo `p`.
//!
//! Two threads then reach disjoint intervals `[c*v, c*v + c)`. A written
//! tensor is race-free when, for a set of tensor axes on which *every*
//! access to it (stores and loads) separates threads the same way, the
//! separated digits cover all digits of the launch: any two distinct threads
//! differ in some digit, so some axis keeps their accesses apart. A tensor
//! that only atomic read-modify-writes (`atom`, `red`) touch is race-free
//! without separation: the hardware serialises them per element.

use std::collections::BTreeSet;

use crate::diag::{Code, Diagnostic};
use crate::layout::Layout;
use crate::program::ParamKind;
use crate::sym::{AtomKind, Fact, Poly, Prover};

use super::{Checker, Digit, LoopClass, tile_registers};

/// Tiles may use at most this many 32-bit registers per thread: PTX allows
/// 255, and the rest is kept for addresses, indices and predicates.
pub const REGISTER_BUDGET: usize = 224;

/// One access as the race rule reads it: its per-axis separations and the
/// digits it pins to one value.
pub(super) type AccessParts<'a> = (&'a [Option<Separation>], &'a [(Digit, i128)]);

/// How one access separates threads along one tensor axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Separation {
    pub digits: BTreeSet<Digit>,
    /// The injective rank of `digits`.
    pub rank: Poly,
    /// Each thread's indices lie in `[c * v, c * v + c)`.
    pub c: i128,
    /// `None`: `v` is the rank itself; `Some(p)`: `v` is congruent to the
    /// rank modulo `p`.
    pub period: Option<Poly>,
}

impl Separation {
    fn compatible(&self, other: &Separation) -> bool {
        self.digits == other.digits
            && self.rank == other.rank
            && self.c == other.c
            && match (&self.period, &other.period) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

pub(super) fn digit_name(digit: Digit) -> String {
    match digit {
        Digit::Thread(a) => format!("thread_id({a})"),
        Digit::Cta(a) => format!("cta_id({a})"),
        Digit::Lane => "lane_id()".to_string(),
        Digit::Warp => "warp_id()".to_string(),
        Digit::WarpInGroup => "warp_id() % 4".to_string(),
        Digit::Warpgroup => "warp_id() / 4".to_string(),
    }
}

impl Checker<'_> {
    /// The digits two threads of this launch can differ in.
    fn live_digits(&self) -> BTreeSet<Digit> {
        let mut digits = BTreeSet::new();
        for axis in 0..3u8 {
            if self.launch.block[usize::from(axis)] > 1 {
                digits.insert(Digit::Thread(axis));
            }
            if self.launch.grid[usize::from(axis)].as_const() != Some(1) {
                digits.insert(Digit::Cta(axis));
            }
        }
        digits
    }

    fn digit_of(&self, atom: crate::sym::AtomId) -> Option<Digit> {
        match self.atoms.get(atom).kind {
            AtomKind::ThreadId(a) => Some(Digit::Thread(a)),
            AtomKind::CtaId(a) => Some(Digit::Cta(a)),
            AtomKind::LaneId => Some(Digit::Lane),
            AtomKind::WarpId => Some(Digit::Warp),
            AtomKind::WarpInGroup => Some(Digit::WarpInGroup),
            AtomKind::WarpgroupId => Some(Digit::Warpgroup),
            _ => None,
        }
    }

    /// The digits that `facts` fix to one value (`lane_id() == 0`), with
    /// that value: only threads with that digit run the access.
    pub(super) fn pinned_digits(&self, facts: &[Fact]) -> Vec<(Digit, i128)> {
        let prover = Prover {
            atoms: &self.atoms,
            facts,
        };
        self.atoms
            .iter()
            .filter_map(|(id, atom)| {
                let digit = self.digit_of(id)?;
                let value = Poly::atom(id);
                let lo = atom.lo;
                (prover.prove_le0(&value.add_const(-lo))).then_some((digit, lo))
            })
            .collect()
    }

    /// Whether separating `covered` keeps any two distinct threads of the
    /// launch apart: every live digit is covered, where `lane_id()` with
    /// `warp_id()` (when the block has more than one warp) stands for all
    /// thread digits (the two name a thread in its block), and
    /// `warp_id() % 4` with `warp_id() / 4` for `warp_id()`.
    fn covers(&self, covered: &BTreeSet<Digit>, live: &BTreeSet<Digit>) -> Vec<Digit> {
        let threads = self
            .launch
            .block
            .iter()
            .fold(1u64, |acc, b| acc.saturating_mul(u64::from(*b)));
        let warps_named = covered.contains(&Digit::Warp)
            || (covered.contains(&Digit::WarpInGroup) && covered.contains(&Digit::Warpgroup));
        let lanes_name_threads = covered.contains(&Digit::Lane) && (threads <= 32 || warps_named);
        live.iter()
            .copied()
            .filter(|d| !covered.contains(d))
            .filter(|d| !(lanes_name_threads && matches!(d, Digit::Thread(_))))
            .collect()
    }

    /// `poly = c * rank + r` with `rank` an injective mixed-radix number of
    /// thread digits: returns `(digits, rank, c, r, range)` where `range`
    /// bounds the rank (`0 <= rank < range`).
    fn rank_decomposition(
        &self,
        poly: &Poly,
        facts: &[Fact],
    ) -> Option<(BTreeSet<Digit>, Poly, i128, Poly, Poly)> {
        let digit_atoms: Vec<_> = poly
            .atoms()
            .into_iter()
            .filter(|a| self.digit_of(*a).is_some())
            .collect();
        if digit_atoms.is_empty() {
            return None;
        }
        // Each digit's coefficient, free of digits.
        let mut rest = poly.clone();
        let mut coefs = Vec::new();
        for atom in &digit_atoms {
            let (coef, remainder) = rest.split_on(*atom);
            if !self.is_uniform(&coef) {
                return None;
            }
            coefs.push((*atom, coef));
            rest = remainder;
        }
        let c = coefs
            .iter()
            .filter_map(|(_, coef)| coef.as_const())
            .filter(|v| *v > 0)
            .min()?;
        if !coefs.iter().all(|(_, coef)| coef.divisible_by(c)) {
            return None;
        }
        let mut remaining: Vec<(crate::sym::AtomId, Poly)> = coefs
            .iter()
            .map(|(a, coef)| (*a, coef.div_exact(c)))
            .collect();
        let prover = Prover {
            atoms: &self.atoms,
            facts,
        };
        // Mixed radix: smallest weight first; each weight exceeds the
        // largest value of all smaller digits.
        let mut span = Poly::default(); // the largest value so far
        let mut rank = Poly::default();
        while !remaining.is_empty() {
            let pick = (0..remaining.len()).find(|&i| {
                remaining
                    .iter()
                    .all(|(_, other)| prover.le(&remaining[i].1, other))
            })?;
            let (atom, weight) = remaining.remove(pick);
            if !prover.le(&span.add_const(1), &weight) {
                return None;
            }
            let top = self.digit_top(atom)?;
            span = span.add(&weight.mul(&top));
            rank = rank.add(&weight.mul(&Poly::atom(atom)));
        }
        let digits = digit_atoms
            .iter()
            .filter_map(|a| self.digit_of(*a))
            .collect();
        Some((digits, rank, c, rest, span.add_const(1)))
    }

    /// Whether `poly` has one value for every thread of a launch (symbols,
    /// parameters, grid sizes and values computed only from those). Rank
    /// weights and grid-stride steps must be: a weight that differed between
    /// threads would break the mixed-radix argument.
    fn is_uniform(&self, poly: &Poly) -> bool {
        poly.atoms()
            .into_iter()
            .all(|atom| match &self.atoms.get(atom).kind {
                AtomKind::Symbol(_) | AtomKind::Param(_) | AtomKind::GridDim(_) => true,
                AtomKind::Computed(_, args) => args.iter().all(|a| self.is_uniform(a)),
                AtomKind::ThreadId(_)
                | AtomKind::CtaId(_)
                | AtomKind::LaneId
                | AtomKind::WarpId
                | AtomKind::WarpInGroup
                | AtomKind::WarpgroupId
                | AtomKind::LoopVar => false,
            })
    }

    /// The largest value of a digit atom, as a polynomial.
    fn digit_top(&self, atom: crate::sym::AtomId) -> Option<Poly> {
        match self.atoms.get(atom).kind {
            AtomKind::ThreadId(_)
            | AtomKind::LaneId
            | AtomKind::WarpId
            | AtomKind::WarpInGroup
            | AtomKind::WarpgroupId => Some(Poly::constant(self.atoms.get(atom).hi)),
            AtomKind::CtaId(axis) => match self.launch.grid[usize::from(axis)].as_const() {
                Some(g) => Some(Poly::constant(i128::from(g) - 1)),
                None => Some(match self.atoms.find(&AtomKind::GridDim(axis)) {
                    Some(grid) => Poly::atom(grid).add_const(-1),
                    None => Poly::constant(self.atoms.get(atom).hi),
                }),
            },
            _ => None,
        }
    }

    /// The class of a runtime loop variable starting at `start` with `step`.
    pub(super) fn loop_class(&mut self, start: &Poly, step: &Poly) -> Option<LoopClass> {
        let facts = self.facts.clone();
        let (digits, rank, c, rest, range) = self.rank_decomposition(start, &facts)?;
        if c != 1 || rest != Poly::default() || !self.is_uniform(step) {
            return None;
        }
        let prover = Prover {
            atoms: &self.atoms,
            facts: &facts,
        };
        prover.le(&range, step).then(|| LoopClass {
            digits: digits.into_iter().collect(),
            rank,
            period: step.clone(),
        })
    }

    /// Per tensor axis of `view`'s region: how the access separates threads.
    pub(super) fn separations(&self, view: &Layout, facts: &[Fact]) -> Vec<Option<Separation>> {
        let region = &view.region;
        (0..region.starts.len())
            .map(|axis| {
                let count = region.counts[axis].as_const()?;
                let span = (count - 1).max(0) * region.steps[axis] + 1;
                self.separation(&region.starts[axis], span, facts)
            })
            .collect()
    }

    fn separation(&self, start: &Poly, span: i128, facts: &[Fact]) -> Option<Separation> {
        let prover = Prover {
            atoms: &self.atoms,
            facts,
        };
        let remainder_fits = |r: &Poly, c: i128| {
            prover.prove_le0(&r.scale(-1)) && prover.prove_le0(&r.add_const(span - c))
        };
        // A grid-stride loop variable.
        for atom in start.atoms() {
            let Some(class) = self.loop_classes.get(&atom) else {
                continue;
            };
            let (coef, rest) = start.split_on(atom);
            let Some(c) = coef.as_const().filter(|c| *c > 0) else {
                continue;
            };
            if rest.contains(atom) || !remainder_fits(&rest, c) {
                continue;
            }
            return Some(Separation {
                digits: class.digits.iter().copied().collect(),
                rank: class.rank.clone(),
                c,
                period: Some(class.period.clone()),
            });
        }
        // A rank of thread digits.
        let (digits, rank, c, rest, range) = self.rank_decomposition(start, facts)?;
        if rest
            .atoms()
            .iter()
            .any(|a| self.loop_classes.contains_key(a))
        {
            return None;
        }
        if remainder_fits(&rest, c) {
            return Some(Separation {
                digits,
                rank,
                c,
                period: None,
            });
        }
        // A cyclic distribution: `c * rank + r0 + c * p * k` with `p` the
        // rank's range and `k` any integer (`j * 256 + thread_id(0)`):
        // `v = rank + p * k` is congruent to the rank modulo `p`, and
        // distinct ranks below `p` are distinct residues.
        let p = range.as_const().filter(|p| *p > 0)?;
        let whole = c.checked_mul(p)?;
        let r0 = rest.constant_term().rem_euclid(whole);
        let multiple = rest.add_const(-r0);
        (multiple.divisible_by(whole) && remainder_fits(&Poly::constant(r0), c)).then(|| {
            Separation {
                digits,
                rank,
                c,
                period: Some(Poly::constant(p)),
            }
        })
    }

    /// The digits of `live` in which two threads may differ and still
    /// reach the same element through the accesses `records` (each its
    /// per-axis separations and pinned digits): empty when, on a set of
    /// axes where every access separates threads the same way, the
    /// separated digits and those every access pins to one value cover
    /// `live`.
    pub(super) fn unseparated(
        &self,
        records: &[AccessParts<'_>],
        live: &BTreeSet<Digit>,
    ) -> Vec<Digit> {
        let Some((first_separations, first_pinned)) = records.first() else {
            return Vec::new();
        };
        let axes = records.iter().map(|r| r.0.len()).min().unwrap_or(0);
        let mut covered = BTreeSet::new();
        for axis in 0..axes {
            let Some(first) = first_separations[axis].clone() else {
                continue;
            };
            if records
                .iter()
                .all(|r| r.0[axis].as_ref().is_some_and(|s| s.compatible(&first)))
            {
                covered.extend(first.digits.iter().copied());
            }
        }
        // A digit every access fixes to the same value keeps threads
        // that differ in it apart (only one value of it accesses).
        for (digit, value) in first_pinned.iter() {
            if records
                .iter()
                .all(|r| r.1.iter().any(|(d, v)| d == digit && v == value))
            {
                covered.insert(*digit);
            }
        }
        self.covers(&covered, live)
    }

    /// Every written tensor: its accesses are separated per thread.
    pub(super) fn check_races(&mut self) {
        let live = self.live_digits();
        for param in 0..self.params.len() {
            let ParamKind::Tensor { written: true, .. } = self.params[param].kind else {
                continue;
            };
            let records: Vec<_> = self
                .accesses
                .iter()
                .filter(|r| r.param == param)
                .cloned()
                .collect();
            let name = self.params[param].name.clone();
            if let Some(load) = records.iter().find(|r| r.non_coherent) {
                self.diags.push(
                    Diagnostic::new(
                        Code::NC_OF_WRITTEN,
                        load.span,
                        format!("read-only loads (`.nc`, `ldu`) need data that stays read-only for the whole kernel, but this kernel also stores to `{name}`"),
                    )
                    .with_help("use a plain `ld.global` for this load"),
                );
            }
            if live.is_empty() || records.is_empty() {
                continue;
            }
            // Atomic read-modify-writes of one element never race with each
            // other: a tensor only `atom`/`red` touch needs no separation.
            // Mixed with plain loads or stores, every access is held to the
            // rule below (an atomic counts like a store).
            if records.iter().all(|r| r.atomic) {
                continue;
            }
            let parts: Vec<_> = records
                .iter()
                .map(|r| (r.separations.as_slice(), r.pinned.as_slice()))
                .collect();
            let missing = self.unseparated(&parts, &live);
            if missing.is_empty() {
                continue;
            }
            let culprit = records.iter().find(|r| r.store).unwrap_or(&records[0]);
            let names: Vec<String> = missing.into_iter().map(digit_name).collect();
            self.diags.push(
                Diagnostic::new(
                    Code::RACE,
                    culprit.span,
                    format!(
                        "this access to `{name}` may race: threads that differ only in {} can reach the same element of `{name}`, which the kernel writes",
                        names.join(" and ")
                    ),
                )
                .with_note("every access to a written tensor must stay inside its own thread's part: index it by a per-thread range such as `x.slice(s![base..base + 8])` with `base = (cta_id(0) * 256 + thread_id(0)) * 8`, by a grid-stride loop `for i in (cta_id(0) * block_dim(0) + thread_id(0)..n).step_by(grid_dim(0) * block_dim(0))`, or cyclically, `j * 256 + thread_id(0)` in a block of 256 (a period of at least the threads the rank numbers)")
                .with_help("give each thread its own part of the tensor, indexed by the thread's rank"),
            );
        }
    }

    /// Tiles must fit the registers a thread has.
    pub(super) fn check_register_budget(&mut self) {
        // Summed as the tiles were allocated.
        let registers = self.tile_registers;
        if registers <= REGISTER_BUDGET {
            return;
        }
        let mut sizes: Vec<String> = self
            .tiles
            .iter()
            .map(|t| format!("`{}`: {}", t.tile.name, tile_registers(&t.tile)))
            .collect();
        sizes.truncate(8);
        // At the largest tile: the one most worth shrinking.
        let span = self
            .tiles
            .iter()
            .max_by_key(|t| t.tile.registers() * t.tile.dtype.size_bytes())
            .map_or(self.kernel.name_span, |t| t.span);
        self.diags.push(
            Diagnostic::new(
                Code::REGISTER_BUDGET,
                span,
                format!(
                    "the tiles of this kernel need {registers} 32-bit registers per thread, more than the {REGISTER_BUDGET} it may use"
                ),
            )
            .with_note(format!("per tile: {}", sizes.join(", ")))
            .with_note("a thread has 255 registers; the rest hold addresses, indices and predicates. Tiles that do not fit would spill to local memory")
            .with_help("use smaller tiles, or reuse one tile across loop iterations"),
        );
    }
}
