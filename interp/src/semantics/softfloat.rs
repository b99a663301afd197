//! The exact rounding core shared by every floating-point semantic.
//!
//! A value is first made *exact* ([`Exact`]: `significand * 2^exponent`,
//! plus a sticky bit for "strictly more, below the last kept bit"), either by
//! [`decode`]-ing a register of some [`Format`], from an integer
//! ([`Exact::integer`]), or by the exact arithmetic here ([`add`], [`sub`],
//! [`mul`], [`fma`], [`div`], [`sqrt`]), and then rounded ONCE into a target
//! format by [`round`], with a [`Rounding`] direction and [`RoundOptions`]
//! (`.ftz` on results, `.satfinite`).
//!
//! Guarantees:
//! - [`decode`] is exact and total: every bit pattern of every format decodes
//!   (bits above the format's width are ignored).
//! - [`round`] is correctly rounded (IEEE 754 semantics, tininess and
//!   overflow judged on the result rounded to unbounded exponent range) for
//!   every format, direction and input, and never panics.
//! - The arithmetic results carry enough bits and a correct sticky bit that
//!   one [`round`] into ANY format gives the correctly rounded result of the
//!   exact operation, provided the inputs are exact (`sticky == false`, as
//!   [`decode`] and [`Exact::integer`] produce) and have significands of at
//!   most 63 bits (every float format has at most 53). Inputs with a sticky
//!   bit are treated as lying strictly inside their interval, which gives a
//!   faithful (not always correctly rounded) result.
//! - NaN *policy* is not decided here (PTX rules differ per instruction):
//!   arithmetic given a NaN returns the first NaN operand unchanged, invalid
//!   operations (`inf - inf`, `0 * inf`, `0 / 0`, `inf / inf`, `sqrt(-x)`)
//!   return [`Exact::DEFAULT_NAN`], and [`round`] encodes any NaN as the
//!   format's canonical NaN (or keeps its payload on request).

use std::cmp::Ordering;

/// A rounding direction, as in IEEE 754 (PTX `.rn`, `.rna`, `.rz`, `.rm`, `.rp`;
/// the integer-rounding `.rni .rzi .rmi .rpi` use the same directions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// To nearest, ties to the even significand (`.rn`, `.rni`).
    NearestEven,
    /// To nearest, ties away from zero (`.rna`).
    NearestAway,
    /// Toward zero, truncation (`.rz`, `.rzi`).
    TowardZero,
    /// Toward negative infinity (`.rm`, `.rmi`).
    Down,
    /// Toward positive infinity (`.rp`, `.rpi`).
    Up,
}

impl Rounding {
    /// The direction a PTX rounding token names (`rn`/`rni`, `rna`,
    /// `rz`/`rzi`, `rm`/`rmi`, `rp`/`rpi`), or `None` for any other token.
    pub fn from_ptx(token: &str) -> Option<Rounding> {
        Some(match token {
            "rn" | "rni" => Rounding::NearestEven,
            "rna" => Rounding::NearestAway,
            "rz" | "rzi" => Rounding::TowardZero,
            "rm" | "rmi" => Rounding::Down,
            "rp" | "rpi" => Rounding::Up,
            _ => return None,
        })
    }
}

/// Which encodings of a [`Format`] are not ordinary finite numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Specials {
    /// IEEE 754: the all-ones exponent is infinity (zero fraction) or NaN.
    Ieee,
    /// Only the all-ones exponent AND fraction is NaN (`S.1111.111` in
    /// E4M3); there is no infinity, and the rest of the top binade is finite.
    NanOnly,
    /// Every encoding is a finite number (fp6 E2M3/E3M2, fp4 E2M1).
    FiniteOnly,
    /// UE8M0: an unsigned power of two `2^(e - bias)`; the exponent field 0
    /// is a normal number (there is no zero and no subnormal) and the
    /// all-ones field is NaN.
    ExponentOnly,
}

/// A binary floating-point format: `[sign] exponent fraction`, with the
/// encoding kept `shift` bits up in its register (TF32: the top 19 bits of a
/// 32-bit register, the low 13 bits zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    /// Width of the exponent field.
    pub exponent_bits: u32,
    /// Stored fraction bits (precision is this plus one).
    pub fraction_bits: u32,
    /// Exponent bias: a normal value is `1.f * 2^(field - bias)`.
    pub bias: i32,
    /// Whether the encoding has a sign bit above the exponent.
    pub signed: bool,
    /// The encodings that are not finite numbers.
    pub specials: Specials,
    /// Bits below the encoding in the register (TF32: 13), zero on output.
    pub shift: u32,
}

impl Format {
    /// IEEE binary64.
    pub const F64: Format = Format::ieee(11, 52);
    /// IEEE binary32.
    pub const F32: Format = Format::ieee(8, 23);
    /// IEEE binary16.
    pub const F16: Format = Format::ieee(5, 10);
    /// bfloat16: binary32's exponent with 7 fraction bits.
    pub const BF16: Format = Format::ieee(8, 7);
    /// TF32: 1-8-10, kept in the top 19 bits of a 32-bit register.
    pub const TF32: Format = Format {
        shift: 13,
        ..Format::ieee(8, 10)
    };
    /// FP8 E4M3 (OCP "E4M3FN"): bias 7, no infinity, NaN = `S.1111.111`, max 448.
    pub const E4M3: Format = Format {
        specials: Specials::NanOnly,
        ..Format::ieee(4, 3)
    };
    /// FP8 E5M2: IEEE-like (bias 15, infinities and NaNs), max 57344.
    pub const E5M2: Format = Format::ieee(5, 2);
    /// FP6 E2M3: bias 1, all finite, max 7.5.
    pub const E2M3: Format = Format {
        specials: Specials::FiniteOnly,
        ..Format::ieee(2, 3)
    };
    /// FP6 E3M2: bias 3, all finite, max 28.
    pub const E3M2: Format = Format {
        specials: Specials::FiniteOnly,
        ..Format::ieee(3, 2)
    };
    /// FP4 E2M1: bias 1, all finite, max 6.
    pub const E2M1: Format = Format {
        specials: Specials::FiniteOnly,
        ..Format::ieee(2, 1)
    };
    /// UE8M0: unsigned, `2^(e - 127)` for `e` in `0..=254`, `0xff` = NaN.
    pub const UE8M0: Format = Format {
        exponent_bits: 8,
        fraction_bits: 0,
        bias: 127,
        signed: false,
        specials: Specials::ExponentOnly,
        shift: 0,
    };

    /// A signed IEEE-style format with the usual bias `2^(e-1) - 1`.
    pub const fn ieee(exponent_bits: u32, fraction_bits: u32) -> Format {
        Format {
            exponent_bits,
            fraction_bits,
            bias: (1 << (exponent_bits - 1)) - 1,
            signed: true,
            specials: Specials::Ieee,
            shift: 0,
        }
    }

    /// Width of the encoding itself (sign, exponent, fraction), without `shift`.
    pub const fn width(self) -> u32 {
        self.signed as u32 + self.exponent_bits + self.fraction_bits
    }

    /// The register bits that belong to the format (`shift` up to `shift + width`).
    pub const fn register_mask(self) -> u64 {
        low_mask(self.width()) << self.shift
    }

    /// The sign bit in register position (0 for unsigned formats).
    pub const fn sign_mask(self) -> u64 {
        if self.signed {
            1 << (self.exponent_bits + self.fraction_bits + self.shift)
        } else {
            0
        }
    }

    const fn max_field(self) -> u64 {
        low_mask(self.exponent_bits)
    }

    /// Smallest exponent `E` of a normal value `1.f * 2^E`.
    const fn emin(self) -> i32 {
        match self.specials {
            Specials::ExponentOnly => -self.bias,
            _ => 1 - self.bias,
        }
    }

    /// Largest exponent of a finite value.
    const fn emax(self) -> i32 {
        let top = self.max_field() as i32;
        match self.specials {
            Specials::Ieee | Specials::ExponentOnly => top - 1 - self.bias,
            Specials::NanOnly | Specials::FiniteOnly => top - self.bias,
        }
    }

    const fn encode(self, negative: bool, field: u64, fraction: u64) -> u64 {
        let sign = if negative && self.signed { 1u64 } else { 0 };
        ((sign << (self.exponent_bits + self.fraction_bits))
            | (field << self.fraction_bits)
            | fraction)
            << self.shift
    }

    /// The largest finite value of the given sign (unsigned formats: the sign is ignored).
    pub const fn max_finite(self, negative: bool) -> u64 {
        let frac = low_mask(self.fraction_bits);
        match self.specials {
            Specials::Ieee | Specials::ExponentOnly => {
                self.encode(negative, self.max_field() - 1, frac)
            }
            Specials::NanOnly => self.encode(negative, self.max_field(), frac - 1),
            Specials::FiniteOnly => self.encode(negative, self.max_field(), frac),
        }
    }

    /// Zero of the given sign; UE8M0 has no zero and gives its smallest value `2^-127`.
    pub const fn zero(self, negative: bool) -> u64 {
        self.encode(negative, 0, 0)
    }

    /// Infinity of the given sign, if the format has one.
    pub const fn infinity(self, negative: bool) -> Option<u64> {
        match self.specials {
            Specials::Ieee => Some(self.encode(negative, self.max_field(), 0)),
            _ => None,
        }
    }

    /// The canonical NaN (all bits but the sign set, e.g. f32 `0x7fffffff`,
    /// f16 `0x7fff`, E4M3 `0x7f`, UE8M0 `0xff`, TF32 `0x7fffe000`), if the
    /// format has NaNs.
    pub const fn canonical_nan(self) -> Option<u64> {
        match self.specials {
            Specials::FiniteOnly => None,
            _ => Some(self.register_mask() & !self.sign_mask()),
        }
    }

    /// Whether `bits` encode a NaN.
    pub fn is_nan(self, bits: u64) -> bool {
        matches!(decode(self, bits), Exact::NaN { .. })
    }

