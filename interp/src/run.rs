//! The interpreter's entry point: a prepared kernel and its launches.
//!
//! A launch runs the grid's clusters (in a kernel without a cluster, its
//! blocks: clusters of one CTA) on host threads: each host thread takes
//! whole clusters, a few at a time, and runs the threads of all the CTAs
//! of a cluster together in lockstep ([`crate::exec`]), with one copy of
//! the shared buffers per CTA ([`crate::shared`]). The CTAs of a cluster
//! are consecutive along each grid axis: CTA `(x, y, z)` of a cluster of
//! `[cx, cy, cz]` CTAs has `%cluster_ctaid` `(x % cx, y % cy, z % cz)` and
//! `%clusterid` `(x / cx, y / cy, z / cz)`; a grid that is not whole
//! clusters is refused before anything runs.

use std::sync::atomic::AtomicU8;

use tile_kernel_lowering::program::{Program, eval_launch};

use crate::prepare::DEVICE_SHARED_BYTES_PER_BLOCK;
use crate::shared::SharedLayout;

/// One kernel argument, in the order of [`Program::params`].
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// A tensor parameter's memory: exactly its bytes, row-major (the
    /// tensor's element count times its element size). Whether the kernel
    /// may write it is the program's business (`ParamKind::Tensor::written`);
    /// the caller guarantees nothing else accesses it during the run.
    Tensor(&'a [AtomicU8]),
    /// A scalar parameter's bits, zero-extended to 64 bits.
    Scalar(u64),
}

/// How to run.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Host threads to spread blocks over; 0 means all available cores.
    pub threads: usize,
    /// Stop a block once its threads together have executed this many
    /// instructions and loop iterations ([`FaultKind::WorkLimit`]; each
    /// CTA of a cluster counts its own threads); `None` runs to
    /// completion. For tests and fuzzers whose kernels may loop for a very
    /// long time.
    pub work_limit: Option<u64>,
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Blocks executed.
    pub blocks: u64,
    /// Instructions executed, summed over threads.
    pub instructions: u64,
}

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tile_kernel_lowering::program::{Borrow, ParamKind};
use tile_kernel_lowering::spec::partial_cluster_axis;

use crate::exec::{ClusterState, GridRun, Trap};
use crate::fault::{Fault, FaultKind, PrepareError};

use crate::memory::{AtomicLocks, TensorMemory};
use crate::prepare::{Plan, plan};

/// A program ready to run: every instruction resolved to its semantics.
#[derive(Debug)]
pub struct Prepared {
    program: Program,
    plan: Plan,
    param_names: Vec<String>,
    tile_names: Vec<String>,
}

/// Numbers launches for `%gridid`.
static LAUNCHES: AtomicU64 = AtomicU64::new(1);

/// Clusters (blocks, without a cluster) a host thread takes at a time.
const CHUNK: u64 = 4;

impl Prepared {
    /// Resolves every instruction of `program` to its semantics.
    pub fn new(program: Program) -> Result<Prepared, PrepareError> {
        let plan = plan(&program)?;
        let param_names = program.params.iter().map(|p| p.name.clone()).collect();
        let tile_names = program.tiles.iter().map(|t| t.name.clone()).collect();
        Ok(Prepared {
            program,
            plan,
            param_names,
            tile_names,
        })
    }

    /// The dynamic shared memory a launch may ask for, in bytes: what the
    /// interpreter lets a block have (an H100/H200's 227 KiB) less the
    /// program's static buffers rounded up to 16 bytes (the driver's count
    /// on the H200: 20 static bytes leave 232,416).
    pub fn dynamic_shared_limit(&self) -> u32 {
        let static_bytes = self.plan.static_shared_bytes.next_multiple_of(16);
        u32::try_from(DEVICE_SHARED_BYTES_PER_BLOCK.saturating_sub(static_bytes)).unwrap_or(0)
    }

