//! The input of a LLaMA block in candle with tile-kernel's fused ops in
//! place of candle's: RMSNorm (bf16) then per-token fp8 quantization of the
//! normalized activations, each checked against the same step written with
//! candle's own ops; on a CUDA device also timed against them.
//!
//! `cargo run --release -p tile-kernel-candle --example llama_block [M N]`
//! runs on candle's CPU device (the kernels on tile-kernel's interpreter;
//! default 64 x 1000 and 3 x 8192). With `--features cuda` and
//! `TILE_KERNEL_CANDLE_DEVICE=cuda` it runs on candle's CUDA device 0
//! (default 16384 x 4096, 8192 x 8192, 64 x 4096 and 1 x 4096) and prints
//! the times, and the op's time against the same kernel launched directly.

#[path = "../../examples/common/cta.rs"]
mod cta;
#[path = "common/llama.rs"]
mod llama;

use std::time::Instant;

use candle::{D, DType, Device, Tensor};
use llama::{QuantizePerToken, RmsNorm};
use tile_kernel_candle::{CandleOp, call};

/// candle's RMSNorm from its ops, computed in f32, rounded to bf16 once.
fn candle_rms_norm(x: &Tensor, w: &Tensor, eps: f32) -> candle::Result<Tensor> {
    let x = x.to_dtype(DType::F32)?;
    let r = (x.sqr()?.mean_keepdim(D::Minus1)? + f64::from(eps))?
        .sqrt()?
        .recip()?;
    x.broadcast_mul(&r)?
        .broadcast_mul(&w.to_dtype(DType::F32)?)?
        .to_dtype(DType::BF16)
}

/// candle's per-token fp8 quantization from its ops, up to the conversion:
/// the values divided by their row's scale (f32), and the f32 scales.
fn candle_quantize_scaled(x: &Tensor) -> candle::Result<(Tensor, Tensor)> {
    let x = x.to_dtype(DType::F32)?;
    let floor = f64::from(1.0f32 / (448.0 * 512.0));
    let scales = x
        .abs()?
        .max_keepdim(1)?
        .broadcast_div(&Tensor::new(448f32, x.device())?)?
        .maximum(floor)?;
    Ok((x.broadcast_div(&scales)?, scales.flatten_all()?))
}

/// candle's conversion of `scaled` to e4m3. candle 0.11.1's CUDA device
/// cannot convert to `F8E4M3`: it looks up the kernel `cast_f32_f8e4m3`
/// (`DType::as_str` is `f8e4m3`), which its kernels name
/// `cast_f32_f8_e4m3` (the driver answers "named symbol not found"), so a
/// CUDA tensor is converted on candle's CPU device.
fn candle_to_e4m3(scaled: &Tensor) -> candle::Result<Tensor> {
    scaled.to_device(&Device::Cpu)?.to_dtype(DType::F8E4M3)
}

/// Milliseconds per run of `step`, over `runs` runs after one warm-up,
/// waiting for the device at both ends.
fn time(
    dev: &Device,
    runs: u32,
    mut step: impl FnMut() -> candle::Result<()>,
) -> candle::Result<f64> {
    step()?;
    dev.synchronize()?;
    let start = Instant::now();
    for _ in 0..runs {
        step()?;
    }
    dev.synchronize()?;
    Ok(start.elapsed().as_secs_f64() * 1e3 / f64::from(runs))
}

fn check(dev: &Device, m: usize, n: usize) -> candle::Result<()> {
    let eps = 1e-6f32;
    let x = (Tensor::randn(0f32, 1.0, (m, n), dev)? * 3.0)?.to_dtype(DType::BF16)?;
    let w = (Tensor::randn(0f32, 0.1, n, dev)? + 1.0)?.to_dtype(DType::BF16)?;
    let rms = CandleOp(RmsNorm { eps });

    let h = x.apply_op2_no_bwd(&w, &rms)?;
    let outputs = call(&QuantizePerToken, &[&h])?;
    let [q, scales] = &outputs[..] else {
        candle::bail!("the quantizer wrote {} tensors, not 2", outputs.len());
    };

    // RMSNorm: candle's f32 result and ours, both rounded once to bf16,
    // differ by at most one bf16 ulp (near rounding ties).
    let ours = h.flatten_all()?.to_vec1::<half::bf16>()?;
    let theirs = candle_rms_norm(&x, &w, eps)?
        .flatten_all()?
        .to_vec1::<half::bf16>()?;
    let mut differ = 0usize;
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            differ += 1;
            let (a, b) = (a.to_bits(), b.to_bits());
            if a >> 15 != b >> 15 || a.abs_diff(b) > 1 {
                candle::bail!(
                    "RMSNorm, element {i}: {a:#06x} is more than one bf16 ulp from candle's {b:#06x}"
                );
            }
        }
    }

    // Quantization of the same activations: bit for bit.
    let (scaled, want_scales) = candle_quantize_scaled(&h)?;
    let want_q: Vec<u8> = candle_to_e4m3(&scaled)?
        .flatten_all()?
        .to_vec1::<float8::F8E4M3>()?
        .iter()
        .map(|v| v.to_bits())
        .collect();
    if q.flatten_all()?.to_vec1::<u8>()? != want_q {
        candle::bail!("quantization: the e4m3 bytes differ from candle's");
    }
    let bits = |t: &Tensor| -> candle::Result<Vec<u32>> {
        Ok(t.to_vec1::<f32>()?.iter().map(|v| v.to_bits()).collect())
    };
    if bits(scales)? != bits(&want_scales)? {
        candle::bail!("quantization: the scales differ from candle's");
    }
    println!(
        "OK: {m} x {n} on {:?}: RMSNorm within one bf16 ulp of candle's ops ({differ} of {} one ulp off), the quantizer's e4m3 bytes and scales equal candle's bit for bit",
        dev.location(),
        m * n
    );

    if dev.is_cuda() {
        let runs = 20;
        let fused = time(dev, runs, || {
            let h = x.apply_op2_no_bwd(&w, &rms)?;
            call(&QuantizePerToken, &[&h]).map(drop)
        })?;
        // candle's ops up to the e4m3 conversion, which its CUDA device
        // lacks (`candle_to_e4m3`): this understates their time.
        let composite = time(dev, runs, || {
            let h = candle_rms_norm(&x, &w, eps)?;
            candle_quantize_scaled(&h).map(drop)
        })?;
        let rms_only = time(dev, runs, || x.apply_op2_no_bwd(&w, &rms).map(drop))?;
        let rms_candle = time(dev, runs, || candle_rms_norm(&x, &w, eps).map(drop))?;
        println!(
            "{m} x {n}: RMSNorm + quantize: tile-kernel ops {fused:.4} ms, candle's ops without the e4m3 conversion {composite:.4} ms ({:.2}x); RMSNorm alone {rms_only:.4} ms vs {rms_candle:.4} ms ({:.2}x)",
            composite / fused,
            rms_candle / rms_only
        );
        #[cfg(feature = "cuda")]
        raw::compare(dev, &x, &w, &rms)?;
    }
    Ok(())
}

