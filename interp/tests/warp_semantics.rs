//! Warp collectives: hand-derived cases from the PTX ISA for every mode
//! (shfl.sync up/down/bfly/idx with clamps and segments, vote, match,
//! redux, elect, activemask, bar.warp.sync), the undefined cases reported
//! as errors, a check of `shfl.sync` against the CUDA programming guide's
//! `__shfl*_sync(mask, var, lane, width)` description, and a property test
//! that every legal variant has a collective of the right shape that never
//! panics.
//!
//! None of this has been measured on a GPU yet.

use tile_kernel_interp::semantics::{
    Bits, Collective, CollectiveError, Semantics, destination_lanes, semantics, source_lanes,
};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Access, Modifiers, OperandKind, Usability};

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::variant;
use tile_kernel_testkit::Rng;

const FULL: u32 = 0xffff_ffff;
/// What the tests put in destinations the collective must not write.
const UNTOUCHED: Bits = 0xdead_beef_dead_beef;

fn collective(form: &str, opcode: &str) -> Collective {
    match semantics(&variant(form, opcode)) {
        Ok(Semantics::Collective(c)) => c,
        other => panic!("{opcode}: not a collective: {other:?}"),
    }
}

/// Runs `opcode` on the lanes of `executing`, lane `l`'s source lanes
/// being `sources(l)`; returns every lane's destination lanes (lanes that
/// do not execute must be left alone, checked here).
fn run(
    form: &str,
    opcode: &str,
    executing: u32,
    sources: impl Fn(u32) -> Vec<Bits>,
) -> Result<Vec<Vec<Bits>>, CollectiveError> {
    let c = collective(form, opcode);
    let mut s = vec![0; 32 * c.inputs()];
    for lane in 0..32u32 {
        if executing & (1 << lane) != 0 {
            let lane_sources = sources(lane);
            assert_eq!(lane_sources.len(), c.inputs(), "{opcode}: source lanes");
            s[lane as usize * c.inputs()..][..c.inputs()].copy_from_slice(&lane_sources);
        }
    }
    let mut d = vec![UNTOUCHED; 32 * c.outputs()];
    c.run(executing, &s, &mut d)?;
    let per_lane: Vec<Vec<Bits>> = if c.outputs() == 0 {
        vec![Vec::new(); 32]
    } else {
        d.chunks(c.outputs()).map(<[Bits]>::to_vec).collect()
    };
    for (lane, out) in per_lane.iter().enumerate() {
        if executing & (1 << lane) == 0 {
            assert!(
                out.iter().all(|&x| x == UNTOUCHED),
                "{opcode}: wrote lane {lane}, which does not execute"
            );
        }
    }
    Ok(per_lane)
}

fn ok(
    form: &str,
    opcode: &str,
    executing: u32,
    sources: impl Fn(u32) -> Vec<Bits>,
) -> Vec<Vec<Bits>> {
    run(form, opcode, executing, sources).unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
}

