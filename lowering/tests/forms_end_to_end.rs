//! Every form kernels may use works end to end: for each usable form of
//! the table (one variant per distinct list of operand types, plus its
//! first), a kernel that initialises the form's sources, runs the form and
//! stores its destinations is generated, checked and emitted by `compile`
//! (no diagnostic allowed), and its PTX is assembled by the pinned ptxas at
//! the variant's floor target.
//!
//! `lowering/tests/certify.rs` proves the *table* against ptxas; this test
//! proves that the *checker and emitter* accept and lower what the table
//! calls usable, with real tiles, tensors, predicates and immediates.

use std::collections::{BTreeMap, BTreeSet};

use tile_kernel_lowering::ast::*;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{
    Access, Modifiers, OperandKind, PtxType, ResolvedOperand, Usability, resolve,
};
use tile_kernel_lowering::{DType, SpanId, Target, compile};

#[path = "../../tests/support/ptxas.rs"]
#[allow(dead_code)]
mod ptxas;

const S: SpanId = SpanId(0);

/// The dtype a tile or tensor of PTX type `ty` gets: the type itself where
/// a dtype is it, else the unsigned container of its width.
fn dtype_for(ty: PtxType) -> Option<DType> {
    if ty == PtxType::Pred {
        return Some(DType::Bool);
    }
    let accepted = ty.accepted_dtypes();
    ty.natural_dtype()
        .filter(|d| accepted.contains(d))
        .or_else(|| accepted.iter().copied().find(|d| *d == d.bit_container()))
}

fn place(base: &str, views: Vec<ViewKind>) -> Operand {
    Operand::Place(PlaceExpr {
        base: base.to_string(),
        base_span: S,
        views: views
            .into_iter()
            .map(|kind| ViewOp { kind, span: S })
            .collect(),
        span: S,
    })
}

/// `name.reshape([lanes, 1])`: one repeat per register.
fn per_register(name: &str, lanes: u8) -> Operand {
    place(name, vec![ViewKind::Reshape(vec![i64::from(lanes), 1])])
}

fn apply(opcode: &str, operands: Vec<Operand>) -> Stmt {
    Stmt::Apply(Apply {
        opcode: opcode.to_string(),
        opcode_span: S,
        operands,
        scope: None,
        pred: None,
        preserve_dst: None,
        span: S,
    })
}

fn alloc(name: &str, dtype: DType, lanes: u8) -> Stmt {
    Stmt::AllocLocal(AllocLocal {
        name: name.to_string(),
        name_span: S,
        dtype,
        dtype_span: S,
        shape: vec![Dim::constant(u64::from(lanes), S)],
        span: S,
    })
}

fn tensor(name: &str, dtype: DType, lanes: u8) -> Param {
    Param {
        name: name.to_string(),
        span: S,
        ty: ParamType::Tensor {
            dtype,
            dims: vec![Dim::constant(u64::from(lanes), S)],
        },
    }
}

fn bits_type(dtype: DType) -> String {
    format!("b{}", dtype.bits())
}

