//! The launch description of a compiled kernel, as plain `'static` data:
//! what the `#[tile_kernel]` macro emits next to the PTX, what the runtime
//! checks every launch against, and what an engine with its own CUDA stack
//! reads to launch the PTX itself (PTX-only mode: no cudarc involved).
//!
//! Everything here is `const`-constructible and free of driver types.

use crate::dtype::DType;
pub use crate::program::{DimSpec, LaunchOp, dim_text, formula_text};
pub use crate::target::Target;

/// The largest value a size symbol may take at launch.
///
/// The `#[tile_kernel]` compiler proves its index arithmetic free of
/// overflow assuming every symbol is at most this (2^40 - 1, so products of a
/// symbol with offsets and strides below 2^23 stay inside 64 bits); launches
/// with a larger value are refused with an error (`SymbolRequirement` in the runtime).
pub const MAX_SYMBOL_VALUE: u64 = (1 << 40) - 1;

/// A kernel as the `#[tile_kernel]` macro emits it: PTX text plus the launch
/// configuration, parameter list and size symbols it was compiled for, and
/// the kernel's encoded IR for the CPU interpreter.
///
/// A spec is plain data; building one is safe. Turning it into a launchable
/// `Kernel` (runtime) is not: `Kernel::new` is `unsafe`, because launches trust the
/// spec to describe the PTX (see its `# Safety` section).
#[derive(Debug, Clone, Copy)]
pub struct KernelSpec {
    /// The PTX `.entry` name.
    pub name: &'static str,
    /// The whole PTX module.
    pub ptx: &'static str,
    /// The architecture the PTX was compiled for (`.target`): it runs on
    /// that compute capability and newer ones, or, for an arch-specific
    /// target like `sm_90a`, on exactly that one ([`Target::runs_on`]).
    pub target: Target,
    /// Grid size in blocks, `[x, y, z]`, each a formula over the size symbols
    /// evaluated at launch (`[LaunchFormulaSpec::ONE; 3]` for one block).
    pub grid: [LaunchFormulaSpec; 3],
    /// Block size in threads, `[x, y, z]`.
    pub block: [u32; 3],
    /// CTAs per thread-block cluster, `[x, y, z]` (`[1, 1, 1]`: no
    /// cluster). The PTX declares it (`.reqnctapercluster`); the launcher
    /// refuses a grid that is not a whole number of clusters along each
    /// axis and launches with the cluster dimension attribute.
    pub cluster: [u32; 3],
    /// Dynamic shared memory per block, in bytes: a formula over the size
    /// symbols evaluated at launch ([`LaunchFormulaSpec::ZERO`] for none). The
    /// launcher refuses a launch whose value is above what the device lets
    /// one block have. An engine launching the PTX itself passes the value
    /// as the launch's dynamic shared memory, after raising the function's
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` when it is above
    /// 48 KiB.
    pub shared_mem_bytes: LaunchFormulaSpec,
    /// The kernel's own parameters, in PTX order.
    pub params: &'static [ParamSpec],
    /// The size symbols the tensor dims name, by index. Each one is passed
    /// as a hidden `.u64` PTX parameter (its value / divisor), after all of
    /// `params`, in this order.
    pub symbols: &'static [SymbolSpec],
    /// The tensor maps the kernel's tensor copies (`cp.async.bulk.tensor`)
    /// read. The launcher encodes each (`cuTensorMapEncodeTiled`) from its
    /// tensor argument and passes it by value as a hidden 128-byte,
    /// 64-byte aligned parameter after the symbols, in this order.
    pub tensor_maps: &'static [TensorMapSpec],
    /// The encoded IR for the CPU interpreter
    /// ([`encoding::encode`](crate::encoding::encode) of the kernel's
    /// [`Program`](crate::program::Program)); empty when the spec has none
    /// (hand-built specs): such kernels cannot run on a CPU device.
    pub program: &'static [u8],
}

/// The first grid axis along which `grid` is not a whole number of
/// `cluster`s (a cluster extent of 0 is never whole), if any: such a grid
/// cannot launch (the driver refuses it), and a kernel's cluster ids
/// assume whole clusters (`cluster_id = cta_id / cluster_dim`).
pub fn partial_cluster_axis(grid: [u32; 3], cluster: [u32; 3]) -> Option<usize> {
    (0..3).find(|&axis| cluster[axis] == 0 || !grid[axis].is_multiple_of(cluster[axis]))
}

/// One kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// The name in the kernel's Rust signature, used in error messages.
    pub name: &'static str,
    /// What is passed.
    pub kind: ParamKindSpec,
}

/// What a kernel parameter receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKindSpec {
    /// A device tensor of exactly this dtype and a shape matching these
    /// dims (constant, or bound to a size symbol), passed as its device
    /// address (a `.u64` PTX parameter).
    Tensor {
        dtype: DType,
        shape: &'static [DimSpec],
        borrow: Borrow,
    },
    /// A value of this dtype, passed by value.
    Scalar { dtype: DType },
}

/// How the launcher borrows a tensor parameter, from how the kernel uses it
/// (not an operand's direction, which is `ptx::Access`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Borrow {
    /// The kernel only loads from it: the launcher borrows the tensor
    /// shared (`&`).
    Shared,
    /// The kernel stores into it: the launcher borrows the tensor
    /// exclusively (`&mut`).
    Exclusive,
}

/// A tensor map a kernel reads: tensor parameter `param` (index into
/// [`KernelSpec::params`]) with a box of `box_dims`, outermost axis first.
/// The map's element type is the tensor's dtype (as unsigned integers of
/// its width), its dims and strides the tensor's shape at launch
/// (row-major), in tiled mode without interleave, with the swizzle
/// `swizzle` (bytes: 0 none, 32, 64 or 128), out-of-bounds elements
/// zero-filled. The launcher refuses a tensor with a dim of 2^31
/// or more (the kernel's coordinates are clamped into `i32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorMapSpec {
    pub param: usize,
    pub box_dims: &'static [u32],
    pub swizzle: u32,
}

/// A size symbol of a kernel (`N` in `Tensor<f32, N>`), bound at launch from
/// the shapes of the tensors passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolSpec {
    /// The name in the kernel's Rust signature, used in error messages.
    pub name: &'static str,
    /// The kernel receives value / divisor in a hidden `.u64` parameter; the
    /// value must be a multiple of `divisor` (it comes from dims like
    /// `{N / 2}`: "`N / 2` needs N to be a multiple of 2").
    pub divisor: u64,
    /// Launch-time requirement from the compiler's alignment proofs:
    /// value % multiple_of == 0 (1 = none).
    pub multiple_of: u64,
}

