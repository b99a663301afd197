//! `ewise`: scalar functions inlined at every element of a register tile.
//! Each operator, call and cast maps to the PTX instruction of the table in
//! `docs/language.md`; the kernels assemble with ptxas without spills and
//! run on the CPU interpreter (always) and on a GPU (`--include-ignored`),
//! bit for bit against Rust's own arithmetic on the host (`half` for f16
//! and bf16), except the `_approx` functions (a stated bound).

#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

use support::lines_starting;

/// `y = x * scale + 1.0` (two roundings: no fma) for 4 elements a thread.
#[tile_kernel(grid = ceil_div(N, 512), block = 128)]
fn affine(x: Tensor<f32, N>, y: Tensor<f32, N>, scale: f32) {
    let base = (cta_id(0) * 128 + thread_id(0)) * 4;
    let r = alloc_local::<f32>([1, 4]);
    if base + 4 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![base..base + 4]).reshape([1, 4]),
        );
        ewise(|v: f32| v * scale + 1.0, r, r);
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![base..base + 4]).reshape([1, 4]),
            r,
        );
    }
}

/// Integer operators, functions and selects on `i32`, one result column
/// each (see `int_reference`).
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn int_ops(a: Tensor<i32, N>, b: Tensor<i32, N>, out: Tensor<i32, N, 16>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let ra = alloc_local::<i32>([1]);
    let rb = alloc_local::<i32>([1]);
    let o = alloc_local::<i32>([16]);
    if row < N {
        apply(ptx["ld.global.s32"], ra, a.slice(s![row..row + 1]));
        apply(ptx["ld.global.s32"], rb, b.slice(s![row..row + 1]));
        ewise(|x: i32, y: i32| x + y, o.slice(s![0..1]), ra, rb);
        ewise(|x: i32, y: i32| x - y * 3, o.slice(s![1..2]), ra, rb);
        ewise(|x: i32, y: i32| x * y, o.slice(s![2..3]), ra, rb);
        ewise(|x: i32, y: i32| x / y, o.slice(s![3..4]), ra, rb);
        ewise(|x: i32, y: i32| x % y, o.slice(s![4..5]), ra, rb);
        ewise(
            |x: i32, y: i32| (x & y) | (x ^ 0x5555),
            o.slice(s![5..6]),
            ra,
            rb,
        );
        ewise(
            |x: i32, y: i32| x << ((y & 15) as u32),
            o.slice(s![6..7]),
            ra,
            rb,
        );
        ewise(
            |x: i32, y: i32| x >> ((y & 15) as u32),
            o.slice(s![7..8]),
            ra,
            rb,
        );
        ewise(|x: i32| -x, o.slice(s![8..9]), ra);
        ewise(|x: i32| !x, o.slice(s![9..10]), ra);
        ewise(
            |x: i32, y: i32| min(x, y) + max(x, y) * 2,
            o.slice(s![10..11]),
            ra,
            rb,
        );
        ewise(|x: i32| x.abs(), o.slice(s![11..12]), ra);
        ewise(
            |x: i32, y: i32| if x < y { x } else { y - 7 },
            o.slice(s![12..13]),
            ra,
            rb,
        );
        ewise(
            |x: i32, y: i32| {
                (x == y) as i32 + ((x != y) as i32) * 2 + ((x >= 0 && y >= 0) as i32) * 4
            },
            o.slice(s![13..14]),
            ra,
            rb,
        );
        ewise(
            |x: i32| ((x as u32) >> 3u32) as i32,
            o.slice(s![14..15]),
            ra,
        );
        ewise(
            |x: i32| (x as i16) as i32 + (x as u8) as i32,
            o.slice(s![15..16]),
            ra,
        );
        apply(
            ptx["st.global.v4.b32"],
            out.slice(s![row, ..]).reshape([4, 4]),
            o.reshape([4, 4]),
        );
    }
}

