//! Configuration: the tiers (GPU, smoke) and the `TILE_KERNEL_DIFF_*`
//! environment variables that shape a run (see the crate doc).

use super::*;

/// How much to run.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Rows (threads) of a non-memory variant.
    pub(crate) compute_rows: usize,
    /// Rows of `ld`/`ldu`/`st`/`prefetch` variants.
    pub(crate) memory_rows: usize,
    /// Rows of `atom`/`red` variants (one address per thread).
    pub(crate) atomic_rows: usize,
    /// Threads of a same-address atomic.
    pub(crate) shared_threads: usize,
    /// Rows (threads) of a warp collective: a multiple of [`warp::BLOCK`].
    pub(crate) warp_rows: usize,
    /// Rows (threads) of a CTA barrier: a multiple of [`BLOCK`].
    pub(crate) cta_rows: usize,
    /// Keep a memory variant only if it is the first of its form with its
    /// operand types (in shared memory or elsewhere), or every this many
    /// (`None`: all).
    pub(crate) memory_stride: Option<usize>,
    /// Opcode substrings to keep (empty: all).
    pub(crate) filter: Vec<String>,
    /// Kernels per GPU module.
    pub(crate) batch: usize,
    /// Host threads.
    pub(crate) threads: usize,
}

pub(crate) fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

impl Config {
    pub(crate) fn with_env(mut self) -> Config {
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_ROWS") {
            self.compute_rows = rows.max(1);
        }
        if let Some(stride) = env_usize("TILE_KERNEL_DIFF_MEMORY_STRIDE") {
            // Every `stride`-th memory variant (they differ only in cache
            // and ordering modifiers): for a run with little device time.
            self.memory_stride = (stride > 1).then_some(stride);
        }
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_WARP_ROWS") {
            self.warp_rows = rows;
        }
        // Whole blocks: every warp executes the collective with all its lanes.
        self.warp_rows = self.warp_rows.max(1).next_multiple_of(warp::BLOCK as usize);
        if let Some(rows) = env_usize("TILE_KERNEL_DIFF_CTA_ROWS") {
            self.cta_rows = rows;
        }
        // Whole CTAs: every thread of a barrier has a row.
        self.cta_rows = self.cta_rows.max(1).next_multiple_of(BLOCK as usize);
        if let Some(batch) = env_usize("TILE_KERNEL_DIFF_BATCH") {
            self.batch = batch.max(1);
        }
        if let Ok(filter) = std::env::var("TILE_KERNEL_DIFF_FILTER") {
            self.filter = filter
                .split(',')
                .map(|w| w.trim().to_string())
                .filter(|w| !w.is_empty())
                .collect();
        }
        self
    }

    pub(crate) fn gpu() -> Config {
        Config {
            compute_rows: 4096,
            memory_rows: 64,
            atomic_rows: 256,
            shared_threads: 1024,
            warp_rows: 32768,
            cta_rows: 16384,
            memory_stride: None,
            filter: Vec::new(),
            batch: 256,
            threads: std::thread::available_parallelism().map_or(4, |n| n.get()),
        }
        .with_env()
    }

    pub(crate) fn smoke() -> Config {
        let all = std::env::var("TILE_KERNEL_DIFF_SMOKE_ALL").is_ok_and(|v| v == "1");
        Config {
            compute_rows: 48,
            memory_rows: 4,
            atomic_rows: 4,
            shared_threads: 8,
            // The GPU test's rows: its exact inputs, checked for faults.
            warp_rows: 32768,
            // One CTA of each predicate pattern.
            cta_rows: cta::PATTERNS.len() * BLOCK as usize,
            memory_stride: if all { None } else { Some(97) },
            filter: Vec::new(),
            batch: 64,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
        .with_env()
    }
}
