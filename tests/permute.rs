//! Permuted views (`.permute([..])`): the same elements with the axes in
//! another order, the strides permuted (no copy). A column of a global
//! tensor stored through a row viewed as a column, and `ldmatrix` fragments from a row-major
//! `swizzle_128` stage, whose lanes must walk rows within a 16-byte chunk
//! (`[rows, chunks, 8]` permuted to `[chunks, rows, 8]`), or in the order
//! of an `mma`'s B pairs (three lane digits). The kernels
//! assemble without spills and run on the CPU interpreter (always) and on
//! a GPU (`--include-ignored`), bit for bit against the host.
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// `y[r, ..] = x[.., r]`: thread `r` reads column `r` of `x` (8 scalar
/// loads) and stores it through row `r` of `y` viewed as a column.
#[tile_kernel(grid = 1, block = 8)]
fn columns_as_rows(x: Tensor<f32, 8, 8>, y: Tensor<f32, 8, 8>) {
    let r = thread_id(0);
    let v = alloc_local::<f32>([8, 1]);
    apply(ptx["ld.global.f32"], v, x.slice(s![.., r..r + 1]));
    apply(
        ptx["st.global.f32"],
        y.slice(s![r..r + 1, ..]).permute([1, 0]),
        v,
    );
}

/// `x` into a `[128, 64]` bf16 `swizzle_128` stage by `cp.async`, eight
/// lanes a row, and the stage visible to the warp.
#[tile_kernel::function]
fn fill_stage(x: Tensor<bf16>, stage: Shared<bf16>) {
    for j in 0..32 {
        let r = 4 * j + lane_id() / 8;
        let c = 8 * (lane_id() % 8);
        apply(
            ptx["cp.async.cg.shared.global"],
            stage.slice(s![r, c..c + 8]).view::<u32>(),
            x.slice(s![r, c..c + 8]).view::<u32>(),
            16,
        );
    }
    apply(ptx["cp.async.wait_all"]);
    apply(ptx["bar.sync"], 0, scope = "cta");
}

/// Rows 16..32, columns 16..32 of a `[128, 64]` bf16 stage (`swizzle_128`,
/// filled by `cp.async` eight lanes a row) as an `m16n8k16` A fragment:
/// lane `l` gives row `16 + l % 16` of chunk `2 + l / 16`.
#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn fragment_from_swizzled_rows(x: Tensor<bf16, 128, 64>, y: Tensor<u32, 32, 4>) {
    let stage = alloc_shared::<bf16>([128, 64], layout = "swizzle_128");
    let f = alloc_local::<u32>([32, 4], scope = "warp");
    fill_stage(x, stage);
    apply(
        ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
        f,
        stage
            .slice(s![16..32, 16..32])
            .reshape([16, 2, 8])
            .permute([1, 0, 2]),
        scope = "warp",
    );
    apply(
        ptx["st.global.v4.b32"],
        y.slice(s![lane_id(), ..]).unsqueeze(0),
        f.slice(s![lane_id(), ..]).unsqueeze(0),
    );
}

/// Rows `8 + 64 q ..` (q = 0, 1: offsets of whole swizzle atoms, one a
/// loop variable's), columns 16..32 of the same stage as two `m16n8k16`
/// B pairs: three lane digits `[2, 2, 8]`, so lane `l` gives row
/// `8 (l / 16) + l % 8` of chunk `2 + (l / 8) % 2`, and registers 0, 1
/// are n-tile 0's b0, b1, registers 2, 3 n-tile 1's.
#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn b_pairs_from_swizzled_rows(x: Tensor<bf16, 128, 64>, y: Tensor<u32, 2, 32, 4>) {
    let stage = alloc_shared::<bf16>([128, 64], layout = "swizzle_128");
    let f = alloc_local::<u32>([32, 2, 4], scope = "warp");
    fill_stage(x, stage);
    for q in 0..2 {
        let r = 8 + 64 * q;
        apply(
            ptx["ldmatrix.sync.aligned.m8n8.x4.shared.b16"],
            f.slice(s![.., q, ..]),
            stage
                .slice(s![r..r + 16, 16..32])
                .reshape([2, 8, 2, 8])
                .permute([0, 2, 1, 3]),
            scope = "warp",
        );
        apply(
            ptx["st.global.v4.b32"],
            y.slice(s![q, lane_id(), ..]).unsqueeze(0),
            f.slice(s![lane_id(), q, ..]).unsqueeze(0),
        );
    }
}

/// Lane `l` loads its 16-byte chunk `l % 8` of row `max(l, 1) - 1` of the
/// swizzled stage: an offset whose constant (-128 bytes) is below the
/// atom, so the emitter splits off a negative whole atom.
#[tile_kernel(grid = 1, block = 32, arch = "sm_80")]
fn rows_one_back(x: Tensor<bf16, 128, 64>, y: Tensor<u32, 32, 4>) {
    let stage = alloc_shared::<bf16>([128, 64], layout = "swizzle_128");
    fill_stage(x, stage);
    let v = alloc_local::<u32>([1, 4]);
    let row = max(lane_id(), 1) - 1;
    let c = 8 * (lane_id() % 8);
    apply(
        ptx["ld.shared.v4.b32"],
        v,
        stage.slice(s![row, c..c + 8]).view::<u32>().unsqueeze(0),
    );
    apply(
        ptx["st.global.v4.b32"],
        y.slice(s![lane_id(), ..]).unsqueeze(0),
        v,
    );
}

