//! The GPU differential conformance harness: the ground truth for the CPU
//! interpreter (`tile-kernel-interp`), which must be bit-exact with the
//! NVIDIA H200 (sm_90).
//!
//! For every legal variant of every usable form of the PTX table (plus one
//! kernel per immediate value and per special register a variant can
//! read), a kernel is generated (`tests/support/form_kernels.rs`) that runs
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

#[path = "support/form_kernels.rs"]
#[allow(dead_code)]
mod form_kernels;
#[path = "support/ptxas.rs"]
#[allow(dead_code)]
mod ptxas;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use form_kernels::{Choices, Role, Shape, TensorRole, generate};
use tile_kernel_interp::{Arg, Prepared, RunOptions};
use tile_kernel_lowering::program::{ParamKind, Program};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{
    InstructionForm, Modifiers, OperandKind, PtxType, Space, Usability,
};
use tile_kernel_lowering::{Target, compile};

/// Threads a block.
const BLOCK: u32 = 256;

/// The byte every output starts as on the GPU, and on the interpreter: an
/// output byte nobody writes shows up as a mismatch.
const GPU_SENTINEL: u8 = 0xA5;
const INTERP_SENTINEL: u8 = 0x5A;

// ---------------------------------------------------------------------------
// Configuration

/// How much to run.
#[derive(Debug, Clone)]
struct Config {
    /// Rows (threads) of a non-memory variant.
    compute_rows: usize,
    /// Rows of `ld`/`ldu`/`st`/`prefetch` variants.
    memory_rows: usize,
    /// Rows of `atom`/`red` variants (one address per thread).
    atomic_rows: usize,
    /// Threads of a same-address atomic.
    shared_threads: usize,
    /// Rows (threads) of a warp collective: a multiple of [`warp::BLOCK`].
    warp_rows: usize,
    /// Rows (threads) of a CTA barrier: a multiple of [`BLOCK`].
    cta_rows: usize,
    /// Keep a memory variant only if it is the first of its form with its
    /// operand types (in shared memory or elsewhere), or every this many
    /// (`None`: all).
    memory_stride: Option<usize>,
    /// Opcode substrings to keep (empty: all).
    filter: Vec<String>,
    /// Kernels per GPU module.
    batch: usize,
    /// Host threads.
    threads: usize,
}

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

impl Config {
    fn with_env(mut self) -> Config {
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_ROWS") {
            self.compute_rows = rows.max(1);
        }
        if let Some(stride) = env_usize("TILE_KERNEL_DIFF_MEMORY_STRIDE") {
            // Every `stride`-th memory variant (they differ only in cache
            // and ordering modifiers): for a run with little device time.
            self.memory_stride = (stride > 1).then_some(stride);
        }
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_WARP_ROWS") {
            self.warp_rows = rows;
        }
        // Whole blocks: every warp executes the collective with all its lanes.
        self.warp_rows = self.warp_rows.max(1).next_multiple_of(warp::BLOCK as usize);
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_CTA_ROWS") {
            self.cta_rows = rows;
        }
        // Whole CTAs: every thread of a barrier has a row.
        self.cta_rows = self.cta_rows.max(1).next_multiple_of(BLOCK as usize);
        if let Some(batch) = env_usize("TILE_KERNEL_DIFF_BATCH") {
            self.batch = batch.max(1);
        }
        if let Ok(filter) = std::env::var("TILE_KERNEL_DIFF_FILTER") {
            self.filter = filter
                .split(',')
                .map(|w| w.trim().to_string())
                .filter(|w| !w.is_empty())
                .collect();
        }
        self
    }

    fn gpu() -> Config {
        Config {
            compute_rows: 4096,
            memory_rows: 64,
            atomic_rows: 256,
            shared_threads: 1024,
            warp_rows: 32768,
            cta_rows: 16384,
            memory_stride: None,
            filter: Vec::new(),
            batch: 256,
            threads: std::thread::available_parallelism().map_or(4, |n| n.get()),
        }
        .with_env()
    }

    fn smoke() -> Config {
        let all = std::env::var("TILE_KERNEL_DIFF_SMOKE_ALL").is_ok_and(|v| v == "1");
        Config {
            compute_rows: 48,
            memory_rows: 4,
            atomic_rows: 4,
            shared_threads: 8,
            // The GPU test's rows: its exact inputs, checked for faults.
            warp_rows: 32768,
            // One CTA of each predicate pattern.
            cta_rows: cta::PATTERNS.len() * BLOCK as usize,
            memory_stride: if all { None } else { Some(97) },
            filter: Vec::new(),
            batch: 64,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
        .with_env()
    }
}

// ---------------------------------------------------------------------------
// Variants and cases

/// How a variant touches memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Compute,
    Load,
    Store,
    Prefetch,
    Atomic,
}

fn family(m: &Modifiers) -> Family {
    match m.form.mnemonic {
        "ld" | "ldu" => Family::Load,
        "st" => Family::Store,
        "prefetch" | "prefetchu" => Family::Prefetch,
        "atom" | "red" => Family::Atomic,
        _ => Family::Compute,
    }
}

/// One kernel to run: a variant plus its compile-time choices.
#[derive(Debug, Clone)]
struct Case {
    label: String,
    variant: Modifiers,
    family: Family,
    target: Target,
    choices: Choices,
    /// Threads, one row each.
    rows: usize,
    /// Every thread updates one shared element (same-address atomics).
    shared: bool,
    /// Threads a block ([`BLOCK`], or [`warp::BLOCK`] for the collectives).
    block: u32,
    /// A warp collective ([`warp`]): its kernel is a compiled placeholder
    /// kernel with the collective patched in, its inputs are per warp.
    warp: bool,
}

/// Why variants were not run, with the variants.
#[derive(Debug, Default)]
struct Skips(BTreeMap<String, Vec<String>>);

impl Skips {
    fn add(&mut self, reason: impl Into<String>, what: String) {
        self.0.entry(reason.into()).or_default().push(what);
    }

    fn total(&self) -> usize {
        self.0.values().map(Vec::len).sum()
    }

