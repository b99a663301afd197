//! Data-dependent addresses: an element of a local integer tile (`id[0]`)
//! in an index expression reads that register (a fresh value each time,
//! in the range of its dtype). Bounds are proven from that range (a `u8`
//! indexes 256 bins) or by the user's `if` (`row < V`), else guarded by the
//! compiler; atomics at such addresses are race free (same size, a scope
//! that holds every thread that reaches the element). An embedding lookup
//! (gather) and the classic shared-memory histogram, on the CPU interpreter
//! (always) and a GPU (`--include-ignored`), against the host.

// The launchers need the runtime (Cargo.toml lists the other such tests
// with `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

use support::lines_starting;

/// `out[i] = table[ids[i]]` for ids below `V`; rows with other ids are left
/// as they were.
#[tile_kernel(grid = ceil_div(M, 128), block = 128)]
fn embed(ids: Tensor<u32, M>, table: Tensor<f32, V, 4>, out: Tensor<f32, M, 4>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let id = alloc_local::<u32>([1]);
    let r = alloc_local::<f32>([1, 4]);
    if i < M {
        apply(ptx["ld.global.u32"], id, ids.slice(s![i..i + 1]));
        let row = id[0];
        if row < V {
            apply(
                ptx["ld.global.v4.f32"],
                r,
                table.slice(s![row..row + 1, ..]),
            );
            apply(ptx["st.global.v4.f32"], out.slice(s![i..i + 1, ..]), r);
        }
    }
}

/// 256 bins of `u8` values: per-CTA bins in shared memory (`red.shared`
/// at the byte's bin, in bounds by its range), then one `red.global` per
/// bin and CTA.
#[tile_kernel(grid = 132, block = 256)]
fn histogram(x: Tensor<u8, N>, hist: Tensor<u32, 256>) {
    let t = thread_id(0);
    let bins = alloc_shared::<u32>([256]);
    let zero = alloc_local::<u32>([1]);
    let one = alloc_local::<u32>([1]);
    let b = alloc_local::<u8>([1]);
    let count = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], zero, 0);
    apply(ptx["mov.u32"], one, 1);
    apply(ptx["st.shared.u32"], bins.slice(s![t..t + 1]), zero);
    apply(ptx["bar.sync"], 0, scope = "cta");
    for j in (cta_id(0) * 256 + t..N).step_by(132 * 256) {
        apply(ptx["ld.global.u8"], b, x.slice(s![j..j + 1]));
        let v = b[0];
        apply(ptx["red.shared.add.u32"], bins.slice(s![v..v + 1]), one);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.u32"], count, bins.slice(s![t..t + 1]));
    apply(ptx["red.global.add.u32"], hist.slice(s![t..t + 1]), count);
}

#[test]
fn a_register_index_is_read_with_its_dtypes_extension() {
    assert_eq!(
        lines_starting(embed::PTX, "cvt.s64.u32 %i").len(),
        1,
        "{}",
        embed::PTX
    );
    assert_eq!(
        lines_starting(histogram::PTX, "cvt.s64.u8 %i").len(),
        1,
        "{}",
        histogram::PTX
    );
}

#[test]
fn the_histograms_bin_index_needs_no_guard() {
    // In bounds from the byte's range: the shared atomic is not predicated.
    let ptx = histogram::PTX;
    let red = lines_starting(ptx, "red.shared.add.u32");
    assert_eq!(red.len(), 1, "{ptx}");
}

#[test]
fn gather_kernels_assemble_without_spills() {
    support::assert_no_spills(&[("embed", embed::PTX), ("histogram", histogram::PTX)]);
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(embedding_rows_match_the_host, histograms_match_the_host);

    fn embedding_rows_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        let vocab = 1000usize;
        let table: Vec<f32> = (0..4 * vocab).map(|e| e as f32 * 0.25 - 7.0).collect();
        let dtable = dev.upload(&table, [vocab, 4])?;
        for m in [1usize, 127, 129, 4099] {
            // Every 17th id is out of range: its row keeps the sentinel.
            let ids: Vec<u32> = (0..m as u32)
                .map(|i| {
                    if i % 17 == 5 {
                        vocab as u32 + i
                    } else {
                        (i * 7919) % vocab as u32
                    }
                })
                .collect();
            let dids = dev.upload(&ids, [m])?;
            let mut out = dev.upload(&vec![-1.5f32; 4 * m], [m, 4])?;
            embed(dev, &dids, &dtable, &mut out)?;
            let out = out.download()?;
            for (i, id) in ids.iter().enumerate() {
                for k in 0..4 {
                    let want = if (*id as usize) < vocab {
                        table[4 * *id as usize + k]
                    } else {
                        -1.5
                    };
                    assert_eq!(out[4 * i + k].to_bits(), want.to_bits(), "m {m}, row {i}");
                }
            }
        }
        Ok(())
    }

    fn histograms_match_the_host(dev: &Device) -> tile_kernel::Result<()> {
        // The CPU interpreter is slow: smaller inputs there.
        let sizes: &[usize] = if dev.is_cpu() {
            &[0, 1, 255, 40_000]
        } else {
            &[0, 1, 255, 40_000, (1 << 24) + 3]
        };
        for &n in sizes {
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let x: Vec<u8> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Skewed: bin 0 gets many, the rest fewer.
                    if state.is_multiple_of(5) {
                        0
                    } else {
                        (state >> 24) as u8
                    }
                })
                .collect();
            let mut want = vec![0u32; 256];
            for v in &x {
                want[*v as usize] += 1;
            }
            let dx = dev.upload(&x, [n])?;
            let mut hist = dev.upload(&vec![0u32; 256], [256])?;
            histogram(dev, &dx, &mut hist)?;
            assert_eq!(hist.download()?, want, "n = {n}");
        }
        Ok(())
    }
}
