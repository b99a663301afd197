//! PTX golden tests: the exact text `#[tile_kernel]` emits.
//!
//! Whole-module goldens live in `tests/golden/<kernel>.ptx`; run with
//! `TILE_KERNEL_BLESS=1` to rewrite them after an intended change (then review
//! the diff). Fragment tests pin the parts the spec promises (instruction
//! counts, register order, view pack/unpack moves, predication, `.version`).
//! Every kernel here is also assembled with ptxas at its arch.

mod support;

// The seed (SPEC §2) and its inverse are the shipped examples themselves, so
// these goldens pin exactly what `cargo run --example` prints.
#[allow(dead_code)]
#[path = "../examples/narrow_pairs.rs"]
mod narrow_pairs_example;
#[allow(dead_code)]
#[path = "../examples/widen_pairs.rs"]
mod widen_pairs_example;

use narrow_pairs_example::narrow_pairs;
use widen_pairs_example::widen_pairs;

use tile_kernel::prelude::*;

use support::golden::golden;

// ------------------------------------------------------------- helpers

/// Instruction lines (tab-indented, not comments), with the tab stripped.
fn instructions(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .filter(|l| !l.starts_with("//") && !l.starts_with('.'))
        .collect()
}

/// How many instruction lines start with `opcode ` (after any guard).
fn count(ptx: &str, opcode: &str) -> usize {
    instructions(ptx)
        .iter()
        .filter(|l| {
            let l = if l.starts_with('@') {
                l.split_once(' ').map_or("", |(_, rest)| rest)
            } else {
                l
            };
            l.starts_with(&format!("{opcode} "))
        })
        .count()
}

/// The body instructions (after the prologue's blank line), exactly.
fn body(ptx: &str) -> Vec<&str> {
    let start = ptx.find("\n\n\t// ").expect("a body") + 2;
    instructions(&ptx[start..])
}

fn header(ptx: &str) -> (&str, &str) {
    let mut lines = ptx.lines();
    let version = lines.find(|l| l.starts_with(".version")).unwrap();
    let target = lines.find(|l| l.starts_with(".target")).unwrap();
    (version, target)
}

// ------------------------------------------------------------- kernels

