//! tile-kernel inside an inference engine.
//!
//! The engine owns its CUDA context, its stream and one big device buffer
//! (a KV cache of f16/bf16 bits, allocated with plain cudarc). tile-kernel
//! kernels run on that stream (`Device::from_stream`), on views at several
//! offsets of the cache (`TensorViewMut::from_cuda`), with inputs and
//! outputs moved by asynchronous copies through pinned host buffers. No
//! call below synchronizes the stream: the host waits only when it reads a
//! pinned buffer (`as_slice`), for exactly the copies into it.
//!
//! Every result is checked bit for bit against the `half` crate.
//! `cargo run --release --example engine`. Without a CUDA driver (or with
//! `TILE_KERNEL_DEVICE=cpu`) the engine's CUDA part (its context, stream,
//! cudarc cache and pinned asynchronous copies) is skipped: the same kernels
//! run on the CPU interpreter device (`Device::cpu()`), on views at the same
//! offsets of one CPU cache tensor, with blocking copies, checked the same
//! way.

#[path = "common/conversions.rs"]
mod conversions;
#[allow(dead_code)]
#[path = "common/reference.rs"]
mod reference;

use cudarc::driver::{CudaContext, CudaSlice, PinnedHostSlice};
use tile_kernel::prelude::*;

use reference::*;

/// KV cache: 8 layers x 1024 tokens x 256 channels of 16-bit values.
const CACHE_LEN: usize = 8 * 1024 * 256;

/// The largest segment the staging tensors hold.
const MAX_SEGMENT: usize = 1 << 20;

/// The regions written: tails (1, 7, 100 003 elements), whole blocks, the
/// last bytes of the cache, and f16 next to bf16. Each offset is a multiple
/// of 8 elements (16 bytes).
const PLAN: [(Format, usize, usize); 6] = [
    (Format::F16, 0, 2048),
    (Format::F16, 2048 + 8, 7),
    (Format::Bf16, 4096, 1),
    (Format::F16, 256 * 1024 + 64, 100_003),
    (Format::Bf16, 3 * 256 * 1024, MAX_SEGMENT),
    (Format::F16, CACHE_LEN - 4096, 4096),
];

/// Which conversion writes a segment of the cache.
#[derive(Clone, Copy, Debug)]
enum Format {
    F16,
    Bf16,
}

/// One region of the cache, written from f32 inputs and read back.
struct Segment {
    format: Format,
    /// Offset into the cache, in elements (a multiple of 8: 16 bytes).
    offset: usize,
    input: Vec<f32>,
    /// The f32 inputs, then (after the run) the cache region read back as
    /// f32 (`to_f32`, for f16 segments).
    pinned_f32: PinnedHostSlice<f32>,
    /// The cache region's bits, downloaded.
    pinned_bits: PinnedHostSlice<u16>,
}

/// The engine's state: its own context, stream and cache.
struct Engine {
    ctx: std::sync::Arc<CudaContext>,
    dev: Device,
    cache: CudaSlice<u16>,
    /// Staging tensors for f32 data on its way in and out.
    input: DeviceTensor<f32>,
    output: DeviceTensor<f32>,
}

impl Engine {
    fn new() -> Result<Engine, Box<dyn std::error::Error>> {
        // The engine's own CUDA context and stream (cudarc, as an engine
        // would have them); tile-kernel queues its work on that stream.
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let cache = stream.alloc_zeros::<u16>(CACHE_LEN)?;
        let dev = Device::from_stream(stream)?;
        let input = dev.zeros::<f32>([MAX_SEGMENT])?;
        let output = dev.zeros::<f32>([MAX_SEGMENT])?;
        Ok(Engine {
            ctx,
            dev,
            cache,
            input,
            output,
        })
    }

    /// Queues: inputs -> staging (async copy), staging -> cache region
    /// (conversion kernel on a view at the segment's offset), region ->
    /// pinned bits (async copy), and for f16 the region -> f32 staging ->
    /// pinned f32 (`to_f32` kernel, async copy). Returns without waiting.
    fn run(&mut self, seg: &mut Segment) -> Result<(), Error> {
        let n = seg.input.len();
        let dev = &self.dev;
        let mut input = self.input.slice_mut(..n)?;
        input.upload_async(dev, &seg.pinned_f32)?;
        let x = input.into_view();
        let mut region =
            TensorViewMut::from_cuda(self.cache.slice_mut(seg.offset..seg.offset + n), [n])?;
        match seg.format {
            Format::F16 => conversions::to_half(dev, &x, &mut region)?,
            Format::Bf16 => conversions::to_bf16(dev, &x, &mut region)?,
        }
        region.download_async(dev, &mut seg.pinned_bits)?;
        if let Format::F16 = seg.format {
            let mut out = self.output.slice_mut(..n)?;
            conversions::to_f32(dev, &region.view(), &mut out)?;
            out.download_async(dev, &mut seg.pinned_f32)?;
        }
        Ok(())
    }
}

