//! Sizes, launch values and float constants as operands: a size symbol
//! (`N`), a launch value (`thread_id(0)`, an index computed from
//! `cta_id(0)`) or arithmetic on them is an integer operand, proven to fit
//! the operand's type from what the launcher admits; `f32::NEG_INFINITY`,
//! `f32::NAN` and the other float constants are float literals. The kernels
//! assemble with ptxas without spills and run on the CPU interpreter
//! (always) and on a GPU (`--include-ignored`), bit for bit against the
//! host.

// The launchers need the runtime (Cargo.toml lists the other such tests
// with `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

use support::lines_starting;

/// Per element `i`: its index, the row count as `f32` (`mean = sum / N`
/// needs it), and a value of the thread's rank.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn launch_values(ids: Tensor<u32, N>, sizes: Tensor<f32, N>, ranks: Tensor<u32, N>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let id = alloc_local::<u32>([1]);
    let n = alloc_local::<f32>([1]);
    let rank = alloc_local::<u32>([1]);
    // `i` may exceed 2^32 (the grid may be that large): a 64-bit source.
    apply(ptx["cvt.u32.u64"], id, i);
    apply(ptx["cvt.rn.f32.u64"], n, N);
    // `thread_id(0) * 3 + 1` is at most 382: a 32-bit source is enough.
    apply(ptx["mov.u32"], rank, thread_id(0) * 3 + 1);
    apply(ptx["st.global.u32"], ids.slice(s![i..i + 1]), id);
    apply(ptx["st.global.f32"], sizes.slice(s![i..i + 1]), n);
    apply(ptx["st.global.u32"], ranks.slice(s![i..i + 1]), rank);
}

/// `/`, `%` and `ceil_div` by constants of a value below 2^32 (its range is
/// the atoms', so the PTX divides in 32 bits: `div.u32`, `rem.u32`).
#[tile_kernel(grid = 1, block = 128)]
fn divisions(out: Tensor<u32, 128, 8>) {
    let t = thread_id(0);
    let v = t * 33_554_431 + 12_345;
    let q = alloc_local::<u32>([8, 1]);
    apply(ptx["mov.u32"], q.slice(s![0..1, ..]), v % 3);
    apply(ptx["mov.u32"], q.slice(s![1..2, ..]), v / 7);
    apply(ptx["mov.u32"], q.slice(s![2..3, ..]), ceil_div(v, 1000));
    apply(ptx["mov.u32"], q.slice(s![3..4, ..]), v % 65_537);
    apply(ptx["mov.u32"], q.slice(s![4..5, ..]), v / 65_537);
    apply(ptx["mov.u32"], q.slice(s![5..6, ..]), ceil_div(v, 6));
    apply(ptx["mov.u32"], q.slice(s![6..7, ..]), v % 1000 / 7);
    apply(ptx["mov.u32"], q.slice(s![7..8, ..]), v % 4_294_967_295);
    apply(
        ptx["st.global.v4.u32"],
        out.slice(s![t..t + 1, 0..4]),
        q.slice(s![0..4, ..]).reshape([1, 4]),
    );
    apply(
        ptx["st.global.v4.u32"],
        out.slice(s![t..t + 1, 4..8]),
        q.slice(s![4..8, ..]).reshape([1, 4]),
    );
}

/// `/`, `%` and `ceil_div` by constants of a value up to 2^43 (64-bit:
/// a multiply-high by the divisor's reciprocal and a shift, not the
/// software division `div.u64` calls).
#[tile_kernel(grid = 1, block = 128)]
fn wide_divisions(out: Tensor<u64, 128, 8>) {
    let t = thread_id(0);
    let v = t * 68_719_476_735 + 12_345_678_901;
    let q = alloc_local::<u64>([8, 1]);
    apply(ptx["mov.u64"], q.slice(s![0..1, ..]), v % 3);
    apply(ptx["mov.u64"], q.slice(s![1..2, ..]), v / 7);
    apply(ptx["mov.u64"], q.slice(s![2..3, ..]), ceil_div(v, 1000));
    apply(ptx["mov.u64"], q.slice(s![3..4, ..]), v % 1_000_000_007);
    apply(ptx["mov.u64"], q.slice(s![4..5, ..]), v / 1_000_000_007);
    apply(ptx["mov.u64"], q.slice(s![5..6, ..]), ceil_div(v, 6));
    apply(ptx["mov.u64"], q.slice(s![6..7, ..]), v / 3 % 641);
    apply(ptx["mov.u64"], q.slice(s![7..8, ..]), v / 68_719_476_737);
    for i in 0..4 {
        apply(
            ptx["st.global.v2.u64"],
            out.slice(s![t..t + 1, 2 * i..2 * i + 2]),
            q.slice(s![2 * i..2 * i + 2, ..]).reshape([1, 2]),
        );
    }
}

