//! Kernels as they look while being typed, one per module (an unbalanced
//! delimiter spoils the rest of its file). Each module's kernel is called
//! from `main`: the launchers must resolve (no E0425) although the bodies
//! do not parse, and the macro's error must sit on the line marked
//! `// error: TKnnnn` (scripts/ide-test.sh checks both).

mod else_no_block;
mod empty_initializer;
mod half_turbofish;
mod incomplete_let;
mod missing_bracket;
mod open_range;
mod trailing_comma;
mod trailing_dot;
mod unclosed_call;
mod unfinished_line;

use tile_kernel::prelude::*;

fn run(dev: &Device, a: &DeviceTensor<f32>, out: &mut DeviceTensor<u32>) -> Result<(), Error> {
    incomplete_let::k(dev, a, out)?;
    trailing_dot::k(dev, a, out)?;
    trailing_comma::k(dev, a, out)?;
    unclosed_call::k(dev, a, out)?;
    open_range::k(dev, a, out)?;
    else_no_block::k(dev, a, out)?;
    empty_initializer::k(dev, a, out)?;
    unfinished_line::k(dev, a, out)?;
    half_turbofish::k(dev, a, out)?;
    missing_bracket::k(dev, a, out)
}

fn main() {
    let _ = run;
}
