//! Comparing: GPU outputs against the interpreter's, bit for bit, or
//! within the documented bounds of the approximate forms.

use super::*;

/// Special registers whose values depend on the machine or the moment.
pub(crate) const NONDETERMINISTIC_SREGS: &[&str] = &[
    "%clock",
    "%clock64",
    "%globaltimer",
    "%smid",
    "%nsmid",
    "%warpid",
    "%nwarpid",
    "%gridid",
    "%total_smem_size",
    "%dynamic_smem_size",
];

/// Whether `value` is a plausible reading of special register `name` in
/// these kernels (256-thread blocks, no dynamic shared memory), on an
/// H200 or on the interpreter.
pub(crate) fn plausible(name: &str, value: u64) -> bool {
    match name {
        // An SM index, and the count: H200 has 132 SMs; allow any GPU.
        "%smid" => value < 1024,
        "%nsmid" => (1..=1024).contains(&value),
        // A warp slot of the SM (at most 64 warps an SM), and the count.
        "%warpid" => value < 64,
        "%nwarpid" => (1..=64).contains(&value),
        // Counters: any 32-bit value; a 64-bit clock and the timer have
        // been running (nonzero).
        "%clock" => value <= u64::from(u32::MAX),
        "%clock64" | "%globaltimer" => value != 0,
        "%gridid" => true,
        // Shared memory: at most the 228 KiB an SM has; none is dynamic.
        "%total_smem_size" => value <= 228 * 1024,
        "%dynamic_smem_size" => value == 0,
        _ => false,
    }
}

/// An error bound of an approximate form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Bound {
    /// At most this many units in the last place from the exact result.
    Ulps(f64),
    /// Relative error at most 2^x.
    Relative(f64),
    /// Absolute error at most 2^x.
    Absolute(f64),
}

/// What an approximate form promises for a source value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Limit {
    Within(Bound),
    /// No numeric bound: both results NaN, or both of magnitude at most this.
    RangeOnly(f64),
}

/// The promise of an approximate form as a function of its (first) source.
pub(crate) type Rule = fn(f64) -> Limit;

/// The approximate forms and their error bounds, by opcode prefix (the
/// longest matching prefix wins). The figures are the PTX ISA's, as the
/// interpreter's `semantics/approx.rs` documents them per function together
/// with what was measured on an H200 (where the ISA gives none, or the
/// measurement is larger, the measurement); that module does not export
/// them, so they are copied here. A comparison allows one more ULP for the
/// interpreter's own rounding (its results are the exact function rounded
/// to nearest).
///
/// - `div.approx.f32`, `div.full.f32`: 2 ulp.
/// - `rcp.approx.f32`: 1 ulp; `rcp.approx.ftz.f64` and
///   `rsqrt.approx.ftz.f64` (computed from the top 32 bits): relative
///   2^-19 (measured 2^-19.97 and 2^-20.08; the ISA gives no figure).
/// - `sqrt.approx.f32`: relative 2^-23; `rsqrt.approx.f32`: relative
///   2^-22.9; `rsqrt.approx.f64`: 2 ulp (no ISA figure; measured 1 ulp).
/// - `sin.approx.f32`, `cos.approx.f32`: absolute 2^-20.4 for |a| <= 2 pi
///   (ISA 2^-20.5; `cos` measured 2^-20.46 on (pi, 2 pi]), 2^-14.7 for
///   |a| <= 100 pi, beyond only |result| <= 1.
/// - `lg2.approx.f32`: absolute 2^-22 for a in (0.5, 2), relative 2^-22
///   elsewhere.
/// - `ex2.approx.f32`: 2 ulp; `.f16`/`.f16x2`: relative 2^-9.9;
///   `.ftz.bf16`/`.ftz.bf16x2`: relative 2^-7.
/// - `tanh.approx.f32`: relative 2^-10.987; `.f16`/`.f16x2`: relative
///   2^-10; `.bf16`/`.bf16x2`: relative 2^-7 (measured; no ISA figure).
pub(crate) const APPROX_BOUNDS: &[(&str, Rule)] = &[
    ("div.approx.", ulps_2),
    ("div.full.", ulps_2),
    ("rcp.approx.ftz.f64", relative_19),
    ("rcp.approx.", ulps_1),
    ("sqrt.approx.", relative_23),
    ("rsqrt.approx.ftz.f64", relative_19),
    ("rsqrt.approx.f64", ulps_2),
    ("rsqrt.approx.", relative_22_9),
    ("sin.approx.", sin_cos),
    ("cos.approx.", sin_cos),
    ("lg2.approx.", lg2),
    ("ex2.approx.f16", relative_9_9),
    ("ex2.approx.ftz.bf16", relative_7),
    ("ex2.approx.", ulps_2),
    ("tanh.approx.f16", relative_10),
    ("tanh.approx.bf16", relative_7),
    ("tanh.approx.", relative_10_987),
];

