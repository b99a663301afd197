//! A 256-bin histogram of bytes, the classic way: per-CTA bins in shared
//! memory (`red.shared.add.u32` at each byte's bin: in bounds by the byte's
//! range, race free as atomics), a CTA barrier, then one `red.global.add`
//! per bin and CTA. Checked against a host count; times the kernel on the
//! device's stream.
//!
//! `cargo run --release --example histogram [LOG2_BYTES]` (default 2^28
//! bytes on a GPU, 2^18 on the CPU interpreter; at least 2^4).

use tile_kernel::prelude::*;

/// CTAs of the grid-stride loop (8 per SM of an H200: 2048 threads each).
const CTAS: u32 = 1056;

/// `hist[b] += ` the number of bytes of `x` equal to `b` (`x` as rows of 16
/// bytes: four `ld.global.v4.u8` per row, all issued before the row's
/// atomics, so 16 bytes per thread are in flight).
#[tile_kernel(grid = 1056, block = 256)]
fn histogram(x: Tensor<u8, W, 16>, hist: Tensor<u32, 256>) {
    let t = thread_id(0);
    let bins = alloc_shared::<u32>([256]);
    let zero = alloc_local::<u32>([1]);
    let one = alloc_local::<u32>([1]);
    let b = alloc_local::<u8>([4, 4]);
    let count = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], zero, 0);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["st.shared.u32"], bins.slice(s![t..t + 1]), zero);
    apply(ptx["bar.sync"], 0, scope = "cta");
    for row in (cta_id(0) * 256 + t..W).step_by(1056 * 256) {
        apply(
            ptx["ld.global.v4.u8"],
            b,
            x.slice(s![row..row + 1, ..]).reshape([4, 4]),
        );
        for k in 0..16 {
            let v = b[k / 4][k % 4];
            apply(ptx["red.shared.add.u32"], bins.slice(s![v..v + 1]), one);
        }
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.u32"], count, bins.slice(s![t..t + 1]));
    apply(ptx["red.global.add.u32"], hist.slice(s![t..t + 1]), count);
}

fn main() -> Result<(), Error> {
    if std::env::var_os("HISTOGRAM_PTX").is_some() {
        print!("{}", histogram::PTX);
        return Ok(());
    }
    let dev = Device::new(0)?;
    let log2: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(if dev.is_cpu() { 18 } else { 28 })
        .clamp(4, 31);
    let n = 1usize << log2;
    println!("device: {}", dev.name()?);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect();
    let mut want = vec![0u32; 256];
    for v in &bytes {
        want[*v as usize] += 1;
    }
    let x = dev.upload(&bytes, [n / 16, 16])?;
    let mut hist = dev.zeros::<u32>([256])?;
    histogram(&dev, &x, &mut hist)?;
    assert_eq!(hist.download()?, want, "histogram of {n} bytes");
    if !dev.is_cpu() {
        // Timed launches add to the same bins.
        let runs: u32 = 20;
        let ms = dev.time(|| {
            for _ in 0..runs {
                histogram(&dev, &x, &mut hist)?;
            }
            Ok(())
        })? / f64::from(runs);
        let got = hist.download()?;
        for (b, count) in got.iter().enumerate() {
            assert_eq!(
                u64::from(*count),
                u64::from(want[b]) * (u64::from(runs) + 1),
                "bin {b}"
            );
        }
        println!(
            "histogram of 2^{log2} bytes: {ms:.4} ms per launch, {:.1} GB/s ({CTAS} CTAs)",
            n as f64 / ms / 1e6
        );
    }
    println!("OK: the histogram of {n} bytes matches the host count");
    Ok(())
}
