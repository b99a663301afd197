//! Certification of the PTX table against the pinned ptxas (12.9.86).
//!
//! - every legal variant of every form assembles at its floor target
//!   (`.target` = the lowest real target meeting the variant's requirement,
//!   `.version` = the higher of the requirement and that target's minimum) and
//!   at the default target sm_90 where it is available there;
//! - an honesty check: a bogus instruction in such a file makes ptxas fail;
//! - the recorded floors are real, not just sufficient: one PTX ISA step
//!   below a variant's `.version` floor, or one target below its arch floor,
//!   ptxas rejects it;
//! - the rules are not too loose *nor* too strict: every slot combination a
//!   rule rejects, ptxas rejects as well (except the listed ISA-forbidden
//!   spellings that ptxas tolerates);
//! - dispatch is unambiguous: no two forms of one mnemonic accept the same
//!   token list with the same operand shapes.
//!
//! A missing ptxas fails these tests (run `scripts/install-ptxas.sh`), and
//! so does any other ptxas than release 12.9, V12.9.86: the floors and the
//! tolerated spellings below are facts about that release (ptxas 13, for
//! one, rejects spellings 12.9 accepts and drops sm_70/sm_72). Every
//! assembly here goes through [`try_assemble`], which checks the version of
//! the ptxas in use first -- also of one named by `$TILE_KERNEL_PTXAS`.

use std::collections::{BTreeMap, BTreeSet};

use tile_kernel_lowering::emit::{Join, operand_list};
use tile_kernel_lowering::ptx::form::{
    Access, InstructionForm, Lanes, ModifierSlot, OperandSlot, Packing, TypeRef, no_rule,
    registers_text,
};
use tile_kernel_lowering::ptx::resolve::{legal_variants, slot_combinations};
use tile_kernel_lowering::ptx::rules;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{
    Effect, Modifiers, OperandKind, PtxType, Slot, Usability, resolve,
};
use tile_kernel_lowering::target::{PtxVersion, Requirement, Target};

// ------------------------------------------------------------------ ptxas

// The same pinned-ptxas runner the facade's tests use.
use tile_kernel_testkit::ptxas;

/// Assembles `ptx` for `arch` with the pinned ptxas: panics (failing the
/// test) unless the ptxas in use reports release 12.9, V12.9.86.
fn try_assemble(ptx: &str, arch: &str) -> Result<(), String> {
    ptxas::require_pinned_version();
    ptxas::try_assemble(ptx, arch)
}

/// Line numbers ptxas reports errors on (`ptxas f.ptx, line 12; error : ..`).
fn error_lines(message: &str) -> BTreeSet<usize> {
    message
        .lines()
        .filter(|l| l.contains("; error"))
        .filter_map(|l| {
            let rest = &l[l.find(", line ")? + 7..];
            rest[..rest.find(';')?].parse().ok()
        })
        .collect()
}

// ------------------------------------------------------- PTX construction

/// The real targets ptxas 12.9 knows, lowest first (non-`a` only).
const TARGETS: &[u32] = &[70, 72, 75, 80, 86, 87, 89, 90, 100, 120];

/// Every PTX ISA version ptxas 12.9 accepts, lowest first.
fn ptx_versions() -> Vec<PtxVersion> {
    let mut out = Vec::new();
    for minor in 0..=5 {
        out.push(PtxVersion::new(6, minor));
    }
    for minor in 0..=8 {
        out.push(PtxVersion::new(7, minor));
    }
    for minor in 0..=8 {
        out.push(PtxVersion::new(8, minor));
    }
    out
}

fn previous_version(v: PtxVersion) -> PtxVersion {
    let all = ptx_versions();
    let i = all.iter().position(|x| *x == v).expect("known version");
    all[i - 1]
}

fn target_min(sm: Target) -> PtxVersion {
    sm.min_ptx_version().expect("known target")
}

/// The lowest real target (sm_70 or newer) at which `m` is available, and
/// the requirement the table reports for that target. An arch-specific
/// variant's floor is the first `a` target it names.
fn floor_target(m: &Modifiers) -> (Target, Requirement) {
    if let Some(archs) = m.requirement(Target::SM_90).only_on {
        let target = Target {
            sm: archs[0],
            arch_specific: true,
        };
        return (target, m.requirement(target));
    }
    let mut sm = 70;
    loop {
        let req = m.requirement(Target::sm(sm));
        if req.sm <= sm {
            return (Target::sm(sm), req);
        }
        sm = *TARGETS
            .iter()
            .find(|t| **t >= req.sm)
            .unwrap_or_else(|| panic!("{}: no target for sm_{}", m.opcode_text(), req.sm));
    }
}

/// The `.version` a kernel for `sm` using `m` declares.
fn version_for(sm: Target, req: Requirement) -> PtxVersion {
    target_min(sm).max(req.ptx)
}

/// Register naming: `%w<bits>_<n>`, `%p<n>`, address `%rd0`.
#[derive(Default)]
struct Registers {
    per_instruction: BTreeMap<usize, usize>,
    max: BTreeMap<usize, usize>,
}

impl Registers {
    fn start(&mut self) {
        self.per_instruction.clear();
    }

    fn next(&mut self, ty: PtxType) -> String {
        let bits = ty.carrier_bits();
        let n = self.per_instruction.entry(bits).or_default();
        let name = if ty == PtxType::Pred {
            format!("%p{n}")
        } else {
            format!("%w{bits}_{n}")
        };
        *n += 1;
        let max = self.max.entry(bits).or_default();
        *max = (*max).max(*n);
        name
    }

    fn declarations(&self) -> String {
        let mut out = String::from("\t.reg .b64 %rd<1>;\n");
        for (bits, count) in &self.max {
            if *bits == 1 {
                out.push_str(&format!("\t.reg .pred %p<{count}>;\n"));
            } else {
                out.push_str(&format!("\t.reg .b{bits} %w{bits}_<{count}>;\n"));
            }
        }
        out
    }
}

/// One instruction of variant `m` with fresh registers of its operand widths.
fn instruction(m: &Modifiers, regs: &mut Registers) -> String {
    instruction_with(m, regs, None)
}

/// What to put in one operand instead of registers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Substitute {
    /// An immediate of the operand's type.
    Immediate,
    /// The sink `_`.
    Sink,
}

