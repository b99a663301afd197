//! Building a case: its kernel, its inputs and its run on the
//! interpreter.

use super::*;

/// How an output lane is compared.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Check {
    /// Bit for bit.
    Exact,
    /// Within the form's error bound.
    Approx(Rule),
    /// A machine- or time-dependent special register: plausible on both sides.
    Plausible(&'static str),
    /// An opaque hardware encoding (`createpolicy`): equal inputs give
    /// equal outputs, on each side.
    Opaque,
    /// Depends on the order threads ran in (same-address `atom` results).
    Unordered,
}

/// A case, compiled, with its inputs and its interpreter results.
pub(crate) struct Built {
    pub(crate) case: usize,
    pub(crate) entry: String,
    /// The harness's own failure (the kernel does not build): fails the test.
    pub(crate) error: Option<String>,
    pub(crate) program: Option<Program>,
    pub(crate) ptx: Option<String>,
    pub(crate) roles: Vec<TensorRole>,
    /// Whether each tensor parameter is written by the kernel.
    pub(crate) written: Vec<bool>,
    /// Per tensor: its initial bytes, or empty for outputs (which start as
    /// a sentinel).
    pub(crate) inputs: Vec<Vec<u8>>,
    /// The bytes of every tensor after the interpreter ran, or why it could not.
    pub(crate) interp: Result<Vec<Vec<u8>>, String>,
    /// Smoke test: a second run with the other sentinel.
    pub(crate) interp_again: Option<Result<Vec<Vec<u8>>, String>>,
    /// The bytes of every tensor after the GPU ran.
    pub(crate) gpu: Option<Result<Vec<Vec<u8>>, String>>,
    /// Runtime launch mode: the kernel, loaded.
    pub(crate) runtime_kernel: Option<&'static tile_kernel::runtime::Kernel>,
    pub(crate) checks: Vec<Check>,
    pub(crate) seconds_interp: f64,
    /// Warp collectives: what each warp's inputs exercise (shown with a
    /// mismatching row of the warp).
    pub(crate) warp_notes: Vec<String>,
    /// CTA barriers: what each CTA's inputs exercise (shown with a
    /// mismatching row of the CTA).
    pub(crate) cta_notes: Vec<String>,
}

impl Built {
    pub(crate) fn tensor_len(&self, case: &Case, k: usize) -> usize {
        let role = &self.roles[k];
        let rows = if role.per_row { case.rows } else { 1 };
        rows * role.row_bytes()
    }

    pub(crate) fn initial(&self, case: &Case, k: usize, sentinel: u8) -> Vec<u8> {
        if self.inputs[k].is_empty() {
            vec![sentinel; self.tensor_len(case, k)]
        } else {
            self.inputs[k].clone()
        }
    }

