//! PTX operand types and the register carriers that hold them.

use crate::ast::LiteralValue;
use crate::dtype::DType;
use std::fmt;

/// A PTX operand type token (`.b32`, `.f16x2`, `.e4m3x2`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PtxType {
    B8,
    B16,
    B32,
    B64,
    /// `.b128`: 128-bit loads, stores, `atom.exch`/`atom.cas` (PTX 8.3); no
    /// dtype is 128 bits wide, so no tile carries it yet.
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    Bf16,
    F32,
    F64,
    F16x2,
    Bf16x2,
    Tf32,
    E4m3x2,
    E5m2x2,
    /// Two fp4 (e2m1) values in 8 bits.
    E2m1x2,
    /// Two fp6 values, each in its own byte.
    E2m3x2,
    E3m2x2,
    /// Two unsigned 8-bit exponents (`ue8m0`, MX scale factors).
    Ue8m0x2,
    /// Two 16-bit integers in one 32-bit register (`add.u16x2`, `min.s16x2`).
    U16x2,
    S16x2,
    Pred,
}

/// How a PTX type relates to the dtypes that may carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeClass {
    /// `.bN`: any N-bit dtype (bit-size types are untyped).
    Bits,
    /// `.uN`, `.sN`, `.fN`, `.f16`, `.bf16`: the type itself or its unsigned
    /// bit container of the same width.
    Scalar,
    /// Packed layouts (`.f16x2`, `.tf32`, `.e4m3x2`): only the unsigned
    /// container of the carrier width, since no Rust dtype *is* the value.
    Packed,
    /// `.pred`: a predicate register.
    Predicate,
}

/// Every type, for the test that [`PtxType::from_token`] inverts
/// [`PtxType::token`].
#[cfg(test)]
const ALL: [PtxType; 29] = [
    PtxType::B8,
    PtxType::B16,
    PtxType::B32,
    PtxType::B64,
    PtxType::B128,
    PtxType::U8,
    PtxType::U16,
    PtxType::U32,
    PtxType::U64,
    PtxType::S8,
    PtxType::S16,
    PtxType::S32,
    PtxType::S64,
    PtxType::F16,
    PtxType::Bf16,
    PtxType::F32,
    PtxType::F64,
    PtxType::F16x2,
    PtxType::Bf16x2,
    PtxType::Tf32,
    PtxType::E4m3x2,
    PtxType::E5m2x2,
    PtxType::E2m1x2,
    PtxType::E2m3x2,
    PtxType::E3m2x2,
    PtxType::Ue8m0x2,
    PtxType::U16x2,
    PtxType::S16x2,
    PtxType::Pred,
];

