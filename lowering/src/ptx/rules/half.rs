//! Legality rules and target requirements of the half family
//! (`table/half.rs`).

use super::*;
use crate::ptx::Slot;

fn is_bf16(m: &Modifiers) -> bool {
    matches!(m.ty(Slot::Type), Some(PtxType::Bf16 | PtxType::Bf16x2))
}

fn type_token(m: &Modifiers) -> &'static str {
    m.get(Slot::Type).unwrap_or("?")
}

/// `.bf16`/`.bf16x2` take neither `.ftz` nor `.sat` (add, sub, mul, neg, abs).
pub fn arith(m: &Modifiers) -> Result<(), Violation> {
    if is_bf16(m) {
        for flag in [Slot::Ftz, Slot::Sat] {
            if let Some(token) = m.get(flag) {
                return Err(Violation::at(
                    token,
                    format!(
                        ".{token} applies to .f16 and .f16x2, not .{}",
                        type_token(m)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `add`/`sub`/`mul`: `.f16`/`.f16x2` since sm_53 (PTX 4.2);
/// `.bf16`/`.bf16x2` since sm_90 (PTX 7.8).
pub fn arith_requires(m: &Modifiers, _: Target) -> Requirement {
    if is_bf16(m) {
        Requirement::new(90, 7, 8)
    } else {
        Requirement::new(53, 4, 2)
    }
}

/// `neg`: `.f16`/`.f16x2` sm_53 (PTX 6.0); `.bf16`/`.bf16x2` sm_80 (PTX 7.0).
pub fn neg_requires(m: &Modifiers, _: Target) -> Requirement {
    if is_bf16(m) {
        Requirement::new(80, 7, 0)
    } else {
        Requirement::new(53, 6, 0)
    }
}

/// `abs`: `.f16`/`.f16x2` sm_53 (PTX 6.5); `.bf16`/`.bf16x2` sm_80 (PTX 7.0).
pub fn abs_requires(m: &Modifiers, _: Target) -> Requirement {
    if is_bf16(m) {
        Requirement::new(80, 7, 0)
    } else {
        Requirement::new(53, 6, 5)
    }
}

/// `fma.rn{.ftz}{.sat}.{f16,f16x2}`, `fma.rn{.ftz}.relu.{f16,f16x2}`,
/// `fma.rn{.relu}.{bf16,bf16x2}`: no `.ftz`/`.sat` on bf16, and `.sat` or `.relu`.
pub fn fma(m: &Modifiers) -> Result<(), Violation> {
    arith(m)?;
    if let (Some(sat), Some(_)) = (m.get(Slot::Sat), m.get(Slot::Relu)) {
        return Err(Violation::at(
            sat,
            ".sat and .relu are alternatives: write one or the other",
        ));
    }
    Ok(())
}

/// `fma.rn.{f16,f16x2}` sm_53 (PTX 4.2); `.relu` and the bf16 types sm_80 (PTX 7.0).
pub fn fma_requires(m: &Modifiers, _: Target) -> Requirement {
    if is_bf16(m) || m.has(Slot::Relu) {
        Requirement::new(80, 7, 0)
    } else {
        Requirement::new(53, 4, 2)
    }
}

/// `fma.rn.oob{.relu}.type`: sm_90 (PTX 8.1).
pub fn fma_oob_requires(_: &Modifiers, _: Target) -> Requirement {
    Requirement::new(90, 8, 1)
}

/// `min`/`max`: `.xorsign` and `.abs` come together; no `.ftz` on bf16.
pub fn min_max(m: &Modifiers) -> Result<(), Violation> {
    if is_bf16(m)
        && let Some(ftz) = m.get(Slot::Ftz)
    {
        return Err(Violation::at(
            ftz,
            format!(".ftz applies to .f16 and .f16x2, not .{}", type_token(m)),
        ));
    }
    super::float_min_max(m)
}

/// Half `min`/`max`: sm_80 (PTX 7.0); `.xorsign.abs` sm_86 (PTX 7.2).
pub fn min_max_requires(m: &Modifiers, t: Target) -> Requirement {
    Requirement::new(80, 7, 0).max(super::float_min_max_requires(m, t))
}

/// `ex2.approx.{f16,f16x2}` (no `.ftz`), `ex2.approx.ftz.{bf16,bf16x2}` (`.ftz` required).
pub fn ex2(m: &Modifiers) -> Result<(), Violation> {
    match (is_bf16(m), m.get(Slot::Ftz)) {
        (true, None) => Err(Violation::new(format!(
            "ex2.approx.{} needs .ftz: ex2.approx.ftz.{}",
            type_token(m),
            type_token(m)
        ))),
        (false, Some(ftz)) => Err(Violation::at(
            ftz,
            format!("ex2.approx.{} takes no .ftz", type_token(m)),
        )),
        _ => Ok(()),
    }
}

/// `ex2.approx.{f16,f16x2}` sm_75 (PTX 7.0); `ex2.approx.ftz.{bf16,bf16x2}` sm_90 (PTX 7.8).
pub fn ex2_requires(m: &Modifiers, _: Target) -> Requirement {
    if is_bf16(m) {
        Requirement::new(90, 7, 8)
    } else {
        Requirement::new(75, 7, 0)
    }
}

/// `tanh.approx.{f16,f16x2}` sm_75 (PTX 7.0); `.bf16`/`.bf16x2` sm_90 (PTX 7.8).
pub fn tanh_requires(m: &Modifiers, t: Target) -> Requirement {
    ex2_requires(m, t)
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
    fn bf16_takes_no_ftz_or_sat() {
        assert_eq!(
            arith(&modifiers("add.half", "add.rn.ftz.bf16x2")),
            Err(Violation::at(
                "ftz",
                ".ftz applies to .f16 and .f16x2, not .bf16x2"
            ))
        );
        assert_eq!(
            fma(&modifiers("fma.half", "fma.rn.sat.bf16"))
                .unwrap_err()
                .token,
            Some("sat")
        );
        assert_eq!(
            min_max(&modifiers("min.half", "min.ftz.NaN.bf16"))
                .unwrap_err()
                .token,
            Some("ftz")
        );
        assert_eq!(
            arith(&modifiers("mul.half", "mul.rn.ftz.sat.f16x2")),
            Ok(())
        );
        assert_eq!(fma(&modifiers("fma.half", "fma.rn.relu.bf16x2")), Ok(()));
    }

    #[test]
    fn fma_sat_and_relu_are_alternatives() {
        assert_eq!(
            fma(&modifiers("fma.half", "fma.rn.sat.relu.f16")),
            Err(Violation::at(
                "sat",
                ".sat and .relu are alternatives: write one or the other"
            ))
        );
        assert_eq!(fma(&modifiers("fma.half", "fma.rn.ftz.relu.f16")), Ok(()));
    }

    #[test]
    fn ex2_ftz_is_forbidden_on_f16_and_required_on_bf16() {
        assert_eq!(
            ex2(&modifiers("ex2.half", "ex2.approx.ftz.f16")),
            Err(Violation::at("ftz", "ex2.approx.f16 takes no .ftz"))
        );
        assert_eq!(
            ex2(&modifiers("ex2.half", "ex2.approx.bf16x2")),
            Err(Violation::new(
                "ex2.approx.bf16x2 needs .ftz: ex2.approx.ftz.bf16x2"
            ))
        );
        assert_eq!(ex2(&modifiers("ex2.half", "ex2.approx.f16x2")), Ok(()));
        assert_eq!(ex2(&modifiers("ex2.half", "ex2.approx.ftz.bf16")), Ok(()));
    }

    #[test]
    fn floors() {
        let t = Target::SM_90;
        let req = |id, op| modifiers(id, op).requirement(t);
        assert_eq!(req("add.half", "add.rn.f16"), Requirement::new(53, 4, 2));
        assert_eq!(req("add.half", "add.bf16x2"), Requirement::new(90, 7, 8));
        assert_eq!(
            req("fma.half", "fma.rn.relu.f16"),
            Requirement::new(80, 7, 0)
        );
        assert_eq!(req("fma.half", "fma.rn.bf16"), Requirement::new(80, 7, 0));
        assert_eq!(
            req("fma.half-oob", "fma.rn.oob.relu.bf16x2"),
            Requirement::new(90, 8, 1)
        );
        assert_eq!(req("neg.half", "neg.f16"), Requirement::new(53, 6, 0));
        assert_eq!(req("abs.half", "abs.ftz.f16x2"), Requirement::new(53, 6, 5));
        assert_eq!(req("abs.half", "abs.bf16"), Requirement::new(80, 7, 0));
        assert_eq!(req("min.half", "min.NaN.bf16"), Requirement::new(80, 7, 0));
        assert_eq!(
            req("max.half", "max.xorsign.abs.f16x2"),
            Requirement::new(86, 7, 2)
        );
        assert_eq!(
            req("ex2.half", "ex2.approx.f16"),
            Requirement::new(75, 7, 0)
        );
        assert_eq!(
            req("ex2.half", "ex2.approx.ftz.bf16x2"),
            Requirement::new(90, 7, 8)
        );
        assert_eq!(
            req("tanh.half", "tanh.approx.bf16"),
            Requirement::new(90, 7, 8)
        );
    }
}
