//! Running what compiles on the CPU interpreter: the launches and sizes of
//! `near_legal_kernels_that_compile_run_without_faults`.

use super::*;

/// Instructions and loop iterations a generated kernel's block may run on
/// the interpreter before the run stops (counted as run, not as a fault).
pub(crate) const WORK_LIMIT: u64 = 2_000_000;

/// Whether `program` has a dynamic shared buffer (sized at launch).
pub(crate) fn has_dynamic_shared(program: &tile_kernel_lowering::program::Program) -> bool {
    program.shared.iter().any(|b| b.is_dynamic())
}

/// The symbol values of a launch by [`run_on_interpreter`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Size {
    /// Every symbol at the multiple of its requirements nearest above
    /// this. The sizes the tests use keep a dynamic shared buffer (at most
    /// `{2 * N}` or `{N + 1}` f32s, a few KiB) far below the 227 KiB a
    /// block may have, so those launches run.
    Near(u64),
    /// The smallest such size whose dynamic shared buffer needs more than
    /// a block may have beside the static buffers: a launch the
    /// interpreter must refuse.
    OverSharedLimit,
}

/// What became of a launch that did not fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Launch {
    /// It ran, to the end or until a block reached [`WORK_LIMIT`].
    Ran,
    /// Too large to run here (tensors, threads), or a grid formula the
    /// runtime refuses: not run.
    Skipped,
    /// Refused with [`FaultKind::Arguments`](tile_kernel_interp::FaultKind)
    /// before any thread ran, as the runtime refuses it: its dynamic shared
    /// buffer needs more than the 227 KiB a block may have. The buffer's
    /// size is the launcher's choice, which the checker cannot bound (it
    /// proves accesses within the buffer, whatever its size), so this is
    /// no hole in a proof; an `Arguments` error at a size that fits, or a
    /// run at one that does not, still fails.
    SharedTooLarge,
}