/// `/`, `%` and `ceil_div` by divisors known only at launch (from scalar
/// parameters): 32-bit division where the dividend and the divisor are
/// both below 2^32 when the kernel runs, the 64-bit software division
/// otherwise. By `d`, the dividend `v` passes 2^32 from thread 64 on, so
/// one statement takes both paths; `wide` is above 2^32.
#[tile_kernel(grid = 1, block = 128)]
fn runtime_divisions(out: Tensor<u64, 128, 6>, small: u32, scale: u32) {
    let t = thread_id(0);
    let v = t * 67_108_864 + 12_345;
    let d = max(small, 1);
    let wide = (min(scale, 1023) + 1) * 4_294_967_296 + 5;
    let q = alloc_local::<u64>([6, 1]);
    apply(ptx["mov.u64"], q.slice(s![0..1, ..]), v / d);
    apply(ptx["mov.u64"], q.slice(s![1..2, ..]), v % d);
    apply(ptx["mov.u64"], q.slice(s![2..3, ..]), ceil_div(v, d));
    apply(ptx["mov.u64"], q.slice(s![3..4, ..]), (v * 1024 + t) / wide);
    apply(ptx["mov.u64"], q.slice(s![4..5, ..]), (v * 1024 + t) % wide);
    apply(ptx["mov.u64"], q.slice(s![5..6, ..]), ceil_div(t, d));
    for i in 0..3 {
        apply(
            ptx["st.global.v2.u64"],
            out.slice(s![t..t + 1, 2 * i..2 * i + 2]),
            q.slice(s![2 * i..2 * i + 2, ..]).reshape([1, 2]),
        );
    }
}

/// The maximum of each row of 4, from `-inf` (so a row of `-inf` gives
/// `-inf`), and a NaN constant stored beside it.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn row_max(x: Tensor<f32, N, 4>, y: Tensor<f32, N, 2>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let r = alloc_local::<f32>([4, 1]);
    let m = alloc_local::<f32>([2, 1]);
    apply(
        ptx["ld.global.v4.f32"],
        r.reshape([1, 4]),
        x.slice(s![row..row + 1, ..]),
    );
    apply(ptx["mov.f32"], m.slice(s![0..1, ..]), f32::NEG_INFINITY);
    for k in 0..4 {
        apply(
            ptx["max.f32"],
            m.slice(s![0..1, ..]),
            m.slice(s![0..1, ..]),
            r.slice(s![k..k + 1, ..]),
        );
    }
    apply(ptx["mov.f32"], m.slice(s![1..2, ..]), f32::NAN);
    apply(
        ptx["st.global.v2.f32"],
        y.slice(s![row..row + 1, ..]),
        m.reshape([1, 2]),
    );
}

#[test]
fn index_operands_are_the_index_registers_or_their_low_bits() {
    let ptx = launch_values::PTX;
    // 64-bit slots take the index register itself.
    let wide = lines_starting(ptx, "cvt.u32.u64");
    assert_eq!(wide.len(), 1, "{ptx}");
    assert!(wide[0].contains(", %"), "{ptx}");
    assert_eq!(lines_starting(ptx, "cvt.rn.f32.u64").len(), 1, "{ptx}");
    // A 32-bit slot gets the low half, through one `cvt.u32.s64`.
    let narrow = lines_starting(ptx, "cvt.u32.s64");
    assert_eq!(narrow.len(), 1, "{ptx}");
    let temp = narrow[0]
        .trim_start_matches("cvt.u32.s64 ")
        .split(',')
        .next()
        .unwrap();
    let mov = lines_starting(ptx, "mov.u32 %t2_rank");
    assert_eq!(mov.len(), 1, "{ptx}");
    assert!(mov[0].ends_with(&format!(", {temp};")), "{ptx}");
}