    /// Whether `bits` encode a subnormal (nonzero, exponent field 0).
    pub const fn is_subnormal(self, bits: u64) -> bool {
        if matches!(self.specials, Specials::ExponentOnly) {
            return false;
        }
        let raw = (bits >> self.shift) & low_mask(self.width());
        let field = (raw >> self.fraction_bits) & self.max_field();
        let fraction = raw & low_mask(self.fraction_bits);
        field == 0 && fraction != 0
    }

    /// `bits` with a subnormal replaced by the zero of its sign (`.ftz` on an
    /// input); other values unchanged (bits outside the format cleared).
    pub const fn flush_subnormal(self, bits: u64) -> u64 {
        let bits = bits & self.register_mask();
        if self.is_subnormal(bits) {
            bits & self.sign_mask()
        } else {
            bits
        }
    }
}

const fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A value held exactly: `significand * 2^exponent`, or a special.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exact {
    /// A signed zero.
    Zero {
        /// The sign bit.
        negative: bool,
    },
    /// A signed infinity.
    Infinity {
        /// The sign bit.
        negative: bool,
    },
    /// A NaN.
    NaN {
        /// The sign bit.
        negative: bool,
        /// Whether it is quiet (the top fraction bit of IEEE formats).
        quiet: bool,
        /// The fraction field left-aligned to bit 63 (so its top bit is the
        /// quiet bit).
        payload: u64,
    },
    /// A nonzero finite value `significand * 2^exponent`.
    Finite {
        /// The sign bit.
        negative: bool,
        /// The magnitude's integer significand (nonzero; a zero one with
        /// `sticky` is rounded as zero).
        significand: u128,
        /// The power of two it is scaled by.
        exponent: i32,
        /// The true magnitude is strictly greater, by less than
        /// `2^exponent` (nonzero bits below the significand were dropped).
        sticky: bool,
    },
}

impl Exact {
    /// The NaN invalid operations produce: positive, quiet, all payload bits
    /// set (so a payload-keeping [`round`] also gives the canonical NaN).
    pub const DEFAULT_NAN: Exact = Exact::NaN {
        negative: false,
        quiet: true,
        payload: u64::MAX,
    };

    /// The exact value of an integer `(-1)^negative * magnitude` (`-0` is zero).
    pub const fn integer(negative: bool, magnitude: u128) -> Exact {
        if magnitude == 0 {
            Exact::Zero { negative }
        } else {
            Exact::Finite {
                negative,
                significand: magnitude,
                exponent: 0,
                sticky: false,
            }
        }
    }

    /// The sign bit (NaNs included).
    pub const fn negative(self) -> bool {
        match self {
            Exact::Zero { negative }
            | Exact::Infinity { negative }
            | Exact::NaN { negative, .. }
            | Exact::Finite { negative, .. } => negative,
        }
    }

    /// Whether it is a NaN.
    pub const fn is_nan(self) -> bool {
        matches!(self, Exact::NaN { .. })
    }

    /// The same value with the sign flipped (NaNs too).
    pub const fn negate(self) -> Exact {
        self.with_sign(!self.negative())
    }

    /// The magnitude (sign cleared, NaNs too).
    pub const fn abs(self) -> Exact {
        self.with_sign(false)
    }

    /// The same value with the given sign.
    pub const fn with_sign(self, negative: bool) -> Exact {
        match self {
            Exact::Zero { .. } => Exact::Zero { negative },
            Exact::Infinity { .. } => Exact::Infinity { negative },
            Exact::NaN { quiet, payload, .. } => Exact::NaN {
                negative,
                quiet,
                payload,
            },
            Exact::Finite {
                significand,
                exponent,
                sticky,
                ..
            } => Exact::Finite {
                negative,
                significand,
                exponent,
                sticky,
            },
        }
    }

    /// Compares magnitudes of two non-NaN values exactly (`None` if either is
    /// NaN); sticky bits count as "slightly more".
    pub fn cmp_magnitude(self, other: Exact) -> Option<Ordering> {
        let key = |v: Exact| -> Option<(u8, i32, u128, bool)> {
            match v {
                Exact::NaN { .. } => None,
                Exact::Zero { .. } => Some((0, 0, 0, false)),
                Exact::Infinity { .. } => Some((2, 0, 0, false)),
                Exact::Finite {
                    significand,
                    exponent,
                    sticky,
                    ..
                } => {
                    let lz = significand.leading_zeros() as i32;
                    // Top exponent first, then the left-aligned significand.
                    Some((1, exponent + 127 - lz, significand << lz, sticky))
                }
            }
        };
        let (a, b) = (key(self)?, key(other)?);
        Some(a.cmp(&b))
    }
}

/// Options of the final rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RoundOptions {
    /// `.ftz`: a tiny result becomes the zero of its sign, tininess judged
    /// after rounding to the format's precision with an unbounded exponent
    /// (IEEE 754's "after rounding"; what the H200 does for `cvt`, the
    /// arithmetic and the half-precision forms): a value just below the
    /// smallest normal that rounds up to it is kept.
    pub flush_subnormal_output: bool,
    /// `.satfinite`: overflow and infinities give the largest finite value of
    /// the same sign (NaN handling is unchanged: callers apply the PTX rule).
    pub saturate_finite: bool,
    /// Encode a NaN with its own sign and payload (truncated, quiet bit set;
    /// a payload that truncates to zero gets the quiet bit) instead of the
    /// canonical NaN.
    pub keep_nan_payload: bool,
}

/// The exact value of `bits` in `format` (bits outside the format ignored).
pub fn decode(format: Format, bits: u64) -> Exact {
    let raw = (bits >> format.shift) & low_mask(format.width());
    let f = format.fraction_bits;
    let negative = format.signed && (raw >> (format.exponent_bits + f)) & 1 == 1;
    let field = (raw >> f) & format.max_field();
    let fraction = raw & low_mask(f);
    let top = format.max_field();
    let nan = |negative| Exact::NaN {
        negative,
        quiet: f == 0 || (fraction >> (f - 1)) & 1 == 1,
        payload: if f == 0 { 0 } else { fraction << (64 - f) },
    };
    match format.specials {
        Specials::Ieee if field == top => {
            return if fraction == 0 {
                Exact::Infinity { negative }
            } else {
                nan(negative)
            };
        }
        Specials::NanOnly if field == top && fraction == low_mask(f) => return nan(negative),
        Specials::ExponentOnly => {
            return if field == top {
                Exact::NaN {
                    negative: false,
                    quiet: true,
                    payload: u64::MAX,
                }
            } else {
                Exact::Finite {
                    negative: false,
                    significand: 1,
                    exponent: field as i32 - format.bias,
                    sticky: false,
                }
            };
        }
        _ => {}
    }
    if field == 0 {
        if fraction == 0 {
            Exact::Zero { negative }
        } else {
            Exact::Finite {
                negative,
                significand: fraction as u128,
                exponent: format.emin() - f as i32,
                sticky: false,
            }
        }
    } else {
        Exact::Finite {
            negative,
            significand: (fraction | (1 << f)) as u128,
            exponent: field as i32 - format.bias - f as i32,
            sticky: false,
        }
    }
}

/// `value` rounded once into `format`, in direction `rounding`, as register
/// bits (zero outside [`Format::register_mask`]).
///
/// Zeros keep their sign; overflow gives infinity or the largest finite value
/// per IEEE 754 for the direction (formats without infinity give their NaN,
/// or the largest finite value if they have no NaN either), or always the
/// largest finite value with `saturate_finite`. Infinite inputs give infinity
/// (formats without: NaN, else the largest finite) or, with
/// `saturate_finite`, the largest finite. NaNs give the canonical NaN (see
/// [`RoundOptions::keep_nan_payload`]); a format without NaN gives its
/// largest positive finite value (callers apply the PTX rule instead).
/// Unsigned formats (UE8M0) round the magnitude and have no zero: a result
/// that would be zero is their smallest value.
pub fn round(format: Format, value: Exact, rounding: Rounding, options: RoundOptions) -> u64 {
    match value {
        Exact::Zero { negative } => format.zero(negative),
        Exact::Infinity { negative } => {
            let negative = negative && format.signed;
            if options.saturate_finite {
                format.max_finite(negative)
            } else if let Some(inf) = format.infinity(negative) {
                inf
            } else {
                format
                    .canonical_nan()
                    .unwrap_or_else(|| format.max_finite(negative))
            }
        }
        Exact::NaN {
            negative, payload, ..
        } => match format.canonical_nan() {
            None => format.max_finite(false),
            Some(canonical) => {
                if options.keep_nan_payload && matches!(format.specials, Specials::Ieee) {
                    let f = format.fraction_bits;
                    let quiet = 1u64 << (f - 1);
                    let fraction = (payload >> (64 - f)) | quiet;
                    format.encode(negative, format.max_field(), fraction)
                } else {
                    canonical
                }
            }
        },
        Exact::Finite {
            negative,
            significand,
            exponent,
            sticky,
        } => {
            if significand == 0 {
                return format.zero(negative);
            }
            round_finite(
                format,
                negative && format.signed,
                significand,
                exponent,
                sticky,
                rounding,
                options,
            )
        }
    }
}

/// Whether a value with the given sign, round bit and bits below it rounds
/// its magnitude up (away from zero) from the truncated `odd`-ness.
#[inline]
fn rounds_up(rounding: Rounding, negative: bool, odd: bool, half: bool, rest: bool) -> bool {
    match rounding {
        Rounding::NearestEven => half && (rest || odd),
        Rounding::NearestAway => half,
        Rounding::TowardZero => false,
        Rounding::Up => !negative && (half || rest),
        Rounding::Down => negative && (half || rest),
    }
}

