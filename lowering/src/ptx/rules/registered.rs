//! Legality rules and target requirements of the registered-but-not-yet-usable
//! family (`table/registered.rs`). Floors are the PTX ISA's, measured against
//! ptxas 12.9 by the certification tests (one ISA step or one target lower
//! is rejected).

#[allow(unused_imports)]
use super::*;

/// `fence{.sem}.scope`: PTX ISA 6.0, sm_70; `.cluster` scope PTX 7.8, sm_90.
pub fn fence_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get("scope") == Some("cluster") {
        Requirement::new(90, 7, 8)
    } else {
        Requirement::new(70, 6, 0)
    }
}

/// `fence.proxy.alias`, `membar.proxy.alias`: PTX ISA 7.5, sm_70.
pub fn proxy_alias_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(70, 7, 5)
}

/// The asynchronous proxy and transaction counts (`fence.proxy.async`,
/// `fence.mbarrier_init`, `cp.async.bulk`, `mbarrier.*expect_tx`,
/// `mbarrier.complete_tx`): PTX ISA 8.0, sm_90.
pub fn async_proxy_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 0)
}

/// `fence.proxy.tensormap::generic`: PTX ISA 8.3, sm_90.
pub fn tensormap_proxy_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 3)
}

/// `bar`: PTX ISA 2.0; the `.cta` spelling PTX 7.8.
pub fn bar_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has("scope") {
        Requirement::new(70, 7, 8)
    } else {
        Requirement::new(20, 2, 0)
    }
}

/// `barrier`: PTX ISA 6.0, sm_70; the `.cta` spelling PTX 7.8.
pub fn barrier_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has("scope") {
        Requirement::new(70, 7, 8)
    } else {
        Requirement::new(70, 6, 0)
    }
}

/// `cp.async`: PTX ISA 7.0, sm_80; an L2 prefetch size PTX 7.4. (ptxas
/// 12.9 takes `.shared::cta` here from PTX 7.0 on, measured.)
pub fn cp_async_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has("prefetch") {
        Requirement::new(80, 7, 4)
    } else {
        Requirement::new(80, 7, 0)
    }
}

/// `cp.async.commit_group`, `.wait_group`, `.wait_all`: PTX ISA 7.0, sm_80.
pub fn cp_async_group_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(80, 7, 0)
}

/// Shared-memory objects of sm_80 (`mbarrier` basics,
/// `cp.async.mbarrier.arrive`): PTX ISA 7.0, sm_80; `.shared::cta` PTX 7.8.
pub fn mbarrier_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get("space") == Some("shared::cta") {
        Requirement::new(80, 7, 8)
    } else {
        Requirement::new(80, 7, 0)
    }
}

/// `mbarrier.test_wait.parity`: PTX ISA 7.1, sm_80; `.shared::cta` PTX 7.8.
pub fn mbarrier_parity_requires(m: &Modifiers, t: Target) -> Requirement {
    mbarrier_requires(m, t).max(Requirement::new(80, 7, 1))
}

/// `mbarrier.try_wait`, `mbarrier.arrive` with a count: PTX ISA 7.8, sm_90.
pub fn mbarrier_sm90_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 7, 8)
}

/// `ldmatrix`: PTX ISA 6.5, sm_75; `.shared::cta` PTX 7.8.
pub fn ldmatrix_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get("space") == Some("shared::cta") {
        Requirement::new(75, 7, 8)
    } else {
        Requirement::new(75, 6, 5)
    }
}

/// `stmatrix`: PTX ISA 7.8, sm_90.
pub fn stmatrix_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 7, 8)
}

/// `mma.sync` with `.f16` multiplicands at `.m16n8k8`: PTX ISA 6.5, sm_75;
/// with `.bf16` PTX 7.0, sm_80.
pub fn mma_m16n8k8_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get("atype") == Some("bf16") {
        Requirement::new(80, 7, 0)
    } else {
        Requirement::new(75, 6, 5)
    }
}

/// `mma.sync` shapes of sm_80 (`.m16n8k16`, `.tf32`, 8-bit integers): PTX
/// ISA 7.0, sm_80.
pub fn mma_sm80_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(80, 7, 0)
}

/// `mma.sync` with fp8 (`.e4m3`/`.e5m2`) multiplicands: PTX ISA 8.4, sm_89.
pub fn mma_fp8_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(89, 8, 4)
}

/// `mma.sync` with half or tf32 multiplicands: A and B have one type
/// (only fp8 and 8-bit integers mix).
pub fn mma_same_multiplicands(m: &Modifiers) -> Result<(), Violation> {
    match (m.get("atype"), m.get("btype")) {
        (Some(a), Some(b)) if a != b => Err(Violation::at(
            b,
            format!("mma multiplies .{a} by .{a} only: .btype must be .{a}, not .{b}"),
        )),
        _ => Ok(()),
    }
}
