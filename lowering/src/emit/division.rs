//! Division of a non-negative 64-bit value by a constant, as a multiply.
//!
//! ptxas turns 32-bit division by a constant into a multiply-high, but
//! calls a software routine (about 70 instructions) for `div.u64`,
//! `rem.u64` and their signed forms, even by a constant. A ring index
//! `k % 3` of a 64-bit loop counter then costs more than the loop body's
//! arithmetic. The checker proves every dividend non-negative (TK0511),
//! so a dividend lies in `[0, 2^63)` and Granlund and Montgomery's
//! method applies with a 64-bit multiplier: for `d` not a power of two,
//! with `l = ceil(log2 d)` and `m = ceil(2^(63 + l) / d)` (below `2^64`),
//! `n / d = (n * m) >> (63 + l)` for every `n < 2^63`, that is
//! `mul.hi.u64(n, m) >> (l - 1)`.
//!
//! Why it is exact: `m * d = 2^(63 + l) + e` with `0 <= e < d <= 2^l`, so
//! `n * m / 2^(63 + l) = n / d + n * e / (d * 2^(63 + l))`, and the second
//! term is below `2^63 * 2^l / (d * 2^(63 + l)) = 1 / d`, less than the
//! distance from `n / d` to the next integer.

/// The multiplier and the shift after `mul.hi.u64` that divide every
/// `n < 2^63` by `d`; `None` for a power of two (a shift alone) or a
/// divisor outside `[3, 2^63)`.
pub(crate) fn magic_u63(d: u64) -> Option<(u64, u32)> {
    if d < 3 || d.is_power_of_two() || d >= 1 << 63 {
        return None;
    }
    let l = 64 - (d - 1).leading_zeros();
    let m = (1u128 << (63 + l)).div_ceil(u128::from(d));
    Some((u64::try_from(m).ok()?, l - 1))
}

#[cfg(test)]
mod tests {
    use super::magic_u63;

    fn divide(n: u64, (m, s): (u64, u32)) -> u64 {
        ((u128::from(n) * u128::from(m)) >> 64) as u64 >> s
    }

    #[test]
    fn powers_of_two_and_small_divisors_have_no_multiplier() {
        for d in [0, 1, 2, 4, 8, 1 << 40, 1 << 63, u64::MAX] {
            assert_eq!(magic_u63(d), None, "{d}");
        }
        assert!(magic_u63(3).is_some());
        assert!(magic_u63((1 << 63) - 1).is_some());
    }

    #[test]
    fn the_quotient_is_exact_for_every_non_negative_dividend() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut divisors: Vec<u64> = (3..2000).collect();
        divisors.extend([
            (1 << 32) - 1,
            (1 << 32) + 1,
            641 * 6_700_417,
            (1 << 62) + 1,
            (1 << 63) - 1,
        ]);
        divisors.extend(
            (0..300)
                .map(|_| next() >> (next() % 62))
                .filter(|d| *d >= 3),
        );
        for d in divisors {
            let Some(magic) = magic_u63(d) else { continue };
            // Near the multiples of d, the ends of the range and random values.
            let top = (1u64 << 63) - 1;
            let mut dividends = vec![
                0,
                1,
                d - 1,
                d,
                d + 1,
                top,
                top - 1,
                top - top % d,
                top - top % d - 1,
            ];
            for _ in 0..200 {
                let n = next() >> 1;
                dividends.extend([n, n - n % d, (n - n % d).saturating_sub(1)]);
            }
            for n in dividends {
                assert_eq!(divide(n, magic), n / d, "{n} / {d}");
            }
        }
    }
}
