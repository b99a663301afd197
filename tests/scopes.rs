//! Scopes, warp collectives, shared memory and CTA barriers.
//!
//! - **Semantic twins** (`on_both_devices!`): one kernel per collective
//!   family (`redux.sync`, `shfl.sync` with and without `|p`, `vote.sync`,
//!   `match.sync`, `activemask` and `elect.sync`) and three shared-memory
//!   kernels (a reversal through `st.shared`/`bar.sync`/`ld.shared`,
//!   `bar.red`, `atom.shared.add`), each over several warps and CTAs, on
//!   inputs with structure from the test kit's fixed-seed PRNG. The expected values
//!   are computed here on the host from the PTX ISA's definitions, never
//!   from the interpreter.
//! - **Goldens and ptxas**: the quantizers and dequantizers of
//!   `examples/common/quantize.rs` and `row_sumsq` of
//!   `examples/common/reduce.rs`: their PTX pinned by goldens, assembled by
//!   ptxas without spills, and the lines that carry the scope model
//!   (member mask, barrier, shared buffer) asserted exactly.

// The launchers need the runtime (Cargo.toml lists the other such tests
// with `required-features = ["runtime"]`).
#![cfg(feature = "runtime")]

mod support;

#[path = "../examples/common/quantize.rs"]
#[allow(dead_code)]
mod quantize;

#[path = "../examples/common/reduce.rs"]
#[allow(dead_code)]
mod reduce;

use tile_kernel::prelude::*;
use tile_kernel_testkit::Rng;

use support::golden::golden;
use support::ptxas::resource_usage;

// ------------------------------------------------------------ kernels

// The warp kernels: 3 CTAs of 4 warps, warp `w = 4 * cta + warp_id()` of
// the grid on row `w` of its tensors; lane `l` on `[w, l, ..]`.
//
// The outputs have a trailing axis of 1 (`[12, 32, cols, 1]`, lane `l`
// storing `cols` scalars); the same store through
// `out.slice(s![w, .., ..]).unsqueeze(-1)` of a `[12, 32, cols]` tensor
// compiles too since the race rule separates threads on the flat byte
// offset (tests/races.rs).

/// Every `redux.sync` variant over the lanes' `x`, in columns
/// add.u32, min.u32, max.u32, add.s32, min.s32, max.s32, and, or, xor.
#[tile_kernel(grid = 3, block = 128)]
fn redux_all(x: Tensor<u32, 12, 32, 1>, out: Tensor<u32, 12, 32, 9, 1>) {
    let w = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let r = alloc_local::<u32>([32, 9], scope = "warp");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![w, .., ..]),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.add.u32"],
        r.slice(s![.., 0..1]),
        v,
        scope = "warp",
    );
    apply(
        ptx["redux.sync.min.u32"],
        r.slice(s![.., 1..2]),
        v,
        scope = "warp",
    );
    apply(
        ptx["redux.sync.max.u32"],
        r.slice(s![.., 2..3]),
        v,
        scope = "warp",
    );
    apply(
        ptx["redux.sync.add.s32"],
        r.slice(s![.., 3..4]).view::<i32>(),
        v.view::<i32>(),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.min.s32"],
        r.slice(s![.., 4..5]).view::<i32>(),
        v.view::<i32>(),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.max.s32"],
        r.slice(s![.., 5..6]).view::<i32>(),
        v.view::<i32>(),
        scope = "warp",
    );
    apply(
        ptx["redux.sync.and.b32"],
        r.slice(s![.., 6..7]),
        v,
        scope = "warp",
    );
    apply(
        ptx["redux.sync.or.b32"],
        r.slice(s![.., 7..8]),
        v,
        scope = "warp",
    );
    apply(
        ptx["redux.sync.xor.b32"],
        r.slice(s![.., 8..9]),
        v,
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, .., .., ..]),
        r.unsqueeze(-1),
        scope = "warp",
    );
}

/// The `shfl.sync` cases of [`SHFL_CASES`] in the columns of `out` (case
/// 10 takes its source lane from the data: `x >> 27`), and the `d|p` cases
/// of [`SHFL_PRED_CASES`] in `pd` (the value) and `pp` (`p` as 0 or 1).
#[tile_kernel(grid = 3, block = 128)]
fn shuffles(
    x: Tensor<u32, 12, 32, 1>,
    out: Tensor<u32, 12, 32, 18, 1>,
    pd: Tensor<u32, 12, 32, 6, 1>,
    pp: Tensor<u32, 12, 32, 6, 1>,
) {
    let w = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let src = alloc_local::<u32>([32, 1], scope = "warp");
    let r = alloc_local::<u32>([32, 18], scope = "warp");
    let d = alloc_local::<u32>([32, 6], scope = "warp");
    let p = alloc_local::<bool>([32, 6], scope = "warp");
    let f = alloc_local::<u32>([32, 6], scope = "warp");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![w, .., ..]),
        scope = "warp",
    );
    apply(ptx["shr.b32"], src, v, 27, scope = "warp");
    apply(
        ptx["shfl.sync.up.b32"],
        r.slice(s![.., 0..1]),
        v,
        1,
        0,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.up.b32"],
        r.slice(s![.., 1..2]),
        v,
        5,
        0,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.up.b32"],
        r.slice(s![.., 2..3]),
        v,
        31,
        0,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        r.slice(s![.., 3..4]),
        v,
        1,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        r.slice(s![.., 4..5]),
        v,
        7,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        r.slice(s![.., 5..6]),
        v,
        1,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        r.slice(s![.., 6..7]),
        v,
        16,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        r.slice(s![.., 7..8]),
        v,
        13,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        r.slice(s![.., 8..9]),
        v,
        0,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        r.slice(s![.., 9..10]),
        v,
        29,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        r.slice(s![.., 10..11]),
        v,
        src,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        r.slice(s![.., 11..12]),
        v,
        3,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        r.slice(s![.., 12..13]),
        v,
        8,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        r.slice(s![.., 13..14]),
        v,
        3,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.up.b32"],
        r.slice(s![.., 14..15]),
        v,
        2,
        0x1800,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        r.slice(s![.., 15..16]),
        v,
        13,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        r.slice(s![.., 16..17]),
        v,
        2,
        0x0f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        r.slice(s![.., 17..18]),
        v,
        6,
        0x1c1f,
        scope = "warp",
    );
    // The `d|p` form: p = whether the source lane was in range.
    apply(
        ptx["shfl.sync.up.b32"],
        d.slice(s![.., 0..1]),
        p.slice(s![.., 0..1]),
        v,
        5,
        0,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        d.slice(s![.., 1..2]),
        p.slice(s![.., 1..2]),
        v,
        7,
        0x1f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.bfly.b32"],
        d.slice(s![.., 2..3]),
        p.slice(s![.., 2..3]),
        v,
        8,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.down.b32"],
        d.slice(s![.., 3..4]),
        p.slice(s![.., 3..4]),
        v,
        2,
        0x0f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.idx.b32"],
        d.slice(s![.., 4..5]),
        p.slice(s![.., 4..5]),
        v,
        13,
        0x181f,
        scope = "warp",
    );
    apply(
        ptx["shfl.sync.up.b32"],
        d.slice(s![.., 5..6]),
        p.slice(s![.., 5..6]),
        v,
        2,
        0x1800,
        scope = "warp",
    );
    apply(
        ptx["selp.u32"],
        f.unsqueeze(-1),
        1,
        0,
        p.unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, .., .., ..]),
        r.unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        pd.slice(s![w, .., .., ..]),
        d.unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        pp.slice(s![w, .., .., ..]),
        f.unsqueeze(-1),
        scope = "warp",
    );
}