    fn print(&self) {
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
fn h200_target(m: &Modifiers) -> Result<Target, String> {
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
fn immediate_values(min: i64, max: i64) -> Vec<i64> {
    let mut values = BTreeSet::new();
    if max.saturating_sub(min) <= 16 {
        values.extend(min..=max);
    } else {
        values.extend([min, min + 1, min + (max - min) / 2, max - 1, max]);
        let mut rng = Rng::new(&format!("imm {min} {max}"));
        for _ in 0..3 {
            let span = (max - min) as u64 + 1;
            values.insert(min + (rng.next() % span) as i64);
        }
        if (min, max) == (0, 255) {
            // LUTs of lop3: a ^ b ^ c, majority, a, b, c, a & b & c, a | b | c.
            values.extend([0x96, 0xE8, 0xF0, 0xCC, 0xAA, 0x80, 0xFE]);
        }
    }
    values.into_iter().collect()
}

/// The op of an atomic (`add`, `cas`, ...).
fn atomic_op(m: &Modifiers) -> Option<&'static str> {
    m.get("op")
}

/// The element type of an atomic.
fn atomic_type(m: &Modifiers) -> Option<PtxType> {
    m.ty("type")
}

/// Whether the final memory of `m` with every thread on one element is
/// independent of the order the threads run in (on the values
/// [`shared_restriction`] feeds it).
fn order_independent(m: &Modifiers) -> Result<(), String> {
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
fn enumerate(config: &Config, shared: bool) -> (usize, Vec<Case>, Skips) {
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
            if shared && let Err(why) = order_independent(&m) {
                skips.add(why, text);
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

// ---------------------------------------------------------------------------
// Values

/// splitmix64, seeded from a string: every case's inputs are reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Rng {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for b in seed.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick(&mut self, items: &[u64]) -> u64 {
        items[self.below(items.len())]
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// An IEEE-style binary float format: a sign bit, `exp` exponent bits and
/// `man` fraction bits, with infinities and NaNs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fmt {
    exp: u32,
    man: u32,
}

impl Fmt {
    const F16: Fmt = Fmt { exp: 5, man: 10 };
    const BF16: Fmt = Fmt { exp: 8, man: 7 };
    const F32: Fmt = Fmt { exp: 8, man: 23 };
    const F64: Fmt = Fmt { exp: 11, man: 52 };

    fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    fn emin(self) -> i32 {
        1 - self.bias()
    }
    fn emax(self) -> i32 {
        self.bias()
    }
    fn sign(self) -> u64 {
        1 << (self.exp + self.man)
    }
    fn man_mask(self) -> u64 {
        mask(self.man)
    }
    fn inf(self) -> u64 {
        mask(self.exp) << self.man
    }
    fn is_nan(self, b: u64) -> bool {
        b & self.inf() == self.inf() && b & self.man_mask() != 0
    }
    fn is_inf(self, b: u64) -> bool {
        b & !self.sign() == self.inf()
    }

    /// The bits of `±n * 2^p` when exactly representable.
    fn exact(self, negative: bool, n: u64, p: i32) -> Option<u64> {
        let sign = if negative { self.sign() } else { 0 };
        if n == 0 {
            return Some(sign);
        }
        let tz = n.trailing_zeros();
        let (n, p) = (n >> tz, p + tz as i32);
        let len = 64 - n.leading_zeros() as i32;
        let e = p + len - 1;
        let man = self.man as i32;
        let magnitude = if e > self.emax() {
            return None;
        } else if e >= self.emin() {
            if len - 1 > man {
                return None;
            }
            let frac = (n << (man - (len - 1))) & self.man_mask();
            ((e + self.bias()) as u64) << self.man | frac
        } else {
            let shift = p - (self.emin() - man);
            if shift < 0 || len + shift > man {
                return None;
            }
            n << shift
        };
        Some(sign | magnitude)
    }

    /// The value of `bits`, exactly (every format here fits in an f64).
    fn to_f64(self, bits: u64) -> f64 {
        if self == Fmt::F64 {
            return f64::from_bits(bits);
        }
        let negative = bits & self.sign() != 0;
        let e = ((bits >> self.man) & mask(self.exp)) as i32;
        let frac = bits & self.man_mask();
        let value = if e == mask(self.exp) as i32 {
            if frac == 0 { f64::INFINITY } else { f64::NAN }
        } else if e == 0 {
            frac as f64 * 2f64.powi(self.emin() - self.man as i32)
        } else {
            (frac | (1 << self.man)) as f64 * 2f64.powi(e - self.bias() - self.man as i32)
        };
        if negative { -value } else { value }
    }

    /// One unit in the last place at the magnitude of `value`.
    fn ulp_at(self, value: f64) -> f64 {
        let e = if value == 0.0 || !value.is_finite() {
            self.emin()
        } else {
            (value.abs().log2().floor() as i32).max(self.emin())
        };
        2f64.powi(e - self.man as i32)
    }

    /// Special values: zeros, subnormal and normal extremes, infinities,
    /// quiet and signalling NaNs with payloads, and a few ordinary values.
    fn specials(self) -> Vec<u64> {
        let top = 1u64 << (self.man - 1);
        let one = (self.bias() as u64) << self.man;
        let magnitudes = [
            0,
            1,
            self.man_mask(),
            1 << self.man,
            (1 << self.man) | 1,
            (self.inf() - (1 << self.man)) | self.man_mask(),
            self.inf(),
            self.inf() | top,
            self.inf() | top | 1,
            self.inf() | self.man_mask(),
            self.inf() | 1,
            self.inf() | (self.man_mask() >> 1),
            one,
            one + 1,
            one - 1,
            one + (1 << self.man),
            one - (1 << self.man),
            one | top,
            (one + (1 << self.man)) | top,
            one + (3 << self.man),
            (one - (4 << self.man)) | (self.man_mask() / 3),
            (one + (1 << self.man)) | (self.man_mask() / 7 * 5),
        ];
        let mut out = Vec::new();
        for m in magnitudes {
            out.push(m);
            out.push(m | self.sign());
        }
        out
    }

    /// Values at rounding ties (and one ULP either side) of every narrower
    /// format, over its normal range, its overflow boundary and its
    /// subnormal range; and integer-conversion boundaries.
    fn ties(self, rng: &mut Rng) -> Vec<u64> {
        let mut out = Vec::new();
        let push = |bits: Option<u64>, out: &mut Vec<u64>| {
            if let Some(b) = bits {
                out.push(b);
                if b & !self.sign() != 0 {
                    out.push(b - 1);
                }
                if (b + 1) & !self.sign() < self.inf() {
                    out.push(b + 1);
                }
            }
        };
        for t in NARROWER {
            if t.man >= self.man {
                continue;
            }
            let m = t.man as i32;
            let mut exponents = vec![0, t.emin, t.emax];
            exponents.push(t.emin + rng.below((t.emax - t.emin + 1) as usize) as i32);
            for e in exponents {
                for frac in [0, 1, rng.next() & mask(t.man), t.max_frac] {
                    // (1.frac + half an ulp of t) * 2^e
                    let n = ((1 << t.man) | frac) << 1 | 1;
                    push(self.exact(rng.next() & 1 == 1, n, e - m - 1), &mut out);
                }
            }
            // Above the largest finite value by half an ulp, and by one.
            let max = (1u64 << t.man) | t.max_frac;
            push(self.exact(false, max << 1 | 1, t.emax - m - 1), &mut out);
            push(self.exact(true, max << 1 | 1, t.emax - m - 1), &mut out);
            push(self.exact(false, max + 1, t.emax - m), &mut out);
            // Subnormal ties of t: (k + 1/2) and (k + 1/4) subnormal ulps.
            let subnormals = [0, 1, 2, 3, mask(t.man), rng.next() & mask(t.man)];
            for k in subnormals {
                push(
                    self.exact(rng.next() & 1 == 1, k << 1 | 1, t.emin - m - 1),
                    &mut out,
                );
                push(self.exact(false, k << 2 | 1, t.emin - m - 2), &mut out);
            }
        }
        // Integer conversion boundaries.
        for k in [0, 1, 7, 8, 15, 16, 31, 32, 62, 63, 64] {
            for negative in [false, true] {
                push(self.exact(negative, 1, k), &mut out);
                if k < 63 {
                    push(self.exact(negative, (1 << (k + 1)) + 1, -1), &mut out);
                    push(self.exact(negative, (1 << (k + 1)) - 1, -1), &mut out);
                }
                if (1..64).contains(&k) {
                    push(self.exact(negative, (1 << k) - 1, 0), &mut out);
                }
            }
        }
        out
    }
}

/// A narrower float format whose rounding ties the sweeps hit.
struct Narrow {
    emin: i32,
    emax: i32,
    man: u32,
    /// The fraction of the largest finite value.
    max_frac: u64,
}

const NARROWER: &[Narrow] = &[
    // f32
    Narrow {
        emin: -126,
        emax: 127,
        man: 23,
        max_frac: 0x7f_ffff,
    },
    // tf32
    Narrow {
        emin: -126,
        emax: 127,
        man: 10,
        max_frac: 0x3ff,
    },
    // bf16
    Narrow {
        emin: -126,
        emax: 127,
        man: 7,
        max_frac: 0x7f,
    },
    // f16
    Narrow {
        emin: -14,
        emax: 15,
        man: 10,
        max_frac: 0x3ff,
    },
    // e4m3 (no infinities: 448 is the largest)
    Narrow {
        emin: -6,
        emax: 8,
        man: 3,
        max_frac: 0b110,
    },
    // e5m2
    Narrow {
        emin: -14,
        emax: 15,
        man: 2,
        max_frac: 0b11,
    },
    // e3m2 (fp6)
    Narrow {
        emin: -2,
        emax: 4,
        man: 2,
        max_frac: 0b11,
    },
    // e2m3 (fp6)
    Narrow {
        emin: 0,
        emax: 2,
        man: 3,
        max_frac: 0b111,
    },
    // e2m1 (fp4)
    Narrow {
        emin: 0,
        emax: 2,
        man: 1,
        max_frac: 0b1,
    },
];

/// Integer specials of `bits` bits: small values, shift amounts, extremes,
/// powers of two and their neighbours.
fn int_values(bits: u32, extended: bool) -> Vec<u64> {
    let m = mask(bits);
    let min = 1u64 << (bits - 1);
    let mut out = vec![
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        15,
        16,
        31,
        32,
        33,
        63,
        64,
        65,
        127,
        128,
        255,
        256,
        m,
        m - 1,
        min,
        min + 1,
        min - 1,
        min - 2,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        0x0123_4567_89ab_cdef,
        0xfedc_ba98_7654_3210,
        0x8000_0001_7fff_ffff,
    ];
    if extended {
        for k in 1..bits {
            out.extend([1 << k, (1 << k) - 1, (1 << k) + 1, m ^ (1 << k)]);
        }
    }
    let mut seen = BTreeSet::new();
    out.into_iter()
        .map(|v| v & m)
        .filter(|v| seen.insert(*v))
        .collect()
}

/// The float format of a scalar float type.
fn scalar_float(ty: PtxType) -> Option<Fmt> {
    match ty {
        PtxType::F16 => Some(Fmt::F16),
        PtxType::Bf16 => Some(Fmt::BF16),
        PtxType::F32 | PtxType::Tf32 => Some(Fmt::F32),
        PtxType::F64 => Some(Fmt::F64),
        _ => None,
    }
}

/// Two lanes of `half` bits each, from `lo` and `hi` lists: each value of
/// each list once, paired with a random one of the other.
fn pairs(lo: &[u64], hi: &[u64], half: u32, rng: &mut Rng) -> Vec<u64> {
    let mut out = Vec::new();
    for &v in lo {
        out.push(v | rng.pick(hi) << half);
    }
    for &v in hi {
        out.push(rng.pick(lo) | v << half);
    }
    for &v in lo.iter().take(16) {
        out.push(v | v << half);
    }
    out
}

/// Input values of one lane of type `ty` for an operand named `name`:
/// (core list for products, extended list for coverage, whether only
/// these values are legal).
fn values_for(ty: PtxType, name: &str, rng: &mut Rng) -> (Vec<u64>, Vec<u64>, bool) {
    let f32s = |vs: &[f32]| {
        vs.iter()
            .map(|v| u64::from(v.to_bits()))
            .collect::<Vec<u64>>()
    };
    match name {
        // createpolicy's fraction: (0, 1].
        "fraction" => {
            let v = f32s(&[1.0, 0.5, 0.25, 0.75, 0.125, 1.0 / 1024.0, 0.999_999_94]);
            return (v.clone(), v, true);
        }
        // createpolicy.cvt's access property (cudaAccessProperty).
        "access_property" => {
            let v = vec![0, 1, 2];
            return (v.clone(), v, true);
        }
        _ => {}
    }
    if ty == PtxType::Pred {
        return (vec![0, 1], vec![0, 1], true);
    }
    if let Some(fmt) = scalar_float(ty) {
        let core = fmt.specials();
        let mut ext = core.clone();
        ext.extend(fmt.ties(rng));
        return (core, ext, false);
    }
    let codes8: Vec<u64> = (0..256).collect();
    let packed = |fmt: Fmt, rng: &mut Rng| {
        let core = fmt.specials();
        let mut ext = core.clone();
        ext.extend(fmt.ties(rng));
        let half = 1 + fmt.exp + fmt.man;
        (
            pairs(&core, &core, half, rng),
            pairs(&ext, &ext, half, rng),
            false,
        )
    };
    match ty {
        PtxType::F16x2 => packed(Fmt::F16, rng),
        PtxType::Bf16x2 => packed(Fmt::BF16, rng),
        PtxType::E4m3x2
        | PtxType::E5m2x2
        | PtxType::E2m3x2
        | PtxType::E3m2x2
        | PtxType::Ue8m0x2 => {
            let v = pairs(&codes8, &codes8, 8, rng);
            (v.clone(), v, false)
        }
        PtxType::E2m1x2 => (codes8.clone(), codes8, false),
        PtxType::U16x2 | PtxType::S16x2 => {
            let core = int_values(16, false);
            let ext = int_values(16, true);
            (
                pairs(&core, &core, 16, rng),
                pairs(&ext, &ext, 16, rng),
                false,
            )
        }
        _ => {
            let bits = ty.carrier_bits().clamp(1, 64) as u32;
            (int_values(bits, false), int_values(bits, true), false)
        }
    }
}

/// One input lane of a case: a lane of a source register or of memory.
struct Slot {
    tensor: usize,
    lane: usize,
    ty: PtxType,
    core: Vec<u64>,
    values: Vec<u64>,
    /// Only `values` are legal inputs.
    restricted: bool,
    width: u32,
}

/// `n` rows of one value per slot: the cartesian product of the core
/// lists where it is small (else of the first two), each extended value at
/// least once, then random mixes of specials and random bits.
fn build_rows(slots: &[Slot], n: usize, rng: &mut Rng) -> Vec<Vec<u64>> {
    let mut rows: Vec<Vec<u64>> = Vec::with_capacity(n);
    if slots.is_empty() {
        return vec![Vec::new(); n];
    }
    let random_core =
        |rng: &mut Rng| -> Vec<u64> { slots.iter().map(|s| rng.pick(&s.core)).collect() };
    let product = slots
        .iter()
        .try_fold(1usize, |a, s| a.checked_mul(s.core.len()))
        .unwrap_or(usize::MAX);
    if product <= n / 2 {
        for mut k in 0..product {
            rows.push(
                slots
                    .iter()
                    .map(|s| {
                        let v = s.core[k % s.core.len()];
                        k /= s.core.len();
                        v
                    })
                    .collect(),
            );
        }
    } else if slots.len() >= 2 && slots[0].core.len() * slots[1].core.len() <= n / 2 {
        for &a in &slots[0].core {
            for &b in &slots[1].core {
                let mut row = random_core(rng);
                row[0] = a;
                row[1] = b;
                rows.push(row);
            }
        }
    }
    'coverage: for (j, s) in slots.iter().enumerate() {
        for &v in &s.values {
            if rows.len() >= n * 3 / 4 {
                break 'coverage;
            }
            let mut row = random_core(rng);
            row[j] = v;
            rows.push(row);
        }
    }
    while rows.len() < n {
        let mut row = Vec::with_capacity(slots.len());
        for (j, s) in slots.iter().enumerate() {
            let same_type: Vec<usize> = (0..j).filter(|&k| slots[k].ty == s.ty).collect();
            let v = if s.restricted {
                rng.pick(&s.values)
            } else {
                match rng.below(10) {
                    0..=3 => rng.pick(&s.values),
                    9 if !same_type.is_empty() => row[same_type[rng.below(same_type.len())]],
                    _ => rng.next() & mask(s.width),
                }
            };
            row.push(v);
        }
        rows.push(row);
    }
    rows.truncate(n);
    rows
}

// ---------------------------------------------------------------------------
// Building a case: kernel, inputs, interpreter run

/// How an output lane is compared.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// Bit for bit.
    Exact,
    /// Within the form's error bound.
    Approx(Rule),
    /// A machine- or time-dependent special register: plausible on both sides.
    Plausible(&'static str),
    /// An opaque hardware encoding (`createpolicy`): equal inputs give
    /// equal outputs, on each side.
    Opaque,
    /// Depends on the order threads ran in (same-address `atom` results).
    Unordered,
}

/// A case, compiled, with its inputs and its interpreter results.
struct Built {
    case: usize,
    entry: String,
    /// The harness's own failure (the kernel does not build): fails the test.
    error: Option<String>,
    program: Option<Program>,
    ptx: Option<String>,
    roles: Vec<TensorRole>,
    /// Whether each tensor parameter is written by the kernel.
    written: Vec<bool>,
    /// Per tensor: its initial bytes, or empty for outputs (which start as
    /// a sentinel).
    inputs: Vec<Vec<u8>>,
    /// The bytes of every tensor after the interpreter ran, or why it could not.
    interp: Result<Vec<Vec<u8>>, String>,
    /// Smoke test: a second run with the other sentinel.
    interp_again: Option<Result<Vec<Vec<u8>>, String>>,
    /// The bytes of every tensor after the GPU ran.
    gpu: Option<Result<Vec<Vec<u8>>, String>>,
    /// Runtime launch mode: the kernel, loaded.
    runtime_kernel: Option<&'static tile_kernel::runtime::Kernel>,
    checks: Vec<Check>,
    seconds_interp: f64,
    /// Warp collectives: what each warp's inputs exercise (shown with a
    /// mismatching row of the warp).
    warp_notes: Vec<String>,
    /// CTA barriers: what each CTA's inputs exercise (shown with a
    /// mismatching row of the CTA).
    cta_notes: Vec<String>,
}

impl Built {
    fn tensor_len(&self, case: &Case, k: usize) -> usize {
        let role = &self.roles[k];
        let rows = if role.per_row { case.rows } else { 1 };
        rows * role.row_bytes()
    }

    fn initial(&self, case: &Case, k: usize, sentinel: u8) -> Vec<u8> {
        if self.inputs[k].is_empty() {
            vec![sentinel; self.tensor_len(case, k)]
        } else {
            self.inputs[k].clone()
        }
    }

    /// The hidden symbol arguments: each symbol's value over its divisor.
    fn symbol_args(&self, case: &Case) -> Vec<u64> {
        self.program
            .as_ref()
            .map(|p| {
                p.symbols
                    .iter()
                    .map(|s| case.rows as u64 / s.divisor)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn grid(&self, case: &Case) -> [u32; 3] {
        [(case.rows as u32).div_ceil(case.block), 1, 1]
    }
}

/// Whether tensor `k` of a case holds values the kernel reads initially.
fn is_input(case: &Case, role: &TensorRole) -> bool {
    match role.role {
        Role::Source => true,
        Role::Destination => false,
        Role::Memory => case.family != Family::Store,
    }
}

/// How each tensor's output lanes are compared.
fn checks_for(case: &Case, roles: &[TensorRole]) -> Vec<Check> {
    let text = case.variant.opcode_text();
    let operands = case.variant.operands();
    roles
        .iter()
        .map(|role| match role.role {
            Role::Source => Check::Exact,
            Role::Memory => Check::Exact,
            Role::Destination => {
                if case.shared {
                    Check::Unordered
                } else if case.variant.form.mnemonic == "createpolicy" {
                    Check::Opaque
                } else if let Some(name) = case
                    .choices
                    .special
                    .filter(|n| NONDETERMINISTIC_SREGS.contains(n))
                {
                    Check::Plausible(name)
                } else if let Some(rule) = approx_rule(&text)
                    && (scalar_float(operands[role.operand].ty).is_some()
                        || matches!(operands[role.operand].ty, PtxType::F16x2 | PtxType::Bf16x2))
                {
                    Check::Approx(rule)
                } else {
                    Check::Exact
                }
            }
        })
        .collect()
}

/// Slot values a same-address atomic may take (`None`: the default sweep).
fn shared_restriction(m: &Modifiers, ty: PtxType, rng: &mut Rng) -> Option<Vec<u64>> {
    let op = atomic_op(m)?;
    let lane_fmt = match ty {
        PtxType::F16x2 => Some((Fmt::F16, 2)),
        PtxType::Bf16x2 => Some((Fmt::BF16, 2)),
        _ => scalar_float(ty).map(|f| (f, 1)),
    };
    let (fmt, lanes) = lane_fmt?;
    let half = 1 + fmt.exp + fmt.man;
    let splat = |v: u64| if lanes == 2 { v | v << half } else { v };
    match op {
        // Small integers: every partial sum is exact.
        "add" => Some(
            [0u64, 1, 2]
                .iter()
                .filter_map(|n| fmt.exact(false, *n, 0))
                .map(splat)
                .collect(),
        ),
        // No NaNs and no -0: the rest is a total order.
        "min" | "max" => {
            let values: Vec<u64> = fmt
                .specials()
                .into_iter()
                .chain(fmt.ties(rng))
                .filter(|b| !fmt.is_nan(*b) && *b != fmt.sign())
                .map(splat)
                .collect();
            Some(values)
        }
        _ => None,
    }
}

fn build(case_index: usize, case: &Case, smoke: bool) -> Built {
    let entry = format!("k{case_index}");
    let mut built = Built {
        case: case_index,
        entry: entry.clone(),
        error: None,
        program: None,
        ptx: None,
        roles: Vec::new(),
        written: Vec::new(),
        inputs: Vec::new(),
        interp: Err("not run".into()),
        interp_again: None,
        gpu: None,
        runtime_kernel: None,
        checks: Vec::new(),
        seconds_interp: 0.0,
        warp_notes: Vec::new(),
        cta_notes: Vec::new(),
    };
    if case.warp {
        warp::build(&mut built, case, smoke);
        return built;
    }
    let generated = match generate(
        &entry,
        &case.variant,
        case.target,
        Shape::PerThread { block: BLOCK },
        &case.choices,
    ) {
        Ok(g) => g,
        Err(ty) => {
            built.error = Some(format!("no tile or tensor dtype carries `.{}`", ty.token()));
            return built;
        }
    };
    let compilation = compile(&generated.kernel);
    let (Some(program), Some(ptx)) = (compilation.program, compilation.ptx) else {
        built.error = Some(format!(
            "the generated kernel does not compile: {}",
            compilation
                .diagnostics
                .iter()
                .map(|d| d.rendered())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        return built;
    };
    built.roles = generated.tensors.clone();
    built.written = program
        .params
        .iter()
        .map(|p| matches!(p.kind, ParamKind::Tensor { written: true, .. }))
        .collect();
    built.checks = checks_for(case, &built.roles);

    // Inputs.
    let mut rng = Rng::new(&case.label);
    let operands = case.variant.operands();
    let mut slots = Vec::new();
    let mut fixed: Vec<(usize, Vec<u64>)> = Vec::new();
    let one_value_for_all = case.shared && matches!(atomic_op(&case.variant), Some("inc" | "dec"));
    for (k, role) in built.roles.iter().enumerate() {
        if !is_input(case, role) {
            continue;
        }
        let op = &operands[role.operand];
        let ty = if role.predicate { PtxType::Pred } else { op.ty };
        let width = (role.dtype.size_bytes() * 8) as u32;
        let (mut core, mut values, mut restricted) = values_for(ty, op.name, &mut rng);
        if case.shared
            && let Some(only) = shared_restriction(&case.variant, ty, &mut rng)
        {
            (core, values, restricted) = (only.clone(), only, true);
        }
        if one_value_for_all && role.role == Role::Source {
            let v = rng.pick(&values);
            (core, values, restricted) = (vec![v], vec![v], true);
        }
        let (core, values): (Vec<u64>, Vec<u64>) = (
            core.into_iter().map(|v| v & mask(width)).collect(),
            values.into_iter().map(|v| v & mask(width)).collect(),
        );
        if role.per_row {
            for lane in 0..usize::from(role.lanes) {
                slots.push(Slot {
                    tensor: k,
                    lane,
                    ty,
                    core: core.clone(),
                    values: values.clone(),
                    restricted,
                    width,
                });
            }
        } else {
            let row: Vec<u64> = (0..role.lanes)
                .map(|_| {
                    if case.shared && atomic_op(&case.variant) == Some("add") && restricted {
                        core[0]
                    } else {
                        rng.pick(&values)
                    }
                })
                .collect();
            fixed.push((k, row));
        }
    }
    let mut rows = build_rows(&slots, case.rows, &mut rng);
    // cas: the compare value equals the old memory in every other row.
    if atomic_op(&case.variant) == Some("cas") {
        let memory: Vec<usize> = (0..slots.len())
            .filter(|&j| built.roles[slots[j].tensor].role == Role::Memory)
            .collect();
        let compare: Vec<usize> = (0..slots.len())
            .filter(|&j| operands[built.roles[slots[j].tensor].operand].name == "b")
            .collect();
        for (r, row) in rows.iter_mut().enumerate() {
            if r % 2 == 0 {
                for (m, c) in memory.iter().zip(&compare) {
                    row[*c] = row[*m];
                }
            }
        }
    }
    built.inputs = built
        .roles
        .iter()
        .enumerate()
        .map(|(k, role)| {
            if !is_input(case, role) {
                return Vec::new();
            }
            let size = role.dtype.size_bytes();
            if let Some((_, row)) = fixed.iter().find(|(t, _)| *t == k) {
                return row
                    .iter()
                    .flat_map(|v| v.to_le_bytes()[..size].to_vec())
                    .collect();
            }
            let mut bytes = vec![0u8; case.rows * role.row_bytes()];
            for (j, slot) in slots.iter().enumerate().filter(|(_, s)| s.tensor == k) {
                for (r, row) in rows.iter().enumerate() {
                    let at = (r * usize::from(role.lanes) + slot.lane) * size;
                    bytes[at..at + size].copy_from_slice(&row[j].to_le_bytes()[..size]);
                }
            }
            bytes
        })
        .collect();
    if case.variant.usability() == Usability::CtaBarrier {
        cta::predicate_patterns(&mut built, case, &mut rng);
    }
    built.program = Some(program.clone());
    built.ptx = Some(ptx);
    interpret(&mut built, case, program, smoke);
    built
}

/// Runs a built case on the interpreter (twice, with both sentinels, in
/// the smoke test).
fn interpret(built: &mut Built, case: &Case, program: Program, smoke: bool) {
    let started = Instant::now();
    match Prepared::new(program) {
        Err(e) => built.interp = Err(format!("the interpreter cannot prepare it: {e}")),
        Ok(prepared) => {
            built.interp = run_interpreter(&prepared, built, case, INTERP_SENTINEL);
            if smoke {
                built.interp_again =
                    Some(run_interpreter(&prepared, built, case, !INTERP_SENTINEL));
            }
        }
    }
    built.seconds_interp = started.elapsed().as_secs_f64();
}

fn run_interpreter(
    prepared: &Prepared,
    built: &Built,
    case: &Case,
    sentinel: u8,
) -> Result<Vec<Vec<u8>>, String> {
    let memories: Vec<Vec<AtomicU8>> = (0..built.roles.len())
        .map(|k| {
            built
                .initial(case, k, sentinel)
                .into_iter()
                .map(AtomicU8::new)
                .collect()
        })
        .collect();
    let args: Vec<Arg<'_>> = memories.iter().map(|m| Arg::Tensor(m)).collect();
    prepared
        .run(
            built.grid(case),
            &args,
            &built.symbol_args(case),
            &RunOptions {
                threads: 1,
                ..RunOptions::default()
            },
        )
        .map_err(|fault| format!("the interpreter faulted: {fault}"))?;
    Ok(memories
        .into_iter()
        .map(|m| m.into_iter().map(AtomicU8::into_inner).collect())
        .collect())
}

/// Maps `f` over `items` on `threads` host threads, in order.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(i, &items[i]);
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

// ---------------------------------------------------------------------------
// Comparing

/// Special registers whose values depend on the machine or the moment.
const NONDETERMINISTIC_SREGS: &[&str] = &[
    "%clock",
    "%clock64",
    "%globaltimer",
    "%smid",
    "%nsmid",
    "%warpid",
    "%nwarpid",
    "%gridid",
    "%total_smem_size",
    "%dynamic_smem_size",
];

/// Whether `value` is a plausible reading of special register `name` in
/// these kernels (256-thread blocks, no dynamic shared memory), on an
/// H200 or on the interpreter.
fn plausible(name: &str, value: u64) -> bool {
    match name {
        // An SM index, and the count: H200 has 132 SMs; allow any GPU.
        "%smid" => value < 1024,
        "%nsmid" => (1..=1024).contains(&value),
        // A warp slot of the SM (at most 64 warps an SM), and the count.
        "%warpid" => value < 64,
        "%nwarpid" => (1..=64).contains(&value),
        // Counters: any 32-bit value; a 64-bit clock and the timer have
        // been running (nonzero).
        "%clock" => value <= u64::from(u32::MAX),
        "%clock64" | "%globaltimer" => value != 0,
        "%gridid" => true,
        // Shared memory: at most the 228 KiB an SM has; none is dynamic.
        "%total_smem_size" => value <= 228 * 1024,
        "%dynamic_smem_size" => value == 0,
        _ => false,
    }
}

/// An error bound of an approximate form.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    /// At most this many units in the last place from the exact result.
    Ulps(f64),
    /// Relative error at most 2^x.
    Relative(f64),
    /// Absolute error at most 2^x.
    Absolute(f64),
}

/// What an approximate form promises for a source value.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Limit {
    Within(Bound),
    /// No numeric bound: both results NaN, or both of magnitude at most this.
    RangeOnly(f64),
}

/// The promise of an approximate form as a function of its (first) source.
type Rule = fn(f64) -> Limit;

/// The approximate forms and their error bounds, by opcode prefix (the
/// longest matching prefix wins). The figures are the PTX ISA's, as the
/// interpreter's `semantics/approx.rs` documents them per function together
/// with what was measured on an H200 (where the ISA gives none, or the
/// measurement is larger, the measurement); that module does not export
/// them, so they are copied here. A comparison allows one more ULP for the
/// interpreter's own rounding (its results are the exact function rounded
/// to nearest).
///
/// - `div.approx.f32`, `div.full.f32`: 2 ulp.
/// - `rcp.approx.f32`: 1 ulp; `rcp.approx.ftz.f64` and
///   `rsqrt.approx.ftz.f64` (computed from the top 32 bits): relative
///   2^-19 (measured 2^-19.97 and 2^-20.08; the ISA gives no figure).
/// - `sqrt.approx.f32`: relative 2^-23; `rsqrt.approx.f32`: relative
///   2^-22.9; `rsqrt.approx.f64`: 2 ulp (no ISA figure; measured 1 ulp).
/// - `sin.approx.f32`, `cos.approx.f32`: absolute 2^-20.4 for |a| <= 2 pi
///   (ISA 2^-20.5; `cos` measured 2^-20.46 on (pi, 2 pi]), 2^-14.7 for
///   |a| <= 100 pi, beyond only |result| <= 1.
/// - `lg2.approx.f32`: absolute 2^-22 for a in (0.5, 2), relative 2^-22
///   elsewhere.
/// - `ex2.approx.f32`: 2 ulp; `.f16`/`.f16x2`: relative 2^-9.9;
///   `.ftz.bf16`/`.ftz.bf16x2`: relative 2^-7.
/// - `tanh.approx.f32`: relative 2^-10.987; `.f16`/`.f16x2`: relative
///   2^-10; `.bf16`/`.bf16x2`: relative 2^-7 (measured; no ISA figure).
const APPROX_BOUNDS: &[(&str, Rule)] = &[
    ("div.approx.", ulps_2),
    ("div.full.", ulps_2),
    ("rcp.approx.ftz.f64", relative_19),
    ("rcp.approx.", ulps_1),
    ("sqrt.approx.", relative_23),
    ("rsqrt.approx.ftz.f64", relative_19),
    ("rsqrt.approx.f64", ulps_2),
    ("rsqrt.approx.", relative_22_9),
    ("sin.approx.", sin_cos),
    ("cos.approx.", sin_cos),
    ("lg2.approx.", lg2),
    ("ex2.approx.f16", relative_9_9),
    ("ex2.approx.ftz.bf16", relative_7),
    ("ex2.approx.", ulps_2),
    ("tanh.approx.f16", relative_10),
    ("tanh.approx.bf16", relative_7),
    ("tanh.approx.", relative_10_987),
];

fn ulps_1(_: f64) -> Limit {
    Limit::Within(Bound::Ulps(1.0))
}
fn ulps_2(_: f64) -> Limit {
    Limit::Within(Bound::Ulps(2.0))
}
fn relative_7(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-7.0))
}
fn relative_9_9(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-9.9))
}
fn relative_10(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-10.0))
}
fn relative_10_987(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-10.987))
}
fn relative_19(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-19.0))
}
fn relative_22_9(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-22.9))
}
fn relative_23(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-23.0))
}
fn sin_cos(a: f64) -> Limit {
    let pi = std::f64::consts::PI;
    match a.abs() {
        m if m <= 2.0 * pi => Limit::Within(Bound::Absolute(-20.4)),
        m if m <= 100.0 * pi => Limit::Within(Bound::Absolute(-14.7)),
        _ => Limit::RangeOnly(1.0),
    }
}
fn lg2(a: f64) -> Limit {
    if a > 0.5 && a < 2.0 {
        Limit::Within(Bound::Absolute(-22.0))
    } else {
        Limit::Within(Bound::Relative(-22.0))
    }
}

