//! A Markdown reference of the table, generated from the table itself
//! (`docs/ptx-table.md` is this text; a test keeps the two identical).

use std::fmt::Write;

use super::form::{Access, InstructionForm, Lanes, OperandKind, Packing, TypeRef};
use super::resolve::legal_variants;
use super::table::FORMS;
use crate::target::{Requirement, Target};

/// The whole reference: one section per form.
pub fn table_reference() -> String {
    let mut out = String::from(
        "# PTX instruction table\n\n\
         Generated from `lowering/src/ptx/table.rs` by `tile_kernel_lowering::ptx::docs::table_reference` \
         (`TILE_KERNEL_BLESS=1 cargo test -p tile-kernel-lowering --test table_reference` rewrites it). \
         `{.x}` is an optional modifier, `.{a,b}` a required choice. Operands are in PTX order; \
         `{n regs}` is a brace group whose register axis has extent n. Floors are the lowest sm and \
         PTX ISA over the form's legal variants when compiling for sm_90; the checker applies them per variant.\n\n",
    );
    for form in FORMS {
        describe(form, &mut out);
    }
    out
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
                Lanes::Vector => ", {1, 2 or 4 regs} per `vec`".to_string(),
            };
            let kind = if o.kind == OperandKind::Address {
                "memory "
            } else {
                ""
            };
            format!(
                "`{}` ({kind}{direction}, {ty}{lanes}{})",
                o.name,
                if o.braced { ", braced" } else { "" }
            )
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
    let _ = writeln!(out, "- {}", form.summary);
    if let (Some(low), Some(high)) = (lowest, highest) {
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
}
