//! The element types candle and tile-kernel share, and the typed tensors of
//! one op launch: every enum here has one variant per shared type, so a
//! candle storage of any of them becomes the matching tile-kernel view and
//! the launch checks it against the kernel's parameter like the kernel's
//! own launcher does.
//!
//! Shared: `u8`, `u32`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32`, `f64`.
//! candle's fp8/fp6/fp4 types have no tile-kernel element type (a kernel
//! reads fp8 bytes as `u8`), and tile-kernel's `u16`, `u64` and `i8` have no
//! candle dtype.

use candle::DType as CandleDType;
use tile_kernel::runtime::LaunchBuilder;
use tile_kernel::{DType, DeviceTensor, TensorView, TensorViewMut, bf16, f16};

/// Calls `$apply!` with the list of shared types: candle's dtype variant
/// (also its `CpuStorage` and `CudaStorageSlice` variant), tile-kernel's
/// dtype variant, the Rust type.
macro_rules! shared_types {
    ($apply:ident) => {
        $apply! {
            U8 U8 u8,
            U32 U32 u32,
            I16 I16 i16,
            I32 I32 i32,
            I64 I64 i64,
            F16 F16 ::half::f16,
            BF16 Bf16 ::half::bf16,
            F32 F32 f32,
            F64 F64 f64,
        }
    };
}
pub(crate) use shared_types;

macro_rules! define_tensors {
    ($($candle:ident $tile:ident $ty:ty,)*) => {
        /// candle's dtype for a kernel's element dtype, if candle has one.
        pub(crate) fn candle_dtype(dtype: DType) -> Option<CandleDType> {
            match dtype {
                $(DType::$tile => Some(CandleDType::$candle),)*
                _ => None,
            }
        }

        /// A tensor on the CPU interpreter device (a copy of a candle CPU
        /// tensor, or an output).
        pub(crate) enum HostTensor {
            $($candle(DeviceTensor<$ty>),)*
        }

        /// A tensor the kernel reads.
        pub(crate) enum InputView<'a> {
            $($candle(TensorView<'a, $ty>),)*
        }

        /// A tensor the kernel writes.
        pub(crate) enum OutputView<'a> {
            $($candle(TensorViewMut<'a, $ty>),)*
        }

        impl InputView<'_> {
            /// Passes the view to the launch's next parameter.
            pub(crate) fn push<'a>(&'a self, launch: &mut LaunchBuilder<'a>) -> tile_kernel::Result<()> {
                match self {
                    $(InputView::$candle(view) => launch.push_tensor(view),)*
                }
            }
        }

        impl OutputView<'_> {
            /// Passes the view to the launch's next parameter, which the
            /// kernel writes.
            pub(crate) fn push<'a>(&'a mut self, launch: &mut LaunchBuilder<'a>) -> tile_kernel::Result<()> {
                match self {
                    $(OutputView::$candle(view) => launch.push_tensor_mut(view),)*
                }
            }
        }

        impl HostTensor {
            /// The whole tensor, for the kernel to write.
            pub(crate) fn view_mut(&mut self) -> OutputView<'_> {
                match self {
                    $(HostTensor::$candle(t) => OutputView::$candle(t.view_mut()),)*
                }
            }

            /// Elements `skip..` of this 1-D tensor as a view of `shape`.
            pub(crate) fn view_from(&self, skip: usize, shape: &[usize]) -> tile_kernel::Result<InputView<'_>> {
                match self {
                    $(HostTensor::$candle(t) => Ok(InputView::$candle(t.slice(skip..)?.reshape(shape)?)),)*
                }
            }
        }
    };
}
shared_types!(define_tensors);

/// A value for one of a kernel's scalar parameters, in the dtype the
/// kernel declares (a launch checks it as the kernel's launcher does: an
/// `f32` parameter takes only [`Scalar::F32`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `bool`
    Bool(bool),
    /// `u8`
    U8(u8),
    /// `u16`
    U16(u16),
    /// `u32`
    U32(u32),
    /// `u64`
    U64(u64),
    /// `i8`
    I8(i8),
    /// `i16`
    I16(i16),
    /// `i32`
    I32(i32),
    /// `i64`
    I64(i64),
    /// `f16`
    F16(f16),
    /// `bf16`
    Bf16(bf16),
    /// `f32`
    F32(f32),
    /// `f64`
    F64(f64),
}

impl Scalar {
    /// Passes the value to the launch's next parameter.
    pub(crate) fn push<'a>(&'a self, launch: &mut LaunchBuilder<'a>) -> tile_kernel::Result<()> {
        match self {
            Scalar::Bool(v) => launch.push_scalar(v),
            Scalar::U8(v) => launch.push_scalar(v),
            Scalar::U16(v) => launch.push_scalar(v),
            Scalar::U32(v) => launch.push_scalar(v),
            Scalar::U64(v) => launch.push_scalar(v),
            Scalar::I8(v) => launch.push_scalar(v),
            Scalar::I16(v) => launch.push_scalar(v),
            Scalar::I32(v) => launch.push_scalar(v),
            Scalar::I64(v) => launch.push_scalar(v),
            Scalar::F16(v) => launch.push_scalar(v),
            Scalar::Bf16(v) => launch.push_scalar(v),
            Scalar::F32(v) => launch.push_scalar(v),
            Scalar::F64(v) => launch.push_scalar(v),
        }
    }
}