fn approx_rule(opcode: &str) -> Option<Rule> {
    APPROX_BOUNDS
        .iter()
        .filter(|(prefix, _)| opcode.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, rule)| *rule)
}

/// The ULPs `bound` allows around the result `reference`.
fn allowed_ulps(fmt: Fmt, bound: Bound, reference: f64) -> f64 {
    match bound {
        Bound::Ulps(n) => n,
        Bound::Relative(x) => (2f64.powf(x) * 2f64.powi(fmt.man as i32 + 1)).ceil(),
        Bound::Absolute(x) => (2f64.powf(x) / fmt.ulp_at(reference)).ceil(),
    }
}

/// The distance in ULPs between two values of `fmt` (`None`: a NaN against
/// anything but the same NaN, or an infinity against a different value).
fn ulp_distance(fmt: Fmt, a: u64, b: u64) -> Option<f64> {
    match (fmt.is_nan(a), fmt.is_nan(b)) {
        // The interpreter claims the hardware's NaN bits (canonical NaNs,
        // f64 propagation) for the approximate forms too.
        (true, true) => return (a == b).then_some(0.0),
        (false, false) => {}
        _ => return None,
    }
    if (fmt.is_inf(a) || fmt.is_inf(b)) && a != b {
        return None;
    }
    let ordered = |x: u64| {
        let magnitude = i128::from(x & !fmt.sign());
        if x & fmt.sign() != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    Some((ordered(a) - ordered(b)).unsigned_abs() as f64)
}

/// `|a - b|` as real values, in ULPs of `fmt` at `b` (the same unit
/// [`allowed_ulps`] converts an absolute bound into); `None` as for
/// [`ulp_distance`].
fn absolute_distance(fmt: Fmt, a: u64, b: u64) -> Option<f64> {
    let exact = ulp_distance(fmt, a, b)?;
    if exact == 0.0 {
        return Some(0.0);
    }
    let (x, y) = (fmt.to_f64(a), fmt.to_f64(b));
    Some((x - y).abs() / fmt.ulp_at(y))
}

/// The float lanes of a value of type `ty`: (format, bits) pairs.
fn float_lanes(ty: PtxType, value: u64) -> Vec<(Fmt, u64)> {
    match ty {
        PtxType::F16x2 => vec![(Fmt::F16, value & 0xffff), (Fmt::F16, value >> 16 & 0xffff)],
        PtxType::Bf16x2 => vec![
            (Fmt::BF16, value & 0xffff),
            (Fmt::BF16, value >> 16 & 0xffff),
        ],
        _ => scalar_float(ty)
            .map(|f| vec![(f, value)])
            .unwrap_or_default(),
    }
}

/// The comparison of one case.
#[derive(Debug, Default)]
struct Outcome {
    rows: usize,
    mismatched_rows: usize,
    examples: Vec<String>,
    /// Approximate forms: the largest ULP distance seen, and the bound.
    approx: Option<(f64, f64)>,
    /// Why the case could not be compared (a build, interpreter or GPU failure).
    failure: Option<String>,
}

fn element(bytes: &[u8], index: usize, size: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&bytes[index * size..(index + 1) * size]);
    u64::from_le_bytes(b)
}

