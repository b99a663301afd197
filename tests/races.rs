//! Race-free patterns the race rule accepts (`docs/safety.md`, "Races"),
//! each as a kernel run on both devices against a host reference:
//!
//! - (a) unrolled offsets inside a grid-stride loop: `i = j + 256 * k` for
//!   `j` in `(t..N).step_by(1024)` and `k` in `0..4`, 256 threads per row;
//! - (b) the CUDA samples' tiled transpose: a 32x8 block, a 32x33 shared
//!   tile whose rows `ty + 8 * k` thread `(tx, ty)` writes, a barrier, the
//!   tile read transposed;
//! - (c) a warp-scope store into a `reshape`d and into a `view::<u32>()`
//!   shared buffer, each lane writing its own 16 bytes;
//! - (d) a constant shift (`z[i + 3]`) and a reversal (`z[N - 1 - i]`) of a
//!   per-thread index;
//! - (e) `x[i % N]` under `if N >= 1` (the divisor proven from the
//!   condition, `i % N < N` from the remainder's definition);
//! - (f) a warp-scope access ranked by `thread_id(1)` and the lane in a
//!   `[32, 2]` block (`lane_id()` is `thread_id(0)` there);
//! - (g) a persistent kernel's tiles: CTA row `y` of a grid of height `G =
//!   ceil_div(M, 64)` copies rows `16 (y + G t) ..` for its tiles `t` in
//!   0..4 (`y + G t` is `y` modulo `G`), and the same with the tile read
//!   from a runtime loop's ticket (`min(s / 16, 3)`), as the persistent
//!   GEMM of `examples/gemm_sm90.rs` does;
//! - (h) a rank only the access's own condition makes one: the low 16
//!   lanes of each of two warps store `y[32 c + 16 w + l]`, which two
//!   threads of different warps would meet at with all 32 lanes (the
//!   launch's facts alone do not separate them; `lane_id() < 16` does);
//! - `.cta`-scoped atomics on counters each CTA has to itself, of two sizes
//!   on disjoint bytes (what TK0408 and TK0409 still accept).
//!
//! The expected values are computed here from the inputs, never from the
//! interpreter. Each kernel is also assembled by ptxas without spills. The
//! rejected races (different-size atomics, `.cta` atomics reached from
//! several CTAs, the races these patterns must still catch) are UI cases in
//! `ui-tests/tests/compile-fail` (`race_*`).

// The launchers need the runtime (Cargo.toml lists this test with
// `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

use support::ptxas::resource_usage;

// ------------------------------------------------------------ kernels

/// (a) `x += 1` in place, one CTA of 256 threads per row: iteration `j` of
/// thread `t` covers `j + 256 * k` for `k < 4`, so each index is the
/// thread's rank modulo 256.
#[tile_kernel(grid = R, block = 256)]
fn add_one_unrolled_grid_stride(x: Tensor<f32, R, N>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let v = alloc_local::<f32>([1]);
    for j in (t..N).step_by(1024) {
        for k in 0..4 {
            let i = j + 256 * k;
            if i < N {
                apply(ptx["ld.global.f32"], v, x.slice(s![r, i..i + 1]));
                apply(ptx["add.rn.f32"], v, v, 1.0);
                apply(ptx["st.global.f32"], x.slice(s![r, i..i + 1]), v);
            }
        }
    }
}

