//! Opcode resolution: from the text in `ptx["..."]` to the table forms it can
//! name. Generic over the table: no instruction is special-cased here except
//! for extra help text.

use std::collections::HashMap;

use super::form::{Access, InstructionForm, Modifiers, OperandKind};
use super::table::FORMS;
use super::types::PtxType;
use crate::diag::Code;

/// Why an opcode string names no legal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpcodeError {
    pub code: Code,
    pub message: String,
    pub help: Vec<String>,
    pub notes: Vec<String>,
}

impl OpcodeError {
    fn new(code: Code, message: impl Into<String>) -> Self {
        OpcodeError {
            code,
            message: message.into(),
            help: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// How one form failed to take the opcode's tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mismatch {
    /// The form has no slot with this token.
    Unknown(String),
    /// The token belongs to a slot that comes earlier than where it is
    /// written; `before` is the first written token it must precede.
    Misplaced { token: String, before: String },
    /// Two tokens fill the same slot (`cvt.rn.rz..`).
    Duplicate {
        token: String,
        other: String,
        slot: &'static str,
    },
    /// A required slot got no token.
    /// A required slot got no token: its name and that form's choices.
    Missing(&'static str, &'static [&'static str]),
}

/// All forms of the mnemonic, in table order.
fn forms_of(mnemonic: &str) -> impl Iterator<Item = &'static InstructionForm> + '_ {
    mnemonic_forms()
        .get(mnemonic)
        .into_iter()
        .flat_map(|forms| forms.iter().copied())
}

/// Each mnemonic's forms in table order, computed once per process: the
/// lookups of every opcode (its mnemonic, then its forms) without a scan
/// of the whole table.
fn mnemonic_forms() -> &'static HashMap<&'static str, Vec<&'static InstructionForm>> {
    static FORMS_BY_MNEMONIC: std::sync::OnceLock<
        HashMap<&'static str, Vec<&'static InstructionForm>>,
    > = std::sync::OnceLock::new();
    FORMS_BY_MNEMONIC.get_or_init(|| {
        let mut out: HashMap<&'static str, Vec<&'static InstructionForm>> = HashMap::new();
        for form in FORMS {
            out.entry(form.mnemonic).or_default().push(form);
        }
        out
    })
}

/// Whether the table has forms of `mnemonic`: a binary search of the
/// sorted mnemonics (computed once per process), cheaper than hashing the
/// text at opt-level 0; the opcode's prefixes are probed longest first.
fn is_mnemonic(mnemonic: &str) -> bool {
    static SORTED: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    SORTED
        .get_or_init(|| {
            let mut sorted = known_mnemonics().to_vec();
            sorted.sort_unstable();
            sorted
        })
        .binary_search(&mnemonic)
        .is_ok()
}

/// Every mnemonic in the table, deduplicated, in table order.
pub fn mnemonics() -> Vec<&'static str> {
    known_mnemonics().to_vec()
}

/// [`mnemonics`], computed once per process (every opcode resolves
/// against it).
fn known_mnemonics() -> &'static [&'static str] {
    static MNEMONICS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    MNEMONICS.get_or_init(|| {
        let mut out: Vec<&'static str> = Vec::new();
        for form in FORMS {
            if !out.contains(&form.mnemonic) {
                out.push(form.mnemonic);
            }
        }
        out
    })
}

/// The operand positions where some form of an opcode's mnemonic takes a
/// shared-memory matrix descriptor (`wgmma`'s `a-desc`, `b-desc`): views
/// a whole scope reads together, which the checker binds before it
/// chooses the form. Read from the opcode text alone, like
/// [`memory_destinations`].
pub fn descriptor_operands(opcode: &str) -> Vec<usize> {
    let parts: Vec<&str> = opcode.split('.').collect();
    let Some(split) = mnemonic_parts(opcode, &parts) else {
        return Vec::new();
    };
    let mnemonic = dotted_prefix(opcode, &parts, split);
    let mut positions: Vec<usize> = forms_of(mnemonic)
        .flat_map(|form| {
            form.operands
                .iter()
                .enumerate()
                .filter_map(|(i, o)| o.descriptor.then_some(i))
        })
        .collect();
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// The operand positions an opcode may store into: where any form of its
/// mnemonic (the longest dotted prefix the table knows) has a memory
/// destination. Read from the opcode text alone, so it holds for a
/// statement whose operands do not check, and for a variant the table
/// rejects: the launcher's `&mut` parameters come from it
/// ([`crate::signature`]).
pub fn memory_destinations(opcode: &str) -> Vec<usize> {
    let parts: Vec<&str> = opcode.split('.').collect();
    let Some(split) = mnemonic_parts(opcode, &parts) else {
        return Vec::new();
    };
    let mnemonic = dotted_prefix(opcode, &parts, split);
    let mut positions: Vec<usize> = forms_of(mnemonic)
        .flat_map(|form| {
            form.operands.iter().enumerate().filter_map(|(i, o)| {
                (o.access == Access::Write
                    && matches!(o.kind, OperandKind::Address | OperandKind::TensorCoords))
                .then_some(i)
            })
        })
        .collect();
    positions.sort_unstable();
    positions.dedup();
    positions
}

/// Assigns tokens to the form's slots in PTX order.
fn match_tokens(
    form: &'static InstructionForm,
    tokens: &[&str],
) -> Result<Modifiers, (usize, Mismatch)> {
    let mut chosen: Vec<Option<&'static str>> = vec![None; form.slots.len()];
    // The slot each token went to, for pointing at the right neighbour.
    let mut placed: Vec<usize> = Vec::with_capacity(tokens.len());
    let mut next_slot = 0;
    for (i, token) in tokens.iter().enumerate() {
        // The first later slot with the token among its choices (index
        // loops: the checker resolves every opcode of a kernel against
        // every form of its mnemonic).
        let mut found = None;
        let mut j = next_slot;
        while found.is_none() && j < form.slots.len() {
            let choices = form.slots[j].choices;
            let mut c = 0;
            while c < choices.len() {
                if choices[c] == *token {
                    found = Some((j, choices[c]));
                    break;
                }
                c += 1;
            }
            j += 1;
        }
        match found {
            Some((j, canonical)) => {
                chosen[j] = Some(canonical);
                placed.push(j);
                next_slot = j + 1;
            }
            None => {
                let earlier = form.slots[..next_slot]
                    .iter()
                    .position(|s| s.choices.contains(token));
                let mismatch = match earlier {
                    Some(own) => {
                        if let Some(k) = placed.iter().position(|p| *p == own) {
                            Mismatch::Duplicate {
                                token: token.to_string(),
                                other: tokens[k].to_string(),
                                slot: form.slots[own].name.name(),
                            }
                        } else {
                            let k = placed.iter().position(|p| *p > own).unwrap_or(i - 1);
                            Mismatch::Misplaced {
                                token: token.to_string(),
                                before: tokens[k].to_string(),
                            }
                        }
                    }
                    None => Mismatch::Unknown(token.to_string()),
                };
                return Err((i, mismatch));
            }
        }
    }
    if let Some(missing) = form
        .slots
        .iter()
        .zip(&chosen)
        .find(|(s, c)| s.required && c.is_none())
    {
        return Err((
            tokens.len(),
            Mismatch::Missing(missing.0.name.name(), missing.0.choices),
        ));
    }
    Ok(Modifiers {
        form,
        tokens: chosen,
    })
}

/// Resolves an opcode string to every legal form it can name. Several
/// candidates remain when only the operands tell them apart (`mov.b32` is a
/// copy, a pack or an unpack); the caller picks by operand shapes.
pub fn resolve(opcode: &str) -> Result<Vec<Modifiers>, OpcodeError> {
    if opcode.is_empty()
        || opcode.split('.').any(str::is_empty)
        || opcode.contains(char::is_whitespace)
    {
        return Err(OpcodeError::new(
            Code::MALFORMED_OPCODE,
            format!(
                "`{opcode}` is not a PTX opcode: write the mnemonic and its modifiers joined by dots, like \"cvt.rn.f16x2.f32\""
            ),
        ));
    }
    let parts: Vec<&str> = opcode.split('.').collect();
    let known = known_mnemonics();
    let Some(split) = mnemonic_parts(opcode, &parts) else {
        let mut err = OpcodeError::new(
            Code::UNKNOWN_INSTRUCTION,
            format!("unknown PTX instruction `{}`", parts[0]),
        );
        if let Some(near) = nearest(parts[0], known.iter().copied()) {
            err.help.push(format!("did you mean `{near}`?"));
        }
        err.notes
            .push("`docs/ptx-table.md` lists every instruction and form the table knows".into());
        return Err(err);
    };
    let mnemonic = dotted_prefix(opcode, &parts, split);
    let tokens = &parts[split..];

    let mut legal = Vec::new();
    let mut violations = Vec::new();
    let mut mismatches = Vec::new();
    for form in forms_of(mnemonic) {
        match match_tokens(form, tokens) {
            Ok(modifiers) => match modifiers.check() {
                Ok(()) => legal.push(modifiers),
                Err(violation) => violations.push((modifiers, violation)),
            },
            Err(mismatch) => mismatches.push(mismatch),
        }
    }
    if !legal.is_empty() {
        return Ok(legal);
    }

    let mut err = if let Some((_, violation)) = violations.first() {
        OpcodeError::new(
            Code::ILLEGAL_FORM,
            format!("`{opcode}` is not a legal PTX form: {}", violation.message),
        )
    } else {
        token_error(opcode, mnemonic, tokens, &mismatches)
    };
    // `cvt.f32x2.f16x2` or `cvt.f32.f16x2`: widening a packed half pair.
    let two_scalar_idiom = mnemonic == "cvt"
        && (tokens.contains(&"f32x2") || matches!(tokens, [.., "f32", "f16x2" | "bf16x2"]));
    if !two_scalar_idiom && let Some(spelling) = nearest_legal_spelling(mnemonic, tokens) {
        err.help
            .push(format!("the nearest legal spelling is `{spelling}`"));
    }
    if two_scalar_idiom {
        // The idiom replaces the token-level notes.
        err.notes.clear();
        err.help.push(
            "there is no `cvt.f32x2.f16x2`: widen a packed pair with two scalar `cvt.f32.f16`, one per half: \
             view the packed word as halves with `.view::<u16>().unsqueeze(-1)` and convert into an f32 tile"
                .to_string(),
        );
    }
    Err(err)
}

/// How many of `opcode`'s dot-separated `parts` its mnemonic takes: the
/// longest prefix the table knows (none longer than the table's longest
/// mnemonic is looked up).
fn mnemonic_parts(opcode: &str, parts: &[&str]) -> Option<usize> {
    (1..=parts.len().min(max_mnemonic_parts()))
        .rev()
        .find(|k| is_mnemonic(dotted_prefix(opcode, parts, *k)))
}

/// The most dot-separated parts of any mnemonic in the table, computed
/// once per process.
fn max_mnemonic_parts() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        known_mnemonics()
            .iter()
            .map(|m| m.split('.').count())
            .max()
            .unwrap_or(1)
    })
}

