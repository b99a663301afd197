//! The GPU differential conformance harness: the ground truth for the CPU
//! interpreter (`tile-kernel-interp`), which must be bit-exact with the
//! NVIDIA H200 (sm_90).
//!
//! For every legal variant of every usable form of the PTX table (plus one
//! kernel per immediate value and per special register a variant can
//! read), a kernel is generated (`tile_kernel_testkit::form_kernels`) that runs
//! the variant once per thread on per-thread operands: every register
//! source is loaded from row `i` of an input tensor, every destination is
//! stored to row `i` of an output tensor, every address operand is row `i`
//! of a tensor of its own (`grid = ceil_div(N, 256)`, guard `i < N`). The
//! same program runs on the GPU and on the interpreter with the same
//! inputs, and every output bit is compared.
//!
//! - `every_form_matches_the_gpu_bit_for_bit` (GPU, ignored by default):
//!   everything above. Register sources sweep their type's special values
//!   (signed zeros, subnormal and normal extremes, infinities, quiet and
//!   signalling NaNs with payloads, rounding ties of every narrower float
//!   format and integer boundaries; for integers 0, 1, -1, extremes, powers
//!   of two and their neighbours; predicates both ways), as a cartesian
//!   product where it is small, then per-value coverage, then random
//!   combinations and random bits. Memory forms round-trip values (`ldu`,
//!   whose address must be the same across a warp, reads one row all
//!   threads share); atomics run with one address per thread (`atom`'s old
//!   values and the memory both compared). The variants of the shared state
//!   space (`ld.shared`, `st.shared`, `atom.shared`, `red.shared`, also
//!   `.shared::cta`) address a buffer of the CTA that the kernel stages
//!   from and to the memory tensor across `bar.sync` barriers, each row
//!   copied by another thread than the one running the form
//!   (`form_kernels`' module doc).
//! - `same_address_atomics_match_the_gpu` (GPU, ignored): every thread
//!   updates one element with the order-independent atomics (`add` of
//!   integers, and of floats on values whose sums are exact; `inc`/`dec`
//!   with one operand for all threads; `min`, `max` without NaNs or -0;
//!   `and`, `or`, `xor`); the final memory is compared. In shared memory
//!   the element is one per CTA (initialised from the row of the CTA's
//!   first thread; every thread stores the CTA's final value to its row).
//! - `every_form_runs_on_the_interpreter` (CPU only, runs everywhere): the
//!   same kernels with fewer rows (and a sample of the memory variants: the
//!   first of each list of operand types, in shared memory and elsewhere,
//!   and every 97th) on the interpreter only, twice, with different
//!   sentinels in the outputs: no variant may fail to prepare or fault, and
//!   every output byte must be written and the same in both runs. It catches harness bugs and
//!   interpreter gaps without a GPU.
//! - `warp_collectives_match_the_gpu` (GPU, ignored): every legal variant
//!   of the warp collectives (`shfl.sync`, `vote.sync`, `match.sync`,
//!   `redux.sync`, `activemask`, `elect.sync`, `bar.warp.sync`), which
//!   kernels cannot use until scopes exist: each kernel is compiled with
//!   placeholder statements and patched ([`warp`]); blocks of 64 threads,
//!   whole warps, inputs chosen per warp (shuffle modes, offsets, clamps
//!   and segment widths; predicates; small value sets; integer extremes;
//!   membermasks of the whole warp, halves, eighths, even/odd lanes,
//!   single lanes and random splits).
//! - `warp_collectives_run_on_the_interpreter` (CPU only): the same
//!   kernels and inputs on the interpreter (twice, as the smoke test
//!   does), every PTX module assembled by the pinned ptxas, results worked
//!   out by hand, and divergent collectives that must fault.
//! - `cta_barriers_match_the_gpu` (GPU, ignored) and
//!   `cta_barriers_run_on_the_interpreter` (CPU only): every legal variant
//!   of the CTA barriers (`bar.sync`, `barrier.sync`, `bar.red.popc`,
//!   `bar.red.and/or.pred` and their `barrier.` spellings) with every
//!   thread of whole CTAs taking part, predicates set in patterns per CTA,
//!   and a value crossing the barrier through shared memory ([`cta`]); on
//!   the interpreter also checked against results worked out by hand.
//!
//! What is not compared bit for bit, and why:
//!
//! - Special registers whose values depend on the machine or the moment
//!   (`%clock`, `%clock64`, `%globaltimer`, `%smid`, `%nsmid`, `%warpid`,
//!   `%nwarpid`, `%gridid`, `%total_smem_size`, `%dynamic_smem_size`) are
//!   checked for plausibility on both sides ([`plausible`]).
//! - `createpolicy` results are an opaque hardware encoding: each side must
//!   give equal outputs for equal inputs.
//! - `.approx` forms and `div.full.f32` must be within the error bound of
//!   the form ([`APPROX_BOUNDS`]: the PTX ISA's, or what the H200 measured
//!   where the ISA has none) plus one ULP (the interpreter's own rounding);
//!   the largest ULP distance seen is printed.
//! - In the same-address test, the old values `atom` returns depend on the
//!   order the threads ran in and are not compared.
//!
//! Inputs the GPU must get right: a `.L2::cache_hint` form's `policy` is
//! made in the kernel by `createpolicy` (not loaded: the hardware expects
//! a real policy); `createpolicy`'s `fraction` is in (0, 1]. Outputs start
//! as different sentinel bytes on the two sides, so a byte only one side
//! writes is a mismatch.
//!
//! How kernels reach the GPU: about 71,500 kernels, each JIT-compiled by
//! the driver (about 3 ms each, mostly per entry), so by default batches
//! of 256 kernels are joined into one module, the batches are compiled on
//! all host threads in parallel (`cuModuleLoadData` through cudarc, on the
//! context of `Device::cuda(0)`) while earlier batches run, and each batch
//! runs from one device arena (one upload, one launch a kernel, one
//! download). The runtime's own path (`Kernel::new` on a spec built from
//! the checker's program, typed tensors, checked launches) is
//! `TILE_KERNEL_DIFF_LAUNCH=runtime`, and names the driver's complaint
//! about any kernel it rejects in either mode.
//!
//! Environment: `TILE_KERNEL_DIFF_OUT` names a file for the machine-readable
//! summary (JSON; the same-address test writes `<name>.same_address.json`,
//! the smoke test `<name>.interpreter.json`, the warp tests
//! `<name>.warp.json` and `<name>.warp_interpreter.json`);
//! `TILE_KERNEL_DIFF_WARP_ROWS` sets the rows of a warp collective
//! (default 32768, rounded up to whole blocks);
//! `TILE_KERNEL_DIFF_CTA_ROWS` those of a CTA barrier (default 16384,
//! rounded up to whole blocks; the barrier tests write `<name>.cta.json`
//! and `<name>.cta_interpreter.json`); `TILE_KERNEL_DIFF_FILTER`
//! keeps only variants whose opcode contains one of its comma-separated
//! words; `TILE_KERNEL_DIFF_ROWS` sets the rows of a non-memory variant
//! (default 4096); `TILE_KERNEL_DIFF_BATCH` the kernels per GPU module
//! (default 256); `TILE_KERNEL_DIFF_LAUNCH=runtime` launches every kernel
//! through `tile_kernel::runtime::Kernel` (one module per kernel) instead
//! of loading batches of kernels as one module through cudarc;
//! `TILE_KERNEL_DIFF_MEMORY_STRIDE=K` runs every K-th memory variant only
//! (the summary counts what ran).
//! `TILE_KERNEL_DIFF_SMOKE_ALL=1` makes the smoke test run every memory
//! variant too; `TILE_KERNEL_DIFF_DUMP=<dir>` writes every batch's joined
//! PTX module there (`batch<first case>.ptx`), for JIT problems.
//!
//! Running the tiers: `cargo test --test differential` runs the CPU tests;
//! `cargo test --test differential -- --include-ignored` on a machine with
//! the H200 also runs the GPU tests (`scripts/gpu-differential.sh` runs
//! them with the environment above).
//!
//! Files, by job: `config.rs` (the tiers and the environment),
//! `enumerate.rs` (variants and cases), `values.rs` (the value sweeps),
//! `build.rs` (a case's kernel, inputs and interpreter run), `compare.rs`
//! (bit-exact and bounded comparisons), `gpu.rs` (batched modules and
//! launches), `run.rs` (driving a run; the [`Report`]), `warp.rs` and
//! `cta.rs` (the two families with kernels of their own); the tests are
//! here.

