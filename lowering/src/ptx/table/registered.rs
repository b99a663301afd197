//! Fences, barriers, mbarriers, `cp.async.mbarrier.arrive`, bulk and
//! tensor (TMA) copies and reductions, `multimem` accesses, matrix
//! loads/stores, `mma.sync` and `wgmma` (sm_90a): registered and certified.
//! Each form says whether kernels can use it (`usable`); one that cannot
//! names what the language still lacks (TK0224).
//!
//! Not registered yet: `mbarrier.arrive{.sem}{.scope}.shared::cluster.b64 _, [addr]` (its
//! destination must be the sink, which an operand slot cannot say), and a
//! single `.bf16x2` source of `multimem.st/red` (ptxas 12.9 takes a literal
//! there but not for `.f16x2`).

use super::*;
use crate::ptx::Slot;

const U32: TypeRef = TypeRef::Fixed(PtxType::U32);
const B16: TypeRef = TypeRef::Fixed(PtxType::B16);
const B64: TypeRef = TypeRef::Fixed(PtxType::B64);

/// Memory fences (`fence.sc`/`.acq_rel` of a scope, `fence.proxy.alias`,
/// `membar`): usable anywhere. They only add ordering: no proof of the
/// checker relies on one (races are excluded by separation, CTA barriers
/// and mbarrier phases, the async proxy by `fence.proxy.async`, which the
/// ownership walk follows), so a fence never makes a kernel pass, and the
/// interpreter, whose lock-step executor orders every access, runs it as
/// nothing.
const FENCES: Usability = Usability::Yes;
const PROXIES: Usability =
    Usability::NotYet("tensor maps the kernel writes itself (the launcher builds every map)");
const BARRIERS: Usability = Usability::NotYet(
    "barriers of a thread count or without a wait (`arrive`), whose convergence rules kernels lack",
);
const BULK_COPIES: Usability =
    Usability::NotYet("shared memory tiles, mbarriers and asynchronous bulk copies");
const MBARRIERS: Usability = Usability::NotYet("shared memory mbarrier objects and their phases");
/// Without `.noinc` the copies' arrival raises the phase's pending count
/// first (net zero); compute-sanitizer's synccheck reports a thread's own
/// arrive after it as a missing wait, so only `.noinc` is usable.
const COUNTED_COPY_ARRIVALS: Usability = Usability::NotYet(
    "a model of the pending-count increment (`cp.async.mbarrier.arrive.noinc` counts the copies as one of the phase's arrivals)",
);
const MULTIMEM: Usability =
    Usability::NotYet("multicast memory objects (multimem addresses) shared by several GPUs");
/// `mma.sync`: a warp collective of matrix fragments (`crate::ptx::fragments`):
/// usable in a warp-scope `apply`, whose convergence rule is `.aligned`'s
/// ("all threads in the warp must execute the same mma.sync").
const MMA: Usability = Usability::NeedsScope;
/// `ldmatrix`/`stmatrix`: warp collectives whose address operand is each
/// lane's 16-byte row of shared memory, proven like an `ld.shared` or
/// `st.shared` of that lane.
const LDMATRIX: Usability = Usability::NeedsScope;
const STMATRIX: Usability = Usability::NeedsScope;

/// `setmaxnreg`: every warp of a warpgroup runs the same one ("The same
/// setmaxnreg instruction must be executed by all warps in a warpgroup"),
/// so it is a warpgroup collective; the register pool obligation proves
/// the rest.
const SETMAXNREG: Usability = Usability::Warpgroup;

/// A fragment of `lanes` registers of type `ty`, always written `{..}`
/// (also with one register). Multiplicand fragments take no immediates.
const fn frag(name: &'static str, access: Access, ty: PtxType, lanes: u8) -> OperandSlot {
    let slot = group(name, access, TypeRef::Fixed(ty), Lanes::Fixed(lanes));
    // ptxas wants a one-register fragment written `{x}` too.
    if lanes == 1 { slot.in_braces() } else { slot }
}

/// A barrier number: an immediate 0..=15 (ptxas: "expected to be in range [0..15]").
const BARRIER: OperandSlot = imm("a", PtxType::U32, 0, 15);
/// A thread count: ptxas takes an immediate only if it is a multiple of the
/// warp size, so the table offers a register.
const COUNT: OperandSlot = reg("b", R, U32).no_imm();
/// A bulk copy's byte count: ptxas takes an immediate only if it is a
/// multiple of 16, so the table offers a register.
const SIZE: OperandSlot = reg("size", R, U32).no_imm();
/// The predicate `bar.red` reduces (PTX also writes `!c`).
const C: OperandSlot = pred("c", R);

const CTA: ModifierSlot = opt(Slot::Scope, &["cta"]);
const ALIGNED: ModifierSlot = opt(Slot::Aligned, &["aligned"]);
const SHARED: ModifierSlot = opt(Slot::Space, &["shared", "shared::cta"]);
/// The `.shared::cluster` window: an object of any CTA of the cluster.
const CLUSTER_SHARED: ModifierSlot = slot(Slot::Space, &["shared::cluster"]);
const B64_TYPE: ModifierSlot = slot(Slot::Type, &["b64"]);
/// mbarrier memory ordering (PTX 8.0): `.sem` and `.scope` both or neither.
const ARRIVE_SEM: ModifierSlot = opt(Slot::Sem, &["release", "relaxed"]);
const WAIT_SEM: ModifierSlot = opt(Slot::Sem, &["acquire", "relaxed"]);
const MBAR_SCOPE: ModifierSlot = opt(Slot::Scope, &["cta", "cluster"]);
const MATRIX_SLOTS_X1: &[ModifierSlot] = &matrix_slots(&["x1"]);
const MATRIX_SLOTS_X2: &[ModifierSlot] = &matrix_slots(&["x2"]);
const MATRIX_SLOTS_X4: &[ModifierSlot] = &matrix_slots(&["x4"]);

/// `ldmatrix`/`stmatrix.sync.aligned.m8n8.<num>{.trans}{.shared{::cta}}.b16`.
const fn matrix_slots(num: &'static [&'static str]) -> [ModifierSlot; 7] {
    [
        slot(Slot::Sync, &["sync"]),
        slot(Slot::Aligned, &["aligned"]),
        slot(Slot::Shape, &["m8n8"]),
        slot(Slot::Num, num),
        opt(Slot::Trans, &["trans"]),
        SHARED,
        slot(Slot::Type, &["b16"]),
    ]
}

/// `mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>`.
const fn mma_slots(
    shape: &'static [&'static str],
    dtype: &'static [&'static str],
    ab: &'static [&'static str],
    ctype: &'static [&'static str],
) -> [ModifierSlot; 9] {
    [
        slot(Slot::Sync, &["sync"]),
        slot(Slot::Aligned, &["aligned"]),
        slot(Slot::Shape, shape),
        slot(Slot::Alayout, &["row"]),
        slot(Slot::Blayout, &["col"]),
        slot(Slot::Dtype, dtype),
        slot(Slot::Atype, ab),
        slot(Slot::Btype, ab),
        slot(Slot::Ctype, ctype),
    ]
}

/// The integer line: `mma.sync.aligned.<shape>.row.col{.satfinite}.s32.<a>.<b>.s32`.
const fn mma_int_slots(shape: &'static [&'static str]) -> [ModifierSlot; 10] {
    mma_int_typed_slots(shape, INT8)
}

/// The integer line with the multiplicand types `ab` (8- or 4-bit).
const fn mma_int_typed_slots(
    shape: &'static [&'static str],
    ab: &'static [&'static str],
) -> [ModifierSlot; 10] {
    [
        slot(Slot::Sync, &["sync"]),
        slot(Slot::Aligned, &["aligned"]),
        slot(Slot::Shape, shape),
        slot(Slot::Alayout, &["row"]),
        slot(Slot::Blayout, &["col"]),
        opt(Slot::Satfinite, &["satfinite"]),
        slot(Slot::Dtype, &["s32"]),
        slot(Slot::Atype, ab),
        slot(Slot::Btype, ab),
        slot(Slot::Ctype, &["s32"]),
    ]
}

/// The single-bit line: `mma.sync.aligned.<shape>.row.col.s32.b1.b1.s32.<op>.popc`.
const fn mma_b1_slots(shape: &'static [&'static str]) -> [ModifierSlot; 11] {
    [
        slot(Slot::Sync, &["sync"]),
        slot(Slot::Aligned, &["aligned"]),
        slot(Slot::Shape, shape),
        slot(Slot::Alayout, &["row"]),
        slot(Slot::Blayout, &["col"]),
        slot(Slot::Dtype, &["s32"]),
        slot(Slot::Atype, &["b1"]),
        slot(Slot::Btype, &["b1"]),
        slot(Slot::Ctype, &["s32"]),
        slot(Slot::Bitop, &["xor", "and"]),
        slot(Slot::Popc, &["popc"]),
    ]
}

const INT4: &[&str] = &["s4", "u4"];

const HALVES: &[&str] = &["f16", "bf16"];
const SCOPES: &[&str] = &["cta", "cluster", "gpu", "sys"];
const MULTIMEM_INT_OPS: &[&str] = &["min", "max", "add", "and", "or", "xor"];
const MULTIMEM_INTS: &[&str] = &["b32", "b64", "u32", "u64", "s32", "s64"];
const MULTIMEM_FLOATS: &[&str] = &["f16", "f16x2", "bf16", "bf16x2", "f32", "f64"];
const MULTIMEM_VEC: &[&str] = &["v2", "v4", "v8"];
/// The stored types of `multimem.st/red`: `.bf16x2` has its own vector-only
/// forms, as ptxas 12.9 takes a literal for a single `.bf16x2` source (it
/// rejects one for `.f16x2`), which an operand slot cannot say.
const MULTIMEM_STORED_FLOATS: &[&str] = &["f16", "f16x2", "bf16", "f32", "f64"];
const BULK_REDUCE_OPS: &[&str] = &["and", "or", "xor", "add", "inc", "dec", "min", "max"];
const BULK_REDUCE_TYPES: &[&str] = &[
    "f16", "bf16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64",
];
const INT8: &[&str] = &["s8", "u8"];
const FP8: &[&str] = &["e4m3", "e5m2"];

