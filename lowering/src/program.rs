//! The validated kernel: every `apply` expanded to one instruction per repeat
//! coordinate, every operand bound to concrete storage.
//!
//! Guarantee from [`crate::check`]: every instruction here is a legal form on
//! the program's target, every register lane lies inside its tile and either
//! is one whole register, one aligned part of a register (at most 4 parts), or
//! a run of 2 or 4 whole registers, and every memory access is in bounds and
//! aligned to its size (given a 16-byte-aligned base pointer).

use crate::ast::LaunchDims;
use crate::dtype::DType;
use crate::target::{PtxVersion, Target};

#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub name: String,
    pub target: Target,
    /// The `.version` to emit: the highest of the target's minimum and every
    /// used form's minimum.
    pub ptx_version: PtxVersion,
    pub launch: LaunchDims,
    pub params: Vec<ProgramParam>,
    pub tiles: Vec<Tile>,
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramParam {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamKind {
    /// A global-memory pointer to a row-major tensor.
    Tensor {
        dtype: DType,
        shape: Vec<usize>,
        written: bool,
    },
    Scalar(DType),
}

/// A local register tile: one virtual register per element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl Tile {
    pub fn registers(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The instructions of one `apply`, in row-major repeat order.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The canonical opcode, for the PTX comment.
    pub opcode: String,
    pub instructions: Vec<Instruction>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    pub opcode: String,
    pub guard: Guard,
    pub operands: Vec<OperandValue>,
}

/// Predication of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    Always,
    /// `pred = false`: the instruction is never executed and not emitted.
    Never,
    /// `@p` / `@!p` on a `bool` scalar parameter.
    Param {
        param: usize,
        negated: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum OperandValue {
    /// Registers of the issuing thread; several lanes form a `{..}` group.
    Registers {
        lanes: Vec<Lane>,
        write: bool,
        braced: bool,
    },
    /// `[base + offset]` into a tensor parameter.
    Memory { param: usize, offset: usize },
    /// A scalar parameter's value (loaded once at entry).
    Param { param: usize, bits: usize },
    /// A literal's bits, materialised once at entry in a register of `bits` width.
    Constant { value: u64, bits: usize },
}

/// The storage one register lane binds: `bytes` bytes at `byte_offset` inside
/// a tile whose registers are each `dtype.size_bytes()` wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lane {
    pub tile: usize,
    pub byte_offset: usize,
    pub bytes: usize,
}