/// (b) `b = a^T` through a padded 32x33 shared tile, as in the CUDA
/// samples' `transposeCoalesced`: thread `(tx, ty)` of a 32x8 block moves
/// rows `ty + 8 * k` of its CTA's 32x32 tile.
#[tile_kernel(grid = [ceil_div(W, 32), ceil_div(H, 32)], block = [32, 8])]
fn transpose_tiled(a: Tensor<f32, H, W>, b: Tensor<f32, W, H>) {
    let tx = thread_id(0);
    let ty = thread_id(1);
    let tile = alloc_shared::<f32>([32, 33]);
    let v = alloc_local::<f32>([1]);
    let col = cta_id(0) * 32 + tx;
    for k in 0..4 {
        let row = cta_id(1) * 32 + ty + 8 * k;
        if row < H && col < W {
            apply(ptx["ld.global.f32"], v, a.slice(s![row, col..col + 1]));
            apply(
                ptx["st.shared.f32"],
                tile.slice(s![ty + 8 * k, tx..tx + 1]),
                v,
            );
        }
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    let out_col = cta_id(1) * 32 + tx;
    for k in 0..4 {
        let out_row = cta_id(0) * 32 + ty + 8 * k;
        if out_row < W && out_col < H {
            apply(
                ptx["ld.shared.f32"],
                v,
                tile.slice(s![tx, ty + 8 * k..ty + 8 * k + 1]),
            );
            apply(
                ptx["st.global.f32"],
                b.slice(s![out_row, out_col..out_col + 1]),
                v,
            );
        }
    }
}

/// (c) Each lane of CTA `c` stores its 16 bytes of row `c` of `x` into a
/// `[16, 8]` buffer reshaped to `[32, 4]` (warp scope); after a barrier
/// lane `l` reads lane `31 - l`'s 16 bytes.
#[tile_kernel(grid = 4, block = 32)]
fn mirror_lanes_through_reshaped_shared(x: Tensor<u32, 4, 128>, y: Tensor<u32, 4, 128>) {
    let c = cta_id(0);
    let l = lane_id();
    let staged = alloc_shared::<u32>([16, 8]);
    let v = alloc_local::<u32>([32, 4], scope = "warp");
    let u = alloc_local::<u32>([4]);
    apply(
        ptx["ld.global.v4.u32"],
        v,
        x.slice(s![c, ..]).reshape([32, 4]),
        scope = "warp",
    );
    apply(
        ptx["st.shared.v4.b32"],
        staged.reshape([32, 4]),
        v,
        scope = "warp",
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(
        ptx["ld.shared.v4.b32"],
        u,
        staged.reshape([32, 4]).slice(s![31 - l, ..]),
    );
    apply(ptx["st.global.v4.u32"], y.slice(s![c, 4 * l..4 * l + 4]), u);
}

/// (c) The same through a `[32, 8]` u16 buffer seen as `[32, 4]` u32
/// (`view::<u32>()`), the shape `ldmatrix` tiles are staged in.
#[tile_kernel(grid = 4, block = 32)]
fn mirror_lanes_through_viewed_shared(x: Tensor<u32, 4, 128>, y: Tensor<u32, 4, 128>) {
    let c = cta_id(0);
    let l = lane_id();
    let staged = alloc_shared::<u16>([32, 8]);
    let v = alloc_local::<u32>([32, 4], scope = "warp");
    let u = alloc_local::<u32>([4]);
    apply(
        ptx["ld.global.v4.u32"],
        v,
        x.slice(s![c, ..]).reshape([32, 4]),
        scope = "warp",
    );
    apply(
        ptx["st.shared.v4.b32"],
        staged.view::<u32>(),
        v,
        scope = "warp",
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(
        ptx["ld.shared.v4.b32"],
        u,
        staged.slice(s![31 - l, ..]).view::<u32>(),
    );
    apply(ptx["st.global.v4.u32"], y.slice(s![c, 4 * l..4 * l + 4]), u);
}

/// (d) `z[i + 3] = x[i]`: every thread's element shifted by 3.
#[tile_kernel(grid = ceil_div(N, 256), block = 256)]
fn shift_by_three(x: Tensor<f32, N>, z: Tensor<f32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i + 3 < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["st.global.f32"], z.slice(s![i + 3..i + 4]), v);
    }
}

/// (d) `z[N - 1 - i] = x[i]`: every thread's element mirrored.
#[tile_kernel(grid = ceil_div(N, 256), block = 256)]
fn reverse_global(x: Tensor<f32, N>, z: Tensor<f32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["st.global.f32"], z.slice(s![N - 1 - i..N - i]), v);
    }
}

/// (e) `y[i] = x[i % N]` (`x` tiled over `y`); nothing when `N` is 0.
#[tile_kernel(grid = ceil_div(M, 256), block = 256)]
fn tile_by_remainder(x: Tensor<f32, N>, y: Tensor<f32, M>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if N >= 1 && i < M {
        let j = i % N;
        apply(ptx["ld.global.f32"], v, x.slice(s![j..j + 1]));
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// (f) Warp `thread_id(1)` of CTA `c` in a `[32, 2]` block: lane `l` moves
/// `[c, thread_id(1), l]`, xored with a constant.
#[tile_kernel(grid = 3, block = [32, 2])]
fn xor_rows_of_two_warps(x: Tensor<u32, 3, 2, 32, 1>, y: Tensor<u32, 3, 2, 32, 1>) {
    let c = cta_id(0);
    let w = thread_id(1);
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![c, w, .., ..]),
        scope = "warp",
    );
    apply(ptx["xor.b32"], v, v, 0x5a5a_5a5a, scope = "warp");
    apply(
        ptx["st.global.u32"],
        y.slice(s![c, w, .., ..]),
        v,
        scope = "warp",
    );
}

