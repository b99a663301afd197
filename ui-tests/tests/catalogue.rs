//! The error catalogue stays complete and honest. Fails when
//!
//! - two registered codes share a number (or a code sits outside its area);
//! - a registered code has no section in `docs/errors.md`, or that section
//!   lacks a wrong example, a fix or a cited compile-fail case that reports
//!   it, or `docs/errors.md` names a code that is not registered;
//! - a registered code has no compile-fail case of its own (a case whose
//!   `.stderr` reports this code and no other);
//! - a compile-fail case reports a macro error without a registered code;
//! - a registered code is never constructed in the source (its constant is
//!   used nowhere in `lowering/src` or `macros/src` outside the registry and
//!   unit tests);
//! - an error points at the whole `#[tile_kernel(..)]` attribute (the
//!   call-site span, which editors show poorly) although its code is not
//!   documented as call-site.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use tile_kernel::lowering::diag::{CODES, Code};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ui-tests lives in the workspace")
        .to_path_buf()
}

/// `TKnnnn` at the start of `text`, as a number.
fn leading_code(text: &str) -> Option<u16> {
    let digits = text.strip_prefix("TK")?.get(..4)?;
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse().ok()
    } else {
        None
    }
}

/// Every `TKnnnn` anywhere in `text`.
fn codes_in(text: &str) -> BTreeSet<u16> {
    (0..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .filter_map(|i| leading_code(&text[i..]))
        .collect()
}

/// One `error` block of a `.stderr`.
#[derive(Debug)]
struct Reported {
    /// The block's first line.
    header: String,
    /// `Some(n)` for `error: TKnnnn: ..`, `None` for other errors.
    code: Option<u16>,
    /// rustc's own errors (`error[E0308]`) are not the macro's.
    from_rustc: bool,
    /// 1-based line and column of the primary span (`--> file:L:C`).
    at: Option<(usize, usize)>,
}

struct Case {
    name: String,
    source: String,
    errors: Vec<Reported>,
}

/// A case whose source says this holds Rust that does not parse: rustc's
/// parser reports it (without a code) before the macro does (TK0026), and
/// those errors of rustc's count neither as the macro's nor against a case
/// of its own.
const RUSTC_PARSES_TOO: &str = "rustc's parser reports it too";

impl Case {
    /// The codes of the macro's errors in this case.
    fn codes(&self) -> BTreeSet<u16> {
        self.errors.iter().filter_map(|e| e.code).collect()
    }
}

fn parse_stderr(stderr: &str) -> Vec<Reported> {
    let mut out: Vec<Reported> = Vec::new();
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("error") {
            let from_rustc = rest.starts_with('[');
            let code = rest.strip_prefix(": ").and_then(leading_code);
            out.push(Reported {
                header: line.to_string(),
                code,
                from_rustc,
                at: None,
            });
        } else if let Some(location) = line.trim_start().strip_prefix("--> ")
            && let Some(last) = out.last_mut()
            && last.at.is_none()
        {
            let mut parts = location.rsplitn(3, ':');
            let column = parts.next().and_then(|c| c.parse().ok());
            let line = parts.next().and_then(|l| l.parse().ok());
            if let (Some(line), Some(column)) = (line, column) {
                last.at = Some((line, column));
            }
        }
    }
    out
}

fn cases() -> Vec<Case> {
    let dir = workspace().join("ui-tests/tests/compile-fail");
    let mut cases = Vec::new();
    for entry in fs::read_dir(&dir).expect("compile-fail cases") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "stderr") {
            continue;
        }
        let stderr = fs::read_to_string(&path).expect("read .stderr");
        let source = fs::read_to_string(path.with_extension("rs")).unwrap_or_default();
        let mut errors = parse_stderr(&stderr);
        if source.contains(RUSTC_PARSES_TOO) {
            for error in &mut errors {
                if error.code.is_none() {
                    error.from_rustc = true;
                }
            }
        }
        cases.push(Case {
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source,
            errors,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(cases.len() > 50, "found only {} cases", cases.len());
    cases
}

/// `docs/errors.md` split into `## TKnnnn: title` sections.
fn docs_sections() -> (String, BTreeMap<u16, Vec<(String, String)>>) {
    let text = fs::read_to_string(workspace().join("docs/errors.md")).expect("docs/errors.md");
    let mut sections: BTreeMap<u16, Vec<(String, String)>> = BTreeMap::new();
    let mut current: Option<(u16, String, String)> = None;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            if let Some((number, title, body)) = current.take() {
                sections.entry(number).or_default().push((title, body));
            }
            if let Some(number) = leading_code(heading) {
                let title = heading.get(8..).unwrap_or_default().to_string();
                current = Some((number, title, String::new()));
            }
            continue;
        }
        if line.starts_with("# ") {
            if let Some((number, title, body)) = current.take() {
                sections.entry(number).or_default().push((title, body));
            }
            continue;
        }
        if let Some((_, _, body)) = &mut current {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some((number, title, body)) = current.take() {
        sections.entry(number).or_default().push((title, body));
    }
    (text, sections)
}

/// The non-test Rust source of a directory tree: each file up to its
/// `#[cfg(test)]` module.
fn source_text(dir: &Path, skip: &Path, out: &mut String) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("source directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_text(&path, skip, out);
        } else if path.extension().is_some_and(|e| e == "rs") && path != skip {
            let text = fs::read_to_string(&path).expect("read source");
            let end = text.find("#[cfg(test)]").unwrap_or(text.len());
            out.push_str(&text[..end]);
            out.push('\n');
        }
    }
}