/// The first `k` of `opcode`'s dot-separated `parts`, joined by their dots
/// (a prefix of `opcode` itself: no part is empty).
fn dotted_prefix<'o>(opcode: &'o str, parts: &[&str], k: usize) -> &'o str {
    let len: usize = parts[..k].iter().map(|p| p.len()).sum::<usize>() + k.saturating_sub(1);
    &opcode[..len]
}

/// `.a, .b, .c` (at most 12 shown).
fn choice_list(choices: &[&str]) -> String {
    let mut shown: Vec<String> = choices.iter().take(12).map(|c| format!(".{c}")).collect();
    if choices.len() > 12 {
        shown.push(format!("and {} more", choices.len() - 12));
    }
    shown.join(", ")
}

/// The slots (name, choices) that could take a token written after
/// `before` and ahead of `next`, over the mnemonic's forms, deduplicated.
fn open_slots(
    mnemonic: &str,
    before: &[&str],
    next: Option<&&str>,
) -> Vec<(&'static str, &'static [&'static str])> {
    let mut out: Vec<(&'static str, &'static [&'static str])> = Vec::new();
    'forms: for form in forms_of(mnemonic) {
        let mut slot = 0;
        for token in before {
            match form.slots[slot..]
                .iter()
                .position(|s| s.choices.contains(token))
            {
                Some(j) => slot += j + 1,
                None => continue 'forms,
            }
        }
        for s in &form.slots[slot..] {
            if next.is_some_and(|n| s.choices.contains(n)) {
                break;
            }
            if !out
                .iter()
                .any(|(name, choices)| *name == s.name.name() && *choices == s.choices)
            {
                out.push((s.name.name(), s.choices));
            }
        }
    }
    out
}

/// The error for the form that got furthest through the tokens.
fn token_error(
    opcode: &str,
    mnemonic: &str,
    tokens: &[&str],
    mismatches: &[(usize, Mismatch)],
) -> OpcodeError {
    let known_anywhere =
        |t: &str| forms_of(mnemonic).any(|f| f.slots.iter().any(|s| s.choices.contains(&t)));
    if let Some(unknown) = tokens.iter().find(|t| !known_anywhere(t)) {
        let mut err = OpcodeError::new(
            Code::UNKNOWN_MODIFIER,
            format!("`.{unknown}` is not a modifier of `{mnemonic}` (in `{opcode}`)"),
        );
        let all_tokens: Vec<&str> = forms_of(mnemonic)
            .flat_map(|f| f.slots.iter().flat_map(|s| s.choices.iter().copied()))
            .collect();
        let position = tokens.iter().position(|t| t == unknown).unwrap_or(0);
        match nearest(unknown, all_tokens.into_iter()) {
            Some(near) => {
                err.help.push(format!("did you mean `.{near}`?"));
                // The slot it fills in a form that takes the corrected
                // spelling, else the slot at this position, else any.
                let mut corrected: Vec<&str> = tokens.to_vec();
                corrected[position] = near;
                let in_form = forms_of(mnemonic)
                    .filter_map(|f| match_tokens(f, &corrected).ok())
                    .find_map(|m| {
                        m.form
                            .slots
                            .iter()
                            .find(|s| s.choices.contains(&near))
                            .map(|s| (s.name.name(), s.choices))
                    });
                let at_position = in_form.or_else(|| {
                    open_slots(mnemonic, &tokens[..position], None)
                        .into_iter()
                        .find(|(_, choices)| choices.contains(&near))
                });
                let anywhere = || {
                    forms_of(mnemonic)
                        .flat_map(|f| f.slots.iter())
                        .find(|s| s.choices.contains(&near))
                        .map(|s| (s.name.name(), s.choices))
                };
                if let Some((slot, choices)) = at_position.or_else(anywhere) {
                    err.notes.push(format!(
                        "`.{near}` would be the `{slot}` modifier (one of {})",
                        choice_list(choices)
                    ));
                }
            }
            None => {
                let slots = open_slots(mnemonic, &tokens[..position], tokens.get(position + 1));
                // A short list helps; a long one is the table's page.
                if !slots.is_empty() && slots.len() <= 3 {
                    let described: Vec<String> = slots
                        .iter()
                        .map(|(name, choices)| format!("`{name}` ({})", choice_list(choices)))
                        .collect();
                    err.notes.push(format!(
                        "at that position `{mnemonic}` takes {}",
                        described.join(", or ")
                    ));
                }
            }
        }
        return err;
    }
    // Furthest progress wins; on a tie, a form that knows the token
    // (misplaced, duplicate) explains more than one that does not.
    let best = mismatches
        .iter()
        .max_by_key(|(progress, m)| (*progress, !matches!(m, Mismatch::Unknown(_))));
    let (code, message) = match best.map(|(_, m)| m) {
        Some(Mismatch::Misplaced { token, before }) => (
            Code::MISPLACED_MODIFIER,
            format!("`.{token}` is misplaced in `{opcode}`: PTX writes it before `.{before}`"),
        ),
        Some(Mismatch::Duplicate { token, other, slot }) => (
            Code::DUPLICATE_MODIFIER,
            if token == other {
                format!("`.{token}` is written more than once in `{opcode}`")
            } else {
                format!(
                    "`.{token}` and `.{other}` are both `{slot}` modifiers in `{opcode}`: write only one"
                )
            },
        ),
        Some(Mismatch::Missing(slot, _)) => {
            // Only the choices of the forms that took every other token:
            // `cvt.f16x2.f32` lacks `.rn`/`.rz`, not the integer roundings.
            let choices: Vec<String> = mismatches
                .iter()
                .filter_map(|(_, m)| match m {
                    Mismatch::Missing(name, choices) if name == slot => Some(*choices),
                    _ => None,
                })
                .flat_map(|choices| choices.iter().map(|c| format!(".{c}")))
                .fold(Vec::new(), |mut acc, c| {
                    if !acc.contains(&c) {
                        acc.push(c);
                    }
                    acc
                });
            (
                Code::MISSING_MODIFIER,
                format!(
                    "`{opcode}` is missing its `{slot}` modifier (one of {})",
                    choices.join(", ")
                ),
            )
        }
        Some(Mismatch::Unknown(token)) => (
            Code::INCOMPATIBLE_MODIFIERS,
            format!("`.{token}` cannot be combined with the other modifiers of `{opcode}`"),
        ),
        None => (
            Code::INCOMPATIBLE_MODIFIERS,
            format!("`{opcode}` names no PTX form"),
        ),
    };
    OpcodeError::new(code, message)
}

/// Every token list a form's slots can spell (optional slots may be
/// omitted), legal or not: the domain its rule is judged over.
pub fn slot_combinations(form: &'static InstructionForm) -> Vec<Modifiers> {
    let mut partial: Vec<Vec<Option<&'static str>>> = vec![Vec::new()];
    for slot in form.slots {
        let mut next = Vec::with_capacity(partial.len() * (slot.choices.len() + 1));
        for prefix in &partial {
            let omitted = (!slot.required).then_some(None);
            for choice in omitted
                .into_iter()
                .chain(slot.choices.iter().map(|c| Some(*c)))
            {
                let mut v = prefix.clone();
                v.push(choice);
                next.push(v);
            }
        }
        partial = next;
    }
    partial
        .into_iter()
        .map(|tokens| Modifiers { form, tokens })
        .collect()
}

/// Every legal token list of a form (slot product filtered by its rule).
pub fn legal_variants(form: &'static InstructionForm) -> Vec<Modifiers> {
    slot_combinations(form)
        .into_iter()
        .filter(|m| m.check().is_ok())
        .collect()
}

/// The legal spelling of `mnemonic` closest (in token edits) to `tokens`.
///
/// Unknown tokens are first replaced by their closest known token (what
/// "did you mean" suggests). Then the legal spellings one edit away
/// (insert, delete or replace one token) are ranked by [`token_distance`];
/// when none is legal, each form's [`repair`] of the spelling is.
fn nearest_legal_spelling(mnemonic: &str, tokens: &[&str]) -> Option<String> {
    let mut vocabulary: Vec<&'static str> = Vec::new();
    for form in forms_of(mnemonic) {
        for slot in form.slots {
            for choice in slot.choices {
                if !vocabulary.contains(choice) {
                    vocabulary.push(choice);
                }
            }
        }
    }
    let fixed: Vec<&str> = tokens
        .iter()
        .map(|t| {
            if vocabulary.contains(t) {
                *t
            } else {
                nearest(t, vocabulary.iter().copied()).unwrap_or(t)
            }
        })
        .collect();
    let legal = |candidate: &[&str]| -> Option<Modifiers> {
        forms_of(mnemonic).find_map(|form| {
            match_tokens(form, candidate)
                .ok()
                .filter(|m| m.check().is_ok())
        })
    };
    let mut neighbours: Vec<Vec<&str>> = vec![fixed.clone()];
    for i in 0..=fixed.len() {
        for token in &vocabulary {
            let mut c = fixed.clone();
            c.insert(i, token);
            neighbours.push(c);
        }
    }
    // Later tokens first: of two tokens for one slot, the first written is
    // kept (equally near candidates keep their first place).
    for i in (0..fixed.len()).rev() {
        let mut c = fixed.clone();
        c.remove(i);
        neighbours.push(c);
        for token in &vocabulary {
            let mut c = fixed.clone();
            c[i] = token;
            neighbours.push(c);
        }
    }
    let written: Vec<char> = tokens.join(".").chars().collect();
    let rank = |variants: &mut dyn Iterator<Item = &Modifiers>| -> Option<String> {
        variants
            .map(|variant| {
                let candidate: Vec<(&str, &[&str])> = variant
                    .form
                    .slots
                    .iter()
                    .zip(&variant.tokens)
                    .filter_map(|(slot, token)| token.map(|t| (t, slot.choices)))
                    .collect();
                // Ties go to the spelling closest letter by letter to what
                // was written (`.f23` -> `.f32`, not `.u32`), then to table
                // order.
                let letters: Vec<char> = candidate
                    .iter()
                    .map(|(t, _)| *t)
                    .collect::<Vec<_>>()
                    .join(".")
                    .chars()
                    .collect();
                (
                    (
                        token_distance(&fixed, &candidate),
                        edit_distance(&written, &letters),
                    ),
                    variant,
                )
            })
            .reduce(|a, b| if b.0 < a.0 { b } else { a })
            .map(|(_, variant)| variant.opcode_text())
    };
    let near: Vec<Modifiers> = neighbours.iter().filter_map(|c| legal(c)).collect();
    if let Some(best) = rank(&mut near.iter()) {
        return Some(best);
    }
    // Further away: repair the spelling form by form (keep the tokens the
    // form knows, fill its missing required slots) instead of ranking every
    // legal variant (`ld` alone has tens of thousands: seconds in a debug
    // build of the macro).
    let repaired: Vec<Modifiers> = forms_of(mnemonic)
        .filter_map(|form| repair(form, &fixed))
        .collect();
    rank(&mut repaired.iter())
}

/// A legal variant of `form` close to `tokens`: each token the form
/// knows goes to its slot (in PTX order, whatever order it was written
/// in), unknown ones are dropped, and the empty slots are filled with the
/// first choices the form's rule accepts: required slots first, then
/// optional ones (a rounding mode the conversion needs), then without each
/// kept optional token in turn.
fn repair(form: &'static InstructionForm, tokens: &[&str]) -> Option<Modifiers> {
    let mut kept: Vec<Option<&'static str>> = vec![None; form.slots.len()];
    for token in tokens {
        if let Some(j) = (0..form.slots.len())
            .find(|j| kept[*j].is_none() && form.slots[*j].choices.contains(token))
        {
            kept[j] = form.slots[j].choices.iter().copied().find(|c| c == token);
        }
    }
    let optional_kept: Vec<usize> = (0..kept.len())
        .filter(|i| kept[*i].is_some() && !form.slots[*i].required)
        .collect();
    let attempts = std::iter::once(None).chain(optional_kept.into_iter().map(Some));
    for drop in attempts {
        let mut tokens = kept.clone();
        if let Some(i) = drop {
            tokens[i] = None;
        }
        for optional_too in [false, true] {
            if let Some(m) = fill(form, tokens.clone(), 0, optional_too, &mut 0) {
                return Some(m);
            }
        }
    }
    None
}

/// Depth-first over the empty slots from `at` (required ones, and the
/// optional ones too if `optional_too`, trying "omitted" first); at most
/// 4096 rule checks in all.
fn fill(
    form: &'static InstructionForm,
    mut tokens: Vec<Option<&'static str>>,
    at: usize,
    optional_too: bool,
    budget: &mut usize,
) -> Option<Modifiers> {
    let Some(i) = (at..form.slots.len())
        .find(|i| tokens[*i].is_none() && (optional_too || form.slots[*i].required))
    else {
        *budget += 1;
        let m = Modifiers { form, tokens };
        return m.check().is_ok().then_some(m);
    };
    let omitted = (!form.slots[i].required).then_some(None);
    for choice in omitted
        .into_iter()
        .chain(form.slots[i].choices.iter().map(|c| Some(*c)))
    {
        if *budget >= 4096 {
            return None;
        }
        tokens[i] = choice;
        if let Some(m) = fill(form, tokens.clone(), i + 1, optional_too, budget) {
            return Some(m);
        }
    }
    None
}

/// Weighted edit distance from the user's tokens to a candidate's
/// `(token, its slot's choices)`. Type tokens (`.f32`, `.b16`) define the
/// operation, so changing or dropping one costs most; modifiers are the usual
/// mistake. Hence `cvt.f16.f32` -> `cvt.rn.f16.f32` (insert), `cvt.rn.f32.f16`
/// -> `cvt.f32.f16` (drop a modifier), `ld.global.v4.f64` ->
/// `ld.global.v2.f64` (another choice of the same slot beats dropping it).
fn token_distance(written: &[&str], candidate: &[(&str, &[&str])]) -> usize {
    const INSERT: usize = 4;
    let delete = |x: &str| {
        if PtxType::from_token(x).is_some() {
            10
        } else {
            3
        }
    };
    // A type replaced by a non-type token changes what the instruction is
    // about: dearer than dropping it.
    let swap = |x: &str, y: &str, choices: &[&str]| match (
        x == y,
        PtxType::from_token(x).is_some(),
        PtxType::from_token(y).is_some(),
        choices.contains(&x),
    ) {
        (true, ..) => 0,
        (false, true, true, _) => 8,
        (false, true, false, _) => 12,
        (false, false, _, true) => 2,
        (false, false, _, false) => 7,
    };
    let mut previous: Vec<usize> = (0..=candidate.len()).map(|j| j * INSERT).collect();
    for x in written {
        let mut current = vec![previous[0] + delete(x); candidate.len() + 1];
        for (j, (y, choices)) in candidate.iter().enumerate() {
            current[j + 1] = (previous[j] + swap(x, y, choices))
                .min(previous[j + 1] + delete(x))
                .min(current[j] + INSERT);
        }
        previous = current;
    }
    previous[candidate.len()]
}

/// Levenshtein distance over sequences.
fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(x != y);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

/// The closest word within a small edit distance, for "did you mean".
pub fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let chars: Vec<char> = word.chars().collect();
    let limit = (chars.len() / 3).max(1);
    candidates
        .map(|c| (edit_distance(&chars, &c.chars().collect::<Vec<_>>()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::Slot;

    /// The index by mnemonic gives each mnemonic's forms in table order,
    /// exactly those a scan of the table finds, and knows no other name.
    #[test]
    fn forms_by_mnemonic_are_the_table_scan() {
        for mnemonic in mnemonics() {
            let indexed: Vec<*const InstructionForm> =
                forms_of(mnemonic).map(std::ptr::from_ref).collect();
            let scanned: Vec<*const InstructionForm> = FORMS
                .iter()
                .filter(|f| f.mnemonic == mnemonic)
                .map(std::ptr::from_ref)
                .collect();
            assert_eq!(indexed, scanned, "{mnemonic}");
            assert!(is_mnemonic(mnemonic));
        }
        for other in ["", "cvt.rn", "ld.global", "xyz", "CVT"] {
            assert_eq!(is_mnemonic(other), mnemonics().contains(&other), "{other}");
        }
        // The longest known prefix, looked up only as long as mnemonics are.
        for opcode in [
            "bar.warp.sync",
            "shfl.sync.bfly.b32",
            "ld.global.v2.f32",
            "a.b.c.d.e.f",
            "ld",
        ] {
            let parts: Vec<&str> = opcode.split('.').collect();
            let unbounded = (1..=parts.len())
                .rev()
                .find(|k| mnemonics().contains(&dotted_prefix(opcode, &parts, *k)));
            assert_eq!(mnemonic_parts(opcode, &parts), unbounded, "{opcode}");
        }
    }

    fn ids(opcode: &str) -> Vec<&'static str> {
        resolve(opcode)
            .unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
            .iter()
            .map(|m| m.form.id)
            .collect()
    }

    fn error(opcode: &str) -> OpcodeError {
        resolve(opcode).expect_err(opcode)
    }

    #[test]
    fn legal_spellings_resolve_to_their_forms() {
        assert_eq!(ids("cvt.rn.f16x2.f32"), ["cvt.half-pair-from-f32"]);
        assert_eq!(ids("cvt.f32.f16"), ["cvt.scalar"]);
        assert_eq!(
            ids("cvt.rn.satfinite.e4m3x2.f16x2"),
            ["cvt.fp8-pair-from-f16x2"]
        );
        assert_eq!(ids("ld.global.v2.f32"), ["ld"]);
        assert_eq!(ids("mul.wide.s32"), ["mul.wide"]);
        assert_eq!(ids("mul.lo.s32"), ["mul.int"]);
        // A register copy, or a special-register read (`sreg(..)`).
        assert_eq!(ids("mov.u32"), ["mov", "mov.sreg32"]);
        // One opcode text, several shapes: the operands pick among them.
        assert_eq!(
            ids("mov.b32"),
            [
                "mov",
                "mov.pack2",
                "mov.pack4",
                "mov.unpack2",
                "mov.unpack4",
                "mov.pack2-split",
                "mov.pack4-split",
                "mov.unpack2-split",
                "mov.unpack4-split"
            ]
        );
        assert_eq!(
            ids("mov.b16"),
            [
                "mov",
                "mov.pack2",
                "mov.unpack2",
                "mov.pack2-split",
                "mov.unpack2-split"
            ]
        );
        let m = &resolve("cvt.rz.relu.satfinite.bf16x2.f32").unwrap()[0];
        assert_eq!(m.opcode_text(), "cvt.rz.relu.satfinite.bf16x2.f32");
        assert_eq!(m.get(Slot::Rnd), Some("rz"));
        assert_eq!(m.get(Slot::Dtype), Some("bf16x2"));
    }

    #[test]
    fn missing_rounding_suggests_the_nearest_legal_spelling() {
        assert_eq!(
            error("cvt.f16.f32"),
            OpcodeError {
                code: Code::ILLEGAL_FORM,
                message: "`cvt.f16.f32` is not a legal PTX form: .f16.f32 loses precision, so a rounding modifier is required (.rn, .rz, .rm, .rp)".into(),
                help: vec!["the nearest legal spelling is `cvt.rn.f16.f32`".into()],
                notes: vec![],
            }
        );
        assert_eq!(
            error("cvt.rn.f32.f16").help,
            ["the nearest legal spelling is `cvt.f32.f16`"]
        );
        assert_eq!(
            error("cvt.sat.s32.s16"),
            OpcodeError {
                code: Code::ILLEGAL_FORM,
                message: "`cvt.sat.s32.s16` is not a legal PTX form: .s32 already covers every .s16 value, so .sat cannot saturate anything".into(),
                help: vec!["the nearest legal spelling is `cvt.s32.s16`".into()],
                notes: vec![],
            }
        );
        assert_eq!(
            error("add.ftz.f64").help,
            ["the nearest legal spelling is `add.f64`"]
        );
    }

    #[test]
    fn unknown_mnemonic_gets_did_you_mean() {
        assert_eq!(
            error("cvx.rn.f16x2.f32"),
            OpcodeError {
                code: Code::UNKNOWN_INSTRUCTION,
                message: "unknown PTX instruction `cvx`".into(),
                help: vec!["did you mean `cvt`?".into()],
                notes: vec![
                    "`docs/ptx-table.md` lists every instruction and form the table knows".into()
                ],
            }
        );
        // A known instruction missing its mode: the nearest legal spelling.
        assert_eq!(
            error("shfl.sync.b32").help,
            ["the nearest legal spelling is `shfl.sync.up.b32`"]
        );
    }

    #[test]
    fn f32x2_from_f16x2_explains_the_two_scalar_idiom() {
        assert_eq!(
            error("cvt.f32x2.f16x2"),
            OpcodeError {
                code: Code::UNKNOWN_MODIFIER,
                message: "`.f32x2` is not a modifier of `cvt` (in `cvt.f32x2.f16x2`)".into(),
                help: vec![
                    "there is no `cvt.f32x2.f16x2`: widen a packed pair with two scalar `cvt.f32.f16`, one per half: \
                     view the packed word as halves with `.view::<u16>().unsqueeze(-1)` and convert into an f32 tile"
                        .into()
                ],
                notes: vec![],
            }
        );
    }

    #[test]
    fn token_errors_name_the_token() {
        assert_eq!(
            error("cvt.rn.f16x2.f33"),
            OpcodeError {
                code: Code::UNKNOWN_MODIFIER,
                message: "`.f33` is not a modifier of `cvt` (in `cvt.rn.f16x2.f33`)".into(),
                help: vec![
                    "did you mean `.f32`?".into(),
                    "the nearest legal spelling is `cvt.rn.f16x2.f32`".into()
                ],
                notes: vec!["`.f32` would be the `atype` modifier (one of .f32)".into()],
            }
        );
        assert_eq!(error("cvt.f16.f32.rn").code, Code::MISPLACED_MODIFIER);
        assert_eq!(error("cvt.rn.rz.f16.f32").code, Code::DUPLICATE_MODIFIER);
        assert_eq!(
            error("cvt.f16.f32.rn").message,
            "`.rn` is misplaced in `cvt.f16.f32.rn`: PTX writes it before `.f16`"
        );
        assert_eq!(
            error("cvt.rn.rz.f16.f32").message,
            "`.rz` and `.rn` are both `rnd` modifiers in `cvt.rn.rz.f16.f32`: write only one"
        );
        assert_eq!(
            error("cvt.rn.e4m3x2.f32"),
            OpcodeError {
                code: Code::MISSING_MODIFIER,
                message:
                    "`cvt.rn.e4m3x2.f32` is missing its `satfinite` modifier (one of .satfinite)"
                        .into(),
                help: vec!["the nearest legal spelling is `cvt.rn.satfinite.e4m3x2.f32`".into()],
                notes: vec![],
            }
        );
        assert_eq!(
            error("ld.global.v2").message,
            "`ld.global.v2` is missing its `type` modifier (one of .b8, .b16, .b32, .b64, .b128, .u8, .u16, .u32, .u64, .s8, .s16, .s32, .s64, .f32, .f64)"
        );
        assert_eq!(
            error("ld.texture.f32").message,
            "`.texture` is not a modifier of `ld` (in `ld.texture.f32`)"
        );
        assert_eq!(error("mul.wide.s64").code, Code::INCOMPATIBLE_MODIFIERS);
        assert_eq!(
            error("mul.wide.s64").message,
            "`.s64` cannot be combined with the other modifiers of `mul.wide.s64`"
        );
        assert_eq!(
            error("ld.global.v4.f64").message,
            "`ld.global.v4.f64` is not a legal PTX form: .v4.f64 would move 256 bits; vector accesses are limited to 128 bits"
        );
    }

    #[test]
    fn malformed_text_is_rejected_before_lookup() {
        for bad in ["", "cvt..f32", ".cvt", "cvt.", "cvt rn"] {
            let err = error(bad);
            assert_eq!(err.code, Code::MALFORMED_OPCODE);
            assert_eq!(
                err.message,
                format!(
                    "`{bad}` is not a PTX opcode: write the mnemonic and its modifiers joined by dots, like \"cvt.rn.f16x2.f32\""
                )
            );
            assert!(err.help.is_empty() && err.notes.is_empty());
        }
    }

    #[test]
    fn legal_variants_are_the_rule_filtered_slot_product() {
        let count = |id: &str| legal_variants(FORMS.iter().find(|f| f.id == id).unwrap()).len();
        assert_eq!(count("cvt.scalar"), 792);
        assert_eq!(count("cvt.half-pair-from-f32"), 16);
        // rna {satfinite?} + {rn, rz} x {satfinite?} x {relu?}.
        assert_eq!(count("cvt.tf32"), 2 + 8);
        assert_eq!(count("mov"), 11);
        assert_eq!(count("mul.wide"), 4);
        for form in FORMS {
            assert!(count(form.id) > 0, "{}", form.id);
        }
    }

    #[test]
    fn token_distance_prefers_insertions_then_same_slot_swaps() {
        const TYPES: &[&str] = &["f16", "f32"];
        const RND: &[&str] = &["rn"];
        const VEC: &[&str] = &["v2", "v4"];
        // Insert the missing rounding: 4.
        assert_eq!(
            token_distance(
                &["f16", "f32"],
                &[("rn", RND), ("f16", TYPES), ("f32", TYPES)]
            ),
            4
        );
        // Change a type: 8.
        assert_eq!(
            token_distance(&["f16", "f32"], &[("f32", TYPES), ("f32", TYPES)]),
            8
        );
        // Drop a modifier: 3; drop a type: 10.
        assert_eq!(token_distance(&["rn", "f32"], &[("f32", TYPES)]), 3);
        assert_eq!(token_distance(&["f16", "f32"], &[("f32", TYPES)]), 10);
        // Change .v4 to .v2 (2) beats dropping it (3).
        assert_eq!(token_distance(&["v4"], &[("v2", VEC)]), 2);
        assert_eq!(token_distance(&["v4"], &[]), 3);
        assert_eq!(token_distance(&[], &[("rn", RND), ("f16", TYPES)]), 8);
        assert_eq!(
            resolve("ld.global.v4.f64").unwrap_err().help,
            vec!["the nearest legal spelling is `ld.global.v2.f64`".to_string()]
        );
        assert_eq!(nearest("cvx", ["cvt", "mov"].into_iter()), Some("cvt"));
        assert_eq!(nearest("zzz", ["cvt", "mov"].into_iter()), None);
    }
}
