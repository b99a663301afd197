//! Tensor maps (TMA descriptors) for a kernel's tensor copies
//! (`cp.async.bulk.tensor`): the launcher builds each from its tensor
//! argument and the box the kernel declared ([`TensorMapSpec`]) and passes
//! it by value; the kernel never sees how, so it cannot fabricate one.
//!
//! [`layout`] checks what `cuTensorMapEncodeTiled` requires of the tensor
//! and returns the map's dims and strides, on either device, so a launch
//! the GPU would refuse is refused on the CPU interpreter too; [`encode`]
//! builds the driver's map. Guarantee: a map built here covers exactly its
//! tensor argument's elements (dims and row-major strides of its shape at
//! this launch, its start address), so the hardware's clipping to the
//! map's dims keeps every tensor copy inside the tensor. A swizzled map's
//! box rows are its swizzle span, so the swizzle permutes 16-byte chunks
//! within the shared rows the box fills, never across the box.

use tile_kernel_lowering::DType;

use crate::spec::{DimSpec, KernelSpec, ParamKindSpec, TensorMapSpec};
use crate::{Error, Result};

/// The most tensor maps one kernel may read.
pub const MAX_TENSOR_MAPS: usize = 8;

/// The largest dim of a mapped tensor: a kernel's coordinates are clamped
/// into `i32`, which must stay outside the tensor.
const MAX_MAPPED_DIM: u64 = (1 << 31) - 1;

/// A global stride of a tensor map is a multiple of 16 bytes below 2^40.
const STRIDE_ALIGNMENT: u64 = 16;
const MAX_STRIDE: u64 = 1 << 40;

/// A map's shape as the driver takes it: innermost axis first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MapLayout {
    pub rank: usize,
    pub element: DType,
    /// Elements per axis, innermost first.
    pub dims: [u64; 5],
    /// Byte strides of axes 1.. (innermost first; the innermost axis is
    /// contiguous and has none).
    pub strides: [u64; 4],
    /// Box extents, innermost first.
    pub box_dims: [u32; 5],
    /// The swizzle span in bytes (0: none, 32, 64, 128).
    pub swizzle: u32,
}

/// The layout of map `map` of `spec` for a launch whose size symbols have
/// `values`, or why the tensor cannot have a tensor map.
pub(crate) fn layout(spec: &KernelSpec, map: &TensorMapSpec, values: &[u64]) -> Result<MapLayout> {
    let fail = |detail: String| Error::ArgumentMismatch {
        kernel: spec.name,
        detail,
    };
    let Some(param) = spec.params.get(map.param) else {
        return Err(fail(format!(
            "tensor map of parameter {}, which the kernel does not have",
            map.param
        )));
    };
    let ParamKindSpec::Tensor { dtype, shape, .. } = param.kind else {
        return Err(fail(format!(
            "tensor map of `{}`, which is not a tensor",
            param.name
        )));
    };
    let rank = shape.len();
    if !(1..=5).contains(&rank) || map.box_dims.len() != rank {
        return Err(fail(format!(
            "tensor map of `{}`: a {rank}-dimensional tensor with a {}-dimensional box (tensor maps have 1 to 5 dims, one box extent each)",
            param.name,
            map.box_dims.len()
        )));
    }
    let inner_bytes = u64::from(map.box_dims[rank - 1]) * dtype.size_bytes() as u64;
    if !matches!(map.swizzle, 0 | 32 | 64 | 128)
        || (map.swizzle != 0 && inner_bytes != u64::from(map.swizzle))
    {
        return Err(fail(format!(
            "tensor map of `{}`: a {}-byte swizzle with box rows of {inner_bytes} bytes (a swizzle is 32, 64 or 128 bytes, the box's row)",
            param.name, map.swizzle
        )));
    }
    let mut out = MapLayout {
        rank,
        element: dtype,
        dims: [1; 5],
        strides: [0; 4],
        box_dims: [1; 5],
        swizzle: map.swizzle,
    };
    let mut stride = dtype.size_bytes() as u64;
    for (axis, (dim, extent)) in shape.iter().zip(map.box_dims).rev().enumerate() {
        let value = dim_value(*dim, values).ok_or_else(|| {
            fail(format!(
                "tensor map of `{}`: a dim has no value",
                param.name
            ))
        })?;
        if value == 0 || value > MAX_MAPPED_DIM {
            return Err(fail(format!(
                "tensor `{}` has an extent of {value}, but a tensor copy's map needs extents from 1 to {MAX_MAPPED_DIM}",
                param.name
            )));
        }
        if axis > 0 {
            if !stride.is_multiple_of(STRIDE_ALIGNMENT) || stride >= MAX_STRIDE {
                return Err(fail(format!(
                    "tensor `{}` steps {stride} bytes along its axis {}, but a tensor copy's map needs a multiple of {STRIDE_ALIGNMENT} below 2^40 (make its inner extents fill 16-byte rows)",
                    param.name,
                    rank - 1 - axis
                )));
            }
            out.strides[axis - 1] = stride;
        }
        out.dims[axis] = value;
        out.box_dims[axis] = *extent;
        stride = stride.saturating_mul(value);
    }
    Ok(out)
}

/// A dim's extent for the symbols' values.
fn dim_value(dim: DimSpec, values: &[u64]) -> Option<u64> {
    match dim {
        DimSpec::Const(extent) => Some(extent),
        DimSpec::Symbolic {
            symbol,
            mul,
            div,
            add,
        } => values
            .get(usize::from(symbol))?
            .checked_mul(mul)?
            .checked_div(div)?
            .checked_add(add),
    }
}

/// The driver's tensor map of `layout` over the tensor at `address`.
pub(crate) fn encode(
    layout: &MapLayout,
    address: cudarc::driver::sys::CUdeviceptr,
) -> Result<cudarc::driver::sys::CUtensorMap> {
    use cudarc::driver::sys;
    let data_type = match layout.element.size_bytes() {
        1 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        2 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        4 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        _ => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT64,
    };
    let swizzle = match layout.swizzle {
        32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        _ => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
    };
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    let element_strides = [1u32; 5];
    // SAFETY: `map` is a writable CUtensorMap; `dims`, `strides`,
    // `box_dims` and `element_strides` hold at least `rank` (1..=5, checked
    // by `layout`), respectively `rank - 1`, entries and outlive the call;
    // the driver only reads them and writes `map`. `address` is the
    // tensor's device address, read by nothing here (the map records it).
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            &raw mut map,
            data_type,
            layout.rank as u32,
            address as *mut std::ffi::c_void,
            layout.dims.as_ptr(),
            layout.strides.as_ptr(),
            layout.box_dims.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    result
        .result()
        .map_err(Error::driver("encoding a tensor map"))?;
    Ok(map)
}
