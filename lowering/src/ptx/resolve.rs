//! Opcode resolution: from the text in `ptx["..."]` to the table forms it can
//! name. Generic over the table: no instruction is special-cased here except
//! for extra help text.

use super::form::{InstructionForm, Modifiers};
use super::table::FORMS;

/// Why an opcode string names no legal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpcodeError {
    pub message: String,
    pub help: Vec<String>,
    pub notes: Vec<String>,
}

impl OpcodeError {
    fn new(message: impl Into<String>) -> Self {
        OpcodeError {
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
    /// The token belongs to a slot that comes earlier than where it is written.
    Misplaced { token: String, before: String },
    /// A required slot got no token.
    Missing(&'static str),
}

/// All forms of the mnemonic, in table order.
fn forms_of(mnemonic: &str) -> impl Iterator<Item = &'static InstructionForm> + '_ {
    FORMS.iter().filter(move |f| f.mnemonic == mnemonic)
}

/// Every mnemonic in the table, deduplicated, in table order.
pub fn mnemonics() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for form in FORMS {
        if !out.contains(&form.mnemonic) {
            out.push(form.mnemonic);
        }
    }
    out
}

/// Assigns tokens to the form's slots in PTX order.
fn match_tokens(
    form: &'static InstructionForm,
    tokens: &[&str],
) -> Result<Modifiers, (usize, Mismatch)> {
    let mut chosen: Vec<Option<&'static str>> = vec![None; form.slots.len()];
    let mut next_slot = 0;
    for (i, token) in tokens.iter().enumerate() {
        let found = form.slots[next_slot..]
            .iter()
            .enumerate()
            .find_map(|(j, s)| {
                s.choices
                    .iter()
                    .find(|c| **c == *token)
                    .map(|c| (next_slot + j, *c))
            });
        match found {
            Some((j, canonical)) => {
                chosen[j] = Some(canonical);
                next_slot = j + 1;
            }
            None => {
                let earlier = form.slots[..next_slot]
                    .iter()
                    .any(|s| s.choices.contains(token));
                let mismatch = if earlier {
                    Mismatch::Misplaced {
                        token: token.to_string(),
                        before: tokens[i - 1].to_string(),
                    }
                } else {
                    Mismatch::Unknown(token.to_string())
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
        return Err((tokens.len(), Mismatch::Missing(missing.0.name)));
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
        return Err(OpcodeError::new(format!(
            "`{opcode}` is not a PTX opcode: write the mnemonic and its modifiers joined by dots, like \"cvt.rn.f16x2.f32\""
        )));
    }
    let parts: Vec<&str> = opcode.split('.').collect();
    let known = mnemonics();
    let Some(split) = (1..=parts.len())
        .rev()
        .find(|k| known.contains(&parts[..*k].join(".").as_str()))
    else {
        let mut err = OpcodeError::new(format!("unknown PTX instruction `{}`", parts[0]));
        if let Some(near) = nearest(parts[0], known.iter().copied()) {
            err.help.push(format!("did you mean `{near}`?"));
        }
        err.notes
            .push(format!("known instructions: {}", known.join(", ")));
        return Err(err);
    };
    let mnemonic = parts[..split].join(".");
    let tokens = &parts[split..];

    let mut legal = Vec::new();
    let mut violations = Vec::new();
    let mut mismatches = Vec::new();
    for form in forms_of(&mnemonic) {
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
        OpcodeError::new(format!(
            "`{opcode}` is not a legal PTX form: {}",
            violation.message
        ))
    } else {
        token_error(opcode, &mnemonic, tokens, &mismatches)
    };
    let two_scalar_idiom = mnemonic == "cvt" && tokens.contains(&"f32x2");
    if !two_scalar_idiom {
        if let Some(spelling) = nearest_legal_spelling(&mnemonic, tokens) {
            err.help
                .push(format!("the nearest legal spelling is `{spelling}`"));
        }
    }
    if two_scalar_idiom {
        err.help.push(
            "there is no `cvt.f32x2.f16x2`: widen a packed pair with two scalar `cvt.f32.f16`, one per half: \
             view the packed word as halves with `.view::<u16>().unsqueeze(-1)` and convert into an f32 tile"
                .to_string(),
        );
    }
    Err(err)
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
        let mut err = OpcodeError::new(format!(
            "`.{unknown}` is not a modifier of `{mnemonic}` (in `{opcode}`)"
        ));
        let all_tokens: Vec<&str> = forms_of(mnemonic)
            .flat_map(|f| f.slots.iter().flat_map(|s| s.choices.iter().copied()))
            .collect();
        if let Some(near) = nearest(unknown, all_tokens.into_iter()) {
            err.help.push(format!("did you mean `.{near}`?"));
        }
        return err;
    }
    let best = mismatches.iter().max_by_key(|(progress, _)| *progress);
    let message = match best.map(|(_, m)| m) {
        Some(Mismatch::Misplaced { token, before }) => {
            format!("`.{token}` is misplaced in `{opcode}`: PTX writes it before `.{before}`")
        }
        Some(Mismatch::Missing(slot)) => {
            let choices: Vec<String> = forms_of(mnemonic)
                .flat_map(|f| f.slots.iter())
                .filter(|s| s.name == *slot)
                .flat_map(|s| s.choices.iter().map(|c| format!(".{c}")))
                .fold(Vec::new(), |mut acc, c| {
                    if !acc.contains(&c) {
                        acc.push(c);
                    }
                    acc
                });
            format!(
                "`{opcode}` is missing its `{slot}` modifier (one of {})",
                choices.join(", ")
            )
        }
        Some(Mismatch::Unknown(token)) => {
            format!("`.{token}` cannot be combined with the other modifiers of `{opcode}`")
        }
        None => format!("`{opcode}` names no PTX form"),
    };
    OpcodeError::new(message)
}

/// Every legal token list of a form (slot product filtered by its rule).
pub fn legal_variants(form: &'static InstructionForm) -> Vec<Modifiers> {
    let mut partial: Vec<Vec<Option<&'static str>>> = vec![Vec::new()];
    for slot in form.slots {
        let mut next = Vec::with_capacity(partial.len() * (slot.choices.len() + 1));
        for prefix in &partial {
            if !slot.required {
                let mut v = prefix.clone();
                v.push(None);
                next.push(v);
            }
            for choice in slot.choices {
                let mut v = prefix.clone();
                v.push(Some(*choice));
                next.push(v);
            }
        }
        partial = next;
    }
    partial
        .into_iter()
        .map(|tokens| Modifiers { form, tokens })
        .filter(|m| m.check().is_ok())
        .collect()
}

/// The legal spelling of `mnemonic` closest (in token edits) to `tokens`.
fn nearest_legal_spelling(mnemonic: &str, tokens: &[&str]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for form in forms_of(mnemonic) {
        for variant in legal_variants(form) {
            let candidate: Vec<&str> = variant.tokens.iter().flatten().copied().collect();
            let distance = token_distance(tokens, &candidate);
            if best.as_ref().is_none_or(|(d, _)| distance < *d) {
                best = Some((distance, variant.opcode_text()));
            }
        }
    }
    best.map(|(_, text)| text)
}

/// Edit distance over modifier tokens where replacing a token costs as much
/// as deleting and re-inserting it: a spelling that keeps every token the
/// user wrote and adds the missing one wins over one that swaps a type.
fn token_distance(a: &[&str], b: &[&str]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + if x == y { 0 } else { 2 };
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
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
