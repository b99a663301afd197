//! Every variant kernels may use has interpreter semantics: a form the
//! table calls usable but the interpreter cannot run fails here, naming it.

use std::collections::BTreeMap;
use tile_kernel_lowering::ptx::Slot;

use tile_kernel_interp::semantics::{Semantics, semantics};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Effect, Usability};

#[test]
fn every_usable_variant_has_semantics() {
    let mut missing: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for form in FORMS {
        if form.usable != Usability::Yes {
            continue;
        }
        for variant in legal_variants(form) {
            if variant.usability() != Usability::Yes {
                continue;
            }
            match semantics(&variant) {
                Ok(found) => {
                    let kind = match found {
                        Semantics::Compute(_) => "compute",
                        Semantics::Load => "load",
                        Semantics::Store => "store",
                        Semantics::Prefetch => "prefetch",
                        Semantics::Atomic { .. } => "atomic",
                        Semantics::Collective(_) => "collective",
                        Semantics::Barrier(_) => "barrier",
                        Semantics::AsyncCopy => "async copy",
                        Semantics::BulkCopy => "bulk copy",
                        Semantics::TensorCopy => "tensor copy",
                        Semantics::Fence => "fence",
                        Semantics::AsyncCommit | Semantics::AsyncWait { .. } => "async group",
                        Semantics::BulkStore => "bulk store",
                        Semantics::BulkReduce(_) => "bulk reduction",
                        Semantics::TensorStore => "tensor store",
                        Semantics::BulkCommit | Semantics::BulkWait { .. } => "bulk group",
                        Semantics::Mbarrier(_) => "mbarrier",
                        Semantics::MatrixLoad { .. } => "matrix load",
                        Semantics::MatrixStore { .. } => "matrix store",
                        Semantics::WarpgroupMma(_) => "warpgroup mma",
                    };
                    *counts.entry(kind).or_default() += 1;
                }
                Err(_) => missing
                    .entry(form.id)
                    .or_default()
                    .push(variant.opcode_text()),
            }
        }
    }
    println!("variants with semantics: {counts:?}");
    let report: Vec<String> = missing
        .iter()
        .map(|(form, variants)| {
            format!("{form}: {} variants, e.g. {}", variants.len(), variants[0])
        })
        .collect();
    assert!(
        missing.is_empty(),
        "{} forms have usable variants without semantics:\n{}",
        missing.len(),
        report.join("\n")
    );
}

