//! The order-independence obligation (SPEC §4 rule 8 and §6): an `apply`
//! means the same whatever order its repeat coordinates run in.
//!
//! **Input**: one checked `apply`: per repeat coordinate, the register
//! bytes it reads and writes. **Output**: diagnostics only:
//! - TK0301, a destination byte written by two coordinates (or twice by
//!   one: overlapping destination operands);
//! - TK0307, a byte one coordinate reads and another writes (in place at
//!   the same coordinate, `add x, x, y`, is fine).
//!
//! Guarantee: when nothing is reported, no register byte is written twice
//! by the apply and no coordinate reads what another writes, so the
//! instructions of the apply commute.

use crate::checked::Apply;
use crate::diag::{Code, Diagnostic};
use crate::layout::storage_index;
use crate::program::Tile;

/// Every order-independence error of `apply`, at most one per operand.
/// `tile` gives a tile's declaration, for messages.
pub(crate) fn prove<'t>(apply: &Apply, tile: impl Fn(usize) -> &'t Tile) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut reported = vec![false; apply.operands.len()];
    let element = |index: usize, byte: usize| {
        let t = tile(index);
        (
            t.name.clone(),
            storage_index(&t.shape, t.dtype.size_bytes(), byte),
        )
    };
    // Which coordinate writes each register byte.
    let mut writer: ByteTable<Option<usize>> = ByteTable::default();
    let mut written: ByteTable<bool> = ByteTable::default();
    for (coordinate, access) in apply.coordinates.iter().enumerate() {
        for (operand, lane) in &access.writes {
            let bytes = lane.byte_offset..lane.byte_offset + lane.bytes;
            let overlap = bytes
                .clone()
                .any(|b| std::mem::replace(written.at(lane.tile, b), true));
            if overlap && !std::mem::replace(&mut reported[*operand], true) {
                let (_, index) = element(lane.tile, lane.byte_offset);
                let name = apply.operands[*operand].value.name();
                diags.push(
                    Diagnostic::new(
                        Code::OVERLAPPING_DESTINATIONS,
                        apply.operands[*operand].span,
                        format!("destination `{name}{index}` is written more than once by this `apply`"),
                    )
                    .with_note("no register may be written twice by one `apply`: destination operands must not overlap"),
                );
            }
            for b in bytes {
                *writer.at(lane.tile, b) = Some(coordinate);
            }
        }
    }
    // A read at one coordinate of a byte another coordinate writes would
    // see the other coordinate's result or not, depending on the order.
    let opcode = &apply.opcode;
    for (coordinate, access) in apply.coordinates.iter().enumerate() {
        for (operand, lane) in &access.reads {
            if reported[*operand] {
                continue;
            }
            let by_other = (lane.byte_offset..lane.byte_offset + lane.bytes)
                .find(|b| writer.get(lane.tile, *b).is_some_and(|by| by != coordinate));
            let Some(byte) = by_other else { continue };
            reported[*operand] = true;
            let (name, index) = element(lane.tile, byte);
            diags.push(
                Diagnostic::new(
                    Code::ORDER_DEPENDENCE,
                    apply.operands[*operand].span,
                    format!(
                        "`{opcode}` reads `{name}{index}` at one repeat coordinate and writes it at another, so the result would depend on the expansion order"
                    ),
                )
                .with_note("each repeat coordinate of an `apply` must read only registers that no other coordinate writes; in-place at the same coordinate (`add x, x, y`) is fine")
                .with_help("write the result into another tile"),
            );
        }
    }
    diags
}

/// A value per register byte of each tile, dense (a tile holds at most a
/// few hundred register bytes): the per-byte bookkeeping of an `apply`
/// without hashing each byte.
struct ByteTable<T> {
    /// Per tile index, per byte offset; grown as bytes are reached.
    tiles: Vec<Vec<T>>,
}

impl<T> Default for ByteTable<T> {
    fn default() -> Self {
        ByteTable { tiles: Vec::new() }
    }
}

impl<T: Copy + Default> ByteTable<T> {
    /// The value of `tile`'s byte `byte` (the default where none was set).
    fn get(&self, tile: usize, byte: usize) -> T {
        self.tiles
            .get(tile)
            .and_then(|bytes| bytes.get(byte))
            .copied()
            .unwrap_or_default()
    }

    /// `tile`'s byte `byte`, to set.
    fn at(&mut self, tile: usize, byte: usize) -> &mut T {
        if self.tiles.len() <= tile {
            self.tiles.resize_with(tile + 1, Vec::new);
        }
        let bytes = &mut self.tiles[tile];
        if bytes.len() <= byte {
            bytes.resize(byte + 1, T::default());
        }
        &mut bytes[byte]
    }
}
