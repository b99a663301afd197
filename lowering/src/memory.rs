//! Memory as one model: every memory operand is a view of a [`Buffer`] in a
//! [`MemorySpace`], and what differs between spaces is data here (the
//! space's rules), not parallel arms through the checker.
//!
//! A space states:
//! - which PTX state spaces address it ([`MemorySpace::addressed_by`]);
//! - the alignment every buffer of it starts at
//!   ([`MemorySpace::base_alignment`]), which the alignment proof assumes;
//! - which threads see the same bytes ([`MemorySpace::shared_by`]), which
//!   decides the thread digits a race proof must separate;
//! - its static budget per CTA ([`MemorySpace::static_budget`]);
//! - how messages name its buffers.
//!
//! Adding a space (a copy destination, distributed shared memory) is one
//! variant here plus its rules, and one arm where buffers are declared.

use serde::{Deserialize, Serialize};

use crate::ptx::Space;

/// A memory space kernels access through views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MemorySpace {
    /// Device memory, reached through tensor parameters.
    Global,
    /// The CTA's shared memory, in `alloc_shared` buffers.
    Shared,
}

/// Which threads of a launch see the same bytes of a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharers {
    /// Every thread of the grid.
    Grid,
    /// The threads of one CTA (each CTA has its own copy).
    Cta,
}

/// Static shared memory a kernel may declare, in bytes (PTX's static
/// limit; more needs dynamic shared memory).
pub const MAX_STATIC_SHARED_BYTES: usize = 48 * 1024;

/// Shared memory one CTA may have at most, in bytes: an H100/H200's 227
/// KiB (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`; the A100
/// has 163 KiB, the sm_86/sm_89 parts 99 KiB, which the launcher checks
/// on the device it launches on). Static buffers over
/// [`MAX_STATIC_SHARED_BYTES`] live in dynamic shared memory.
pub const MAX_SHARED_BYTES_PER_CTA: usize = 227 * 1024;

/// The alignment of each static shared buffer's first byte (the emitter
/// declares them `.align 128`): what a tensor copy's shared side needs
/// ([`TENSOR_COPY_SHARED_ALIGNMENT`]).
pub const STATIC_SHARED_ALIGNMENT: usize = 128;

/// The alignment of a tensor copy's (`cp.async.bulk.tensor`) shared
/// address without swizzling: 128 bytes (a 16-byte aligned one faults
/// with a misaligned address on the H100/H200).
pub const TENSOR_COPY_SHARED_ALIGNMENT: usize = 128;

impl MemorySpace {
    /// Whether a form of PTX state space `ptx` can address this space.
    pub fn addressed_by(self, ptx: Space) -> bool {
        match self {
            MemorySpace::Global => matches!(ptx, Space::Global | Space::Generic),
            // The executing CTA's `.shared::cta` addresses are valid
            // `.shared::cluster` addresses of its own buffers.
            MemorySpace::Shared => matches!(ptx, Space::Shared { .. }),
        }
    }

    /// The alignment, in bytes, every buffer's first byte has at least:
    /// the runtime checks it for tensors; the dynamic shared buffer starts
    /// the CTA's dynamic shared memory, which CUDA aligns to it. Static
    /// shared buffers have more ([`STATIC_SHARED_ALIGNMENT`]).
    pub const fn base_alignment(self) -> usize {
        16
    }

    /// Which threads see the same bytes.
    pub const fn shared_by(self) -> Sharers {
        match self {
            MemorySpace::Global => Sharers::Grid,
            MemorySpace::Shared => Sharers::Cta,
        }
    }

    /// The bytes of constant-size buffers a kernel may declare in this
    /// space (`None`: the caller allocates it).
    pub const fn static_budget(self) -> Option<usize> {
        match self {
            MemorySpace::Global => None,
            MemorySpace::Shared => Some(MAX_SHARED_BYTES_PER_CTA),
        }
    }

    /// A buffer of this space in messages: "global tensor", "shared buffer".
    pub const fn noun(self) -> &'static str {
        match self {
            MemorySpace::Global => "global tensor",
            MemorySpace::Shared => "shared buffer",
        }
    }

    /// The short noun: "tensor", "buffer".
    pub const fn short_noun(self) -> &'static str {
        match self {
            MemorySpace::Global => "tensor",
            MemorySpace::Shared => "buffer",
        }
    }

    /// The PTX state-space token of its forms: `global`, `shared`.
    pub const fn ptx_token(self) -> &'static str {
        match self {
            MemorySpace::Global => "global",
            MemorySpace::Shared => "shared",
        }
    }
}

/// One buffer a memory operand views: tensor parameter `index` (global) or
/// shared buffer `index` of [`crate::program::Program::shared`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Buffer {
    pub space: MemorySpace,
    pub index: usize,
}

impl Buffer {
    pub const fn global(param: usize) -> Buffer {
        Buffer {
            space: MemorySpace::Global,
            index: param,
        }
    }

    pub const fn shared(buffer: usize) -> Buffer {
        Buffer {
            space: MemorySpace::Shared,
            index: buffer,
        }
    }

    /// The tensor parameter, for a global buffer.
    pub fn param(self) -> Option<usize> {
        (self.space == MemorySpace::Global).then_some(self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_space_is_addressed_by_its_own_forms_only() {
        let forms = [
            Space::Generic,
            Space::Global,
            Space::Shared { cluster: false },
            Space::Shared { cluster: true },
            Space::Local,
            Space::Const,
            Space::Param,
        ];
        let global: Vec<_> = forms
            .iter()
            .filter(|f| MemorySpace::Global.addressed_by(**f))
            .collect();
        let shared: Vec<_> = forms
            .iter()
            .filter(|f| MemorySpace::Shared.addressed_by(**f))
            .collect();
        assert_eq!(global, [&Space::Generic, &Space::Global]);
        // A CTA's own `.shared::cta` addresses are `.shared::cluster` ones.
        assert_eq!(
            shared,
            [
                &Space::Shared { cluster: false },
                &Space::Shared { cluster: true }
            ]
        );
    }
}
