//! Warp matrix multiply-accumulate (`mma.sync.aligned`): every shape and
//! multiplicand type, on both devices.
//!
//! Each kernel runs one `mma` per warp (one warp per CTA, `W` warps): every
//! lane loads its registers of A, B and C from its row of `[W, 32, regs]`
//! tensors, the warp runs the instruction, and every lane stores its D.
//! The host packs matrices into lanes with the fragment layouts of
//! `tile_kernel::lowering::ptx::fragments` and unpacks D the same way, so:
//!
//! - against the host's own arithmetic (exact for integers and single bits;
//!   for floats on values whose sums are exact, where every rounding model
//!   agrees), a wrong layout fails on the GPU, which uses the hardware's;
//! - `float_results_are_the_gpus` (random values of every exponent range,
//!   where the tensor cores' truncation and rounding show) compares the GPU
//!   with the interpreter bit for bit on the GPU, and on the CPU the
//!   interpreter with results the H200 gave (`tests/data/mma/`).
//!
//! The mistakes (outside warp scope, under a lane-dependent branch) are
//! compile errors: UI cases `mma_*`.
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::lowering::ptx::fragments::{self, FragmentLayout};
use tile_kernel::prelude::*;
use tile_kernel_testkit::Rng;

/// The kernels (module `kernels`) and [`CASES`], one per `name: opcode, arch,
/// A registers, B registers, C registers;` line.
macro_rules! kernels {
    ($($name:ident: $op:literal, $arch:literal, $ar:literal, $br:literal, $cr:literal;)*) => {
        mod kernels {
            use super::*;
            $(mma_kernel_u32!($name, $op, $arch, $ar, $br, $cr);)*
        }
        /// Every variant: its opcode and a launcher over host bits.
        const CASES: &[Case] = &[$(Case { opcode: $op, run: |dev, a, b, c, w| {
            let a = dev.upload(a, [w, 32, $ar])?;
            let b = dev.upload(b, [w, 32, $br])?;
            let c = dev.upload(c, [w, 32, $cr])?;
            let mut d = dev.zeros::<u32>([w, 32, $cr])?;
            kernels::$name(dev, &a, &b, &c, &mut d)?;
            d.download()
        } },)*];
    };
}

macro_rules! mma_kernel_u32 {
    ($name:ident, $op:literal, $arch:literal, $ar:literal, $br:literal, $cr:literal) => {
        #[tile_kernel(grid = W, block = 32, arch = $arch)]
        pub fn $name(
            a: Tensor<u32, W, 32, $ar>,
            b: Tensor<u32, W, 32, $br>,
            c: Tensor<u32, W, 32, $cr>,
            d: Tensor<u32, W, 32, $cr>,
        ) {
            let w = cta_id(0);
            let af = alloc_local::<u32>([32, $ar], scope = "warp");
            let bf = alloc_local::<u32>([32, $br], scope = "warp");
            let cf = alloc_local::<u32>([32, $cr], scope = "warp");
            apply(
                ptx["ld.global.b32"],
                af.unsqueeze(-1),
                a.slice(s![w, .., ..]).unsqueeze(-1),
                scope = "warp",
            );
            apply(
                ptx["ld.global.b32"],
                bf.unsqueeze(-1),
                b.slice(s![w, .., ..]).unsqueeze(-1),
                scope = "warp",
            );
            apply(
                ptx["ld.global.b32"],
                cf.unsqueeze(-1),
                c.slice(s![w, .., ..]).unsqueeze(-1),
                scope = "warp",
            );
            apply(ptx[$op], cf, af, bf, cf, scope = "warp");
            apply(
                ptx["st.global.b32"],
                d.slice(s![w, .., ..]).unsqueeze(-1),
                cf.unsqueeze(-1),
                scope = "warp",
            );
        }
    };
}

/// Uploads A, B, C (`[W, 32, regs]` bits, `W` instances), runs a kernel,
/// downloads D.
type Run = fn(&Device, &[u32], &[u32], &[u32], usize) -> tile_kernel::Result<Vec<u32>>;

/// One variant under test.
struct Case {
    opcode: &'static str,
    run: Run,
}

