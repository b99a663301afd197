//! Semantics of every `cvt` form: scalar integer/float conversions, the
//! packed half, tf32, fp8, fp6/fp4 and ue8m0 conversions, and `cvt.pack`.
//!
//! Guarantees (beyond the [`Compute`] contract): each variant's parameters
//! are decided once, when its [`Compute`] is built; a conversion is one
//! correctly rounded [`softfloat::round`] of the exact source value (the
//! common f32 -> f16/bf16/tf32/e4m3/e5m2 conversions take a bit-level fast
//! path that the tests prove equal to the softfloat path on every input,
//! and `cvt.rna.tf32.f32` is sm_90's integer rounding, equal to softfloat's
//! ties-away rounding on every finite input);
//! packed results put the FIRST source (or the high source element) in the
//! HIGH bits.
//!
//! The PTX rules applied, each pinned by a unit test, and each checked on
//! an H200 (sm_90, CUDA 13.0 ptxas) against 2.5 million random conversions
//! of every `cvt` variant sm_90 runs, with no mismatch (the fp6/fp4/ue8m0
//! forms and tf32 `.rn/.rz.satfinite` need sm_100 and follow the PTX ISA):
//! - int -> int: sign- or zero-extend the source, then truncate (wrap);
//!   `.sat` clamps to the destination range instead.
//! - float -> int (`.rni .rzi .rmi .rpi`): round, then clamp to the
//!   destination range (saturating by default, so `.sat` changes nothing);
//!   NaN gives 0, except from `.f64` or into `.s64`/`.u64`, where it gives
//!   `1 << (bits - 1)` (PTX ISA "Integer Notes").
//! - int -> float and float -> float: one rounding in the `.rn .rz .rm .rp`
//!   direction; same-type `cvt.{irnd}` rounds to an integral value.
//! - `.ftz`: f32 subnormal inputs (except into f16, which sm_90 rounds
//!   unflushed), and tiny f32 results (below 2^-126 after rounding to 24
//!   bits with an unbounded exponent: IEEE's tininess after rounding),
//!   become zero of the same sign; other types are untouched.
//! - `.sat` on a float destination: clamp to `[+0.0, 1.0]`, NaN -> `+0.0`.
//! - `.relu`: a negative result (and `-0`) becomes `+0`, NaN becomes the
//!   destination's canonical NaN.
//! - `.satfinite`: overflow and infinities give the largest finite value of
//!   the same sign; NaN stays NaN (fp6/fp4: NaN gives `+MAX_NORM`; ue8m0 is
//!   unsigned, so magnitudes are converted).
//! - NaN results: the canonical NaN of the destination (f32 `0x7fffffff`,
//!   f16/bf16 `0x7fff`, tf32 `0x7fffe000`, e4m3/e5m2 `0x7f`, ue8m0 `0xff`),
//!   except: conversions from or to f64 (and f64 rounding to integral) keep
//!   the sign and top payload bits and set the quiet bit; a plain
//!   `cvt.f32.f32`/`cvt.f64.f64` is a move; `cvt.f32.bf16` (no `.ftz`)
//!   moves the bits up unchanged; `cvt.ftz.f64.f32` widens the canonical
//!   f32 NaN (`0x7fffffffe0000000`); `cvt.rna.tf32.f32` truncates NaN and
//!   infinity to the top 19 bits (see [`Tf32Rna`]).

use super::softfloat::{self, Exact, Format, RoundOptions, Rounding};
use super::{Bits, Compute, destination_lanes, source_lanes};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Modifiers, PtxType};

/// The semantics of a variant of a `cvt` form, or `None` for other forms
/// (or a malformed variant the table would not produce).
pub(crate) fn compute(variant: &Modifiers) -> Option<Compute> {
    let inputs = source_lanes(variant);
    let outputs = destination_lanes(variant);
    let build = |f: Function| Some(Compute::new(inputs, outputs, f));
    match variant.form.id {
        "cvt.scalar" => build(scalar(variant)?),
        "cvt.half-pair-from-f32" => {
            let to = match variant.ty(Slot::Dtype)? {
                PtxType::F16x2 => Format::F16,
                PtxType::Bf16x2 => Format::BF16,
                _ => return None,
            };
            let element = narrow_from(Format::F32, to, variant)?;
            build(pair_of_sources(element, 16))
        }
        "cvt.tf32" if variant.get(Slot::Rnd) == Some("rna") => build(unary(Tf32Rna {
            saturate: variant.has(Slot::Satfinite),
        })),
        "cvt.tf32" => build(unary(narrow_from(Format::F32, Format::TF32, variant)?)),
        "cvt.fp8-pair-from-f32" => {
            let element = narrow_from(Format::F32, fp8(variant.ty(Slot::Dtype)?)?, variant)?;
            build(pair_of_sources(element, 8))
        }
        "cvt.fp8-pair-from-f16x2" => {
            let element = narrow_from(Format::F16, fp8(variant.ty(Slot::Dtype)?)?, variant)?;
            build(pair_in_place(element, 16, 8))
        }
        "cvt.f16x2-from-fp8-pair" => {
            let element = widen_to_f16(fp8(variant.ty(Slot::Atype)?)?, variant.has(Slot::Relu));
            build(pair_in_place(element, 8, 16))
        }
        "cvt.fp6-fp4-pair-from-f32" => {
            let (to, width) = fp6_fp4(variant.ty(Slot::Dtype)?)?;
            let element = narrow_from(Format::F32, to, variant)?;
            build(pair_of_sources(element, width))
        }
        "cvt.f16x2-from-fp6-fp4-pair" => {
            let (from, width) = fp6_fp4(variant.ty(Slot::Atype)?)?;
            let element = widen_to_f16(from, variant.has(Slot::Relu));
            build(pair_in_place(element, width, 16))
        }
        "cvt.ue8m0x2-from-f32" => {
            let element = to_ue8m0(Format::F32, variant)?;
            build(pair_of_sources(element, 8))
        }
        "cvt.ue8m0x2-from-bf16x2" => {
            let element = to_ue8m0(Format::BF16, variant)?;
            build(pair_in_place(element, 16, 8))
        }
        "cvt.bf16x2-from-ue8m0x2" => {
            let element = FloatConvert::new(Format::UE8M0, Format::BF16, Rounding::NearestEven);
            build(pair_in_place(element, 8, 16))
        }
        "cvt.pack" | "cvt.pack-into" => build(pack(variant)?),
        _ => None,
    }
}

type Function = Box<dyn Fn(&[Bits], &mut [Bits]) + Send + Sync>;

/// An element conversion: source element bits in, destination bits out.
trait Element: Copy + Send + Sync + 'static {
    fn apply(&self, bits: u64) -> u64;
}

/// `d = convert(a) << width | convert(b)`: two sources, the first high.
fn pair_of_sources(element: impl Element, width: u32) -> Function {
    Box::new(move |s, d| d[0] = (element.apply(s[0]) << width) | element.apply(s[1]))
}

/// One packed source of two `from`-bit elements to one packed destination
/// of two `to`-bit elements, the high element to the high half.
fn pair_in_place(element: impl Element, from: u32, to: u32) -> Function {
    let mask = (1u64 << from) - 1;
    Box::new(move |s, d| {
        let high = element.apply((s[0] >> from) & mask);
        let low = element.apply(s[0] & mask);
        d[0] = (high << to) | low;
    })
}

fn fp8(ty: PtxType) -> Option<Format> {
    match ty {
        PtxType::E4m3x2 => Some(Format::E4M3),
        PtxType::E5m2x2 => Some(Format::E5M2),
        _ => None,
    }
}

/// The element format of an fp6/fp4 pair and the bits each element takes
/// in the register (fp6 elements sit in their own byte, top 2 bits zero).
fn fp6_fp4(ty: PtxType) -> Option<(Format, u32)> {
    match ty {
        PtxType::E2m1x2 => Some((Format::E2M1, 4)),
        PtxType::E2m3x2 => Some((Format::E2M3, 8)),
        PtxType::E3m2x2 => Some((Format::E3M2, 8)),
        _ => None,
    }
}

fn float_format(ty: PtxType) -> Option<Format> {
    match ty {
        PtxType::F16 => Some(Format::F16),
        PtxType::Bf16 => Some(Format::BF16),
        PtxType::F32 => Some(Format::F32),
        PtxType::F64 => Some(Format::F64),
        _ => None,
    }
}

// ------------------------------------------------------------ float -> float

/// How a conversion clamps its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clamp {
    None,
    /// `.relu`: negative (and `-0`) to `+0`; NaN to the canonical NaN.
    Relu,
    /// `.sat`: to `[+0, 1]`; NaN to `+0`.
    Unit,
}

/// What a NaN source becomes (before `.relu`/`.sat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NanOut {
    /// These exact bits (a canonical NaN).
    Bits(u64),
    /// Sign and top payload bits kept, quiet bit set (conversions from or
    /// to f64, and f64 rounding to integral).
    Payload,
    /// bf16 -> f32: the bits move up unchanged (a signaling NaN stays one).
    Shift,
}

/// A float-to-float conversion with all its options decided.
#[derive(Debug, Clone, Copy)]
struct FloatConvert {
    from: Format,
    to: Format,
    rounding: Rounding,
    options: RoundOptions,
    /// `.ftz` on an f32 source.
    flush_input: bool,
    clamp: Clamp,
    nan: NanOut,
    /// Same-type `cvt.{irnd}`: round to an integral value.
    integral: bool,
    /// A plain same-type `cvt`: the bits move unchanged.
    identity: bool,
    /// The fast bit-level path for this conversion, if there is one.
    fast: Option<Fast>,
}

impl FloatConvert {
    /// A plain conversion: canonical NaN, no clamping, no flushing.
    fn new(from: Format, to: Format, rounding: Rounding) -> FloatConvert {
        FloatConvert {
            from,
            to,
            rounding,
            options: RoundOptions::default(),
            flush_input: false,
            clamp: Clamp::None,
            nan: NanOut::Bits(canonical_nan(to)),
            integral: false,
            identity: false,
            fast: None,
        }
    }

    /// Decides the fast path once all fields are set.
    fn with_fast_path(mut self) -> FloatConvert {
        self.fast = Fast::new(&self);
        self
    }

    /// The softfloat path (the reference the fast path is tested against).
    fn slow(&self, bits: u64) -> u64 {
        let mut bits = bits & self.from.register_mask();
        if self.identity {
            return bits;
        }
        if self.flush_input {
            bits = self.from.flush_subnormal(bits);
        }
        let mut value = softfloat::decode(self.from, bits);
        if value.is_nan() {
            return match self.clamp {
                Clamp::Unit => self.to.zero(false),
                Clamp::Relu => canonical_nan(self.to),
                Clamp::None => match self.nan {
                    NanOut::Bits(nan) => nan,
                    NanOut::Shift => bits << (self.to.width() - self.from.width()),
                    NanOut::Payload => softfloat::round(
                        self.to,
                        value,
                        self.rounding,
                        RoundOptions {
                            keep_nan_payload: true,
                            ..self.options
                        },
                    ),
                },
            };
        }
        if self.integral {
            value = softfloat::round_to_integral(value, self.rounding);
        }
        match self.clamp {
            Clamp::None => {}
            Clamp::Relu => {
                if value.negative() {
                    value = Exact::Zero { negative: false };
                }
            }
            Clamp::Unit => {
                let one = Exact::integer(false, 1);
                if value.negative() {
                    value = Exact::Zero { negative: false };
                } else if value.cmp_magnitude(one) == Some(std::cmp::Ordering::Greater) {
                    value = one;
                }
            }
        }
        softfloat::round(self.to, value, self.rounding, self.options)
    }
}

impl Element for FloatConvert {
    #[inline]
    fn apply(&self, bits: u64) -> u64 {
        if let Some(fast) = &self.fast
            && let Some(result) = fast.apply(bits as u32)
        {
            return result as u64;
        }
        self.slow(bits)
    }
}

/// The canonical NaN a conversion produces in `to` (all bits but the
/// sign: f32 `0x7fffffff`, f16/bf16 `0x7fff`, tf32 `0x7fffe000`, e4m3 and
/// e5m2 `0x7f`; formats without NaN: `+MAX_NORM`).
fn canonical_nan(to: Format) -> u64 {
    to.canonical_nan().unwrap_or(to.max_finite(false))
}

/// The narrowing pair/tf32 forms: `rnd`, `.relu`, `.satfinite` slots.
fn narrow_from(from: Format, to: Format, variant: &Modifiers) -> Option<FloatConvert> {
    let rounding = Rounding::from_ptx(variant.get(Slot::Rnd)?)?;
    let mut convert = FloatConvert::new(from, to, rounding);
    convert.options.saturate_finite = variant.has(Slot::Satfinite);
    if variant.has(Slot::Relu) {
        convert.clamp = Clamp::Relu;
    }
    Some(convert.with_fast_path())
}

/// fp8/fp6/fp4 elements to f16 (exact); NaN gives `0x7fff`.
fn widen_to_f16(from: Format, relu: bool) -> FloatConvert {
    let mut convert = FloatConvert::new(from, Format::F16, Rounding::NearestEven);
    if relu {
        convert.clamp = Clamp::Relu;
    }
    convert
}

/// f32/bf16 magnitudes to ue8m0 (`.rz`/`.rp`, `.satfinite`).
fn to_ue8m0(from: Format, variant: &Modifiers) -> Option<FloatConvert> {
    let rounding = Rounding::from_ptx(variant.get(Slot::Rnd)?)?;
    let mut convert = FloatConvert::new(from, Format::UE8M0, rounding);
    convert.options.saturate_finite = variant.has(Slot::Satfinite);
    Some(convert)
}

