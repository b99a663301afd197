//! Logic, shifts and bit fields (ISA 9.7.8): `and`, `or`, `xor`, `not`,
//! `cnot` (also on predicates), `lop3` (also `lop3.BoolOp` with its `d|p`),
//! `shl`, `shr`, `shf`, `prmt`, `bfe`, `bfi`, `bfind`, `brev`, `popc`,
//! `clz`, `bmsk`, `szext`, `fns`.
//!
//! Shift amounts, positions and lengths are the ISA's unsigned register
//! values: every out-of-range amount has the ISA's defined result (zero,
//! sign fill, clamping or wrapping), never a host-side overflow.

use super::integer::{Int, binary, sext, ternary, unary};
use super::{Bits, Compute, mask};
use tile_kernel_lowering::ptx::Slot;
use tile_kernel_lowering::ptx::{Modifiers, PtxType};

/// The semantics of a logic/shift/bit-field variant, or `None` for other forms.
pub(crate) fn compute(m: &Modifiers) -> Option<Compute> {
    match m.form.id {
        "and" | "or" | "xor" => {
            let bits = width(m)?;
            let f = logic(m.form.mnemonic)?;
            Some(binary(move |a, b| mask(f(a, b), bits)))
        }
        "and.pred" | "or.pred" | "xor.pred" => {
            let f = logic(m.form.mnemonic)?;
            Some(binary(move |a, b| f(a, b) & 1))
        }
        "not" => {
            let bits = width(m)?;
            Some(unary(move |a| mask(!a, bits)))
        }
        "not.pred" => Some(unary(|a| !a & 1)),
        "cnot" => {
            let bits = width(m)?;
            Some(unary(move |a| Bits::from(mask(a, bits) == 0)))
        }
        "lop3" => Some(Compute::new(4, 1, |s, d| {
            d[0] = lop3(s[0], s[1], s[2], s[3]);
        })),
        "lop3.bool" => {
            let and = m.get(Slot::Boolop) == Some("and");
            Some(Compute::new(5, 2, move |s, d| {
                let value = lop3(s[0], s[1], s[2], s[3]);
                let (t, q) = (value != 0, s[4] & 1 != 0);
                d[0] = value;
                d[1] = Bits::from(if and { t && q } else { t || q });
            }))
        }
        "shl" => {
            let bits = width(m)?;
            Some(binary(move |a, n| {
                let n = mask(n, 32);
                if n >= bits as u64 {
                    0
                } else {
                    mask(a << n, bits)
                }
            }))
        }
        "shr" => Some(shr(Int::of(m.ty(Slot::Type)?)?)),
        "shf" => {
            let left = m.get(Slot::Dir) == Some("l");
            let clamp = m.get(Slot::Mode) == Some("clamp");
            Some(ternary(move |a, b, c| {
                let c = c as u32;
                let n = if clamp { c.min(32) } else { c & 31 };
                let wide = (mask(b, 32) << 32) | mask(a, 32);
                if left {
                    mask((wide << n) >> 32, 32)
                } else {
                    mask(wide >> n, 32)
                }
            }))
        }
        "prmt" => prmt(m.get(Slot::Mode)),
        "bfe" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            Some(ternary(move |a, b, c| bfe(int, a, b, c)))
        }
        "bfi" => {
            let bits = width(m)?;
            Some(Compute::new(4, 1, move |s, d| {
                d[0] = bfi(bits as u32, s[0], s[1], s[2], s[3]);
            }))
        }
        "bfind" => {
            let int = Int::of(m.ty(Slot::Type)?)?;
            let shiftamt = m.has(Slot::Shiftamt);
            Some(unary(move |a| bfind(int, shiftamt, a)))
        }
        "brev" => {
            let bits = width(m)?;
            Some(unary(move |a| a.reverse_bits() >> (64 - bits)))
        }
        "popc" => {
            let bits = width(m)?;
            Some(unary(move |a| Bits::from(mask(a, bits).count_ones())))
        }
        "clz" => {
            let bits = width(m)?;
            // The value sits in the low `bits` of a u64: drop the zeros above it.
            Some(unary(move |a| {
                Bits::from(mask(a, bits).leading_zeros() - (64 - bits as u32))
            }))
        }
        "bmsk" => {
            let clamp = m.get(Slot::Mode) == Some("clamp");
            Some(binary(move |a, b| bmsk(clamp, a as u32, b as u32)))
        }
        "szext" => {
            let clamp = m.get(Slot::Mode) == Some("clamp");
            let signed = m.ty(Slot::Type) == Some(PtxType::S32);
            Some(binary(move |a, b| szext(clamp, signed, a as u32, b as u32)))
        }
        "fns" => Some(ternary(|mask_bits, base, offset| {
            fns(mask_bits as u32, base as u32, offset as u32 as i32)
        })),
        _ => None,
    }
}

