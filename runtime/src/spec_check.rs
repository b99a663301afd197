//! The spec checks: a kernel's spec against what it meets at run time.
//! Each argument of a launch against its parameter ([`check_tensor`],
//! [`check_scalar`], [`check_memory`]); the parameter counts against a
//! launch's fixed arrays ([`check_param_counts`]); the spec's target
//! against the device's compute capability ([`check_arch`]); and the IR a
//! spec carries against the spec itself ([`matches_spec`]).
//!
//! Guarantee: what passes these checks is what `Kernel::new`'s safety
//! contract quantifies over (dtypes, shapes and symbols as the spec
//! declares them, written tensors borrowed exclusively, memory holding the
//! shape from a 16-byte aligned start), and a CPU program is one whose
//! parameters, symbols and launch shape are the spec's, so the launcher's
//! checks bind the interpreter too. Pure functions, no driver calls beyond
//! asking a device its compute capability: tested without a GPU.

use cudarc::driver::sys::CUdeviceptr;
use tile_kernel_lowering::DType;
use tile_kernel_lowering::program::{self, Program};

use crate::launch::MAX_PARAMS;
use crate::spec::{Borrow, KernelSpec, ParamKindSpec, ParamSpec, SymbolSpec};
use crate::symbols::{Bindings, MAX_SYMBOLS, bind_shape};
use crate::tensor_maps::MAX_TENSOR_MAPS;
use crate::{Device, Error, Result, Target};

/// Checks that the kernel's parameters, hidden symbol parameters included,
/// fit a [`LaunchBuilder`](crate::LaunchBuilder)'s fixed arrays.
pub(crate) fn check_param_counts(spec: &KernelSpec) -> Result<()> {
    let (params, symbols, maps) = (
        spec.params.len(),
        spec.symbols.len(),
        spec.tensor_maps.len(),
    );
    let detail = if maps > MAX_TENSOR_MAPS {
        format!(
            "the kernel reads {maps} tensor maps, but a launch supports at most {MAX_TENSOR_MAPS}"
        )
    } else if params + symbols + maps > MAX_PARAMS {
        format!(
            "the kernel takes {params} parameters, {symbols} size symbols and {maps} tensor maps, but a launch supports at most {MAX_PARAMS} in all"
        )
    } else if symbols > MAX_SYMBOLS {
        format!(
            "the kernel has {symbols} size symbols, but a launch supports at most {MAX_SYMBOLS}"
        )
    } else if params + symbols > MAX_PARAMS {
        format!(
            "the kernel takes {params} parameters and {symbols} size symbols, but a launch supports at most {MAX_PARAMS} in all"
        )
    } else {
        return Ok(());
    };
    Err(Error::ArgumentMismatch {
        kernel: spec.name,
        detail,
    })
}

/// The device's architecture as a target name: compute capability 9.0 is
/// `sm_90`, 10.0 is `sm_100`.
fn device_arch(major: u32, minor: u32) -> String {
    format!("sm_{}", major * 10 + minor)
}

/// [`Error::ArchMismatch`] if PTX for `target` cannot run on a device of
/// compute capability `major.minor` ([`Target::runs_on`]).
fn arch_mismatch(
    kernel: &'static str,
    target: Target,
    (major, minor): (u32, u32),
) -> Option<Error> {
    (!target.runs_on(major, minor)).then(|| Error::ArchMismatch {
        kernel,
        target: target.to_string(),
        device: device_arch(major, minor),
    })
}

