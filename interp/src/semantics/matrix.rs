//! Warp matrix multiply-accumulate: `mma.sync.aligned` (ISA 9.7.14.5).
//!
//! A warp collective: the 32 lanes hold the fragments of A (`M x K`), B
//! (`K x N`) and C (`M x N`) in the layouts of
//! [`tile_kernel_lowering::ptx::fragments`], and each gets its part of
//! `D = A * B + C`. `.aligned` makes the result undefined unless every lane
//! of the warp executes the instruction (the checker proves it; here a
//! partial warp is a fault).
//!
//! Integer forms are exact: products and sums in 64 bits, then `.satfinite`
//! clamps to the s32 range, and without it the sum wraps modulo 2^32.
//! Single-bit forms add `popc` of `a AND b` or `a XOR b` over k.
//!
//! Floating-point forms follow the H200's own arithmetic, fitted to
//! 2.6 million elements of differential data (every mode bit for bit;
//! `docs/interpreter.md`, "Tensor cores"). The core is one *fused step*
//! ([`fused_sum`]): every product is exact; each term (product or
//! accumulator) is aligned at an exponent, the product's `ea + eb` (the
//! inputs' exponents, a subnormal counting as the format's minimum), the
//! accumulator's its own; each term's magnitude is truncated toward zero
//! to a multiple of `2^(E - 25)`, `E` the largest of them (24 bits and two
//! more below the largest); the truncated terms add exactly.
//!
//! - f16/bf16 with an f32 accumulator, and tf32: one step over all K
//!   products and C, rounded toward zero to f32 (tf32 ignores the low 13
//!   bits of its registers);
//! - f16 with an f16 accumulator: the same step rounded to nearest-even
//!   directly to f16 (overflow is infinity);
//! - fp8 (e4m3/e5m2, as their exact f16 values): two steps from +0, over
//!   the k with `k % 4` in {0, 1}, then {2, 3}, each rounded toward zero
//!   to f32, and then `C + acc` as one f32 addition rounded to nearest-even.
//!
//! - f64 (`m8n8k4`): IEEE 754 throughout, fused multiply-adds from C over
//!   k = 0..3, each rounded to nearest-even ([`f64_element`]; measured).
//!
//! Exact zeros are +0. Not in the measured data, so modelled by IEEE 754
//! and not yet confirmed: infinities and NaNs among the inputs (any NaN or
//! an invalid operation gives the canonical NaN), f32 overflow (rounding
//! toward zero gives the largest finite value), subnormal f16/bf16/tf32
//! inputs and f32 C (taken exactly), and `-0` accumulators.

use super::softfloat::{self, Exact, Format, RoundOptions, Rounding};
use super::{Bits, Collective, CollectiveError};
use tile_kernel_lowering::ptx::fragments::{self, FragmentLayout, MmaLayouts};
use tile_kernel_lowering::ptx::{Modifiers, Slot};

/// What one multiplicand element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Element {
    Float(Format),
    Int { bits: u32, signed: bool },
    Bit,
}

impl Element {
    fn of(token: &str) -> Option<Element> {
        Some(match token {
            "f16" => Element::Float(Format::F16),
            "bf16" => Element::Float(Format::BF16),
            "tf32" => Element::Float(Format::TF32),
            "e4m3" => Element::Float(Format::E4M3),
            "e5m2" => Element::Float(Format::E5M2),
            "f64" => Element::Float(Format::F64),
            "s8" => Element::Int {
                bits: 8,
                signed: true,
            },
            "u8" => Element::Int {
                bits: 8,
                signed: false,
            },
            "s4" => Element::Int {
                bits: 4,
                signed: true,
            },
            "u4" => Element::Int {
                bits: 4,
                signed: false,
            },
            "b1" => Element::Bit,
            _ => return None,
        })
    }

    /// Bits an element takes in its register (tf32: a whole register).
    fn width(self) -> u32 {
        match self {
            Element::Float(f) if f == Format::TF32 => 32,
            Element::Float(f) => f.width(),
            Element::Int { bits, .. } => bits,
            Element::Bit => 1,
        }
    }

