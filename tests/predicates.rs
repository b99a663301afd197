//! Predicate tiles: `alloc_local::<bool>` holds `.pred` registers that
//! `setp` writes, `selp` and `set` read, and `pred = flags[k]` or
//! `if flags[k]` branch on. The PTX is pinned here and assembled by ptxas;
//! the device tests compare every element with a host reference, on the
//! CPU interpreter (always) and on a GPU (`--include-ignored`).

mod support;

use tile_kernel::prelude::*;

/// `y = max(x, 0)` through a predicate (`x < 0` sets `neg`; a predicated
/// `mov` with `preserve_dst` zeroes), and `negative = neg ? 1 : 0`.
#[tile_kernel(grid = [ceil_div(N, 256), 1, 1], block = 256)]
fn relu_where(x: Tensor<f32, N>, y: Tensor<f32, N>, negative: Tensor<u32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    let neg = alloc_local::<bool>([1]);
    let flag = alloc_local::<u32>([1]);
    if i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["setp.lt.f32"], neg, v, 0.0);
        apply(ptx["selp.u32"], flag, 1, 0, neg);
        apply(ptx["mov.f32"], v, 0.0, pred = neg[0], preserve_dst = true);
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
        apply(ptx["st.global.u32"], negative.slice(s![i..i + 1]), flag);
    }
}

/// `setp`'s two destinations `p|q` (`q = !p`), an `if` on a predicate
/// element, and a predicate combined with an index condition:
/// out = x > 0 ? 1 : 2, plus 10 where x <= 0 and the thread is even.
#[tile_kernel(grid = 1, block = 32)]
fn sign_classes(x: Tensor<i32, 32>, out: Tensor<u32, 32>) {
    let t = thread_id(0);
    let v = alloc_local::<i32>([1]);
    let pq = alloc_local::<bool>([2]);
    let r = alloc_local::<u32>([1]);
    apply(ptx["ld.global.s32"], v, x.slice(s![t..t + 1]));
    apply(ptx["setp.gt.s32"], pq, v, 0);
    if pq[0] {
        apply(ptx["mov.u32"], r, 1);
    } else {
        apply(ptx["mov.u32"], r, 2);
    }
    apply(
        ptx["add.u32"],
        r,
        r,
        10,
        pred = pq[1] && t % 2 == 0,
        preserve_dst = true,
    );
    apply(ptx["st.global.u32"], out.slice(s![t..t + 1]), r);
}

fn ptx_lines(ptx: &str) -> Vec<&str> {
    ptx.lines().map(str::trim).collect()
}

#[test]
fn bool_tiles_are_predicate_registers() {
    let lines = ptx_lines(relu_where::PTX);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(".reg .pred %t1_neg_<1>;")),
        "{}",
        relu_where::PTX
    );
    for expected in [
        "setp.lt.f32 %t1_neg_0, %t0_v_0, %k32_0;",
        // 0.0 and 0 share one constant register: the same bits.
        "selp.u32 %t2_flag_0, %k32_1, %k32_0, %t1_neg_0;",
        "@%t1_neg_0 mov.f32 %t0_v_0, %k32_0;",
    ] {
        assert!(
            lines.contains(&expected),
            "missing `{expected}` in\n{}",
            relu_where::PTX
        );
    }
    support::ptxas::assemble(relu_where::PTX, "sm_90");
}

#[test]
fn pairs_branches_and_combined_conditions() {
    let lines = ptx_lines(sign_classes::PTX);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("setp.gt.s32 %t1_pq_0|%t1_pq_1, %t0_v_0,")),
        "{}",
        sign_classes::PTX
    );
    // `if pq[0]` branches on the register itself.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("@!%t1_pq_0 bra") || l.starts_with("@%t1_pq_0 bra")),
        "{}",
        sign_classes::PTX
    );
    assert!(
        lines.iter().any(|l| l.starts_with("and.pred")),
        "{}",
        sign_classes::PTX
    );
    support::ptxas::assemble(sign_classes::PTX, "sm_90");
}

mod devices {
    //! On the CPU interpreter (always) and the H200 (ignored without a
    //! GPU), against host references.

    use tile_kernel::Result;
    use tile_kernel::prelude::*;

    use crate::support::gpu::on_both_devices;

    on_both_devices!(relu_where_matches_the_host, sign_classes_matches_the_host);

    fn relu_where_matches_the_host(dev: &Device) -> Result<()> {
        for n in [0usize, 1, 255, 256, 1000, (1 << 20) + 3] {
            let mut x: Vec<f32> = (0..n).map(|i| ((i as f32) * 0.7).sin() * 10.0).collect();
            let specials = [
                -0.0f32,
                0.0,
                f32::NAN,
                -f32::INFINITY,
                f32::INFINITY,
                -1e-45,
            ];
            for (slot, v) in x.iter_mut().zip(specials) {
                *slot = v;
            }
            let a = dev.upload(&x, [n])?;
            let mut y = dev.zeros::<f32>([n])?;
            let mut neg = dev.zeros::<u32>([n])?;
            super::relu_where(dev, &a, &mut y, &mut neg)?;
            let (y, neg) = (y.download()?, neg.download()?);
            for i in 0..n {
                // `setp.lt.f32` is false for NaN and for -0.0 < 0.0.
                let negative = x[i] < 0.0;
                let want = if negative { 0.0f32 } else { x[i] };
                assert_eq!(y[i].to_bits(), want.to_bits(), "y[{i}] for x = {}", x[i]);
                assert_eq!(neg[i], u32::from(negative), "neg[{i}] for x = {}", x[i]);
            }
        }
        Ok(())
    }

    fn sign_classes_matches_the_host(dev: &Device) -> Result<()> {
        let x: Vec<i32> = (0..32).map(|i| (i - 16) * 3 - (i % 3)).collect();
        let a = dev.upload(&x, [32])?;
        let mut out = dev.zeros::<u32>([32])?;
        super::sign_classes(dev, &a, &mut out)?;
        let got = out.download()?;
        for (t, (&v, &g)) in x.iter().zip(&got).enumerate() {
            let mut want = if v > 0 { 1 } else { 2 };
            if v <= 0 && t % 2 == 0 {
                want += 10;
            }
            assert_eq!(g, want, "t = {t}, x = {v}");
        }
        Ok(())
    }
}
