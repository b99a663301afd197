//! Variants and cases: every legal variant of every usable form, per
//! immediate value and special register, with what is skipped and why.

use super::*;
use tile_kernel_lowering::ptx::Slot;

/// How a variant touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Compute,
    Load,
    Store,
    Prefetch,
    Atomic,
}

pub(crate) fn family(m: &Modifiers) -> Family {
    match m.effect() {
        Effect::Load { .. } => Family::Load,
        Effect::Store => Family::Store,
        Effect::Prefetch => Family::Prefetch,
        Effect::Atomic { .. } => Family::Atomic,
        _ => Family::Compute,
    }
}

/// One kernel to run: a variant plus its compile-time choices.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) label: String,
    pub(crate) variant: Modifiers,
    pub(crate) family: Family,
    pub(crate) target: Target,
    pub(crate) choices: Choices,
    /// Threads, one row each.
    pub(crate) rows: usize,
    /// Every thread updates one shared element (same-address atomics).
    pub(crate) shared: bool,
    /// Threads a block ([`BLOCK`], or [`warp::BLOCK`] for the collectives).
    pub(crate) block: u32,
    /// A warp collective ([`warp`]): its kernel is a compiled placeholder
    /// kernel with the collective patched in, its inputs are per warp.
    pub(crate) warp: bool,
}

/// Why variants were not run, with the variants.
#[derive(Debug, Default)]
pub(crate) struct Skips(pub(crate) BTreeMap<String, Vec<String>>);

impl Skips {
    pub(crate) fn add(&mut self, reason: impl Into<String>, what: String) {
        self.0.entry(reason.into()).or_default().push(what);
    }

    pub(crate) fn total(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }

    pub(crate) fn print(&self) {
        println!("skipped: {} variant(s)", self.total());
        for (reason, list) in &self.0 {
            let examples: Vec<&str> = list.iter().take(4).map(String::as_str).collect();
            println!(
                "  {} x {reason} (e.g. {}{})",
                list.len(),
                examples.join(", "),
                if list.len() > examples.len() {
                    ", ..."
                } else {
                    ""
                }
            );
        }
    }
}

/// The target the H200 (sm_90) runs `m` at, or why it cannot.
pub(crate) fn h200_target(m: &Modifiers) -> Result<Target, String> {
    let req = m.requirement(Target::SM_90);
    if let Some(archs) = req.only_on {
        return if archs.contains(&90) {
            Ok(Target {
                sm: 90,
                arch_specific: true,
            })
        } else {
            Err(format!(
                "arch-specific to sm_{:?} (the H200 is sm_90)",
                archs
            ))
        };
    }
    if req.sm > 90 {
        return Err(format!("needs sm_{} (the H200 is sm_90)", req.sm));
    }
    Ok(Target::SM_90)
}

/// The immediate values a kernel is compiled with: the legal minimum,
/// maximum and a few values in between (all of them for small ranges).
pub(crate) fn immediate_values(min: i64, max: i64) -> Vec<i64> {
    let mut values = BTreeSet::new();
    if max.saturating_sub(min) <= 16 {
        values.extend(min..=max);
    } else {
        values.extend([min, min + 1, min + (max - min) / 2, max - 1, max]);
        let mut rng = Rng::from_label(&format!("imm {min} {max}"));
        for _ in 0..3 {
            let span = (max - min) as u64 + 1;
            values.insert(min + (rng.next_u64() % span) as i64);
        }
        if (min, max) == (0, 255) {
            // LUTs of lop3: a ^ b ^ c, majority, a, b, c, a & b & c, a | b | c.
            values.extend([0x96, 0xE8, 0xF0, 0xCC, 0xAA, 0x80, 0xFE]);
        }
    }
    values.into_iter().collect()
}

/// The op of an atomic (`add`, `cas`, ...).
pub(crate) fn atomic_op(m: &Modifiers) -> Option<&'static str> {
    m.get(Slot::Op)
}

/// The element type of an atomic.
pub(crate) fn atomic_type(m: &Modifiers) -> Option<PtxType> {
    m.ty(Slot::Type)
}

/// Whether the final memory of `m` with every thread on one element is
/// independent of the order the threads run in (on the values
/// [`shared_restriction`] feeds it).
pub(crate) fn order_independent(m: &Modifiers) -> Result<(), String> {
    let op = atomic_op(m).unwrap_or("?");
    let ty = atomic_type(m);
    match op {
        "and" | "or" | "xor" | "inc" | "dec" | "min" | "max" => Ok(()),
        "add" => match ty {
            Some(t) if t.is_int() || matches!(t, PtxType::B32 | PtxType::B64) => Ok(()),
            Some(PtxType::F32 | PtxType::F64 | PtxType::F16 | PtxType::F16x2) => Ok(()),
            Some(t) => Err(format!(
                "`add.{}` on one address: partial sums of more than 256 threads are not exact, so the result depends on the order",
                t.token()
            )),
            None => Err("no type".into()),
        },
        other => Err(format!("`{other}` on one address depends on the order")),
    }
}