/// `a = x < 2^31` per lane; columns: a, vote.all, vote.any, vote.uni (as 0
/// or 1) and vote.ballot.
#[tile_kernel(grid = 3, block = 128)]
fn votes(x: Tensor<u32, 12, 32, 1>, out: Tensor<u32, 12, 32, 5, 1>) {
    let w = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let a = alloc_local::<bool>([32, 1], scope = "warp");
    let q = alloc_local::<bool>([32, 3], scope = "warp");
    let r = alloc_local::<u32>([32, 5], scope = "warp");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![w, .., ..]),
        scope = "warp",
    );
    apply(ptx["setp.lt.u32"], a, v, 0x8000_0000, scope = "warp");
    apply(
        ptx["vote.sync.all.pred"],
        q.slice(s![.., 0..1]),
        a,
        scope = "warp",
    );
    apply(
        ptx["vote.sync.any.pred"],
        q.slice(s![.., 1..2]),
        a,
        scope = "warp",
    );
    apply(
        ptx["vote.sync.uni.pred"],
        q.slice(s![.., 2..3]),
        a,
        scope = "warp",
    );
    apply(
        ptx["vote.sync.ballot.b32"],
        r.slice(s![.., 4..5]),
        a,
        scope = "warp",
    );
    apply(
        ptx["selp.u32"],
        r.slice(s![.., 0..1]),
        1,
        0,
        a,
        scope = "warp",
    );
    apply(
        ptx["selp.u32"],
        r.slice(s![.., 1..4]).unsqueeze(-1),
        1,
        0,
        q.unsqueeze(-1),
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, .., .., ..]),
        r.unsqueeze(-1),
        scope = "warp",
    );
}

/// Columns: match.any, match.all (plain), match.all `d|p`'s d and p (0 or 1).
#[tile_kernel(grid = 3, block = 128)]
fn matches(x: Tensor<u32, 12, 32, 1>, out: Tensor<u32, 12, 32, 4, 1>) {
    let w = cta_id(0) * 4 + warp_id();
    let v = alloc_local::<u32>([32, 1], scope = "warp");
    let p = alloc_local::<bool>([32, 1], scope = "warp");
    let r = alloc_local::<u32>([32, 4], scope = "warp");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![w, .., ..]),
        scope = "warp",
    );
    apply(
        ptx["match.any.sync.b32"],
        r.slice(s![.., 0..1]),
        v,
        scope = "warp",
    );
    apply(
        ptx["match.all.sync.b32"],
        r.slice(s![.., 1..2]),
        v,
        scope = "warp",
    );
    apply(
        ptx["match.all.sync.b32"],
        r.slice(s![.., 2..3]),
        p,
        v,
        scope = "warp",
    );
    apply(
        ptx["selp.u32"],
        r.slice(s![.., 3..4]),
        1,
        0,
        p,
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, .., .., ..]),
        r.unsqueeze(-1),
        scope = "warp",
    );
}

/// Columns: activemask, elect.sync's d (the elected lane) and p (0 or 1).
#[tile_kernel(grid = 3, block = 128)]
fn active_and_elect(out: Tensor<u32, 12, 32, 3, 1>) {
    let w = cta_id(0) * 4 + warp_id();
    let r = alloc_local::<u32>([32, 3], scope = "warp");
    let p = alloc_local::<bool>([32, 1], scope = "warp");
    apply(ptx["activemask.b32"], r.slice(s![.., 0..1]), scope = "warp");
    apply(ptx["elect.sync"], r.slice(s![.., 1..2]), p, scope = "warp");
    apply(
        ptx["selp.u32"],
        r.slice(s![.., 2..3]),
        1,
        0,
        p,
        scope = "warp",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![w, .., .., ..]),
        r.unsqueeze(-1),
        scope = "warp",
    );
}

/// Warpgroup tiles in blocks of two warpgroups: warpgroup `g` of the grid
/// (`cta_id(0) * 2 + warp_id() / 4`) copies its 128 rows of `x[g]` through
/// a warpgroup tile (each thread its row, by its rank in the warpgroup),
/// and each thread writes its lane into column 2 of its own row through
/// the explicit part `[warp_id() % 4, lane_id()]` of a `[4, 32, 1]` tile.
#[tile_kernel(grid = 3, block = 256)]
fn warpgroup_rows(x: Tensor<u32, 6, 128, 2>, out: Tensor<u32, 6, 128, 4>) {
    let g = cta_id(0) * 2 + warp_id() / 4;
    let r = (warp_id() % 4) * 32 + lane_id();
    let m = alloc_local::<u32>([128, 2], scope = "warpgroup");
    apply(
        ptx["ld.global.v2.u32"],
        m,
        x.slice(s![g, .., ..]),
        scope = "warpgroup",
    );
    apply(
        ptx["st.global.v2.u32"],
        out.slice(s![g, .., 0..2]),
        m,
        scope = "warpgroup",
    );
    let w = alloc_local::<u32>([4, 32, 1], scope = "warpgroup");
    apply(
        ptx["mov.u32"],
        w.slice(s![warp_id() % 4, lane_id(), ..]),
        sreg("%laneid"),
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![g, r, 2..3]),
        w.slice(s![warp_id() % 4, lane_id(), ..]),
    );
}

// The shared-memory kernels: 3 CTAs of 256 threads (4 for `bar.red`).

/// `y[256c + t] = x[256c + 255 - t]`: each thread writes its slot of a
/// shared buffer, a barrier, then reads the mirrored slot.
#[tile_kernel(grid = 3, block = 256)]
fn reverse_through_shared(x: Tensor<u32, 768>, y: Tensor<u32, 768>) {
    let t = thread_id(0);
    let i = cta_id(0) * 256 + t;
    let slots = alloc_shared::<u32>([256]);
    let v = alloc_local::<u32>([1]);
    let u = alloc_local::<u32>([1]);
    apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]));
    apply(ptx["st.shared.u32"], slots.slice(s![t..t + 1]), v);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.shared.u32"], u, slots.slice(s![255 - t..256 - t]));
    apply(ptx["st.global.u32"], y.slice(s![i..i + 1]), u);
}

