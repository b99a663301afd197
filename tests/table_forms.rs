//! Kernels over forms the table gained with its families: atomics (under
//! the race checker's atomic rule), generic addressing, `ldu`, `lop3`,
//! `prmt`, packed half arithmetic. Each kernel's PTX is assembled by ptxas;
//! on the CPU interpreter (always) and on a GPU (`--include-ignored`) each
//! result is compared with a host reference, bit for bit.

mod support;

use tile_kernel::prelude::*;

/// bins[b] += x[i] for every i with i % 16 == b (`red`), and every thread
/// takes a ticket from one counter (`atom` returns the old value): many
/// threads update one element, which only atomics may do.
#[tile_kernel(grid = [ceil_div(N, 256), 1, 1], block = 256)]
fn atomics(
    x: Tensor<u32, N>,
    bins: Tensor<u32, 16>,
    counter: Tensor<u32, 1>,
    tickets: Tensor<u32, N>,
) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<u32>([1]);
    let ticket = alloc_local::<u32>([1]);
    if i < N {
        let b = i % 16;
        apply(ptx["ld.global.u32"], v, x.slice(s![i..i + 1]));
        apply(ptx["red.global.add.u32"], bins.slice(s![b..b + 1]), v);
        apply(ptx["atom.global.add.u32"], ticket, counter, 1);
        apply(ptx["st.global.u32"], tickets.slice(s![i..i + 1]), ticket);
    }
}

/// y = x through generic addresses (`ld.f32`/`st.f32` without a space),
/// times a uniform scale read with `ldu`.
#[tile_kernel(grid = [ceil_div(N, 256), 1, 1], block = 256)]
fn generic_scale(x: Tensor<f32, N>, scale: Tensor<f32, 1>, y: Tensor<f32, N>) {
    let i = cta_id(0) * 256 + thread_id(0);
    let v = alloc_local::<f32>([1]);
    let s = alloc_local::<f32>([1]);
    if i < N {
        apply(ptx["ldu.global.f32"], s, scale);
        apply(ptx["ld.f32"], v, x.slice(s![i..i + 1]));
        apply(ptx["mul.rn.f32"], v, v, s);
        apply(ptx["st.f32"], y.slice(s![i..i + 1]), v);
    }
}

/// Per thread: lop3 (a ^ b ^ c, LUT 0x96), prmt (byte permutation 0x5140:
/// interleave the low bytes of a and b), and add.rn.f16x2 of two packed
/// half pairs.
#[tile_kernel(grid = 1, block = 64)]
fn bits_and_halves(
    a: Tensor<u32, 64>,
    b: Tensor<u32, 64>,
    c: Tensor<u32, 64>,
    out: Tensor<u32, 64, 3>,
) {
    let t = thread_id(0);
    let x = alloc_local::<u32>([3]);
    let r = alloc_local::<u32>([3]);
    apply(
        ptx["ld.global.u32"],
        x.slice(s![0..1]),
        a.slice(s![t..t + 1]),
    );
    apply(
        ptx["ld.global.u32"],
        x.slice(s![1..2]),
        b.slice(s![t..t + 1]),
    );
    apply(
        ptx["ld.global.u32"],
        x.slice(s![2..3]),
        c.slice(s![t..t + 1]),
    );
    apply(
        ptx["lop3.b32"],
        r.slice(s![0..1]),
        x.slice(s![0..1]),
        x.slice(s![1..2]),
        x.slice(s![2..3]),
        0x96,
    );
    apply(
        ptx["prmt.b32"],
        r.slice(s![1..2]),
        x.slice(s![0..1]),
        x.slice(s![1..2]),
        0x5140,
    );
    apply(
        ptx["add.rn.f16x2"],
        r.slice(s![2..3]),
        x.slice(s![0..1]),
        x.slice(s![1..2]),
    );
    apply(
        ptx["st.global.u32"],
        out.slice(s![t, ..]).unsqueeze(-1),
        r.unsqueeze(-1),
    );
}