/// A launch-size formula over symbols, in reverse Polish notation.
///
/// `ceil_div(N, 2048)` is `[Symbol(n), Const(2048), CeilDiv]`. Evaluation
/// uses checked `u64` arithmetic: an underflow, overflow or division by zero
/// refuses the launch (`LaunchSize` in the runtime). The evaluation stack may be
/// at most 16 values deep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchFormulaSpec(pub &'static [LaunchOp]);

impl LaunchFormulaSpec {
    /// The constant 1, for the unused axes of a grid.
    pub const ONE: LaunchFormulaSpec = LaunchFormulaSpec(&[LaunchOp::Const(1)]);
    /// The constant 0, for a kernel without dynamic shared memory.
    pub const ZERO: LaunchFormulaSpec = LaunchFormulaSpec(&[LaunchOp::Const(0)]);
}

impl LaunchFormulaSpec {
    /// Evaluates the formula for the symbols' full values, with checked
    /// arithmetic: `None` on underflow, overflow, division by zero or a
    /// malformed formula.
    pub fn eval(&self, values: &[u64]) -> Option<u64> {
        crate::program::eval_launch(self.0, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_evaluate_with_checked_arithmetic() {
        let grid = LaunchFormulaSpec(&[
            LaunchOp::Symbol(0),
            LaunchOp::Const(2048),
            LaunchOp::CeilDiv,
        ]);
        assert_eq!(grid.eval(&[0]), Some(0));
        assert_eq!(grid.eval(&[1]), Some(1));
        assert_eq!(grid.eval(&[2049]), Some(2));
        assert_eq!(grid.eval(&[]), None);
        let under = LaunchFormulaSpec(&[LaunchOp::Const(1), LaunchOp::Symbol(0), LaunchOp::Sub]);
        assert_eq!(under.eval(&[2]), None);
        let by_zero = LaunchFormulaSpec(&[LaunchOp::Const(1), LaunchOp::Symbol(0), LaunchOp::Div]);
        assert_eq!(by_zero.eval(&[0]), None);
        assert_eq!(LaunchFormulaSpec(&[LaunchOp::Add]).eval(&[]), None);
        assert_eq!(LaunchFormulaSpec::ONE.eval(&[]), Some(1));
    }
}
