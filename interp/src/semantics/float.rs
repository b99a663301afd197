//! Floating point (f32/f64, ISA 9.7.3): `add`, `sub`, `mul`, `fma`, `mad`,
//! `min`, `max`, `neg`, `abs`, `div`, `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh`, `copysign`, `testp`; and the per-element updates of
//! the floating-point `atom`/`red` variants (f32, f64, f16, bf16 and their
//! pairs).
//!
//! The rules below were read off an H200 (sm_90, driver 580, ptxas 13.0)
//! with every variant of the table over special values and random operands
//! (and agree with the PTX ISA wherever it specifies them):
//!
//! - **NaN results.** f32 (and f16/bf16, see `half.rs`) produce the
//!   canonical NaN `0x7fffffff` whenever the result is NaN, whatever the
//!   input NaNs (`neg` and `abs` included). f64 propagates an input NaN,
//!   quieted (bit 51 set), sign and payload kept (`neg`/`abs` do not flip
//!   its sign); when several operands are NaN the hardware prefers `b`
//!   then `a` for `add`/`sub`/`mul`, `a` then `b` for `div`, and `b`, `c`,
//!   `a` for `fma`/`mad`, and for `min`/`max` with both operands NaN, `b`.
//!   An invalid f64 operation (`inf - inf`, `0 * inf`, `0 / 0`,
//!   `sqrt(-1)`) gives `0xfff8000000000000`.
//! - **`.ftz`** (f32 only) replaces subnormal inputs by the zero of their
//!   sign, and *tiny* results too: those below the smallest normal after
//!   rounding to the precision with an unbounded exponent (IEEE 754
//!   tininess after rounding). A result just below `2^-126` that rounds up
//!   to it is kept (`softfloat`'s `flush_subnormal_output`).
//! - **`.sat`** clamps the result to `[+0.0, 1.0]`; NaN and `-0.0` give `+0.0`.
//! - **`min`/`max`**: a NaN operand is ignored (both NaN: NaN), `.NaN`
//!   makes any NaN operand give the canonical NaN, `-0.0 < +0.0`;
//!   `.xorsign.abs` compares magnitudes and gives the result the exclusive
//!   or of both operands' signs (NaN operands' signs included), except
//!   that a NaN result stays the canonical NaN.
//! - **`copysign`** is bitwise: `b`'s bits with `a`'s sign bit, NaN
//!   payloads kept.
//! - **`testp.normal`** counts `+-0.0` as normal.
//! - `mad.rnd` is `fma.rnd`.
//! - The `.approx` forms and `div.full` are in `approx.rs`, with their
//!   documented error bounds.

use super::approx;
use super::softfloat::{self, Exact, Format, RoundOptions, Rounding};
use super::{AtomicUpdate, Bits, Compute};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Effect, Modifiers, PtxType, Space};

/// A scalar floating-point register type of the float and half families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// IEEE binary16 (`.f16`, each half of `.f16x2`).
    F16,
    /// bfloat16 (`.bf16`, each half of `.bf16x2`).
    Bf16,
    /// IEEE binary32 (`.f32`).
    F32,
    /// IEEE binary64 (`.f64`).
    F64,
}

impl Kind {
    /// The scalar kind of `ty` (`.f16x2`/`.bf16x2` give their halves' kind).
    pub(super) fn of(ty: PtxType) -> Option<Kind> {
        Some(match ty {
            PtxType::F16 | PtxType::F16x2 => Kind::F16,
            PtxType::Bf16 | PtxType::Bf16x2 => Kind::Bf16,
            PtxType::F32 => Kind::F32,
            PtxType::F64 => Kind::F64,
            _ => return None,
        })
    }

    /// The softfloat format.
    pub(super) const fn format(self) -> Format {
        match self {
            Kind::F16 => Format::F16,
            Kind::Bf16 => Format::BF16,
            Kind::F32 => Format::F32,
            Kind::F64 => Format::F64,
        }
    }

    /// Width in bits.
    pub(super) const fn bits(self) -> u32 {
        match self {
            Kind::F16 | Kind::Bf16 => 16,
            Kind::F32 => 32,
            Kind::F64 => 64,
        }
    }

    const fn fraction_bits(self) -> u32 {
        match self {
            Kind::F16 => 10,
            Kind::Bf16 => 7,
            Kind::F32 => 23,
            Kind::F64 => 52,
        }
    }