/// Names and hex values of the lanes of row `r` of the tensors `which`.
fn describe_row(
    case: &Case,
    built: &Built,
    data: &[Vec<u8>],
    r: usize,
    which: impl Fn(&TensorRole) -> bool,
) -> String {
    let operands = case.variant.operands();
    let mut parts = Vec::new();
    for (k, role) in built.roles.iter().enumerate() {
        if !which(role) || data[k].is_empty() {
            continue;
        }
        let size = role.dtype.size_bytes();
        let row = if role.per_row { r } else { 0 };
        // The tensors of a CTA barrier's exchange name its immediate.
        let name = match (operands[role.operand].kind, role.role) {
            (OperandKind::Immediate { .. }, Role::Source) => "ex_in",
            (OperandKind::Immediate { .. }, _) => "ex_out",
            _ => operands[role.operand].name,
        };
        for lane in 0..usize::from(role.lanes) {
            let v = element(&data[k], row * usize::from(role.lanes) + lane, size);
            let label = match (role.role == Role::Memory, role.lanes > 1) {
                (true, true) => format!("[{name}][{lane}]"),
                (true, false) => format!("[{name}]"),
                (false, true) => format!("{name}[{lane}]"),
                (false, false) => name.to_string(),
            };
            parts.push(format!("{label}={v:#0w$x}", w = size * 2 + 2));
        }
    }
    parts.join(" ")
}

/// Compares `ours` (the reference: the GPU, or the first interpreter run)
/// with `theirs` (the interpreter, or its second run) for one case.
fn compare(
    case: &Case,
    built: &Built,
    reference: &[Vec<u8>],
    other: &[Vec<u8>],
    smoke: bool,
) -> Outcome {
    let mut outcome = Outcome::default();
    let operands = case.variant.operands();
    let mut bad_rows = BTreeSet::new();
    let mut notes: BTreeMap<usize, String> = BTreeMap::new();
    let mut max_ulp: Option<(f64, f64)> = None;
    for (k, role) in built.roles.iter().enumerate() {
        let compared = match role.role {
            Role::Source => false,
            Role::Destination => true,
            Role::Memory => built.written[k],
        };
        if !compared {
            continue;
        }
        let check = built.checks[k];
        let size = role.dtype.size_bytes();
        let rows = if role.per_row { case.rows } else { 1 };
        let lanes = usize::from(role.lanes);
        let ty = operands[role.operand].ty;
        // Opaque: equal inputs, equal outputs, on each side.
        let mut opaque: [HashMap<Vec<u8>, Vec<u8>>; 2] = [HashMap::new(), HashMap::new()];
        for r in 0..rows {
            for lane in 0..lanes {
                let at = r * lanes + lane;
                let (a, b) = (
                    element(&reference[k], at, size),
                    element(&other[k], at, size),
                );
                let bad = match check {
                    Check::Exact => a != b,
                    Check::Unordered => false,
                    Check::Plausible(name) => {
                        let bad = !plausible(name, a) || !plausible(name, b);
                        if bad {
                            notes
                                .entry(r)
                                .or_insert_with(|| format!("implausible {name}"));
                        }
                        bad
                    }
                    Check::Opaque => {
                        let input: Vec<u8> = built
                            .inputs
                            .iter()
                            .zip(&built.roles)
                            .filter(|(i, t)| !i.is_empty() && t.per_row)
                            .flat_map(|(i, t)| {
                                i[r * t.row_bytes()..(r + 1) * t.row_bytes()].to_vec()
                            })
                            .collect();
                        let mut bad = false;
                        for (side, v) in [(0, a), (1, b)] {
                            let out = v.to_le_bytes().to_vec();
                            let seen = opaque[side].entry(input.clone()).or_insert(out.clone());
                            if *seen != out {
                                bad = true;
                                notes.entry(r).or_insert_with(|| {
                                    "equal inputs gave different policies".into()
                                });
                            }
                        }
                        bad
                    }
                    Check::Approx(rule) if !smoke => {
                        let sources = first_source(case, built, r);
                        let mut bad = false;
                        for (j, ((fmt, x), (_, y))) in float_lanes(ty, a)
                            .into_iter()
                            .zip(float_lanes(ty, b))
                            .enumerate()
                        {
                            let source = sources.get(j).or(sources.first()).copied().unwrap_or(0.0);
                            let bound = match rule(source) {
                                Limit::Within(bound) => bound,
                                Limit::RangeOnly(range) => {
                                    let ok = (fmt.is_nan(x) && fmt.is_nan(y))
                                        || (fmt.to_f64(x).abs() <= range
                                            && fmt.to_f64(y).abs() <= range);
                                    if !ok {
                                        bad = true;
                                        notes.entry(r).or_insert_with(|| {
                                            format!("outside [-{range}, {range}]")
                                        });
                                    }
                                    continue;
                                }
                            };
                            let allowed = allowed_ulps(fmt, bound, fmt.to_f64(y)) + 1.0;
                            let distance = match bound {
                                // An absolute bound is about the values'
                                // difference, which counting the floats
                                // between them overstates near zero.
                                Bound::Absolute(_) => absolute_distance(fmt, x, y),
                                _ => ulp_distance(fmt, x, y),
                            };
                            match distance {
                                Some(d) => {
                                    let m = max_ulp.get_or_insert((0.0, allowed));
                                    m.0 = m.0.max(d);
                                    m.1 = m.1.max(allowed);
                                    if d > allowed {
                                        bad = true;
                                        notes.entry(r).or_insert_with(|| {
                                            format!("{d} ulp apart, bound {allowed}")
                                        });
                                    }
                                }
                                None => {
                                    bad = true;
                                    notes.entry(r).or_insert_with(|| {
                                        "a NaN or infinity against different bits".into()
                                    });
                                }
                            }
                        }
                        bad
                    }
                    // The smoke test compares two interpreter runs: exact.
                    Check::Approx(..) => a != b,
                };
                if bad {
                    bad_rows.insert(r);
                }
            }
        }
    }
    outcome.rows = case.rows;
    outcome.mismatched_rows = bad_rows.len();
    outcome.approx = max_ulp;
    let (left, right) = if smoke {
        ("run 1", "run 2")
    } else {
        ("gpu", "interp")
    };
    for &r in bad_rows.iter().take(5) {
        let inputs = describe_row(case, built, &built.inputs, r, |t| {
            t.role != Role::Destination
        });
        let outputs = |data: &[Vec<u8>]| {
            describe_row(case, built, data, r, |t| match t.role {
                Role::Source => false,
                Role::Destination => true,
                Role::Memory => case.family == Family::Store || case.family == Family::Atomic,
            })
        };
        let mut line = format!(
            "row {r}: {inputs} -> {left} {} | {right} {}",
            outputs(reference),
            outputs(other)
        );
        if let Some(note) = notes.get(&r) {
            let _ = write!(line, " ({note})");
        }
        if let Some(note) = built.warp_notes.get(r / 32) {
            let _ = write!(line, " [warp {}, lane {}: {note}]", r / 32, r % 32);
        }
        let block = case.block as usize;
        if let Some(note) = built.cta_notes.get(r / block) {
            let _ = write!(line, " [CTA {}, thread {}: {note}]", r / block, r % block);
        }
        outcome.examples.push(line);
    }
    outcome
}

/// The values of the first source operand's float lanes in row `r` (the
/// argument an approximate form's bound depends on).
fn first_source(case: &Case, built: &Built, r: usize) -> Vec<f64> {
    let Some((k, role)) = built
        .roles
        .iter()
        .enumerate()
        .find(|(_, t)| t.role == Role::Source)
    else {
        return Vec::new();
    };
    let ty = case.variant.operands()[role.operand].ty;
    let size = role.dtype.size_bytes();
    let bits = element(&built.inputs[k], r * usize::from(role.lanes), size);
    float_lanes(ty, bits)
        .into_iter()
        .map(|(fmt, b)| fmt.to_f64(b))
        .collect()
}

// ---------------------------------------------------------------------------
// The GPU

mod gpu {
    use super::*;
    use tile_kernel::Device;
    use tile_kernel::runtime::Kernel;
    use tile_kernel_lowering::DType;

    use cudarc::driver::{
        CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
    };
    use cudarc::nvrtc::Ptx;

    /// How kernels reach the GPU.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Mode {
        /// A batch of kernels joined into one module, loaded and launched
        /// through cudarc: one JIT compilation a batch.
        Batched,
        /// Every kernel through the runtime's `Kernel` and typed tensors:
        /// one module load a kernel.
        Runtime,
    }

    /// Loads modules; shared by the host threads that JIT-compile batches
    /// in parallel.
    #[derive(Clone)]
    pub struct Jit {
        device: Device,
        context: Arc<CudaContext>,
        pub mode: Mode,
    }

    /// A batch's loaded functions (batched mode), by index in the batch.
    #[derive(Default)]
    pub struct Loaded {
        functions: BTreeMap<usize, CudaFunction>,
        pub seconds: f64,
    }

    /// The GPU: the stream launches go to.
    pub struct Gpu {
        pub jit: Jit,
        stream: Arc<CudaStream>,
        pub seconds_jit: f64,
        pub seconds_run: f64,
    }

    impl Gpu {
        /// GPU 0 (never the CPU interpreter: comparing it with itself would
        /// prove nothing); panics where there is none.
        pub fn open() -> Gpu {
            let device = Device::cuda(0).unwrap_or_else(|e| {
                panic!("this test needs an NVIDIA GPU (it compares the interpreter with one): {e}")
            });
            let context = device
                .context()
                .expect("a CUDA device has a context")
                .clone();
            let stream = device.stream().expect("a CUDA device has a stream").clone();
            let cc = device.compute_capability().unwrap_or((0, 0));
            println!(
                "GPU: {} (compute capability {}.{})",
                device.name().unwrap_or_else(|_| "?".into()),
                cc.0,
                cc.1
            );
            if cc != (9, 0) {
                println!(
                    "warning: the interpreter is specified against the H200 (sm_90); this GPU is sm_{}{}",
                    cc.0, cc.1
                );
            }
            let mode = match std::env::var("TILE_KERNEL_DIFF_LAUNCH").as_deref() {
                Ok("runtime") => Mode::Runtime,
                _ => Mode::Batched,
            };
            Gpu {
                jit: Jit {
                    device,
                    context,
                    mode,
                },
                stream,
                seconds_jit: 0.0,
                seconds_run: 0.0,
            }
        }

        /// Runs every loaded kernel of `batch`, filling `gpu`. An error is
        /// fatal: the context is unusable after a fault.
        pub fn run(
            &mut self,
            cases: &[Case],
            batch: &mut [Built],
            loaded: Loaded,
        ) -> Result<(), String> {
            self.seconds_jit += loaded.seconds;
            match self.jit.mode {
                Mode::Batched => self.run_batched(cases, batch, loaded),
                Mode::Runtime => {
                    for built in batch
                        .iter_mut()
                        .filter(|b| b.runtime_kernel.is_some() && b.gpu.is_none())
                    {
                        let result = self.run_one(&cases[built.case], built);
                        let fatal = matches!(&result, Err(e) if e.starts_with("fatal"));
                        if fatal {
                            return Err(result.err().unwrap_or_default());
                        }
                        built.gpu = Some(result);
                    }
                    Ok(())
                }
            }
        }

        fn run_batched(
            &mut self,
            cases: &[Case],
            batch: &mut [Built],
            loaded: Loaded,
        ) -> Result<(), String> {
            if loaded.functions.is_empty() {
                return Ok(());
            }
            let started = Instant::now();
            // One arena for every tensor of the batch, 256-byte aligned.
            let mut offsets: Vec<Vec<usize>> = vec![Vec::new(); batch.len()];
            let mut arena = Vec::new();
            for &i in loaded.functions.keys() {
                let case = &cases[batch[i].case];
                for k in 0..batch[i].roles.len() {
                    arena.resize(arena.len().next_multiple_of(256), 0);
                    offsets[i].push(arena.len());
                    arena.extend(batch[i].initial(case, k, GPU_SENTINEL));
                }
            }
            let device_arena = self
                .stream
                .clone_htod(&arena)
                .map_err(|e| format!("fatal: uploading the inputs: {e}"))?;
            {
                let (base, _record) = device_arena.device_ptr(&self.stream);
                for (&i, function) in &loaded.functions {
                    let built = &batch[i];
                    let case = &cases[built.case];
                    let addresses: Vec<u64> = offsets[i].iter().map(|o| base + *o as u64).collect();
                    let symbols = built.symbol_args(case);
                    let mut launch = self.stream.launch_builder(function);
                    for a in &addresses {
                        launch.arg(a);
                    }
                    for s in &symbols {
                        launch.arg(s);
                    }
                    let grid = built.grid(case);
                    // SAFETY: the entry's parameters are, in order, one
                    // `.u64` global address per tensor and one `.u64` per
                    // size symbol (value / divisor), as the checker emitted
                    // them; each address points at a 256-byte-aligned range
                    // of the arena holding exactly that tensor's bytes for
                    // `case.rows` rows, the symbol is `case.rows`, and the
                    // grid and block are the program's launch shape for it.
                    // The checker proved every access in bounds, aligned
                    // and race-free for such a launch. (The warp-collective
                    // programs replace only register statements; their
                    // memory accesses are the checker's.)
                    unsafe {
                        launch.launch(LaunchConfig {
                            grid_dim: (grid[0], grid[1], grid[2]),
                            block_dim: (case.block, 1, 1),
                            shared_mem_bytes: 0,
                        })
                    }
                    .map_err(|e| format!("fatal: launching {}: {e}", case.label))?;
                }
            }
            self.stream
                .synchronize()
                .map_err(|e| format!("fatal: running the batch (a kernel faulted?): {e}"))?;
            let out = self
                .stream
                .clone_dtoh(&device_arena)
                .map_err(|e| format!("fatal: downloading the outputs: {e}"))?;
            self.stream
                .synchronize()
                .map_err(|e| format!("fatal: downloading the outputs: {e}"))?;
            for &i in loaded.functions.keys() {
                let case = &cases[batch[i].case];
                let tensors = (0..batch[i].roles.len())
                    .map(|k| {
                        let at = offsets[i][k];
                        out[at..at + batch[i].tensor_len(case, k)].to_vec()
                    })
                    .collect();
                batch[i].gpu = Some(Ok(tensors));
            }
            self.seconds_run += started.elapsed().as_secs_f64();
            Ok(())
        }

        /// One kernel through the runtime: typed tensors and a checked
        /// launch of the `Kernel` [`Jit::load`] made.
        fn run_one(&mut self, case: &Case, built: &Built) -> Result<Vec<Vec<u8>>, String> {
            let Some(kernel) = built.runtime_kernel else {
                return Err("not loaded".into());
            };
            let started = Instant::now();
            let device = &self.jit.device;
            let mut tensors = Vec::new();
            for k in 0..built.roles.len() {
                let role = &built.roles[k];
                let bytes = built.initial(case, k, GPU_SENTINEL);
                let shape = if role.per_row {
                    vec![case.rows, usize::from(role.lanes)]
                } else {
                    vec![usize::from(role.lanes)]
                };
                tensors.push(AnyTensor::upload(device, role.dtype, &bytes, &shape)?);
            }
            let mut launch = kernel.launch(device).map_err(|e| format!("fatal: {e}"))?;
            for (tensor, written) in tensors.iter_mut().zip(&built.written) {
                tensor
                    .push(&mut launch, *written)
                    .map_err(|e| format!("fatal: {e}"))?;
            }
            launch.run().map_err(|e| format!("fatal: launching: {e}"))?;
            let out = tensors
                .iter()
                .map(AnyTensor::download)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("fatal: {e}"))?;
            self.seconds_run += started.elapsed().as_secs_f64();
            Ok(out)
        }
    }

    impl Jit {
        /// JIT-compiles a batch (of one target): one joined module
        /// (batched mode; where the driver rejects it, each kernel alone,
        /// to name the ones it rejects), or every kernel's own `Kernel`
        /// (runtime mode). Rejected kernels get their `gpu` error here.
        pub fn load(&self, batch: &mut [Built]) -> Loaded {
            let started = Instant::now();
            let mut loaded = Loaded::default();
            let ready: Vec<usize> = (0..batch.len())
                .filter(|&i| batch[i].ptx.is_some())
                .collect();
            match self.mode {
                Mode::Runtime => {
                    for &i in &ready {
                        let kernel = self.kernel(&batch[i]);
                        match kernel.function(&self.device) {
                            Ok(_) => batch[i].runtime_kernel = Some(kernel),
                            Err(e) => {
                                batch[i].gpu = Some(Err(format!("the driver rejects the PTX: {e}")))
                            }
                        }
                    }
                }
                Mode::Batched if !ready.is_empty() => {
                    let modules: Vec<String> = ready
                        .iter()
                        .map(|&i| batch[i].ptx.clone().unwrap_or_default())
                        .collect();
                    let joined = form_kernels::join_modules(&modules);
                    let whole = self.context.load_module(Ptx::from_src(joined));
                    for &i in &ready {
                        let module = match &whole {
                            Ok(module) => Ok(module.clone()),
                            Err(_) => self.context.load_module(Ptx::from_src(
                                batch[i].ptx.clone().unwrap_or_default(),
                            )),
                        };
                        let function = module
                            .map_err(|_| ())
                            .and_then(|m| m.load_function(&batch[i].entry).map_err(|_| ()));
                        match function {
                            Ok(f) => {
                                loaded.functions.insert(i, f);
                            }
                            Err(()) => {
                                // The runtime reads the driver's JIT log.
                                let why = match self.kernel(&batch[i]).function(&self.device) {
                                    Ok(_) => {
                                        "the kernel loads on its own, but not in its batch".into()
                                    }
                                    Err(e) => format!("the driver rejects the PTX: {e}"),
                                };
                                batch[i].gpu = Some(Err(why));
                            }
                        }
                    }
                }
                Mode::Batched => {}
            }
            loaded.seconds = started.elapsed().as_secs_f64();
            loaded
        }

        /// The runtime's `Kernel` for a built case (leaked: the runtime
        /// keeps kernels in statics).
        fn kernel(&self, built: &Built) -> &'static Kernel {
            let (Some(program), Some(ptx)) = (&built.program, &built.ptx) else {
                unreachable!("only built kernels are loaded");
            };
            // SAFETY: the spec comes from the checker's own program and
            // the PTX it emitted for it (`spec_for` copies its parameters,
            // size symbols and launch shape), and the checker proved every
            // access of that program in bounds, aligned and race-free for
            // every launch the runtime's checks accept.
            Box::leak(Box::new(unsafe {
                Kernel::new(form_kernels::spec_for(program, ptx))
            }))
        }
    }

    /// A device tensor of one of the four container dtypes.
    enum AnyTensor {
        U8(tile_kernel::DeviceTensor<u8>),
        U16(tile_kernel::DeviceTensor<u16>),
        U32(tile_kernel::DeviceTensor<u32>),
        U64(tile_kernel::DeviceTensor<u64>),
    }

    impl AnyTensor {
        fn upload(
            device: &Device,
            dtype: DType,
            bytes: &[u8],
            shape: &[usize],
        ) -> Result<AnyTensor, String> {
            let e = |e: tile_kernel::Error| format!("fatal: uploading: {e}");
            Ok(match dtype.size_bytes() {
                1 => AnyTensor::U8(device.upload(bytes, shape).map_err(e)?),
                2 => {
                    let v: Vec<u16> = bytes
                        .chunks(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect();
                    AnyTensor::U16(device.upload(&v, shape).map_err(e)?)
                }
                4 => {
                    let v: Vec<u32> = bytes
                        .chunks(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    AnyTensor::U32(device.upload(&v, shape).map_err(e)?)
                }
                _ => {
                    let v: Vec<u64> = bytes
                        .chunks(8)
                        .map(|c| u64::from_le_bytes(std::array::from_fn(|i| c[i])))
                        .collect();
                    AnyTensor::U64(device.upload(&v, shape).map_err(e)?)
                }
            })
        }

        fn push<'a>(
            &'a mut self,
            launch: &mut tile_kernel::runtime::LaunchBuilder<'a>,
            written: bool,
        ) -> tile_kernel::Result<()> {
            match (self, written) {
                (AnyTensor::U8(t), true) => launch.push_tensor_mut(t),
                (AnyTensor::U8(t), false) => launch.push_tensor(t),
                (AnyTensor::U16(t), true) => launch.push_tensor_mut(t),
                (AnyTensor::U16(t), false) => launch.push_tensor(t),
                (AnyTensor::U32(t), true) => launch.push_tensor_mut(t),
                (AnyTensor::U32(t), false) => launch.push_tensor(t),
                (AnyTensor::U64(t), true) => launch.push_tensor_mut(t),
                (AnyTensor::U64(t), false) => launch.push_tensor(t),
            }
        }

        fn download(&self) -> tile_kernel::Result<Vec<u8>> {
            Ok(match self {
                AnyTensor::U8(t) => t.download()?,
                AnyTensor::U16(t) => t
                    .download()?
                    .into_iter()
                    .flat_map(u16::to_le_bytes)
                    .collect(),
                AnyTensor::U32(t) => t
                    .download()?
                    .into_iter()
                    .flat_map(u32::to_le_bytes)
                    .collect(),
                AnyTensor::U64(t) => t
                    .download()?
                    .into_iter()
                    .flat_map(u64::to_le_bytes)
                    .collect(),
            })
        }
    }
}

