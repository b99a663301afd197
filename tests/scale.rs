//! Kernels at scale without a GPU: the SPEC §6 kernels and the shipped
//! conversion kernels compile, their PTX is pinned by goldens, assembles
//! with the pinned ptxas without spills, and their launch specs carry the
//! symbols and launch-size formulas the launcher evaluates. The kernels
//! then run on the CPU interpreter (always) and on a GPU
//! (`--include-ignored`), at the same sizes, against `half`.

mod support;

#[path = "../examples/common/conversions.rs"]
#[allow(dead_code)]
mod conversions;

use tile_kernel::prelude::*;
use tile_kernel::spec::{DimSpec, LaunchFormulaSpec, LaunchOp, ParamKindSpec, SymbolSpec};

use support::golden::golden;
use support::ptxas::resource_usage;

fn count(ptx: &str, fragment: &str) -> usize {
    ptx.lines()
        .filter(|l| l.trim_start().starts_with(fragment))
        .count()
}

/// Lines between two labels (exclusive).
fn section<'a>(ptx: &'a str, from: &str, to: &str) -> &'a str {
    let start = ptx
        .find(from)
        .unwrap_or_else(|| panic!("no `{from}` in\n{ptx}"));
    let end = ptx[start..].find(to).map_or(ptx.len(), |e| start + e);
    &ptx[start..end]
}

#[test]
fn spec_to_half_matches_its_golden() {
    golden("spec6_to_half", conversions::to_half::PTX);
}

#[test]
fn spec_to_bf16_pairs_matches_its_golden() {
    golden("spec6_to_bf16_pairs", conversions::to_bf16_pairs::PTX);
}

#[test]
fn to_half_vector_body_is_two_loads_four_cvts_one_store() {
    let ptx = conversions::to_half::PTX;
    // The vector branch runs from the `if` to the jump over the tail.
    let vector = section(ptx, "@!%q0 bra $L0_else;", "$L0_else:");
    assert_eq!(count(vector, "ld.global.v4.f32"), 2, "{vector}");
    assert_eq!(count(vector, "cvt.rn.f16x2.f32"), 4, "{vector}");
    assert_eq!(count(vector, "st.global.v4.b32"), 1, "{vector}");
    // Every access was proven in bounds: no guard besides the `if`s (one for
    // the vector test, one per tail element; `base + 7 < N` is the vector
    // test's `base + 8 <= N` and reuses its predicate).
    assert_eq!(count(ptx, "setp."), 8, "{ptx}");
    assert_eq!(
        count(ptx, "@%q"),
        0,
        "no predicated access expected:\n{ptx}"
    );
    let tail = section(ptx, "$L0_else:", "$L0_end:");
    assert_eq!(count(tail, "ld.global.f32"), 8, "{tail}");
    assert_eq!(count(tail, "cvt.rn.f16.f32"), 8, "{tail}");
    assert_eq!(count(tail, "st.global.b16"), 8, "{tail}");
}

#[test]
fn grid_stride_kernel_is_one_ptx_loop_without_guards() {
    let ptx = conversions::to_bf16_pairs::PTX;
    assert_eq!(count(ptx, "$L0_head:"), 1, "{ptx}");
    assert_eq!(count(ptx, "setp."), 1, "only the loop test:\n{ptx}");
    assert_eq!(count(ptx, "ld.global.v2.f32"), 1, "{ptx}");
    assert_eq!(count(ptx, "st.global.b32"), 1, "{ptx}");
    // The step is grid_dim(0) * block_dim(0) = 528 * 256, folded.
    assert!(ptx.contains(", 135168;"), "{ptx}");
}

#[test]
fn shipped_kernels_assemble_without_spills() {
    for (name, ptx) in [
        ("to_half", conversions::to_half::PTX),
        ("to_bf16", conversions::to_bf16::PTX),
        ("to_f32", conversions::to_f32::PTX),
        ("to_e4m3", conversions::to_e4m3::PTX),
        ("to_bf16_pairs", conversions::to_bf16_pairs::PTX),
    ] {
        let report = resource_usage(ptx, "sm_90");
        assert!(
            report.contains("0 bytes spill stores, 0 bytes spill loads"),
            "{name} spills:\n{report}"
        );
        assert!(
            report.contains("Used "),
            "{name}: no usage line in\n{report}"
        );
    }
}

