//! Generated kernels on the CPU interpreter and on a real GPU, checked bit
//! for bit against host references (`half`, `float8`), plus launcher
//! behaviour (shape checks, the once-per-context module cache).
//!
//! Each semantic test runs twice (`support::gpu::on_both_devices!`):
//! `NAME::on_cpu` on the CPU interpreter, always (so CI, which has no GPU,
//! runs every sweep at its full size), and `NAME::on_gpu` on GPU 0, which
//! is `#[ignore]`d (a machine without a GPU reports it as ignored);
//! `--include-ignored` runs it and a missing GPU then fails. The module
//! cache test is GPU-only: the CPU device loads no modules.
//!
//! The kernels are single-thread and fully unrolled (one instruction per
//! repeat coordinate), so each launch converts one 64-row tile (64 rows keep
//! the tiles within the per-thread register budget) and the sweeps run as
//! many launches over chunks of their inputs.

mod support;

#[allow(dead_code)]
#[path = "../examples/narrow_pairs.rs"]
mod narrow_pairs_example;
#[allow(dead_code)]
#[path = "../examples/pack_fp8.rs"]
mod pack_fp8_example;
#[allow(dead_code)]
#[path = "../examples/widen_pairs.rs"]
mod widen_pairs_example;

use float8::{F8E4M3, F8E5M2};
use tile_kernel::prelude::*;
use tile_kernel::{Element, Result, spec::Borrow};

use support::gpu::on_both_devices;

use narrow_pairs_example::narrow_pairs;
use pack_fp8_example::pack_fp8;
use widen_pairs_example::widen_pairs;

/// Rows of the big test kernels; every launch converts this many rows.
const ROWS: usize = 64;

// ---------------------------------------------------------------- kernels