fn int_reference(x: i32, y: i32) -> [i32; 16] {
    [
        x.wrapping_add(y),
        x.wrapping_sub(y.wrapping_mul(3)),
        x.wrapping_mul(y),
        x.wrapping_div(y),
        x.wrapping_rem(y),
        (x & y) | (x ^ 0x5555),
        x << (y & 15),
        x >> (y & 15),
        x.wrapping_neg(),
        !x,
        x.min(y).wrapping_add(x.max(y).wrapping_mul(2)),
        x.wrapping_abs(),
        if x < y { x } else { y.wrapping_sub(7) },
        i32::from(x == y) + i32::from(x != y) * 2 + i32::from(x >= 0 && y >= 0) * 4,
        ((x as u32) >> 3) as i32,
        i32::from(x as i16) + i32::from(x as u8),
    ]
}

fn silu_and_friends_reference(x: f32, y: f32) -> [f32; 16] {
    [
        x + y,
        x - y,
        x * y,
        x / y,
        x.mul_add(y, 0.5),
        x * y + 1.0f32 / (4.0 * 2.0) - 0.125 + 0.5,
        x.min(y),
        x.max(y),
        x.abs().sqrt() + (2.0 * 0.25) / x - (1.0 / x) * 0.5,
        -x,
        y.recip(),
        x.copysign(y),
        ((f64::from(x) * 3.0) as f32) / 7.0,
        if x < y { x } else { y * 2.0 },
        if x != y { 1.0 } else { f32::NEG_INFINITY },
        f32::from_bits(x.to_bits() ^ 0x8000_0000),
    ]
}

/// Float operators and functions on `f32` (exact forms only).
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn float_ops(a: Tensor<f32, N>, b: Tensor<f32, N>, out: Tensor<f32, N, 16>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let ra = alloc_local::<f32>([1]);
    let rb = alloc_local::<f32>([1]);
    let o = alloc_local::<f32>([16]);
    if row < N {
        apply(ptx["ld.global.f32"], ra, a.slice(s![row..row + 1]));
        apply(ptx["ld.global.f32"], rb, b.slice(s![row..row + 1]));
        ewise(|x: f32, y: f32| x + y, o.slice(s![0..1]), ra, rb);
        ewise(|x: f32, y: f32| x - y, o.slice(s![1..2]), ra, rb);
        ewise(|x: f32, y: f32| x * y, o.slice(s![2..3]), ra, rb);
        ewise(|x: f32, y: f32| x / y, o.slice(s![3..4]), ra, rb);
        ewise(
            |x: f32, y: f32| x.mul_add(y, 0.5),
            o.slice(s![4..5]),
            ra,
            rb,
        );
        ewise(
            |x: f32, y: f32| x * y + 1.0f32 / (4.0 * 2.0) - 0.125 + 0.5,
            o.slice(s![5..6]),
            ra,
            rb,
        );
        ewise(|x: f32, y: f32| min(x, y), o.slice(s![6..7]), ra, rb);
        ewise(|x: f32, y: f32| x.max(y), o.slice(s![7..8]), ra, rb);
        ewise(
            |x: f32| sqrt(abs(x)) + (2.0 * 0.25) / x - (1.0 / x) * 0.5,
            o.slice(s![8..9]),
            ra,
        );
        ewise(|x: f32| -x, o.slice(s![9..10]), ra);
        ewise(|y: f32| y.recip(), o.slice(s![10..11]), rb);
        ewise(|x: f32, y: f32| x.copysign(y), o.slice(s![11..12]), ra, rb);
        ewise(
            |x: f32| {
                let wide = x as f64 * 3.0;
                (wide as f32) / 7.0
            },
            o.slice(s![12..13]),
            ra,
        );
        ewise(
            |x: f32, y: f32| if x < y { x } else { y * 2.0 },
            o.slice(s![13..14]),
            ra,
            rb,
        );
        ewise(
            |x: f32, y: f32| if x != y { 1.0 } else { f32::NEG_INFINITY },
            o.slice(s![14..15]),
            ra,
            rb,
        );
        ewise(
            |x: f32| f32::from_bits(x.to_bits() ^ 0x8000_0000),
            o.slice(s![15..16]),
            ra,
        );
        apply(
            ptx["st.global.v4.f32"],
            out.slice(s![row, ..]).reshape([4, 4]),
            o.reshape([4, 4]),
        );
    }
}

