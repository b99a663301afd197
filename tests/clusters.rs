//! Thread-block clusters (sm_90): `cluster = [x, y, z]` in the attribute
//! declares the CTAs of one cluster (`.reqnctapercluster`), the launcher
//! launches with that cluster shape and refuses a grid that is not whole
//! clusters, and `cluster_ctaid(a)`, `cluster_id(a)`, `cluster_dim(a)` and
//! `cluster_ctarank()` name where a CTA is. `cta_id(a)` along a clustered
//! axis is `cluster_dim(a) * cluster_id(a) + cluster_ctaid(a)` to the
//! checker, so a `.cluster` atomic is proven atomic among the threads
//! that meet on an element when they are all in one cluster.
//!
//! The ids are checked on both devices against the host's arithmetic
//! (`%cluster_ctaid.x == %ctaid.x % 2` and so on: the CTAs of a cluster
//! are consecutive along each axis). The mistakes are compile errors (UI
//! cases `cluster_*` in `ui-tests/tests/compile-fail`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// Per thread of a `[2, 2, 1]`-CTA cluster: its CTA's rank in the
/// cluster, the cluster's x and y ids, the CTA's x id and `cluster_dim(0)`
/// with `cluster_ctaid(1)` (in a row of 8 for 16-byte stores).
#[tile_kernel(
    grid = [ceil_div(N, 64), 4, 1],
    block = [64, 1, 1],
    cluster = [2, 2, 1],
    arch = "sm_90"
)]
fn cluster_ids(ids: Tensor<u32, 4, N, 8>) {
    let i = cta_id(0) * 64 + thread_id(0);
    let v = alloc_local::<u32>([1, 5]);
    apply(ptx["mov.u32"], v.slice(s![.., 0..1]), cluster_ctarank());
    apply(ptx["mov.u32"], v.slice(s![.., 1..2]), cluster_id(0));
    apply(ptx["mov.u32"], v.slice(s![.., 2..3]), cluster_id(1));
    apply(ptx["cvt.u32.u64"], v.slice(s![.., 3..4]), cta_id(0));
    apply(
        ptx["mov.u32"],
        v.slice(s![.., 4..5]),
        cluster_dim(0) * 10 + cluster_ctaid(1),
    );
    apply(
        ptx["st.global.v4.u32"],
        ids.slice(s![cta_id(1), i..i + 1, 0..4]),
        v.slice(s![.., 0..4]),
        pred = i < N,
    );
    apply(
        ptx["st.global.u32"],
        ids.slice(s![cta_id(1), i..i + 1, 4..5]),
        v.slice(s![.., 4..5]),
        pred = i < N,
    );
}

/// Per cluster of two CTAs, a count of its threads: every thread of a
/// cluster adds 1 to the cluster's element with a `.cluster`-scoped
/// atomic, which is atomic among exactly those threads.
#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn count_per_cluster(counts: Tensor<u32, { M / 2 }>) {
    let one = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], one, 1);
    apply(
        ptx["red.relaxed.cluster.global.add.u32"],
        counts.slice(s![cluster_id(0)..cluster_id(0) + 1]),
        one,
    );
}

/// Each thread writes its element of a shared buffer, the cluster barrier
/// (arrive, a register computation, wait) orders the writes before the
/// reads of the block's other threads (it is also a barrier of the CTA's
/// threads), and each thread stores its neighbour's element times its
/// CTA's rank in the cluster plus one.
#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn rotate_after_cluster_barrier(x: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let sh = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    let scale = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![r, t..t + 1]));
    apply(ptx["st.shared.u32"], sh.slice(s![t..t + 1]), v);
    apply(ptx["barrier.cluster.arrive.aligned"], scope = "cluster");
    apply(ptx["add.u32"], scale, cluster_ctarank(), 1);
    apply(ptx["barrier.cluster.wait.aligned"], scope = "cluster");
    let n = (t + 1) % 128;
    apply(ptx["ld.shared.u32"], v, sh.slice(s![n..n + 1]));
    apply(ptx["mul.lo.u32"], v, v, scale);
    apply(ptx["st.global.u32"], y.slice(s![r, t..t + 1]), v);
}

#[test]
fn the_cluster_barrier_is_its_two_halves() {
    let ptx = rotate_after_cluster_barrier::PTX;
    assert_eq!(
        support::lines_starting(ptx, "barrier.cluster.arrive.aligned ;").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        support::lines_starting(ptx, "barrier.cluster.wait.aligned ;").len(),
        1,
        "{ptx}"
    );
}