    /// The block's shared buffers for a launch with these hidden symbol
    /// arguments (value / divisor), the dynamic buffer sized; and the
    /// dynamic shared memory's bytes (the program's
    /// `dynamic_shared_bytes`: the dynamic buffer's, and the static
    /// buffers' where they live there; 0 without either).
    fn shared_layouts(&self, args: &[i64]) -> Result<(Vec<SharedLayout>, usize), FaultKind> {
        let mut layouts = self.plan.shared.clone();
        let values: Vec<u64> = self
            .program
            .symbols
            .iter()
            .zip(args)
            .map(|(symbol, arg)| (*arg as u64).saturating_mul(symbol.divisor))
            .collect();
        let dynamic = self.program.shared.iter().position(|b| b.is_dynamic());
        let too_large = || {
            let limit = self.dynamic_shared_limit();
            FaultKind::Arguments(match dynamic {
                Some(index) => format!(
                    "dynamic shared buffer `{}` needs more than the {limit} bytes a block may have beside the static buffers",
                    self.program.shared[index].name
                ),
                None => format!(
                    "the static shared buffers need more than the {limit} bytes a block may have"
                ),
            })
        };
        let total = eval_launch(&self.program.dynamic_shared_bytes().0, &values)
            .and_then(|b| usize::try_from(b).ok())
            .filter(|b| *b <= self.dynamic_shared_limit() as usize)
            .ok_or_else(too_large)?;
        if let Some(index) = dynamic {
            let bytes = self.program.shared[index]
                .bytes_for(&values)
                .and_then(|b| usize::try_from(b).ok())
                .ok_or_else(too_large)?;
            layouts[index].bytes = bytes;
        }
        Ok((layouts, total))
    }

    /// The program it runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Runs `grid` blocks of the program's block shape. `symbols[i]` is the
    /// kernel value of the program's symbol `i` (the user value divided by
    /// its divisor), exactly what the GPU launch passes.
    ///
    /// The fault is boxed: it carries names, and the happy path should not
    /// pay for moving them.
    ///
    /// Clusters (without a cluster, blocks) run in parallel on
    /// `options.threads` host threads. On a fault, the one reported is the
    /// fault of the lowest-numbered cluster that has one (clusters are
    /// numbered x fastest, as `%clusterid` is; without a cluster, blocks as
    /// `%ctaid` is), and within it the first in lockstep execution order
    /// (each statement runs for the CTA of rank 0 first); memory then
    /// holds a partial result.
    pub fn run(
        &self,
        grid: [u32; 3],
        args: &[Arg<'_>],
        symbols: &[u64],
        options: &RunOptions,
    ) -> Result<RunReport, Box<Fault>> {
        let fault = |kind| Fault {
            kernel: self.program.name.clone(),
            statement: None,
            thread: None,
            kind,
        };
        let launch = self
            .launch(grid, args, symbols, options)
            .map_err(|kind| Box::new(fault(kind)))?;
        let blocks = grid.iter().map(|d| u64::from(*d)).product::<u64>();
        if blocks == 0 || launch.block.contains(&0) {
            return Ok(RunReport::default());
        }
        // The lockstep units: the grid's clusters (its blocks, without a
        // cluster), numbered x fastest (`%clusterid`).
        let clusters = launch
            .clusters()
            .iter()
            .map(|d| u64::from(*d))
            .product::<u64>();
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let first_fault: Mutex<Option<(u64, Trap)>> = Mutex::new(None);
        let instructions = AtomicU64::new(0);
        let workers = launch.workers.min(clusters.div_ceil(CHUNK) as u32).max(1);
        // Each worker's cluster state (its clusters' shared memory
        // included), allocated before any cluster runs.
        let mut states = Vec::with_capacity(workers as usize);
        for _ in 0..workers {
            states.push(ClusterState::new(&launch).map_err(|kind| Box::new(fault(kind)))?);
        }
        let work = |worker: u32, mut state: ClusterState| {
            'chunks: loop {
                let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                if start >= clusters || stop.load(Ordering::Relaxed) {
                    break;
                }
                for cluster in start..(start + CHUNK).min(clusters) {
                    if let Err(trap) = launch.run_cluster(&mut state, cluster, worker) {
                        let mut slot = first_fault.lock().unwrap_or_else(|e| e.into_inner());
                        if slot.as_ref().is_none_or(|(at, _)| cluster < *at) {
                            *slot = Some((cluster, trap));
                        }
                        // Later clusters cannot hold an earlier fault.
                        stop.store(true, Ordering::Relaxed);
                        break 'chunks;
                    }
                }
            }
            instructions.fetch_add(state.instructions, Ordering::Relaxed);
        };
        if workers == 1 {
            work(0, states.remove(0));
        } else {
            std::thread::scope(|scope| {
                for (worker, state) in (0..workers).zip(states) {
                    let work = &work;
                    scope.spawn(move || work(worker, state));
                }
            });
        }
        let first = first_fault.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some((cluster, trap)) = first {
            return Err(Box::new(Fault {
                kernel: self.program.name.clone(),
                statement: trap.statement.map(|s| self.plan.statements[s].clone()),
                thread: Some(launch.cluster_thread(cluster, trap.thread)),
                kind: trap.kind,
            }));
        }
        Ok(RunReport {
            blocks,
            instructions: instructions.into_inner(),
        })
    }