/// Runs `program` on the interpreter with its symbols at `size`, tensors
/// of the sizes that implies filled with a pattern, and scalars set to 3
/// (or `true`). `Err` for a fault (a hole in a proof), or for an
/// oversized dynamic shared buffer the interpreter did not refuse.
pub(crate) fn run_on_interpreter(
    program: &tile_kernel_lowering::program::Program,
    size: Size,
) -> Result<Launch, String> {
    use std::sync::atomic::AtomicU8;
    use tile_kernel_interp::{Arg, FaultKind, Prepared, RunOptions};
    use tile_kernel_lowering::program::{DimSpec, ParamKind};
    use tile_kernel_lowering::sym::gcd;

    let lcm = |a: u64, b: u64| a / gcd(i128::from(a), i128::from(b)) as u64 * b;
    // Each symbol's full value: a multiple of its divisor, its alignment
    // requirement and every dim's `div`.
    let mut step: Vec<u64> = program
        .symbols
        .iter()
        .map(|s| lcm(s.divisor.max(1), s.multiple_of.max(1)))
        .collect();
    for param in &program.params {
        if let ParamKind::Tensor { dims, .. } = &param.kind {
            for dim in dims {
                if let DimSpec::Symbolic { symbol, div, .. } = dim
                    && let Some(s) = step.get_mut(usize::from(*symbol))
                {
                    *s = lcm(*s, *div);
                }
            }
        }
    }
    let values_near = |size: u64| -> Vec<u64> {
        step.iter()
            .map(|s| size.div_ceil(*s).saturating_mul(*s))
            .collect()
    };
    let prepared = Prepared::new(program.clone()).map_err(|e| e.to_string())?;
    // Whether the dynamic shared buffer (if any) is larger at `values` than
    // a block may have beside the static buffers (or overflows).
    let limit = u64::from(prepared.dynamic_shared_limit());
    let dynamic = program.shared.iter().find(|b| b.is_dynamic());
    let over_limit = |values: &[u64]| {
        dynamic.is_some_and(|b| b.bytes_for(values).is_none_or(|bytes| bytes > limit))
    };
    let size = match size {
        Size::Near(size) => size,
        Size::OverSharedLimit => {
            // The buffer grows with its symbol: bisect for the first size
            // past the limit.
            let (mut lo, mut hi) = (0u64, 1 << 40);
            if !over_limit(&values_near(hi)) {
                return Ok(Launch::Skipped);
            }
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if over_limit(&values_near(mid)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        }
    };
    let values = values_near(size);
    let oversized = over_limit(&values);
    let extent = |dim: &DimSpec| match *dim {
        DimSpec::Const(v) => v,
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => values[usize::from(symbol)] * mul / div + add,
    };
    let mut memories: Vec<Vec<AtomicU8>> = Vec::new();
    let mut scalars: Vec<u64> = Vec::new();
    for param in &program.params {
        match &param.kind {
            ParamKind::Tensor { dtype, dims, .. } => {
                let bytes = dims.iter().map(extent).product::<u64>() * dtype.size_bytes() as u64;
                if bytes > 1 << 24 {
                    return Ok(Launch::Skipped);
                }
                memories.push(
                    (0..bytes)
                        .map(|i| AtomicU8::new((i * 37 % 251) as u8))
                        .collect(),
                );
                scalars.push(0);
            }
            ParamKind::Scalar(dtype) => {
                memories.push(Vec::new());
                scalars.push(if *dtype == DType::Bool { 1 } else { 3 });
            }
        }
    }
    let mut grid = [1u32; 3];
    for (axis, formula) in program.launch.grid.iter().enumerate() {
        // A formula that underflows, overflows or divides by zero is a
        // launch the runtime refuses: nothing runs.
        let Some(extent) = formula.eval(&values) else {
            return Ok(Launch::Skipped);
        };
        grid[axis] = u32::try_from(extent).map_err(|_| "grid too large")?;
    }
    // Not whole clusters: the runtime refuses the launch.
    if tile_kernel_lowering::spec::partial_cluster_axis(grid, program.launch.cluster).is_some() {
        return Ok(Launch::Skipped);
    }
    let threads = grid
        .iter()
        .chain(&program.launch.block)
        .map(|d| u64::from(*d))
        .product::<u64>();
    if threads > 1 << 20 {
        return Ok(Launch::Skipped);
    }
    let args: Vec<Arg<'_>> = program
        .params
        .iter()
        .zip(memories.iter().zip(&scalars))
        .map(|(param, (memory, scalar))| match param.kind {
            ParamKind::Tensor { .. } => Arg::Tensor(memory),
            ParamKind::Scalar(_) => Arg::Scalar(*scalar),
        })
        .collect();
    let kernel_values: Vec<u64> = program
        .symbols
        .iter()
        .zip(&values)
        .map(|(s, v)| v / s.divisor.max(1))
        .collect();
    let result = prepared.run(
        grid,
        &args,
        &kernel_values,
        &RunOptions {
            threads: 1,
            // Generated loops may run for a very long time: stop there
            // (not a fault of the checker).
            work_limit: Some(WORK_LIMIT),
        },
    );
    match result {
        // An oversized dynamic shared buffer: refused up front, with an
        // `Arguments` error (see `Launch::SharedTooLarge`), and only then.
        Err(fault) if oversized => match fault.kind {
            FaultKind::Arguments(_) => Ok(Launch::SharedTooLarge),
            _ => Err(format!(
                "a launch whose dynamic shared buffer needs more than the {limit} bytes a block may have was not refused: {fault}"
            )),
        },
        Ok(_) if oversized => Err(format!(
            "the interpreter ran a launch whose dynamic shared buffer needs more than the {limit} bytes a block may have"
        )),
        Ok(_) => Ok(Launch::Ran),
        Err(fault) => match fault.kind {
            FaultKind::WorkLimit { .. } => Ok(Launch::Ran),
            _ => Err(fault.to_string()),
        },
    }
}
