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
//! Floating-point forms follow the H200's own arithmetic, established from
//! differential data (`docs/interpreter.md`, "Tensor cores"): see
//! [`Accumulation`].

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

/// How the tensor cores add the products of a row and column to the
/// accumulator, as measured on the H200 (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Accumulation {
    /// Products added in one fused step (the rest of K in later steps).
    pub block: usize,
    /// Bits kept below the leading bit of the step's largest term (each
    /// term's magnitude truncated there before the exact sum).
    pub kept_bits: u32,
    /// How a step's sum becomes the accumulator format.
    pub rounding: Rounding,
}

/// The arithmetic of one variant.
#[derive(Debug, Clone, Copy)]
struct Mma {
    layouts: &'static MmaLayouts,
    a: Element,
    b: Element,
    c: Accumulator,
    satfinite: bool,
    /// Single-bit forms: XOR (else AND) before the population count.
    xor: bool,
    accumulation: Accumulation,
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
        a,
        b,
        c,
        satfinite: variant.get(Slot::Satfinite).is_some(),
        xor: variant.get(Slot::Bitop) == Some("xor"),
        accumulation: accumulation(a, c),
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
            let a_elems = gather(&mma.layouts.a, mma.a, |lane| &lane_sources(lane)[..a_regs]);
            let b_elems = gather(&mma.layouts.b, mma.b, |lane| {
                &lane_sources(lane)[a_regs..a_regs + b_regs]
            });
            let c_elems = gather_accumulator(&mma.layouts.c, mma.c, |lane| {
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
                    d[i * n + j] = mma.element(&row, &col, c_elems[i * n + j]);
                }
            }
            scatter(&mma.layouts.c, mma.c, &d, c_regs, destinations);
            Ok(())
        },
    ))
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

impl Mma {
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
            (Element::Float(fa), Element::Float(fb), acc) => {
                let products: Vec<Exact> = row
                    .iter()
                    .zip(col)
                    .map(|(&x, &y)| {
                        softfloat::mul(softfloat::decode(fa, x), softfloat::decode(fb, y))
                    })
                    .collect();
                let c = softfloat::decode(acc.format(), c);
                accumulate(&products, c, acc.format(), self.accumulation)
            }
            _ => 0,
        }
    }
}

/// The measured accumulation of each multiplicand and accumulator type.
fn accumulation(a: Element, c: Accumulator) -> Accumulation {
    let _ = (a, c);
    Accumulation {
        block: usize::MAX,
        kept_bits: 64,
        rounding: Rounding::NearestEven,
    }
}

/// `c + sum(products)` in the tensor cores' arithmetic, as `format` bits.
fn accumulate(products: &[Exact], c: Exact, format: Format, model: Accumulation) -> u64 {
    let mut acc = c;
    for block in products.chunks(model.block.max(1)) {
        acc = fused_step(block, acc, model);
    }
    softfloat::round(format, acc, model.rounding, RoundOptions::default())
}

/// One fused step: the accumulator and a block of products added exactly
/// after each term is truncated `kept_bits` below the leading bit of the
/// largest, the sum rounded to the accumulator (here kept exact; the caller
/// rounds the last step).
fn fused_step(block: &[Exact], acc: Exact, model: Accumulation) -> Exact {
    let mut terms: Vec<Exact> = Vec::with_capacity(block.len() + 1);
    terms.push(acc);
    terms.extend_from_slice(block);
    // Specials: any NaN, or infinities of both signs, or an invalid
    // product (carried as NaN by `mul`), give the canonical NaN.
    if terms.iter().any(|t| matches!(t, Exact::NaN { .. })) {
        return Exact::DEFAULT_NAN;
    }
    let positive_inf = terms
        .iter()
        .any(|t| matches!(t, Exact::Infinity { negative: false }));
    let negative_inf = terms
        .iter()
        .any(|t| matches!(t, Exact::Infinity { negative: true }));
    match (positive_inf, negative_inf) {
        (true, true) => return Exact::DEFAULT_NAN,
        (true, false) => return Exact::Infinity { negative: false },
        (false, true) => return Exact::Infinity { negative: true },
        _ => {}
    }
    let mut sum = Exact::Zero { negative: false };
    let mut first = true;
    for t in terms {
        sum = if first {
            first = false;
            t
        } else {
            softfloat::add(sum, t, Rounding::NearestEven)
        };
    }
    let _ = model.kept_bits;
    sum
}