// ---------------------------------------------------------------------------
// Driving a run

/// What a whole run found.
#[derive(Debug, Default)]
struct Report {
    test: &'static str,
    variants: usize,
    cases: usize,
    rows: usize,
    skips: Skips,
    /// Case label -> outcome, for cases with mismatches or failures.
    bad: Vec<(String, Outcome)>,
    /// Approximate forms: label -> (max ulp seen, bound).
    approx: BTreeMap<String, (f64, f64)>,
    /// Cases by family, and of them compared for plausibility only.
    plausibility_only: usize,
    seconds: BTreeMap<&'static str, f64>,
    fatal: Option<String>,
}

impl Report {
    fn failed(&self) -> bool {
        !self.bad.is_empty() || self.fatal.is_some()
    }

    fn print(&self) {
        println!("== {}", self.test);
        println!(
            "{} usable legal variants; {} cases run (variants x immediates x special registers); {} rows compared; {} compared for plausibility only",
            self.variants, self.cases, self.rows, self.plausibility_only
        );
        self.skips.print();
        if !self.approx.is_empty() {
            println!("approximate forms (largest ULP distance seen / allowed):");
            for (label, (seen, bound)) in &self.approx {
                println!("  {label}: {seen} / {bound}");
            }
        }
        let timing: Vec<String> = self
            .seconds
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}s"))
            .collect();
        println!("time: {}", timing.join(", "));
        println!("mismatching or failing cases: {}", self.bad.len());
        let mut by_mnemonic: BTreeMap<&str, usize> = BTreeMap::new();
        for (label, _) in &self.bad {
            let mnemonic = label.split('.').next().unwrap_or(label);
            *by_mnemonic.entry(mnemonic).or_default() += 1;
        }
        if !by_mnemonic.is_empty() {
            let counts: Vec<String> = by_mnemonic
                .iter()
                .map(|(m, n)| format!("{m}: {n}"))
                .collect();
            println!("  by instruction: {}", counts.join(", "));
        }
        const SHOWN: usize = 400;
        if self.bad.len() > SHOWN {
            println!(
                "  (the first {SHOWN} follow; all are in the JSON summary, TILE_KERNEL_DIFF_OUT)"
            );
        }
        for (label, outcome) in self.bad.iter().take(SHOWN) {
            match &outcome.failure {
                Some(why) => println!("  {label}: {why}"),
                None => {
                    println!(
                        "  {label}: {} of {} rows differ",
                        outcome.mismatched_rows, outcome.rows
                    );
                    for e in &outcome.examples {
                        println!("      {e}");
                    }
                }
            }
        }
        if let Some(fatal) = &self.fatal {
            println!("FATAL: {fatal}");
        }
    }

    fn json(&self) -> String {
        fn s(text: &str) -> String {
            let mut out = String::from("\"");
            for c in text.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(out, "\\u{:04x}", c as u32);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        let skipped: Vec<String> = self
            .skips
            .0
            .iter()
            .map(|(reason, list)| format!("{}: {}", s(reason), list.len()))
            .collect();
        let approx: Vec<String> = self
            .approx
            .iter()
            .map(|(label, (seen, bound))| {
                format!(
                    "{{\"case\": {}, \"max_ulp\": {seen}, \"allowed_ulp\": {bound}}}",
                    s(label)
                )
            })
            .collect();
        let bad: Vec<String> = self
            .bad
            .iter()
            .map(|(label, o)| {
                let examples: Vec<String> = o.examples.iter().map(|e| s(e)).collect();
                format!(
                    "{{\"case\": {}, \"failure\": {}, \"rows\": {}, \"mismatched_rows\": {}, \"examples\": [{}]}}",
                    s(label),
                    o.failure.as_deref().map_or("null".into(), s),
                    o.rows,
                    o.mismatched_rows,
                    examples.join(", ")
                )
            })
            .collect();
        let seconds: Vec<String> = self
            .seconds
            .iter()
            .map(|(k, v)| format!("{}: {v:.3}", s(k)))
            .collect();
        format!(
            "{{\n  \"test\": {},\n  \"variants\": {},\n  \"cases\": {},\n  \"rows_compared\": {},\n  \"plausibility_only_cases\": {},\n  \"skipped_total\": {},\n  \"skipped\": {{{}}},\n  \"mismatched_cases\": {},\n  \"fatal\": {},\n  \"seconds\": {{{}}},\n  \"approx\": [\n    {}\n  ],\n  \"mismatches\": [\n    {}\n  ]\n}}\n",
            s(self.test),
            self.variants,
            self.cases,
            self.rows,
            self.plausibility_only,
            self.skips.total(),
            skipped.join(", "),
            self.bad.len(),
            self.fatal.as_deref().map_or("null".into(), s),
            seconds.join(", "),
            approx.join(",\n    "),
            bad.join(",\n    ")
        )
    }

    /// Writes the JSON summary where `TILE_KERNEL_DIFF_OUT` says, with
    /// `suffix` before the extension for the tests other than the main one.
    fn write(&self, suffix: &str) {
        let Ok(path) = std::env::var("TILE_KERNEL_DIFF_OUT") else {
            return;
        };
        let path = if suffix.is_empty() {
            path
        } else {
            match path.strip_suffix(".json") {
                Some(stem) => format!("{stem}.{suffix}.json"),
                None => format!("{path}.{suffix}"),
            }
        };
        if let Some(parent) = std::path::Path::new(&path).parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::write(&path, self.json()) {
            Ok(()) => println!("summary written to {path}"),
            Err(e) => println!("could not write {path}: {e}"),
        }
    }
}

/// Enumerates, builds, runs (on the GPU unless `gpu` is `None`) and
/// compares everything; prints and returns the report.
fn run_all(test: &'static str, config: &Config, shared: bool, gpu: Option<gpu::Gpu>) -> Report {
    let (variants, cases, skips) = enumerate(config, shared);
    run_cases(test, config, (variants, cases, skips), gpu)
}