/// `y[r, j] = x[r, C - 1 - j]`: one CTA per row stages the row in a shared
/// buffer sized at launch (`C` f32: dynamic shared memory, above 48 KiB
/// for `C > 12288`), then reads it back mirrored after a barrier.
#[tile_kernel(grid = R, block = 256)]
fn reverse_rows_in_dynamic_shared(x: Tensor<f32, R, C>, y: Tensor<f32, R, C>) {
    let t = thread_id(0);
    let r = cta_id(0);
    let row = alloc_shared::<f32>([C]);
    let v = alloc_local::<f32>([1]);
    for j in (t..C).step_by(256) {
        apply(ptx["ld.global.f32"], v, x.slice(s![r, j..j + 1]));
        apply(ptx["st.shared.f32"], row.slice(s![j..j + 1]), v);
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for j in (t..C).step_by(256) {
        apply(ptx["ld.shared.f32"], v, row.slice(s![C - 1 - j..C - j]));
        apply(ptx["st.global.f32"], y.slice(s![r, j..j + 1]), v);
    }
}

/// `y[i] = x[N - 1 - i]` by one CTA of 256 threads, thread `t` taking
/// elements `j * 256 + t` (a cyclic distribution) of the tensors and of a
/// shared buffer of N f32.
#[tile_kernel(grid = 1, block = 256)]
fn reverse_cyclic(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let t = thread_id(0);
    let buf = alloc_shared::<f32>([N]);
    let v = alloc_local::<f32>([1]);
    for j in 0..(N + 255) / 256 {
        let i = j * 256 + t;
        if i < N {
            apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
            apply(ptx["st.shared.f32"], buf.slice(s![i..i + 1]), v);
        }
    }
    apply(ptx["bar.sync"], 0, scope = "cta");
    for j in 0..(N + 255) / 256 {
        let i = j * 256 + t;
        if i < N {
            apply(ptx["ld.shared.f32"], v, buf.slice(s![N - 1 - i..N - i]));
            apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
        }
    }
}

/// `y = x + 1` in pairs: thread `t` of 2 CTAs of 128 takes pairs
/// `j * 256 + cta_id(0) * 128 + t` (a cyclic distribution over the grid,
/// two elements per index: `c = 2` in the race rule's terms).
#[tile_kernel(grid = 2, block = 128)]
fn add_one_cyclic_pairs(x: Tensor<f32, { 2 * N }>, y: Tensor<f32, { 2 * N }>) {
    let v = alloc_local::<f32>([2]);
    for j in 0..(N + 255) / 256 {
        let i = j * 256 + cta_id(0) * 128 + thread_id(0);
        if i < N {
            apply(ptx["ld.global.v2.f32"], v, x.slice(s![2 * i..2 * i + 2]));
            apply(ptx["add.rn.f32"], v.unsqueeze(-1), v.unsqueeze(-1), 1.0);
            apply(ptx["st.global.v2.f32"], y.slice(s![2 * i..2 * i + 2]), v);
        }
    }
}

/// `%dynamic_smem_size` and `%total_smem_size` of a CTA with a dynamic
/// buffer of `N` f32 beside a static one of 5 u32 (20 bytes); the buffers
/// are touched so that ptxas keeps them.
#[tile_kernel(grid = 1, block = 32)]
fn shared_size_registers(x: Tensor<f32, N>, out: Tensor<u32, 32, 2>) {
    let t = thread_id(0);
    let dynamic = alloc_shared::<f32>([N]);
    let fixed = alloc_shared::<u32>([5]);
    let v = alloc_local::<f32>([1]);
    let sizes = alloc_local::<u32>([2]);
    let first = t == 0 && N > 0;
    apply(ptx["ld.global.f32"], v, x.slice(s![0..1]), pred = first);
    apply(
        ptx["st.shared.f32"],
        dynamic.slice(s![0..1]),
        v,
        pred = first,
    );
    apply(
        ptx["mov.u32"],
        sizes.slice(s![0..1]),
        sreg("%dynamic_smem_size"),
    );
    apply(
        ptx["mov.u32"],
        sizes.slice(s![1..2]),
        sreg("%total_smem_size"),
    );
    apply(
        ptx["st.shared.u32"],
        fixed.slice(s![0..1]),
        sizes.slice(s![0..1]),
        pred = t == 0,
    );
    apply(ptx["st.global.v2.u32"], out.slice(s![t, ..]), sizes);
}

/// `shared_size_registers` with a static buffer of 12,289 u32 (49,156
/// bytes, over the 48 KiB a kernel may declare): it lives in the dynamic
/// shared memory with the dynamic buffer after it, at byte 49,280.
#[tile_kernel(grid = 1, block = 32)]
fn shared_size_registers_past_48_kib(x: Tensor<f32, N>, out: Tensor<u32, 32, 2>) {
    let t = thread_id(0);
    let fixed = alloc_shared::<u32>([12289]);
    let dynamic = alloc_shared::<f32>([N]);
    let v = alloc_local::<f32>([1]);
    let sizes = alloc_local::<u32>([2]);
    let first = t == 0 && N > 0;
    apply(ptx["ld.global.f32"], v, x.slice(s![0..1]), pred = first);
    apply(
        ptx["st.shared.f32"],
        dynamic.slice(s![0..1]),
        v,
        pred = first,
    );
    apply(
        ptx["mov.u32"],
        sizes.slice(s![0..1]),
        sreg("%dynamic_smem_size"),
    );
    apply(
        ptx["mov.u32"],
        sizes.slice(s![1..2]),
        sreg("%total_smem_size"),
    );
    apply(
        ptx["st.shared.u32"],
        fixed.slice(s![12288..12289]),
        sizes.slice(s![0..1]),
        pred = t == 0,
    );
    apply(ptx["st.global.v2.u32"], out.slice(s![t, ..]), sizes);
}

/// `a = x < 2^30` per thread; columns: bar.red.popc, bar.red.and, bar.red.or
/// (as 0 or 1), all over the thread's CTA.
#[tile_kernel(grid = 4, block = 256)]
fn barrier_reductions(x: Tensor<u32, 4, 256, 1>, out: Tensor<u32, 4, 256, 3, 1>) {
    let c = cta_id(0);
    let v = alloc_local::<u32>([256, 1], scope = "cta");
    let a = alloc_local::<bool>([256, 1], scope = "cta");
    let q = alloc_local::<bool>([256, 2], scope = "cta");
    let r = alloc_local::<u32>([256, 3], scope = "cta");
    apply(
        ptx["ld.global.u32"],
        v,
        x.slice(s![c, .., ..]),
        scope = "cta",
    );
    apply(ptx["setp.lt.u32"], a, v, 0x4000_0000, scope = "cta");
    apply(
        ptx["bar.red.popc.u32"],
        r.slice(s![.., 0..1]),
        0,
        a,
        scope = "cta",
    );
    apply(
        ptx["bar.red.and.pred"],
        q.slice(s![.., 0..1]),
        0,
        a,
        scope = "cta",
    );
    apply(
        ptx["bar.red.or.pred"],
        q.slice(s![.., 1..2]),
        0,
        a,
        scope = "cta",
    );
    apply(
        ptx["selp.u32"],
        r.slice(s![.., 1..3]).unsqueeze(-1),
        1,
        0,
        q.unsqueeze(-1),
        scope = "cta",
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![c, .., .., ..]),
        r.unsqueeze(-1),
        scope = "cta",
    );
}

/// Every thread adds its `x` to one shared counter with
/// `atom.shared.add.u32` (its old value to `old`); after a barrier thread 0
/// stores the CTA's total.
#[tile_kernel(grid = 3, block = 256)]
fn atomic_sum_in_shared(x: Tensor<u32, 768>, old: Tensor<u32, 768>, sums: Tensor<u32, 3>) {
    let t = thread_id(0);
    let c = cta_id(0);
    let i = c * 256 + t;
    let total = alloc_shared::<u32>([1]);
    let zero = alloc_local::<u32>([1]);
    let v = alloc_local::<u32>([1]);
    let o = alloc_local::<u32>([1]);
    let s = alloc_local::<u32>([1]);
    apply(ptx["mov.u32"], zero, 0);
    apply(
        ptx["st.shared.u32"],
        total.slice(s![0..1]),
        zero,
        pred = t == 0,
    );
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]));
    apply(ptx["atom.shared.add.u32"], o, total.slice(s![0..1]), v);
    apply(ptx["bar.sync"], 0, scope = "cta");
    apply(ptx["st.global.u32"], old.slice(s![i..i + 1]), o);
    apply(ptx["mov.u32"], s, 0);
    apply(
        ptx["ld.shared.u32"],
        s,
        total.slice(s![0..1]),
        pred = t == 0,
        preserve_dst = true,
    );
    apply(
        ptx["st.global.u32"],
        sums.slice(s![c..c + 1]),
        s,
        pred = t == 0,
    );
}

// ------------------------------------------------------------ host side

/// Warps of the warp kernels, and lanes in all.
const WARPS: usize = 12;
const LANES: usize = WARPS * 32;

/// One u32 per lane of [`WARPS`] warps, with structure by warp `w % 4`:
/// 0 random; 1 drawn from 3 values (groups for `match.any`); 2 one value
/// for the whole warp; 3 random, but lanes of equal `l / 8` share a value.
fn warp_inputs(seed: u32) -> Vec<u32> {
    let mut rng = Rng::new(u64::from(seed));
    let mut x = Vec::with_capacity(LANES);
    for w in 0..WARPS {
        let choices = [rng.next_u32(), rng.next_u32(), rng.next_u32()];
        let shared = rng.next_u32();
        let quarters = [
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
        ];
        for lane in 0..32 {
            x.push(match w % 4 {
                0 => rng.next_u32(),
                1 => choices[rng.next_u32() as usize % 3],
                2 => shared,
                _ => quarters[lane / 8],
            });
        }
    }
    x
}

/// The 32 values of warp `w`.
fn warp(x: &[u32], w: usize) -> &[u32] {
    &x[w * 32..w * 32 + 32]
}

