//! Specs the unit tests of the spec checks, the launch builder and the
//! kernel share: `k` with constant shapes, and `half`, whose shapes bind a
//! size symbol `N` with a divisor and a required multiple.

use tile_kernel_lowering::DType;

use crate::spec::{
    Borrow, DimSpec, KernelSpec, LaunchFormulaSpec, LaunchOp, ParamKindSpec, ParamSpec, SymbolSpec,
};
use crate::spec_check::check_tensor;
use crate::symbols::{Bindings, MAX_SYMBOLS};
use crate::{Kernel, Result};

pub(crate) const X: ParamSpec = ParamSpec {
    name: "x",
    kind: ParamKindSpec::Tensor {
        dtype: DType::F32,
        shape: &[DimSpec::Const(4), DimSpec::Const(2)],
        borrow: Borrow::Shared,
    },
};

pub(crate) const Y: ParamSpec = ParamSpec {
    name: "y",
    kind: ParamKindSpec::Tensor {
        dtype: DType::F32,
        shape: &[DimSpec::Const(4), DimSpec::Const(2)],
        borrow: Borrow::Exclusive,
    },
};

pub(crate) const N: ParamSpec = ParamSpec {
    name: "n",
    kind: ParamKindSpec::Scalar { dtype: DType::U32 },
};

// SAFETY: never launched (the unit tests only inspect it, plan launches of
// its spec and check arguments without a device), and its PTX has no
// `.entry k`, so even a launch would stop at `Error::ModuleLoad` before reaching the driver's
// launch call.
pub(crate) static K: Kernel = unsafe {
    Kernel::new(KernelSpec {
        name: "k",
        ptx: ".version 7.8\n.target sm_90\n.address_size 64\n",
        target: crate::Target::SM_90,
        grid: [LaunchFormulaSpec::ONE; 3],
        block: [32, 1, 1],
        cluster: [1, 1, 1],
        shared_mem_bytes: LaunchFormulaSpec::ZERO,
        params: &[X, Y, N],
        symbols: &[],
        tensor_maps: &[],
        program: &[],
    })
};

pub(crate) const SYM_N: DimSpec = DimSpec::Symbolic {
    symbol: 0,
    mul: 1,
    div: 1,
    add: 0,
};

pub(crate) const HALF_N: DimSpec = DimSpec::Symbolic {
    symbol: 0,
    mul: 1,
    div: 2,
    add: 0,
};

pub(crate) const SYMBOLS: &[SymbolSpec] = &[SymbolSpec {
    name: "N",
    divisor: 2,
    multiple_of: 4,
}];

/// `fn half(x: Tensor<f32, N>, y: Tensor<u32, {N / 2}>)`, grid = ceil_div(N, 2048).
pub(crate) const HX: ParamSpec = ParamSpec {
    name: "x",
    kind: ParamKindSpec::Tensor {
        dtype: DType::F32,
        shape: &[SYM_N],
        borrow: Borrow::Shared,
    },
};

pub(crate) const HY: ParamSpec = ParamSpec {
    name: "y",
    kind: ParamKindSpec::Tensor {
        dtype: DType::U32,
        shape: &[HALF_N],
        borrow: Borrow::Exclusive,
    },
};

pub(crate) const HALF: KernelSpec = KernelSpec {
    name: "half",
    ptx: "",
    target: crate::Target::SM_90,
    grid: [
        LaunchFormulaSpec(&[
            LaunchOp::Symbol(0),
            LaunchOp::Const(2048),
            LaunchOp::CeilDiv,
        ]),
        LaunchFormulaSpec::ONE,
        LaunchFormulaSpec::ONE,
    ],
    block: [256, 1, 1],
    cluster: [1, 1, 1],
    shared_mem_bytes: LaunchFormulaSpec::ZERO,
    params: &[HX, HY],
    symbols: SYMBOLS,
    tensor_maps: &[],
    program: &[],
};

/// Pushes `x` and `y` of HALF with these shapes, as a launch would.
pub(crate) fn bind_half(x: &[usize], y: &[usize]) -> Result<Bindings> {
    let mut bound = [None; MAX_SYMBOLS];
    check_tensor(
        "half",
        &HX,
        SYMBOLS,
        DType::F32,
        x,
        Borrow::Shared,
        &mut bound,
    )?;
    check_tensor(
        "half",
        &HY,
        SYMBOLS,
        DType::U32,
        y,
        Borrow::Exclusive,
        &mut bound,
    )?;
    Ok(bound)
}
