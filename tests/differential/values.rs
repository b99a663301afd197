//! Values: the seeded sweeps of special values per type (float formats,
//! ties of every narrower format, integer boundaries) and the rows built
//! from them.

use super::*;

pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// An IEEE-style binary float format: a sign bit, `exp` exponent bits and
/// `man` fraction bits, with infinities and NaNs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fmt {
    pub(crate) exp: u32,
    pub(crate) man: u32,
}

impl Fmt {
    pub(crate) const F16: Fmt = Fmt { exp: 5, man: 10 };
    pub(crate) const BF16: Fmt = Fmt { exp: 8, man: 7 };
    pub(crate) const F32: Fmt = Fmt { exp: 8, man: 23 };
    pub(crate) const F64: Fmt = Fmt { exp: 11, man: 52 };

    pub(crate) fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }
    pub(crate) fn emin(self) -> i32 {
        1 - self.bias()
    }
    pub(crate) fn emax(self) -> i32 {
        self.bias()
    }
    pub(crate) fn sign(self) -> u64 {
        1 << (self.exp + self.man)
    }
    pub(crate) fn man_mask(self) -> u64 {
        mask(self.man)
    }
    pub(crate) fn inf(self) -> u64 {
        mask(self.exp) << self.man
    }
    pub(crate) fn is_nan(self, b: u64) -> bool {
        b & self.inf() == self.inf() && b & self.man_mask() != 0
    }
    pub(crate) fn is_inf(self, b: u64) -> bool {
        b & !self.sign() == self.inf()
    }

    /// The bits of `±n * 2^p` when exactly representable.
    pub(crate) fn exact(self, negative: bool, n: u64, p: i32) -> Option<u64> {
        let sign = if negative { self.sign() } else { 0 };
        if n == 0 {
            return Some(sign);
        }
        let tz = n.trailing_zeros();
        let (n, p) = (n >> tz, p + tz as i32);
        let len = 64 - n.leading_zeros() as i32;
        let e = p + len - 1;
        let man = self.man as i32;
        let magnitude = if e > self.emax() {
            return None;
        } else if e >= self.emin() {
            if len - 1 > man {
                return None;
            }
            let frac = (n << (man - (len - 1))) & self.man_mask();
            ((e + self.bias()) as u64) << self.man | frac
        } else {
            let shift = p - (self.emin() - man);
            if shift < 0 || len + shift > man {
                return None;
            }
            n << shift
        };
        Some(sign | magnitude)
    }

    /// The value of `bits`, exactly (every format here fits in an f64).
    pub(crate) fn to_f64(self, bits: u64) -> f64 {
        if self == Fmt::F64 {
            return f64::from_bits(bits);
        }
        let negative = bits & self.sign() != 0;
        let e = ((bits >> self.man) & mask(self.exp)) as i32;
        let frac = bits & self.man_mask();
        let value = if e == mask(self.exp) as i32 {
            if frac == 0 { f64::INFINITY } else { f64::NAN }
        } else if e == 0 {
            frac as f64 * 2f64.powi(self.emin() - self.man as i32)
        } else {
            (frac | (1 << self.man)) as f64 * 2f64.powi(e - self.bias() - self.man as i32)
        };
        if negative { -value } else { value }
    }

    /// One unit in the last place at the magnitude of `value`.
    pub(crate) fn ulp_at(self, value: f64) -> f64 {
        let e = if value == 0.0 || !value.is_finite() {
            self.emin()
        } else {
            (value.abs().log2().floor() as i32).max(self.emin())
        };
        2f64.powi(e - self.man as i32)
    }

    /// Special values: zeros, subnormal and normal extremes, infinities,
    /// quiet and signalling NaNs with payloads, and a few ordinary values.
    pub(crate) fn specials(self) -> Vec<u64> {
        let top = 1u64 << (self.man - 1);
        let one = (self.bias() as u64) << self.man;
        let magnitudes = [
            0,
            1,
            self.man_mask(),
            1 << self.man,
            (1 << self.man) | 1,
            (self.inf() - (1 << self.man)) | self.man_mask(),
            self.inf(),
            self.inf() | top,
            self.inf() | top | 1,
            self.inf() | self.man_mask(),
            self.inf() | 1,
            self.inf() | (self.man_mask() >> 1),
            one,
            one + 1,
            one - 1,
            one + (1 << self.man),
            one - (1 << self.man),
            one | top,
            (one + (1 << self.man)) | top,
            one + (3 << self.man),
            (one - (4 << self.man)) | (self.man_mask() / 3),
            (one + (1 << self.man)) | (self.man_mask() / 7 * 5),
        ];
        let mut out = Vec::new();
        for m in magnitudes {
            out.push(m);
            out.push(m | self.sign());
        }
        out
    }

    /// Values at rounding ties (and one ULP either side) of every narrower
    /// format, over its normal range, its overflow boundary and its
    /// subnormal range; and integer-conversion boundaries.
    pub(crate) fn ties(self, rng: &mut Rng) -> Vec<u64> {
        let mut out = Vec::new();
        let push = |bits: Option<u64>, out: &mut Vec<u64>| {
            if let Some(b) = bits {
                out.push(b);
                if b & !self.sign() != 0 {
                    out.push(b - 1);
                }
                if (b + 1) & !self.sign() < self.inf() {
                    out.push(b + 1);
                }
            }
        };
        for t in NARROWER {
            if t.man >= self.man {
                continue;
            }
            let m = t.man as i32;
            let mut exponents = vec![0, t.emin, t.emax];
            exponents.push(t.emin + rng.below((t.emax - t.emin + 1) as usize) as i32);
            for e in exponents {
                for frac in [0, 1, rng.next_u64() & mask(t.man), t.max_frac] {
                    // (1.frac + half an ulp of t) * 2^e
                    let n = ((1 << t.man) | frac) << 1 | 1;
                    push(self.exact(rng.next_u64() & 1 == 1, n, e - m - 1), &mut out);
                }
            }
            // Above the largest finite value by half an ulp, and by one.
            let max = (1u64 << t.man) | t.max_frac;
            push(self.exact(false, max << 1 | 1, t.emax - m - 1), &mut out);
            push(self.exact(true, max << 1 | 1, t.emax - m - 1), &mut out);
            push(self.exact(false, max + 1, t.emax - m), &mut out);
            // Subnormal ties of t: (k + 1/2) and (k + 1/4) subnormal ulps.
            let subnormals = [0, 1, 2, 3, mask(t.man), rng.next_u64() & mask(t.man)];
            for k in subnormals {
                push(
                    self.exact(rng.next_u64() & 1 == 1, k << 1 | 1, t.emin - m - 1),
                    &mut out,
                );
                push(self.exact(false, k << 2 | 1, t.emin - m - 2), &mut out);
            }
        }
        // Integer conversion boundaries.
        for k in [0, 1, 7, 8, 15, 16, 31, 32, 62, 63, 64] {
            for negative in [false, true] {
                push(self.exact(negative, 1, k), &mut out);
                if k < 63 {
                    push(self.exact(negative, (1 << (k + 1)) + 1, -1), &mut out);
                    push(self.exact(negative, (1 << (k + 1)) - 1, -1), &mut out);
                }
                if (1..64).contains(&k) {
                    push(self.exact(negative, (1 << k) - 1, 0), &mut out);
                }
            }
        }
        out
    }
}