    fn integer(self, raw: u64) -> i64 {
        match self {
            Element::Int { bits, signed: true } => {
                let shift = 64 - bits;
                ((raw << shift) as i64) >> shift
            }
            _ => raw as i64,
        }
    }
}

/// The accumulator (C and D) type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accumulator {
    F32,
    F16,
    F64,
    S32,
}

impl Accumulator {
    fn of(token: &str) -> Option<Accumulator> {
        Some(match token {
            "f32" => Accumulator::F32,
            "f16" => Accumulator::F16,
            "f64" => Accumulator::F64,
            "s32" => Accumulator::S32,
            _ => return None,
        })
    }

    fn width(self) -> u32 {
        match self {
            Accumulator::F16 => 16,
            Accumulator::F64 => 64,
            Accumulator::F32 | Accumulator::S32 => 32,
        }
    }

    fn format(self) -> Format {
        match self {
            Accumulator::F16 => Format::F16,
            Accumulator::F64 => Format::F64,
            Accumulator::F32 | Accumulator::S32 => Format::F32,
        }
    }
}

/// The arithmetic of one element of D: the types and modes of a variant.
#[derive(Debug, Clone, Copy)]
struct Arithmetic {
    a: Element,
    b: Element,
    c: Accumulator,
    satfinite: bool,
    /// Single-bit forms: XOR (else AND) before the population count.
    xor: bool,
}

/// One `mma` variant: its fragment layouts and arithmetic.
#[derive(Debug, Clone, Copy)]
struct Mma {
    layouts: &'static MmaLayouts,
    arithmetic: Arithmetic,
}

/// The semantics of an `mma` variant, or `None` for other forms.
pub(crate) fn collective(variant: &Modifiers) -> Option<Collective> {
    if variant.form.mnemonic != "mma" {
        return None;
    }
    let a = Element::of(variant.get(Slot::Atype)?)?;
    let b = Element::of(variant.get(Slot::Btype)?)?;
    let c = Accumulator::of(variant.get(Slot::Ctype)?)?;
    let layouts = fragments::mma(variant.get(Slot::Shape)?, a.width().min(64))?;
    let mma = Mma {
        layouts,
        arithmetic: Arithmetic {
            a,
            b,
            c,
            satfinite: variant.get(Slot::Satfinite).is_some(),
            xor: variant.get(Slot::Bitop) == Some("xor"),
        },
    };
    let name = variant.opcode_text();
    let registers = |layout: &FragmentLayout, width: u32| {
        ((layout.elements() * width).div_ceil(32) as usize).max(1)
    };
    let (a_regs, b_regs) = if a == Element::Float(Format::F64) {
        (1, 1)
    } else {
        (
            registers(&layouts.a, a.width()),
            registers(&layouts.b, b.width()),
        )
    };
    let c_per_register = if c == Accumulator::F16 { 2 } else { 1 };
    let c_regs = (layouts.c.elements() / c_per_register) as usize;
    let inputs = a_regs + b_regs + c_regs;
    Some(Collective::new(
        inputs,
        c_regs,
        move |executing, sources, destinations| {
            if executing != u32::MAX {
                let absent: Vec<String> = (0..32)
                    .filter(|l| executing & (1 << l) == 0)
                    .map(|l: u32| l.to_string())
                    .collect();
                return Err(CollectiveError {
                    lane: executing.trailing_zeros() % 32,
                    message: format!(
                        "{name}: lanes {} of the warp do not execute it: `.aligned` needs all 32 \
                         lanes (undefined behaviour)",
                        absent.join(", ")
                    ),
                });
            }
            let lane_sources = |lane: u32| &sources[lane as usize * inputs..][..inputs];
            let a_elems = gather(&mma.layouts.a, a, |lane| &lane_sources(lane)[..a_regs]);
            let b_elems = gather(&mma.layouts.b, b, |lane| {
                &lane_sources(lane)[a_regs..a_regs + b_regs]
            });
            let c_elems = gather_accumulator(&mma.layouts.c, c, |lane| {
                &lane_sources(lane)[a_regs + b_regs..]
            });
            let (m, n, k) = (
                mma.layouts.m as usize,
                mma.layouts.n as usize,
                mma.layouts.k as usize,
            );
            let mut d = vec![0u64; m * n];
            for i in 0..m {
                for j in 0..n {
                    let row: Vec<u64> = (0..k).map(|kk| a_elems[i * k + kk]).collect();
                    let col: Vec<u64> = (0..k).map(|kk| b_elems[kk * n + j]).collect();
                    d[i * n + j] = mma.arithmetic.element(&row, &col, c_elems[i * n + j]);
                }
            }
            scatter(&mma.layouts.c, c, &d, c_regs, destinations);
            Ok(())
        },
    ))
}

