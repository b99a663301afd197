//! `docs/ptx-table.md` is generated from the table; this keeps it current.
//! `TILE_KERNEL_BLESS=1` rewrites it after a table change.
//!
//! The table's packing orders (`cvt.rn.f16x2.f32 d, a, b`: first source ->
//! high half; `mov.b32 d, {lo, hi}`: first lane -> low bits) are not checked
//! here by restating them: ptxas cannot tell a packing order, so the oracle is
//! the GPU -- the bit-exact tests in `tests/gpu_kernels.rs`, which compare each
//! packed word with one built on the host by `half`/`float8` -- and, where no
//! GPU test reaches a form yet, the PTX ISA text. `every_packing_order_has_an_oracle`
//! ties every packing form to that evidence and checks the evidence exists.

use tile_kernel_lowering::emit::{Join, operand_list};
use tile_kernel_lowering::ptx::docs::table_reference;
use tile_kernel_lowering::ptx::form::{InstructionForm, Modifiers, registers_text};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::{OperandKind, Packing, resolve, table::FORMS};

#[test]
fn docs_ptx_table_matches_the_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/ptx-table.md");
    let text = table_reference();
    if std::env::var("TILE_KERNEL_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).expect("write docs/ptx-table.md");
    }
    let committed = std::fs::read_to_string(&path).expect("read docs/ptx-table.md");
    assert!(
        committed == text,
        "docs/ptx-table.md is stale: rerun with TILE_KERNEL_BLESS=1 and review the diff"
    );
}

// ------------------------------------------------------- packing oracles

/// How a GPU test's kernel reaches the form.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// Through `apply(ptx["OPCODE"], ..)` with an opcode of the form.
    Opcode,
    /// Through a register view (`.view::<u16>()` of a `u32` tile), which
    /// lowers to `mov.b32 {lo, hi}, w` / `mov.b32 w, {lo, hi}` (pinned by the
    /// goldens `widen_pairs.ptx`, `register_views.ptx` and
    /// `partial_writes_of_written_registers_unpack_first` in tests/ptx_golden.rs).
    View,
}

/// A bit-exact GPU test: `test` in `file` launches `kernel` (defined in
/// `kernel_file`) and compares every packed word with a host reference.
#[derive(Clone, Copy, Debug)]
struct GpuTest {
    file: &'static str,
    test: &'static str,
    kernel_file: &'static str,
    kernel: &'static str,
    reach: Reach,
}

const fn gpu(test: &'static str, kernel: &'static str) -> GpuTest {
    GpuTest {
        file: "tests/gpu_kernels.rs",
        test,
        kernel_file: "tests/gpu_kernels.rs",
        kernel,
        reach: Reach::Opcode,
    }
}

const fn gpu_example(test: &'static str, kernel: &'static str, example: &'static str) -> GpuTest {
    GpuTest {
        file: "tests/gpu_kernels.rs",
        test,
        kernel_file: example,
        kernel,
        reach: Reach::Opcode,
    }
}

const fn via_view(test: GpuTest) -> GpuTest {
    GpuTest {
        reach: Reach::View,
        ..test
    }
}

