//! A Markdown reference of the table, generated from the table itself
//! (`docs/ptx-table.md` is this text; a test keeps the two identical).

use crate::ptx::Slot;
use std::fmt::Write;

use super::form::{
    Access, Effect, InstructionForm, Lanes, OperandKind, Packing, TypeRef, Usability,
};
use super::resolve::legal_variants;
use super::table::FAMILIES;
use crate::target::{Requirement, Target};

/// The whole reference: a coverage summary, then one section per form,
/// family by family.
pub fn table_reference() -> String {
    let mut out = String::from(
        "# PTX instruction table\n\n\
         Generated from `lowering/src/ptx/table/` by `tile_kernel_lowering::ptx::docs::table_reference` \
         (`TILE_KERNEL_BLESS=1 cargo test -p tile-kernel-lowering --test table_reference` rewrites it). \
         Every form is certified against ptxas 12.9.86 (`lowering/tests/certify.rs`). \
         `{.x}` is an optional modifier, `.{a,b}` a required choice. Operands are in PTX order; \
         `{n regs}` is a brace group whose register axis has extent n; \"or immediate\" marks a source \
         PTX also accepts as a literal, \"or `_`\" a destination that may be discarded. Floors are the lowest \
         sm and PTX ISA over the form's legal variants when compiling for sm_90; the checker applies them \
         per variant. \"Usable: no\" forms are registered and certified, and using one is error TK0224 \
         naming what kernels still lack.\n\n",
    );
    coverage(&mut out);
    for (family, forms) in FAMILIES {
        let _ = writeln!(out, "# {}\n", capitalized(family));
        for form in *forms {
            describe(form, &mut out);
        }
    }
    fragment_layouts(&mut out);
    out
}