/// The arithmetic of a `wgmma.mma_async` variant (PTX ISA 9.7.15): D (64
/// x N) = A (64 x K) x B (K x N) (+ D), each element as the `mma` forms
/// of the same types compute it (one fused step over the K products and
/// the accumulator; see the module documentation). `imm-scale-a`/`-b` of
/// -1 negate A or B.
#[derive(Debug, Clone, Copy)]
pub struct Wgmma {
    pub n: u32,
    pub k: u32,
    a: Element,
    b: Element,
    c: Accumulator,
    satfinite: bool,
    /// A from registers (else from shared memory through a descriptor).
    pub register_a: bool,
}

impl Wgmma {
    /// The arithmetic of a `wgmma.mma_async` variant, or `None` for other
    /// forms.
    pub fn of(variant: &Modifiers) -> Option<Wgmma> {
        if variant.form.mnemonic != "wgmma.mma_async" {
            return None;
        }
        let shape = variant.get(Slot::Shape)?;
        let (n, k) = shape.strip_prefix("m64n")?.split_once('k')?;
        Some(Wgmma {
            n: n.parse().ok()?,
            k: k.parse().ok()?,
            a: Element::of(variant.get(Slot::Atype)?)?,
            b: Element::of(variant.get(Slot::Btype)?)?,
            c: Accumulator::of(variant.get(Slot::Dtype)?)?,
            satfinite: variant.get(Slot::Satfinite).is_some(),
            register_a: variant.form.operands.get(1).is_some_and(|o| o.name == "a"),
        })
    }

    /// Bits of one A element (16, 32 for tf32, 8) and of one B element.
    pub fn element_bits(&self) -> (u32, u32) {
        (self.a.width(), self.b.width())
    }

    /// D registers per thread: `N / 2`, or `N / 4` packed f16 pairs.
    pub fn accumulator_registers(&self) -> usize {
        if self.c == Accumulator::F16 {
            self.n as usize / 4
        } else {
            self.n as usize / 2
        }
    }

    /// Whether the accumulator packs two f16 per register.
    pub fn packed(&self) -> bool {
        self.c == Accumulator::F16
    }

    /// D's element `(m, n)` from row `m` of A, row `n` of B^T (both K
    /// element bits, B^T's rows are B's columns) and C's element bits;
    /// `negate_a`/`negate_b`: the `imm-scale` of -1.
    pub fn element(&self, row: &[u64], col: &[u64], c: u64, negate_a: bool, negate_b: bool) -> u64 {
        let flip = |bits: &[u64], element: Element, negate: bool| -> Vec<u64> {
            match element {
                Element::Float(_) if negate => {
                    let sign = 1u64 << (element.width().min(32) - 1);
                    // tf32 keeps its sign at bit 31 of the register.
                    bits.iter().map(|b| b ^ sign).collect()
                }
                _ => bits.to_vec(),
            }
        };
        if let (Element::Float(fa), Element::Float(fb)) = (self.a, self.b)
            && fa.width() == 8
        {
            return wgmma_fp8(
                fa,
                fb,
                self.c.format(),
                &flip(row, self.a, negate_a),
                &flip(col, self.b, negate_b),
                c,
            );
        }
        let arithmetic = Arithmetic {
            a: self.a,
            b: self.b,
            c: self.c,
            satfinite: self.satfinite,
            xor: false,
        };
        arithmetic.element(
            &flip(row, self.a, negate_a),
            &flip(col, self.b, negate_b),
            c,
        )
    }
}

