//! Typed layouts of shared buffers: where each element of a buffer's
//! logical shape lives in its bytes, and the `wgmma` matrix descriptors
//! these layouts admit (PTX ISA 9.7.15.5.1, "Shared memory matrix
//! layout"; the descriptor format of 9.7.15.5.1.1).
//!
//! A kernel allocates `alloc_shared::<bf16>([128, 64], layout =
//! "swizzle_128")` and indexes the buffer in its logical shape; every
//! access goes through the layout. Each layout is a permutation of the
//! buffer's 16-byte *chunks* that keeps the bytes inside a chunk in
//! order, over blocks of [`SharedLayout::period`] bytes:
//!
//! - [`SharedLayout::Linear`]: row-major, the default.
//! - [`SharedLayout::CoreMatrices`]: the canonical no-swizzle layout of
//!   `wgmma` (K-major): the logical rows of `W` bytes, in groups of 8 rows,
//!   each group stored as `W / 16` *core matrices* of 8 rows x 16 bytes
//!   (128 contiguous bytes), one per 16-byte column of the group, in column
//!   order.
//! - [`SharedLayout::Swizzle`]: rows of exactly `S` = 32, 64 or 128 bytes
//!   (the swizzle span), in groups of 8 rows (an *atom* of `8 S` bytes), with
//!   16-byte chunk `c` of row `r` stored at chunk `c XOR (r % 8) / (8 / (S /
//!   16))`: address bits 4.. of the byte offset XOR-ed with bits 7.. (the
//!   hardware's `Swizzle<3,4,3>`, `<2,4,3>`, `<1,4,3>` for 128, 64, 32).
//!   The pattern is a function of the address, so the buffer starts at a
//!   multiple of the atom ([`SharedLayout::alignment`]).
//!
//! **Why proofs stay on logical offsets.** Every access of a kernel is at
//! most 16 bytes and aligned to its size (the alignment obligation), so it
//! lies inside one chunk, and a chunk permutation maps it to one contiguous
//! run of the same length; a buffer whose size is a multiple of the period
//! is mapped onto itself. So two logical accesses overlap exactly when
//! their physical bytes do, and a logical access in bounds is a physical
//! one in bounds: bounds, races and async ownership are proven on logical
//! offsets, the emitter applies [`SharedLayout::physical`], and the CPU
//! interpreter keeps logical bytes (copies that move more than a chunk at
//! once, bulk and tensor copies, are refused into a laid-out buffer).

use serde::{Deserialize, Serialize};

use crate::sym::Poly;

/// How a shared buffer's logical bytes are placed (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SharedLayout {
    #[default]
    Linear,
    /// 8 x 16-byte core matrices; `row_bytes`: the bytes of one logical row
    /// (the buffer's last extent times its element size).
    CoreMatrices { row_bytes: u32 },
    /// The `span`-byte swizzle (32, 64 or 128); rows are `span` bytes.
    Swizzle { span: u32 },
}

/// The layouts a kernel names in `alloc_shared(.., layout = "..")`.
pub const LAYOUT_NAMES: &[&str] = &["core_matrices", "swizzle_32", "swizzle_64", "swizzle_128"];

impl SharedLayout {
    /// The layout `name` gives a buffer whose rows are `row_bytes` long,
    /// or `None` for an unknown name.
    pub fn named(name: &str, row_bytes: u32) -> Option<SharedLayout> {
        Some(match name {
            "linear" => SharedLayout::Linear,
            "core_matrices" => SharedLayout::CoreMatrices { row_bytes },
            "swizzle_32" => SharedLayout::Swizzle { span: 32 },
            "swizzle_64" => SharedLayout::Swizzle { span: 64 },
            "swizzle_128" => SharedLayout::Swizzle { span: 128 },
            _ => return None,
        })
    }

    /// The name a kernel writes.
    pub fn name(self) -> String {
        match self {
            SharedLayout::Linear => "linear".to_string(),
            SharedLayout::CoreMatrices { .. } => "core_matrices".to_string(),
            SharedLayout::Swizzle { span } => format!("swizzle_{span}"),
        }
    }