/// (g) `y = x + 1` by tiles of 16 rows x 32 columns, 4 tiles per CTA
/// along M: CTA `(x, y)` takes tile rows `y + G t`, `G` the grid's height,
/// unrolled over `t`; rows past M (a CTA's last tiles) are not stored.
#[tile_kernel(grid = [ceil_div(N, 32), ceil_div(M, 64), 1], block = 32)]
fn add_one_persistent_tiles(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let g = ceil_div(M, 64);
    let col = cta_id(0) * 32 + thread_id(0);
    let v = alloc_local::<f32>([1, 1]);
    for t in 0..4 {
        for r in 0..16 {
            let row = (cta_id(1) + g * t) * 16 + r;
            let inside = row < M && col < N;
            apply(
                ptx["ld.global.f32"],
                v,
                x.slice(s![row..row + 1, col..col + 1]),
                pred = inside,
            );
            ewise(|a: f32| a + 1.0, v, v);
            apply(
                ptx["st.global.f32"],
                y.slice(s![row..row + 1, col..col + 1]),
                v,
                pred = inside,
            );
        }
    }
}

/// (g) the same through one runtime loop over the CTA's 64 rows: ticket
/// `s` is row `s % 16` of tile `min(s / 16, 3)`.
#[tile_kernel(grid = [ceil_div(N, 32), ceil_div(M, 64), 1], block = 32)]
fn add_one_persistent_ticket_loop(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>, rows: u32) {
    let g = ceil_div(M, 64);
    let col = cta_id(0) * 32 + thread_id(0);
    let v = alloc_local::<f32>([1, 1]);
    let per_tile = min(rows, 16);
    if 0 < per_tile {
        for s in 0..4 * per_tile {
            let row = (cta_id(1) + g * min(s / per_tile, 3)) * 16 + s % per_tile;
            let inside = row < M && col < N;
            apply(
                ptx["ld.global.f32"],
                v,
                x.slice(s![row..row + 1, col..col + 1]),
                pred = inside,
            );
            ewise(|a: f32| a + 1.0, v, v);
            apply(
                ptx["st.global.f32"],
                y.slice(s![row..row + 1, col..col + 1]),
                v,
                pred = inside,
            );
        }
    }
}

/// (h) `y = x` by the low half of each of a CTA's two warps: lane `l < 16`
/// of warp `w` in CTA `c` copies element `32 c + 16 w + l`. The weight 16
/// of the warp is above the lane's largest value only under the
/// condition.
#[tile_kernel(grid = ceil_div(N, 32), block = 64)]
fn low_half_warps_copy(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let i = cta_id(0) * 32 + warp_id() * 16 + lane_id();
    let v = alloc_local::<f32>([1]);
    if lane_id() < 16 && i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// `.cta` atomics where each CTA has counters of its own: `sums[c, 0]` is
/// the (wrapping) sum of CTA `c`'s `x`, added by its threads with
/// `red.cta.global.add.u32`, and `sums[c, 2..4]` (a u64) counts them with
/// `red.cta.global.add.u64`: a second size on bytes no u32 atomic reaches.
#[tile_kernel(grid = 4, block = 256)]
fn cta_sums_with_cta_scoped_atomics(x: Tensor<u32, 1024>, sums: Tensor<u32, 4, 4>) {
    let c = cta_id(0);
    let i = c * 256 + thread_id(0);
    let v = alloc_local::<u32>([1]);
    let one = alloc_local::<u64>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]));
    apply(ptx["mov.u64"], one, 1);
    apply(ptx["red.cta.global.add.u32"], sums.slice(s![c, 0..1]), v);
    apply(
        ptx["red.cta.global.add.u64"],
        sums.slice(s![c, 2..4]).view::<u64>(),
        one,
    );
}

