//! Host references and test data for the conversion kernels: the `half` and
//! `float8` crates are the oracles; inputs mix special values with random
//! bit patterns.

use float8::F8E4M3;
use half::{bf16, f16};

/// Special f32 values: signed zeros, subnormals, extremes, infinities,
/// NaNs, f16/bf16/e4m3 boundaries and rounding ties.
pub fn special_f32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_1234),
        65504.0,
        65520.0,
        -65520.0,
        448.0,
        464.0,
        -480.0,
        f32::from_bits(0x3380_0000), // 2^-24: smallest f16 subnormal
        f32::from_bits(0x3300_0000), // 2^-25: tie to zero
        1.0 + f32::EPSILON,
    ];
    // f16 and bf16 rounding ties: midpoints between neighbours.
    for bits in [0x3c00u16, 0x3c01, 0x7bff, 0x0001, 0x8400] {
        let a = f16::from_bits(bits).to_f32();
        let b = f16::from_bits(bits + 1).to_f32();
        v.push((a + b) / 2.0);
    }
    for bits in [0x3f80u16, 0x3f81, 0x7f7f] {
        let a = bf16::from_bits(bits).to_f32();
        let b = bf16::from_bits(bits + 1).to_f32();
        v.push((a + b) / 2.0);
    }
    v
}

/// `n` f32 inputs: the special values, then random bit patterns.
pub fn f32_inputs(n: usize, seed: u64) -> Vec<f32> {
    let special = special_f32();
    let mut state = seed | 1;
    (0..n)
        .map(|i| {
            if i < special.len() {
                return special[i];
            }
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let bits = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32;
            // Half of the values in the finite range the targets cover.
            if i % 2 == 0 {
                f32::from_bits(bits)
            } else {
                f32::from_bits((bits & 0x807f_ffff) | (((bits >> 23) % 40 + 100) << 23))
            }
        })
        .collect()
}

/// `n` f16 bit patterns: every f16 value in turn.
pub fn f16_inputs(n: usize) -> Vec<u16> {
    (0..n)
        .map(|i| (i as u32).wrapping_mul(40503) as u16)
        .collect()
}

pub fn ref_f16(x: f32) -> u16 {
    f16::from_f32(x).to_bits()
}

pub fn ref_bf16(x: f32) -> u16 {
    bf16::from_f32(x).to_bits()
}

pub fn ref_f32(h: u16) -> f32 {
    f16::from_bits(h).to_f32()
}

/// float8's `from_f32` saturates finite values to +-448 and keeps NaN,
/// which is PTX's `.satfinite`.
pub fn ref_e4m3(x: f32) -> u8 {
    F8E4M3::from_f32(x).to_bits()
}

/// Element types compared bit for bit, where any two NaNs are equal (the
/// GPU returns a canonical NaN, the host references keep payloads).
pub trait Bits: Copy {
    fn same(self, other: Self) -> bool;
}

impl Bits for u16 {
    /// f16 or bf16 bits, told apart by the caller's NaN test below.
    fn same(self, other: Self) -> bool {
        self == other
    }
}

impl Bits for u8 {
    fn same(self, other: Self) -> bool {
        self == other || (e4m3_is_nan(self) && e4m3_is_nan(other))
    }
}

impl Bits for f32 {
    fn same(self, other: Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

/// Index of the first element where `got` and `want` differ (`nan` says
/// which values count as NaN for 16-bit formats).
pub fn first_mismatch<T: Bits>(got: &[T], want: &[T], nan: impl Fn(T) -> bool) -> Option<usize> {
    if got.len() != want.len() {
        return Some(got.len().min(want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| !(g.same(*w) || (nan(*g) && nan(*w))))
}

pub fn f16_is_nan(bits: u16) -> bool {
    bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0
}

pub fn bf16_is_nan(bits: u16) -> bool {
    bits & 0x7f80 == 0x7f80 && bits & 0x007f != 0
}

pub fn f32_is_nan(value: f32) -> bool {
    value.is_nan()
}

pub fn e4m3_is_nan(bits: u8) -> bool {
    bits & 0x7f == 0x7f
}