/// Casts from `f32` (Rust's `as`: toward zero, saturating, NaN to 0 for
/// integers; nearest even for narrower floats) and half arithmetic.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn casts(a: Tensor<f32, N>, ints: Tensor<i32, N, 4>, halves: Tensor<u16, N, 8>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let ra = alloc_local::<f32>([1]);
    let i = alloc_local::<i32>([4]);
    let h = alloc_local::<f16>([4]);
    let g = alloc_local::<bf16>([4]);
    if row < N {
        apply(ptx["ld.global.f32"], ra, a.slice(s![row..row + 1]));
        ewise(|x: f32| x as i32, i.slice(s![0..1]), ra);
        ewise(
            |x: f32| (x as u8) as i32 + ((x as u16) as i32) * 256,
            i.slice(s![1..2]),
            ra,
        );
        ewise(|x: f32| ((x as u32) >> 1u32) as i32, i.slice(s![2..3]), ra);
        ewise(|x: f32| (x as i64 / 3) as i32, i.slice(s![3..4]), ra);
        ewise(|x: f32| x as f16, h.slice(s![0..1]), ra);
        ewise(
            |x: f32| {
                let p = x as f16;
                p * p + 1.5
            },
            h.slice(s![1..2]),
            ra,
        );
        ewise(
            |x: f32| fma(x as f16, 0.25, -(x as f16)),
            h.slice(s![2..3]),
            ra,
        );
        ewise(
            |x: f32| ((x as f16) as bf16 - 1.0) as f16,
            h.slice(s![3..4]),
            ra,
        );
        ewise(|x: f32| x as bf16, g.slice(s![0..1]), ra);
        ewise(
            |x: f32| {
                let p = x as bf16;
                max(p * p, 2.0) + p
            },
            g.slice(s![1..2]),
            ra,
        );
        ewise(|x: f32| -(x as f64 as bf16).abs(), g.slice(s![2..3]), ra);
        ewise(
            |x: f32| if (x as bf16) < 0.5 { 0.5 } else { x as bf16 },
            g.slice(s![3..4]),
            ra,
        );
        apply(
            ptx["st.global.v4.b32"],
            ints.slice(s![row, ..]).reshape([1, 4]),
            i.reshape([1, 4]),
        );
        apply(
            ptx["st.global.v4.b16"],
            halves.slice(s![row, 0..4]).reshape([1, 4]),
            h.view::<u16>().reshape([1, 4]),
        );
        apply(
            ptx["st.global.v4.b16"],
            halves.slice(s![row, 4..8]).reshape([1, 4]),
            g.view::<u16>().reshape([1, 4]),
        );
    }
}

fn cast_reference(x: f32) -> ([i32; 4], [u16; 8]) {
    use half::{bf16, f16};
    let f16_of = |v: f64| f16::from_f64(v);
    let bf16_of = |v: f64| bf16::from_f64(v);
    let p = f16::from_f32(x);
    let pf = f64::from(p.to_f32());
    let q = bf16::from_f32(x);
    let qf = f64::from(q.to_f32());
    let ints = [
        x as i32,
        i32::from(x as u8) + i32::from(x as u16) * 256,
        ((x as u32) >> 1) as i32,
        (x as i64 / 3) as i32,
    ];
    let halves = [
        p.to_bits(),
        // p * p is exact in f64; the sum rounds once.
        f16_of(f64::from(f16_of(pf * pf).to_f32()) + 1.5).to_bits(),
        f16_of(pf * 0.25 - pf).to_bits(),
        f16::from_f32((bf16::from_f32(p.to_f32()) - bf16::from_f32(1.0)).to_f32()).to_bits(),
        q.to_bits(),
        {
            let square = bf16_of(qf * qf);
            let m = if square.to_f32() >= 2.0 || square.is_nan() {
                square
            } else {
                bf16::from_f32(2.0)
            };
            let m = if square.is_nan() {
                bf16::from_f32(2.0)
            } else {
                m
            };
            bf16_of(f64::from(m.to_f32()) + qf).to_bits()
        },
        bf16_of(f64::from(x)).to_bits() | 0x8000,
        if q.to_f32() < 0.5 {
            bf16::from_f32(0.5)
        } else {
            q
        }
        .to_bits(),
    ];
    (ints, halves)
}