/// A narrower float format whose rounding ties the sweeps hit.
pub(crate) struct Narrow {
    pub(crate) emin: i32,
    pub(crate) emax: i32,
    pub(crate) man: u32,
    /// The fraction of the largest finite value.
    pub(crate) max_frac: u64,
}

pub(crate) const NARROWER: &[Narrow] = &[
    // f32
    Narrow {
        emin: -126,
        emax: 127,
        man: 23,
        max_frac: 0x7f_ffff,
    },
    // tf32
    Narrow {
        emin: -126,
        emax: 127,
        man: 10,
        max_frac: 0x3ff,
    },
    // bf16
    Narrow {
        emin: -126,
        emax: 127,
        man: 7,
        max_frac: 0x7f,
    },
    // f16
    Narrow {
        emin: -14,
        emax: 15,
        man: 10,
        max_frac: 0x3ff,
    },
    // e4m3 (no infinities: 448 is the largest)
    Narrow {
        emin: -6,
        emax: 8,
        man: 3,
        max_frac: 0b110,
    },
    // e5m2
    Narrow {
        emin: -14,
        emax: 15,
        man: 2,
        max_frac: 0b11,
    },
    // e3m2 (fp6)
    Narrow {
        emin: -2,
        emax: 4,
        man: 2,
        max_frac: 0b11,
    },
    // e2m3 (fp6)
    Narrow {
        emin: 0,
        emax: 2,
        man: 3,
        max_frac: 0b111,
    },
    // e2m1 (fp4)
    Narrow {
        emin: 0,
        emax: 2,
        man: 1,
        max_frac: 0b1,
    },
];