    /// What a buffer of this layout must be, given its row bytes (last
    /// extent times element size) and rows (the product of the other
    /// extents): `Err` says what is wrong.
    pub fn admits(self, row_bytes: u64, rows: u64) -> Result<(), String> {
        match self {
            SharedLayout::Linear => Ok(()),
            SharedLayout::CoreMatrices { .. } => {
                if row_bytes == 0 || !row_bytes.is_multiple_of(16) {
                    return Err(format!(
                        "its rows (the last axis) take {row_bytes} bytes, which is not a multiple of the 16-byte core-matrix row"
                    ));
                }
                if !rows.is_multiple_of(8) {
                    return Err(format!(
                        "it has {rows} rows (the product of the axes before the last), which is not a multiple of the 8 rows of a core matrix"
                    ));
                }
                Ok(())
            }
            SharedLayout::Swizzle { span } => {
                if row_bytes != u64::from(span) {
                    return Err(format!(
                        "its rows (the last axis) take {row_bytes} bytes, but a {span}-byte swizzle needs rows of exactly {span} bytes"
                    ));
                }
                if !rows.is_multiple_of(8) {
                    return Err(format!(
                        "it has {rows} rows (the product of the axes before the last), which is not a multiple of the 8 rows of a swizzle atom"
                    ));
                }
                Ok(())
            }
        }
    }

    /// The bytes over which the chunk permutation repeats: 8 rows.
    pub fn period(self) -> u64 {
        match self {
            SharedLayout::Linear => 16,
            SharedLayout::CoreMatrices { row_bytes } => 8 * u64::from(row_bytes),
            SharedLayout::Swizzle { span } => 8 * u64::from(span),
        }
    }

    /// The alignment the buffer's first byte needs: the swizzle atom (the
    /// pattern is a function of the address); 16 bytes otherwise.
    pub fn alignment(self) -> usize {
        match self {
            SharedLayout::Swizzle { span } => 8 * span as usize,
            SharedLayout::Linear | SharedLayout::CoreMatrices { .. } => 16,
        }
    }

    /// The physical byte offset of logical byte offset `offset`.
    pub fn physical(self, offset: u64) -> u64 {
        match self {
            SharedLayout::Linear => offset,
            SharedLayout::CoreMatrices { row_bytes } => {
                let w = u64::from(row_bytes);
                let group = offset / (8 * w);
                let row = offset % (8 * w) / w;
                let column = offset % w;
                group * 8 * w + column / 16 * 128 + row * 16 + column % 16
            }
            SharedLayout::Swizzle { span } => offset ^ (offset >> 3 & swizzle_mask(span)),
        }
    }
}

impl SharedLayout {
    /// `offset` as whole swizzle atoms plus the rest, `(whole, rest)`: the
    /// terms whose coefficients are multiples of the atom (`8 * span`
    /// bytes), and the constant rounded down to one. They change only the
    /// bits above the atom, which the swizzle leaves alone, so
    /// `physical(offset) = physical(rest) + whole`, in wrapping 64-bit
    /// arithmetic too: the emitter swizzles the rest only, and offsets
    /// that differ by whole atoms (stages, row groups) share it. Every
    /// offset of another layout is all rest.
    pub fn split_whole_atoms(self, offset: &Poly) -> (Poly, Poly) {
        let SharedLayout::Swizzle { span } = self else {
            return (Poly::default(), offset.clone());
        };
        let atom = 8 * i128::from(span);
        let constant = offset.constant_term();
        let whole = offset
            .filter_terms(|atoms, coef| !atoms.is_empty() && coef % atom == 0)
            .add_const(constant - constant.rem_euclid(atom));
        let rest = offset.sub(&whole);
        (whole, rest)
    }
}

/// The chunk bits a swizzle flips: bits 4.. of the offset, as many as the
/// span has chunks' worth (`0x70`, `0x30`, `0x10`).
pub fn swizzle_mask(span: u32) -> u64 {
    (u64::from(span) - 16) & 0x70
}

