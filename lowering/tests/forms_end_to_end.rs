//! Every form kernels may use works end to end: for each usable form of
//! the table (one usable variant per distinct list of operand types, in
//! shared memory and elsewhere), a kernel that initialises the form's sources, runs the form and
//! stores its destinations is generated, checked and emitted by `compile`
//! (no diagnostic allowed), its program round-trips through
//! `encoding` (what the macro embeds for the CPU interpreter), and its PTX
//! is assembled by the pinned ptxas at the variant's floor target.
//!
//! CTA barriers (`Usability::CtaBarrier`) are usable too (with `scope =
//! "cta"`). Variants that use shared memory or a CTA barrier also get the
//! kernels the GPU differential harness runs (`Shape::PerThread` with
//! blocks of 256: shared buffers staged by other threads across barriers,
//! one element a CTA for atomics, and a value exchanged across a barrier),
//! so that the checker's race, convergence and bounds analyses accept them.
//!
//! `lowering/tests/certify.rs` proves the *table* against ptxas; this test
//! proves that the *checker and emitter* accept and lower what the table
//! calls usable, with real tiles, tensors, predicates and immediates.

use std::collections::{BTreeMap, BTreeSet};

use tile_kernel_lowering::encoding::{decode, encode};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Effect, Modifiers, OperandKind, Space, Usability, resolve};
use tile_kernel_lowering::{Target, compile};

// The kernel generator, shared with the GPU differential harness
// (`tests/differential`).
use tile_kernel_testkit::form_kernels::{Choices, Shape, generate, join_modules};
use tile_kernel_testkit::ptxas;

/// The lowest real target at which `m` is available (an arch-specific
/// variant's first `a` target).
fn floor(m: &Modifiers) -> Target {
    if let Some(archs) = m.requirement(Target::SM_90).only_on {
        return Target {
            sm: archs[0],
            arch_specific: true,
        };
    }
    let targets = [70, 72, 75, 80, 86, 87, 89, 90, 100, 120];
    let mut sm = 70;
    loop {
        let req = m.requirement(Target::sm(sm));
        if req.sm <= sm {
            return Target::sm(sm);
        }
        sm = *targets
            .iter()
            .find(|t| **t >= req.sm)
            .unwrap_or_else(|| panic!("{}: no target for sm_{}", m.opcode_text(), req.sm));
    }
}

/// Kernels may use it: usable as such, or as a CTA barrier.
fn usable(u: Usability) -> bool {
    matches!(u, Usability::Yes | Usability::CtaBarrier)
}

/// One usable variant per distinct list of operand types, in shared memory
/// and elsewhere.
fn sample(form: &'static tile_kernel_lowering::ptx::InstructionForm) -> Vec<Modifiers> {
    let mut seen = BTreeSet::new();
    legal_variants(form)
        .into_iter()
        .filter(|m| usable(m.usability()))
        .filter(|m| {
            let types: Vec<String> = m.operands().iter().map(|o| o.ty.to_string()).collect();
            seen.insert((types, matches!(m.space(), Space::Shared { .. })))
        })
        .collect()
}

