//! A CTA-level reduction through shared memory: the sum of squares of each
//! row of 4096 f32 values with 256 threads per row (warp shuffles, a shared
//! buffer of the 8 warp sums, a CTA barrier), checked bit for bit against
//! a host reference that adds in the kernel's order.
//!
//! `cargo run --release --example row_sumsq [ROWS]` (default 4096 rows).

#[path = "common/reduce.rs"]
mod reduce;

use tile_kernel::prelude::*;

const COLUMNS: usize = 4096;

/// The kernel's order of additions, on the host.
fn reference_row(x: &[f32]) -> f32 {
    // Per thread: elements 1024j + 4t + k, j-major.
    let mut sums = [0f32; 256];
    for (t, sum) in sums.iter_mut().enumerate() {
        let mut s = 0f32;
        for j in 0..4 {
            for k in 0..4 {
                let v = x[1024 * j + 4 * t + k];
                s = if j == 0 && k == 0 {
                    v * v
                } else {
                    v.mul_add(v, s)
                };
            }
        }
        *sum = s;
    }
    // Butterflies inside each warp: lane l adds lane l ^ m's value.
    let butterfly = |lanes: &mut [f32], masks: &[usize]| {
        for &m in masks {
            let before = lanes.to_vec();
            for l in 0..lanes.len() {
                lanes[l] = before[l] + before[l ^ m];
            }
        }
    };
    let mut partials = [0f32; 32];
    for w in 0..8 {
        let mut lanes = sums[32 * w..32 * w + 32].to_vec();
        butterfly(&mut lanes, &[16, 8, 4, 2, 1]);
        partials[w] = lanes[0];
    }
    butterfly(&mut partials, &[4, 2, 1]);
    partials[0]
}

fn inputs(rows: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..rows * COLUMNS)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Values in (-2, 2) scaled per row, so rows differ in magnitude.
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0;
            unit * ((i / COLUMNS) % 7 + 1) as f32
        })
        .collect()
}

fn main() -> Result<(), Error> {
    if std::env::var_os("ROW_SUMSQ_PTX").is_some() {
        print!("{}", reduce::row_sumsq::PTX);
        return Ok(());
    }
    let rows: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4096);
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let host = inputs(rows);
    let x = dev.upload(&host, [rows, COLUMNS])?;
    let mut out = dev.zeros::<f32>([rows])?;
    reduce::row_sumsq(&dev, &x, &mut out)?;
    let got = out.download()?;
    for (r, value) in got.iter().enumerate() {
        let want = reference_row(&host[r * COLUMNS..(r + 1) * COLUMNS]);
        assert_eq!(
            value.to_bits(),
            want.to_bits(),
            "row {r}: kernel {value:e}, reference {want:e}"
        );
    }
    println!("OK: {rows} row sums of squares match the host reference bit for bit");
    Ok(())
}