pub(crate) fn ulps_1(_: f64) -> Limit {
    Limit::Within(Bound::Ulps(1.0))
}
pub(crate) fn ulps_2(_: f64) -> Limit {
    Limit::Within(Bound::Ulps(2.0))
}
pub(crate) fn relative_7(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-7.0))
}
pub(crate) fn relative_9_9(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-9.9))
}
pub(crate) fn relative_10(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-10.0))
}
pub(crate) fn relative_10_987(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-10.987))
}
pub(crate) fn relative_19(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-19.0))
}
pub(crate) fn relative_22_9(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-22.9))
}
pub(crate) fn relative_23(_: f64) -> Limit {
    Limit::Within(Bound::Relative(-23.0))
}
pub(crate) fn sin_cos(a: f64) -> Limit {
    let pi = std::f64::consts::PI;
    match a.abs() {
        m if m <= 2.0 * pi => Limit::Within(Bound::Absolute(-20.4)),
        m if m <= 100.0 * pi => Limit::Within(Bound::Absolute(-14.7)),
        _ => Limit::RangeOnly(1.0),
    }
}
pub(crate) fn lg2(a: f64) -> Limit {
    if a > 0.5 && a < 2.0 {
        Limit::Within(Bound::Absolute(-22.0))
    } else {
        Limit::Within(Bound::Relative(-22.0))
    }
}

pub(crate) fn approx_rule(opcode: &str) -> Option<Rule> {
    APPROX_BOUNDS
        .iter()
        .filter(|(prefix, _)| opcode.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, rule)| *rule)
}

/// The ULPs `bound` allows around the result `reference`.
pub(crate) fn allowed_ulps(fmt: Fmt, bound: Bound, reference: f64) -> f64 {
    match bound {
        Bound::Ulps(n) => n,
        Bound::Relative(x) => (2f64.powf(x) * 2f64.powi(fmt.man as i32 + 1)).ceil(),
        Bound::Absolute(x) => (2f64.powf(x) / fmt.ulp_at(reference)).ceil(),
    }
}

/// The distance in ULPs between two values of `fmt` (`None`: a NaN against
/// anything but the same NaN, or an infinity against a different value).
pub(crate) fn ulp_distance(fmt: Fmt, a: u64, b: u64) -> Option<f64> {
    match (fmt.is_nan(a), fmt.is_nan(b)) {
        // The interpreter claims the hardware's NaN bits (canonical NaNs,
        // f64 propagation) for the approximate forms too.
        (true, true) => return (a == b).then_some(0.0),
        (false, false) => {}
        _ => return None,
    }
    if (fmt.is_inf(a) || fmt.is_inf(b)) && a != b {
        return None;
    }
    let ordered = |x: u64| {
        let magnitude = i128::from(x & !fmt.sign());
        if x & fmt.sign() != 0 {
            -magnitude
        } else {
            magnitude
        }
    };
    Some((ordered(a) - ordered(b)).unsigned_abs() as f64)
}

/// `|a - b|` as real values, in ULPs of `fmt` at `b` (the same unit
/// [`allowed_ulps`] converts an absolute bound into); `None` as for
/// [`ulp_distance`].
pub(crate) fn absolute_distance(fmt: Fmt, a: u64, b: u64) -> Option<f64> {
    let exact = ulp_distance(fmt, a, b)?;
    if exact == 0.0 {
        return Some(0.0);
    }
    let (x, y) = (fmt.to_f64(a), fmt.to_f64(b));
    Some((x - y).abs() / fmt.ulp_at(y))
}

/// The float lanes of a value of type `ty`: (format, bits) pairs.
pub(crate) fn float_lanes(ty: PtxType, value: u64) -> Vec<(Fmt, u64)> {
    match ty {
        PtxType::F16x2 => vec![(Fmt::F16, value & 0xffff), (Fmt::F16, value >> 16 & 0xffff)],
        PtxType::Bf16x2 => vec![
            (Fmt::BF16, value & 0xffff),
            (Fmt::BF16, value >> 16 & 0xffff),
        ],
        _ => scalar_float(ty)
            .map(|f| vec![(f, value)])
            .unwrap_or_default(),
    }
}