/// Integer specials of `bits` bits: small values, shift amounts, extremes,
/// powers of two and their neighbours.
pub(crate) fn int_values(bits: u32, extended: bool) -> Vec<u64> {
    let m = mask(bits);
    let min = 1u64 << (bits - 1);
    let mut out = vec![
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        15,
        16,
        31,
        32,
        33,
        63,
        64,
        65,
        127,
        128,
        255,
        256,
        m,
        m - 1,
        min,
        min + 1,
        min - 1,
        min - 2,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        0x0123_4567_89ab_cdef,
        0xfedc_ba98_7654_3210,
        0x8000_0001_7fff_ffff,
    ];
    if extended {
        for k in 1..bits {
            out.extend([1 << k, (1 << k) - 1, (1 << k) + 1, m ^ (1 << k)]);
        }
    }
    let mut seen = BTreeSet::new();
    out.into_iter()
        .map(|v| v & m)
        .filter(|v| seen.insert(*v))
        .collect()
}

/// The float format of a scalar float type.
pub(crate) fn scalar_float(ty: PtxType) -> Option<Fmt> {
    match ty {
        PtxType::F16 => Some(Fmt::F16),
        PtxType::Bf16 => Some(Fmt::BF16),
        PtxType::F32 | PtxType::Tf32 => Some(Fmt::F32),
        PtxType::F64 => Some(Fmt::F64),
        _ => None,
    }
}

/// Two lanes of `half` bits each, from `lo` and `hi` lists: each value of
/// each list once, paired with a random one of the other.
pub(crate) fn pairs(lo: &[u64], hi: &[u64], half: u32, rng: &mut Rng) -> Vec<u64> {
    let mut out = Vec::new();
    for &v in lo {
        out.push(v | rng.pick(hi) << half);
    }
    for &v in hi {
        out.push(rng.pick(lo) | v << half);
    }
    for &v in lo.iter().take(16) {
        out.push(v | v << half);
    }
    out
}