impl PtxType {
    /// The token without its leading dot.
    pub const fn token(self) -> &'static str {
        match self {
            PtxType::B8 => "b8",
            PtxType::B16 => "b16",
            PtxType::B32 => "b32",
            PtxType::B64 => "b64",
            PtxType::B128 => "b128",
            PtxType::U8 => "u8",
            PtxType::U16 => "u16",
            PtxType::U32 => "u32",
            PtxType::U64 => "u64",
            PtxType::S8 => "s8",
            PtxType::S16 => "s16",
            PtxType::S32 => "s32",
            PtxType::S64 => "s64",
            PtxType::F16 => "f16",
            PtxType::Bf16 => "bf16",
            PtxType::F32 => "f32",
            PtxType::F64 => "f64",
            PtxType::F16x2 => "f16x2",
            PtxType::Bf16x2 => "bf16x2",
            PtxType::Tf32 => "tf32",
            PtxType::E4m3x2 => "e4m3x2",
            PtxType::E5m2x2 => "e5m2x2",
            PtxType::E2m1x2 => "e2m1x2",
            PtxType::E2m3x2 => "e2m3x2",
            PtxType::E3m2x2 => "e3m2x2",
            PtxType::Ue8m0x2 => "ue8m0x2",
            PtxType::U16x2 => "u16x2",
            PtxType::S16x2 => "s16x2",
            PtxType::Pred => "pred",
        }
    }

    pub fn from_token(token: &str) -> Option<PtxType> {
        // A `match` rather than a scan of `ALL` comparing `token()`s (the
        // checker asks per operand of every candidate form); the test
        // `from_token_inverts_token` keeps the two in step.
        Some(match token {
            "b8" => PtxType::B8,
            "b16" => PtxType::B16,
            "b32" => PtxType::B32,
            "b64" => PtxType::B64,
            "b128" => PtxType::B128,
            "u8" => PtxType::U8,
            "u16" => PtxType::U16,
            "u32" => PtxType::U32,
            "u64" => PtxType::U64,
            "s8" => PtxType::S8,
            "s16" => PtxType::S16,
            "s32" => PtxType::S32,
            "s64" => PtxType::S64,
            "f16" => PtxType::F16,
            "bf16" => PtxType::Bf16,
            "f32" => PtxType::F32,
            "f64" => PtxType::F64,
            "f16x2" => PtxType::F16x2,
            "bf16x2" => PtxType::Bf16x2,
            "tf32" => PtxType::Tf32,
            "e4m3x2" => PtxType::E4m3x2,
            "e5m2x2" => PtxType::E5m2x2,
            "e2m1x2" => PtxType::E2m1x2,
            "e2m3x2" => PtxType::E2m3x2,
            "e3m2x2" => PtxType::E3m2x2,
            "ue8m0x2" => PtxType::Ue8m0x2,
            "u16x2" => PtxType::U16x2,
            "s16x2" => PtxType::S16x2,
            "pred" => PtxType::Pred,
            _ => return None,
        })
    }

    /// Whether PTX has immediate syntax for values of this type. The half
    /// types (`.f16`, `.bf16` and their pairs) and the fp8 pair types have
    /// none, nor do the 16-bit integer pairs: ptxas rejects any literal there (certified in
    /// `lowering/tests/certify.rs`).
    pub const fn takes_immediates(self) -> bool {
        !matches!(
            self,
            PtxType::F16
                | PtxType::Bf16
                | PtxType::F16x2
                | PtxType::Bf16x2
                | PtxType::E4m3x2
                | PtxType::E5m2x2
                | PtxType::E2m1x2
                | PtxType::E2m3x2
                | PtxType::E3m2x2
                | PtxType::Ue8m0x2
                | PtxType::U16x2
                | PtxType::S16x2
                | PtxType::Pred
        )
    }

    /// Width of the register that carries one value of this type, in bits
    /// (`.f16x2` rides one 32-bit register; `.e4m3x2` a 16-bit one).
    pub const fn carrier_bits(self) -> usize {
        match self {
            PtxType::B8 | PtxType::U8 | PtxType::S8 | PtxType::E2m1x2 => 8,
            PtxType::E2m3x2 | PtxType::E3m2x2 | PtxType::Ue8m0x2 => 16,
            PtxType::B16
            | PtxType::U16
            | PtxType::S16
            | PtxType::F16
            | PtxType::Bf16
            | PtxType::E4m3x2
            | PtxType::E5m2x2 => 16,
            PtxType::B32
            | PtxType::U32
            | PtxType::S32
            | PtxType::F32
            | PtxType::F16x2
            | PtxType::Bf16x2
            | PtxType::Tf32
            | PtxType::U16x2
            | PtxType::S16x2 => 32,
            PtxType::B64 | PtxType::U64 | PtxType::S64 | PtxType::F64 => 64,
            PtxType::B128 => 128,
            PtxType::Pred => 1,
        }
    }

    pub const fn class(self) -> TypeClass {
        match self {
            PtxType::B8 | PtxType::B16 | PtxType::B32 | PtxType::B64 | PtxType::B128 => {
                TypeClass::Bits
            }
            PtxType::F16x2
            | PtxType::Bf16x2
            | PtxType::Tf32
            | PtxType::E4m3x2
            | PtxType::E5m2x2
            | PtxType::E2m1x2
            | PtxType::E2m3x2
            | PtxType::E3m2x2
            | PtxType::Ue8m0x2
            | PtxType::U16x2
            | PtxType::S16x2 => TypeClass::Packed,
            PtxType::Pred => TypeClass::Predicate,
            _ => TypeClass::Scalar,
        }
    }

    /// The dtype that *is* this type, where one exists.
    pub const fn natural_dtype(self) -> Option<DType> {
        Some(match self {
            PtxType::U8 => DType::U8,
            PtxType::U16 => DType::U16,
            PtxType::U32 => DType::U32,
            PtxType::U64 => DType::U64,
            PtxType::S8 => DType::I8,
            PtxType::S16 => DType::I16,
            PtxType::S32 => DType::I32,
            PtxType::S64 => DType::I64,
            PtxType::F16 => DType::F16,
            PtxType::Bf16 => DType::Bf16,
            PtxType::F32 => DType::F32,
            PtxType::F64 => DType::F64,
            PtxType::Pred => DType::Bool,
            _ => return None,
        })
    }

    /// Whether a tile/tensor of `dtype` may carry an operand of this type
    /// (the type itself, or its equal-width bit container).
    pub fn accepts(self, dtype: DType) -> bool {
        match self.class() {
            TypeClass::Bits => dtype.is_tile_element() && dtype.bits() == self.carrier_bits(),
            TypeClass::Scalar => {
                self.natural_dtype() == Some(dtype)
                    || (dtype.is_tile_element()
                        && dtype == dtype.bit_container()
                        && dtype.bits() == self.carrier_bits())
            }
            TypeClass::Packed => {
                dtype.is_tile_element()
                    && dtype.bits() == self.carrier_bits()
                    && dtype == dtype.bit_container()
            }
            TypeClass::Predicate => dtype == DType::Bool,
        }
    }

    /// The accepted dtypes, for messages ("accepts f32 or u32").
    pub fn accepted_dtypes(self) -> Vec<DType> {
        DType::ALL
            .into_iter()
            .filter(|d| self.accepts(*d))
            .collect()
    }

    /// Whether this is a floating-point value type (including packed floats).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            PtxType::F16
                | PtxType::Bf16
                | PtxType::F32
                | PtxType::F64
                | PtxType::F16x2
                | PtxType::Bf16x2
                | PtxType::Tf32
                | PtxType::E4m3x2
                | PtxType::E5m2x2
                | PtxType::E2m1x2
                | PtxType::E2m3x2
                | PtxType::E3m2x2
                | PtxType::Ue8m0x2
        )
    }

    pub const fn is_signed_int(self) -> bool {
        matches!(
            self,
            PtxType::S8 | PtxType::S16 | PtxType::S32 | PtxType::S64
        )
    }

    pub const fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            PtxType::U8 | PtxType::U16 | PtxType::U32 | PtxType::U64
        )
    }

    pub const fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// The bit-size type of a given width (`.b32` for 32).
    pub const fn bits_of_width(bits: usize) -> Option<PtxType> {
        match bits {
            8 => Some(PtxType::B8),
            16 => Some(PtxType::B16),
            32 => Some(PtxType::B32),
            64 => Some(PtxType::B64),
            128 => Some(PtxType::B128),
            _ => None,
        }
    }

    /// The integers a runtime integer operand of this type can carry
    /// (inclusive): its signed or unsigned range, either for raw bits;
    /// `None` for float, packed and predicate types.
    pub fn integer_range(self) -> Option<(i128, i128)> {
        let bits = self.carrier_bits() as u32;
        if bits > 64 || self.class() != TypeClass::Scalar && self.class() != TypeClass::Bits {
            return None;
        }
        if self.is_float() || bits < 8 {
            return None;
        }
        let half = 1i128 << (bits - 1);
        Some(if self.is_signed_int() {
            (-half, half - 1)
        } else if self.is_unsigned_int() {
            (0, (1i128 << bits) - 1)
        } else {
            (-half, (1i128 << bits) - 1)
        })
    }

    /// The same-signedness type of twice the width (`mul.wide` results).
    pub const fn widened(self) -> Option<PtxType> {
        match self {
            PtxType::U16 => Some(PtxType::U32),
            PtxType::U32 => Some(PtxType::U64),
            PtxType::S16 => Some(PtxType::S32),
            PtxType::S32 => Some(PtxType::S64),
            _ => None,
        }
    }
}