/// The comparison of one case.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) rows: usize,
    pub(crate) mismatched_rows: usize,
    pub(crate) examples: Vec<String>,
    /// Approximate forms: the largest ULP distance seen, and the bound.
    pub(crate) approx: Option<(f64, f64)>,
    /// Why the case could not be compared (a build, interpreter or GPU failure).
    pub(crate) failure: Option<String>,
}

pub(crate) fn element(bytes: &[u8], index: usize, size: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&bytes[index * size..(index + 1) * size]);
    u64::from_le_bytes(b)
}

/// Names and hex values of the lanes of row `r` of the tensors `which`.
pub(crate) fn describe_row(
    case: &Case,
    built: &Built,
    data: &[Vec<u8>],
    r: usize,
    which: impl Fn(&TensorRole) -> bool,
) -> String {
    let operands = case.variant.operands();
    let mut parts = Vec::new();
    for (k, role) in built.roles.iter().enumerate() {
        if !which(role) || data[k].is_empty() {
            continue;
        }
        let size = role.dtype.size_bytes();
        let row = if role.per_row { r } else { 0 };
        // The tensors of a CTA barrier's exchange name its immediate.
        let name = match (operands[role.operand].kind, role.role) {
            (OperandKind::Immediate { .. }, Role::Source) => "ex_in",
            (OperandKind::Immediate { .. }, _) => "ex_out",
            _ => operands[role.operand].name,
        };
        for lane in 0..usize::from(role.lanes) {
            let v = element(&data[k], row * usize::from(role.lanes) + lane, size);
            let label = match (role.role == Role::Memory, role.lanes > 1) {
                (true, true) => format!("[{name}][{lane}]"),
                (true, false) => format!("[{name}]"),
                (false, true) => format!("{name}[{lane}]"),
                (false, false) => name.to_string(),
            };
            parts.push(format!("{label}={v:#0w$x}", w = size * 2 + 2));
        }
    }
    parts.join(" ")
}