mod build;
mod compare;
mod config;
mod cta;
mod enumerate;
mod gpu;
mod run;
mod values;
mod warp;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tile_kernel_interp::{Arg, Prepared, RunOptions};
use tile_kernel_lowering::program::{ParamKind, Program};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{
    Effect, InstructionForm, Modifiers, OperandKind, PtxType, Space, Usability,
};
use tile_kernel_lowering::{Target, compile};
use tile_kernel_testkit::Rng;
use tile_kernel_testkit::form_kernels::{self, Choices, Role, Shape, TensorRole, generate};
use tile_kernel_testkit::ptxas;

// The harness modules share one namespace, as when they were one file.
use build::*;
use compare::*;
use config::*;
use enumerate::*;
use run::*;
use values::*;

/// Threads a block.
const BLOCK: u32 = 256;

/// The byte every output starts as on the GPU, and on the interpreter: an
/// output byte nobody writes shows up as a mismatch.
const GPU_SENTINEL: u8 = 0xA5;
const INTERP_SENTINEL: u8 = 0x5A;

/// The GPU test of a family of forms that `enumerate` lists (warp
/// collectives, CTA barriers): every case on the GPU and on the
/// interpreter, the report written with the suffix `file`
/// ([`Report::write`]), and the test failed on any difference or on no
/// case at all (unless filtered).
fn family_matches_the_gpu(
    test: &'static str,
    file: &str,
    enumerate: fn(&Config) -> (usize, Vec<Case>, Skips),
    none: &str,
) {
    let gpu = gpu::Gpu::open();
    let config = Config::gpu();
    let report = run_cases(test, &config, enumerate(&config), Some(gpu));
    report.write(file);
    assert!(report.cases > 0 || !config.filter.is_empty(), "{none}");
    report.assert_matches_the_gpu();
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn every_form_matches_the_gpu_bit_for_bit() {
    let gpu = gpu::Gpu::open();
    let report = run_all(
        "every_form_matches_the_gpu_bit_for_bit",
        &Config::gpu(),
        false,
        Some(gpu),
    );
    report.write("");
    report.assert_matches_the_gpu();
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn same_address_atomics_match_the_gpu() {
    let gpu = gpu::Gpu::open();
    let report = run_all(
        "same_address_atomics_match_the_gpu",
        &Config::gpu(),
        true,
        Some(gpu),
    );
    report.write("same_address");
    assert!(report.cases > 0, "no same-address atomics");
    report.assert_matches_the_gpu();
}

#[test]
fn every_form_runs_on_the_interpreter() {
    let config = Config::smoke();
    let distinct = run_all("every_form_runs_on_the_interpreter", &config, false, None);
    distinct.write("interpreter");
    let shared = run_all(
        "every_form_runs_on_the_interpreter (one address)",
        &config,
        true,
        None,
    );
    if config.filter.is_empty() {
        assert!(distinct.cases > 0 && shared.cases > 0);
    }
    assert!(
        !distinct.failed() && !shared.failed(),
        "{} case(s) fail on the interpreter (details above)",
        distinct.bad.len() + shared.bad.len()
    );
}

/// The value sweeps themselves: exact encodings, ties and ULP distances.
#[test]
fn sweep_values_are_what_they_claim() {
    // 1 + half an f16 ulp (2^-11) is an f32 tie for f16.
    let tie = Fmt::F32.exact(false, (1 << 11) | 1, -11).unwrap();
    assert_eq!(f32::from_bits(tie as u32), 1.0 + 2f32.powi(-11));
    // Subnormals and limits.
    assert_eq!(Fmt::F32.exact(false, 1, -149), Some(1));
    assert_eq!(Fmt::F32.exact(false, 1, -150), None);
    assert_eq!(Fmt::F16.exact(true, 65504, 0), Some(0xfbff));
    assert_eq!(Fmt::F16.exact(false, 65505, 0), None);
    assert_eq!(Fmt::BF16.to_f64(0x3f80), 1.0);
    assert_eq!(Fmt::F16.to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(ulp_distance(Fmt::F32, 0x3f80_0000, 0x3f80_0002), Some(2.0));
    assert_eq!(ulp_distance(Fmt::F32, 0x8000_0001, 0x0000_0001), Some(2.0));
    assert_eq!(ulp_distance(Fmt::F32, 0x7fc0_0000, 0x3f80_0000), None);
    // 0 against 2^-25: 2^23 ULPs of 2^-25 apart as values, though
    // 0x33000000 floats lie between them.
    assert_eq!(
        absolute_distance(Fmt::F32, 0, 0x3300_0000),
        Some(8_388_608.0)
    );
    assert_eq!(ulp_distance(Fmt::F32, 0, 0x3300_0000), Some(855_638_016.0));
    for ty in [
        PtxType::F32,
        PtxType::F64,
        PtxType::F16,
        PtxType::Bf16,
        PtxType::F16x2,
    ] {
        let (core, ext, _) = values_for(ty, "a", &mut Rng::from_label("t"));
        assert!(core.len() >= 20 && ext.len() > core.len(), "{ty:?}");
    }
    // f32 ties hit every narrower format's overflow boundary: 65520 for
    // f16 (65504 + half an ulp), 464 for e4m3.
    let ties = Fmt::F32.ties(&mut Rng::from_label("t"));
    assert!(ties.contains(&u64::from(65520f32.to_bits())));
    assert!(ties.contains(&u64::from(464f32.to_bits())));
    let limit = |opcode: &str, a: f64| approx_rule(opcode).map(|rule| rule(a));
    assert_eq!(
        limit("sin.approx.ftz.f32", 1.0),
        Some(Limit::Within(Bound::Absolute(-20.4)))
    );
    assert_eq!(
        limit("cos.approx.f32", 100.0),
        Some(Limit::Within(Bound::Absolute(-14.7)))
    );
    assert_eq!(limit("cos.approx.f32", 1e6), Some(Limit::RangeOnly(1.0)));
    assert_eq!(
        limit("rcp.approx.ftz.f64", 3.0),
        Some(Limit::Within(Bound::Relative(-19.0)))
    );
    assert_eq!(
        limit("tanh.approx.bf16x2", 3.0),
        Some(Limit::Within(Bound::Relative(-7.0)))
    );
    assert_eq!(limit("rcp.rn.f32", 1.0), None);
}

/// The comparison itself, on the interpreter's own outputs with a bit
/// flipped (what a GPU mismatch looks like).
#[test]
fn a_mismatch_is_reported_with_its_inputs_and_both_sides() {
    let config = Config {
        compute_rows: 300,
        filter: vec!["add.rn.f32".into(), "sin.approx.f32".into()],
        ..Config::smoke()
    };
    let (_, cases, _) = enumerate(&config, false);
    let exact = cases
        .iter()
        .position(|c| c.label == "add.rn.f32")
        .expect("add.rn.f32");
    let approx = cases
        .iter()
        .position(|c| c.label == "sin.approx.f32")
        .expect("sin.approx.f32");

    let built = build(exact, &cases[exact], false);
    let interp = built.interp.clone().expect("runs on the interpreter");
    let d = built
        .roles
        .iter()
        .position(|r| r.role == Role::Destination)
        .expect("d");
    let mut gpu = interp.clone();
    gpu[d][4 * 257] ^= 1;
    let outcome = compare(&cases[exact], &built, &gpu, &interp, false);
    assert_eq!((outcome.rows, outcome.mismatched_rows), (300, 1));
    let example = &outcome.examples[0];
    assert!(
        example.starts_with("row 257: a=0x") && example.contains(" b=0x"),
        "{example}"
    );
    assert!(
        example.contains("-> gpu d=0x") && example.contains("| interp d=0x"),
        "{example}"
    );

    let built = build(approx, &cases[approx], false);
    let interp = built.interp.clone().expect("runs on the interpreter");
    let d = built
        .roles
        .iter()
        .position(|r| r.role == Role::Destination)
        .expect("d");
    let lane = |data: &[Vec<u8>], r: usize| element(&data[d], r, 4);
    // A finite, nonzero result in the domain: one ulp off is within the
    // bound, 2^20 ulps is not.
    let r = (0..300)
        .find(|&r| {
            let x = f32::from_bits(lane(&interp, r) as u32);
            let a = first_source(&cases[approx], &built, r)
                .first()
                .copied()
                .unwrap_or(f64::NAN);
            x.is_normal() && x.abs() > 0.5 && a.abs() < 3.0
        })
        .expect("a normal result");
    let with = |bits: u64| {
        let mut gpu = interp.clone();
        gpu[d][4 * r..4 * r + 4].copy_from_slice(&(bits as u32).to_le_bytes());
        compare(&cases[approx], &built, &gpu, &interp, false)
    };
    let near = with(lane(&interp, r) + 1);
    assert_eq!(near.mismatched_rows, 0, "{:?}", near.examples);
    assert!(
        near.approx
            .is_some_and(|(seen, allowed)| seen == 1.0 && allowed >= 2.0)
    );
    let far = with(lane(&interp, r) ^ (1 << 20));
    assert_eq!(far.mismatched_rows, 1);
    assert!(far.examples[0].contains("ulp apart"), "{:?}", far.examples);
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn warp_collectives_match_the_gpu() {
    family_matches_the_gpu(
        "warp_collectives_match_the_gpu",
        "warp",
        warp::enumerate,
        "no warp collectives",
    );
}

/// The warp collectives without a GPU: every variant's kernel is
/// assembled by the pinned ptxas (alone, and joined into one module as the
/// GPU test loads them), runs on the interpreter twice without a fault
/// and writes every output; then hand-computed results, and a divergent
/// collective that must fault.
#[test]
fn warp_collectives_run_on_the_interpreter() {
    let config = Config::smoke();
    let (variants, cases, skips) = warp::enumerate(&config);
    if config.filter.is_empty() {
        let legal: usize = warp::forms().map(|f| legal_variants(f).len()).sum();
        assert_eq!(variants, legal);
        assert_eq!(
            (cases.len(), skips.total()),
            (legal, 0),
            "every warp variant runs on the H200"
        );
    }
    let mut modules = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let kernel = warp::kernel(&format!("k{k}"), &case.variant, case.target)
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        ptxas::assemble(&kernel.ptx, &case.target.to_string());
        modules.push(kernel.ptx);
    }
    if !modules.is_empty() {
        ptxas::assemble(
            &form_kernels::join_modules(&modules),
            &Target::SM_90.to_string(),
        );
    }
    let report = run_cases(
        "warp_collectives_run_on_the_interpreter",
        &config,
        (variants, cases, skips),
        None,
    );
    report.write("warp_interpreter");
    report.assert_runs_on_the_interpreter();
    warp_results_vary(&config);
    warp_collectives_by_hand();
}

/// The inputs exercise the collectives: on the first 64 warps of every
/// variant, each destination takes several values (a predicate both), and
/// `shfl.sync` moves values between lanes in many rows and keeps its own
/// in some. A mismatch names the warp's scenario.
fn warp_results_vary(config: &Config) {
    let small = Config {
        warp_rows: 2048,
        ..config.clone()
    };
    let (_, cases, _) = warp::enumerate(&small);
    for (k, case) in cases.iter().enumerate() {
        let built = build(k, case, false);
        let outputs = built
            .interp
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        let operands = case.variant.operands();
        let mut summary = Vec::new();
        for (role, bytes) in built.roles.iter().zip(outputs) {
            if role.role != Role::Destination {
                continue;
            }
            let size = role.dtype.size_bytes();
            let values: Vec<u64> = (0..case.rows).map(|r| element(bytes, r, size)).collect();
            let distinct: BTreeSet<u64> = values.iter().copied().collect();
            let name = operands[role.operand].name;
            let mnemonic = case.variant.form.mnemonic;
            if role.predicate {
                let set = values.iter().filter(|v| **v == 1).count();
                summary.push(format!("{name}: {set} of {} set", case.rows));
                assert!(
                    distinct == BTreeSet::from([0, 1]),
                    "{}: {name} is always {distinct:?}",
                    case.label
                );
            } else if mnemonic == "activemask" {
                assert_eq!(distinct, BTreeSet::from([0xffff_ffff]), "{}", case.label);
            } else {
                summary.push(format!("{name}: {} values", distinct.len()));
                assert!(distinct.len() >= 4, "{}: {name} {distinct:x?}", case.label);
            }
            if mnemonic == "shfl.sync" && name == "d" {
                // The low byte of `a` is its lane.
                let moved = (0..case.rows)
                    .filter(|&r| values[r] & 0xff != (r % 32) as u64)
                    .count();
                summary.push(format!("{moved} rows from another lane"));
                assert!(
                    moved > case.rows / 8 && moved < case.rows - case.rows / 20,
                    "{}: {moved} of {} rows read another lane",
                    case.label,
                    case.rows
                );
            }
        }
        println!("  {}: {}", case.label, summary.join(", "));
        if k == 0 {
            // What a GPU mismatch looks like: row 37 is lane 5 of warp 1.
            let d = built
                .roles
                .iter()
                .position(|r| r.role == Role::Destination)
                .expect("a destination");
            let mut other = outputs.clone();
            other[d][4 * 37] ^= 1;
            let outcome = compare(case, &built, outputs, &other, false);
            assert_eq!(outcome.mismatched_rows, 1);
            let example = &outcome.examples[0];
            assert!(
                example.starts_with("row 37: a=0x")
                    && example.contains("membermask=0x")
                    && example.contains("-> gpu d=0x")
                    && example.contains(&format!("[warp 1, lane 5: {}]", built.warp_notes[1])),
                "{example}"
            );
        }
    }
}

/// Results worked out by hand from the PTX ISA, on the interpreter.
// Rows index several outputs at once.
#[allow(clippy::needless_range_loop)]
fn warp_collectives_by_hand() {
    use warp::interpret_rows;
    let full = |name: &str| (name == "membermask").then_some(0xffff_ffffu64);
    let halves = |r: usize| {
        if r % 32 < 16 {
            0x0000_ffff
        } else {
            0xffff_0000
        }
    };
    let rows = 128;
    let run = |form: &str, opcode: &str, value: &dyn Fn(&str, usize) -> u64| {
        interpret_rows(form, opcode, rows, value)
            .unwrap_or_else(|fault| panic!("{opcode}: {fault}"))
    };

    // redux.sync.add: the sum of the warp's rows.
    let out = run("redux.sync", "redux.sync.add.u32", &|n, r| {
        full(n).unwrap_or(r as u64)
    });
    for r in 0..rows {
        let w = (r / 32 * 32) as u64;
        assert_eq!(out["d"][r], 32 * w + 496, "redux.sync.add row {r}");
    }
    // Signed and unsigned extremes; the sum wraps.
    let extreme = |n: &str, r: usize| {
        full(n).unwrap_or(match r % 32 {
            3 => 0x8000_0000,
            7 => 0xffff_ffff,
            _ => 5,
        })
    };
    let min_s = run("redux.sync", "redux.sync.min.s32", &extreme);
    let max_s = run("redux.sync", "redux.sync.max.s32", &extreme);
    let min_u = run("redux.sync", "redux.sync.min.u32", &extreme);
    let max_u = run("redux.sync", "redux.sync.max.u32", &extreme);
    let add = run("redux.sync", "redux.sync.add.s32", &extreme);
    let xor = run("redux.sync.bitwise", "redux.sync.xor.b32", &extreme);
    for r in 0..rows {
        assert_eq!(min_s["d"][r], 0x8000_0000);
        assert_eq!(max_s["d"][r], 5);
        assert_eq!(min_u["d"][r], 5);
        assert_eq!(max_u["d"][r], 0xffff_ffff);
        // 30 * 5 + 0x80000000 + 0xffffffff, modulo 2^32.
        assert_eq!(add["d"][r], 0x8000_0095);
        // 30 fives cancel out.
        assert_eq!(xor["d"][r], 0x7fff_ffff);
    }

    // shfl.sync.bfly by 1 over the whole warp swaps neighbours.
    let a = |r: usize| 0x1000 + r as u64;
    let out = run("shfl.sync", "shfl.sync.bfly.b32", &|n, r| match n {
        "a" => a(r),
        "b" => 1,
        "c" => u64::from(warp::cuda_c("bfly", 32)),
        _ => 0xffff_ffff,
    });
    for r in 0..rows {
        assert_eq!(out["d"][r], a(r ^ 1), "shfl.sync.bfly row {r}");
    }
    // shfl.sync.up by 1 in segments of 8 (c = 0x1800): the first lane of
    // each segment keeps its own value and gets p = false.
    let out = run("shfl.sync.pred", "shfl.sync.up.b32", &|n, r| match n {
        "a" => a(r),
        "b" => 1,
        "c" => 0x1800,
        _ => 0xffff_ffff,
    });
    assert_eq!(warp::cuda_c("up", 8), 0x1800);
    for r in 0..rows {
        let first = r % 8 == 0;
        let expected = if first { a(r) } else { a(r - 1) };
        assert_eq!(
            (out["d"][r], out["p"][r]),
            (expected, u64::from(!first)),
            "shfl.sync.up row {r}"
        );
    }
    // shfl.sync.idx of lane 3 of each half, with per-half membermasks.
    let out = run("shfl.sync", "shfl.sync.idx.b32", &|n, r| match n {
        "a" => a(r),
        "b" => 3,
        "c" => u64::from(warp::cuda_c("idx", 16)),
        _ => halves(r),
    });
    for r in 0..rows {
        assert_eq!(out["d"][r], a(r / 16 * 16 + 3), "shfl.sync.idx row {r}");
    }
    // shfl.sync.down by 20 (beyond the clamp 31 for lanes 12..): out of
    // range keeps the own value, p = false.
    let out = run("shfl.sync.pred", "shfl.sync.down.b32", &|n, r| match n {
        "a" => a(r),
        "b" => 20,
        "c" => 0x1f,
        _ => 0xffff_ffff,
    });
    for r in 0..rows {
        let in_range = r % 32 + 20 <= 31;
        let expected = if in_range { a(r + 20) } else { a(r) };
        assert_eq!((out["d"][r], out["p"][r]), (expected, u64::from(in_range)));
    }

    // vote.sync.ballot: lanes 0, 3, 6, ..; per half, each half's bits.
    let every_third = |r: usize| u64::from((r % 32).is_multiple_of(3));
    let out = run("vote.sync.ballot", "vote.sync.ballot.b32", &|n, r| {
        if n == "a" { every_third(r) } else { halves(r) }
    });
    for r in 0..rows {
        assert_eq!(out["d"][r], 0x4924_9249 & halves(r), "ballot row {r}");
    }
    let all = run("vote.sync", "vote.sync.all.pred", &|n, r| {
        if n == "a" {
            every_third(r)
        } else {
            0xffff_ffff
        }
    });
    let any = run("vote.sync", "vote.sync.any.pred", &|n, r| {
        if n == "a" {
            every_third(r)
        } else {
            0xffff_ffff
        }
    });
    // uni: the lower half all true, the upper mixed.
    let uni = run("vote.sync", "vote.sync.uni.pred", &|n, r| {
        if n == "a" {
            u64::from(r % 32 < 16 || r % 2 == 0)
        } else {
            halves(r)
        }
    });
    for r in 0..rows {
        assert_eq!((all["d"][r], any["d"][r]), (0, 1));
        assert_eq!(uni["d"][r], u64::from(r % 32 < 16), "vote.uni row {r}");
    }

    // elect.sync per half: lanes 0 and 16 lead.
    let out = run("elect.sync", "elect.sync", &|_, r| halves(r));
    for r in 0..rows {
        let lane = r % 32;
        assert_eq!(
            (out["d"][r], out["p"][r]),
            (if lane < 16 { 0 } else { 16 }, u64::from(lane % 16 == 0))
        );
    }

    // match.any.sync.b64 on values differing only in the high half.
    let x = 0x0123_4567_89ab_cdefu64;
    let out = run("match.sync", "match.any.sync.b64", &|n, r| {
        if n == "a" {
            if r % 2 == 0 { x } else { x ^ 1 << 32 }
        } else {
            0xffff_ffff
        }
    });
    for r in 0..rows {
        let expected = if r % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa };
        assert_eq!(out["d"][r], expected, "match.any row {r}");
    }
    // match.all.sync.b64 d|p per half: the lower half disagrees (lane 5).
    let out = run("match.sync.all-pred", "match.all.sync.b64", &|n, r| {
        if n == "a" {
            if r % 32 == 5 { x ^ 1 << 63 } else { x }
        } else {
            halves(r)
        }
    });
    for r in 0..rows {
        let upper = r % 32 >= 16;
        let expected = if upper { 0xffff_0000 } else { 0 };
        assert_eq!((out["d"][r], out["p"][r]), (expected, u64::from(upper)));
    }

    // activemask: every lane; bar.warp.sync: the membermask copy.
    let out = run("activemask", "activemask.b32", &|_, _| 0);
    assert!(out["d"].iter().all(|d| *d == 0xffff_ffff));
    let out = run("bar.warp.sync", "bar.warp.sync", &|_, r| halves(r));
    assert!((0..rows).all(|r| out["echo"][r] == halves(r)));

    // A membermask naming lanes that do not execute: 40 rows leave lanes
    // 8..31 of the second warp idle, which a full membermask names.
    let fault = interpret_rows("redux.sync", "redux.sync.add.u32", 40, |n, r| {
        full(n).unwrap_or(r as u64)
    })
    .expect_err("a divergent collective faults");
    assert!(
        fault.contains("do not execute") && fault.contains("thread (32, 0, 0)"),
        "{fault}"
    );
    // So does a lane outside its own membermask (lane 0 in every lane's).
    let fault = interpret_rows("vote.sync", "vote.sync.any.pred", 64, |n, _| {
        if n == "a" { 1 } else { 0xffff_fffe }
    })
    .expect_err("a lane outside its membermask faults");
    assert!(fault.contains("not in its own membermask"), "{fault}");
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn cta_barriers_match_the_gpu() {
    family_matches_the_gpu(
        "cta_barriers_match_the_gpu",
        "cta",
        cta::enumerate,
        "no CTA barriers",
    );
}

/// The CTA barriers without a GPU: every variant runs on the interpreter
/// twice without a fault and writes every output (as the smoke test
/// does), and its results are those worked out by hand.
#[test]
fn cta_barriers_run_on_the_interpreter() {
    let config = Config::smoke();
    let (variants, cases, skips) = cta::enumerate(&config);
    if config.filter.is_empty() {
        let legal: usize = cta::forms().map(|f| legal_variants(f).len()).sum();
        assert_eq!(variants, legal);
        assert_eq!(skips.total(), 0, "every barrier variant runs on the H200");
        assert!(variants > 0, "no CTA barriers");
    }
    let report = run_cases(
        "cta_barriers_run_on_the_interpreter",
        &config,
        (variants, cases.clone(), skips),
        None,
    );
    report.write("cta_interpreter");
    report.assert_runs_on_the_interpreter();
    let wrong: Vec<String> = parallel_map(&cases, config.threads, |k, case| {
        let built = build(k, case, false);
        cta::check_by_hand(case, &built).map_err(|e| format!("{}: {e}", case.label))
    })
    .into_iter()
    .filter_map(Result::err)
    .collect();
    assert!(
        wrong.is_empty(),
        "{} barrier case(s) differ from the results worked out by hand:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