/// f32 pairs -> f16x2, round to nearest even (the seed kernel, 64 rows).
#[tile_kernel(grid = 1, block = 1)]
fn narrow_f16_rn(a: Tensor<f32, 64, 2>, out: Tensor<u32, 64, 1>) {
    let r = alloc_local::<f32>([64, 2]);
    let d = alloc_local::<u32>([64, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// f32 pairs -> f16x2, round toward zero.
#[tile_kernel(grid = 1, block = 1)]
fn narrow_f16_rz(a: Tensor<f32, 64, 2>, out: Tensor<u32, 64, 1>) {
    let r = alloc_local::<f32>([64, 2]);
    let d = alloc_local::<u32>([64, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rz.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// f32 pairs -> bf16x2, round to nearest even.
#[tile_kernel(grid = 1, block = 1)]
fn narrow_bf16_rn(a: Tensor<f32, 64, 2>, out: Tensor<u32, 64, 1>) {
    let r = alloc_local::<f32>([64, 2]);
    let d = alloc_local::<u32>([64, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.bf16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// f32 pairs -> e4m3x2 (16 bits), saturating to the largest finite value.
#[tile_kernel(grid = 1, block = 1)]
fn pack_e4m3(a: Tensor<f32, 64, 2>, out: Tensor<u16, 64, 1>) {
    let r = alloc_local::<f32>([64, 2]);
    let d = alloc_local::<u16>([64, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b16"], out, d);
}

/// f32 pairs -> e5m2x2 (16 bits), saturating to the largest finite value.
#[tile_kernel(grid = 1, block = 1)]
fn pack_e5m2(a: Tensor<f32, 64, 2>, out: Tensor<u16, 64, 1>) {
    let r = alloc_local::<f32>([64, 2]);
    let d = alloc_local::<u16>([64, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.satfinite.e5m2x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b16"], out, d);
}

/// f16x2 -> e4m3x2: high half -> high byte.
#[tile_kernel(grid = 1, block = 1)]
fn narrow_f16x2_e4m3(a: Tensor<u32, 64, 1>, out: Tensor<u16, 64, 1>) {
    let h = alloc_local::<u32>([64, 1]);
    let d = alloc_local::<u16>([64, 1]);
    apply(ptx["ld.global.b32"], h, a);
    apply(ptx["cvt.rn.satfinite.e4m3x2.f16x2"], d, h);
    apply(ptx["st.global.b16"], out, d);
}

/// f16x2 -> e5m2x2: high half -> high byte.
#[tile_kernel(grid = 1, block = 1)]
fn narrow_f16x2_e5m2(a: Tensor<u32, 64, 1>, out: Tensor<u16, 64, 1>) {
    let h = alloc_local::<u32>([64, 1]);
    let d = alloc_local::<u16>([64, 1]);
    apply(ptx["ld.global.b32"], h, a);
    apply(ptx["cvt.rn.satfinite.e5m2x2.f16x2"], d, h);
    apply(ptx["st.global.b16"], out, d);
}

/// e4m3x2 -> f16x2: high byte -> high half.
#[tile_kernel(grid = 1, block = 1)]
fn unpack_e4m3(a: Tensor<u16, 64, 1>, out: Tensor<u32, 64, 1>) {
    let b = alloc_local::<u16>([64, 1]);
    let d = alloc_local::<u32>([64, 1]);
    apply(ptx["ld.global.b16"], b, a);
    apply(ptx["cvt.rn.f16x2.e4m3x2"], d, b);
    apply(ptx["st.global.b32"], out, d);
}

/// e5m2x2 -> f16x2: high byte -> high half.
#[tile_kernel(grid = 1, block = 1)]
fn unpack_e5m2(a: Tensor<u16, 64, 1>, out: Tensor<u32, 64, 1>) {
    let b = alloc_local::<u16>([64, 1]);
    let d = alloc_local::<u32>([64, 1]);
    apply(ptx["ld.global.b16"], b, a);
    apply(ptx["cvt.rn.f16x2.e5m2x2"], d, b);
    apply(ptx["st.global.b32"], out, d);
}

/// f16x2 -> two f32 (two scalar cvts through a u16 view), 64 rows.
#[tile_kernel(grid = 1, block = 1)]
fn widen_f16(packed: Tensor<u32, 64, 1>, out: Tensor<f32, 64, 2>) {
    let d = alloc_local::<u32>([64, 1]);
    let f = alloc_local::<f32>([64, 2, 1]);
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32.f16"], f, d.view::<u16>().unsqueeze(-1));
    apply(ptx["st.global.v2.f32"], out, f.reshape([64, 2]));
}

/// A kernel used only by the module-cache test, so no other test's
/// launches can touch its load count.
#[tile_kernel(grid = 1, block = 1)]
fn cache_probe(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
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

// ---------------------------------------------------------------- harness

/// Runs `launch` over `inputs` in chunks of `in_cols * ROWS` elements (the
/// last chunk zero-padded); returns the outputs of the real inputs only.
fn run_chunked<I, O>(
    dev: &Device,
    inputs: &[I],
    in_cols: usize,
    out_cols: usize,
    launch: impl Fn(&Device, &DeviceTensor<I>, &mut DeviceTensor<O>) -> Result<()>,
) -> Result<Vec<O>>
where
    I: Element + Copy + Default,
    O: Element + Copy,
{
    assert_eq!(inputs.len() % in_cols, 0, "inputs must fill whole rows");
    let rows = inputs.len() / in_cols;
    let chunk = in_cols * ROWS;
    let mut input = dev.zeros::<I>([ROWS, in_cols])?;
    let mut output = dev.zeros::<O>([ROWS, out_cols])?;
    let mut results = Vec::with_capacity(rows * out_cols);
    let mut host = vec![I::default(); chunk];
    for part in inputs.chunks(chunk) {
        host[..part.len()].copy_from_slice(part);
        host[part.len()..].fill(I::default());
        input.upload_from(&host)?;
        launch(dev, &input, &mut output)?;
        let got = output.download()?;
        results.extend_from_slice(&got[..part.len() / in_cols * out_cols]);
    }
    Ok(results)
}

/// Compares `got` and `want` element by element with `same`; panics listing
/// the first mismatches (with the input that produced each).
fn check<T: Copy + std::fmt::Debug, X: std::fmt::Debug>(
    what: &str,
    inputs: impl Fn(usize) -> X,
    got: &[T],
    want: &[T],
    same: impl Fn(T, T) -> bool,
) {
    assert_eq!(got.len(), want.len(), "{what}: result count");
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !same(got[i], want[i])).collect();
    if !bad.is_empty() {
        let listing: Vec<String> = bad
            .iter()
            .take(24)
            .map(|&i| {
                format!(
                    "  [{i}] input {:?}: device {:#x?}, host {:#x?}",
                    inputs(i),
                    got[i],
                    want[i]
                )
            })
            .collect();
        panic!(
            "{what}: {} of {} results differ from the host reference; first ones:\n{}",
            bad.len(),
            got.len(),
            listing.join("\n")
        );
    }
    println!("{what}: {} results match the host reference", got.len());
}

fn f16_is_nan(bits: u16) -> bool {
    bits & 0x7c00 == 0x7c00 && bits & 0x03ff != 0
}

fn bf16_is_nan(bits: u16) -> bool {
    bits & 0x7f80 == 0x7f80 && bits & 0x007f != 0
}

fn e4m3_is_nan(bits: u8) -> bool {
    bits & 0x7f == 0x7f
}

fn e5m2_is_nan(bits: u8) -> bool {
    bits & 0x7f > 0x7c
}

/// Bit-exact, except that any two NaNs are equal (per 16-bit half).
fn same_halves(is_nan: fn(u16) -> bool) -> impl Fn(u32, u32) -> bool {
    move |a, b| {
        [0, 16].iter().all(|&s| {
            let (x, y) = ((a >> s) as u16, (b >> s) as u16);
            x == y || (is_nan(x) && is_nan(y))
        })
    }
}

/// Bit-exact, except that any two NaNs are equal (per byte).
fn same_bytes(is_nan: fn(u8) -> bool) -> impl Fn(u16, u16) -> bool {
    move |a, b| {
        [0, 8].iter().all(|&s| {
            let (x, y) = ((a >> s) as u8, (b >> s) as u8);
            x == y || (is_nan(x) && is_nan(y))
        })
    }
}

fn pack16(lo: u16, hi: u16) -> u32 {
    u32::from(lo) | (u32::from(hi) << 16)
}

fn pack8(lo: u8, hi: u8) -> u16 {
    u16::from(lo) | (u16::from(hi) << 8)
}

/// Interesting f32 inputs for narrowing conversions: every f16, bf16, e4m3
/// and e5m2 value with the midpoints to its neighbour and one f32 ulp either
/// side of each midpoint (ties, subnormal results, rounding up to the
/// largest finite value or to infinity), the specials (signed zeros,
/// infinities, NaNs, f32 subnormals, f32 extremes) and a strided walk over
/// all 2^32 f32 bit patterns. Length is even.
fn f32_sweep() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signalling NaN
        f32::from_bits(0xffbf_ffff),
        f32::from_bits(0x0000_0001), // smallest f32 subnormal
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff), // largest f32 subnormal
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        65504.0,
        65519.996,
        65520.0, // ties to even: rounds to +inf in f16
        -65520.0,
        65536.0,
        1.0e5,
        448.0,
        464.0,
        -464.0,
        464.00003,
        480.0,
        1.0e4,
        57344.0,
        61440.0,
        61440.004,
        -61440.0,
        2f32.powi(-24),
        2f32.powi(-25),
        -(2f32.powi(-25)),
        2f32.powi(-9),
        2f32.powi(-10),
        2f32.powi(-16),
        2f32.powi(-17),
    ];
    fn neighbourhood(v: &mut Vec<f32>, lo: f32, hi: f32) {
        v.push(lo);
        v.push(-lo);
        if hi.is_finite() {
            let mid = ((f64::from(lo) + f64::from(hi)) / 2.0) as f32;
            for m in [mid, mid.next_up(), mid.next_down()] {
                v.push(m);
                v.push(-m);
            }
        }
    }
    for h in 0..0x7c00u16 {
        let lo = f16::from_bits(h).to_f32();
        let hi = f16::from_bits(h + 1).to_f32();
        neighbourhood(&mut v, lo, hi);
    }
    for h in 0..0x7f80u32 {
        let lo = f32::from_bits(h << 16);
        let hi = f32::from_bits((h + 1) << 16);
        neighbourhood(&mut v, lo, hi);
    }
    for b in 0..0x7eu8 {
        neighbourhood(
            &mut v,
            F8E4M3::from_bits(b).to_f32(),
            F8E4M3::from_bits(b + 1).to_f32(),
        );
    }
    for b in 0..0x7bu8 {
        neighbourhood(
            &mut v,
            F8E5M2::from_bits(b).to_f32(),
            F8E5M2::from_bits(b + 1).to_f32(),
        );
    }
    for i in 0..65536u32 {
        v.push(f32::from_bits(i.wrapping_mul(65537).wrapping_add(i >> 3)));
    }
    if v.len() % 2 == 1 {
        v.push(1.0);
    }
    v
}

/// f16 round-toward-zero: the nearest-even result, stepped one ulp toward
/// zero when it rounded away from zero (bit patterns order magnitudes).
fn f16_rz(x: f32) -> u16 {
    let h = f16::from_f32(x);
    if !x.is_nan() && h.to_f32().abs() > x.abs() {
        h.to_bits() - 1
    } else {
        h.to_bits()
    }
}

// ---------------------------------------------------------------- examples

// Each of these runs on the CPU interpreter (`NAME::on_cpu`, always) and on
// GPU 0 (`NAME::on_gpu`, ignored without `--include-ignored`), with the
// same inputs and the same bit-exact checks on both.
on_both_devices!(
    seed_narrow_pairs_puts_the_first_element_in_the_low_half,
    widen_pairs_example_matches_half,
    pack_fp8_example_matches_float8,
    f32_to_f16x2_rn_matches_half_bit_for_bit,
    f32_to_f16x2_rz_matches_round_toward_zero,
    f32_to_bf16x2_rn_matches_half_bit_for_bit,
    f32_to_e4m3x2_matches_float8,
    f32_to_e5m2x2_matches_float8,
    f16x2_to_e4m3x2_matches_float8,
    f16x2_to_e5m2x2_matches_float8,
    e4m3x2_to_f16x2_matches_float8_for_every_pair,
    e5m2x2_to_f16x2_matches_float8_for_every_pair,
    f16x2_to_f32_widens_every_f16_exactly,
    launcher_rejects_a_wrongly_shaped_tensor,
    launcher_declares_access_and_rejects_a_wrong_dtype_through_the_builder,
    predicated_sub_register_write_keeps_the_other_half_and_the_old_word,
);

fn seed_narrow_pairs_puts_the_first_element_in_the_low_half(dev: &Device) -> Result<()> {
    let x: Vec<f32> = (0..8).map(|i| -2.0 + 4.0 * i as f32 / 7.0).collect();
    let a = dev.upload(&x, [4, 2])?;
    let mut out = dev.zeros::<u32>([4, 1])?;
    narrow_pairs(dev, &a, &mut out)?;
    let got = out.download()?;
    let want: Vec<u32> = x
        .chunks(2)
        .map(|p| pack16(f16::from_f32(p[0]).to_bits(), f16::from_f32(p[1]).to_bits()))
        .collect();
    assert_eq!(got, want);
    assert!(narrow_pairs::PTX.contains("cvt.rn.f16x2.f32"));
    Ok(())
}

fn widen_pairs_example_matches_half(dev: &Device) -> Result<()> {
    let words = [0x3c00_bc00u32, 0x8000_0001, 0xfc00_7bff, 0x7e00_2e66];
    let packed = dev.upload(&words, [4, 1])?;
    let mut out = dev.zeros::<f32>([4, 2])?;
    widen_pairs(dev, &packed, &mut out)?;
    let got = out.download()?;
    let want = widen_pairs_example::host_reference(&words);
    for (g, w) in got.iter().zip(&want) {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{got:?} vs {want:?}"
        );
    }
    Ok(())
}

fn pack_fp8_example_matches_float8(dev: &Device) -> Result<()> {
    let x = [
        1.0f32,
        -0.3,
        17.0,
        448.0,
        1000.0,
        f32::NEG_INFINITY,
        0.001,
        f32::NAN,
    ];
    let input = dev.upload(&x, [2, 4])?;
    let mut out = dev.zeros::<u32>([2, 1])?;
    pack_fp8(dev, &input, &mut out)?;
    let got = out.download()?;
    let want = pack_fp8_example::host_reference(&x);
    for i in 0..x.len() {
        let (g, w) = (
            (got[i / 4] >> (8 * (i % 4))) as u8,
            (want[i / 4] >> (8 * (i % 4))) as u8,
        );
        assert!(
            pack_fp8_example::same_e4m3(g, w),
            "x[{i}] = {}: GPU {g:#04x}, float8 {w:#04x}",
            x[i]
        );
    }
    Ok(())
}

// ---------------------------------------------------------------- sweeps

fn f32_to_f16x2_rn_matches_half_bit_for_bit(dev: &Device) -> Result<()> {
    let x = f32_sweep();
    let got = run_chunked(dev, &x, 2, 1, narrow_f16_rn)?;
    let want: Vec<u32> = x
        .chunks(2)
        .map(|p| pack16(f16::from_f32(p[0]).to_bits(), f16::from_f32(p[1]).to_bits()))
        .collect();
    check(
        "cvt.rn.f16x2.f32",
        |i| (x[2 * i], x[2 * i + 1]),
        &got,
        &want,
        same_halves(f16_is_nan),
    );
    Ok(())
}

fn f32_to_f16x2_rz_matches_round_toward_zero(dev: &Device) -> Result<()> {
    let x = f32_sweep();
    let got = run_chunked(dev, &x, 2, 1, narrow_f16_rz)?;
    let want: Vec<u32> = x
        .chunks(2)
        .map(|p| pack16(f16_rz(p[0]), f16_rz(p[1])))
        .collect();
    check(
        "cvt.rz.f16x2.f32",
        |i| (x[2 * i], x[2 * i + 1]),
        &got,
        &want,
        same_halves(f16_is_nan),
    );
    Ok(())
}

fn f32_to_bf16x2_rn_matches_half_bit_for_bit(dev: &Device) -> Result<()> {
    let x = f32_sweep();
    let got = run_chunked(dev, &x, 2, 1, narrow_bf16_rn)?;
    let want: Vec<u32> = x
        .chunks(2)
        .map(|p| {
            pack16(
                bf16::from_f32(p[0]).to_bits(),
                bf16::from_f32(p[1]).to_bits(),
            )
        })
        .collect();
    check(
        "cvt.rn.bf16x2.f32",
        |i| (x[2 * i], x[2 * i + 1]),
        &got,
        &want,
        same_halves(bf16_is_nan),
    );
    Ok(())
}

// float8's from_f32 follows CUDA's `__nv_cvt_double_to_fp8` with
// `__NV_SATFINITE` (round to nearest even; finite overflow and infinities
// clamp to the signed largest finite value; NaN stays NaN), which is PTX
// `.satfinite`, so it is the reference as is. It converts through f64, which
// holds every f32 exactly, so there is no double rounding.

fn f32_to_e4m3x2_matches_float8(dev: &Device) -> Result<()> {
    let x = f32_sweep();
    let got = run_chunked(dev, &x, 2, 1, pack_e4m3)?;
    let want: Vec<u16> = x
        .chunks(2)
        .map(|p| {
            pack8(
                F8E4M3::from_f32(p[0]).to_bits(),
                F8E4M3::from_f32(p[1]).to_bits(),
            )
        })
        .collect();
    check(
        "cvt.rn.satfinite.e4m3x2.f32",
        |i| (x[2 * i], x[2 * i + 1]),
        &got,
        &want,
        same_bytes(e4m3_is_nan),
    );
    Ok(())
}

fn f32_to_e5m2x2_matches_float8(dev: &Device) -> Result<()> {
    let x = f32_sweep();
    let got = run_chunked(dev, &x, 2, 1, pack_e5m2)?;
    let want: Vec<u16> = x
        .chunks(2)
        .map(|p| {
            pack8(
                F8E5M2::from_f32(p[0]).to_bits(),
                F8E5M2::from_f32(p[1]).to_bits(),
            )
        })
        .collect();
    check(
        "cvt.rn.satfinite.e5m2x2.f32",
        |i| (x[2 * i], x[2 * i + 1]),
        &got,
        &want,
        same_bytes(e5m2_is_nan),
    );
    Ok(())
}

/// Every f16 bit pattern, two per word: word `i` holds patterns `2i` (low)
/// and `2i + 1` (high).
fn all_f16_words() -> Vec<u32> {
    (0..32768u32)
        .map(|i| pack16((2 * i) as u16, (2 * i + 1) as u16))
        .collect()
}

fn f16x2_to_e4m3x2_matches_float8(dev: &Device) -> Result<()> {
    let words = all_f16_words();
    let got = run_chunked(dev, &words, 1, 1, narrow_f16x2_e4m3)?;
    let e4m3 = |h: u16| F8E4M3::from_f32(f16::from_bits(h).to_f32()).to_bits();
    let want: Vec<u16> = words
        .iter()
        .map(|&w| pack8(e4m3(w as u16), e4m3((w >> 16) as u16)))
        .collect();
    check(
        "cvt.rn.satfinite.e4m3x2.f16x2",
        |i| words[i],
        &got,
        &want,
        same_bytes(e4m3_is_nan),
    );
    Ok(())
}

fn f16x2_to_e5m2x2_matches_float8(dev: &Device) -> Result<()> {
    let words = all_f16_words();
    let got = run_chunked(dev, &words, 1, 1, narrow_f16x2_e5m2)?;
    let e5m2 = |h: u16| F8E5M2::from_f32(f16::from_bits(h).to_f32()).to_bits();
    let want: Vec<u16> = words
        .iter()
        .map(|&w| pack8(e5m2(w as u16), e5m2((w >> 16) as u16)))
        .collect();
    check(
        "cvt.rn.satfinite.e5m2x2.f16x2",
        |i| words[i],
        &got,
        &want,
        same_bytes(e5m2_is_nan),
    );
    Ok(())
}

fn e4m3x2_to_f16x2_matches_float8_for_every_pair(dev: &Device) -> Result<()> {
    let pairs: Vec<u16> = (0..=u16::MAX).collect();
    let got = run_chunked(dev, &pairs, 1, 1, unpack_e4m3)?;
    let f = |b: u8| F8E4M3::from_bits(b).to_f16().to_bits();
    let want: Vec<u32> = pairs
        .iter()
        .map(|&p| pack16(f(p as u8), f((p >> 8) as u8)))
        .collect();
    check(
        "cvt.rn.f16x2.e4m3x2",
        |i| pairs[i],
        &got,
        &want,
        same_halves(f16_is_nan),
    );
    Ok(())
}

fn e5m2x2_to_f16x2_matches_float8_for_every_pair(dev: &Device) -> Result<()> {
    let pairs: Vec<u16> = (0..=u16::MAX).collect();
    let got = run_chunked(dev, &pairs, 1, 1, unpack_e5m2)?;
    let f = |b: u8| F8E5M2::from_bits(b).to_f16().to_bits();
    let want: Vec<u32> = pairs
        .iter()
        .map(|&p| pack16(f(p as u8), f((p >> 8) as u8)))
        .collect();
    check(
        "cvt.rn.f16x2.e5m2x2",
        |i| pairs[i],
        &got,
        &want,
        same_halves(f16_is_nan),
    );
    Ok(())
}

fn f16x2_to_f32_widens_every_f16_exactly(dev: &Device) -> Result<()> {
    let words = all_f16_words();
    let got = run_chunked(dev, &words, 1, 2, widen_f16)?;
    let want: Vec<f32> = (0..=u16::MAX).map(|h| f16::from_bits(h).to_f32()).collect();
    let got_bits: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
    let want_bits: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
    check(
        "cvt.f32.f16 (all 65536 patterns)",
        |i| format!("f16 bits {i:#06x}"),
        &got_bits,
        &want_bits,
        |a, b| a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan()),
    );
    Ok(())
}

// ---------------------------------------------------------------- launcher

fn launcher_rejects_a_wrongly_shaped_tensor(dev: &Device) -> Result<()> {
    let a = dev.upload(&[0.0f32; 8], [2, 4])?;
    let mut out = dev.zeros::<u32>([4, 1])?;
    match narrow_pairs(dev, &a, &mut out) {
        Err(Error::ShapeMismatch {
            kernel,
            param,
            expected,
            actual,
        }) => {
            assert_eq!((kernel, param), ("narrow_pairs", "a"));
            assert_eq!(expected, "[4, 2]");
            assert_eq!(actual, vec![2, 4]);
        }
        other => panic!("expected ShapeMismatch for `a`, got {other:?}"),
    }
    let a = dev.upload(&[0.0f32; 8], [4, 2])?;
    let mut out = dev.zeros::<u32>([4])?;
    match narrow_pairs(dev, &a, &mut out) {
        Err(Error::ShapeMismatch {
            param: "out",
            expected,
            actual,
            ..
        }) => {
            assert_eq!(expected, "[4, 1]");
            assert_eq!(actual, vec![4]);
        }
        other => panic!("expected ShapeMismatch for `out`, got {other:?}"),
    }
    // The output was not touched by the refused launches.
    assert_eq!(out.download()?, vec![0; 4]);
    Ok(())
}

fn launcher_declares_access_and_rejects_a_wrong_dtype_through_the_builder(
    dev: &Device,
) -> Result<()> {
    let spec = narrow_pairs::KERNEL.spec();
    let borrows: Vec<Borrow> = spec
        .params
        .iter()
        .map(|p| match p.kind {
            tile_kernel::spec::ParamKindSpec::Tensor { borrow, .. } => borrow,
            tile_kernel::spec::ParamKindSpec::Scalar { .. } => panic!("no scalar params"),
        })
        .collect();
    assert_eq!(borrows, vec![Borrow::Shared, Borrow::Exclusive]);
    let wrong = dev.zeros::<u32>([4, 2])?;
    let result = narrow_pairs::KERNEL
        .launch(dev)
        .and_then(|l| l.tensor(&wrong))
        .map(|_| ());
    assert!(
        matches!(result, Err(Error::DTypeMismatch { param: "a", .. })),
        "{result:?}"
    );
    Ok(())
}

/// GPU-only: it counts driver module loads (one per CUDA context), which
/// the CPU interpreter does not have.
#[test]
#[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
fn module_is_loaded_once_across_many_launches() -> Result<()> {
    let dev = &support::gpu::gpu("module_is_loaded_once_across_many_launches");
    assert_eq!(cache_probe::KERNEL.load_count(), 0);
    let x: Vec<f32> = (0..8).map(|i| i as f32 * 0.25).collect();
    let a = dev.upload(&x, [4, 2])?;
    let mut out = dev.zeros::<u32>([4, 1])?;
    for _ in 0..2000 {
        cache_probe(dev, &a, &mut out)?;
    }
    // A second handle to the same GPU shares the primary context: no reload.
    let again = Device::cuda(0)?;
    for _ in 0..100 {
        cache_probe(&again, &a, &mut out)?;
    }
    dev.synchronize()?;
    assert_eq!(cache_probe::KERNEL.load_count(), 1);
    let want: Vec<u32> = x
        .chunks(2)
        .map(|p| pack16(f16::from_f32(p[0]).to_bits(), f16::from_f32(p[1]).to_bits()))
        .collect();
    assert_eq!(out.download()?, want);
    Ok(())
}

/// Overwrites only the HIGH half of loaded words, under `pred = p` with
/// `preserve_dst = true`: the low half must survive, and where `p` is false
/// the whole word must.
#[tile_kernel(grid = 1, block = 1)]
fn overwrite_high_half(
    words: Tensor<u32, 64, 1>,
    a: Tensor<f32, 64, 1>,
    out: Tensor<u32, 64, 1>,
    p: bool,
) {
    let d = alloc_local::<u32>([64, 1]);
    let f = alloc_local::<f32>([64, 1]);
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

fn predicated_sub_register_write_keeps_the_other_half_and_the_old_word(dev: &Device) -> Result<()> {
    let words: Vec<u32> = (0..64u32)
        .map(|i| 0xA5A5_0000 ^ (i * 0x0101_0101))
        .collect();
    let values: Vec<f32> = (0..64).map(|i| i as f32 * 0.37 - 11.0).collect();
    let w = dev.upload(&words, [64, 1])?;
    let a = dev.upload(&values, [64, 1])?;
    for p in [true, false] {
        let mut out = dev.zeros::<u32>([64, 1])?;
        overwrite_high_half(dev, &w, &a, &mut out, p)?;
        let got = out.download()?;
        let want: Vec<u32> = words
            .iter()
            .zip(&values)
            .map(|(&word, &x)| {
                if p {
                    (word & 0xFFFF) | (u32::from(f16::from_f32(x).to_bits()) << 16)
                } else {
                    word
                }
            })
            .collect();
        assert_eq!(got, want, "pred = {p}");
    }
    Ok(())
}

// ------------------------------------------------------------------ ptxas

/// Every kernel of this file and of the examples it includes assembles with
/// the pinned ptxas (this part needs no GPU and always runs).
#[test]
fn every_kernel_here_and_in_the_examples_assembles_without_spills() {
    let kernels: [(&str, &str); 15] = [
        ("narrow_pairs (example)", narrow_pairs::PTX),
        ("pack_fp8 (example)", pack_fp8::PTX),
        ("widen_pairs (example)", widen_pairs::PTX),
        ("narrow_f16_rn", narrow_f16_rn::PTX),
        ("narrow_f16_rz", narrow_f16_rz::PTX),
        ("narrow_bf16_rn", narrow_bf16_rn::PTX),
        ("pack_e4m3", pack_e4m3::PTX),
        ("pack_e5m2", pack_e5m2::PTX),
        ("narrow_f16x2_e4m3", narrow_f16x2_e4m3::PTX),
        ("narrow_f16x2_e5m2", narrow_f16x2_e5m2::PTX),
        ("unpack_e4m3", unpack_e4m3::PTX),
        ("unpack_e5m2", unpack_e5m2::PTX),
        ("widen_f16", widen_f16::PTX),
        ("cache_probe", cache_probe::PTX),
        ("overwrite_high_half", overwrite_high_half::PTX),
    ];
    for (name, ptx) in kernels {
        assert!(ptx.contains(".target sm_90"), "{name}: unexpected target");
        let report = support::ptxas::resource_usage(ptx, "sm_90");
        assert!(
            report.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{name} spills:\n{report}"
        );
    }
}