/// SiLU through named scalar functions: a `fn` item (`sigmoid`, which
/// reaches the approximate instructions by name) called from a `let`-bound
/// closure; then `ptx[".."]` for an exact rounding mode, over a warp tile.
#[tile_kernel(grid = ceil_div(N, 4096), block = 128)]
fn silu(x: Tensor<f32, N>, y: Tensor<f32, N>, z: Tensor<f32, N>) {
    fn sigmoid(v: f32) -> f32 {
        rcp_approx(1.0 + ex2_approx(-v * f32::consts::LOG2_E))
    }
    let silu = |v: f32| v * sigmoid(v);
    let start = cta_id(0) * 4096 + warp_id() * 1024;
    let r = alloc_local::<f32>([32, 8, 4], scope = "warp");
    let q = alloc_local::<f32>([32, 8, 4], scope = "warp");
    if start + 1024 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![start..start + 1024]).reshape([32, 8, 4]),
            scope = "warp",
        );
        ewise(silu, q, r, scope = "warp");
        ewise(|v: f32| ptx["add.rz.f32"](v, 1.0), r, r, scope = "warp");
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![start..start + 1024]).reshape([32, 8, 4]),
            q,
            scope = "warp",
        );
        apply(
            ptx["st.global.v4.f32"],
            z.slice(s![start..start + 1024]).reshape([32, 8, 4]),
            r,
            scope = "warp",
        );
    }
}

/// `ptx[".."](..)` calls: an immediate operand (`lop3`'s table), a packed
/// result (`cvt` to two e4m3 in a `u16`, the first source in the high byte)
/// and a per-thread quantization step composed of both.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn ptx_calls(a: Tensor<f32, N>, b: Tensor<f32, N>, out: Tensor<u32, N, 2>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let ra = alloc_local::<f32>([1]);
    let rb = alloc_local::<f32>([1]);
    let o = alloc_local::<u32>([2]);
    if row < N {
        apply(ptx["ld.global.f32"], ra, a.slice(s![row..row + 1]));
        apply(ptx["ld.global.f32"], rb, b.slice(s![row..row + 1]));
        ewise(
            |x: f32, y: f32| ptx["lop3.b32"](x.to_bits(), y.to_bits(), 0xff00ff00u32, 0x96),
            o.slice(s![0..1]),
            ra,
            rb,
        );
        ewise(
            |x: f32, y: f32| ptx["cvt.rn.satfinite.e4m3x2.f32"](x * 0.5, y) as u32,
            o.slice(s![1..2]),
            ra,
            rb,
        );
        apply(
            ptx["st.global.v2.b32"],
            out.slice(s![row, ..]).reshape([1, 2]),
            o.reshape([1, 2]),
        );
    }
}

