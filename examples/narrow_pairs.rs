//! The seed kernel: eight f32 values become four packed f16 pairs.
//!
//! Row `[x0, x1]` of `a` becomes one u32 whose low half is f16(x0) and whose
//! high half is f16(x1): the packed cvt's FIRST source goes to the HIGH half.

use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn narrow_pairs(a: Tensor<f32, 4, 2>, out: Tensor<u32, 4, 1>) {
    let r = alloc_local::<f32>([4, 2]);
    let d = alloc_local::<u32>([4, 1]);
    apply(ptx["ld.global.v2.f32"], r, a);
    apply(
        ptx["cvt.rn.f16x2.f32"],
        d,
        r.slice(s![.., 1..2]),
        r.slice(s![.., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

fn main() -> Result<(), Error> {
    println!("{}", narrow_pairs::PTX);
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let x: Vec<f32> = (0..8).map(|i| -2.0 + 4.0 * i as f32 / 7.0).collect();
    let a = dev.upload(&x, [4, 2])?;
    let mut out = dev.zeros::<u32>([4, 1])?;
    narrow_pairs(&dev, &a, &mut out)?;
    let words = out.download()?;
    let expected: Vec<u32> = x
        .chunks(2)
        .map(|pair| {
            let lo = u32::from(f16::from_f32(pair[0]).to_bits());
            let hi = u32::from(f16::from_f32(pair[1]).to_bits());
            lo | (hi << 16)
        })
        .collect();
    for (row, (got, want)) in words.iter().zip(&expected).enumerate() {
        println!(
            "row {row}: [{:+.4}, {:+.4}] -> {got:#010x} (host reference {want:#010x})",
            x[2 * row],
            x[2 * row + 1]
        );
    }
    assert_eq!(
        words, expected,
        "the device's result differs from half::f16::from_f32"
    );
    println!(
        "OK: {} packed words match the host reference bit for bit",
        words.len()
    );
    Ok(())
}
