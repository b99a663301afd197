// A persistent kernel's tiles: CTA `(x, y)` of a `[ceil_div(N, 64),
// ceil_div(M, 256)]` grid stores rows `64 (y + G t) ..` for `t` in 0..4,
// `G` the grid's height: `y + G t` is `y` modulo `G`, and `y < G`, so no
// two CTAs meet on a row (the race rule's period `G`, an atom of the
// launch). Also through a tile count read from a runtime loop.
use tile_kernel::prelude::*;

#[tile_kernel(grid = [ceil_div(N, 64), ceil_div(M, 256), 1], block = [64, 1, 1])]
fn four_tiles_each(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let t = thread_id(0);
    let g = ceil_div(M, 256);
    let v = alloc_local::<f32>([1, 1]);
    let col = cta_id(0) * 64 + t;
    for tile in 0..4 {
        for r in 0..64 {
            let row = (cta_id(1) + g * tile) * 64 + r;
            apply(ptx["ld.global.f32"], v, x.slice(s![row..row + 1, col..col + 1]), pred = row < M && col < N);
            apply(ptx["st.global.f32"], y.slice(s![row..row + 1, col..col + 1]), v, pred = row < M && col < N);
        }
    }
}

#[tile_kernel(grid = [ceil_div(N, 64), ceil_div(M, 256), 1], block = [64, 1, 1])]
fn tiles_of_a_runtime_loop(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>, steps: u32) {
    let t = thread_id(0);
    let g = ceil_div(M, 256);
    let v = alloc_local::<f32>([1, 1]);
    let col = cta_id(0) * 64 + t;
    if 0 < steps {
        for s in 0..4 * steps {
            let row = (cta_id(1) + g * min(s / steps, 3)) * 64 + s % 64;
            apply(ptx["ld.global.f32"], v, x.slice(s![row..row + 1, col..col + 1]), pred = row < M && col < N);
            apply(ptx["st.global.f32"], y.slice(s![row..row + 1, col..col + 1]), v, pred = row < M && col < N);
        }
    }
}

fn main() {
    assert!(four_tiles_each::PTX.contains("st.global.f32"));
    assert!(tiles_of_a_runtime_loop::PTX.contains("st.global.f32"));
}
