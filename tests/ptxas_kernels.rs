//! Macro kernels that exercise each of the foundation's 35 table forms at
//! least once, on a spread of targets (sm_70 .. sm_100), each assembled by
//! ptxas for its own `.target`. `every_table_form_is_covered` ties the
//! kernels to `FORMS`; the forms added since are exercised end to end by
//! `lowering/tests/forms_end_to_end.rs`, generated from the table.

mod support;

use std::collections::BTreeSet;

use tile_kernel::lowering::ptx::table::FORMS;
use tile_kernel::prelude::*;

// ------------------------------------------------------------- memory

#[tile_kernel(grid = 1, block = 1, arch = "sm_80")]
fn ld_st_sm80(
    a: Tensor<i32, 2, 2>,
    b: Tensor<u64, 2, 1>,
    c: Tensor<f32, 2, 1>,
    o_a: Tensor<i32, 2, 2>,
    o_b: Tensor<u64, 2, 1>,
    o_c: Tensor<f32, 2, 1>,
) {
    let x = alloc_local::<i32>([2, 2]);
    let y = alloc_local::<u64>([2, 1]);
    let z = alloc_local::<f32>([2, 1]);
    apply(ptx["ld.global.ca.v2.s32"], x, a);
    apply(ptx["ld.global.L1::evict_first.L2::256B.b64"], y, b);
    apply(ptx["ld.global.cs.nc.f32"], z, c);
    apply(ptx["st.global.cg.v2.s32"], o_a, x);
    apply(ptx["st.global.L1::evict_last.u64"], o_b, y);
    apply(ptx["st.global.f32"], o_c, z);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_75")]
fn ld_st_sm75(a: Tensor<u32, 4, 1>, o: Tensor<u32, 1, 4>) {
    let x = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.L2::64B.b32"], x, a);
    apply(
        ptx["st.global.L1::evict_unchanged.v4.u32"],
        o,
        x.reshape([1, 4]),
    );
}

// ---------------------------------------------------------------- cvt

#[tile_kernel(grid = 1, block = 1)]
fn cvt_scalar_sm90(a: Tensor<f32, 1, 2>, o: Tensor<u16, 1, 8>, o32: Tensor<f32, 1, 2>) {
    let r = alloc_local::<f32>([1, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
    let h = alloc_local::<u16>([1, 6]);
    apply(
        ptx["cvt.rz.relu.satfinite.bf16.f32"],
        h.slice(s![.., 0..1]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rn.f16.f32"],
        h.slice(s![.., 1..2]),
        r.slice(s![.., 1..2]),
    );
    apply(
        ptx["cvt.rm.bf16.f16"],
        h.slice(s![.., 2..3]),
        h.slice(s![.., 1..2]),
    );
    apply(
        ptx["cvt.rpi.s16.f16"],
        h.slice(s![.., 3..4]),
        h.slice(s![.., 1..2]),
    );
    apply(
        ptx["cvt.rzi.u16.bf16"],
        h.slice(s![.., 4..5]),
        h.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rn.relu.f16.f32"],
        h.slice(s![.., 5..6]),
        r.slice(s![.., 0..1]),
    );
    let f = alloc_local::<f32>([1, 2]);
    apply(
        ptx["cvt.ftz.f32.bf16"],
        f.slice(s![.., 0..1]),
        h.slice(s![.., 2..3]),
    );
    apply(
        ptx["cvt.sat.f32.f16"],
        f.slice(s![.., 1..2]),
        h.slice(s![.., 1..2]),
    );
    apply(ptx["st.global.v2.f32"], o32, f);
    apply(
        ptx["st.global.b16"],
        o.slice(s![.., 0..1]),
        h.slice(s![.., 0..1]),
    );
    apply(
        ptx["st.global.v4.b16"],
        o.slice(s![.., 4..8]),
        h.slice(s![.., 2..6]),
    );
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_70")]
fn cvt_scalar_sm70(a: Tensor<f64, 1, 1>, o: Tensor<i32, 1, 4>, o8: Tensor<i8, 1, 1>) {
    let d = alloc_local::<f64>([1, 1]);
    apply(ptx["ld.global.f64"], d, a);
    let f = alloc_local::<f32>([1, 1]);
    apply(ptx["cvt.rm.ftz.sat.f32.f64"], f, d);
    let i = alloc_local::<i32>([1, 4]);
    apply(ptx["cvt.rzi.ftz.sat.s32.f32"], i.slice(s![.., 0..1]), f);
    apply(ptx["cvt.rni.s32.f64"], i.slice(s![.., 1..2]), d);
    apply(
        ptx["cvt.sat.u32.s32"],
        i.view::<u32>().slice(s![.., 2..3]),
        i.slice(s![.., 0..1]),
    );
    let b = alloc_local::<i8>([1, 1]);
    apply(ptx["cvt.sat.s8.s32"], b, i.slice(s![.., 1..2]));
    apply(ptx["cvt.s32.s8"], i.slice(s![.., 3..4]), b);
    apply(ptx["st.global.v4.s32"], o, i);
    apply(ptx["st.global.s8"], o8, b);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_80")]
fn half_pairs_sm80(a: Tensor<f32, 1, 2>, o: Tensor<u32, 1, 2>) {
    let r = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<u32>([1, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rz.relu.satfinite.f16x2.f32"],
        d.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rn.bf16x2.f32"],
        d.slice(s![.., 1..2]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.v2.b32"], o, d);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_100")]
fn tf32_sm100(a: Tensor<f32, 1, 1>, o: Tensor<u32, 1, 4>) {
    let r = alloc_local::<f32>([1, 1]);
    let t = alloc_local::<u32>([1, 4]);
    apply(ptx["ld.global.f32"], r, a);
    apply(
        ptx["cvt.rz.satfinite.relu.tf32.f32"],
        t.slice(s![.., 0..1]),
        r,
    );
    apply(ptx["cvt.rn.relu.tf32.f32"], t.slice(s![.., 1..2]), r);
    apply(ptx["cvt.rna.satfinite.tf32.f32"], t.slice(s![.., 2..3]), r);
    apply(ptx["cvt.rna.tf32.f32"], t.slice(s![.., 3..4]), r);
    apply(ptx["st.global.v4.b32"], o, t);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_89")]
fn fp8_sm89(a: Tensor<f32, 1, 2>, o: Tensor<u16, 1, 2>, o2: Tensor<u32, 1, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    apply(ptx["ld.global.v2.f32"], r, a);
    let h2 = alloc_local::<u32>([1, 1]);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        h2,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    let e = alloc_local::<u16>([1, 2]);
    apply(
        ptx["cvt.rn.satfinite.relu.e5m2x2.f32"],
        e.slice(s![.., 0..1]),
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f16x2"],
        e.slice(s![.., 1..2]),
        h2,
    );
    let back = alloc_local::<u32>([1, 1]);
    apply(ptx["cvt.rn.relu.f16x2.e5m2x2"], back, e.slice(s![.., 0..1]));
    apply(ptx["st.global.v2.b16"], o, e);
    apply(ptx["st.global.b32"], o2, back);
}

// ---------------------------------------------------------------- mov

#[tile_kernel(grid = 1, block = 1, arch = "sm_70")]
fn mov_sm70(
    a: Tensor<u64, 1, 1>,
    f: Tensor<f32, 1, 2>,
    o64: Tensor<u64, 1, 4>,
    o32: Tensor<u32, 1, 2>,
    o16: Tensor<u16, 1, 8>,
    o8: Tensor<u8, 1, 4>,
) {
    let w = alloc_local::<u64>([1, 1]);
    apply(ptx["ld.global.u64"], w, a);
    let r = alloc_local::<f32>([1, 2]);
    apply(ptx["ld.global.v2.f32"], r, f);
    let q = alloc_local::<u64>([1, 4]);
    // mov: scalar
    apply(ptx["mov.b64"], q.slice(s![.., 0..1]), w);
    // mov.unpack4: one 4-lane group
    let h = alloc_local::<u16>([1, 4]);
    apply(ptx["mov.b64"], h, w);
    // mov.pack4: one 4-lane group
    apply(ptx["mov.b64"], q.slice(s![.., 1..2]), h);
    // mov.unpack2: one 2-lane group of b32
    let u = alloc_local::<u32>([1, 2]);
    apply(ptx["mov.b64"], u, w);
    // mov.pack2-split: two separate operands (f32 in b32 lanes)
    apply(
        ptx["mov.b64"],
        q.slice(s![.., 2..3]),
        r.slice(s![.., 1..2]),
        u.slice(s![.., 0..1]),
    );
    // mov.unpack4-split: four separate operands
    let h0 = alloc_local::<u16>([1, 1]);
    let h1 = alloc_local::<u16>([1, 1]);
    let h2 = alloc_local::<u16>([1, 1]);
    let h3 = alloc_local::<u16>([1, 1]);
    apply(ptx["mov.b64"], h0, h1, h2, h3, w);
    // mov.pack4-split
    apply(ptx["mov.b64"], q.slice(s![.., 3..4]), h3, h2, h1, h0);
    // mov.unpack2-split and mov.pack2 on b16 (two byte lanes)
    let b0 = alloc_local::<u8>([1, 1]);
    let b1 = alloc_local::<u8>([1, 1]);
    apply(ptx["mov.b16"], b0, b1, h0);
    let bytes = alloc_local::<u8>([1, 2]);
    apply(ptx["mov.b16"], bytes, h1);
    let g = alloc_local::<u16>([1, 2]);
    apply(ptx["mov.b16"], g.slice(s![.., 0..1]), bytes);
    apply(ptx["mov.s16"], g.slice(s![.., 1..2]), h2);
    let c = alloc_local::<f32>([1, 1]);
    apply(ptx["mov.f32"], c, r.slice(s![.., 0..1]));
    apply(
        ptx["st.global.v2.b64"],
        o64.slice(s![.., 0..2]),
        q.slice(s![.., 0..2]),
    );
    apply(
        ptx["st.global.v2.b64"],
        o64.slice(s![.., 2..4]),
        q.slice(s![.., 2..4]),
    );
    apply(ptx["st.global.v2.b32"], o32, u);
    apply(ptx["st.global.v4.b16"], o16.slice(s![.., 0..4]), h);
    apply(ptx["st.global.v2.b16"], o16.slice(s![.., 4..6]), g);
    apply(
        ptx["st.global.f32"],
        o16.view::<f32>().slice(s![.., 3..4]),
        c,
    );
    apply(ptx["st.global.v2.b8"], o8.slice(s![.., 0..2]), bytes);
    apply(ptx["st.global.b8"], o8.slice(s![.., 2..3]), b0);
    apply(ptx["st.global.b8"], o8.slice(s![.., 3..4]), b1);
}

// --------------------------------------------------------- arithmetic

#[tile_kernel(grid = 1, block = 1, arch = "sm_70")]
fn arith_sm70(
    fa: Tensor<f32, 1, 2>,
    da: Tensor<f64, 1, 2>,
    la: Tensor<u64, 1, 2>,
    sa: Tensor<i16, 1, 2>,
    of: Tensor<f32, 1, 4>,
    od: Tensor<f64, 1, 4>,
    ol: Tensor<u64, 1, 4>,
    os: Tensor<i16, 1, 4>,
    oi: Tensor<i32, 1, 2>,
) {
    let f = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<f64>([1, 2]);
    let l = alloc_local::<u64>([1, 2]);
    let s = alloc_local::<i16>([1, 2]);
    apply(ptx["ld.global.v2.f32"], f, fa);
    apply(ptx["ld.global.v2.f64"], d, da);
    apply(ptx["ld.global.v2.u64"], l, la);
    apply(ptx["ld.global.v2.s16"], s, sa);
    let x = alloc_local::<f32>([1, 4]);
    apply(
        ptx["add.rm.ftz.sat.f32"],
        x.slice(s![.., 0..1]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["mul.rn.ftz.f32"],
        x.slice(s![.., 1..2]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["fma.rz.ftz.sat.f32"],
        x.slice(s![.., 2..3]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
        x.slice(s![.., 0..1]),
    );
    apply(
        ptx["abs.ftz.f32"],
        x.slice(s![.., 3..4]),
        f.slice(s![.., 1..2]),
    );
    let y = alloc_local::<f64>([1, 4]);
    apply(
        ptx["add.rp.f64"],
        y.slice(s![.., 0..1]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.rn.f64"],
        y.slice(s![.., 1..2]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
    );
    apply(
        ptx["fma.rp.f64"],
        y.slice(s![.., 2..3]),
        d.slice(s![.., 0..1]),
        d.slice(s![.., 1..2]),
        y.slice(s![.., 0..1]),
    );
    apply(ptx["neg.f64"], y.slice(s![.., 3..4]), d.slice(s![.., 1..2]));
    let z = alloc_local::<u64>([1, 4]);
    apply(
        ptx["add.u64"],
        z.slice(s![.., 0..1]),
        l.slice(s![.., 0..1]),
        l.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.u64"],
        z.slice(s![.., 1..2]),
        l.slice(s![.., 0..1]),
        l.slice(s![.., 1..2]),
    );
    apply(
        ptx["mul.hi.u64"],
        z.slice(s![.., 2..3]),
        l.slice(s![.., 0..1]),
        l.slice(s![.., 1..2]),
    );
    apply(
        ptx["mad.lo.u64"],
        z.slice(s![.., 3..4]),
        l.slice(s![.., 0..1]),
        l.slice(s![.., 1..2]),
        z.slice(s![.., 0..1]),
    );
    let v = alloc_local::<i16>([1, 4]);
    apply(
        ptx["mul.lo.s16"],
        v.slice(s![.., 0..1]),
        s.slice(s![.., 0..1]),
        s.slice(s![.., 1..2]),
    );
    apply(ptx["neg.s16"], v.slice(s![.., 1..2]), s.slice(s![.., 0..1]));
    apply(ptx["abs.s16"], v.slice(s![.., 2..3]), s.slice(s![.., 1..2]));
    apply(
        ptx["max.s16"],
        v.slice(s![.., 3..4]),
        s.slice(s![.., 0..1]),
        s.slice(s![.., 1..2]),
    );
    let w = alloc_local::<i32>([1, 2]);
    apply(
        ptx["mul.wide.s16"],
        w.slice(s![.., 0..1]),
        s.slice(s![.., 0..1]),
        s.slice(s![.., 1..2]),
    );
    apply(
        ptx["mad.wide.s16"],
        w.slice(s![.., 1..2]),
        s.slice(s![.., 0..1]),
        s.slice(s![.., 1..2]),
        w.slice(s![.., 0..1]),
    );
    let wide = alloc_local::<u64>([1, 1]);
    apply(
        ptx["mul.wide.u32"],
        wide,
        l.view::<u32>().slice(s![.., 0..1]),
        l.view::<u32>().slice(s![.., 2..3]),
    );
    apply(ptx["st.global.v4.f32"], of, x);
    apply(
        ptx["st.global.v2.f64"],
        od.slice(s![.., 0..2]),
        y.slice(s![.., 0..2]),
    );
    apply(
        ptx["st.global.v2.f64"],
        od.slice(s![.., 2..4]),
        y.slice(s![.., 2..4]),
    );
    apply(
        ptx["st.global.v2.u64"],
        ol.slice(s![.., 0..2]),
        z.slice(s![.., 0..2]),
    );
    apply(
        ptx["st.global.v2.u64"],
        ol.slice(s![.., 2..4]),
        z.slice(s![.., 2..4]),
    );
    apply(ptx["st.global.v4.s16"], os, v);
    apply(ptx["st.global.v2.s32"], oi, w);
    apply(ptx["st.global.u64"], ol.slice(s![.., 0..1]), wide);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_86")]
fn min_max_sm86(
    fa: Tensor<f32, 1, 2>,
    ua: Tensor<u16, 1, 2>,
    of: Tensor<f32, 1, 2>,
    ou: Tensor<u16, 1, 2>,
) {
    let f = alloc_local::<f32>([1, 2]);
    let u = alloc_local::<u16>([1, 2]);
    apply(ptx["ld.global.v2.f32"], f, fa);
    apply(ptx["ld.global.v2.u16"], u, ua);
    let x = alloc_local::<f32>([1, 2]);
    apply(
        ptx["min.ftz.NaN.xorsign.abs.f32"],
        x.slice(s![.., 0..1]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    apply(
        ptx["max.NaN.f32"],
        x.slice(s![.., 1..2]),
        f.slice(s![.., 0..1]),
        f.slice(s![.., 1..2]),
    );
    let v = alloc_local::<u16>([1, 2]);
    apply(
        ptx["min.u16"],
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
    apply(ptx["st.global.v2.f32"], of, x);
    apply(ptx["st.global.v2.u16"], ou, v);
}

#[tile_kernel(grid = 1, block = 1, arch = "sm_90")]
fn relu_min_max_sm90(ia: Tensor<i32, 1, 2>, oi: Tensor<i32, 1, 4>) {
    let i = alloc_local::<i32>([1, 2]);
    apply(ptx["ld.global.v2.s32"], i, ia);
    let z = alloc_local::<i32>([1, 4]);
    apply(
        ptx["min.relu.s32"],
        z.slice(s![.., 0..1]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["max.relu.s32"],
        z.slice(s![.., 1..2]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["sub.sat.s32"],
        z.slice(s![.., 2..3]),
        i.slice(s![.., 0..1]),
        i.slice(s![.., 1..2]),
    );
    apply(
        ptx["add.s32"],
        z.slice(s![.., 3..4]),
        i.slice(s![.., 0..1]),
        1,
    );
    apply(ptx["st.global.v4.s32"], oi, z);
}

// ------------------------------------------------------------- checks

/// Every kernel of this file with its declared target.
const KERNELS: &[(&str, &str, &str)] = &[
    ("ld_st_sm80", ld_st_sm80::PTX, "sm_80"),
    ("ld_st_sm75", ld_st_sm75::PTX, "sm_75"),
    ("cvt_scalar_sm90", cvt_scalar_sm90::PTX, "sm_90"),
    ("cvt_scalar_sm70", cvt_scalar_sm70::PTX, "sm_70"),
    ("half_pairs_sm80", half_pairs_sm80::PTX, "sm_80"),
    ("tf32_sm100", tf32_sm100::PTX, "sm_100"),
    ("fp8_sm89", fp8_sm89::PTX, "sm_89"),
    ("mov_sm70", mov_sm70::PTX, "sm_70"),
    ("arith_sm70", arith_sm70::PTX, "sm_70"),
    ("min_max_sm86", min_max_sm86::PTX, "sm_86"),
    ("relu_min_max_sm90", relu_min_max_sm90::PTX, "sm_90"),
];

/// (form id, kernel, an instruction line of that form in the kernel).
const COVERAGE: &[(&str, &str, &str)] = &[
    (
        "ld",
        "ld_st_sm80",
        "ld.global.L1::evict_first.L2::256B.b64 %t1_y_0, [%a1_b];",
    ),
    (
        "ld",
        "ld_st_sm80",
        "ld.global.cs.nc.f32 %t2_z_1, [%a2_c+4];",
    ),
    (
        "ld",
        "ld_st_sm75",
        "ld.global.L2::64B.b32 %t0_x_3, [%a0_a+12];",
    ),
    (
        "st",
        "ld_st_sm80",
        "st.global.cg.v2.s32 [%a3_o_a+8], {%t0_x_2, %t0_x_3};",
    ),
    (
        "st",
        "ld_st_sm75",
        "st.global.L1::evict_unchanged.v4.u32 [%a1_o], {%t0_x_0, %t0_x_1, %t0_x_2, %t0_x_3};",
    ),
    (
        "cvt.scalar",
        "cvt_scalar_sm90",
        "cvt.rz.relu.satfinite.bf16.f32 %t1_h_0, %t0_r_0;",
    ),
    (
        "cvt.scalar",
        "cvt_scalar_sm90",
        "cvt.rm.bf16.f16 %t1_h_2, %t1_h_1;",
    ),
    (
        "cvt.scalar",
        "cvt_scalar_sm90",
        "cvt.ftz.f32.bf16 %t2_f_0, %t1_h_2;",
    ),
    (
        "cvt.scalar",
        "cvt_scalar_sm70",
        "cvt.rm.ftz.sat.f32.f64 %t1_f_0, %t0_d_0;",
    ),
    (
        "cvt.scalar",
        "cvt_scalar_sm70",
        "cvt.sat.s8.s32 %t3_b_0, %t2_i_1;",
    ),
    (
        "cvt.half-pair-from-f32",
        "half_pairs_sm80",
        "cvt.rz.relu.satfinite.f16x2.f32 %t1_d_0, %t0_r_1, %t0_r_0;",
    ),
    (
        "cvt.tf32",
        "tf32_sm100",
        "cvt.rz.satfinite.relu.tf32.f32 %t1_t_0, %t0_r_0;",
    ),
    (
        "cvt.tf32",
        "tf32_sm100",
        "cvt.rna.satfinite.tf32.f32 %t1_t_2, %t0_r_0;",
    ),
    (
        "cvt.fp8-pair-from-f32",
        "fp8_sm89",
        "cvt.rn.satfinite.relu.e5m2x2.f32 %t2_e_0, %t0_r_1, %t0_r_0;",
    ),
    (
        "cvt.fp8-pair-from-f16x2",
        "fp8_sm89",
        "cvt.rn.satfinite.e4m3x2.f16x2 %t2_e_1, %t1_h2_0;",
    ),
    (
        "cvt.f16x2-from-fp8-pair",
        "fp8_sm89",
        "cvt.rn.relu.f16x2.e5m2x2 %t3_back_0, %t2_e_0;",
    ),
    ("mov", "mov_sm70", "mov.b64 %t2_q_0, %t0_w_0;"),
    ("mov", "mov_sm70", "mov.s16 %t12_g_1, %t7_h2_0;"),
    ("mov", "mov_sm70", "mov.f32 %t13_c_0, %t1_r_0;"),
    (
        "mov.unpack4",
        "mov_sm70",
        "mov.b64 {%t3_h_0, %t3_h_1, %t3_h_2, %t3_h_3}, %t0_w_0;",
    ),
    (
        "mov.pack4",
        "mov_sm70",
        "mov.b64 %t2_q_1, {%t3_h_0, %t3_h_1, %t3_h_2, %t3_h_3};",
    ),
    (
        "mov.unpack2",
        "mov_sm70",
        "mov.b64 {%t4_u_0, %t4_u_1}, %t0_w_0;",
    ),
    (
        "mov.pack2-split",
        "mov_sm70",
        "mov.b64 %t2_q_2, {%t1_r_1, %t4_u_0};",
    ),
    (
        "mov.unpack4-split",
        "mov_sm70",
        "mov.b64 {%t5_h0_0, %t6_h1_0, %t7_h2_0, %t8_h3_0}, %t0_w_0;",
    ),
    (
        "mov.pack4-split",
        "mov_sm70",
        "mov.b64 %t2_q_3, {%t8_h3_0, %t7_h2_0, %t6_h1_0, %t5_h0_0};",
    ),
    (
        "mov.unpack2-split",
        "mov_sm70",
        "mov.b16 {%t9_b0_0, %t10_b1_0}, %t5_h0_0;",
    ),
    (
        "mov.unpack2",
        "mov_sm70",
        "mov.b16 {%t11_bytes_0, %t11_bytes_1}, %t6_h1_0;",
    ),
    (
        "mov.pack2",
        "mov_sm70",
        "mov.b16 %t12_g_0, {%t11_bytes_0, %t11_bytes_1};",
    ),
    (
        "add.float",
        "arith_sm70",
        "add.rm.ftz.sat.f32 %t4_x_0, %t0_f_0, %t0_f_1;",
    ),
    (
        "add.float",
        "arith_sm70",
        "add.rp.f64 %t5_y_0, %t1_d_0, %t1_d_1;",
    ),
    (
        "add.int",
        "arith_sm70",
        "add.u64 %t6_z_0, %t2_l_0, %t2_l_1;",
    ),
    (
        "add.int",
        "relu_min_max_sm90",
        "add.s32 %t1_z_3, %t0_i_0, %k32_0;",
    ),
    (
        "sub.float",
        "arith_sm70",
        "sub.rn.f64 %t5_y_1, %t1_d_0, %t1_d_1;",
    ),
    (
        "sub.int",
        "arith_sm70",
        "sub.u64 %t6_z_1, %t2_l_0, %t2_l_1;",
    ),
    (
        "sub.int",
        "relu_min_max_sm90",
        "sub.sat.s32 %t1_z_2, %t0_i_0, %t0_i_1;",
    ),
    (
        "mul.float",
        "arith_sm70",
        "mul.rn.ftz.f32 %t4_x_1, %t0_f_0, %t0_f_1;",
    ),
    (
        "mul.int",
        "arith_sm70",
        "mul.hi.u64 %t6_z_2, %t2_l_0, %t2_l_1;",
    ),
    (
        "mul.int",
        "arith_sm70",
        "mul.lo.s16 %t7_v_0, %t3_s_0, %t3_s_1;",
    ),
    (
        "mul.wide",
        "arith_sm70",
        "mul.wide.s16 %t8_w_0, %t3_s_0, %t3_s_1;",
    ),
    (
        "mad.int",
        "arith_sm70",
        "mad.lo.u64 %t6_z_3, %t2_l_0, %t2_l_1, %t6_z_0;",
    ),
    (
        "mad.wide",
        "arith_sm70",
        "mad.wide.s16 %t8_w_1, %t3_s_0, %t3_s_1, %t8_w_0;",
    ),
    (
        "fma",
        "arith_sm70",
        "fma.rz.ftz.sat.f32 %t4_x_2, %t0_f_0, %t0_f_1, %t4_x_0;",
    ),
    (
        "fma",
        "arith_sm70",
        "fma.rp.f64 %t5_y_2, %t1_d_0, %t1_d_1, %t5_y_0;",
    ),
    (
        "min.float",
        "min_max_sm86",
        "min.ftz.NaN.xorsign.abs.f32 %t2_x_0, %t0_f_0, %t0_f_1;",
    ),
    (
        "min.int",
        "min_max_sm86",
        "min.u16 %t3_v_0, %t1_u_0, %t1_u_1;",
    ),
    (
        "min.int",
        "relu_min_max_sm90",
        "min.relu.s32 %t1_z_0, %t0_i_0, %t0_i_1;",
    ),
    (
        "max.float",
        "min_max_sm86",
        "max.NaN.f32 %t2_x_1, %t0_f_0, %t0_f_1;",
    ),
    (
        "max.int",
        "arith_sm70",
        "max.s16 %t7_v_3, %t3_s_0, %t3_s_1;",
    ),
    (
        "max.int",
        "relu_min_max_sm90",
        "max.relu.s32 %t1_z_1, %t0_i_0, %t0_i_1;",
    ),
    ("neg.float", "arith_sm70", "neg.f64 %t5_y_3, %t1_d_1;"),
    ("neg.int", "arith_sm70", "neg.s16 %t7_v_1, %t3_s_0;"),
    ("abs.float", "arith_sm70", "abs.ftz.f32 %t4_x_3, %t0_f_1;"),
    ("abs.int", "arith_sm70", "abs.s16 %t7_v_2, %t3_s_1;"),
];

fn ptx_of(kernel: &str) -> &'static str {
    KERNELS
        .iter()
        .find(|(name, _, _)| *name == kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel}"))
        .1
}

#[test]
fn every_kernel_assembles_for_its_target() {
    for (name, ptx, arch) in KERNELS {
        assert!(!ptx.is_empty(), "{name} did not compile");
        assert!(
            ptx.contains(&format!("\n.target {arch}\n")),
            "{name} does not target {arch}"
        );
        support::ptxas::assemble(ptx, arch);
    }
}

#[test]
fn every_table_form_is_covered() {
    let covered: BTreeSet<&str> = COVERAGE.iter().map(|(id, _, _)| *id).collect();
    let forms: BTreeSet<&str> = FORMS.iter().map(|f| f.id).collect();
    // The foundation's 35 forms keep a hand-written macro kernel each;
    // every usable form (these included) also runs end to end in
    // `lowering/tests/forms_end_to_end.rs`, generated from the table.
    assert!(
        covered.is_subset(&forms),
        "unknown ids: {:?}",
        covered.difference(&forms).collect::<Vec<_>>()
    );
    assert_eq!(covered.len(), 35);
    for (id, kernel, line) in COVERAGE {
        let ptx = ptx_of(kernel);
        assert!(
            ptx.lines().any(|l| l.strip_prefix('\t') == Some(*line)),
            "{id}: `{line}` not in {kernel}:\n{ptx}"
        );
    }
}

/// `.version` of each kernel: the target's minimum raised by the forms used.
#[test]
fn versions_follow_the_forms() {
    let version = |ptx: &str| {
        ptx.lines()
            .find(|l| l.starts_with(".version "))
            .unwrap()
            .to_string()
    };
    let expected = [
        ("ld_st_sm80", ".version 7.4"),
        ("ld_st_sm75", ".version 7.4"),
        ("cvt_scalar_sm90", ".version 8.1"),
        ("cvt_scalar_sm70", ".version 6.0"),
        ("half_pairs_sm80", ".version 8.1"),
        ("tf32_sm100", ".version 8.6"),
        ("fp8_sm89", ".version 8.1"),
        ("mov_sm70", ".version 6.0"),
        ("arith_sm70", ".version 6.0"),
        ("min_max_sm86", ".version 7.2"),
        ("relu_min_max_sm90", ".version 8.0"),
    ];
    for (name, v) in expected {
        assert_eq!(version(ptx_of(name)), v, "{name}");
    }
    assert_eq!(expected.len(), KERNELS.len());
}