/// A kernel named `name` that runs `form` once on fresh operands, or the
/// operand type no dtype carries.
fn kernel_for(name: &str, m: &Modifiers, target: Target) -> Result<Kernel, PtxType> {
    if let Some(op) = m
        .operands()
        .iter()
        .find(|o| !matches!(o.kind, OperandKind::Immediate { .. }) && dtype_for(o.ty).is_none())
    {
        return Err(op.ty);
    }
    let dtype_for = |ty| dtype_for(ty).expect("checked above");
    let mut params = Vec::new();
    let mut body = Vec::new();
    let mut after = Vec::new();
    let mut operands = Vec::new();
    for (i, op) in m.operands().iter().enumerate() {
        let ResolvedOperand {
            kind,
            access,
            ty,
            lanes,
            ..
        } = *op;
        match kind {
            OperandKind::Immediate { min, .. } => {
                operands.push(Operand::Literal(Literal {
                    value: LiteralValue::Int(i128::from(min)),
                    span: S,
                }));
            }
            OperandKind::TensorCoords => unreachable!("TMA forms are never usable"),
            OperandKind::Special(names) => operands.push(Operand::Special {
                name: names[0].to_string(),
                span: S,
            }),
            OperandKind::Address => {
                let t = format!("m{i}");
                params.push(tensor(&t, dtype_for(ty), lanes));
                operands.push(place(&t, Vec::new()));
            }
            OperandKind::Register | OperandKind::Predicate => {
                let dtype = dtype_for(ty);
                let r = format!("r{i}");
                body.push(alloc(&r, dtype, lanes));
                operands.push(place(&r, Vec::new()));
                // Predicates travel through a u32 tile: `setp`/`selp`.
                let carrier = if dtype == DType::Bool {
                    DType::U32
                } else {
                    dtype
                };
                let io = format!("io{i}");
                params.push(tensor(&io, carrier, lanes));
                let staged = format!("w{i}");
                if dtype == DType::Bool {
                    body.push(alloc(&staged, DType::U32, lanes));
                }
                if access == Access::Read {
                    if dtype == DType::Bool {
                        body.push(apply(
                            "ld.global.b32",
                            vec![per_register(&staged, lanes), per_register(&io, lanes)],
                        ));
                        body.push(apply(
                            "setp.ne.u32",
                            vec![
                                per_register(&r, lanes),
                                per_register(&staged, lanes),
                                Operand::Literal(Literal {
                                    value: LiteralValue::Int(0),
                                    span: S,
                                }),
                            ],
                        ));
                    } else {
                        body.push(apply(
                            &format!("ld.global.{}", bits_type(dtype)),
                            vec![per_register(&r, lanes), per_register(&io, lanes)],
                        ));
                    }
                } else if dtype == DType::Bool {
                    let literal = |v| {
                        Operand::Literal(Literal {
                            value: LiteralValue::Int(v),
                            span: S,
                        })
                    };
                    after.push(apply(
                        "selp.u32",
                        vec![
                            per_register(&staged, lanes),
                            literal(1),
                            literal(0),
                            per_register(&r, lanes),
                        ],
                    ));
                    after.push(apply(
                        "st.global.b32",
                        vec![per_register(&io, lanes), per_register(&staged, lanes)],
                    ));
                } else {
                    after.push(apply(
                        &format!("st.global.{}", bits_type(dtype)),
                        vec![per_register(&io, lanes), per_register(&r, lanes)],
                    ));
                }
            }
        }
    }
    body.push(apply(&m.opcode_text(), operands));
    body.extend(after);
    Ok(Kernel {
        name: name.to_string(),
        name_span: S,
        launch: LaunchDims::fixed([1, 1, 1], [1, 1, 1]),
        target,
        params,
        body,
    })
}

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

/// One variant per distinct list of operand types, plus the first.
fn sample(form: &'static tile_kernel_lowering::ptx::InstructionForm) -> Vec<Modifiers> {
    let mut seen = BTreeSet::new();
    legal_variants(form)
        .into_iter()
        .filter(|m| {
            let types: Vec<String> = m.operands().iter().map(|o| o.ty.to_string()).collect();
            seen.insert(types)
        })
        .collect()
}

/// Joins the `.entry` functions of several modules for one target into one
/// module at the highest `.version` among them.
fn join_modules(modules: &[String]) -> String {
    let mut version = String::new();
    let mut header = String::new();
    let mut bodies = String::new();
    for module in modules {
        let start = module.find(".visible .entry").expect("an entry");
        let (head, body) = module.split_at(start);
        let v = head
            .lines()
            .find(|l| l.starts_with(".version "))
            .expect(".version")
            .to_string();
        if v > version {
            version = v;
        }
        header = head.to_string();
        bodies.push_str(body);
        bodies.push('\n');
    }
    let header: String = header
        .lines()
        .map(|l| {
            if l.starts_with(".version ") {
                version.clone()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!("{header}\n{bodies}")
}

#[test]
fn every_usable_form_compiles_and_assembles() {
    ptxas::require_pinned_version();
    // Helper forms this test itself relies on.
    for opcode in ["ld.global.b32", "st.global.b32", "setp.ne.u32", "selp.u32"] {
        assert!(resolve(opcode).is_ok(), "`{opcode}` is not in the table");
    }
    let mut by_target: BTreeMap<Target, Vec<(String, String)>> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut forms, mut kernels) = (0, 0);
    for form in FORMS.iter().filter(|f| f.usable == Usability::Yes) {
        forms += 1;
        for m in sample(form) {
            if m.usability() != Usability::Yes {
                continue;
            }
            kernels += 1;
            let sm = floor(&m);
            let name = format!("k{kernels}");
            let kernel = match kernel_for(&name, &m, sm) {
                Ok(kernel) => kernel,
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
            match out.ptx {
                Some(ptx) => by_target
                    .entry(sm)
                    .or_default()
                    .push((m.opcode_text(), ptx)),
                None => failures.push(format!(
                    "{} ({}): {}",
                    m.opcode_text(),
                    form.id,
                    out.diagnostics
                        .iter()
                        .map(|d| d.rendered())
                        .collect::<Vec<_>>()
                        .join(" | ")
                )),
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