/// The matrix (row-major) of a multiplicand from the lanes' registers.
fn gather<'s>(
    layout: &FragmentLayout,
    element: Element,
    registers: impl Fn(u32) -> &'s [Bits],
) -> Vec<u64> {
    let mut matrix = vec![0; (layout.rows * layout.cols) as usize];
    let width = element.width();
    for lane in 0..32 {
        let regs = registers(lane);
        for e in 0..layout.elements() {
            let (row, col) = layout.coordinates(lane, e);
            let bit = e * width;
            let value = if width == 64 {
                regs[0]
            } else {
                regs[(bit / 32) as usize] >> (bit % 32) & softfloat_mask(width)
            };
            matrix[(row * layout.cols + col) as usize] = value;
        }
    }
    matrix
}

/// The C matrix (row-major) from the lanes' registers.
fn gather_accumulator<'s>(
    layout: &FragmentLayout,
    c: Accumulator,
    registers: impl Fn(u32) -> &'s [Bits],
) -> Vec<u64> {
    let mut matrix = vec![0; (layout.rows * layout.cols) as usize];
    let width = c.width();
    for lane in 0..32 {
        let regs = registers(lane);
        for e in 0..layout.elements() {
            let (row, col) = layout.coordinates(lane, e);
            let value = if width == 16 {
                regs[(e / 2) as usize] >> (16 * (e % 2)) & 0xffff
            } else {
                regs[e as usize]
            };
            matrix[(row * layout.cols + col) as usize] = value;
        }
    }
    matrix
}

/// D (row-major) into the lanes' destination registers.
fn scatter(layout: &FragmentLayout, c: Accumulator, d: &[u64], regs: usize, out: &mut [Bits]) {
    for lane in 0..32 {
        let lane_out = &mut out[lane as usize * regs..][..regs];
        lane_out.fill(0);
        for e in 0..layout.elements() {
            let (row, col) = layout.coordinates(lane, e);
            let value = d[(row * layout.cols + col) as usize];
            if c.width() == 16 {
                lane_out[(e / 2) as usize] |= value << (16 * (e % 2));
            } else {
                lane_out[e as usize] = value;
            }
        }
    }
}

fn softfloat_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

impl Arithmetic {
    /// One element of D from a row of A, a column of B and C's element.
    fn element(&self, row: &[u64], col: &[u64], c: u64) -> u64 {
        match (self.a, self.b, self.c) {
            (Element::Bit, _, _) => {
                let ones = row
                    .iter()
                    .zip(col)
                    .filter(|&(&x, &y)| if self.xor { x ^ y } else { x & y } & 1 == 1)
                    .count() as i64;
                let sum = i64::from(c as u32 as i32) + ones;
                u64::from(sum as i32 as u32)
            }
            (Element::Int { .. }, Element::Int { .. }, _) => {
                let products: i64 = row
                    .iter()
                    .zip(col)
                    .map(|(&x, &y)| self.a.integer(x) * self.b.integer(y))
                    .sum();
                let sum = i64::from(c as u32 as i32) + products;
                let sum = if self.satfinite {
                    sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    sum
                };
                u64::from(sum as i32 as u32)
            }
            (Element::Float(Format::F64), Element::Float(Format::F64), _) => {
                f64_element(row, col, c)
            }
            (Element::Float(fa), Element::Float(fb), acc) => {
                float_element(fa, fb, acc.format(), row, col, c)
            }
            _ => 0,
        }
    }
}

/// One element of an `m8n8k4.f64` D: fused multiply-adds from C over
/// k = 0, 1, 2, 3, each rounded to nearest-even (IEEE 754 binary64, as
/// measured on the H200: `docs/interpreter.md`); a NaN is the canonical
/// one.
fn f64_element(row: &[u64], col: &[u64], c: u64) -> u64 {
    let mut acc = f64::from_bits(c);
    for (&a, &b) in row.iter().zip(col) {
        acc = f64::from_bits(a).mul_add(f64::from_bits(b), acc);
    }
    if acc.is_nan() {
        Format::F64.canonical_nan().unwrap_or(acc.to_bits())
    } else {
        acc.to_bits()
    }
}