// ------------------------------------------------------------ host side

/// xorshift32 (Marsaglia), from a fixed seed.
struct XorShift(u32);

impl XorShift {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A finite f32 in [-1024, 1024) with a random mantissa.
    fn float(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 13) as f32 - 1024.0
    }
}

// ------------------------------------------------------------ devices

mod devices {
    //! On the CPU interpreter (`NAME::on_cpu`, always run) and the H200
    //! (`NAME::on_gpu`, ignored without a GPU; `--include-ignored` runs
    //! them), against host references.

    use tile_kernel::Result;
    use tile_kernel::prelude::*;

    use crate::support::gpu::on_both_devices;

    use super::{
        XorShift, add_one_persistent_ticket_loop, add_one_persistent_tiles,
        add_one_unrolled_grid_stride, cta_sums_with_cta_scoped_atomics, low_half_warps_copy,
        mirror_lanes_through_reshaped_shared, mirror_lanes_through_viewed_shared, reverse_global,
        shift_by_three, tile_by_remainder, transpose_tiled, xor_rows_of_two_warps,
    };

    on_both_devices!(
        unrolled_offsets_of_a_grid_stride_loop_touch_each_element_once,
        tiled_transpose_with_a_32x8_block_transposes,
        warp_stores_into_reshaped_shared_stay_per_lane,
        warp_stores_into_viewed_shared_stay_per_lane,
        shifted_index_stores_each_element_once,
        reversed_index_stores_each_element_once,
        remainder_index_tiles_the_input,
        warp_rows_ranked_by_thread_id_1_stay_per_warp,
        cta_scoped_atomics_sum_each_ctas_own_counters,
        persistent_tiles_add_one_to_each_element_once,
        low_half_warps_copy_each_element_once,
    );

