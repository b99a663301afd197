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

#[path = "common/conversions.rs"]
#[allow(dead_code)]
mod conversions;
#[path = "common/reference.rs"]
#[allow(dead_code)]
mod reference;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use tile_kernel::spec::{DimSpec, KernelSpec, ParamKind, dim_text, formula_text};

type BoxError = Box<dyn std::error::Error>;

/// Prints the description as an engine would read it.
fn describe(spec: &KernelSpec) {
    let symbol = |s: u16| spec.symbols[usize::from(s)].name.to_string();
    println!("kernel `{}` for {}", spec.name, spec.target);
    for param in spec.params {
        match param.kind {
            ParamKind::Tensor {
                dtype,
                shape,
                access,
            } => {
                let dims: Vec<String> = shape.iter().map(|d| dim_text(*d, symbol)).collect();
                println!(
                    "  {}: tensor of {dtype} [{}], {access:?}",
                    param.name,
                    dims.join(", ")
                );
            }
            ParamKind::Scalar { dtype } => println!("  {}: {dtype}", param.name),
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
    println!("  grid [{}], block {:?}", grid.join(", "), spec.block);
}

/// Binds the kernel's one symbol from a tensor length, as the safe runtime
/// would: every dim must be `N` itself here (checked, not assumed).
fn bind_n(spec: &KernelSpec, len: usize) -> Result<u64, BoxError> {
    for param in spec.params {
        if let ParamKind::Tensor { shape, .. } = param.kind {
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

fn main() -> Result<(), BoxError> {
    let spec = conversions::to_half::SPEC;
    describe(&spec);
    // SAFETY: only tries to dlopen libcuda, as every cudarc call would.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        println!("no CUDA driver found: printed the launch description only");
        return Ok(());
    }
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

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(Ptx::from_src(spec.ptx))?;
    let function = module.load_function(spec.name)?;
    let x = stream.clone_htod(&host)?;
    let mut y = stream.alloc_zeros::<u16>(host.len())?;
    let hidden_n = n / spec.symbols[0].divisor;
    let config = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (spec.block[0], spec.block[1], spec.block[2]),
        shared_mem_bytes: spec.shared_mem_bytes,
    };
    let mut launch = stream.launch_builder(&function);
    launch.arg(&x).arg(&mut y).arg(&hidden_n);
    // SAFETY: the arguments follow SPEC exactly (x: f32[N], y: u16[N], then
    // the hidden N / divisor as u64); both buffers hold N elements, fresh
    // cudarc allocations are 256-byte aligned, and N meets every launch
    // requirement of SPEC, for which the compiler proved the PTX in bounds,
    // aligned and race-free.
    unsafe { launch.launch(config) }?;
    let got = stream.clone_dtoh(&y)?;
    let want: Vec<u16> = host.iter().map(|v| reference::ref_f16(*v)).collect();
    if let Some(i) = reference::first_mismatch(&got, &want, reference::f16_is_nan) {
        return Err(format!("element {i}: GPU {:#06x}, half {:#06x}", got[i], want[i]).into());
    }
    println!(
        "OK: {n} elements converted by plain cudarc from the launch description, bit-exact with half"
    );
    Ok(())
}