    /// All bits of a register of this kind.
    pub(super) const fn mask(self) -> Bits {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1 << self.bits()) - 1
        }
    }

    /// The sign bit.
    pub(super) const fn sign(self) -> Bits {
        1 << (self.bits() - 1)
    }

    /// The exponent field, in place (also the encoding of `+inf`).
    const fn infinity(self) -> Bits {
        self.mask() >> 1 & !self.fraction_mask()
    }

    const fn fraction_mask(self) -> Bits {
        (1 << self.fraction_bits()) - 1
    }

    /// `1.0`.
    pub(super) const fn one(self) -> Bits {
        (self.infinity() >> 1) & self.infinity()
    }

    /// Whether `x` is a NaN.
    pub(super) const fn is_nan(self, x: Bits) -> bool {
        x & (self.mask() >> 1) > self.infinity()
    }

    /// Whether `x` is a subnormal (exponent field zero, fraction nonzero).
    pub(super) const fn is_subnormal(self, x: Bits) -> bool {
        x & self.infinity() == 0 && x & self.fraction_mask() != 0
    }

    /// `x` with a subnormal replaced by the zero of its sign.
    pub(super) const fn flush(self, x: Bits) -> Bits {
        if self.is_subnormal(x) {
            x & self.sign()
        } else {
            x
        }
    }

    /// The canonical NaN: all bits but the sign set.
    pub(super) const fn canonical_nan(self) -> Bits {
        self.mask() >> 1
    }

    /// The NaN an invalid operation (`inf - inf`, `0 * inf`, ..) produces:
    /// the canonical NaN, except f64's `0xfff8000000000000`.
    pub(super) const fn default_nan(self) -> Bits {
        match self {
            Kind::F64 => 0xfff8_0000_0000_0000,
            _ => self.canonical_nan(),
        }
    }

    /// The NaN result of an operation whose operands (listed in the order
    /// the hardware prefers them) include a NaN, or `None` if none is NaN:
    /// the canonical NaN, except that f64 keeps the first NaN, quieted.
    #[inline]
    pub(super) fn nan_of(self, operands: &[Bits]) -> Option<Bits> {
        let first = operands.iter().copied().find(|&x| self.is_nan(x))?;
        Some(match self {
            Kind::F64 => first | 1 << 51,
            _ => self.canonical_nan(),
        })
    }

    /// `.sat`: `x` clamped to `[+0.0, 1.0]`, NaN and `-0.0` to `+0.0`.
    pub(super) const fn saturate(self, x: Bits) -> Bits {
        if self.is_nan(x) || x & self.sign() != 0 {
            0
        } else if x > self.one() {
            self.one()
        } else {
            x
        }
    }

    /// A key that orders non-NaN values numerically, `-0.0` below `+0.0`.
    const fn order_key(self, x: Bits) -> Bits {
        if x & self.sign() != 0 {
            !x & self.mask()
        } else {
            x | self.sign()
        }
    }

    /// Whether `x` is nonzero and at most the smallest normal magnitude.
    const fn near_tiny(self, x: Bits) -> bool {
        let magnitude = x & self.mask() >> 1;
        magnitude != 0 && magnitude <= 1 << self.fraction_bits()
    }

    /// The exact value of `x`.
    pub(super) fn decode(self, x: Bits) -> Exact {
        softfloat::decode(self.format(), x)
    }
}

/// The rounding direction of a PTX token (`rn` when absent or not a
/// rounding token).
pub(super) fn rounding(token: Option<&str>) -> Rounding {
    token
        .and_then(Rounding::from_ptx)
        .unwrap_or(Rounding::NearestEven)
}

/// A rounded arithmetic instruction of one kind: its rounding, `.ftz` and
/// `.sat`. Each operation flushes its inputs (`.ftz`), applies the kind's
/// NaN rule, rounds once, flushes a subnormal result (`.ftz`) and saturates
/// (`.sat`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Arith {
    /// The operand and result type.
    pub(super) kind: Kind,
    /// The rounding direction.
    pub(super) rounding: Rounding,
    /// `.ftz`: flush subnormal inputs and results to zero.
    pub(super) ftz: bool,
    /// `.sat`: clamp the result to `[0.0, 1.0]`.
    pub(super) sat: bool,
}