/// `out[w, lane, k, 0]` of a `[12, 32, cols, 1]` result.
fn at(out: &[u32], cols: usize, w: usize, lane: usize, k: usize) -> u32 {
    out[(w * 32 + lane) * cols + k]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// Where `b` comes from: a constant, or the lane's `x >> 27`.
#[derive(Debug, Clone, Copy)]
enum Lane {
    Const(u32),
    FromData,
}

/// The columns of `shuffles`' `out`: mode, b, c.
const SHFL_CASES: [(Mode, Lane, u32); 18] = [
    (Mode::Up, Lane::Const(1), 0),
    (Mode::Up, Lane::Const(5), 0),
    (Mode::Up, Lane::Const(31), 0),
    (Mode::Down, Lane::Const(1), 0x1f),
    (Mode::Down, Lane::Const(7), 0x1f),
    (Mode::Bfly, Lane::Const(1), 0x1f),
    (Mode::Bfly, Lane::Const(16), 0x1f),
    (Mode::Bfly, Lane::Const(13), 0x1f),
    (Mode::Idx, Lane::Const(0), 0x1f),
    (Mode::Idx, Lane::Const(29), 0x1f),
    (Mode::Idx, Lane::FromData, 0x1f),
    // Segments of 8 lanes: c = ((32 - 8) << 8) | 0x1f (0 for `up`).
    (Mode::Bfly, Lane::Const(3), 0x181f),
    (Mode::Bfly, Lane::Const(8), 0x181f),
    (Mode::Down, Lane::Const(3), 0x181f),
    (Mode::Up, Lane::Const(2), 0x1800),
    (Mode::Idx, Lane::Const(13), 0x181f),
    // A clamp below the warp (no segments): lanes up to 15.
    (Mode::Down, Lane::Const(2), 0x0f),
    // Segments of 4 lanes.
    (Mode::Idx, Lane::Const(6), 0x1c1f),
];

/// The `d|p` cases of `shuffles`.
const SHFL_PRED_CASES: [(Mode, u32, u32); 6] = [
    (Mode::Up, 5, 0),
    (Mode::Down, 7, 0x1f),
    (Mode::Bfly, 8, 0x181f),
    (Mode::Down, 2, 0x0f),
    (Mode::Idx, 13, 0x181f),
    (Mode::Up, 2, 0x1800),
];

/// PTX ISA, `shfl.sync`: the lane `lane` reads from and whether that lane
/// was in range (`p`); out of range it reads its own value.
///
/// ```text
/// bval = b[4:0]; cval = c[4:0]; segmask = c[12:8];
/// maxLane = (lane & segmask) | (cval & ~segmask); minLane = lane & segmask;
/// up:   j = lane - bval; pval = (j >= maxLane)
/// down: j = lane + bval; pval = (j <= maxLane)
/// bfly: j = lane ^ bval; pval = (j <= maxLane)
/// idx:  j = minLane | (bval & ~segmask); pval = (j <= maxLane)
/// if (!pval) j = lane;
/// ```
fn shfl_source(mode: Mode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let bval = b & 0x1f;
    let cval = c & 0x1f;
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (cval & !segmask & 0x1f);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        Mode::Up => {
            let j = i64::from(lane) - i64::from(bval);
            (j, j >= i64::from(max_lane))
        }
        Mode::Down => {
            let j = i64::from(lane + bval);
            (j, j <= i64::from(max_lane))
        }
        Mode::Bfly => {
            let j = i64::from(lane ^ bval);
            (j, j <= i64::from(max_lane))
        }
        Mode::Idx => {
            let j = i64::from(min_lane | (bval & !segmask & 0x1f));
            (j, j <= i64::from(max_lane))
        }
    };
    if pval {
        (u32::try_from(j).expect("an in-range lane"), true)
    } else {
        (lane, false)
    }
}

