//! The exhaustive f32 conversion sweep: every f32 -> f16 / bf16 / f16x2 /
//! bf16x2 / tf32 / e4m3x2 / e5m2x2 `cvt` variant the PTX table calls usable
//! on sm_90 (every rounding, ftz, saturation and relu variant, enumerated
//! from the table), on all 2^32 input bit patterns, on the GPU, compared
//! bit for bit with the CPU interpreter's semantics of the same variant
//! (`tile_kernel_interp::semantics::compute`, the function the interpreter
//! runs), computed on the host on all cores.
//!
//! The inputs are made on the GPU: a kernel (built as a syntax tree and
//! compiled by `tile_kernel_lowering::compile`) computes `x = base + i`
//! for its global thread index `i` (`mov` of `%ctaid.x` / `%tid.x`,
//! `mad.lo.u32`, `add.u32` of the scalar parameter `base`), converts it
//! and stores the result; chunks of 2^28 inputs are downloaded and
//! compared while the GPU runs the next. A variant with two f32 sources
//! (`cvt.rn.f16x2.f32 d, a, b`) gets `a = x` and `b = !x`, so each lane
//! sees every pattern too.
//!
//! ```text
//! sweep_conversions [--list] [--chunks K] [--chunk-bits B] [--threads T] [PATTERN ...]
//! ```
//!
//! - `PATTERN`: keep variants whose opcode contains one of them (all by default).
//! - `--chunks K`: run only K chunks of each variant, spread evenly over
//!   the 2^32 inputs (a short run).
//! - `--chunk-bits B`: chunks of 2^B inputs (default 28).
//! - `--list`: print the variants and exit.
//! - `--interpreter`: run the sweep kernels on the CPU interpreter instead
//!   of the GPU (no GPU needed; checks the harness itself: use small
//!   chunks, e.g. `--interpreter --chunk-bits 12 --chunks 2`).
//!
//! Exits with status 1 on any mismatch, 2 on a usage or setup error.

use std::process::ExitCode;
use std::time::Instant;

use tile_kernel::Device;
use tile_kernel_interp::semantics::{Compute, compute};
use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Access, Modifiers, OperandKind, PtxType, Usability};
use tile_kernel_lowering::{DType, Target, compile};
use tile_kernel_testkit::ast::{SPAN as S, apply, binary, int, literal, name, place};
use tile_kernel_testkit::form_kernels::{
    ROWS, alloc, dtype_for, global_index, per_thread_launch, spec_for, tensor_of,
};

const BLOCK: u32 = 256;

/// The destination types of the sweep.
const NARROW: &[PtxType] = &[
    PtxType::F16,
    PtxType::Bf16,
    PtxType::F16x2,
    PtxType::Bf16x2,
    PtxType::Tf32,
    PtxType::E4m3x2,
    PtxType::E5m2x2,
];

/// The target the H200 (sm_90) runs `m` at, if any.
fn h200_target(m: &Modifiers) -> Option<Target> {
    let req = m.requirement(Target::SM_90);
    match req.only_on {
        Some(archs) => archs.contains(&90).then_some(Target {
            sm: 90,
            arch_specific: true,
        }),
        None => (req.sm <= 90).then_some(Target::SM_90),
    }
}

/// Every usable `cvt` variant from f32 sources (one or two) to one of
/// [`NARROW`], runnable on sm_90.
fn variants() -> Vec<(Modifiers, Target)> {
    let mut out = Vec::new();
    for form in FORMS
        .iter()
        .filter(|f| f.mnemonic == "cvt" && f.usable == Usability::Yes)
    {
        for m in legal_variants(form) {
            if m.usability() != Usability::Yes {
                continue;
            }
            let operands = m.operands();
            let sources: Vec<_> = operands
                .iter()
                .filter(|o| o.access == Access::Read)
                .collect();
            let destinations: Vec<_> = operands
                .iter()
                .filter(|o| o.access == Access::Write)
                .collect();
            let fits = !sources.is_empty()
                && sources.len() <= 2
                && sources.iter().all(|o| {
                    o.kind == OperandKind::Register && o.ty == PtxType::F32 && o.lanes == 1
                })
                && destinations.len() == 1
                && destinations[0].kind == OperandKind::Register
                && destinations[0].lanes == 1
                && NARROW.contains(&destinations[0].ty);
            if !fits {
                continue;
            }
            if let Some(target) = h200_target(&m) {
                out.push((m, target));
            }
        }
    }
    out
}