/// One element of D for floating-point multiplicands (see the module
/// documentation): `row` and `col` are A's and B's element bits.
fn float_element(fa: Format, fb: Format, acc: Format, row: &[u64], col: &[u64], c: u64) -> u64 {
    let fp8 = fa.width() == 8;
    let term = |(k, (&x, &y)): (usize, (&u64, &u64))| (k, product(fa, x, fb, y));
    let products: Vec<(usize, Term)> = row.iter().zip(col).enumerate().map(term).collect();
    let c_term = Term::of(acc, c);
    // Infinities and NaNs: IEEE 754 over the exact terms.
    let specials: Vec<&Term> = products.iter().map(|(_, t)| t).chain([&c_term]).collect();
    if let Some(special) = special_result(&specials) {
        return softfloat::round(acc, special, Rounding::NearestEven, RoundOptions::default());
    }
    if fp8 {
        let mut sum = Exact::Zero { negative: false };
        for half in [[0, 1], [2, 3]] {
            let mut terms: Vec<Term> = products
                .iter()
                .filter(|(k, _)| half.contains(&(k % 4)))
                .map(|(_, t)| *t)
                .collect();
            terms.push(Term::of_exact(sum, Format::F32));
            let bits = softfloat::round(
                Format::F32,
                fused_sum(&terms),
                Rounding::TowardZero,
                RoundOptions::default(),
            );
            sum = softfloat::decode(Format::F32, bits);
        }
        // C in its own format (an f16 D of `wgmma`'s fp8 forms: the same
        // steps, the last rounded to f16).
        let total = softfloat::add(softfloat::decode(acc, c), sum, Rounding::NearestEven);
        return softfloat::round(acc, total, Rounding::NearestEven, RoundOptions::default());
    }
    let mut terms: Vec<Term> = products.into_iter().map(|(_, t)| t).collect();
    terms.push(c_term);
    let rounding = if acc == Format::F16 {
        Rounding::NearestEven
    } else {
        Rounding::TowardZero
    };
    softfloat::round(acc, fused_sum(&terms), rounding, RoundOptions::default())
}

/// A term of a fused step: its exact value and the exponent it is aligned
/// by (a product's `ea + eb`, not its leading bit's).
#[derive(Debug, Clone, Copy)]
struct Term {
    value: Exact,
    align: i32,
}

impl Term {
    /// A value of `format` (an accumulator), aligned by its own exponent.
    fn of(format: Format, bits: u64) -> Term {
        Term {
            value: softfloat::decode(format, bits),
            align: exponent(format, bits),
        }
    }

    /// A value exactly representable in `format`.
    fn of_exact(value: Exact, format: Format) -> Term {
        let bits = softfloat::round(format, value, Rounding::TowardZero, RoundOptions::default());
        Term::of(format, bits)
    }
}

/// The unbiased exponent of `bits` in `format` (a subnormal or zero: the
/// format's minimum).
fn exponent(format: Format, bits: u64) -> i32 {
    let raw = (bits >> format.shift) & ((1u64 << format.width()) - 1);
    let field = (raw >> format.fraction_bits) & ((1u64 << format.exponent_bits) - 1);
    if field == 0 {
        1 - format.bias
    } else {
        field as i32 - format.bias
    }
}

/// The exact product of two multiplicands, aligned by the sum of their
/// exponents. fp8 values enter as the f16 values they are (an e4m3
/// subnormal is an f16 normal).
fn product(fa: Format, a: u64, fb: Format, b: u64) -> Term {
    let input = |format: Format, bits: u64| -> (Exact, i32) {
        let value = softfloat::decode(format, bits);
        if format.width() == 8 {
            let half = softfloat::round(
                Format::F16,
                value,
                Rounding::NearestEven,
                RoundOptions::default(),
            );
            (value, exponent(Format::F16, half))
        } else {
            (value, exponent(format, bits))
        }
    };
    let ((x, ex), (y, ey)) = (input(fa, a), input(fb, b));
    Term {
        value: softfloat::mul(x, y),
        align: ex + ey,
    }
}