impl Arith {
    /// The arithmetic of a variant with a `rnd` slot (default `.rn`), `.ftz`
    /// and `.sat`.
    pub(super) fn of(kind: Kind, m: &Modifiers, rounding_slot: Slot) -> Arith {
        Arith {
            kind,
            rounding: rounding(m.get(rounding_slot)),
            ftz: m.has(Slot::Ftz),
            sat: m.has(Slot::Sat),
        }
    }

    /// An operand as the instruction sees it.
    #[inline]
    fn input(self, x: Bits) -> Bits {
        let x = x & self.kind.mask();
        if self.ftz { self.kind.flush(x) } else { x }
    }

    /// The result of a NaN operand.
    #[inline]
    fn nan_result(self, nan: Bits) -> Bits {
        if self.sat { 0 } else { nan }
    }

    /// A correctly rounded result's bits (from a native computation) with
    /// `.ftz` and `.sat` applied.
    #[inline]
    fn finish_bits(self, bits: Bits) -> Bits {
        let bits = if self.kind.is_nan(bits) {
            self.kind.default_nan()
        } else if self.ftz {
            self.kind.flush(bits)
        } else {
            bits
        };
        if self.sat {
            self.kind.saturate(bits)
        } else {
            bits
        }
    }

    /// An exact result rounded, with `.ftz` and `.sat` applied.
    #[inline]
    fn finish(self, value: Exact) -> Bits {
        let bits = if value.is_nan() {
            self.kind.default_nan()
        } else {
            // `.ftz`: the rounding core judges tininess after rounding with
            // an unbounded exponent, as the GPU does.
            let options = RoundOptions {
                flush_subnormal_output: self.ftz,
                ..RoundOptions::default()
            };
            softfloat::round(self.kind.format(), value, self.rounding, options)
        };
        if self.sat {
            self.kind.saturate(bits)
        } else {
            bits
        }
    }

    /// The result from the host's native IEEE operation (`native`, used
    /// for `.rn` on f32 and f64) or else from the exact value (`exact`).
    /// A native result at the bottom of the normal range under `.ftz` is
    /// redone exactly, since `.ftz` depends on the unbounded rounding.
    #[inline]
    fn run(self, native: impl FnOnce() -> Bits, exact: impl FnOnce() -> Exact) -> Bits {
        if self.rounding == Rounding::NearestEven && matches!(self.kind, Kind::F32 | Kind::F64) {
            let bits = native();
            if !(self.ftz && self.kind.near_tiny(bits)) {
                return self.finish_bits(bits);
            }
        }
        self.finish(exact())
    }

    /// `a + b`.
    pub(super) fn add(self, a: Bits, b: Bits) -> Bits {
        let (a, b) = (self.input(a), self.input(b));
        if let Some(nan) = self.kind.nan_of(&[b, a]) {
            return self.nan_result(nan);
        }
        self.add_numbers(a, b)
    }

    /// `a - b`.
    pub(super) fn sub(self, a: Bits, b: Bits) -> Bits {
        let (a, b) = (self.input(a), self.input(b));
        if let Some(nan) = self.kind.nan_of(&[b, a]) {
            return self.nan_result(nan);
        }
        self.add_numbers(a, b ^ self.kind.sign())
    }

    fn add_numbers(self, a: Bits, b: Bits) -> Bits {
        let k = self.kind;
        self.run(
            || match k {
                Kind::F32 => f32_bits(f32_of(a) + f32_of(b)),
                _ => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
            },
            || softfloat::add(k.decode(a), k.decode(b), self.rounding),
        )
    }

    /// `a * b`.
    pub(super) fn mul(self, a: Bits, b: Bits) -> Bits {
        let (a, b) = (self.input(a), self.input(b));
        if let Some(nan) = self.kind.nan_of(&[b, a]) {
            return self.nan_result(nan);
        }
        let k = self.kind;
        self.run(
            || match k {
                Kind::F32 => f32_bits(f32_of(a) * f32_of(b)),
                _ => (f64::from_bits(a) * f64::from_bits(b)).to_bits(),
            },
            || softfloat::mul(k.decode(a), k.decode(b)),
        )
    }

