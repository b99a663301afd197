//! The Rust types that may cross to the GPU, each tied to its [`DType`] so a
//! launch can check an argument against the kernel's parameter list.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use half::{bf16, f16};
use tile_kernel_lowering::DType;

pub(crate) mod sealed {
    /// Keeps the dtype tables closed: a foreign impl could claim a wrong
    /// `DTYPE`, and launches trust `DTYPE` to match the PTX.
    ///
    /// Its methods move values to and from the CPU device's memory and the
    /// interpreter's scalar arguments (crate-internal: the trait cannot be
    /// named outside).
    pub trait Sealed: Copy {
        /// The value's bits, zero-extended to 64 (`bool`: 0 or 1).
        fn to_raw_bits(self) -> u64;
        /// The value whose bits are the low bits of `bits` (as many as the
        /// type has).
        fn from_raw_bits(bits: u64) -> Self;
    }
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
    ($($ty:ty => $dtype:ident, $bits:ty),* $(,)?) => {$(
        impl sealed::Sealed for $ty {
            fn to_raw_bits(self) -> u64 {
                u64::from(<$bits>::from_le_bytes(self.to_le_bytes()))
            }
            fn from_raw_bits(bits: u64) -> Self {
                let low = bits.to_le_bytes();
                let mut bytes = [0; size_of::<$ty>()];
                bytes.copy_from_slice(&low[..size_of::<$ty>()]);
                <$ty>::from_le_bytes(bytes)
            }
        }
        impl Element for $ty {
            const DTYPE: DType = DType::$dtype;
        }
        impl ScalarArg for $ty {
            const DTYPE: DType = DType::$dtype;
        }
    )*};
}

elements! {
    f16 => F16, u16,
    bf16 => Bf16, u16,
    f32 => F32, u32,
    f64 => F64, u64,
    u8 => U8, u8,
    u16 => U16, u16,
    u32 => U32, u32,
    u64 => U64, u64,
    i8 => I8, u8,
    i16 => I16, u16,
    i32 => I32, u32,
    i64 => I64, u64,
}

impl sealed::Sealed for bool {
    fn to_raw_bits(self) -> u64 {
        u64::from(self)
    }
    fn from_raw_bits(bits: u64) -> Self {
        bits & 1 != 0
    }
}
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

    /// Bits are the little-endian bytes, zero-extended: what the GPU holds
    /// in memory and in a `.u64`-widened parameter.
    #[test]
    fn bits_round_trip_and_zero_extend() {
        use sealed::Sealed;
        fn round_trip<T: Sealed + PartialEq + std::fmt::Debug>(value: T, bits: u64) {
            assert_eq!(value.to_raw_bits(), bits, "{value:?}");
            assert_eq!(T::from_raw_bits(bits), value);
        }
        round_trip(-1i8, 0xff);
        round_trip(-2i16, 0xfffe);
        round_trip(-3i32, 0xffff_fffd);
        round_trip(i64::MIN, 1 << 63);
        round_trip(0xabu8, 0xab);
        round_trip(0xabcdu16, 0xabcd);
        round_trip(u32::MAX, 0xffff_ffff);
        round_trip(u64::MAX, u64::MAX);
        round_trip(1.0f32, 0x3f80_0000);
        round_trip(-0.0f64, 1 << 63);
        round_trip(f16::from_f32(1.0), 0x3c00);
        round_trip(bf16::from_f32(1.0), 0x3f80);
        round_trip(true, 1);
        round_trip(false, 0);
        // High bits beyond the type are ignored.
        assert_eq!(<u8 as Sealed>::from_raw_bits(0x1ff), 0xff);
        assert_eq!(<f32 as Sealed>::from_raw_bits(0xdead_0000_0000_0000), 0.0);
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