#[test]
fn launch_specs_carry_symbols_and_grid_formulas() {
    let spec = conversions::to_half::KERNEL.spec();
    assert_eq!(
        spec.grid,
        [
            LaunchFormulaSpec(&[
                LaunchOp::Symbol(0),
                LaunchOp::Const(2048),
                LaunchOp::CeilDiv
            ]),
            LaunchFormulaSpec(&[LaunchOp::Const(1)]),
            LaunchFormulaSpec(&[LaunchOp::Const(1)]),
        ]
    );
    assert_eq!(spec.block, [256, 1, 1]);
    assert_eq!(
        spec.symbols,
        &[SymbolSpec {
            name: "N",
            divisor: 1,
            multiple_of: 1
        }]
    );
    let n = DimSpec::Symbolic {
        symbol: 0,
        mul: 1,
        div: 1,
        add: 0,
    };
    for param in spec.params {
        match param.kind {
            ParamKindSpec::Tensor { shape, .. } => assert_eq!(shape, &[n]),
            ParamKindSpec::Scalar { .. } => panic!("unexpected scalar"),
        }
    }
    let pairs = conversions::to_bf16_pairs::KERNEL.spec();
    assert_eq!(pairs.grid[0], LaunchFormulaSpec(&[LaunchOp::Const(528)]));
    match pairs.params[0].kind {
        ParamKindSpec::Tensor { shape, .. } => assert_eq!(shape, &[n, DimSpec::Const(2)]),
        ParamKindSpec::Scalar { .. } => panic!("unexpected scalar"),
    }
}

// A row of `Tensor<f32, M, K>` starts at `row * K`: the 16-byte loads are
// aligned only when `K % 4 == 0`, which becomes a launch-time requirement.
#[tile_kernel(grid = M, block = 1)]
fn first_four_of_each_row(x: Tensor<f32, M, K>, y: Tensor<f32, M, 4>) {
    let r = alloc_local::<f32>([1, 4]);
    let row = cta_id(0);
    if K >= 4 {
        apply(ptx["ld.global.v4.f32"], r, x.slice(s![row..row + 1, 0..4]));
        apply(ptx["st.global.v4.f32"], y.slice(s![row..row + 1, ..]), r);
    }
}

#[test]
fn alignment_on_a_symbol_becomes_a_launch_requirement() {
    let spec = first_four_of_each_row::KERNEL.spec();
    let k = spec
        .symbols
        .iter()
        .find(|s| s.name == "K")
        .expect("symbol K");
    assert_eq!(k.multiple_of, 4);
    let m = spec
        .symbols
        .iter()
        .find(|s| s.name == "M")
        .expect("symbol M");
    assert_eq!(m.multiple_of, 1);
    // `grid = M`: cta_id(0) < M is what proves `row` in bounds.
    assert_eq!(count(first_four_of_each_row::PTX, "@%q"), 0);
    support::ptxas::assemble(first_four_of_each_row::PTX, "sm_90");
}

// The compiler guards what it cannot prove, combined with the user's `pred`:
// the load gets `i + 1 <= N`; the store's `pred = i < N` proves its bounds
// and is the same condition, so the loaded value is read where it is defined.
#[tile_kernel(grid = 4, block = 256)]
fn guarded_copy(x: Tensor<f32, N>, y: Tensor<f32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
    apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v, pred = i < N);
}

#[test]
fn unproven_bounds_become_a_guard() {
    let ptx = guarded_copy::PTX;
    assert_eq!(count(ptx, "@%q0 ld.global.f32"), 1, "{ptx}");
    assert_eq!(count(ptx, "@%q0 st.global.f32"), 1, "{ptx}");
    assert_eq!(count(ptx, "setp.le.s64"), 1, "one shared condition:\n{ptx}");
    support::ptxas::assemble(ptx, "sm_90");
}

// A 2-D launch: rows by `cta_id(1)`, columns by a per-thread rank; races are
// excluded per axis.
#[tile_kernel(grid = [ceil_div(K, 1024), M], block = 256)]
fn scale_rows(x: Tensor<f32, M, K>, y: Tensor<f32, M, K>) {
    let row = cta_id(1);
    let col = (cta_id(0) * 256 + thread_id(0)) * 4;
    let r = alloc_local::<f32>([1, 4]);
    if col + 4 <= K {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![row..row + 1, col..col + 4]),
        );
        apply(ptx["mul.f32"], r.reshape([4, 1]), r.reshape([4, 1]), 2.0);
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, col..col + 4]),
            r,
        );
    }
}

#[test]
fn two_dimensional_launches_prove_rows_and_columns() {
    let spec = scale_rows::KERNEL.spec();
    assert_eq!(spec.grid[1], LaunchFormulaSpec(&[LaunchOp::Symbol(0)]));
    assert_eq!(count(scale_rows::PTX, "@%q"), 0, "{}", scale_rows::PTX);
    support::ptxas::assemble(scale_rows::PTX, "sm_90");
}