/// The register width of the variant's `type` slot.
fn width(m: &Modifiers) -> Option<usize> {
    Some(m.ty(Slot::Type)?.carrier_bits())
}

/// The bitwise function of `and`/`or`/`xor`.
fn logic(mnemonic: &str) -> Option<fn(Bits, Bits) -> Bits> {
    Some(match mnemonic {
        "and" => |a, b| a & b,
        "or" => |a, b| a | b,
        "xor" => |a, b| a ^ b,
        _ => return None,
    })
}

/// `shr`: zero fill for `.bN`/`.uN`, sign fill for `.sN`; any amount at
/// or past the width shifts every bit out.
fn shr(int: Int) -> Compute {
    let bits = int.bits;
    binary(move |a, n| {
        let n = mask(n, 32);
        if int.signed {
            let n = n.min(u64::from(bits) - 1);
            mask((sext(a, bits) >> n) as Bits, bits as usize)
        } else if n >= u64::from(bits) {
            0
        } else {
            mask(a, bits as usize) >> n
        }
    })
}

/// `lop3`: bit `i` of `lut` is the result for the inputs `(a, b, c)` whose
/// bits spell `i = 4a + 2b + c` (so `0xF0` is `a`, `0xCC` `b`, `0xAA` `c`).
fn lop3(a: Bits, b: Bits, c: Bits, lut: Bits) -> Bits {
    let (a, b, c) = (a as u32, b as u32, c as u32);
    let mut d = 0u32;
    for i in 0..8 {
        if lut >> i & 1 == 1 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    Bits::from(d)
}

/// The byte selector patterns of `prmt`'s modes, indexed by `c & 3`: the
/// source byte (of `{b, a}`, `a` = bytes 0-3) of each destination byte,
/// lowest first (ISA 9.7.8.7's table, which lists them highest first).
fn prmt_mode_table(mode: &str) -> Option<[[u8; 4]; 4]> {
    let mut table = [[0u8; 4]; 4];
    for (n, row) in table.iter_mut().enumerate() {
        for (k, sel) in row.iter_mut().enumerate() {
            *sel = match mode {
                // Forward 4 extract: bytes n..n+3.
                "f4e" => n + k,
                // Backward 4 extract: bytes n, n-1, n-2, n-3 (mod 8).
                "b4e" => (n + 8 - k) % 8,
                // Replicate byte n.
                "rc8" => n,
                // Edge clamp left: byte max(k, n).
                "ecl" => k.max(n),
                // Edge clamp right: byte min(k, n).
                "ecr" => k.min(n),
                // Replicate the 16-bit half n & 1.
                "rc16" => 2 * (n & 1) + (k & 1),
                _ => return None,
            } as u8;
        }
    }
    Some(table)
}

/// `prmt.b32{.mode} d, a, b, c`.
fn prmt(mode: Option<&str>) -> Option<Compute> {
    let Some(mode) = mode else {
        // Default mode: c's nibble k selects destination byte k; bit 3 of
        // a nibble replicates the selected byte's sign bit over the byte.
        return Some(ternary(|a, b, c| {
            let bytes = (mask(b, 32) << 32) | mask(a, 32);
            let mut d = 0;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xf;
                let mut byte = (bytes >> (8 * (sel & 7))) & 0xff;
                if sel & 8 != 0 {
                    byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= byte << (8 * k);
            }
            d
        }));
    };
    let table = prmt_mode_table(mode)?;
    Some(ternary(move |a, b, c| {
        let bytes = (mask(b, 32) << 32) | mask(a, 32);
        let row = table[(c & 3) as usize];
        let mut d = 0;
        for (k, sel) in row.iter().enumerate() {
            d |= ((bytes >> (8 * sel)) & 0xff) << (8 * k);
        }
        d
    }))
}

/// How much of `bfe`/`bfi`'s position and length operands counts: the
/// ISA's `& 0xff` for the 32-bit types; for the 64-bit types the H200
/// uses the whole 32-bit values (measured: `bfe.u64` with position 0x100
/// gives 0 where `& 0xff` would give position 0).
fn field_operand_mask(bits: u32) -> u64 {
    if bits == 64 { 0xffff_ffff } else { 0xff }
}

/// `bfe`: `len` bits of `a` from `pos` (`b`, `c` read through
/// [`field_operand_mask`]); bits past the field (or past the register)
/// are the field's sign for `.sN` (zero for `.uN` and for a zero length).
fn bfe(int: Int, a: Bits, b: Bits, c: Bits) -> Bits {
    let msb = u64::from(int.bits - 1);
    let operand = field_operand_mask(int.bits);
    let (pos, len) = (b & operand, c & operand);
    let sbit = if !int.signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let fill = if sbit == 1 { Bits::MAX } else { 0 };
    // The bits of the field that exist: i < len and pos + i <= msb.
    let taken = if pos > msb { 0 } else { len.min(msb + 1 - pos) };
    let field = if taken == 0 {
        0
    } else {
        mask(a >> pos, taken as usize)
    };
    let high = if taken >= 64 { 0 } else { fill << taken };
    mask(field | high, int.bits as usize)
}

/// `bfi`: `b` with the `len` bits from `pos` (`c`, `d` read through
/// [`field_operand_mask`]) replaced by the low bits of `a`; bits past the
/// register are dropped.
fn bfi(bits: u32, a: Bits, b: Bits, c: Bits, d: Bits) -> Bits {
    let msb = u64::from(bits - 1);
    let operand = field_operand_mask(bits);
    let (pos, len) = (c & operand, d & operand);
    let b = mask(b, bits as usize);
    if pos > msb || len == 0 {
        return b;
    }
    let taken = len.min(msb + 1 - pos);
    let field = mask(Bits::MAX, taken as usize) << pos;
    (b & !field) | ((a << pos) & field)
}

/// `bfind{.shiftamt}`: the position of the most significant bit that
/// differs from the sign (`.sN`: of `~a` for negative `a`), 0xffffffff if
/// none; `.shiftamt` gives `msb - position` instead.
fn bfind(int: Int, shiftamt: bool, a: Bits) -> Bits {
    let msb = int.bits - 1;
    let mut a = mask(a, int.bits as usize);
    if int.signed && (a >> msb) & 1 == 1 {
        a = mask(!a, int.bits as usize);
    }
    if a == 0 {
        return 0xffff_ffff;
    }
    let position = 63 - a.leading_zeros();
    Bits::from(if shiftamt { msb - position } else { position })
}

/// `bmsk.mode.b32 d, a, b`: `b` one-bits from bit `a`. `.wrap` takes both
/// mod 32; `.clamp` makes a position >= 32 give 0 and a width >= 32 reach
/// bit 31; a field running past bit 31 stops there.
fn bmsk(clamp: bool, a: u32, b: u32) -> Bits {
    let (a1, b1) = (a & 31, b & 31);
    let mut mask0 = u32::MAX << a1;
    let mut overflow = a1 + b1 >= 32;
    if clamp {
        if a >= 32 {
            mask0 = 0;
            overflow = true;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        u32::MAX
    } else {
        u32::MAX << (a1 + b1)
    };
    Bits::from(mask0 & !mask1)
}

/// `szext.mode.{u32,s32} d, a, b`: the low `b` bits of `a`, zero- or
/// sign-extended. `b == 0` gives 0; `b >= 32` gives `a` with `.clamp` and
/// uses `b & 31` with `.wrap`.
fn szext(clamp: bool, signed: bool, a: u32, b: u32) -> Bits {
    let n = b & 31;
    let too_large = clamp && b >= 32;
    let high = if too_large { 0 } else { u32::MAX << n };
    let sign = signed && n != 0 && !too_large && (a >> ((n - 1) & 31)) & 1 == 1;
    Bits::from((a & !high) | if sign { high } else { 0 })
}

/// `fns.b32 d, mask, base, offset`: the position of the `|offset|`-th set
/// bit of `mask` counting from bit `base` (upwards for a positive offset,
/// downwards for a negative one, `base` itself for zero), 0xffffffff if
/// there is none or `base` is 32 or more. The ISA's pseudo-code, except
/// that an offset of `i32::MIN` gives 0 on the H200 (measured, for every
/// mask and base).
fn fns(mask_bits: u32, base: u32, offset: i32) -> Bits {
    const NONE: Bits = 0xffff_ffff;
    if offset == i32::MIN {
        return 0;
    }
    if base >= 32 {
        return NONE;
    }
    if offset == 0 {
        return if (mask_bits >> base) & 1 == 1 {
            Bits::from(base)
        } else {
            NONE
        };
    }
    let mut count = offset.unsigned_abs();
    let mut pos = base as i32;
    let step = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if (mask_bits >> pos) & 1 == 1 {
            count -= 1;
            if count == 0 {
                return pos as Bits;
            }
        }
        pos += step;
    }
    NONE
}