fn err(
    form: &str,
    opcode: &str,
    executing: u32,
    sources: impl Fn(u32) -> Vec<Bits>,
) -> CollectiveError {
    match run(form, opcode, executing, sources) {
        Ok(_) => panic!("{opcode}: expected an error"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- shfl.sync

/// `shfl.sync.<mode>.b32 d|p, a, b, c, membermask` on the lanes of `mask`
/// (all executing, one membermask), `a` = 1000 + lane; `(d, p)` per lane.
fn shfl(mode: &str, mask: u32, b: impl Fn(u32) -> Bits, c: Bits) -> Vec<(Bits, Bits)> {
    let opcode = format!("shfl.sync.{mode}.b32");
    let with_p = ok("shfl.sync.pred", &opcode, mask, |l| {
        vec![1000 + Bits::from(l), b(l), c, Bits::from(mask)]
    });
    let without = ok("shfl.sync", &opcode, mask, |l| {
        vec![1000 + Bits::from(l), b(l), c, Bits::from(mask)]
    });
    (0..32)
        .map(|l| {
            assert_eq!(with_p[l].len(), 2);
            assert_eq!(without[l], &with_p[l][..1], "d|p and d forms agree");
            (with_p[l][0], with_p[l][1])
        })
        .collect()
}

/// `(1000 + source lane, p)`.
fn from(lane: u32, p: bool) -> (Bits, Bits) {
    (1000 + Bits::from(lane), Bits::from(p))
}

#[test]
fn shfl_idx_broadcasts_within_segments() {
    // Whole warp: c = 0x1f (clamp 31, no segment bits).
    let d = shfl("idx", FULL, |_| 5, 0x1f);
    for l in 0..32 {
        assert_eq!(d[l as usize], from(5, true), "lane {l}");
    }
    // Width 16 (CUDA's c = (32 - 16) << 8 | 0x1f): segmask 0x10, lane b of
    // each half.
    let d = shfl("idx", FULL, |_| 3, 0x101f);
    for l in 0..32u32 {
        assert_eq!(d[l as usize], from(3 + (l & 16), true), "lane {l}");
    }
    // An out-of-segment b keeps only its bits outside segmask: 20 -> 4.
    let d = shfl("idx", FULL, |_| 20, 0x101f);
    for l in 0..32u32 {
        assert_eq!(d[l as usize], from(4 + (l & 16), true), "lane {l}");
    }
    // Only b[4:0] counts: 37 -> 5.
    let d = shfl("idx", FULL, |_| 37, 0x1f);
    assert_eq!(d[0], from(5, true));
    // Per-lane b: a rotation.
    let d = shfl("idx", FULL, |l| Bits::from((l + 7) % 32), 0x1f);
    for l in 0..32u32 {
        assert_eq!(d[l as usize], from((l + 7) % 32, true), "lane {l}");
    }
}

#[test]
fn shfl_idx_clamps() {
    // Clamp 7, no segments: lanes 0..=7 in range, b > 7 reads its own.
    let d = shfl("idx", FULL, |_| 6, 0x07);
    assert_eq!(d[20], from(6, true));
    let d = shfl("idx", FULL, |_| 9, 0x07);
    for l in 0..32u32 {
        assert_eq!(d[l as usize], from(l, false), "lane {l}");
    }
    // Width 8 (segmask 0x18) with clamp 3: maxLane = segment base + 3.
    let d = shfl("idx", FULL, |_| 2, 0x1803);
    assert_eq!(d[13], from(10, true));
    let d = shfl("idx", FULL, |_| 5, 0x1803);
    assert_eq!(d[13], from(13, false));
}

#[test]
fn shfl_up() {
    // CUDA's __shfl_up_sync: c = (32 - width) << 8, so maxLane = minLane.
    let d = shfl("up", FULL, |_| 1, 0);
    assert_eq!(d[0], from(0, false));
    for l in 1..32u32 {
        assert_eq!(d[l as usize], from(l - 1, true), "lane {l}");
    }
    let d = shfl("up", FULL, |_| 3, 0);
    for l in 0..3u32 {
        assert_eq!(d[l as usize], from(l, false), "lane {l}");
    }
    assert_eq!(d[3], from(0, true));
    // Width 16: lane 16 starts a segment and keeps its own.
    let d = shfl("up", FULL, |_| 1, 0x1000);
    assert_eq!(d[16], from(16, false));
    assert_eq!(d[17], from(16, true));
    assert_eq!(d[15], from(14, true));
    // A clamp raises the lowest source: with cval 4 (no segments), lanes
    // read only from lanes >= 4.
    let d = shfl("up", FULL, |_| 2, 0x04);
    assert_eq!(d[5], from(5, false));
    assert_eq!(d[6], from(4, true));
    // Offset 0: every lane reads itself, in range.
    let d = shfl("up", FULL, |_| 0, 0);
    assert_eq!(d[9], from(9, true));
}

#[test]
fn shfl_down() {
    // CUDA's __shfl_down_sync: c = (32 - width) << 8 | 0x1f.
    let d = shfl("down", FULL, |_| 2, 0x1f);
    for l in 0..30u32 {
        assert_eq!(d[l as usize], from(l + 2, true), "lane {l}");
    }
    assert_eq!(d[30], from(30, false));
    assert_eq!(d[31], from(31, false));
    // Width 8: segmask 0x18, maxLane = (lane & 0x18) | 7.
    let d = shfl("down", FULL, |_| 2, 0x181f);
    assert_eq!(d[5], from(7, true));
    assert_eq!(d[6], from(6, false));
    assert_eq!(d[8], from(10, true));
    // b = 31 from lane 0 reaches lane 31.
    let d = shfl("down", FULL, |_| 31, 0x1f);
    assert_eq!(d[0], from(31, true));
    assert_eq!(d[1], from(1, false));
}

#[test]
fn shfl_bfly() {
    let d = shfl("bfly", FULL, |_| 1, 0x1f);
    for l in 0..32u32 {
        assert_eq!(d[l as usize], from(l ^ 1, true), "lane {l}");
    }
    // Width 16 and xor 16: the lower half would read a later segment and
    // keeps its own; the upper half reads the earlier segment (the ISA's
    // pval only checks j <= maxLane; CUDA documents the same asymmetry).
    let d = shfl("bfly", FULL, |_| 16, 0x101f);
    assert_eq!(d[3], from(3, false));
    assert_eq!(d[19], from(3, true));
    // Width 16, xor 5: within each half.
    let d = shfl("bfly", FULL, |_| 5, 0x101f);
    assert_eq!(d[2], from(7, true));
    assert_eq!(d[18], from(23, true));
    // A clamp of 3 without segments: only j <= 3 is in range.
    let d = shfl("bfly", FULL, |_| 2, 0x03);
    assert_eq!(d[1], from(3, true));
    assert_eq!(d[4], from(4, false));
}

#[test]
fn shfl_within_a_partial_membermask() {
    // Lanes 8..=15 execute with membermask 0xff00; idx in width 8.
    let mask = 0xff00;
    let d = shfl("idx", mask, |_| 3, 0x181f);
    for l in 8..16u32 {
        assert_eq!(d[l as usize], from(11, true), "lane {l}");
    }
    // Down by 1, clamped at lane 15 by its width-8 segment: lane 15 keeps
    // its own value and never reads lane 16 (not a member).
    let d = shfl("down", mask, |_| 1, 0x181f);
    assert_eq!(d[14], from(15, true));
    assert_eq!(d[15], from(15, false));
}

#[test]
fn shfl_two_tiles_with_their_own_membermasks() {
    // Cooperative groups' tiled_partition<16>: each half runs the shfl
    // with its own membermask.
    let c = collective("shfl.sync", "shfl.sync.idx.b32");
    let mut s = vec![0; 32 * 4];
    for l in 0..32u32 {
        let member = if l < 16 { 0x0000_ffff } else { 0xffff_0000 };
        s[l as usize * 4..][..4].copy_from_slice(&[100 + Bits::from(l), 1, 0x101f, member]);
    }
    let mut d = vec![0; 32];
    c.run(FULL, &s, &mut d).expect("two consistent tiles");
    assert_eq!(d[0], 101);
    assert_eq!(d[20], 117);
}

#[test]
fn shfl_reading_outside_the_membermask_is_an_error() {
    // Lanes 0..=3 with membermask 0xf read lane 5 (in range): undefined.
    let e = err("shfl.sync", "shfl.sync.idx.b32", 0xf, |l| {
        vec![Bits::from(l), 5, 0x1f, 0xf]
    });
    assert_eq!(e.lane, 0);
    assert!(e.message.contains("lane 5"), "{}", e.message);
    // Lane 3 reading lane 4 by down 1 (clamp 31).
    let e = err("shfl.sync", "shfl.sync.down.b32", 0xf, |l| {
        vec![Bits::from(l), 1, 0x1f, 0xf]
    });
    assert_eq!(e.lane, 3);
    // Out of range (clamp 3): lane 3 copies its own, no error.
    let d = ok("shfl.sync", "shfl.sync.down.b32", 0xf, |l| {
        vec![Bits::from(l), 1, 0x03, 0xf]
    });
    assert_eq!(d[3], vec![3]);
    assert_eq!(d[2], vec![3]);
}

#[test]
fn shfl_passes_all_32_bits() {
    let d = ok("shfl.sync", "shfl.sync.bfly.b32", FULL, |l| {
        vec![0xffff_fff0 | Bits::from(l & 0xf), 1, 0x1f, Bits::from(FULL)]
    });
    assert_eq!(d[0], vec![0xffff_fff1]);
}

// ---------------------------------------------------------------- vote.sync

/// `vote.sync` on the lanes of `mask`, lane l's predicate `preds >> l & 1`.
fn vote(opcode: &str, mask: u32, preds: u32) -> Vec<Bits> {
    let form = if opcode.contains("ballot") {
        "vote.sync.ballot"
    } else {
        "vote.sync"
    };
    let d = ok(form, opcode, mask, |l| {
        vec![Bits::from(preds >> l & 1), Bits::from(mask)]
    });
    d.into_iter().map(|lane| lane[0]).collect()
}

#[test]
fn vote_modes() {
    let all = "vote.sync.all.pred";
    let any = "vote.sync.any.pred";
    let uni = "vote.sync.uni.pred";
    let ballot = "vote.sync.ballot.b32";
    // Lanes 0..=7, lane 2 false.
    let (mask, preds) = (0xff, 0b1111_1011);
    assert_eq!(vote(all, mask, preds)[0], 0);
    assert_eq!(vote(any, mask, preds)[7], 1);
    assert_eq!(vote(uni, mask, preds)[3], 0);
    assert_eq!(vote(ballot, mask, preds)[2], 0b1111_1011);
    // All true.
    assert_eq!(vote(all, mask, 0xff)[5], 1);
    assert_eq!(vote(uni, mask, 0xff)[5], 1);
    // All false.
    assert_eq!(vote(all, mask, 0)[5], 0);
    assert_eq!(vote(any, mask, 0)[5], 0);
    assert_eq!(vote(uni, mask, 0)[5], 1);
    assert_eq!(vote(ballot, mask, 0)[5], 0);
    // Whole warp.
    assert_eq!(vote(ballot, FULL, 0x8000_0001)[9], 0x8000_0001);
    assert_eq!(vote(all, FULL, FULL)[31], 1);
    assert_eq!(vote(any, FULL, 1 << 31)[0], 1);
    // Only members count: lanes 4..=11; the predicate bits of other lanes
    // (not executing) are ignored.
    let mask = 0x0ff0;
    assert_eq!(vote(all, mask, 0xf0ff0)[4], 1);
    assert_eq!(vote(ballot, mask, 0xf0ff0)[4], 0x0ff0);
    assert_eq!(vote(uni, mask, 0x0f00)[11], 0);
}

#[test]
fn vote_per_membermask_group() {
    // Lanes 0..=3 (mask 0xf) and 4..=7 (mask 0xf0) vote separately.
    let member = |l: u32| if l < 4 { 0x0fu64 } else { 0xf0 };
    let preds = 0b0000_1111u32;
    let all = ok("vote.sync", "vote.sync.all.pred", 0xff, |l| {
        vec![Bits::from(preds >> l & 1), member(l)]
    });
    assert_eq!(all[0], vec![1]);
    assert_eq!(all[4], vec![0]);
    let ballot = ok("vote.sync.ballot", "vote.sync.ballot.b32", 0xff, |l| {
        vec![Bits::from(preds >> l & 1), member(l)]
    });
    assert_eq!(ballot[1], vec![0x0f]);
    assert_eq!(ballot[6], vec![0]);
}

// --------------------------------------------------------------- match.sync

#[test]
fn match_any() {
    let values: [Bits; 8] = [5, 7, 5, 9, 7, 5, 9, 1];
    let d = ok("match.sync", "match.any.sync.b32", 0xff, |l| {
        vec![values[l as usize], 0xff]
    });
    let expect: [Bits; 8] = [0x25, 0x12, 0x25, 0x48, 0x12, 0x25, 0x48, 0x80];
    for l in 0..8 {
        assert_eq!(d[l], vec![expect[l]], "lane {l}");
    }
    // b64 compares all 64 bits: equal low halves, different high halves.
    let values: [Bits; 4] = [5, 0x1_0000_0005, 5, 0x1_0000_0005];
    let d = ok("match.sync", "match.any.sync.b64", 0xf, |l| {
        vec![values[l as usize], 0xf]
    });
    assert_eq!(d[0], vec![0b0101]);
    assert_eq!(d[1], vec![0b1010]);
    // Members only: lanes 8..=11.
    let d = ok("match.sync", "match.any.sync.b32", 0xf00, |l| {
        vec![Bits::from(l % 2), 0xf00]
    });
    assert_eq!(d[8], vec![0x500]);
    assert_eq!(d[9], vec![0xa00]);
}

#[test]
fn match_all() {
    for ty in ["b32", "b64"] {
        let opcode = format!("match.all.sync.{ty}");
        // All equal.
        let d = ok("match.sync.all-pred", &opcode, 0xf0, |_| vec![42, 0xf0]);
        assert_eq!(d[4], vec![0xf0, 1]);
        let d = ok("match.sync", &opcode, 0xf0, |_| vec![42, 0xf0]);
        assert_eq!(d[7], vec![0xf0]);
        // One differs.
        let d = ok("match.sync.all-pred", &opcode, 0xf0, |l| {
            vec![if l == 6 { 43 } else { 42 }, 0xf0]
        });
        assert_eq!(d[4], vec![0, 0]);
        assert_eq!(d[6], vec![0, 0]);
    }
    // b64 sees the high half.
    let d = ok("match.sync.all-pred", "match.all.sync.b64", 0x3, |l| {
        vec![Bits::from(l) << 40, 0x3]
    });
    assert_eq!(d[0], vec![0, 0]);
    // A single member always matches.
    let d = ok("match.sync.all-pred", "match.all.sync.b32", 1 << 9, |_| {
        vec![7, 1 << 9]
    });
    assert_eq!(d[9], vec![1 << 9, 1]);
}

// --------------------------------------------------------------- redux.sync

fn redux(opcode: &str, mask: u32, values: impl Fn(u32) -> u32) -> Bits {
    let form = if ["and", "or", "xor"].iter().any(|op| opcode.contains(op)) {
        "redux.sync.bitwise"
    } else {
        "redux.sync"
    };
    let d = ok(form, opcode, mask, |l| {
        vec![Bits::from(values(l)), Bits::from(mask)]
    });
    let first = mask.trailing_zeros() as usize;
    for l in 0..32 {
        if mask & (1 << l) != 0 {
            assert_eq!(d[l], d[first], "{opcode}: every member gets the result");
        }
    }
    d[first][0]
}

#[test]
fn redux_arithmetic() {
    // add: sum of lane ids over the warp, and wrap-around.
    for ty in ["u32", "s32"] {
        let add = format!("redux.sync.add.{ty}");
        assert_eq!(redux(&add, FULL, |l| l), 496);
        assert_eq!(redux(&add, FULL, |_| 0x1000_0000), 0);
        assert_eq!(redux(&add, 0b111, |l| [0xffff_ffff, 1, 1][l as usize]), 1);
        // -3 + 1 = -2.
        assert_eq!(
            redux(&add, 0b11, |l| [(-3i32) as u32, 1][l as usize]),
            0xffff_fffe
        );
    }
    let values = |l: u32| [(-5i32) as u32, 3, 7, (-1i32) as u32][l as usize];
    assert_eq!(redux("redux.sync.min.s32", 0xf, values), 0xffff_fffb);
    assert_eq!(redux("redux.sync.max.s32", 0xf, values), 7);
    assert_eq!(redux("redux.sync.min.u32", 0xf, values), 3);
    assert_eq!(redux("redux.sync.max.u32", 0xf, values), 0xffff_ffff);
    // i32::MIN / MAX.
    let extremes = |l: u32| [0x8000_0000, 0x7fff_ffff][l as usize];
    assert_eq!(redux("redux.sync.min.s32", 0b11, extremes), 0x8000_0000);
    assert_eq!(redux("redux.sync.max.s32", 0b11, extremes), 0x7fff_ffff);
    assert_eq!(redux("redux.sync.min.u32", 0b11, extremes), 0x7fff_ffff);
    assert_eq!(redux("redux.sync.max.u32", 0b11, extremes), 0x8000_0000);
    // Only members: lanes 16..=31 of lane ids.
    assert_eq!(redux("redux.sync.min.u32", 0xffff_0000, |l| l), 16);
    assert_eq!(redux("redux.sync.add.u32", 0xffff_0000, |l| l), 376);
}

#[test]
fn redux_bitwise() {
    let values = |l: u32| [0xf0f0_ffff, 0x0ff0_00ff, 0x00f0_0f0f][l as usize];
    assert_eq!(redux("redux.sync.and.b32", 0b111, values), 0x00f0_000f);
    assert_eq!(redux("redux.sync.or.b32", 0b111, values), 0xfff0_ffff);
    assert_eq!(redux("redux.sync.xor.b32", 0b111, values), 0xfff0_f00f);
    assert_eq!(redux("redux.sync.or.b32", FULL, |l| 1 << l), 0xffff_ffff);
    assert_eq!(redux("redux.sync.xor.b32", FULL, |_| 0xabcd), 0);
}

// ----------------------------------------------- elect, activemask, barrier

#[test]
fn elect_picks_the_lowest_member() {
    let d = ok("elect.sync", "elect.sync", FULL, |_| vec![Bits::from(FULL)]);
    assert_eq!(d[0], vec![0, 1]);
    assert_eq!(d[31], vec![0, 0]);
    let d = ok("elect.sync", "elect.sync", 0xf0, |_| vec![0xf0]);
    assert_eq!(d[4], vec![4, 1]);
    assert_eq!(d[5], vec![4, 0]);
    // Two groups elect their own leaders.
    let d = ok("elect.sync", "elect.sync", 0x0101_0000, |l| {
        vec![Bits::from(1u32 << l)]
    });
    assert_eq!(d[16], vec![16, 1]);
    assert_eq!(d[24], vec![24, 1]);
}

#[test]
fn activemask_is_the_executing_mask() {
    for executing in [FULL, 0x8000_0101, 1, 0xffff] {
        let d = ok("activemask", "activemask.b32", executing, |_| vec![]);
        for (l, lane) in d.iter().enumerate() {
            if executing & (1 << l) != 0 {
                assert_eq!(lane, &[Bits::from(executing)], "lane {l}");
            }
        }
    }
    // No executing lane: nothing to write.
    ok("activemask", "activemask.b32", 0, |_| vec![]);
}

#[test]
fn bar_warp_sync_checks_its_membermask() {
    ok("bar.warp.sync", "bar.warp.sync", FULL, |_| {
        vec![Bits::from(FULL)]
    });
    ok("bar.warp.sync", "bar.warp.sync", 0xff, |l| {
        vec![if l < 4 { 0xf } else { 0xf0 }]
    });
    let e = err("bar.warp.sync", "bar.warp.sync", 0xf, |_| vec![0xff]);
    assert_eq!(e.lane, 0);
}

// ------------------------------------------------------------- undefined

/// Every membermask-taking opcode, with a `sources` builder from
/// `(lane, membermask)`.
type Build = fn(u32, Bits) -> Vec<Bits>;

const MASKED: &[(&str, &str, Build)] = &[
    ("shfl.sync", "shfl.sync.idx.b32", |l, m| {
        vec![Bits::from(l), Bits::from(l), 0x1f, m]
    }),
    ("shfl.sync.pred", "shfl.sync.up.b32", |l, m| {
        vec![Bits::from(l), 0, 0, m]
    }),
    ("vote.sync", "vote.sync.any.pred", |l, m| {
        vec![Bits::from(l & 1), m]
    }),
    ("vote.sync.ballot", "vote.sync.ballot.b32", |l, m| {
        vec![Bits::from(l & 1), m]
    }),
    ("match.sync", "match.any.sync.b64", |l, m| {
        vec![Bits::from(l), m]
    }),
    ("match.sync.all-pred", "match.all.sync.b32", |l, m| {
        vec![Bits::from(l), m]
    }),
    ("redux.sync", "redux.sync.max.s32", |l, m| {
        vec![Bits::from(l), m]
    }),
    ("redux.sync.bitwise", "redux.sync.xor.b32", |l, m| {
        vec![Bits::from(l), m]
    }),
    ("elect.sync", "elect.sync", |_, m| vec![m]),
    ("bar.warp.sync", "bar.warp.sync", |_, m| vec![m]),
];

#[test]
fn divergent_membermask_is_an_error() {
    // Lanes 0..=3 execute; the membermask names lanes 0..=7.
    for &(form, opcode, build) in MASKED {
        let e = err(form, opcode, 0xf, |l| build(l, 0xff));
        assert_eq!(e.lane, 0, "{opcode}");
        assert!(e.message.contains("4, 5, 6, 7"), "{opcode}: {}", e.message);
        assert!(e.message.contains(opcode), "{opcode}: {}", e.message);
        // The same membermask with all of its lanes executing is fine.
        ok(form, opcode, 0xff, |l| build(l, 0xff));
    }
}

#[test]
fn lane_outside_its_own_membermask_is_an_error() {
    // Lanes 0..=2 execute; lanes 0 and 1 use 0x3, lane 2 uses 0x3 too
    // (which lacks lane 2).
    for &(form, opcode, build) in MASKED {
        let e = err(form, opcode, 0x7, |l| build(l, 0x3));
        assert_eq!(e.lane, 2, "{opcode}");
        assert!(
            e.message.contains("own membermask"),
            "{opcode}: {}",
            e.message
        );
        // A zero membermask.
        let e = err(form, opcode, 0x2, |l| build(l, 0));
        assert_eq!(e.lane, 1, "{opcode}");
    }
}

#[test]
fn differing_membermasks_are_an_error() {
    // Lane 0 says {0, 1}; lane 1 says {1}.
    for &(form, opcode, build) in MASKED {
        let e = err(form, opcode, 0x3, |l| {
            build(l, if l == 0 { 0x3 } else { 0x2 })
        });
        assert_eq!(e.lane, 0, "{opcode}");
        assert!(e.message.contains("differs"), "{opcode}: {}", e.message);
        // Overlapping groups: lanes 0..=3 say 0xf, lanes 4..=7 say 0xfc.
        let e = err(form, opcode, 0xff, |l| {
            build(l, if l < 4 { 0xf } else { 0xfc })
        });
        assert_eq!(e.lane, 4, "{opcode}");
    }
}

// ------------------------------------------- shfl against the CUDA guide

/// `__shfl*_sync(FULL, var, x, width)` as the CUDA programming guide
/// describes it, for lane `lane`: the source lane, or `None` for "var is
/// returned unchanged".
fn cuda_shfl(mode: &str, lane: u32, x: u32, width: u32) -> Option<u32> {
    let base = lane / width * width;
    match mode {
        // __shfl_sync: srcLane modulo width, within the caller's segment.
        "idx" => Some(base + x % width),
        // __shfl_up_sync: lane - delta, unchanged if it leaves the segment.
        "up" => lane.checked_sub(x).filter(|&j| j >= base),
        // __shfl_down_sync: lane + delta, unchanged past the segment.
        "down" => Some(lane + x).filter(|&j| j < base + width),
        // __shfl_xor_sync: later segments are not reachable, earlier are.
        "bfly" => Some(lane ^ x).filter(|&j| j < base + width),
        _ => unreachable!(),
    }
}

#[test]
fn shfl_matches_the_cuda_intrinsics() {
    for mode in ["idx", "up", "down", "bfly"] {
        let opcode = format!("shfl.sync.{mode}.b32");
        for width in [1, 2, 4, 8, 16, 32] {
            // How nvcc's headers pack c for each intrinsic.
            let c = ((32 - width) << 8) | if mode == "up" { 0 } else { 0x1f };
            for x in 0..32 {
                // CUDA takes srcLane modulo width; offsets stay below 32.
                let d = shfl(mode, FULL, |_| Bits::from(x), Bits::from(c));
                for lane in 0..32 {
                    let expect = match cuda_shfl(mode, lane, x, width) {
                        Some(j) => from(j, true),
                        None => from(lane, false),
                    };
                    assert_eq!(
                        d[lane as usize], expect,
                        "{opcode} width {width} x {x} lane {lane}"
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------- properties

/// Masks and inputs of the properties, drawn from the test kit's seeded
/// [`Rng`].
trait WarpDraws {
    fn executing(&mut self) -> u32;
}

impl WarpDraws for Rng {
    /// An executing mask: full, a contiguous run, sparse or random.
    fn executing(&mut self) -> u32 {
        match self.next_u64() % 5 {
            0 => FULL,
            1 => {
                let (lo, len) = (self.next_u64() % 32, 1 + self.next_u64() % 32);
                ((((1u64 << len) - 1) << lo) & 0xffff_ffff) as u32
            }
            2 => 1 << (self.next_u64() % 32),
            3 => 0,
            _ => self.next_u64() as u32,
        }
    }
}

/// Each destination lane's width, in order.
fn destination_widths(v: &Modifiers) -> Vec<usize> {
    v.operands()
        .iter()
        .filter(|o| o.access == Access::Write && o.kind != OperandKind::Address)
        .flat_map(|o| std::iter::repeat_n(o.ty.carrier_bits(), usize::from(o.lanes)))
        .collect()
}

#[test]
fn every_warp_variant_has_a_collective_that_never_panics() {
    let mut rng = Rng::new(7);
    let mut variants = 0;
    // The matrix collectives (no membermask): `tests/mma_semantics.rs`
    // and `tests/tensor_cores.rs`.
    for form in FORMS.iter().filter(|f| {
        f.usable == Usability::NeedsScope && !matches!(f.mnemonic, "mma" | "ldmatrix" | "stmatrix")
    }) {
        for v in legal_variants(form) {
            variants += 1;
            let name = v.opcode_text();
            let c = match semantics(&v) {
                Ok(Semantics::Collective(c)) => c,
                other => panic!("{name}: {other:?}"),
            };
            assert_eq!(c.inputs(), source_lanes(&v), "{name}");
            assert_eq!(c.outputs(), destination_lanes(&v), "{name}");
            let widths = destination_widths(&v);
            let takes_mask = c.inputs() > 0;
            let (mut oks, mut errors) = (0, 0);
            for round in 0..400 {
                let executing = rng.executing();
                let mut s: Vec<Bits> = (0..32 * c.inputs())
                    .map(|i| {
                        // Predicates and values: random bits, zero-extended
                        // like the executor's (predicates 0/1, b32 32 bits).
                        let r = rng.next_u64();
                        if i % c.inputs() == 0 && name.starts_with("vote") {
                            r & 1
                        } else if name.contains("b64") && i % c.inputs() == 0 {
                            r
                        } else {
                            r & 0xffff_ffff
                        }
                    })
                    .collect();
                if takes_mask {
                    // Half the rounds: every lane's membermask = executing.
                    let uniform = round % 2 == 0;
                    for lane in 0..32 {
                        let m = &mut s[lane * c.inputs() + c.inputs() - 1];
                        *m = if uniform {
                            Bits::from(executing)
                        } else {
                            *m & Bits::from(executing | rng.next_u64() as u32)
                        };
                    }
                }
                let mut d = vec![UNTOUCHED; 32 * c.outputs()];
                match c.run(executing, &s, &mut d) {
                    Ok(()) => {
                        oks += 1;
                        for lane in 0..32 {
                            let out = &d[lane * c.outputs()..][..c.outputs()];
                            for (&x, &bits) in out.iter().zip(&widths) {
                                if executing & (1 << lane) == 0 {
                                    assert_eq!(x, UNTOUCHED, "{name} lane {lane}");
                                } else if bits < 64 {
                                    assert_eq!(x >> bits, 0, "{name} lane {lane}: {x:#x}");
                                }
                            }
                        }
                    }
                    Err(e) => {
                        errors += 1;
                        assert!(executing & (1 << e.lane) != 0, "{name}: {e:?}");
                        assert!(
                            !takes_mask || round % 2 == 1 || name.starts_with("shfl"),
                            "{name}: a uniform membermask of executing lanes fails: {e:?}"
                        );
                    }
                }
            }
            assert!(oks > 0, "{name}: never succeeded");
            if takes_mask {
                assert!(errors > 0, "{name}: never reported an undefined case");
            }
        }
    }
    assert_eq!(variants, 30);
}
