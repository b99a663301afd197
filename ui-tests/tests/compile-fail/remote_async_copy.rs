// Another CTA's buffer (TK0250): an asynchronous copy's destination is
// proven for the threads of one CTA, so it must be the CTA's own buffer.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [M, 1, 1], block = 32, cluster = [2, 1, 1], arch = "sm_90")]
fn k(x: Tensor<u32, M, 128>, y: Tensor<u32, M, 128>) {
    let t = thread_id(0);
    let sh = alloc_shared::<u32>([128]);
    let v = alloc_local::<u32>([4]);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(
        ptx["cp.async.cg.shared.global"],
        sh.in_cta(1 - cluster_ctarank()).slice(s![4 * t..4 * t + 4]),
        x.slice(s![cta_id(0), 4 * t..4 * t + 4]),
        16,
    );
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["barrier.cluster.arrive"], scope = "cluster");
    apply(ptx["barrier.cluster.wait"], scope = "cluster");
    apply(ptx["ld.shared.v4.u32"], v, sh.slice(s![4 * t..4 * t + 4]));
    apply(ptx["st.global.v4.u32"], y.slice(s![cta_id(0), 4 * t..4 * t + 4]), v);
}

fn main() {}