// `{N / 2}`: one packed word per pair; the launcher needs `N` even.
#[tile_kernel(grid = ceil_div(N, 512), block = 256)]
fn pack_pairs(x: Tensor<f32, N>, y: Tensor<u32, { N / 2 }>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let r = alloc_local::<f32>([1, 2]);
    let d = alloc_local::<u32>([1, 1]);
    if 2 * i + 2 <= N {
        apply(
            ptx["ld.global.v2.f32"],
            r,
            x.slice(s![2 * i..2 * i + 2]).reshape([1, 2]),
        );
        apply(
            ptx["cvt.rn.f16x2.f32"],
            d,
            r.slice(s![.., 1..2]),
            r.slice(s![.., 0..1]),
        );
        apply(
            ptx["st.global.b32"],
            y.slice(s![i..i + 1]).reshape([1, 1]),
            d,
        );
    }
}

#[test]
fn halved_dims_need_an_even_symbol() {
    let spec = pack_pairs::KERNEL.spec();
    assert_eq!(
        spec.symbols,
        &[SymbolSpec {
            name: "N",
            divisor: 2,
            multiple_of: 1
        }]
    );
    assert_eq!(count(pack_pairs::PTX, "@%q"), 0, "{}", pack_pairs::PTX);
    support::ptxas::assemble(pack_pairs::PTX, "sm_90");
}

// `lane_id()` and `warp_id()` in conditions: only the low half of each warp,
// and not warp 1 of the block, converts its element.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn half_warps(x: Tensor<f32, N>, y: Tensor<u16, N>) {
    let i = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    let h = alloc_local::<f16>([1]);
    if i < N && lane_id() < 16 && warp_id() != 1 {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["cvt.rn.f16.f32"], h, v);
        apply(ptx["st.global.b16"], y.slice(s![i..i + 1]), h);
    }
}

#[test]
fn lane_and_warp_ids_come_from_the_linear_thread_index() {
    let ptx = half_warps::PTX;
    assert!(ptx.contains("and.b32"), "{ptx}");
    assert!(ptx.contains("shr.u32"), "{ptx}");
    assert!(!ptx.contains("%warpid"), "{ptx}");
    support::ptxas::assemble(ptx, "sm_90");
}

// ------------------------------------------------------------ devices

mod devices {
    //! On the CPU interpreter (`NAME::on_cpu`, always run) and the H200
    //! (`NAME::on_gpu`, ignored without a GPU; `--include-ignored` runs
    //! them), against host references, with the same checks on both.

    use tile_kernel::Result;
    use tile_kernel::prelude::*;

    use crate::support::gpu::on_both_devices;

    use super::{conversions, first_four_of_each_row, half_warps, pack_pairs, scale_rows};

    on_both_devices!(
        grid_stride_pairs_match_half_for_any_row_count,
        disagreeing_symbols_are_an_error_and_nothing_runs,
        empty_tensors_launch_nothing,
        halved_dim_rejects_odd_sizes_and_packs_even_ones,
        alignment_requirement_is_checked_at_launch,
        two_dimensional_launch_scales_every_row,
        lane_and_warp_ids_select_threads,
    );

    fn inputs(n: usize) -> Vec<f32> {
        (0..n).map(|i| (i as f32 * 0.37).sin() * 1000.0).collect()
    }

    fn bf16_pair(lo: f32, hi: f32) -> u32 {
        u32::from(bf16::from_f32(lo).to_bits()) | (u32::from(bf16::from_f32(hi).to_bits()) << 16)
    }

    fn f16_pair(lo: f32, hi: f32) -> u32 {
        u32::from(f16::from_f32(lo).to_bits()) | (u32::from(f16::from_f32(hi).to_bits()) << 16)
    }

    fn grid_stride_pairs_match_half_for_any_row_count(dev: &Device) -> Result<()> {
        for rows in [0usize, 1, 1000, 528 * 256 * 3 + 5, (1 << 20) + 3] {
            let x = inputs(2 * rows);
            let a = dev.upload(&x, [rows, 2])?;
            let mut y = dev.zeros::<u32>([rows, 1])?;
            conversions::to_bf16_pairs(dev, &a, &mut y)?;
            let got = y.download()?;
            let want: Vec<u32> = x.chunks(2).map(|p| bf16_pair(p[0], p[1])).collect();
            assert_eq!(got, want, "rows = {rows}");
        }
        Ok(())
    }