/// Per row of 8: `y = x * s[row]`, the scale a `[1]` tile broadcast along
/// the row's last axis inside `ewise`.
#[tile_kernel(grid = ceil_div(R, 128), block = 128)]
fn scale_by_row(x: Tensor<f32, R, 8>, s: Tensor<f32, R>, y: Tensor<f32, R, 8>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<f32>([2, 4]);
    let k = alloc_local::<f32>([1, 1]);
    if row < R {
        apply(
            ptx["ld.global.v4.f32"],
            v,
            x.slice(s![row, ..]).reshape([2, 4]),
        );
        apply(
            ptx["ld.global.f32"],
            k,
            s.slice(s![row..row + 1]).reshape([1, 1]),
        );
        ewise(|a: f32, b: f32| a * b, v, v, k.broadcast([2, 4]));
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row, ..]).reshape([2, 4]),
            v,
        );
    }
}

/// `x + 1.0` rounded toward zero, on the host.
fn add_one_toward_zero(x: f32) -> f32 {
    let exact = f64::from(x) + 1.0;
    let nearest = exact as f32;
    if f64::from(nearest).abs() > exact.abs() {
        // Step one ulp toward zero.
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    }
}

#[test]
fn operators_are_the_documented_instructions() {
    let ptx = float_ops::PTX;
    // `x * y + 0.5` is two roundings; only `mul_add` is an fma.
    assert_eq!(lines_starting(ptx, "fma.rn.f32").len(), 1, "{ptx}");
    for opcode in [
        "add.rn.f32",
        "sub.rn.f32",
        "mul.rn.f32",
        "div.rn.f32",
        "min.f32",
        "max.f32",
        "sqrt.rn.f32",
        "abs.f32",
        "neg.f32",
        "rcp.rn.f32",
        "copysign.f32",
        "cvt.f64.f32",
        "mul.rn.f64",
        "cvt.rn.f32.f64",
        "setp.lt.f32",
        "setp.neu.f32",
        "selp.f32",
        "xor.b32",
    ] {
        assert!(
            !lines_starting(ptx, opcode).is_empty(),
            "{opcode} missing:\n{ptx}"
        );
    }
    let ptx = int_ops::PTX;
    for opcode in [
        "add.s32",
        "mul.lo.s32",
        "div.s32",
        "rem.s32",
        "shl.b32",
        "shr.s32",
        "shr.u32",
        "neg.s32",
        "not.b32",
        "min.s32",
        "abs.s32",
        "selp.s32",
        "setp.ne.s32",
        "and.pred",
        "cvt.s16.s32",
        "cvt.u8.s32",
    ] {
        assert!(
            !lines_starting(ptx, opcode).is_empty(),
            "{opcode} missing:\n{ptx}"
        );
    }
    let ptx = casts::PTX;
    for opcode in [
        "cvt.rzi.s32.f32",
        "cvt.rzi.u8.f32",
        "cvt.rn.f16.f32",
        "fma.rn.f16",
        "mul.rn.bf16",
        "max.bf16",
        "cvt.rn.bf16.f64",
        "selp.b16",
        "setp.lt.bf16",
        "mov.b16",
    ] {
        assert!(
            !lines_starting(ptx, opcode).is_empty(),
            "{opcode} missing:\n{ptx}"
        );
    }
}

#[test]
fn a_temporary_is_reused_once_its_value_is_read() {
    // `x * scale + 1.0` over 4 elements: one temporary tile of 4.
    let ptx = affine::PTX;
    assert_eq!(lines_starting(ptx, ".reg .b32 %t").len(), 2, "{ptx}");
    assert_eq!(lines_starting(ptx, "mul.rn.f32").len(), 4, "{ptx}");
    assert_eq!(lines_starting(ptx, "add.rn.f32").len(), 4, "{ptx}");
}

#[test]
fn ewise_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("affine", affine::PTX),
        ("int_ops", int_ops::PTX),
        ("float_ops", float_ops::PTX),
        ("casts", casts::PTX),
        ("silu", silu::PTX),
        ("ptx_calls", ptx_calls::PTX),
        ("scale_by_row", scale_by_row::PTX),
    ]);
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    let specials = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.5,
        65504.0,
        1e-40,
        3e38,
        255.9,
        -129.0,
    ];
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match i % 4 {
                0 => specials[(state % specials.len() as u64) as usize],
                1 => f32::from_bits(state as u32),
                _ => ((state % 2_000_001) as f32 - 1_000_000.0) / 977.0,
            }
        })
        .collect()
}