    /// `a * b + c` with one rounding.
    pub(super) fn fma(self, a: Bits, b: Bits, c: Bits) -> Bits {
        let (a, b, c) = (self.input(a), self.input(b), self.input(c));
        if let Some(nan) = self.kind.nan_of(&[b, c, a]) {
            return self.nan_result(nan);
        }
        let k = self.kind;
        self.run(
            || match k {
                Kind::F32 => f32_bits(f32_of(a).mul_add(f32_of(b), f32_of(c))),
                _ => f64::from_bits(a)
                    .mul_add(f64::from_bits(b), f64::from_bits(c))
                    .to_bits(),
            },
            || softfloat::fma(k.decode(a), k.decode(b), k.decode(c), self.rounding),
        )
    }

    /// `a / b`, correctly rounded.
    pub(super) fn div(self, a: Bits, b: Bits) -> Bits {
        let (a, b) = (self.input(a), self.input(b));
        if let Some(nan) = self.kind.nan_of(&[a, b]) {
            return self.nan_result(nan);
        }
        let k = self.kind;
        self.run(
            || match k {
                Kind::F32 => f32_bits(f32_of(a) / f32_of(b)),
                _ => (f64::from_bits(a) / f64::from_bits(b)).to_bits(),
            },
            || softfloat::div(k.decode(a), k.decode(b)),
        )
    }

    /// The square root of `a`, correctly rounded.
    pub(super) fn sqrt(self, a: Bits) -> Bits {
        let a = self.input(a);
        if let Some(nan) = self.kind.nan_of(&[a]) {
            return self.nan_result(nan);
        }
        let k = self.kind;
        self.run(
            || match k {
                Kind::F32 => f32_bits(f32_of(a).sqrt()),
                _ => f64::from_bits(a).sqrt().to_bits(),
            },
            || softfloat::sqrt(k.decode(a)),
        )
    }
}

/// The `f32` whose bits are the low 32 bits of `x`.
#[inline]
pub(super) fn f32_of(x: Bits) -> f32 {
    f32::from_bits(x as u32)
}

/// The bits of `x`, zero-extended.
#[inline]
pub(super) fn f32_bits(x: f32) -> Bits {
    Bits::from(x.to_bits())
}

/// `min`/`max` with their flags, per the ISA's pseudo-code.
#[derive(Debug, Clone, Copy)]
pub(super) struct MinMax {
    /// The operand and result type.
    pub(super) kind: Kind,
    /// `max` (else `min`).
    pub(super) max: bool,
    /// `.ftz`: subnormal operands count as zeros of their sign.
    pub(super) ftz: bool,
    /// `.NaN`: a NaN operand gives the canonical NaN.
    pub(super) nan: bool,
    /// `.xorsign.abs`: compare magnitudes, result sign = xor of the signs.
    pub(super) xorsign: bool,
}

impl MinMax {
    /// The `min`/`max` of a variant (`.ftz`, `.NaN`, `.xorsign.abs`).
    pub(super) fn of(kind: Kind, m: &Modifiers) -> MinMax {
        MinMax {
            kind,
            max: m.form.mnemonic == "max",
            ftz: m.has(Slot::Ftz),
            nan: m.has(Slot::Nan),
            xorsign: m.has(Slot::Xorsign),
        }
    }

    /// The result for operands `a` and `b`.
    pub(super) fn apply(self, a: Bits, b: Bits) -> Bits {
        let k = self.kind;
        let (mut a, mut b) = (a & k.mask(), b & k.mask());
        if self.ftz {
            a = k.flush(a);
            b = k.flush(b);
        }
        let sign = (a ^ b) & k.sign();
        if self.xorsign {
            a &= !k.sign();
            b &= !k.sign();
        }
        let (a_nan, b_nan) = (k.is_nan(a), k.is_nan(b));
        let d = if a_nan && b_nan {
            return k.nan_of(&[b, a]).unwrap_or(k.canonical_nan());
        } else if a_nan || b_nan {
            if self.nan {
                return k.canonical_nan();
            }
            if a_nan { b } else { a }
        } else if (k.order_key(a) < k.order_key(b)) != self.max {
            a
        } else {
            b
        };
        if self.xorsign {
            d & !k.sign() | sign
        } else {
            d
        }
    }
}

