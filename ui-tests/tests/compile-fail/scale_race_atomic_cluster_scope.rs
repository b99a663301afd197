// The kernel declares no cluster, so each cluster is one CTA and a
// `.cluster` atomic is as narrow as a `.cta` one: this counter is reached from the
// CTAs along `cta_id(1)` (each CTA of a row adds into its own slot, but
// the rows meet), TK0409.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [4, 2], block = 64, arch = "sm_90")]
fn k(counters: Tensor<u32, 4>) {
    let c = cta_id(0);
    let one = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], one, 1);
    apply(
        ptx["red.relaxed.cluster.global.add.u32"],
        counters.slice(s![c..c + 1]),
        one,
    );
}

fn main() {}