/// The result when a term is infinite or NaN (IEEE 754: a NaN, or
/// infinities of both signs, give NaN; `mul` already made `0 * inf` NaN).
fn special_result(terms: &[&Term]) -> Option<Exact> {
    let mut infinity: Option<bool> = None;
    for term in terms {
        match term.value {
            Exact::NaN { .. } => return Some(Exact::DEFAULT_NAN),
            Exact::Infinity { negative } => match infinity {
                Some(sign) if sign != negative => return Some(Exact::DEFAULT_NAN),
                _ => infinity = Some(negative),
            },
            _ => {}
        }
    }
    infinity.map(|negative| Exact::Infinity { negative })
}

/// One fused step over finite terms: each magnitude truncated toward zero
/// to a multiple of `2^(E - 25)` (`E` the largest alignment exponent of a
/// nonzero term), then added exactly. An exact zero is +0.
fn fused_sum(terms: &[Term]) -> Exact {
    fused_sum_keeping(terms, 25)
}

/// [`fused_sum`] with the terms truncated to a multiple of `2^(E - keep)`.
fn fused_sum_keeping(terms: &[Term], keep: i32) -> Exact {
    let nonzero: Vec<&Term> = terms
        .iter()
        .filter(|t| matches!(t.value, Exact::Finite { significand, .. } if significand != 0))
        .collect();
    let Some(top) = nonzero.iter().map(|t| t.align).max() else {
        return Exact::Zero { negative: false };
    };
    let unit = top - keep;
    let mut sum: i128 = 0;
    for term in nonzero {
        let Exact::Finite {
            negative,
            significand,
            exponent,
            ..
        } = term.value
        else {
            continue;
        };
        // The magnitude in units of 2^unit, truncated toward zero. Terms
        // far below the unit vanish; the largest is at most 2^28 units.
        let shift = exponent - unit;
        // (At most 27 places up for the multiplicand formats here; the
        // bound only keeps 33 terms' sum inside an i128.)
        const LIMIT: u128 = 1 << 100;
        let magnitude = if shift >= 0 {
            significand
                .checked_shl(shift as u32)
                .filter(|m| *m < LIMIT)
                .unwrap_or(LIMIT)
        } else if -shift >= 128 {
            0
        } else {
            significand >> (-shift)
        } as i128;
        sum += if negative { -magnitude } else { magnitude };
    }
    if sum == 0 {
        return Exact::Zero { negative: false };
    }
    Exact::Finite {
        negative: sum < 0,
        significand: sum.unsigned_abs(),
        exponent: unit,
        sticky: false,
    }
}

/// One element of an fp8 `wgmma` D: NOT bit-exact with the H200 (see
/// `docs/interpreter.md`). The closest of the models tried on 28,672
/// measured elements: one fused step over the 32 products and C with the
/// terms truncated to a multiple of `2^(E - 13)` (the tensor cores keep
/// about 14 bits of an fp8 sum), rounded toward zero to f32, then to the
/// accumulator's format. `tests/warpgroup_mma.rs` bounds the difference.
fn wgmma_fp8(fa: Format, fb: Format, acc: Format, row: &[u64], col: &[u64], c: u64) -> u64 {
    let mut terms: Vec<Term> = row
        .iter()
        .zip(col)
        .map(|(&x, &y)| product(fa, x, fb, y))
        .collect();
    terms.push(Term::of(acc, c));
    let all: Vec<&Term> = terms.iter().collect();
    if let Some(special) = special_result(&all) {
        return softfloat::round(acc, special, Rounding::NearestEven, RoundOptions::default());
    }
    let bits = softfloat::round(
        Format::F32,
        fused_sum_keeping(&terms, 13),
        Rounding::TowardZero,
        RoundOptions::default(),
    );
    softfloat::round(
        acc,
        softfloat::decode(Format::F32, bits),
        Rounding::NearestEven,
        RoundOptions::default(),
    )
}