/// Compares `ours` (the reference: the GPU, or the first interpreter run)
/// with `theirs` (the interpreter, or its second run) for one case.
pub(crate) fn compare(
    case: &Case,
    built: &Built,
    reference: &[Vec<u8>],
    other: &[Vec<u8>],
    smoke: bool,
) -> Outcome {
    let mut outcome = Outcome::default();
    let operands = case.variant.operands();
    let mut bad_rows = BTreeSet::new();
    let mut notes: BTreeMap<usize, String> = BTreeMap::new();
    let mut max_ulp: Option<(f64, f64)> = None;
    for (k, role) in built.roles.iter().enumerate() {
        let compared = match role.role {
            Role::Source => false,
            Role::Destination => true,
            Role::Memory => built.written[k],
        };
        if !compared {
            continue;
        }
        let check = built.checks[k];
        let size = role.dtype.size_bytes();
        let rows = if role.per_row { case.rows } else { 1 };
        let lanes = usize::from(role.lanes);
        let ty = operands[role.operand].ty;
        // Opaque: equal inputs, equal outputs, on each side.
        let mut opaque: [HashMap<Vec<u8>, Vec<u8>>; 2] = [HashMap::new(), HashMap::new()];
        for r in 0..rows {
            for lane in 0..lanes {
                let at = r * lanes + lane;
                let (a, b) = (
                    element(&reference[k], at, size),
                    element(&other[k], at, size),
                );
                let bad = match check {
                    Check::Exact => a != b,
                    Check::Unordered => false,
                    Check::Plausible(name) => {
                        let bad = !plausible(name, a) || !plausible(name, b);
                        if bad {
                            notes
                                .entry(r)
                                .or_insert_with(|| format!("implausible {name}"));
                        }
                        bad
                    }
                    Check::Opaque => {
                        let input: Vec<u8> = built
                            .inputs
                            .iter()
                            .zip(&built.roles)
                            .filter(|(i, t)| !i.is_empty() && t.per_row)
                            .flat_map(|(i, t)| {
                                i[r * t.row_bytes()..(r + 1) * t.row_bytes()].to_vec()
                            })
                            .collect();
                        let mut bad = false;
                        for (side, v) in [(0, a), (1, b)] {
                            let out = v.to_le_bytes().to_vec();
                            let seen = opaque[side].entry(input.clone()).or_insert(out.clone());
                            if *seen != out {
                                bad = true;
                                notes.entry(r).or_insert_with(|| {
                                    "equal inputs gave different policies".into()
                                });
                            }
                        }
                        bad
                    }
                    Check::Approx(rule) if !smoke => {
                        let sources = first_source(case, built, r);
                        let mut bad = false;
                        for (j, ((fmt, x), (_, y))) in float_lanes(ty, a)
                            .into_iter()
                            .zip(float_lanes(ty, b))
                            .enumerate()
                        {
                            let source = sources.get(j).or(sources.first()).copied().unwrap_or(0.0);
                            let bound = match rule(source) {
                                Limit::Within(bound) => bound,
                                Limit::RangeOnly(range) => {
                                    let ok = (fmt.is_nan(x) && fmt.is_nan(y))
                                        || (fmt.to_f64(x).abs() <= range
                                            && fmt.to_f64(y).abs() <= range);
                                    if !ok {
                                        bad = true;
                                        notes.entry(r).or_insert_with(|| {
                                            format!("outside [-{range}, {range}]")
                                        });
                                    }
                                    continue;
                                }
                            };
                            let allowed = allowed_ulps(fmt, bound, fmt.to_f64(y)) + 1.0;
                            let distance = match bound {
                                // An absolute bound is about the values'
                                // difference, which counting the floats
                                // between them overstates near zero.
                                Bound::Absolute(_) => absolute_distance(fmt, x, y),
                                _ => ulp_distance(fmt, x, y),
                            };
                            match distance {
                                Some(d) => {
                                    let m = max_ulp.get_or_insert((0.0, allowed));
                                    m.0 = m.0.max(d);
                                    m.1 = m.1.max(allowed);
                                    if d > allowed {
                                        bad = true;
                                        notes.entry(r).or_insert_with(|| {
                                            format!("{d} ulp apart, bound {allowed}")
                                        });
                                    }
                                }
                                None => {
                                    bad = true;
                                    notes.entry(r).or_insert_with(|| {
                                        "a NaN or infinity against different bits".into()
                                    });
                                }
                            }
                        }
                        bad
                    }
                    // The smoke test compares two interpreter runs: exact.
                    Check::Approx(..) => a != b,
                };
                if bad {
                    bad_rows.insert(r);
                }
            }
        }
    }
    outcome.rows = case.rows;
    outcome.mismatched_rows = bad_rows.len();
    outcome.approx = max_ulp;
    let (left, right) = if smoke {
        ("run 1", "run 2")
    } else {
        ("gpu", "interp")
    };
    for &r in bad_rows.iter().take(5) {
        let inputs = describe_row(case, built, &built.inputs, r, |t| {
            t.role != Role::Destination
        });
        let outputs = |data: &[Vec<u8>]| {
            describe_row(case, built, data, r, |t| match t.role {
                Role::Source => false,
                Role::Destination => true,
                Role::Memory => case.family == Family::Store || case.family == Family::Atomic,
            })
        };
        let mut line = format!(
            "row {r}: {inputs} -> {left} {} | {right} {}",
            outputs(reference),
            outputs(other)
        );
        if let Some(note) = notes.get(&r) {
            let _ = write!(line, " ({note})");
        }
        if let Some(note) = built.warp_notes.get(r / 32) {
            let _ = write!(line, " [warp {}, lane {}: {note}]", r / 32, r % 32);
        }
        let block = case.block as usize;
        if let Some(note) = built.cta_notes.get(r / block) {
            let _ = write!(line, " [CTA {}, thread {}: {note}]", r / block, r % block);
        }
        outcome.examples.push(line);
    }
    outcome
}

/// The values of the first source operand's float lanes in row `r` (the
/// argument an approximate form's bound depends on).
pub(crate) fn first_source(case: &Case, built: &Built, r: usize) -> Vec<f64> {
    let Some((k, role)) = built
        .roles
        .iter()
        .enumerate()
        .find(|(_, t)| t.role == Role::Source)
    else {
        return Vec::new();
    };
    let ty = case.variant.operands()[role.operand].ty;
    let size = role.dtype.size_bytes();
    let bits = element(&built.inputs[k], r * usize::from(role.lanes), size);
    float_lanes(ty, bits)
        .into_iter()
        .map(|(fmt, b)| fmt.to_f64(b))
        .collect()
}