#[test]
fn divisions_below_2_32_are_32_bit() {
    let ptx = divisions::PTX;
    // `%` by 3, 65537 and 1000 (`v % (2^32 - 1)` is `v`: `v` is smaller);
    // `/` by 7, 65537 and 7; two `ceil_div`.
    assert_eq!(lines_starting(ptx, "rem.u32").len(), 3, "{ptx}");
    assert_eq!(lines_starting(ptx, "div.u32").len(), 5, "{ptx}");
    assert!(lines_starting(ptx, "div.s64").is_empty(), "{ptx}");
    assert!(lines_starting(ptx, "rem.s64").is_empty(), "{ptx}");
}

#[test]
fn wide_divisions_by_constants_multiply() {
    let ptx = wide_divisions::PTX;
    // Eight divisions (v / 3 % 641 is two): no software division.
    assert_eq!(lines_starting(ptx, "mul.hi.u64").len(), 9, "{ptx}");
    for op in [
        "div.s64", "rem.s64", "div.u64", "rem.u64", "div.u32", "rem.u32",
    ] {
        assert!(lines_starting(ptx, op).is_empty(), "{op}: {ptx}");
    }
    // By 7: ceil(2^66 / 7), then a shift by 2.
    assert!(ptx.contains(", 10540996613548315210;\n\tshr.u64 "), "{ptx}");
}

#[test]
fn runtime_divisions_take_32_bits_where_the_values_fit() {
    let ptx = runtime_divisions::PTX;
    // Each of the six: a test of both operands against 2^32, the 32-bit
    // division under it, the 64-bit one under its negation.
    assert_eq!(
        lines_starting(ptx, "setp.lt.u64")
            .iter()
            .filter(|l| l.ends_with(", 4294967296;"))
            .count(),
        6,
        "{ptx}"
    );
    let guarded = |guard: &str, op: &str| {
        ptx.lines()
            .filter(|l| l.trim_start().starts_with(guard) && l.contains(op))
            .count()
    };
    assert_eq!(guarded("@%q", " div.u32 "), 4, "{ptx}");
    assert_eq!(guarded("@%q", " rem.u32 "), 2, "{ptx}");
    assert_eq!(guarded("@!%q", " div.s64 "), 4, "{ptx}");
    assert_eq!(guarded("@!%q", " rem.s64 "), 2, "{ptx}");
    // No unguarded 64-bit division.
    assert!(lines_starting(ptx, "div.s64").is_empty(), "{ptx}");
    assert!(lines_starting(ptx, "rem.s64").is_empty(), "{ptx}");
}

#[test]
fn float_constants_are_their_exact_bits() {
    let ptx = row_max::PTX;
    // -inf and the canonical quiet NaN, materialised once at entry.
    assert_eq!(
        lines_starting(ptx, "mov.b32 %k32_0, 0xFF800000;").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        lines_starting(ptx, "mov.b32 %k32_1, 0x7FC00000;").len(),
        1,
        "{ptx}"
    );
}