/// Refuses to load `spec` on a device whose compute capability its target
/// excludes, before the driver sees the PTX.
pub(crate) fn check_arch(spec: &KernelSpec, device: &Device) -> Result<()> {
    match arch_mismatch(spec.name, spec.target, device.compute_capability()?) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Checks that `program` is the kernel `spec` describes, so that what the
/// launcher checks against the spec (kinds, dtypes, shapes, symbols, the
/// grid, which tensors may be written) is what the program assumes: the
/// same name, block, grid formulas, dynamic shared memory formula, symbols (name, divisor, required
/// multiple) and parameters, and every tensor the program writes declared
/// [`Borrow::Exclusive`] (so borrowed `&mut` at launch). The program may not
/// write a tensor the spec declares written (a stricter borrow is fine).
pub(crate) fn matches_spec(
    spec: &KernelSpec,
    program: &Program,
) -> std::result::Result<(), String> {
    if program.name != spec.name {
        return Err(format!("the IR is of kernel `{}`", program.name));
    }
    let maps_match = program.tensor_maps.len() == spec.tensor_maps.len()
        && program
            .tensor_maps
            .iter()
            .zip(spec.tensor_maps)
            .all(|(p, s)| p.param == s.param && p.box_dims == s.box_dims && p.swizzle == s.swizzle);
    if !maps_match {
        return Err("the IR reads other tensor maps than the spec lists".to_string());
    }
    if program.launch.block != spec.block {
        return Err(format!(
            "its block is {:?}, the spec's {:?}",
            program.launch.block, spec.block
        ));
    }
    for (axis, (ir, expr)) in program.launch.grid.iter().zip(&spec.grid).enumerate() {
        if ir.0 != expr.0 {
            return Err(format!("its grid formula {axis} differs from the spec's"));
        }
    }
    if program.dynamic_shared_bytes().0 != spec.shared_mem_bytes.0 {
        return Err("its dynamic shared memory formula differs from the spec's".into());
    }
    if program.symbols.len() != spec.symbols.len() {
        return Err(format!(
            "it has {} size symbols, the spec {}",
            program.symbols.len(),
            spec.symbols.len()
        ));
    }
    for (ir, symbol) in program.symbols.iter().zip(spec.symbols) {
        if ir.name != symbol.name
            || ir.divisor != symbol.divisor
            || ir.multiple_of != symbol.multiple_of
        {
            return Err(format!(
                "its size symbol `{}` differs from the spec's `{}` (name, divisor or required multiple)",
                ir.name, symbol.name
            ));
        }
    }
    if program.params.len() != spec.params.len() {
        return Err(format!(
            "it takes {} parameters, the spec {}",
            program.params.len(),
            spec.params.len()
        ));
    }
    for (ir, param) in program.params.iter().zip(spec.params) {
        let same = ir.name == param.name
            && match (&ir.kind, param.kind) {
                (
                    program::ParamKind::Tensor {
                        dtype,
                        dims,
                        borrow: declared,
                    },
                    ParamKindSpec::Tensor {
                        dtype: spec_dtype,
                        shape,
                        borrow,
                    },
                ) => {
                    *dtype == spec_dtype
                        && dims.as_slice() == shape
                        && (*declared == Borrow::Shared || borrow == Borrow::Exclusive)
                }
                (
                    program::ParamKind::Scalar(dtype),
                    ParamKindSpec::Scalar { dtype: spec_dtype },
                ) => *dtype == spec_dtype,
                _ => false,
            };
        if !same {
            return Err(format!(
                "its parameter `{}` differs from the spec's `{}` (kind, dtype, dims or access)",
                ir.name, param.name
            ));
        }
    }
    Ok(())
}

/// Checks a tensor argument of `dtype`, `shape`, borrowed as `borrow`,
/// against parameter `param` of `kernel`, whose size symbols are `symbols`;
/// binds the symbols the shape names into `bound` (see [`bind_shape`]).
pub(crate) fn check_tensor(
    kernel: &'static str,
    param: &ParamSpec,
    symbols: &[SymbolSpec],
    dtype: DType,
    shape: &[usize],
    borrow: Borrow,
    bound: &mut Bindings,
) -> Result<()> {
    let ParamKindSpec::Tensor {
        dtype: expected_dtype,
        shape: expected_shape,
        borrow: expected_borrow,
    } = param.kind
    else {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is a scalar, but a tensor was passed",
                param.name
            ),
        });
    };
    if expected_borrow == Borrow::Exclusive && borrow == Borrow::Shared {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is written by the kernel, so the tensor must be passed mutably (`tensor_mut`)",
                param.name
            ),
        });
    }
    if dtype != expected_dtype {
        return Err(Error::DTypeMismatch {
            kernel,
            param: param.name,
            expected: expected_dtype,
            actual: dtype,
        });
    }
    bind_shape(kernel, param.name, expected_shape, symbols, shape, bound)
}

/// Checks a scalar argument of `dtype` against parameter `param` of `kernel`.
pub(crate) fn check_scalar(kernel: &'static str, param: &ParamSpec, dtype: DType) -> Result<()> {
    match param.kind {
        ParamKindSpec::Scalar {
            dtype: expected_dtype,
        } if expected_dtype == dtype => Ok(()),
        ParamKindSpec::Scalar {
            dtype: expected_dtype,
        } => Err(Error::DTypeMismatch {
            kernel,
            param: param.name,
            expected: expected_dtype,
            actual: dtype,
        }),
        ParamKindSpec::Tensor { .. } => Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "parameter `{}` is a tensor, but a scalar was passed",
                param.name
            ),
        }),
    }
}

