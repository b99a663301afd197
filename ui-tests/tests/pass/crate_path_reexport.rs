// `crate = "path"`: an engine re-exports tile-kernel and its users reach it
// through that path.
mod engine {
    pub use ::tile_kernel as kernels;
}

use engine::kernels::tile_kernel;

#[tile_kernel(crate = "engine::kernels", grid = 1, block = 1)]
fn narrow(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(ptx["cvt.rn.f16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
    apply(ptx["st.global.b32"], out, d);
}

fn main() {
    let device: Option<&engine::kernels::Device> = None;
    if let Some(device) = device {
        let a = device.zeros::<f32>([4, 2]).unwrap();
        let mut out = device.zeros::<u32>([4, 1]).unwrap();
        narrow(device, &a, &mut out).unwrap();
    }
    assert_eq!(narrow::SPEC.name, "narrow");
}