/// Every case of every usable, legal variant, and what was skipped.
pub(crate) fn enumerate(config: &Config, shared: bool) -> (usize, Vec<Case>, Skips) {
    let mut cases = Vec::new();
    let mut skips = Skips::default();
    let mut variants = 0;
    for form in FORMS.iter().filter(|f| f.usable == Usability::Yes) {
        let mut seen_types = BTreeSet::new();
        for (k, m) in legal_variants(form).into_iter().enumerate() {
            if m.usability() != Usability::Yes {
                continue;
            }
            let text = m.opcode_text();
            if !config.filter.is_empty() && !config.filter.iter().any(|w| text.contains(w.as_str()))
            {
                continue;
            }
            let family = family(&m);
            if shared && family != Family::Atomic {
                continue;
            }
            variants += 1;
            let in_shared = matches!(m.space(), Space::Shared { .. });
            if family != Family::Compute
                && let Some(stride) = config.memory_stride
            {
                let types: Vec<&str> = m.operands().iter().map(|o| o.ty.token()).collect();
                if !seen_types.insert((types, in_shared)) && k % stride != 0 {
                    skips.add(
                        format!("sampled out (smoke test: every {stride}th memory variant)"),
                        text,
                    );
                    continue;
                }
            }
            // Nothing to compare: a group form moves no value. The copies'
            // kernels end with `cp.async.wait_all`, and `tests/async_copies.rs`
            // runs commits and `wait_group` on both devices.
            // An mbarrier form needs its protocol around it (init, arrivals
            // before a wait): `tests/mbarriers.rs` runs each usable spelling
            // on both devices.
            if m.effect() == Effect::Mbarrier {
                skips.add(
                    "an mbarrier form: run in its protocol in tests/mbarriers.rs",
                    text,
                );
                continue;
            }
            // A bulk copy signals an mbarrier, whose phase its readers wait
            // for: `tests/bulk_copies.rs` runs it on both devices.
            if m.operands().iter().any(|o| o.mbarrier) {
                skips.add(
                    "a bulk copy: run in its protocol in tests/bulk_copies.rs",
                    text,
                );
                continue;
            }
            // A store to global memory through the async proxy completes in
            // a bulk group, with its source owned until the group's wait:
            // `tests/async_stores.rs` runs both forms on both devices.
            if m.effect() == Effect::AsyncCopy && m.get(Slot::Dst) == Some("global") {
                skips.add(
                    "a bulk or tensor store: run in its protocol in tests/async_stores.rs",
                    text,
                );
                continue;
            }
            // A fence moves no value: the proxy fences run in
            // tests/bulk_copies.rs.
            if m.effect() == Effect::Fence {
                skips.add("a fence: no value (run in tests/bulk_copies.rs)", text);
                continue;
            }
            if m.effect() == Effect::AsyncGroup {
                skips.add(
                    "a group form: no value (cp.async groups in tests/async_copies.rs, bulk groups in tests/async_stores.rs)",
                    text,
                );
                continue;
            }
            if shared && let Err(why) = order_independent(&m) {
                skips.add(why, text);
                continue;
            }
            // The one global address is reached by several CTAs: a scope
            // narrower than the grid makes that a race (TK0409), which the
            // checker rejects.
            if shared && !in_shared && matches!(m.get(Slot::Scope), Some("cta" | "cluster")) {
                skips.add(
                    "TK0409: a `.cta`/`.cluster` atomic on one global address that several CTAs reach races".to_string(),
                    text,
                );
                continue;
            }
            let target = match h200_target(&m) {
                Ok(target) => target,
                Err(why) => {
                    skips.add(why, text);
                    continue;
                }
            };
            let operands = m.operands();
            let immediate_lists: Vec<Vec<i64>> = operands
                .iter()
                .filter_map(|o| match o.kind {
                    OperandKind::Immediate { min, max } => Some(immediate_values(min, max)),
                    _ => None,
                })
                .collect();
            // Immediates zip (no form has two yet); each list repeats.
            let immediate_sets: Vec<Vec<i64>> = match immediate_lists.iter().map(Vec::len).max() {
                None => vec![Vec::new()],
                Some(n) => (0..n)
                    .map(|k| immediate_lists.iter().map(|l| l[k % l.len()]).collect())
                    .collect(),
            };
            let specials: Vec<Option<&'static str>> = operands
                .iter()
                .find_map(|o| match o.kind {
                    OperandKind::Special(names) => Some(names.iter().copied().map(Some).collect()),
                    _ => None,
                })
                .unwrap_or_else(|| vec![None]);
            let rows = if shared {
                config.shared_threads
            } else {
                match family {
                    Family::Compute => config.compute_rows,
                    Family::Atomic => config.atomic_rows,
                    Family::Load | Family::Store | Family::Prefetch => config.memory_rows,
                }
            };
            for immediates in &immediate_sets {
                for special in &specials {
                    let mut label = text.clone();
                    if !immediates.is_empty() {
                        let list: Vec<String> =
                            immediates.iter().map(|v| format!("{v:#x}")).collect();
                        let _ = write!(label, " [imm {}]", list.join(", "));
                    }
                    if let Some(name) = special {
                        let _ = write!(label, " [{name}]");
                    }
                    if shared && in_shared {
                        label.push_str(" [one shared element a CTA]");
                    } else if shared {
                        label.push_str(" [one address]");
                    }
                    cases.push(Case {
                        label,
                        variant: m.clone(),
                        family,
                        target,
                        choices: Choices {
                            immediates: immediates.clone(),
                            special: *special,
                            // `ldu` promises an address that is the same
                            // across the warp: every thread reads one
                            // shared row.
                            shared_memory: shared || m.form.mnemonic == "ldu",
                            containers: true,
                            created_policy: true,
                            cta_exchange: false,
                        },
                        rows,
                        shared,
                        block: BLOCK,
                        warp: false,
                    });
                }
            }
        }
    }
    (variants, cases, skips)
}
