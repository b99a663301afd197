//! Distributed shared memory: kernels of a cluster whose threads reach
//! their own and the other CTAs' copies of a shared buffer (`.in_cta`),
//! with and without the cluster barriers that order and bound those
//! accesses. What compiles must run on the interpreter without a fault:
//! a race across CTAs, a rank outside the cluster and a remote access
//! before the first or after the last cluster barrier are all faults
//! there, so one that compiles is a hole in a proof.

use super::*;
use crate::near_legal::{call, plain_apply, tensor_slice};
use crate::scoped::{call0, shared_alloc, span_item, viewed};

/// A shared access of `sh` at `idx`, in CTA `rank` when there is one.
fn sh_at(rank: Option<Expr>, idx: Expr) -> Operand {
    let mut views = Vec::new();
    if let Some(rank) = rank {
        views.push(ViewKind::InCta(rank));
    }
    views.push(ViewKind::Slice(vec![span_item(idx, 1)]));
    viewed("sh", views)
}

fn v() -> Operand {
    build::place("v", Vec::new())
}

/// `barrier.cluster.arrive` then `barrier.cluster.wait`.
fn cluster_barrier() -> Vec<Stmt> {
    vec![
        build::apply_scoped("barrier.cluster.arrive", Vec::new(), "cluster"),
        build::apply_scoped("barrier.cluster.wait", Vec::new(), "cluster"),
    ]
}

/// A CTA rank: the thread's own, the other of a pair, the next, constants
/// (some outside the cluster), and ranks that differ between threads.
fn rank(ctas: i128) -> impl Strategy<Value = Expr> {
    let own = call0("cluster_ctarank");
    prop_oneof![
        2 => Just(binary(BinOp::Sub, int(1), own.clone())),
        2 => Just(binary(
            BinOp::Rem,
            binary(BinOp::Add, own.clone(), int(1)),
            int(ctas)
        )),
        1 => Just(own),
        1 => (0i128..3).prop_map(int),
        1 => Just(binary(BinOp::Rem, call("thread_id", 0), int(ctas))),
        1 => Just(binary(BinOp::Rem, call("thread_id", 0), int(4))),
    ]
}

/// An element of `sh` (of `threads` elements): the thread's own, the
/// first, the mirrored one.
fn index(threads: i128) -> impl Strategy<Value = Expr> {
    let t = call("thread_id", 0);
    prop_oneof![
        3 => Just(t.clone()),
        1 => Just(int(0)),
        1 => Just(binary(BinOp::Sub, int(threads - 1), t)),
    ]
}

/// One statement between the barriers.
fn statement(ctas: i128, threads: i128) -> impl Strategy<Value = Vec<Stmt>> {
    (0u8..8, rank(ctas), index(threads)).prop_map(|(kind, rank, idx)| match kind {
        0 => vec![plain_apply(
            "ld.shared::cluster.u32",
            vec![v(), sh_at(Some(rank), idx)],
            None,
        )],
        1 => vec![plain_apply(
            "st.shared::cluster.u32",
            vec![sh_at(Some(rank), idx), v()],
            None,
        )],
        2 => vec![plain_apply(
            "red.shared::cluster.add.u32",
            vec![sh_at(Some(rank), idx), v()],
            None,
        )],
        3 => vec![plain_apply(
            "ld.shared.u32",
            vec![v(), sh_at(None, idx)],
            None,
        )],
        4 => vec![plain_apply(
            "st.shared.u32",
            vec![sh_at(None, idx), v()],
            None,
        )],
        5 => vec![build::apply_scoped(
            "bar.sync",
            vec![build::literal(0)],
            "cta",
        )],
        _ => cluster_barrier(),
    })
}

/// A kernel of `threads` threads a CTA in clusters of `ctas` (1: none)
/// over `x`, `y: Tensor<u32, N>`: each thread stores its element of `sh`,
/// then (behind a cluster barrier, mostly) runs the statements, and
/// (behind another, mostly) stores `v` to `y`.
pub(crate) fn distributed_kernel() -> impl Strategy<Value = Kernel> {
    (
        prop::sample::select(vec![1u32, 2, 2, 4]),
        prop::sample::select(vec![32i128, 64]),
        prop::sample::select(vec![4u32, 8, 6]),
        any::<[bool; 2]>(),
    )
        .prop_flat_map(|(ctas, threads, grid, barriers)| {
            prop::collection::vec(statement(i128::from(ctas.max(2)), threads), 1..5).prop_map(
                move |statements| {
                    let t = call("thread_id", 0);
                    let i = binary(
                        BinOp::Add,
                        binary(BinOp::Mul, call("cta_id", 0), int(threads)),
                        t.clone(),
                    );
                    let mut body = vec![
                        shared_alloc("sh", DType::U32, int(threads)),
                        build::alloc("v", DType::U32, &[1]),
                        plain_apply("mov.u32", vec![v(), build::literal(1)], None),
                        plain_apply("st.shared.u32", vec![sh_at(None, t.clone()), v()], None),
                    ];
                    if barriers[0] {
                        body.extend(cluster_barrier());
                    }
                    body.extend(statements.into_iter().flatten());
                    if barriers[1] {
                        body.extend(cluster_barrier());
                    }
                    body.push(plain_apply(
                        "st.global.u32",
                        vec![tensor_slice("y", i.clone(), 1), v()],
                        Some(binary(BinOp::Lt, i, name("N"))),
                    ));
                    Kernel {
                        name: "k".to_string(),
                        name_span: SpanId(0),
                        launch: LaunchDims {
                            cluster: [ctas, 1, 1],
                            cluster_span: SpanId(62),
                            ..LaunchDims::fixed([grid, 1, 1], [threads as u32, 1, 1])
                        },
                        target: Target::SM_90,
                        params: vec![
                            build::tensor("x", DType::U32, vec![name("N")]),
                            build::tensor("y", DType::U32, vec![name("N")]),
                        ],
                        body,
                    }
                },
            )
        })
}
