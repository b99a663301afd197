//! Legality rules and target requirements of the memory family
//! (`table/memory.rs`).
//!
//! Every rule here was checked against ptxas 12.9 over each form's whole
//! slot product (`lowering/tests/certify.rs`); the messages paraphrase the
//! ISA's syntax lines.

use super::*;
use crate::ptx::Slot;

/// Whether the form's address is global or generic (no `space` token):
/// where eviction priorities, prefetch sizes and cache hints apply.
fn global_or_generic(m: &Modifiers) -> bool {
    matches!(m.get(Slot::Space), None | Some("global"))
}

/// `ld`/`st`/`ldu`: vectors move at most 128 bits (`.b128` is never a
/// vector); cache operators and L1 eviction priorities are separate syntax
/// lines; `.nc` is a weak `.global` load with `.ca/.cg/.cs` at most;
/// eviction priorities and prefetch sizes exist for global (or generic)
/// addresses only.
pub fn access(m: &Modifiers) -> Result<(), Violation> {
    if let (Some(vec), Some(ty)) = (m.get(Slot::Vec), m.ty(Slot::Type)) {
        let lanes = if vec == "v2" { 2 } else { 4 };
        if lanes * ty.carrier_bits() > 128 {
            return Err(Violation::at(
                vec,
                format!(
                    ".{vec}.{} would move {} bits; vector accesses are limited to 128 bits",
                    ty.token(),
                    lanes * ty.carrier_bits()
                ),
            ));
        }
    }
    if let Some(nc) = m.get(Slot::Nc) {
        if m.get(Slot::Space) != Some("global") {
            return Err(Violation::at(
                nc,
                ".nc loads need the .global space: write ld.global.nc",
            ));
        }
        if let Some(sem) = m.get(Slot::Sem) {
            return Err(Violation::at(
                sem,
                format!(
                    ".{sem} cannot be combined with .nc: a non-coherent load is weak by definition"
                ),
            ));
        }
        if let Some(cop) = m.get(Slot::Cop).filter(|c| !["ca", "cg", "cs"].contains(c)) {
            return Err(Violation::at(
                cop,
                format!("ld.global.nc takes only the .ca, .cg or .cs cache operator, not .{cop}"),
            ));
        }
    }
    if let (Some(cop), Some(_)) = (m.get(Slot::Cop), m.get(Slot::Evict)) {
        return Err(Violation::at(
            cop,
            "cache operators and eviction priorities are mutually exclusive: write one or the other",
        ));
    }
    if !global_or_generic(m) {
        let space = m.get(Slot::Space).unwrap_or("?");
        for slot in [Slot::Evict, Slot::Prefetch] {
            if let Some(token) = m.get(slot) {
                return Err(Violation::at(
                    token,
                    format!(".{token} applies to global (or generic) addresses only, not .{space}"),
                ));
            }
        }
    }
    Ok(())
}

/// Floors of `ld`/`st`/`ldu` (measured with ptxas 12.9, matching the ISA's
/// target notes): memory-consistency qualifiers sm_70 / PTX 6.0, `.cluster`
/// and `.shared::cluster` sm_90 / PTX 7.8, `.shared::cta` PTX 7.8, eviction
/// priorities PTX 7.4 (sm_70), prefetch sizes sm_75 (`L2::256B` sm_80),
/// `.L2::cache_hint` sm_80 / PTX 7.4, `.mmio` PTX 8.2, `.b128` and
/// `.param::entry/::func` PTX 8.3.
pub fn access_requires(m: &Modifiers, _: Target) -> Requirement {
    let mut req = Requirement::new(20, 1, 0);
    if m.has(Slot::Nc) {
        req = req.max(Requirement::new(32, 3, 1));
    }
    if m.has(Slot::Sem) || m.has(Slot::Scope) {
        req = req.max(Requirement::new(70, 6, 0));
    }
    req = req.max(scope_and_space(m));
    if m.has(Slot::Evict) {
        req = req.max(Requirement::new(70, 7, 4));
    }
    match m.get(Slot::Prefetch) {
        Some("L2::256B") => req = req.max(Requirement::new(80, 7, 4)),
        Some(_) => req = req.max(Requirement::new(75, 7, 4)),
        None => {}
    }
    if m.has(Slot::Hint) {
        req = req.max(Requirement::new(80, 7, 4));
    }
    if m.has(Slot::Mmio) {
        req = req.max(Requirement::new(70, 8, 2));
    }
    req = req.max(b128(m, Requirement::new(70, 8, 3)));
    if matches!(m.get(Slot::Space), Some("param::entry" | "param::func")) {
        req = req.max(Requirement::new(70, 8, 3));
    }
    req
}

