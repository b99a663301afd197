//! Broadcast views (`.broadcast([..])`): a repeat axis of extent 1 read at
//! every index of a larger extent, with stride 0, from a register tile or a
//! tensor; read-only (a destination is TK0234). The kernels assemble with
//! ptxas without spills and run on the CPU interpreter (always) and on a
//! GPU (`--include-ignored`), bit for bit against the host.

// The launchers need the runtime (Cargo.toml lists the other such tests
// with `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

use support::lines_starting;

/// Per row: the outer product of `a[row]` (4) and `b[row]` (8), one
/// `mul.rn.f32` per element, both factors broadcast from registers.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn outer(a: Tensor<f32, N, 4>, b: Tensor<f32, N, 8>, y: Tensor<f32, N, 32>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let ra = alloc_local::<f32>([4]);
    let rb = alloc_local::<f32>([8]);
    let p = alloc_local::<f32>([4, 8, 1]);
    apply(
        ptx["ld.global.v4.f32"],
        ra.reshape([1, 4]),
        a.slice(s![row..row + 1, ..]),
    );
    apply(
        ptx["ld.global.v4.f32"],
        rb.reshape([2, 4]),
        b.slice(s![row..row + 1, ..]).reshape([2, 4]),
    );
    apply(
        ptx["mul.rn.f32"],
        p,
        ra.reshape([4, 1, 1]).broadcast([4, 8, 1]),
        rb.reshape([1, 8, 1]).broadcast([4, 8, 1]),
    );
    apply(
        ptx["st.global.v4.f32"],
        y.slice(s![row..row + 1, ..]).reshape([8, 4]),
        p.reshape([8, 4]),
    );
}

/// Per row: `x[row, k] * s[row]`, the scale read from memory at each of
/// the 4 repeat coordinates of one load (a broadcast tensor view).
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn scale_rows(x: Tensor<f32, N, 4>, s: Tensor<f32, N>, y: Tensor<f32, N, 4>) {
    let row = cta_id(0) * 128 + thread_id(0);
    let r = alloc_local::<f32>([4, 1]);
    let k = alloc_local::<f32>([4, 1]);
    apply(
        ptx["ld.global.v4.f32"],
        r.reshape([1, 4]),
        x.slice(s![row..row + 1, ..]),
    );
    apply(
        ptx["ld.global.f32"],
        k,
        s.slice(s![row..row + 1]).reshape([1, 1]).broadcast([4, 1]),
    );
    apply(ptx["mul.rn.f32"], r, r, k);
    apply(
        ptx["st.global.v4.f32"],
        y.slice(s![row..row + 1, ..]),
        r.reshape([1, 4]),
    );
}

#[test]
fn a_register_broadcast_reads_one_register_at_every_coordinate() {
    let ptx = outer::PTX;
    let muls = lines_starting(ptx, "mul.rn.f32");
    assert_eq!(muls.len(), 32, "{ptx}");
    // Coordinate (i, j) reads ra[i] and rb[j]: (0, 0..8) all read ra[0].
    let first_factor = |l: &str| l.split(", ").nth(1).unwrap().to_string();
    let second_factor = |l: &str| {
        l.split(", ")
            .nth(2)
            .unwrap()
            .trim_end_matches(';')
            .to_string()
    };
    for j in 0..8 {
        assert_eq!(first_factor(muls[j]), first_factor(muls[0]), "{ptx}");
        assert_eq!(second_factor(muls[j]), second_factor(muls[j + 8]), "{ptx}");
    }
    assert_ne!(first_factor(muls[0]), first_factor(muls[8]), "{ptx}");
}

#[test]
fn a_memory_broadcast_loads_one_address_at_every_coordinate() {
    let ptx = scale_rows::PTX;
    let loads = lines_starting(ptx, "@");
    let scalar: Vec<&&str> = loads
        .iter()
        .filter(|l| l.contains("ld.global.f32"))
        .collect();
    assert_eq!(scalar.len(), 4, "{ptx}");
    let address = |l: &str| l.split('[').nth(1).unwrap().to_string();
    assert!(
        scalar.iter().all(|l| address(l) == address(scalar[0])),
        "{ptx}"
    );
}

#[test]
fn broadcast_kernels_assemble_without_spills() {
    support::assert_no_spills(&[("outer", outer::PTX), ("scale_rows", scale_rows::PTX)]);
}

/// Deterministic f32 values of both signs, small enough that products stay
/// normal.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % 20_001) as f32 - 10_000.0) / 997.0
        })
        .collect()
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(outer_products_match_the_host, scaled_rows_match_the_host);

    fn outer_products_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        for rows in [1usize, 127, 129, 1000] {
            let a = values(4 * rows, 0x1234_5678_9abc_def1);
            let b = values(8 * rows, 0x0fed_cba9_8765_4321);
            let da = dev.upload(&a, [rows, 4])?;
            let db = dev.upload(&b, [rows, 8])?;
            let mut y = dev.upload(&vec![0.0f32; 32 * rows], [rows, 32])?;
            outer(dev, &da, &db, &mut y)?;
            let y = y.download()?;
            for row in 0..rows {
                for i in 0..4 {
                    for j in 0..8 {
                        let want = a[4 * row + i] * b[8 * row + j];
                        let got = y[32 * row + 8 * i + j];
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "rows {rows}, row {row}, ({i}, {j})"
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn scaled_rows_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        for rows in [1usize, 128, 1001] {
            let x = values(4 * rows, 0x9e37_79b9_7f4a_7c15);
            let s = values(rows, 0x2545_f491_4f6c_dd1d);
            let dx = dev.upload(&x, [rows, 4])?;
            let ds = dev.upload(&s, [rows])?;
            let mut y = dev.upload(&vec![0.0f32; 4 * rows], [rows, 4])?;
            scale_rows(dev, &dx, &ds, &mut y)?;
            let y = y.download()?;
            for (e, got) in y.iter().enumerate() {
                let want = x[e] * s[e / 4];
                assert_eq!(got.to_bits(), want.to_bits(), "rows {rows}, element {e}");
            }
        }
        Ok(())
    }
}