kernels! {
    m16n8k16_bf16: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "sm_80", 4, 2, 4;
    m16n8k16_f16: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "sm_80", 4, 2, 4;
    m16n8k16_f16_acc16: "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "sm_80", 4, 2, 2;
    m16n8k8_bf16: "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", "sm_80", 2, 1, 4;
    m16n8k8_f16: "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", "sm_80", 2, 1, 4;
    m16n8k8_f16_acc16: "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", "sm_80", 2, 1, 2;
    m16n8k8_tf32: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "sm_80", 4, 2, 4;
    m16n8k4_tf32: "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", "sm_80", 2, 1, 4;
    m16n8k32_e4m3: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "sm_89", 4, 2, 4;
    m16n8k32_e4m3_e5m2: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", "sm_89", 4, 2, 4;
    m16n8k32_e5m2_e4m3: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", "sm_89", 4, 2, 4;
    m16n8k32_e5m2: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", "sm_89", 4, 2, 4;
    m16n8k32_s8: "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "sm_80", 4, 2, 4;
    m16n8k32_s8_u8_sat: "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32", "sm_80", 4, 2, 4;
    m16n8k32_u8_s8: "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", "sm_80", 4, 2, 4;
    m16n8k32_u8_sat: "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32", "sm_80", 4, 2, 4;
    m16n8k16_s8_sat: "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.s8.s32", "sm_80", 2, 1, 4;
    m16n8k16_u8: "mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32", "sm_80", 2, 1, 4;
    m16n8k64_s4: "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", "sm_80", 4, 2, 4;
    m16n8k64_u4_s4_sat: "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32", "sm_80", 4, 2, 4;
    m16n8k32_s4_u4: "mma.sync.aligned.m16n8k32.row.col.s32.s4.u4.s32", "sm_80", 2, 1, 4;
    m8n8k16_s8_u8: "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", "sm_80", 1, 1, 2;
    m8n8k32_u4_sat: "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32", "sm_80", 1, 1, 2;
    m16n8k256_b1_xor: "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc", "sm_80", 4, 2, 4;
    m16n8k256_b1_and: "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", "sm_80", 4, 2, 4;
    m16n8k128_b1_and: "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc", "sm_80", 2, 1, 4;
    m8n8k128_b1_xor: "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", "sm_80", 1, 1, 2;
}

/// A multiplicand or accumulator type, from its PTX token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    F32,
    S32,
    Int { bits: u32, signed: bool },
    B1,
}

impl Ty {
    fn of(token: &str) -> Ty {
        match token {
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "tf32" => Ty::Tf32,
            "e4m3" => Ty::E4m3,
            "e5m2" => Ty::E5m2,
            "f32" => Ty::F32,
            "s32" => Ty::S32,
            "s8" => Ty::Int {
                bits: 8,
                signed: true,
            },
            "u8" => Ty::Int {
                bits: 8,
                signed: false,
            },
            "s4" => Ty::Int {
                bits: 4,
                signed: true,
            },
            "u4" => Ty::Int {
                bits: 4,
                signed: false,
            },
            "b1" => Ty::B1,
            other => panic!("type {other}"),
        }
    }

    /// Bits of one element in its register.
    fn width(self) -> u32 {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::Tf32 | Ty::F32 | Ty::S32 => 32,
            Ty::E4m3 | Ty::E5m2 => 8,
            Ty::Int { bits, .. } => bits,
            Ty::B1 => 1,
        }
    }

    fn is_float(self) -> bool {
        !matches!(self, Ty::Int { .. } | Ty::B1 | Ty::S32)
    }

    /// The bits of a small integer `v` (exact in every type used here).
    fn encode(self, v: i64) -> u64 {
        let x = v as f32;
        match self {
            Ty::F16 => u64::from(f16::from_f32(x).to_bits()),
            Ty::Bf16 => u64::from(bf16::from_f32(x).to_bits()),
            Ty::Tf32 | Ty::F32 => u64::from(x.to_bits()),
            Ty::E4m3 => u64::from(float8::F8E4M3::from_f32(x).to_bits()),
            Ty::E5m2 => u64::from(float8::F8E5M2::from_f32(x).to_bits()),
            Ty::S32 => u64::from(v as i32 as u32),
            Ty::Int { bits, .. } => (v as u64) & ((1 << bits) - 1),
            Ty::B1 => (v & 1) as u64,
        }
    }

    /// The value of bits `x` (finite floats only).
    fn decode(self, x: u64) -> f64 {
        match self {
            Ty::F16 => f64::from(f16::from_bits(x as u16).to_f32()),
            Ty::Bf16 => f64::from(bf16::from_bits(x as u16).to_f32()),
            Ty::Tf32 | Ty::F32 => f64::from(f32::from_bits(x as u32)),
            Ty::E4m3 => f64::from(float8::F8E4M3::from_bits(x as u8).to_f32()),
            Ty::E5m2 => f64::from(float8::F8E5M2::from_bits(x as u8).to_f32()),
            Ty::S32 => f64::from(x as u32 as i32),
            Ty::Int { bits, signed } => {
                if signed && x >> (bits - 1) & 1 == 1 {
                    (x as i64 - (1 << bits)) as f64
                } else {
                    x as f64
                }
            }
            Ty::B1 => x as f64,
        }
    }
}