    /// Checks the arguments against the program and sets up the launch.
    fn launch<'a>(
        &'a self,
        grid: [u32; 3],
        args: &[Arg<'a>],
        symbols: &[u64],
        options: &RunOptions,
    ) -> Result<GridRun<'a>, FaultKind> {
        let params = &self.program.params;
        if args.len() != params.len() {
            return Err(FaultKind::Arguments(format!(
                "{} arguments for {} parameters",
                args.len(),
                params.len()
            )));
        }
        if symbols.len() != self.program.symbols.len() {
            return Err(FaultKind::Arguments(format!(
                "{} symbol values for {} symbols",
                symbols.len(),
                self.program.symbols.len()
            )));
        }
        // The launcher refuses such a grid before it gets here.
        if partial_cluster_axis(grid, self.program.launch.cluster).is_some() {
            return Err(FaultKind::Arguments(format!(
                "a grid of {grid:?} CTAs is not whole clusters of {:?}",
                self.program.launch.cluster
            )));
        }
        let block_threads = self
            .program
            .launch
            .block
            .iter()
            .map(|d| u64::from(*d))
            .product::<u64>();
        let mut memories = Vec::with_capacity(args.len());
        let mut scalars = Vec::with_capacity(args.len());
        for (param, arg) in params.iter().zip(args) {
            match (&param.kind, arg) {
                (ParamKind::Tensor { borrow, .. }, Arg::Tensor(bytes)) => {
                    let written = *borrow == Borrow::Exclusive;
                    let memory = TensorMemory::new(bytes, written, block_threads).ok_or_else(|| {
                        FaultKind::Arguments(format!(
                            "cannot allocate the race-detection shadow of `{}` ({} bytes: 8 per byte of the tensor)",
                            param.name,
                            bytes.len().saturating_mul(8)
                        ))
                    })?;
                    memories.push(Some(memory));
                    scalars.push(0);
                }
                (ParamKind::Scalar(_), Arg::Scalar(bits)) => {
                    memories.push(None);
                    scalars.push(*bits);
                }
                _ => {
                    return Err(FaultKind::Arguments(format!(
                        "`{}` gets the wrong kind of argument",
                        param.name
                    )));
                }
            }
        }
        let symbols = symbols
            .iter()
            .map(|value| i64::try_from(*value))
            .collect::<Result<Vec<i64>, _>>()
            .map_err(|_| FaultKind::Arguments("a symbol value above 2^63".into()))?;
        let (shared, dynamic_shared_bytes) = self.shared_layouts(&symbols)?;
        let workers = match options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        Ok(GridRun {
            plan: &self.plan,
            shared,
            dynamic_shared_bytes,
            names: &self.param_names,
            tile_names: &self.tile_names,
            grid,
            block: self.program.launch.block,
            cluster: self.program.launch.cluster,
            memories,
            scalars,
            symbols,
            locks: AtomicLocks::new(),
            workers: u32::try_from(workers).unwrap_or(u32::MAX),
            work_limit: options.work_limit,
            launch_id: LAUNCHES.fetch_add(1, Ordering::Relaxed),
            started: Instant::now(),
            timer_base: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
        })
    }
}
