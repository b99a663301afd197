//! Warp matrix multiply-accumulate (`mma.sync.aligned`): every legal
//! variant is a collective of the right shape that never panics and
//! faults on a partial warp; hand-placed fragments (the ISA's formulas for
//! m16n8k16, written out here rather than read from the fragment table)
//! give the products the ISA defines; integer sums wrap, or clamp with
//! `.satfinite`. The GPU comparison is `tests/tensor_cores.rs`.

use tile_kernel_interp::semantics::{
    Bits, Collective, Semantics, destination_lanes, semantics, source_lanes,
};
use tile_kernel_lowering::ptx::Usability;
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;

#[allow(dead_code)] // each test file uses part of it
mod support;
use support::variant;
use tile_kernel_testkit::Rng;

fn collective(form: &str, opcode: &str) -> Collective {
    match semantics(&variant(form, opcode)) {
        Ok(Semantics::Collective(c)) => c,
        other => panic!("{opcode}: not a collective: {other:?}"),
    }
}

#[test]
fn every_mma_variant_is_a_collective_that_never_panics() {
    let mut rng = Rng::new(0x3a7);
    let mut variants = 0;
    // Every usable one (f64 registers are 64 bits wide, the others 32).
    for form in FORMS
        .iter()
        .filter(|f| f.mnemonic == "mma" && f.usable == Usability::NeedsScope)
    {
        for v in legal_variants(form) {
            variants += 1;
            let name = v.opcode_text();
            let c = match semantics(&v) {
                Ok(Semantics::Collective(c)) => c,
                other => panic!("{name}: {other:?}"),
            };
            assert_eq!(c.inputs(), source_lanes(&v), "{name}");
            assert_eq!(c.outputs(), destination_lanes(&v), "{name}");
            let width = if name.contains(".f64") { 64 } else { 32 };
            let mask = u64::MAX >> (64 - width);
            for _ in 0..20 {
                let s: Vec<Bits> = (0..32 * c.inputs())
                    .map(|_| rng.next_u64() & mask)
                    .collect();
                let mut d = vec![0; 32 * c.outputs()];
                c.run(u32::MAX, &s, &mut d)
                    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
                assert!(d.iter().all(|x| x & !mask == 0), "{name}");
                // A partial warp is undefined: the error names a lane that runs it.
                let executing = rng.next_u32() & !(1 << (rng.next_u32() % 32));
                if executing != 0 {
                    let e = c.run(executing, &s, &mut d).unwrap_err();
                    assert!(executing & (1 << e.lane) != 0, "{name}: {e:?}");
                    assert!(
                        e.message.contains("`.aligned` needs all 32 lanes"),
                        "{}",
                        e.message
                    );
                }
            }
        }
    }
    // 14 shapes; types, .satfinite and the single-bit operations.
    assert!(variants >= 60, "{variants}");
}

/// Lane registers for m16n8k16 with 16-bit multiplicands, from the ISA's
/// formulas: `a_r` holds A[g + 8 (r % 2)][2t + 8 (r / 2) + {0, 1}],
/// `b_r` holds B[2t + 8r + {0, 1}][g], `c_i` is C[g + 8 (i / 2)][2t + i % 2],
/// with g = lane / 4, t = lane % 4.
fn m16n8k16_sources(a: &[[u16; 16]; 16], b: &[[u16; 8]; 16], c: &[[u32; 8]; 16]) -> Vec<Bits> {
    let mut s = Vec::new();
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for r in 0..4 {
            let (row, col) = (g + 8 * (r % 2), 2 * t + 8 * (r / 2));
            s.push(Bits::from(a[row][col]) | Bits::from(a[row][col + 1]) << 16);
        }
        for r in 0..2 {
            let k = 2 * t + 8 * r;
            s.push(Bits::from(b[k][g]) | Bits::from(b[k + 1][g]) << 16);
        }
        for i in 0..4 {
            s.push(Bits::from(c[g + 8 * (i / 2)][2 * t + i % 2]));
        }
    }
    s
}

/// D as a matrix from the lanes' four f32 registers.
fn m16n8_d(d: &[Bits]) -> [[u32; 8]; 16] {
    let mut out = [[0; 8]; 16];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            out[g + 8 * (i / 2)][2 * t + i % 2] = d[lane * 4 + i] as u32;
        }
    }
    out
}

#[test]
fn an_identity_a_copies_b_and_adds_c() {
    let one = 0x3f80; // bf16 1.0
    let mut a = [[0u16; 16]; 16];
    for (i, row) in a.iter_mut().enumerate() {
        row[i] = one;
    }
    // B: bf16 values k + n / 8 (exact); C: n - 3 as f32.
    let mut b = [[0u16; 8]; 16];
    let mut c = [[0u32; 8]; 16];
    for (k, row) in b.iter_mut().enumerate() {
        for (n, x) in row.iter_mut().enumerate() {
            *x = (((k as f32) + (n as f32) / 8.0).to_bits() >> 16) as u16;
        }
    }
    for row in c.iter_mut() {
        for (n, x) in row.iter_mut().enumerate() {
            *x = (n as f32 - 3.0).to_bits();
        }
    }
    let mma = collective(
        "mma.m16n8k16.f32",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    );
    let mut d = vec![0; 32 * 4];
    mma.run(u32::MAX, &m16n8k16_sources(&a, &b, &c), &mut d)
        .unwrap();
    let d = m16n8_d(&d);
    for (i, row) in d.iter().enumerate() {
        for (n, x) in row.iter().enumerate() {
            let want = i as f32 + n as f32 / 8.0 + n as f32 - 3.0;
            assert_eq!(f32::from_bits(*x), want, "D[{i}][{n}]");
        }
    }
}