#[test]
fn shfl_reference_agrees_with_cuda_width_semantics() {
    // The CUDA `__shfl_*_sync(mask, v, b, width)` rules, stated by width
    // (CUDA C++ Programming Guide, "Warp Shuffle Functions"): the
    // reference above must give the same source lanes for c built as
    // `((32 - width) << 8) | 0x1f` (`up`: without the 0x1f).
    for width in [1u32, 2, 4, 8, 16, 32] {
        let seg = (32 - width) << 8;
        for b in 0..32u32 {
            for lane in 0..32u32 {
                let base = lane / width * width;
                // idx: lane b % width of the segment.
                assert_eq!(
                    shfl_source(Mode::Idx, lane, b, seg | 0x1f),
                    (base + b % width, true),
                    "idx width {width} b {b} lane {lane}"
                );
                // up: lane - b if still in the segment.
                let up = lane.checked_sub(b).filter(|&j| j >= base);
                assert_eq!(
                    shfl_source(Mode::Up, lane, b, seg),
                    (up.unwrap_or(lane), up.is_some()),
                    "up width {width} b {b} lane {lane}"
                );
                // down: lane + b if still in the segment.
                let down = Some(lane + b).filter(|&j| j < base + width);
                assert_eq!(
                    shfl_source(Mode::Down, lane, b, seg | 0x1f),
                    (down.unwrap_or(lane), down.is_some()),
                    "down width {width} b {b} lane {lane}"
                );
                // xor: lane ^ b unless that is in a later segment.
                let xor = Some(lane ^ b).filter(|&j| j < base + width);
                assert_eq!(
                    shfl_source(Mode::Bfly, lane, b, seg | 0x1f),
                    (xor.unwrap_or(lane), xor.is_some()),
                    "bfly width {width} b {b} lane {lane}"
                );
            }
        }
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
    use tile_kernel_testkit::Rng;

    use super::{
        LANES, Lane, SHFL_CASES, SHFL_PRED_CASES, WARPS, active_and_elect, add_one_cyclic_pairs,
        at, atomic_sum_in_shared, barrier_reductions, matches, redux_all, reverse_cyclic,
        reverse_rows_in_dynamic_shared, reverse_through_shared, shared_size_registers,
        shared_size_registers_past_48_kib, shfl_source, shuffles, votes, warp, warp_inputs,
        warpgroup_rows,
    };

    on_both_devices!(
        redux_gives_every_lane_the_warps_reduction,
        shfl_moves_values_between_lanes_by_mode_lane_and_clamp,
        vote_combines_a_per_lane_predicate,
        match_finds_the_lanes_with_equal_values,
        activemask_is_the_full_warp_and_elect_picks_one_lane,
        shared_buffer_reverses_a_cta_across_a_barrier,
        bar_red_counts_and_combines_a_cta_predicate,
        atom_shared_add_sums_a_cta_into_one_element,
        dynamic_shared_buffer_is_sized_at_launch_beyond_48_kib,
        shared_size_registers_count_the_dynamic_bytes,
        static_buffers_past_48_kib_count_as_dynamic_bytes,
        cyclic_distribution_reverses_through_dynamic_shared,
        cyclic_pairs_cover_the_tensor_once,
        warpgroup_tiles_bind_rows_in_blocks_of_two_warpgroups,
    );

    fn redux_gives_every_lane_the_warps_reduction(dev: &Device) -> Result<()> {
        let x = warp_inputs(0x2545_f491);
        let input = dev.upload(&x, [WARPS, 32, 1])?;
        let mut out = dev.zeros::<u32>([WARPS, 32, 9, 1])?;
        redux_all(dev, &input, &mut out)?;
        let got = out.download()?;
        for w in 0..WARPS {
            let v = warp(&x, w);
            let s = || v.iter().map(|&e| e as i32);
            let want = [
                v.iter().fold(0u32, |a, &e| a.wrapping_add(e)),
                *v.iter().min().unwrap(),
                *v.iter().max().unwrap(),
                s().fold(0i32, i32::wrapping_add) as u32,
                s().min().unwrap() as u32,
                s().max().unwrap() as u32,
                v.iter().fold(!0u32, |a, &e| a & e),
                v.iter().fold(0u32, |a, &e| a | e),
                v.iter().fold(0u32, |a, &e| a ^ e),
            ];
            for lane in 0..32 {
                for (k, want) in want.iter().enumerate() {
                    assert_eq!(
                        at(&got, 9, w, lane, k),
                        *want,
                        "warp {w} lane {lane} column {k}"
                    );
                }
            }
        }
        // The inputs reach every case: signed and unsigned orders differ,
        // and the bitwise reductions are neither 0 nor all ones everywhere.
        assert!((0..WARPS).any(|w| at(&got, 9, w, 0, 1) != at(&got, 9, w, 0, 4)));
        assert!((0..WARPS).any(|w| at(&got, 9, w, 0, 6) != 0));
        assert!((0..WARPS).any(|w| at(&got, 9, w, 0, 8) != 0));
        Ok(())
    }

    fn shfl_moves_values_between_lanes_by_mode_lane_and_clamp(dev: &Device) -> Result<()> {
        let x = warp_inputs(0x9e37_79b9);
        let input = dev.upload(&x, [WARPS, 32, 1])?;
        let mut out = dev.zeros::<u32>([WARPS, 32, 18, 1])?;
        let mut pd = dev.zeros::<u32>([WARPS, 32, 6, 1])?;
        let mut pp = dev.zeros::<u32>([WARPS, 32, 6, 1])?;
        shuffles(dev, &input, &mut out, &mut pd, &mut pp)?;
        let (out, pd, pp) = (out.download()?, pd.download()?, pp.download()?);
        for w in 0..WARPS {
            let v = warp(&x, w);
            for lane in 0..32u32 {
                for (k, (mode, b, c)) in SHFL_CASES.iter().enumerate() {
                    let b = match b {
                        Lane::Const(b) => *b,
                        Lane::FromData => v[lane as usize] >> 27,
                    };
                    let (j, _) = shfl_source(*mode, lane, b, *c);
                    assert_eq!(
                        at(&out, 18, w, lane as usize, k),
                        v[j as usize],
                        "warp {w} lane {lane}: case {k} ({mode:?} b {b} c {c:#x}) reads lane {j}"
                    );
                }
                for (k, (mode, b, c)) in SHFL_PRED_CASES.iter().enumerate() {
                    let (j, p) = shfl_source(*mode, lane, *b, *c);
                    let what =
                        format!("warp {w} lane {lane}: d|p case {k} ({mode:?} b {b} c {c:#x})");
                    assert_eq!(at(&pd, 6, w, lane as usize, k), v[j as usize], "{what}: d");
                    assert_eq!(at(&pp, 6, w, lane as usize, k), u32::from(p), "{what}: p");
                }
            }
        }
        // Spot checks of the cases' meaning, independent of the reference.
        // Warp 0 (random values): up by 1 moves lane 4's value to lane 5
        // and leaves lane 0 its own; idx 29 broadcasts lane 29; bfly 8 in
        // segments of 8 reads the earlier segment only.
        let v = warp(&x, 0);
        assert_eq!(at(&out, 18, 0, 5, 0), v[4]);
        assert_eq!(at(&out, 18, 0, 0, 0), v[0]);
        assert!((0..32).all(|l| at(&out, 18, 0, l, 9) == v[29]));
        assert_eq!(at(&out, 18, 0, 9, 12), v[1]);
        assert_eq!(at(&out, 18, 0, 1, 12), v[1]);
        assert_eq!((at(&pd, 6, 0, 9, 2), at(&pp, 6, 0, 9, 2)), (v[1], 1));
        assert_eq!((at(&pd, 6, 0, 1, 2), at(&pp, 6, 0, 1, 2)), (v[1], 0));
        // Down by 2 clamped at lane 15: lane 13 reads 15, lane 14 its own.
        assert_eq!((at(&pd, 6, 0, 13, 3), at(&pp, 6, 0, 13, 3)), (v[15], 1));
        assert_eq!((at(&pd, 6, 0, 14, 3), at(&pp, 6, 0, 14, 3)), (v[14], 0));
        // The p flags are not all equal in any case but idx.
        for k in [0, 1, 2, 3, 5] {
            let flags: Vec<u32> = (0..32).map(|l| at(&pp, 6, 0, l, k)).collect();
            assert!(
                flags.contains(&0) && flags.contains(&1),
                "case {k}: {flags:?}"
            );
        }
        Ok(())
    }

    /// Inputs for `votes`: by warp `w % 4`, the predicate `x < 2^31` holds
    /// in a random set of lanes, in every lane, in none, or in one.
    fn vote_inputs() -> Vec<u32> {
        let mut rng = Rng::new(0x1234_5678);
        let mut x = Vec::with_capacity(LANES);
        for w in 0..WARPS {
            let only = rng.next_u32() as usize % 32;
            for lane in 0..32 {
                let r = rng.next_u32();
                x.push(match w % 4 {
                    0 => r,
                    1 => r & 0x7fff_ffff,
                    2 => r | 0x8000_0000,
                    _ if lane == only => r & 0x7fff_ffff,
                    _ => r | 0x8000_0000,
                });
            }
        }
        x
    }

    fn vote_combines_a_per_lane_predicate(dev: &Device) -> Result<()> {
        let x = vote_inputs();
        let input = dev.upload(&x, [WARPS, 32, 1])?;
        let mut out = dev.zeros::<u32>([WARPS, 32, 5, 1])?;
        votes(dev, &input, &mut out)?;
        let got = out.download()?;
        for w in 0..WARPS {
            let a: Vec<bool> = warp(&x, w).iter().map(|&e| e < 0x8000_0000).collect();
            let ballot = a
                .iter()
                .enumerate()
                .fold(0u32, |m, (l, &t)| m | (u32::from(t) << l));
            let all = a.iter().all(|&t| t);
            let any = a.iter().any(|&t| t);
            let uni = all || !any;
            for (lane, &own) in a.iter().enumerate() {
                let row: Vec<u32> = (0..5).map(|k| at(&got, 5, w, lane, k)).collect();
                assert_eq!(
                    row,
                    [
                        u32::from(own),
                        u32::from(all),
                        u32::from(any),
                        u32::from(uni),
                        ballot
                    ],
                    "warp {w} lane {lane} (ballot {ballot:#010x})"
                );
            }
        }
        // Each outcome occurs: all (warp 1), none (warp 2), one lane (warp 3).
        assert_eq!(at(&got, 5, 1, 0, 4), 0xffff_ffff);
        assert_eq!(at(&got, 5, 2, 0, 4), 0);
        assert_eq!(at(&got, 5, 3, 0, 4).count_ones(), 1);
        assert_eq!(at(&got, 5, 0, 0, 3), 0, "warp 0 mixes both");
        Ok(())
    }

    fn match_finds_the_lanes_with_equal_values(dev: &Device) -> Result<()> {
        let x = warp_inputs(0x0bad_5eed);
        let input = dev.upload(&x, [WARPS, 32, 1])?;
        let mut out = dev.zeros::<u32>([WARPS, 32, 4, 1])?;
        matches(dev, &input, &mut out)?;
        let got = out.download()?;
        for w in 0..WARPS {
            let v = warp(&x, w);
            let all = v.iter().all(|&e| e == v[0]);
            for lane in 0..32 {
                let same = (0..32)
                    .filter(|&k| v[k] == v[lane])
                    .fold(0u32, |m, k| m | 1 << k);
                let full = if all { 0xffff_ffff } else { 0 };
                let row: Vec<u32> = (0..4).map(|k| at(&got, 4, w, lane, k)).collect();
                assert_eq!(
                    row,
                    [same, full, full, u32::from(all)],
                    "warp {w} lane {lane}"
                );
            }
        }
        // Warps 1 (3 values) and 3 (4 runs of 8) form groups; warp 2 agrees.
        assert_eq!(at(&got, 4, 3, 9, 0), 0x0000_ff00);
        assert_eq!(at(&got, 4, 2, 0, 3), 1);
        assert_eq!(at(&got, 4, 0, 0, 3), 0);
        Ok(())
    }

    fn activemask_is_the_full_warp_and_elect_picks_one_lane(dev: &Device) -> Result<()> {
        let mut out = dev.zeros::<u32>([WARPS, 32, 3, 1])?;
        active_and_elect(dev, &mut out)?;
        let got = out.download()?;
        for w in 0..WARPS {
            let elected: Vec<usize> = (0..32).filter(|&l| at(&got, 3, w, l, 2) == 1).collect();
            assert_eq!(elected.len(), 1, "warp {w}: elected lanes {elected:?}");
            for lane in 0..32 {
                assert_eq!(at(&got, 3, w, lane, 0), 0xffff_ffff, "warp {w} lane {lane}");
                assert_eq!(
                    at(&got, 3, w, lane, 1),
                    elected[0] as u32,
                    "warp {w} lane {lane}: d is the elected lane"
                );
                assert!(at(&got, 3, w, lane, 2) <= 1, "warp {w} lane {lane}");
            }
        }
        Ok(())
    }

    fn shared_buffer_reverses_a_cta_across_a_barrier(dev: &Device) -> Result<()> {
        let mut rng = Rng::new(0xdead_beef);
        let x: Vec<u32> = (0..768).map(|_| rng.next_u32()).collect();
        let input = dev.upload(&x, [768])?;
        let mut y = dev.zeros::<u32>([768])?;
        reverse_through_shared(dev, &input, &mut y)?;
        let got = y.download()?;
        for c in 0..3 {
            for t in 0..256 {
                assert_eq!(got[c * 256 + t], x[c * 256 + 255 - t], "cta {c} thread {t}");
            }
        }
        Ok(())
    }

    fn dynamic_shared_buffer_is_sized_at_launch_beyond_48_kib(dev: &Device) -> Result<()> {
        // C f32 per row; 58,112 f32 are exactly the 227 KiB (232,448
        // bytes) an H200 block may have, the interpreter's limit too.
        let mut rng = Rng::new(0x5eed_0dd5);
        for cols in [1usize, 255, 257, 12_289, 40_000, 58_112] {
            let rows = 3;
            let x: Vec<f32> = (0..rows * cols)
                .map(|_| f32::from_bits(rng.next_u32()))
                .collect();
            let input = dev.upload(&x, [rows, cols])?;
            let mut y = dev.zeros::<f32>([rows, cols])?;
            reverse_rows_in_dynamic_shared(dev, &input, &mut y)?;
            let got = y.download()?;
            for r in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        got[r * cols + j].to_bits(),
                        x[r * cols + cols - 1 - j].to_bits(),
                        "C = {cols}, row {r}, column {j}"
                    );
                }
            }
        }
        // One element more does not fit: refused before launching.
        let cols = 58_113;
        let input = dev.zeros::<f32>([1, cols])?;
        let mut y = dev.zeros::<f32>([1, cols])?;
        let err = reverse_rows_in_dynamic_shared(dev, &input, &mut y).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `reverse_rows_in_dynamic_shared`: invalid launch size: the dynamic shared memory is `4 * C` bytes, which is 232452, above the 232448 bytes this device lets a block of this kernel have (C = 58113)"
        );
        Ok(())
    }

    fn shared_size_registers_count_the_dynamic_bytes(dev: &Device) -> Result<()> {
        // N = 25 and 57: whether the dynamic bytes start at byte 20 or at
        // the next 16-byte boundary (32) decides the total's 128-byte unit.
        for n in [1usize, 7, 25, 57, 100, 12_289, 50_000] {
            let input = dev.zeros::<f32>([n])?;
            let mut out = dev.zeros::<u32>([32, 2])?;
            shared_size_registers(dev, &input, &mut out)?;
            let got = out.download()?;
            // 4N dynamic bytes; in all, the 20 static bytes, the 4N from
            // the next 16-byte boundary, in units of 128 bytes (measured on
            // the H200: N = 25 gives 256, not 128).
            let dynamic = 4 * n as u32;
            let total = (32 + dynamic).next_multiple_of(128);
            for t in 0..32 {
                assert_eq!(
                    [got[2 * t], got[2 * t + 1]],
                    [dynamic, total],
                    "N = {n}, thread {t}: [%dynamic_smem_size, %total_smem_size]"
                );
            }
        }
        // The limit is the block's 232,448 bytes less the static ones
        // rounded up to 16 (measured on the H200): N = 58,104 fits exactly.
        let input = dev.zeros::<f32>([58_104])?;
        let mut out = dev.zeros::<u32>([32, 2])?;
        shared_size_registers(dev, &input, &mut out)?;
        assert_eq!(&out.download()?[..2], [232_416, 232_448]);
        let input = dev.zeros::<f32>([58_105])?;
        let err = shared_size_registers(dev, &input, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `shared_size_registers`: invalid launch size: the dynamic shared memory is `4 * N` bytes, which is 232420, above the 232416 bytes this device lets a block of this kernel have (N = 58105)"
        );
        Ok(())
    }

    fn static_buffers_past_48_kib_count_as_dynamic_bytes(dev: &Device) -> Result<()> {
        // 49,156 static bytes moved to the dynamic shared memory, the
        // dynamic buffer's 4N from byte 49,280: all of it dynamic.
        for n in [1usize, 25, 1000, 45_792] {
            let input = dev.zeros::<f32>([n])?;
            let mut out = dev.zeros::<u32>([32, 2])?;
            shared_size_registers_past_48_kib(dev, &input, &mut out)?;
            let got = out.download()?;
            let dynamic = 49_280 + 4 * n as u32;
            let total = dynamic.next_multiple_of(128);
            for t in 0..32 {
                assert_eq!(
                    [got[2 * t], got[2 * t + 1]],
                    [dynamic, total],
                    "N = {n}, thread {t}: [%dynamic_smem_size, %total_smem_size]"
                );
            }
        }
        // 49,280 + 4 * 45,792 = 232,448, the block's limit: one more is refused.
        let input = dev.zeros::<f32>([45_793])?;
        let mut out = dev.zeros::<u32>([32, 2])?;
        let err = shared_size_registers_past_48_kib(dev, &input, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel `shared_size_registers_past_48_kib`: invalid launch size: the dynamic shared memory is `4 * N + 49280` bytes, which is 232452, above the 232448 bytes this device lets a block of this kernel have (N = 45793)"
        );
        Ok(())
    }

    fn cyclic_distribution_reverses_through_dynamic_shared(dev: &Device) -> Result<()> {
        let mut rng = Rng::new(0xc1c1_1c0f);
        for n in [1usize, 255, 256, 257, 1000, 4096, 50_001] {
            let x: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.next_u32())).collect();
            let input = dev.upload(&x, [n])?;
            let mut y = dev.zeros::<f32>([n])?;
            reverse_cyclic(dev, &input, &mut y)?;
            let got = y.download()?;
            for i in 0..n {
                assert_eq!(
                    got[i].to_bits(),
                    x[n - 1 - i].to_bits(),
                    "N = {n}, element {i}"
                );
            }
        }
        Ok(())
    }

    fn cyclic_pairs_cover_the_tensor_once(dev: &Device) -> Result<()> {
        let mut rng = Rng::new(0x0dd_ba11);
        for n in [1usize, 127, 256, 1000, 65_537] {
            // Small integers: x + 1 is exact.
            let x: Vec<f32> = (0..2 * n).map(|_| (rng.next_u32() % 1000) as f32).collect();
            let input = dev.upload(&x, [2 * n])?;
            let mut y = dev.zeros::<f32>([2 * n])?;
            add_one_cyclic_pairs(dev, &input, &mut y)?;
            let got = y.download()?;
            for i in 0..2 * n {
                assert_eq!(got[i], x[i] + 1.0, "N = {n}, element {i}");
            }
        }
        Ok(())
    }

    fn warpgroup_tiles_bind_rows_in_blocks_of_two_warpgroups(dev: &Device) -> Result<()> {
        let mut rng = Rng::new(0x3a3a_5c5c);
        let x: Vec<u32> = (0..6 * 128 * 2).map(|_| rng.next_u32()).collect();
        let input = dev.upload(&x, [6, 128, 2])?;
        let mut out = dev.zeros::<u32>([6, 128, 4])?;
        warpgroup_rows(dev, &input, &mut out)?;
        let got = out.download()?;
        for g in 0..6 {
            for r in 0..128 {
                let row = &got[(g * 128 + r) * 4..][..4];
                let want = [
                    x[(g * 128 + r) * 2],
                    x[(g * 128 + r) * 2 + 1],
                    r as u32 % 32,
                    0,
                ];
                assert_eq!(row, want, "warpgroup {g}, rank {r}");
            }
        }
        Ok(())
    }

    fn bar_red_counts_and_combines_a_cta_predicate(dev: &Device) -> Result<()> {
        // By CTA: the predicate `x < 2^30` in random threads, all, none, one.
        let mut rng = Rng::new(0x0f1e_2d3c);
        let mut x = Vec::with_capacity(1024);
        for c in 0..4 {
            let only = rng.next_u32() as usize % 256;
            for t in 0..256 {
                let r = rng.next_u32();
                x.push(match c {
                    0 => r,
                    1 => r & 0x3fff_ffff,
                    2 => r | 0x4000_0000,
                    _ if t == only => r & 0x3fff_ffff,
                    _ => r | 0x4000_0000,
                });
            }
        }
        let input = dev.upload(&x, [4, 256, 1])?;
        let mut out = dev.zeros::<u32>([4, 256, 3, 1])?;
        barrier_reductions(dev, &input, &mut out)?;
        let got = out.download()?;
        let mut counts = Vec::new();
        for c in 0..4 {
            let cta = &x[c * 256..c * 256 + 256];
            let count = cta.iter().filter(|&&e| e < 0x4000_0000).count() as u32;
            counts.push(count);
            let want = [count, u32::from(count == 256), u32::from(count > 0)];
            for t in 0..256 {
                let i = (c * 256 + t) * 3;
                assert_eq!(got[i..i + 3], want, "cta {c} thread {t}");
            }
        }
        assert_eq!(counts[1..], [256, 0, 1]);
        assert!(counts[0] > 0 && counts[0] < 256, "{counts:?}");
        Ok(())
    }

    fn atom_shared_add_sums_a_cta_into_one_element(dev: &Device) -> Result<()> {
        let mut rng = Rng::new(0x7777_1111);
        // 1..=1000: every thread's add moves the counter, so the old values
        // of a CTA are distinct and chain from 0 to the total.
        let x: Vec<u32> = (0..768).map(|_| rng.next_u32() % 1000 + 1).collect();
        let input = dev.upload(&x, [768])?;
        let mut old = dev.zeros::<u32>([768])?;
        let mut sums = dev.zeros::<u32>([3])?;
        atomic_sum_in_shared(dev, &input, &mut old, &mut sums)?;
        let (old, sums) = (old.download()?, sums.download()?);
        for c in 0..3 {
            let total: u32 = x[c * 256..c * 256 + 256].iter().sum();
            assert_eq!(sums[c], total, "cta {c}");
            // In the order the adds happened (by old value), each starts
            // where the previous one ended.
            let mut adds: Vec<(u32, u32)> =
                (c * 256..c * 256 + 256).map(|i| (old[i], x[i])).collect();
            adds.sort_unstable();
            let mut counter = 0;
            for (t, (o, v)) in adds.iter().enumerate() {
                assert_eq!(*o, counter, "cta {c}: add {t} of {v}");
                counter += v;
            }
            assert_eq!(counter, total);
        }
        Ok(())
    }
}