/// Every warpgroup form (`wgmma`) has semantics: the matrix multiply, or
/// (fence, commit, wait) the lockstep executor's no-op.
#[test]
fn every_warpgroup_form_has_semantics() {
    let mut missing: Vec<String> = Vec::new();
    let mut variants = 0;
    for form in FORMS.iter().filter(|f| f.usable == Usability::Warpgroup) {
        for variant in legal_variants(form) {
            variants += 1;
            let wanted = if form.effect == Effect::WarpgroupMma {
                matches!(semantics(&variant), Ok(Semantics::WarpgroupMma(_)))
            } else {
                matches!(semantics(&variant), Ok(Semantics::Fence))
            };
            if !wanted {
                missing.push(format!("{} ({})", variant.opcode_text(), form.id));
            }
        }
    }
    assert!(variants > 1000, "only {variants} warpgroup variants");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_warp_form_has_semantics() {
    let mut missing: Vec<String> = Vec::new();
    let mut variants = 0;
    for form in FORMS {
        if form.usable != Usability::NeedsScope {
            continue;
        }
        for variant in legal_variants(form) {
            variants += 1;
            match semantics(&variant) {
                Ok(
                    Semantics::Collective(_)
                    | Semantics::MatrixLoad { .. }
                    | Semantics::MatrixStore { .. },
                ) => {}
                Ok(other) => missing.push(format!(
                    "{} ({}): not a collective: {other:?}",
                    variant.opcode_text(),
                    form.id
                )),
                Err(error) => {
                    missing.push(format!("{} ({}): {error}", variant.opcode_text(), form.id))
                }
            }
        }
    }
    assert!(variants > 0, "no warp forms found");
    assert!(
        missing.is_empty(),
        "{} warp variants without collective semantics:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// Every CTA barrier variant but `arrive` (whose phases the lockstep
/// executor does not model) has barrier semantics, with its count and
/// reduction read from the form; the cluster barrier's wait is a barrier
/// of no number, its (releasing) arrival a step that does nothing.
#[test]
fn every_barrier_form_but_arrive_has_semantics() {
    use tile_kernel_interp::semantics::{Barrier, BarrierReduction};
    let mut seen = 0;
    for form in FORMS
        .iter()
        .filter(|f| matches!(f.effect, Effect::Barrier { .. }))
    {
        for variant in legal_variants(form) {
            let found = semantics(&variant);
            let cluster = variant.get(Slot::Scope) == Some("cluster");
            if variant.get(Slot::Op) == Some("arrive") {
                if cluster && variant.get(Slot::Sem) != Some("relaxed") {
                    assert!(
                        matches!(found, Ok(Semantics::Fence)),
                        "{}",
                        variant.opcode_text()
                    );
                } else {
                    assert!(found.is_err(), "{}", variant.opcode_text());
                }
                continue;
            }
            let Ok(Semantics::Barrier(Barrier {
                numbered,
                cluster: cluster_barrier,
                count,
                reduction,
            })) = found
            else {
                panic!("{}: no barrier semantics", variant.opcode_text());
            };
            assert_eq!(numbered, !cluster, "{}", variant.opcode_text());
            assert_eq!(cluster_barrier, cluster, "{}", variant.opcode_text());
            assert_eq!(count, form.id.ends_with("-count"), "{}", form.id);
            let expected = match variant.get(Slot::Redop) {
                None => None,
                Some("popc") => Some(BarrierReduction::Popc),
                Some("and") => Some(BarrierReduction::And),
                Some("or") => Some(BarrierReduction::Or),
                Some(other) => panic!("unknown reduction {other}"),
            };
            assert_eq!(reduction, expected, "{}", variant.opcode_text());
            seen += 1;
        }
    }
    assert!(seen >= 14, "only {seen} barrier variants");
}

/// Every CTA barrier form kernels may use (`scope = "cta"`) has barrier
/// semantics without a thread count (kernels' barriers wait for the whole
/// CTA).
#[test]
fn every_cta_barrier_form_has_semantics() {
    let mut missing: Vec<String> = Vec::new();
    let mut variants = 0;
    for form in FORMS {
        if form.usable != Usability::CtaBarrier {
            continue;
        }
        for variant in legal_variants(form) {
            variants += 1;
            match semantics(&variant) {
                Ok(Semantics::Barrier(barrier)) if !barrier.count => {}
                Ok(other) => missing.push(format!(
                    "{} ({}): not a whole-CTA barrier: {other:?}",
                    variant.opcode_text(),
                    form.id
                )),
                Err(error) => {
                    missing.push(format!("{} ({}): {error}", variant.opcode_text(), form.id))
                }
            }
        }
    }
    assert!(variants >= 6, "only {variants} CTA barrier variants");
    assert!(
        missing.is_empty(),
        "{} CTA barrier variants without barrier semantics:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The usable `.shared` memory variants (`ld.shared`, `st.shared`,
/// `atom.shared`, `red.shared`, ...) have the semantics of their `.global`
/// twins: the state space changes where the bytes are, not what is done
/// with them (the one exception, the subnormals of `add.f32` atomics, is
/// in the update itself: `float_semantics.rs`).
#[test]
fn shared_memory_variants_have_the_semantics_of_their_global_twins() {
    use tile_kernel_lowering::ptx::{Space, resolve};
    fn kind(found: &Semantics) -> String {
        match found {
            Semantics::Atomic {
                update,
                returns_old,
            } => format!("atomic {} bits, returns old {returns_old}", update.bits),
            other => format!("{other:?}"),
        }
    }
    let mut shared = 0;
    let mut twins = 0;
    let mut mismatches: Vec<String> = Vec::new();
    for form in FORMS.iter().filter(|f| f.usable == Usability::Yes) {
        for variant in legal_variants(form) {
            // A copy between spaces (`cp.async`), an mbarrier object
            // (shared memory only) and a proxy fence naming the space it
            // orders have no global twin.
            if variant.usability() != Usability::Yes
                || variant.space() != (Space::Shared { cluster: false })
                || variant.has(Slot::Src)
                || variant.effect() == Effect::Mbarrier
                || variant.effect() == Effect::Fence
            {
                continue;
            }
            shared += 1;
            let opcode = variant.opcode_text();
            let Ok(found) = semantics(&variant) else {
                mismatches.push(format!("{opcode}: no semantics"));
                continue;
            };
            if !matches!(
                found,
                Semantics::Load | Semantics::Store | Semantics::Atomic { .. }
            ) {
                mismatches.push(format!("{opcode}: not a memory access: {found:?}"));
                continue;
            }
            let global = opcode
                .split('.')
                .map(|t| if t.starts_with("shared") { "global" } else { t })
                .collect::<Vec<_>>()
                .join(".");
            let Some(twin) = resolve(&global)
                .ok()
                .and_then(|c| c.into_iter().find(|m| m.form.mnemonic == form.mnemonic))
            else {
                continue;
            };
            twins += 1;
            match semantics(&twin) {
                Ok(other) if kind(&other) == kind(&found) => {}
                other => mismatches.push(format!("{opcode}: {found:?}, but {global}: {other:?}")),
            }
        }
    }
    println!("{shared} usable shared variants, {twins} with a global twin");
    assert!(
        shared > 1000 && twins == shared,
        "{shared} shared variants, {twins} with a global twin"
    );
    assert!(
        mismatches.is_empty(),
        "{} shared variants differ from their global twins:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Every usable mbarrier variant has the mbarrier semantics of its form:
/// `init`, `inval`, a single `arrive` and its `expect_tx` form (a register
/// or `_` state), releasing unless `.relaxed`,
/// `cp.async.mbarrier.arrive` with or without `.noinc`, and the parity
/// `try_wait` (with or without a time hint), acquiring unless `.relaxed`.
#[test]
fn every_usable_mbarrier_variant_has_mbarrier_semantics() {
    use tile_kernel_interp::semantics::MbarrierOp;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for form in FORMS.iter().filter(|f| f.effect == Effect::Mbarrier) {
        for variant in legal_variants(form) {
            let opcode = variant.opcode_text();
            let found = semantics(&variant);
            if variant.usability() != Usability::Yes {
                assert!(found.is_err(), "{opcode} ({}) is not usable", form.id);
                continue;
            }
            let expected = match form.id {
                "mbarrier.init" => MbarrierOp::Init,
                "mbarrier.inval" => MbarrierOp::Inval,
                // The remote arrival (`.shared::cluster`) is a single
                // arrival too; its address names the CTA.
                "mbarrier.arrive" | "mbarrier.arrive.remote" => MbarrierOp::Arrive {
                    release: variant.get(Slot::Sem) != Some("relaxed"),
                    expect_tx: false,
                },
                "mbarrier.arrive.expect_tx" => MbarrierOp::Arrive {
                    release: variant.get(Slot::Sem) != Some("relaxed"),
                    expect_tx: true,
                },
                "cp.async.mbarrier.arrive.noinc" => MbarrierOp::CopyArrive { noinc: true },
                "mbarrier.try_wait.parity" | "mbarrier.try_wait.parity-hint" => {
                    MbarrierOp::WaitParity {
                        acquire: variant.get(Slot::Sem) != Some("relaxed"),
                    }
                }
                other => panic!("usable mbarrier form {other} without a known operation"),
            };
            match found {
                Ok(Semantics::Mbarrier(op)) => assert_eq!(op, expected, "{opcode}"),
                other => panic!("{opcode}: {other:?}"),
            }
            *seen.entry(format!("{expected:?}")).or_default() += 1;
        }
    }
    println!("mbarrier variants: {seen:?}");
    // Init, inval, arrive and arrive.expect_tx (releasing or relaxed),
    // the `.noinc` copy arrival, waits (acquiring or relaxed).
    assert_eq!(seen.len(), 9, "{seen:?}");
}

/// The usable bulk and tensor copies have the semantics of their
/// direction (into shared memory: a copy completing on an mbarrier; into
/// global memory: a store completing in a bulk group), and the bulk
/// groups' commit and wait (`.read` or not) theirs.
#[test]
fn bulk_copies_into_global_memory_are_bulk_stores() {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for form in FORMS
        .iter()
        .filter(|f| f.mnemonic.starts_with("cp.async.bulk"))
    {
        for variant in legal_variants(form) {
            if variant.usability() != Usability::Yes {
                continue;
            }
            let opcode = variant.opcode_text();
            let to_global = variant.get(Slot::Dst) == Some("global");
            let expected = match form.mnemonic {
                "cp.async.bulk" if to_global => "BulkStore".to_string(),
                "cp.async.bulk" => "BulkCopy".to_string(),
                "cp.async.bulk.tensor" if to_global => "TensorStore".to_string(),
                "cp.async.bulk.tensor" => "TensorCopy".to_string(),
                "cp.async.bulk.commit_group" => "BulkCommit".to_string(),
                "cp.async.bulk.wait_group" => format!(
                    "{:?}",
                    Semantics::BulkWait {
                        read: variant.has(Slot::Read)
                    }
                ),
                _ => continue,
            };
            match semantics(&variant) {
                Ok(found) => assert_eq!(format!("{found:?}"), expected, "{opcode}"),
                Err(error) => panic!("{opcode} ({}): {error}", form.id),
            }
            *seen.entry(expected).or_default() += 1;
        }
    }
    println!("bulk variants: {seen:?}");
    for kind in [
        "BulkStore",
        "BulkCopy",
        "TensorStore",
        "TensorCopy",
        "BulkCommit",
        "BulkWait { read: true }",
        "BulkWait { read: false }",
    ] {
        assert!(
            seen.contains_key(kind),
            "no usable variant is {kind}: {seen:?}"
        );
    }
}
