// SPEC §6: `to_half` and `to_bf16_pairs` exactly as the spec writes them.
use tile_kernel::prelude::*;

// f32 -> f16 for any N: 8 elements per thread, a vector body and a scalar tail.
#[tile_kernel(grid = ceil_div(N, 2048), block = 256)]
fn to_half(x: Tensor<f32, N>, y: Tensor<u16, N>) {
    let base = (cta_id(0) * 256 + thread_id(0)) * 8;      // a runtime index
    let r = alloc_local::<f32>([2, 4]);
    let d = alloc_local::<u32>([1, 4]);
    let v = alloc_local::<f32>([8, 1]);
    let h = alloc_local::<f16>([8, 1]);
    if base + 8 <= N {                                     // runtime branch
        apply(ptx["ld.global.v4.f32"], r, x.slice(s![base..base + 8]).reshape([2, 4]));
        let pairs = r.reshape([4, 2]);                     // a named view: no data moves
        apply(ptx["cvt.rn.f16x2.f32"], d.reshape([4, 1]), pairs.slice(s![.., 1..2]), pairs.slice(s![.., 0..1]));
        apply(ptx["st.global.v4.b32"], y.slice(s![base..base + 8]).view::<u32>().reshape([1, 4]), d);
    } else {
        for k in 0..8 {                                    // constant bounds: unrolled, k is a constant
            if base + k < N {
                apply(ptx["ld.global.f32"], v[k], x.slice(s![base + k..base + k + 1]));
                apply(ptx["cvt.rn.f16.f32"], h[k], v[k]);
                apply(ptx["st.global.b16"], y.slice(s![base + k..base + k + 1]), h[k]);
            }
        }
    }
}

// A grid-stride loop: a runtime loop over rows (4 CTAs per SM on a 132-SM H200).
#[tile_kernel(grid = 528, block = 256)]
fn to_bf16_pairs(x: Tensor<f32, N, 2>, y: Tensor<u32, N, 1>) {
    let r = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<u32>([1, 1]);
    let start = cta_id(0) * block_dim(0) + thread_id(0);
    let stride = grid_dim(0) * block_dim(0);
    for row in (start..N).step_by(stride) {
        apply(ptx["ld.global.v2.f32"], r, x.slice(s![row..row + 1, ..]));
        apply(ptx["cvt.rn.bf16x2.f32"], d, r.slice(s![.., 1..2]), r.slice(s![.., 0..1]));
        apply(ptx["st.global.b32"], y.slice(s![row..row + 1, ..]), d);
    }
}

// The launchers type-check with the symbolic shapes (`N` bound from the
// tensors at launch); never called here (no GPU needed).
#[allow(dead_code)]
fn launch(dev: &Device, x: &DeviceTensor<f32>, y: &mut DeviceTensor<u16>, p: &mut DeviceTensor<u32>) -> Result<(), Error> {
    to_half(dev, x, y)?;
    to_bf16_pairs(dev, x, p)
}

fn main() {
    let ptx = to_half::PTX;
    println!("{ptx}");
    // The size symbol is a parameter; the block shape is declared.
    assert!(ptx.contains(".param .u64 to_half_sym_0_N"), "{ptx}");
    assert!(ptx.contains(".reqntid 256, 1, 1"), "{ptx}");
    // Vector body: 2 v4 loads, 4 packed cvts, 1 v4 store, on the `if` arm.
    assert_eq!(ptx.matches("\tld.global.v4.f32 ").count(), 2, "{ptx}");
    assert_eq!(ptx.matches("\tcvt.rn.f16x2.f32 ").count(), 4, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.v4.b32 ").count(), 1, "{ptx}");
    // Scalar tail: `for k in 0..8` unrolled, one element each.
    assert_eq!(ptx.matches("\tld.global.f32 ").count(), 8, "{ptx}");
    assert_eq!(ptx.matches("\tcvt.rn.f16.f32 ").count(), 8, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.b16 ").count(), 8, "{ptx}");
    assert!(ptx.contains("$L0_else:"), "{ptx}");

    let ptx = to_bf16_pairs::PTX;
    println!("{ptx}");
    assert!(ptx.contains(".reqntid 256, 1, 1"), "{ptx}");
    // One runtime loop whose body is one row; the stride is
    // grid_dim(0) * block_dim(0) = 528 * 256.
    assert_eq!(ptx.matches("\tld.global.v2.f32 ").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("\tcvt.rn.bf16x2.f32 ").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("\tst.global.b32 ").count(), 1, "{ptx}");
    assert!(ptx.contains(", 135168;"), "{ptx}");
    assert!(ptx.contains("bra.uni $L0_head;"), "{ptx}");
}