fn tile(name: &str) -> Operand {
    place(name, Vec::new())
}

/// The sweep kernel of `m`: `out[i] = cvt(base + i)` for `i < N`.
fn sweep_kernel(m: &Modifiers, target: Target) -> (Kernel, DType) {
    let operands = m.operands();
    let destination = operands
        .iter()
        .find(|o| o.access == Access::Write)
        .expect("a destination");
    let out_dtype = dtype_for(destination.ty)
        .expect("a dtype carries it")
        .bit_container();
    let sources = operands.iter().filter(|o| o.access == Access::Read).count();
    let i = "i";
    let row = |t: &str| {
        place(
            t,
            vec![ViewKind::Slice(vec![SliceItem::Range {
                start: Some(name(i)),
                end: Some(binary(BinOp::Add, name(i), int(1))),
                step: 1,
                span: S,
            }])],
        )
    };
    let mut work = vec![
        apply(
            "mov.u32",
            vec![
                tile("t"),
                Operand::Special {
                    name: "%tid.x".into(),
                    span: S,
                },
            ],
        ),
        apply(
            "mov.u32",
            vec![
                tile("c"),
                Operand::Special {
                    name: "%ctaid.x".into(),
                    span: S,
                },
            ],
        ),
        apply(
            "mad.lo.u32",
            vec![tile("x"), tile("c"), literal(i128::from(BLOCK)), tile("t")],
        ),
        apply("add.u32", vec![tile("x"), tile("x"), tile("base")]),
    ];
    let mut cvt_operands = Vec::new();
    let mut seen_sources = 0;
    for o in &operands {
        if o.access == Access::Write {
            cvt_operands.push(tile("d"));
        } else {
            cvt_operands.push(tile(if seen_sources == 0 { "x" } else { "y" }));
            seen_sources += 1;
        }
    }
    if sources == 2 {
        work.push(apply("not.b32", vec![tile("y"), tile("x")]));
    }
    work.push(apply(&m.opcode_text(), cvt_operands));
    work.push(apply(
        &format!("st.global.b{}", out_dtype.bits()),
        vec![row("out"), tile("d")],
    ));
    let mut body = vec![global_index(i, BLOCK)];
    for t in ["t", "c", "x", "y"] {
        body.push(alloc(t, DType::U32, 1));
    }
    body.push(alloc("d", out_dtype, 1));
    body.push(Stmt::If(If {
        cond: binary(BinOp::Lt, name(i), name(ROWS)),
        then: work,
        otherwise: Vec::new(),
        span: S,
    }));
    let kernel = Kernel {
        name: "sweep".into(),
        name_span: S,
        launch: per_thread_launch(ROWS, BLOCK),
        target,
        params: vec![
            tensor_of(
                "out",
                out_dtype,
                vec![Dim {
                    expr: name(ROWS),
                    span: S,
                }],
            ),
            Param {
                name: "base".into(),
                span: S,
                ty: ParamType::Scalar(DType::U32),
            },
        ],
        body,
    };
    (kernel, out_dtype)
}