/// `neg`/`abs` of `kind`: f32/f16/bf16 NaNs give the canonical NaN, f64
/// NaNs are returned quieted (sign unchanged); `.ftz` flushes a subnormal
/// operand first.
pub(super) fn sign_op(kind: Kind, abs: bool, ftz: bool, a: Bits) -> Bits {
    let a = a & kind.mask();
    let a = if ftz { kind.flush(a) } else { a };
    if let Some(nan) = kind.nan_of(&[a]) {
        return nan;
    }
    if abs {
        a & !kind.sign()
    } else {
        a ^ kind.sign()
    }
}

/// `testp.test`: whether `a` is of the tested class (`normal` counts zeros).
fn testp(kind: Kind, test: &str) -> Option<impl Fn(Bits) -> Bits + Send + Sync + 'static> {
    let which = match test {
        "finite" => 0,
        "infinite" => 1,
        "number" => 2,
        "notanumber" => 3,
        "normal" => 4,
        "subnormal" => 5,
        _ => return None,
    };
    Some(move |a: Bits| {
        let magnitude = a & kind.mask() >> 1;
        let inf = kind.infinity();
        let is = match which {
            0 => magnitude < inf,
            1 => magnitude == inf,
            2 => magnitude <= inf,
            3 => magnitude > inf,
            4 => magnitude < inf && !kind.is_subnormal(magnitude),
            _ => kind.is_subnormal(magnitude),
        };
        Bits::from(is)
    })
}

fn unary(f: impl Fn(Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(1, 1, move |s, d| d[0] = f(s[0]))
}

fn binary(f: impl Fn(Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(2, 1, move |s, d| d[0] = f(s[0], s[1]))
}

fn ternary(f: impl Fn(Bits, Bits, Bits) -> Bits + Send + Sync + 'static) -> Compute {
    Compute::new(3, 1, move |s, d| d[0] = f(s[0], s[1], s[2]))
}

/// The semantics of a variant of this family's forms, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    let id = m.form.id;
    let kind = match Kind::of(m.ty(Slot::Type)?)? {
        k @ (Kind::F32 | Kind::F64) => k,
        _ => return None,
    };
    let ftz = m.has(Slot::Ftz);
    let approx = m.get(Slot::Mode) == Some("approx");
    Some(match id {
        "add.float" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(move |a, b| op.add(a, b))
        }
        "sub.float" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(move |a, b| op.sub(a, b))
        }
        "mul.float" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            binary(move |a, b| op.mul(a, b))
        }
        "fma" | "mad.float" => {
            let op = Arith::of(kind, m, Slot::Rnd);
            ternary(move |a, b, c| op.fma(a, b, c))
        }
        "min.float" | "max.float" => {
            let op = MinMax::of(kind, m);
            binary(move |a, b| op.apply(a, b))
        }
        "neg.float" | "abs.float" => {
            let abs = m.form.mnemonic == "abs";
            unary(move |a| sign_op(kind, abs, ftz, a))
        }
        "copysign" => {
            let sign = kind.sign();
            let mask = kind.mask();
            binary(move |a, b| (b & !sign | a & sign) & mask)
        }
        "testp" => {
            let test = testp(kind, m.get(Slot::Test)?)?;
            unary(test)
        }
        "div.float" => match (m.get(Slot::Mode)?, kind) {
            ("approx", Kind::F32) => binary(move |a, b| approx::div_f32(a, b, ftz)),
            ("full", Kind::F32) => binary(move |a, b| approx::div_full_f32(a, b, ftz)),
            _ => {
                let op = Arith::of(kind, m, Slot::Mode);
                binary(move |a, b| op.div(a, b))
            }
        },
        "rcp.f32" | "rcp.f64" | "rcp.approx.f64" => match (approx, kind) {
            (true, Kind::F32) => unary(move |a| approx::rcp_f32(a, ftz)),
            (true, _) => unary(approx::rcp_ftz_f64),
            _ => {
                let slot = if id == "rcp.f32" {
                    Slot::Mode
                } else {
                    Slot::Rnd
                };
                let op = Arith::of(kind, m, slot);
                let one = kind.one();
                unary(move |a| op.div(one, a))
            }
        },
        "sqrt" => match (approx, kind) {
            (true, Kind::F32) => unary(move |a| approx::sqrt_f32(a, ftz)),
            _ => {
                let op = Arith::of(kind, m, Slot::Mode);
                unary(move |a| op.sqrt(a))
            }
        },
        "rsqrt" => match kind {
            Kind::F32 => unary(move |a| approx::rsqrt_f32(a, ftz)),
            _ => unary(move |a| approx::rsqrt_f64(a, ftz)),
        },
        "sin" => unary(move |a| approx::sin_f32(a, ftz)),
        "cos" => unary(move |a| approx::cos_f32(a, ftz)),
        "lg2" => unary(move |a| approx::lg2_f32(a, ftz)),
        "ex2.float" => unary(move |a| approx::ex2_f32(a, ftz)),
        "tanh.float" => unary(approx::tanh_f32),
        _ => return None,
    })
}

