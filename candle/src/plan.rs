//! What an op needs to know before it touches a device: which kernel
//! parameters the op's tensors fill, where each input's elements are
//! (contiguous, at an offset), and the shapes of the outputs it allocates.
//! Pure functions of the kernel's spec and candle's layouts.
//!
//! Guarantee for the backends: a [`Plan`] has one input range per
//! read-only tensor parameter and one output shape and dtype per written
//! one, in parameter order. It checks nothing the launch checks again:
//! dtypes, the inputs' shapes against the parameters and the symbols'
//! agreement are left to the kernel's launch, which reports them with the
//! launcher's own errors.

use candle::{DType as CandleDType, Layout};
use tile_kernel::spec::{Borrow, DimSpec, KernelSpec, ParamKindSpec, ParamSpec};

use crate::dtype::candle_dtype;

/// The op's tensors mapped onto the kernel's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Per input: its elements `start..end` in its storage, and its shape.
    pub(crate) inputs: Vec<InputPlan>,
    /// Per output: candle's dtype and the shape to allocate.
    pub(crate) outputs: Vec<(CandleDType, Vec<usize>)>,
}

/// Where an input's elements are in its storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputPlan {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) shape: Vec<usize>,
}

/// The kernel's tensor parameters the op's inputs fill: those it only reads.
pub(crate) fn input_params(spec: &KernelSpec) -> impl Iterator<Item = &ParamSpec> {
    spec.params.iter().filter(|p| {
        matches!(
            p.kind,
            ParamKindSpec::Tensor {
                borrow: Borrow::Shared,
                ..
            }
        )
    })
}

/// The kernel's tensor parameters the op allocates as outputs: those it writes.
pub(crate) fn output_params(spec: &KernelSpec) -> impl Iterator<Item = &ParamSpec> {
    spec.params.iter().filter(|p| {
        matches!(
            p.kind,
            ParamKindSpec::Tensor {
                borrow: Borrow::Exclusive,
                ..
            }
        )
    })
}

/// The number of scalar parameters.
pub(crate) fn scalar_count(spec: &KernelSpec) -> usize {
    spec.params
        .iter()
        .filter(|p| matches!(p.kind, ParamKindSpec::Scalar { .. }))
        .count()
}

/// Plans op `op`'s launch of the kernel of `spec` on `layouts`, the op's
/// inputs in order (the kernel's read-only tensor parameters in order).
///
/// Errors: a count of inputs or scalars that does not match the kernel's,
/// an input whose layout is not contiguous (naming it and its strides), an
/// output whose dtype candle lacks, or an output dim whose size symbol no
/// input binds.
pub(crate) fn plan(
    op: &str,
    spec: &KernelSpec,
    layouts: &[&Layout],
    scalars: usize,
) -> candle::Result<Plan> {
    let params: Vec<&ParamSpec> = input_params(spec).collect();
    if params.len() != layouts.len() {
        let names: Vec<&str> = params.iter().map(|p| p.name).collect();
        candle::bail!(
            "op `{op}`: kernel `{}` reads {} tensors ({}), but the op was given {}",
            spec.name,
            params.len(),
            names.join(", "),
            layouts.len()
        );
    }
    let wanted = scalar_count(spec);
    if wanted != scalars {
        candle::bail!(
            "op `{op}`: kernel `{}` takes {wanted} scalar arguments, but the op gives {scalars}",
            spec.name
        );
    }
    let mut inputs = Vec::with_capacity(layouts.len());
    for (index, (param, layout)) in params.iter().zip(layouts).enumerate() {
        let Some((start, end)) = layout.contiguous_offsets() else {
            candle::bail!(
                "op `{op}`: input {index} (`{}` of kernel `{}`) has shape {:?} with strides {:?}, but the kernel takes a contiguous row-major tensor: call `.contiguous()` on it first, or let the op copy strided inputs (`TileOp::copy_strided_inputs`)",
                param.name,
                spec.name,
                layout.dims(),
                layout.stride()
            );
        };
        inputs.push(InputPlan {
            start,
            end,
            shape: layout.dims().to_vec(),
        });
    }
    let bound = bind_symbols(spec, &params, &inputs);
    let outputs = output_params(spec)
        .map(|param| output_shape(op, spec, param, &bound, &inputs))
        .collect::<candle::Result<_>>()?;
    Ok(Plan { inputs, outputs })
}

/// The size symbols the inputs' shapes bind: the first input dim of each
/// symbol that solves its dim formula. Conflicts are the launch's to report.
fn bind_symbols(
    spec: &KernelSpec,
    params: &[&ParamSpec],
    inputs: &[InputPlan],
) -> Vec<Option<u64>> {
    let mut bound = vec![None; spec.symbols.len()];
    for (param, input) in params.iter().zip(inputs) {
        let ParamKindSpec::Tensor { shape, .. } = param.kind else {
            continue;
        };
        if shape.len() != input.shape.len() {
            continue;
        }
        for (dim, &extent) in shape.iter().zip(&input.shape) {
            let DimSpec::Symbolic {
                symbol,
                mul,
                div,
                add,
            } = *dim
            else {
                continue;
            };
            // extent = value * mul / div + add, so value = (extent - add) * div / mul.
            let value = u64::try_from(extent)
                .ok()
                .and_then(|e| e.checked_sub(add))
                .and_then(|e| e.checked_mul(div))
                .filter(|&e| mul != 0 && e % mul == 0)
                .map(|e| e / mul);
            if let (Some(slot), Some(value)) = (bound.get_mut(usize::from(symbol)), value) {
                slot.get_or_insert(value);
            }
        }
    }
    bound
}

