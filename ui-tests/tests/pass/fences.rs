// The memory fences are usable anywhere (they only add ordering, which no
// proof relies on) and reach the PTX as written.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [ceil_div(N, 128), 1, 1], block = 128, arch = "sm_90")]
fn publish(x: Tensor<u32, N>, y: Tensor<u32, N>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<u32>([1, 1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]).unsqueeze(0));
    apply(ptx["fence.acq_rel.gpu"]);
    apply(ptx["fence.sc.cta"]);
    apply(ptx["fence.cluster"]);
    apply(ptx["fence.proxy.alias"]);
    apply(ptx["membar.gl"]);
    apply(ptx["membar.proxy.alias"]);
    apply(ptx["st.global.u32"], y.slice(s![i..i + 1]).unsqueeze(0), v);
}

fn main() {
    let ptx = publish::PTX;
    for fence in [
        "fence.acq_rel.gpu",
        "fence.sc.cta",
        "fence.cluster",
        "fence.proxy.alias",
        "membar.gl",
        "membar.proxy.alias",
    ] {
        assert!(
            ptx.lines()
                .any(|l| l.trim_start().starts_with(&format!("{fence} ;"))
                    || l.trim_start().starts_with(&format!("{fence};"))),
            "{fence} in {ptx}"
        );
    }
}