/// The per-element update of a floating-point `atom`/`red` variant (`add`
/// on f32/f64/f16/bf16 and pairs, vector `min`/`max` on the half types),
/// or `None` for other variants.
///
/// `add.f32` (vector forms too) rounds to nearest and flushes subnormal
/// inputs and results (the ISA: "atom.add.f32 rounds to nearest even and
/// flushes subnormal inputs and results to sign-preserving zero"), NaN
/// results are canonical; `add.f64` rounds to nearest without flushing and,
/// unlike `add.f64` in registers, stores a NaN operand unchanged (not
/// quieted; `b`'s before the old value's, measured on an H200); the
/// `.noftz` half-precision adds round to nearest without flushing, NaN
/// results canonical. Vector `min`/`max` on the half types follow `min`/
/// `max` without flags. The update of a pair (`.f16x2`, `.bf16x2`) works on
/// each half. A bulk reduction (`cp.reduce.async.bulk...global`: `add`
/// on f32/f64, `add.noftz` and `min`/`max` on f16/bf16) gets the update of
/// its `red.global` twin, element by element.
pub(crate) fn atomic_update(m: &Modifiers) -> Option<AtomicUpdate> {
    if !matches!(m.effect(), Effect::Atomic { .. }) && !m.bulk_reduction() {
        return None;
    }
    let ty = m.ty(Slot::Type)?;
    let kind = Kind::of(ty)?;
    let pair = matches!(ty, PtxType::F16x2 | PtxType::Bf16x2);
    let bits = if pair { 32 } else { kind.bits() as usize };
    let element: Box<dyn Fn(Bits, Bits) -> Bits + Send + Sync> = match m.get(Slot::Op)? {
        "add" => {
            // The PTX ISA: `atom`/`red.add.f32` on global memory flushes
            // subnormal inputs and results to sign-preserving zero; on
            // shared memory it keeps them. (Generic addresses are global
            // tensors' in kernels.) A bulk reduction names its spaces in
            // its `dst`/`src` slots, not the `space` one: it writes global
            // memory.
            let shared = !m.bulk_reduction() && matches!(m.space(), Space::Shared { .. });
            let op = Arith {
                kind,
                rounding: Rounding::NearestEven,
                ftz: kind == Kind::F32 && !shared,
                sat: false,
            };
            if kind == Kind::F64 && shared {
                // f64 on shared memory (measured on the H200): the old
                // value's NaN first, then `b`'s, each quieted with its
                // payload.
                let quiet = 1u64 << 51;
                Box::new(move |old, b| {
                    if kind.is_nan(old) {
                        old | quiet
                    } else if kind.is_nan(b) {
                        b | quiet
                    } else {
                        op.add(old, b)
                    }
                })
            } else if kind == Kind::F64 {
                // f64 on global memory: a NaN operand is stored as it is
                // (not quieted), `b`'s first.
                Box::new(move |old, b| {
                    if kind.is_nan(b) {
                        b
                    } else if kind.is_nan(old) {
                        old
                    } else {
                        op.add(old, b)
                    }
                })
            } else {
                Box::new(move |old, b| op.add(old, b))
            }
        }
        op @ ("min" | "max") if matches!(kind, Kind::F16 | Kind::Bf16) => {
            let op = MinMax {
                kind,
                max: op == "max",
                ftz: false,
                nan: false,
                xorsign: false,
            };
            Box::new(move |old, b| op.apply(old, b))
        }
        _ => return None,
    };
    Some(if pair {
        AtomicUpdate::new(bits, move |old, o| {
            let b = o.first().copied().unwrap_or(0);
            super::half::per_half(old, b, &element)
        })
    } else {
        AtomicUpdate::new(bits, move |old, o| {
            element(old, o.first().copied().unwrap_or(0))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tile_kernel_testkit::Rng;

    /// Operand bits of `kind`: uniform, or with a small exponent range.
    fn operand(kind: Kind, rng: &mut Rng) -> Bits {
        let r = rng.next_u64();
        let x = match r % 4 {
            0 => r >> 7,
            // Exponent near the bottom, or near 1.0.
            1 => (r >> 9) & (kind.fraction_mask() | 3 << kind.fraction_bits()),
            _ => kind.one() ^ (r >> 13) & (kind.fraction_mask() | 7 << kind.fraction_bits()),
        };
        (x ^ r << 63 >> (64 - kind.bits())) & kind.mask()
    }

    /// The native `.rn` fast paths give the bits of the exact path.
    #[test]
    fn native_paths_equal_the_exact_paths() {
        let mut rng = Rng::new(0x0123_4567_89ab_cdef);
        for kind in [Kind::F32, Kind::F64] {
            for ftz in [false, true] {
                let op = Arith {
                    kind,
                    rounding: Rounding::NearestEven,
                    ftz: ftz && kind == Kind::F32,
                    sat: false,
                };
                for _ in 0..200_000 {
                    let (a, b, c) = (
                        op.input(operand(kind, &mut rng)),
                        op.input(operand(kind, &mut rng)),
                        op.input(operand(kind, &mut rng)),
                    );
                    if [a, b, c].iter().any(|&x| kind.is_nan(x)) {
                        continue;
                    }
                    let (x, y, z) = (kind.decode(a), kind.decode(b), kind.decode(c));
                    let rn = Rounding::NearestEven;
                    let cases = [
                        (op.add(a, b), softfloat::add(x, y, rn)),
                        (op.mul(a, b), softfloat::mul(x, y)),
                        (op.fma(a, b, c), softfloat::fma(x, y, z, rn)),
                        (op.div(a, b), softfloat::div(x, y)),
                        (op.sqrt(a), softfloat::sqrt(x)),
                    ];
                    for (i, (fast, exact)) in cases.into_iter().enumerate() {
                        assert_eq!(
                            fast,
                            op.finish(exact),
                            "{kind:?} ftz={ftz} op {i}: {a:#x} {b:#x} {c:#x}"
                        );
                    }
                }
            }
        }
    }

    /// `.ftz` flushes by tininess after rounding with an unbounded exponent.
    #[test]
    fn tininess_is_judged_with_an_unbounded_exponent() {
        // Whether `.ftz` rounding flushes the nonzero `value` to zero.
        let flushed = |kind: Kind, value: Exact, rounding| {
            let options = RoundOptions {
                flush_subnormal_output: true,
                ..RoundOptions::default()
            };
            softfloat::round(kind.format(), value, rounding, options) & !kind.sign() == 0
        };
        let min = Exact::Finite {
            negative: false,
            significand: 1,
            exponent: -126,
            sticky: false,
        };
        assert!(!flushed(Kind::F32, min, Rounding::NearestEven));
        // 2^-126 (1 - 2^-30): rounds up to 2^-126 to nearest and upward.
        let below = Exact::Finite {
            negative: false,
            significand: (1 << 30) - 1,
            exponent: -156,
            sticky: false,
        };
        assert!(!flushed(Kind::F32, below, Rounding::NearestEven));
        assert!(!flushed(Kind::F32, below, Rounding::Up));
        assert!(flushed(Kind::F32, below, Rounding::TowardZero));
        assert!(flushed(Kind::F32, below.negate(), Rounding::Up));
        // 2^-126 (1 - 2^-24) is representable with 24 bits: tiny.
        let below = Exact::Finite {
            negative: true,
            significand: (1 << 24) - 1,
            exponent: -150,
            sticky: false,
        };
        assert!(flushed(Kind::F32, below, Rounding::NearestEven));
        assert!(flushed(
            Kind::F16,
            Kind::F16.decode(0x03ff),
            Rounding::NearestEven
        ));
        assert!(!flushed(
            Kind::F16,
            Kind::F16.decode(0x0400),
            Rounding::NearestEven
        ));
    }
}