fn ints(n: usize, seed: u64) -> Vec<i32> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match i % 3 {
                0 => state as i32,
                1 => (state % 200) as i32 - 100,
                _ => [i32::MIN, i32::MAX, -1, 0, 1][(state % 5) as usize],
            }
        })
        .collect()
}

fn same_bits(got: f32, want: f32) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        affine_matches_the_host,
        integer_operators_match_rust,
        float_operators_match_rust,
        casts_match_rust,
        silu_is_within_its_bound,
        ptx_calls_match_the_host,
        a_broadcast_input_widens_the_last_axis
    );

    fn affine_matches_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let n = 4096;
        let x = values(n, 0x1234_5678_9abc_def1);
        let dx = dev.upload(&x, [n])?;
        let mut y = dev.zeros::<f32>([n])?;
        affine(dev, &dx, &mut y, 0.37)?;
        for (i, (got, v)) in y.download()?.iter().zip(&x).enumerate() {
            let want = v * 0.37 + 1.0;
            assert!(same_bits(*got, want), "element {i}: {got:e} vs {want:e}");
        }
        Ok(())
    }

    fn integer_operators_match_rust(dev: &Device) -> tile_kernel::Result<()> {
        let n = 3000;
        let a = ints(n, 0x9e37_79b9_7f4a_7c15);
        // Nonzero divisors that do not overflow (`i32::MIN / -1`).
        let b: Vec<i32> = ints(n, 0x2545_f491_4f6c_dd1d)
            .into_iter()
            .map(|v| if v == 0 || v == -1 { 3 } else { v })
            .collect();
        let da = dev.upload(&a, [n])?;
        let db = dev.upload(&b, [n])?;
        let mut out = dev.zeros::<i32>([n, 16])?;
        int_ops(dev, &da, &db, &mut out)?;
        let out = out.download()?;
        for row in 0..n {
            let want = int_reference(a[row], b[row]);
            assert_eq!(
                &out[16 * row..16 * row + 16],
                &want,
                "row {row}: a {} b {}",
                a[row],
                b[row]
            );
        }
        Ok(())
    }

    fn float_operators_match_rust(dev: &Device) -> tile_kernel::Result<()> {
        let n = 4000;
        let a = values(n, 0x0fed_cba9_8765_4321);
        let b = values(n, 0x1357_9bdf_0246_8ace);
        let da = dev.upload(&a, [n])?;
        let db = dev.upload(&b, [n])?;
        let mut out = dev.zeros::<f32>([n, 16])?;
        float_ops(dev, &da, &db, &mut out)?;
        let out = out.download()?;
        for row in 0..n {
            let want = silu_and_friends_reference(a[row], b[row]);
            for k in 0..16 {
                let got = out[16 * row + k];
                // min/max of +0 and -0 may pick either in Rust.
                let zeros = k == 6 || k == 7;
                assert!(
                    same_bits(got, want[k]) || (zeros && got == want[k]),
                    "row {row}, column {k}: a {:e} b {:e}: got {got:e}, want {:e}",
                    a[row],
                    b[row],
                    want[k]
                );
            }
        }
        Ok(())
    }

    fn casts_match_rust(dev: &Device) -> tile_kernel::Result<()> {
        let n = 4000;
        let a = values(n, 0xdead_beef_cafe_f00d);
        let da = dev.upload(&a, [n])?;
        let mut i = dev.zeros::<i32>([n, 4])?;
        let mut h = dev.zeros::<u16>([n, 8])?;
        casts(dev, &da, &mut i, &mut h)?;
        let (i, h) = (i.download()?, h.download()?);
        for row in 0..n {
            let (want_i, want_h) = cast_reference(a[row]);
            assert_eq!(&i[4 * row..4 * row + 4], &want_i, "row {row}: {:e}", a[row]);
            for k in 0..8 {
                let (got, want) = (h[8 * row + k], want_h[k]);
                let nan = |b: u16| {
                    if k < 4 {
                        half::f16::from_bits(b).is_nan()
                    } else {
                        half::bf16::from_bits(b).is_nan()
                    }
                };
                assert!(
                    got == want || (nan(got) && nan(want)),
                    "row {row}, half {k}: {:e}: got {got:#06x}, want {want:#06x}",
                    a[row]
                );
            }
        }
        Ok(())
    }

    fn silu_is_within_its_bound(dev: &Device) -> tile_kernel::Result<()> {
        let n = 8192;
        let x: Vec<f32> = (0..n).map(|i| (i as f32 - 4096.0) / 256.0).collect();
        let dx = dev.upload(&x, [n])?;
        let mut y = dev.zeros::<f32>([n])?;
        let mut z = dev.zeros::<f32>([n])?;
        silu(dev, &dx, &mut y, &mut z)?;
        let (y, z) = (y.download()?, z.download()?);
        for i in 0..n {
            let v = f64::from(x[i]);
            let want = v / (1.0 + (-v).exp());
            // ex2.approx and rcp.approx: a few ulp each, relative.
            let tolerance = 1e-6 * want.abs().max(1e-30) + 1e-30;
            assert!(
                (f64::from(y[i]) - want).abs() <= tolerance * 8.0,
                "silu({}) = {} vs {want}",
                x[i],
                y[i]
            );
            let want = add_one_toward_zero(x[i]);
            assert_eq!(z[i].to_bits(), want.to_bits(), "{} + 1 toward zero", x[i]);
        }
        Ok(())
    }

    fn ptx_calls_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        use float8::F8E4M3;
        let n = 3000;
        let a = values(n, 0x0123_4567_89ab_cdef);
        let b = values(n, 0xfedc_ba98_7654_3210);
        let da = dev.upload(&a, [n])?;
        let db = dev.upload(&b, [n])?;
        let mut out = dev.zeros::<u32>([n, 2])?;
        ptx_calls(dev, &da, &db, &mut out)?;
        let out = out.download()?;
        let nan = |byte: u32| F8E4M3::from_bits(byte as u8).is_nan();
        for row in 0..n {
            let lop = a[row].to_bits() ^ b[row].to_bits() ^ 0xff00_ff00;
            assert_eq!(out[2 * row], lop, "row {row}: lop3");
            let high = u32::from(F8E4M3::from_f32(a[row] * 0.5).to_bits());
            let low = u32::from(F8E4M3::from_f32(b[row]).to_bits());
            let got = out[2 * row + 1];
            let (got_high, got_low) = (got >> 8, got & 0xff);
            assert!(
                (got_high == high || (nan(got_high) && nan(high)))
                    && (got_low == low || (nan(got_low) && nan(low))),
                "row {row}: e4m3x2 of ({:e}, {:e}): got {got:#06x}, want {:#06x}",
                a[row] * 0.5,
                b[row],
                (high << 8) | low
            );
        }
        Ok(())
    }

    fn a_broadcast_input_widens_the_last_axis(dev: &Device) -> tile_kernel::Result<()> {
        let rows = 300;
        let x = values(rows * 8, 0x5555_aaaa_1234_4321);
        let k = values(rows, 0x0bad_cafe_dead_beef);
        let dx = dev.upload(&x, [rows, 8])?;
        let dk = dev.upload(&k, [rows])?;
        let mut y = dev.zeros::<f32>([rows, 8])?;
        scale_by_row(dev, &dx, &dk, &mut y)?;
        for (i, got) in y.download()?.iter().enumerate() {
            let want = x[i] * k[i / 8];
            assert!(same_bits(*got, want), "element {i}: {got:e} vs {want:e}");
        }
        Ok(())
    }
}
