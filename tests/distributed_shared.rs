//! Distributed shared memory (sm_90): in a kernel with a cluster,
//! `buf.in_cta(rank)` is the same view of the copy of shared buffer `buf`
//! that the CTA of rank `rank` in the cluster holds, reached by
//! `.shared::cluster` loads, stores and atomics (the address mapped with
//! `mapa`). The checker keeps the rank in the cluster (proven, or guarded
//! like any index), holds a buffer other CTAs reach to the race rule over
//! the whole cluster by cluster barrier epoch, and requires a cluster
//! barrier before the first remote access (every CTA has started) and
//! after the last (no CTA exits while another reads its memory). The
//! mistakes are compile errors (UI cases `remote_*` and `in_cta_*`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// Each CTA of a pair stores its block of `x` in shared memory, and after
/// the cluster barrier each thread loads its element of the other CTA's
/// copy: `y` is `x` with every two blocks of 128 swapped.
#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn swap_with_the_peer(x: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let own = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![r, t..t + 1]));
    apply(ptx["st.shared.u32"], own.slice(s![t..t + 1]), v);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    let peer = own.in_cta(1 - cluster_ctarank());
    apply(ptx["ld.shared::cluster.u32"], v, peer.slice(s![t..t + 1]));
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["st.global.u32"], y.slice(s![r, t..t + 1]), v);
}

/// A histogram of bytes whose 256 bins are spread over a cluster of two
/// CTAs: bin `v` lives in the buffer of CTA `v / 128`, at `v % 128`. Each
/// CTA clears its bins, and after the cluster barrier every thread adds
/// its bytes to the bins where they live, in either CTA
/// (`red.shared::cluster`: atomics of one size need no separation); after
/// the second barrier each CTA adds its bins to the global histogram.
#[tile_kernel(grid = [64, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn cluster_histogram(x: Tensor<u8, W, 4>, hist: Tensor<u32, 256>) {
    let t = thread_id(0);
    let bins = alloc_shared::<u32>([128]);
    let zero = alloc_local::<u32>([1]);
    let one = alloc_local::<u32>([1]);
    let b = alloc_local::<u8>([4]);
    let count = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], zero, 0);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["st.shared.u32"], bins.slice(s![t..t + 1]), zero);
    apply(ptx["barrier.cluster.arrive.release"], scope = "cluster");
    apply(ptx["barrier.cluster.wait.acquire"], scope = "cluster");
    for row in (cta_id(0) * 128 + t..W).step_by(64 * 128) {
        apply(ptx["ld.global.v4.u8"], b, x.slice(s![row, ..]));
        for k in 0..4 {
            let v = b[k];
            let at = v % 128;
            apply(
                ptx["red.shared::cluster.add.u32"],
                bins.in_cta(v / 128).slice(s![at..at + 1]),
                one,
            );
        }
    }
    apply(ptx["barrier.cluster.arrive.release"], scope = "cluster");
    apply(ptx["barrier.cluster.wait.acquire"], scope = "cluster");
    apply(ptx["ld.shared.u32"], count, bins.slice(s![t..t + 1]));
    let bin = cluster_ctarank() * 128 + t;
    apply(
        ptx["red.global.add.u32"],
        hist.slice(s![bin..bin + 1]),
        count,
    );
}

/// Each thread adds 1 to its element of the copy of `counts` in the CTA
/// that `ranks` names for it: a rank read from memory may name no CTA of
/// the pair (2 and 3 here), and such an access is skipped, like any
/// access whose bounds the checker cannot prove.
#[tile_kernel(grid = [M, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn count_by_rank(ranks: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let counts = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([1]);
    let rank = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], v, 0);
    apply(ptx["st.shared.u32"], counts.slice(s![t..t + 1]), v);
    apply(ptx["ld.global.u32"], rank, ranks.slice(s![r, t..t + 1]));
    apply(ptx["mov.u32"], v, 1);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    let target = rank[0] % 4;
    apply(
        ptx["red.shared::cluster.add.u32"],
        counts.in_cta(target).slice(s![t..t + 1]),
        v,
    );
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["ld.shared.u32"], v, counts.slice(s![t..t + 1]));
    apply(ptx["st.global.u32"], y.slice(s![r, t..t + 1]), v);
}