/// The op's overhead over launching the same kernel directly.
#[cfg(feature = "cuda")]
mod raw {
    use candle::{Device, Storage, Tensor};
    use tile_kernel::{TensorView, TensorViewMut};
    use tile_kernel_candle::CandleOp;

    use super::llama::{RmsNorm, rms_norm_4k, rms_norm_8k};
    use super::time;

    /// Times RMSNorm launched through tile-kernel's own launcher on the
    /// stream of candle's device, into an output allocated (zeroed) through
    /// candle's device as the op does (`raw`), and into one allocated once
    /// (`launch only`); prints the op's time (allocation included)
    /// against both.
    pub fn compare(
        dev: &Device,
        x: &Tensor,
        w: &Tensor,
        rms: &CandleOp<RmsNorm>,
    ) -> candle::Result<()> {
        let Device::Cuda(cuda) = dev else {
            return Ok(());
        };
        let (m, n) = x.dims2()?;
        let tk =
            tile_kernel::Device::from_stream(cuda.cuda_stream()).map_err(candle::Error::wrap)?;
        let (xs, _) = x.storage_and_layout();
        let (ws, _) = w.storage_and_layout();
        let (Storage::Cuda(xs), Storage::Cuda(ws)) = (&*xs, &*ws) else {
            candle::bail!("the inputs are not on candle's CUDA device");
        };
        let xv = TensorView::from_slice(xs.as_cuda_slice::<half::bf16>()?, [m, n])
            .map_err(candle::Error::wrap)?;
        let wv = TensorView::from_slice(ws.as_cuda_slice::<half::bf16>()?, [n])
            .map_err(candle::Error::wrap)?;
        let eps = rms.0.eps;
        // The kernels' own launchers, as a tile-kernel user calls them.
        let launch = |y: &mut candle::cuda_backend::cudarc::driver::CudaSlice<half::bf16>| {
            let mut yv = TensorViewMut::from_slice_mut(y, [m, n]).map_err(candle::Error::wrap)?;
            if n <= 4096 {
                rms_norm_4k(&tk, &xv, &wv, &mut yv, eps)
            } else {
                rms_norm_8k(&tk, &xv, &wv, &mut yv, eps)
            }
            .map_err(candle::Error::wrap)
        };
        // Alternated, three times each, the fastest kept: at small sizes
        // the host's time per launch is what is compared.
        let (mut op, mut raw) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            op = op.min(time(dev, 200, || x.apply_op2_no_bwd(w, rms).map(drop))?);
            raw = raw.min(time(dev, 200, || {
                let mut y = cuda.alloc_zeros::<half::bf16>(m * n)?;
                launch(&mut y)
            })?);
        }
        let mut y = cuda.alloc_zeros::<half::bf16>(m * n)?;
        let launch_only = time(dev, 200, || launch(&mut y))?;
        println!(
            "{m} x {n}: RMSNorm as a candle op {op:.4} ms, launched directly into a fresh zeroed output {raw:.4} ms (op / direct {:.3}x), into one output allocated once {launch_only:.4} ms",
            op / raw
        );
        Ok(())
    }
}

fn main() -> candle::Result<()> {
    let dev = match std::env::var("TILE_KERNEL_CANDLE_DEVICE").as_deref() {
        Ok("cuda") => Device::new_cuda(0)?,
        _ => Device::Cpu,
    };
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = match args[..] {
        [m, n] => vec![(m, n)],
        _ if dev.is_cuda() => vec![(16384, 4096), (8192, 8192), (64, 4096), (1, 4096)],
        _ => vec![(64, 1000), (3, 8192)],
    };
    for (m, n) in sizes {
        check(&dev, m, n)?;
    }
    Ok(())
}
