//! The inverse of the seed kernel: four packed f16 pairs become eight f32.
//!
//! There is no `cvt.f32x2.f16x2`, so each packed word is viewed as two `u16`
//! halves (`d.view::<u16>()`: element 0 is the LOW half) and each half gets
//! its own scalar `cvt.f32.f16`. The `.unsqueeze(-1)` adds the register axis
//! of the scalar f16 operand. Row `r` of `out` is `[f32(low half of
//! packed[r]), f32(high half of packed[r])]`.

use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn widen_pairs(packed: Tensor<u32, 4, 1>, out: Tensor<f32, 4, 2>) {
    let d = alloc_local::<u32>([4, 1]);
    let f = alloc_local::<f32>([4, 2, 1]);
    apply(ptx["ld.global.b32"], d, packed);
    apply(ptx["cvt.f32.f16"], f, d.view::<u16>().unsqueeze(-1));
    apply(ptx["st.global.v2.f32"], out, f.reshape([4, 2]));
}

/// The f32 pairs the kernel must produce for `words`, via `half`.
pub fn host_reference(words: &[u32]) -> Vec<f32> {
    words
        .iter()
        .flat_map(|&w| {
            [
                f16::from_bits(w as u16).to_f32(),
                f16::from_bits((w >> 16) as u16).to_f32(),
            ]
        })
        .collect()
}

#[allow(dead_code)]
fn main() -> Result<(), Error> {
    println!("{}", widen_pairs::PTX);
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    // Normal, subnormal, signed zero, infinity and NaN halves.
    let halves: [u16; 8] = [
        f16::from_f32(1.5).to_bits(),
        f16::from_f32(-2.25).to_bits(),
        0x0001, // smallest positive subnormal, 2^-24
        0x8000, // -0.0
        0x7bff, // 65504, the largest finite f16
        0xfc00, // -inf
        0x7e00, // NaN
        f16::from_f32(0.1).to_bits(),
    ];
    let words: Vec<u32> = halves
        .chunks(2)
        .map(|p| u32::from(p[0]) | (u32::from(p[1]) << 16))
        .collect();
    let packed = dev.upload(&words, [4, 1])?;
    let mut out = dev.zeros::<f32>([4, 2])?;
    widen_pairs(&dev, &packed, &mut out)?;
    let got = out.download()?;
    let want = host_reference(&words);
    let mut mismatches = 0;
    for (row, word) in words.iter().enumerate() {
        let (g, w) = (&got[2 * row..2 * row + 2], &want[2 * row..2 * row + 2]);
        println!(
            "row {row}: {word:#010x} -> [{:e}, {:e}] (host reference [{:e}, {:e}])",
            g[0], g[1], w[0], w[1]
        );
        for (a, b) in g.iter().zip(w) {
            let same = (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
            if !same {
                mismatches += 1;
            }
        }
    }
    if mismatches > 0 {
        eprintln!(
            "MISMATCH: {mismatches} of {} values differ from half::f16::to_f32",
            want.len()
        );
        std::process::exit(1);
    }
    println!(
        "OK: {} f32 values match the host reference bit for bit (NaN as NaN)",
        want.len()
    );
    Ok(())
}