    fn low_half_warps_copy_each_element_once(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x10f4_a1f5);
        for n in [1usize, 15, 16, 17, 32, 33, 100, 1000] {
            let host: Vec<f32> = (0..n).map(|_| rng.float()).collect();
            let x = dev.upload(&host, [n])?;
            let mut y = dev.zeros::<f32>([n])?;
            low_half_warps_copy(dev, &x, &mut y)?;
            let got: Vec<u32> = y.download()?.iter().map(|v| v.to_bits()).collect();
            let want: Vec<u32> = host.iter().map(|h| h.to_bits()).collect();
            assert_eq!(got, want, "N = {n}");
        }
        Ok(())
    }

    fn persistent_tiles_add_one_to_each_element_once(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x9e75_1575);
        // One tile; whole CTAs' worth; rows past M in the last tiles.
        for (m, n) in [(1usize, 1usize), (64, 32), (200, 40), (130, 70)] {
            let host: Vec<f32> = (0..m * n).map(|_| rng.float()).collect();
            let x = dev.upload(&host, [m, n])?;
            let want: Vec<u32> = host.iter().map(|h| (h + 1.0).to_bits()).collect();
            let mut y = dev.zeros::<f32>([m, n])?;
            add_one_persistent_tiles(dev, &x, &mut y)?;
            let got: Vec<u32> = y.download()?.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "{m}x{n}, unrolled tiles");
            let mut y = dev.zeros::<f32>([m, n])?;
            add_one_persistent_ticket_loop(dev, &x, &mut y, 16)?;
            let got: Vec<u32> = y.download()?.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want, "{m}x{n}, tickets of one loop");
        }
        Ok(())
    }

    fn unrolled_offsets_of_a_grid_stride_loop_touch_each_element_once(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x0a11_ce55);
        // Below one iteration, whole iterations, a ragged last one.
        for n in [1usize, 255, 256, 1024, 1500, 4097] {
            let rows = 3;
            let host: Vec<f32> = (0..rows * n).map(|_| rng.float()).collect();
            let mut x = dev.upload(&host, [rows, n])?;
            add_one_unrolled_grid_stride(dev, &mut x)?;
            let got = x.download()?;
            for (i, (g, h)) in got.iter().zip(&host).enumerate() {
                // Added once, not zero or two times.
                assert_eq!(g.to_bits(), (h + 1.0).to_bits(), "N = {n}, element {i}");
            }
        }
        Ok(())
    }

    fn tiled_transpose_with_a_32x8_block_transposes(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x7a45_0001);
        for (h, w) in [(1usize, 1usize), (32, 32), (8, 40), (33, 70), (96, 64)] {
            let host: Vec<f32> = (0..h * w).map(|_| f32::from_bits(rng.next())).collect();
            let a = dev.upload(&host, [h, w])?;
            let mut b = dev.zeros::<f32>([w, h])?;
            transpose_tiled(dev, &a, &mut b)?;
            let got = b.download()?;
            for r in 0..h {
                for c in 0..w {
                    assert_eq!(
                        got[c * h + r].to_bits(),
                        host[r * w + c].to_bits(),
                        "{h}x{w}: b[{c}][{r}]"
                    );
                }
            }
        }
        Ok(())
    }

    /// `y[c][4l + j] = x[c][4(31 - l) + j]`.
    fn mirrored_lanes(x: &[u32]) -> Vec<u32> {
        let mut y = vec![0; x.len()];
        for c in 0..4 {
            for l in 0..32 {
                for j in 0..4 {
                    y[c * 128 + 4 * l + j] = x[c * 128 + 4 * (31 - l) + j];
                }
            }
        }
        y
    }

    fn warp_stores_into_reshaped_shared_stay_per_lane(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x5a5a_0c01);
        let host: Vec<u32> = (0..512).map(|_| rng.next()).collect();
        let x = dev.upload(&host, [4, 128])?;
        let mut y = dev.zeros::<u32>([4, 128])?;
        mirror_lanes_through_reshaped_shared(dev, &x, &mut y)?;
        assert_eq!(y.download()?, mirrored_lanes(&host));
        Ok(())
    }

    fn warp_stores_into_viewed_shared_stay_per_lane(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x5a5a_0c02);
        let host: Vec<u32> = (0..512).map(|_| rng.next()).collect();
        let x = dev.upload(&host, [4, 128])?;
        let mut y = dev.zeros::<u32>([4, 128])?;
        mirror_lanes_through_viewed_shared(dev, &x, &mut y)?;
        assert_eq!(y.download()?, mirrored_lanes(&host));
        Ok(())
    }

    fn shifted_index_stores_each_element_once(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x5b1f_0003);
        for n in [1usize, 3, 4, 256, 259, 1000] {
            let host: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next())).collect();
            let untouched: Vec<f32> = (0..n).map(|i| -(i as f32) - 0.5).collect();
            let x = dev.upload(&host, [n])?;
            let mut z = dev.upload(&untouched, [n])?;
            shift_by_three(dev, &x, &mut z)?;
            let got = z.download()?;
            for i in 0..n {
                let want = if i >= 3 { host[i - 3] } else { untouched[i] };
                assert_eq!(got[i].to_bits(), want.to_bits(), "N = {n}, z[{i}]");
            }
        }
        Ok(())
    }

    fn reversed_index_stores_each_element_once(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x4e7e_0004);
        for n in [1usize, 2, 255, 256, 257, 1000] {
            let host: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next())).collect();
            let x = dev.upload(&host, [n])?;
            let mut z = dev.zeros::<f32>([n])?;
            reverse_global(dev, &x, &mut z)?;
            let got = z.download()?;
            for i in 0..n {
                assert_eq!(
                    got[i].to_bits(),
                    host[n - 1 - i].to_bits(),
                    "N = {n}, z[{i}]"
                );
            }
        }
        Ok(())
    }

    fn remainder_index_tiles_the_input(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x0e0e_0005);
        for (n, m) in [
            (1usize, 5usize),
            (3, 10),
            (256, 256),
            (7, 1000),
            (1000, 300),
        ] {
            let host: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next())).collect();
            let x = dev.upload(&host, [n])?;
            let mut y = dev.zeros::<f32>([m])?;
            tile_by_remainder(dev, &x, &mut y)?;
            let got = y.download()?;
            for i in 0..m {
                assert_eq!(got[i].to_bits(), host[i % n].to_bits(), "N = {n}, y[{i}]");
            }
        }
        // N = 0: the branch is not taken and `y` keeps its values.
        let x = dev.zeros::<f32>([0])?;
        let kept: Vec<f32> = (0..300).map(|i| i as f32).collect();
        let mut y = dev.upload(&kept, [300])?;
        tile_by_remainder(dev, &x, &mut y)?;
        assert_eq!(y.download()?, kept);
        Ok(())
    }

    fn warp_rows_ranked_by_thread_id_1_stay_per_warp(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0x32_0002);
        let host: Vec<u32> = (0..3 * 2 * 32).map(|_| rng.next()).collect();
        let x = dev.upload(&host, [3, 2, 32, 1])?;
        let mut y = dev.zeros::<u32>([3, 2, 32, 1])?;
        xor_rows_of_two_warps(dev, &x, &mut y)?;
        let want: Vec<u32> = host.iter().map(|v| v ^ 0x5a5a_5a5a).collect();
        assert_eq!(y.download()?, want);
        Ok(())
    }

    fn cta_scoped_atomics_sum_each_ctas_own_counters(dev: &Device) -> Result<()> {
        let mut rng = XorShift(0xc7a0_0006);
        let host: Vec<u32> = (0..1024).map(|_| rng.next()).collect();
        let start: Vec<u32> = (0..16).map(|_| rng.next() >> 8).collect();
        let x = dev.upload(&host, [1024])?;
        let mut sums = dev.upload(&start, [4, 4])?;
        cta_sums_with_cta_scoped_atomics(dev, &x, &mut sums)?;
        let got = sums.download()?;
        for c in 0..4 {
            let total = host[c * 256..c * 256 + 256]
                .iter()
                .fold(start[c * 4], |acc, v| acc.wrapping_add(*v));
            let count = (u64::from(start[c * 4 + 2]) | u64::from(start[c * 4 + 3]) << 32) + 256;
            let want = [total, start[c * 4 + 1], count as u32, (count >> 32) as u32];
            assert_eq!(got[c * 4..c * 4 + 4], want, "CTA {c}");
        }
        Ok(())
    }
}