/// An immediate of type `ty` as PTX writes it: `1` for integers and bit
/// types, `0f3F800000` (1.0) for `.f32`, `0d3FF0000000000000` for `.f64`.
fn immediate_text(ty: PtxType) -> &'static str {
    match ty {
        PtxType::F32 => "0f3F800000",
        PtxType::F64 => "0d3FF0000000000000",
        _ => "1",
    }
}

/// Like [`instruction`], with operand `i` replaced by `substitute`.
fn instruction_with(
    m: &Modifiers,
    regs: &mut Registers,
    substitute: Option<(usize, Substitute)>,
) -> String {
    regs.start();
    let rendered: Vec<(String, Join)> = m
        .operands()
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let text = match (op.kind, substitute) {
                (_, Some((j, Substitute::Sink))) if i == j => "_".to_string(),
                _ if op.sink_only => "_".to_string(),
                (_, Some((j, Substitute::Immediate))) if i == j => {
                    let lanes: Vec<&str> = (0..op.lanes).map(|_| immediate_text(op.ty)).collect();
                    if lanes.len() > 1 || op.own_braces {
                        format!("{{{}}}", lanes.join(", "))
                    } else {
                        lanes.concat()
                    }
                }
                (OperandKind::Address, _) => "[%rd0]".to_string(),
                (OperandKind::Special(names), _) => names[0].to_string(),
                (OperandKind::TensorCoords, _) => {
                    let coords: Vec<String> =
                        (0..op.lanes).map(|_| regs.next(PtxType::B32)).collect();
                    format!("[%rd0, {{{}}}]", coords.join(", "))
                }
                (OperandKind::Immediate { min, .. }, _) => min.to_string(),
                (OperandKind::Register | OperandKind::Predicate, _) => {
                    let lanes: Vec<String> = (0..op.lanes).map(|_| regs.next(op.ty)).collect();
                    registers_text(&lanes, op.piped, op.own_braces)
                }
            };
            (text, Join::of(op.braced, op.after_pipe))
        })
        .collect();
    format!("{} {};", m.opcode_text(), operand_list(rendered))
}

/// A module with one entry holding `lines`; returns the text and, per
/// instruction, its 1-based line number.
fn module(
    sm: Target,
    version: PtxVersion,
    lines: &[String],
    regs: &Registers,
) -> (String, Vec<usize>) {
    let mut text = format!(
        ".version {version}\n.target {sm}\n.address_size 64\n\n.visible .entry certify()\n{{\n{}",
        regs.declarations()
    );
    let mut line = text.lines().count();
    let mut numbers = Vec::with_capacity(lines.len());
    for l in lines {
        line += 1;
        numbers.push(line);
        text.push('\t');
        text.push_str(l);
        text.push('\n');
    }
    text.push_str("\tret;\n}\n");
    (text, numbers)
}

