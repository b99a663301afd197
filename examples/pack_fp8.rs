//! Quantize eight f32 values to fp8 e4m3, four bytes per packed u32.
//!
//! `cvt.rn.satfinite.e4m3x2.f32 d, a, b` packs two f32 into one 16-bit fp8
//! pair: the FIRST source `a` goes to the HIGH byte, `b` to the low byte. To
//! keep memory order (byte `i` of the output is `e4m3(x[i])`), each pair is
//! passed as `(x[2k+1], x[2k])`. The destination is a `u16` view of a `u32`
//! tile, so two pairs fill one word (view element 0 is the LOW half).
//!
//! Host reference: `float8::F8E4M3::from_f32`. It follows CUDA's
//! `__nv_cvt_double_to_fp8(.., __NV_SATFINITE, __NV_E4M3)`, which is what
//! PTX `.satfinite` specifies: round to nearest even, finite values beyond
//! the range (and infinities) clamp to +-448 (0x7e / 0xfe), NaN stays NaN.
//! So no extra clamp is needed on the host side; NaN is compared as "is NaN"
//! because the NaN's sign bit is not specified.

use tile_kernel::prelude::*;

#[tile_kernel(grid = 1, block = 1)]
pub fn pack_fp8(x: Tensor<f32, 2, 4>, out: Tensor<u32, 2, 1>) {
    let r = alloc_local::<f32>([2, 4]);
    let d = alloc_local::<u32>([2, 1]);
    apply(ptx["ld.global.v4.f32"], r, x);
    apply(
        ptx["cvt.rn.satfinite.e4m3x2.f32"],
        d.view::<u16>().unsqueeze(-1),
        r.reshape([2, 2, 2]).slice(s![.., .., 1..2]),
        r.reshape([2, 2, 2]).slice(s![.., .., 0..1]),
    );
    apply(ptx["st.global.b32"], out, d);
}

/// The packed words the kernel must produce for `x` (length a multiple of 4).
pub fn host_reference(x: &[f32]) -> Vec<u32> {
    x.chunks(4)
        .map(|q| {
            q.iter().enumerate().fold(0u32, |word, (i, &v)| {
                word | (u32::from(float8::F8E4M3::from_f32(v).to_bits()) << (8 * i))
            })
        })
        .collect()
}

/// Whether two e4m3 bytes agree: bit-exact, or both NaN (0x7f / 0xff).
pub fn same_e4m3(a: u8, b: u8) -> bool {
    a == b || (a & 0x7f == 0x7f && b & 0x7f == 0x7f)
}

#[allow(dead_code)]
fn main() -> Result<(), Error> {
    println!("{}", pack_fp8::PTX);
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    // In range, a rounding tie, out of range (saturates), subnormal, NaN.
    let x: Vec<f32> = vec![
        1.0,
        -0.3,
        17.0,
        448.0,
        1000.0,
        -f32::INFINITY,
        0.001,
        f32::NAN,
    ];
    let input = dev.upload(&x, [2, 4])?;
    let mut out = dev.zeros::<u32>([2, 1])?;
    pack_fp8(&dev, &input, &mut out)?;
    let got = out.download()?;
    let want = host_reference(&x);
    let mut mismatches = 0;
    for (i, &v) in x.iter().enumerate() {
        let g = (got[i / 4] >> (8 * (i % 4))) as u8;
        let w = (want[i / 4] >> (8 * (i % 4))) as u8;
        let ok = same_e4m3(g, w);
        mismatches += usize::from(!ok);
        println!(
            "x[{i}] = {v:>9} -> {g:#04x} = {:>9} (float8 reference {w:#04x}){}",
            float8::F8E4M3::from_bits(g).to_f32(),
            if ok { "" } else { "  MISMATCH" }
        );
    }
    println!("words: {got:#010x?}");
    if mismatches > 0 {
        eprintln!(
            "MISMATCH: {mismatches} of {} bytes differ from float8::F8E4M3::from_f32",
            x.len()
        );
        std::process::exit(1);
    }
    println!(
        "OK: {} e4m3 bytes match the float8 reference (NaN as NaN)",
        x.len()
    );
    Ok(())
}