// ------------------------------------------------------------ ptxas

#[test]
fn race_pattern_kernels_assemble_without_spills() {
    for (name, ptx) in [
        (
            "add_one_unrolled_grid_stride",
            add_one_unrolled_grid_stride::PTX,
        ),
        ("transpose_tiled", transpose_tiled::PTX),
        (
            "mirror_lanes_through_reshaped_shared",
            mirror_lanes_through_reshaped_shared::PTX,
        ),
        (
            "mirror_lanes_through_viewed_shared",
            mirror_lanes_through_viewed_shared::PTX,
        ),
        ("shift_by_three", shift_by_three::PTX),
        ("reverse_global", reverse_global::PTX),
        ("tile_by_remainder", tile_by_remainder::PTX),
        ("xor_rows_of_two_warps", xor_rows_of_two_warps::PTX),
        ("add_one_persistent_tiles", add_one_persistent_tiles::PTX),
        (
            "add_one_persistent_ticket_loop",
            add_one_persistent_ticket_loop::PTX,
        ),
        (
            "cta_sums_with_cta_scoped_atomics",
            cta_sums_with_cta_scoped_atomics::PTX,
        ),
        ("low_half_warps_copy", low_half_warps_copy::PTX),
    ] {
        let report = resource_usage(ptx, "sm_90");
        assert!(
            report.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{name} spills:\n{report}"
        );
        assert!(
            report.contains("Used "),
            "{name}: no usage line in\n{report}"
        );
    }
}

/// A PTX line's instruction without its `@p` / `@!p` guard.
fn guarded_instruction(line: &str) -> &str {
    let line = line.trim_start();
    match line.strip_prefix('@') {
        Some(guarded) => guarded.split_once(' ').map_or("", |(_, rest)| rest),
        None => line,
    }
}

/// `i % N` is computed only where `N >= 1` holds: after the branch of that
/// condition (a remainder by 0 is never evaluated).
#[test]
fn remainder_is_computed_inside_its_branch() {
    let ptx = tile_by_remainder::PTX;
    // The first remainder instruction, guarded or not (a runtime divisor
    // divides in 32 bits under a predicate where the values fit).
    let rem = ptx
        .lines()
        .position(|l| guarded_instruction(l).starts_with("rem."))
        .unwrap_or_else(|| panic!("no rem in\n{ptx}"));
    let branch = ptx
        .lines()
        .position(|l| l.contains("bra"))
        .unwrap_or_else(|| panic!("no branch in\n{ptx}"));
    assert!(
        branch < rem,
        "the remainder is computed before the branch that proves N >= 1:\n{ptx}"
    );
}
