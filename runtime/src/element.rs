//! The Rust types that may cross to the GPU, each tied to its [`DType`] so a
//! launch can check an argument against the kernel's parameter list.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};
use tile_kernel_lowering::DType;

mod sealed {
    /// Keeps the dtype tables closed: a foreign impl could claim a wrong
    /// `DTYPE`, and launches trust `DTYPE` to match the PTX.
    pub trait Sealed {}
}

/// An element type of a [`DeviceTensor`](crate::DeviceTensor).
///
/// Sealed: implemented for `f16`, `bf16`, `f32`, `f64`, `u8`..`u64` and
/// `i8`..`i64`, exactly the tile element dtypes of the kernel language.
pub trait Element:
    DeviceRepr + ValidAsZeroBits + Copy + Send + Sync + 'static + sealed::Sealed
{
    /// The kernel-language dtype of this type.
    const DTYPE: DType;
}

/// A type a kernel takes by value as a scalar parameter.
///
/// Sealed: every [`Element`] type plus `bool` (passed as one byte, as Rust
/// stores it; cudarc implements `DeviceRepr` for `bool`).
pub trait ScalarArg: DeviceRepr + Copy + sealed::Sealed {
    /// The kernel-language dtype of this type.
    const DTYPE: DType;
}

macro_rules! elements {
    ($($ty:ty => $dtype:ident),* $(,)?) => {$(
        impl sealed::Sealed for $ty {}
        impl Element for $ty {
            const DTYPE: DType = DType::$dtype;
        }
        impl ScalarArg for $ty {
            const DTYPE: DType = DType::$dtype;
        }
    )*};
}

elements! {
    f16 => F16,
    bf16 => Bf16,
    f32 => F32,
    f64 => F64,
    u8 => U8,
    u16 => U16,
    u32 => U32,
    u64 => U64,
    i8 => I8,
    i16 => I16,
    i32 => I32,
    i64 => I64,
}

impl sealed::Sealed for bool {}
impl ScalarArg for bool {
    const DTYPE: DType = DType::Bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element_dtype<T: Element>() -> DType {
        T::DTYPE
    }

    /// The dtype tag must agree with the Rust size, or a launch would pass the
    /// wrong number of bytes.
    #[test]
    fn dtype_sizes_match_rust_sizes() {
        fn check<T: ScalarArg>() {
            assert_eq!(T::DTYPE.size_bytes(), size_of::<T>(), "{}", T::DTYPE);
        }
        check::<f16>();
        check::<bf16>();
        check::<f32>();
        check::<f64>();
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
        check::<i8>();
        check::<i16>();
        check::<i32>();
        check::<i64>();
        check::<bool>();
    }

    #[test]
    fn element_dtypes_are_tile_elements() {
        let dtypes = [
            element_dtype::<f16>(),
            element_dtype::<bf16>(),
            element_dtype::<f32>(),
            element_dtype::<f64>(),
            element_dtype::<u8>(),
            element_dtype::<u16>(),
            element_dtype::<u32>(),
            element_dtype::<u64>(),
            element_dtype::<i8>(),
            element_dtype::<i16>(),
            element_dtype::<i32>(),
            element_dtype::<i64>(),
        ];
        let tile_dtypes: Vec<DType> = DType::ALL
            .into_iter()
            .filter(|d| d.is_tile_element())
            .collect();
        assert_eq!(dtypes.to_vec(), tile_dtypes);
    }
}