fn round_finite(
    format: Format,
    negative: bool,
    significand: u128,
    exponent: i32,
    sticky: bool,
    rounding: Rounding,
    options: RoundOptions,
) -> u64 {
    let p = format.fraction_bits as i32 + 1;
    let emin = format.emin();
    let emax = format.emax();
    let msb = 127 - significand.leading_zeros() as i32;
    let top = exponent.saturating_add(msb);
    if top > emax {
        return overflow(format, negative, rounding, options);
    }
    if options.flush_subnormal_output
        && top < emin
        && tiny_after_rounding(
            significand,
            exponent,
            sticky,
            top,
            p,
            emin,
            negative,
            rounding,
        )
    {
        return format.zero(negative);
    }
    // The exponent of the last kept bit.
    let quantum = top.max(emin) - (p - 1);
    let drop = quantum as i64 - exponent as i64;
    let (mut m, half, rest) = if drop <= 0 {
        // Exact: at most p significant bits after the shift (top <= emax).
        (significand << (-drop) as u32, false, sticky)
    } else if drop <= 127 {
        let d = drop as u32;
        let kept = significand >> d;
        let below = significand & ((1u128 << d) - 1);
        let half_bit = 1u128 << (d - 1);
        (
            kept,
            below & half_bit != 0,
            below & (half_bit - 1) != 0 || sticky,
        )
    } else if drop == 128 {
        (0, significand >> 127 != 0, significand << 1 != 0 || sticky)
    } else {
        (0, false, true)
    };
    let mut quantum = quantum;
    if rounds_up(rounding, negative, m & 1 == 1, half, rest) {
        m += 1;
        if m >> p != 0 {
            m >>= 1;
            quantum += 1;
        }
    }
    if m == 0 {
        return format.zero(negative);
    }
    let result_top = quantum + 127 - m.leading_zeros() as i32;
    let full = (1u128 << p) - 1;
    if result_top > emax
        || (format.specials == Specials::NanOnly && result_top == emax && m == full)
    {
        return overflow(format, negative, rounding, options);
    }
    if m >> (p - 1) == 0 {
        // Subnormal (quantum is the subnormal quantum).
        if options.flush_subnormal_output {
            return format.zero(negative);
        }
        format.encode(negative, 0, m as u64)
    } else {
        let field = (result_top + format.bias) as u64;
        let fraction = (m as u64) & low_mask(format.fraction_bits);
        format.encode(negative, field, fraction)
    }
}

/// IEEE 754's tininess *after* rounding, which the H200 applies for
/// `.ftz`: whether the value, rounded to `p` significant bits with an
/// unbounded exponent, is still below `2^emin` (its top bit is `top`).
/// A value just below the smallest normal that rounds up to it is not tiny.
#[allow(clippy::too_many_arguments)] // the unpacked finite value and its rounding
fn tiny_after_rounding(
    significand: u128,
    exponent: i32,
    sticky: bool,
    top: i32,
    p: i32,
    emin: i32,
    negative: bool,
    rounding: Rounding,
) -> bool {
    if top < emin - 1 {
        return true;
    }
    // top == emin - 1: only a carry out of the p-bit rounding reaches 2^emin.
    let drop = i64::from(top - (p - 1)) - i64::from(exponent);
    if drop <= 0 {
        return true;
    }
    let (kept, half, rest) = if drop <= 127 {
        let d = drop as u32;
        let below = significand & ((1u128 << d) - 1);
        let half_bit = 1u128 << (d - 1);
        (
            significand >> d,
            below & half_bit != 0,
            below & (half_bit - 1) != 0 || sticky,
        )
    } else {
        (0, drop == 128 && significand >> 127 != 0, true)
    };
    let carries = kept == (1u128 << p) - 1 && rounds_up(rounding, negative, true, half, rest);
    !carries
}

fn overflow(format: Format, negative: bool, rounding: Rounding, options: RoundOptions) -> u64 {
    let to_infinity = match rounding {
        Rounding::NearestEven | Rounding::NearestAway => true,
        Rounding::TowardZero => false,
        Rounding::Up => !negative,
        Rounding::Down => negative,
    };
    if options.saturate_finite || !to_infinity {
        return format.max_finite(negative);
    }
    format
        .infinity(negative)
        .or(format.canonical_nan())
        .unwrap_or_else(|| format.max_finite(negative))
}

/// `value` rounded to an integer in direction `rounding`: `(negative,
/// magnitude)`, the magnitude saturated at `u128::MAX`; `None` for NaN and
/// infinities. (For float-to-integer conversions: the caller clamps.)
pub fn round_to_integer(value: Exact, rounding: Rounding) -> Option<(bool, u128)> {
    match value {
        Exact::NaN { .. } | Exact::Infinity { .. } => None,
        Exact::Zero { negative } => Some((negative, 0)),
        Exact::Finite {
            negative,
            significand,
            exponent,
            sticky,
        } => {
            if significand == 0 {
                return Some((negative, 0));
            }
            if exponent >= 0 {
                let bits = 128 - significand.leading_zeros();
                if exponent as u32 + bits > 128 {
                    return Some((negative, u128::MAX));
                }
                return Some((negative, significand << exponent as u32));
            }
            let drop = -(exponent as i64);
            let (m, half, rest) = if drop <= 127 {
                let d = drop as u32;
                let below = significand & ((1u128 << d) - 1);
                let half_bit = 1u128 << (d - 1);
                (
                    significand >> d,
                    below & half_bit != 0,
                    below & (half_bit - 1) != 0 || sticky,
                )
            } else if drop == 128 {
                (0, significand >> 127 != 0, significand << 1 != 0 || sticky)
            } else {
                (0, false, true)
            };
            let up = rounds_up(rounding, negative, m & 1 == 1, half, rest);
            Some((negative, if up { m.saturating_add(1) } else { m }))
        }
    }
}

/// `value` rounded to an integral value, still as an [`Exact`] (for
/// `cvt.rni.f32.f32` and friends): zero results keep the input's sign,
/// NaN and infinities are returned unchanged.
pub fn round_to_integral(value: Exact, rounding: Rounding) -> Exact {
    match value {
        Exact::Finite {
            negative,
            exponent,
            sticky: false,
            ..
        } if exponent >= 0 => value.with_sign(negative),
        Exact::Finite { negative, .. } => match round_to_integer(value, rounding) {
            Some((_, magnitude)) => Exact::integer(negative, magnitude),
            None => value,
        },
        _ => value,
    }
}

// ----------------------------------------------------------------- arithmetic

/// A finite operand made exact: a sticky input becomes a value strictly
/// inside its interval (one more bit, set).
fn operand(significand: u128, exponent: i32, sticky: bool) -> (u128, i32) {
    if !sticky {
        return (significand, exponent);
    }
    if significand.leading_zeros() >= 1 {
        ((significand << 1) | 1, exponent - 1)
    } else {
        (significand | 1, exponent)
    }
}

/// A significand of up to 256 bits (`hi:lo`) as an [`Exact`] with at most
/// 128 bits and a sticky bit.
fn from_wide(negative: bool, hi: u128, lo: u128, exponent: i32, sticky: bool) -> Exact {
    if hi == 0 {
        return if lo == 0 && !sticky {
            Exact::Zero { negative }
        } else {
            Exact::Finite {
                negative,
                significand: lo,
                exponent,
                sticky,
            }
        };
    }
    let shift = 128 - hi.leading_zeros();
    let significand = (hi << (128 - shift)) | (lo >> shift);
    let lost = lo & ((1u128 << shift) - 1) != 0;
    Exact::Finite {
        negative,
        significand,
        exponent: exponent + shift as i32,
        sticky: sticky || lost,
    }
}

/// `a + b`, exact up to a sticky bit. `rounding` only decides the sign of an
/// exact zero sum of opposite-signed operands: `+0`, or `-0` when `Down`.
pub fn add(a: Exact, b: Exact, rounding: Rounding) -> Exact {
    match (a, b) {
        (Exact::NaN { .. }, _) => a,
        (_, Exact::NaN { .. }) => b,
        (Exact::Infinity { negative: x }, Exact::Infinity { negative: y }) => {
            if x == y {
                a
            } else {
                Exact::DEFAULT_NAN
            }
        }
        (Exact::Infinity { .. }, _) => a,
        (_, Exact::Infinity { .. }) => b,
        (Exact::Zero { negative: x }, Exact::Zero { negative: y }) => Exact::Zero {
            negative: if x == y {
                x
            } else {
                rounding == Rounding::Down
            },
        },
        (Exact::Zero { .. }, _) => b,
        (_, Exact::Zero { .. }) => a,
        (
            Exact::Finite {
                negative: na,
                significand: sa,
                exponent: ea,
                sticky: ka,
            },
            Exact::Finite {
                negative: nb,
                significand: sb,
                exponent: eb,
                sticky: kb,
            },
        ) => {
            let (sa, ea) = operand(sa, ea, ka);
            let (sb, eb) = operand(sb, eb, kb);
            add_finite(na, sa, ea, nb, sb, eb, rounding)
        }
    }
}

/// Normalizes a nonzero significand so its top bit is bit 125; an input
/// wider than 126 bits loses its low bits into the returned sticky flag.
fn normalize125(significand: u128, exponent: i32) -> (u128, i32, bool) {
    let msb = 127 - significand.leading_zeros() as i32;
    if msb <= 125 {
        let s = (125 - msb) as u32;
        (significand << s, exponent - s as i32, false)
    } else {
        let s = (msb - 125) as u32;
        let lost = significand & ((1u128 << s) - 1) != 0;
        (significand >> s, exponent + s as i32, lost)
    }
}

