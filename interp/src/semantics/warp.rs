//! Warp-level collectives (lowering/src/ptx/table/warp.rs): `shfl.sync`,
//! `vote.sync`, `match.sync`, `redux.sync`, `activemask`, `elect.sync`
//! and `bar.warp.sync` (ISA 9.7.9.6, 9.7.15.2, 9.7.15.10-13, 9.7.15.15).
//!
//! Every form but `activemask` takes a `membermask`, its last source lane.
//! The ISA leaves the result undefined unless, for every executing lane
//! `l` with membermask `m`:
//!
//! - `l` is in `m` ("undefined if the executing thread is not in the
//!   membermask");
//! - every lane of `m` executes this instruction (each thread waits for
//!   the threads of its membermask; a member that never arrives is the
//!   divergent collective the GPU silently gets wrong);
//! - every lane of `m` has the same membermask `m` ("with the same
//!   qualifiers and same membermask value").
//!
//! So the executing lanes split into groups, one per distinct membermask
//! (disjoint groups with different masks are legal: cooperative groups'
//! tiled partitions run one `shfl.sync` with a mask per tile), and each
//! group reduces over its own lanes. `shfl.sync` further fails where a
//! lane reads, in range, a lane outside its membermask.
//!
//! What cannot be told apart here: the ISA also lets a membermask name
//! threads that have *exited*; the interpreter sees only the lanes that
//! execute, so such a membermask is reported as divergent too.

use super::{Bits, Collective, CollectiveError, destination_lanes, source_lanes};
use tile_kernel_lowering::ptx::Modifiers;
use tile_kernel_lowering::ptx::Slot;

/// The semantics of a warp collective variant, or `None` for other forms.
pub(crate) fn collective(variant: &Modifiers) -> Option<Collective> {
    let name = variant.opcode_text();
    let found = match variant.form.id {
        "shfl.sync" => shfl(name, shfl_mode(variant.get(Slot::Mode)?)?, false),
        "shfl.sync.pred" => shfl(name, shfl_mode(variant.get(Slot::Mode)?)?, true),
        "vote.sync" => vote(name, variant.get(Slot::Mode)?)?,
        "vote.sync.ballot" => vote(name, "ballot")?,
        "match.sync" | "match.sync.all-pred" => {
            let bits = variant.ty(Slot::Type)?.carrier_bits();
            let predicate = variant.form.id == "match.sync.all-pred";
            match (variant.get(Slot::Mode)?, predicate) {
                ("any", false) => match_any(name, bits),
                ("all", _) => match_all(name, bits, predicate),
                _ => return None,
            }
        }
        "redux.sync" | "redux.sync.bitwise" => {
            redux(name, variant.get(Slot::Op)?, variant.get(Slot::Type)?)?
        }
        "elect.sync" => elect(name),
        "activemask" => Collective::new(0, 1, |executing, _, d| {
            for lane in lanes(executing) {
                d[lane as usize] = Bits::from(executing);
            }
            Ok(())
        }),
        "bar.warp.sync" => Collective::new(1, 0, move |executing, s, _| {
            members(&name, executing, s, 1).map(|_| ())
        })
        .fencing(),
        _ => return None,
    };
    debug_assert_eq!(
        found.inputs(),
        source_lanes(variant),
        "{}",
        variant.opcode_text()
    );
    debug_assert_eq!(
        found.outputs(),
        destination_lanes(variant),
        "{}",
        variant.opcode_text()
    );
    Some(found)
}

/// The lanes set in `mask`, lowest first.
fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    (0..32).filter(move |l| mask & (1 << l) != 0)
}

/// Lane `lane`'s source lane `index` (of `inputs` per lane).
fn source(sources: &[Bits], inputs: usize, lane: u32, index: usize) -> Bits {
    sources[lane as usize * inputs + index]
}