/// Builds, runs (on the GPU unless `gpu` is `None`) and compares `cases`
/// (with the count of variants they come from and what was skipped);
/// prints and returns the report.
fn run_cases(
    test: &'static str,
    config: &Config,
    (variants, mut cases, skips): (usize, Vec<Case>, Skips),
    mut gpu: Option<gpu::Gpu>,
) -> Report {
    let started = Instant::now();
    let smoke = gpu.is_none();
    // Batches share one target (one module each).
    cases.sort_by_key(|c| (c.target.sm, c.target.arch_specific));
    println!(
        "{test}: {variants} variants, {} cases, {} skipped; {} host threads{}",
        cases.len(),
        skips.total(),
        config.threads,
        gpu.as_ref().map_or(String::new(), |g| format!(
            ", GPU launches {:?}",
            g.jit.mode
        ))
    );
    let mut report = Report {
        test,
        variants,
        cases: cases.len(),
        skips,
        ..Report::default()
    };
    let mut batches: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    while start < cases.len() {
        let target = cases[start].target;
        let mut end = start;
        while end < cases.len() && end - start < config.batch && cases[end].target == target {
            end += 1;
        }
        batches.push(start..end);
        start = end;
    }
    let seconds_build = Mutex::new(0.0f64);
    let mut seconds_compare = 0.0;
    let mut done = 0;
    let jit = gpu.as_ref().map(|g| g.jit.clone());
    std::thread::scope(|scope| {
        let (sender, receiver) =
            std::sync::mpsc::sync_channel::<(Vec<Built>, gpu::Loaded)>(config.threads);
        let cases = &cases;
        let seconds_build = &seconds_build;
        // The producer builds (and runs on the interpreter) the cases of
        // `threads` batches at a time on all host threads, then JIT-compiles
        // their modules in parallel, while this thread runs the batches
        // before them on the GPU.
        scope.spawn(move || {
            for group in batches.chunks(config.threads.max(1)) {
                let t = Instant::now();
                let indices: Vec<usize> = group.iter().flat_map(|r| r.clone()).collect();
                let mut built =
                    parallel_map(&indices, config.threads, |_, &i| build(i, &cases[i], smoke))
                        .into_iter();
                let mut group_batches: Vec<Vec<Built>> = group
                    .iter()
                    .map(|r| built.by_ref().take(r.len()).collect())
                    .collect();
                *seconds_build.lock().unwrap_or_else(|e| e.into_inner()) +=
                    t.elapsed().as_secs_f64();
                let loaded: Vec<gpu::Loaded> = match &jit {
                    Some(jit) => {
                        let slots: Vec<Mutex<&mut Vec<Built>>> =
                            group_batches.iter_mut().map(Mutex::new).collect();
                        parallel_map(&slots, config.threads, |_, slot| {
                            let mut batch = slot.lock().unwrap_or_else(|e| e.into_inner());
                            jit.load(&mut batch)
                        })
                    }
                    None => group_batches
                        .iter()
                        .map(|_| gpu::Loaded::default())
                        .collect(),
                };
                for pair in group_batches.into_iter().zip(loaded) {
                    if sender.send(pair).is_err() {
                        return;
                    }
                }
            }
        });
        let dump = std::env::var("TILE_KERNEL_DIFF_DUMP").ok();
        for (mut batch, loaded) in receiver {
            if let Some(dir) = &dump {
                let modules: Vec<String> = batch.iter().filter_map(|b| b.ptx.clone()).collect();
                if !modules.is_empty() {
                    let _ = std::fs::create_dir_all(dir);
                    let path = format!("{dir}/batch{}.ptx", batch[0].case);
                    let _ = std::fs::write(path, form_kernels::join_modules(&modules));
                }
            }
            if let Some(gpu) = gpu.as_mut()
                && report.fatal.is_none()
                && let Err(e) = gpu.run(cases, &mut batch, loaded)
            {
                report.fatal = Some(e);
            }
            let t = Instant::now();
            for built in &batch {
                let case = &cases[built.case];
                done += 1;
                if built
                    .checks
                    .iter()
                    .any(|c| matches!(c, Check::Plausible(_) | Check::Opaque))
                {
                    report.plausibility_only += 1;
                }
                let failure = |why: String| Outcome {
                    rows: case.rows,
                    failure: Some(why),
                    ..Outcome::default()
                };
                let outcome = if let Some(e) = &built.error {
                    failure(format!("harness: {e}"))
                } else {
                    match (&built.interp, &built.gpu, &built.interp_again) {
                        (Err(e), ..) => failure(e.clone()),
                        (Ok(_), None, None) if !smoke => continue,
                        (Ok(_), Some(Err(e)), _) => failure(format!("GPU: {e}")),
                        (Ok(interp), Some(Ok(gpu)), _) => compare(case, built, gpu, interp, false),
                        (Ok(_), None, Some(Err(e))) => failure(e.clone()),
                        (Ok(first), None, Some(Ok(second))) => {
                            compare(case, built, first, second, true)
                        }
                        (Ok(_), None, None) => continue,
                    }
                };
                if outcome.failure.is_none() {
                    report.rows += outcome.rows;
                }
                if let Some(approx) = outcome.approx {
                    let entry = report.approx.entry(case.label.clone()).or_insert(approx);
                    entry.0 = entry.0.max(approx.0);
                    entry.1 = entry.1.max(approx.1);
                }
                if outcome.failure.is_some() || outcome.mismatched_rows > 0 {
                    report.bad.push((case.label.clone(), outcome));
                }
            }
            seconds_compare += t.elapsed().as_secs_f64();
            if done % 5000 < batch.len() {
                println!(
                    "  {done}/{} cases, {} bad, {:.0}s",
                    cases.len(),
                    report.bad.len(),
                    started.elapsed().as_secs_f64()
                );
            }
            if report.fatal.is_some() {
                // The context is gone: stop (dropping the receiver stops
                // the producer).
                break;
            }
        }
    });
    report.seconds.insert(
        "build+interpreter (host threads, overlapped)",
        seconds_build.into_inner().unwrap_or(0.0),
    );
    report.seconds.insert("compare", seconds_compare);
    if let Some(gpu) = &gpu {
        report
            .seconds
            .insert("gpu jit (host threads, overlapped)", gpu.seconds_jit);
        report
            .seconds
            .insert("gpu upload+run+download", gpu.seconds_run);
    }
    report
        .seconds
        .insert("total", started.elapsed().as_secs_f64());
    report.print();
    report
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
    assert!(
        !report.failed(),
        "{} case(s) differ from the GPU or fail (details above){}",
        report.bad.len(),
        report
            .fatal
            .as_deref()
            .map_or(String::new(), |f| format!("; fatal: {f}"))
    );
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
    assert!(
        !report.failed(),
        "{} case(s) differ from the GPU or fail (details above){}",
        report.bad.len(),
        report
            .fatal
            .as_deref()
            .map_or(String::new(), |f| format!("; fatal: {f}"))
    );
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
        let (core, ext, _) = values_for(ty, "a", &mut Rng::new("t"));
        assert!(core.len() >= 20 && ext.len() > core.len(), "{ty:?}");
    }
    // f32 ties hit every narrower format's overflow boundary: 65520 for
    // f16 (65504 + half an ulp), 464 for e4m3.
    let ties = Fmt::F32.ties(&mut Rng::new("t"));
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

// ---------------------------------------------------------------------------
// Warp collectives

/// The warp collectives (`lowering/src/ptx/table/warp.rs`): `shfl.sync`
/// (and `d|p`), `vote.sync`, `match.sync` (and `d|p`), `redux.sync`,
/// `activemask`, `elect.sync` and `bar.warp.sync`.
///
/// Kernels cannot use them until scopes exist (`Usability::NeedsScope`:
/// the checker refuses them), so each variant's kernel is a legal kernel
/// with *placeholder* statements of the same operand shapes (usable forms
/// that read every source tile and write every destination tile) compiled
/// through `tile_kernel_lowering::compile`; the first placeholder
/// statement of the checked program is then replaced by the collective
/// (its opcode, form and register operands, with the form's own operand
/// flags so that the emitter writes `d|p`) and the others removed, and the
/// patched program goes to the emitter (PTX for the GPU) and to the
/// interpreter. The tiles are one register each, so no view moves data.
///
/// Every thread `i < N` (`N` a multiple of [`BLOCK`]: whole warps, no
/// divergence, so every result is defined) loads its sources from row `i`
/// of one tensor per source (`a`, `b`, `c`, `membermask`; a predicate as
/// a `u32` 0 or 1), runs the collective and stores every destination to
/// row `i` of one tensor each (a predicate through `selp`).
/// `bar.warp.sync`, which has no destination, stores a copy of its
/// membermask made after it.
///
/// The inputs are chosen per warp ([`warp_inputs`]): a first stretch of
/// warps goes through the scenarios systematically, the rest pick them at
/// random, with mostly full membermasks. Every membermask is legal: the
/// executing lanes split into groups that each name exactly themselves
/// (`0xffffffff`; halves `0x0000ffff`/`0xffff0000`; eighth-warp groups;
/// even and odd lanes; single lanes; random splits), and a `shfl.sync`
/// never reads, in range, a lane outside its group (the ISA leaves that
/// undefined; the interpreter faults on it, which the smoke test would
/// report).
mod warp {
    use super::*;
    use form_kernels::{
        ROWS, S, alloc, apply, binary, dtype_for, global_index, literal, name, per_register,
        per_thread_launch, place, tensor_of,
    };
    use tile_kernel_lowering::DType;
    use tile_kernel_lowering::ast::{BinOp, Dim, If, Kernel, Operand, SliceItem, Stmt, ViewKind};
    use tile_kernel_lowering::emit::emit;
    use tile_kernel_lowering::program::{Instruction, Lane, Node, OperandValue, Statement};
    use tile_kernel_lowering::ptx::{Access, InstructionForm};

    /// Threads a block: two warps.
    pub const BLOCK: u32 = 64;

    /// Lanes a warp.
    const LANES: usize = 32;

