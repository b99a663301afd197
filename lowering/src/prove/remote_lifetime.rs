//! The lifetime obligation of distributed shared memory: an access to
//! another CTA's shared buffer (`.in_cta(rank)`) happens while that CTA
//! runs.
//!
//! **Model** (PTX ISA 8.0, "Distributed shared memory"; CUDA's cluster
//! guide). The CTAs of a cluster are launched together, but nothing says
//! one has started when another runs its first instruction, and a CTA's
//! shared memory ends with it: accessing the shared memory of a CTA that
//! has not started or has exited is undefined. A cluster barrier
//! (`barrier.cluster.arrive` + `barrier.cluster.wait`, which every thread
//! of the cluster runs: `sema` proves it) completes only once every CTA
//! of the cluster arrived, so after a wait every CTA has started, and a
//! CTA that waits after its last remote access keeps the others alive
//! until that access is done (they cannot pass the barrier, and exit,
//! before its arrival).
//!
//! **Input**: the checked body. **Output**: TK0430 at the first remote
//! access that some path from the kernel's start reaches before any
//! cluster barrier; TK0431 at a remote access after which some path
//! reaches the kernel's end without one.
//!
//! Guarantee: on every execution path, each remote access has a cluster
//! barrier before it and another after it.

use crate::checked::{Node, Value};
use crate::diag::{Code, Diagnostic, SpanId};

/// What the walk knows at a point of the body.
#[derive(Debug, Clone)]
struct State {
    /// Every path from the kernel's start to here passed a cluster wait.
    synced: bool,
    /// A remote access (its operand's span and buffer) some path reached
    /// here from with no cluster wait after it.
    pending: Option<(SpanId, String)>,
}

/// TK0430 and TK0431 for `body` (see the module doc).
pub(crate) fn prove(body: &[Node]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let start = State {
        synced: false,
        pending: None,
    };
    let end = walk(body, start, &mut diags);
    if let Some((span, name)) = end.pending {
        diags.push(
            Diagnostic::new(
                Code::REMOTE_AFTER_CLUSTER_BARRIER,
                span,
                format!("the kernel can end after this access to another CTA's copy of `{name}` with no cluster barrier in between: that CTA may have exited, and its shared memory with it"),
            )
            .with_help("end the kernel with a cluster barrier after the last access (`barrier.cluster.arrive` then `barrier.cluster.wait`, `scope = \"cluster\"`)"),
        );
    }
    diags
}

fn walk(nodes: &[Node], mut state: State, diags: &mut Vec<Diagnostic>) -> State {
    for node in nodes {
        match node {
            Node::Apply(apply) => {
                // A multicast copy writes every CTA's copy of its
                // destination and signals every CTA's mbarrier.
                let multicast = super::cluster_rings::is_multicast(apply);
                let remote = apply.operands.iter().find_map(|o| match &o.value {
                    Value::Memory {
                        cta: Some(_), name, ..
                    } => Some((o.span, name)),
                    Value::Memory { name, .. }
                        if multicast && o.slot.access == crate::ptx::Access::Write =>
                    {
                        Some((o.span, name))
                    }
                    _ => None,
                });
                let Some((span, name)) = remote else { continue };
                if !state.synced && diags.is_empty() {
                    let what = if multicast {
                        format!("this multicast into the other CTAs' copies of `{name}`")
                    } else {
                        format!("this access to another CTA's copy of `{name}`")
                    };
                    diags.push(
                        Diagnostic::new(
                            Code::REMOTE_BEFORE_CLUSTER_BARRIER,
                            span,
                            format!("{what} can run before any cluster barrier: that CTA may not have started yet"),
                        )
                        .with_help("put a cluster barrier before it (`barrier.cluster.arrive` then `barrier.cluster.wait`, `scope = \"cluster\"`)"),
                    );
                }
                if state.pending.is_none() {
                    state.pending = Some((span, name.clone()));
                }
            }
            Node::CtaBarrier { cluster: true } => {
                state.synced = true;
                state.pending = None;
            }
            Node::If {
                then, otherwise, ..
            } => {
                let a = walk(then, state.clone(), diags);
                let b = walk(otherwise, state, diags);
                state = State {
                    synced: a.synced && b.synced,
                    pending: a.pending.or(b.pending),
                };
            }
            // The body may run no time (the state before stays possible)
            // or several: an iteration starts as the loop does or as an
            // iteration ends, which is at least as synchronized, and its
            // pending access is the one that survives the last.
            Node::Loop(looped) => {
                let end = walk(&looped.body, state.clone(), diags);
                state.pending = state.pending.or(end.pending);
            }
            Node::CtaBarrier { cluster: false }
            | Node::Define(_)
            | Node::Havoc(_)
            | Node::CondRead(_) => {}
        }
    }
    state
}