/// Where a form's packing order is established, independently of the table.
#[derive(Clone, Copy, Debug)]
enum Oracle {
    /// Bit-exact GPU tests (`#[ignore]`d: they run with `--include-ignored`
    /// on a GPU machine, e.g. `TILE_KERNEL_REQUIRE_GPU=1 scripts/test.sh`).
    Gpu(&'static [GpuTest]),
    /// The same PTX instruction text as another form (only the tile
    /// operands supply the lanes differently), so that form's oracle holds.
    SameInstructionAs(&'static str),
    /// Only the PTX ISA text; no GPU test reaches the form yet.
    IsaText(&'static str),
}

/// The PTX ISA's `mov` semantics, the ISA oracle of the lane order.
const ISA_MOV: &str = "PTX ISA, mov (packing): `d = a.x | (a.y << 8) | (a.z << 16) | (a.w << 24)` \
     for four 8-bit elements into .b32, `d = a.x | (a.y << 16) | (a.z << 32) | (a.w << 48)` \
     for four 16-bit elements into .b64; unpacking is the inverse";

/// The PTX ISA's `cvt.pack` semantics (9.7.9.22).
const ISA_CVT_PACK: &str = "PTX ISA 9.7.9.22, cvt.pack: `td = tb; for (i = size; i <= 2*size-1; i++) \
     td[i] = ta[i - size];` (a above b), and with c, the remaining bits of d come from the low bits of c";

/// The PTX ISA's `cvt` semantics for the fp4/fp6/ue8m0 pairs (no GPU here
/// runs them: they need sm_100a or sm_120a).
const ISA_CVT_NARROW_PAIRS: &str = "PTX ISA 9.7.9.21 cvt: for `.f4x2type`/`.f6x2type`/`.ue8m0x2` \
     destinations from two `.f32` sources, the converted `a` is stored in the upper half of `d` and \
     `b` in the lower half; from a packed source, and widening to `.f16x2`/`.bf16x2`, each element \
     keeps its half";

/// Every form with a packing order and the evidence for it.
const PACKING_ORACLES: &[(&str, Oracle)] = &[
    // First source -> high half: the kernels pass column 1 first and the host
    // reference puts f16(x0)/bf16(x0) in the low half.
    (
        "cvt.half-pair-from-f32",
        Oracle::Gpu(&[
            gpu_example(
                "seed_narrow_pairs_puts_the_first_element_in_the_low_half",
                "narrow_pairs",
                "examples/narrow_pairs.rs",
            ),
            gpu("f32_to_f16x2_rn_matches_half_bit_for_bit", "narrow_f16_rn"),
            gpu("f32_to_f16x2_rz_matches_round_toward_zero", "narrow_f16_rz"),
            gpu(
                "f32_to_bf16x2_rn_matches_half_bit_for_bit",
                "narrow_bf16_rn",
            ),
        ]),
    ),
    // First source -> high byte, against `float8` (pack8(lo = x0, hi = x1)).
    (
        "cvt.fp8-pair-from-f32",
        Oracle::Gpu(&[
            gpu("f32_to_e4m3x2_matches_float8", "pack_e4m3"),
            gpu("f32_to_e5m2x2_matches_float8", "pack_e5m2"),
            gpu_example(
                "pack_fp8_example_matches_float8",
                "pack_fp8",
                "examples/pack_fp8.rs",
            ),
        ]),
    ),
    // In place: the low f16 half becomes the low byte, for all 2^32 / 2 pairs.
    (
        "cvt.fp8-pair-from-f16x2",
        Oracle::Gpu(&[
            gpu("f16x2_to_e4m3x2_matches_float8", "narrow_f16x2_e4m3"),
            gpu("f16x2_to_e5m2x2_matches_float8", "narrow_f16x2_e5m2"),
        ]),
    ),
    // In place: the low byte becomes the low f16 half, for every byte pair.
    (
        "cvt.f16x2-from-fp8-pair",
        Oracle::Gpu(&[
            gpu(
                "e4m3x2_to_f16x2_matches_float8_for_every_pair",
                "unpack_e4m3",
            ),
            gpu(
                "e5m2x2_to_f16x2_matches_float8_for_every_pair",
                "unpack_e5m2",
            ),
        ]),
    ),
    // `mov.b32 w, {lo, hi}`: the kernels write 16-bit halves of a u32 tile
    // through `.view::<u16>()` (element 0 = low half) and the host expects
    // element 0 in bits 0..16. The GPU covers the .b32 variant; .b16 and
    // .b64 rest on the ISA's `d = a.x | (a.y << 8|32)`.
    (
        "mov.pack2",
        Oracle::Gpu(&[
            via_view(gpu(
                "predicated_sub_register_write_keeps_the_other_half_and_the_old_word",
                "overwrite_high_half",
            )),
            via_view(gpu_example(
                "pack_fp8_example_matches_float8",
                "pack_fp8",
                "examples/pack_fp8.rs",
            )),
        ]),
    ),
    // `mov.b32 {lo, hi}, w`: every f16 pattern, word i = (2i low, 2i + 1 high).
    (
        "mov.unpack2",
        Oracle::Gpu(&[
            via_view(gpu("f16x2_to_f32_widens_every_f16_exactly", "widen_f16")),
            via_view(gpu_example(
                "widen_pairs_example_matches_half",
                "widen_pairs",
                "examples/widen_pairs.rs",
            )),
            via_view(gpu(
                "predicated_sub_register_write_keeps_the_other_half_and_the_old_word",
                "overwrite_high_half",
            )),
        ]),
    ),
    ("mov.pack2-split", Oracle::SameInstructionAs("mov.pack2")),
    (
        "mov.unpack2-split",
        Oracle::SameInstructionAs("mov.unpack2"),
    ),
    // Not reached by any GPU test yet: four lanes.
    ("mov.pack4", Oracle::IsaText(ISA_MOV)),
    ("mov.unpack4", Oracle::IsaText(ISA_MOV)),
    ("mov.pack4-split", Oracle::SameInstructionAs("mov.pack4")),
    ("cvt.pack", Oracle::IsaText(ISA_CVT_PACK)),
    (
        "cvt.fp6-fp4-pair-from-f32",
        Oracle::IsaText(ISA_CVT_NARROW_PAIRS),
    ),
    (
        "cvt.f16x2-from-fp6-fp4-pair",
        Oracle::IsaText(ISA_CVT_NARROW_PAIRS),
    ),
    (
        "cvt.ue8m0x2-from-f32",
        Oracle::IsaText(ISA_CVT_NARROW_PAIRS),
    ),
    (
        "cvt.ue8m0x2-from-bf16x2",
        Oracle::IsaText(ISA_CVT_NARROW_PAIRS),
    ),
    (
        "cvt.bf16x2-from-ue8m0x2",
        Oracle::IsaText(ISA_CVT_NARROW_PAIRS),
    ),
    ("cvt.pack-into", Oracle::IsaText(ISA_CVT_PACK)),
    (
        "mov.unpack4-split",
        Oracle::SameInstructionAs("mov.unpack4"),
    ),
];

fn read_source(relative: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The text of `fn name(` .. the end of its body (the next line that closes
/// a block at the fn's own indentation), with the attribute lines above it.
fn fn_source<'a>(source: &'a str, name: &str) -> Option<(&'a str, &'a str)> {
    let needle = format!("fn {name}(");
    let start = source
        .match_indices(&needle)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || !source[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))?;
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = source[line_start..start]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let close = format!("\n{indent}}}\n");
    let end = source[start..]
        .find(&close)
        .map_or(source.len(), |i| start + i + close.len());
    // The attributes: the lines directly above, up to the previous blank line.
    let above = &source[..line_start];
    let attrs_start = above
        .trim_end_matches('\n')
        .rfind("\n\n")
        .map_or(0, |i| i + 2);
    Some((&source[attrs_start..line_start], &source[start..end]))
}

/// Whether `text` mentions `word` as a whole identifier.
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// The opcodes a kernel's source names in `ptx["OPCODE"]`.
fn opcodes(kernel: &str) -> Vec<&str> {
    kernel
        .split("ptx[\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

/// Problems with one GPU test as evidence for `form`.
/// Whether `test` is one of the names an `on_both_devices!(..)` invocation
/// in `source` turns into a GPU test (and its CPU twin).
fn on_both_devices(source: &str, test: &str) -> bool {
    source.match_indices("on_both_devices!(").any(|(at, open)| {
        let list = &source[at + open.len()..];
        let list = &list[..list.find(')').unwrap_or(list.len())];
        list.split(',').any(|item| {
            // A name may follow attributes (`#[ignore = ".."] name`).
            item.split_whitespace().last() == Some(test)
        })
    })
}

fn check_gpu_test(form: &str, t: &GpuTest) -> Vec<String> {
    let mut problems = Vec::new();
    let tests = read_source(t.file);
    let Some((attrs, body)) = fn_source(&tests, t.test) else {
        return vec![format!("{form}: no `fn {}` in {}", t.test, t.file)];
    };
    let gpu_only =
        attrs.contains("#[test]") && attrs.contains("#[ignore = \"needs") && attrs.contains("GPU");
    if !gpu_only && !on_both_devices(&tests, t.test) {
        problems.push(format!(
            "{form}: `{}` in {} is neither an #[ignore = \"needs .. GPU ..\"] #[test] nor listed in `on_both_devices!`",
            t.test, t.file
        ));
    }
    if !mentions(body, t.kernel) {
        problems.push(format!(
            "{form}: `{}` does not launch `{}`",
            t.test, t.kernel
        ));
    }
    let kernels = read_source(t.kernel_file);
    let Some((kernel_attrs, kernel)) = fn_source(&kernels, t.kernel) else {
        problems.push(format!("{form}: no `fn {}` in {}", t.kernel, t.kernel_file));
        return problems;
    };
    if !kernel_attrs.contains("#[tile_kernel(") {
        problems.push(format!("{form}: `{}` is not a #[tile_kernel]", t.kernel));
    }
    match t.reach {
        Reach::Opcode => {
            let reaches = opcodes(kernel).iter().any(|op| {
                resolve(op).is_ok_and(|candidates| candidates.iter().any(|m| m.form.id == form))
            });
            if !reaches {
                problems.push(format!(
                    "{form}: kernel `{}` names no opcode of the form (it names {:?})",
                    t.kernel,
                    opcodes(kernel)
                ));
            }
        }
        Reach::View => {
            if !kernel.contains(".view::<u16>()") {
                problems.push(format!(
                    "{form}: kernel `{}` has no `.view::<u16>()`",
                    t.kernel
                ));
            }
        }
    }
    problems
}

/// One instruction of `m`, registers named by position and width.
fn render(m: &Modifiers) -> String {
    let mut n = 0;
    let rendered = m.operands().into_iter().map(|op| {
        let text = match op.kind {
            OperandKind::Address => "[%rd0]".to_string(),
            OperandKind::TensorCoords => {
                let coords: Vec<String> = (0..op.lanes)
                    .map(|_| {
                        n += 1;
                        format!("%b32_{n}")
                    })
                    .collect();
                format!("[%rd0, {{{}}}]", coords.join(", "))
            }
            OperandKind::Immediate { min, .. } => min.to_string(),
            OperandKind::Special(names) => names[0].to_string(),
            OperandKind::Register | OperandKind::Predicate => {
                let lanes: Vec<String> = (0..op.lanes)
                    .map(|_| {
                        n += 1;
                        format!("%b{}_{n}", op.ty.carrier_bits())
                    })
                    .collect();
                registers_text(&lanes, op.piped, op.own_braces)
            }
        };
        (text, Join::of(op.braced, op.after_pipe))
    });
    let operands = operand_list(rendered.collect::<Vec<_>>());
    format!("{} {operands};", m.opcode_text())
}

fn form(id: &str) -> &'static InstructionForm {
    FORMS
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no form {id}"))
}

/// Every form that packs or unpacks has independent evidence for its order:
/// GPU tests that exist, are `#[ignore]`d GPU tests, launch the named kernel
/// and reach the form in it; or the same PTX instruction as such a form; or
/// (listed explicitly) only the ISA text. A new packing form without
/// evidence, a renamed GPU test or a kernel that no longer uses the form
/// fails here.
#[test]
fn every_packing_order_has_an_oracle() {
    let mut problems = Vec::new();
    for f in FORMS {
        let listed = PACKING_ORACLES.iter().filter(|(id, _)| *id == f.id).count();
        match (f.packing, listed) {
            (Packing::None, 0) | (Packing::FirstSourceHigh | Packing::FirstLaneLow | Packing::InPlace, 1) => {}
            (Packing::None, _) => problems.push(format!("{}: packs nothing but is listed", f.id)),
            (_, 0) => problems.push(format!(
                "{} ({:?}): no oracle for its packing order -- add a bit-exact GPU test to tests/gpu_kernels.rs and list it here",
                f.id, f.packing
            )),
            (_, _) => problems.push(format!("{}: listed {listed} times", f.id)),
        }
    }
    let mut gpu_tests = 0;
    let mut isa_only = Vec::new();
    for (id, oracle) in PACKING_ORACLES {
        let f = form(id);
        match oracle {
            Oracle::Gpu(tests) => {
                assert!(!tests.is_empty(), "{id}: empty GPU oracle");
                for t in *tests {
                    gpu_tests += 1;
                    problems.extend(check_gpu_test(id, t));
                }
            }
            Oracle::SameInstructionAs(other) => {
                let o = form(other);
                if !matches!(
                    PACKING_ORACLES.iter().find(|(i, _)| i == other),
                    Some((_, Oracle::Gpu(_) | Oracle::IsaText(_)))
                ) {
                    problems.push(format!("{id}: `{other}` has no direct oracle"));
                }
                if f.packing != o.packing {
                    problems.push(format!("{id}: packing differs from `{other}`"));
                }
                let mine: Vec<String> = legal_variants(f).iter().map(render).collect();
                let theirs: Vec<String> = legal_variants(o).iter().map(render).collect();
                if mine.is_empty() || mine != theirs {
                    problems.push(format!(
                        "{id} is not the same PTX instruction as {other}: {mine:?} vs {theirs:?}"
                    ));
                }
            }
            Oracle::IsaText(text) => isa_only.push(format!("{id} ({text})")),
        }
    }
    println!(
        "{} packing forms, {gpu_tests} GPU test references; no GPU test, ISA text only:\n{}",
        PACKING_ORACLES.len(),
        isa_only.join("\n")
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The source checks above can fail (falsification twins).
#[test]
fn packing_oracle_checks_catch_stale_references() {
    let renamed = GpuTest {
        test: "no_such_gpu_test",
        ..gpu("f32_to_f16x2_rn_matches_half_bit_for_bit", "narrow_f16_rn")
    };
    assert_eq!(
        check_gpu_test("cvt.half-pair-from-f32", &renamed),
        ["cvt.half-pair-from-f32: no `fn no_such_gpu_test` in tests/gpu_kernels.rs"]
    );
    // A test that launches another kernel.
    let other_kernel = gpu("f32_to_f16x2_rn_matches_half_bit_for_bit", "narrow_f16_rz");
    assert_eq!(
        check_gpu_test("cvt.half-pair-from-f32", &other_kernel),
        [
            "cvt.half-pair-from-f32: `f32_to_f16x2_rn_matches_half_bit_for_bit` does not launch `narrow_f16_rz`"
        ]
    );
    // A kernel that does not use the form.
    let wrong_form = gpu("f32_to_f16x2_rn_matches_half_bit_for_bit", "narrow_f16_rn");
    assert_eq!(
        check_gpu_test("cvt.fp8-pair-from-f32", &wrong_form).len(),
        1
    );
    // A test that runs on neither device (a host-only test).
    let not_gpu = gpu(
        "every_kernel_here_and_in_the_examples_assembles_without_spills",
        "narrow_f16_rn",
    );
    assert!(
        check_gpu_test("cvt.half-pair-from-f32", &not_gpu)
            .iter()
            .any(|p| p.contains("is neither an #[ignore")),
        "{:?}",
        check_gpu_test("cvt.half-pair-from-f32", &not_gpu)
    );
    // Different instructions are told apart.
    let pack2: Vec<String> = legal_variants(form("mov.pack2"))
        .iter()
        .map(render)
        .collect();
    let unpack2: Vec<String> = legal_variants(form("mov.unpack2"))
        .iter()
        .map(render)
        .collect();
    assert_ne!(pack2, unpack2);
    assert_eq!(pack2[1], "mov.b32 %b32_1, {%b16_2, %b16_3};");
}