    /// The warp forms: those waiting for scopes.
    pub fn forms() -> impl Iterator<Item = &'static InstructionForm> {
        FORMS.iter().filter(|f| f.usable == Usability::NeedsScope)
    }

    /// A variant's opcode with its operands (`shfl.sync.up.b32 d|p, a, b,
    /// c, membermask`): two forms share each of `shfl.sync`'s and
    /// `match.all.sync`'s opcodes.
    pub fn label(m: &Modifiers) -> String {
        let mut text = m.opcode_text();
        for (k, op) in m.operands().iter().enumerate() {
            let join = match (k, op.after_pipe) {
                (_, true) => "|",
                (0, false) => " ",
                _ => ", ",
            };
            text.push_str(join);
            text.push_str(op.name);
        }
        text
    }

    /// One case per legal variant of every warp form.
    pub fn enumerate(config: &Config) -> (usize, Vec<Case>, Skips) {
        let mut cases = Vec::new();
        let mut skips = Skips::default();
        let mut variants = 0;
        for form in forms() {
            for m in legal_variants(form) {
                let text = m.opcode_text();
                if !config.filter.is_empty()
                    && !config.filter.iter().any(|w| text.contains(w.as_str()))
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
                cases.push(Case {
                    label: label(&m),
                    variant: m,
                    family: Family::Compute,
                    target,
                    choices: Choices::default(),
                    rows: config.warp_rows,
                    shared: false,
                    block: BLOCK,
                    warp: true,
                });
            }
        }
        (variants, cases, skips)
    }

    /// A variant's kernel: the patched program, its PTX, and what each
    /// tensor parameter is for.
    pub struct WarpKernel {
        pub program: Program,
        pub ptx: String,
        pub roles: Vec<TensorRole>,
    }

    /// The tile of operand `i`.
    fn tile(i: usize) -> String {
        format!("r{i}")
    }

    /// The tile `bar.warp.sync`'s kernel copies the membermask into.
    const ECHO: &str = "echo";

    /// The statements that stand in for the collective `m` (by operand
    /// name, `t` giving the tile): usable forms that read every source
    /// and write every destination of the collective. The first becomes
    /// the collective, the rest are removed.
    fn placeholders(m: &Modifiers, t: &dyn Fn(&str) -> Operand) -> Result<Vec<Stmt>, String> {
        let wide = m.ty("type").is_some_and(|ty| ty.carrier_bits() == 64);
        // d from a (and the membermask).
        let d_from_a = || {
            if wide {
                vec![
                    apply("cvt.u32.u64", vec![t("d"), t("a")]),
                    apply("xor.b32", vec![t("d"), t("d"), t("membermask")]),
                ]
            } else {
                vec![apply("xor.b32", vec![t("d"), t("a"), t("membermask")])]
            }
        };
        Ok(match m.form.id {
            "shfl.sync" => vec![
                apply(
                    "lop3.b32",
                    vec![t("d"), t("a"), t("b"), t("c"), literal(0x96)],
                ),
                apply("xor.b32", vec![t("d"), t("d"), t("membermask")]),
            ],
            "shfl.sync.pred" => vec![
                apply(
                    "lop3.b32",
                    vec![t("d"), t("a"), t("b"), t("c"), literal(0x96)],
                ),
                apply("setp.ne.u32", vec![t("p"), t("d"), t("membermask")]),
            ],
            "vote.sync" => vec![apply(
                "setp.ne.and.u32",
                vec![t("d"), t("membermask"), literal(0), t("a")],
            )],
            "vote.sync.ballot" => vec![apply(
                "selp.b32",
                vec![t("d"), t("membermask"), t("membermask"), t("a")],
            )],
            "match.sync" | "redux.sync" | "redux.sync.bitwise" => d_from_a(),
            "match.sync.all-pred" => {
                let mut statements = d_from_a();
                statements.push(apply("setp.ne.u32", vec![t("p"), t("d"), literal(0)]));
                statements
            }
            "elect.sync" => vec![
                apply("mov.b32", vec![t("d"), t("membermask")]),
                apply("setp.ne.u32", vec![t("p"), t("membermask"), literal(0)]),
            ],
            "activemask" => vec![apply("mov.b32", vec![t("d"), literal(0)])],
            "bar.warp.sync" => vec![apply("mov.b32", vec![t(ECHO), t("membermask")])],
            other => {
                return Err(format!(
                    "no placeholder statements for the warp form `{other}`: add them to warp::placeholders"
                ));
            }
        })
    }

    /// Row `i` of the `[N, 1]` tensor `t`, as one register.
    fn row(t: &str) -> Operand {
        place(
            t,
            vec![
                ViewKind::Slice(vec![
                    SliceItem::Index {
                        index: name("i"),
                        span: S,
                    },
                    SliceItem::range(None, None, 1, S),
                ]),
                ViewKind::Reshape(vec![1, 1]),
            ],
        )
    }

    fn rows_param(t: &str, dtype: DType) -> tile_kernel_lowering::ast::Param {
        tensor_of(
            t,
            dtype,
            vec![
                Dim {
                    expr: name(ROWS),
                    span: S,
                },
                Dim::constant(1, S),
            ],
        )
    }

    /// The kernel of collective `m` (entry `entry`), compiled with
    /// placeholders and patched.
    pub fn kernel(entry: &str, m: &Modifiers, target: Target) -> Result<WarpKernel, String> {
        let operands = m.operands();
        let mut params = Vec::new();
        let mut roles = Vec::new();
        let mut allocs = Vec::new();
        let mut loads = Vec::new();
        let mut stores = Vec::new();
        let store = |io: &str, r: &str, dtype: DType, predicate: bool, out: &mut Vec<Stmt>| {
            if predicate {
                let staged = format!("{r}_u32");
                out.push(apply(
                    "selp.u32",
                    vec![
                        per_register(&staged, 1),
                        literal(1),
                        literal(0),
                        per_register(r, 1),
                    ],
                ));
                out.push(apply(
                    "st.global.b32",
                    vec![row(io), per_register(&staged, 1)],
                ));
            } else {
                out.push(apply(
                    &format!("st.global.b{}", dtype.bits()),
                    vec![row(io), per_register(r, 1)],
                ));
            }
        };
        for (i, op) in operands.iter().enumerate() {
            if !matches!(op.kind, OperandKind::Register | OperandKind::Predicate) || op.lanes != 1 {
                return Err(format!(
                    "operand `{}` of `{}` is not one register",
                    op.name,
                    label(m)
                ));
            }
            let dtype = dtype_for(op.ty)
                .ok_or_else(|| format!("no tile dtype carries `.{}`", op.ty.token()))?;
            let predicate = dtype == DType::Bool;
            let carrier = if predicate {
                DType::U32
            } else {
                dtype.bit_container()
            };
            let r = tile(i);
            allocs.push(alloc(&r, dtype, 1));
            if predicate {
                allocs.push(alloc(&format!("{r}_u32"), DType::U32, 1));
            }
            let io = format!("io{i}");
            params.push(rows_param(&io, carrier));
            let read = op.access == Access::Read;
            roles.push(TensorRole {
                operand: i,
                role: if read {
                    Role::Source
                } else {
                    Role::Destination
                },
                dtype: carrier,
                lanes: 1,
                per_row: true,
                predicate,
            });
            if !read {
                store(&io, &r, dtype, predicate, &mut stores);
            } else if predicate {
                let staged = format!("{r}_u32");
                loads.push(apply(
                    "ld.global.b32",
                    vec![per_register(&staged, 1), row(&io)],
                ));
                loads.push(apply(
                    "setp.ne.u32",
                    vec![per_register(&r, 1), per_register(&staged, 1), literal(0)],
                ));
            } else {
                loads.push(apply(
                    &format!("ld.global.b{}", dtype.bits()),
                    vec![per_register(&r, 1), row(&io)],
                ));
            }
        }
        let index = |n: &str| operands.iter().position(|o| o.name == n);
        // `bar.warp.sync` writes nothing: the kernel stores a copy of the
        // membermask made after it.
        let mut after = Vec::new();
        if m.form.id == "bar.warp.sync" {
            let membermask = index("membermask").ok_or("bar.warp.sync without a membermask")?;
            allocs.push(alloc(ECHO, DType::U32, 1));
            params.push(rows_param("io_echo", DType::U32));
            roles.push(TensorRole {
                operand: membermask,
                role: Role::Destination,
                dtype: DType::U32,
                lanes: 1,
                per_row: true,
                predicate: false,
            });
            after.push(apply(
                "mov.b32",
                vec![
                    place(ECHO, Vec::new()),
                    place(&tile(membermask), Vec::new()),
                ],
            ));
            store("io_echo", ECHO, DType::U32, false, &mut stores);
        }
        let missing = std::cell::RefCell::new(Vec::new());
        let t = |n: &str| match (n, index(n)) {
            (ECHO, _) => place(ECHO, Vec::new()),
            (_, Some(i)) => place(&tile(i), Vec::new()),
            (_, None) => {
                missing.borrow_mut().push(n.to_string());
                place(n, Vec::new())
            }
        };
        let stand_ins = placeholders(m, &t)?;
        if !missing.borrow().is_empty() {
            return Err(format!(
                "the placeholders of `{}` name operands it lacks: {:?}",
                label(m),
                missing.borrow()
            ));
        }
        let first = loads.len() + 1;
        let opcodes: Vec<String> = stand_ins
            .iter()
            .map(|s| match s {
                Stmt::Apply(a) => a.opcode.clone(),
                _ => String::new(),
            })
            .collect();
        let mut work = loads;
        work.extend(stand_ins);
        work.extend(after);
        work.extend(stores);
        let mut body = vec![global_index("i", BLOCK)];
        body.extend(allocs);
        body.push(Stmt::If(If {
            cond: binary(BinOp::Lt, name("i"), name(ROWS)),
            then: work,
            otherwise: Vec::new(),
            span: S,
        }));
        let kernel = Kernel {
            name: entry.to_string(),
            name_span: S,
            launch: per_thread_launch(ROWS, BLOCK),
            target,
            params,
            body,
        };
        let compilation = compile(&kernel);
        let Some(mut program) = compilation
            .program
            .filter(|_| compilation.diagnostics.is_empty())
        else {
            return Err(format!(
                "the placeholder kernel does not compile cleanly: {}",
                compilation
                    .diagnostics
                    .iter()
                    .map(|d| d.rendered())
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        };
        patch(&mut program, m, first, &opcodes)?;
        let ptx = emit(&program);
        Ok(WarpKernel {
            program,
            ptx,
            roles,
        })
    }

    /// Keeps the statements of `nodes` (at any depth) for which `keep`
    /// holds, after it has seen (and possibly rewritten) them.
    fn retain_statements(nodes: &mut Vec<Node>, keep: &mut dyn FnMut(&mut Statement) -> bool) {
        nodes.retain_mut(|node| match node {
            Node::Statement(s) => keep(s),
            Node::If {
                then, otherwise, ..
            } => {
                retain_statements(then, keep);
                retain_statements(otherwise, keep);
                true
            }
            Node::Loop { body, .. } => {
                retain_statements(body, keep);
                true
            }
            Node::Define(_) => true,
        });
    }

    /// Replaces placeholder statement `first` (of `opcodes.len()`) by the
    /// collective `m` over the operand tiles, removes the other
    /// placeholders, and raises the PTX version to the collective's.
    fn patch(
        program: &mut Program,
        m: &Modifiers,
        first: usize,
        opcodes: &[String],
    ) -> Result<(), String> {
        let mut operands = Vec::new();
        for (i, op) in m.operands().iter().enumerate() {
            let name = tile(i);
            let t = program
                .tiles
                .iter()
                .position(|t| t.name == name)
                .ok_or_else(|| format!("no tile `{name}` in the program"))?;
            // The flags as the checker's expansion sets them from the
            // form's resolved operand (`check/expand.rs`).
            operands.push(OperandValue::Registers {
                lanes: vec![Lane {
                    tile: t,
                    byte_offset: 0,
                    bytes: program.tiles[t].dtype.size_bytes(),
                }],
                write: op.access == Access::Write,
                braced: op.braced,
                piped: op.piped,
                after_pipe: op.after_pipe,
                own_braces: op.own_braces,
            });
        }
        let opcode = m.opcode_text();
        let mut seen = Vec::new();
        let mut problems = Vec::new();
        let range = first..first + opcodes.len();
        retain_statements(&mut program.body, &mut |s: &mut Statement| {
            if !range.contains(&s.number) {
                return true;
            }
            seen.push(s.number);
            let expected = &opcodes[s.number - first];
            if s.opcode != *expected || s.instructions.len() != 1 {
                problems.push(format!(
                    "statement {} is `{}` with {} instruction(s), not the placeholder `{expected}`",
                    s.number,
                    s.opcode,
                    s.instructions.len()
                ));
                return true;
            }
            if s.number != first {
                return false;
            }
            let guard = s.instructions[0].guard.clone();
            s.opcode = opcode.clone();
            s.form = m.form.id.to_string();
            s.instructions = vec![Instruction {
                opcode: opcode.clone(),
                guard,
                operands: operands.clone(),
            }];
            true
        });
        if seen != range.clone().collect::<Vec<_>>() {
            problems.push(format!(
                "placeholder statements {range:?} expected, found {seen:?}"
            ));
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        program.ptx_version = program.ptx_version.max(m.requirement(program.target).ptx);
        Ok(())
    }

    // -----------------------------------------------------------------
    // Inputs

    /// How the 32 lanes of a warp split into membermask groups.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Partition {
        /// One group: `0xffffffff`.
        Full,
        /// Aligned groups of this many lanes (16: `0x0000ffff` for lanes
        /// 0-15, `0xffff0000` for 16-31).
        Groups(u32),
        /// Even lanes (`0x55555555`) and odd lanes (`0xaaaaaaaa`).
        EvenOdd,
        /// Every lane in one of this many random groups (not for `shfl`).
        Random(u32),
    }

    impl Partition {
        /// Each lane's membermask.
        fn masks(self, rng: &mut Rng) -> [u32; LANES] {
            let mut masks = [0u32; LANES];
            match self {
                Partition::Full => masks = [u32::MAX; LANES],
                Partition::Groups(g) => {
                    let group = mask(g) as u32;
                    for (lane, m) in masks.iter_mut().enumerate() {
                        *m = group << (lane as u32 / g * g);
                    }
                }
                Partition::EvenOdd => {
                    for (lane, m) in masks.iter_mut().enumerate() {
                        *m = if lane % 2 == 0 {
                            0x5555_5555
                        } else {
                            0xaaaa_aaaa
                        };
                    }
                }
                Partition::Random(k) => {
                    let group: Vec<usize> = (0..LANES).map(|_| rng.below(k as usize)).collect();
                    for (lane, m) in masks.iter_mut().enumerate() {
                        *m = (0..LANES)
                            .filter(|&l| group[l] == group[lane])
                            .fold(0, |acc, l| acc | 1 << l);
                    }
                }
            }
            masks
        }

        /// The lane-number bits that tell the groups apart, for aligned
        /// groups (a `shfl.sync` segment inside one group fixes them).
        fn group_bits(self) -> u32 {
            match self {
                Partition::Groups(g) => 0x1f & !(g - 1),
                _ => 0,
            }
        }

        fn text(self) -> String {
            match self {
                Partition::Full => "membermask 0xffffffff".into(),
                Partition::Groups(16) => "membermask per half".into(),
                Partition::Groups(g) => format!("membermask per {g} lanes"),
                Partition::EvenOdd => "membermask even/odd lanes".into(),
                Partition::Random(k) => format!("membermask: {k} random groups"),
            }
        }
    }

    /// The partitions of everything but `shfl.sync`.
    const PARTITIONS: &[Partition] = &[
        Partition::Full,
        Partition::Groups(16),
        Partition::Groups(8),
        Partition::Groups(4),
        Partition::Groups(1),
        Partition::EvenOdd,
        Partition::Random(3),
        Partition::Random(7),
    ];

    /// The partitions of `shfl.sync`.
    const SHFL_PARTITIONS: &[Partition] = &[
        Partition::Full,
        Partition::Groups(16),
        Partition::Groups(8),
        Partition::EvenOdd,
    ];

    /// A partition for a warp after the systematic ones: full half the
    /// time.
    fn some_partition(list: &[Partition], rng: &mut Rng) -> Partition {
        if rng.below(2) == 0 {
            Partition::Full
        } else {
            list[rng.below(list.len())]
        }
    }

    /// The sources of every lane of one warp, by operand name (a variant
    /// reads those it has), and what they exercise.
    pub struct WarpInputs {
        pub a: [u64; LANES],
        pub b: [u64; LANES],
        pub c: [u64; LANES],
        pub membermask: [u64; LANES],
        pub note: String,
    }

    impl WarpInputs {
        /// Draws the membermasks of `partition`.
        fn set_masks(&mut self, partition: Partition, rng: &mut Rng) -> [u32; LANES] {
            let masks = partition.masks(rng);
            for (m, mask) in self.membermask.iter_mut().zip(masks) {
                *m = u64::from(mask);
            }
            masks
        }

        pub fn get(&self, operand: &str) -> Option<&[u64; LANES]> {
            match operand {
                "a" => Some(&self.a),
                "b" => Some(&self.b),
                "c" => Some(&self.c),
                "membermask" => Some(&self.membermask),
                _ => None,
            }
        }
    }

    /// `c` of CUDA's `__shfl*_sync(mask, var, lane, width)`: the segment
    /// mask `32 - width` in bits 12:8 and the clamp, 0 for `up` and 31
    /// for the other modes.
    pub fn cuda_c(mode: &str, width: u32) -> u32 {
        let clamp = if mode == "up" { 0 } else { 0x1f };
        ((32 - width) << 8) | clamp
    }

    /// How a warp's `shfl.sync` `c` is chosen.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum ShflC {
        /// CUDA's `c` for this width, for every lane.
        Width(u32),
        /// One random `c` for the warp, with random bits outside the
        /// segment mask and clamp fields.
        Random,
        /// A random segment mask and clamp for every lane.
        PerLane,
    }

    /// (partition, c) pairs the first warps go through.
    fn shfl_combos() -> Vec<(Partition, ShflC)> {
        let mut out = Vec::new();
        for &p in SHFL_PARTITIONS {
            let largest = match p {
                Partition::Groups(g) => g,
                _ => 32,
            };
            for width in [32, 16, 8, 4, 2, 1] {
                if width <= largest {
                    out.push((p, ShflC::Width(width)));
                }
            }
            out.push((p, ShflC::Random));
            out.push((p, ShflC::PerLane));
        }
        out
    }

    /// Lane offsets, source lanes and xor masks: in range, at the edges,
    /// and beyond 31 (only `b[4:0]` counts).
    const SHFL_B: &[u32] = &[
        1,
        16,
        5,
        31,
        2,
        8,
        0,
        3,
        4,
        7,
        9,
        15,
        17,
        23,
        24,
        30,
        32,
        33,
        47,
        63,
        64,
        0x7fff_ffff,
        0x8000_0001,
        0xffff_fff0,
        0xffff_ffff,
    ];

    /// `b` made legal for `partition`: a lane never reads, in range, a
    /// lane outside its group.
    ///
    /// - Aligned groups: `c`'s segment mask covers the group bits
    ///   ([`shfl_c`]), so `up`, `down` and `idx` stay inside the group;
    ///   `bfly` may still reach an earlier group unless `b[4:0]` leaves
    ///   the group bits alone.
    /// - Even/odd lanes: `up`, `down` and `bfly` keep the parity with an
    ///   even `b`; `idx` reads lane `b[4:0]` (with the lane's own bits
    ///   under the segment mask), so `b` gets the lane's parity.
    fn shfl_b(mode: &str, partition: Partition, lane: u32, b: u32) -> u32 {
        match (partition, mode) {
            (Partition::Groups(_), "bfly") => b & !partition.group_bits(),
            (Partition::EvenOdd, "idx") => (b & !1) | (lane & 1),
            (Partition::EvenOdd, _) => b & !1,
            _ => b,
        }
    }

    /// `c` made legal for `partition`: the segment mask covers the group
    /// bits.
    fn shfl_c(partition: Partition, c: u32) -> u32 {
        c | partition.group_bits() << 8
    }

    /// The inputs of warp `w` of a case of variant `m`.
    pub fn warp_inputs(m: &Modifiers, w: usize, rng: &mut Rng) -> WarpInputs {
        let mut inputs = WarpInputs {
            a: [0; LANES],
            b: [0; LANES],
            c: [0; LANES],
            membermask: [0; LANES],
            note: String::new(),
        };
        let id = m.form.id;
        if id.starts_with("shfl") {
            shfl_warp(m.get("mode").unwrap_or("idx"), w, rng, &mut inputs)
        } else if id.starts_with("vote") {
            vote_warp(w, rng, &mut inputs)
        } else if id.starts_with("match") {
            let bits = m.ty("type").map_or(32, |t| t.carrier_bits() as u32);
            match_warp(bits, w, rng, &mut inputs)
        } else if id.starts_with("redux") {
            redux_warp(w, rng, &mut inputs)
        } else {
            // elect.sync, bar.warp.sync, activemask: the membermask only.
            let partition = if w < PARTITIONS.len() * 2 {
                PARTITIONS[w % PARTITIONS.len()]
            } else {
                some_partition(PARTITIONS, rng)
            };
            inputs.set_masks(partition, rng);
            inputs.note = partition.text();
        }
        if id == "activemask" {
            inputs.note = "every lane executes".into();
        }
        inputs
    }

    /// `shfl.sync` (`mode`): systematic (partition, c) pairs, first with
    /// random `b` per lane, then with each of [`SHFL_B`] for the warp;
    /// random `a` whose low byte is the lane (which lane a result came
    /// from shows in the reports).
    fn shfl_warp(mode: &str, w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
        let combos = shfl_combos();
        let n = combos.len();
        let systematic = n * (1 + SHFL_B.len());
        let ((partition, c_kind), uniform_b) = if w < n {
            (combos[w], None)
        } else if w < systematic {
            let k = w - n;
            // Every b with every combo over the systematic stretch.
            (combos[k % n], Some(SHFL_B[(k / n + k % n) % SHFL_B.len()]))
        } else {
            let partition = some_partition(SHFL_PARTITIONS, rng);
            let fitting: Vec<(Partition, ShflC)> = combos
                .iter()
                .copied()
                .filter(|(p, _)| *p == partition)
                .collect();
            let combo = fitting[rng.below(fitting.len())];
            let b = (rng.below(2) == 0).then(|| SHFL_B[rng.below(SHFL_B.len())]);
            (combo, b)
        };
        let segment = match c_kind {
            ShflC::Width(width) => width as usize,
            _ => LANES,
        };
        let warp_c = match c_kind {
            ShflC::Width(width) => cuda_c(mode, width),
            ShflC::Random => rng.next() as u32,
            ShflC::PerLane => 0,
        };
        for lane in 0..LANES {
            let l = lane as u32;
            inputs.a[lane] = u64::from((rng.next() as u32 & !0xff) | l);
            // Mostly offsets within the segment (which land in range
            // most often).
            let b = uniform_b.unwrap_or_else(|| match rng.below(4) {
                0 | 1 => rng.below(segment) as u32,
                2 => rng.below(64) as u32,
                _ => rng.next() as u32,
            });
            inputs.b[lane] = u64::from(shfl_b(mode, partition, l, b));
            let c = match c_kind {
                // `up` counts from the clamp upwards: mostly clamp 0.
                ShflC::PerLane if mode == "up" && rng.below(4) != 0 => rng.next() as u32 & 0x1f00,
                ShflC::PerLane => rng.next() as u32 & 0x1f1f,
                _ => warp_c,
            };
            inputs.c[lane] = u64::from(shfl_c(partition, c));
        }
        let c_text = match c_kind {
            ShflC::Width(width) => format!("width {width} (c {:#x})", shfl_c(partition, warp_c)),
            ShflC::Random => format!("c {:#x}", shfl_c(partition, warp_c)),
            ShflC::PerLane => "random c per lane".into(),
        };
        let b_text = match uniform_b {
            Some(b) => format!("b {b:#x}"),
            None => "random b per lane".into(),
        };
        inputs.note = format!("{}, {c_text}, {b_text}", partition.text());
        inputs.set_masks(partition, rng);
    }

    /// The systematic (partition, pattern) of warp `w` with `patterns`
    /// patterns, then random ones.
    fn pick(w: usize, patterns: usize, rng: &mut Rng) -> (Partition, usize) {
        let combos = PARTITIONS.len() * patterns;
        if w < combos {
            (PARTITIONS[w % PARTITIONS.len()], w / PARTITIONS.len())
        } else {
            (some_partition(PARTITIONS, rng), rng.below(patterns))
        }
    }

    /// A value per group of lanes sharing a membermask.
    fn per_group(masks: &[u32; LANES], mut value: impl FnMut() -> u64) -> [u64; LANES] {
        let mut by_mask: BTreeMap<u32, u64> = BTreeMap::new();
        std::array::from_fn(|lane| *by_mask.entry(masks[lane]).or_insert_with(&mut value))
    }

    /// `vote.sync`: predicates all true, all false, random, one true, one
    /// false, the same within each group, or rarely true.
    fn vote_warp(w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
        const PATTERNS: &[&str] = &[
            "all true",
            "all false",
            "random",
            "one true",
            "one false",
            "uniform per group",
            "1 in 8 true",
        ];
        let (partition, pattern) = pick(w, PATTERNS.len(), rng);
        let masks = inputs.set_masks(partition, rng);
        let special = rng.below(LANES);
        let group = per_group(&masks, || rng.next() & 1);
        for (lane, a) in inputs.a.iter_mut().enumerate() {
            *a = match pattern {
                0 => 1,
                1 => 0,
                2 => rng.next() & 1,
                3 => u64::from(lane == special),
                4 => u64::from(lane != special),
                5 => group[lane],
                _ => u64::from(rng.below(8) == 0),
            };
        }
        inputs.note = format!("{}, predicates {}", partition.text(), PATTERNS[pattern]);
    }

    /// `match.sync`: values from a small set (differing in one low bit, in
    /// the sign bit, or, for `.b64`, only in the high half), all equal,
    /// all different, or the same within each group (but one).
    fn match_warp(bits: u32, w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
        const PATTERNS: &[&str] = &[
            "all equal",
            "2 values",
            "4 values",
            "all different",
            "one value per group",
            "one value per group but one lane",
        ];
        let (partition, pattern) = pick(w, PATTERNS.len(), rng);
        let masks = inputs.set_masks(partition, rng);
        let base = rng.next() & mask(bits);
        let set: Vec<u64> = if bits == 64 {
            vec![
                base,
                base ^ 1 << 32,
                base ^ 1,
                base ^ 1 << 63,
                base ^ 0xffff_ffff << 32,
            ]
        } else {
            vec![base, base ^ 1, base ^ 0x8000_0000, base ^ 0xffff_0000]
        };
        let mut pool = set.clone();
        let group = per_group(&masks, || {
            let v = pool[rng.below(pool.len())];
            pool.retain(|x| *x != v);
            if pool.is_empty() {
                pool = set.clone();
            }
            v
        });
        let odd = rng.below(LANES);
        for (lane, a) in inputs.a.iter_mut().enumerate() {
            *a = match pattern {
                0 => base,
                1 => set[rng.below(2)],
                2 => set[rng.below(4)],
                3 => rng.next() & mask(bits),
                4 => group[lane],
                _ if lane == odd => group[lane] ^ 1 << (bits - 1),
                _ => group[lane],
            };
        }
        inputs.note = format!("{}, values {}", partition.text(), PATTERNS[pattern]);
    }

    /// Integer extremes and bit patterns for `redux.sync`.
    const EXTREMES: &[u64] = &[
        0,
        1,
        2,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_ffff,
        0xffff_fffe,
        0x5555_5555,
        0xaaaa_aaaa,
        0x0000_ffff,
        0xffff_0000,
    ];

    /// `redux.sync`: random values, extremes (`i32::MIN`/`MAX`,
    /// `u32::MAX`, ..), one extreme for every lane (sums that wrap), small
    /// values of both signs, or one bit per lane.
    fn redux_warp(w: usize, rng: &mut Rng, inputs: &mut WarpInputs) {
        const PATTERNS: &[&str] = &[
            "random",
            "extremes",
            "one extreme for all",
            "small, both signs",
            "one random bit",
        ];
        let (partition, pattern) = pick(w, PATTERNS.len(), rng);
        inputs.set_masks(partition, rng);
        let all = EXTREMES[rng.below(EXTREMES.len())];
        for a in inputs.a.iter_mut() {
            *a = match pattern {
                0 => rng.next() & 0xffff_ffff,
                1 => rng.pick(EXTREMES),
                2 => all,
                3 => u64::from((rng.below(9) as i32 - 4) as u32),
                _ => 1 << rng.below(32),
            };
        }
        let all_text = if pattern == 2 {
            format!(" ({all:#x})")
        } else {
            String::new()
        };
        inputs.note = format!(
            "{}, values {}{all_text}",
            partition.text(),
            PATTERNS[pattern]
        );
    }

    /// Builds a warp case: the kernel, the inputs of every warp, and the
    /// interpreter's run.
    pub fn build(built: &mut Built, case: &Case, smoke: bool) {
        let kernel = match kernel(&built.entry, &case.variant, case.target) {
            Ok(kernel) => kernel,
            Err(e) => {
                built.error = Some(e);
                return;
            }
        };
        built.roles = kernel.roles;
        built.written = kernel
            .program
            .params
            .iter()
            .map(|p| matches!(p.kind, ParamKind::Tensor { written: true, .. }))
            .collect();
        built.checks = checks_for(case, &built.roles);
        let mut rng = Rng::new(&case.label);
        let warps: Vec<WarpInputs> = (0..case.rows.div_ceil(LANES))
            .map(|w| warp_inputs(&case.variant, w, &mut rng))
            .collect();
        built.inputs = input_bytes(&case.variant, &built.roles, case.rows, &|name, r| {
            warps[r / LANES]
                .get(name)
                .map_or(0, |lanes| lanes[r % LANES])
        });
        built.warp_notes = warps.into_iter().map(|w| w.note).collect();
        built.program = Some(kernel.program.clone());
        built.ptx = Some(kernel.ptx);
        interpret(built, case, kernel.program, smoke);
    }

    /// The initial bytes of every tensor (empty for outputs): row `r` of a
    /// source operand named `name` holds `value(name, r)`.
    fn input_bytes(
        m: &Modifiers,
        roles: &[TensorRole],
        rows: usize,
        value: &dyn Fn(&str, usize) -> u64,
    ) -> Vec<Vec<u8>> {
        let operands = m.operands();
        roles
            .iter()
            .map(|role| {
                if role.role != Role::Source {
                    return Vec::new();
                }
                let size = role.dtype.size_bytes();
                let name = operands[role.operand].name;
                (0..rows)
                    .flat_map(|r| value(name, r).to_le_bytes()[..size].to_vec())
                    .collect()
            })
            .collect()
    }

    /// The variant `opcode` of warp form `form`.
    pub fn variant(form: &str, opcode: &str) -> Modifiers {
        let f = forms()
            .find(|f| f.id == form)
            .unwrap_or_else(|| panic!("no warp form `{form}`"));
        legal_variants(f)
            .into_iter()
            .find(|m| m.opcode_text() == opcode)
            .unwrap_or_else(|| panic!("`{opcode}` is not a variant of `{form}`"))
    }

    /// Runs `opcode` of form `form` on the interpreter over `rows` threads
    /// (blocks of [`BLOCK`], `i < rows` executing) whose sources are
    /// `value(operand, row)`; returns each destination's rows by operand
    /// name, or the interpreter's fault.
    pub fn interpret_rows(
        form: &str,
        opcode: &str,
        rows: usize,
        value: impl Fn(&str, usize) -> u64,
    ) -> Result<BTreeMap<&'static str, Vec<u64>>, String> {
        let m = variant(form, opcode);
        let kernel = kernel("hand", &m, Target::SM_90).unwrap_or_else(|e| panic!("{e}"));
        let inputs = input_bytes(&m, &kernel.roles, rows, &value);
        let memories: Vec<Vec<AtomicU8>> = kernel
            .roles
            .iter()
            .zip(&inputs)
            .map(|(role, input)| {
                let bytes = if input.is_empty() {
                    vec![INTERP_SENTINEL; rows * role.row_bytes()]
                } else {
                    input.clone()
                };
                bytes.into_iter().map(AtomicU8::new).collect()
            })
            .collect();
        let args: Vec<Arg<'_>> = memories.iter().map(|m| Arg::Tensor(m)).collect();
        let prepared = Prepared::new(kernel.program).map_err(|e| e.to_string())?;
        prepared
            .run(
                [(rows as u32).div_ceil(BLOCK), 1, 1],
                &args,
                &[rows as u64],
                &RunOptions::default(),
            )
            .map_err(|fault| fault.to_string())?;
        let operands = m.operands();
        Ok(kernel
            .roles
            .iter()
            .zip(memories)
            .filter(|(role, _)| role.role == Role::Destination)
            .map(|(role, memory)| {
                let bytes: Vec<u8> = memory.into_iter().map(AtomicU8::into_inner).collect();
                let size = role.dtype.size_bytes();
                let name = if operands[role.operand].access == Access::Read {
                    ECHO
                } else {
                    operands[role.operand].name
                };
                (name, (0..rows).map(|r| element(&bytes, r, size)).collect())
            })
            .collect())
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn warp_collectives_match_the_gpu() {
    let gpu = gpu::Gpu::open();
    let config = Config::gpu();
    let report = run_cases(
        "warp_collectives_match_the_gpu",
        &config,
        warp::enumerate(&config),
        Some(gpu),
    );
    report.write("warp");
    assert!(
        report.cases > 0 || !config.filter.is_empty(),
        "no warp collectives"
    );
    assert!(
        !report.failed(),
        "{} case(s) differ from the GPU or fail (details above){}",
        report.bad.len(),
        report
            .fatal
            .as_deref()
            .map_or(String::new(), |f| format!("; fatal: {f}"))
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
    assert!(
        !report.failed(),
        "{} case(s) fail on the interpreter (details above)",
        report.bad.len()
    );
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

// ---------------------------------------------------------------------------
// CTA barriers

/// The CTA barriers (`Usability::CtaBarrier`, usable in an `apply` with
/// `scope = "cta"`): `bar.sync a`, `barrier.sync{.aligned} a`, and the
/// reductions `bar.red.popc.u32 d, a, c` and `bar.red.{and,or}.pred d, a,
/// c` (with their `barrier.`, `.cta` and `.aligned` spellings).
///
/// Unlike the warp collectives they need no patching: `form_kernels`
/// builds their kernels ([`Shape::PerThread`], blocks of [`BLOCK`]) with
/// the barrier outside the guard `i < N` and its operands in CTA tiles,
/// and the rows are whole CTAs, so that every thread arrives with a row of
/// its own. Each variant runs with barriers 0 and 15, with and without
/// [`Choices::cta_exchange`] (a value crossing the barrier through a shared
/// buffer, written by one thread and read by another: `ex_out` must equal
/// `ex_in`; `bar.sync`, which has no operand but `a`, runs only with it).
///
/// The predicate `c` of each CTA follows one of [`PATTERNS`] (the first
/// CTAs go through them in order, the rest pick at random), so that `and`
/// and `or` see both results and `popc` counts from 0 to the whole block.
mod cta {
    use super::*;

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
                if !config.filter.is_empty()
                    && !config.filter.iter().any(|w| text.contains(w.as_str()))
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
                    && matches!(operands[t.operand].kind, OperandKind::Immediate { .. })
                        == immediate
            })
        };
        let word = |bytes: &[u8], r: usize| element(bytes, r, 4);
        if let (Some(c), Some(d)) = (find(Role::Source, false), find(Role::Destination, false)) {
            let op = case.variant.get("redop").unwrap_or("?");
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
}

#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn cta_barriers_match_the_gpu() {
    let gpu = gpu::Gpu::open();
    let config = Config::gpu();
    let report = run_cases(
        "cta_barriers_match_the_gpu",
        &config,
        cta::enumerate(&config),
        Some(gpu),
    );
    report.write("cta");
    assert!(
        report.cases > 0 || !config.filter.is_empty(),
        "no CTA barriers"
    );
    assert!(
        !report.failed(),
        "{} case(s) differ from the GPU or fail (details above){}",
        report.bad.len(),
        report
            .fatal
            .as_deref()
            .map_or(String::new(), |f| format!("; fatal: {f}"))
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
    assert!(
        !report.failed(),
        "{} case(s) fail on the interpreter (details above)",
        report.bad.len()
    );
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