/// A `wgmma` operand in shared memory, K-major: `rows` rows of 32 bytes
/// (one instruction's K), starting at a logical offset of the buffer
/// whose row (within its 8-row group) is 0 and whose column is a multiple
/// of 16 bytes. Carried by the IR for the emitter (the descriptor's
/// constant bits) and the interpreter (each element's logical offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixOperand {
    pub layout: SharedLayout,
    /// Rows of the operand (M of A, N of B).
    pub rows: u32,
    /// Bytes between consecutive logical rows of the buffer.
    pub row_bytes: u32,
}

/// The descriptor's bytes per K: every dense `wgmma` reads 32 bytes of K
/// per row (16 halves, 8 tf32, 32 8-bit values).
pub const MATRIX_K_BYTES: u32 = 32;

impl MatrixOperand {
    /// The logical byte offset, from the operand's start, of byte `byte`
    /// (`< 32`) of row `row`.
    pub fn logical_offset(&self, row: u32, byte: u32) -> u64 {
        u64::from(row) * u64::from(self.row_bytes) + u64::from(byte)
    }

    /// The descriptor's bits other than the start address: the leading
    /// byte offset (bits 16-29), the stride byte offset (32-45), each in
    /// 16-byte units, and the layout type (62-63: 0 none, 1 128-byte,
    /// 2 64-byte, 3 32-byte swizzle). Base offset 0: the buffer is aligned
    /// to its atom.
    pub fn descriptor_bits(&self) -> u64 {
        let (leading, stride, mode) = match self.layout {
            // Next 16-byte column: the next core matrix (128 bytes on);
            // next 8 rows: the next group of core matrices.
            SharedLayout::CoreMatrices { row_bytes } => (128, 8 * u64::from(row_bytes), 0),
            SharedLayout::Swizzle { span } => {
                let mode = match span {
                    128 => 1,
                    64 => 2,
                    _ => 3,
                };
                // The leading offset is unused for K-major swizzled
                // operands (one instruction's 32 bytes lie in one row of
                // the atom); 1 as CUTLASS writes it.
                (16, 8 * u64::from(span), mode)
            }
            SharedLayout::Linear => (0, 0, 0),
        };
        (leading >> 4 & 0x3fff) << 16 | (stride >> 4 & 0x3fff) << 32 | mode << 62
    }
}

