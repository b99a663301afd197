//! The CTA barriers (`Usability::CtaBarrier`, usable in an `apply` with
//! `scope = "cta"`): `bar.sync a`, `barrier.sync{.aligned} a`, and the
//! reductions `bar.red.popc.u32 d, a, c` and `bar.red.{and,or}.pred d, a,
//! c` (with their `barrier.`, `.cta` and `.aligned` spellings).
//!
//! Unlike the warp collectives they need no patching: `form_kernels`
//! builds their kernels ([`Shape::PerThread`], blocks of [`BLOCK`]) with
//! the barrier outside the guard `i < N` and its operands in CTA tiles,
//! and the rows are whole CTAs, so that every thread arrives with a row of
//! its own. Each variant runs with barriers 0 and 15, with and without
//! [`Choices::cta_exchange`] (a value crossing the barrier through a shared
//! buffer, written by one thread and read by another: `ex_out` must equal
//! `ex_in`; `bar.sync`, which has no operand but `a`, runs only with it).
//!
//! The predicate `c` of each CTA follows one of [`PATTERNS`] (the first
//! CTAs go through them in order, the rest pick at random), so that `and`
//! and `or` see both results and `popc` counts from 0 to the whole block.

use super::*;
use tile_kernel_lowering::ptx::Slot;

/// The barrier forms.
pub fn forms() -> impl Iterator<Item = &'static InstructionForm> {
    FORMS.iter().filter(|f| f.usable == Usability::CtaBarrier)
}

/// The barrier numbers each variant runs with.
const BARRIERS: [i64; 2] = [0, 15];

/// How the predicates `c` of one CTA are set.
pub const PATTERNS: [&str; 6] = [
    "c all set",
    "c none set",
    "c all set but one",
    "c one set",
    "c half set at random",
    "c a few set at random",
];

/// The cases of every legal variant of every barrier form.
pub fn enumerate(config: &Config) -> (usize, Vec<Case>, Skips) {
    let mut cases = Vec::new();
    let mut skips = Skips::default();
    let mut variants = 0;
    for form in forms() {
        for m in legal_variants(form) {
            let text = m.opcode_text();
            if !config.filter.is_empty() && !config.filter.iter().any(|w| text.contains(w.as_str()))
            {
                continue;
            }
            variants += 1;
            let target = match h200_target(&m) {
                Ok(target) => target,
                Err(why) => {
                    skips.add(why, text);
                    continue;
                }
            };
            let registers = m
                .operands()
                .iter()
                .any(|o| matches!(o.kind, OperandKind::Register | OperandKind::Predicate));
            for a in BARRIERS {
                for exchange in [false, true] {
                    if !exchange && !registers {
                        continue;
                    }
                    let mut label = format!("{text} [imm {a:#x}]");
                    if exchange {
                        label.push_str(" [exchange]");
                    }
                    cases.push(Case {
                        label,
                        variant: m.clone(),
                        family: Family::Compute,
                        target,
                        choices: Choices {
                            immediates: vec![a],
                            containers: true,
                            created_policy: true,
                            cta_exchange: exchange,
                            ..Choices::default()
                        },
                        rows: config.cta_rows,
                        shared: false,
                        block: BLOCK,
                        warp: false,
                    });
                }
            }
        }
    }
    (variants, cases, skips)
}

/// Sets the predicate sources of `built` (a barrier case) per CTA by
/// [`PATTERNS`], and notes each CTA's pattern.
pub fn predicate_patterns(built: &mut Built, case: &Case, rng: &mut Rng) {
    let block = case.block as usize;
    let ctas = case.rows.div_ceil(block);
    let patterns: Vec<usize> = (0..ctas)
        .map(|c| {
            if c < PATTERNS.len() {
                c
            } else {
                rng.below(PATTERNS.len())
            }
        })
        .collect();
    let mut any = false;
    for (k, role) in built.roles.iter().enumerate() {
        if role.role != Role::Source || !role.predicate {
            continue;
        }
        any = true;
        let lanes = usize::from(role.lanes);
        let bytes = &mut built.inputs[k];
        for (c, &p) in patterns.iter().enumerate() {
            let odd = rng.below(block);
            for t in 0..block {
                let r = c * block + t;
                if r >= case.rows {
                    break;
                }
                for lane in 0..lanes {
                    let set = match p {
                        0 => true,
                        1 => false,
                        2 => t != odd,
                        3 => t == odd,
                        4 => rng.below(2) == 0,
                        _ => rng.below(16) == 0,
                    };
                    let at = (r * lanes + lane) * 4;
                    bytes[at..at + 4].copy_from_slice(&u32::from(set).to_le_bytes());
                }
            }
        }
    }
    if any {
        built.cta_notes = patterns.iter().map(|p| PATTERNS[*p].to_string()).collect();
    }
}

/// Checks the interpreter's outputs of a barrier case against results
/// worked out from its inputs: `bar.red.popc` counts the CTA's set
/// predicates, `.and`/`.or` reduce them (as 0 or 1 in the `u32` output),
/// and the exchange returns its input.
pub fn check_by_hand(case: &Case, built: &Built) -> Result<(), String> {
    let outputs = built.interp.as_ref().map_err(Clone::clone)?;
    let operands = case.variant.operands();
    let block = case.block as usize;
    let find = |role: Role, immediate: bool| {
        built.roles.iter().position(|t| {
            t.role == role
                && matches!(operands[t.operand].kind, OperandKind::Immediate { .. }) == immediate
        })
    };
    let word = |bytes: &[u8], r: usize| element(bytes, r, 4);
    if let (Some(c), Some(d)) = (find(Role::Source, false), find(Role::Destination, false)) {
        let op = case.variant.get(Slot::Redop).unwrap_or("?");
        for r in 0..case.rows {
            let cta = r / block * block..(r / block + 1) * block;
            let set = cta
                .clone()
                .filter(|&t| word(&built.inputs[c], t) != 0)
                .count();
            let expected = match op {
                "popc" => set as u64,
                "and" => u64::from(set == block),
                "or" => u64::from(set > 0),
                other => return Err(format!("no reference for `{other}`")),
            };
            let got = word(&outputs[d], r);
            if got != expected {
                return Err(format!(
                    "row {r}: d = {got}, expected {expected} ({set} of {block} predicates set in the CTA; {})",
                    built.cta_notes.get(r / block).map_or("", String::as_str)
                ));
            }
        }
    }
    if let (Some(x), Some(y)) = (find(Role::Source, true), find(Role::Destination, true))
        && outputs[y] != built.inputs[x]
    {
        let r = (0..case.rows)
            .find(|&r| word(&outputs[y], r) != word(&built.inputs[x], r))
            .unwrap_or(0);
        return Err(format!(
            "row {r}: ex_out = {:#x}, but ex_in = {:#x}",
            word(&outputs[y], r),
            word(&built.inputs[x], r)
        ));
    }
    Ok(())
}
