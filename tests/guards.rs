//! Definedness under guards (SPEC §6: accesses the compiler cannot prove in
//! bounds get a guard it adds itself): values loaded under such a guard are
//! defined where it holds, what is computed from them too, and a store
//! whose own guard implies it is legal. The kernels below have no bounds
//! check of their own; they compile, keep the compiler's guards in their
//! PTX (asserted line by line), assemble with ptxas without spills, and run
//! on the CPU interpreter (always) and on a GPU (`--include-ignored`),
//! bit for bit against `half` on the host.

// The launchers need the runtime (Cargo.toml lists the other such tests
// with `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use half::f16;
use tile_kernel::prelude::*;

use support::lines_starting;

/// One row of 4 per thread, no `if`: the load and the store are guarded by
/// the compiler (`row + 1 <= N`), the conversion between them runs
/// unguarded on whatever the load left.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn rows_to_half(x: Tensor<f32, N, 4>, y: Tensor<u16, N, 4>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let r = alloc_local::<f32>([1, 4]);
    let h = alloc_local::<f16>([4, 1]);
    apply(ptx["ld.global.v4.f32"], r, x.slice(s![row..row + 1, ..]));
    apply(ptx["cvt.rn.f16.f32"], h, r.reshape([4, 1]));
    apply(
        ptx["st.global.v4.b16"],
        y.slice(s![row..row + 1, ..]).view::<u16>(),
        h.reshape([1, 4]),
    );
}

/// A grid-stride loop unrolled by two: each iteration converts row `row`
/// and row `row + 264 * 256` (the next thread-grid's worth). The loop
/// proves the first in bounds, the compiler guards the second
/// (`row + 67584 + 1 <= N`, the tail), and one conversion covers both.
#[tile_kernel(grid = 264, block = 256)]
fn row_pairs_to_half(x: Tensor<f32, N, 4>, y: Tensor<u16, N, 4>) {
    let start = cta_id(0) * 256 + thread_id(0);
    let r = alloc_local::<f32>([2, 4]);
    let h = alloc_local::<f16>([8, 1]);
    for row in (start..N).step_by(2 * 264 * 256) {
        for k in 0..2 {
            let at = row + 264 * 256 * k;
            apply(
                ptx["ld.global.v4.f32"],
                r.slice(s![k..k + 1, ..]),
                x.slice(s![at..at + 1, ..]),
            );
        }
        apply(ptx["cvt.rn.f16.f32"], h, r.reshape([8, 1]));
        for k in 0..2 {
            let at = row + 264 * 256 * k;
            apply(
                ptx["st.global.v4.b16"],
                y.slice(s![at..at + 1, ..]).view::<u16>(),
                h.slice(s![4 * k..4 * k + 4, ..]).reshape([1, 4]),
            );
        }
    }
}

#[test]
fn rows_to_half_keeps_the_compilers_guards_on_the_load_and_the_store() {
    let ptx = rows_to_half::PTX;
    // Both memory accesses are predicated, by the same guard; the
    // conversions between them are not.
    let loads = lines_starting(ptx, "@");
    assert_eq!(loads.len(), 2, "{ptx}");
    let guard = loads[0].split_whitespace().next().unwrap();
    assert!(loads[0].contains("ld.global.v4.f32"), "{ptx}");
    assert!(loads[1].starts_with(guard), "{ptx}");
    assert!(loads[1].contains("st.global.v4.b16"), "{ptx}");
    assert_eq!(lines_starting(ptx, "cvt.rn.f16.f32").len(), 4, "{ptx}");
}

#[test]
fn row_pairs_guard_only_the_second_row() {
    let ptx = row_pairs_to_half::PTX;
    let guarded = lines_starting(ptx, "@");
    // The second row's load and store (the loop's own branch is `@%p bra`).
    let memory: Vec<&&str> = guarded
        .iter()
        .filter(|l| l.contains("ld.global") || l.contains("st.global"))
        .collect();
    assert_eq!(memory.len(), 2, "{ptx}");
    assert!(memory[0].contains("ld.global.v4.f32"), "{ptx}");
    assert!(memory[1].contains("st.global.v4.b16"), "{ptx}");
    assert_eq!(lines_starting(ptx, "ld.global.v4.f32").len(), 1, "{ptx}");
    assert_eq!(lines_starting(ptx, "st.global.v4.b16").len(), 1, "{ptx}");
    assert_eq!(lines_starting(ptx, "cvt.rn.f16.f32").len(), 8, "{ptx}");
}

#[test]
fn guard_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("rows_to_half", rows_to_half::PTX),
        ("row_pairs_to_half", row_pairs_to_half::PTX),
    ]);
}

/// Values with every kind of f32 -> f16 rounding: normals, halfway cases,
/// subnormals, overflow, infinities and NaN, from a fixed seed.
fn inputs(n: usize) -> Vec<f32> {
    let special = [
        0.0f32,
        -0.0,
        1.0,
        65504.0,
        65520.0,
        1e-8,
        -6.1e-5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if i % 7 == 0 {
                special[(state % special.len() as u64) as usize]
            } else {
                f32::from_bits(state as u32 & 0xc7ff_ffff)
            }
        })
        .collect()
}

/// `cvt.rn.f16.f32` of each value: `half`'s rounding, and the canonical
/// NaN `0x7fff` the PTX conversion produces for every NaN input.
fn halves(x: &[f32]) -> Vec<u16> {
    x.iter()
        .map(|v| {
            if v.is_nan() {
                0x7fff
            } else {
                f16::from_f32(*v).to_bits()
            }
        })
        .collect()
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        rows_convert_for_any_row_count,
        row_pairs_convert_for_any_row_count
    );

    fn rows_convert_for_any_row_count(dev: &Device) -> tile_kernel::Result<()> {
        for rows in [0usize, 1, 127, 128, 129, 1000, (1 << 16) + 3] {
            let x = inputs(4 * rows);
            let a = dev.upload(&x, [rows, 4])?;
            // Filled with a sentinel: a store past the guard would show.
            let mut y = dev.upload(&vec![0xabcdu16; 4 * rows], [rows, 4])?;
            rows_to_half(dev, &a, &mut y)?;
            assert_eq!(y.download()?, halves(&x), "rows = {rows}");
        }
        Ok(())
    }

    fn row_pairs_convert_for_any_row_count(dev: &Device) -> tile_kernel::Result<()> {
        // Counts past one grid's worth of rows reach the guarded second
        // row; others end where the guard skips it.
        for rows in [0usize, 1, 1001, 67584, 67585, 2 * 67584 + 7, 5 * 67584 - 3] {
            let x = inputs(4 * rows);
            let a = dev.upload(&x, [rows, 4])?;
            let mut y = dev.upload(&vec![0xabcdu16; 4 * rows], [rows, 4])?;
            row_pairs_to_half(dev, &a, &mut y)?;
            assert_eq!(y.download()?, halves(&x), "rows = {rows}");
        }
        Ok(())
    }
}