/// The guard of an unproven rank, and the clamp that keeps `mapa` in the
/// cluster where the guard fails.
#[test]
fn an_unproven_rank_is_guarded_and_clamped() {
    let ptx = count_by_rank::PTX;
    assert_eq!(support::lines_starting(ptx, "min.s64").len(), 1, "{ptx}");
    let red: Vec<&str> = ptx
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.contains("red.shared::cluster.add.u32"))
        .collect();
    assert_eq!(red.len(), 1, "{ptx}");
    assert!(
        red[0].starts_with("@%"),
        "the remote atomic is guarded: {}",
        red[0]
    );
}

#[test]
fn a_remote_load_maps_its_address() {
    let ptx = swap_with_the_peer::PTX;
    let mapa = support::lines_starting(ptx, "mapa.shared::cluster.u64");
    assert_eq!(mapa.len(), 1, "{ptx}");
    assert_eq!(
        support::lines_starting(ptx, "ld.shared::cluster.u32").len(),
        1,
        "{ptx}"
    );
}

/// A rank the checker proves in the cluster is used as it is; the
/// histogram's `v / 128` of a byte is too (a byte is below 256).
#[test]
fn proven_ranks_are_not_clamped() {
    for ptx in [swap_with_the_peer::PTX, cluster_histogram::PTX] {
        assert!(!ptx.contains("min.s64"), "{ptx}");
        assert!(ptx.contains("mapa.shared::cluster.u64"), "{ptx}");
    }
    assert_eq!(
        support::lines_starting(cluster_histogram::PTX, "red.shared::cluster.add.u32").len(),
        4,
        "{}",
        cluster_histogram::PTX
    );
}

#[test]
fn distributed_shared_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("swap_with_the_peer", swap_with_the_peer::PTX),
        ("cluster_histogram", cluster_histogram::PTX),
        ("count_by_rank", count_by_rank::PTX),
    ]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        each_cta_reads_its_peers_buffer,
        a_histogram_spread_over_the_cluster,
        ranks_outside_the_cluster_are_skipped
    );

    fn ranks_outside_the_cluster_are_skipped(dev: &Device) -> tile_kernel::Result<()> {
        let m = 4;
        let host: Vec<u32> = (0..m * 128)
            .map(|i| ((i * 2_654_435_761usize) >> 7) as u32)
            .collect();
        let ranks = dev.upload(&host, [m, 128])?;
        let mut y = dev.zeros::<u32>([m, 128])?;
        count_by_rank(dev, &ranks, &mut y)?;
        let got = y.download()?;
        for r in 0..m {
            let pair = r / 2 * 2;
            for t in 0..128 {
                let want = (pair..pair + 2)
                    .filter(|c| (host[c * 128 + t] % 4) as usize == r % 2)
                    .count() as u32;
                assert_eq!(got[r * 128 + t], want, "CTA {r}, thread {t}");
            }
        }
        Ok(())
    }

    fn each_cta_reads_its_peers_buffer(dev: &Device) -> tile_kernel::Result<()> {
        let m = 6;
        let host: Vec<u32> = (0..m * 128)
            .map(|i| (i * 2_654_435_761usize % 100_000) as u32)
            .collect();
        let x = dev.upload(&host, [m, 128])?;
        let mut y = dev.zeros::<u32>([m, 128])?;
        swap_with_the_peer(dev, &x, &mut y)?;
        let got = y.download()?;
        for r in 0..m {
            for t in 0..128 {
                assert_eq!(
                    got[r * 128 + t],
                    host[(r ^ 1) * 128 + t],
                    "row {r}, thread {t}"
                );
            }
        }
        Ok(())
    }

    fn a_histogram_spread_over_the_cluster(dev: &Device) -> tile_kernel::Result<()> {
        let rows = if dev.is_cpu() { 3000 } else { 1 << 20 };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let bytes: Vec<u8> = (0..rows * 4)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 32) as u8
            })
            .collect();
        let mut want = vec![0u32; 256];
        for v in &bytes {
            want[*v as usize] += 1;
        }
        let x = dev.upload(&bytes, [rows, 4])?;
        let mut hist = dev.zeros::<u32>([256])?;
        cluster_histogram(dev, &x, &mut hist)?;
        assert_eq!(hist.download()?, want);
        Ok(())
    }
}