/// `cvt.rna{.satfinite}.tf32.f32` as sm_90 computes it: a finite input
/// rounds half away from zero (`(x + 0x1000) & !0x1fff`, carrying into
/// infinity), an infinity or NaN is truncated (`x & !0x1fff`: a NaN whose
/// payload is only in the low 13 bits becomes an infinity), and
/// `.satfinite` then steps any all-ones exponent down by one tf32 unit
/// (infinity to MAX_NORM, and a NaN to the NaN just below it).
#[derive(Debug, Clone, Copy)]
struct Tf32Rna {
    saturate: bool,
}

impl Element for Tf32Rna {
    #[inline]
    fn apply(&self, bits: u64) -> u64 {
        let x = bits as u32;
        let special = x & 0x7f80_0000 == 0x7f80_0000;
        let y = if special { x } else { x.wrapping_add(0x1000) } & 0xffff_e000;
        let y = if self.saturate && y & 0x7f80_0000 == 0x7f80_0000 {
            y - 0x2000
        } else {
            y
        };
        y as u64
    }
}

// ---------------------------------------------------------------- cvt.scalar

fn scalar(variant: &Modifiers) -> Option<Function> {
    let dtype = variant.ty(Slot::Dtype)?;
    let atype = variant.ty(Slot::Atype)?;
    let rnd = variant.get(Slot::Rnd);
    let ftz = variant.has(Slot::Ftz);
    let sat = variant.has(Slot::Sat);
    let dst_bits = dtype.carrier_bits() as u32;
    let src_bits = atype.carrier_bits() as u32;
    match (float_format(dtype), float_format(atype)) {
        (None, None) => {
            let convert = IntToInt {
                src_signed: atype.is_signed_int(),
                src_bits,
                dst_signed: dtype.is_signed_int(),
                dst_bits,
                saturate: sat,
            };
            Some(unary(convert))
        }
        (None, Some(from)) => {
            let nan = if from == Format::F64 || dst_bits == 64 {
                1u64 << (dst_bits - 1)
            } else {
                0
            };
            let convert = FloatToInt {
                from,
                flush_input: ftz && from == Format::F32,
                rounding: Rounding::from_ptx(rnd?)?,
                signed: dtype.is_signed_int(),
                bits: dst_bits,
                nan,
            };
            Some(unary(convert))
        }
        (Some(to), None) => {
            let convert = IntToFloat {
                signed: atype.is_signed_int(),
                bits: src_bits,
                to,
                rounding: Rounding::from_ptx(rnd?)?,
                options: RoundOptions {
                    flush_subnormal_output: ftz && to == Format::F32,
                    ..RoundOptions::default()
                },
                unit: sat,
            };
            Some(unary(convert))
        }
        (Some(to), Some(from)) => Some(unary(scalar_float(variant, from, to)?)),
    }
}

/// A scalar float-to-float `cvt` variant's conversion.
fn scalar_float(variant: &Modifiers, from: Format, to: Format) -> Option<FloatConvert> {
    let rnd = variant.get(Slot::Rnd);
    let ftz = variant.has(Slot::Ftz);
    let sat = variant.has(Slot::Sat);
    let rounding = match rnd {
        Some(token) => Rounding::from_ptx(token)?,
        None => Rounding::NearestEven,
    };
    let mut convert = FloatConvert::new(from, to, rounding);
    // sm_90 keeps f32 subnormal inputs of f16 <- f32 (`cvt.rp.ftz.f16.f32`
    // of the smallest subnormal gives 0x0001): only other destinations flush.
    convert.flush_input = ftz && from == Format::F32 && to != Format::F16;
    convert.options.flush_subnormal_output = ftz && to == Format::F32;
    convert.options.saturate_finite = variant.has(Slot::Satfinite);
    convert.integral = rnd.is_some_and(|r| r.ends_with('i'));
    convert.clamp = if sat {
        Clamp::Unit
    } else if variant.has(Slot::Relu) {
        Clamp::Relu
    } else {
        Clamp::None
    };
    // A plain f32/f64 same-type cvt is a move (NaN payloads included);
    // f16/bf16 ones compute (their NaNs become canonical).
    convert.identity =
        from == to && (to == Format::F32 || to == Format::F64) && rnd.is_none() && !ftz && !sat;
    convert.nan = scalar_nan(from, to, ftz);
    Some(convert.with_fast_path())
}

/// What a NaN source of a scalar float-to-float `cvt` gives (measured on
/// sm_90): anything involving f64 keeps the sign and payload (quieted);
/// bf16 -> f32 moves the bits (unless `.ftz`); f32 -> f64 under `.ftz`
/// widens the canonical f32 NaN; everything else gives the canonical NaN.
fn scalar_nan(from: Format, to: Format, ftz: bool) -> NanOut {
    if to == Format::F64 && from == Format::F32 && ftz {
        // The canonical f32 NaN, widened with its payload.
        NanOut::Bits(0x7fff_ffff_e000_0000)
    } else if to == Format::F64 || from == Format::F64 {
        NanOut::Payload
    } else if from == Format::BF16 && to == Format::F32 && !ftz {
        NanOut::Shift
    } else {
        NanOut::Bits(canonical_nan(to))
    }
}

fn unary(element: impl Element) -> Function {
    Box::new(move |s, d| d[0] = element.apply(s[0]))
}

/// Sign- or zero-extends the low `bits` of `value` to an i128.
fn extend(value: u64, bits: u32, signed: bool) -> i128 {
    let value = super::mask(value, bits as usize);
    if signed && bits < 64 && (value >> (bits - 1)) & 1 == 1 {
        value as i128 - (1i128 << bits)
    } else if signed && bits == 64 {
        value as i64 as i128
    } else {
        value as i128
    }
}

/// The inclusive range of an integer type.
fn int_range(signed: bool, bits: u32) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

#[derive(Debug, Clone, Copy)]
struct IntToInt {
    src_signed: bool,
    src_bits: u32,
    dst_signed: bool,
    dst_bits: u32,
    saturate: bool,
}

impl Element for IntToInt {
    fn apply(&self, bits: u64) -> u64 {
        let mut value = extend(bits, self.src_bits, self.src_signed);
        if self.saturate {
            let (lo, hi) = int_range(self.dst_signed, self.dst_bits);
            value = value.clamp(lo, hi);
        }
        super::mask(value as u64, self.dst_bits as usize)
    }
}

#[derive(Debug, Clone, Copy)]
struct FloatToInt {
    from: Format,
    flush_input: bool,
    rounding: Rounding,
    signed: bool,
    bits: u32,
    /// The result for a NaN source.
    nan: u64,
}

impl Element for FloatToInt {
    fn apply(&self, bits: u64) -> u64 {
        let mut bits = bits & self.from.register_mask();
        if self.flush_input {
            bits = self.from.flush_subnormal(bits);
        }
        let value = softfloat::decode(self.from, bits);
        let (lo, hi) = int_range(self.signed, self.bits);
        let result = match value {
            Exact::NaN { .. } => return self.nan,
            Exact::Infinity { negative } => {
                if negative {
                    lo
                } else {
                    hi
                }
            }
            _ => match softfloat::round_to_integer(value, self.rounding) {
                Some((negative, magnitude)) => {
                    // Magnitudes beyond i128 are far beyond every range.
                    let magnitude = magnitude.min(1u128 << 100) as i128;
                    let value = if negative { -magnitude } else { magnitude };
                    value.clamp(lo, hi)
                }
                None => 0,
            },
        };
        super::mask(result as u64, self.bits as usize)
    }
}

#[derive(Debug, Clone, Copy)]
struct IntToFloat {
    signed: bool,
    bits: u32,
    to: Format,
    rounding: Rounding,
    options: RoundOptions,
    /// `.sat`: clamp to `[0, 1]`.
    unit: bool,
}

impl Element for IntToFloat {
    fn apply(&self, bits: u64) -> u64 {
        let value = extend(bits, self.bits, self.signed);
        let value = if self.unit { value.clamp(0, 1) } else { value };
        let exact = Exact::integer(value < 0, value.unsigned_abs());
        softfloat::round(self.to, exact, self.rounding, self.options)
    }
}