/// A variant's shape and types, from its opcode.
struct Variant {
    layouts: &'static fragments::MmaLayouts,
    a: Ty,
    b: Ty,
    c: Ty,
    satfinite: bool,
    xor: bool,
}

impl Variant {
    fn of(opcode: &str) -> Variant {
        let tokens: Vec<&str> = opcode.split('.').collect();
        let shape = tokens[3];
        let mut rest = tokens[6..].iter().copied().peekable();
        let satfinite = rest.next_if_eq(&"satfinite").is_some();
        let _d = rest.next();
        let a = Ty::of(rest.next().unwrap());
        let b = Ty::of(rest.next().unwrap());
        let c = Ty::of(rest.next().unwrap());
        let xor = rest.next() == Some("xor");
        let layouts = fragments::mma(shape, a.width()).unwrap();
        Variant {
            layouts,
            a,
            b,
            c,
            satfinite,
            xor,
        }
    }

    /// 32-bit registers per lane of an operand.
    fn registers(layout: &FragmentLayout, width: u32) -> usize {
        ((layout.elements() * width).div_ceil(32)) as usize
    }
}

/// Lane registers (`[W, 32, regs]`) of `w` matrices of element bits.
fn pack(layout: &FragmentLayout, width: u32, matrices: &[Vec<u64>]) -> Vec<u32> {
    let regs = Variant::registers(layout, width);
    let mut out = vec![0u32; matrices.len() * 32 * regs];
    for (w, m) in matrices.iter().enumerate() {
        for lane in 0..32 {
            for e in 0..layout.elements() {
                let (row, col) = layout.coordinates(lane, e);
                let bits = m[(row * layout.cols + col) as usize];
                let at = e * width;
                out[(w * 32 + lane as usize) * regs + (at / 32) as usize] |=
                    (bits << (at % 32)) as u32;
            }
        }
    }
    out
}

/// The matrices (row-major element bits) of lane registers.
fn unpack(layout: &FragmentLayout, width: u32, lanes: &[u32], w: usize) -> Vec<Vec<u64>> {
    let regs = Variant::registers(layout, width);
    (0..w)
        .map(|w| {
            let mut m = vec![0u64; (layout.rows * layout.cols) as usize];
            for lane in 0..32 {
                for e in 0..layout.elements() {
                    let (row, col) = layout.coordinates(lane, e);
                    let at = e * width;
                    let reg = lanes[(w * 32 + lane as usize) * regs + (at / 32) as usize];
                    m[(row * layout.cols + col) as usize] =
                        u64::from(reg) >> (at % 32) & ((1u64 << width) - 1);
                }
            }
            m
        })
        .collect()
}

/// Random matrices of one operand: `value` gives each element's bits.
fn matrices(layout: &FragmentLayout, w: usize, mut value: impl FnMut() -> u64) -> Vec<Vec<u64>> {
    (0..w)
        .map(|_| (0..layout.rows * layout.cols).map(|_| value()).collect())
        .collect()
}

