//! PTX-only mode: an engine that owns its CUDA stack (here plain cudarc)
//! launches a tile-kernel kernel from its launch description, with no
//! tile-kernel runtime involved. Builds with
//! `cargo run --example ptx_only_launch --no-default-features`, where cudarc
//! is not a dependency of `tile-kernel` at all (this example brings its own).
//!
//! `to_half::SPEC` says everything the engine needs: the entry, the
//! parameters (dtype, dims with their size symbols, access), the hidden
//! symbol parameters, the grid formula and the block, and the launch-time
//! requirements the compiler's proofs rely on.
//!
//! Without a CUDA driver (or with `TILE_KERNEL_DEVICE=cpu`) the engine runs
//! the same launch on tile-kernel's CPU interpreter instead: `SPEC.program`
//! is the kernel's IR, which `tile_kernel::lowering::encoding::decode` turns
//! back into a program for `tile_kernel_interp::Prepared`, given the same
//! grid, arguments (tensor bytes) and hidden symbol values as the GPU
//! launch. Still no tile-kernel runtime.

#[path = "common/conversions.rs"]
#[allow(dead_code)]
mod conversions;
#[path = "common/reference.rs"]
#[allow(dead_code)]
mod reference;

use std::sync::atomic::{AtomicU8, Ordering};

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use tile_kernel::spec::{DimSpec, KernelSpec, ParamKindSpec, dim_text, formula_text};
use tile_kernel_interp::{Arg, Prepared, RunOptions};

type BoxError = Box<dyn std::error::Error>;

/// Prints the description as an engine would read it.
fn describe(spec: &KernelSpec) {
    let symbol = |s: u16| spec.symbols[usize::from(s)].name.to_string();
    println!("kernel `{}` for {}", spec.name, spec.target);
    for param in spec.params {
        match param.kind {
            ParamKindSpec::Tensor {
                dtype,
                shape,
                borrow,
            } => {
                let dims: Vec<String> = shape.iter().map(|d| dim_text(*d, symbol)).collect();
                println!(
                    "  {}: tensor of {dtype} [{}], {borrow:?} borrow",
                    param.name,
                    dims.join(", ")
                );
            }
            ParamKindSpec::Scalar { dtype } => println!("  {}: {dtype}", param.name),
        }
    }
    for s in spec.symbols {
        println!(
            "  hidden .u64: {} / {} (value must be a multiple of {} and of {})",
            s.name, s.divisor, s.divisor, s.multiple_of
        );
    }
    let grid: Vec<String> = spec
        .grid
        .iter()
        .map(|g| formula_text(g.0, symbol))
        .collect();
    println!(
        "  grid [{}], block {:?}, dynamic shared memory {} bytes",
        grid.join(", "),
        spec.block,
        formula_text(spec.shared_mem_bytes.0, symbol)
    );
}

/// Binds the kernel's one symbol from a tensor length, as the safe runtime
/// would: every dim must be `N` itself here (checked, not assumed).
fn bind_n(spec: &KernelSpec, len: usize) -> Result<u64, BoxError> {
    for param in spec.params {
        if let ParamKindSpec::Tensor { shape, .. } = param.kind {
            let expected = DimSpec::Symbolic {
                symbol: 0,
                mul: 1,
                div: 1,
                add: 0,
            };
            if shape != [expected] {
                return Err(format!("unexpected shape for `{}`", param.name).into());
            }
        }
    }
    let n = len as u64;
    let symbol = spec.symbols[0];
    if n > tile_kernel::spec::MAX_SYMBOL_VALUE
        || !n.is_multiple_of(symbol.divisor)
        || !n.is_multiple_of(symbol.multiple_of)
    {
        return Err(format!("N = {n} does not meet the kernel's launch requirements").into());
    }
    Ok(n)
}

/// Launches `spec` (f32[N] -> u16[N]) on the GPU with plain cudarc.
fn launch_on_gpu(
    spec: &KernelSpec,
    host: &[f32],
    grid: &[u32],
    shared_bytes: u32,
    hidden_n: u64,
) -> Result<Vec<u16>, BoxError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(Ptx::from_src(spec.ptx))?;
    let function = module.load_function(spec.name)?;
    let x = stream.clone_htod(host)?;
    let mut y = stream.alloc_zeros::<u16>(host.len())?;
    let config = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (spec.block[0], spec.block[1], spec.block[2]),
        shared_mem_bytes: shared_bytes,
    };
    let mut launch = stream.launch_builder(&function);
    launch.arg(&x).arg(&mut y).arg(&hidden_n);
    // SAFETY: the arguments follow SPEC exactly (x: f32[N], y: u16[N], then
    // the hidden N / divisor as u64); both buffers hold N elements, fresh
    // cudarc allocations are 256-byte aligned, and N meets every launch
    // requirement of SPEC, for which the compiler proved the PTX in bounds,
    // aligned and race-free.
    unsafe { launch.launch(config) }?;
    Ok(stream.clone_dtoh(&y)?)
}

