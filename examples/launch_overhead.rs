//! Host-side launch overhead: the generated `narrow_pairs` launcher against a
//! raw cudarc launch of the same PTX text, in one binary on one stream.
//!
//! Each round queues `LAUNCHES` launches of the 1-thread seed kernel and
//! then synchronizes; the two ways alternate for `ROUNDS` rounds after a
//! warm-up. Reported per launch: the enqueue loop alone, and the loop plus
//! the final synchronize. The ratio compares medians over rounds.
//!
//! `cargo run --release --example launch_overhead`. On the CPU interpreter
//! device (no GPU) there is no driver launch to time: it runs the launcher
//! once and checks its output bit for bit.

#[path = "narrow_pairs.rs"]
#[allow(dead_code)]
mod narrow_pairs_example;

use std::time::{Duration, Instant};

use narrow_pairs_example::narrow_pairs;
use tile_kernel::prelude::*;
use tile_kernel_runtime::cudarc::driver::{LaunchConfig, PushKernelArg};
use tile_kernel_runtime::cudarc::nvrtc::Ptx;

const WARMUP: usize = 2_000;
const LAUNCHES: usize = 20_000;
const ROUNDS: usize = 7;

/// (enqueue loop, loop + synchronize) for one round of `LAUNCHES` launches.
fn time_round(
    dev: &Device,
    mut launch: impl FnMut() -> Result<(), Error>,
) -> Result<(Duration, Duration), Error> {
    dev.synchronize()?;
    let start = Instant::now();
    for _ in 0..LAUNCHES {
        launch()?;
    }
    let queued = start.elapsed();
    dev.synchronize()?;
    Ok((queued, start.elapsed()))
}

fn per_launch_us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / LAUNCHES as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The packed words `narrow_pairs` must produce for `x`, via `half`.
fn expected(x: &[f32]) -> Vec<u32> {
    x.chunks(2)
        .map(|p| {
            u32::from(f16::from_f32(p[0]).to_bits())
                | (u32::from(f16::from_f32(p[1]).to_bits()) << 16)
        })
        .collect()
}

fn main() -> Result<(), Error> {
    println!("{}", narrow_pairs::PTX);
    // The GPU when a CUDA driver is present, else the CPU interpreter
    // (`TILE_KERNEL_DEVICE=cpu|gpu` decides instead when set).
    let dev = Device::new(0)?;
    println!("device: {}", dev.name()?);
    let x: Vec<f32> = (0..8).map(|i| -2.0 + 4.0 * i as f32 / 7.0).collect();
    let a = dev.upload(&x, [4, 2])?;
    let mut out = dev.zeros::<u32>([4, 1])?;

    if dev.is_cpu() {
        // No driver launches to time: run the launcher once on the
        // interpreter and check its output.
        narrow_pairs(&dev, &a, &mut out)?;
        let words = out.download()?;
        let expected = expected(&x);
        if words != expected {
            eprintln!("MISMATCH: output {words:#x?}, expected {expected:#x?}");
            std::process::exit(1);
        }
        println!(
            "OK: results match on the CPU interpreter ({} words bit for bit); launch overhead needs an NVIDIA GPU",
            words.len()
        );
        return Ok(());
    }

    // The raw path: same PTX text, loaded and launched through cudarc alone.
    let module = dev
        .context()?
        .load_module(Ptx::from_src(narrow_pairs::PTX))
        .map_err(|source| Error::Driver {
            during: "loading the raw module",
            source,
        })?;
    let function = module
        .load_function(narrow_pairs::ENTRY)
        .map_err(|source| Error::Driver {
            during: "loading the raw function",
            source,
        })?;
    let stream = dev.stream()?.clone();
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let raw = |a: &DeviceTensor<f32>, out: &mut DeviceTensor<u32>| -> Result<(), Error> {
        let mut builder = stream.launch_builder(&function);
        builder.arg(a.cuda_slice()?);
        builder.arg(out.cuda_slice_mut()?);
        // SAFETY: `narrow_pairs` takes two pointers, reads 8 f32 from the
        // first and writes 4 u32 to the second; both tensors have exactly
        // those shapes.
        unsafe { builder.launch(cfg) }
            .map(|_| ())
            .map_err(|source| Error::Driver {
                during: "raw launch",
                source,
            })
    };

    for _ in 0..WARMUP {
        narrow_pairs(&dev, &a, &mut out)?;
        raw(&a, &mut out)?;
    }
    dev.synchronize()?;

    let (mut gen_q, mut gen_t, mut raw_q, mut raw_t) = (vec![], vec![], vec![], vec![]);
    for round in 0..ROUNDS {
        // Alternate which goes first, so drift does not favour one side.
        let mut one = |generated: bool| -> Result<(), Error> {
            if generated {
                let (q, t) = time_round(&dev, || narrow_pairs(&dev, &a, &mut out))?;
                gen_q.push(per_launch_us(q));
                gen_t.push(per_launch_us(t));
            } else {
                let (q, t) = time_round(&dev, || raw(&a, &mut out))?;
                raw_q.push(per_launch_us(q));
                raw_t.push(per_launch_us(t));
            }
            Ok(())
        };
        let first = round % 2 == 0;
        one(first)?;
        one(!first)?;
        println!(
            "round {round}: generated {:.3} us/launch queued, {:.3} with sync | raw cudarc {:.3} queued, {:.3} with sync",
            gen_q[round], gen_t[round], raw_q[round], raw_t[round]
        );
    }
    let (gq, gt, rq, rt) = (median(gen_q), median(gen_t), median(raw_q), median(raw_t));
    println!("launches per round: {LAUNCHES}, rounds: {ROUNDS}, warm-up: {WARMUP} each");
    println!(
        "median generated launcher: {gq:.3} us/launch enqueue, {gt:.3} us/launch incl. final sync"
    );
    println!(
        "median raw cudarc launch:  {rq:.3} us/launch enqueue, {rt:.3} us/launch incl. final sync"
    );
    println!(
        "ratio generated/raw: {:.3} (enqueue), {:.3} (incl. sync)",
        gq / rq,
        gt / rt
    );
    println!(
        "narrow_pairs::KERNEL.load_count() = {}",
        narrow_pairs::KERNEL.load_count()
    );

    let words = out.download()?;
    let expected = expected(&x);
    if words != expected || narrow_pairs::KERNEL.load_count() != 1 {
        eprintln!("MISMATCH: output {words:#x?}, expected {expected:#x?}");
        std::process::exit(1);
    }
    println!("OK: output still matches the host reference");
    Ok(())
}