/// `.b128` accesses: `floor`, and PTX 8.4 at `.sys` scope (ptxas 12.9
/// rejects `ld.relaxed.sys.b128` under PTX 8.3 but takes `.gpu`).
fn b128(m: &Modifiers, floor: Requirement) -> Requirement {
    match (m.ty(Slot::Type), m.get(Slot::Scope)) {
        (Some(PtxType::B128), Some("sys")) => floor.max(Requirement::new(floor.sm, 8, 4)),
        (Some(PtxType::B128), _) => floor,
        _ => Requirement::new(20, 1, 0),
    }
}

/// `.cluster` scope and `.shared::cluster` are Hopper's (sm_90, PTX 7.8);
/// the `.shared::cta` spelling is PTX 7.8 on any target.
fn scope_and_space(m: &Modifiers) -> Requirement {
    let mut req = Requirement::new(20, 1, 0);
    if m.get(Slot::Scope) == Some("cluster") || m.get(Slot::Space) == Some("shared::cluster") {
        req = req.max(Requirement::new(90, 7, 8));
    }
    if m.get(Slot::Space) == Some("shared::cta") {
        req = req.max(Requirement::new(20, 7, 8));
    }
    req
}

/// `atom`/`red`: which operations each type has (ISA 9.7.13.5): bitwise
/// `.and/.or/.xor` on `.b32/.b64`; `.exch` on `.b32/.b64/.b128`; `.add` on
/// `.u32/.s32/.u64/.f32/.f64` (and the half types, own forms); `.inc/.dec`
/// on `.u32`; `.min/.max` on 32- and 64-bit integers.
pub fn atomic(m: &Modifiers) -> Result<(), Violation> {
    let (Some(op), Some(ty)) = (m.get(Slot::Op), m.ty(Slot::Type)) else {
        return Ok(());
    };
    let allowed: &[PtxType] = match op {
        "and" | "or" | "xor" => &[PtxType::B32, PtxType::B64],
        "exch" => &[PtxType::B32, PtxType::B64, PtxType::B128],
        "cas" => &[PtxType::B16, PtxType::B32, PtxType::B64, PtxType::B128],
        "add" if m.has(Slot::Noftz) => {
            &[PtxType::F16, PtxType::Bf16, PtxType::F16x2, PtxType::Bf16x2]
        }
        "add" => &[
            PtxType::U32,
            PtxType::S32,
            PtxType::U64,
            PtxType::F32,
            PtxType::F64,
        ],
        "inc" | "dec" => &[PtxType::U32],
        "min" | "max" => &[PtxType::U32, PtxType::S32, PtxType::U64, PtxType::S64],
        _ => return Ok(()),
    };
    if !allowed.contains(&ty) {
        let list: Vec<String> = allowed.iter().map(|t| format!(".{}", t.token())).collect();
        return Err(Violation::at(
            ty.token(),
            format!(
                "{}.{op} takes {}, not .{}",
                m.form.mnemonic,
                list.join(", "),
                ty.token()
            ),
        ));
    }
    Ok(())
}

/// Floors of `atom`/`red` (measured with ptxas 12.9): semantics and scopes
/// sm_70 / PTX 6.0; `.cluster` and `.shared::cluster` sm_90 / PTX 7.8;
/// `.f16x2` PTX 6.2, `.f16` and `.cas.b16` PTX 6.3; the bf16 types sm_90 /
/// PTX 7.8; `.b128` sm_90 / PTX 8.3; `.L2::cache_hint` sm_80 / PTX 7.4.
pub fn atomic_requires(m: &Modifiers, _: Target) -> Requirement {
    let mut req = Requirement::new(20, 1, 0);
    if m.has(Slot::Sem) || m.has(Slot::Scope) {
        req = req.max(Requirement::new(70, 6, 0));
    }
    req = req.max(scope_and_space(m));
    if m.has(Slot::Hint) {
        req = req.max(Requirement::new(80, 7, 4));
    }
    match m.ty(Slot::Type) {
        Some(PtxType::F16x2) => req = req.max(Requirement::new(60, 6, 2)),
        Some(PtxType::F16 | PtxType::B16) => req = req.max(Requirement::new(70, 6, 3)),
        Some(PtxType::Bf16 | PtxType::Bf16x2) => req = req.max(Requirement::new(90, 7, 8)),
        Some(PtxType::B128) => req = req.max(b128(m, Requirement::new(90, 8, 3))),
        _ => {}
    }
    req
}

/// Floors of the vector `atom`/`red` forms (`.v2/.v4/.v8` of f32, f16,
/// bf16 and their pairs): sm_90 / PTX 8.1 (measured with ptxas 12.9), on
/// top of [`atomic_requires`].
pub fn vector_atomic_requires(m: &Modifiers, t: Target) -> Requirement {
    atomic_requires(m, t).max(Requirement::new(90, 8, 1))
}

/// L2 cache policies (`createpolicy`, `prefetch.global.L2::evict_*`): sm_80, PTX 7.4.
pub fn l2_policy_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(80, 7, 4)
}

/// `prefetch.tensormap`: sm_90, PTX 8.0.
pub fn tensormap_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 0)
}
