//! TMA multicast and arrivals on another CTA's mbarrier (sm_90): a ring
//! that the CTAs of a cluster fill for each other. Each CTA's producer
//! thread copies its part of a stage with `.multicast::cluster` into the
//! same place of every CTA's copy of the ring, signalling every CTA's
//! `full` object; every CTA's readers arrive on the `empty` object of
//! every CTA, so a producer refills a stage only after the readers of
//! every CTA are done with it. The checker proves the ring for the whole
//! cluster (`lowering/src/prove/cluster_rings.rs` and the async walk);
//! the mistakes are compile errors (UI cases `multicast_*`,
//! `remote_arrival_*` and `cluster_ring_*`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// `y[c, k] = x[p, k]` for both CTAs `c` of pair (cluster) `p`: the CTA
/// of rank `r` copies half `r` of chunk `x[p, k]` into row `r` of the
/// stage of both CTAs. So both CTAs of a pair write the same chunks, each
/// half of which only one of them loaded.
#[tile_kernel(grid = [G, 1, 1], block = [128, 1, 1], cluster = [2, 1, 1], arch = "sm_90")]
fn multicast_rows(x: Tensor<f32, P, K, 512>, y: Tensor<f32, G, K, 512>) {
    let t = thread_id(0);
    let c = cta_id(0);
    let rank = cluster_ctarank();
    let pair = cluster_id(0);
    let ring = alloc_shared::<f32>([2, 2, 256]);
    let full = alloc_shared::<Mbarrier>([2]);
    let empty = alloc_shared::<Mbarrier>([2]);
    let v = alloc_local::<f32>([1, 4]);
    if t == 0 {
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            full.slice(s![0..2]).reshape([2, 1]),
            1,
        );
        apply(
            ptx["mbarrier.init.shared::cta.b64"],
            empty.slice(s![0..2]).reshape([2, 1]),
            256,
        );
        apply(ptx["fence.mbarrier_init.release.cluster"]);
    }
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    for k in 0..K {
        let stage = k % 2;
        if t == 0 {
            // Chunk k - 2 of both CTAs has been read (free at first).
            apply(
                ptx["mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"],
                empty.slice(s![stage..stage + 1]),
                (k / 2 + 1) % 2,
            );
            apply(ptx["fence.proxy.async.shared::cluster"]);
            apply(
                ptx["mbarrier.arrive.expect_tx.shared::cta.b64"],
                full.slice(s![stage..stage + 1]),
                2048,
            );
            apply(
                ptx["cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"],
                ring.slice(s![stage, rank..rank + 1, ..]),
                x.slice(s![pair..pair + 1, k..k + 1, 256 * rank..256 * rank + 256]),
                full.slice(s![stage..stage + 1]),
                3,
            );
        }
        apply(
            ptx["mbarrier.try_wait.parity.shared::cta.b64"],
            full.slice(s![stage..stage + 1]),
            (k / 2) % 2,
        );
        let chunk = ring.slice(s![stage, .., ..]).reshape([512]);
        apply(
            ptx["ld.shared.v4.f32"],
            v,
            chunk.slice(s![4 * t..4 * t + 4]).reshape([1, 4]),
        );
        apply(
            ptx["mbarrier.arrive.release.cluster.shared::cta.b64"],
            empty.slice(s![stage..stage + 1]),
        );
        apply(
            ptx["mbarrier.arrive.release.cluster.shared::cluster.b64"],
            empty.in_cta(1 - rank).slice(s![stage..stage + 1]),
        );
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![c, k, 4 * t..4 * t + 4]).reshape([1, 4]),
            v,
        );
    }
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
}

#[test]
fn the_copy_is_multicast_to_every_cta_and_the_peer_is_arrived_on_remotely() {
    let ptx = multicast_rows::PTX;
    let copies = support::lines_starting(
        ptx,
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
    );
    assert_eq!(copies.len(), 1, "{ptx}");
    let remote =
        support::lines_starting(ptx, "mbarrier.arrive.release.cluster.shared::cluster.b64");
    assert_eq!(remote.len(), 1, "{ptx}");
    assert!(
        remote[0].contains("_, ["),
        "the state is the sink: {}",
        remote[0]
    );
    assert_eq!(
        support::lines_starting(ptx, "mapa.shared::cluster.u64").len(),
        1,
        "{ptx}"
    );
    assert_eq!(
        support::lines_starting(
            ptx,
            "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"
        )
        .len(),
        1,
        "{ptx}"
    );
}

#[test]
fn multicast_kernels_assemble_without_spills() {
    support::assert_no_spills(&[("multicast_rows", multicast_rows::PTX)]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(both_ctas_of_a_pair_see_both_halves);

    fn both_ctas_of_a_pair_see_both_halves(dev: &Device) -> tile_kernel::Result<()> {
        let (pairs, k) = if dev.is_cpu() { (2, 5) } else { (66, 37) };
        let host: Vec<f32> = (0..pairs * k * 512)
            .map(|i| ((i * 2_654_435_761usize) % 1_000_003) as f32)
            .collect();
        let x = dev.upload(&host, [pairs, k, 512])?;
        let mut y = dev.zeros::<f32>([2 * pairs, k, 512])?;
        multicast_rows(dev, &x, &mut y)?;
        let got = y.download()?;
        for c in 0..2 * pairs {
            let p = c / 2;
            for j in 0..k {
                let first = (p * k + j) * 512;
                let want = &host[first..first + 512];
                let at = (c * k + j) * 512;
                assert_eq!(&got[at..at + 512], want, "CTA {c}, chunk {j}");
            }
        }
        Ok(())
    }
}
