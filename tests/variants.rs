//! Alignment variants (`fallback = "scalar"`): a kernel written once with
//! vector accesses, whose alignment needs `N % 4 == 0` at launch, also
//! compiles to a scalar twin that the launcher runs for other sizes. Both
//! are checked like any kernel; CPU and GPU twins hit each at sizes that
//! need it.

#![cfg(feature = "runtime")]

mod support;

use tile_kernel::prelude::*;

/// `y = x * 2 + 1` over rows of `[M, N]`, 4 columns a thread with 16-byte
/// accesses, the row's tail element by element.
#[tile_kernel(grid = [ceil_div(N, 512), M], block = 128, fallback = "scalar")]
fn scale_rows(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let row = cta_id(1);
    let c = (cta_id(0) * 128 + thread_id(0)) * 4;
    let r = alloc_local::<f32>([1, 4]);
    let affine = |v: f32| v * 2.0 + 1.0;
    if c + 4 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![row..row + 1, c..c + 4]),
        );
        ewise(affine, r, r);
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            r,
        );
    } else {
        for k in 0..4 {
            if c + k < N {
                let e = r.slice(s![.., k..k + 1]);
                apply(
                    ptx["ld.global.f32"],
                    e,
                    x.slice(s![row..row + 1, c + k..c + k + 1]),
                );
                ewise(affine, e, e);
                apply(
                    ptx["st.global.f32"],
                    y.slice(s![row..row + 1, c + k..c + k + 1]),
                    e,
                );
            }
        }
    }
}

/// The same kernel without a fallback: other sizes are an `Err`.
#[tile_kernel(grid = [ceil_div(N, 512), M], block = 128)]
fn scale_rows_strict(x: Tensor<f32, M, N>, y: Tensor<f32, M, N>) {
    let row = cta_id(1);
    let c = (cta_id(0) * 128 + thread_id(0)) * 4;
    let r = alloc_local::<f32>([1, 4]);
    if c + 4 <= N {
        apply(
            ptx["ld.global.v4.f32"],
            r,
            x.slice(s![row..row + 1, c..c + 4]),
        );
        ewise(|v: f32| v * 2.0 + 1.0, r, r);
        apply(
            ptx["st.global.v4.f32"],
            y.slice(s![row..row + 1, c..c + 4]),
            r,
        );
    }
}

#[test]
fn the_twin_splits_the_vector_accesses_and_drops_the_requirement() {
    let (vector, scalar) = (scale_rows::PTX, scale_rows::SCALAR_PTX);
    assert!(vector.contains("ld.global.v4.f32"), "{vector}");
    assert!(!scalar.contains(".v4."), "{scalar}");
    // 4 scalar loads for the vector one, plus the tail's 4.
    assert_eq!(
        support::lines_starting(scalar, "ld.global.f32").len(),
        8,
        "{scalar}"
    );
    assert!(scalar.contains(".entry scale_rows_scalar("), "{scalar}");
    let n = |spec: &tile_kernel::lowering::spec::KernelSpec| {
        spec.symbols
            .iter()
            .find(|s| s.name == "N")
            .map(|s| s.multiple_of)
    };
    assert_eq!(n(&scale_rows::SPEC), Some(4));
    assert_eq!(n(&scale_rows::SCALAR_SPEC), Some(1));
}

#[test]
fn variant_kernels_assemble_without_spills() {
    support::assert_no_spills(&[
        ("scale_rows", scale_rows::PTX),
        ("scale_rows_scalar", scale_rows::SCALAR_PTX),
    ]);
}

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 1000) as f32 * 0.25 - 100.0).collect()
}

mod twins {
    use super::*;
    use support::gpu::on_both_devices;

    on_both_devices!(
        each_size_runs_its_variant,
        without_a_fallback_other_sizes_are_refused
    );

    fn each_size_runs_its_variant(dev: &Device) -> tile_kernel::Result<()> {
        // N % 4 == 0: the vector kernel; otherwise the scalar twin.
        for (m, n, misaligned) in [
            (3, 8, false),
            (2, 4096, false),
            (3, 7, true),
            (5, 1030, true),
            (1, 1, true),
        ] {
            let host = values(m * n);
            let x = dev.upload(&host, [m, n])?;
            let mut y = dev.zeros::<f32>([m, n])?;
            let mut launch = scale_rows::KERNEL.launch(dev)?;
            launch.push_tensor(&x)?;
            launch.push_tensor_mut(&mut y)?;
            assert_eq!(launch.misaligned(), misaligned, "{m} x {n}");
            drop(launch);
            scale_rows(dev, &x, &mut y)?;
            for (i, (got, v)) in y.download()?.iter().zip(&host).enumerate() {
                assert_eq!(
                    got.to_bits(),
                    (v * 2.0 + 1.0).to_bits(),
                    "{m} x {n}, element {i}"
                );
            }
        }
        Ok(())
    }

    fn without_a_fallback_other_sizes_are_refused(dev: &Device) -> tile_kernel::Result<()> {
        let x = dev.upload(&values(21), [3, 7])?;
        let mut y = dev.zeros::<f32>([3, 7])?;
        let error = scale_rows_strict(dev, &x, &mut y).unwrap_err();
        assert!(
            matches!(error, Error::SymbolRequirement { symbol: "N", .. }),
            "{error}"
        );
        Ok(())
    }
}