/// The lane-to-element maps of `mma.sync` (`crate::ptx::fragments`).
fn fragment_layouts(out: &mut String) {
    use super::fragments::{self, Axis, MMA_SHAPES};
    let _ = writeln!(
        out,
        "# Matrix fragment layouts

\
         Which element of A (`M x K`), B (`K x N`) and C/D (`M x N`) lane `lane` holds as its \
         element `i` (elements numbered register by register, the low bits of a register \
         first), from `lowering/src/ptx/fragments.rs`. `/` and `%` are integer division and \
         remainder.\n\n\
         | shape | multiplicand bits | operand | elements per lane | row | column |\n\
         |---|---|---|---|---|---|"
    );
    for &(shape, bits) in MMA_SHAPES {
        let Some(layouts) = fragments::mma(shape, bits) else {
            continue;
        };
        for (name, layout) in [("A", layouts.a), ("B", layouts.b), ("C/D", layouts.c)] {
            let _ = writeln!(
                out,
                "| `{shape}` | {bits} | {name} | {} | `{}` | `{}` |",
                layout.elements(),
                layout.formula(Axis::Row),
                layout.formula(Axis::Col)
            );
        }
    }
    out.push('\n');
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Per family: forms, usable forms, legal variants and the range of arch
/// floors (as compiled for sm_90, like the sections below).
fn coverage(out: &mut String) {
    let _ = writeln!(out, "## Coverage\n");
    let _ = writeln!(
        out,
        "| family | mnemonics | forms | usable forms | legal variants | arch floors |\n|---|---|---|---|---|---|"
    );
    let (mut all_forms, mut all_usable, mut all_variants) = (0, 0, 0);
    for (family, forms) in FAMILIES {
        let mut mnemonics: Vec<&str> = forms.iter().map(|f| f.mnemonic).collect();
        mnemonics.sort_unstable();
        mnemonics.dedup();
        let usable = forms
            .iter()
            .filter(|f| !matches!(f.usable, Usability::NotYet(_)))
            .count();
        let mut variants = 0;
        let (mut low, mut high) = (u32::MAX, 0);
        for form in *forms {
            for v in legal_variants(form) {
                variants += 1;
                // Arch-specific floors count by their architecture.
                let sm = v.requirement(Target::SM_90).sm;
                low = low.min(sm);
                high = high.max(sm);
            }
        }
        let floors = if variants == 0 {
            "-".to_string()
        } else {
            format!("sm_{low} .. sm_{high}")
        };
        let _ = writeln!(
            out,
            "| {family} | {} | {} | {usable} | {variants} | {floors} |",
            mnemonics.len(),
            forms.len()
        );
        all_forms += forms.len();
        all_usable += usable;
        all_variants += variants;
    }
    let _ = writeln!(
        out,
        "| **all** | | {all_forms} | {all_usable} | {all_variants} | |\n\n\
         A usable form's variants in the shared, local, const or param state spaces, and \
         its `.b128` variants, are not usable yet (no shared tiles; no 128-bit tile dtype).\n"
    );
}

fn describe(form: &'static InstructionForm, out: &mut String) {
    let mut syntax = form.mnemonic.to_string();
    for slot in form.slots {
        let choices: Vec<String> = slot.choices.iter().map(|c| format!(".{c}")).collect();
        let inner = if choices.len() == 1 {
            choices[0].clone()
        } else {
            format!(".{{{}}}", slot.choices.join(","))
        };
        if slot.required {
            syntax.push_str(&inner);
        } else {
            let _ = write!(syntax, "{{{inner}}}");
        }
    }
    let operands: Vec<String> = form
        .operands
        .iter()
        .map(|o| {
            let direction = if o.access == Access::Write {
                "write"
            } else {
                "read"
            };
            let ty = match o.ty {
                TypeRef::Slot(slot) => format!("type of `{slot}`"),
                TypeRef::Fixed(t) => format!("`{t}`"),
                TypeRef::Wide(slot) => format!("twice the width of `{slot}`"),
                TypeRef::LaneOf { slot, lanes } => format!("1/{lanes} of `{slot}`"),
            };
            let lanes = match o.lanes {
                Lanes::Fixed(1) => String::new(),
                Lanes::Fixed(n) => format!(", {{{n} regs}}"),
                Lanes::Vector => ", {1, 2, 4 or 8 regs} per `vec`".to_string(),
                Lanes::ByToken { slot, .. } => format!(", regs per `{slot}`"),
            };
            let kind = match o.kind {
                OperandKind::Address => "memory ".to_string(),
                OperandKind::Predicate => "predicate ".to_string(),
                OperandKind::Immediate { min, max } => format!("immediate {min}..={max}, "),
                OperandKind::Register => String::new(),
                OperandKind::TensorCoords => "tensor map and coordinates, ".to_string(),
                OperandKind::Special(names) => format!("special register ({}), ", names.join(" ")),
            };
            let mut extras = String::new();
            if o.braced {
                extras.push_str(", braced");
            }
            if o.piped {
                extras.push_str(", written `p|q`");
            }
            if o.imm && o.access == Access::Read && o.kind == OperandKind::Register {
                extras.push_str(", or immediate");
            }
            if o.sink_only {
                extras.push_str(", always `_`");
            } else if o.sink {
                extras.push_str(", or `_`");
            }
            if o.whole && o.kind == OperandKind::TensorCoords {
                extras.push_str(
                    ", the box: a slice of a tensor parameter (the launcher builds the map)",
                );
            } else if o.whole {
                extras.push_str(", the whole contiguous view");
            }
            if o.mbarrier {
                extras.push_str(", an mbarrier object");
            }
            format!("`{}` ({kind}{direction}, {ty}{lanes}{extras})", o.name)
        })
        .collect();
    let variants = legal_variants(form);
    let floors: Vec<Requirement> = variants
        .iter()
        .map(|v| v.requirement(Target::SM_90))
        .collect();
    let lowest = floors.iter().copied().reduce(|a, b| Requirement {
        sm: a.sm.min(b.sm),
        ptx: a.ptx.min(b.ptx),
        only_on: a.only_on.and(b.only_on),
    });
    let highest = floors.iter().copied().reduce(Requirement::max);
    let packing = match form.packing {
        Packing::None => "none",
        Packing::FirstSourceHigh => "first source -> high half",
        Packing::FirstLaneLow => "first lane -> low bits",
        Packing::InPlace => "elements keep their positions",
    };
    let _ = writeln!(out, "## `{}`\n", form.id);
    let _ = writeln!(out, "- syntax: `{syntax}`");
    let _ = writeln!(out, "- operands: {}", operands.join(", "));
    let _ = writeln!(out, "- packing: {packing}");
    let effect = match form.effect {
        Effect::Pure => "pure (registers only)",
        Effect::Load {
            non_coherent: false,
        } if form.slots.iter().any(|s| s.name == Slot::Nc) => "load (non-coherent with `.nc`)",
        Effect::Load {
            non_coherent: false,
        } => "load",
        Effect::Load { non_coherent: true } => "load, non-coherent (read-only data)",
        Effect::Store => "store",
        Effect::Atomic { returns_old: true } => "atomic, returns the old value",
        Effect::Atomic { returns_old: false } => "atomic, returns nothing",
        Effect::Prefetch => "prefetch (moves no value)",
        Effect::Collective => "warp collective",
        Effect::Barrier { waits: true } => "CTA barrier (waits)",
        Effect::Barrier { waits: false } => "CTA barrier (arrives without waiting)",
        Effect::Fence => "memory fence",
        Effect::AsyncCopy => "asynchronous copy",
        Effect::AsyncGroup => "commits or waits for asynchronous operations",
        Effect::Mbarrier => "mbarrier operation",
        Effect::WarpgroupMma => "asynchronous warpgroup matrix multiply-accumulate",
        Effect::RegisterCount => "changes the warp's register count (moves no value)",
    };
    let _ = writeln!(out, "- effect: {effect}");
    let usable = match form.usable {
        Usability::Yes => "yes".to_string(),
        Usability::NeedsScope => "yes, with `scope = \"warp\"` (a warp collective)".to_string(),
        Usability::CtaBarrier => "yes, with `scope = \"cta\"` (a CTA barrier)".to_string(),
        Usability::ClusterBarrier => {
            "yes, with `scope = \"cluster\"` (half of the cluster barrier)".to_string()
        }
        Usability::Warpgroup => {
            "yes, with `scope = \"warpgroup\"` (a warpgroup collective)".to_string()
        }
        Usability::NotYet(what) => format!("no: needs {what}"),
    };
    let _ = writeln!(out, "- usable: {usable}");
    let _ = writeln!(out, "- {}", form.summary);
    match (lowest, highest) {
        (Some(low), Some(high)) if high.only_on.is_some() => {
            let _ = writeln!(
                out,
                "- legal variants: {}; arch-specific: {}, PTX {} up to {}\n",
                variants.len(),
                high.targets_text(),
                low.ptx,
                high.ptx
            );
        }
        (Some(low), Some(high)) => {
            let _ = writeln!(
                out,
                "- legal variants: {}; floors from sm_{} / PTX {} up to sm_{} / PTX {}\n",
                variants.len(),
                low.sm,
                low.ptx,
                high.sm,
                high.ptx
            );
        }
        _ => {}
    }
}
