//! The `main` the row examples share (`softmax`, `layer_norm`, `rms_norm`,
//! `quantize_per_token`): `NAME_PTX=kernel` prints that kernel's PTX (the
//! first kernel's for an unknown name); otherwise each size runs through
//! the example's `check` (`M N` from the command line, or the example's
//! sizes for the CPU interpreter or the GPU).

use tile_kernel::prelude::*;

/// A check of every kernel that holds rows of `n`, on `m` rows.
pub type Check = fn(&Device, usize, usize) -> Result<(), Error>;

pub fn main(
    ptx_variable: &str,
    kernels: &[(&str, &str)],
    cpu_sizes: &[(usize, usize)],
    gpu_sizes: &[(usize, usize)],
    check: Check,
) -> Result<(), Error> {
    if let Ok(name) = std::env::var(ptx_variable) {
        let ptx = kernels
            .iter()
            .find(|(kernel, _)| *kernel == name)
            .or(kernels.first())
            .map_or("", |(_, ptx)| ptx);
        print!("{ptx}");
        return Ok(());
    }
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = match args[..] {
        [m, n] => vec![(m, n)],
        _ if dev.is_cpu() => cpu_sizes.to_vec(),
        _ => gpu_sizes.to_vec(),
    };
    for (m, n) in sizes {
        check(&dev, m, n)?;
    }
    Ok(())
}
