//! Element dtypes of tensors and tiles, shared by the compiler and the runtime.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The element type of a kernel tensor or local tile.
///
/// These are the Rust scalar types a user names (`Tensor<f32, ..>`,
/// `alloc_local::<u16>(..)`); PTX operand types (`.f16x2`, `.b32`, ...) are a
/// separate notion ([`crate::ptx::PtxType`]) that a dtype may *carry*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DType {
    F16,
    Bf16,
    F32,
    F64,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    Bool,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::F16,
        DType::Bf16,
        DType::F32,
        DType::F64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::Bool,
    ];

    /// The Rust spelling (`f16` is `half::f16`).
    pub const fn rust_name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Bool => "bool",
        }
    }

    /// Parses a Rust type name as written in a kernel signature or turbofish.
    pub fn from_rust_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.rust_name() == name)
    }

    /// Storage size in bytes (`bool` is one byte, like Rust's).
    pub const fn size_bytes(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool => 1,
            DType::F16 | DType::Bf16 | DType::U16 | DType::I16 => 2,
            DType::F32 | DType::U32 | DType::I32 => 4,
            DType::F64 | DType::U64 | DType::I64 => 8,
        }
    }

    /// Size in bits.
    pub const fn bits(self) -> usize {
        self.size_bytes() * 8
    }

    /// The unsigned integer dtype of the same width: the "bit container" a
    /// view uses to expose raw bits (`f32` -> `u32`).
    pub const fn bit_container(self) -> DType {
        match self.size_bytes() {
            1 => DType::U8,
            2 => DType::U16,
            4 => DType::U32,
            _ => DType::U64,
        }
    }

    /// Whether tiles and tensors may hold this dtype (`bool` is a scalar-only type).
    pub const fn is_tile_element(self) -> bool {
        !matches!(self, DType::Bool)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}