/// Output bits downloaded from the GPU, widened.
enum Outputs {
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Outputs {
    fn get(&self, i: usize) -> u64 {
        match self {
            Outputs::U16(v) => u64::from(v[i]),
            Outputs::U32(v) => u64::from(v[i]),
        }
    }
    fn len(&self) -> usize {
        match self {
            Outputs::U16(v) => v.len(),
            Outputs::U32(v) => v.len(),
        }
    }
}

/// A launchable sweep kernel and its output width.
struct Sweep {
    kernel: &'static tile_kernel::runtime::Kernel,
    program: tile_kernel_lowering::program::Program,
    out_dtype: DType,
    sources: usize,
}

fn prepare(m: &Modifiers, target: Target) -> Result<Sweep, String> {
    let (kernel, out_dtype) = sweep_kernel(m, target);
    let compilation = compile(&kernel);
    let (Some(program), Some(ptx)) = (compilation.program, compilation.ptx) else {
        return Err(format!(
            "the sweep kernel does not compile: {}",
            compilation
                .diagnostics
                .iter()
                .map(|d| d.rendered())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    };
    let sources = m
        .operands()
        .iter()
        .filter(|o| o.access == Access::Read)
        .count();
    // SAFETY: the spec is built from the checker's own program and the PTX
    // it emitted for it (`spec_for` copies the parameters, the size symbol
    // and the launch shape); the checker proved every access of that
    // program in bounds, aligned and race-free for every launch the
    // runtime's checks accept.
    let kernel = Box::leak(Box::new(unsafe {
        tile_kernel::runtime::Kernel::new(spec_for(&program, &ptx))
    }));
    Ok(Sweep {
        kernel,
        program,
        out_dtype,
        sources,
    })
}

/// Runs one chunk on the CPU interpreter: `n` inputs from `base`.
fn run_chunk_interpreter(sweep: &Sweep, base: u32, n: usize) -> Result<Outputs, String> {
    use std::sync::atomic::AtomicU8;
    use tile_kernel_interp::{Arg, Prepared, RunOptions};
    let prepared = Prepared::new(sweep.program.clone()).map_err(|e| e.to_string())?;
    let size = sweep.out_dtype.size_bytes();
    let out: Vec<AtomicU8> = (0..n * size).map(|_| AtomicU8::new(0)).collect();
    prepared
        .run(
            [(n as u32).div_ceil(BLOCK), 1, 1],
            &[Arg::Tensor(&out), Arg::Scalar(u64::from(base))],
            &[n as u64],
            &RunOptions {
                threads: 0,
                ..RunOptions::default()
            },
        )
        .map_err(|f| f.to_string())?;
    let bytes: Vec<u8> = out.into_iter().map(AtomicU8::into_inner).collect();
    Ok(if size == 2 {
        Outputs::U16(
            bytes
                .chunks(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
        )
    } else {
        Outputs::U32(
            bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    })
}

/// Runs one chunk on the GPU: `n` inputs from `base`.
fn run_chunk(device: &Device, sweep: &Sweep, base: u32, n: usize) -> Result<Outputs, String> {
    let e = |e: tile_kernel::Error| e.to_string();
    Ok(match sweep.out_dtype.size_bytes() {
        2 => {
            let mut out = device.zeros::<u16>([n]).map_err(e)?;
            sweep
                .kernel
                .launch(device)
                .map_err(e)?
                .tensor_mut(&mut out)
                .map_err(e)?
                .scalar(&base)
                .map_err(e)?
                .run()
                .map_err(e)?;
            Outputs::U16(out.download().map_err(e)?)
        }
        _ => {
            let mut out = device.zeros::<u32>([n]).map_err(e)?;
            sweep
                .kernel
                .launch(device)
                .map_err(e)?
                .tensor_mut(&mut out)
                .map_err(e)?
                .scalar(&base)
                .map_err(e)?
                .run()
                .map_err(e)?;
            Outputs::U32(out.download().map_err(e)?)
        }
    })
}

/// The mismatches of one chunk: (count, the first few as (x, gpu, interpreter)).
fn compare_chunk(
    semantics: &Compute,
    sources: usize,
    base: u32,
    out: &Outputs,
    threads: usize,
) -> (u64, Vec<(u32, u64, u64)>) {
    let n = out.len();
    let per = n.div_ceil(threads.max(1)).max(1);
    let mut count = 0;
    let mut first = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n.div_ceil(per))
            .map(|t| {
                scope.spawn(move || {
                    let mut count = 0u64;
                    let mut first = Vec::new();
                    let mut src = [0u64; 2];
                    let mut dst = [0u64; 1];
                    for i in t * per..((t + 1) * per).min(n) {
                        let x = base.wrapping_add(i as u32);
                        src[0] = u64::from(x);
                        src[1] = u64::from(!x);
                        semantics.run(&src[..sources], &mut dst);
                        let gpu = out.get(i);
                        if gpu != dst[0] {
                            count += 1;
                            if first.len() < 10 {
                                first.push((x, gpu, dst[0]));
                            }
                        }
                    }
                    (count, first)
                })
            })
            .collect();
        for h in handles {
            let (c, f) = h.join().expect("a compare thread panicked");
            count += c;
            first.extend(f);
        }
    });
    first.sort_unstable();
    first.truncate(10);
    (count, first)
}

struct Options {
    list: bool,
    interpreter: bool,
    chunks: Option<u64>,
    chunk_bits: u32,
    threads: usize,
    patterns: Vec<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        list: false,
        interpreter: false,
        chunks: None,
        chunk_bits: 28,
        threads: std::thread::available_parallelism().map_or(4, |n| n.get()),
        patterns: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |what: &str| {
            args.next()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| format!("{what} needs a number"))
        };
        match a.as_str() {
            "--list" => o.list = true,
            "--interpreter" => o.interpreter = true,
            "--chunks" => o.chunks = Some(value("--chunks")?),
            "--chunk-bits" => {
                o.chunk_bits = value("--chunk-bits")?.clamp(8, 32) as u32;
            }
            "--threads" => o.threads = value("--threads")?.max(1) as usize,
            "-h" | "--help" => {
                return Err(
                    "usage: sweep_conversions [--list] [--interpreter] [--chunks K] [--chunk-bits B] [--threads T] [PATTERN ...]"
                        .into(),
                );
            }
            p => o.patterns.push(p.to_string()),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let selected: Vec<(Modifiers, Target)> = variants()
        .into_iter()
        .filter(|(m, _)| {
            options.patterns.is_empty()
                || options
                    .patterns
                    .iter()
                    .any(|p| m.opcode_text().contains(p.as_str()))
        })
        .collect();
    println!("{} conversion variants", selected.len());
    if options.list {
        for (m, target) in &selected {
            println!("  {} ({target})", m.opcode_text());
        }
        return ExitCode::SUCCESS;
    }
    let device = if options.interpreter {
        println!("running the sweep kernels on the CPU interpreter (a harness check)");
        None
    } else {
        match Device::cuda(0) {
            Ok(d) => {
                println!(
                    "GPU: {} ({:?})",
                    d.name().unwrap_or_default(),
                    d.compute_capability().unwrap_or((0, 0))
                );
                Some(d)
            }
            Err(e) => {
                eprintln!("needs an NVIDIA GPU: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let chunk = 1u64 << options.chunk_bits;
    let all_chunks = (1u64 << 32) / chunk;
    let chunks = options.chunks.unwrap_or(all_chunks).min(all_chunks);
    let started = Instant::now();
    let (mut bad_variants, mut failed) = (0, 0);
    for (m, target) in &selected {
        let text = m.opcode_text();
        let t = Instant::now();
        let Some(semantics) = compute(m) else {
            println!("{text}: FAIL: the interpreter has no semantics for it");
            failed += 1;
            continue;
        };
        let sweep = match prepare(m, *target) {
            Ok(s) => s,
            Err(e) => {
                println!("{text}: FAIL: {e}");
                failed += 1;
                continue;
            }
        };
        let mut mismatches = 0u64;
        let mut first = Vec::new();
        let mut error = None;
        // The GPU runs chunk k + 1 while the host compares chunk k.
        std::thread::scope(|scope| {
            let mut pending: Option<std::thread::ScopedJoinHandle<'_, _>> = None;
            for k in 0..chunks {
                // Evenly spread chunks (all of them: back to back).
                let base = (k * ((1u64 << 32) / chunks)) as u32;
                let out = match &device {
                    Some(device) => run_chunk(device, &sweep, base, chunk as usize),
                    None => run_chunk_interpreter(&sweep, base, chunk as usize),
                };
                if let Some(h) = pending.take() {
                    let (c, f): (u64, Vec<(u32, u64, u64)>) = h.join().expect("compare");
                    mismatches += c;
                    first.extend(f);
                }
                match out {
                    Ok(out) => {
                        let semantics = &semantics;
                        let (sources, threads) = (sweep.sources, options.threads);
                        pending =
                            Some(scope.spawn(move || {
                                compare_chunk(semantics, sources, base, &out, threads)
                            }));
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            if let Some(h) = pending.take() {
                let (c, f) = h.join().expect("compare");
                mismatches += c;
                first.extend(f);
            }
        });
        first.sort_unstable();
        first.truncate(10);
        let inputs = chunks * chunk;
        match error {
            Some(e) => {
                println!("{text}: FAIL: the GPU run failed: {e}");
                failed += 1;
                // A fault leaves the context unusable.
                break;
            }
            None => {
                println!(
                    "{text}: {inputs} inputs checked, {mismatches} mismatches, {:.1} s",
                    t.elapsed().as_secs_f64()
                );
                if mismatches > 0 {
                    bad_variants += 1;
                    for (x, gpu, interp) in &first {
                        println!(
                            "    x = {x:#010x} ({:e}): gpu {gpu:#x}, interpreter {interp:#x}",
                            f32::from_bits(*x)
                        );
                    }
                }
            }
        }
    }
    println!(
        "{} variants, {bad_variants} with mismatches, {failed} failed, {:.1} s",
        selected.len(),
        started.elapsed().as_secs_f64()
    );
    if bad_variants + failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
