//! Legality rules and target requirements of the registered-but-not-yet-usable
//! family (`table/registered.rs`). Floors are the PTX ISA's, measured against
//! ptxas 12.9 by the certification tests (one ISA step or one target lower
//! is rejected).

use super::*;
#[allow(unused_imports)]
use crate::ptx::Slot;

/// `fence{.sem}.scope`: PTX ISA 6.0, sm_70; `.cluster` scope PTX 7.8, sm_90.
pub fn fence_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get(Slot::Scope) == Some("cluster") {
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
/// `mbarrier.complete_tx`, the latter two also with `.relaxed` and a
/// scope, measured): PTX ISA 8.0, sm_90.
pub fn async_proxy_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 0)
}

/// `fence.proxy.tensormap::generic`: PTX ISA 8.3, sm_90.
pub fn tensormap_proxy_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 3)
}

/// `bar`: PTX ISA 2.0; the `.cta` spelling PTX 7.8.
pub fn bar_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Scope) {
        Requirement::new(70, 7, 8)
    } else {
        Requirement::new(20, 2, 0)
    }
}

/// `barrier`: PTX ISA 6.0, sm_70; the `.cta` spelling PTX 7.8.
pub fn barrier_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Scope) {
        Requirement::new(70, 7, 8)
    } else {
        Requirement::new(70, 6, 0)
    }
}

/// `barrier.cluster`: PTX ISA 7.8, sm_90; an explicit `.release`,
/// `.relaxed` or `.acquire` PTX 8.0.
pub fn barrier_cluster_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Sem) {
        Requirement::new(90, 8, 0)
    } else {
        Requirement::new(90, 7, 8)
    }
}

/// `cp.async`: PTX ISA 7.0, sm_80; an L2 prefetch size or `.L2::cache_hint`
/// PTX 7.4. (ptxas 12.9 takes `.shared::cta` here from PTX 7.0 on, measured.)
pub fn cp_async_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Prefetch) || m.has(Slot::Hint) {
        Requirement::new(80, 7, 4)
    } else {
        Requirement::new(80, 7, 0)
    }
}

/// `cp.async.commit_group`, `.wait_group`, `.wait_all`: PTX ISA 7.0, sm_80.
pub fn cp_async_group_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(80, 7, 0)
}

/// mbarrier memory ordering on arrivals and waits (measured with ptxas
/// 12.9): `.release`/`.acquire` PTX ISA 8.0 -- at `.cta` scope from sm_80
/// on (ptxas takes `mbarrier.arrive.release.cta` on sm_89), at `.cluster`
/// sm_90; `.relaxed` PTX 8.6, sm_90.
fn mbarrier_order(m: &Modifiers) -> Requirement {
    match (m.get(Slot::Sem), m.get(Slot::Scope)) {
        (Some("relaxed"), _) => Requirement::new(90, 8, 6),
        (Some(_), Some("cluster")) => Requirement::new(90, 8, 0),
        (Some(_), _) => Requirement::new(80, 8, 0),
        (None, _) => Requirement::new(20, 1, 0),
    }
}

/// mbarrier `.sem` and `.scope`: ptxas takes both or neither.
pub fn sem_with_scope(m: &Modifiers) -> Result<(), Violation> {
    match (m.get(Slot::Sem), m.get(Slot::Scope)) {
        (Some(sem), None) => Err(Violation::at(
            sem,
            format!(".{sem} needs a scope: write .{sem}.cta or .{sem}.cluster"),
        )),
        (None, Some(scope)) => Err(Violation::at(
            scope,
            format!(".{scope} needs a memory ordering before it (.sem.{scope})"),
        )),
        _ => Ok(()),
    }
}

/// mbarrier transaction counts (`.expect_tx`, `.complete_tx`): PTX ISA
/// 8.0, sm_90, plus the ordering's floor.
pub fn mbarrier_tx_requires(m: &Modifiers, t: Target) -> Requirement {
    async_proxy_requires(m, t).max(mbarrier_order(m))
}

/// Shared-memory objects of sm_80 (`mbarrier` basics,
/// `cp.async.mbarrier.arrive`): PTX ISA 7.0, sm_80; `.shared::cta` PTX 7.8.
pub fn mbarrier_requires(m: &Modifiers, _: Target) -> Requirement {
    let base = if m.get(Slot::Space) == Some("shared::cta") {
        Requirement::new(80, 7, 8)
    } else {
        Requirement::new(80, 7, 0)
    };
    base.max(mbarrier_order(m))
}