#[test]
fn a_cluster_is_declared_and_its_ids_read_from_their_registers() {
    let ptx = cluster_ids::PTX;
    assert_eq!(
        support::lines_starting(ptx, ".reqnctapercluster 2, 2, 1").len(),
        1,
        "{ptx}"
    );
    for register in [
        "%cluster_ctaid.x",
        "%cluster_ctaid.y",
        "%clusterid.x",
        "%clusterid.y",
    ] {
        assert!(
            ptx.lines()
                .any(|l| l.trim_start().starts_with("mov.u32")
                    && l.ends_with(&format!("{register};"))),
            "no read of {register}:\n{ptx}"
        );
    }
    // `cta_id` of a clustered axis is composed from the cluster's ids.
    assert!(!ptx.contains("%ctaid.x"), "{ptx}");
    assert_eq!(cluster_ids::SPEC.cluster, [2, 2, 1]);
    assert_eq!(count_per_cluster::SPEC.cluster, [2, 1, 1]);
    assert!(
        count_per_cluster::PTX.contains("red.relaxed.cluster.global.add.u32"),
        "{}",
        count_per_cluster::PTX
    );
}

#[test]
fn cluster_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("cluster_ids", cluster_ids::PTX),
        ("count_per_cluster", count_per_cluster::PTX),
        (
            "rotate_after_cluster_barrier",
            rotate_after_cluster_barrier::PTX,
        ),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        ids_follow_the_cluster_shape,
        cluster_atomics_count_each_cluster,
        a_grid_of_partial_clusters_is_refused,
        the_cluster_barrier_orders_shared_memory
    );

    fn the_cluster_barrier_orders_shared_memory(dev: &Device) -> tile_kernel::Result<()> {
        let m = 4;
        let host: Vec<u32> = (0..m * 128)
            .map(|i| (i * 2_654_435_761usize % 1000) as u32)
            .collect();
        let x = dev.upload(&host, [m, 128])?;
        let mut y = dev.zeros::<u32>([m, 128])?;
        rotate_after_cluster_barrier(dev, &x, &mut y)?;
        let got = y.download()?;
        for r in 0..m {
            for t in 0..128 {
                let want = host[r * 128 + (t + 1) % 128].wrapping_mul((r % 2 + 1) as u32);
                assert_eq!(got[r * 128 + t], want, "row {r}, thread {t}");
            }
        }
        Ok(())
    }

    fn ids_follow_the_cluster_shape(dev: &Device) -> tile_kernel::Result<()> {
        // 3 x 64 columns: the last CTA column is partial (the `pred`).
        let n = 200;
        let mut ids = dev.zeros::<u32>([4, n, 8])?;
        cluster_ids(dev, &mut ids)?;
        let got = ids.download()?;
        for y in 0..4 {
            for i in 0..n {
                let x = i / 64;
                let at = (y * n + i) * 8;
                let want = [
                    (x % 2 + 2 * (y % 2)) as u32,
                    (x / 2) as u32,
                    (y / 2) as u32,
                    x as u32,
                    (2 * 10 + y % 2) as u32,
                ];
                assert_eq!(&got[at..at + 5], &want, "CTA ({x}, {y}), element {i}");
            }
        }
        Ok(())
    }

    fn cluster_atomics_count_each_cluster(dev: &Device) -> tile_kernel::Result<()> {
        let m = 6;
        let mut counts = dev.zeros::<u32>([m / 2])?;
        count_per_cluster(dev, &mut counts)?;
        assert_eq!(counts.download()?, vec![256; m / 2]);
        Ok(())
    }

    fn a_grid_of_partial_clusters_is_refused(dev: &Device) -> tile_kernel::Result<()> {
        // 130 columns need 3 CTAs along x: not whole clusters of 2.
        let mut ids = dev.zeros::<u32>([4, 130, 8])?;
        let error = cluster_ids(dev, &mut ids).expect_err("a grid of 3 x 4 CTAs");
        assert_eq!(
            error.to_string(),
            "kernel `cluster_ids`: invalid launch size: grid x is 3, which is not a multiple of the kernel's cluster extent 2 along x"
        );
        // Nothing ran.
        assert!(ids.download()?.iter().all(|v| *v == 0));
        Ok(())
    }
}