/// Assembles one file with every variant and returns the opcode texts of
/// the variants on lines ptxas rejected (panics if ptxas failed without
/// naming a line).
fn rejected_variants(sm: Target, version: PtxVersion, variants: &[Modifiers]) -> Vec<String> {
    in_parallel(variants.chunks(CHUNK).collect(), |chunk| {
        rejected_in_one_file(sm, version, chunk)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Instructions per assembled file. ptxas's time grows faster than the
/// length of one function (a 76,000-line file took minutes), so variants
/// are assembled in files of this many, several at a time.
const CHUNK: usize = 1500;

/// `f` over `items` on all cores, results in order.
fn in_parallel<T: Sync, R: Send>(items: Vec<T>, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers.min(items.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn rejected_in_one_file(sm: Target, version: PtxVersion, variants: &[Modifiers]) -> Vec<String> {
    let mut regs = Registers::default();
    let lines: Vec<String> = variants.iter().map(|m| instruction(m, &mut regs)).collect();
    let (text, numbers) = module(sm, version, &lines, &regs);
    match try_assemble(&text, &sm.to_string()) {
        Ok(()) => Vec::new(),
        Err(message) => {
            let bad = error_lines(&message);
            assert!(
                !bad.is_empty(),
                "ptxas failed on {sm} / {version} without naming a line:\n{message}"
            );
            let rejected: Vec<String> = numbers
                .iter()
                .zip(&lines)
                .filter(|(n, _)| bad.contains(n))
                .map(|(_, l)| l.clone())
                .collect();
            assert!(
                !rejected.is_empty(),
                "ptxas rejected lines outside the instructions on {sm} / {version}:\n{message}"
            );
            rejected
        }
    }
}

/// Every (form, variant) of the table.
fn all_variants() -> Vec<Modifiers> {
    FORMS.iter().flat_map(legal_variants).collect()
}

// ------------------------------------------------------------------ tests

/// The certification runs against the pinned release: the ptxas in use
/// reports `Cuda compilation tools, release 12.9, V12.9.86`.
#[test]
fn certification_uses_the_pinned_ptxas() {
    let ptxas = ptxas::require_pinned_version();
    let text = ptxas::version_text(&ptxas).expect("ptxas --version");
    let reported = ptxas::reported_version(&text);
    println!("certifying with {}: {reported:?}", ptxas.display());
    assert_eq!(reported, Some((ptxas::PTXAS_RELEASE, ptxas::PTXAS_VERSION)));
}

/// The version check itself rejects every other release (falsification twin
/// of `certification_uses_the_pinned_ptxas`; the texts are real
/// `ptxas --version` lines).
#[test]
fn the_version_check_rejects_other_releases() {
    let banner = |line: &str| {
        format!(
            "ptxas: NVIDIA (R) Ptx optimizing assembler\n\
             Copyright (c) 2005-2025 NVIDIA Corporation\n\
             Built on Tue_May_27_02:18:05_PDT_2025\n\
             {line}\n\
             Build cuda_12.9.r12.9/compiler.36037853_0\n"
        )
    };
    assert_eq!(
        ptxas::check_pinned(&banner("Cuda compilation tools, release 12.9, V12.9.86")),
        Ok(())
    );
    for (line, found) in [
        (
            "Cuda compilation tools, release 13.0, V13.0.88",
            "release 13.0, V13.0.88",
        ),
        (
            "Cuda compilation tools, release 12.9, V12.9.41",
            "release 12.9, V12.9.41",
        ),
        (
            "Cuda compilation tools, release 12.8, V12.8.93",
            "release 12.8, V12.8.93",
        ),
    ] {
        assert_eq!(ptxas::check_pinned(&banner(line)), Err(found.to_string()));
    }
    assert!(ptxas::check_pinned("ptxas: command not found").is_err());
    assert!(ptxas::check_pinned("").is_err());
}

#[test]
fn every_legal_variant_assembles_at_its_floor_and_at_sm_90() {
    let variants = all_variants();
    // (sm, version) -> variants
    let mut groups: BTreeMap<(Target, PtxVersion), Vec<Modifiers>> = BTreeMap::new();
    let mut per_form: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &variants {
        *per_form.entry(m.form.id).or_default() += 1;
        let (sm, req) = floor_target(m);
        groups
            .entry((sm, version_for(sm, req)))
            .or_default()
            .push(m.clone());
        // The default target, as a kernel without `arch` would emit it.
        let req90 = m.requirement(Target::SM_90);
        if req90.is_met_by(Target::SM_90) {
            groups
                .entry((Target::SM_90, version_for(Target::SM_90, req90)))
                .or_default()
                .push(m.clone());
        }
    }
    for form in FORMS {
        assert!(
            per_form.get(form.id).copied().unwrap_or(0) > 0,
            "form {} has no legal variant",
            form.id
        );
    }
    let mut failures = Vec::new();
    for ((sm, version), group) in &groups {
        for rejected in rejected_variants(*sm, *version, group) {
            failures.push(format!("{sm} / PTX {version}: {rejected}"));
        }
    }
    println!("variants per form: {per_form:#?}");
    println!(
        "{} variants in {} (target, version) groups: {:?}",
        variants.len(),
        groups.len(),
        groups
            .iter()
            .map(|((sm, v), g)| format!("{sm}/{v}: {}", g.len()))
            .collect::<Vec<_>>()
    );
    assert!(
        failures.is_empty(),
        "ptxas rejects {} variant(s) the table calls legal:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Assembles, at each variant's floor, one line per operand that could
/// take `substitute` (per `candidate`), and returns the disagreements with
/// the table (`expected` says whether the table allows it), plus the
/// number of lines tried.
fn substitution_disagreements(
    substitute: Substitute,
    variants: Vec<Modifiers>,
    candidate: impl Fn(&tile_kernel_lowering::ptx::ResolvedOperand) -> bool,
    expected: impl Fn(&tile_kernel_lowering::ptx::ResolvedOperand) -> bool,
) -> (Vec<String>, usize) {
    // (floor target, version) -> (variant, operand index, table's answer)
    type Try = (Modifiers, usize, bool);
    type Tries = Vec<Try>;
    let mut groups: BTreeMap<(Target, PtxVersion), Tries> = BTreeMap::new();
    for m in variants {
        let (sm, req) = floor_target(&m);
        for (i, op) in m.operands().iter().enumerate() {
            if candidate(op) {
                groups.entry((sm, version_for(sm, req))).or_default().push((
                    m.clone(),
                    i,
                    expected(op),
                ));
            }
        }
    }
    let work: Vec<(Target, PtxVersion, &[Try])> = groups
        .iter()
        .flat_map(|((sm, version), group)| {
            group.chunks(CHUNK).map(move |chunk| (*sm, *version, chunk))
        })
        .collect();
    let results = in_parallel(work, |(sm, version, group)| {
        let (sm, version) = (*sm, *version);
        let mut wrong = Vec::new();
        let mut regs = Registers::default();
        let lines: Vec<String> = group
            .iter()
            .map(|(m, i, _)| instruction_with(m, &mut regs, Some((*i, substitute))))
            .collect();
        let (text, numbers) = module(sm, version, &lines, &regs);
        let verdicts: Vec<bool> = match try_assemble(&text, &sm.to_string()) {
            Ok(()) => vec![true; lines.len()],
            Err(message) => {
                let bad = error_lines(&message);
                if bad.is_empty() {
                    // A fatal error (`Result discard mode is not allowed`)
                    // stops ptxas at the first one: assemble line by line.
                    lines
                        .iter()
                        .map(|line| {
                            let (one, _) = module(sm, version, std::slice::from_ref(line), &regs);
                            try_assemble(&one, &sm.to_string()).is_ok()
                        })
                        .collect()
                } else {
                    numbers.iter().map(|n| !bad.contains(n)).collect()
                }
            }
        };
        for ((line, accepted), (m, i, allowed)) in lines.iter().zip(verdicts).zip(*group) {
            if accepted != *allowed {
                wrong.push(format!(
                    "{} operand `{}`: the table says {}, ptxas {} `{line}`",
                    m.form.id,
                    m.operands()[*i].name,
                    if *allowed { "yes" } else { "no" },
                    if accepted { "accepts" } else { "rejects" },
                ));
            }
        }
        (wrong, lines.len())
    });
    let tried = results.iter().map(|(_, n)| n).sum();
    let wrong = results.into_iter().flat_map(|(w, _)| w).collect();
    (wrong, tried)
}

/// `imm` is exact: a source register operand accepts an immediate in ptxas
/// exactly where the table says so (every variant, every single-lane source).
#[test]
fn immediates_are_accepted_exactly_where_the_table_says() {
    let (wrong, tried) = substitution_disagreements(
        Substitute::Immediate,
        all_variants(),
        |op| op.access == Access::Read && op.kind == OperandKind::Register && !op.braced,
        |op| op.imm,
    );
    println!("{tried} immediate substitutions tried");
    assert!(tried > 0);
    assert!(
        wrong.is_empty(),
        "{} disagreement(s) about immediates:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `sink` is exact: a destination accepts `_` in ptxas exactly where the
/// table says so (each form's first variant and every one with another
/// type token: ptxas stops at the first rejected sink, so lines are
/// assembled one by one where it does).
#[test]
fn sinks_are_accepted_exactly_where_the_table_says() {
    let mut variants = Vec::new();
    for form in FORMS {
        let mut seen = BTreeSet::new();
        for m in legal_variants(form) {
            let types: Vec<String> = m.operands().iter().map(|o| o.ty.to_string()).collect();
            if seen.insert(types) {
                variants.push(m);
            }
        }
    }
    let (wrong, tried) = substitution_disagreements(
        Substitute::Sink,
        variants,
        |op| {
            op.access == Access::Write
                && matches!(op.kind, OperandKind::Register | OperandKind::Predicate)
                && !op.braced
        },
        |op| op.sink,
    );
    println!("{tried} sink substitutions tried");
    assert!(tried > 0);
    // ptxas 12.9 takes `_` for the destination of the fp8, fp6, fp4 and
    // ue8m0 pair conversions, which the ISA's syntax for them does not offer: the table follows the ISA
    // (a sink it allows, ptxas must accept; the reverse is tolerated here).
    const TOLERATED: &[&str] = &[
        "cvt.fp8-pair-from-f32",
        "cvt.fp8-pair-from-f16x2",
        "cvt.f16x2-from-fp8-pair",
        "cvt.fp6-fp4-pair-from-f32",
        "cvt.f16x2-from-fp6-fp4-pair",
        "cvt.ue8m0x2-from-f32",
        "cvt.ue8m0x2-from-bf16x2",
        "cvt.bf16x2-from-ue8m0x2",
    ];
    let (tolerated, wrong): (Vec<String>, Vec<String>) = wrong.into_iter().partition(|w| {
        w.contains("the table says no, ptxas accepts")
            && TOLERATED.iter().any(|id| w.starts_with(&format!("{id} ")))
    });
    println!("tolerated: {tolerated:#?}");
    assert!(
        wrong.is_empty(),
        "{} disagreement(s) about sinks:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every special register a form reads assembles, in every variant, at
/// the variant's floor (the table's other tests render only the first).
#[test]
fn every_special_register_assembles() {
    let mut lines_by_target: BTreeMap<(Target, PtxVersion), Vec<String>> = BTreeMap::new();
    let mut count = 0;
    for m in all_variants() {
        let operands = m.operands();
        let Some(index) = operands
            .iter()
            .position(|o| matches!(o.kind, OperandKind::Special(_)))
        else {
            continue;
        };
        let OperandKind::Special(names) = operands[index].kind else {
            unreachable!()
        };
        let (sm, req) = floor_target(&m);
        let mut regs = Registers::default();
        let line = instruction(&m, &mut regs);
        for name in names {
            count += 1;
            lines_by_target
                .entry((sm, version_for(sm, req)))
                .or_default()
                .push(line.replacen(names[0], name, 1));
        }
    }
    assert!(count > 0);
    for ((sm, version), lines) in &lines_by_target {
        let mut regs = Registers::default();
        // Destinations of 32 and 64 bits: declare both widths.
        regs.next(PtxType::B32);
        regs.next(PtxType::B64);
        let (text, _) = module(*sm, *version, lines, &regs);
        assert_eq!(try_assemble(&text, &sm.to_string()), Ok(()), "{text}");
    }
    println!("{count} special-register reads assembled");
}

#[test]
fn honesty_a_bogus_instruction_fails_the_gate() {
    let form = FORMS
        .iter()
        .find(|f| f.id == "cvt.half-pair-from-f32")
        .unwrap();
    let mut variants = legal_variants(form);
    let mut regs = Registers::default();
    let mut lines: Vec<String> = variants.iter().map(|m| instruction(m, &mut regs)).collect();
    let (good, _) = module(Target::SM_90, PtxVersion::new(8, 1), &lines, &regs);
    assert_eq!(try_assemble(&good, "sm_90"), Ok(()));
    // A misspelt mnemonic, and an illegal spelling of a real one.
    lines.push("cvt.rn.f16x2.f33 %w32_0, %w32_1, %w32_2;".to_string());
    let (bad, numbers) = module(Target::SM_90, PtxVersion::new(8, 1), &lines, &regs);
    let err = try_assemble(&bad, "sm_90").expect_err("ptxas must reject .f33");
    assert_eq!(
        error_lines(&err),
        BTreeSet::from([*numbers.last().unwrap()]),
        "{err}"
    );
    // The gate's own machinery reports the offending variant.
    variants.truncate(1);
    let cvt_f16_f32 = FORMS.iter().find(|f| f.id == "cvt.scalar").unwrap();
    let mut no_rounding = legal_variants(cvt_f16_f32)
        .into_iter()
        .find(|m| m.opcode_text() == "cvt.rn.f16.f32")
        .unwrap();
    no_rounding.tokens[0] = None; // `cvt.f16.f32`: the rule would reject it
    assert!(no_rounding.check().is_err());
    variants.push(no_rounding);
    assert_eq!(
        rejected_variants(Target::SM_90, PtxVersion::new(8, 1), &variants),
        vec!["cvt.f16.f32 %w16_0, %w32_0;".to_string()]
    );
}

/// Floors are real: one PTX ISA step below the `.version` floor (where that
/// floor is above the target's own minimum), ptxas rejects *every* such
/// variant -- checked at the floor target and at the default target sm_90.
#[test]
fn ptx_version_floors_are_exact() {
    let mut groups: BTreeMap<(Target, PtxVersion), Vec<Modifiers>> = BTreeMap::new();
    for m in all_variants() {
        let (sm, req) = floor_target(&m);
        if req.ptx > target_min(sm) {
            groups.entry((sm, req.ptx)).or_default().push(m.clone());
        }
        // The default target too: e.g. satfinite f16x2 needs 8.1 on sm_90 (7.8).
        let req = m.requirement(Target::SM_90);
        if sm != Target::SM_90
            && req.is_met_by(Target::SM_90)
            && req.ptx > target_min(Target::SM_90)
        {
            groups.entry((Target::SM_90, req.ptx)).or_default().push(m);
        }
    }
    let mut checked = 0;
    let mut problems = Vec::new();
    for ((sm, floor), group) in &groups {
        // At the floor every variant assembles (also covered above) ...
        for line in rejected_variants(*sm, *floor, group) {
            problems.push(format!("`{line}` fails at its floor {sm} / PTX {floor}"));
        }
        // ... and one ISA step lower every single one is rejected.
        let below = previous_version(*floor);
        let rejected: BTreeSet<String> = rejected_variants(*sm, below, group).into_iter().collect();
        let mut regs = Registers::default();
        for m in group {
            checked += 1;
            let line = instruction(m, &mut regs);
            if !rejected.contains(&line) {
                problems.push(format!(
                    "{}: `{line}` assembles at {sm} with PTX {below}, below its recorded floor {floor}",
                    m.form.id
                ));
            }
        }
    }
    println!(
        "{checked} variants checked one PTX ISA step below their floor, in groups {:?}",
        groups
            .iter()
            .map(|((sm, v), g)| format!("{sm}/{v}: {}", g.len()))
            .collect::<Vec<_>>()
    );
    assert!(groups.len() >= 8, "too few floor groups: {}", groups.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Variants whose ISA arch floor is stricter than ptxas 12.9: the table keeps
/// the ISA's floor (ptxas assembles `cvt.ftz.f32.bf16` for sm_80 / PTX 7.1,
/// the ISA and LLVM say sm_90 / PTX 7.8).
fn isa_floor_above_ptxas(m: &Modifiers) -> bool {
    m.opcode_text() == "cvt.ftz.f32.bf16"
}

#[test]
fn isa_floor_exception_is_still_needed() {
    let m = legal_variants(FORMS.iter().find(|f| f.id == "cvt.scalar").unwrap())
        .into_iter()
        .find(|m| m.opcode_text() == "cvt.ftz.f32.bf16")
        .unwrap();
    assert_eq!(m.requirement(Target::sm(80)), Requirement::new(90, 7, 8));
    let mut regs = Registers::default();
    let line = instruction(&m, &mut regs);
    let (text, _) = module(Target::sm(80), PtxVersion::new(7, 1), &[line], &regs);
    assert_eq!(try_assemble(&text, "sm_80"), Ok(()));
}

/// Floors are real: on the next lower target (with a `.version` that both
/// accept), ptxas rejects every variant whose arch floor is above sm_70.
#[test]
fn arch_floors_are_exact() {
    let mut groups: BTreeMap<(Target, PtxVersion), Vec<Modifiers>> = BTreeMap::new();
    for m in all_variants() {
        let (sm, _) = floor_target(&m);
        // One target below: the same architecture without `a` for an
        // arch-specific variant, else the previous real target.
        let lower = if sm.arch_specific {
            Target::sm(sm.sm)
        } else if sm.sm <= TARGETS[0] {
            continue;
        } else {
            Target::sm(TARGETS[TARGETS.iter().position(|t| *t == sm.sm).unwrap() - 1])
        };
        let req = m.requirement(lower);
        groups
            .entry((lower, version_for(lower, req)))
            .or_default()
            .push(m);
    }
    let mut checked = 0;
    let mut accepted = Vec::new();
    for ((lower, version), group) in &groups {
        let rejected: BTreeSet<String> = rejected_variants(*lower, *version, group)
            .into_iter()
            .collect();
        let mut regs = Registers::default();
        for m in group {
            checked += 1;
            let line = instruction(m, &mut regs);
            if !rejected.contains(&line) && !isa_floor_above_ptxas(m) {
                accepted.push(format!(
                    "{}: `{}` assembles on {lower} (PTX {version}), below its recorded floor {}",
                    m.form.id,
                    m.opcode_text(),
                    m.requirement(*lower).floor_target()
                ));
            }
        }
    }
    println!(
        "{checked} variants checked one target below their arch floor, in {} files: {:?}",
        groups.len(),
        groups
            .iter()
            .map(|((sm, v), g)| format!("{sm}/{v}: {}", g.len()))
            .collect::<Vec<_>>()
    );
    assert!(checked > 0);
    assert!(
        accepted.is_empty(),
        "{} variant(s) assemble below their floor:\n{}",
        accepted.len(),
        accepted.join("\n")
    );
}

/// Every token combination a form's slots allow but its rule rejects.
fn rule_rejected(form: &'static InstructionForm) -> Vec<Modifiers> {
    slot_combinations(form)
        .into_iter()
        .filter(|m| m.check().is_err())
        .collect()
}

/// Why a combination a rule rejects may still assemble with ptxas 12.9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tolerated {
    /// The ISA forbids it (the `cvt` rounding rules, ISA 9.7.9.21); ptxas
    /// 12.9 is lenient (the bf16 spellings `tolerated` lists).
    IsaForbids,
    /// Deliberately excluded although ptxas 12.9 and the ISA accept it:
    /// newer ptxas (13.x) rejects conversions between `.bf16`
    /// and 8-bit integers, and a driver JIT that new would fail at load time.
    NewerToolchainRejects,
}

fn tolerated(m: &Modifiers) -> Option<Tolerated> {
    if m.form.id != "cvt.scalar" {
        return None;
    }
    let (d, a) = (m.get(Slot::Dtype)?, m.get(Slot::Atype)?);
    let rnd = m.get(Slot::Rnd);
    let others = [Slot::Relu, Slot::Satfinite, Slot::Sat]
        .iter()
        .any(|s| m.has(*s));
    if others {
        return None;
    }
    let float_rnd = rnd.is_some_and(|r| ["rn", "rz", "rm", "rp"].contains(&r));
    let int_rnd = rnd.is_some_and(|r| ["rni", "rzi", "rmi", "rpi"].contains(&r));
    match (d, a) {
        ("bf16", "f16") | ("f16", "bf16") if rnd.is_none() && !m.has(Slot::Ftz) => {
            Some(Tolerated::IsaForbids)
        }
        ("f32", "bf16") if float_rnd => Some(Tolerated::IsaForbids),
        ("f64", "bf16") if float_rnd && !m.has(Slot::Ftz) => Some(Tolerated::IsaForbids),
        ("u8" | "s8", "bf16") if int_rnd && !m.has(Slot::Ftz) => {
            Some(Tolerated::NewerToolchainRejects)
        }
        ("bf16", "u8" | "s8") if float_rnd && !m.has(Slot::Ftz) => {
            Some(Tolerated::NewerToolchainRejects)
        }
        _ => None,
    }
}

/// The rules are exact in the other direction too: every slot combination
/// a rule rejects, ptxas rejects (on sm_90 with the newest ISA), except the
/// exactly listed tolerated spellings -- which ptxas must still accept, so
/// the list cannot go stale.
#[test]
fn every_rule_rejected_combination_is_rejected_by_ptxas() {
    let mut total = 0;
    let mut accepted = Vec::new();
    let mut tolerated_accepted: BTreeMap<Tolerated, Vec<String>> = BTreeMap::new();
    let mut tolerated_rejected = Vec::new();
    let mut per_form = BTreeMap::new();
    for form in FORMS {
        let rejected = rule_rejected(form);
        per_form.insert(form.id, rejected.len());
        if rejected.is_empty() {
            continue;
        }
        total += rejected.len();
        let ptxas_rejected: BTreeSet<String> =
            rejected_variants(Target::SM_90, PtxVersion::new(8, 8), &rejected)
                .into_iter()
                .collect();
        let mut regs = Registers::default();
        for m in &rejected {
            let line = instruction(m, &mut regs);
            let by_ptxas = ptxas_rejected.contains(&line);
            match (tolerated(m), by_ptxas) {
                (None, true) => {}
                (None, false) => accepted.push(format!(
                    "{}: `{}` (rule: {})",
                    form.id,
                    line,
                    m.check().unwrap_err().message
                )),
                (Some(kind), false) => tolerated_accepted
                    .entry(kind)
                    .or_default()
                    .push(m.opcode_text()),
                (Some(_), true) => tolerated_rejected.push(m.opcode_text()),
            }
        }
    }
    println!("rule-rejected combinations per form ({total} in all): {per_form:#?}");
    println!("tolerated: {tolerated_accepted:#?}");
    assert!(
        accepted.is_empty(),
        "ptxas assembles {} combination(s) the table rejects:\n{}",
        accepted.len(),
        accepted.join("\n")
    );
    assert_eq!(
        tolerated_rejected,
        Vec::<String>::new(),
        "stale tolerance list"
    );
    assert_eq!(
        tolerated_accepted[&Tolerated::IsaForbids],
        [
            "cvt.bf16.f16",
            "cvt.f16.bf16",
            "cvt.rn.f32.bf16",
            "cvt.rn.f64.bf16",
            "cvt.rn.ftz.f32.bf16",
            "cvt.rz.f32.bf16",
            "cvt.rz.f64.bf16",
            "cvt.rz.ftz.f32.bf16",
            "cvt.rm.f32.bf16",
            "cvt.rm.f64.bf16",
            "cvt.rm.ftz.f32.bf16",
            "cvt.rp.f32.bf16",
            "cvt.rp.f64.bf16",
            "cvt.rp.ftz.f32.bf16",
        ]
    );
    assert_eq!(
        tolerated_accepted[&Tolerated::NewerToolchainRejects].len(),
        16
    );
    // 5184 plain + 15552 relu/satfinite grid = 20,736 cvt.scalar combinations.
    assert_eq!(per_form["cvt.scalar"] + 792, 20_736);
}

// ------------------------------------------------------------ dispatch

/// What `apply` can tell forms apart by, per operand: its kind (a tile, a
/// tensor, a `bool` tile, a literal or `sreg(..)` fits only one), the
/// register-axis extent (lane count), and the carrier width (a tile's dtype
/// has exactly one width).
type Shape = Vec<(&'static str, u8, usize)>;

/// What kind of kernel operand fits a slot: a tile register, a tensor
/// (address), a `bool` tile (predicate), a literal (immediate) or
/// `sreg(..)` (special register).
fn kind_name(kind: OperandKind) -> &'static str {
    match kind {
        OperandKind::Register => "reg",
        OperandKind::Address => "mem",
        OperandKind::Predicate => "pred",
        OperandKind::Immediate { .. } => "imm",
        OperandKind::TensorCoords => "tmap",
        OperandKind::Special(_) => "sreg",
    }
}

fn shape(m: &Modifiers) -> Shape {
    m.operands()
        .iter()
        .map(|o| (kind_name(o.kind), o.lanes, o.ty.carrier_bits()))
        .collect()
}

/// Pairs of forms of one mnemonic that accept the same token list with the
/// same operand shape (`key` picks what counts as the shape).
fn ambiguities_by<K: Ord + Clone + std::fmt::Debug>(
    forms: &'static [InstructionForm],
    key: impl Fn(&Modifiers) -> K,
) -> Vec<String> {
    let mut seen: BTreeMap<(String, K), &str> = BTreeMap::new();
    let mut out = Vec::new();
    for form in forms {
        for m in legal_variants(form) {
            let k = (m.opcode_text(), key(&m));
            if let Some(other) = seen.insert(k.clone(), form.id)
                && other != form.id
            {
                out.push(format!("`{}` {:?}: {other} and {}", k.0, k.1, form.id));
            }
        }
    }
    out
}

fn ambiguities(forms: &'static [InstructionForm]) -> Vec<String> {
    ambiguities_by(forms, shape)
}

#[test]
fn dispatch_is_unambiguous() {
    assert_eq!(ambiguities(FORMS), Vec::<String>::new());
}

/// By operand count and lane counts alone, only the split pack/unpack pairs
/// collide (`mov.b32 d, {a, b}` vs `mov.b32 {a, b}, d`: three 1-register
/// operands each); their first operand -- always a destination, so always a
/// tile -- has different widths, which the dtype check tells apart.
#[test]
fn kinds_and_lane_counts_alone_collide_only_for_split_pack_unpack() {
    // Kinds and lane counts, without carrier widths.
    let by_lanes = ambiguities_by(FORMS, |m| {
        m.operands()
            .iter()
            .map(|o| (kind_name(o.kind), o.lanes))
            .collect::<Vec<_>>()
    });
    assert_eq!(
        by_lanes,
        [
            "`mov.b16` [(\"reg\", 1), (\"reg\", 1), (\"reg\", 1)]: mov.pack2-split and mov.unpack2-split",
            "`mov.b32` [(\"reg\", 1), (\"reg\", 1), (\"reg\", 1)]: mov.pack2-split and mov.unpack2-split",
            "`mov.b64` [(\"reg\", 1), (\"reg\", 1), (\"reg\", 1)]: mov.pack2-split and mov.unpack2-split",
            "`mov.b32` [(\"reg\", 1), (\"reg\", 1), (\"reg\", 1), (\"reg\", 1), (\"reg\", 1)]: mov.pack4-split and mov.unpack4-split",
            "`mov.b64` [(\"reg\", 1), (\"reg\", 1), (\"reg\", 1), (\"reg\", 1), (\"reg\", 1)]: mov.pack4-split and mov.unpack4-split",
        ]
    );
    for (pack, unpack) in [
        ("mov.pack2-split", "mov.unpack2-split"),
        ("mov.pack4-split", "mov.unpack4-split"),
    ] {
        let p = legal_variants(FORMS.iter().find(|f| f.id == pack).unwrap());
        let u = legal_variants(FORMS.iter().find(|f| f.id == unpack).unwrap());
        for (p, u) in p.iter().zip(&u) {
            let (p, u) = (p.operands(), u.operands());
            assert_eq!(p[0].access, Access::Write);
            assert_eq!(u[0].access, Access::Write);
            assert_ne!(p[0].ty.carrier_bits(), u[0].ty.carrier_bits());
        }
    }
}

/// The ambiguity check catches a real ambiguity (falsification twin).
#[test]
fn dispatch_check_catches_a_duplicate_form() {
    static SLOTS: &[ModifierSlot] = &[ModifierSlot {
        name: Slot::Type,
        choices: &["b32", "u32"],
        required: true,
    }];
    static OPERANDS: &[OperandSlot] = &[
        OperandSlot {
            name: "d",
            access: Access::Write,
            kind: OperandKind::Register,
            ty: TypeRef::Slot(Slot::Type),
            lanes: Lanes::Fixed(1),
            braced: false,
            imm: false,
            sink: false,
            piped: false,
            after_pipe: false,
            own_braces: false,
            whole: false,
            mbarrier: false,
            whole_alignment: 0,
            descriptor: false,
            sink_only: false,
        },
        OperandSlot {
            name: "a",
            access: Access::Read,
            kind: OperandKind::Register,
            ty: TypeRef::Slot(Slot::Type),
            lanes: Lanes::Fixed(1),
            braced: false,
            imm: false,
            sink: false,
            piped: false,
            after_pipe: false,
            own_braces: false,
            whole: false,
            mbarrier: false,
            whole_alignment: 0,
            descriptor: false,
            sink_only: false,
        },
    ];
    static TWINS: &[InstructionForm] = &[
        InstructionForm {
            id: "mov.one",
            mnemonic: "mov",
            slots: SLOTS,
            operands: OPERANDS,
            rule: no_rule,
            requires: rules::baseline,
            packing: Packing::None,
            summary: "",
            effect: Effect::Pure,
            usable: Usability::Yes,
        },
        InstructionForm {
            id: "mov.two",
            mnemonic: "mov",
            slots: SLOTS,
            operands: OPERANDS,
            rule: no_rule,
            requires: rules::baseline,
            packing: Packing::None,
            summary: "",
            effect: Effect::Pure,
            usable: Usability::Yes,
        },
    ];
    assert_eq!(
        ambiguities(TWINS),
        vec![
            "`mov.b32` [(\"reg\", 1, 32), (\"reg\", 1, 32)]: mov.one and mov.two".to_string(),
            "`mov.u32` [(\"reg\", 1, 32), (\"reg\", 1, 32)]: mov.one and mov.two".to_string(),
        ]
    );
}

/// Every legal variant's canonical text resolves back to (at least) itself,
/// and every candidate `resolve` returns for it is a legal variant of a form
/// of the same mnemonic.
#[test]
fn canonical_spellings_round_trip_through_resolve() {
    let mut checked = 0;
    for m in all_variants() {
        let text = m.opcode_text();
        let candidates = resolve(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert!(
            candidates.contains(&m),
            "{text} does not resolve to {}",
            m.form.id
        );
        for c in &candidates {
            assert_eq!(c.opcode_text(), text);
            assert!(c.check().is_ok());
        }
        checked += 1;
    }
    assert_eq!(checked, all_variants().len());
}

/// Exact variant counts per form, transcribed from the PTX ISA's syntax of
/// each instruction (the oracle here is the ISA text, not the table: the
/// comments give the ISA's production); that ptxas accepts exactly these is
/// proven above by `every_legal_variant_assembles_at_its_floor_and_at_sm_90`
/// and `every_rule_rejected_combination_is_rejected_by_ptxas`. A change to
/// the table shows up here.
#[test]
fn variant_counts_per_form() {
    let counts: Vec<(&str, usize)> = FORMS
        .iter()
        .map(|f| (f.id, legal_variants(f).len()))
        .collect();
    println!("{counts:?}");
    let lookup = |id: &str| counts.iter().find(|(i, _)| *i == id).unwrap().1;
    // Digest §3.2: 780 plain + 12 relu/satfinite scalar lines.
    assert_eq!(lookup("cvt.scalar"), 792);
    // {rn, rz} x relu? x satfinite? x {f16x2, bf16x2}.
    assert_eq!(lookup("cvt.half-pair-from-f32"), 16);
    // cvt.rn.satfinite{.relu}.{e4m3x2, e5m2x2}.f32
    assert_eq!(lookup("cvt.fp8-pair-from-f32"), 4);
    // cvt.rn.satfinite{.relu}.{e4m3x2, e5m2x2}.f16x2
    assert_eq!(lookup("cvt.fp8-pair-from-f16x2"), 4);
    // cvt.rn{.relu}.f16x2.{e4m3x2, e5m2x2}
    assert_eq!(lookup("cvt.f16x2-from-fp8-pair"), 4);
    // mov.type: .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64
    // (the ISA's .pred is not offered: no predicate tiles).
    assert_eq!(lookup("mov"), 11);
    // Packing: two lanes into .b16 (8-bit), .b32 (16-bit), .b64 (32-bit) ...
    assert_eq!(lookup("mov.pack2"), 3);
    // ... four lanes into .b32 (8-bit), .b64 (16-bit).
    assert_eq!(lookup("mov.unpack4-split"), 2);
    // Sanity: requirement floors are within what the table's targets reach.
    for m in all_variants() {
        let (sm, _) = floor_target(&m);
        assert!(
            sm.arch_specific || TARGETS.contains(&sm.sm),
            "{}",
            m.opcode_text()
        );
    }
}

// ---------------------------------------------------------------- effects

/// Forms whose address only names memory, never accessing it: a policy
/// covering the cache lines around an address.
const NAMES_MEMORY_ONLY: &[&str] = &["createpolicy.range"];

/// Where `form`'s effect disagrees with its operands or its usability.
fn effect_violations(form: &InstructionForm) -> Vec<String> {
    let memory = |access: Access| {
        form.operands.iter().any(|o| {
            o.access == access && matches!(o.kind, OperandKind::Address | OperandKind::TensorCoords)
        })
    };
    let (reads, writes) = (memory(Access::Read), memory(Access::Write));
    let destinations = form.operands.iter().any(|o| {
        o.access == Access::Write
            && matches!(o.kind, OperandKind::Register | OperandKind::Predicate)
    });
    let mut out = Vec::new();
    let mut expect = |holds: bool, what: &str| {
        if !holds {
            out.push(format!("{} ({:?}): {what}", form.id, form.effect));
        }
    };
    match form.effect {
        Effect::Pure => {
            expect(!writes, "a pure form writes no memory");
            expect(
                !reads || NAMES_MEMORY_ONLY.contains(&form.id),
                "a pure form reads no memory",
            );
        }
        Effect::Load { .. } => {
            expect(reads && !writes, "a load reads memory and writes none");
            expect(destinations, "a load has register destinations");
        }
        Effect::Store => {
            expect(writes && !reads, "a store writes memory and reads none");
            expect(!destinations, "a store has no register destination");
        }
        Effect::Atomic { returns_old } => {
            expect(writes, "an atomic writes memory");
            expect(
                destinations == returns_old,
                "an atomic has a destination exactly when it returns the old value",
            );
        }
        Effect::Prefetch => {
            expect(reads && !writes, "a prefetch names memory and writes none");
            expect(!destinations, "a prefetch has no register destination");
        }
        Effect::Collective => {}
        Effect::Barrier { .. } | Effect::AsyncGroup => {
            expect(
                !reads && !writes,
                "a barrier or group operation names no memory",
            );
        }
        Effect::Fence => expect(!writes, "a fence writes no memory"),
        Effect::AsyncCopy => expect(reads && writes, "an async copy reads and writes memory"),
        Effect::Mbarrier => expect(reads || writes, "an mbarrier operation names its mbarrier"),
        Effect::WarpgroupMma => {
            expect(
                !reads && !writes,
                "a wgmma reads its matrices through descriptors",
            );
            expect(
                form.operands.iter().any(|o| o.descriptor),
                "a wgmma has a matrix descriptor",
            );
            expect(destinations, "a wgmma writes its accumulator");
        }
        Effect::RegisterCount => {
            expect(
                !reads && !writes && !destinations,
                "setmaxnreg names no memory and writes no register",
            );
        }
    }
    // What kernels may use with a scope follows the effect.
    match form.usable {
        Usability::NeedsScope => expect(
            form.effect == Effect::Collective,
            "a form usable with a warp scope is a collective",
        ),
        Usability::CtaBarrier => expect(
            form.effect == (Effect::Barrier { waits: true }),
            "a form usable with a CTA scope is a waiting barrier",
        ),
        Usability::Warpgroup => expect(
            matches!(
                form.effect,
                Effect::WarpgroupMma | Effect::Fence | Effect::AsyncGroup | Effect::RegisterCount
            ) && (form.mnemonic.starts_with("wgmma.") || form.mnemonic == "setmaxnreg"),
            "a form usable with a warpgroup scope is a wgmma operation or setmaxnreg",
        ),
        Usability::ClusterBarrier => expect(
            matches!(form.effect, Effect::Barrier { .. })
                && form.mnemonic == "barrier"
                && form.operands.is_empty(),
            "a form usable with a cluster scope is a half of the cluster barrier",
        ),
        Usability::Yes => expect(
            !matches!(
                form.effect,
                Effect::Collective | Effect::Barrier { .. } | Effect::WarpgroupMma
            ),
            "a collective or barrier needs a scope",
        ),
        Usability::NotYet(_) => {}
    }
    out
}

/// Every form's effect agrees with its operands: a form that writes memory
/// is a store, an atomic, an asynchronous copy, an mbarrier operation or a
/// collective; a load reads memory into registers; a store has no
/// destination; an atomic has one exactly when it returns the old value; a
/// barrier names no memory; and the forms usable with a scope are exactly
/// the collectives (warp) and waiting barriers (CTA).
#[test]
fn every_form_has_an_effect_consistent_with_its_operands() {
    let violations: Vec<String> = FORMS.iter().flat_map(effect_violations).collect();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The effect check can fail: a store called a load, an atomic without
/// its returned value, a collective usable without a scope.
#[test]
fn the_effect_check_catches_a_wrong_effect() {
    let form = |id: &str| *FORMS.iter().find(|f| f.id == id).expect("form id");
    let wrong = [
        InstructionForm {
            effect: Effect::Load {
                non_coherent: false,
            },
            ..form("st")
        },
        InstructionForm {
            effect: Effect::Atomic { returns_old: false },
            ..form("atom")
        },
        InstructionForm {
            usable: Usability::Yes,
            ..form("shfl.sync")
        },
        InstructionForm {
            effect: Effect::Pure,
            ..form("ld")
        },
    ];
    for form in &wrong {
        assert!(!effect_violations(form).is_empty(), "{}", form.id);
    }
}

// ------------------------------------------------------------ variant ids

/// The IR names a variant by its id: every legal variant's id names
/// exactly that variant, and ids that name none are refused.
#[test]
fn every_variant_id_names_its_variant() {
    for m in all_variants() {
        let id = m.id();
        assert_eq!(id.modifiers().as_ref(), Some(&m), "{}", m.opcode_text());
    }
    let m = &resolve("ld.global.u32").expect("a load")[0];
    let mut id = m.id();
    id.form = u16::MAX;
    assert!(id.modifiers().is_none(), "a form out of range");
    let mut id = m.id();
    id.tokens.pop();
    assert!(id.modifiers().is_none(), "a slot missing");
    let mut id = m.id();
    *id.tokens.last_mut().expect("a type slot") = Some(u8::MAX);
    assert!(id.modifiers().is_none(), "a token out of range");
    let mut id = m.id();
    *id.tokens.last_mut().expect("a type slot") = None;
    assert!(id.modifiers().is_none(), "a required slot left out");
}
