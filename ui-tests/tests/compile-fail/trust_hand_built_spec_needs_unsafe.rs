// A kernel spec built by hand is not checked by the compiler: wrapping it in
// a `Kernel` is an `unsafe` promise that its PTX is memory-safe.
use tile_kernel::{runtime::Kernel, spec::{KernelSpec, LaunchFormulaSpec, Target}};

static HAND_BUILT: Kernel = Kernel::new(KernelSpec {
    name: "k",
    ptx: ".version 7.8\n.target sm_90\n.address_size 64\n",
    target: Target::SM_90,
    grid: [LaunchFormulaSpec::ONE; 3],
    block: [1, 1, 1],
    cluster: [1, 1, 1],
    shared_mem_bytes: LaunchFormulaSpec::ZERO,
    params: &[],
    symbols: &[],
    tensor_maps: &[],
    program: &[],
});

fn main() {
    let _ = &HAND_BUILT;
}
