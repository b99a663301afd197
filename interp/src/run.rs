//! The interpreter's entry point: a prepared kernel and its launches.

use std::sync::atomic::AtomicU8;

use tile_kernel_lowering::program::Program;

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
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Blocks executed.
    pub blocks: u64,
    /// Instructions executed, summed over threads.
    pub instructions: u64,
}

use crate::fault::{Fault, PrepareError};

/// A program ready to run: every instruction resolved to its semantics.
#[derive(Debug)]
pub struct Prepared {
    program: Program,
}

impl Prepared {
    /// Resolves every instruction of `program` to its semantics.
    pub fn new(program: Program) -> Result<Prepared, PrepareError> {
        Ok(Prepared { program })
    }

    /// The program it runs.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Runs `grid` blocks of the program's block shape. `symbols[i]` is the
    /// kernel value of the program's symbol `i` (the user value divided by
    /// its divisor), exactly what the GPU launch passes.
    pub fn run(
        &self,
        grid: [u32; 3],
        args: &[Arg<'_>],
        symbols: &[u64],
        options: &RunOptions,
    ) -> Result<RunReport, Fault> {
        let _ = (grid, args, symbols, options);
        Err(Fault {
            kernel: self.program.name.clone(),
            statement: None,
            thread: None,
            kind: crate::fault::FaultKind::Arguments("not implemented yet".into()),
        })
    }
}