#[test]
fn value_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("launch_values", launch_values::PTX),
        ("row_max", row_max::PTX),
        ("divisions", divisions::PTX),
        ("wide_divisions", wide_divisions::PTX),
        ("runtime_divisions", runtime_divisions::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        launch_values_match_the_host,
        row_max_matches_the_host,
        divisions_match_the_host,
        wide_divisions_match_the_host,
        runtime_divisions_match_the_host
    );

    fn runtime_divisions_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        for (small, scale) in [(7u32, 2u32), (1, 0), (u32::MAX, 1023), (0, u32::MAX)] {
            let mut out = dev.upload(&vec![u64::MAX; 128 * 6], [128, 6])?;
            runtime_divisions(dev, &mut out, small, scale)?;
            let got = out.download()?;
            let d = u64::from(small.max(1));
            let wide = (u64::from(scale.min(1023)) + 1) * (1 << 32) + 5;
            for t in 0..128u64 {
                let v = t * 67_108_864 + 12_345;
                let big = v * 1024 + t;
                let want = [
                    v / d,
                    v % d,
                    v.div_ceil(d),
                    big / wide,
                    big % wide,
                    t.div_ceil(d),
                ];
                for (k, w) in want.iter().enumerate() {
                    assert_eq!(
                        got[t as usize * 6 + k],
                        *w,
                        "small {small}, scale {scale}: thread {t}, value {k}"
                    );
                }
            }
        }
        Ok(())
    }

    fn wide_divisions_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let mut out = dev.upload(&vec![u64::MAX; 128 * 8], [128, 8])?;
        wide_divisions(dev, &mut out)?;
        let got = out.download()?;
        for t in 0..128u64 {
            let v = t * 68_719_476_735 + 12_345_678_901;
            let want = [
                v % 3,
                v / 7,
                v.div_ceil(1000),
                v % 1_000_000_007,
                v / 1_000_000_007,
                v.div_ceil(6),
                v / 3 % 641,
                v / 68_719_476_737,
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(got[t as usize * 8 + k], *w, "thread {t}, value {k}");
            }
        }
        Ok(())
    }

    fn divisions_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let mut out = dev.upload(&vec![u32::MAX; 128 * 8], [128, 8])?;
        divisions(dev, &mut out)?;
        let got = out.download()?;
        for t in 0..128u64 {
            let v = t * 33_554_431 + 12_345;
            let want = [
                v % 3,
                v / 7,
                v.div_ceil(1000),
                v % 65_537,
                v / 65_537,
                v.div_ceil(6),
                v % 1000 / 7,
                v % 4_294_967_295,
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    u64::from(got[t as usize * 8 + k]),
                    *w,
                    "thread {t}, value {k}"
                );
            }
        }
        Ok(())
    }

    fn launch_values_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        for n in [1usize, 127, 128, 129, 1000, (1 << 16) + 5] {
            let mut ids = dev.upload(&vec![u32::MAX; n], [n])?;
            let mut sizes = dev.upload(&vec![-1.0f32; n], [n])?;
            let mut ranks = dev.upload(&vec![u32::MAX; n], [n])?;
            launch_values(dev, &mut ids, &mut sizes, &mut ranks)?;
            let want_ids: Vec<u32> = (0..n as u32).collect();
            let want_ranks: Vec<u32> = (0..n as u32).map(|i| (i % 128) * 3 + 1).collect();
            assert_eq!(ids.download()?, want_ids, "n = {n}");
            assert_eq!(ranks.download()?, want_ranks, "n = {n}");
            let sizes = sizes.download()?;
            assert!(
                sizes.iter().all(|s| s.to_bits() == (n as f32).to_bits()),
                "n = {n}: {:?}",
                &sizes[..sizes.len().min(4)]
            );
        }
        Ok(())
    }

    fn row_max_matches_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let rows = 1000usize;
        let mut x: Vec<f32> = (0..4 * rows)
            .map(|i| ((i * 7919) % 1013) as f32 - 506.0)
            .collect();
        // A row of -inf stays -inf.
        x[..4].fill(f32::NEG_INFINITY);
        let a = dev.upload(&x, [rows, 4])?;
        let mut y = dev.upload(&vec![0.0f32; 2 * rows], [rows, 2])?;
        row_max(dev, &a, &mut y)?;
        let y = y.download()?;
        for row in 0..rows {
            let want = x[4 * row..4 * row + 4]
                .iter()
                .fold(f32::NEG_INFINITY, |m, v| m.max(*v));
            assert_eq!(y[2 * row].to_bits(), want.to_bits(), "row {row}");
            assert_eq!(y[2 * row + 1].to_bits(), 0x7fc0_0000, "row {row}");
        }
        Ok(())
    }
}