#[test]
fn permuted_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("columns_as_rows", columns_as_rows::PTX),
        (
            "fragment_from_swizzled_rows",
            fragment_from_swizzled_rows::PTX,
        ),
        (
            "b_pairs_from_swizzled_rows",
            b_pairs_from_swizzled_rows::PTX,
        ),
        ("rows_one_back", rows_one_back::PTX),
    ]);
}

/// The negative whole atom of `rows_one_back`'s offset is added to a
/// register: no address of the kernel has a negative displacement.
#[test]
fn negative_whole_atoms_are_not_displacements() {
    assert!(!rows_one_back::PTX.contains("+-"), "{}", rows_one_back::PTX);
    assert!(
        rows_one_back::PTX.contains("-1024"),
        "{}",
        rows_one_back::PTX
    );
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        a_column_reads_as_a_row,
        fragments_walk_rows_of_a_chunk,
        b_pairs_walk_three_lane_digits,
        rows_one_back_read_their_rows
    );

    fn a_column_reads_as_a_row(dev: &Device) -> tile_kernel::Result<()> {
        let host: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 7.0).collect();
        let x = dev.upload(&host, [8, 8])?;
        let mut y = dev.zeros::<f32>([8, 8])?;
        columns_as_rows(dev, &x, &mut y)?;
        let got = y.download()?;
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(
                    got[r * 8 + c].to_bits(),
                    host[c * 8 + r].to_bits(),
                    "y[{r}, {c}]"
                );
            }
        }
        Ok(())
    }

    fn fragments_walk_rows_of_a_chunk(dev: &Device) -> tile_kernel::Result<()> {
        // Every element its own bits: a misplaced row or chunk shows.
        let host: Vec<bf16> = (0..128 * 64).map(|i| bf16::from_bits(i as u16)).collect();
        let x = dev.upload(&host, [128, 64])?;
        let mut y = dev.zeros::<u32>([32, 4])?;
        fragment_from_swizzled_rows(dev, &x, &mut y)?;
        let got = y.download()?;
        for lane in 0..32 {
            for reg in 0..4 {
                // Register i is matrix i: rows 8 (i % 2) .., chunk i / 2;
                // the lane's row lane / 4, columns 2 (lane % 4) and + 1.
                let row = 16 + 8 * (reg % 2) + lane / 4;
                let col = 16 + 8 * (reg / 2) + 2 * (lane % 4);
                let want = pair(&host, row, col);
                assert_eq!(got[lane * 4 + reg], want, "lane {lane}, register {reg}");
            }
        }
        Ok(())
    }

    fn b_pairs_walk_three_lane_digits(dev: &Device) -> tile_kernel::Result<()> {
        let host: Vec<bf16> = (0..128 * 64).map(|i| bf16::from_bits(i as u16)).collect();
        let x = dev.upload(&host, [128, 64])?;
        let mut y = dev.zeros::<u32>([2, 32, 4])?;
        b_pairs_from_swizzled_rows(dev, &x, &mut y)?;
        let got = y.download()?;
        for q in 0..2 {
            for lane in 0..32 {
                for reg in 0..4 {
                    // Register i is matrix i: rows 8 (i / 2) .., chunk i % 2.
                    let row = 8 + 64 * q + 8 * (reg / 2) + lane / 4;
                    let col = 16 + 8 * (reg % 2) + 2 * (lane % 4);
                    let want = pair(&host, row, col);
                    assert_eq!(
                        got[(q * 32 + lane) * 4 + reg],
                        want,
                        "q {q}, lane {lane}, register {reg}"
                    );
                }
            }
        }
        Ok(())
    }

    fn rows_one_back_read_their_rows(dev: &Device) -> tile_kernel::Result<()> {
        let host: Vec<bf16> = (0..128 * 64).map(|i| bf16::from_bits(i as u16)).collect();
        let x = dev.upload(&host, [128, 64])?;
        let mut y = dev.zeros::<u32>([32, 4])?;
        rows_one_back(dev, &x, &mut y)?;
        let got = y.download()?;
        for lane in 0..32 {
            let row = lane.max(1) - 1;
            for word in 0..4 {
                let col = 8 * (lane % 8) + 2 * word;
                let want = pair(&host, row, col);
                assert_eq!(got[lane * 4 + word], want, "lane {lane}, word {word}");
            }
        }
        Ok(())
    }

    /// Elements `col` and `col + 1` of row `row` of the `[128, 64]` host
    /// stage as one 32-bit register (the lower column in the low half).
    fn pair(host: &[bf16], row: usize, col: usize) -> u32 {
        u32::from(host[row * 64 + col].to_bits())
            | (u32::from(host[row * 64 + col + 1].to_bits()) << 16)
    }
}