// ------------------------------------------------------------ goldens

#[test]
fn quantize_128_matches_its_golden() {
    golden("quantize_128", quantize::quantize_128::PTX);
}

#[test]
fn quantize_32_matches_its_golden() {
    golden("quantize_32", quantize::quantize_32::PTX);
}

#[test]
fn dequantize_128_matches_its_golden() {
    golden("dequantize_128", quantize::dequantize_128::PTX);
}

#[test]
fn dequantize_32_matches_its_golden() {
    golden("dequantize_32", quantize::dequantize_32::PTX);
}

#[test]
fn row_sumsq_matches_its_golden() {
    golden("row_sumsq", reduce::row_sumsq::PTX);
}

#[test]
fn scope_kernels_assemble_without_spills() {
    for (name, ptx) in [
        ("quantize_32_x4", quantize::quantize_32_x4::PTX),
        ("quantize_32_x8", quantize::quantize_32_x8::PTX),
        ("quantize_32_x16", quantize::quantize_32_x16::PTX),
        ("quantize_128_x4", quantize::quantize_128_x4::PTX),
        ("quantize_128_x8", quantize::quantize_128_x8::PTX),
        ("quantize_128_x16", quantize::quantize_128_x16::PTX),
        ("dequantize_32_x4", quantize::dequantize_32_x4::PTX),
        ("dequantize_32_x8", quantize::dequantize_32_x8::PTX),
        ("dequantize_32_x16", quantize::dequantize_32_x16::PTX),
        ("dequantize_128_x4", quantize::dequantize_128_x4::PTX),
        ("dequantize_128_x8", quantize::dequantize_128_x8::PTX),
        ("dequantize_128_x16", quantize::dequantize_128_x16::PTX),
        ("row_sumsq", reduce::row_sumsq::PTX),
        ("redux_all", redux_all::PTX),
        ("shuffles", shuffles::PTX),
        ("votes", votes::PTX),
        ("matches", matches::PTX),
        ("active_and_elect", active_and_elect::PTX),
        ("reverse_through_shared", reverse_through_shared::PTX),
        ("barrier_reductions", barrier_reductions::PTX),
        ("atomic_sum_in_shared", atomic_sum_in_shared::PTX),
        (
            "reverse_rows_in_dynamic_shared",
            reverse_rows_in_dynamic_shared::PTX,
        ),
        ("shared_size_registers", shared_size_registers::PTX),
        ("reverse_cyclic", reverse_cyclic::PTX),
        ("add_one_cyclic_pairs", add_one_cyclic_pairs::PTX),
        ("warpgroup_rows", warpgroup_rows::PTX),
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

// ------------------------------------------------------------ PTX fragments

/// The trimmed lines of `ptx`.
fn lines(ptx: &str) -> Vec<&str> {
    ptx.lines().map(str::trim).collect()
}

/// The index of the one line equal to `line`; panics unless exactly one is.
fn line_index(ptx: &str, line: &str) -> usize {
    let found: Vec<usize> = lines(ptx)
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == line)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(found.len(), 1, "`{line}` {} times in\n{ptx}", found.len());
    found[0]
}

/// Lines that start with `prefix`.
fn count(ptx: &str, prefix: &str) -> usize {
    lines(ptx).iter().filter(|l| l.starts_with(prefix)).count()
}

/// The shuffle structure of a quantizer with `lanes` lanes per block and
/// `blocks` blocks per warp: butterflies by `lanes / 2`, .., 1 on the
/// lane's maximum, then lane `lanes * j` read for each block `j`, all with
/// the clamp 0x1f and the full mask materialized once.
fn assert_quantizer_shuffles(ptx: &str, lanes: u32, blocks: u32) {
    let constant = |value: u32| -> String {
        let line = lines(ptx)
            .into_iter()
            .find(|l| l.starts_with("mov.b32 %k32_") && l.ends_with(&format!(", 0x{value:08X};")))
            .unwrap_or_else(|| panic!("no constant {value:#x} in\n{ptx}"));
        line["mov.b32 ".len()..line.find(',').unwrap()].to_string()
    };
    assert_eq!(ptx.matches("0xFFFFFFFF").count(), 1, "{ptx}");
    let (mask, clamp) = (constant(0xffff_ffff), constant(0x1f));
    assert_eq!(count(ptx, "redux.sync"), 0, "{ptx}");
    let mut offset = lanes / 2;
    let mut butterflies = 0;
    while offset >= 1 {
        let line = format!(
            "shfl.sync.bfly.b32 %t3_other_0, %t2_amax_0, {}, {clamp}, {mask};",
            constant(offset)
        );
        line_index(ptx, &line);
        butterflies += 1;
        offset /= 2;
    }
    assert_eq!(count(ptx, "shfl.sync.bfly"), butterflies, "{ptx}");
    for j in 0..blocks {
        let from = if j == 0 {
            constant(0)
        } else {
            constant(lanes * j)
        };
        line_index(
            ptx,
            &format!("shfl.sync.idx.b32 %t5_all_{j}, %t4_scale_0, {from}, {clamp}, {mask};"),
        );
    }
    assert_eq!(count(ptx, "shfl.sync.idx"), blocks as usize, "{ptx}");
    // Lane 0 stores the scales, inside the warp-uniform `if first < B`.
    let start = line_index(ptx, "@!%q0 bra $L0_end;");
    let end = line_index(ptx, "$L0_end:");
    let lane0 = line_index(ptx, "setp.eq.s64 %q34, %i4, 0;");
    assert!(start < lane0 && lane0 < end, "{ptx}");
}

#[test]
fn quantize_128_combines_lanes_with_shuffles_and_the_full_mask() {
    // 16 elements per lane: a block of 128 is 8 lanes, a warp holds 4.
    assert_quantizer_shuffles(quantize::quantize_128::PTX, 8, 4);
}

#[test]
fn quantize_32_combines_lanes_with_shuffles_and_the_full_mask() {
    // 16 elements per lane: a block of 32 is 2 lanes, a warp holds 16.
    assert_quantizer_shuffles(quantize::quantize_32::PTX, 2, 16);
}

#[test]
fn dequantizers_have_no_collectives() {
    for ptx in [quantize::dequantize_128::PTX, quantize::dequantize_32::PTX] {
        assert!(!ptx.contains(".sync"), "{ptx}");
        assert!(!ptx.contains("0xFFFFFFFF"), "{ptx}");
        assert!(!ptx.contains(".shared"), "{ptx}");
    }
}

#[test]
fn row_sumsq_meets_in_shared_memory_across_one_barrier() {
    let ptx = reduce::row_sumsq::PTX;
    // 8 floats, 16-byte aligned, addressed through one base register.
    line_index(
        ptx,
        ".shared .align 128 .b8 smem0_partial[32]; // partial: f32 [8]",
    );
    line_index(ptx, "mov.u64 %sh0, smem0_partial;");
    line_index(ptx, "mov.b32 %k32_2, 0xFFFFFFFF;");
    assert_eq!(ptx.matches("0xFFFFFFFF").count(), 1, "{ptx}");
    // Lane 0 of each warp stores its warp's sum at 4 * warp_id().
    line_index(ptx, "setp.eq.s64 %q0, %i3, 0;");
    line_index(ptx, "mul.lo.s64 %v3, %i2, 4;");
    let store = line_index(ptx, "@%q0 st.shared.f32 [%ad1], %t1_s_0;");
    // One barrier, between the stores and the loads, reached by every
    // thread: before the `if warp_id() == 0`.
    let barrier = line_index(ptx, "bar.sync 0;");
    assert_eq!(count(ptx, "bar"), 1, "{ptx}");
    let branch = line_index(ptx, "@!%q1 bra $L0_end;");
    let load = line_index(ptx, "@%q2 ld.shared.f32 %t3_p_0, [%ad2];");
    assert!(
        store < barrier && barrier < branch && branch < load,
        "{ptx}"
    );
    line_index(ptx, "setp.le.s64 %q2, %i3, 7;");
    // 5 butterflies for the warp, 3 for the 8 partial sums, all with the
    // full mask.
    assert_eq!(count(ptx, "shfl.sync.bfly.b32"), 8, "{ptx}");
    assert_eq!(
        lines(ptx)
            .iter()
            .filter(|l| l.starts_with("shfl.sync.bfly.b32") && l.ends_with(", %k32_1, %k32_2;"))
            .count(),
        8,
        "{ptx}"
    );
}

#[test]
fn collectives_take_the_full_mask_and_predicate_results_after_a_pipe() {
    let ptx = shuffles::PTX;
    line_index(ptx, "mov.b32 %k32_3, 0xFFFFFFFF;");
    line_index(ptx, "mov.b32 %k32_11, 0x0000181F;");
    line_index(ptx, "mov.b32 %k32_14, 0x00001800;");
    // A lane operand from a register; the segmented butterfly.
    line_index(
        ptx,
        "shfl.sync.idx.b32 %t2_r_10, %t0_v_0, %t1_src_0, %k32_5, %k32_3;",
    );
    line_index(
        ptx,
        "shfl.sync.bfly.b32 %t2_r_12, %t0_v_0, %k32_12, %k32_11, %k32_3;",
    );
    // `d|p`: the predicate after a pipe, then the mask last.
    line_index(
        ptx,
        "shfl.sync.up.b32 %t3_d_0|%t4_p_0, %t0_v_0, %k32_4, %k32_2, %k32_3;",
    );
    line_index(
        ptx,
        "shfl.sync.bfly.b32 %t3_d_2|%t4_p_2, %t0_v_0, %k32_12, %k32_11, %k32_3;",
    );
    assert_eq!(count(ptx, "shfl.sync"), 24, "{ptx}");
    assert_eq!(ptx.matches("|%t4_p_").count(), 6, "{ptx}");

    let ptx = matches::PTX;
    line_index(ptx, "mov.b32 %k32_0, 0xFFFFFFFF;");
    line_index(ptx, "match.any.sync.b32 %t2_r_0, %t0_v_0, %k32_0;");
    line_index(ptx, "match.all.sync.b32 %t2_r_1, %t0_v_0, %k32_0;");
    line_index(ptx, "match.all.sync.b32 %t2_r_2|%t1_p_0, %t0_v_0, %k32_0;");

    let ptx = votes::PTX;
    line_index(ptx, "mov.b32 %k32_1, 0xFFFFFFFF;");
    line_index(ptx, "vote.sync.uni.pred %t2_q_2, %t1_a_0, %k32_1;");
    line_index(ptx, "vote.sync.ballot.b32 %t3_r_4, %t1_a_0, %k32_1;");

    // activemask has no member mask; elect.sync's is its only source.
    let ptx = active_and_elect::PTX;
    line_index(ptx, "mov.b32 %k32_0, 0xFFFFFFFF;");
    line_index(ptx, "activemask.b32 %t0_r_0;");
    line_index(ptx, "elect.sync %t0_r_1|%t1_p_0, %k32_0;");

    let ptx = redux_all::PTX;
    for (k, op) in [
        "add.u32", "min.u32", "max.u32", "add.s32", "min.s32", "max.s32", "and.b32", "or.b32",
        "xor.b32",
    ]
    .iter()
    .enumerate()
    {
        line_index(ptx, &format!("redux.sync.{op} %t1_r_{k}, %t0_v_0, %k32_0;"));
    }
}

#[test]
fn a_dynamic_shared_buffer_is_an_extern_array_the_spec_sizes() {
    use tile_kernel::lowering::spec::LaunchOp;
    let ptx = reverse_rows_in_dynamic_shared::PTX;
    // At module scope, before the entry; no static declaration.
    let extern_line = line_index(
        ptx,
        ".extern .shared .align 16 .b8 smem0_row[]; // row: f32 [C], sized at launch",
    );
    assert!(extern_line < line_index(ptx, ".visible .entry reverse_rows_in_dynamic_shared("));
    assert_eq!(count(ptx, ".shared .align"), 0, "{ptx}");
    line_index(ptx, "mov.u64 %sh0, smem0_row;");
    // Element C - 1 - j: 4C - 4j - 4 bytes, from the hidden C.
    line_index(ptx, "mul.lo.s64 %v4, %i1, 4;");
    line_index(ptx, "mad.lo.s64 %v5, %i5, -4, %v4;");
    line_index(ptx, "ld.shared.f32 %t0_v_0, [%ad2];");
    // 4 bytes per element of C (symbol 1).
    assert_eq!(
        reverse_rows_in_dynamic_shared::SPEC.shared_mem_bytes.0,
        [LaunchOp::Const(4), LaunchOp::Symbol(1), LaunchOp::Mul]
    );
    // Static buffers ask for none.
    assert_eq!(
        reverse_through_shared::SPEC.shared_mem_bytes.0,
        [LaunchOp::Const(0)]
    );
    // Beside a static buffer, the static one is declared in the entry.
    let ptx = shared_size_registers::PTX;
    line_index(
        ptx,
        ".extern .shared .align 16 .b8 smem0_dynamic[]; // dynamic: f32 [N], sized at launch",
    );
    line_index(
        ptx,
        ".shared .align 128 .b8 smem1_fixed[20]; // fixed: u32 [5]",
    );
}

#[test]
fn cta_barriers_and_shared_accesses_are_emitted_as_written() {
    let ptx = reverse_through_shared::PTX;
    line_index(
        ptx,
        ".shared .align 128 .b8 smem0_slots[1024]; // slots: u32 [256]",
    );
    let store = line_index(ptx, "st.shared.u32 [%ad1], %t0_v_0;");
    let barrier = line_index(ptx, "bar.sync 0;");
    // Slot 255 - t: 1020 - 4t bytes.
    line_index(ptx, "mul.lo.s64 %v3, %i0, -4;");
    let load = line_index(ptx, "ld.shared.u32 %t1_u_0, [%ad2+1020];");
    assert!(store < barrier && barrier < load, "{ptx}");

    // Barrier reductions take no member mask.
    let ptx = barrier_reductions::PTX;
    line_index(ptx, "bar.red.popc.u32 %t3_r_0, 0, %t1_a_0;");
    line_index(ptx, "bar.red.and.pred %t2_q_0, 0, %t1_a_0;");
    line_index(ptx, "bar.red.or.pred %t2_q_1, 0, %t1_a_0;");
    assert!(!ptx.contains("0xFFFFFFFF"), "{ptx}");

    let ptx = atomic_sum_in_shared::PTX;
    line_index(
        ptx,
        ".shared .align 128 .b8 smem0_total[4]; // total: u32 [1]",
    );
    let init = line_index(ptx, "@%q0 st.shared.u32 [%sh0], %t0_zero_0;");
    let add = line_index(ptx, "atom.shared.add.u32 %t2_o_0, [%sh0], %t1_v_0;");
    let read = line_index(ptx, "@%q0 ld.shared.u32 %t3_s_0, [%sh0];");
    let barriers: Vec<usize> = lines(ptx)
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == "bar.sync 0;")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(barriers.len(), 2, "{ptx}");
    assert!(init < barriers[0] && barriers[0] < add && add < barriers[1] && barriers[1] < read);
}