#[test]
fn codes_are_unique_and_sit_in_their_area() {
    let mut numbers = BTreeMap::new();
    let mut idents = BTreeSet::new();
    let mut titles = BTreeSet::new();
    for code in CODES {
        if let Some(other) = numbers.insert(code.number(), code.ident()) {
            panic!(
                "{code} is registered twice: `{other}` and `{}`",
                code.ident()
            );
        }
        assert!(idents.insert(code.ident()), "{} twice", code.ident());
        assert!(titles.insert(code.title()), "title of {code} twice");
        assert!(!code.title().is_empty(), "{code} has no title");
        assert_eq!(
            code.number() / 100,
            code.area().hundreds(),
            "{code} is outside its area {:?}",
            code.area()
        );
        assert_eq!(Code::from_number(code.number()), Some(*code));
        assert_eq!(code.to_string(), format!("TK{:04}", code.number()));
    }
}

/// The case names a section cites after `Case:` / `Cases:`.
fn cited_cases(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in body.match_indices("Case") {
        let rest = &body[i..];
        let Some(list) = rest
            .strip_prefix("Cases:")
            .or_else(|| rest.strip_prefix("Case:"))
        else {
            continue;
        };
        let list = list.split("\n\n").next().unwrap_or_default();
        let list = list.split('.').next().unwrap_or_default();
        out.extend(list.split('`').skip(1).step_by(2).map(str::to_string));
    }
    out
}