/// `mbarrier.test_wait.parity`: PTX ISA 7.1, sm_80; `.shared::cta` PTX 7.8.
pub fn mbarrier_parity_requires(m: &Modifiers, t: Target) -> Requirement {
    mbarrier_requires(m, t).max(Requirement::new(80, 7, 1))
}

/// `mbarrier.try_wait`, `mbarrier.arrive` with a count: PTX ISA 7.8, sm_90.
pub fn mbarrier_sm90_requires(m: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 7, 8).max(mbarrier_order(m))
}

/// An arrive on a `.shared::cluster` object (another CTA's): sm_90; the
/// sink `state` it takes needs PTX ISA 8.0 in ptxas 12.9 (7.8's syntax
/// has it, ptxas rejects it there).
pub fn mbarrier_remote_requires(m: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 0).max(mbarrier_order(m))
}

/// `ldmatrix`: PTX ISA 6.5, sm_75; `.shared::cta` PTX 7.8.
pub fn ldmatrix_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get(Slot::Space) == Some("shared::cta") {
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
    if m.get(Slot::Atype) == Some("bf16") {
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

/// Single-bit `mma.sync` at `.m16n8k128`/`.m16n8k256`: `.xor.popc` PTX
/// ISA 7.0, sm_80; `.and.popc` PTX 7.1.
pub fn mma_b1_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get(Slot::Bitop) == Some("and") {
        Requirement::new(80, 7, 1)
    } else {
        Requirement::new(80, 7, 0)
    }
}

/// `mma.sync` with fp8 (`.e4m3`/`.e5m2`) multiplicands: PTX ISA 8.4, sm_89.
pub fn mma_fp8_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(89, 8, 4)
}

/// `mma.sync` with half or tf32 multiplicands: A and B have one type
/// (only fp8 and 8-bit integers mix).
pub fn mma_same_multiplicands(m: &Modifiers) -> Result<(), Violation> {
    match (m.get(Slot::Atype), m.get(Slot::Btype)) {
        (Some(a), Some(b)) if a != b => Err(Violation::at(
            b,
            format!("mma multiplies .{a} by .{a} only: .btype must be .{a}, not .{b}"),
        )),
        _ => Ok(()),
    }
}

/// `cp.reduce.async.bulk` (ISA 9.7.9.25.4.2): which reductions each type
/// has. Bitwise `.and/.or/.xor` on `.b32/.b64` (only `.b32` into
/// `.shared::cluster`: ptxas 12.9 rejects `.b64` there, which the ISA
/// lists); `.inc/.dec` on `.u32`;
/// `.add` on `.u32/.s32/.u64` (and `.f32/.f64` into global memory; the
/// half types take `.add.noftz`, their own forms); `.min/.max` on
/// `.u32/.s32` (and `.u64/.s64/.f16/.bf16` into global memory).
pub fn bulk_reduce(m: &Modifiers) -> Result<(), Violation> {
    let (Some(op), Some(ty)) = (m.get(Slot::Op), m.get(Slot::Type)) else {
        return Ok(());
    };
    let global = m.get(Slot::Dst) == Some("global");
    let allowed: &[&str] = match (op, global) {
        ("and" | "or" | "xor", true) => &["b32", "b64"],
        // The ISA lists `.b64` too; ptxas 12.9 rejects it (measured).
        ("and" | "or" | "xor", false) => &["b32"],
        ("inc" | "dec", _) => &["u32"],
        ("add", true) => &["u32", "s32", "u64", "f32", "f64"],
        ("add", false) => &["u32", "s32", "u64"],
        ("min" | "max", true) => &["u32", "s32", "u64", "s64", "f16", "bf16"],
        ("min" | "max", false) => &["u32", "s32"],
        _ => return Ok(()),
    };
    if allowed.contains(&ty) {
        return Ok(());
    }
    let list: Vec<String> = allowed.iter().map(|t| format!(".{t}")).collect();
    Err(Violation::at(
        ty,
        format!(
            "cp.reduce.async.bulk.{}.{op} takes {}, not .{ty}",
            m.get(Slot::Dst).unwrap_or("?"),
            list.join(", ")
        ),
    ))
}

/// `multimem.*` (ISA 9.7.9.27): PTX ISA 8.1, sm_90; `.acc::f32` PTX 8.2
/// (measured with ptxas 12.9).
pub fn multimem_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Acc) {
        Requirement::new(90, 8, 2)
    } else {
        Requirement::new(90, 8, 1)
    }
}

