//! Every variant kernels may use has interpreter semantics: a form the
//! table calls usable but the interpreter cannot run fails here, naming it.

use std::collections::BTreeMap;

use tile_kernel_interp::semantics::{Semantics, semantics};
use tile_kernel_lowering::ptx::Usability;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;

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
                Ok(Semantics::Collective(_)) => {}
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
/// reduction read from the form.
#[test]
fn every_barrier_form_but_arrive_has_semantics() {
    use tile_kernel_interp::semantics::{Barrier, BarrierReduction};
    let mut seen = 0;
    for form in FORMS
        .iter()
        .filter(|f| matches!(f.mnemonic, "bar" | "barrier"))
    {
        for variant in legal_variants(form) {
            let found = semantics(&variant);
            if variant.get("op") == Some("arrive") {
                assert!(found.is_err(), "{}", variant.opcode_text());
                continue;
            }
            let Ok(Semantics::Barrier(Barrier { count, reduction })) = found else {
                panic!("{}: no barrier semantics", variant.opcode_text());
            };
            assert_eq!(count, form.id.ends_with("-count"), "{}", form.id);
            let expected = match variant.get("redop") {
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