#[test]
fn every_code_has_a_docs_section_and_the_docs_name_only_registered_codes() {
    let (text, sections) = docs_sections();
    let registered: BTreeSet<u16> = CODES.iter().map(|c| c.number()).collect();
    let cases = cases();
    let mut problems = Vec::new();
    for code in CODES {
        match sections.get(&code.number()).map(Vec::as_slice) {
            None | Some([]) => problems.push(format!("{code} has no section")),
            Some([(title, body)]) => {
                if title != code.title() {
                    problems.push(format!(
                        "{code}: heading `{title}` differs from the registry's `{}`",
                        code.title()
                    ));
                }
                if !body.contains("```rust") {
                    problems.push(format!("{code}: no wrong example (```rust block)"));
                }
                if !body.contains("**Fix:**") {
                    problems.push(format!("{code}: no **Fix:** paragraph"));
                }
                let cited = cited_cases(body);
                if cited.is_empty() {
                    problems.push(format!("{code}: cites no `Case:`"));
                }
                for name in cited {
                    match cases.iter().find(|c| c.name == name) {
                        Some(case) if case.codes().contains(&code.number()) => {}
                        Some(_) => {
                            problems.push(format!("{code}: case `{name}` does not report it"))
                        }
                        None => problems.push(format!("{code}: no case `{name}`")),
                    }
                }
                if code.call_site() != body.contains("**Call site:**") {
                    problems.push(format!(
                        "{code}: call-site codes (and only they) say `**Call site:**` why"
                    ));
                }
            }
            Some(_) => problems.push(format!("{code} has more than one section")),
        }
    }
    for number in codes_in(&text) {
        if !registered.contains(&number) {
            problems.push(format!(
                "docs/errors.md names TK{number:04}, which is not registered"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_code_has_a_compile_fail_case_of_its_own() {
    let cases = cases();
    let mut problems = Vec::new();
    for code in CODES {
        let own: Vec<&str> = cases
            .iter()
            .filter(|c| c.codes() == BTreeSet::from([code.number()]))
            .filter(|c| {
                c.errors.iter().all(|e| {
                    e.code.is_some()
                        || (e.from_rustc
                            && c.source.contains(RUSTC_PARSES_TOO)
                            && !e.header.starts_with("error["))
                })
            })
            .map(|c| c.name.as_str())
            .collect();
        if own.is_empty() {
            let shared: Vec<&str> = cases
                .iter()
                .filter(|c| c.codes().contains(&code.number()))
                .map(|c| c.name.as_str())
                .collect();
            problems.push(format!(
                "{code} ({}) has no compile-fail case that reports it alone (reported in: {shared:?})",
                code.title()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_macro_error_carries_a_registered_code() {
    let registered: BTreeSet<u16> = CODES.iter().map(|c| c.number()).collect();
    let mut problems = Vec::new();
    for case in cases() {
        for error in &case.errors {
            match error.code {
                Some(n) if registered.contains(&n) => {}
                Some(n) => problems.push(format!("{}: unregistered TK{n:04}", case.name)),
                None if error.from_rustc => {}
                None => problems.push(format!("{}: no code: {}", case.name, error.header)),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_code_is_constructed_in_the_source() {
    let root = workspace();
    let registry = root.join("lowering/src/diag/codes.rs");
    let mut source = String::new();
    source_text(&root.join("lowering/src"), &registry, &mut source);
    source_text(&root.join("macros/src"), &registry, &mut source);
    let unused: Vec<String> = CODES
        .iter()
        .filter(|code| {
            let needle = format!("Code::{}", code.ident());
            !source.match_indices(&needle).any(|(i, _)| {
                source[i + needle.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            })
        })
        .map(|code| format!("{code} (`Code::{}`)", code.ident()))
        .collect();
    assert!(
        unused.is_empty(),
        "registered but never constructed: {unused:?}"
    );
}

/// Item 7 of issue 8: rust-analyzer shows proc-macro errors well only at
/// real tokens. An error at the call site underlines the whole attribute.
#[test]
fn no_error_points_at_the_whole_attribute_unless_documented() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for case in cases() {
        let lines: Vec<&str> = case.source.lines().collect();
        for error in case.errors.iter().filter(|e| !e.from_rustc) {
            let Some((line, column)) = error.at else {
                problems.push(format!("{}: no location for {}", case.name, error.header));
                continue;
            };
            checked += 1;
            let text = lines.get(line - 1).copied().unwrap_or_default();
            let at = text.chars().skip(column - 1).collect::<String>();
            let whole_attribute = at.starts_with("#[") && at.contains("tile_kernel");
            let allowed = error
                .code
                .and_then(Code::from_number)
                .is_some_and(Code::call_site);
            if whole_attribute && !allowed {
                problems.push(format!(
                    "{}:{line}:{column}: `{}` points at the whole attribute",
                    case.name, error.header
                ));
            }
        }
    }
    assert!(checked > 50, "checked only {checked} errors");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Words of the compiler's own implementation that must never reach a user:
/// type and variant names of `lowering`, debug formatting, panics.
const INTERNAL_WORDS: &[&str] = &[
    "Poly",
    "AtomId",
    "Atom {",
    "Binding",
    "Value::",
    "Cond::",
    "Some(",
    "None",
    "Vec<",
    "Layout",
    "SpanId",
    "Diagnostic",
    "unwrap",
    "panicked",
    "{:?}",
    // The emitter's register names (`%a0_x`); the ISA's fragment
    // registers `{a0, a1, ..}` in a form's syntax are the user's words.
    "%a0",
];

#[test]
fn no_message_shows_internal_names() {
    let mut leaks = Vec::new();
    for case in cases() {
        let path = workspace().join(format!("ui-tests/tests/compile-fail/{}.stderr", case.name));
        let stderr = fs::read_to_string(&path).expect("read .stderr");
        // Only our own lines: the message and its `= note/help` lines
        // (source excerpts quote the user's code, which may say anything).
        for line in stderr.lines() {
            let ours = line.starts_with("error: TK")
                || line.trim_start().starts_with("= note:")
                || line.trim_start().starts_with("= help:");
            if !ours {
                continue;
            }
            for word in INTERNAL_WORDS {
                if line.contains(word) {
                    leaks.push(format!("{}: `{word}` in {line}", case.name));
                }
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "internal names reach users:\n{}",
        leaks.join("\n")
    );
}

#[test]
fn every_macro_error_in_a_case_is_spanned_inside_the_case_file() {
    // A spanned error names a line of the case; one with no location would
    // be a bare `compile_error!` that editors cannot place.
    let mut unplaced = Vec::new();
    for case in cases() {
        for error in &case.errors {
            if error.code.is_some() && error.at.is_none() {
                unplaced.push(format!("{}: {}", case.name, error.header));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "errors without a location:\n{}",
        unplaced.join("\n")
    );
}

/// One mistake, one error: within a case, no two of the macro's errors
/// share a primary location. A second error at the same token is a
/// cascade (a follow-up that only repeats the first) or a duplicate.
#[test]
fn no_two_errors_of_a_case_point_at_the_same_token() {
    let mut repeated = Vec::new();
    for case in cases() {
        let mut seen: BTreeMap<(usize, usize), &str> = BTreeMap::new();
        for error in case.errors.iter().filter(|e| e.code.is_some()) {
            let Some(at) = error.at else { continue };
            if let Some(first) = seen.insert(at, &error.header) {
                repeated.push(format!(
                    "{} at {}:{}:\n  {first}\n  {}",
                    case.name, at.0, at.1, error.header
                ));
            }
        }
    }
    assert!(
        repeated.is_empty(),
        "errors sharing a location (one mistake, one error):\n{}",
        repeated.join("\n")
    );
}

/// Every message names its offender: a quoted token (`` `x` ``) or the
/// offending number. The codes listed here are structural: the primary
/// span is the whole offender (a generic parameter list, a pattern, a
/// nesting) and the message says what is wrong with it.
#[test]
fn every_message_names_its_offender() {
    const STRUCTURAL: &[(u16, &str)] = &[
        (17, "the span is the negated non-literal"),
        (22, "the span is the expression that is not a constant"),
        (24, "the span is the division by zero"),
        (
            26,
            "the span is the last token written before parsing stopped",
        ),
        (102, "the span is the generic parameter list"),
        (104, "the span is the pattern"),
        (110, "the span is the product of symbols"),
        (111, "the span is the negative dim"),
        (112, "the span is the tensor type"),
        (118, "the span is the empty shape"),
        (502, "the span is the bool expression"),
        (509, "the span is the literal"),
        (513, "the span is the shift"),
        (601, "the span is the zero extent"),
        (609, "the span is the nested expression"),
    ];
    let mut silent = Vec::new();
    for case in cases() {
        for error in &case.errors {
            let Some(code) = error.code else { continue };
            if STRUCTURAL.iter().any(|(c, _)| *c == code) {
                continue;
            }
            let message = error.header.split_once(": ").map_or("", |(_, m)| m);
            let message = message.split_once(": ").map_or("", |(_, m)| m);
            let names = message.contains('`') || message.chars().any(|c| c.is_ascii_digit());
            if !names {
                silent.push(format!("{}: {}", case.name, error.header));
            }
        }
    }
    assert!(
        silent.is_empty(),
        "messages that name no offender:\n{}",
        silent.join("\n")
    );
    // Each structural exception is still used (no stale entries).
    let all: BTreeSet<u16> = cases().iter().flat_map(Case::codes).collect();
    for (code, why) in STRUCTURAL {
        assert!(all.contains(code), "TK{code:04} ({why}) is in no case");
    }
}

/// The catalogue is the rustdoc module `tile_kernel::errors` (it includes
/// `docs/errors.md`, so the two cannot drift), with one anchor per code,
/// and every error a case reports ends with the line that points there.
#[test]
fn every_code_has_an_anchor_and_every_error_points_at_it() {
    let root = workspace();
    let facade = fs::read_to_string(root.join("src/lib.rs")).expect("read src/lib.rs");
    assert!(
        facade.contains("#[doc = include_str!(\"../docs/errors.md\")]\npub mod errors {}"),
        "src/lib.rs does not include docs/errors.md as `pub mod errors`"
    );
    let docs = fs::read_to_string(root.join("docs/errors.md")).expect("read docs/errors.md");
    let mut problems = Vec::new();
    for code in CODES {
        let anchor = format!("<a id=\"tk{:04}\"></a>\n\n## {code}: ", code.number());
        if !docs.contains(&anchor) {
            problems.push(format!(
                "{code}: no `<a id=\"tk{:04}\"></a>` before its section",
                code.number()
            ));
        }
    }
    let dir = root.join("ui-tests/tests/compile-fail");
    for case in cases() {
        let stderr =
            fs::read_to_string(dir.join(format!("{}.stderr", case.name))).unwrap_or_default();
        for error in &case.errors {
            let Some(code) = error.code else { continue };
            let pointer = format!("= note: explained at tile_kernel::errors#tk{code:04}");
            if !stderr.contains(&pointer) {
                problems.push(format!(
                    "{}: `{}` has no `{pointer}`",
                    case.name, error.header
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