/// The descriptor's start-address field: bits 4-17 of the shared-window
/// address.
pub fn descriptor_address(address: u64) -> u64 {
    address >> 4 & 0x3fff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout permutes the chunks of one period and keeps the bytes
    /// of a chunk in order.
    #[test]
    fn layouts_permute_chunks() {
        for layout in [
            SharedLayout::CoreMatrices { row_bytes: 32 },
            SharedLayout::CoreMatrices { row_bytes: 48 },
            SharedLayout::CoreMatrices { row_bytes: 128 },
            SharedLayout::Swizzle { span: 32 },
            SharedLayout::Swizzle { span: 64 },
            SharedLayout::Swizzle { span: 128 },
        ] {
            let period = layout.period();
            for block in 0..3 {
                let mut seen = vec![false; period as usize];
                for offset in block * period..(block + 1) * period {
                    let p = layout.physical(offset);
                    assert_eq!(p / period, block, "{layout:?} {offset}");
                    assert_eq!(p % 16, offset % 16, "{layout:?} {offset}");
                    assert!(!std::mem::replace(&mut seen[(p % period) as usize], true));
                }
            }
        }
    }

    /// The swizzles are CUTLASS's `Swizzle<B, 4, 3>`: chunk `c` of row `r`
    /// of an atom lands at chunk `c ^ (r % 2^B)`.
    #[test]
    fn swizzles_flip_chunks_by_row() {
        for (span, bits) in [(32u32, 1u32), (64, 2), (128, 3)] {
            let layout = SharedLayout::Swizzle { span };
            for row in 0..16u64 {
                for chunk in 0..u64::from(span / 16) {
                    let logical = row * u64::from(span) + chunk * 16;
                    // Row r of the buffer sits at byte r * span: its bits
                    // 7.. are (r * span) >> 7.
                    let selector = (row * u64::from(span)) >> 7 & ((1 << bits) - 1);
                    // The chunk index within the row flips by the selector.
                    let expected = logical ^ (selector << 4);
                    assert_eq!((expected % u64::from(span)) / 16, chunk ^ selector);
                    assert_eq!(layout.physical(logical), expected, "{span} {row} {chunk}");
                }
            }
        }
    }

    /// Whole atoms split off an offset add after the swizzle: for offsets
    /// `c0 + c1 x + c2 x y` over many coefficients (multiples of the atom
    /// and not, negative too) and values, the physical offset of the whole
    /// is the rest's plus the whole atoms, in wrapping 64-bit arithmetic as
    /// the emitter computes it.
    #[test]
    fn whole_atoms_add_after_the_swizzle() {
        use crate::sym::AtomId;
        let (x, y): (AtomId, AtomId) = (0, 1);
        let coefficients = [
            0i128,
            16,
            128,
            1024,
            2048,
            3072,
            -1024,
            4096 + 32,
            16384,
            7,
            -16,
        ];
        for span in [32u32, 64, 128] {
            let layout = SharedLayout::Swizzle { span };
            let atom = 8 * i128::from(span);
            for &c0 in &[0i128, 32, 1024 + 48, 3 * 1024 + 1, -2048, -17] {
                for &c1 in &coefficients {
                    for &c2 in &coefficients {
                        let offset = Poly::constant(c0)
                            .add(&Poly::atom(x).scale(c1))
                            .add(&Poly::atom(x).mul(&Poly::atom(y)).scale(c2));
                        let (whole, rest) = layout.split_whole_atoms(&offset);
                        assert_eq!(whole.add(&rest), offset);
                        assert!(whole.divisible_by(atom) || whole == Poly::default());
                        assert!((0..atom).contains(&rest.constant_term()));
                        for (vx, vy) in [(0i128, 0i128), (1, 2), (5, 3), (37, 11)] {
                            let at = |a: AtomId| if a == x { vx } else { vy };
                            let wrap = |p: &Poly| p.value_at(at).unwrap() as u64;
                            let physical = layout.physical(wrap(&offset));
                            let split = layout.physical(wrap(&rest)).wrapping_add(wrap(&whole));
                            assert_eq!(physical, split, "{span} {c0} {c1} {c2} at {vx}, {vy}");
                        }
                    }
                }
            }
        }
        let (whole, rest) = SharedLayout::Linear.split_whole_atoms(&Poly::constant(4096));
        assert_eq!((whole, rest), (Poly::default(), Poly::constant(4096)));
    }

    /// Core matrices: 8 rows of 16 bytes contiguous, columns 128 bytes
    /// apart, row groups `8 W` apart.
    #[test]
    fn core_matrices_are_contiguous() {
        let layout = SharedLayout::CoreMatrices { row_bytes: 64 };
        assert_eq!(layout.physical(0), 0);
        assert_eq!(layout.physical(64), 16); // row 1, column 0
        assert_eq!(layout.physical(16), 128); // row 0, column 1
        assert_eq!(layout.physical(8 * 64 + 17), 8 * 64 + 128 + 1);
    }

    #[test]
    fn descriptor_bits_place_the_fields() {
        let core = MatrixOperand {
            layout: SharedLayout::CoreMatrices { row_bytes: 64 },
            rows: 64,
            row_bytes: 64,
        };
        assert_eq!(
            core.descriptor_bits(),
            (128 >> 4) << 16 | (512u64 >> 4) << 32
        );
        let swizzled = MatrixOperand {
            layout: SharedLayout::Swizzle { span: 128 },
            rows: 64,
            row_bytes: 128,
        };
        assert_eq!(
            swizzled.descriptor_bits(),
            1 << 16 | (1024u64 >> 4) << 32 | 1 << 62
        );
        assert_eq!(descriptor_address(0x1_2340), 0x1234);
    }
}