/// The dtype and shape of output `param`, from the symbols the inputs bound.
fn output_shape(
    op: &str,
    spec: &KernelSpec,
    param: &ParamSpec,
    bound: &[Option<u64>],
    inputs: &[InputPlan],
) -> candle::Result<(CandleDType, Vec<usize>)> {
    let ParamKindSpec::Tensor { dtype, shape, .. } = param.kind else {
        candle::bail!("op `{op}`: parameter `{}` is not a tensor", param.name);
    };
    let Some(candle_dtype) = candle_dtype(dtype) else {
        candle::bail!(
            "op `{op}`: output `{}` of kernel `{}` is {dtype}, which candle has no dtype for (shared: u8, u32, i16, i32, i64, f16, bf16, f32, f64)",
            param.name,
            spec.name
        );
    };
    let mut dims = Vec::with_capacity(shape.len());
    for dim in shape {
        let extent = match *dim {
            DimSpec::Const(extent) => Some(extent),
            DimSpec::Symbolic {
                symbol,
                mul,
                div,
                add,
            } => bound
                .get(usize::from(symbol))
                .copied()
                .flatten()
                .and_then(|v| v.checked_mul(mul))
                .and_then(|v| v.checked_div(div))
                .and_then(|v| v.checked_add(add)),
        };
        let Some(extent) = extent.and_then(|e| usize::try_from(e).ok()) else {
            let symbol = match *dim {
                DimSpec::Symbolic { symbol, .. } => spec
                    .symbols
                    .get(usize::from(symbol))
                    .map_or("?", |s| s.name),
                DimSpec::Const(_) => "?",
            };
            let shapes: Vec<String> = input_params(spec)
                .zip(inputs)
                .map(|(p, i)| format!("`{}` {:?}", p.name, i.shape))
                .collect();
            candle::bail!(
                "op `{op}`: the shape of output `{}` of kernel `{}` needs the size symbol `{symbol}`, which no input's shape determines (inputs: {})",
                param.name,
                spec.name,
                shapes.join(", ")
            );
        };
        dims.push(extent);
    }
    Ok((candle_dtype, dims))
}

#[cfg(test)]
mod tests {
    use tile_kernel::DType;
    use tile_kernel::spec::{LaunchFormulaSpec, SymbolSpec, Target};

    use super::*;

    const fn tensor(
        name: &'static str,
        dtype: DType,
        shape: &'static [DimSpec],
        borrow: Borrow,
    ) -> ParamSpec {
        ParamSpec {
            name,
            kind: ParamKindSpec::Tensor {
                dtype,
                shape,
                borrow,
            },
        }
    }

    const fn symbolic(symbol: u16, mul: u64, div: u64, add: u64) -> DimSpec {
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        }
    }

    const SYMBOL: SymbolSpec = SymbolSpec {
        name: "N",
        divisor: 1,
        multiple_of: 1,
    };

    /// `k(x: Tensor<f32, {N + 1}>, y: Tensor<u8, 4, {2 * N}>, z: Tensor<u16, M>, s: f32)`.
    const SPEC: KernelSpec = KernelSpec {
        name: "k",
        ptx: "",
        target: Target {
            sm: 90,
            arch_specific: false,
        },
        grid: [LaunchFormulaSpec::ONE; 3],
        block: [1, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec(&[]),
        params: &[
            tensor("x", DType::F32, &[symbolic(0, 1, 1, 1)], Borrow::Shared),
            tensor(
                "y",
                DType::U8,
                &[DimSpec::Const(4), symbolic(0, 2, 1, 0)],
                Borrow::Exclusive,
            ),
            ParamSpec {
                name: "s",
                kind: ParamKindSpec::Scalar { dtype: DType::F32 },
            },
        ],
        symbols: &[SYMBOL],
        tensor_maps: &[],
        program: &[],
    };

    #[test]
    fn outputs_are_shaped_from_the_symbols_the_inputs_bind() -> candle::Result<()> {
        // x has N + 1 = 6 elements at offset 3 of its storage: N = 5.
        let x = Layout::contiguous_with_offset(6, 3);
        let plan = plan("op", &SPEC, &[&x], 1)?;
        assert_eq!(
            plan.inputs,
            [InputPlan {
                start: 3,
                end: 9,
                shape: vec![6]
            }]
        );
        assert_eq!(plan.outputs, [(CandleDType::U8, vec![4, 10])]);
        Ok(())
    }

    #[test]
    fn outputs_that_no_input_determines_or_candle_lacks_are_errors() {
        const UNBOUND: KernelSpec = KernelSpec {
            params: &[
                tensor("x", DType::F32, &[DimSpec::Const(3)], Borrow::Shared),
                tensor("y", DType::F32, &[symbolic(0, 1, 1, 0)], Borrow::Exclusive),
            ],
            ..SPEC
        };
        let x = Layout::contiguous(3);
        let err = plan("op", &UNBOUND, &[&x], 0).unwrap_err().to_string();
        assert!(
            err.starts_with("op `op`: the shape of output `y` of kernel `k` needs the size symbol `N`, which no input's shape determines (inputs: `x` [3])"),
            "{err}"
        );
        const U16: KernelSpec = KernelSpec {
            params: &[tensor(
                "z",
                DType::U16,
                &[DimSpec::Const(2)],
                Borrow::Exclusive,
            )],
            ..SPEC
        };
        let err = plan("op", &U16, &[], 0).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "op `op`: output `z` of kernel `k` is u16, which candle has no dtype for"
            ),
            "{err}"
        );
    }
}