/// Compares one segment's results with the `half` crate; the pinned
/// buffers' `as_slice` waits for the copies into them.
fn check(seg: &Segment) -> Result<(), Box<dyn std::error::Error>> {
    let n = seg.input.len();
    let bits = &seg.pinned_bits.as_slice()?[..n];
    let back = match seg.format {
        Format::F16 => Some(&seg.pinned_f32.as_slice()?[..n]),
        Format::Bf16 => None,
    };
    check_results("GPU", seg.format, seg.offset, &seg.input, bits, back)
}

/// Compares a region's bits (and, for f16, the f32 values `to_f32` read
/// back from it) with the `half` crate; `device` names who computed them.
fn check_results(
    device: &str,
    format: Format,
    offset: usize,
    input: &[f32],
    bits: &[u16],
    back: Option<&[f32]>,
) -> Result<(), Box<dyn std::error::Error>> {
    let n = input.len();
    let reference: fn(f32) -> u16 = match format {
        Format::F16 => ref_f16,
        Format::Bf16 => ref_bf16,
    };
    let nan: fn(u16) -> bool = match format {
        Format::F16 => f16_is_nan,
        Format::Bf16 => bf16_is_nan,
    };
    let want: Vec<u16> = input.iter().map(|&x| reference(x)).collect();
    if let Some(i) = first_mismatch(bits, &want, nan) {
        return Err(format!(
            "{format:?} at offset {offset}: element {i} of {n}: {device} {:#06x}, half {:#06x}",
            bits[i], want[i]
        )
        .into());
    }
    if let Format::F16 = format {
        let back = back.ok_or("no f32 values read back from an f16 region")?;
        let want: Vec<f32> = want.iter().map(|&h| ref_f32(h)).collect();
        if let Some(i) = first_mismatch(back, &want, f32_is_nan) {
            return Err(format!(
                "to_f32 at offset {offset}: element {i} of {n}: {device} {:?}, half {:?}",
                back[i], want[i]
            )
            .into());
        }
    }
    Ok(())
}