/// Every thread adds its pair (x[i], 2 * x[i]) into one `[2]` accumulator
/// with one sm_90 vector reduction (`red.global.add.v2.f32`), and computes
/// `d|p = lop3.or(a, b, c, 0x80) | q` (a & b & c, and p = d != 0 || q).
#[tile_kernel(grid = [ceil_div(N, 128), 1, 1], block = 128)]
fn vector_red_and_lop3_bool(
    x: Tensor<f32, N, 2>,
    acc: Tensor<f32, 2>,
    words: Tensor<u32, N, 3>,
    out: Tensor<u32, N, 2>,
) {
    let i = cta_id(0) * 128 + thread_id(0);
    let v = alloc_local::<f32>([2]);
    let w = alloc_local::<u32>([3]);
    let r = alloc_local::<u32>([2]);
    let p = alloc_local::<bool>([2]);
    if i < N {
        apply(ptx["ld.global.v2.f32"], v, x.slice(s![i, ..]));
        apply(ptx["red.global.add.v2.f32"], acc, v);
        apply(
            ptx["ld.global.u32"],
            w.unsqueeze(-1),
            words.slice(s![i, ..]).unsqueeze(-1),
        );
        // q = (c is odd), from setp on the last word.
        apply(ptx["and.b32"], r.slice(s![1..2]), w.slice(s![2..3]), 1);
        apply(ptx["setp.ne.u32"], p.slice(s![1..2]), r.slice(s![1..2]), 0);
        apply(
            ptx["lop3.or.b32"],
            r.slice(s![0..1]),
            p.slice(s![0..1]),
            w.slice(s![0..1]),
            w.slice(s![1..2]),
            w.slice(s![2..3]),
            0x80,
            p.slice(s![1..2]),
        );
        apply(ptx["selp.u32"], r.slice(s![1..2]), 1, 0, p.slice(s![0..1]));
        apply(
            ptx["st.global.u32"],
            out.slice(s![i, ..]).unsqueeze(-1),
            r.unsqueeze(-1),
        );
    }
}

/// Special registers: `%laneid`, `%smid` and `%nsmid`, and `%clock64` read
/// twice (it only counts up).
#[tile_kernel(grid = 4, block = 64)]
fn special_registers(ids: Tensor<u32, 256, 3>, clocks: Tensor<u64, 256, 2>) {
    let t = cta_id(0) * 64 + thread_id(0);
    let r = alloc_local::<u32>([3]);
    let c = alloc_local::<u64>([2]);
    apply(ptx["mov.u64"], c.slice(s![0..1]), sreg("%clock64"));
    apply(ptx["mov.u32"], r.slice(s![0..1]), sreg("%laneid"));
    apply(ptx["mov.u32"], r.slice(s![1..2]), sreg("%smid"));
    apply(ptx["mov.u32"], r.slice(s![2..3]), sreg("%nsmid"));
    apply(ptx["mov.u64"], c.slice(s![1..2]), sreg("%clock64"));
    apply(
        ptx["st.global.u32"],
        ids.slice(s![t, ..]).unsqueeze(-1),
        r.unsqueeze(-1),
    );
    apply(ptx["st.global.v2.u64"], clocks.slice(s![t, ..]), c);
}

fn lines(ptx: &str) -> Vec<&str> {
    ptx.lines().map(str::trim).collect()
}

#[test]
fn atomics_compile_to_red_and_atom() {
    let l = lines(atomics::PTX);
    assert!(
        l.iter().any(|l| l.starts_with("red.global.add.u32 [")),
        "{}",
        atomics::PTX
    );
    assert!(
        l.iter()
            .any(|l| l.starts_with("atom.global.add.u32 %t1_ticket_0, [")),
        "{}",
        atomics::PTX
    );
    support::ptxas::assemble(atomics::PTX, "sm_90");
}

#[test]
fn generic_forms_use_the_generic_pointer() {
    let l = lines(generic_scale::PTX);
    // The parameter is copied before `cvta.to.global` makes it global.
    let copy = l
        .iter()
        .position(|l| l.starts_with("mov.b64 %g0_x, %a0_x;"))
        .expect("generic copy of x");
    let cvta = l
        .iter()
        .position(|l| *l == "cvta.to.global.u64 %a0_x, %a0_x;")
        .expect("cvta of x");
    assert!(copy < cvta, "{}", generic_scale::PTX);
    assert!(
        l.iter()
            .any(|l| l.starts_with("ld.f32 %t0_v_0, [%ad")
                || l.starts_with("ld.f32 %t0_v_0, [%g0_x")),
        "{}",
        generic_scale::PTX
    );
    // `ldu.global` keeps the global pointer; `scale` has no generic copy.
    assert!(
        l.iter()
            .any(|l| l.starts_with("ldu.global.f32 %t1_s_0, [%a1_scale]")),
        "{}",
        generic_scale::PTX
    );
    assert!(
        !generic_scale::PTX.contains("%g1_scale"),
        "{}",
        generic_scale::PTX
    );
    support::ptxas::assemble(generic_scale::PTX, "sm_90");
}