impl fmt::Display for PtxType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.token())
    }
}

/// The bits of a literal for an operand of type `ty`, or why it does not
/// fit (SPEC §4 rule 7).
pub fn literal_bits(literal: LiteralValue, ty: PtxType) -> Result<u64, String> {
    let bits = ty.carrier_bits() as u32;
    match literal {
        LiteralValue::Bool(_) => Err(format!("a bool literal cannot be a `{ty}` value")),
        LiteralValue::Float(value) => match ty {
            // Like rustc's `overflowing_literals`: a finite literal must stay finite.
            PtxType::F32 if value.is_finite() && !(value as f32).is_finite() => Err(format!(
                "the float literal `{value:?}` is out of range for `{ty}` (it would become infinite)"
            )),
            // `f32::NAN`/`f64::NAN`: the canonical quiet NaN, as Rust's
            // constants have it (a cast would not promise the payload).
            PtxType::F32 if value.is_nan() => Ok(u64::from(f32::NAN.to_bits())),
            PtxType::F64 if value.is_nan() => Ok(f64::NAN.to_bits()),
            PtxType::F32 => Ok(u64::from((value as f32).to_bits())),
            PtxType::F64 => Ok(value.to_bits()),
            _ if ty.class() == TypeClass::Bits => Err(format!(
                "`{ty}` takes raw bits, so the float literal `{value:?}` is ambiguous: write its bits as an integer literal, or use an `.f32`/`.f64` form"
            )),
            _ if ty.is_float() => Err(format!(
                "float literals for `{ty}` operands are not supported yet; write the bits as an integer literal into a tile"
            )),
            _ => Err(format!(
                "`{ty}` is an integer type, so the float literal `{value:?}` would be truncated"
            )),
        },
        LiteralValue::Int(value) => {
            if ty.is_float() && ty.class() == TypeClass::Scalar {
                return Err(format!(
                    "`{ty}` is a float type: write a float literal like `{value}.0`"
                ));
            }
            let fits = if ty.is_signed_int() {
                let limit = 1i128 << (bits - 1);
                (-limit..limit).contains(&value)
            } else if ty.is_unsigned_int() {
                (0..(1i128 << bits)).contains(&value)
            } else {
                // Bit-size and packed types: any value of that many bits, signed or not.
                (-(1i128 << (bits - 1))..(1i128 << bits)).contains(&value)
            };
            if !fits {
                return Err(format!(
                    "the literal `{value}` does not fit in `{ty}` ({bits} bits)"
                ));
            }
            let mask = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            Ok((value as i64 as u64) & mask)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_token_inverts_token() {
        for t in ALL {
            assert_eq!(PtxType::from_token(t.token()), Some(t));
        }
        assert_eq!(PtxType::from_token("f8"), None);
        assert_eq!(PtxType::from_token(""), None);
    }

    #[test]
    fn carriers_follow_the_spec() {
        assert_eq!(PtxType::F32.accepted_dtypes(), vec![DType::F32, DType::U32]);
        assert_eq!(
            PtxType::B32.accepted_dtypes(),
            vec![DType::F32, DType::U32, DType::I32]
        );
        assert_eq!(PtxType::F16.accepted_dtypes(), vec![DType::F16, DType::U16]);
        assert_eq!(
            PtxType::Bf16.accepted_dtypes(),
            vec![DType::Bf16, DType::U16]
        );
        assert_eq!(PtxType::F16x2.accepted_dtypes(), vec![DType::U32]);
        assert_eq!(PtxType::E4m3x2.accepted_dtypes(), vec![DType::U16]);
        assert_eq!(PtxType::S16x2.accepted_dtypes(), vec![DType::U32]);
        assert_eq!(PtxType::S32.accepted_dtypes(), vec![DType::U32, DType::I32]);
        assert_eq!(PtxType::U32.accepted_dtypes(), vec![DType::U32]);
        assert_eq!(PtxType::B8.accepted_dtypes(), vec![DType::U8, DType::I8]);
        assert_eq!(PtxType::Pred.accepted_dtypes(), vec![DType::Bool]);
    }
}