/// The seed kernel with the cvt sources swapped.
#[tile_kernel(grid = 1, block = 1)]
fn narrow_pairs_swapped(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d,
        r.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// ld/st: scalar, v2, v4, cache operators, eviction priorities, `.nc`,
/// prefetch size, 8/16/32/64-bit types.
#[tile_kernel(grid = 1, block = 1)]
fn memory_forms(
    a: Tensor<f32, 2, 4>,
    b: Tensor<u16, 4, 1>,
    c: Tensor<f64, 1, 2>,
    q: Tensor<u8, 2, 4>,
    out: Tensor<f32, 2, 4>,
    out16: Tensor<u16, 4, 1>,
    out64: Tensor<f64, 1, 2>,
    out8: Tensor<u8, 2, 4>,
) {
    let v = alloc_local::<f32>([2, 4]);
    let h = alloc_local::<u16>([4, 1]);
    let w = alloc_local::<f64>([1, 2]);
    let bytes = alloc_local::<u8>([2, 4]);
    apply(ptx["ld.global.cg.v4.f32"], v, a);
    apply(ptx["ld.global.nc.L2::128B.u16"], h, b);
    apply(ptx["ld.global.L1::evict_last.v2.f64"], w, c);
    apply(ptx["ld.global.v4.u8"], bytes, q);
    apply(ptx["st.global.cs.v4.f32"], out, v);
    apply(ptx["st.global.wt.b16"], out16, h);
    apply(ptx["st.global.L1::no_allocate.v2.f64"], out64, w);
    apply(ptx["st.global.v4.b8"], out8, bytes);
}

/// Every cvt form family: scalar int<->float with rounding (and an 8-bit
/// destination), int widening, half pairs, tf32, fp8 from f32 and from f16x2,
/// f16x2 from fp8.
#[tile_kernel(grid = 1, block = 1)]
fn cvt_forms(
    a: Tensor<f32, 2, 2>,
    ints: Tensor<i32, 2, 1>,
    out_i: Tensor<i32, 2, 1>,
    out_f: Tensor<f32, 2, 1>,
    out_b: Tensor<u8, 2, 1>,
    out_l: Tensor<i64, 2, 1>,
    out_p: Tensor<u32, 2, 2>,
    out_t: Tensor<u32, 2, 1>,
    out_e: Tensor<u16, 2, 2>,
    out_h: Tensor<u32, 2, 1>,
) {
    let r = alloc_local::<f32>([2, 2]);
    let n = alloc_local::<i32>([2, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["ld.global.s32"], n, ints);
    let i = alloc_local::<i32>([2, 1]);
    apply(ptx["cvt.rzi.s32.f32"], i, r.slice(s![.., 0..1]));
    let f = alloc_local::<f32>([2, 1]);
    apply(ptx["cvt.rn.f32.s32"], f, n);
    let b = alloc_local::<u8>([2, 1]);
    apply(ptx["cvt.rni.sat.u8.f32"], b, r.slice(s![.., 1..2]));
    let l = alloc_local::<i64>([2, 1]);
    apply(ptx["cvt.s64.s32"], l, n);
    let p = alloc_local::<u32>([2, 2]);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        p.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rz.relu.bf16x2.f32"],
        p.slice(s![.., 1..2]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    let t = alloc_local::<u32>([2, 1]);
    apply(ptx["cvt.rna.tf32.f32"], t, r.slice(s![.., 0..1]));
    let e = alloc_local::<u16>([2, 2]);
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f32"],
        e.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rn.satfinite.relu.e5m2x2.f16x2"],
        e.slice(s![.., 1..2]),
        p.slice(s![.., 0..1]),
    );
    let h = alloc_local::<u32>([2, 1]);
    apply(ptx["cvt.rn.f16x2.e4m3x2"], h, e.slice(s![.., 0..1]));
    apply(ptx["st.global.s32"], out_i, i);
    apply(ptx["st.global.f32"], out_f, f);
    apply(ptx["st.global.u8"], out_b, b);
    apply(ptx["st.global.s64"], out_l, l);
    apply(ptx["st.global.v2.b32"], out_p, p);
    apply(ptx["st.global.b32"], out_t, t);
    apply(ptx["st.global.v2.b16"], out_e, e);
    apply(ptx["st.global.b32"], out_h, h);
}

/// mov: scalar, pack/unpack as one group operand, pack/unpack as separate
/// braced operands, 2 and 4 lanes, b32 and b64.
#[tile_kernel(grid = 1, block = 1)]
fn mov_forms(
    a: Tensor<u32, 2, 2>,
    bytes: Tensor<u8, 2, 4>,
    out: Tensor<u32, 2, 6>,
    out16: Tensor<u16, 2, 4>,
    out8: Tensor<u8, 2, 8>,
    out64: Tensor<u64, 2, 1>,
) {
    let w = alloc_local::<u32>([2, 2]);
    apply(ptx["ld.global.v2.u32"], w, a);
    let c = alloc_local::<u32>([2, 1]);
    apply(ptx["mov.b32"], c, w.slice(s![.., 0..1]));
    let h = alloc_local::<u16>([2, 2]);
    apply(ptx["mov.b32"], h, w.slice(s![.., 1..2]));
    let pk = alloc_local::<u32>([2, 1]);
    apply(
        ptx["mov.b32"],
        pk,
        h.slice(s![.., 1..2]),
        h.slice(s![.., 0..1]),
    );
    let g = alloc_local::<u32>([2, 1]);
    apply(ptx["mov.b32"], g, h);
    let lo = alloc_local::<u16>([2, 1]);
    let hi = alloc_local::<u16>([2, 1]);
    apply(ptx["mov.b32"], lo, hi, g);
    let q = alloc_local::<u8>([2, 4]);
    apply(ptx["ld.global.v4.u8"], q, bytes);
    let word = alloc_local::<u32>([2, 1]);
    apply(ptx["mov.b32"], word, q);
    let q2 = alloc_local::<u8>([2, 4]);
    apply(ptx["mov.b32"], q2, word);
    let b0 = alloc_local::<u8>([2, 1]);
    let b1 = alloc_local::<u8>([2, 1]);
    let b2 = alloc_local::<u8>([2, 1]);
    let b3 = alloc_local::<u8>([2, 1]);
    apply(ptx["mov.b32"], b0, b1, b2, b3, word);
    let word2 = alloc_local::<u32>([2, 1]);
    apply(ptx["mov.b32"], word2, b3, b2, b1, b0);
    let wide = alloc_local::<u64>([2, 1]);
    apply(ptx["mov.b64"], wide, w);
    let u = alloc_local::<u32>([2, 1]);
    apply(ptx["mov.u32"], u, word2);
    apply(ptx["st.global.b32"], out.slice(s![.., 0..1]), c);
    apply(ptx["st.global.b32"], out.slice(s![.., 1..2]), pk);
    apply(ptx["st.global.b32"], out.slice(s![.., 2..3]), g);
    apply(ptx["st.global.b32"], out.slice(s![.., 3..4]), word);
    apply(ptx["st.global.b32"], out.slice(s![.., 4..5]), word2);
    apply(ptx["st.global.u32"], out.slice(s![.., 5..6]), u);
    apply(ptx["st.global.v2.b16"], out16.slice(s![.., 0..2]), h);
    apply(ptx["st.global.b16"], out16.slice(s![.., 2..3]), lo);
    apply(ptx["st.global.b16"], out16.slice(s![.., 3..4]), hi);
    apply(ptx["st.global.v4.b8"], out8.slice(s![.., 0..4]), q2);
    apply(ptx["st.global.b8"], out8.slice(s![.., 4..5]), b0);
    apply(ptx["st.global.b8"], out8.slice(s![.., 5..6]), b1);
    apply(ptx["st.global.b8"], out8.slice(s![.., 6..7]), b2);
    apply(ptx["st.global.b8"], out8.slice(s![.., 7..8]), b3);
    apply(ptx["st.global.b64"], out64, wide);
}

/// Integer and float arithmetic: add/sub/mul (hi, lo, wide)/mad/fma/min/max/
/// neg/abs. `max.relu.s32` needs PTX 8.0, so the module is `.version 8.0`.
#[tile_kernel(grid = 1, block = 1)]
fn arith_forms(
    fa: Tensor<f32, 2, 2>,
    da: Tensor<f64, 2, 2>,
    ia: Tensor<i32, 2, 2>,
    ua: Tensor<u16, 2, 2>,
    out_f: Tensor<f32, 2, 8>,
    out_d: Tensor<f64, 2, 4>,
    out_i: Tensor<i32, 2, 10>,
    out_l: Tensor<i64, 2, 2>,
    out_u: Tensor<u16, 2, 2>,
    out_w: Tensor<u32, 2, 2>,
) {
    let f = alloc_local::<f32>([2, 2]);
    let d = alloc_local::<f64>([2, 2]);
    let i = alloc_local::<i32>([2, 2]);
    let u = alloc_local::<u16>([2, 2]);
    apply(ptx["ld.global.v2.f32"], f, fa);
    apply(ptx["ld.global.v2.f64"], d, da);
    apply(ptx["ld.global.v2.s32"], i, ia);
    apply(ptx["ld.global.v2.u16"], u, ua);

    let x = alloc_local::<f32>([2, 8]);
    apply(
        ptx["add.rn.ftz.f32"],
        x.slice(s![.., 0..1]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.f32"],
        x.slice(s![.., 1..2]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["mul.rz.sat.f32"],
        x.slice(s![.., 2..3]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["fma.rn.f32"],
        x.slice(s![.., 3..4]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
        x.slice(s![.., 0..1]),
    );
    apply(
        ptx["min.NaN.f32"],
        x.slice(s![.., 4..5]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["max.xorsign.abs.f32"],
        x.slice(s![.., 5..6]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["neg.ftz.f32"],
        x.slice(s![.., 6..7]),
        f.slice(s![.., 0..1]),
    );
    apply(ptx["abs.f32"], x.slice(s![.., 7..8]), f.slice(s![.., 1..2]));

    let y = alloc_local::<f64>([2, 4]);
    apply(
        ptx["add.rz.f64"],
        y.slice(s![.., 0..1]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
    );
    apply(
        ptx["fma.rm.f64"],
        y.slice(s![.., 1..2]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
        y.slice(s![.., 0..1]),
    );
    apply(
        ptx["max.f64"],
        y.slice(s![.., 2..3]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
    );
    apply(ptx["abs.f64"], y.slice(s![.., 3..4]), d.slice(s![.., 1..2]));

    let z = alloc_local::<i32>([2, 10]);
    apply(
        ptx["add.sat.s32"],
        z.slice(s![.., 0..1]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.s32"],
        z.slice(s![.., 1..2]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["mul.lo.s32"],
        z.slice(s![.., 2..3]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["mul.hi.s32"],
        z.slice(s![.., 3..4]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["mad.lo.s32"],
        z.slice(s![.., 4..5]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
        z.slice(s![.., 0..1]),
    );
    apply(
        ptx["mad.hi.sat.s32"],
        z.slice(s![.., 5..6]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
        z.slice(s![.., 1..2]),
    );
    apply(
        ptx["min.s32"],
        z.slice(s![.., 6..7]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["max.relu.s32"],
        z.slice(s![.., 7..8]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(ptx["neg.s32"], z.slice(s![.., 8..9]), i.slice(s![.., 0..1]));
    apply(
        ptx["abs.s32"],
        z.slice(s![.., 9..10]),
        i.slice(s![.., 1..2]),
    );

    let l = alloc_local::<i64>([2, 2]);
    apply(
        ptx["mul.wide.s32"],
        l.slice(s![.., 0..1]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["mad.wide.s32"],
        l.slice(s![.., 1..2]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
        l.slice(s![.., 0..1]),
    );

    let v = alloc_local::<u16>([2, 2]);
    apply(
        ptx["add.u16"],
        v.slice(s![.., 0..1]),
        u.slice(s![.., 0..1]),
        u.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.u16"],
        v.slice(s![.., 1..2]),
        u.slice(s![.., 0..1]),
        u.slice(s![.., 1..2]),
    );
    let w = alloc_local::<u32>([2, 2]);
    apply(
        ptx["mul.wide.u16"],
        w.slice(s![.., 0..1]),
        u.slice(s![.., 0..1]),
        u.slice(s![.., 1..2]),
    );
    apply(
        ptx["mad.wide.u16"],
        w.slice(s![.., 1..2]),
        u.slice(s![.., 0..1]),
        u.slice(s![.., 1..2]),
        w.slice(s![.., 0..1]),
    );

    apply(
        ptx["st.global.v4.f32"],
        out_f.slice(s![.., 0..4]),
        x.slice(s![.., 0..4]),
    );
    apply(
        ptx["st.global.v4.f32"],
        out_f.slice(s![.., 4..8]),
        x.slice(s![.., 4..8]),
    );
    apply(
        ptx["st.global.v2.f64"],
        out_d.slice(s![.., 0..2]),
        y.slice(s![.., 0..2]),
    );
    apply(
        ptx["st.global.v2.f64"],
        out_d.slice(s![.., 2..4]),
        y.slice(s![.., 2..4]),
    );
    apply(
        ptx["st.global.v2.s32"],
        out_i.slice(s![.., 0..2]),
        z.slice(s![.., 0..2]),
    );
    apply(
        ptx["st.global.v2.s32"],
        out_i.slice(s![.., 2..4]),
        z.slice(s![.., 2..4]),
    );
    apply(
        ptx["st.global.v2.s32"],
        out_i.slice(s![.., 4..6]),
        z.slice(s![.., 4..6]),
    );
    apply(
        ptx["st.global.v2.s32"],
        out_i.slice(s![.., 6..8]),
        z.slice(s![.., 6..8]),
    );
    apply(
        ptx["st.global.v2.s32"],
        out_i.slice(s![.., 8..10]),
        z.slice(s![.., 8..10]),
    );
    apply(ptx["st.global.v2.s64"], out_l, l);
    apply(ptx["st.global.v2.u16"], out_u, v);
    apply(ptx["st.global.v2.u32"], out_w, w);
}

/// Scalar parameters (`f32`, `u32`) and literals as single-register sources:
/// literals are materialised once at entry (`%k<bits>_<n>`, deduplicated).
#[tile_kernel(grid = 1, block = 1)]
fn params_and_literals(
    a: Tensor<f32, 2, 1>,
    n: Tensor<u32, 2, 1>,
    scale: f32,
    bias: u32,
    out_f: Tensor<f32, 2, 4>,
    out_u: Tensor<u32, 2, 4>,
    out_h: Tensor<u16, 2, 2>,
    out_l: Tensor<u64, 2, 1>,
    out_b: Tensor<u8, 2, 1>,
    out_c: Tensor<u16, 2, 1>,
) {
    let f = alloc_local::<f32>([2, 1]);
    let u = alloc_local::<u32>([2, 1]);
    apply(ptx["ld.global.f32"], f, a);
    apply(ptx["ld.global.u32"], u, n);
    let x = alloc_local::<f32>([2, 4]);
    apply(ptx["mul.f32"], x.slice(s![.., 0..1]), f, scale);
    apply(ptx["add.f32"], x.slice(s![.., 1..2]), f, 1.5);
    apply(ptx["fma.rn.f32"], x.slice(s![.., 2..3]), f, scale, -2.0);
    apply(ptx["sub.f32"], x.slice(s![.., 3..4]), 1.5, f);
    let y = alloc_local::<u32>([2, 4]);
    apply(ptx["add.u32"], y.slice(s![.., 0..1]), u, bias);
    apply(ptx["add.u32"], y.slice(s![.., 1..2]), u, 7);
    apply(ptx["mul.lo.u32"], y.slice(s![.., 2..3]), u, 4294967295);
    apply(ptx["mov.u32"], y.slice(s![.., 3..4]), 7);
    let h = alloc_local::<u16>([2, 2]);
    apply(ptx["cvt.u16.u32"], h.slice(s![.., 0..1]), u);
    apply(
        ptx["add.u16"],
        h.slice(s![.., 1..2]),
        h.slice(s![.., 0..1]),
        3,
    );
    let l = alloc_local::<u64>([2, 1]);
    apply(ptx["add.u64"], l, 4294967296, 1);
    let b = alloc_local::<u8>([2, 1]);
    apply(ptx["cvt.u8.u16"], b, 200);
    let c = alloc_local::<u16>([2, 1]);
    apply(ptx["cvt.u16.u8"], c, 17);
    apply(ptx["st.global.v4.f32"], out_f, x);
    apply(ptx["st.global.v4.u32"], out_u, y);
    apply(ptx["st.global.v2.u16"], out_h, h);
    apply(ptx["st.global.u64"], out_l, l);
    apply(ptx["st.global.u8"], out_b, b);
    apply(ptx["st.global.u16"], out_c, c);
}

/// Predication with a bool parameter: `pred = p`, `pred = !p`, literal
/// `true` (no guard) and `false` (not emitted); `preserve_dst`.
#[tile_kernel(grid = 1, block = 1)]
fn predicated(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 2>, p: bool) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 2]);
    apply(ptx["ld.global.v2.f32"], r, a, pred = true);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rz.f16x2.f32"],
        d.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
        pred = p,
        preserve_dst = true,
    );
    apply(
        ptx["cvt.rn.relu.f16x2.f32"],
        d.slice(s![.., 1..2]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
        pred = !p,
    );
    // `d[.., 1]` holds a value only where `!p` held, so it is stored under
    // `!p` (spelled `!!!p`: negations collapse).
    apply(ptx["st.global.v2.b32"], out, d, pred = !!!p);
    apply(ptx["st.global.v2.b32"], out, d, pred = false);
}

/// Sub-register write views (a u16 view of u32 registers as destination:
/// unpack before, pack after, both around a guarded instruction) and
/// multi-register views (a u16 tile viewed as u32, read and written).
#[tile_kernel(grid = 1, block = 1)]
fn register_views(
    a: Tensor<f32, 2, 2>,
    words: Tensor<u32, 2, 1>,
    out: Tensor<u32, 2, 1>,
    out2: Tensor<u32, 2, 1>,
    p: bool,
) {
    let r = alloc_local::<f32>([2, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
    let d = alloc_local::<u32>([2, 1]);
    apply(
        ptx["cvt.rn.f16.f32"],
        d.view::<u16>().unsqueeze(-1),
        r.unsqueeze(-1),
        pred = p,
    );
    // `d` holds a value only where `p` held.
    apply(ptx["st.global.b32"], out, d, pred = p);
    let h = alloc_local::<u16>([2, 2]);
    apply(ptx["ld.global.b32"], h.view::<u32>(), words);
    apply(ptx["st.global.b32"], out2, h.view::<u32>());
}

/// Partial writes of a register that already holds a value: it must be
/// unpacked first so the untouched half survives (also where `pred` is false).
#[tile_kernel(grid = 1, block = 1)]
fn partial_overwrite(
    words: Tensor<u32, 2, 1>,
    a: Tensor<f32, 2, 1>,
    out: Tensor<u32, 2, 1>,
    p: bool,
) {
    let d = alloc_local::<u32>([2, 1]);
    let f = alloc_local::<f32>([2, 1]);
    apply(ptx["ld.global.b32"], d, words);
    apply(ptx["ld.global.f32"], f, a);
    apply(
        ptx["cvt.rn.f16.f32"],
        d.view::<u16>().slice(s![.., 1..2]),
        f,
        pred = p,
        preserve_dst = true,
    );
    apply(ptx["st.global.b32"], out, d);
}

/// `.version` selection.
#[tile_kernel(grid = 1, block = 1)]
fn satfinite_pairs(a: Tensor<f32, 1, 2>, out: Tensor<u32, 1, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<u32>([1, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.satfinite.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_89")]
fn fp8_sm89(a: Tensor<f32, 1, 2>, out: Tensor<u16, 1, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    let e = alloc_local::<u16>([1, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f32"],
        e,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b16"], out, e);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_90")]
fn fp8_sm90(a: Tensor<f32, 1, 2>, out: Tensor<u16, 1, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    let e = alloc_local::<u16>([1, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f32"],
        e,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b16"], out, e);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_80")]
fn narrow_pairs_sm80(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// `.satfinite` on the scalar f16 line has no arch floor of its own.
#[tile_kernel(grid = 1, block = 1, arch = "sm_70")]
fn satfinite_half_sm70(a: Tensor<f32, 1, 1>, out: Tensor<u16, 1, 1>) {
    let r = alloc_local::<f32>([1, 1]);
    let h = alloc_local::<u16>([1, 1]);
    apply(ptx["ld.global.f32"], r, a);
    apply(ptx["cvt.rz.satfinite.f16.f32"], h, r);
    apply(ptx["st.global.b16"], out, h);
}

const SEED_PTX: &str = r"//
// Generated by tile-kernel from `narrow_pairs`.
//
.version 7.8
.target sm_90
.address_size 64

.visible .entry narrow_pairs(
	.param .u64 narrow_pairs_param_a,
	.param .u64 narrow_pairs_param_out
)
.reqntid 1, 1, 1
{
	.reg .b64 %a0_a;
	.reg .b64 %a1_out;
	.reg .b32 %t0_r_<8>; // r: f32 [4, 2]
	.reg .b32 %t1_d_<4>; // d: u32 [4, 1]

	ld.param.u64 %a0_a, [narrow_pairs_param_a];
	cvta.to.global.u64 %a0_a, %a0_a;
	ld.param.u64 %a1_out, [narrow_pairs_param_out];
	cvta.to.global.u64 %a1_out, %a1_out;

	// ld.global.v2.f32
	ld.global.v2.f32 {%t0_r_0, %t0_r_1}, [%a0_a];
	ld.global.v2.f32 {%t0_r_2, %t0_r_3}, [%a0_a+8];
	ld.global.v2.f32 {%t0_r_4, %t0_r_5}, [%a0_a+16];
	ld.global.v2.f32 {%t0_r_6, %t0_r_7}, [%a0_a+24];
	// cvt.rn.f16x2.f32
	cvt.rn.f16x2.f32 %t1_d_0, %t0_r_1, %t0_r_0;
	cvt.rn.f16x2.f32 %t1_d_1, %t0_r_3, %t0_r_2;
	cvt.rn.f16x2.f32 %t1_d_2, %t0_r_5, %t0_r_4;
	cvt.rn.f16x2.f32 %t1_d_3, %t0_r_7, %t0_r_6;
	// st.global.b32
	st.global.b32 [%a1_out], %t1_d_0;
	st.global.b32 [%a1_out+4], %t1_d_1;
	st.global.b32 [%a1_out+8], %t1_d_2;
	st.global.b32 [%a1_out+12], %t1_d_3;
	ret;
}
";

// --------------------------------------------------------------- seed

#[test]
fn seed_kernel_full_text() {
    assert_eq!(narrow_pairs::PTX, SEED_PTX);
    golden("narrow_pairs", narrow_pairs::PTX);
    assert_eq!(narrow_pairs::ENTRY, "narrow_pairs");
}

#[test]
fn seed_kernel_counts_and_operand_order() {
    let ptx = narrow_pairs::PTX;
    assert_eq!(count(ptx, "ld.global.v2.f32"), 4);
    assert_eq!(count(ptx, "cvt.rn.f16x2.f32"), 4);
    assert_eq!(count(ptx, "st.global.b32"), 4);
    assert_eq!(
        instructions(ptx).len(),
        4 + 4 + 4 + 4 + 1,
        "prologue 4, body 12, ret"
    );
    // The packed cvt's first source (high half) is column 1 of the row.
    assert!(ptx.contains("\tcvt.rn.f16x2.f32 %t1_d_0, %t0_r_1, %t0_r_0;\n"));
    assert!(ptx.contains("\tcvt.rn.f16x2.f32 %t1_d_3, %t0_r_7, %t0_r_6;\n"));
}

#[test]
fn swapping_the_sources_swaps_the_registers() {
    let ptx = narrow_pairs_swapped::PTX;
    assert_eq!(count(ptx, "cvt.rn.f16x2.f32"), 4);
    assert!(ptx.contains("\tcvt.rn.f16x2.f32 %t1_d_0, %t0_r_0, %t0_r_1;\n"));
    assert!(!ptx.contains("%t0_r_1, %t0_r_0"));
    // Nothing else changes.
    assert_eq!(
        ptx.replace("narrow_pairs_swapped", "narrow_pairs")
            .replace("%t0_r_0, %t0_r_1;", "X01")
            .replace("%t0_r_2, %t0_r_3;", "X23")
            .replace("%t0_r_4, %t0_r_5;", "X45")
            .replace("%t0_r_6, %t0_r_7;", "X67"),
        SEED_PTX
            .replace("%t0_r_1, %t0_r_0;", "X01")
            .replace("%t0_r_3, %t0_r_2;", "X23")
            .replace("%t0_r_5, %t0_r_4;", "X45")
            .replace("%t0_r_7, %t0_r_6;", "X67")
    );
}

#[test]
fn widen_pairs_golden_and_unpack_moves() {
    let ptx = widen_pairs::PTX;
    golden("widen_pairs", ptx);
    assert_eq!(count(ptx, "ld.global.b32"), 4);
    assert_eq!(count(ptx, "cvt.f32.f16"), 8);
    assert_eq!(count(ptx, "st.global.v2.f32"), 4);
    assert!(ptx.contains("\t.reg .b16 %x16_<8>;\n"), "{ptx}");
    // Element 0 of the u16 view is the LOW half: the first lane of the
    // unpack. Each word is unpacked once and both halves are converted.
    let cvts: Vec<&str> = body(ptx)
        .into_iter()
        .skip_while(|l| !l.starts_with("mov.b32"))
        .take(12)
        .collect();
    assert_eq!(
        cvts,
        [
            "mov.b32 {%x16_0, %x16_1}, %t0_d_0;",
            "cvt.f32.f16 %t1_f_0, %x16_0;",
            "cvt.f32.f16 %t1_f_1, %x16_1;",
            "mov.b32 {%x16_2, %x16_3}, %t0_d_1;",
            "cvt.f32.f16 %t1_f_2, %x16_2;",
            "cvt.f32.f16 %t1_f_3, %x16_3;",
            "mov.b32 {%x16_4, %x16_5}, %t0_d_2;",
            "cvt.f32.f16 %t1_f_4, %x16_4;",
            "cvt.f32.f16 %t1_f_5, %x16_5;",
            "mov.b32 {%x16_6, %x16_7}, %t0_d_3;",
            "cvt.f32.f16 %t1_f_6, %x16_6;",
            "cvt.f32.f16 %t1_f_7, %x16_7;",
        ]
    );
    assert!(ptx.contains("\tst.global.v2.f32 [%a1_out+8], {%t1_f_2, %t1_f_3};\n"));
}

/// Every kernel of this file, with its golden name.
const KERNELS: &[(&str, &str)] = &[
    ("narrow_pairs", narrow_pairs::PTX),
    ("narrow_pairs_swapped", narrow_pairs_swapped::PTX),
    ("widen_pairs", widen_pairs::PTX),
    ("memory_forms", memory_forms::PTX),
    ("cvt_forms", cvt_forms::PTX),
    ("mov_forms", mov_forms::PTX),
    ("arith_forms", arith_forms::PTX),
    ("params_and_literals", params_and_literals::PTX),
    ("predicated", predicated::PTX),
    ("register_views", register_views::PTX),
    ("satfinite_pairs", satfinite_pairs::PTX),
    ("fp8_sm89", fp8_sm89::PTX),
    ("fp8_sm90", fp8_sm90::PTX),
    ("narrow_pairs_sm80", narrow_pairs_sm80::PTX),
    ("satfinite_half_sm70", satfinite_half_sm70::PTX),
];

#[test]
fn every_kernel_matches_its_golden_file() {
    for (name, ptx) in KERNELS {
        assert!(!ptx.is_empty(), "{name} did not compile");
        golden(name, ptx);
    }
}

/// Every kernel assembles with ptxas for the target it declares.
#[test]
fn every_kernel_assembles_with_ptxas() {
    for (name, ptx) in KERNELS {
        let (_, target) = header(ptx);
        let arch = target.strip_prefix(".target ").unwrap();
        if let Err(e) = support::ptxas::try_assemble(ptx, arch) {
            panic!("{name}: ptxas -arch={arch} rejected it:\n{e}\n{ptx}");
        }
    }
}

/// Asserts each of `lines` is an instruction line of `ptx`, exactly.
fn assert_lines(ptx: &str, lines: &[&str]) {
    let all = instructions(ptx);
    for line in lines {
        assert!(all.contains(line), "missing `{line}` in:\n{ptx}");
    }
}

// ---------------------------------------------------------- fragments

#[test]
fn memory_forms_fragments() {
    let ptx = memory_forms::PTX;
    assert_eq!(header(ptx), (".version 7.8", ".target sm_90"));
    assert!(ptx.contains("\t.reg .b8 %t3_bytes_<8>; // bytes: u8 [2, 4]\n"));
    assert_eq!(
        body(ptx),
        [
            "ld.global.cg.v4.f32 {%t0_v_0, %t0_v_1, %t0_v_2, %t0_v_3}, [%a0_a];",
            "ld.global.cg.v4.f32 {%t0_v_4, %t0_v_5, %t0_v_6, %t0_v_7}, [%a0_a+16];",
            "ld.global.nc.L2::128B.u16 %t1_h_0, [%a1_b];",
            "ld.global.nc.L2::128B.u16 %t1_h_1, [%a1_b+2];",
            "ld.global.nc.L2::128B.u16 %t1_h_2, [%a1_b+4];",
            "ld.global.nc.L2::128B.u16 %t1_h_3, [%a1_b+6];",
            "ld.global.L1::evict_last.v2.f64 {%t2_w_0, %t2_w_1}, [%a2_c];",
            "ld.global.v4.u8 {%t3_bytes_0, %t3_bytes_1, %t3_bytes_2, %t3_bytes_3}, [%a3_q];",
            "ld.global.v4.u8 {%t3_bytes_4, %t3_bytes_5, %t3_bytes_6, %t3_bytes_7}, [%a3_q+4];",
            "st.global.cs.v4.f32 [%a4_out], {%t0_v_0, %t0_v_1, %t0_v_2, %t0_v_3};",
            "st.global.cs.v4.f32 [%a4_out+16], {%t0_v_4, %t0_v_5, %t0_v_6, %t0_v_7};",
            "st.global.wt.b16 [%a5_out16], %t1_h_0;",
            "st.global.wt.b16 [%a5_out16+2], %t1_h_1;",
            "st.global.wt.b16 [%a5_out16+4], %t1_h_2;",
            "st.global.wt.b16 [%a5_out16+6], %t1_h_3;",
            "st.global.L1::no_allocate.v2.f64 [%a6_out64], {%t2_w_0, %t2_w_1};",
            "st.global.v4.b8 [%a7_out8], {%t3_bytes_0, %t3_bytes_1, %t3_bytes_2, %t3_bytes_3};",
            "st.global.v4.b8 [%a7_out8+4], {%t3_bytes_4, %t3_bytes_5, %t3_bytes_6, %t3_bytes_7};",
            "ret;",
        ]
    );
}

#[test]
fn cvt_form_families() {
    let ptx = cvt_forms::PTX;
    assert_eq!(header(ptx), (".version 7.8", ".target sm_90"));
    assert_lines(
        ptx,
        &[
            // scalar float -> int, int -> float (rounding), 8-bit destination, int widening
            "cvt.rzi.s32.f32 %t2_i_0, %t0_r_0;",
            "cvt.rn.f32.s32 %t3_f_1, %t1_n_1;",
            "cvt.rni.sat.u8.f32 %t4_b_0, %t0_r_1;",
            "cvt.s64.s32 %t5_l_1, %t1_n_1;",
            // half pairs: first source = column 1 = high half
            "cvt.rn.f16x2.f32 %t6_p_0, %t0_r_1, %t0_r_0;",
            "cvt.rz.relu.bf16x2.f32 %t6_p_3, %t0_r_3, %t0_r_2;",
            "cvt.rna.tf32.f32 %t7_t_1, %t0_r_2;",
            // fp8 from two f32, from f16x2, and back
            "cvt.rn.satfinite.e4m3x2.f32 %t8_e_2, %t0_r_3, %t0_r_2;",
            "cvt.rn.satfinite.relu.e5m2x2.f16x2 %t8_e_1, %t6_p_0;",
            "cvt.rn.f16x2.e4m3x2 %t9_h_0, %t8_e_0;",
        ],
    );
    for (opcode, n) in [
        ("cvt.rzi.s32.f32", 2),
        ("cvt.rn.f32.s32", 2),
        ("cvt.rni.sat.u8.f32", 2),
        ("cvt.s64.s32", 2),
        ("cvt.rn.f16x2.f32", 2),
        ("cvt.rz.relu.bf16x2.f32", 2),
        ("cvt.rna.tf32.f32", 2),
        ("cvt.rn.satfinite.e4m3x2.f32", 2),
        ("cvt.rn.satfinite.relu.e5m2x2.f16x2", 2),
        ("cvt.rn.f16x2.e4m3x2", 2),
    ] {
        assert_eq!(count(ptx, opcode), n, "{opcode}");
    }
    assert!(ptx.contains("\t.reg .b8 %t4_b_<2>; // b: u8 [2, 1]\n"));
    assert!(ptx.contains("\t.reg .b16 %t8_e_<4>; // e: u16 [2, 2]\n"));
}

#[test]
fn mov_scalar_pack_unpack_group_and_split() {
    let ptx = mov_forms::PTX;
    assert_lines(
        ptx,
        &[
            // scalar
            "mov.b32 %t1_c_0, %t0_w_0;",
            "mov.u32 %t16_u_1, %t14_word2_1;",
            // unpack into one 2-lane group operand: first lane = low bits
            "mov.b32 {%t2_h_0, %t2_h_1}, %t0_w_1;",
            // pack from two separate operands (split form), high first here
            "mov.b32 %t3_pk_0, {%t2_h_1, %t2_h_0};",
            // pack from one group operand
            "mov.b32 %t4_g_0, {%t2_h_0, %t2_h_1};",
            // unpack into two separate operands
            "mov.b32 {%t5_lo_0, %t6_hi_0}, %t4_g_0;",
            // 4 byte lanes: group pack/unpack, split unpack/pack
            "mov.b32 %t8_word_1, {%t7_q_4, %t7_q_5, %t7_q_6, %t7_q_7};",
            "mov.b32 {%t9_q2_0, %t9_q2_1, %t9_q2_2, %t9_q2_3}, %t8_word_0;",
            "mov.b32 {%t10_b0_1, %t11_b1_1, %t12_b2_1, %t13_b3_1}, %t8_word_1;",
            "mov.b32 %t14_word2_0, {%t13_b3_0, %t12_b2_0, %t11_b1_0, %t10_b0_0};",
            // b64 from two b32
            "mov.b64 %t15_wide_1, {%t0_w_2, %t0_w_3};",
        ],
    );
    assert_eq!(count(ptx, "mov.b32"), 2 * 9);
    assert_eq!(count(ptx, "mov.b64"), 2);
    assert_eq!(count(ptx, "mov.u32"), 2);
    assert_eq!(count(ptx, "st.global.b8"), 8);
}

#[test]
fn integer_and_float_arithmetic() {
    let ptx = arith_forms::PTX;
    // `max.relu.s32` is PTX ISA 8.0.
    assert_eq!(header(ptx), (".version 8.0", ".target sm_90"));
    assert_lines(
        ptx,
        &[
            "add.rn.ftz.f32 %t4_x_0, %t0_f_0, %t0_f_1;",
            "sub.f32 %t4_x_1, %t0_f_0, %t0_f_1;",
            "mul.rz.sat.f32 %t4_x_2, %t0_f_0, %t0_f_1;",
            "fma.rn.f32 %t4_x_3, %t0_f_0, %t0_f_1, %t4_x_0;",
            "min.NaN.f32 %t4_x_4, %t0_f_0, %t0_f_1;",
            "max.xorsign.abs.f32 %t4_x_5, %t0_f_0, %t0_f_1;",
            "neg.ftz.f32 %t4_x_6, %t0_f_0;",
            "abs.f32 %t4_x_7, %t0_f_1;",
            "add.rz.f64 %t5_y_0, %t1_d_0, %t1_d_1;",
            "fma.rm.f64 %t5_y_5, %t1_d_2, %t1_d_3, %t5_y_4;",
            "max.f64 %t5_y_2, %t1_d_0, %t1_d_1;",
            "abs.f64 %t5_y_3, %t1_d_1;",
            "add.sat.s32 %t6_z_0, %t2_i_0, %t2_i_1;",
            "sub.s32 %t6_z_1, %t2_i_0, %t2_i_1;",
            "mul.lo.s32 %t6_z_2, %t2_i_0, %t2_i_1;",
            "mul.hi.s32 %t6_z_3, %t2_i_0, %t2_i_1;",
            "mad.lo.s32 %t6_z_4, %t2_i_0, %t2_i_1, %t6_z_0;",
            "mad.hi.sat.s32 %t6_z_5, %t2_i_0, %t2_i_1, %t6_z_1;",
            "min.s32 %t6_z_6, %t2_i_0, %t2_i_1;",
            "max.relu.s32 %t6_z_17, %t2_i_2, %t2_i_3;",
            "neg.s32 %t6_z_8, %t2_i_0;",
            "abs.s32 %t6_z_19, %t2_i_3;",
            // wide results are 64-bit registers (i64 tile)
            "mul.wide.s32 %t7_l_0, %t2_i_0, %t2_i_1;",
            "mad.wide.s32 %t7_l_1, %t2_i_0, %t2_i_1, %t7_l_0;",
            "add.u16 %t8_v_0, %t3_u_0, %t3_u_1;",
            "sub.u16 %t8_v_3, %t3_u_2, %t3_u_3;",
            "mul.wide.u16 %t9_w_2, %t3_u_2, %t3_u_3;",
            "mad.wide.u16 %t9_w_1, %t3_u_0, %t3_u_1, %t9_w_0;",
        ],
    );
    assert!(ptx.contains("\t.reg .b64 %t7_l_<4>; // l: i64 [2, 2]\n"));
    assert_eq!(count(ptx, "st.global.v2.s32"), 10);
}

#[test]
fn scalar_params_and_materialised_literals() {
    let ptx = params_and_literals::PTX;
    // Declarations: one register per scalar parameter, constants per width.
    for decl in [
        "\t.reg .b32 %s2_scale;\n",
        "\t.reg .b32 %s3_bias;\n",
        "\t.reg .b8 %k8_<1>;\n",
        "\t.reg .b16 %k16_<2>;\n",
        "\t.reg .b32 %k32_<4>;\n",
        "\t.reg .b64 %k64_<2>;\n",
    ] {
        assert!(ptx.contains(decl), "missing {decl:?}");
    }
    // The prologue loads the scalars and materialises each distinct literal once.
    let prologue: Vec<&str> = instructions(ptx)
        .into_iter()
        .filter(|l| l.starts_with("ld.param.b") || l.contains("%k") && !l.contains("%t"))
        .collect();
    assert_eq!(
        prologue,
        [
            "ld.param.b32 %s2_scale, [params_and_literals_param_scale];",
            "ld.param.b32 %s3_bias, [params_and_literals_param_bias];",
            "mov.b32 %k32_0, 0x3FC00000;",
            "mov.b32 %k32_1, 0xC0000000;",
            "mov.b32 %k32_2, 0x00000007;",
            "mov.b32 %k32_3, 0xFFFFFFFF;",
            "mov.b16 %k16_0, 0x0003;",
            "mov.b64 %k64_0, 0x0000000100000000;",
            "mov.b64 %k64_1, 0x0000000000000001;",
            "mov.b16 %k16_1, 0x00C8;",
            "cvt.u8.u16 %k8_0, 17;",
        ]
    );
    assert_lines(
        ptx,
        &[
            "mul.f32 %t2_x_0, %t0_f_0, %s2_scale;",
            "add.f32 %t2_x_5, %t0_f_1, %k32_0;",
            "fma.rn.f32 %t2_x_2, %t0_f_0, %s2_scale, %k32_1;",
            "sub.f32 %t2_x_3, %k32_0, %t0_f_0;",
            "add.u32 %t3_y_4, %t1_u_1, %s3_bias;",
            "add.u32 %t3_y_1, %t1_u_0, %k32_2;",
            "mul.lo.u32 %t3_y_2, %t1_u_0, %k32_3;",
            "mov.u32 %t3_y_3, %k32_2;",
            "add.u16 %t4_h_1, %t4_h_0, %k16_0;",
            "add.u64 %t5_l_0, %k64_0, %k64_1;",
            "cvt.u8.u16 %t6_b_0, %k16_1;",
            "cvt.u16.u8 %t7_c_1, %k8_0;",
        ],
    );
    // `1.5` is used by two statements but materialised once.
    assert_eq!(ptx.matches("0x3FC00000").count(), 1);
    assert_eq!(ptx.matches("%k32_0").count(), 1 + 2 + 2);
}

#[test]
fn predication_with_a_bool_parameter() {
    let ptx = predicated::PTX;
    assert!(ptx.contains("\t.param .u8 predicated_param_p\n"));
    assert!(ptx.contains("\t.reg .b16 %s2_p;\n\t.reg .pred %p2_p;\n"));
    assert_lines(
        ptx,
        &[
            "ld.param.u8 %s2_p, [predicated_param_p];",
            "setp.ne.b16 %p2_p, %s2_p, 0;",
            // pred = true: no guard
            "ld.global.v2.f32 {%t0_r_0, %t0_r_1}, [%a0_a];",
            // pred = p, preserve_dst = true
            "@%p2_p cvt.rz.f16x2.f32 %t1_d_0, %t0_r_1, %t0_r_0;",
            // pred = !p
            "@!%p2_p cvt.rn.relu.f16x2.f32 %t1_d_7, %t0_r_7, %t0_r_6;",
            // pred = !!!p (= !p)
            "@!%p2_p st.global.v2.b32 [%a1_out+24], {%t1_d_6, %t1_d_7};",
        ],
    );
    let guarded = |prefix: &str| {
        instructions(ptx)
            .iter()
            .filter(|l| l.starts_with(prefix))
            .count()
    };
    assert_eq!(guarded("@%p2_p "), 4);
    assert_eq!(guarded("@!%p2_p "), 8);
    assert_eq!(guarded("@"), 12);
    assert_eq!(count(ptx, "cvt.rz.f16x2.f32"), 4);
    // pred = false: nothing is emitted for that statement.
    assert_eq!(ptx.matches("\t// skipped: pred = false\n").count(), 4);
    assert_eq!(count(ptx, "st.global.v2.b32"), 4);
}

#[test]
fn sub_register_and_multi_register_views() {
    let ptx = register_views::PTX;
    assert!(ptx.contains("\t.reg .b16 %x16_<4>;\n\t.reg .b32 %x32_<4>;\n"));
    let lines = body(ptx);
    let views: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.starts_with("ld.global.v2.f32") && *l != "ret;")
        .collect();
    assert_eq!(
        views,
        [
            // A u16-view destination never written before: the halves are
            // converted into part temporaries (no unpack of the undefined
            // word) and packed once per word at the end of the statement.
            // Where `p` is false the word is undefined, as `pred` without
            // `preserve_dst` allows, so it is stored under `p` too.
            "@%p4_p cvt.rn.f16.f32 %x16_0, %t0_r_0;",
            "@%p4_p cvt.rn.f16.f32 %x16_1, %t0_r_1;",
            "@%p4_p cvt.rn.f16.f32 %x16_2, %t0_r_2;",
            "@%p4_p cvt.rn.f16.f32 %x16_3, %t0_r_3;",
            "mov.b32 %t1_d_0, {%x16_0, %x16_1};",
            "mov.b32 %t1_d_1, {%x16_2, %x16_3};",
            "@%p4_p st.global.b32 [%a2_out], %t1_d_0;",
            "@%p4_p st.global.b32 [%a2_out+4], %t1_d_1;",
            // A u32 view of a u16 tile: written through a temporary, then
            // split; read by packing two registers first.
            "ld.global.b32 %x32_0, [%a1_words];",
            "mov.b32 {%t2_h_0, %t2_h_1}, %x32_0;",
            "ld.global.b32 %x32_1, [%a1_words+4];",
            "mov.b32 {%t2_h_2, %t2_h_3}, %x32_1;",
            "mov.b32 %x32_2, {%t2_h_0, %t2_h_1};",
            "st.global.b32 [%a3_out2], %x32_2;",
            "mov.b32 %x32_3, {%t2_h_2, %t2_h_3};",
            "st.global.b32 [%a3_out2+4], %x32_3;",
        ]
    );
}

#[test]
fn partial_writes_of_written_registers_unpack_first() {
    let ptx = partial_overwrite::PTX;
    support::ptxas::assemble(ptx, "sm_90");
    let lines = body(ptx);
    let views: Vec<&str> = lines
        .iter()
        .copied()
        .skip_while(|l| !l.starts_with("mov.b32"))
        .take(8)
        .collect();
    assert_eq!(
        views,
        [
            // The low half keeps its loaded bits: unpack, write the high
            // half under the predicate, pack back.
            "mov.b32 {%x16_0, %x16_1}, %t0_d_0;",
            "@%p3_p cvt.rn.f16.f32 %x16_1, %t1_f_0;",
            "mov.b32 {%x16_2, %x16_3}, %t0_d_1;",
            "@%p3_p cvt.rn.f16.f32 %x16_3, %t1_f_1;",
            "mov.b32 %t0_d_0, {%x16_0, %x16_1};",
            "mov.b32 %t0_d_1, {%x16_2, %x16_3};",
            "st.global.b32 [%a2_out], %t0_d_0;",
            "st.global.b32 [%a2_out+4], %t0_d_1;",
        ]
    );
}

#[test]
fn version_selection() {
    // A kernel using `cvt.rn.satfinite.f16x2.f32` needs PTX 8.1.
    assert_eq!(
        header(satfinite_pairs::PTX),
        (".version 8.1", ".target sm_90")
    );
    // fp8: PTX 8.1 on sm_89, 7.8 on sm_90.
    assert_eq!(header(fp8_sm89::PTX), (".version 8.1", ".target sm_89"));
    assert_eq!(header(fp8_sm90::PTX), (".version 7.8", ".target sm_90"));
    // Default target, plain forms: 7.8; sm_80: 7.0.
    assert_eq!(header(narrow_pairs::PTX), (".version 7.8", ".target sm_90"));
    assert_eq!(
        header(narrow_pairs_sm80::PTX),
        (".version 7.0", ".target sm_80")
    );
    // The scalar satfinite line is PTX 8.1 and available on sm_70.
    assert_eq!(
        header(satfinite_half_sm70::PTX),
        (".version 8.1", ".target sm_70")
    );
    // Apart from the header, the sm_80 seed kernel is the seed kernel.
    assert_eq!(
        narrow_pairs_sm80::PTX
            .replace("narrow_pairs_sm80", "narrow_pairs")
            .replace(".version 7.0\n.target sm_80", ".version 7.8\n.target sm_90"),
        SEED_PTX
    );
    assert_lines(
        fp8_sm89::PTX,
        &["cvt.rn.satfinite.e4m3x2.f32 %t1_e_0, %t0_r_1, %t0_r_0;"],
    );
}