#[test]
fn lop3_takes_its_table_inline() {
    assert!(
        lines(bits_and_halves::PTX)
            .iter()
            .any(|l| l.starts_with("lop3.b32 ") && l.ends_with(", 150;")),
        "{}",
        bits_and_halves::PTX
    );
    support::ptxas::assemble(bits_and_halves::PTX, "sm_90");
}

#[test]
fn vector_red_and_d_or_p_destinations() {
    let l = lines(vector_red_and_lop3_bool::PTX);
    assert!(
        l.iter().any(|l| l.starts_with("red.global.add.v2.f32 [") && l.ends_with("{%t0_v_0, %t0_v_1};")),
        "{}",
        vector_red_and_lop3_bool::PTX
    );
    assert!(
        l.iter().any(|l| l
            .starts_with("lop3.or.b32 %t2_r_0|%t3_p_0, %t1_w_0, %t1_w_1, %t1_w_2, 128, %t3_p_1;")),
        "{}",
        vector_red_and_lop3_bool::PTX
    );
    support::ptxas::assemble(vector_red_and_lop3_bool::PTX, "sm_90");
}

mod devices {
    //! On the CPU interpreter (`NAME::on_cpu`, always run) and the H200
    //! (`NAME::on_gpu`, ignored without a GPU; `--include-ignored` runs
    //! them), against host references, with the same checks on both.

    use tile_kernel::Result;
    use tile_kernel::prelude::*;

    use crate::support::gpu::on_both_devices;

    on_both_devices!(
        atomics_match_the_host,
        vector_red_and_lop3_bool_match_the_host,
        special_registers_read_the_hardware,
        generic_scale_matches_the_host,
        bits_and_halves_match_the_host,
    );

    fn atomics_match_the_host(dev: &Device) -> Result<()> {
        for n in [0usize, 1, 255, 4096 + 7, (1 << 20) + 3] {
            let x: Vec<u32> = (0..n as u32)
                .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
                .collect();
            let a = dev.upload(&x, [n])?;
            let mut bins = dev.zeros::<u32>([16])?;
            let mut counter = dev.zeros::<u32>([1])?;
            let mut tickets = dev.zeros::<u32>([n])?;
            super::atomics(dev, &a, &mut bins, &mut counter, &mut tickets)?;
            let mut want = [0u32; 16];
            for (i, v) in x.iter().enumerate() {
                want[i % 16] = want[i % 16].wrapping_add(*v);
            }
            assert_eq!(bins.download()?, want, "n = {n}");
            assert_eq!(counter.download()?, [n as u32], "n = {n}");
            let mut tickets = tickets.download()?;
            tickets.sort_unstable();
            assert!(
                tickets.iter().enumerate().all(|(i, t)| *t == i as u32),
                "n = {n}: tickets are not 0..n"
            );
        }
        Ok(())
    }

    fn vector_red_and_lop3_bool_match_the_host(dev: &Device) -> Result<()> {
        for n in [1usize, 127, 4096 + 5] {
            // Small integers: every f32 sum is exact, so the order of the
            // atomic additions cannot change the result.
            let x: Vec<f32> = (0..n)
                .flat_map(|i| [(i % 7) as f32, 2.0 * (i % 7) as f32])
                .collect();
            let words: Vec<u32> = (0..3 * n as u32)
                .map(|k| k.wrapping_mul(0x9E37_79B9).rotate_left(k % 29))
                .collect();
            let dx = dev.upload(&x, [n, 2])?;
            let dw = dev.upload(&words, [n, 3])?;
            let mut acc = dev.zeros::<f32>([2])?;
            let mut out = dev.zeros::<u32>([n, 2])?;
            super::vector_red_and_lop3_bool(dev, &dx, &mut acc, &dw, &mut out)?;
            let want_acc = [
                x.chunks(2).map(|p| p[0]).sum::<f32>(),
                x.chunks(2).map(|p| p[1]).sum::<f32>(),
            ];
            assert_eq!(acc.download()?, want_acc, "n = {n}");
            let got = out.download()?;
            for i in 0..n {
                let (a, b, c) = (words[3 * i], words[3 * i + 1], words[3 * i + 2]);
                let d = a & b & c;
                let p = d != 0 || c & 1 == 1;
                assert_eq!((got[2 * i], got[2 * i + 1]), (d, u32::from(p)), "i = {i}");
            }
        }
        Ok(())
    }