/// `multimem.ld_reduce/st/red`, as ptxas 12.9 checks them (measured): a
/// scope exactly with `.relaxed/.acquire/.release` (never with `.weak`,
/// nor alone); `.and/.or/.xor` on `.b32/.b64`, `.add` on `.u32/.s32/.u64`
/// and the floating-point types, `.min/.max` on 32/64-bit integers and the
/// half types; `.acc::f32` with `.add` of half types only; `.f16/.bf16`
/// only as vectors, `.f64` never, vectors within 128 bits.
pub fn multimem(m: &Modifiers) -> Result<(), Violation> {
    match (m.get(Slot::Sem), m.get(Slot::Scope)) {
        (Some("weak"), Some(scope)) => {
            return Err(Violation::at(scope, ".weak takes no scope"));
        }
        (Some(sem), None) if sem != "weak" => {
            return Err(Violation::at(
                sem,
                format!(".{sem} needs a scope: write .{sem}.gpu (or .cta, .cluster, .sys)"),
            ));
        }
        (None, Some(scope)) => {
            return Err(Violation::at(
                scope,
                format!(".{scope} needs a memory ordering before it (.relaxed.{scope})"),
            ));
        }
        _ => {}
    }
    let Some(ty) = m.ty(Slot::Type) else {
        return Ok(());
    };
    let token = ty.token();
    let half = matches!(
        ty,
        PtxType::F16 | PtxType::F16x2 | PtxType::Bf16 | PtxType::Bf16x2
    );
    if let Some(op) = m.get(Slot::Op) {
        let allowed: &[&str] = match op {
            "and" | "or" | "xor" => &["b32", "b64"],
            "add" => &[
                "u32", "s32", "u64", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64",
            ],
            _ => &["u32", "s32", "u64", "s64", "f16", "bf16", "f16x2", "bf16x2"],
        };
        if !allowed.contains(&token) {
            return Err(Violation::at(
                token,
                format!("{}.{op} does not take .{token}", m.form.mnemonic),
            ));
        }
        if let Some(acc) = m.get(Slot::Acc)
            && (op != "add" || !half)
        {
            return Err(Violation::at(
                acc,
                format!(".{acc} applies to .add of the half types only"),
            ));
        }
    }
    match (m.get(Slot::Vec), ty) {
        (None, PtxType::F16 | PtxType::Bf16) if m.has_slot(Slot::Vec) => Err(Violation::at(
            token,
            format!("a single .{token} is not a multimem access: write .v2.{token} or wider"),
        )),
        (Some(vec), PtxType::F64) => Err(Violation::at(vec, ".f64 takes no vector")),
        (Some(vec), _) if vec[1..].parse().unwrap_or(1) * ty.carrier_bits() > 128 => Err(
            Violation::at(vec, format!(".{vec}.{token} would move more than 128 bits")),
        ),
        _ => Ok(()),
    }
}

/// `wgmma.*` (ISA 9.7.15): PTX ISA 8.0, sm_90a only.
pub fn wgmma_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::arch_specific(&[90], 8, 0)
}

/// Integer `wgmma.mma_async`: PTX ISA 8.0, sm_90a; mixed `.s8`/`.u8`
/// multiplicands PTX 8.4 (measured: ptxas 12.9 "Feature 'WGMMA with mixed
/// integer types' requires PTX ISA .version 8.4").
pub fn wgmma_int_requires(m: &Modifiers, t: Target) -> Requirement {
    if m.get(Slot::Atype) != m.get(Slot::Btype) {
        Requirement::arch_specific(&[90], 8, 4)
    } else {
        wgmma_requires(m, t)
    }
}

/// `mma.sync` at `.m8n8k16` (8-bit) and `.m8n8k32` (4-bit): PTX ISA 6.5, sm_75.
pub fn mma_m8n8_int_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(75, 6, 5)
}

/// Single-bit `mma.sync` at `.m8n8k128`: `.xor.popc` PTX ISA 7.0, sm_75
/// (ptxas 12.9: "Feature '.m8n8k128' requires PTX ISA .version 7.0");
/// `.and.popc` PTX 7.1, sm_80.
pub fn mma_m8n8_b1_requires(m: &Modifiers, _: Target) -> Requirement {
    if m.get(Slot::Bitop) == Some("and") {
        Requirement::new(80, 7, 1)
    } else {
        Requirement::new(75, 7, 0)
    }
}

/// `cp.async` with an `ignore-src` predicate: PTX ISA 7.5 (and 7.4's
/// needs of cache hints and prefetch sizes), sm_80.
pub fn cp_async_ignore_src_requires(m: &Modifiers, t: Target) -> Requirement {
    cp_async_requires(m, t).max(Requirement::new(80, 7, 5))
}