/// Each lane's membermask (the last source lane), 0 for lanes that do not
/// execute, after checking the rules of the module documentation.
fn members(
    name: &str,
    executing: u32,
    sources: &[Bits],
    inputs: usize,
) -> Result<[u32; 32], CollectiveError> {
    let mut masks = [0u32; 32];
    for lane in lanes(executing) {
        // The membermask is a .b32 operand: its low 32 bits.
        masks[lane as usize] = source(sources, inputs, lane, inputs - 1) as u32;
    }
    for lane in lanes(executing) {
        let mask = masks[lane as usize];
        let fail = |message: String| CollectiveError {
            lane,
            message: format!("{name}: {message}"),
        };
        if mask & (1 << lane) == 0 {
            return Err(fail(format!(
                "lane {lane} is not in its own membermask {mask:#010x} (undefined behaviour)"
            )));
        }
        let absent = mask & !executing;
        if absent != 0 {
            let names: Vec<String> = lanes(absent).map(|l| l.to_string()).collect();
            return Err(fail(format!(
                "lane {lane}'s membermask {mask:#010x} names lanes that do not execute \
                 this instruction ({}): a divergent warp collective, whose result the \
                 GPU leaves undefined",
                names.join(", ")
            )));
        }
        if let Some(other) = lanes(mask).find(|&k| masks[k as usize] != mask) {
            return Err(fail(format!(
                "lane {lane}'s membermask {mask:#010x} differs from member lane {other}'s \
                 {:#010x} (undefined behaviour)",
                masks[other as usize]
            )));
        }
    }
    Ok(masks)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

fn shfl_mode(token: &str) -> Option<ShflMode> {
    Some(match token {
        "up" => ShflMode::Up,
        "down" => ShflMode::Down,
        "bfly" => ShflMode::Bfly,
        "idx" => ShflMode::Idx,
        _ => return None,
    })
}

/// The ISA's source lane `j` and in-range flag `pval` for lane `lane`
/// (before `if (!pval) j = lane`).
fn shfl_source(mode: ShflMode, lane: u32, b: Bits, c: Bits) -> (u32, bool) {
    let bval = (b & 0x1f) as u32;
    let cval = (c & 0x1f) as u32;
    let segmask = ((c >> 8) & 0x1f) as u32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    match mode {
        ShflMode::Up => {
            let j = lane as i32 - bval as i32;
            (j.max(0) as u32, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = lane + bval;
            (j & 0x1f, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    }
}

/// `shfl.sync.mode.b32 d[|p], a, b, c, membermask`.
fn shfl(name: String, mode: ShflMode, predicate: bool) -> Collective {
    const INPUTS: usize = 4;
    let outputs = 1 + usize::from(predicate);
    Collective::new(INPUTS, outputs, move |executing, s, d| {
        let masks = members(&name, executing, s, INPUTS)?;
        for lane in lanes(executing) {
            let (b, c) = (source(s, INPUTS, lane, 1), source(s, INPUTS, lane, 2));
            let (j, pval) = shfl_source(mode, lane, b, c);
            let j = if pval { j } else { lane };
            if masks[lane as usize] & (1 << j) == 0 {
                return Err(CollectiveError {
                    lane,
                    message: format!(
                        "{name}: lane {lane} reads lane {j}, which is not in its membermask \
                         {:#010x} (undefined behaviour)",
                        masks[lane as usize]
                    ),
                });
            }
            let out = lane as usize * outputs;
            d[out] = source(s, INPUTS, j, 0) & 0xffff_ffff;
            if predicate {
                d[out + 1] = Bits::from(pval);
            }
        }
        Ok(())
    })
}

/// `vote.sync.{all,any,uni}.pred d, a, membermask` and
/// `vote.sync.ballot.b32 d, a, membermask`.
fn vote(name: String, mode: &str) -> Option<Collective> {
    let reduce: fn(u32, u32) -> Bits = match mode {
        // (members, members whose predicate holds)
        "all" => |m, t| Bits::from(t == m),
        "any" => |_, t| Bits::from(t != 0),
        "uni" => |m, t| Bits::from(t == m || t == 0),
        "ballot" => |_, t| Bits::from(t),
        _ => return None,
    };
    Some(Collective::new(2, 1, move |executing, s, d| {
        let masks = members(&name, executing, s, 2)?;
        let ballot = lanes(executing)
            .filter(|&k| source(s, 2, k, 0) & 1 != 0)
            .fold(0u32, |acc, k| acc | 1 << k);
        for lane in lanes(executing) {
            let m = masks[lane as usize];
            d[lane as usize] = reduce(m, ballot & m);
        }
        Ok(())
    }))
}

/// `match.any.sync.type d, a, membermask`.
fn match_any(name: String, bits: usize) -> Collective {
    Collective::new(2, 1, move |executing, s, d| {
        let masks = members(&name, executing, s, 2)?;
        for lane in lanes(executing) {
            let m = masks[lane as usize];
            let a = super::mask(source(s, 2, lane, 0), bits);
            d[lane as usize] = Bits::from(
                lanes(m)
                    .filter(|&k| super::mask(source(s, 2, k, 0), bits) == a)
                    .fold(0u32, |acc, k| acc | 1 << k),
            );
        }
        Ok(())
    })
}

/// `match.all.sync.type d[|p], a, membermask`.
fn match_all(name: String, bits: usize, predicate: bool) -> Collective {
    let outputs = 1 + usize::from(predicate);
    Collective::new(2, outputs, move |executing, s, d| {
        let masks = members(&name, executing, s, 2)?;
        for lane in lanes(executing) {
            let m = masks[lane as usize];
            let a = super::mask(source(s, 2, lane, 0), bits);
            let all = lanes(m).all(|k| super::mask(source(s, 2, k, 0), bits) == a);
            let out = lane as usize * outputs;
            d[out] = if all { Bits::from(m) } else { 0 };
            if predicate {
                d[out + 1] = Bits::from(all);
            }
        }
        Ok(())
    })
}

/// `redux.sync.op.type d, a, membermask` on 32-bit integers.
fn redux(name: String, op: &str, ty: &str) -> Option<Collective> {
    let combine: fn(u32, u32) -> u32 = match (op, ty) {
        ("add", "u32" | "s32") => u32::wrapping_add,
        ("min", "u32") => u32::min,
        ("max", "u32") => u32::max,
        ("min", "s32") => |x, y| (x as i32).min(y as i32) as u32,
        ("max", "s32") => |x, y| (x as i32).max(y as i32) as u32,
        ("and", "b32") => |x, y| x & y,
        ("or", "b32") => |x, y| x | y,
        ("xor", "b32") => |x, y| x ^ y,
        _ => return None,
    };
    Some(Collective::new(2, 1, move |executing, s, d| {
        let masks = members(&name, executing, s, 2)?;
        for lane in lanes(executing) {
            let m = masks[lane as usize];
            // A membermask always holds the lane itself: never empty.
            let result = lanes(m)
                .map(|k| source(s, 2, k, 0) as u32)
                .reduce(combine)
                .unwrap_or(0);
            d[lane as usize] = Bits::from(result);
        }
        Ok(())
    }))
}

/// `elect.sync d|p, membermask`: the leader is the lowest member lane.
fn elect(name: String) -> Collective {
    Collective::new(1, 2, move |executing, s, d| {
        let masks = members(&name, executing, s, 1)?;
        for lane in lanes(executing) {
            let leader = masks[lane as usize].trailing_zeros();
            d[lane as usize * 2] = Bits::from(leader);
            d[lane as usize * 2 + 1] = Bits::from(lane == leader);
        }
        Ok(())
    })
}