#[test]
fn integer_sums_wrap_or_saturate() {
    // m16n8k32 s8: every lane's A and B registers all 0x7f7f7f7f (127s):
    // each D element adds 32 * 127 * 127 = 516128 to C = i32::MAX - 1000.
    for (opcode, want) in [
        (
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
            (i64::from(i32::MAX) - 1000 + 516_128 - (1 << 32)) as i32,
        ),
        (
            "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32",
            i32::MAX,
        ),
    ] {
        let mma = collective("mma.m16n8k32.int8", opcode);
        let mut s = Vec::new();
        for _ in 0..32 {
            s.extend([0x7f7f_7f7f; 6]);
            s.extend([Bits::from((i32::MAX - 1000) as u32); 4]);
        }
        let mut d = vec![0; 32 * 4];
        mma.run(u32::MAX, &s, &mut d).unwrap();
        assert!(
            d.iter().all(|&x| x as u32 as i32 == want),
            "{opcode}: {d:x?}"
        );
    }
}

/// Results the H200 computed (`tests/data/mma/<config>.bin`: instances of
/// A `[16][K]`, B `[K][8]`, C `[16][8]`, D `[16][8]`, row-major, one
/// little-endian u32 per element), 12 per configuration: two of each input
/// mode of the probe (typical exponents, wide exponents, C far above or
/// below the products, C zero, and nonzero low bits in tf32 registers).
/// `TILE_KERNEL_MMA_PROBE=<dir>` checks the probe's full files instead
/// (2048 instances each; the model was fitted on those).
#[test]
fn the_h200_results_are_reproduced_bit_for_bit() {
    use tile_kernel_lowering::ptx::fragments::{self, FragmentLayout};
    let dir = std::env::var("TILE_KERNEL_MMA_PROBE")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mma").to_string());
    let configs = [
        (
            "bf16_k16",
            "mma.m16n8k16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            16,
            16,
            32,
        ),
        (
            "bf16_k8",
            "mma.m16n8k8.f32",
            "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
            8,
            16,
            32,
        ),
        (
            "f16_k16",
            "mma.m16n8k16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            16,
            16,
            32,
        ),
        (
            "f16_k8",
            "mma.m16n8k8.f32",
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
            8,
            16,
            32,
        ),
        (
            "f16_k16_f16acc",
            "mma.m16n8k16.f16",
            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            16,
            16,
            16,
        ),
        (
            "tf32_k8",
            "mma.m16n8k8.tf32",
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            8,
            32,
            32,
        ),
        (
            "tf32_k4",
            "mma.m16n8k4.tf32",
            "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
            4,
            32,
            32,
        ),
        (
            "e4m3_k32",
            "mma.m16n8k32.fp8",
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
            32,
            8,
            32,
        ),
        (
            "e5m2_k32",
            "mma.m16n8k32.fp8",
            "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
            32,
            8,
            32,
        ),
    ];
    // Lane registers of `layout` from a row-major matrix of `width`-bit elements.
    fn pack(layout: &FragmentLayout, width: u32, m: &[u32], regs: usize) -> Vec<Vec<Bits>> {
        (0..32)
            .map(|lane| {
                let mut r = vec![0 as Bits; regs];
                for e in 0..layout.elements() {
                    let (row, col) = layout.coordinates(lane, e);
                    let bits =
                        u64::from(m[(row * layout.cols + col) as usize]) & ((1u64 << width) - 1);
                    let at = e * width;
                    r[(at / 32) as usize] |= bits << (at % 32);
                }
                r
            })
            .collect()
    }
    let mut report = Vec::new();
    for (name, form, opcode, k, bits, c_bits) in configs {
        let bytes =
            std::fs::read(format!("{dir}/{name}.bin")).unwrap_or_else(|e| panic!("{name}: {e}"));
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let per = 16 * k + k * 8 + 128 + 128;
        let layouts = fragments::mma(opcode.split('.').nth(3).unwrap(), bits).unwrap();
        let mma = collective(form, opcode);
        let (a_regs, b_regs) = (
            (16 * k * bits as usize) / 32 / 32,
            (k * 8 * bits as usize) / 32 / 32,
        );
        let c_regs = mma.outputs();
        let (mut instances, mut wrong) = (0, 0);
        for inst in words.chunks_exact(per) {
            let (a, rest) = inst.split_at(16 * k);
            let (b, rest) = rest.split_at(k * 8);
            let (c, d) = rest.split_at(128);
            let (pa, pb) = (
                pack(&layouts.a, bits, a, a_regs),
                pack(&layouts.b, bits, b, b_regs),
            );
            let pc = pack(&layouts.c, c_bits, c, c_regs);
            let mut sources = Vec::new();
            for lane in 0..32 {
                sources.extend(&pa[lane]);
                sources.extend(&pb[lane]);
                sources.extend(&pc[lane]);
            }
            let mut out = vec![0; 32 * c_regs];
            mma.run(u32::MAX, &sources, &mut out).unwrap();
            let want = pack(&layouts.c, c_bits, d, c_regs);
            for lane in 0..32 {
                wrong += (0..c_regs)
                    .filter(|&r| out[lane * c_regs + r] != want[lane][r])
                    .count();
            }
            instances += 1;
        }
        assert!(instances >= 12, "{name}: {instances} instances");
        if wrong > 0 {
            report.push(format!(
                "{name}: {wrong} registers of {instances} instances differ from the H200"
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