/// Checks that the memory behind a tensor of `len` elements (already
/// matched against the parameter's shape) holds them (`available`
/// elements from its start; only fails for a `DeviceTensor` whose
/// allocation was replaced through
/// [`cuda_slice_mut`](crate::DeviceTensor::cuda_slice_mut)), and that it
/// starts 16-byte aligned, as the compile-time alignment proofs assume
/// (unless it is empty: the kernel then never accesses it). On the CPU
/// device, `address` is the view's byte offset in its tensor's memory.
pub(crate) fn check_memory(
    kernel: &'static str,
    param: &'static str,
    len: usize,
    available: usize,
    address: CUdeviceptr,
) -> Result<()> {
    if len > available {
        return Err(Error::ArgumentMismatch {
            kernel,
            detail: format!(
                "tensor `{param}` has {len} elements, but its memory holds only {available}"
            ),
        });
    }
    // An empty tensor is never accessed, wherever it starts.
    if len > 0 && !address.is_multiple_of(16) {
        return Err(Error::Misaligned {
            kernel,
            param,
            address,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::Binding;
    use crate::test_specs::{HALF, HX, N, SYMBOLS, X, Y, bind_half};

    fn check_const(param: &ParamSpec, dtype: DType, shape: &[usize], borrow: Borrow) -> Result<()> {
        check_tensor(
            "k",
            param,
            &[],
            dtype,
            shape,
            borrow,
            &mut [None; MAX_SYMBOLS],
        )
    }

    #[test]
    fn matching_tensor_passes() {
        assert!(check_const(&X, DType::F32, &[4, 2], Borrow::Shared).is_ok());
        assert!(check_const(&Y, DType::F32, &[4, 2], Borrow::Exclusive).is_ok());
        // A mutable borrow is stricter than a read needs: allowed.
        assert!(check_const(&X, DType::F32, &[4, 2], Borrow::Exclusive).is_ok());
    }

    #[test]
    fn wrong_shape_is_shape_mismatch() {
        let err = check_const(&X, DType::F32, &[2, 4], Borrow::Shared);
        match err {
            Err(Error::ShapeMismatch {
                kernel: "k",
                param: "x",
                expected,
                actual,
            }) => {
                assert_eq!(expected, "[4, 2]");
                assert_eq!(actual, vec![2, 4]);
            }
            other => panic!("expected ShapeMismatch, got {other:?}"),
        }
        // Same element count, other rank: still a mismatch.
        assert!(matches!(
            check_const(&X, DType::F32, &[8], Borrow::Shared),
            Err(Error::ShapeMismatch { .. })
        ));
    }

    #[test]
    fn wrong_dtype_is_dtype_mismatch() {
        assert!(matches!(
            check_const(&X, DType::F16, &[4, 2], Borrow::Shared),
            Err(Error::DTypeMismatch {
                expected: DType::F32,
                actual: DType::F16,
                ..
            })
        ));
        assert!(matches!(
            check_scalar("k", &N, DType::I32),
            Err(Error::DTypeMismatch {
                expected: DType::U32,
                actual: DType::I32,
                ..
            })
        ));
        assert!(check_scalar("k", &N, DType::U32).is_ok());
    }

    #[test]
    fn shared_borrow_of_written_tensor_is_refused() {
        assert!(matches!(
            check_const(&Y, DType::F32, &[4, 2], Borrow::Shared),
            Err(Error::ArgumentMismatch { kernel: "k", .. })
        ));
    }

    #[test]
    fn kind_mismatch_is_argument_mismatch() {
        assert!(matches!(
            check_const(&N, DType::U32, &[], Borrow::Shared),
            Err(Error::ArgumentMismatch { .. })
        ));
        assert!(matches!(
            check_scalar("k", &X, DType::F32),
            Err(Error::ArgumentMismatch { .. })
        ));
    }

    #[test]
    fn short_or_misaligned_memory_is_refused() {
        assert!(check_memory("k", "x", 8, 8, 0x1000).is_ok());
        // A view of an empty tensor, or over a longer cudarc view.
        assert!(check_memory("k", "x", 0, 1, 0x1000).is_ok());
        assert!(check_memory("k", "x", 8, 100, 0x1010).is_ok());
        // An empty view may start anywhere.
        assert!(check_memory("k", "x", 0, 0, 0x1004).is_ok());
        let err = check_memory("k", "x", 8, 4, 0x1000).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `k`: tensor `x` has 8 elements, but its memory holds only 4"
        );
        let err = check_memory("k", "x", 8, 8, 0x1008).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Misaligned {
                    kernel: "k",
                    param: "x",
                    address: 0x1008
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `k`: tensor `x` starts at device address 0x1008, which is not 16-byte aligned; the kernel's vector accesses assume it is (a view's start offset in bytes must be a multiple of 16)"
        );
    }

    #[test]
    fn arch_mismatch_names_target_and_device() {
        // Forward compatible: sm_80 PTX on sm_90, sm_90 on sm_90 and sm_100.
        assert!(arch_mismatch("k", Target::sm(80), (9, 0)).is_none());
        assert!(arch_mismatch("k", Target::SM_90, (9, 0)).is_none());
        assert!(arch_mismatch("k", Target::SM_90, (10, 0)).is_none());
        let err = arch_mismatch("k", Target::sm(100), (9, 0)).expect("sm_100 on sm_90");
        match &err {
            Error::ArchMismatch {
                kernel,
                target,
                device,
            } => assert_eq!(
                (*kernel, target.as_str(), device.as_str()),
                ("k", "sm_100", "sm_90")
            ),
            other => panic!("expected ArchMismatch, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "kernel `k` is compiled for sm_100, which this GPU (sm_90) cannot run: PTX runs on the architecture it targets and newer ones (an arch-specific `a` target only on exactly its own); compile it with `arch = \"sm_90\"` or an older target"
        );
        // Arch-specific targets run on exactly their own architecture.
        let sm_90a = Target {
            sm: 90,
            arch_specific: true,
        };
        assert!(arch_mismatch("k", sm_90a, (9, 0)).is_none());
        let err = arch_mismatch("k", sm_90a, (10, 0)).expect("sm_90a on sm_100");
        assert!(
            matches!(&err, Error::ArchMismatch { target, device, .. } if target == "sm_90a" && device == "sm_100"),
            "{err:?}"
        );
        assert!(arch_mismatch("k", Target::sm(89), (8, 6)).is_some());
        assert_eq!(device_arch(8, 6), "sm_86");
        assert_eq!(device_arch(12, 0), "sm_120");
    }

    #[test]
    fn tensors_bind_symbols_across_params() -> Result<()> {
        let bound = bind_half(&[8], &[4])?;
        assert_eq!(bound[0], Some(Binding { value: 8, by: "x" }));
        let err = bind_half(&[8], &[5]).unwrap_err();
        assert!(
            matches!(
                err,
                Error::SymbolMismatch {
                    kernel: "half",
                    symbol: "N",
                    param: "y",
                    bound_by: "x",
                    expected: 8,
                    actual: 10,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `half`: argument `y` has N = 10 (from its shape [5]), but `x` bound N = 8"
        );
        let err = bind_half(&[7], &[3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `half`: N = 7 must be a multiple of 2 (`{N / 2}` in the shape of `y`)"
        );
        // The dtype is checked before the shape binds anything.
        let mut bound = [None; MAX_SYMBOLS];
        assert!(matches!(
            check_tensor(
                "half",
                &HX,
                SYMBOLS,
                DType::U32,
                &[8],
                Borrow::Shared,
                &mut bound
            ),
            Err(Error::DTypeMismatch { .. })
        ));
        assert_eq!(bound, [None; MAX_SYMBOLS]);
        Ok(())
    }

    #[test]
    fn param_counts_include_the_hidden_symbols() {
        const MANY: &[ParamSpec] = &[N; MAX_PARAMS];
        let too_many = KernelSpec {
            params: MANY,
            ..HALF
        };
        assert!(matches!(
            check_param_counts(&too_many),
            Err(Error::ArgumentMismatch { kernel: "half", .. })
        ));
        let fits = KernelSpec {
            params: &MANY[..MAX_PARAMS - 1],
            ..HALF
        };
        assert!(check_param_counts(&fits).is_ok());
        const NINE: &[SymbolSpec] = &[SYMBOLS[0]; MAX_SYMBOLS + 1];
        let too_many_symbols = KernelSpec {
            symbols: NINE,
            params: &[],
            ..HALF
        };
        assert!(matches!(
            check_param_counts(&too_many_symbols),
            Err(Error::ArgumentMismatch { .. })
        ));
    }
}