    /// The hidden symbol arguments: each symbol's value over its divisor.
    pub(crate) fn symbol_args(&self, case: &Case) -> Vec<u64> {
        self.program
            .as_ref()
            .map(|p| {
                p.symbols
                    .iter()
                    .map(|s| case.rows as u64 / s.divisor)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn grid(&self, case: &Case) -> [u32; 3] {
        [(case.rows as u32).div_ceil(case.block), 1, 1]
    }
}

/// Whether tensor `k` of a case holds values the kernel reads initially.
pub(crate) fn is_input(case: &Case, role: &TensorRole) -> bool {
    match role.role {
        Role::Source => true,
        Role::Destination => false,
        Role::Memory => case.family != Family::Store,
    }
}

/// How each tensor's output lanes are compared.
pub(crate) fn checks_for(case: &Case, roles: &[TensorRole]) -> Vec<Check> {
    let text = case.variant.opcode_text();
    let operands = case.variant.operands();
    roles
        .iter()
        .map(|role| match role.role {
            Role::Source => Check::Exact,
            Role::Memory => Check::Exact,
            Role::Destination => {
                if case.shared {
                    Check::Unordered
                } else if case.variant.form.mnemonic == "createpolicy" {
                    Check::Opaque
                } else if let Some(name) = case
                    .choices
                    .special
                    .filter(|n| NONDETERMINISTIC_SREGS.contains(n))
                {
                    Check::Plausible(name)
                } else if let Some(rule) = approx_rule(&text)
                    && (scalar_float(operands[role.operand].ty).is_some()
                        || matches!(operands[role.operand].ty, PtxType::F16x2 | PtxType::Bf16x2))
                {
                    Check::Approx(rule)
                } else {
                    Check::Exact
                }
            }
        })
        .collect()
}

/// Slot values a same-address atomic may take (`None`: the default sweep).
pub(crate) fn shared_restriction(m: &Modifiers, ty: PtxType, rng: &mut Rng) -> Option<Vec<u64>> {
    let op = atomic_op(m)?;
    let lane_fmt = match ty {
        PtxType::F16x2 => Some((Fmt::F16, 2)),
        PtxType::Bf16x2 => Some((Fmt::BF16, 2)),
        _ => scalar_float(ty).map(|f| (f, 1)),
    };
    let (fmt, lanes) = lane_fmt?;
    let half = 1 + fmt.exp + fmt.man;
    let splat = |v: u64| if lanes == 2 { v | v << half } else { v };
    match op {
        // Small integers: every partial sum is exact.
        "add" => Some(
            [0u64, 1, 2]
                .iter()
                .filter_map(|n| fmt.exact(false, *n, 0))
                .map(splat)
                .collect(),
        ),
        // No NaNs and no -0: the rest is a total order.
        "min" | "max" => {
            let values: Vec<u64> = fmt
                .specials()
                .into_iter()
                .chain(fmt.ties(rng))
                .filter(|b| !fmt.is_nan(*b) && *b != fmt.sign())
                .map(splat)
                .collect();
            Some(values)
        }
        _ => None,
    }
}

pub(crate) fn build(case_index: usize, case: &Case, smoke: bool) -> Built {
    let entry = format!("k{case_index}");
    let mut built = Built {
        case: case_index,
        entry: entry.clone(),
        error: None,
        program: None,
        ptx: None,
        roles: Vec::new(),
        written: Vec::new(),
        inputs: Vec::new(),
        interp: Err("not run".into()),
        interp_again: None,
        gpu: None,
        runtime_kernel: None,
        checks: Vec::new(),
        seconds_interp: 0.0,
        warp_notes: Vec::new(),
        cta_notes: Vec::new(),
    };
    if case.warp {
        warp::build(&mut built, case, smoke);
        return built;
    }
    let generated = match generate(
        &entry,
        &case.variant,
        case.target,
        Shape::PerThread { block: BLOCK },
        &case.choices,
    ) {
        Ok(g) => g,
        Err(ty) => {
            built.error = Some(format!("no tile or tensor dtype carries `.{}`", ty.token()));
            return built;
        }
    };
    let compilation = compile(&generated.kernel);
    let (Some(program), Some(ptx)) = (compilation.program, compilation.ptx) else {
        built.error = Some(format!(
            "the generated kernel does not compile: {}",
            compilation
                .diagnostics
                .iter()
                .map(|d| d.rendered())
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        return built;
    };
    built.roles = generated.tensors.clone();
    built.written = program
        .params
        .iter()
        .map(|p| {
            matches!(
                p.kind,
                ParamKind::Tensor {
                    borrow: tile_kernel_lowering::program::Borrow::Exclusive,
                    ..
                }
            )
        })
        .collect();
    built.checks = checks_for(case, &built.roles);

    // Inputs.
    let mut rng = Rng::from_label(&case.label);
    let operands = case.variant.operands();
    let mut slots = Vec::new();
    let mut fixed: Vec<(usize, Vec<u64>)> = Vec::new();
    let one_value_for_all = case.shared && matches!(atomic_op(&case.variant), Some("inc" | "dec"));
    for (k, role) in built.roles.iter().enumerate() {
        if !is_input(case, role) {
            continue;
        }
        let op = &operands[role.operand];
        let ty = if role.predicate { PtxType::Pred } else { op.ty };
        let width = (role.dtype.size_bytes() * 8) as u32;
        let (mut core, mut values, mut restricted) = values_for(ty, op.name, &mut rng);
        if case.shared
            && let Some(only) = shared_restriction(&case.variant, ty, &mut rng)
        {
            (core, values, restricted) = (only.clone(), only, true);
        }
        if one_value_for_all && role.role == Role::Source {
            let v = rng.pick(&values);
            (core, values, restricted) = (vec![v], vec![v], true);
        }
        let (core, values): (Vec<u64>, Vec<u64>) = (
            core.into_iter().map(|v| v & mask(width)).collect(),
            values.into_iter().map(|v| v & mask(width)).collect(),
        );
        if role.per_row {
            for lane in 0..usize::from(role.lanes) {
                slots.push(Slot {
                    tensor: k,
                    lane,
                    ty,
                    core: core.clone(),
                    values: values.clone(),
                    restricted,
                    width,
                });
            }
        } else {
            let row: Vec<u64> = (0..role.lanes)
                .map(|_| {
                    if case.shared && atomic_op(&case.variant) == Some("add") && restricted {
                        core[0]
                    } else {
                        rng.pick(&values)
                    }
                })
                .collect();
            fixed.push((k, row));
        }
    }
    let mut rows = build_rows(&slots, case.rows, &mut rng);
    // cas: the compare value equals the old memory in every other row.
    if atomic_op(&case.variant) == Some("cas") {
        let memory: Vec<usize> = (0..slots.len())
            .filter(|&j| built.roles[slots[j].tensor].role == Role::Memory)
            .collect();
        let compare: Vec<usize> = (0..slots.len())
            .filter(|&j| operands[built.roles[slots[j].tensor].operand].name == "b")
            .collect();
        for (r, row) in rows.iter_mut().enumerate() {
            if r % 2 == 0 {
                for (m, c) in memory.iter().zip(&compare) {
                    row[*c] = row[*m];
                }
            }
        }
    }
    built.inputs = built
        .roles
        .iter()
        .enumerate()
        .map(|(k, role)| {
            if !is_input(case, role) {
                return Vec::new();
            }
            let size = role.dtype.size_bytes();
            if let Some((_, row)) = fixed.iter().find(|(t, _)| *t == k) {
                return row
                    .iter()
                    .flat_map(|v| v.to_le_bytes()[..size].to_vec())
                    .collect();
            }
            let mut bytes = vec![0u8; case.rows * role.row_bytes()];
            for (j, slot) in slots.iter().enumerate().filter(|(_, s)| s.tensor == k) {
                for (r, row) in rows.iter().enumerate() {
                    let at = (r * usize::from(role.lanes) + slot.lane) * size;
                    bytes[at..at + size].copy_from_slice(&row[j].to_le_bytes()[..size]);
                }
            }
            bytes
        })
        .collect();
    if case.variant.usability() == Usability::CtaBarrier {
        cta::predicate_patterns(&mut built, case, &mut rng);
    }
    built.program = Some(program.clone());
    built.ptx = Some(ptx);
    interpret(&mut built, case, program, smoke);
    built
}

/// Runs a built case on the interpreter (twice, with both sentinels, in
/// the smoke test).
pub(crate) fn interpret(built: &mut Built, case: &Case, program: Program, smoke: bool) {
    let started = Instant::now();
    match Prepared::new(program) {
        Err(e) => built.interp = Err(format!("the interpreter cannot prepare it: {e}")),
        Ok(prepared) => {
            built.interp = run_interpreter(&prepared, built, case, INTERP_SENTINEL);
            if smoke {
                built.interp_again =
                    Some(run_interpreter(&prepared, built, case, !INTERP_SENTINEL));
            }
        }
    }
    built.seconds_interp = started.elapsed().as_secs_f64();
}

pub(crate) fn run_interpreter(
    prepared: &Prepared,
    built: &Built,
    case: &Case,
    sentinel: u8,
) -> Result<Vec<Vec<u8>>, String> {
    let memories: Vec<Vec<AtomicU8>> = (0..built.roles.len())
        .map(|k| {
            built
                .initial(case, k, sentinel)
                .into_iter()
                .map(AtomicU8::new)
                .collect()
        })
        .collect();
    let args: Vec<Arg<'_>> = memories.iter().map(|m| Arg::Tensor(m)).collect();
    prepared
        .run(
            built.grid(case),
            &args,
            &built.symbol_args(case),
            &RunOptions {
                threads: 1,
                ..RunOptions::default()
            },
        )
        .map_err(|fault| format!("the interpreter faulted: {fault}"))?;
    Ok(memories
        .into_iter()
        .map(|m| m.into_iter().map(AtomicU8::into_inner).collect())
        .collect())
}

/// Maps `f` over `items` on `threads` host threads, in order.
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(i, &items[i]);
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
