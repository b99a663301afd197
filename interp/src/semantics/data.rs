//! Data movement (ISA 9.7.9.1, 9.7.9.18): every `mov` form (copies,
//! packing and unpacking of register groups, predicates, special
//! registers) and `createpolicy`.
//!
//! Packing is first lane low: `mov.b32 d, {lo, hi}` gives
//! `d = lo | hi << 16`, and unpacking splits the same way.

use super::integer::unary;
use super::{Bits, Compute, mask};
use tile_kernel_lowering::ptx::Modifiers;
use tile_kernel_lowering::ptx::Slot;

/// The value every `createpolicy` variant writes: an opaque stand-in for
/// a cache-policy handle. It is **not** the hardware's encoding (which
/// depends on the priorities and the fraction); the interpreter only
/// passes it on to `.L2::cache_hint` operands, which ignore it, since
/// cache policies never change values.
pub(crate) const CACHE_POLICY: Bits = 0x1000_0000_0000_0000;

/// The semantics of a data-movement variant, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    match m.form.id {
        // A copy; the special registers' values come in as the source lane.
        "mov" | "mov.sreg32" | "mov.sreg64" => {
            let bits = m.ty(Slot::Type)?.carrier_bits();
            Some(unary(move |a| mask(a, bits)))
        }
        "mov.pred" => Some(unary(|a| a & 1)),
        "mov.pack2" | "mov.pack2-split" => pack(m, 2),
        "mov.pack4" | "mov.pack4-split" => pack(m, 4),
        "mov.unpack2" | "mov.unpack2-split" => unpack(m, 2),
        "mov.unpack4" | "mov.unpack4-split" => unpack(m, 4),
        "createpolicy.fractional" | "createpolicy.cvt" => {
            Some(Compute::new(1, 1, |_, d| d[0] = CACHE_POLICY))
        }
        "createpolicy.fractional-all" => Some(Compute::new(0, 1, |_, d| d[0] = CACHE_POLICY)),
        "createpolicy.range" => Some(Compute::new(2, 1, |_, d| d[0] = CACHE_POLICY)),
        _ => None,
    }
}

/// `mov.bN d, {a0, .., a(n-1)}`: lane `i` fills bits `i*N/n ..`.
fn pack(m: &Modifiers, lanes: usize) -> Option<Compute> {
    let lane_bits = m.ty(Slot::Type)?.carrier_bits() / lanes;
    Some(Compute::new(lanes, 1, move |s, d| {
        d[0] = s.iter().enumerate().fold(0, |acc, (i, &x)| {
            acc | (mask(x, lane_bits) << (i * lane_bits))
        });
    }))
}

/// `mov.bN {d0, .., d(n-1)}, a`: lane `i` gets bits `i*N/n ..` of `a`.
fn unpack(m: &Modifiers, lanes: usize) -> Option<Compute> {
    let lane_bits = m.ty(Slot::Type)?.carrier_bits() / lanes;
    Some(Compute::new(1, lanes, move |s, d| {
        for (i, lane) in d.iter_mut().enumerate() {
            *lane = mask(s[0] >> (i * lane_bits), lane_bits);
        }
    }))
}
