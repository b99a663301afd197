// Data flow (TK0303): an index read from a register loaded under the
// compiler's bounds guard is defined only where the guard holds.
use tile_kernel::prelude::*;

#[tile_kernel(grid = ceil_div(M, 128), block = 128)]
fn embed(ids: Tensor<u32, M>, table: Tensor<f32, V, 4>, out: Tensor<f32, M, 4>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let id = alloc_local::<u32>([1]);
    let r = alloc_local::<f32>([1, 4]);
    apply(ptx["ld.global.u32"], id, ids.slice(s![i..i + 1]));
    let row = id[0];
    if row < V {
        apply(ptx["ld.global.v4.f32"], r, table.slice(s![row..row + 1, ..]));
        apply(ptx["st.global.v4.f32"], out.slice(s![i..i + 1, ..]), r);
    }
}

fn main() {}