/// Runs the same launch on the CPU interpreter from `spec.program`: the
/// tensors are their bytes (little-endian, as in GPU memory), the hidden
/// symbol values are the same as the GPU launch's.
fn run_on_interpreter(
    spec: &KernelSpec,
    host: &[f32],
    grid: &[u32],
    hidden_n: u64,
) -> Result<Vec<u16>, BoxError> {
    let program = tile_kernel::lowering::encoding::decode(spec.program)?;
    if program.params.len() != spec.params.len() || program.symbols.len() != spec.symbols.len() {
        return Err("the program does not match the launch description".into());
    }
    let prepared = Prepared::new(program)?;
    let x: Vec<AtomicU8> = host
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .map(AtomicU8::new)
        .collect();
    let y: Vec<AtomicU8> = (0..host.len() * size_of::<u16>())
        .map(|_| AtomicU8::new(0))
        .collect();
    let report = prepared.run(
        [grid[0], grid[1], grid[2]],
        &[Arg::Tensor(&x), Arg::Tensor(&y)],
        &[hidden_n],
        &RunOptions::default(),
    )?;
    println!(
        "interpreter: {} blocks, {} instructions",
        report.blocks, report.instructions
    );
    Ok(y.chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0].load(Ordering::Relaxed), b[1].load(Ordering::Relaxed)]))
        .collect())
}

fn main() -> Result<(), BoxError> {
    let spec = conversions::to_half::SPEC;
    describe(&spec);
    // SAFETY: only tries to dlopen libcuda, as every cudarc call would.
    let driver = unsafe { cudarc::driver::sys::is_culib_present() };
    let cpu_asked =
        std::env::var("TILE_KERNEL_DEVICE").is_ok_and(|v| v.trim().eq_ignore_ascii_case("cpu"));
    let host = reference::f32_inputs(1_000_003, 7);
    let n = bind_n(&spec, host.len())?;
    let grid: Vec<u32> = spec
        .grid
        .iter()
        .map(|g| {
            g.eval(&[n])
                .and_then(|v| u32::try_from(v).ok())
                .ok_or("grid overflow")
        })
        .collect::<Result<_, _>>()?;
    let hidden_n = n / spec.symbols[0].divisor;
    // Dynamic shared memory per block (0 for this kernel), a formula like the grid.
    let shared_bytes = spec
        .shared_mem_bytes
        .eval(&[n])
        .and_then(|v| u32::try_from(v).ok())
        .ok_or("dynamic shared memory overflow")?;

    if driver && !cpu_asked {
        let got = launch_on_gpu(&spec, &host, &grid, shared_bytes, hidden_n)?;
        let want: Vec<u16> = host.iter().map(|v| reference::ref_f16(*v)).collect();
        if let Some(i) = reference::first_mismatch(&got, &want, reference::f16_is_nan) {
            return Err(format!("element {i}: GPU {:#06x}, half {:#06x}", got[i], want[i]).into());
        }
        println!(
            "OK: {n} elements converted by plain cudarc from the launch description, bit-exact with half"
        );
        return Ok(());
    }

    println!(
        "{}: running the launch description's program on the CPU interpreter (tile-kernel-interp), still without the tile-kernel runtime",
        if driver {
            "TILE_KERNEL_DEVICE=cpu"
        } else {
            "no CUDA driver found"
        }
    );
    let got = run_on_interpreter(&spec, &host, &grid, hidden_n)?;
    let want: Vec<u16> = host.iter().map(|v| reference::ref_f16(*v)).collect();
    if let Some(i) = reference::first_mismatch(&got, &want, reference::f16_is_nan) {
        return Err(format!(
            "element {i}: interpreter {:#06x}, half {:#06x}",
            got[i], want[i]
        )
        .into());
    }
    println!(
        "OK: {n} elements converted by the CPU interpreter from the launch description's program (no tile-kernel runtime), bit-exact with half"
    );
    Ok(())
}