/// `wgmma.mma_async`'s shape tokens and accumulator register counts: `N`
/// runs over `8..=256` in steps of 8 (the integer shapes: 8, 16, 24, 32,
/// then steps of 16); an f32 or s32 accumulator is `N / 2` registers per
/// thread, a packed f16 one `N / 4`.
macro_rules! wgmma_n {
    ($mac:ident!($($args:tt)*)) => {
        $mac!($($args)* 8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128
            136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256)
    };
}
macro_rules! wgmma_int_n {
    ($mac:ident!($($args:tt)*)) => {
        $mac!($($args)* 8 16 24 32 48 64 80 96 112 128 144 160 176 192 208 224 240 256)
    };
}
macro_rules! wgmma_shapes {
    ($k:literal: $($n:literal)*) => {
        &[$(concat!("m64n", $n, "k", $k)),*]
    };
}
macro_rules! wgmma_lanes {
    ($k:literal / $per:literal: $($n:literal)*) => {
        &[$((concat!("m64n", $n, "k", $k), ($n / $per) as u8)),*]
    };
}

const WGMMA_K16: &[&str] = wgmma_n!(wgmma_shapes!(16:));
const WGMMA_K8: &[&str] = wgmma_n!(wgmma_shapes!(8:));
const WGMMA_K32: &[&str] = wgmma_n!(wgmma_shapes!(32:));
const WGMMA_INT: &[&str] = wgmma_int_n!(wgmma_shapes!(32:));
const WGMMA_K16_F32: &[(&str, u8)] = wgmma_n!(wgmma_lanes!(16 / 2:));
const WGMMA_K16_F16: &[(&str, u8)] = wgmma_n!(wgmma_lanes!(16 / 4:));
const WGMMA_K8_F32: &[(&str, u8)] = wgmma_n!(wgmma_lanes!(8 / 2:));
const WGMMA_K32_F32: &[(&str, u8)] = wgmma_n!(wgmma_lanes!(32 / 2:));
const WGMMA_K32_F16: &[(&str, u8)] = wgmma_n!(wgmma_lanes!(32 / 4:));
const WGMMA_INT_S32: &[(&str, u8)] = wgmma_int_n!(wgmma_lanes!(32 / 2:));

const WGMMA: Usability = Usability::Warpgroup;

/// `wgmma.mma_async.sync.aligned.<shape>.<d>.<a>.<b>`.
const fn wgmma_slots(
    shape: &'static [&'static str],
    dtype: &'static [&'static str],
    atype: &'static [&'static str],
    btype: &'static [&'static str],
) -> [ModifierSlot; 6] {
    [
        slot(Slot::Sync, &["sync"]),
        slot(Slot::Aligned, &["aligned"]),
        slot(Slot::Shape, shape),
        slot(Slot::Dtype, dtype),
        slot(Slot::Atype, atype),
        slot(Slot::Btype, btype),
    ]
}

/// `wgmma.mma_async.sync.aligned.<shape>{.satfinite}.s32.<a>.<b>`.
const WGMMA_INT_SLOTS: &[ModifierSlot] = &[
    slot(Slot::Sync, &["sync"]),
    slot(Slot::Aligned, &["aligned"]),
    slot(Slot::Shape, WGMMA_INT),
    opt(Slot::Satfinite, &["satfinite"]),
    slot(Slot::Dtype, &["s32"]),
    slot(Slot::Atype, INT8),
    slot(Slot::Btype, INT8),
];

/// The accumulator `{d0, ..}`: its register count follows the shape.
/// Never the sink: ptxas 12.9 crashes (segmentation fault) on `_` here,
/// which the certification counts as a rejection.
const fn wgmma_d(ty: PtxType, lanes: &'static [(&'static str, u8)]) -> OperandSlot {
    group(
        "d",
        W,
        TypeRef::Fixed(ty),
        Lanes::ByToken {
            slot: Slot::Shape,
            lanes,
        },
    )
}

/// Shared memory matrix descriptors (ptxas 12.9 also takes a literal): in
/// a kernel, a view of a shared buffer the compiler encodes.
const A_DESC: OperandSlot = descriptor("a-desc");
const B_DESC: OperandSlot = descriptor("b-desc");

const fn descriptor(name: &'static str) -> OperandSlot {
    let mut slot = reg(name, R, B64);
    slot.descriptor = true;
    slot
}
/// A from registers: four `.b32` per thread for every input type.
const WGMMA_A: OperandSlot = group("a", R, TypeRef::Fixed(PtxType::B32), Lanes::Fixed(4)).no_imm();
/// Whether D is accumulated into (false: D = A x B).
const SCALE_D: OperandSlot = pred("scale-d", R);
/// Negate A or B: the ISA and ptxas take exactly -1 or 1 ("expected to be
/// -1 or 1"); the range's 0 is not a legal value (the certification renders
/// the minimum, -1).
const SCALE_A: OperandSlot = imm("imm-scale-a", PtxType::S32, -1, 1);
const SCALE_B: OperandSlot = imm("imm-scale-b", PtxType::S32, -1, 1);
/// Transpose A or B (0 or 1): f16/bf16 inputs only.
const TRANS_A: OperandSlot = imm("imm-trans-a", PtxType::U32, 0, 1);
const TRANS_B: OperandSlot = imm("imm-trans-b", PtxType::U32, 0, 1);

const TMA: Usability = Usability::NotYet(
    "tensor maps (TMA descriptors), shared memory tiles and mbarriers or bulk groups",
);
const DIMS: &[&str] = &["1d", "2d", "3d", "4d", "5d"];
const IM2COL_DIMS: &[&str] = &["3d", "4d", "5d"];
const TMA_REDUCE_OPS: &[&str] = &["add", "min", "max", "inc", "dec", "and", "or", "xor"];

/// `[tensorMap, {c0, ..}]`: one `.b32` coordinate per dimension of `.dim`.
const fn tensor(access: Access) -> OperandSlot {
    OperandSlot {
        name: "tensorMap",
        access,
        kind: OperandKind::TensorCoords,
        ty: TypeRef::Fixed(PtxType::B32),
        lanes: Lanes::ByToken {
            slot: Slot::Dim,
            lanes: &[("1d", 1), ("2d", 2), ("3d", 3), ("4d", 4), ("5d", 5)],
        },
        braced: false,
        imm: false,
        sink: false,
        piped: false,
        after_pipe: false,
        own_braces: false,
        whole: false,
        mbarrier: false,
        whole_alignment: 0,
        descriptor: false,
        sink_only: false,
    }
}

/// A usable tile load's box: the operand is a slice of a tensor
/// parameter (its constant extents are the box, its starts the
/// coordinates), moved whole.
const fn tensor_box(access: Access) -> OperandSlot {
    let mut slot = tensor(access);
    slot.whole = true;
    slot
}

/// im2col offsets: `dim - 2` `.b16` values, always in `{..}` (ptxas:
/// "Vector expected" for a bare one at `.3d`); `.4d`/`.5d` here, `.3d` by
/// [`IM2COL_OFFSET_3D`].
const IM2COL_OFFSETS: OperandSlot = group(
    "im2colOffsets",
    R,
    B16,
    Lanes::ByToken {
        slot: Slot::Dim,
        lanes: &[("4d", 2), ("5d", 3)],
    },
);
const IM2COL_OFFSET_3D: OperandSlot = frag("im2colOffsets", R, PtxType::B16, 1);
/// The multicast CTA mask (ptxas 12.9 also takes a literal).
const CTA_MASK: OperandSlot = reg("ctaMask", R, B16);