#[test]
fn every_usable_form_compiles_and_assembles() {
    ptxas::require_pinned_version();
    // Helper forms this test itself relies on.
    for opcode in [
        "ld.global.b32",
        "st.global.b32",
        "setp.ne.u32",
        "selp.u32",
        "ld.shared.b32",
        "st.shared.b32",
        "bar.sync",
        "mov.b32",
    ] {
        assert!(resolve(opcode).is_ok(), "`{opcode}` is not in the table");
    }
    let mut by_target: BTreeMap<Target, Vec<(String, String)>> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut forms, mut kernels) = (0, 0);
    // mbarrier forms, the bulk copies that signal an mbarrier and the bulk
    // and tensor stores (whole views, completing in bulk groups) need a
    // protocol around them (an init, arrivals before a wait; a proxy fence,
    // a commit and a wait): `tests/mbarriers.rs`, `tests/bulk_copies.rs`,
    // `tests/tensor_copies.rs` and `tests/async_stores.rs` compile, assemble
    // and run each usable spelling in kernels of their own.
    for form in FORMS.iter().filter(|f| {
        usable(f.usable)
            && f.effect != Effect::Mbarrier
            && !f.operands.iter().any(|o| o.mbarrier || o.whole)
    }) {
        forms += 1;
        for m in sample(form) {
            let sm = floor(&m);
            // The one-thread kernel, and those of the differential harness
            // where shared memory or a barrier makes threads meet.
            // (A proxy fence names the shared space it orders, but has no
            // operand there.)
            let shared = matches!(m.space(), Space::Shared { .. }) && m.effect() != Effect::Fence;
            let barrier = m.usability() == Usability::CtaBarrier;
            let atomic = matches!(m.effect(), Effect::Atomic { .. });
            let per_thread = |shared_memory, cta_exchange| {
                (
                    Shape::PerThread { block: 256 },
                    Choices {
                        shared_memory,
                        containers: true,
                        created_policy: true,
                        cta_exchange,
                        ..Choices::default()
                    },
                )
            };
            let mut shapes = vec![(Shape::Single, Choices::default())];
            if shared {
                shapes.push(per_thread(false, false));
            }
            if shared && atomic {
                shapes.push(per_thread(true, false));
            }
            if barrier {
                // `bar.sync` alone has no tensor: only with the exchange.
                if m.operands()
                    .iter()
                    .any(|o| matches!(o.kind, OperandKind::Register | OperandKind::Predicate))
                {
                    shapes.push(per_thread(false, false));
                }
                shapes.push(per_thread(false, true));
            }
            for (shape, choices) in shapes {
                kernels += 1;
                let name = format!("k{kernels}");
                let kernel = match generate(&name, &m, sm, shape, &choices) {
                    Ok(generated) => generated.kernel,
                    Err(ty) => {
                        failures.push(format!(
                            "{} ({}): usable, but no tile or tensor dtype carries `{ty}`",
                            m.opcode_text(),
                            form.id
                        ));
                        continue;
                    }
                };
                let out = compile(&kernel);
                // The program the macro embeds for the CPU interpreter survives
                // encoding, for every form.
                if let Some(program) = &out.program {
                    match decode(&encode(program)) {
                        Ok(decoded) if &decoded == program => {}
                        other => failures.push(format!(
                            "{} ({}): the program does not round-trip through `encoding`: {}",
                            m.opcode_text(),
                            form.id,
                            other.map_or_else(
                                |e| e.to_string(),
                                |_| "it decodes to another program".into()
                            )
                        )),
                    }
                }
                match out.ptx {
                    Some(ptx) => by_target
                        .entry(sm)
                        .or_default()
                        .push((m.opcode_text(), ptx)),
                    None => failures.push(format!(
                        "{} ({}, {shape:?}{}): {}",
                        m.opcode_text(),
                        form.id,
                        if choices.shared_memory {
                            ", one element a CTA"
                        } else if choices.cta_exchange {
                            ", exchange"
                        } else {
                            ""
                        },
                        out.diagnostics
                            .iter()
                            .map(|d| d.rendered())
                            .collect::<Vec<_>>()
                            .join(" | ")
                    )),
                }
            }
        }
    }
    for (sm, group) in &by_target {
        for chunk in group.chunks(200) {
            let modules: Vec<String> = chunk.iter().map(|(_, ptx)| ptx.clone()).collect();
            let module = join_modules(&modules);
            if let Err(message) = ptxas::try_assemble(&module, &sm.to_string()) {
                // Name the variants of the entries ptxas complained about.
                let lines: Vec<&str> = module.lines().collect();
                let mut named = BTreeSet::new();
                for l in message.lines().filter(|l| l.contains("error")) {
                    let Some(n) = l
                        .split(", line ")
                        .nth(1)
                        .and_then(|r| r.split(';').next())
                        .and_then(|n| n.trim().parse::<usize>().ok())
                    else {
                        continue;
                    };
                    let entry = lines[..n.min(lines.len())]
                        .iter()
                        .rev()
                        .find_map(|l| l.strip_prefix(".visible .entry "))
                        .unwrap_or("?");
                    named.insert(entry.split('(').next().unwrap_or("?").to_string());
                }
                failures.push(format!(
                    "{sm}: ptxas rejected entries {named:?}:\n{message}"
                ));
            }
        }
    }
    println!(
        "{forms} usable forms, {kernels} kernels, {} targets",
        by_target.len()
    );
    assert!(kernels > 0);
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
