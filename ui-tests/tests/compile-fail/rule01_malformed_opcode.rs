// Rule 1 (TK0201): an opcode is a mnemonic and modifiers joined by single dots.
use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
fn k(a: Tensor<f32, 4, 1>) {
    let r = alloc_local::<f32>([4, 1]);
    apply(ptx["ld..global.f32"], r, a);
}

fn main() {}