fn add_finite(
    na: bool,
    sa: u128,
    ea: i32,
    nb: bool,
    sb: u128,
    eb: i32,
    rounding: Rounding,
) -> Exact {
    let (xa, xea, la) = normalize125(sa, ea);
    let (xb, xeb, lb) = normalize125(sb, eb);
    // x: the operand with the larger magnitude.
    let a_larger = (xea, xa) >= (xeb, xb);
    let ((nx, sx, ex, lx), (ny, sy, ey, ly)) = if a_larger {
        ((na, xa, xea, la), (nb, xb, xeb, lb))
    } else {
        ((nb, xb, xeb, lb), (na, xa, xea, la))
    };
    let d = (ex as i64 - ey as i64) as u64;
    // y shifted to x's exponent: truncated part and whether bits were lost.
    let (ty, lost) = if d == 0 {
        (sy, ly)
    } else if d < 128 {
        let lost = sy & ((1u128 << d) - 1) != 0;
        (sy >> d, lost || ly)
    } else {
        (0, true)
    };
    if nx == ny {
        // Both below 2^126: no overflow.
        Exact::Finite {
            negative: nx,
            significand: sx + ty,
            exponent: ex,
            sticky: lost || lx,
        }
    } else {
        // |x| >= |y|. True y is in [ty, ty + 1) (open above when lost).
        let (diff, sticky) = if lost {
            (sx.saturating_sub(ty + 1), true)
        } else {
            (sx - ty, false)
        };
        // lx (x wider than 126 bits) makes the result only faithful.
        let sticky = sticky || lx;
        if diff == 0 && !sticky {
            Exact::Zero {
                negative: rounding == Rounding::Down,
            }
        } else {
            Exact::Finite {
                negative: nx,
                significand: diff,
                exponent: ex,
                sticky,
            }
        }
    }
}

/// `a - b` (= `a + -b`), exact up to a sticky bit; see [`add`] for zeros.
pub fn sub(a: Exact, b: Exact, rounding: Rounding) -> Exact {
    let b = if b.is_nan() { b } else { b.negate() };
    add(a, b, rounding)
}

/// The full 256-bit product of two u128.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & u64::MAX as u128);
    let (b1, b0) = (b >> 64, b & u64::MAX as u128);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & u64::MAX as u128) + (p10 & u64::MAX as u128);
    let lo = (p00 & u64::MAX as u128) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// `a * b`, exact up to a sticky bit (the sign of a zero product is the
/// exclusive or of the signs; `0 * inf` is [`Exact::DEFAULT_NAN`]).
pub fn mul(a: Exact, b: Exact) -> Exact {
    let negative = a.negative() ^ b.negative();
    match (a, b) {
        (Exact::NaN { .. }, _) => a,
        (_, Exact::NaN { .. }) => b,
        (Exact::Infinity { .. }, Exact::Zero { .. })
        | (Exact::Zero { .. }, Exact::Infinity { .. }) => Exact::DEFAULT_NAN,
        (Exact::Infinity { .. }, _) | (_, Exact::Infinity { .. }) => Exact::Infinity { negative },
        (Exact::Zero { .. }, _) | (_, Exact::Zero { .. }) => Exact::Zero { negative },
        (
            Exact::Finite {
                significand: sa,
                exponent: ea,
                sticky: ka,
                ..
            },
            Exact::Finite {
                significand: sb,
                exponent: eb,
                sticky: kb,
                ..
            },
        ) => {
            let (sa, ea) = operand(sa, ea, ka);
            let (sb, eb) = operand(sb, eb, kb);
            let (hi, lo) = mul_wide(sa, sb);
            from_wide(negative, hi, lo, ea.saturating_add(eb), false)
        }
    }
}

/// `a * b + c` with one rounding: exact up to a sticky bit. `rounding` only
/// decides the sign of an exact zero sum of opposite signs (see [`add`]).
pub fn fma(a: Exact, b: Exact, c: Exact, rounding: Rounding) -> Exact {
    if a.is_nan() {
        return a;
    }
    if b.is_nan() {
        return b;
    }
    if c.is_nan() {
        return c;
    }
    add(mul(a, b), c, rounding)
}

/// `a / b`, exact up to a sticky bit (`x / 0` is infinity, `0 / 0` and
/// `inf / inf` are [`Exact::DEFAULT_NAN`]).
pub fn div(a: Exact, b: Exact) -> Exact {
    let negative = a.negative() ^ b.negative();
    match (a, b) {
        (Exact::NaN { .. }, _) => a,
        (_, Exact::NaN { .. }) => b,
        (Exact::Infinity { .. }, Exact::Infinity { .. })
        | (Exact::Zero { .. }, Exact::Zero { .. }) => Exact::DEFAULT_NAN,
        (Exact::Infinity { .. }, _) | (_, Exact::Zero { .. }) => Exact::Infinity { negative },
        (Exact::Zero { .. }, _) | (_, Exact::Infinity { .. }) => Exact::Zero { negative },
        (
            Exact::Finite {
                significand: sa,
                exponent: ea,
                sticky: ka,
                ..
            },
            Exact::Finite {
                significand: sb,
                exponent: eb,
                sticky: kb,
                ..
            },
        ) => {
            let (sa, ea) = operand(sa, ea, ka);
            let (sb, eb) = operand(sb, eb, kb);
            if sb >> 64 == 0 {
                // Dividend's top bit to bit 127.
                let la = sa.leading_zeros();
                let na = sa << la;
                let ea = ea - la as i32;
                // At least 64 quotient bits.
                let q = na / sb;
                let r = na % sb;
                Exact::Finite {
                    negative,
                    significand: q,
                    exponent: ea - eb,
                    sticky: r != 0,
                }
            } else {
                // Long division, both tops at bit 126: 66 quotient bits.
                let (ra, ea, lost) = match sa.leading_zeros() {
                    0 => (sa >> 1, ea + 1, sa & 1 != 0),
                    z => (sa << (z - 1), ea - (z - 1) as i32, false),
                };
                let lb = sb.leading_zeros() - 1;
                let nb = sb << lb;
                let eb = eb - lb as i32;
                let mut r = ra;
                let mut q = 0u128;
                for _ in 0..66 {
                    q <<= 1;
                    if r >= nb {
                        r -= nb;
                        q |= 1;
                    }
                    r <<= 1;
                }
                Exact::Finite {
                    negative,
                    significand: q,
                    exponent: ea - eb - 65,
                    sticky: r != 0 || lost,
                }
            }
        }
    }
}

/// The integer square root of `n` (floor).
fn isqrt(n: u128) -> u128 {
    if n == 0 {
        return 0;
    }
    let mut x = (n as f64).sqrt() as u128;
    if x == 0 {
        x = 1;
    }
    // One Newton step from a 53-bit estimate, then exact correction.
    x = (x + n / x) / 2;
    while x.checked_mul(x).is_none_or(|sq| sq > n) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|sq| sq <= n) {
        x += 1;
    }
    x
}