/// D by the host: exact for integers and bits; for floats the exact sum
/// (f64 holds it for the small values used), which must be representable.
fn host_d(v: &Variant, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    let l = v.layouts;
    let (m, n, k) = (l.m as usize, l.n as usize, l.k as usize);
    let mut d = vec![0; m * n];
    for i in 0..m {
        for j in 0..n {
            let (x, y) = (|kk: usize| a[i * k + kk], |kk: usize| b[kk * n + j]);
            d[i * n + j] = if v.a == Ty::B1 {
                let ones = (0..k)
                    .filter(|&kk| if v.xor { x(kk) ^ y(kk) } else { x(kk) & y(kk) } == 1)
                    .count() as i64;
                u64::from((i64::from(c[i * n + j] as u32 as i32) + ones) as i32 as u32)
            } else if !v.a.is_float() {
                let sum: i64 = (0..k)
                    .map(|kk| v.a.decode(x(kk)) as i64 * v.b.decode(y(kk)) as i64)
                    .sum::<i64>()
                    + i64::from(c[i * n + j] as u32 as i32);
                let sum = if v.satfinite {
                    sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    sum
                };
                u64::from(sum as i32 as u32)
            } else {
                let sum: f64 = (0..k)
                    .map(|kk| v.a.decode(x(kk)) * v.b.decode(y(kk)))
                    .sum::<f64>()
                    + v.c.decode(c[i * n + j]);
                let bits = match v.c {
                    Ty::F16 => u64::from(f16::from_f64(sum).to_bits()),
                    _ => u64::from((sum as f32).to_bits()),
                };
                assert_eq!(v.c.decode(bits), sum, "the test's sums must be exact");
                bits
            };
        }
    }
    d
}

/// Runs `case` on `w` instances from `gen` and returns (A, B, C, D) matrices.
#[allow(clippy::type_complexity)]
fn run_case(
    dev: &Device,
    case: &Case,
    w: usize,
    gen_ab: &mut dyn FnMut(Ty) -> u64,
    gen_c: &mut dyn FnMut(Ty) -> u64,
) -> tile_kernel::Result<(Vec<Vec<u64>>, Vec<Vec<u64>>, Vec<Vec<u64>>, Vec<Vec<u64>>)> {
    let v = Variant::of(case.opcode);
    let l = v.layouts;
    let a = matrices(&l.a, w, || gen_ab(v.a));
    let b = matrices(&l.b, w, || gen_ab(v.b));
    let c = matrices(&l.c, w, || gen_c(v.c));
    let lanes = (case.run)(
        dev,
        &pack(&l.a, v.a.width(), &a),
        &pack(&l.b, v.b.width(), &b),
        &pack(&l.c, v.c.width(), &c),
        w,
    )?;
    let d = unpack(&l.c, v.c.width(), &lanes, w);
    Ok((a, b, c, d))
}

/// A kernel staging `[32, 4]` words through shared memory and loading
/// them back with `$op` (`$regs` registers a lane): lane `l` gives the
/// address of row `l` (16 bytes).
macro_rules! ldmatrix_kernel {
    ($name:ident, $op:literal, $regs:literal) => {
        #[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
        pub fn $name(src: Tensor<u32, 32, 4>, out: Tensor<u32, 32, $regs>) {
            let tile = alloc_shared::<u32>([32, 4]);
            let v = alloc_local::<u32>([32, 4], scope = "warp");
            apply(ptx["ld.global.v4.b32"], v, src, scope = "warp");
            apply(ptx["st.shared.v4.b32"], tile, v, scope = "warp");
            apply(ptx["bar.sync"], 0, scope = "cta");
            let f = alloc_local::<u32>([32, $regs], scope = "warp");
            apply(ptx[$op], f, tile.view::<u16>(), scope = "warp");
            apply(
                ptx["st.global.b32"],
                out.unsqueeze(-1),
                f.unsqueeze(-1),
                scope = "warp",
            );
        }
    };
}

/// A kernel storing `[32, $regs]` lane registers with `$op` into a shared
/// tile (lane `l` gives the address of row `l`), then copying the tile out.
macro_rules! stmatrix_kernel {
    ($name:ident, $op:literal, $regs:literal) => {
        #[tile_kernel(grid = 1, block = 32, arch = "sm_90")]
        pub fn $name(src: Tensor<u32, 32, $regs>, out: Tensor<u32, 32, 4>) {
            let tile = alloc_shared::<u32>([32, 4]);
            let f = alloc_local::<u32>([32, $regs], scope = "warp");
            let v = alloc_local::<u32>([32, 4], scope = "warp");
            apply(ptx["mov.b32"], v.unsqueeze(-1), 0, scope = "warp");
            apply(ptx["st.shared.v4.b32"], tile, v, scope = "warp");
            apply(ptx["bar.sync"], 0, scope = "cta");
            apply(
                ptx["ld.global.b32"],
                f.unsqueeze(-1),
                src.unsqueeze(-1),
                scope = "warp",
            );
            apply(ptx[$op], tile.view::<u16>(), f, scope = "warp");
            apply(ptx["bar.sync"], 0, scope = "cta");
            apply(ptx["ld.shared.v4.b32"], v, tile, scope = "warp");
            apply(ptx["st.global.v4.b32"], out, v, scope = "warp");
        }
    };
}

