//! The ops against candle's own ops and host references, and every error
//! path, on candle's devices. Each test runs twice: `on_cpu` on candle's
//! CPU device (the kernel on tile-kernel's CPU interpreter), always, and
//! `on_gpu` on candle's CUDA device, built with the `cuda` feature and
//! ignored unless asked for (`--include-ignored` on a GPU machine).

#[path = "../../examples/common/cta.rs"]
mod cta;
#[path = "../examples/common/llama.rs"]
mod llama;

use candle::{D, DType, Device, IndexOp, Tensor};
use float8::F8E4M3;
use half::bf16;
use llama::{QuantizePerToken, RmsNorm};
use tile_kernel::prelude::*;
use tile_kernel_candle::{CandleOp, Kernel, Scalar, TileOp, call};

/// `y = x * s`, one element per thread.
#[tile_kernel(grid = ceil_div(N, 128), block = 128)]
fn scale_f32(x: Tensor<f32, N>, y: Tensor<f32, N>, s: f32) {
    let i = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["mul.rn.f32"], v, v, s);
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// The same, for a kernel compiled for an architecture newer than the
/// H200's sm_90: its launch must be refused before loading.
#[tile_kernel(grid = ceil_div(N, 128), block = 128, arch = "sm_100a")]
fn scale_sm100(x: Tensor<f32, N>, y: Tensor<f32, N>, s: f32) {
    let i = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    if i < N {
        apply(ptx["ld.global.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["mul.rn.f32"], v, v, s);
        apply(ptx["st.global.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// `x * s` through `scale_f32` (or `kernel`), optionally copying strided inputs.
struct Scale {
    s: f32,
    kernel: &'static Kernel,
    copy_strided: bool,
}

impl Scale {
    fn new(s: f32) -> Scale {
        Scale {
            s,
            kernel: &scale_f32::KERNEL,
            copy_strided: false,
        }
    }
}

impl TileOp for Scale {
    fn name(&self) -> &'static str {
        "scale"
    }
    fn kernel(&self, _inputs: &[&[usize]]) -> candle::Result<&'static Kernel> {
        Ok(self.kernel)
    }
    fn scalars(&self) -> Vec<Scalar> {
        vec![Scalar::F32(self.s)]
    }
    fn copy_strided_inputs(&self) -> bool {
        self.copy_strided
    }
}

/// Deterministic values in `(-scale, scale)`, every 7th row all zero when
/// `zero_rows`, one element a row 4x its others.
fn values(m: usize, n: usize, seed: u64, scale: f32, zero_rows: bool) -> Vec<f32> {
    let mut state = seed;
    (0..m * n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (r, c) = (i / n, i % n);
            let unit = (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
            let peak = if c == (r * 37) % n { 4.0 } else { 1.0 };
            let row_scale = if zero_rows && r % 7 == 6 {
                0.0
            } else {
                scale * 10f32.powi((r % 3) as i32)
            };
            unit * peak * row_scale
        })
        .collect()
}

fn bf16_tensor(m: usize, n: usize, seed: u64, dev: &Device) -> candle::Result<Tensor> {
    Tensor::from_vec(values(m, n, seed, 1.0, true), (m, n), dev)?.to_dtype(DType::BF16)
}

/// candle's own RMSNorm from its ops, in f32, rounded to bf16 once.
fn candle_rms_norm(x: &Tensor, w: &Tensor, eps: f32) -> candle::Result<Tensor> {
    let x = x.to_dtype(DType::F32)?;
    let ms = x.sqr()?.mean_keepdim(D::Minus1)?;
    let r = (ms + f64::from(eps))?.sqrt()?.recip()?;
    x.broadcast_mul(&r)?
        .broadcast_mul(&w.to_dtype(DType::F32)?)?
        .to_dtype(DType::BF16)
}

/// Checks `y` (bf16 [M, N]) against candle's ops and an f64 reference:
/// equal to the f64 value rounded to bf16, except one ulp where the value
/// lies within 1e-5 of a rounding tie (the kernel's f32 sum is within 1e-5
/// relative of the f64 one); candle's f32 result obeys the same bound, so
/// the two differ by at most one ulp, only there.
fn check_rms_norm(x: &Tensor, w: &Tensor, y: &Tensor, eps: f32) -> candle::Result<()> {
    let want = candle_rms_norm(x, w, eps)?.to_vec2::<bf16>()?;
    let (hx, hw) = (x.to_vec2::<bf16>()?, w.to_vec1::<bf16>()?);
    let got = y.to_vec2::<bf16>()?;
    assert_eq!(got.len(), hx.len());
    for (r, row) in hx.iter().enumerate() {
        let n = row.len();
        let ss: f64 = row.iter().map(|v| f64::from(v.to_f32()).powi(2)).sum();
        let rs = 1.0 / (ss / n as f64 + f64::from(eps)).sqrt();
        for c in 0..n {
            let exact = f64::from(row[c].to_f32()) * rs * f64::from(hw[c].to_f32());
            let near = [
                bf16::from_f64(exact),
                bf16::from_f64(exact * (1.0 - 1e-5)),
                bf16::from_f64(exact * (1.0 + 1e-5)),
            ];
            let (have, candle) = (got[r][c], want[r][c]);
            assert!(
                near.contains(&have),
                "row {r}, column {c}: kernel {have}, f64 reference {exact:e}"
            );
            assert!(
                have == candle || near.contains(&candle),
                "row {r}, column {c}: kernel {have}, candle {candle}"
            );
        }
    }
    Ok(())
}

/// RMSNorm as a `CustomOp2` matches candle's ops, for both kernels.
fn rms_norm_matches_candle(dev: &Device) -> candle::Result<()> {
    for (m, n) in [(5, 8), (64, 1000), (3, 8192)] {
        let x = bf16_tensor(m, n, 0x9e37_79b9_7f4a_7c15, dev)?;
        let w = (Tensor::from_vec(values(1, n, 7, 0.5, false), n, dev)? + 1.0)?
            .to_dtype(DType::BF16)?;
        let eps = 1e-6;
        let y = x.apply_op2_no_bwd(&w, &CandleOp(RmsNorm { eps }))?;
        assert_eq!(y.dims(), &[m, n]);
        assert_eq!(y.dtype(), DType::BF16);
        assert_eq!(y.device().location(), dev.location());
        check_rms_norm(&x, &w, &y, eps)?;
    }
    Ok(())
}

/// Per-token quantization through `call` (two outputs) equals candle's
/// ops bit for bit: the scale from `max_keepdim`, a division and a
/// maximum, the bytes from candle's conversion to F8E4M3.
fn quantize_matches_candle(dev: &Device) -> candle::Result<()> {
    for (m, n) in [(7, 8), (64, 1000), (3, 8192)] {
        let x = bf16_tensor(m, n, 0x2545_f491_4f6c_dd1d, dev)?;
        let outputs = call(&QuantizePerToken, &[&x])?;
        let [q, scales] = &outputs[..] else {
            panic!("two outputs expected, got {}", outputs.len());
        };
        assert_eq!((q.dims(), q.dtype()), (&[m, n][..], DType::U8));
        assert_eq!((scales.dims(), scales.dtype()), (&[m][..], DType::F32));
        let xf = x.to_dtype(DType::F32)?;
        let absmax = xf.abs()?.max_keepdim(1)?;
        let floor = f64::from(1.0f32 / (448.0 * 512.0));
        let want_scales = absmax
            .broadcast_div(&Tensor::new(448f32, dev)?)?
            .maximum(floor)?;
        // candle 0.11.1's CUDA device cannot convert to F8E4M3 (it looks up
        // `cast_f32_f8e4m3`, its kernels name it `cast_f32_f8_e4m3`): the
        // divided values convert on candle's CPU device.
        let want_q = xf
            .broadcast_div(&want_scales)?
            .to_device(&candle::Device::Cpu)?
            .to_dtype(DType::F8E4M3)?;
        let want_scales: Vec<u32> = want_scales
            .flatten_all()?
            .to_vec1::<f32>()?
            .iter()
            .map(|s| s.to_bits())
            .collect();
        let got_scales: Vec<u32> = scales
            .to_vec1::<f32>()?
            .iter()
            .map(|s| s.to_bits())
            .collect();
        assert_eq!(got_scales, want_scales, "{m} x {n}: scales");
        let want_q: Vec<u8> = want_q
            .flatten_all()?
            .to_vec1::<F8E4M3>()?
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(
            q.flatten_all()?.to_vec1::<u8>()?,
            want_q,
            "{m} x {n}: e4m3 bytes"
        );
    }
    Ok(())
}

/// A `CustomOp1` with a scalar equals candle's multiplication, including
/// an empty tensor and sizes that are not a multiple of the block.
fn scale_matches_candle(dev: &Device) -> candle::Result<()> {
    for n in [0, 1, 127, 1000] {
        let x = Tensor::from_vec(values(1, n, 3, 100.0, false), n, dev)?;
        let y = x.apply_op1_no_bwd(&CandleOp(Scale::new(-1.5)))?;
        let want = x.broadcast_mul(&Tensor::new(-1.5f32, dev)?)?;
        let bits = |t: &Tensor| -> candle::Result<Vec<u32>> {
            Ok(t.to_vec1::<f32>()?.iter().map(|v| v.to_bits()).collect())
        };
        assert_eq!(bits(&y)?, bits(&want)?, "n = {n}");
    }
    Ok(())
}

/// Inputs at an offset of their storage (rows of a bigger tensor) run as
/// views; their result equals the same rows of the whole op's.
fn offset_inputs_work(dev: &Device) -> candle::Result<()> {
    let x = bf16_tensor(6, 1000, 11, dev)?;
    let w = Tensor::ones(1000, DType::BF16, dev)?;
    let op = CandleOp(RmsNorm { eps: 1e-5 });
    let whole = x.apply_op2_no_bwd(&w, &op)?;
    // Rows 2..5 start 2000 bf16 = 4000 bytes in: 16-byte aligned.
    let rows = x.i(2..5)?;
    assert_eq!(rows.layout().start_offset(), 2000);
    let part = rows.apply_op2_no_bwd(&w, &op)?;
    assert_eq!(part.to_vec2::<bf16>()?, whole.i(2..5)?.to_vec2::<bf16>()?);
    // A 1-D view 4 f32 = 16 bytes in (launches take views that start
    // 16-byte aligned, for every kernel).
    let v = Tensor::from_vec(values(1, 100, 5, 1.0, false), 100, dev)?;
    let y = v
        .narrow(0, 4, 90)?
        .apply_op1_no_bwd(&CandleOp(Scale::new(2.0)))?;
    let want = v
        .narrow(0, 4, 90)?
        .broadcast_mul(&Tensor::new(2f32, dev)?)?;
    assert_eq!(y.to_vec1::<f32>()?, want.to_vec1::<f32>()?);
    Ok(())
}

/// The error text of `result`, which must be an error (without the
/// backtrace candle adds when `RUST_BACKTRACE` is set).
fn error_text<T>(result: candle::Result<T>) -> String {
    let mut error = match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    while let candle::Error::WithBacktrace { inner, .. } = error {
        error = *inner;
    }
    error.to_string()
}

/// A view whose start is not 16-byte aligned is the launcher's
/// `Misaligned` error, on both devices (the kernel's vector loads need it).
fn misaligned_view_is_the_launchers_error(dev: &Device) -> candle::Result<()> {
    let x = bf16_tensor(3, 8, 1, dev)?;
    let w = Tensor::ones(8, DType::BF16, dev)?;
    // Elements 4..20 as [2, 8]: 8 bytes past the start.
    let shifted = x.flatten_all()?.narrow(0, 4, 16)?.reshape((2, 8))?;
    let text = error_text(shifted.apply_op2_no_bwd(&w, &CandleOp(RmsNorm { eps: 1e-6 })));
    assert!(
        text.starts_with("kernel `rms_norm_4k`: tensor `x` starts at"),
        "{text}"
    );
    assert!(text.contains("16-byte aligned"), "{text}");
    Ok(())
}

/// A transposed input is an error naming it and its strides; with the
/// opt-in it is copied and the result equals the contiguous input's.
fn strided_input_is_an_error_unless_copied(dev: &Device) -> candle::Result<()> {
    let x = Tensor::from_vec(values(4, 6, 9, 1.0, false), (4, 6), dev)?;
    let strided = x.t()?.i(0)?; // column 0: 4 elements, stride 6
    assert_eq!(strided.layout().stride(), &[6]);
    let text = error_text(strided.apply_op1_no_bwd(&CandleOp(Scale::new(3.0))));
    assert_eq!(
        text,
        "op `scale`: input 0 (`x` of kernel `scale_f32`) has shape [4] with strides [6], but the kernel takes a contiguous row-major tensor: call `.contiguous()` on it first, or let the op copy strided inputs (`TileOp::copy_strided_inputs`)"
    );
    let copying = Scale {
        copy_strided: true,
        ..Scale::new(3.0)
    };
    let y = strided.apply_op1_no_bwd(&CandleOp(copying))?;
    let want = strided
        .contiguous()?
        .broadcast_mul(&Tensor::new(3f32, dev)?)?;
    assert_eq!(y.to_vec1::<f32>()?, want.to_vec1::<f32>()?);
    Ok(())
}

/// Wrong dtypes, disagreeing size symbols, wrong arities: the launcher's
/// errors, or the op's naming what the kernel takes.
fn mismatches_are_errors(dev: &Device) -> candle::Result<()> {
    let x = Tensor::zeros((2, 8), DType::F32, dev)?;
    let w = Tensor::ones(8, DType::BF16, dev)?;
    let rms = CandleOp(RmsNorm { eps: 1e-6 });
    let text = error_text(x.apply_op2_no_bwd(&w, &rms));
    assert!(text.starts_with("kernel `rms_norm_4k`"), "{text}");
    assert!(
        text.contains("`x`") && text.contains("bf16") && text.contains("f32"),
        "{text}"
    );
    // w has 16 columns, x 8: N is bound twice.
    let x = x.to_dtype(DType::BF16)?;
    let w16 = Tensor::ones(16, DType::BF16, dev)?;
    let text = error_text(x.apply_op2_no_bwd(&w16, &rms));
    assert!(text.starts_with("kernel `rms_norm_4k`"), "{text}");
    assert!(
        text.contains('N') && text.contains("16") && text.contains('8'),
        "{text}"
    );
    // One input for a kernel that reads two.
    let text = error_text(x.apply_op1_no_bwd(&rms));
    assert_eq!(
        text,
        "op `tile-kernel-rms-norm`: kernel `rms_norm_4k` reads 2 tensors (x, w), but the op was given 1"
    );
    // A kernel with two outputs as a CustomOp (one output).
    let text = error_text(x.apply_op1_no_bwd(&CandleOp(QuantizePerToken)));
    assert_eq!(
        text,
        "op `tile-kernel-quantize-per-token`: kernel `quantize_4k` writes 2 tensors (q, scales), but a candle CustomOp returns one: run it with `tile_kernel_candle::call`"
    );
    // Scalars the kernel does not take.
    struct NoEps;
    impl TileOp for NoEps {
        fn name(&self) -> &'static str {
            "no-eps"
        }
        fn kernel(&self, _inputs: &[&[usize]]) -> candle::Result<&'static Kernel> {
            Ok(&llama::rms_norm_4k::KERNEL)
        }
    }
    let text = error_text(x.apply_op2_no_bwd(&w, &CandleOp(NoEps)));
    assert_eq!(
        text,
        "op `no-eps`: kernel `rms_norm_4k` takes 1 scalar arguments, but the op gives 0"
    );
    Ok(())
}

/// Runs each check as `on_cpu` (candle's CPU device, always) and `on_gpu`
/// (candle's CUDA device; with the `cuda` feature, ignored by default).
macro_rules! twins {
    ($($check:ident),* $(,)?) => {
        mod on_cpu {
            $(
                #[test]
                fn $check() -> candle::Result<()> {
                    super::$check(&candle::Device::Cpu)
                }
            )*
        }
        #[cfg(feature = "cuda")]
        mod on_gpu {
            $(
                #[test]
                #[ignore = "needs an NVIDIA GPU (run with --include-ignored)"]
                fn $check() -> candle::Result<()> {
                    super::$check(&candle::Device::new_cuda(0)?)
                }
            )*
        }
    };
}

twins!(
    rms_norm_matches_candle,
    quantize_matches_candle,
    scale_matches_candle,
    offset_inputs_work,
    misaligned_view_is_the_launchers_error,
    strided_input_is_an_error_unless_copied,
    mismatches_are_errors,
);

/// The CPU interpreter runs kernels of every target; a GPU older than the
/// kernel's is refused before the module is loaded, naming both.
#[test]
fn a_newer_target_runs_on_the_cpu_device() -> candle::Result<()> {
    let x = Tensor::new(&[1f32, 2.0], &Device::Cpu)?;
    let op = Scale {
        kernel: &scale_sm100::KERNEL,
        ..Scale::new(2.0)
    };
    let y = x.apply_op1_no_bwd(&CandleOp(op))?;
    assert_eq!(y.to_vec1::<f32>()?, [2.0, 4.0]);
    Ok(())
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs an NVIDIA GPU older than sm_100 (run with --include-ignored)"]
fn a_newer_target_is_refused_on_the_gpu() -> candle::Result<()> {
    let dev = Device::new_cuda(0)?;
    let x = Tensor::new(&[1f32, 2.0], &dev)?;
    let op = Scale {
        kernel: &scale_sm100::KERNEL,
        ..Scale::new(2.0)
    };
    let text = error_text(x.apply_op1_no_bwd(&CandleOp(op)));
    assert!(text.starts_with("kernel `scale_sm100`"), "{text}");
    assert!(text.contains("sm_100a") && text.contains("sm_90"), "{text}");
    assert_eq!(scale_sm100::KERNEL.load_count(), 0);
    Ok(())
}