/// `sqrt(a)`, exact up to a sticky bit (`sqrt(-0) = -0`, `sqrt(+inf) = +inf`,
/// a negative nonzero input gives [`Exact::DEFAULT_NAN`]).
pub fn sqrt(a: Exact) -> Exact {
    match a {
        Exact::NaN { .. } | Exact::Zero { .. } => a,
        Exact::Infinity { negative: false } => a,
        Exact::Infinity { negative: true } | Exact::Finite { negative: true, .. } => {
            Exact::DEFAULT_NAN
        }
        Exact::Finite {
            significand,
            exponent,
            sticky,
            ..
        } => {
            let (s, e) = operand(significand, exponent, sticky);
            let (mut n, mut e, lost) = normalize125(s, e);
            // Top bit at 125 or 126 with an even exponent (~63 root bits).
            if e.rem_euclid(2) != 0 {
                n <<= 1;
                e -= 1;
            }
            let root = isqrt(n);
            let rem = n - root * root;
            Exact::Finite {
                negative: false,
                significand: root,
                exponent: e / 2,
                sticky: rem != 0 || lost,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tile_kernel_testkit::Rng;

    const MODES: [Rounding; 5] = [
        Rounding::NearestEven,
        Rounding::NearestAway,
        Rounding::TowardZero,
        Rounding::Down,
        Rounding::Up,
    ];
    const RN: Rounding = Rounding::NearestEven;
    const PLAIN: RoundOptions = RoundOptions {
        flush_subnormal_output: false,
        saturate_finite: false,
        keep_nan_payload: false,
    };

    /// Inputs biased toward the edges of the formats, drawn from the
    /// test kit's seeded [`Rng`].
    trait EdgeBits {
        fn f32_bits(&mut self) -> u32;
        fn f64_bits(&mut self) -> u64;
    }

    impl EdgeBits for Rng {
        /// f32 bits biased toward edges: specials, subnormals, extremes, near-ties.
        fn f32_bits(&mut self) -> u32 {
            let r = self.next_u64();
            let sign = ((r >> 63) as u32) << 31;
            match r % 8 {
                0 => {
                    [
                        0,
                        1,
                        0x7f_ffff,
                        0x80_0000,
                        0x7f7f_ffff,
                        0x7f80_0000,
                        0x3f80_0000,
                        0x7fc0_0000,
                    ][(r >> 8) as usize % 8]
                        | sign
                }
                1 => ((r >> 8) as u32 & 0x7f_ffff) | sign,
                2 => (((r >> 8) as u32 % 30 + 0xe1) << 23 | (r >> 40) as u32 & 0x7f_ffff) | sign,
                3 => (((r >> 8) as u32 % 30 + 1) << 23 | (r >> 40) as u32 & 0x7f_ffff) | sign,
                4 => ((r >> 8) as u32 & 0x7fff_e000) | 0x1000 | sign,
                _ => (r >> 16) as u32,
            }
        }
        fn f64_bits(&mut self) -> u64 {
            let r = self.next_u64();
            let sign = r & (1 << 63);
            let m = self.next_u64() & 0xf_ffff_ffff_ffff;
            match r % 8 {
                0 => {
                    [
                        0,
                        1,
                        0xf_ffff_ffff_ffff,
                        0x10_0000_0000_0000,
                        0x7fef_ffff_ffff_ffff,
                        0x7ff0_0000_0000_0000,
                        0x3ff0_0000_0000_0000,
                        0x7ff8_0000_0000_0000,
                    ][(r >> 8) as usize % 8]
                        | sign
                }
                1 => m | sign,
                2 => ((r >> 8) % 60 + 0x7b0) << 52 | m | sign,
                3 => ((r >> 8) % 60 + 1) << 52 | m | sign,
                4 => ((r >> 8) % 400 + 1023 - 200) << 52 | m | sign,
                5 => {
                    ((r >> 8) % 340 + 1023 - 170) << 52
                        | (m & !0x1fff_ffff)
                        | (((r >> 20) & 1) << 28)
                        | sign
                }
                _ => self.next_u64(),
            }
        }
    }

    #[test]
    fn small_formats_round_trip_exhaustively() {
        for format in [
            Format::F16,
            Format::BF16,
            Format::E4M3,
            Format::E5M2,
            Format::E2M3,
            Format::E3M2,
            Format::E2M1,
            Format::UE8M0,
        ] {
            for bits in 0..1u64 << format.width() {
                let value = decode(format, bits);
                for mode in MODES {
                    let back = round(format, value, mode, PLAIN);
                    if value.is_nan() {
                        assert_eq!(Some(back), format.canonical_nan(), "{format:?} {bits:#x}");
                    } else {
                        assert_eq!(back, bits, "{format:?} {bits:#x} {mode:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn known_values() {
        let value = |format: Format, bits: u64| round(Format::F64, decode(format, bits), RN, PLAIN);
        let f = |x: f64| x.to_bits();
        assert_eq!(value(Format::E4M3, 0x7e), f(448.0));
        assert_eq!(value(Format::E4M3, 0xfe), f(-448.0));
        assert_eq!(value(Format::E4M3, 0x01), f(2f64.powi(-9)));
        assert_eq!(value(Format::E4M3, 0x08), f(2f64.powi(-6)));
        assert!(decode(Format::E4M3, 0x7f).is_nan());
        assert!(decode(Format::E4M3, 0xff).is_nan());
        assert_eq!(value(Format::E4M3, 0x78), f(256.0));
        assert_eq!(value(Format::E5M2, 0x7b), f(57344.0));
        assert_eq!(
            decode(Format::E5M2, 0x7c),
            Exact::Infinity { negative: false }
        );
        assert!(decode(Format::E5M2, 0x7d).is_nan());
        assert_eq!(value(Format::E2M1, 0x7), f(6.0));
        assert_eq!(value(Format::E2M1, 0x1), f(0.5));
        assert_eq!(value(Format::E2M1, 0xf), f(-6.0));
        assert_eq!(value(Format::E2M3, 0x1f), f(7.5));
        assert_eq!(value(Format::E2M3, 0x01), f(0.125));
        assert_eq!(value(Format::E3M2, 0x1f), f(28.0));
        assert_eq!(value(Format::E3M2, 0x01), f(0.0625));
        assert_eq!(value(Format::UE8M0, 0x7f), f(1.0));
        assert_eq!(value(Format::UE8M0, 0x00), f(2f64.powi(-127)));
        assert_eq!(value(Format::UE8M0, 0xfe), f(2f64.powi(127)));
        assert!(decode(Format::UE8M0, 0xff).is_nan());
        assert_eq!(value(Format::TF32, 0x3f80_2000), f(1.0 + 2f64.powi(-10)));
        assert_eq!(Format::TF32.canonical_nan(), Some(0x7fff_e000));
        assert_eq!(Format::E4M3.max_finite(true), 0xfe);
        assert_eq!(Format::E2M1.max_finite(false), 0x7);
        assert_eq!(Format::E3M2.max_finite(true), 0x3f);
        assert_eq!(Format::UE8M0.max_finite(false), 0xfe);
        assert_eq!(Format::BF16.max_finite(false), 0x7f7f);
    }

    #[test]
    fn f32_and_f64_round_trip() {
        let mut rng = Rng::new(1);
        for _ in 0..200_000 {
            let x = rng.f32_bits() as u64;
            let y = rng.f64_bits();
            for (format, bits) in [
                (Format::F32, x),
                (Format::F64, y),
                (Format::TF32, x & 0xffff_e000),
            ] {
                let value = decode(format, bits);
                let mode = MODES[(bits % 5) as usize];
                let back = round(format, value, mode, PLAIN);
                if value.is_nan() {
                    assert_eq!(Some(back), format.canonical_nan());
                    let keep = RoundOptions {
                        keep_nan_payload: true,
                        ..PLAIN
                    };
                    let quiet = 1 << (format.fraction_bits - 1 + format.shift);
                    assert_eq!(round(format, value, mode, keep), bits | quiet);
                } else {
                    assert_eq!(back, bits, "{format:?} {bits:#x}");
                }
            }
        }
    }

    #[test]
    fn f64_to_f32_nearest_matches_native() {
        let mut rng = Rng::new(2);
        for _ in 0..300_000 {
            let x = f64::from_bits(rng.f64_bits());
            let got = round(Format::F32, decode(Format::F64, x.to_bits()), RN, PLAIN);
            if x.is_nan() {
                assert_eq!(got, 0x7fff_ffff);
            } else {
                assert_eq!(got, (x as f32).to_bits() as u64, "{x:e}");
            }
        }
    }

    // --------------------------------------------------- arithmetic vs native

    fn f32_value(bits: u32) -> Exact {
        decode(Format::F32, bits as u64)
    }

    fn f64_value(bits: u64) -> Exact {
        decode(Format::F64, bits)
    }

    fn same_f32(got: u64, want: f32, what: &str) {
        if want.is_nan() {
            assert_eq!(got, 0x7fff_ffff, "{what}");
        } else {
            assert_eq!(
                got,
                want.to_bits() as u64,
                "{what}: got {:e} want {want:e}",
                f32::from_bits(got as u32)
            );
        }
    }

    fn same_f64(got: u64, want: f64, what: &str) {
        if want.is_nan() {
            assert_eq!(got, 0x7fff_ffff_ffff_ffff, "{what}");
        } else {
            assert_eq!(
                got,
                want.to_bits(),
                "{what}: got {:e} want {want:e}",
                f64::from_bits(got)
            );
        }
    }

    fn check_f32_nearest(rng: &mut Rng, count: usize) {
        for _ in 0..count {
            let (a, b, c) = (rng.f32_bits(), rng.f32_bits(), rng.f32_bits());
            // Sometimes make b close to -a for cancellation.
            let b = if rng.next_u64().is_multiple_of(4) {
                (a ^ 0x8000_0000)
                    .wrapping_add(rng.next_u64() as u32 % 5)
                    .wrapping_sub(2)
            } else {
                b
            };
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let (ea, eb, ec) = (f32_value(a), f32_value(b), f32_value(c));
            let r = |v| round(Format::F32, v, RN, PLAIN);
            let what = format!("{a:#x} {b:#x} {c:#x}");
            same_f32(r(add(ea, eb, RN)), x + y, &format!("add {what}"));
            same_f32(r(sub(ea, eb, RN)), x - y, &format!("sub {what}"));
            same_f32(r(mul(ea, eb)), x * y, &format!("mul {what}"));
            same_f32(r(div(ea, eb)), x / y, &format!("div {what}"));
            same_f32(r(sqrt(ea)), x.sqrt(), &format!("sqrt {what}"));
            same_f32(
                r(fma(ea, eb, ec, RN)),
                x.mul_add(y, z),
                &format!("fma {what}"),
            );
            // A product near -c: the hard fma cancellations.
            let p = x * y;
            let c2 = (-p)
                .to_bits()
                .wrapping_add(rng.next_u64() as u32 % 3)
                .wrapping_sub(1);
            let z2 = f32::from_bits(c2);
            same_f32(
                r(fma(ea, eb, f32_value(c2), RN)),
                x.mul_add(y, z2),
                &format!("fma2 {what} {c2:#x}"),
            );
        }
    }

    #[test]
    fn f32_arithmetic_nearest_matches_native() {
        check_f32_nearest(&mut Rng::new(3), 200_000);
    }

    fn check_f64_nearest(rng: &mut Rng, count: usize) {
        for _ in 0..count {
            let (a, b, c) = (rng.f64_bits(), rng.f64_bits(), rng.f64_bits());
            let b = if rng.next_u64().is_multiple_of(4) {
                (a ^ (1 << 63))
                    .wrapping_add(rng.next_u64() % 5)
                    .wrapping_sub(2)
            } else {
                b
            };
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let (ea, eb, ec) = (f64_value(a), f64_value(b), f64_value(c));
            let r = |v| round(Format::F64, v, RN, PLAIN);
            let what = format!("{a:#x} {b:#x} {c:#x}");
            same_f64(r(add(ea, eb, RN)), x + y, &format!("add {what}"));
            same_f64(r(sub(ea, eb, RN)), x - y, &format!("sub {what}"));
            same_f64(r(mul(ea, eb)), x * y, &format!("mul {what}"));
            same_f64(r(div(ea, eb)), x / y, &format!("div {what}"));
            same_f64(r(sqrt(ea)), x.sqrt(), &format!("sqrt {what}"));
            same_f64(
                r(fma(ea, eb, ec, RN)),
                x.mul_add(y, z),
                &format!("fma {what}"),
            );
            let p = x * y;
            let c2 = (-p)
                .to_bits()
                .wrapping_add(rng.next_u64() % 3)
                .wrapping_sub(1);
            let z2 = f64::from_bits(c2);
            same_f64(
                r(fma(ea, eb, f64_value(c2), RN)),
                x.mul_add(y, z2),
                &format!("fma2 {what} {c2:#x}"),
            );
            // Results rounded to f32 directly (a double rounding would differ).
            let once = round(Format::F32, mul(ea, eb), RN, PLAIN);
            let twice = (x * y) as f32;
            if (x * y).is_finite() && once != twice.to_bits() as u64 {
                // Must then be a double-rounding case: f64 product was inexact.
                assert!(x.mul_add(y, -(x * y)) != 0.0, "mul->f32 {what}");
            }
        }
    }

    #[test]
    fn f64_arithmetic_nearest_matches_native() {
        check_f64_nearest(&mut Rng::new(4), 150_000);
    }

    /// Millions of inputs: `cargo test --release -p tile-kernel-interp -- --ignored`.
    #[test]
    #[ignore]
    fn arithmetic_nearest_matches_native_long() {
        check_f32_nearest(&mut Rng::new(30), 5_000_000);
        check_f64_nearest(&mut Rng::new(40), 3_000_000);
    }

    #[test]
    fn zero_signs() {
        let z = |negative| Exact::Zero { negative };
        let one = f32_value(1.0f32.to_bits());
        let r = |v, mode| round(Format::F32, v, mode, PLAIN);
        for mode in MODES {
            let minus = mode == Rounding::Down;
            assert_eq!(
                r(add(one, one.negate(), mode), mode),
                if minus { 0x8000_0000 } else { 0 }
            );
            assert_eq!(
                r(sub(one, one, mode), mode),
                if minus { 0x8000_0000 } else { 0 }
            );
            assert_eq!(r(add(z(true), z(true), mode), mode), 0x8000_0000);
            assert_eq!(r(add(z(false), z(false), mode), mode), 0);
            assert_eq!(
                r(add(z(true), z(false), mode), mode),
                if minus { 0x8000_0000 } else { 0 }
            );
            assert_eq!(r(sub(z(true), z(false), mode), mode), 0x8000_0000);
            // x * 0 + (-0): the product's zero sign meets c's.
            assert_eq!(
                r(fma(one.negate(), z(false), z(true), mode), mode),
                0x8000_0000
            );
            assert_eq!(
                r(fma(one, z(false), z(true), mode), mode),
                if minus { 0x8000_0000 } else { 0 }
            );
            assert_eq!(
                r(fma(one, one, one.negate(), mode), mode),
                if minus { 0x8000_0000 } else { 0 }
            );
            assert_eq!(r(mul(one.negate(), z(false)), mode), 0x8000_0000);
            assert_eq!(r(div(z(true), one), mode), 0x8000_0000);
            assert_eq!(r(sqrt(z(true)), mode), 0x8000_0000);
            // A tiny nonzero result rounding to zero keeps its sign.
            let tiny = f32_value(1);
            assert_eq!(
                r(mul(tiny, tiny.negate()), mode),
                match mode {
                    Rounding::Down => 0x8000_0001,
                    _ => 0x8000_0000,
                }
            );
        }
        assert!(
            add(
                Exact::Infinity { negative: false },
                Exact::Infinity { negative: true },
                RN
            )
            .is_nan()
        );
        assert!(mul(Exact::Infinity { negative: false }, z(true)).is_nan());
        assert!(div(z(false), z(true)).is_nan());
        assert!(sqrt(one.negate()).is_nan());
        assert_eq!(div(one, z(true)), Exact::Infinity { negative: true });
    }

    // ------------------------------------- directed modes vs exact big integers

    /// A signed big integer, just enough to hold exact sums and products of
    /// scaled f64 values and compare them (an oracle independent of the code
    /// under test).
    #[derive(Clone, Debug)]
    struct Big {
        negative: bool,
        /// Little-endian 32-bit limbs.
        limbs: Vec<u64>,
    }

    impl Big {
        fn zero() -> Big {
            Big {
                negative: false,
                limbs: Vec::new(),
            }
        }
        /// `(-1)^negative * m * 2^shift`.
        fn new(negative: bool, m: u128, shift: u32) -> Big {
            let mut limbs = vec![0u64; (shift / 32) as usize];
            let mut m = m;
            let bit = shift % 32;
            let mut carry = 0u64;
            while m != 0 || carry != 0 {
                let part = (m as u64 & 0xffff_ffff) << bit | carry;
                limbs.push(part & 0xffff_ffff);
                carry = part >> 32;
                m >>= 32;
            }
            let mut big = Big { negative, limbs };
            big.trim();
            big
        }
        fn trim(&mut self) {
            while self.limbs.last() == Some(&0) {
                self.limbs.pop();
            }
            if self.limbs.is_empty() {
                self.negative = false;
            }
        }
        fn cmp_mag(a: &[u64], b: &[u64]) -> Ordering {
            a.len()
                .cmp(&b.len())
                .then_with(|| a.iter().rev().cmp(b.iter().rev()))
        }
        fn add_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
            let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
            let mut carry = 0;
            for i in 0..a.len().max(b.len()) {
                let sum = a.get(i).unwrap_or(&0) + b.get(i).unwrap_or(&0) + carry;
                out.push(sum & 0xffff_ffff);
                carry = sum >> 32;
            }
            out.push(carry);
            out
        }
        /// `a - b` for `a >= b`.
        fn sub_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
            let mut out = Vec::with_capacity(a.len());
            let mut borrow = 0i64;
            for (i, &x) in a.iter().enumerate() {
                let mut d = x as i64 - *b.get(i).unwrap_or(&0) as i64 - borrow;
                borrow = 0;
                if d < 0 {
                    d += 1 << 32;
                    borrow = 1;
                }
                out.push(d as u64);
            }
            out
        }
        fn add(&self, other: &Big) -> Big {
            let mut out = if self.negative == other.negative {
                Big {
                    negative: self.negative,
                    limbs: Big::add_mag(&self.limbs, &other.limbs),
                }
            } else if Big::cmp_mag(&self.limbs, &other.limbs) != Ordering::Less {
                Big {
                    negative: self.negative,
                    limbs: Big::sub_mag(&self.limbs, &other.limbs),
                }
            } else {
                Big {
                    negative: other.negative,
                    limbs: Big::sub_mag(&other.limbs, &self.limbs),
                }
            };
            out.trim();
            out
        }
        fn mul(&self, other: &Big) -> Big {
            let mut out = vec![0u64; self.limbs.len() + other.limbs.len() + 1];
            for (i, &x) in self.limbs.iter().enumerate() {
                let mut carry = 0u64;
                for (j, &y) in other.limbs.iter().enumerate() {
                    let t = out[i + j] + x * y + carry;
                    out[i + j] = t & 0xffff_ffff;
                    carry = t >> 32;
                }
                let mut k = i + other.limbs.len();
                while carry != 0 {
                    let t = out[k] + carry;
                    out[k] = t & 0xffff_ffff;
                    carry = t >> 32;
                    k += 1;
                }
            }
            let mut big = Big {
                negative: self.negative != other.negative,
                limbs: out,
            };
            big.trim();
            big
        }
        fn cmp(&self, other: &Big) -> Ordering {
            match (self.negative, other.negative) {
                (false, true) => Ordering::Greater,
                (true, false) => Ordering::Less,
                (false, false) => Big::cmp_mag(&self.limbs, &other.limbs),
                (true, true) => Big::cmp_mag(&other.limbs, &self.limbs),
            }
        }
    }

    /// A finite value of `format` times `2^scale`, exactly (None for inf/NaN).
    fn scaled(format: Format, bits: u64, scale: i32) -> Option<Big> {
        match decode(format, bits) {
            Exact::Zero { .. } => Some(Big::zero()),
            Exact::Finite {
                negative,
                significand,
                exponent,
                ..
            } => {
                let shift = exponent + scale;
                assert!(shift >= 0, "scale too small");
                Some(Big::new(negative, significand, shift as u32))
            }
            _ => None,
        }
    }

    /// Extended value: -inf < finite < +inf.
    fn cmp_ext(format: Format, bits: u64, scale: i32, exact: &Big) -> Ordering {
        match decode(format, bits) {
            Exact::Infinity { negative: true } => Ordering::Less,
            Exact::Infinity { negative: false } => Ordering::Greater,
            _ => scaled(format, bits, scale).expect("finite").cmp(exact),
        }
    }

    /// The neighbours of an f32/f64 result: (next toward -inf, next toward +inf).
    fn neighbours(format: Format, bits: u64) -> (u64, u64) {
        if format == Format::F32 {
            let x = f32::from_bits(bits as u32);
            (x.next_down().to_bits() as u64, x.next_up().to_bits() as u64)
        } else {
            let x = f64::from_bits(bits);
            (x.next_down().to_bits(), x.next_up().to_bits())
        }
    }

    /// Checks `result` is `exact * 2^-scale` rounded in a directed mode
    /// (or to nearest ties away, away from overflow) in `format`.
    fn check_bracket(
        format: Format,
        result: u64,
        exact: &Big,
        scale: i32,
        mode: Rounding,
        what: &str,
    ) {
        assert!(!format.is_nan(result), "{what}: NaN");
        let exact_sign = if exact.limbs.is_empty() {
            0
        } else if exact.negative {
            -1
        } else {
            1
        };
        let (down, up) = neighbours(format, result);
        let below = |b: u64| cmp_ext(format, b, scale, exact) != Ordering::Greater;
        let above = |b: u64| cmp_ext(format, b, scale, exact) != Ordering::Less;
        let strictly_above = |b: u64| cmp_ext(format, b, scale, exact) == Ordering::Greater;
        let strictly_below = |b: u64| cmp_ext(format, b, scale, exact) == Ordering::Less;
        let floor_ok = || below(result) && strictly_above(up);
        let ceil_ok = || above(result) && strictly_below(down);
        let ok = match mode {
            Rounding::Down => floor_ok(),
            Rounding::Up => ceil_ok(),
            Rounding::TowardZero => {
                if exact_sign >= 0 {
                    floor_ok()
                } else {
                    ceil_ok()
                }
            }
            Rounding::NearestAway | Rounding::NearestEven => {
                // Distance check: |2*exact - 2*r| <= |2*exact - 2*n| for both neighbours.
                let r = scaled(format, result, scale);
                match r {
                    None => true,
                    Some(r) => {
                        let two = Big::new(false, 2, 0);
                        let e2 = exact.mul(&two);
                        let dist = |v: &Big| {
                            let mut d = v.mul(&two).add(&Big {
                                negative: !e2.negative,
                                limbs: e2.limbs.clone(),
                            });
                            d.negative = false;
                            d
                        };
                        let dr = dist(&r);
                        [down, up].iter().all(|&n| match scaled(format, n, scale) {
                            None => true,
                            Some(n) => {
                                let dn = dist(&n);
                                match dr.cmp(&dn) {
                                    Ordering::Less => true,
                                    Ordering::Greater => false,
                                    Ordering::Equal => {
                                        if mode == Rounding::NearestAway {
                                            Big::cmp_mag(&r.limbs, &n.limbs) == Ordering::Greater
                                        } else {
                                            result & 1 == 0
                                        }
                                    }
                                }
                            }
                        })
                    }
                }
            }
        };
        assert!(ok, "{what}: {mode:?} gave {result:#x}");
    }

    fn check_directed(format: Format, scale: i32, bits: &mut dyn FnMut() -> u64, count: usize) {
        let to_big = |b: u64, s: i32| scaled(format, b, s);
        for i in 0..count {
            let (a, b, c) = (bits(), bits(), bits());
            let mode = MODES[i % 5];
            let (ea, eb, ec) = (decode(format, a), decode(format, b), decode(format, c));
            let (Some(ba), Some(bb), Some(_)) =
                (to_big(a, scale), to_big(b, scale), to_big(c, scale))
            else {
                continue;
            };
            let r = |v| round(format, v, mode, PLAIN);
            let what = format!("{a:#x} {b:#x} {c:#x}");
            let sum = ba.add(&bb);
            if !sum.limbs.is_empty() {
                check_bracket(
                    format,
                    r(add(ea, eb, mode)),
                    &sum,
                    scale,
                    mode,
                    &format!("add {what}"),
                );
            }
            let product = ba.mul(&bb);
            if !product.limbs.is_empty() {
                check_bracket(
                    format,
                    r(mul(ea, eb)),
                    &product,
                    2 * scale,
                    mode,
                    &format!("mul {what}"),
                );
                let cc = to_big(c, 2 * scale).unwrap();
                let total = product.add(&cc);
                if !total.limbs.is_empty() {
                    check_bracket(
                        format,
                        r(fma(ea, eb, ec, mode)),
                        &total,
                        2 * scale,
                        mode,
                        &format!("fma {what}"),
                    );
                }
                // q = a / b: check via the bracket of q against a/b, i.e.
                // compare q*b with a (sign of b folded in).
                let q = r(div(ea, eb));
                if !format.is_nan(q) && !ba.limbs.is_empty() {
                    let (down, up) = neighbours(format, q);
                    let side = |x: u64| -> Ordering {
                        match scaled(format, x, scale) {
                            None => {
                                if decode(format, x).negative() {
                                    Ordering::Less
                                } else {
                                    Ordering::Greater
                                }
                            }
                            Some(x) => {
                                let lhs = x.mul(&bb);
                                let rhs = ba.mul(&Big::new(false, 1, scale as u32));
                                let o = lhs.cmp(&rhs);
                                if bb.negative { o.reverse() } else { o }
                            }
                        }
                    };
                    let exact_negative = ba.negative != bb.negative;
                    let floor_ok = side(q) != Ordering::Greater && side(up) == Ordering::Greater;
                    let ceil_ok = side(q) != Ordering::Less && side(down) == Ordering::Less;
                    let ok = match mode {
                        Rounding::Down => floor_ok,
                        Rounding::Up => ceil_ok,
                        Rounding::TowardZero => {
                            if exact_negative {
                                ceil_ok
                            } else {
                                floor_ok
                            }
                        }
                        _ => floor_ok || ceil_ok,
                    };
                    assert!(ok, "div {what} {mode:?} gave {q:#x}");
                }
            }
            // sqrt: r^2 against a.
            if !ba.negative && !ba.limbs.is_empty() {
                let s = r(sqrt(ea));
                let (down, up) = neighbours(format, s);
                let side = |x: u64| -> Ordering {
                    match scaled(format, x, scale) {
                        None => Ordering::Greater,
                        Some(x) if x.negative => Ordering::Less,
                        Some(x) => x.mul(&x).cmp(&ba.mul(&Big::new(false, 1, scale as u32))),
                    }
                };
                let floor_ok = side(s) != Ordering::Greater && side(up) == Ordering::Greater;
                let ceil_ok = side(s) != Ordering::Less && side(down) == Ordering::Less;
                let ok = match mode {
                    Rounding::Down | Rounding::TowardZero => floor_ok,
                    Rounding::Up => ceil_ok,
                    _ => floor_ok || ceil_ok,
                };
                assert!(ok, "sqrt {a:#x} {mode:?} gave {s:#x}");
            }
        }
    }

    #[test]
    fn f32_arithmetic_directed_brackets_exact() {
        let mut rng = Rng::new(5);
        check_directed(Format::F32, 149, &mut || rng.f32_bits() as u64, 20_000);
        // Operands of similar magnitude (cancellation and ties).
        let mut rng = Rng::new(6);
        check_directed(
            Format::F32,
            149,
            &mut || (rng.next_u64() as u32 & 0x81ff_ffff | 0x3f00_0000) as u64,
            20_000,
        );
    }

    #[test]
    fn f64_arithmetic_directed_brackets_exact() {
        let mut rng = Rng::new(7);
        check_directed(Format::F64, 1074, &mut || rng.f64_bits(), 4_000);
    }

    /// f64 -> smaller formats in every mode, bracketed against the exact input.
    #[test]
    fn conversions_bracket_exact() {
        let mut rng = Rng::new(8);
        for i in 0..200_000 {
            let x = rng.f64_bits();
            let Some(exact) = scaled(Format::F64, x, 1074) else {
                continue;
            };
            if exact.limbs.is_empty() {
                continue;
            }
            let mode = MODES[i % 5];
            let r = round(Format::F32, decode(Format::F64, x), mode, PLAIN);
            // Scale 1074 also holds every f32 exactly.
            let as_f64 = f32::from_bits(r as u32) as f64;
            let (d, u) = (
                f32::from_bits(r as u32).next_down() as f64,
                f32::from_bits(r as u32).next_up() as f64,
            );
            let cmp = |v: f64| cmp_ext(Format::F64, v.to_bits(), 1074, &exact);
            let ok = match mode {
                Rounding::Down => cmp(as_f64) != Ordering::Greater && cmp(u) == Ordering::Greater,
                Rounding::Up => cmp(as_f64) != Ordering::Less && cmp(d) == Ordering::Less,
                Rounding::TowardZero => {
                    if exact.negative {
                        cmp(as_f64) != Ordering::Less && cmp(d) == Ordering::Less
                    } else {
                        cmp(as_f64) != Ordering::Greater && cmp(u) == Ordering::Greater
                    }
                }
                _ => true,
            };
            assert!(ok, "{x:#x} {mode:?} -> {r:#x}");
            if mode == Rounding::NearestAway && as_f64.is_finite() && as_f64.abs() < f32::MAX as f64
            {
                // The nearer neighbour; at a tie the larger magnitude.
                let (lo, hi) = if cmp(as_f64) == Ordering::Greater {
                    (d, as_f64)
                } else {
                    (as_f64, u)
                };
                let mid = (lo + hi) / 2.0;
                let want = match cmp(mid) {
                    Ordering::Greater => lo,
                    Ordering::Less => hi,
                    Ordering::Equal => {
                        if lo.abs() > hi.abs() {
                            lo
                        } else {
                            hi
                        }
                    }
                };
                assert_eq!(as_f64, want, "rna {x:#x}");
            }
        }
    }

    // ------------------------------------------ narrow formats vs half/float8

    #[test]
    fn f32_to_half_formats_match_half_crate() {
        let mut rng = Rng::new(9);
        for _ in 0..400_000 {
            let x = rng.f32_bits();
            let v = decode(Format::F32, x as u64);
            if v.is_nan() {
                continue;
            }
            let f = f32::from_bits(x);
            assert_eq!(
                round(Format::F16, v, RN, PLAIN),
                half::f16::from_f32(f).to_bits() as u64,
                "{x:#x}"
            );
            assert_eq!(
                round(Format::BF16, v, RN, PLAIN),
                half::bf16::from_f32(f).to_bits() as u64,
                "{x:#x}"
            );
        }
        for h in 0..=u16::MAX {
            let v = decode(Format::F16, h as u64);
            let want = half::f16::from_bits(h).to_f32();
            if !want.is_nan() {
                assert_eq!(
                    round(Format::F32, v, RN, PLAIN),
                    want.to_bits() as u64,
                    "{h:#x}"
                );
            }
            let want = half::bf16::from_bits(h).to_f32();
            let v = decode(Format::BF16, h as u64);
            if !want.is_nan() {
                assert_eq!(
                    round(Format::F32, v, RN, PLAIN),
                    want.to_bits() as u64,
                    "{h:#x}"
                );
            }
        }
    }

    /// Every f32 to f16 and bf16 against the `half` crate (release mode:
    /// `cargo test --release -p tile-kernel-interp -- --ignored`).
    #[test]
    #[ignore]
    fn f32_to_half_formats_match_half_crate_exhaustively() {
        for x in 0..=u32::MAX {
            let v = decode(Format::F32, x as u64);
            if v.is_nan() {
                continue;
            }
            let f = f32::from_bits(x);
            assert_eq!(
                round(Format::F16, v, RN, PLAIN),
                half::f16::from_f32(f).to_bits() as u64,
                "{x:#x}"
            );
            assert_eq!(
                round(Format::BF16, v, RN, PLAIN),
                half::bf16::from_f32(f).to_bits() as u64,
                "{x:#x}"
            );
        }
    }

    /// Directed roundings into f16, bf16, E4M3, E5M2 and fp6/fp4 against
    /// brute force: the result is the nearest encoding on the right side,
    /// found by scanning every encoding (values from the independent crates
    /// where they exist).
    #[test]
    fn directed_narrow_roundings_match_brute_force() {
        let value_of = |format: Format, bits: u64| -> Option<f64> {
            let f = if format == Format::F16 {
                half::f16::from_bits(bits as u16).to_f64()
            } else if format == Format::BF16 {
                half::bf16::from_bits(bits as u16).to_f64()
            } else if format == Format::E4M3 {
                float8::F8E4M3::from_bits(bits as u8).to_f64()
            } else if format == Format::E5M2 {
                float8::F8E5M2::from_bits(bits as u8).to_f64()
            } else {
                let Exact::Finite {
                    negative,
                    significand,
                    exponent,
                    ..
                } = decode(format, bits)
                else {
                    return if decode(format, bits).is_nan() {
                        None
                    } else {
                        Some(0.0)
                    };
                };
                let m = significand as f64 * 2f64.powi(exponent);
                if negative { -m } else { m }
            };
            (!f.is_nan()).then_some(f)
        };
        let mut rng = Rng::new(10);
        for format in [
            Format::F16,
            Format::BF16,
            Format::E4M3,
            Format::E5M2,
            Format::E2M3,
            Format::E3M2,
            Format::E2M1,
        ] {
            let mut table: Vec<f64> = (0..1u64 << format.width())
                .filter_map(|b| value_of(format, b))
                .filter(|v| v.is_finite())
                .collect();
            table.sort_by(f64::total_cmp);
            let finite_max = table[table.len() - 1];
            for i in 0..20_000 {
                let x = f32::from_bits(rng.f32_bits());
                if !x.is_finite() {
                    continue;
                }
                let x = x as f64
                    * if format.exponent_bits < 8 {
                        2f64.powi(-120)
                    } else {
                        1.0
                    };
                let mode = [Rounding::Down, Rounding::Up, Rounding::TowardZero][i % 3];
                let got = round(
                    format,
                    decode(Format::F64, x.to_bits()),
                    mode,
                    RoundOptions {
                        saturate_finite: true,
                        ..PLAIN
                    },
                );
                let got_value = value_of(format, got).unwrap();
                // Brute force: the best encoding value on the allowed side.
                let split = table.partition_point(|&v| v <= x);
                let down = if split == 0 {
                    f64::NEG_INFINITY
                } else {
                    table[split - 1]
                };
                let at = table.partition_point(|&v| v < x);
                let up = table.get(at).copied().unwrap_or(f64::INFINITY);
                let want = match mode {
                    Rounding::Down => down,
                    Rounding::Up => up,
                    _ => {
                        if x >= 0.0 {
                            down
                        } else {
                            up
                        }
                    }
                };
                let want = want.clamp(-finite_max, finite_max);
                assert_eq!(got_value, want, "{format:?} {x:e} {mode:?} -> {got:#x}");
                if got_value == 0.0 {
                    assert_eq!(
                        got & format.sign_mask() != 0,
                        x.is_sign_negative() || (x == 0.0 && 1.0 / x < 0.0),
                        "zero sign"
                    );
                }
            }
        }
    }

    #[test]
    fn fp8_nearest_satfinite_matches_float8_crate() {
        let sat = RoundOptions {
            saturate_finite: true,
            ..PLAIN
        };
        let mut rng = Rng::new(11);
        for i in 0..400_000u32 {
            let x = if i < 65536 {
                half::f16::from_bits(i as u16).to_f32()
            } else {
                f32::from_bits(rng.f32_bits())
            };
            let v = decode(Format::F32, x.to_bits() as u64);
            if v.is_nan() {
                continue;
            }
            assert_eq!(
                round(Format::E4M3, v, RN, sat),
                float8::F8E4M3::from_f32(x).to_bits() as u64,
                "e4m3 {x:e}"
            );
            assert_eq!(
                round(Format::E5M2, v, RN, sat),
                float8::F8E5M2::from_f32(x).to_bits() as u64,
                "e5m2 {x:e}"
            );
        }
        for b in 0..=255u8 {
            for (format, want) in [
                (Format::E4M3, float8::F8E4M3::from_bits(b).to_f16()),
                (Format::E5M2, float8::F8E5M2::from_bits(b).to_f16()),
            ] {
                let got = round(Format::F16, decode(format, b as u64), RN, PLAIN);
                if want.is_nan() {
                    assert_eq!(got, 0x7fff);
                } else {
                    assert_eq!(got, want.to_bits() as u64, "{format:?} {b:#x}");
                }
            }
        }
    }

    #[test]
    fn overflow_and_saturation() {
        let sat = RoundOptions {
            saturate_finite: true,
            ..PLAIN
        };
        let v = |x: f64| decode(Format::F64, x.to_bits());
        // E4M3: 464 is the tie between 448 and (unrepresentable) 480.
        assert_eq!(round(Format::E4M3, v(464.0), RN, PLAIN), 0x7e);
        assert_eq!(round(Format::E4M3, v(464.1), RN, PLAIN), 0x7f);
        assert_eq!(round(Format::E4M3, v(-464.1), RN, sat), 0xfe);
        assert_eq!(round(Format::E4M3, v(f64::INFINITY), RN, PLAIN), 0x7f);
        assert_eq!(round(Format::E4M3, v(f64::NEG_INFINITY), RN, sat), 0xfe);
        assert_eq!(round(Format::E5M2, v(61440.0), RN, PLAIN), 0x7c);
        assert_eq!(round(Format::E5M2, v(61439.0), RN, PLAIN), 0x7b);
        assert_eq!(
            round(Format::E5M2, v(1e9), Rounding::TowardZero, PLAIN),
            0x7b
        );
        assert_eq!(round(Format::E2M1, v(100.0), RN, PLAIN), 0x7);
        assert_eq!(round(Format::E2M1, v(-5.0), RN, PLAIN), 0xe); // tie 4|6 -> even (4)
        assert_eq!(round(Format::E2M1, v(0.25), RN, PLAIN), 0x0);
        assert_eq!(round(Format::E2M1, v(0.26), RN, PLAIN), 0x1);
        assert_eq!(round(Format::F16, v(65520.0), RN, PLAIN), 0x7c00);
        assert_eq!(round(Format::F16, v(65519.9), RN, PLAIN), 0x7bff);
        assert_eq!(round(Format::F16, v(1e6), RN, sat), 0x7bff);
        assert_eq!(round(Format::F16, v(-1e6), Rounding::Up, PLAIN), 0xfbff);
        assert_eq!(round(Format::F16, v(-1e6), Rounding::Down, PLAIN), 0xfc00);
        assert_eq!(round(Format::BF16, v(f64::INFINITY), RN, sat), 0x7f7f);
        // TF32 keeps 10 fraction bits in the top of the register.
        assert_eq!(
            round(
                Format::TF32,
                v(1.0 + 2f64.powi(-11)),
                Rounding::NearestAway,
                PLAIN
            ),
            0x3f80_2000
        );
        assert_eq!(
            round(Format::TF32, v(1.0 + 2f64.powi(-11)), RN, PLAIN),
            0x3f80_0000
        );
        assert_eq!(round(Format::TF32, v(3.5e38), RN, sat), 0x7f7f_e000);
        // UE8M0: powers of two; no zero; rz truncates, rp rounds up.
        let up = Rounding::Up;
        let rz = Rounding::TowardZero;
        assert_eq!(round(Format::UE8M0, v(1.0), rz, PLAIN), 0x7f);
        assert_eq!(round(Format::UE8M0, v(1.5), rz, PLAIN), 0x7f);
        assert_eq!(round(Format::UE8M0, v(1.5), up, PLAIN), 0x80);
        assert_eq!(round(Format::UE8M0, v(0.0), up, PLAIN), 0x00);
        assert_eq!(round(Format::UE8M0, v(2f64.powi(-130)), up, PLAIN), 0x00);
        assert_eq!(
            round(Format::UE8M0, v(2f64.powi(-127) * 1.5), up, PLAIN),
            0x01
        );
        assert_eq!(
            round(Format::UE8M0, v(2f64.powi(127) * 1.5), up, PLAIN),
            0xff
        );
        assert_eq!(round(Format::UE8M0, v(2f64.powi(127) * 1.5), up, sat), 0xfe);
        assert_eq!(
            round(Format::UE8M0, v(2f64.powi(127) * 1.5), rz, PLAIN),
            0xfe
        );
    }

    #[test]
    fn flush_subnormal_results() {
        let ftz = RoundOptions {
            flush_subnormal_output: true,
            ..PLAIN
        };
        let v = |x: f64| decode(Format::F64, x.to_bits());
        let min_normal = f32::MIN_POSITIVE as f64;
        assert_eq!(round(Format::F32, v(min_normal * 0.5), RN, ftz), 0);
        assert_eq!(
            round(Format::F32, v(-min_normal * 0.5), RN, ftz),
            0x8000_0000
        );
        // Rounds up to the smallest normal: not subnormal after rounding.
        assert_eq!(
            round(Format::F32, v(min_normal * (1.0 - 2f64.powi(-30))), RN, ftz),
            0x0080_0000
        );
        assert_eq!(
            round(
                Format::F32,
                v(min_normal * (1.0 - 2f64.powi(-30))),
                Rounding::TowardZero,
                ftz
            ),
            0
        );
        assert_eq!(round(Format::F32, v(min_normal), RN, ftz), 0x0080_0000);
        assert_eq!(Format::F32.flush_subnormal(0x8000_0001), 0x8000_0000);
        assert_eq!(Format::F32.flush_subnormal(0x0080_0000), 0x0080_0000);
        assert_eq!(Format::F16.flush_subnormal(0x03ff), 0);
    }

    #[test]
    fn integer_rounding_matches_native() {
        let mut rng = Rng::new(12);
        for _ in 0..200_000 {
            let x = f64::from_bits(rng.f64_bits());
            let x = if rng.next_u64().is_multiple_of(2) {
                (x % 1e6).abs().copysign(x)
            } else {
                x
            };
            if !x.is_finite() || x.abs() >= 2f64.powi(120) {
                continue;
            }
            let v = decode(Format::F64, x.to_bits());
            for (mode, want) in [
                (Rounding::NearestEven, x.round_ties_even()),
                (Rounding::NearestAway, x.round()),
                (Rounding::TowardZero, x.trunc()),
                (Rounding::Down, x.floor()),
                (Rounding::Up, x.ceil()),
            ] {
                let (negative, magnitude) = round_to_integer(v, mode).unwrap();
                assert_eq!(magnitude as f64, want.abs(), "{x:e} {mode:?}");
                assert_eq!(negative, x.is_sign_negative());
                let integral = round(Format::F64, round_to_integral(v, mode), RN, PLAIN);
                assert_eq!(integral, want.to_bits(), "{x:e} {mode:?}");
            }
        }
    }
}