mod matrix_stores {
    use super::*;
    stmatrix_kernel!(x1, "stmatrix.sync.aligned.m8n8.x1.shared.b16", 1);
    stmatrix_kernel!(
        x2_trans,
        "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
        2
    );
    stmatrix_kernel!(x4, "stmatrix.sync.aligned.m8n8.x4.shared::cta.b16", 4);
    stmatrix_kernel!(
        x4_trans,
        "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        4
    );
}

mod matrix_loads {
    use super::*;
    ldmatrix_kernel!(x1, "ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1);
    ldmatrix_kernel!(x2, "ldmatrix.sync.aligned.m8n8.x2.shared.b16", 2);
    ldmatrix_kernel!(x4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4);
    ldmatrix_kernel!(
        x1_trans,
        "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
        1
    );
    ldmatrix_kernel!(
        x2_trans,
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16",
        2
    );
    ldmatrix_kernel!(
        x4_trans,
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        4
    );
}

/// What lane `l`'s register `i` holds after `ldmatrix` of the rows
/// `rows[lane]` (8 halves each), by the ISA: row `l / 4` of matrix `i`
/// (the row lane `8 i + l / 4` addressed), halves `2 (l % 4)` and `+1`; with
/// `.trans` column `l / 4` of rows `2 (l % 4)` and `+1`.
fn ldmatrix_want(rows: &[[u16; 8]; 32], lane: usize, i: usize, trans: bool) -> u32 {
    let (g, q) = (lane / 4, lane % 4);
    let (low, high) = if trans {
        (rows[8 * i + 2 * q][g], rows[8 * i + 2 * q + 1][g])
    } else {
        (rows[8 * i + g][2 * q], rows[8 * i + g][2 * q + 1])
    };
    u32::from(low) | u32::from(high) << 16
}

/// `D = A B + C` by `mma.m8n8k4.f64` for `W` instances (A and B one f64 a
/// lane, C and D two).
#[tile_kernel(grid = W, block = 32, arch = "sm_80")]
fn mma_f64(
    a: Tensor<f64, W, 32, 1>,
    b: Tensor<f64, W, 32, 1>,
    c: Tensor<f64, W, 32, 2>,
    d: Tensor<f64, W, 32, 2>,
) {
    let w = cta_id(0);
    let af = alloc_local::<f64>([32, 1], scope = "warp");
    let bf = alloc_local::<f64>([32, 1], scope = "warp");
    let cf = alloc_local::<f64>([32, 2], scope = "warp");
    apply(
        ptx["ld.global.f64"],
        af.unsqueeze(-1),
        a.slice(s![w, .., ..]).unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["ld.global.f64"],
        bf.unsqueeze(-1),
        b.slice(s![w, .., ..]).unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["ld.global.v2.f64"],
        cf,
        c.slice(s![w, .., ..]),
        scope = "warp",
    );
    apply(
        ptx["mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"],
        cf,
        af,
        bf,
        cf,
        scope = "warp",
    );
    apply(
        ptx["st.global.v2.f64"],
        d.slice(s![w, .., ..]),
        cf,
        scope = "warp",
    );
}

/// A random f64 within `spread` binades of `2^shift`.
fn random_f64(rng: &mut Rng, spread: i32, shift: i32) -> f64 {
    let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
    let e = (rng.next_u64() % (2 * spread as u64 + 1)) as i32 - spread;
    unit * 2f64.powi(e + shift)
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        every_shape_multiplies_exact_values,
        matrix_loads_distribute_rows,
        matrix_stores_gather_rows,
        f64_mma_is_a_chain_of_fused_multiply_adds
    );