    fn disagreeing_symbols_are_an_error_and_nothing_runs(dev: &Device) -> Result<()> {
        let x = dev.upload(&inputs(8), [8])?;
        let mut y = dev.upload(&[7u16; 7], [7])?;
        let err = conversions::to_half(dev, &x, &mut y).unwrap_err();
        assert!(
            matches!(
                &err,
                Error::SymbolMismatch {
                    symbol: "N",
                    param: "y",
                    bound_by: "x",
                    expected: 8,
                    actual: 7,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "kernel `to_half`: argument `y` has N = 7 (from its shape [7]), but `x` bound N = 8"
        );
        assert_eq!(y.download()?, vec![7u16; 7]);
        Ok(())
    }

    fn empty_tensors_launch_nothing(dev: &Device) -> Result<()> {
        let x = dev.upload::<f32>(&[], [0])?;
        let mut y = dev.zeros::<u16>([0])?;
        conversions::to_half(dev, &x, &mut y)?;
        dev.synchronize()?;
        Ok(())
    }

    fn halved_dim_rejects_odd_sizes_and_packs_even_ones(dev: &Device) -> Result<()> {
        let x = dev.upload(&inputs(7), [7])?;
        let mut y = dev.zeros::<u32>([3])?;
        let err = pack_pairs(dev, &x, &mut y).unwrap_err();
        assert!(
            matches!(err, Error::SymbolRequirement { symbol: "N", .. }),
            "{err}"
        );
        let n = 4098;
        let values = inputs(n);
        let x = dev.upload(&values, [n])?;
        let mut y = dev.zeros::<u32>([n / 2])?;
        pack_pairs(dev, &x, &mut y)?;
        let want: Vec<u32> = values.chunks(2).map(|p| f16_pair(p[0], p[1])).collect();
        assert_eq!(y.download()?, want);
        Ok(())
    }

    fn alignment_requirement_is_checked_at_launch(dev: &Device) -> Result<()> {
        let (m, k) = (3, 6);
        let x = dev.upload(&inputs(m * k), [m, k])?;
        let mut y = dev.zeros::<f32>([m, 4])?;
        let err = first_four_of_each_row(dev, &x, &mut y).unwrap_err();
        assert!(
            matches!(err, Error::SymbolRequirement { symbol: "K", .. }),
            "{err}"
        );
        let (m, k) = (5, 12);
        let values = inputs(m * k);
        let x = dev.upload(&values, [m, k])?;
        let mut y = dev.zeros::<f32>([m, 4])?;
        first_four_of_each_row(dev, &x, &mut y)?;
        let want: Vec<f32> = values.chunks(k).flat_map(|row| row[..4].to_vec()).collect();
        assert_eq!(y.download()?, want);
        Ok(())
    }

    fn two_dimensional_launch_scales_every_row(dev: &Device) -> Result<()> {
        let (m, k) = (7, 4100);
        let values = inputs(m * k);
        let x = dev.upload(&values, [m, k])?;
        let mut y = dev.zeros::<f32>([m, k])?;
        scale_rows(dev, &x, &mut y)?;
        let got = y.download()?;
        for row in 0..m {
            for col in 0..k {
                let i = row * k + col;
                // Columns past the last full group of 4 are not written.
                let want = if col < k / 4 * 4 {
                    values[i] * 2.0
                } else {
                    0.0
                };
                assert_eq!(got[i].to_bits(), want.to_bits(), "[{row}, {col}]");
            }
        }
        Ok(())
    }

    fn lane_and_warp_ids_select_threads(dev: &Device) -> Result<()> {
        let n = 1000;
        let values = inputs(n);
        let x = dev.upload(&values, [n])?;
        let mut y = dev.zeros::<u16>([n])?;
        half_warps(dev, &x, &mut y)?;
        let got = y.download()?;
        for (i, (g, v)) in got.iter().zip(&values).enumerate() {
            let thread = i % 128;
            let selected = thread % 32 < 16 && thread / 32 != 1;
            let want = if selected {
                f16::from_f32(*v).to_bits()
            } else {
                0
            };
            assert_eq!(*g, want, "element {i}");
        }
        Ok(())
    }
}

// Parameter names that differ only outside ASCII stay distinct PTX symbols.
#[tile_kernel(grid = 1, block = 1)]
fn accents(é: f32, è: f32, out: Tensor<f32, 1, 1>) {
    let r = alloc_local::<f32>([1, 1]);
    apply(ptx["add.f32"], r, é, è);
    apply(ptx["st.global.f32"], out, r);
}

#[test]
fn non_ascii_parameter_names_get_distinct_symbols() {
    let ptx = accents::PTX;
    assert!(ptx.contains(".param .b32 accents_param_0__"), "{ptx}");
    assert!(ptx.contains(".param .b32 accents_param_1__"), "{ptx}");
    support::ptxas::assemble(ptx, "sm_90");
}