    /// The same properties hold on the CPU interpreter, which defines
    /// `%smid` as the host worker running the block, `%nsmid` as the
    /// number of workers and `%clock64` as a per-thread instruction count.
    fn special_registers_read_the_hardware(dev: &Device) -> Result<()> {
        let mut ids = dev.zeros::<u32>([256, 3])?;
        let mut clocks = dev.zeros::<u64>([256, 2])?;
        super::special_registers(dev, &mut ids, &mut clocks)?;
        let (ids, clocks) = (ids.download()?, clocks.download()?);
        for t in 0..256 {
            let (lane, sm, sms) = (ids[3 * t], ids[3 * t + 1], ids[3 * t + 2]);
            assert_eq!(lane, (t % 64 % 32) as u32, "%laneid of thread {t}");
            assert!(sm < sms && sms > 0, "%smid {sm} of %nsmid {sms}");
            assert!(
                clocks[2 * t + 1] >= clocks[2 * t],
                "%clock64 went back at {t}"
            );
        }
        Ok(())
    }

    fn generic_scale_matches_the_host(dev: &Device) -> Result<()> {
        for n in [0usize, 1, 1000, (1 << 20) + 3] {
            let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1000.0).collect();
            let s = 1.0f32 / 3.0;
            let a = dev.upload(&x, [n])?;
            let sc = dev.upload(&[s], [1])?;
            let mut y = dev.zeros::<f32>([n])?;
            super::generic_scale(dev, &a, &sc, &mut y)?;
            let got = y.download()?;
            for i in 0..n {
                assert_eq!(got[i].to_bits(), (x[i] * s).to_bits(), "i = {i}");
            }
        }
        Ok(())
    }

    fn bits_and_halves_match_the_host(dev: &Device) -> Result<()> {
        let word = |k: u32| k.wrapping_mul(0x9E37_79B9).rotate_left(k % 31);
        let (a, b, c): (Vec<u32>, Vec<u32>, Vec<u32>) = (0..64u32)
            .map(|t| (word(3 * t + 1), word(3 * t + 2), word(3 * t + 3)))
            .fold(
                (vec![], vec![], vec![]),
                |(mut a, mut b, mut c), (x, y, z)| {
                    a.push(x);
                    b.push(y);
                    c.push(z);
                    (a, b, c)
                },
            );
        let (da, db, dc) = (
            dev.upload(&a, [64])?,
            dev.upload(&b, [64])?,
            dev.upload(&c, [64])?,
        );
        let mut out = dev.zeros::<u32>([64, 3])?;
        super::bits_and_halves(dev, &da, &db, &dc, &mut out)?;
        let got = out.download()?;
        let half_add = |x: u16, y: u16| {
            let (x, y) = (f16::from_bits(x), f16::from_bits(y));
            // f16 + f16 is exact in f32, so one rounding to f16 is the
            // correctly rounded sum; NaN results compare as canonical NaN.
            let sum = f16::from_f32(x.to_f32() + y.to_f32());
            if sum.is_nan() { 0x7fff } else { sum.to_bits() }
        };
        for t in 0..64 {
            let (x, y, z) = (a[t], b[t], c[t]);
            assert_eq!(got[3 * t], x ^ y ^ z, "lop3, t = {t}");
            // prmt 0x5140: bytes (from the 8 bytes b:a, a lowest) 0, 4, 1, 5.
            let bytes = [
                x as u8,
                (x >> 8) as u8,
                (x >> 16) as u8,
                (x >> 24) as u8,
                y as u8,
                (y >> 8) as u8,
                (y >> 16) as u8,
                (y >> 24) as u8,
            ];
            let want = u32::from_le_bytes([bytes[0], bytes[4], bytes[1], bytes[5]]);
            assert_eq!(got[3 * t + 1], want, "prmt, t = {t}");
            let lo = half_add(x as u16, y as u16);
            let hi = half_add((x >> 16) as u16, (y >> 16) as u16);
            let g = got[3 * t + 2];
            let norm = |h: u16| {
                if f16::from_bits(h).is_nan() {
                    0x7fff
                } else {
                    h
                }
            };
            assert_eq!(
                (norm(g as u16), norm((g >> 16) as u16)),
                (lo, hi),
                "add.rn.f16x2, t = {t}"
            );
        }
        Ok(())
    }
}