// ------------------------------------------------------------------ cvt.pack

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c`:
/// `d = c << 2n | sat(a) << n | sat(b)` (the 16-bit forms have no `c`).
fn pack(variant: &Modifiers) -> Option<Function> {
    let token = variant.get(Slot::Convert)?;
    let signed = token.starts_with('s');
    let size: u32 = token[1..].parse().ok()?;
    let (lo, hi) = int_range(signed, size);
    let field = (1u64 << size) - 1;
    let clamp = move |x: u64| ((x as u32 as i32 as i128).clamp(lo, hi) as u64) & field;
    if size == 16 {
        Some(Box::new(move |s, d| {
            d[0] = (clamp(s[0]) << 16) | clamp(s[1]);
        }))
    } else {
        Some(Box::new(move |s, d| {
            let packed = (clamp(s[0]) << size) | clamp(s[1]);
            d[0] = ((s[2] << (2 * size)) | packed) & 0xffff_ffff;
        }))
    }
}

// ------------------------------------------------------------- the fast path

/// A bit-level f32 -> {f16, bf16, tf32, e4m3, e5m2} conversion of the
/// finite, non-flushed, non-integral cases (the rest, `None`, go to the
/// softfloat path, which the tests prove it equal to on every input).
///
/// The magnitude is rounded as one integer: the destination's biased
/// exponent minus one, shifted over its fraction, plus the significand
/// (hidden bit included) shifted right by the dropped bits, so a rounding
/// carry walks into the exponent (and into infinity) by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fast {
    /// Destination fraction bits.
    fraction_bits: u32,
    /// f32 bias minus the destination's bias.
    rebias: i32,
    /// The largest finite magnitude's bits (unshifted).
    max_finite: u32,
    /// What a positive / negative overflow gives (magnitude bits, unshifted).
    overflow: [u32; 2],
    /// Destination sign bit position.
    sign_shift: u32,
    /// Output shift (tf32: 13).
    shift: u32,
    rounding: Rounding,
    relu: bool,
}

impl Fast {
    fn new(c: &FloatConvert) -> Option<Fast> {
        let to = c.to;
        let supported = c.from == Format::F32
            && [
                Format::F16,
                Format::BF16,
                Format::TF32,
                Format::E4M3,
                Format::E5M2,
            ]
            .contains(&to)
            && !c.flush_input
            && !c.options.flush_subnormal_output
            && !c.integral
            && !c.identity
            && c.clamp != Clamp::Unit;
        if !supported {
            return None;
        }
        let magnitude = |bits: u64| ((bits & !to.sign_mask()) >> to.shift) as u32;
        let overflow = |negative: bool| {
            let to_infinity = match c.rounding {
                Rounding::NearestEven | Rounding::NearestAway => true,
                Rounding::TowardZero => false,
                Rounding::Up => !negative,
                Rounding::Down => negative,
            };
            if c.options.saturate_finite || !to_infinity {
                Some(to.max_finite(false))
            } else {
                to.infinity(false).or(to.canonical_nan())
            }
        };
        Some(Fast {
            fraction_bits: to.fraction_bits,
            rebias: 127 - to.bias,
            max_finite: magnitude(to.max_finite(false)),
            overflow: [magnitude(overflow(false)?), magnitude(overflow(true)?)],
            sign_shift: to.exponent_bits + to.fraction_bits,
            shift: to.shift,
            rounding: c.rounding,
            relu: c.clamp == Clamp::Relu,
        })
    }

    /// The result, or `None` for the cases left to the softfloat path
    /// (NaN, infinity, `.relu` of a negative). Branch-free on the data
    /// otherwise (random inputs would mispredict every data branch).
    #[inline]
    fn apply(&self, x: u32) -> Option<u32> {
        let negative = x >> 31;
        let abs = x & 0x7fff_ffff;
        if ((abs >= 0x7f80_0000) as u32 | (negative & self.relu as u32)) != 0 {
            return None;
        }
        let field = (abs >> 23) as i32;
        let subnormal = (field == 0) as i32;
        let significand = (abs & 0x7f_ffff) | (((1 - subnormal) as u32) << 23);
        // The destination's biased exponent (f32 subnormals count as field 1).
        let exponent = field + subnormal - self.rebias;
        // Below the normal range: drop more bits, capped at 31 (the
        // significand has 24 bits, so that still leaves a sticky remainder).
        let below = 1 - exponent;
        let extra = below & !(below >> 31);
        let over_cap = (23 - self.fraction_bits) as i32 + extra - 31;
        let drop = (31 + (over_cap & (over_cap >> 31))) as u32;
        let above = exponent - 1;
        let base = ((above & !(above >> 31)) as u32) << self.fraction_bits;
        let half = 1u32 << (drop - 1);
        let all = (half << 1).wrapping_sub(1);
        let addend = match self.rounding {
            Rounding::NearestEven => half - 1 + ((significand >> drop) & 1),
            Rounding::NearestAway => half,
            Rounding::TowardZero => 0,
            Rounding::Up => all & negative.wrapping_sub(1),
            Rounding::Down => all & negative.wrapping_neg(),
        };
        let rounded = ((significand as u64 + addend as u64) >> drop) as u32;
        let magnitude = base + rounded;
        let magnitude = std::hint::select_unpredictable(
            magnitude > self.max_finite,
            self.overflow[(negative & 1) as usize],
            magnitude,
        );
        Some(((negative << self.sign_shift) | magnitude) << self.shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tile_kernel_lowering::ptx::resolve;
    use tile_kernel_testkit::Rng;

    /// The cvt variant an opcode names (panics if it is not legal).
    fn variant(opcode: &str) -> Modifiers {
        resolve(opcode)
            .unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
            .into_iter()
            .find(|m| m.form.id.starts_with("cvt"))
            .unwrap_or_else(|| panic!("{opcode}: not a cvt form"))
    }

    fn run(opcode: &str, sources: &[u64]) -> u64 {
        let v = variant(opcode);
        let c = compute(&v).unwrap_or_else(|| panic!("{opcode}: no semantics"));
        assert_eq!(c.inputs(), sources.len(), "{opcode}");
        let mut out = vec![0; c.outputs()];
        c.run(sources, &mut out);
        out[0]
    }

    /// Inputs biased toward the edges of the formats, drawn from the
    /// test kit's seeded [`Rng`].
    trait EdgeBits {
        fn f32_bits(&mut self) -> u32;
    }

    impl EdgeBits for Rng {
        /// f32 bits with specials, subnormals, extremes and near-ties.
        fn f32_bits(&mut self) -> u32 {
            let r = self.next_u64();
            let sign = ((r >> 63) as u32) << 31;
            let bits = match r % 8 {
                0 => [
                    0,
                    1,
                    0x7f_ffff,
                    0x80_0000,
                    0x7f7f_ffff,
                    0x7f80_0000,
                    0x3f80_0000,
                    0x7fc0_0000,
                ][(r >> 8) as usize % 8],
                1 => (r >> 8) as u32 & 0x7f_ffff,
                2 => ((r >> 8) as u32 % 64 + 0x50) << 23 | (r >> 40) as u32 & 0x7f_ffff,
                3 => ((r >> 8) as u32 % 40 + 0x60) << 23 | ((r >> 40) as u32 & 0x7f_e000) | 0x1000,
                4 => {
                    (((r >> 8) as u32 % 64 + 0x50) << 23) | ((r >> 40) as u32 & 0x7f_0000) | 0x8000
                }
                5 => 0x7f80_0000 | (r >> 8) as u32,
                _ => (r >> 16) as u32,
            };
            bits | sign
        }
    }

    fn b(x: f32) -> u64 {
        x.to_bits() as u64
    }

    fn b64(x: f64) -> u64 {
        x.to_bits()
    }

    fn all_cvt_variants() -> Vec<Modifiers> {
        use tile_kernel_lowering::ptx::resolve::legal_variants;
        use tile_kernel_lowering::ptx::table::FORMS;
        FORMS
            .iter()
            .filter(|f| f.mnemonic.starts_with("cvt"))
            .flat_map(legal_variants)
            .collect()
    }

    #[test]
    fn every_cvt_variant_is_total_and_masked() {
        let variants = all_cvt_variants();
        assert!(variants.len() > 300, "{}", variants.len());
        let mut rng = Rng::new(1);
        for v in &variants {
            let c = compute(v).unwrap_or_else(|| panic!("{}: no semantics", v.opcode_text()));
            let ops = v.operands();
            let widths: Vec<u32> = ops
                .iter()
                .filter(|o| o.access == tile_kernel_lowering::ptx::Access::Read)
                .map(|o| o.ty.carrier_bits() as u32)
                .collect();
            let out_bits = ops[0].ty.carrier_bits();
            let mut out = vec![0; c.outputs()];
            for i in 0..3000 {
                let sources: Vec<u64> = widths
                    .iter()
                    .map(|&w| {
                        let x = match i % 3 {
                            0 => rng.f32_bits() as u64,
                            1 => rng.next_u64(),
                            _ => rng.next_u64() >> (rng.next_u64() % 64),
                        };
                        if i % 7 == 0 {
                            x
                        } else {
                            super::super::mask(x, w as usize)
                        }
                    })
                    .collect();
                c.run(&sources, &mut out);
                assert_eq!(
                    out[0],
                    super::super::mask(out[0], out_bits),
                    "{} {sources:x?}",
                    v.opcode_text()
                );
            }
        }
    }

    #[test]
    fn f32_to_half_matches_half_crate() {
        let mut rng = Rng::new(2);
        let to_f16 = compute(&variant("cvt.rn.f16.f32")).unwrap();
        let to_bf16 = compute(&variant("cvt.rn.bf16.f32")).unwrap();
        let pair = compute(&variant("cvt.rn.f16x2.f32")).unwrap();
        let bpair = compute(&variant("cvt.rn.bf16x2.f32")).unwrap();
        let mut d = [0];
        for _ in 0..300_000 {
            let (x, y) = (rng.f32_bits(), rng.f32_bits());
            let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
            let want = |h: u16, f: f32| if f.is_nan() { 0x7fff } else { h as u64 };
            let hx = want(half::f16::from_f32(fx).to_bits(), fx);
            let hy = want(half::f16::from_f32(fy).to_bits(), fy);
            to_f16.run(&[x as u64], &mut d);
            assert_eq!(d[0], hx, "{x:#x}");
            pair.run(&[x as u64, y as u64], &mut d);
            assert_eq!(d[0], hx << 16 | hy, "{x:#x} {y:#x}");
            let bx = want(half::bf16::from_f32(fx).to_bits(), fx);
            let by = want(half::bf16::from_f32(fy).to_bits(), fy);
            to_bf16.run(&[x as u64], &mut d);
            assert_eq!(d[0], bx, "{x:#x}");
            bpair.run(&[x as u64, y as u64], &mut d);
            assert_eq!(d[0], bx << 16 | by, "{x:#x} {y:#x}");
        }
    }

    #[test]
    fn half_to_wider_matches_half_crate() {
        let f32_from_f16 = compute(&variant("cvt.f32.f16")).unwrap();
        let f64_from_f16 = compute(&variant("cvt.f64.f16")).unwrap();
        let f32_from_bf16 = compute(&variant("cvt.f32.bf16")).unwrap();
        let f64_from_bf16 = compute(&variant("cvt.f64.bf16")).unwrap();
        let mut d = [0];
        for h in 0..=u16::MAX {
            let (x, y) = (half::f16::from_bits(h), half::bf16::from_bits(h));
            // NaNs (measured on sm_90): f16 -> f32 canonical, bf16 -> f32
            // the bits moved up, to f64 sign and payload kept, quieted.
            let sign = (h as u64 >> 15) << 63;
            let quiet = 0x7ff8_0000_0000_0000;
            let cases = [
                (
                    &f32_from_f16,
                    if x.is_nan() {
                        0x7fff_ffff
                    } else {
                        b(x.to_f32())
                    },
                ),
                (
                    &f64_from_f16,
                    if x.is_nan() {
                        sign | quiet | (h as u64 & 0x3ff) << 42
                    } else {
                        b64(x.to_f64())
                    },
                ),
                (
                    &f32_from_bf16,
                    if y.is_nan() {
                        (h as u64) << 16
                    } else {
                        b(y.to_f32())
                    },
                ),
                (
                    &f64_from_bf16,
                    if y.is_nan() {
                        sign | quiet | (h as u64 & 0x7f) << 45
                    } else {
                        b64(y.to_f64())
                    },
                ),
            ];
            for (c, want) in cases {
                c.run(&[h as u64], &mut d);
                assert_eq!(d[0], want, "{h:#x}");
            }
        }
    }

    #[test]
    fn fp8_matches_float8_crate() {
        // float8 ports CUDA's cuda_fp8.hpp reference conversions (satfinite,
        // rn), NaN signs and payloads included.
        let mut rng = Rng::new(3);
        let mut d = [0];
        for (dst, want8) in [
            (
                "e4m3x2",
                (|x: f32| float8::F8E4M3::from_f32(x).to_bits()) as fn(f32) -> u8,
            ),
            ("e5m2x2", |x: f32| float8::F8E5M2::from_f32(x).to_bits()),
        ] {
            let from_f32 = compute(&variant(&format!("cvt.rn.satfinite.{dst}.f32"))).unwrap();
            let from_f16x2 = compute(&variant(&format!("cvt.rn.satfinite.{dst}.f16x2"))).unwrap();
            // float8 keeps a NaN's sign (and e5m2 payload bits) like
            // cuda_fp8.hpp's host code; sm_90 gives the positive 0x7f.
            let want8 = |x: f32| if x.is_nan() { 0x7f } else { want8(x) };
            for i in 0..300_000u32 {
                let (x, y) = (rng.f32_bits(), rng.f32_bits());
                let want = (want8(f32::from_bits(x)) as u64) << 8 | want8(f32::from_bits(y)) as u64;
                from_f32.run(&[x as u64, y as u64], &mut d);
                assert_eq!(d[0], want, "{dst} {x:#x} {y:#x}");
                let h = (i & 0xffff) | (rng.next_u64() as u32) << 16;
                let (hi, lo) = (
                    half::f16::from_bits((h >> 16) as u16),
                    half::f16::from_bits(h as u16),
                );
                let want = (want8(hi.to_f32()) as u64) << 8 | want8(lo.to_f32()) as u64;
                from_f16x2.run(&[h as u64], &mut d);
                assert_eq!(d[0], want, "{dst} f16x2 {h:#x}");
            }
        }
        let widen_e4m3 = compute(&variant("cvt.rn.f16x2.e4m3x2")).unwrap();
        let widen_e5m2 = compute(&variant("cvt.rn.f16x2.e5m2x2")).unwrap();
        for pair in 0..=u16::MAX {
            let (hi, lo) = ((pair >> 8) as u8, pair as u8);
            let e4 = |x: u8| float8::F8E4M3::from_bits(x).to_f16().to_bits() as u64;
            let e5 = |x: u8| float8::F8E5M2::from_bits(x).to_f16().to_bits() as u64;
            widen_e4m3.run(&[pair as u64], &mut d);
            assert_eq!(d[0], e4(hi) << 16 | e4(lo), "{pair:#x}");
            widen_e5m2.run(&[pair as u64], &mut d);
            assert_eq!(d[0], e5(hi) << 16 | e5(lo), "{pair:#x}");
        }
    }

    /// Every variant with a fast path agrees with the softfloat path.
    fn fast_variants() -> Vec<(String, FloatConvert)> {
        let mut out = Vec::new();
        for v in all_cvt_variants() {
            let convert = match v.form.id {
                "cvt.scalar" if v.ty(Slot::Atype) == Some(PtxType::F32) => {
                    let Some(to) = v.ty(Slot::Dtype).and_then(float_format) else {
                        continue;
                    };
                    scalar_float(&v, Format::F32, to).unwrap()
                }
                "cvt.half-pair-from-f32" => {
                    let to = if v.ty(Slot::Dtype) == Some(PtxType::F16x2) {
                        Format::F16
                    } else {
                        Format::BF16
                    };
                    narrow_from(Format::F32, to, &v).unwrap()
                }
                "cvt.tf32" if v.get(Slot::Rnd) != Some("rna") => {
                    narrow_from(Format::F32, Format::TF32, &v).unwrap()
                }
                "cvt.fp8-pair-from-f32" => {
                    narrow_from(Format::F32, fp8(v.ty(Slot::Dtype).unwrap()).unwrap(), &v).unwrap()
                }
                _ => continue,
            };
            if convert.fast.is_some() {
                out.push((v.opcode_text(), convert));
            }
        }
        out
    }

    #[test]
    fn fast_path_equals_softfloat_path() {
        let variants = fast_variants();
        // f16/bf16 scalar and pair (rn, rz, relu, satfinite), tf32, e4m3/e5m2 pairs.
        assert!(variants.len() >= 30, "{}", variants.len());
        let mut rng = Rng::new(4);
        for (name, c) in &variants {
            for i in 0..100_000u32 {
                let x = if i < 70_000 {
                    rng.f32_bits()
                } else {
                    rng.next_u64() as u32
                };
                assert_eq!(c.apply(x as u64), c.slow(x as u64), "{name} {x:#x}");
            }
        }
    }

    /// `cvt.rna.tf32.f32` (integer rounding) equals softfloat's ties-away
    /// rounding on finite inputs, with or without `.satfinite`.
    fn check_tf32_rna(x: u32) {
        let finite = x & 0x7f80_0000 != 0x7f80_0000;
        if !finite {
            return;
        }
        for saturate in [false, true] {
            let mut reference = FloatConvert::new(Format::F32, Format::TF32, Rounding::NearestAway);
            reference.options.saturate_finite = saturate;
            assert_eq!(
                Tf32Rna { saturate }.apply(x as u64),
                reference.slow(x as u64),
                "{x:#x} {saturate}"
            );
        }
    }

    #[test]
    fn tf32_rna_equals_softfloat_on_finite_inputs() {
        let mut rng = Rng::new(9);
        for _ in 0..300_000 {
            check_tf32_rna(rng.f32_bits());
            check_tf32_rna(rng.next_u64() as u32);
        }
    }

    /// All 2^32 inputs of every fast-path variant (release mode:
    /// `cargo test --release -p tile-kernel-interp -- --ignored fast_path`).
    #[test]
    #[ignore]
    fn fast_path_equals_softfloat_path_exhaustively() {
        // One variant per distinct fast path (the scalar and pair forms share them).
        let variants = fast_variants();
        let mut distinct: Vec<(String, FloatConvert)> = Vec::new();
        for (name, c) in variants {
            if !distinct
                .iter()
                .any(|(_, d)| d.fast == c.fast && d.to == c.to && d.nan == c.nan)
            {
                distinct.push((name, c));
            }
        }
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
        let span = (1u64 << 32) / threads;
        std::thread::scope(|scope| {
            for t in 0..threads {
                let distinct = &distinct;
                scope.spawn(move || {
                    for (name, c) in distinct {
                        for x in t * span..(t + 1) * span {
                            assert_eq!(c.apply(x), c.slow(x), "{name} {x:#x}");
                        }
                    }
                    for x in t * span..(t + 1) * span {
                        check_tf32_rna(x as u32);
                    }
                });
            }
        });
        println!(
            "{} distinct fast paths checked on all 2^32 inputs",
            distinct.len()
        );
    }

    /// Prints nanoseconds per conversion of the hot variants (release mode:
    /// `cargo test --release -p tile-kernel-interp -- --ignored --nocapture speed`).
    #[test]
    #[ignore]
    fn speed() {
        let mut rng = Rng::new(5);
        let sequential = std::env::var("SPEED_SEQUENTIAL").is_ok();
        let inputs: Vec<u64> = (0..1u64 << 20)
            .map(|i| {
                if sequential {
                    i * 4093
                } else {
                    rng.next_u64() as u32 as u64
                }
            })
            .collect();
        // Baseline: the `half` crate's conversion over the same inputs.
        let start = std::time::Instant::now();
        let mut sum = 0u64;
        for _ in 0..8 {
            for &x in &inputs {
                sum = sum
                    .wrapping_add(half::f16::from_f32(f32::from_bits(x as u32)).to_bits() as u64);
            }
        }
        let per = start.elapsed().as_nanos() as f64 / (8 * inputs.len()) as f64;
        println!(
            "{:32} {per:6.2} ns/element ({sum:x})",
            "baseline half::f16::from_f32"
        );
        let direct = scalar_float(&variant("cvt.rn.f16.f32"), Format::F32, Format::F16).unwrap();
        let start = std::time::Instant::now();
        for _ in 0..8 {
            for &x in &inputs {
                sum = sum.wrapping_add(direct.apply(x));
            }
        }
        let per = start.elapsed().as_nanos() as f64 / (8 * inputs.len()) as f64;
        println!(
            "{:32} {per:6.2} ns/element ({sum:x})",
            "FloatConvert::apply f16"
        );
        let start = std::time::Instant::now();
        for _ in 0..8 {
            for &x in &inputs {
                sum = sum.wrapping_add(direct.slow(x));
            }
        }
        let per = start.elapsed().as_nanos() as f64 / (8 * inputs.len()) as f64;
        println!(
            "{:32} {per:6.2} ns/element ({sum:x})",
            "FloatConvert::slow f16"
        );
        for opcode in [
            "cvt.rn.f16.f32",
            "cvt.rn.bf16.f32",
            "cvt.rz.f16.f32",
            "cvt.rna.tf32.f32",
            "cvt.rn.satfinite.tf32.f32",
            "cvt.rn.f16x2.f32",
            "cvt.rn.bf16x2.f32",
            "cvt.rn.satfinite.e4m3x2.f32",
            "cvt.rn.satfinite.e5m2x2.f32",
            "cvt.rn.satfinite.e4m3x2.f16x2",
            "cvt.f32.f16",
            "cvt.rn.f32.f64",
            "cvt.rzi.s32.f32",
            "cvt.rn.f32.s32",
        ] {
            let c = compute(&variant(opcode)).unwrap();
            let mut d = [0];
            let mut sum = 0u64;
            let start = std::time::Instant::now();
            let rounds = 8;
            for _ in 0..rounds {
                for pair in inputs.chunks(2) {
                    c.run(&pair[..c.inputs()], &mut d);
                    sum = sum.wrapping_add(d[0]);
                }
            }
            let per = start.elapsed().as_nanos() as f64 / (rounds * inputs.len() / 2) as f64;
            // Per element: pair forms convert two values per run.
            let elements = if c.inputs() == 2 || opcode.ends_with("x2") {
                2.0
            } else {
                1.0
            };
            println!(
                "{opcode:32} {:6.2} ns/run {:6.2} ns/element ({sum:x})",
                per,
                per / elements
            );
        }
    }

    /// `(opcode, sources, expected destination)`.
    fn check(cases: &[(&str, &[u64], u64)]) {
        for &(opcode, sources, want) in cases {
            let got = run(opcode, sources);
            assert_eq!(
                got, want,
                "{opcode} {sources:#x?}: got {got:#x}, want {want:#x}"
            );
        }
    }

    const NAN: u64 = 0x7fc0_0001;
    const NEG_NAN: u64 = 0xffc0_0001;
    const INF: u64 = 0x7f80_0000;
    const NEG_INF: u64 = 0xff80_0000;

    /// `(opcode, sources, destination)` measured on an H200 (sm_90, CUDA 13.0
    /// ptxas) with inline PTX: NaN encodings, `.ftz`, `.sat`, `.relu`,
    /// `.satfinite`, tf32 and fp8 edge cases. Destinations wider than the
    /// type (an `.s8` result in a 32-bit register) are masked to the carrier.
    const MEASURED_SM90: &[(&str, &[u64], u64)] = &[
        ("cvt.rzi.s32.f32", &[0x7fc00000], 0x0),
        ("cvt.rzi.s32.f32", &[0xffc00000], 0x0),
        ("cvt.rzi.s32.f32", &[0x7f800001], 0x0),
        ("cvt.rzi.s32.f32", &[0xffa00001], 0x0),
        ("cvt.rzi.s32.f32", &[0x7fa00000], 0x0),
        ("cvt.rzi.s32.f32", &[0x7f800000], 0x7fffffff),
        ("cvt.rzi.u32.f32", &[0x7fc00000], 0x0),
        ("cvt.rzi.u32.f32", &[0xffc00000], 0x0),
        ("cvt.rzi.u32.f32", &[0x7f800001], 0x0),
        ("cvt.rzi.u32.f32", &[0xffa00001], 0x0),
        ("cvt.rzi.u32.f32", &[0x7fa00000], 0x0),
        ("cvt.rzi.u32.f32", &[0xbf800000], 0x0),
        ("cvt.rzi.s64.f32", &[0x7fc00000], 0x8000000000000000),
        ("cvt.rzi.s64.f32", &[0xffc00000], 0x8000000000000000),
        ("cvt.rzi.s64.f32", &[0x7f800001], 0x8000000000000000),
        ("cvt.rzi.s64.f32", &[0xffa00001], 0x8000000000000000),
        ("cvt.rzi.s64.f32", &[0x7fa00000], 0x8000000000000000),
        ("cvt.rzi.u64.f32", &[0x7fc00000], 0x8000000000000000),
        ("cvt.rzi.u64.f32", &[0xffc00000], 0x8000000000000000),
        ("cvt.rzi.u64.f32", &[0x7f800001], 0x8000000000000000),
        ("cvt.rzi.u64.f32", &[0xffa00001], 0x8000000000000000),
        ("cvt.rzi.u64.f32", &[0x7fa00000], 0x8000000000000000),
        ("cvt.rzi.s16.f32", &[0x7fc00000], 0x0),
        ("cvt.rzi.s16.f32", &[0xffc00000], 0x0),
        ("cvt.rzi.s16.f32", &[0x7f800001], 0x0),
        ("cvt.rzi.s16.f32", &[0xffa00001], 0x0),
        ("cvt.rzi.s16.f32", &[0x7fa00000], 0x0),
        ("cvt.rzi.u8.f32", &[0x7fc00000], 0x0),
        ("cvt.rzi.u8.f32", &[0xffc00000], 0x0),
        ("cvt.rzi.u8.f32", &[0x7f800001], 0x0),
        ("cvt.rzi.u8.f32", &[0xffa00001], 0x0),
        ("cvt.rzi.u8.f32", &[0x7fa00000], 0x0),
        ("cvt.rzi.s8.f32", &[0x7fc00000], 0x0),
        ("cvt.rzi.s8.f32", &[0xffc00000], 0x0),
        ("cvt.rzi.s8.f32", &[0x7f800001], 0x0),
        ("cvt.rzi.s8.f32", &[0xffa00001], 0x0),
        ("cvt.rzi.s8.f32", &[0x7fa00000], 0x0),
        ("cvt.rzi.s32.f64", &[0x7ff8000000000000], 0x80000000),
        ("cvt.rzi.s32.f64", &[0xfff8000000000000], 0x80000000),
        ("cvt.rzi.s32.f64", &[0x7ff0000000000001], 0x80000000),
        ("cvt.rzi.u32.f64", &[0x7ff8000000000000], 0x80000000),
        ("cvt.rzi.u32.f64", &[0xfff8000000000000], 0x80000000),
        ("cvt.rzi.s64.f64", &[0x7ff8000000000000], 0x8000000000000000),
        ("cvt.rzi.s64.f64", &[0xfff8000000000000], 0x8000000000000000),
        ("cvt.rzi.u64.f64", &[0x7ff8000000000000], 0x8000000000000000),
        ("cvt.rzi.u64.f64", &[0xfff8000000000000], 0x8000000000000000),
        ("cvt.rzi.u8.f64", &[0x7ff8000000000000], 0x80),
        ("cvt.rzi.u8.f64", &[0xfff8000000000000], 0x80),
        ("cvt.rzi.s8.f64", &[0x7ff8000000000000], 0xffffff80),
        ("cvt.rzi.u16.f64", &[0x7ff8000000000000], 0x8000),
        ("cvt.rzi.s16.f16", &[0x7e00], 0x0),
        ("cvt.rzi.s16.f16", &[0xfe01], 0x0),
        ("cvt.rzi.s16.f16", &[0x7c01], 0x0),
        ("cvt.rzi.u16.f16", &[0x7e00], 0x0),
        ("cvt.rzi.u16.f16", &[0xfe01], 0x0),
        ("cvt.rzi.s32.f16", &[0x7e00], 0x0),
        ("cvt.rzi.s32.f16", &[0xfe01], 0x0),
        ("cvt.rzi.s64.f16", &[0x7e00], 0x8000000000000000),
        ("cvt.rzi.s64.f16", &[0xfe01], 0x8000000000000000),
        ("cvt.rzi.s32.bf16", &[0x7fc0], 0x0),
        ("cvt.rzi.s32.bf16", &[0xffc1], 0x0),
        ("cvt.rpi.ftz.s32.f32", &[0x1], 0x0),
        ("cvt.rpi.ftz.s32.f32", &[0x80000001], 0x0),
        ("cvt.rmi.ftz.s32.f32", &[0x80000001], 0x0),
        ("cvt.rmi.s32.f32", &[0x80000001], 0xffffffff),
        ("cvt.f32.f16", &[0x7e00], 0x7fffffff),
        ("cvt.f32.f16", &[0xfe01], 0x7fffffff),
        ("cvt.f32.f16", &[0x7c01], 0x7fffffff),
        ("cvt.f32.f16", &[0x7d55], 0x7fffffff),
        ("cvt.f64.f16", &[0x7e00], 0x7ff8000000000000),
        ("cvt.f64.f16", &[0xfe01], 0xfff8040000000000),
        ("cvt.f64.f16", &[0x7c01], 0x7ff8040000000000),
        ("cvt.f32.bf16", &[0x7fc1], 0x7fc10000),
        ("cvt.f32.bf16", &[0xff81], 0xff810000),
        ("cvt.f32.bf16", &[0x1], 0x10000),
        ("cvt.ftz.f32.bf16", &[0x1], 0x0),
        ("cvt.ftz.f32.bf16", &[0x8001], 0x80000000),
        ("cvt.f64.f32", &[0x7fc00000], 0x7ff8000000000000),
        ("cvt.f64.f32", &[0xffc00000], 0xfff8000000000000),
        ("cvt.f64.f32", &[0x7f800001], 0x7ff8000020000000),
        ("cvt.f64.f32", &[0xffa00001], 0xfffc000020000000),
        ("cvt.f64.f32", &[0x7fa00000], 0x7ffc000000000000),
        ("cvt.ftz.f64.f32", &[0x1], 0x0),
        ("cvt.ftz.f64.f32", &[0x80000001], 0x8000000000000000),
        ("cvt.rn.f32.f64", &[0x7ff8000000000001], 0x7fc00000),
        ("cvt.rn.f32.f64", &[0xfff8000000000000], 0xffc00000),
        ("cvt.rn.f32.f64", &[0x7ff0000000000001], 0x7fc00000),
        ("cvt.rn.f32.f64", &[0x7ff4000000000000], 0x7fe00000),
        ("cvt.rn.ftz.f32.f64", &[0x380fffffffffffff], 0x800000),
        // Tiny after rounding to 24 bits (unbounded exponent): flushed,
        // though rounding into the subnormal range would give 2^-126
        // (found by tests/differential/ on the H200).
        ("cvt.rn.ftz.f32.f64", &[0x380fffffe0000000], 0x0),
        ("cvt.rn.ftz.f32.f64", &[0x380fffffe0000001], 0x0),
        ("cvt.rm.ftz.f32.f64", &[0xb80fffffe0000000], 0x80000000),
        ("cvt.rm.ftz.f32.f64", &[0xb80fffffdfffffff], 0x80000000),
        ("cvt.rp.ftz.f32.f64", &[0x380fffffd0000001], 0x0),
        ("cvt.rp.ftz.f32.f64", &[0x380fffffcfffffff], 0x0),
        ("cvt.rp.ftz.sat.f32.f64", &[0x380fffffd0000000], 0x0),
        ("cvt.rn.ftz.f32.f64", &[0x380ffffff0000000], 0x800000),
        ("cvt.rn.ftz.f32.f64", &[0x3800000000000000], 0x0),
        ("cvt.rz.ftz.f32.f64", &[0x380fffffffffffff], 0x0),
        ("cvt.rn.f16.f32", &[0x7fc00000], 0x7fff),
        ("cvt.rn.f16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.f16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.f16.f32", &[0xffa00001], 0x7fff),
        ("cvt.rn.f16.f32", &[0x7fa00000], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x7fc00000], 0x7fff),
        ("cvt.rn.bf16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.bf16.f32", &[0xffa00001], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x7fa00000], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x10000], 0x1),
        ("cvt.rn.bf16.f32", &[0x8000], 0x0),
        ("cvt.rn.bf16.f32", &[0x18000], 0x2),
        ("cvt.rn.f16.f64", &[0xfff8000000000000], 0xfe00),
        ("cvt.rn.bf16.f16", &[0xfe01], 0x7fff),
        ("cvt.rn.bf16.f16", &[0x7c01], 0x7fff),
        ("cvt.rn.f16.bf16", &[0xffc1], 0x7fff),
        ("cvt.rn.f16.bf16", &[0x7f81], 0x7fff),
        ("cvt.f32.f32", &[0x7fc00000], 0x7fc00000),
        ("cvt.f32.f32", &[0xffc00000], 0xffc00000),
        ("cvt.f32.f32", &[0x7f800001], 0x7f800001),
        ("cvt.f32.f32", &[0xffa00001], 0xffa00001),
        ("cvt.f32.f32", &[0x7fa00000], 0x7fa00000),
        ("cvt.f32.f32", &[0x80000001], 0x80000001),
        ("cvt.ftz.f32.f32", &[0x7fc00000], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0xffa00001], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0x7fa00000], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0x80000001], 0x80000000),
        ("cvt.rni.f32.f32", &[0x7fc00000], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0xffa00001], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0x7fa00000], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0xbe800000], 0x80000000),
        ("cvt.rni.f16.f16", &[0xfe01], 0x7fff),
        ("cvt.rni.f16.f16", &[0x7c01], 0x7fff),
        ("cvt.rni.f16.f16", &[0xb400], 0x8000),
        ("cvt.rni.f64.f64", &[0xfff8000000000001], 0xfff8000000000001),
        ("cvt.f64.f64", &[0xfff0000000000001], 0xfff0000000000001),
        ("cvt.sat.f32.f32", &[0x7fc00000], 0x0),
        ("cvt.sat.f32.f32", &[0xffc00000], 0x0),
        ("cvt.sat.f32.f32", &[0x7f800001], 0x0),
        ("cvt.sat.f32.f32", &[0xffa00001], 0x0),
        ("cvt.sat.f32.f32", &[0x7fa00000], 0x0),
        ("cvt.sat.f32.f32", &[0x80000000], 0x0),
        ("cvt.sat.f32.f32", &[0xbf800000], 0x0),
        ("cvt.sat.f32.f32", &[0x7f800000], 0x3f800000),
        ("cvt.sat.f32.f32", &[0x3fc00000], 0x3f800000),
        ("cvt.rn.sat.f16.f32", &[0x7fc00000], 0x0),
        ("cvt.rn.sat.f16.f32", &[0x80000000], 0x0),
        ("cvt.rn.sat.f16.f32", &[0xbf800000], 0x0),
        ("cvt.sat.f64.f32", &[0xffc00000], 0x0),
        ("cvt.sat.f64.f32", &[0x80000000], 0x0),
        ("cvt.rn.sat.f32.s32", &[0x5], 0x3f800000),
        ("cvt.rn.sat.f32.s32", &[0xfffffffb], 0x0),
        ("cvt.rn.sat.f32.s32", &[0x0], 0x0),
        ("cvt.rn.relu.f16.f32", &[0x7fc00000], 0x7fff),
        ("cvt.rn.relu.f16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.relu.f16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.relu.f16.f32", &[0xffa00001], 0x7fff),
        ("cvt.rn.relu.f16.f32", &[0x7fa00000], 0x7fff),
        ("cvt.rn.relu.f16.f32", &[0x80000000], 0x0),
        ("cvt.rn.relu.f16.f32", &[0xbf800000], 0x0),
        ("cvt.rn.relu.f16.f32", &[0x80000001], 0x0),
        ("cvt.rn.relu.bf16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.relu.bf16.f32", &[0x80000000], 0x0),
        ("cvt.rn.satfinite.f16.f32", &[0x7fc00000], 0x7fff),
        ("cvt.rn.satfinite.f16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.satfinite.f16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.satfinite.f16.f32", &[0xffa00001], 0x7fff),
        ("cvt.rn.satfinite.f16.f32", &[0x7fa00000], 0x7fff),
        ("cvt.rn.satfinite.f16.f32", &[0xff800000], 0xfbff),
        ("cvt.rn.satfinite.f16.f32", &[0x7f800000], 0x7bff),
        ("cvt.rn.satfinite.bf16.f32", &[0x7fc00000], 0x7fff),
        ("cvt.rn.satfinite.bf16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.satfinite.bf16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.satfinite.bf16.f32", &[0xffa00001], 0x7fff),
        ("cvt.rn.satfinite.bf16.f32", &[0x7fa00000], 0x7fff),
        ("cvt.rn.satfinite.bf16.f32", &[0xff800000], 0xff7f),
        ("cvt.rna.tf32.f32", &[0x7fc00000], 0x7fc00000),
        ("cvt.rna.tf32.f32", &[0xffc00000], 0xffc00000),
        ("cvt.rna.tf32.f32", &[0x7f800001], 0x7f800000),
        ("cvt.rna.tf32.f32", &[0xffa00001], 0xffa00000),
        ("cvt.rna.tf32.f32", &[0x7fa00000], 0x7fa00000),
        ("cvt.rna.tf32.f32", &[0x7f800000], 0x7f800000),
        ("cvt.rna.tf32.f32", &[0xff800000], 0xff800000),
        ("cvt.rna.tf32.f32", &[0x3f801234], 0x3f802000),
        ("cvt.rna.tf32.f32", &[0x3f801000], 0x3f802000),
        ("cvt.rna.tf32.f32", &[0x7f7fffff], 0x7f800000),
        ("cvt.rna.tf32.f32", &[0x1000], 0x2000),
        ("cvt.rn.tf32.f32", &[0x7fc00000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0xffc00000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x7f800001], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0xffa00001], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x7fa00000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x3f801000], 0x3f800000),
        ("cvt.rn.tf32.f32", &[0x3f803000], 0x3f804000),
        ("cvt.rn.tf32.f32", &[0x7f7fffff], 0x7f800000),
        ("cvt.rz.tf32.f32", &[0x7fc00000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0xffc00000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x7f800001], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0xffa00001], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x7fa00000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x3f801fff], 0x3f800000),
        ("cvt.rn.relu.tf32.f32", &[0x7fc00000], 0x7fffe000),
        ("cvt.rn.relu.tf32.f32", &[0xffc00000], 0x7fffe000),
        ("cvt.rn.relu.tf32.f32", &[0x7f800001], 0x7fffe000),
        ("cvt.rn.relu.tf32.f32", &[0xffa00001], 0x7fffe000),
        ("cvt.rn.relu.tf32.f32", &[0x7fa00000], 0x7fffe000),
        ("cvt.rn.relu.tf32.f32", &[0xbf800000], 0x0),
        ("cvt.rn.relu.tf32.f32", &[0x80000000], 0x0),
        ("cvt.rna.satfinite.tf32.f32", &[0x7fc00000], 0x7fbfe000),
        ("cvt.rna.satfinite.tf32.f32", &[0xffc00000], 0xffbfe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f800001], 0x7f7fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0xffa00001], 0xff9fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7fa00000], 0x7f9fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f7fffff], 0x7f7fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f800000], 0x7f7fe000),
        (
            "cvt.rn.satfinite.e4m3x2.f32",
            &[0x7fc00000, 0xffc00000],
            0x7f7f,
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f32",
            &[0x7fa00000, 0xffe00000],
            0x7f7f,
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f32",
            &[0x7f800000, 0xff800000],
            0x7efe,
        ),
        (
            "cvt.rn.satfinite.e4m3x2.f32",
            &[0x43e80000, 0x43e80001],
            0x7e7e,
        ),
        (
            "cvt.rn.satfinite.e5m2x2.f32",
            &[0x7fc00000, 0xffc00000],
            0x7f7f,
        ),
        (
            "cvt.rn.satfinite.e5m2x2.f32",
            &[0x7fa00000, 0xffe00000],
            0x7f7f,
        ),
        (
            "cvt.rn.satfinite.e5m2x2.f32",
            &[0x7f800001, 0xffffffff],
            0x7f7f,
        ),
        (
            "cvt.rn.satfinite.e5m2x2.f32",
            &[0x7f800000, 0xff800000],
            0x7bfb,
        ),
        (
            "cvt.rn.satfinite.relu.e4m3x2.f32",
            &[0xffc00000, 0xbf800000],
            0x7f00,
        ),
        (
            "cvt.rn.satfinite.relu.e4m3x2.f32",
            &[0x80000000, 0x7fc00000],
            0x7f,
        ),
        (
            "cvt.rn.satfinite.relu.e5m2x2.f32",
            &[0xffc00000, 0xbf800000],
            0x7f00,
        ),
        (
            "cvt.rn.satfinite.relu.e5m2x2.f32",
            &[0x7fa00000, 0x80000000],
            0x7f00,
        ),
        ("cvt.rn.satfinite.e4m3x2.f16x2", &[0x7e00fe01], 0x7f7f),
        ("cvt.rn.satfinite.e4m3x2.f16x2", &[0x7c01fd00], 0x7f7f),
        ("cvt.rn.satfinite.e5m2x2.f16x2", &[0x7e00fe01], 0x7f7f),
        ("cvt.rn.satfinite.e5m2x2.f16x2", &[0x7c01fd00], 0x7f7f),
        ("cvt.rn.satfinite.e5m2x2.f16x2", &[0x7d00fd55], 0x7f7f),
        ("cvt.rn.f16x2.e4m3x2", &[0x7fff], 0x7fff7fff),
        ("cvt.rn.f16x2.e4m3x2", &[0x80ff], 0x80007fff),
        ("cvt.rn.f16x2.e5m2x2", &[0x7dff], 0x7fff7fff),
        ("cvt.rn.f16x2.e5m2x2", &[0xfe7f], 0x7fff7fff),
        ("cvt.rn.relu.f16x2.e4m3x2", &[0xff80], 0x7fff0000),
        ("cvt.rn.relu.f16x2.e5m2x2", &[0xfd80], 0x7fff0000),
        ("cvt.rn.f16x2.f32", &[0x7fc00000, 0xffc00001], 0x7fff7fff),
        (
            "cvt.rn.relu.satfinite.f16x2.f32",
            &[0xffc00000, 0x80000000],
            0x7fff0000,
        ),
        (
            "cvt.rz.relu.bf16x2.f32",
            &[0xffc00000, 0x80000000],
            0x7fff0000,
        ),
        ("cvt.f16.f16", &[0x7e01], 0x7fff),
        ("cvt.f16.f16", &[0xfe00], 0x7fff),
        ("cvt.f16.f16", &[0x7c01], 0x7fff),
        ("cvt.f16.f16", &[0xfd55], 0x7fff),
        ("cvt.rni.f16.f16", &[0x7e01], 0x7fff),
        ("cvt.rni.f16.f16", &[0xfe00], 0x7fff),
        ("cvt.rni.f16.f16", &[0x7c01], 0x7fff),
        ("cvt.rni.f16.f16", &[0xfd55], 0x7fff),
        ("cvt.rzi.f16.f16", &[0x7e01], 0x7fff),
        ("cvt.rzi.f16.f16", &[0xfe00], 0x7fff),
        ("cvt.rzi.f16.f16", &[0x7c01], 0x7fff),
        ("cvt.rzi.f16.f16", &[0xfd55], 0x7fff),
        ("cvt.sat.f16.f16", &[0x7e01], 0x0),
        ("cvt.sat.f16.f16", &[0xfe00], 0x0),
        ("cvt.sat.f16.f16", &[0x7c01], 0x0),
        ("cvt.sat.f16.f16", &[0xfd55], 0x0),
        ("cvt.rn.f16.bf16", &[0x7fc1], 0x7fff),
        ("cvt.rn.f16.bf16", &[0xffc0], 0x7fff),
        ("cvt.rn.f16.bf16", &[0x7f81], 0x7fff),
        ("cvt.rn.f16.bf16", &[0xffa5], 0x7fff),
        ("cvt.rn.f16.f32", &[0x7fc00001], 0x7fff),
        ("cvt.rn.f16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.f16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.f16.f32", &[0xffa55555], 0x7fff),
        ("cvt.rn.ftz.f16.f32", &[0x7fc00001], 0x7fff),
        ("cvt.rn.ftz.f16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.ftz.f16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.ftz.f16.f32", &[0xffa55555], 0x7fff),
        ("cvt.rn.sat.f16.f32", &[0x7fc00001], 0x0),
        ("cvt.rn.sat.f16.f32", &[0xffc00000], 0x0),
        ("cvt.rn.sat.f16.f32", &[0x7f800001], 0x0),
        ("cvt.rn.sat.f16.f32", &[0xffa55555], 0x0),
        ("cvt.rn.f16.f64", &[0x7ff8000000000001], 0x7e00),
        ("cvt.rn.f16.f64", &[0xfff8000000000000], 0xfe00),
        ("cvt.rn.f16.f64", &[0x7ff0000000000001], 0x7e00),
        ("cvt.rn.f16.f64", &[0xfff5555555555555], 0xff55),
        ("cvt.rn.sat.f16.f64", &[0x7ff8000000000001], 0x0),
        ("cvt.rn.sat.f16.f64", &[0xfff8000000000000], 0x0),
        ("cvt.rn.sat.f16.f64", &[0x7ff0000000000001], 0x0),
        ("cvt.rn.sat.f16.f64", &[0xfff5555555555555], 0x0),
        ("cvt.rn.bf16.f16", &[0x7e01], 0x7fff),
        ("cvt.rn.bf16.f16", &[0xfe00], 0x7fff),
        ("cvt.rn.bf16.f16", &[0x7c01], 0x7fff),
        ("cvt.rn.bf16.f16", &[0xfd55], 0x7fff),
        ("cvt.bf16.bf16", &[0x7fc1], 0x7fff),
        ("cvt.bf16.bf16", &[0xffc0], 0x7fff),
        ("cvt.bf16.bf16", &[0x7f81], 0x7fff),
        ("cvt.bf16.bf16", &[0xffa5], 0x7fff),
        ("cvt.rni.bf16.bf16", &[0x7fc1], 0x7fff),
        ("cvt.rni.bf16.bf16", &[0xffc0], 0x7fff),
        ("cvt.rni.bf16.bf16", &[0x7f81], 0x7fff),
        ("cvt.rni.bf16.bf16", &[0xffa5], 0x7fff),
        ("cvt.rzi.bf16.bf16", &[0x7fc1], 0x7fff),
        ("cvt.rzi.bf16.bf16", &[0xffc0], 0x7fff),
        ("cvt.rzi.bf16.bf16", &[0x7f81], 0x7fff),
        ("cvt.rzi.bf16.bf16", &[0xffa5], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x7fc00001], 0x7fff),
        ("cvt.rn.bf16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.bf16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.bf16.f32", &[0xffa55555], 0x7fff),
        ("cvt.rn.ftz.bf16.f32", &[0x7fc00001], 0x7fff),
        ("cvt.rn.ftz.bf16.f32", &[0xffc00000], 0x7fff),
        ("cvt.rn.ftz.bf16.f32", &[0x7f800001], 0x7fff),
        ("cvt.rn.ftz.bf16.f32", &[0xffa55555], 0x7fff),
        ("cvt.rn.bf16.f64", &[0x7ff8000000000001], 0x7fc0),
        ("cvt.rn.bf16.f64", &[0xfff8000000000000], 0xffc0),
        ("cvt.rn.bf16.f64", &[0x7ff0000000000001], 0x7fc0),
        ("cvt.rn.bf16.f64", &[0xfff5555555555555], 0xffea),
        ("cvt.f32.f16", &[0x7e01], 0x7fffffff),
        ("cvt.f32.f16", &[0xfe00], 0x7fffffff),
        ("cvt.f32.f16", &[0x7c01], 0x7fffffff),
        ("cvt.f32.f16", &[0xfd55], 0x7fffffff),
        ("cvt.ftz.f32.f16", &[0x7e01], 0x7fffffff),
        ("cvt.ftz.f32.f16", &[0xfe00], 0x7fffffff),
        ("cvt.ftz.f32.f16", &[0x7c01], 0x7fffffff),
        ("cvt.ftz.f32.f16", &[0xfd55], 0x7fffffff),
        ("cvt.sat.f32.f16", &[0x7e01], 0x0),
        ("cvt.sat.f32.f16", &[0xfe00], 0x0),
        ("cvt.sat.f32.f16", &[0x7c01], 0x0),
        ("cvt.sat.f32.f16", &[0xfd55], 0x0),
        ("cvt.f32.bf16", &[0x7fc1], 0x7fc10000),
        ("cvt.f32.bf16", &[0xffc0], 0xffc00000),
        ("cvt.f32.bf16", &[0x7f81], 0x7f810000),
        ("cvt.f32.bf16", &[0xffa5], 0xffa50000),
        ("cvt.ftz.f32.bf16", &[0x7fc1], 0x7fffffff),
        ("cvt.ftz.f32.bf16", &[0xffc0], 0x7fffffff),
        ("cvt.ftz.f32.bf16", &[0x7f81], 0x7fffffff),
        ("cvt.ftz.f32.bf16", &[0xffa5], 0x7fffffff),
        ("cvt.f32.f32", &[0x7fc00001], 0x7fc00001),
        ("cvt.f32.f32", &[0xffc00000], 0xffc00000),
        ("cvt.f32.f32", &[0x7f800001], 0x7f800001),
        ("cvt.f32.f32", &[0xffa55555], 0xffa55555),
        ("cvt.rni.f32.f32", &[0x7fc00001], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.rni.f32.f32", &[0xffa55555], 0x7fffffff),
        ("cvt.rzi.f32.f32", &[0x7fc00001], 0x7fffffff),
        ("cvt.rzi.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.rzi.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.rzi.f32.f32", &[0xffa55555], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0x7fc00001], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.ftz.f32.f32", &[0xffa55555], 0x7fffffff),
        ("cvt.rni.ftz.f32.f32", &[0x7fc00001], 0x7fffffff),
        ("cvt.rni.ftz.f32.f32", &[0xffc00000], 0x7fffffff),
        ("cvt.rni.ftz.f32.f32", &[0x7f800001], 0x7fffffff),
        ("cvt.rni.ftz.f32.f32", &[0xffa55555], 0x7fffffff),
        ("cvt.sat.f32.f32", &[0x7fc00001], 0x0),
        ("cvt.sat.f32.f32", &[0xffc00000], 0x0),
        ("cvt.sat.f32.f32", &[0x7f800001], 0x0),
        ("cvt.sat.f32.f32", &[0xffa55555], 0x0),
        ("cvt.rn.f32.f64", &[0x7ff8000000000001], 0x7fc00000),
        ("cvt.rn.f32.f64", &[0xfff8000000000000], 0xffc00000),
        ("cvt.rn.f32.f64", &[0x7ff0000000000001], 0x7fc00000),
        ("cvt.rn.f32.f64", &[0xfff5555555555555], 0xffeaaaaa),
        ("cvt.rn.ftz.f32.f64", &[0x7ff8000000000001], 0x7fc00000),
        ("cvt.rn.ftz.f32.f64", &[0xfff8000000000000], 0xffc00000),
        ("cvt.rn.ftz.f32.f64", &[0x7ff0000000000001], 0x7fc00000),
        ("cvt.rn.ftz.f32.f64", &[0xfff5555555555555], 0xffeaaaaa),
        ("cvt.rn.sat.f32.f64", &[0x7ff8000000000001], 0x0),
        ("cvt.rn.sat.f32.f64", &[0xfff8000000000000], 0x0),
        ("cvt.rn.sat.f32.f64", &[0x7ff0000000000001], 0x0),
        ("cvt.rn.sat.f32.f64", &[0xfff5555555555555], 0x0),
        ("cvt.f64.f16", &[0x7e01], 0x7ff8040000000000),
        ("cvt.f64.f16", &[0xfe00], 0xfff8000000000000),
        ("cvt.f64.f16", &[0x7c01], 0x7ff8040000000000),
        ("cvt.f64.f16", &[0xfd55], 0xfffd540000000000),
        ("cvt.sat.f64.f16", &[0x7e01], 0x0),
        ("cvt.sat.f64.f16", &[0xfe00], 0x0),
        ("cvt.sat.f64.f16", &[0x7c01], 0x0),
        ("cvt.sat.f64.f16", &[0xfd55], 0x0),
        ("cvt.f64.bf16", &[0x7fc1], 0x7ff8200000000000),
        ("cvt.f64.bf16", &[0xffc0], 0xfff8000000000000),
        ("cvt.f64.bf16", &[0x7f81], 0x7ff8200000000000),
        ("cvt.f64.bf16", &[0xffa5], 0xfffca00000000000),
        ("cvt.f64.f32", &[0x7fc00001], 0x7ff8000020000000),
        ("cvt.f64.f32", &[0xffc00000], 0xfff8000000000000),
        ("cvt.f64.f32", &[0x7f800001], 0x7ff8000020000000),
        ("cvt.f64.f32", &[0xffa55555], 0xfffcaaaaa0000000),
        ("cvt.ftz.f64.f32", &[0x7fc00001], 0x7fffffffe0000000),
        ("cvt.ftz.f64.f32", &[0xffc00000], 0x7fffffffe0000000),
        ("cvt.ftz.f64.f32", &[0x7f800001], 0x7fffffffe0000000),
        ("cvt.ftz.f64.f32", &[0xffa55555], 0x7fffffffe0000000),
        ("cvt.sat.f64.f32", &[0x7fc00001], 0x0),
        ("cvt.sat.f64.f32", &[0xffc00000], 0x0),
        ("cvt.sat.f64.f32", &[0x7f800001], 0x0),
        ("cvt.sat.f64.f32", &[0xffa55555], 0x0),
        ("cvt.f64.f64", &[0x7ff8000000000001], 0x7ff8000000000001),
        ("cvt.f64.f64", &[0xfff8000000000000], 0xfff8000000000000),
        ("cvt.f64.f64", &[0x7ff0000000000001], 0x7ff0000000000001),
        ("cvt.f64.f64", &[0xfff5555555555555], 0xfff5555555555555),
        ("cvt.rni.f64.f64", &[0x7ff8000000000001], 0x7ff8000000000001),
        ("cvt.rni.f64.f64", &[0xfff8000000000000], 0xfff8000000000000),
        ("cvt.rni.f64.f64", &[0x7ff0000000000001], 0x7ff8000000000001),
        ("cvt.rni.f64.f64", &[0xfff5555555555555], 0xfffd555555555555),
        ("cvt.rzi.f64.f64", &[0x7ff8000000000001], 0x7ff8000000000001),
        ("cvt.rzi.f64.f64", &[0xfff8000000000000], 0xfff8000000000000),
        ("cvt.rzi.f64.f64", &[0x7ff0000000000001], 0x7ff8000000000001),
        ("cvt.rzi.f64.f64", &[0xfff5555555555555], 0xfffd555555555555),
        ("cvt.sat.f64.f64", &[0x7ff8000000000001], 0x0),
        ("cvt.sat.f64.f64", &[0xfff8000000000000], 0x0),
        ("cvt.sat.f64.f64", &[0x7ff0000000000001], 0x0),
        ("cvt.sat.f64.f64", &[0xfff5555555555555], 0x0),
        ("cvt.rna.tf32.f32", &[0x7ffff000], 0x7fffe000),
        ("cvt.rna.tf32.f32", &[0x7fffffff], 0x7fffe000),
        ("cvt.rna.tf32.f32", &[0xfffff000], 0xffffe000),
        ("cvt.rna.tf32.f32", &[0xffffffff], 0xffffe000),
        ("cvt.rna.tf32.f32", &[0x7f801000], 0x7f800000),
        ("cvt.rna.tf32.f32", &[0x7f800fff], 0x7f800000),
        ("cvt.rna.tf32.f32", &[0xff800000], 0xff800000),
        ("cvt.rna.tf32.f32", &[0x80000fff], 0x80000000),
        ("cvt.rna.tf32.f32", &[0xfff], 0x0),
        ("cvt.rna.tf32.f32", &[0x7f7ff000], 0x7f800000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7ffff000], 0x7fffc000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7fffffff], 0x7fffc000),
        ("cvt.rna.satfinite.tf32.f32", &[0xfffff000], 0xffffc000),
        ("cvt.rna.satfinite.tf32.f32", &[0xffffffff], 0xffffc000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f801000], 0x7f7fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f800fff], 0x7f7fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0xff800000], 0xff7fe000),
        ("cvt.rna.satfinite.tf32.f32", &[0x80000fff], 0x80000000),
        ("cvt.rna.satfinite.tf32.f32", &[0xfff], 0x0),
        ("cvt.rna.satfinite.tf32.f32", &[0x7f7ff000], 0x7f7fe000),
        ("cvt.rn.tf32.f32", &[0x7ffff000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x7fffffff], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0xfffff000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0xffffffff], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x7f801000], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0x7f800fff], 0x7fffe000),
        ("cvt.rn.tf32.f32", &[0xff800000], 0xff800000),
        ("cvt.rn.tf32.f32", &[0x80000fff], 0x80000000),
        ("cvt.rn.tf32.f32", &[0xfff], 0x0),
        ("cvt.rn.tf32.f32", &[0x7f7ff000], 0x7f800000),
        ("cvt.rz.tf32.f32", &[0x7ffff000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x7fffffff], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0xfffff000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0xffffffff], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x7f801000], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0x7f800fff], 0x7fffe000),
        ("cvt.rz.tf32.f32", &[0xff800000], 0xff800000),
        ("cvt.rz.tf32.f32", &[0x80000fff], 0x80000000),
        ("cvt.rz.tf32.f32", &[0xfff], 0x0),
        ("cvt.rz.tf32.f32", &[0x7f7ff000], 0x7f7fe000),
        ("cvt.rn.satfinite.relu.e4m3x2.f16x2", &[0x7e00fe01], 0x7f7f),
        ("cvt.rn.satfinite.relu.e4m3x2.f16x2", &[0xbc00fd00], 0x7f),
        ("cvt.rn.satfinite.relu.e5m2x2.f16x2", &[0x7e00fe01], 0x7f7f),
        ("cvt.rn.f16.f32", &[0x33000000], 0x0),
        ("cvt.rn.f16.f32", &[0x33000001], 0x1),
        ("cvt.rn.f16.f32", &[0x387fc000], 0x3ff),
        ("cvt.rn.f16.f32", &[0x477ff000], 0x7c00),
        ("cvt.rn.f16.f32", &[0x477fefff], 0x7bff),
        ("cvt.rz.f16.f32", &[0x477fffff], 0x7bff),
        ("cvt.rz.f16.f32", &[0x7f7fffff], 0x7bff),
    ];

    #[test]
    fn matches_sm90_measurements() {
        for &(opcode, sources, want) in MEASURED_SM90 {
            let v = variant(opcode);
            let bits = v.operands()[0].ty.carrier_bits();
            let got = run(opcode, sources);
            assert_eq!(
                got,
                super::super::mask(want, bits),
                "{opcode} {sources:#x?}: got {got:#x}"
            );
        }
    }

    #[test]
    fn int_to_int() {
        check(&[
            ("cvt.u8.u32", &[0x1234], 0x34),
            ("cvt.sat.u8.u32", &[0x1234], 0xff),
            ("cvt.s8.s32", &[(-200i32) as u32 as u64], 0x38),
            ("cvt.sat.s8.s32", &[(-200i32) as u32 as u64], 0x80),
            ("cvt.sat.s8.s32", &[200], 0x7f),
            ("cvt.s32.s8", &[0x80], 0xffff_ff80),
            ("cvt.u32.s8", &[0x80], 0xffff_ff80),
            ("cvt.sat.u32.s8", &[0x80], 0),
            ("cvt.s64.u32", &[0xffff_ffff], 0xffff_ffff),
            ("cvt.s64.s32", &[0xffff_ffff], u64::MAX),
            ("cvt.sat.u16.s64", &[u64::MAX], 0),
            ("cvt.sat.s32.u32", &[0x8000_0000], 0x7fff_ffff),
            ("cvt.sat.u32.s64", &[1 << 40], 0xffff_ffff),
            ("cvt.u16.s64", &[(1 << 40) | 0xfedc], 0xfedc),
            ("cvt.sat.s16.u16", &[0x8000], 0x7fff),
            ("cvt.u64.s16", &[0xffff], u64::MAX),
        ]);
    }

    #[test]
    fn float_to_int() {
        let f = |x: f32| b(x);
        let d = b64;
        check(&[
            ("cvt.rni.s32.f32", &[f(2.5)], 2),
            ("cvt.rni.s32.f32", &[f(3.5)], 4),
            ("cvt.rni.s32.f32", &[f(-2.5)], (-2i32) as u32 as u64),
            ("cvt.rzi.s32.f32", &[f(-2.7)], (-2i32) as u32 as u64),
            ("cvt.rmi.s32.f32", &[f(-2.1)], (-3i32) as u32 as u64),
            ("cvt.rpi.s32.f32", &[f(2.1)], 3),
            ("cvt.rpi.s32.f32", &[f(-0.5)], 0),
            // Saturating by default.
            ("cvt.rzi.s32.f32", &[f(3e9)], 0x7fff_ffff),
            ("cvt.rzi.s32.f32", &[f(-3e9)], 0x8000_0000),
            ("cvt.rzi.s32.f32", &[INF], 0x7fff_ffff),
            ("cvt.rzi.s32.f32", &[NEG_INF], 0x8000_0000),
            ("cvt.rzi.u32.f32", &[f(-1.5)], 0),
            ("cvt.rzi.u32.f32", &[f(5e9)], 0xffff_ffff),
            ("cvt.rzi.u8.f32", &[f(300.0)], 0xff),
            ("cvt.rzi.s8.f32", &[f(-300.0)], 0x80),
            ("cvt.rni.s16.f16", &[0x7bff], 0x7fff),
            ("cvt.rni.u16.f16", &[0x7bff], 65504),
            ("cvt.rni.s64.f64", &[d(1e19)], i64::MAX as u64),
            ("cvt.rzi.u64.f64", &[d(2f64.powi(64))], u64::MAX),
            ("cvt.rzi.s64.f64", &[d(-2f64.powi(63))], 1 << 63),
            ("cvt.rni.s32.bf16", &[0xc2f7], (-124i32) as u32 as u64),
            // NaN: 0, but 1 << (bits - 1) from .f64 or into 64-bit integers.
            ("cvt.rzi.s32.f32", &[NAN], 0),
            ("cvt.rzi.u32.f32", &[NEG_NAN], 0),
            ("cvt.rzi.u16.f16", &[0x7e00], 0),
            ("cvt.rzi.s64.f32", &[NAN], 1 << 63),
            ("cvt.rzi.u64.f16", &[0x7e00], 1 << 63),
            ("cvt.rzi.s32.f64", &[d(f64::NAN)], 0x8000_0000),
            ("cvt.rzi.u32.f64", &[d(f64::NAN)], 0x8000_0000),
            ("cvt.rzi.u8.f64", &[d(f64::NAN)], 0x80),
            // .ftz flushes the f32 subnormal input first.
            ("cvt.rpi.s32.f32", &[1], 1),
            ("cvt.rpi.ftz.s32.f32", &[1], 0),
            ("cvt.rmi.s32.f32", &[0x8000_0001], 0xffff_ffff),
            ("cvt.rmi.ftz.s32.f32", &[0x8000_0001], 0),
            // ...but f16 <- f32 keeps its subnormal inputs (measured on sm_90).
            ("cvt.rp.ftz.f16.f32", &[1], 1),
            ("cvt.rm.ftz.f16.f32", &[0x8000_0001], 0x8001),
            ("cvt.rp.ftz.bf16.f32", &[1], 0),
        ]);
    }

    #[test]
    fn float_to_int_matches_rust_casts() {
        // Rust's float-to-int `as` truncates and saturates (NaN aside).
        let mut rng = Rng::new(6);
        let to_s32 = compute(&variant("cvt.rzi.s32.f32")).unwrap();
        let to_u32 = compute(&variant("cvt.rzi.u32.f32")).unwrap();
        let to_s64 = compute(&variant("cvt.rzi.s64.f64")).unwrap();
        let to_u64 = compute(&variant("cvt.rzi.u64.f64")).unwrap();
        let rni = compute(&variant("cvt.rni.s32.f32")).unwrap();
        let rmi = compute(&variant("cvt.rmi.s64.f32")).unwrap();
        let rpi = compute(&variant("cvt.rpi.u16.f32")).unwrap();
        let mut d = [0];
        for _ in 0..200_000 {
            let x = f32::from_bits(rng.f32_bits());
            if x.is_nan() {
                continue;
            }
            to_s32.run(&[b(x)], &mut d);
            assert_eq!(d[0], x as i32 as u32 as u64, "{x:e}");
            to_u32.run(&[b(x)], &mut d);
            assert_eq!(d[0], x as u32 as u64, "{x:e}");
            rni.run(&[b(x)], &mut d);
            assert_eq!(d[0], x.round_ties_even() as i32 as u32 as u64, "{x:e}");
            rmi.run(&[b(x)], &mut d);
            assert_eq!(d[0], x.floor() as i64 as u64, "{x:e}");
            rpi.run(&[b(x)], &mut d);
            assert_eq!(d[0], x.ceil() as u16 as u64, "{x:e}");
            let y = f64::from(x) * 2f64.powi((rng.next_u64() % 80) as i32);
            to_s64.run(&[b64(y)], &mut d);
            assert_eq!(d[0], y as i64 as u64, "{y:e}");
            to_u64.run(&[b64(y)], &mut d);
            assert_eq!(d[0], y as u64, "{y:e}");
        }
    }

    #[test]
    fn int_to_float() {
        check(&[
            ("cvt.rn.f32.u64", &[u64::MAX], 0x5f80_0000),
            ("cvt.rz.f32.u64", &[u64::MAX], 0x5f7f_ffff),
            (
                "cvt.rm.f32.s32",
                &[(-(1i32 << 24) - 1) as u32 as u64],
                0xcb80_0001,
            ),
            ("cvt.rp.f32.s32", &[(1 << 24) + 1], 0x4b80_0001),
            ("cvt.rn.f32.s32", &[(1 << 24) + 1], 0x4b80_0000),
            ("cvt.rn.f32.s32", &[(1 << 24) + 3], 0x4b80_0002),
            ("cvt.rn.f16.u32", &[70000], 0x7c00),
            ("cvt.rz.f16.u32", &[70000], 0x7bff),
            ("cvt.rm.f16.s32", &[(-70000i32) as u32 as u64], 0xfc00),
            ("cvt.rn.sat.f32.s32", &[5], 0x3f80_0000),
            ("cvt.rn.sat.f32.s32", &[(-5i32) as u32 as u64], 0),
            ("cvt.rn.sat.f32.s32", &[0], 0),
            ("cvt.rn.f64.s64", &[i64::MIN as u64], 0xc3e0_0000_0000_0000),
            ("cvt.rn.bf16.s16", &[0x8000], 0xc700),
            ("cvt.rz.bf16.u16", &[0xffff], 0x477f),
            ("cvt.rn.bf16.u16", &[0xffff], 0x4780),
            ("cvt.rn.f16.s8", &[0x80], 0xd800),
            ("cvt.rn.f64.u8", &[0xff], b64(255.0)),
        ]);
        let mut rng = Rng::new(7);
        let cases = [
            ("cvt.rn.f32.s32", 32, true, false),
            ("cvt.rn.f32.u32", 32, false, false),
            ("cvt.rn.f32.s64", 64, true, false),
            ("cvt.rn.f32.u64", 64, false, false),
            ("cvt.rn.f64.s64", 64, true, true),
            ("cvt.rn.f64.u64", 64, false, true),
        ];
        let mut d = [0];
        for (opcode, bits, signed, double) in cases {
            let c = compute(&variant(opcode)).unwrap();
            for _ in 0..50_000 {
                let x = rng.next_u64() >> (rng.next_u64() % 64);
                let x = super::super::mask(
                    if rng.next_u64().is_multiple_of(2) {
                        x.wrapping_neg()
                    } else {
                        x
                    },
                    bits,
                );
                c.run(&[x], &mut d);
                let want = match (signed, double, bits) {
                    (true, false, 32) => b(x as u32 as i32 as f32),
                    (false, false, 32) => b(x as u32 as f32),
                    (true, false, _) => b(x as i64 as f32),
                    (false, false, _) => b(x as f32),
                    (true, true, _) => b64(x as i64 as f64),
                    (false, true, _) => b64(x as f64),
                };
                assert_eq!(d[0], want, "{opcode} {x:#x}");
            }
        }
    }

    #[test]
    fn float_to_float() {
        let f = |x: f32| b(x);
        let d = b64;
        check(&[
            ("cvt.f64.f32", &[f(1.5)], d(1.5)),
            ("cvt.f64.f32", &[1], d(2f64.powi(-149))),
            ("cvt.f64.f32", &[NAN], 0x7ff8_0000_2000_0000),
            ("cvt.ftz.f64.f32", &[NAN], 0x7fff_ffff_e000_0000),
            ("cvt.ftz.f64.f32", &[1], 0),
            ("cvt.ftz.f64.f32", &[0x8000_0001], 1 << 63),
            ("cvt.rn.f32.f64", &[d(2f64.powi(-130))], 0x0008_0000),
            ("cvt.rn.ftz.f32.f64", &[d(2f64.powi(-130))], 0),
            ("cvt.rn.ftz.f32.f64", &[d(-2f64.powi(-130))], 0x8000_0000),
            ("cvt.rz.f32.f64", &[d(1e300)], 0x7f7f_ffff),
            ("cvt.rp.f32.f64", &[d(1e-300)], 1),
            ("cvt.rm.f32.f64", &[d(1e-300)], 0),
            ("cvt.rn.f32.f64", &[0xfff4_0000_0000_0001], 0xffe0_0000),
            // A plain same-type cvt moves the bits; any modifier computes.
            ("cvt.f32.f32", &[0x7f80_0001], 0x7f80_0001),
            ("cvt.f32.f32", &[0x8000_0001], 0x8000_0001),
            ("cvt.ftz.f32.f32", &[0x8000_0001], 0x8000_0000),
            ("cvt.ftz.f32.f32", &[0x7f80_0001], 0x7fff_ffff),
            ("cvt.ftz.f32.bf16", &[0x0001], 0),
            ("cvt.f32.bf16", &[0x0001], 0x0001_0000),
            ("cvt.ftz.f32.f16", &[0x0001], f(2f32.powi(-24))),
            // Rounding to an integral value in the same format.
            ("cvt.rni.f32.f32", &[f(2.5)], f(2.0)),
            ("cvt.rni.f32.f32", &[f(-0.4)], 0x8000_0000),
            ("cvt.rmi.f64.f64", &[d(-0.5)], d(-1.0)),
            ("cvt.rpi.f16.f16", &[0x3c01], 0x4000),
            ("cvt.rzi.bf16.bf16", &[0xbfc0], 0xbf80),
            ("cvt.rni.f32.f32", &[f(1e30)], f(1e30)),
            ("cvt.rni.f32.f32", &[NAN], 0x7fff_ffff),
            ("cvt.rpi.ftz.f32.f32", &[1], 0),
            ("cvt.rpi.f32.f32", &[1], f(1.0)),
            // f16 <-> bf16 both round.
            ("cvt.rn.f16.bf16", &[0x4780], 0x7c00),
            ("cvt.rz.f16.bf16", &[0x4780], 0x7bff),
            ("cvt.rn.bf16.f16", &[0x3c01], 0x3f80),
            ("cvt.rp.bf16.f16", &[0x3c01], 0x3f81),
            ("cvt.rn.bf16.f16", &[0x7e00], 0x7fff),
            // .sat: [+0, 1], NaN -> +0.
            ("cvt.sat.f32.f32", &[f(1.5)], f(1.0)),
            ("cvt.sat.f32.f32", &[f(-1.0)], 0),
            ("cvt.sat.f32.f32", &[0x8000_0000], 0),
            ("cvt.sat.f32.f32", &[NAN], 0),
            ("cvt.sat.f32.f32", &[f(0.5)], f(0.5)),
            ("cvt.sat.f32.f32", &[INF], f(1.0)),
            ("cvt.rn.sat.f16.f32", &[f(2.0)], 0x3c00),
            ("cvt.rn.sat.f32.f64", &[d(1.0 + 1e-12)], f(1.0)),
            ("cvt.sat.f64.f32", &[NEG_NAN], 0),
            // .relu: negative -> +0, NaN -> canonical NaN.
            ("cvt.rn.relu.f16.f32", &[f(-1.0)], 0),
            ("cvt.rn.relu.f16.f32", &[0x8000_0000], 0),
            ("cvt.rn.relu.f16.f32", &[NEG_NAN], 0x7fff),
            ("cvt.rn.relu.f16.f32", &[f(1e6)], 0x7c00),
            ("cvt.rz.relu.bf16.f32", &[f(-1e-40)], 0),
            ("cvt.rn.relu.satfinite.f16.f32", &[f(1e6)], 0x7bff),
            // .satfinite: infinities and overflow to MAX_NORM, NaN stays NaN.
            ("cvt.rn.satfinite.f16.f32", &[NEG_INF], 0xfbff),
            ("cvt.rn.satfinite.f16.f32", &[NAN], 0x7fff),
            ("cvt.rz.satfinite.bf16.f32", &[INF], 0x7f7f),
            ("cvt.rn.f16.f32", &[NEG_NAN], 0x7fff),
            ("cvt.rn.bf16.f32", &[0xff80_0001], 0x7fff),
            ("cvt.rn.bf16.f32", &[0x7f7f_ffff], 0x7f80),
            ("cvt.rz.bf16.f32", &[0x7f7f_ffff], 0x7f7f),
        ]);
        let mut rng = Rng::new(8);
        let c = compute(&variant("cvt.rn.f32.f64")).unwrap();
        let mut out = [0];
        for _ in 0..100_000 {
            let x = f64::from_bits(rng.next_u64() >> (rng.next_u64() % 3))
                * if rng.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
            c.run(&[b64(x)], &mut out);
            // A NaN keeps its sign and top payload bits, quieted (sm_90).
            let want = if x.is_nan() {
                b(x as f32) | 0x40_0000
            } else {
                b(x as f32)
            };
            assert_eq!(out[0], want, "{x:e}");
        }
    }

    #[test]
    fn packed_pairs() {
        let f = |x: f32| b(x);
        check(&[
            // The first source goes high.
            ("cvt.rn.f16x2.f32", &[f(1.0), f(-2.0)], 0x3c00_c000),
            (
                "cvt.rz.bf16x2.f32",
                &[f(-1.0), f(1.0 + 1.0 / 128.0 + 1.0 / 256.0)],
                0xbf80_3f81,
            ),
            ("cvt.rn.relu.f16x2.f32", &[f(-1.0), NAN], 0x0000_7fff),
            ("cvt.rn.satfinite.bf16x2.f32", &[INF, NEG_INF], 0x7f7f_ff7f),
            (
                "cvt.rn.relu.satfinite.f16x2.f32",
                &[f(70000.0), f(-70000.0)],
                0x7bff_0000,
            ),
            // tf32: 10 fraction bits in the top 19 bits.
            ("cvt.rna.tf32.f32", &[0x3f80_1000], 0x3f80_2000),
            ("cvt.rn.tf32.f32", &[0x3f80_1000], 0x3f80_0000),
            ("cvt.rn.tf32.f32", &[0x3f80_3000], 0x3f80_4000),
            ("cvt.rz.tf32.f32", &[0x3f80_1fff], 0x3f80_0000),
            ("cvt.rna.tf32.f32", &[0xbf80_0fff], 0xbf80_0000),
            ("cvt.rna.tf32.f32", &[1], 0),
            ("cvt.rna.tf32.f32", &[0x0000_1000], 0x0000_2000),
            ("cvt.rna.tf32.f32", &[NAN], 0x7fc0_0000),
            ("cvt.rna.tf32.f32", &[0x7f80_0001], INF),
            ("cvt.rna.satfinite.tf32.f32", &[NAN], 0x7fbf_e000),
            ("cvt.rn.tf32.f32", &[NEG_NAN], 0x7fff_e000),
            ("cvt.rna.tf32.f32", &[INF], INF),
            ("cvt.rna.tf32.f32", &[0x7f7f_ffff], INF),
            ("cvt.rz.tf32.f32", &[0x7f7f_ffff], 0x7f7f_e000),
            ("cvt.rna.satfinite.tf32.f32", &[0x7f7f_ffff], 0x7f7f_e000),
            ("cvt.rn.satfinite.tf32.f32", &[NEG_INF], 0xff7f_e000),
            ("cvt.rn.relu.tf32.f32", &[f(-1.0)], 0),
            ("cvt.rz.relu.tf32.f32", &[NEG_NAN], 0x7fff_e000),
            // fp8 pairs.
            ("cvt.rn.satfinite.e4m3x2.f32", &[f(1.0), f(2.0)], 0x3840),
            ("cvt.rn.satfinite.e5m2x2.f32", &[f(1.0), f(-2.0)], 0x3cc0),
            ("cvt.rn.satfinite.e4m3x2.f32", &[f(1000.0), NEG_INF], 0x7efe),
            ("cvt.rn.satfinite.e4m3x2.f32", &[NAN, NEG_NAN], 0x7f7f),
            (
                "cvt.rn.satfinite.e5m2x2.f32",
                &[0x7fc0_0000, 0xffff_ffff],
                0x7f7f,
            ),
            (
                "cvt.rn.satfinite.relu.e4m3x2.f32",
                &[f(-1.0), NEG_NAN],
                0x007f,
            ),
            (
                "cvt.rn.satfinite.relu.e5m2x2.f32",
                &[NEG_NAN, f(-1.0)],
                0x7f00,
            ),
            ("cvt.rn.satfinite.e4m3x2.f16x2", &[0x3c00_4000], 0x3840),
            ("cvt.rn.satfinite.relu.e5m2x2.f16x2", &[0xbc00_7c00], 0x007b),
            ("cvt.rn.f16x2.e4m3x2", &[0x38c0], 0x3c00_c000),
            ("cvt.rn.f16x2.e5m2x2", &[0x7f7c], 0x7fff_7c00),
            ("cvt.rn.relu.f16x2.e4m3x2", &[0xb87f], 0x0000_7fff),
            ("cvt.rn.f16x2.e4m3x2", &[0x01ff], 0x1800_7fff),
        ]);
    }

    #[test]
    fn fp6_fp4_ue8m0_pairs() {
        let f = |x: f32| b(x);
        check(&[
            ("cvt.rn.satfinite.e2m1x2.f32", &[f(6.0), f(-0.5)], 0x79),
            ("cvt.rn.satfinite.e2m1x2.f32", &[f(100.0), NAN], 0x77),
            ("cvt.rn.satfinite.e2m1x2.f32", &[f(-5.0), f(0.25)], 0xe0),
            ("cvt.rn.satfinite.e2m1x2.f32", &[NEG_INF, f(2.9)], 0xf5),
            (
                "cvt.rn.satfinite.relu.e2m1x2.f32",
                &[f(-6.0), f(1.25)],
                0x02,
            ),
            ("cvt.rn.satfinite.e2m3x2.f32", &[f(7.5), f(1.0)], 0x1f08),
            (
                "cvt.rn.satfinite.e3m2x2.f32",
                &[f(28.0), f(-0.0625)],
                0x1f21,
            ),
            ("cvt.rn.satfinite.e3m2x2.f32", &[f(1e9), NEG_INF], 0x1f3f),
            ("cvt.rn.f16x2.e2m1x2", &[0x79], 0x4600_b800),
            ("cvt.rn.relu.f16x2.e2m1x2", &[0x79], 0x4600_0000),
            ("cvt.rn.f16x2.e2m3x2", &[0xff1f], 0xc780_4780),
            ("cvt.rn.f16x2.e3m2x2", &[0x0121], 0x2c00_ac00),
            // ue8m0: magnitudes; rz truncates the exponent, rp rounds up.
            ("cvt.rz.ue8m0x2.f32", &[f(1.5), f(0.0)], 0x7f00),
            ("cvt.rp.ue8m0x2.f32", &[f(1.5), f(-4.0)], 0x8081),
            ("cvt.rp.ue8m0x2.f32", &[f(1.0), 1], 0x7f00),
            ("cvt.rp.ue8m0x2.f32", &[0x0040_0001, 0x0040_0000], 0x0100),
            ("cvt.rz.ue8m0x2.f32", &[INF, NAN], 0xffff),
            ("cvt.rz.satfinite.ue8m0x2.f32", &[INF, NAN], 0xfeff),
            ("cvt.rp.ue8m0x2.f32", &[0x7f7f_ffff, 0x7f00_0000], 0xfffe),
            (
                "cvt.rp.satfinite.ue8m0x2.f32",
                &[0x7f7f_ffff, 0x7f00_0000],
                0xfefe,
            ),
            ("cvt.rz.ue8m0x2.f32", &[0x7f7f_ffff, 0x0000_0001], 0xfe00),
            ("cvt.rp.ue8m0x2.bf16x2", &[0x3fc0_0001], 0x8000),
            ("cvt.rz.ue8m0x2.bf16x2", &[0xc080_7fc0], 0x81ff),
            ("cvt.rn.bf16x2.ue8m0x2", &[0x7f00], 0x3f80_0040),
            ("cvt.rn.bf16x2.ue8m0x2", &[0xfffe], 0x7fff_7f00),
            ("cvt.rn.bf16x2.ue8m0x2", &[0x0180], 0x0080_4000),
        ]);
    }

    #[test]
    fn pack() {
        let neg = |x: i32| x as u32 as u64;
        check(&[
            ("cvt.pack.sat.s16.s32", &[40000, neg(-40000)], 0x7fff_8000),
            ("cvt.pack.sat.s16.s32", &[neg(-1), 5], 0xffff_0005),
            ("cvt.pack.sat.u16.s32", &[neg(-5), 70000], 0x0000_ffff),
            ("cvt.pack.sat.u16.s32", &[1234, 5678], 1234 << 16 | 5678),
            (
                "cvt.pack.sat.u8.s32.b32",
                &[300, neg(-1), 0xabcd],
                0xabcd_ff00,
            ),
            (
                "cvt.pack.sat.s8.s32.b32",
                &[neg(-300), 127, 0xffff_ffff],
                0xffff_807f,
            ),
            ("cvt.pack.sat.s4.s32.b32", &[7, neg(-9), 0x123], 0x1_2378),
            ("cvt.pack.sat.u4.s32.b32", &[16, 3, 0], 0xf3),
            ("cvt.pack.sat.u2.s32.b32", &[3, 1, 0xffff_ffff], 0xffff_fffd),
            (
                "cvt.pack.sat.s2.s32.b32",
                &[neg(-5), 5, 0x8000_0001],
                0x0000_0019,
            ),
        ]);
    }

    /// GPU differential check: reads `opcode in.. -> out` lines (hex, as the
    /// `cvt` probe kernels print them) from the file named by
    /// `CVT_GPU_RESULTS` and compares every line with the interpreter.
    /// `CVT_LIST_VARIANTS=1` instead prints every variant with its
    /// destination and source carrier widths, for generating the probes.
    #[test]
    #[ignore]
    fn gpu_results_match() {
        if std::env::var("CVT_LIST_VARIANTS").is_ok() {
            for v in all_cvt_variants() {
                let ops = v.operands();
                let widths: Vec<String> = ops
                    .iter()
                    .map(|o| format!("{}:{}", o.ty.token(), o.ty.carrier_bits()))
                    .collect();
                println!("VARIANT {} {}", v.opcode_text(), widths.join(" "));
            }
            return;
        }
        let Ok(path) = std::env::var("CVT_GPU_RESULTS") else {
            return;
        };
        let text = std::fs::read_to_string(path).unwrap();
        let mut computes = std::collections::HashMap::new();
        let (mut checked, mut mismatches) = (0, Vec::new());
        for line in text.lines().filter(|l| l.contains("->")) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let arrow = words.iter().position(|w| *w == "->").unwrap();
            let opcode = words[0];
            let parse = |w: &str| u64::from_str_radix(w, 16).unwrap();
            let sources: Vec<u64> = words[1..arrow].iter().map(|w| parse(w)).collect();
            let want = parse(words[arrow + 1]);
            let (c, bits, widths) = computes.entry(opcode.to_string()).or_insert_with(|| {
                let v = variant(opcode);
                let ops = v.operands();
                let widths: Vec<usize> = ops[1..].iter().map(|o| o.ty.carrier_bits()).collect();
                (compute(&v).unwrap(), ops[0].ty.carrier_bits(), widths)
            });
            let sources: Vec<u64> = sources
                .iter()
                .zip(widths.iter())
                .map(|(&x, &w)| super::super::mask(x, w))
                .collect();
            let mut out = vec![0; c.outputs()];
            c.run(&sources, &mut out);
            checked += 1;
            if out[0] != super::super::mask(want, *bits) {
                mismatches.push(format!(
                    "{opcode} {sources:x?}: gpu {want:#x}, interp {:#x}",
                    out[0]
                ));
            }
        }
        println!("{checked} results checked, {} mismatches", mismatches.len());
        for m in mismatches.iter().take(200) {
            println!("{m}");
        }
        assert!(mismatches.is_empty());
    }
}