/// The forms of this family, in lookup order.
pub static FORMS: &[InstructionForm] = &[
    // ------------------------------------------------------------ fences
    form(
        "fence",
        "fence",
        &[
            opt(Slot::Sem, &["sc", "acq_rel"]),
            slot(Slot::Scope, &["cta", "cluster", "gpu", "sys"]),
        ],
        &[],
        no_rule,
        rules::registered::fence_requires,
        "order this thread's memory accesses as seen by the threads of a scope (.sc: sequentially consistent)",
        FENCES,
        Effect::Fence,
    ),
    form(
        "fence.proxy.alias",
        "fence.proxy",
        &[slot(Slot::Proxy, &["alias"])],
        &[],
        no_rule,
        rules::registered::proxy_alias_requires,
        "order accesses made through different virtual aliases of one physical address",
        FENCES,
        Effect::Fence,
    ),
    form(
        "fence.proxy.async",
        "fence.proxy",
        &[
            slot(Slot::Proxy, &["async"]),
            opt(Slot::Space, &["global", "shared::cta", "shared::cluster"]),
        ],
        &[],
        no_rule,
        rules::registered::async_proxy_requires,
        "order generic-proxy accesses against the async proxy (bulk copies, TMA)",
        Usability::Yes,
        Effect::Fence,
    ),
    form(
        "fence.proxy.tensormap-release",
        "fence.proxy",
        &[
            slot(Slot::Proxy, &["tensormap::generic"]),
            slot(Slot::Sem, &["release"]),
            slot(Slot::Scope, &["cta", "cluster", "gpu", "sys"]),
        ],
        &[],
        no_rule,
        rules::registered::tensormap_proxy_requires,
        "release generic-proxy writes of a tensor map to the tensormap proxy",
        PROXIES,
        Effect::Fence,
    ),
    form(
        "fence.proxy.tensormap-acquire",
        "fence.proxy",
        &[
            slot(Slot::Proxy, &["tensormap::generic"]),
            slot(Slot::Sem, &["acquire"]),
            slot(Slot::Scope, &["cta", "cluster", "gpu", "sys"]),
        ],
        &[
            addr("addr", R, PtxType::B8, 128),
            imm("size", PtxType::U32, 128, 128),
        ],
        no_rule,
        rules::registered::tensormap_proxy_requires,
        "acquire the 128-byte tensor map at addr in the tensormap proxy",
        PROXIES,
        Effect::Fence,
    ),
    form(
        "fence.mbarrier_init",
        "fence.mbarrier_init",
        &[
            slot(Slot::Sem, &["release"]),
            slot(Slot::Scope, &["cluster"]),
        ],
        &[],
        no_rule,
        rules::registered::async_proxy_requires,
        "make prior mbarrier.init visible to the cluster (before remote arrives)",
        Usability::Yes,
        Effect::Fence,
    ),
    form(
        "membar",
        "membar",
        &[slot(Slot::Level, &["cta", "gl", "sys"])],
        &[],
        no_rule,
        rules::baseline,
        "memory barrier at CTA, device (gl) or system level (fence.sc of that scope)",
        FENCES,
        Effect::Fence,
    ),
    form(
        "membar.proxy.alias",
        "membar",
        &[slot(Slot::Level, &["proxy"]), slot(Slot::Proxy, &["alias"])],
        &[],
        no_rule,
        rules::registered::proxy_alias_requires,
        "the membar spelling of fence.proxy.alias",
        FENCES,
        Effect::Fence,
    ),
    // ---------------------------------------------------------- barriers
    form(
        "bar.sync",
        "bar",
        &[CTA, slot(Slot::Op, &["sync"])],
        &[BARRIER],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a until all threads of the CTA arrive",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "bar.sync-count",
        "bar",
        &[CTA, slot(Slot::Op, &["sync"])],
        &[BARRIER, COUNT],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a until b threads (a multiple of 32) arrive",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "bar.arrive",
        "bar",
        &[CTA, slot(Slot::Op, &["arrive"])],
        &[BARRIER, COUNT],
        no_rule,
        rules::registered::bar_requires,
        "arrive at barrier a (of b threads) without waiting",
        BARRIERS,
        Effect::Barrier { waits: false },
    ),
    form(
        "bar.red.popc",
        "bar",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["popc"]),
            slot(Slot::Type, &["u32"]),
        ],
        &[reg("d", W, TYPE), BARRIER, C],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a and count the threads whose predicate c is true",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "bar.red.popc-count",
        "bar",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["popc"]),
            slot(Slot::Type, &["u32"]),
        ],
        &[reg("d", W, TYPE), BARRIER, COUNT, C],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a for b threads and count those whose predicate c is true",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "bar.red.pred",
        "bar",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["and", "or"]),
            slot(Slot::Type, &["pred"]),
        ],
        &[pred("d", W), BARRIER, C],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a and reduce predicate c over the threads (and / or)",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "bar.red.pred-count",
        "bar",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["and", "or"]),
            slot(Slot::Type, &["pred"]),
        ],
        &[pred("d", W), BARRIER, COUNT, C],
        no_rule,
        rules::registered::bar_requires,
        "wait at barrier a for b threads and reduce predicate c (and / or)",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.sync",
        "barrier",
        &[CTA, slot(Slot::Op, &["sync"]), ALIGNED],
        &[BARRIER],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a until all threads of the CTA arrive (.aligned: all execute the same barrier instruction)",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.sync-count",
        "barrier",
        &[CTA, slot(Slot::Op, &["sync"]), ALIGNED],
        &[BARRIER, COUNT],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a until b threads (a multiple of 32) arrive",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.arrive",
        "barrier",
        &[CTA, slot(Slot::Op, &["arrive"]), ALIGNED],
        &[BARRIER, COUNT],
        no_rule,
        rules::registered::barrier_requires,
        "arrive at barrier a (of b threads) without waiting",
        BARRIERS,
        Effect::Barrier { waits: false },
    ),
    form(
        "barrier.cluster.arrive",
        "barrier",
        &[
            slot(Slot::Scope, &["cluster"]),
            slot(Slot::Op, &["arrive"]),
            opt(Slot::Sem, &["release"]),
            ALIGNED,
        ],
        &[],
        no_rule,
        rules::registered::barrier_cluster_requires,
        "arrive at the cluster barrier (releasing the thread's earlier accesses to the waits of the phase); .aligned: the warp's threads execute the same barrier instruction",
        Usability::ClusterBarrier,
        Effect::Barrier { waits: false },
    ),
    form(
        "barrier.cluster.arrive.relaxed",
        "barrier",
        &[
            slot(Slot::Scope, &["cluster"]),
            slot(Slot::Op, &["arrive"]),
            slot(Slot::Sem, &["relaxed"]),
            ALIGNED,
        ],
        &[],
        no_rule,
        rules::registered::barrier_cluster_requires,
        "arrive at the cluster barrier without ordering the thread's earlier accesses",
        Usability::NotYet(
            "a relaxed cluster arrival, which orders no memory (the race rule's epochs end at a releasing one)",
        ),
        Effect::Barrier { waits: false },
    ),
    form(
        "barrier.cluster.wait",
        "barrier",
        &[
            slot(Slot::Scope, &["cluster"]),
            slot(Slot::Op, &["wait"]),
            opt(Slot::Sem, &["acquire"]),
            ALIGNED,
        ],
        &[],
        no_rule,
        rules::registered::barrier_cluster_requires,
        "wait until every non-exited thread of the cluster arrived at the cluster barrier (acquire)",
        Usability::ClusterBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.red.popc",
        "barrier",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["popc"]),
            ALIGNED,
            slot(Slot::Type, &["u32"]),
        ],
        &[reg("d", W, TYPE), BARRIER, C],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a and count the threads whose predicate c is true",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.red.popc-count",
        "barrier",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["popc"]),
            ALIGNED,
            slot(Slot::Type, &["u32"]),
        ],
        &[reg("d", W, TYPE), BARRIER, COUNT, C],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a for b threads and count those whose predicate c is true",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.red.pred",
        "barrier",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["and", "or"]),
            ALIGNED,
            slot(Slot::Type, &["pred"]),
        ],
        &[pred("d", W), BARRIER, C],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a and reduce predicate c over the threads (and / or)",
        Usability::CtaBarrier,
        Effect::Barrier { waits: true },
    ),
    form(
        "barrier.red.pred-count",
        "barrier",
        &[
            CTA,
            slot(Slot::Op, &["red"]),
            slot(Slot::Redop, &["and", "or"]),
            ALIGNED,
            slot(Slot::Type, &["pred"]),
        ],
        &[pred("d", W), BARRIER, COUNT, C],
        no_rule,
        rules::registered::barrier_requires,
        "wait at barrier a for b threads and reduce predicate c (and / or)",
        BARRIERS,
        Effect::Barrier { waits: true },
    ),
    form(
        "cp.async.mbarrier.arrive.noinc",
        "cp.async.mbarrier.arrive",
        &[slot(Slot::Noinc, &["noinc"]), SHARED, B64_TYPE],
        &[barrier("addr", R)],
        no_rule,
        rules::registered::mbarrier_requires,
        "arrive on the mbarrier at addr once the thread's prior cp.async operations complete (one of the phase's arrivals)",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "cp.async.mbarrier.arrive",
        "cp.async.mbarrier.arrive",
        &[SHARED, B64_TYPE],
        &[barrier("addr", R)],
        no_rule,
        rules::registered::mbarrier_requires,
        "make the thread's prior cp.async operations a pending arrival of the mbarrier's current phase",
        COUNTED_COPY_ARRIVALS,
        Effect::Mbarrier,
    ),
    // ---------------------------------------------------- cp.async.bulk
    form(
        "cp.async.bulk.global-to-cluster",
        "cp.async.bulk",
        &[
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
        ],
        &[bytes("dst", W), bytes("src", R), SIZE, barrier("mbar", R)],
        no_rule,
        rules::registered::async_proxy_requires,
        "bulk-copy size bytes from global to shared memory, completing on an mbarrier",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.global-to-cluster-multicast",
        "cp.async.bulk",
        &[
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
        ],
        &[
            addr("dst", W, PtxType::B8, 1),
            addr("src", R, PtxType::B8, 1),
            SIZE,
            barrier("mbar", R),
            reg("ctaMask", R, B16),
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "bulk-copy size bytes from global memory to the shared memory of the CTAs in ctaMask",
        BULK_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.cta-to-cluster",
        "cp.async.bulk",
        &[
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
        ],
        &[
            addr("dst", W, PtxType::B8, 1),
            addr("src", R, PtxType::B8, 1),
            SIZE,
            barrier("mbar", R),
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "bulk-copy size bytes from this CTA's shared memory to another CTA's in the cluster",
        BULK_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.to-global",
        "cp.async.bulk",
        &[
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["bulk_group"]),
        ],
        &[bytes("dst", W), bytes("src", R), SIZE],
        no_rule,
        rules::registered::async_proxy_requires,
        "bulk-copy size bytes from shared to global memory, completing in a bulk group",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.prefetch",
        "cp.async.bulk.prefetch",
        &[slot(Slot::Level, &["L2"]), slot(Slot::Src, &["global"])],
        &[addr("src", R, PtxType::B8, 1), SIZE],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch size bytes of global memory into L2",
        BULK_COPIES,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.commit_group",
        "cp.async.bulk.commit_group",
        &[],
        &[],
        no_rule,
        rules::registered::async_proxy_requires,
        "close the thread's pending bulk copies into a bulk group",
        Usability::Yes,
        Effect::AsyncGroup,
    ),
    form(
        "cp.async.bulk.wait_group",
        "cp.async.bulk.wait_group",
        &[opt(Slot::Read, &["read"])],
        &[imm("n", PtxType::U32, 0, 255)],
        no_rule,
        rules::registered::async_proxy_requires,
        "wait until at most n bulk groups are pending (.read: until their sources were read)",
        Usability::Yes,
        Effect::AsyncGroup,
    ),
    // ----------------------------------------------- cp.reduce.async.bulk
    form(
        "cp.reduce.async.bulk.cta-to-cluster",
        "cp.reduce.async.bulk",
        &[
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Op, BULK_REDUCE_OPS),
            slot(Slot::Type, &["b32", "u32", "s32", "b64", "u64"]),
        ],
        &[
            addr("dst", W, PtxType::B8, 1),
            addr("src", R, PtxType::B8, 1),
            SIZE,
            barrier("mbar", R),
        ],
        rules::registered::bulk_reduce,
        rules::registered::async_proxy_requires,
        "reduce size bytes of this CTA's shared memory into another CTA's, completing on an mbarrier",
        BULK_COPIES,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.to-global",
        "cp.reduce.async.bulk",
        &[
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Op, BULK_REDUCE_OPS),
            slot(Slot::Type, BULK_REDUCE_TYPES),
        ],
        &[typed_bytes("dst", W), typed_bytes("src", R), SIZE],
        rules::registered::bulk_reduce,
        rules::registered::async_proxy_requires,
        "reduce size bytes of shared memory into global memory, completing in a bulk group",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.to-global.cache-hint",
        "cp.reduce.async.bulk",
        &[
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
            slot(Slot::Op, BULK_REDUCE_OPS),
            slot(Slot::Type, BULK_REDUCE_TYPES),
        ],
        &[typed_bytes("dst", W), typed_bytes("src", R), SIZE, POLICY],
        rules::registered::bulk_reduce,
        rules::registered::async_proxy_requires,
        "reduce size bytes of shared memory into global memory under an L2 cache policy",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.to-global.noftz",
        "cp.reduce.async.bulk",
        &[
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, HALVES),
        ],
        &[typed_bytes("dst", W), typed_bytes("src", R), SIZE],
        no_rule,
        rules::registered::async_proxy_requires,
        "add size bytes of f16/bf16 shared memory into global memory (no flush to zero)",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.to-global.noftz.cache-hint",
        "cp.reduce.async.bulk",
        &[
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Noftz, &["noftz"]),
            slot(Slot::Type, HALVES),
        ],
        &[typed_bytes("dst", W), typed_bytes("src", R), SIZE, POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "add f16/bf16 shared memory into global memory under an L2 cache policy",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    // --------------------------------------------------------- multimem
    form(
        "multimem.ld_reduce.int",
        "multimem.ld_reduce",
        &[
            opt(Slot::Sem, &["weak", "relaxed", "acquire"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, MULTIMEM_INT_OPS),
            slot(Slot::Type, MULTIMEM_INTS),
        ],
        &[reg("d", W, TYPE), address("a", R)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "load from every GPU's copy of a multicast address and reduce (integers)",
        MULTIMEM,
        Effect::Load {
            non_coherent: false,
        },
    ),
    form(
        "multimem.ld_reduce.float",
        "multimem.ld_reduce",
        &[
            opt(Slot::Sem, &["weak", "relaxed", "acquire"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["min", "max", "add"]),
            opt(Slot::Acc, &["acc::f32"]),
            opt(Slot::Vec, MULTIMEM_VEC),
            slot(Slot::Type, MULTIMEM_FLOATS),
        ],
        &[group("d", W, TYPE, Lanes::Vector), address("a", R)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "load from every GPU's copy of a multicast address and reduce (floating point, vectors)",
        MULTIMEM,
        Effect::Load {
            non_coherent: false,
        },
    ),
    form(
        "multimem.st.int",
        "multimem.st",
        &[
            opt(Slot::Sem, &["weak", "relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Type, MULTIMEM_INTS),
        ],
        &[address("a", W), reg("b", R, TYPE)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "store to every GPU's copy of a multicast address (integers)",
        MULTIMEM,
        Effect::Store,
    ),
    form(
        "multimem.st.float",
        "multimem.st",
        &[
            opt(Slot::Sem, &["weak", "relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            opt(Slot::Vec, MULTIMEM_VEC),
            slot(Slot::Type, MULTIMEM_STORED_FLOATS),
        ],
        &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "store to every GPU's copy of a multicast address (floating point, vectors)",
        MULTIMEM,
        Effect::Store,
    ),
    form(
        "multimem.st.bf16x2",
        "multimem.st",
        &[
            opt(Slot::Sem, &["weak", "relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Vec, &["v2", "v4"]),
            slot(Slot::Type, &["bf16x2"]),
        ],
        &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "store bf16x2 vectors to every GPU's copy of a multicast address",
        MULTIMEM,
        Effect::Store,
    ),
    form(
        "multimem.red.int",
        "multimem.red",
        &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, MULTIMEM_INT_OPS),
            slot(Slot::Type, MULTIMEM_INTS),
        ],
        &[address("a", W), reg("b", R, TYPE)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "reduce b into every GPU's copy of a multicast address (integers)",
        MULTIMEM,
        Effect::Atomic { returns_old: false },
    ),
    form(
        "multimem.red.float",
        "multimem.red",
        &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            opt(Slot::Vec, MULTIMEM_VEC),
            slot(Slot::Type, MULTIMEM_STORED_FLOATS),
        ],
        &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "add b into every GPU's copy of a multicast address (floating point, vectors)",
        MULTIMEM,
        Effect::Atomic { returns_old: false },
    ),
    form(
        "multimem.red.bf16x2",
        "multimem.red",
        &[
            opt(Slot::Sem, &["relaxed", "release"]),
            opt(Slot::Scope, SCOPES),
            opt(Slot::Space, &["global"]),
            slot(Slot::Op, &["add"]),
            slot(Slot::Vec, &["v2", "v4"]),
            slot(Slot::Type, &["bf16x2"]),
        ],
        &[address("a", W), group("b", R, TYPE, Lanes::Vector)],
        rules::registered::multimem,
        rules::registered::multimem_requires,
        "add bf16x2 vectors into every GPU's copy of a multicast address",
        MULTIMEM,
        Effect::Atomic { returns_old: false },
    ),
    // --------------------------------------------------------- mbarrier
    form(
        "mbarrier.init",
        "mbarrier.init",
        &[SHARED, B64_TYPE],
        &[barrier("addr", W), reg("count", R, U32)],
        no_rule,
        rules::registered::mbarrier_requires,
        "initialise the mbarrier at addr to expect count arrivals",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.inval",
        "mbarrier.inval",
        &[SHARED, B64_TYPE],
        &[barrier("addr", W)],
        no_rule,
        rules::registered::mbarrier_requires,
        "invalidate the mbarrier at addr",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive",
        "mbarrier.arrive",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[reg("state", W, B64), barrier("addr", R)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_requires,
        "arrive on the mbarrier at addr; state identifies the phase",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive-count",
        "mbarrier.arrive",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[
            reg("state", W, B64).or_sink(),
            barrier("addr", R),
            reg("count", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "arrive count times on the mbarrier at addr",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive.remote",
        "mbarrier.arrive",
        &[ARRIVE_SEM, MBAR_SCOPE, CLUSTER_SHARED, B64_TYPE],
        &[reg("state", W, B64).only_sink(), barrier("addr", R)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_remote_requires,
        "arrive on the mbarrier at addr in a CTA of the cluster (the state is the sink `_`)",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive.expect_tx",
        "mbarrier.arrive.expect_tx",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[
            reg("state", W, B64).or_sink(),
            barrier("addr", R),
            reg("txCount", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_tx_requires,
        "expect txCount more transaction bytes, then arrive on the mbarrier at addr",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive_drop",
        "mbarrier.arrive_drop",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        // ptxas 12.9 takes `_` here from PTX 7.0 on (for `mbarrier.arrive` only from 7.8).
        &[reg("state", W, B64).or_sink(), barrier("addr", R)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_requires,
        "arrive on the mbarrier at addr and drop out of later phases",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive_drop-count",
        "mbarrier.arrive_drop",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[
            reg("state", W, B64).or_sink(),
            barrier("addr", R),
            reg("count", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "arrive count times and drop out of later phases",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.arrive_drop.expect_tx",
        "mbarrier.arrive_drop.expect_tx",
        &[ARRIVE_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[
            reg("state", W, B64).or_sink(),
            barrier("addr", R),
            reg("txCount", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_tx_requires,
        "expect txCount more transaction bytes, arrive and drop out of later phases",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.expect_tx",
        "mbarrier.expect_tx",
        &[
            opt(Slot::Sem, &["relaxed"]),
            MBAR_SCOPE,
            opt(Slot::Space, &["shared", "shared::cta", "shared::cluster"]),
            B64_TYPE,
        ],
        &[barrier("addr", R), reg("txCount", R, U32)],
        rules::registered::sem_with_scope,
        rules::registered::async_proxy_requires,
        "raise the mbarrier's expected transaction bytes by txCount",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.complete_tx",
        "mbarrier.complete_tx",
        &[
            opt(Slot::Sem, &["relaxed"]),
            MBAR_SCOPE,
            opt(Slot::Space, &["shared", "shared::cta", "shared::cluster"]),
            B64_TYPE,
        ],
        &[barrier("addr", R), reg("txCount", R, U32)],
        rules::registered::sem_with_scope,
        rules::registered::async_proxy_requires,
        "complete txCount transaction bytes on the mbarrier",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.test_wait",
        "mbarrier.test_wait",
        &[WAIT_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[pred("done", W), barrier("addr", R), reg("state", R, B64)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_requires,
        "whether the phase named by state has completed (does not block)",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.test_wait.parity",
        "mbarrier.test_wait",
        &[
            slot(Slot::Parity, &["parity"]),
            WAIT_SEM,
            MBAR_SCOPE,
            SHARED,
            B64_TYPE,
        ],
        &[pred("done", W), barrier("addr", R), reg("parity", R, U32)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_parity_requires,
        "whether the phase of the given parity has completed (does not block)",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.try_wait",
        "mbarrier.try_wait",
        &[WAIT_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[pred("done", W), barrier("addr", R), reg("state", R, B64)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "wait a while for the phase named by state to complete",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.try_wait-hint",
        "mbarrier.try_wait",
        &[WAIT_SEM, MBAR_SCOPE, SHARED, B64_TYPE],
        &[
            pred("done", W),
            barrier("addr", R),
            reg("state", R, B64),
            reg("suspendTimeHint", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "wait up to about suspendTimeHint ns for the phase named by state",
        MBARRIERS,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.try_wait.parity",
        "mbarrier.try_wait",
        &[
            slot(Slot::Parity, &["parity"]),
            WAIT_SEM,
            MBAR_SCOPE,
            SHARED,
            B64_TYPE,
        ],
        &[pred("done", W), barrier("addr", R), reg("parity", R, U32)],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "wait a while for the phase of the given parity to complete",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.try_wait.parity-hint",
        "mbarrier.try_wait",
        &[
            slot(Slot::Parity, &["parity"]),
            WAIT_SEM,
            MBAR_SCOPE,
            SHARED,
            B64_TYPE,
        ],
        &[
            pred("done", W),
            barrier("addr", R),
            reg("parity", R, U32),
            reg("suspendTimeHint", R, U32),
        ],
        rules::registered::sem_with_scope,
        rules::registered::mbarrier_sm90_requires,
        "wait up to about suspendTimeHint ns for the phase of the given parity",
        Usability::Yes,
        Effect::Mbarrier,
    ),
    form(
        "mbarrier.pending_count",
        "mbarrier.pending_count",
        &[B64_TYPE],
        &[reg("count", W, U32), reg("state", R, B64)],
        no_rule,
        rules::registered::mbarrier_requires,
        "the pending arrival count recorded in state",
        MBARRIERS,
        Effect::Pure,
    ),
    // ------------------------------------------------ ldmatrix / stmatrix
    form(
        "ldmatrix.x1",
        "ldmatrix",
        MATRIX_SLOTS_X1,
        &[frag("d", W, PtxType::B32, 1), addr("p", R, PtxType::B16, 8)],
        no_rule,
        rules::registered::ldmatrix_requires,
        "load one 8x8 b16 matrix from shared memory into a warp's registers (one per thread)",
        LDMATRIX,
        Effect::Collective,
    ),
    form(
        "ldmatrix.x2",
        "ldmatrix",
        MATRIX_SLOTS_X2,
        &[frag("d", W, PtxType::B32, 2), addr("p", R, PtxType::B16, 8)],
        no_rule,
        rules::registered::ldmatrix_requires,
        "load two 8x8 b16 matrices from shared memory (two registers per thread)",
        LDMATRIX,
        Effect::Collective,
    ),
    form(
        "ldmatrix.x4",
        "ldmatrix",
        MATRIX_SLOTS_X4,
        &[frag("d", W, PtxType::B32, 4), addr("p", R, PtxType::B16, 8)],
        no_rule,
        rules::registered::ldmatrix_requires,
        "load four 8x8 b16 matrices from shared memory (four registers per thread)",
        LDMATRIX,
        Effect::Collective,
    ),
    form(
        "stmatrix.x1",
        "stmatrix",
        MATRIX_SLOTS_X1,
        &[
            addr("p", W, PtxType::B16, 8),
            frag("r", R, PtxType::B32, 1).no_imm(),
        ],
        no_rule,
        rules::registered::stmatrix_requires,
        "store one 8x8 b16 matrix from a warp's registers to shared memory",
        STMATRIX,
        Effect::Collective,
    ),
    form(
        "stmatrix.x2",
        "stmatrix",
        MATRIX_SLOTS_X2,
        &[
            addr("p", W, PtxType::B16, 8),
            frag("r", R, PtxType::B32, 2).no_imm(),
        ],
        no_rule,
        rules::registered::stmatrix_requires,
        "store two 8x8 b16 matrices to shared memory",
        STMATRIX,
        Effect::Collective,
    ),
    form(
        "stmatrix.x4",
        "stmatrix",
        MATRIX_SLOTS_X4,
        &[
            addr("p", W, PtxType::B16, 8),
            frag("r", R, PtxType::B32, 4).no_imm(),
        ],
        no_rule,
        rules::registered::stmatrix_requires,
        "store four 8x8 b16 matrices to shared memory",
        STMATRIX,
        Effect::Collective,
    ),
    // --------------------------------------------------------- mma.sync
    form(
        "mma.m16n8k16.f32",
        "mma",
        &mma_slots(&["m16n8k16"], &["f32"], HALVES, &["f32"]),
        &[
            frag("d", W, PtxType::F32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::F32, 4),
        ],
        rules::registered::mma_same_multiplicands,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 f32 tile, k = 16 halves (A: 4, B: 2 packed pairs per thread)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k16.f16",
        "mma",
        &mma_slots(&["m16n8k16"], &["f16"], &["f16"], &["f16"]),
        &[
            frag("d", W, PtxType::F16x2, 2),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::F16x2, 2),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 f16 tile, k = 16 (accumulators are f16 pairs)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k8.f32",
        "mma",
        &mma_slots(&["m16n8k8"], &["f32"], HALVES, &["f32"]),
        &[
            frag("d", W, PtxType::F32, 4),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::F32, 4),
        ],
        rules::registered::mma_same_multiplicands,
        rules::registered::mma_m16n8k8_requires,
        "D = A x B + C on a 16x8 f32 tile, k = 8 halves",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k8.f16",
        "mma",
        &mma_slots(&["m16n8k8"], &["f16"], &["f16"], &["f16"]),
        &[
            frag("d", W, PtxType::F16x2, 2),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::F16x2, 2),
        ],
        no_rule,
        rules::registered::mma_m16n8k8_requires,
        "D = A x B + C on a 16x8 f16 tile, k = 8",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k8.tf32",
        "mma",
        &mma_slots(&["m16n8k8"], &["f32"], &["tf32"], &["f32"]),
        &[
            frag("d", W, PtxType::F32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::F32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 f32 tile, k = 8 tf32",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k4.tf32",
        "mma",
        &mma_slots(&["m16n8k4"], &["f32"], &["tf32"], &["f32"]),
        &[
            frag("d", W, PtxType::F32, 4),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::F32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 f32 tile, k = 4 tf32",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k32.int8",
        "mma",
        &mma_int_slots(&["m16n8k32"]),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 s32 tile, k = 32 8-bit integers (signedness may mix; .satfinite clamps)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k16.int8",
        "mma",
        &mma_int_slots(&["m16n8k16"]),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 s32 tile, k = 16 8-bit integers",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k32.fp8",
        "mma",
        &mma_slots(&["m16n8k32"], &["f32"], FP8, &["f32"]),
        &[
            frag("d", W, PtxType::F32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::F32, 4),
        ],
        no_rule,
        rules::registered::mma_fp8_requires,
        "D = A x B + C on a 16x8 f32 tile, k = 32 fp8 (e4m3 and e5m2 may mix)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k64.int4",
        "mma",
        &mma_int_typed_slots(&["m16n8k64"], INT4),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 s32 tile, k = 64 4-bit integers (signedness may mix; .satfinite clamps)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k32.int4",
        "mma",
        &mma_int_typed_slots(&["m16n8k32"], INT4),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on a 16x8 s32 tile, k = 32 4-bit integers",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m8n8k4.f64",
        "mma",
        &[
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Aligned, &["aligned"]),
            slot(Slot::Shape, &["m8n8k4"]),
            slot(Slot::Alayout, &["row"]),
            slot(Slot::Blayout, &["col"]),
            slot(Slot::Dtype, &["f64"]),
            slot(Slot::Atype, &["f64"]),
            slot(Slot::Btype, &["f64"]),
            slot(Slot::Ctype, &["f64"]),
        ],
        &[
            frag("d", W, PtxType::F64, 2),
            // ptxas 12.9 takes `{0d..}` literals for the f64 multiplicands.
            frag("a", R, PtxType::F64, 1),
            frag("b", R, PtxType::F64, 1),
            frag("c", R, PtxType::F64, 2),
        ],
        no_rule,
        rules::registered::mma_sm80_requires,
        "D = A x B + C on an 8x8 f64 tile, k = 4",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m8n8k16.int8",
        "mma",
        &mma_int_typed_slots(&["m8n8k16"], INT8),
        &[
            frag("d", W, PtxType::S32, 2),
            frag("a", R, PtxType::B32, 1).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 2),
        ],
        no_rule,
        rules::registered::mma_m8n8_int_requires,
        "D = A x B + C on an 8x8 s32 tile, k = 16 8-bit integers",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m8n8k32.int4",
        "mma",
        &mma_int_typed_slots(&["m8n8k32"], INT4),
        &[
            frag("d", W, PtxType::S32, 2),
            frag("a", R, PtxType::B32, 1).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 2),
        ],
        no_rule,
        rules::registered::mma_m8n8_int_requires,
        "D = A x B + C on an 8x8 s32 tile, k = 32 4-bit integers",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m8n8k128.b1",
        "mma",
        &mma_b1_slots(&["m8n8k128"]),
        &[
            frag("d", W, PtxType::S32, 2),
            frag("a", R, PtxType::B32, 1).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 2),
        ],
        no_rule,
        rules::registered::mma_m8n8_b1_requires,
        "D = popc(A op B) + C on an 8x8 s32 tile, k = 128 bits",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k256.b1",
        "mma",
        &mma_b1_slots(&["m16n8k256"]),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 4).no_imm(),
            frag("b", R, PtxType::B32, 2).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_b1_requires,
        "D = popc(A op B) + C on a 16x8 s32 tile, k = 256 bits (op: .xor or .and)",
        MMA,
        Effect::Collective,
    ),
    form(
        "mma.m16n8k128.b1",
        "mma",
        &mma_b1_slots(&["m16n8k128"]),
        &[
            frag("d", W, PtxType::S32, 4),
            frag("a", R, PtxType::B32, 2).no_imm(),
            frag("b", R, PtxType::B32, 1).no_imm(),
            frag("c", R, PtxType::S32, 4),
        ],
        no_rule,
        rules::registered::mma_b1_requires,
        "D = popc(A op B) + C on a 16x8 s32 tile, k = 128 bits",
        MMA,
        Effect::Collective,
    ),
    // ------------------------------------------------------------ wgmma
    form(
        "wgmma.f32.f16-bf16",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K16, &["f32"], HALVES, HALVES),
        &[
            wgmma_d(PtxType::F32, WGMMA_K16_F32),
            A_DESC,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
            TRANS_A,
            TRANS_B,
        ],
        rules::registered::mma_same_multiplicands,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile of a warpgroup, k = 16 halves, A and B in shared memory (descriptors)",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f32.f16-bf16.reg-a",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K16, &["f32"], HALVES, HALVES),
        &[
            wgmma_d(PtxType::F32, WGMMA_K16_F32),
            WGMMA_A,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
            TRANS_B,
        ],
        rules::registered::mma_same_multiplicands,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile, k = 16 halves, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f16.f16",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K16, &["f16"], &["f16"], &["f16"]),
        &[
            wgmma_d(PtxType::F16x2, WGMMA_K16_F16),
            A_DESC,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
            TRANS_A,
            TRANS_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f16 tile (packed pairs), k = 16, A and B in shared memory",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f16.f16.reg-a",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K16, &["f16"], &["f16"], &["f16"]),
        &[
            wgmma_d(PtxType::F16x2, WGMMA_K16_F16),
            WGMMA_A,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
            TRANS_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f16 tile (packed pairs), k = 16, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f32.tf32",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K8, &["f32"], &["tf32"], &["tf32"]),
        &[
            wgmma_d(PtxType::F32, WGMMA_K8_F32),
            A_DESC,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile, k = 8 tf32, A and B in shared memory",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f32.tf32.reg-a",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K8, &["f32"], &["tf32"], &["tf32"]),
        &[
            wgmma_d(PtxType::F32, WGMMA_K8_F32),
            WGMMA_A,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile, k = 8 tf32, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f32.fp8",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K32, &["f32"], FP8, FP8),
        &[
            wgmma_d(PtxType::F32, WGMMA_K32_F32),
            A_DESC,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile, k = 32 fp8 (e4m3 and e5m2 may mix), A and B in shared memory",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f32.fp8.reg-a",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K32, &["f32"], FP8, FP8),
        &[
            wgmma_d(PtxType::F32, WGMMA_K32_F32),
            WGMMA_A,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f32 tile, k = 32 fp8, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f16.fp8",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K32, &["f16"], FP8, FP8),
        &[
            wgmma_d(PtxType::F16x2, WGMMA_K32_F16),
            A_DESC,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f16 tile, k = 32 fp8 (e4m3 and e5m2 may mix), A and B in shared memory",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.f16.fp8.reg-a",
        "wgmma.mma_async",
        &wgmma_slots(WGMMA_K32, &["f16"], FP8, FP8),
        &[
            wgmma_d(PtxType::F16x2, WGMMA_K32_F16),
            WGMMA_A,
            B_DESC,
            SCALE_D,
            SCALE_A,
            SCALE_B,
        ],
        no_rule,
        rules::registered::wgmma_requires,
        "D = A x B (+ D) on a 64xN f16 tile, k = 32 fp8, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.s32.int8",
        "wgmma.mma_async",
        WGMMA_INT_SLOTS,
        &[
            wgmma_d(PtxType::S32, WGMMA_INT_S32),
            A_DESC,
            B_DESC,
            SCALE_D,
        ],
        no_rule,
        rules::registered::wgmma_int_requires,
        "D = A x B (+ D) on a 64xN s32 tile, k = 32 8-bit integers, A and B in shared memory (.satfinite clamps)",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.s32.int8.reg-a",
        "wgmma.mma_async",
        WGMMA_INT_SLOTS,
        &[
            wgmma_d(PtxType::S32, WGMMA_INT_S32),
            WGMMA_A,
            B_DESC,
            SCALE_D,
        ],
        no_rule,
        rules::registered::wgmma_int_requires,
        "D = A x B (+ D) on a 64xN s32 tile, k = 32 8-bit integers, A from registers",
        WGMMA,
        Effect::WarpgroupMma,
    ),
    form(
        "wgmma.fence",
        "wgmma.fence",
        &[
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Aligned, &["aligned"]),
        ],
        &[],
        no_rule,
        rules::registered::wgmma_requires,
        "order prior register accesses of the warpgroup before wgmma.mma_async reads them",
        WGMMA,
        Effect::Fence,
    ),
    form(
        "wgmma.commit_group",
        "wgmma.commit_group",
        &[
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Aligned, &["aligned"]),
        ],
        &[],
        no_rule,
        rules::registered::wgmma_requires,
        "close the warpgroup's pending wgmma.mma_async operations into a wgmma group",
        WGMMA,
        Effect::AsyncGroup,
    ),
    form(
        "wgmma.wait_group",
        "wgmma.wait_group",
        &[
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Aligned, &["aligned"]),
        ],
        // ptxas 12.9 takes any integer; the table caps it.
        &[imm("n", PtxType::U32, 0, 255)],
        no_rule,
        rules::registered::wgmma_requires,
        "wait until at most n wgmma groups are pending",
        WGMMA,
        Effect::AsyncGroup,
    ),
    // ------------------------------------------------------------ setmaxnreg
    form(
        "setmaxnreg",
        "setmaxnreg",
        &[
            slot(Slot::Action, &["inc", "dec"]),
            slot(Slot::Sync, &["sync"]),
            slot(Slot::Aligned, &["aligned"]),
            slot(Slot::Type, &["u32"]),
        ],
        // A multiple of 8 (ptxas: "expected to be multiple of 8"), which
        // the register pool obligation checks with its span.
        &[imm("imm-reg-count", PtxType::U32, 24, 256)],
        no_rule,
        rules::registered::wgmma_requires,
        "set the registers each thread of the warpgroup owns to imm-reg-count, releasing (.dec) or taking (.inc) them from the CTA's pool",
        SETMAXNREG,
        Effect::RegisterCount,
    ),
    // ------------------------------------------- cp.async.bulk.tensor (TMA)
    form(
        "cp.async.bulk.tensor.load.tile",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
        ],
        &[box_bytes("dstMem", W), tensor_box(R), barrier("mbar", R)],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of the tensor at the coordinates into shared memory, completing on an mbarrier",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.tile.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            box_bytes("dstMem", W),
            tensor_box(R),
            barrier("mbar", R),
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of the tensor at the coordinates into shared memory, completing on an mbarrier (L2 cache policy)",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.tile.multicast",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
        ],
        &[
            box_bytes("dstMem", W),
            tensor_box(R),
            barrier("mbar", R),
            CTA_MASK,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of the tensor at the coordinates into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.tile.multicast.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            box_bytes("dstMem", W),
            tensor_box(R),
            barrier("mbar", R),
            CTA_MASK,
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of the tensor at the coordinates into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask (L2 cache policy)",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col-3d",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSET_3D,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col-3d.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSET_3D,
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col-3d.multicast",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSET_3D,
            CTA_MASK,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col-3d.multicast.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSET_3D,
            CTA_MASK,
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSETS,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSETS,
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col.multicast",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSETS,
            CTA_MASK,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.load.im2col.multicast.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Dst, &["shared::cluster"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Completion, &["mbarrier::complete_tx::bytes"]),
            slot(Slot::Multicast, &["multicast::cluster"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[
            addr("dstMem", W, PtxType::B8, 1),
            tensor(R),
            barrier("mbar", R),
            IM2COL_OFFSETS,
            CTA_MASK,
            POLICY,
        ],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy an im2col box of the tensor at the coordinates (plus offsets) into shared memory, completing on an mbarrier, multicast to the CTAs in ctaMask (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.store.tile",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["bulk_group"]),
        ],
        &[tensor_box(W), box_bytes("srcMem", R)],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of shared memory to the tensor at the coordinates, completing in a bulk group",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.store.tile.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor_box(W), box_bytes("srcMem", R), POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of shared memory to the tensor at the coordinates, completing in a bulk group (L2 cache policy)",
        Usability::Yes,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.store.im2col",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, IM2COL_DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::LoadMode, &["im2col_no_offs"]),
            slot(Slot::Completion, &["bulk_group"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1)],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of shared memory to the tensor at the coordinates, completing in a bulk group",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.tensor.store.im2col.cache-hint",
        "cp.async.bulk.tensor",
        &[
            slot(Slot::Dim, IM2COL_DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::LoadMode, &["im2col_no_offs"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1), POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "copy a box of shared memory to the tensor at the coordinates, completing in a bulk group (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.tensor.tile",
        "cp.reduce.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Op, TMA_REDUCE_OPS),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["bulk_group"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1)],
        no_rule,
        rules::registered::async_proxy_requires,
        "reduce a box of shared memory into the tensor at the coordinates (the element type is the tensor map's), completing in a bulk group",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.tensor.tile.cache-hint",
        "cp.reduce.async.bulk.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Op, TMA_REDUCE_OPS),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1), POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "reduce a box of shared memory into the tensor at the coordinates (the element type is the tensor map's), completing in a bulk group (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.tensor.im2col",
        "cp.reduce.async.bulk.tensor",
        &[
            slot(Slot::Dim, IM2COL_DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Op, TMA_REDUCE_OPS),
            slot(Slot::LoadMode, &["im2col_no_offs"]),
            slot(Slot::Completion, &["bulk_group"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1)],
        no_rule,
        rules::registered::async_proxy_requires,
        "reduce a box of shared memory into the tensor at the coordinates (the element type is the tensor map's), completing in a bulk group",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.reduce.async.bulk.tensor.im2col.cache-hint",
        "cp.reduce.async.bulk.tensor",
        &[
            slot(Slot::Dim, IM2COL_DIMS),
            slot(Slot::Dst, &["global"]),
            slot(Slot::Src, &["shared::cta"]),
            slot(Slot::Op, TMA_REDUCE_OPS),
            slot(Slot::LoadMode, &["im2col_no_offs"]),
            slot(Slot::Completion, &["bulk_group"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(W), addr("srcMem", R, PtxType::B8, 1), POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "reduce a box of shared memory into the tensor at the coordinates (the element type is the tensor map's), completing in a bulk group (L2 cache policy)",
        TMA,
        Effect::AsyncCopy,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.tile",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
        ],
        &[tensor(R)],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2",
        TMA,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.tile.cache-hint",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, DIMS),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            opt(Slot::LoadMode, &["tile"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(R), POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2 (L2 cache policy)",
        TMA,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.im2col-3d",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
        ],
        &[tensor(R), IM2COL_OFFSET_3D],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2",
        TMA,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.im2col-3d.cache-hint",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, &["3d"]),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(R), IM2COL_OFFSET_3D, POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2 (L2 cache policy)",
        TMA,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.im2col",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
        ],
        &[tensor(R), IM2COL_OFFSETS],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2",
        TMA,
        Effect::Prefetch,
    ),
    form(
        "cp.async.bulk.prefetch.tensor.im2col.cache-hint",
        "cp.async.bulk.prefetch.tensor",
        &[
            slot(Slot::Dim, &["4d", "5d"]),
            slot(Slot::Level, &["L2"]),
            slot(Slot::Src, &["global"]),
            slot(Slot::LoadMode, &["im2col"]),
            slot(Slot::Hint, &["L2::cache_hint"]),
        ],
        &[tensor(R), IM2COL_OFFSETS, POLICY],
        no_rule,
        rules::registered::async_proxy_requires,
        "prefetch a box of the tensor at the coordinates into L2 (L2 cache policy)",
        TMA,
        Effect::Prefetch,
    ),
];

#[cfg(test)]
mod tests {
    use super::FORMS;
    use crate::ptx::resolve::legal_variants;

    fn count(id: &str) -> usize {
        legal_variants(FORMS.iter().find(|f| f.id == id).expect("form id")).len()
    }

    #[test]
    fn variant_counts() {
        // fence{.sc,.acq_rel}.{cta,cluster,gpu,sys}: 3 x 4
        assert_eq!(count("fence"), 12);
        // fence.proxy.alias
        assert_eq!(count("fence.proxy.alias"), 1);
        // fence.proxy.async{.global,.shared::cta,.shared::cluster}
        assert_eq!(count("fence.proxy.async"), 4);
        // fence.proxy.tensormap::generic.release.{cta,cluster,gpu,sys}
        assert_eq!(count("fence.proxy.tensormap-release"), 4);
        // fence.proxy.tensormap::generic.acquire.{cta,cluster,gpu,sys} [addr], 128
        assert_eq!(count("fence.proxy.tensormap-acquire"), 4);
        // fence.mbarrier_init.release.cluster
        assert_eq!(count("fence.mbarrier_init"), 1);
        // membar.{cta,gl,sys}
        assert_eq!(count("membar"), 3);
        // membar.proxy.alias
        assert_eq!(count("membar.proxy.alias"), 1);
        // bar{.cta}.sync a{, b}; bar{.cta}.arrive a, b
        for id in ["bar.sync", "bar.sync-count", "bar.arrive"] {
            assert_eq!(count(id), 2, "{id}");
        }
        // bar{.cta}.red.popc.u32 d, a{, b}, {!}c
        assert_eq!(count("bar.red.popc"), 2);
        assert_eq!(count("bar.red.popc-count"), 2);
        // bar{.cta}.red.{and,or}.pred p, a{, b}, {!}c
        assert_eq!(count("bar.red.pred"), 4);
        assert_eq!(count("bar.red.pred-count"), 4);
        // barrier{.cta}.{sync,arrive}{.aligned} a{, b}
        for id in ["barrier.sync", "barrier.sync-count", "barrier.arrive"] {
            assert_eq!(count(id), 4, "{id}");
        }
        // barrier{.cta}.red.popc{.aligned}.u32 d, a{, b}, {!}c
        assert_eq!(count("barrier.red.popc"), 4);
        assert_eq!(count("barrier.red.popc-count"), 4);
        // barrier{.cta}.red.{and,or}{.aligned}.pred p, a{, b}, {!}c
        assert_eq!(count("barrier.red.pred"), 8);
        assert_eq!(count("barrier.red.pred-count"), 8);
        // cp.async.mbarrier.arrive.noinc{.shared{::cta}}.b64 [addr], and without .noinc
        assert_eq!(count("cp.async.mbarrier.arrive.noinc"), 3);
        assert_eq!(count("cp.async.mbarrier.arrive"), 3);
        // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
        assert_eq!(count("cp.async.bulk.global-to-cluster"), 1);
        assert_eq!(count("cp.async.bulk.global-to-cluster-multicast"), 1);
        // cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
        assert_eq!(count("cp.async.bulk.cta-to-cluster"), 1);
        // cp.async.bulk.global.shared::cta.bulk_group
        assert_eq!(count("cp.async.bulk.to-global"), 1);
        // cp.async.bulk.prefetch.L2.global [src], size
        assert_eq!(count("cp.async.bulk.prefetch"), 1);
        // cp.async.bulk.commit_group; cp.async.bulk.wait_group{.read} N
        assert_eq!(count("cp.async.bulk.commit_group"), 1);
        assert_eq!(count("cp.async.bulk.wait_group"), 2);
        // cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.redOp.type:
        // and/or/xor x b32 (ptxas 12.9 rejects the ISA's .b64) 3, add x
        // {u32, s32, u64} 3, inc/dec x u32 2, min/max x {u32, s32} 4.
        assert_eq!(count("cp.reduce.async.bulk.cta-to-cluster"), 3 + 3 + 2 + 4);
        // cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.redOp.type:
        // and/or/xor x {b32, b64} 6, add x {u32, s32, u64, f32, f64} 5,
        // inc/dec x u32 2, min/max x {u32, s32, u64, s64, f16, bf16} 12.
        assert_eq!(count("cp.reduce.async.bulk.to-global"), 6 + 5 + 2 + 12);
        assert_eq!(
            count("cp.reduce.async.bulk.to-global.cache-hint"),
            6 + 5 + 2 + 12
        );
        // ....bulk_group{.L2::cache_hint}.add.noftz.{f16, bf16}
        assert_eq!(count("cp.reduce.async.bulk.to-global.noftz"), 2);
        assert_eq!(count("cp.reduce.async.bulk.to-global.noftz.cache-hint"), 2);
        // multimem prefixes, as ptxas 12.9 takes them (a scope exactly with
        // a strong .sem): ld_reduce and st {-, .weak, 2 sems x 4 scopes} x
        // {-, .global} = 20; red {-, 2 sems x 4 scopes} x 2 = 18.
        // Integer op x type: and/or/xor x {b32, b64} 6, add x {u32, s32, u64}
        // 3, min/max x {u32, s32, u64, s64} 8 = 17.
        assert_eq!(count("multimem.ld_reduce.int"), 20 * 17);
        assert_eq!(count("multimem.red.int"), 18 * 17);
        assert_eq!(count("multimem.st.int"), 20 * 6);
        // Floating point {.vec}.type: f16/bf16 only as .v2/.v4/.v8, f16x2/bf16x2
        // and f32 as -, .v2, .v4, f64 scalar only: 3 x 5 + 1 = 16 shapes.
        // ld_reduce: add x 16 + add.acc::f32 x the 12 half shapes + min/max x
        // the 12 half shapes = 52.
        assert_eq!(count("multimem.ld_reduce.float"), 20 * (16 + 12 + 2 * 12));
        // st/red.add without bf16x2 (13 shapes); bf16x2 as .v2/.v4 only.
        assert_eq!(count("multimem.st.float"), 20 * 13);
        assert_eq!(count("multimem.st.bf16x2"), 20 * 2);
        assert_eq!(count("multimem.red.float"), 18 * 13);
        assert_eq!(count("multimem.red.bf16x2"), 18 * 2);
        // mbarrier.{init,inval}{.shared{::cta}}.b64 ...
        assert_eq!(count("mbarrier.init"), 3);
        assert_eq!(count("mbarrier.inval"), 3);
        // mbarrier.<arrive op>{.sem}{.scope}{.shared{::cta}}.b64 ..., .sem =
        // {.release, .relaxed}, .scope = {.cta, .cluster}, both or neither
        // (ptxas rejects one alone): (1 + 2 x 2) x 3
        for id in [
            "mbarrier.arrive",
            "mbarrier.arrive-count",
            "mbarrier.arrive.expect_tx",
            "mbarrier.arrive_drop",
            "mbarrier.arrive_drop-count",
            "mbarrier.arrive_drop.expect_tx",
        ] {
            assert_eq!(count(id), 5 * 3, "{id}");
        }
        // mbarrier.{test_wait,try_wait}{.parity}{.sem}{.scope}{.shared{::cta}}.b64 ...,
        // .sem = {.acquire, .relaxed}, .scope = {.cta, .cluster}: (1 + 2 x 2) x 3
        for id in [
            "mbarrier.test_wait",
            "mbarrier.test_wait.parity",
            "mbarrier.try_wait",
            "mbarrier.try_wait-hint",
            "mbarrier.try_wait.parity",
            "mbarrier.try_wait.parity-hint",
        ] {
            assert_eq!(count(id), 5 * 3, "{id}");
        }
        // mbarrier.{expect_tx,complete_tx}{.relaxed}{.scope}{.shared{::cta},.shared::cluster}.b64
        // [addr], txCount: (1 + 2) x 4
        assert_eq!(count("mbarrier.expect_tx"), 3 * 4);
        assert_eq!(count("mbarrier.complete_tx"), 3 * 4);
        // mbarrier.pending_count.b64 count, state
        assert_eq!(count("mbarrier.pending_count"), 1);
        // ldmatrix/stmatrix.sync.aligned.m8n8.xN{.trans}{.shared{::cta}}.b16: 2 x 3
        for id in [
            "ldmatrix.x1",
            "ldmatrix.x2",
            "ldmatrix.x4",
            "stmatrix.x1",
            "stmatrix.x2",
            "stmatrix.x4",
        ] {
            assert_eq!(count(id), 6, "{id}");
        }
        // mma.sync.aligned.m16n8k{16,8}.row.col.f32.{f16,bf16}.<same>.f32
        assert_eq!(count("mma.m16n8k16.f32"), 2);
        assert_eq!(count("mma.m16n8k8.f32"), 2);
        // mma.sync.aligned.m16n8k{16,8}.row.col.f16.f16.f16.f16
        assert_eq!(count("mma.m16n8k16.f16"), 1);
        assert_eq!(count("mma.m16n8k8.f16"), 1);
        // mma.sync.aligned.m16n8k{8,4}.row.col.f32.tf32.tf32.f32
        assert_eq!(count("mma.m16n8k8.tf32"), 1);
        assert_eq!(count("mma.m16n8k4.tf32"), 1);
        // mma.sync.aligned.m16n8k{32,16}.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32: 2 x 2 x 2
        assert_eq!(count("mma.m16n8k32.int8"), 8);
        assert_eq!(count("mma.m16n8k16.int8"), 8);
        // mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32
        assert_eq!(count("mma.m16n8k32.fp8"), 4);
        // mma.sync.aligned.m16n8k{64,32}.row.col{.satfinite}.s32.{s4,u4}.{s4,u4}.s32: 2 x 2 x 2
        assert_eq!(count("mma.m16n8k64.int4"), 8);
        assert_eq!(count("mma.m16n8k32.int4"), 8);
        // mma.sync.aligned.m16n8k{256,128}.row.col.s32.b1.b1.s32.{xor,and}.popc
        assert_eq!(count("mma.m16n8k256.b1"), 2);
        assert_eq!(count("mma.m16n8k128.b1"), 2);
        // mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 d, a, b, c
        assert_eq!(count("mma.m8n8k4.f64"), 1);
        // mma.sync.aligned.m8n8k16.row.col{.satfinite}.s32.{s8,u8}.{s8,u8}.s32
        assert_eq!(count("mma.m8n8k16.int8"), 8);
        // mma.sync.aligned.m8n8k32.row.col{.satfinite}.s32.{s4,u4}.{s4,u4}.s32
        assert_eq!(count("mma.m8n8k32.int4"), 8);
        // mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.{xor,and}.popc
        assert_eq!(count("mma.m8n8k128.b1"), 2);
        // wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.<same>, N = 8..=256 by 8 (32 shapes),
        // with A by descriptor or from registers
        assert_eq!(count("wgmma.f32.f16-bf16"), 32 * 2);
        assert_eq!(count("wgmma.f32.f16-bf16.reg-a"), 32 * 2);
        // wgmma.mma_async.sync.aligned.m64nNk16.f16.f16.f16
        assert_eq!(count("wgmma.f16.f16"), 32);
        assert_eq!(count("wgmma.f16.f16.reg-a"), 32);
        // wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32
        assert_eq!(count("wgmma.f32.tf32"), 32);
        assert_eq!(count("wgmma.f32.tf32.reg-a"), 32);
        // wgmma.mma_async.sync.aligned.m64nNk32.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}
        for id in [
            "wgmma.f32.fp8",
            "wgmma.f32.fp8.reg-a",
            "wgmma.f16.fp8",
            "wgmma.f16.fp8.reg-a",
        ] {
            assert_eq!(count(id), 32 * 4, "{id}");
        }
        // wgmma.mma_async.sync.aligned.m64nNk32{.satfinite}.s32.{s8,u8}.{s8,u8},
        // N = 8, 16, 24, 32, 48..=256 by 16 (18 shapes)
        assert_eq!(count("wgmma.s32.int8"), 18 * 2 * 4);
        assert_eq!(count("wgmma.s32.int8.reg-a"), 18 * 2 * 4);
        // wgmma.fence/commit_group.sync.aligned; wgmma.wait_group.sync.aligned N
        assert_eq!(count("wgmma.fence"), 1);
        assert_eq!(count("wgmma.commit_group"), 1);
        assert_eq!(count("wgmma.wait_group"), 1);
        // setmaxnreg.{inc,dec}.sync.aligned.u32 imm-reg-count
        assert_eq!(count("setmaxnreg"), 2);
        // cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
        assert_eq!(count("cp.async.bulk.tensor.load.tile"), 10);
        // cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes.L2::cache_hint
        assert_eq!(count("cp.async.bulk.tensor.load.tile.cache-hint"), 10);
        // cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes.multicast::cluster
        assert_eq!(count("cp.async.bulk.tensor.load.tile.multicast"), 10);
        // cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        assert_eq!(
            count("cp.async.bulk.tensor.load.tile.multicast.cache-hint"),
            10
        );
        // cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes
        assert_eq!(count("cp.async.bulk.tensor.load.im2col-3d"), 1);
        // cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint
        assert_eq!(count("cp.async.bulk.tensor.load.im2col-3d.cache-hint"), 1);
        // cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster
        assert_eq!(count("cp.async.bulk.tensor.load.im2col-3d.multicast"), 1);
        // cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        assert_eq!(
            count("cp.async.bulk.tensor.load.im2col-3d.multicast.cache-hint"),
            1
        );
        // cp.async.bulk.tensor.{4d,5d}.shared::cluster.global.im2col.mbarrier::complete_tx::bytes
        assert_eq!(count("cp.async.bulk.tensor.load.im2col"), 2);
        // cp.async.bulk.tensor.{4d,5d}.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint
        assert_eq!(count("cp.async.bulk.tensor.load.im2col.cache-hint"), 2);
        // cp.async.bulk.tensor.{4d,5d}.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster
        assert_eq!(count("cp.async.bulk.tensor.load.im2col.multicast"), 2);
        // cp.async.bulk.tensor.{4d,5d}.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        assert_eq!(
            count("cp.async.bulk.tensor.load.im2col.multicast.cache-hint"),
            2
        );
        // cp.async.bulk.tensor.{1d..5d}.global.shared::cta{.tile}.bulk_group
        assert_eq!(count("cp.async.bulk.tensor.store.tile"), 10);
        // cp.async.bulk.tensor.{1d..5d}.global.shared::cta{.tile}.bulk_group.L2::cache_hint
        assert_eq!(count("cp.async.bulk.tensor.store.tile.cache-hint"), 10);
        // cp.async.bulk.tensor.{3d,4d,5d}.global.shared::cta.im2col_no_offs.bulk_group
        assert_eq!(count("cp.async.bulk.tensor.store.im2col"), 3);
        // cp.async.bulk.tensor.{3d,4d,5d}.global.shared::cta.im2col_no_offs.bulk_group.L2::cache_hint
        assert_eq!(count("cp.async.bulk.tensor.store.im2col.cache-hint"), 3);
        // cp.reduce.async.bulk.tensor.{1d..5d}.global.shared::cta.{add,min,max,inc,dec,and,or,xor}{.tile}.bulk_group
        assert_eq!(count("cp.reduce.async.bulk.tensor.tile"), 80);
        // cp.reduce.async.bulk.tensor.{1d..5d}.global.shared::cta.{add,min,max,inc,dec,and,or,xor}{.tile}.bulk_group.L2::cache_hint
        assert_eq!(count("cp.reduce.async.bulk.tensor.tile.cache-hint"), 80);
        // cp.reduce.async.bulk.tensor.{3d,4d,5d}.global.shared::cta.{add,min,max,inc,dec,and,or,xor}.im2col_no_offs.bulk_group
        assert_eq!(count("cp.reduce.async.bulk.tensor.im2col"), 24);
        // cp.reduce.async.bulk.tensor.{3d,4d,5d}.global.shared::cta.{add,min,max,inc,dec,and,or,xor}.im2col_no_offs.bulk_group.L2::cache_hint
        assert_eq!(count("cp.reduce.async.bulk.tensor.im2col.cache-hint"), 24);
        // cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global{.tile}
        assert_eq!(count("cp.async.bulk.prefetch.tensor.tile"), 10);
        // cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global{.tile}.L2::cache_hint
        assert_eq!(count("cp.async.bulk.prefetch.tensor.tile.cache-hint"), 10);
        // cp.async.bulk.prefetch.tensor.3d.L2.global.im2col
        assert_eq!(count("cp.async.bulk.prefetch.tensor.im2col-3d"), 1);
        // cp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint
        assert_eq!(
            count("cp.async.bulk.prefetch.tensor.im2col-3d.cache-hint"),
            1
        );
        // cp.async.bulk.prefetch.tensor.{4d,5d}.L2.global.im2col
        assert_eq!(count("cp.async.bulk.prefetch.tensor.im2col"), 2);
        // cp.async.bulk.prefetch.tensor.{4d,5d}.L2.global.im2col.L2::cache_hint
        assert_eq!(count("cp.async.bulk.prefetch.tensor.im2col.cache-hint"), 2);
    }
}