/// Without CUDA: the same kernels on the CPU interpreter device, on views
/// at the same offsets of one CPU cache tensor. Copies are blocking there
/// (pinned buffers and asynchronous copies need a GPU).
fn run_on_cpu(why: &str) -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "{why}: skipping the engine's own CUDA context, stream, cudarc cache and pinned async copies; running the same kernels on the CPU interpreter on views of one CPU cache tensor"
    );
    let dev = Device::cpu();
    println!("device: {}", dev.name()?);
    let mut cache = dev.zeros::<u16>([CACHE_LEN])?;
    let mut input = dev.zeros::<f32>([MAX_SEGMENT])?;
    let mut output = dev.zeros::<f32>([MAX_SEGMENT])?;
    for (i, &(format, offset, n)) in PLAN.iter().enumerate() {
        let host = f32_inputs(n, 0x5eed ^ i as u64);
        let mut x = input.slice_mut(..n)?;
        x.upload_from(&host)?;
        let x = x.into_view();
        let mut region = cache.slice_mut(offset..offset + n)?;
        match format {
            Format::F16 => conversions::to_half(&dev, &x, &mut region)?,
            Format::Bf16 => conversions::to_bf16(&dev, &x, &mut region)?,
        }
        let bits = region.download()?;
        let back = match format {
            Format::F16 => {
                let mut out = output.slice_mut(..n)?;
                conversions::to_f32(&dev, &region.view(), &mut out)?;
                Some(out.download()?)
            }
            Format::Bf16 => None,
        };
        check_results("interpreter", format, offset, &host, &bits, back.as_deref())?;
        println!("  {format:?} region at offset {offset:>7}, {n:>7} elements: bit-exact");
    }

    // The same refusal as on the GPU: a view 2 bytes past a 16-byte
    // boundary.
    let x = input.slice(..64)?;
    let mut odd = cache.slice_mut(1..65)?;
    match conversions::to_half(&dev, &x, &mut odd) {
        Err(err @ Error::Misaligned { .. }) => println!("refused as expected: {err}"),
        other => return Err(format!("expected Err(Misaligned), got {other:?}").into()),
    }

    let cache = cache.download()?;
    let mut written = vec![false; CACHE_LEN];
    for &(_, offset, n) in &PLAN {
        written[offset..offset + n].fill(true);
    }
    if let Some(i) = (0..CACHE_LEN).find(|&i| !written[i] && cache[i] != 0) {
        return Err(format!("cache element {i} outside every region was written").into());
    }
    println!(
        "OK: tile-kernel kernels ran on the CPU interpreter on views at {} offsets of one {} MiB cache tensor, bit-exact against half (the engine's CUDA context and stream need an NVIDIA GPU)",
        PLAN.len(),
        (CACHE_LEN * 2) >> 20
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if !tile_kernel::driver_available() {
        return run_on_cpu("no CUDA driver found");
    }
    if std::env::var(tile_kernel_runtime::DEVICE_ENV)
        .is_ok_and(|v| v.trim().eq_ignore_ascii_case("cpu"))
    {
        return run_on_cpu("TILE_KERNEL_DEVICE=cpu");
    }
    let mut engine = Engine::new()?;
    assert_eq!(engine.dev.context()?.cu_ctx(), engine.ctx.cu_ctx());
    println!(
        "device: {}; tile-kernel queues on the engine's stream {:?} of its context {:?}",
        engine.dev.name()?,
        engine.dev.stream()?.cu_stream(),
        engine.ctx.cu_ctx()
    );

    // Regions at several offsets of the cache (`PLAN`).
    let mut segments = Vec::new();
    for (i, &(format, offset, n)) in PLAN.iter().enumerate() {
        let input = f32_inputs(n, 0x5eed ^ i as u64);
        let mut pinned_f32 = engine.dev.alloc_pinned::<f32>(n)?;
        pinned_f32.as_mut_slice()?.copy_from_slice(&input);
        let pinned_bits = engine.dev.alloc_pinned::<u16>(n)?;
        segments.push(Segment {
            format,
            offset,
            input,
            pinned_f32,
            pinned_bits,
        });
    }
    // Queue everything; nothing here waits for the GPU.
    let start = std::time::Instant::now();
    for seg in &mut segments {
        engine.run(seg)?;
    }
    println!(
        "queued {} segments ({} launches, {} async copies) in {:?}",
        segments.len(),
        segments.len()
            + segments
                .iter()
                .filter(|s| matches!(s.format, Format::F16))
                .count(),
        segments.len() * 2
            + segments
                .iter()
                .filter(|s| matches!(s.format, Format::F16))
                .count(),
        start.elapsed()
    );

    // A view that starts 2 bytes past a 16-byte boundary is refused before
    // anything is queued: the kernels' vector stores assume alignment.
    let x = engine.input.slice(..64)?;
    let mut odd = TensorViewMut::from_cuda(engine.cache.slice_mut(1..65), [64])?;
    match conversions::to_half(&engine.dev, &x, &mut odd) {
        Err(err @ Error::Misaligned { .. }) => println!("refused as expected: {err}"),
        other => return Err(format!("expected Err(Misaligned), got {other:?}").into()),
    }

    for seg in &segments {
        check(seg)?;
        println!(
            "  {:?} region at offset {:>7}, {:>7} elements: bit-exact",
            seg.format,
            seg.offset,
            seg.input.len()
        );
    }
    // The engine's stream saw all of it; the rest of the cache is untouched.
    engine.dev.synchronize()?;
    let cache = engine.dev.stream()?.clone_dtoh(&engine.cache)?;
    engine.dev.stream()?.synchronize()?;
    let mut written = vec![false; CACHE_LEN];
    for seg in &segments {
        written[seg.offset..seg.offset + seg.input.len()].fill(true);
    }
    if let Some(i) = (0..CACHE_LEN).find(|&i| !written[i] && cache[i] != 0) {
        return Err(format!("cache element {i} outside every region was written").into());
    }
    println!(
        "OK: tile-kernel kernels ran on the engine's own stream, on views at {} offsets of one {} MiB cache, with async pinned copies, bit-exact against half",
        segments.len(),
        (CACHE_LEN * 2) >> 20
    );
    Ok(())
}
