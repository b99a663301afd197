//! Legality rules and target requirements of the float family
//! (`table/float.rs`).

use super::*;
use crate::ptx::Slot;

/// `div`: `.approx` and `.full` exist only for `.f32`
/// (`div.{approx,full}{.ftz}.f32`, `div.rnd{.ftz}.f32`, `div.rnd.f64`); `.ftz` only on `.f32`.
pub fn div(m: &Modifiers) -> Result<(), Violation> {
    if m.ty(Slot::Type) == Some(PtxType::F64)
        && let Some(mode) = m.get(Slot::Mode).filter(|t| ["approx", "full"].contains(t))
    {
        return Err(Violation::at(
            mode,
            format!(
                "div.{mode} exists only for .f32; .f64 division rounds with .rn, .rz, .rm or .rp"
            ),
        ));
    }
    super::float_arith(m)
}

/// `sqrt`: `sqrt.approx{.ftz}.f32`, `sqrt.rnd{.ftz}.f32`, `sqrt.rnd.f64`.
pub fn sqrt(m: &Modifiers) -> Result<(), Violation> {
    if m.ty(Slot::Type) == Some(PtxType::F64) {
        if m.get(Slot::Mode) == Some("approx") {
            return Err(Violation::at(
                "approx",
                "sqrt.approx exists only for .f32; .f64 rounds with .rn, .rz, .rm or .rp",
            ));
        }
        if let Some(ftz) = m.get(Slot::Ftz) {
            return Err(Violation::at(ftz, ".ftz applies only to .f32, not .f64"));
        }
    }
    Ok(())
}

/// PTX ISA 2.0 (sm_20): IEEE-rounded `div`/`rcp`/`sqrt`, `mad` with a
/// mandatory rounding, `copysign`, `testp` -- below every target this
/// compiler knows, so a floor only in name.
pub fn ptx_2(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(20, 2, 0)
}

/// `rsqrt.approx.ftz.f64`: PTX 4.0; the other lines are PTX 1.0.
pub fn rsqrt(m: &Modifiers, _: Target) -> Requirement {
    if m.has(Slot::Ftz) && m.ty(Slot::Type) == Some(PtxType::F64) {
        Requirement::new(20, 4, 0)
    } else {
        Requirement::new(20, 1, 0)
    }
}

/// `rcp.approx.ftz.f64`: PTX 2.1 (sm_20).
pub fn rcp_approx_f64(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(20, 2, 1)
}

/// `tanh.approx.f32`: sm_75, PTX 7.0.
pub fn tanh(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(75, 7, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::table::FORMS;

    /// The modifiers of form `id` for `opcode`, each token in the first
    /// remaining slot that lists it (the rule is not run).
    fn modifiers(id: &str, opcode: &str) -> Modifiers {
        let form = FORMS.iter().find(|f| f.id == id).expect("form id");
        let mut tokens = vec![None; form.slots.len()];
        let mut next = 0;
        for token in opcode.split('.').skip(1) {
            let i = (next..form.slots.len())
                .find(|&i| form.slots[i].choices.contains(&token))
                .unwrap_or_else(|| panic!("`{token}` has no slot in {id}"));
            tokens[i] = form.slots[i].choices.iter().copied().find(|c| *c == token);
            next = i + 1;
        }
        Modifiers { form, tokens }
    }

    #[test]
    fn div_approx_and_full_are_f32_only() {
        assert_eq!(
            div(&modifiers("div.float", "div.full.f64")),
            Err(Violation::at(
                "full",
                "div.full exists only for .f32; .f64 division rounds with .rn, .rz, .rm or .rp"
            ))
        );
        assert_eq!(
            div(&modifiers("div.float", "div.rn.ftz.f64")),
            Err(Violation::at("ftz", ".ftz applies only to .f32, not .f64"))
        );
        assert_eq!(div(&modifiers("div.float", "div.approx.ftz.f32")), Ok(()));
        assert_eq!(div(&modifiers("div.float", "div.rp.f64")), Ok(()));
    }

    #[test]
    fn sqrt_f64_is_rounded_without_ftz() {
        assert_eq!(
            sqrt(&modifiers("sqrt", "sqrt.approx.f64"))
                .unwrap_err()
                .token,
            Some("approx")
        );
        assert_eq!(
            sqrt(&modifiers("sqrt", "sqrt.rn.ftz.f64"))
                .unwrap_err()
                .token,
            Some("ftz")
        );
        assert_eq!(sqrt(&modifiers("sqrt", "sqrt.approx.ftz.f32")), Ok(()));
        assert_eq!(sqrt(&modifiers("sqrt", "sqrt.rz.f64")), Ok(()));
    }

    #[test]
    fn floors() {
        let t = Target::SM_90;
        let req = |id, op| modifiers(id, op).requirement(t);
        assert_eq!(
            req("tanh.float", "tanh.approx.f32"),
            Requirement::new(75, 7, 0)
        );
        assert_eq!(
            req("rsqrt", "rsqrt.approx.ftz.f64"),
            Requirement::new(20, 4, 0)
        );
        assert_eq!(req("rsqrt", "rsqrt.approx.f64"), Requirement::new(20, 1, 0));
    }
}