    /// Each element of `mma.m8n8k4.f64` is `fma(a3, b3, fma(a2, b2,
    /// fma(a1, b1, fma(a0, b0, c))))`, rounded to nearest-even at every
    /// step: values of wide exponent spreads (where the order and the
    /// intermediate roundings show), near the subnormal range and near
    /// overflow, against the host's `f64::mul_add`.
    fn f64_mma_is_a_chain_of_fused_multiply_adds(dev: &Device) -> tile_kernel::Result<()> {
        let layouts = fragments::mma("m8n8k4", 64).expect("the f64 shape");
        let w = 64;
        for (spread, shift) in [(0, 0), (20, 0), (60, 0), (30, -530), (10, 510)] {
            let mut rng = Rng::new(0x3a7_0f64 + (spread * 1000 + shift) as u64);
            let mut value = |s: i32| random_f64(&mut rng, spread, s);
            let a: Vec<f64> = (0..w * 32).map(|_| value(shift)).collect();
            let b: Vec<f64> = (0..w * 32).map(|_| value(shift)).collect();
            let c: Vec<f64> = (0..w * 64).map(|_| value(2 * shift)).collect();
            let (da, db, dc) = (
                dev.upload(&a, [w, 32, 1])?,
                dev.upload(&b, [w, 32, 1])?,
                dev.upload(&c, [w, 32, 2])?,
            );
            let mut dd = dev.zeros::<f64>([w, 32, 2])?;
            mma_f64(dev, &da, &db, &dc, &mut dd)?;
            let got = dd.download()?;
            for i in 0..w {
                // The matrices from the lanes' registers, by the table's layouts.
                let mut am = [[0f64; 4]; 8];
                let mut bm = [[0f64; 8]; 4];
                let mut cm = [[0f64; 8]; 8];
                for lane in 0..32u32 {
                    let (r, k) = layouts.a.coordinates(lane, 0);
                    am[r as usize][k as usize] = a[i * 32 + lane as usize];
                    let (k, col) = layouts.b.coordinates(lane, 0);
                    bm[k as usize][col as usize] = b[i * 32 + lane as usize];
                    for e in 0..2 {
                        let (r, col) = layouts.c.coordinates(lane, e);
                        cm[r as usize][col as usize] = c[(i * 32 + lane as usize) * 2 + e as usize];
                    }
                }
                for lane in 0..32u32 {
                    for e in 0..2 {
                        let (r, col) = layouts.c.coordinates(lane, e);
                        let mut want = cm[r as usize][col as usize];
                        for k in 0..4 {
                            want = am[r as usize][k].mul_add(bm[k][col as usize], want);
                        }
                        let g = got[(i * 32 + lane as usize) * 2 + e as usize];
                        assert_eq!(
                            g.to_bits(),
                            want.to_bits(),
                            "spread {spread}, 2^{shift}: instance {i}, D[{r}, {col}] = {g:e}, the fma chain gives {want:e}"
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// `stmatrix` is `ldmatrix` backwards: the row lane `l` addresses holds
    /// what `ldmatrix` of it would hand out; rows of matrices the shape
    /// does not store keep their zeros.
    fn matrix_stores_gather_rows(dev: &Device) -> tile_kernel::Result<()> {
        let mut rng = Rng::new(0x3a7_0004);
        type Launch =
            fn(&Device, &DeviceTensor<u32>, &mut DeviceTensor<u32>) -> tile_kernel::Result<()>;
        let cases: [(&str, usize, bool, Launch); 4] = [
            ("x1", 1, false, |d, s, o| matrix_stores::x1(d, s, o)),
            ("x2.trans", 2, true, |d, s, o| {
                matrix_stores::x2_trans(d, s, o)
            }),
            ("x4", 4, false, |d, s, o| matrix_stores::x4(d, s, o)),
            ("x4.trans", 4, true, |d, s, o| {
                matrix_stores::x4_trans(d, s, o)
            }),
        ];
        for (name, regs, trans, launch) in cases {
            let host: Vec<u32> = (0..32 * regs).map(|_| rng.next_u32()).collect();
            let src = dev.upload(&host, [32, regs])?;
            let mut out = dev.zeros::<u32>([32, 4])?;
            launch(dev, &src, &mut out)?;
            let got = out.download()?;
            let mut rows = [[0u16; 8]; 32];
            for (l, row) in rows.iter_mut().enumerate() {
                for (j, half) in row.iter_mut().enumerate() {
                    *half = (got[l * 4 + j / 2] >> (16 * (j % 2))) as u16;
                }
            }
            for lane in 0..32 {
                for i in 0..regs {
                    assert_eq!(
                        ldmatrix_want(&rows, lane, i, trans),
                        host[lane * regs + i],
                        "stmatrix {name}: lane {lane}, register {i}"
                    );
                }
            }
            assert!(
                rows[8 * regs..].iter().all(|r| r.iter().all(|&h| h == 0)),
                "stmatrix {name}: rows past the stored matrices were written"
            );
        }
        Ok(())
    }

    /// Every `ldmatrix` shape, with and without `.trans`: each lane's
    /// registers are the halves the ISA gives it.
    fn matrix_loads_distribute_rows(dev: &Device) -> tile_kernel::Result<()> {
        let mut rng = Rng::new(0x3a7_0003);
        let host: Vec<u32> = (0..128).map(|_| rng.next_u32()).collect();
        let mut rows = [[0u16; 8]; 32];
        for (l, row) in rows.iter_mut().enumerate() {
            for (j, half) in row.iter_mut().enumerate() {
                *half = (host[l * 4 + j / 2] >> (16 * (j % 2))) as u16;
            }
        }
        let src = dev.upload(&host, [32, 4])?;
        type Launch =
            fn(&Device, &DeviceTensor<u32>, &mut DeviceTensor<u32>) -> tile_kernel::Result<()>;
        let cases: [(&str, usize, bool, Launch); 6] = [
            ("x1", 1, false, |d, s, o| matrix_loads::x1(d, s, o)),
            ("x2", 2, false, |d, s, o| matrix_loads::x2(d, s, o)),
            ("x4", 4, false, |d, s, o| matrix_loads::x4(d, s, o)),
            ("x1.trans", 1, true, |d, s, o| {
                matrix_loads::x1_trans(d, s, o)
            }),
            ("x2.trans", 2, true, |d, s, o| {
                matrix_loads::x2_trans(d, s, o)
            }),
            ("x4.trans", 4, true, |d, s, o| {
                matrix_loads::x4_trans(d, s, o)
            }),
        ];
        for (name, regs, trans, launch) in cases {
            let mut out = dev.zeros::<u32>([32, regs])?;
            launch(dev, &src, &mut out)?;
            let got = out.download()?;
            for lane in 0..32 {
                for i in 0..regs {
                    assert_eq!(
                        got[lane * regs + i],
                        ldmatrix_want(&rows, lane, i, trans),
                        "ldmatrix {name}: lane {lane}, register {i}"
                    );
                }
            }
        }
        Ok(())
    }

    /// Integers of the full range (with accumulators near the s32 limits,
    /// so wrapping and `.satfinite` show), random bits, and floats that
    /// are small integers (exact sums): D equals the host's, bit for bit.
    fn every_shape_multiplies_exact_values(dev: &Device) -> tile_kernel::Result<()> {
        let mut rng = Rng::new(0x3a7_0001);
        for case in CASES {
            let v = Variant::of(case.opcode);
            let w = 6;
            let mut gen_ab = |t: Ty| match t {
                Ty::Int { bits, .. } => rng.next_u64() & ((1 << bits) - 1),
                Ty::B1 => rng.next_u64() & 1,
                t => t.encode(rng.next_u64() as i64 % 5),
            };
            let mut rng_c = Rng::new(0x3a7_0002);
            let mut gen_c = |t: Ty| match t {
                Ty::S32 => match rng_c.next_u64() % 4 {
                    0 => u64::from(i32::MAX as u32 - (rng_c.next_u64() % 1000) as u32),
                    1 => u64::from(i32::MIN as u32 + (rng_c.next_u64() % 1000) as u32),
                    _ => rng_c.next_u64() & 0xffff_ffff,
                },
                t => t.encode(rng_c.next_u64() as i64 % 64),
            };
            let (a, b, c, d) = run_case(dev, case, w, &mut gen_ab, &mut gen_c)?;
            for i in 0..w {
                let want = host_d(&v, &a[i], &b[i], &c[i]);
                for (e, (got, want)) in d[i].iter().zip(&want).enumerate() {
                    assert_eq!(
                        got,
                        want,
                        "{}: instance {i}, D[{}, {}]",
                        case.opcode,
                        e / v.layouts.n as usize,
                        e % v.layouts.n as usize
                    );
                }
            }
        }
        Ok(())
    }
}

/// The GPU and the interpreter give the same bits for random values of
/// every exponent range (floats), where the tensor cores' alignment,
/// truncation and rounding decide the result.
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn float_results_are_the_gpus() -> tile_kernel::Result<()> {
    let gpu = support::gpu::gpu("float_results_are_the_gpus");
    let cpu = Device::cpu();
    let mut mismatches = Vec::new();
    for case in CASES.iter().filter(|c| Variant::of(c.opcode).a.is_float()) {
        let v = Variant::of(case.opcode);
        for seed in 0..6u64 {
            let w = 64;
            let value = |rng: &mut Rng, t: Ty, spread: u32| -> u64 {
                let bits = rng.next_u64();
                match t {
                    Ty::F16 | Ty::Bf16 | Ty::E4m3 | Ty::E5m2 | Ty::F32 | Ty::Tf32 => {
                        random_float(t, bits, spread)
                    }
                    _ => unreachable!(),
                }
            };
            let mut r1 = Rng::new(0x3a7_1000 + seed);
            let mut r2 = Rng::new(0x3a7_2000 + seed);
            let spread = [2, 6, 12, 30, 3, 1][seed as usize];
            let mut gen_ab = |t: Ty| value(&mut r1, t, spread);
            let mut gen_c = |t: Ty| {
                if seed == 4 {
                    0
                } else {
                    value(&mut r2, t, spread + 4)
                }
            };
            let (_, _, _, d_gpu) = run_case(&gpu, case, w, &mut gen_ab, &mut gen_c)?;
            let mut r1 = Rng::new(0x3a7_1000 + seed);
            let mut r2 = Rng::new(0x3a7_2000 + seed);
            let mut gen_ab = |t: Ty| value(&mut r1, t, spread);
            let mut gen_c = |t: Ty| {
                if seed == 4 {
                    0
                } else {
                    value(&mut r2, t, spread + 4)
                }
            };
            let (_, _, _, d_cpu) = run_case(&cpu, case, w, &mut gen_ab, &mut gen_c)?;
            let differ = d_gpu
                .iter()
                .flatten()
                .zip(d_cpu.iter().flatten())
                .filter(|(g, c)| g != c)
                .count();
            if differ > 0 {
                mismatches.push(format!(
                    "{} (spread {spread}): {differ} of {} elements differ",
                    case.opcode,
                    w * (v.layouts.m * v.layouts.n) as usize
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    Ok(())
}

/// Bits of a random finite value of type `t` whose exponent is within
/// `spread` binades of 1 (clamped to the type's normal range; subnormals
/// of narrow types show up at large spreads).
fn random_float(t: Ty, bits: u64, spread: u32) -> u64 {
    let (exp_bits, frac_bits, bias) = match t {
        Ty::F16 => (5, 10, 15),
        Ty::Bf16 => (8, 7, 127),
        Ty::E4m3 => (4, 3, 7),
        Ty::E5m2 => (5, 2, 15),
        Ty::F32 | Ty::Tf32 => (8, 23, 127),
        _ => unreachable!(),
    };
    let sign = bits >> 63;
    let span = 2 * spread as i64 + 1;
    let exp =
        (bias + (bits >> 32 & 0xffff) as i64 % span - spread as i64).clamp(0, (1 << exp_bits) - 2);
    let frac = bits & ((1 << frac_bits) - 1);
    let word = sign << (exp_bits + frac_bits) | (exp as u64) << frac_bits | frac;
    if t == Ty::Tf32 { word & !0x1fff } else { word }
}

#[test]
fn mma_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("m16n8k16_bf16", kernels::m16n8k16_bf16::PTX),
        ("m16n8k32_e4m3", kernels::m16n8k32_e4m3::PTX),
        ("m16n8k256_b1_xor", kernels::m16n8k256_b1_xor::PTX),
        ("mma_f64", mma_f64::PTX),
    ]);
}

#[test]
fn the_instruction_takes_the_lanes_registers() {
    let ptx = kernels::m16n8k16_bf16::PTX;
    let lines = support::lines_starting(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
    assert_eq!(
        lines,
        [
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%t2_cf_0, %t2_cf_1, %t2_cf_2, %t2_cf_3}, {%t0_af_0, %t0_af_1, %t0_af_2, %t0_af_3}, {%t1_bf_0, %t1_bf_1}, {%t2_cf_0, %t2_cf_1, %t2_cf_2, %t2_cf_3};"
        ],
        "{ptx}"
    );
}