/// Input values of one lane of type `ty` for an operand named `name`:
/// (core list for products, extended list for coverage, whether only
/// these values are legal).
pub(crate) fn values_for(ty: PtxType, name: &str, rng: &mut Rng) -> (Vec<u64>, Vec<u64>, bool) {
    let f32s = |vs: &[f32]| {
        vs.iter()
            .map(|v| u64::from(v.to_bits()))
            .collect::<Vec<u64>>()
    };
    match name {
        // createpolicy's fraction: (0, 1].
        "fraction" => {
            let v = f32s(&[1.0, 0.5, 0.25, 0.75, 0.125, 1.0 / 1024.0, 0.999_999_94]);
            return (v.clone(), v, true);
        }
        // createpolicy.cvt's access property (cudaAccessProperty).
        "access_property" => {
            let v = vec![0, 1, 2];
            return (v.clone(), v, true);
        }
        _ => {}
    }
    if ty == PtxType::Pred {
        return (vec![0, 1], vec![0, 1], true);
    }
    if let Some(fmt) = scalar_float(ty) {
        let core = fmt.specials();
        let mut ext = core.clone();
        ext.extend(fmt.ties(rng));
        return (core, ext, false);
    }
    let codes8: Vec<u64> = (0..256).collect();
    let packed = |fmt: Fmt, rng: &mut Rng| {
        let core = fmt.specials();
        let mut ext = core.clone();
        ext.extend(fmt.ties(rng));
        let half = 1 + fmt.exp + fmt.man;
        (
            pairs(&core, &core, half, rng),
            pairs(&ext, &ext, half, rng),
            false,
        )
    };
    match ty {
        PtxType::F16x2 => packed(Fmt::F16, rng),
        PtxType::Bf16x2 => packed(Fmt::BF16, rng),
        PtxType::E4m3x2
        | PtxType::E5m2x2
        | PtxType::E2m3x2
        | PtxType::E3m2x2
        | PtxType::Ue8m0x2 => {
            let v = pairs(&codes8, &codes8, 8, rng);
            (v.clone(), v, false)
        }
        PtxType::E2m1x2 => (codes8.clone(), codes8, false),
        PtxType::U16x2 | PtxType::S16x2 => {
            let core = int_values(16, false);
            let ext = int_values(16, true);
            (
                pairs(&core, &core, 16, rng),
                pairs(&ext, &ext, 16, rng),
                false,
            )
        }
        _ => {
            let bits = ty.carrier_bits().clamp(1, 64) as u32;
            (int_values(bits, false), int_values(bits, true), false)
        }
    }
}

/// One input lane of a case: a lane of a source register or of memory.
pub(crate) struct Slot {
    pub(crate) tensor: usize,
    pub(crate) lane: usize,
    pub(crate) ty: PtxType,
    pub(crate) core: Vec<u64>,
    pub(crate) values: Vec<u64>,
    /// Only `values` are legal inputs.
    pub(crate) restricted: bool,
    pub(crate) width: u32,
}

/// `n` rows of one value per slot: the cartesian product of the core
/// lists where it is small (else of the first two), each extended value at
/// least once, then random mixes of specials and random bits.
pub(crate) fn build_rows(slots: &[Slot], n: usize, rng: &mut Rng) -> Vec<Vec<u64>> {
    let mut rows: Vec<Vec<u64>> = Vec::with_capacity(n);
    if slots.is_empty() {
        return vec![Vec::new(); n];
    }
    let random_core =
        |rng: &mut Rng| -> Vec<u64> { slots.iter().map(|s| rng.pick(&s.core)).collect() };
    let product = slots
        .iter()
        .try_fold(1usize, |a, s| a.checked_mul(s.core.len()))
        .unwrap_or(usize::MAX);
    if product <= n / 2 {
        for mut k in 0..product {
            rows.push(
                slots
                    .iter()
                    .map(|s| {
                        let v = s.core[k % s.core.len()];
                        k /= s.core.len();
                        v
                    })
                    .collect(),
            );
        }
    } else if slots.len() >= 2 && slots[0].core.len() * slots[1].core.len() <= n / 2 {
        for &a in &slots[0].core {
            for &b in &slots[1].core {
                let mut row = random_core(rng);
                row[0] = a;
                row[1] = b;
                rows.push(row);
            }
        }
    }
    'coverage: for (j, s) in slots.iter().enumerate() {
        for &v in &s.values {
            if rows.len() >= n * 3 / 4 {
                break 'coverage;
            }
            let mut row = random_core(rng);
            row[j] = v;
            rows.push(row);
        }
    }
    while rows.len() < n {
        let mut row = Vec::with_capacity(slots.len());
        for (j, s) in slots.iter().enumerate() {
            let same_type: Vec<usize> = (0..j).filter(|&k| slots[k].ty == s.ty).collect();
            let v = if s.restricted {
                rng.pick(&s.values)
            } else {
                match rng.below(10) {
                    0..=3 => rng.pick(&s.values),
                    9 if !same_type.is_empty() => row[same_type[rng.below(same_type.len())]],
                    _ => rng.next_u64() & mask(s.width),
                }
            };
            row.push(v);
        }
        rows.push(row);
    }
    rows.truncate(n);
    rows
}
