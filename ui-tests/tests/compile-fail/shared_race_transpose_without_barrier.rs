// The tiled transpose (CUDA samples, 32x8 block) without its barrier:
// thread (tx, ty) reads column tx of the tile, rows other threads write,
// in the same epoch (TK0406). A barrier between the loops orders them.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [ceil_div(W, 32), ceil_div(H, 32)], block = [32, 8])]
fn k(a: Tensor<f32, H, W>, b: Tensor<f32, W, H>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let tile = alloc_shared::<f32>([32, 33]);
    let v = alloc_local::<f32>([1]);
    let col = cta_id(0) * 32 + tx;
    for k in 0..4 {
        let row = cta_id(1) * 32 + ty + 8 * k;
        if row < H && col < W {
            apply(ptx["ld.global.f32"], v, a.slice(s![row, col..col + 1]));
            apply(ptx["st.shared.f32"], tile.slice(s![ty + 8 * k, tx..tx + 1]), v);
        }
    }
    let out_col = cta_id(1) * 32 + tx;
    for k in 0..4 {
        let out_row = cta_id(0) * 32 + ty + 8 * k;
        if out_row < W && out_col < H {
            apply(ptx["ld.shared.f32"], v, tile.slice(s![tx, ty + 8 * k..ty + 8 * k + 1]));
            apply(ptx["st.global.f32"], b.slice(s![out_row, out_col..out_col + 1]), v);
        }
    }
}

fn main() {}
