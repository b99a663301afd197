//! Fragment layouts of the warp matrix instructions (`mma.sync`): which
//! element of which matrix each lane's registers hold (PTX ISA 9.7.14.5,
//! "Matrix fragments for mma.m*n*k*").
//!
//! Table data, read by the interpreter (to run `mma` on the lanes'
//! registers), by the docs (the formulas in `docs/tensor-cores.md` and
//! `docs/ptx-table.md`) and by tests (to load and store fragments). Every
//! layout of the ISA for these shapes is a *bit layout*: each bit of the
//! lane id and each bit of the element index adds a power of two to the
//! row or to the column. A lane's elements are numbered register by
//! register, low bits first inside a register (`{a0, a1}` of `.f16x2`
//! pairs: element 0 is the low half of `a0`).
//!
//! B is described as the `K x N` matrix it is (row = k, column = n); `A`
//! is `M x K` and C/D `M x N`. Checked against the H200 bit for bit by
//! `tests/tensor_cores.rs` (the interpreter runs each shape from these
//! layouts; the GPU runs the instruction).

/// A matrix axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Row,
    Col,
}

/// What one bit of the lane id or element index adds: `stride` to `axis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bit {
    pub axis: Axis,
    pub stride: u32,
}

const fn r(stride: u32) -> Bit {
    Bit {
        axis: Axis::Row,
        stride,
    }
}

const fn c(stride: u32) -> Bit {
    Bit {
        axis: Axis::Col,
        stride,
    }
}

/// One operand's layout over a warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentLayout {
    pub rows: u32,
    pub cols: u32,
    /// The element index's bits, lowest first.
    pub element: &'static [Bit],
    /// The lane id's bits, lowest first (all five: every lane holds a part).
    pub lane: &'static [Bit; 5],
}

impl FragmentLayout {
    /// Elements each lane holds.
    pub const fn elements(&self) -> u32 {
        1 << self.element.len()
    }

    /// The `(row, column)` of lane `lane`'s element `element`.
    pub fn coordinates(&self, lane: u32, element: u32) -> (u32, u32) {
        let (mut row, mut col) = (0, 0);
        let bits = self.lane.iter().map(|b| (b, lane)).enumerate();
        let element_bits = self.element.iter().map(|b| (b, element)).enumerate();
        for (i, (bit, value)) in bits.chain(element_bits) {
            if value >> i & 1 == 1 {
                match bit.axis {
                    Axis::Row => row += bit.stride,
                    Axis::Col => col += bit.stride,
                }
            }
        }
        (row, col)
    }

    /// The formula of the row or column, as `lane`- and `i`-terms:
    /// `"lane / 4 + 8 * (i / 2 % 2)"`-like text for docs, written with the
    /// bit fields grouped (`(lane >> 2) & 7` becomes `lane / 4 % 8`).
    pub fn formula(&self, axis: Axis) -> String {
        let mut terms = Vec::new();
        terms.extend(fields(self.lane, axis, "lane", 5));
        terms.extend(fields(self.element, axis, "i", self.element.len() as u32));
        if terms.is_empty() {
            return "0".to_string();
        }
        terms.join(" + ")
    }
}

/// Runs of consecutive bits of `name` that add consecutive powers of two
/// to `axis`, as `stride * (name / 2^low % 2^len)` terms.
fn fields(bits: &[Bit], axis: Axis, name: &str, width: u32) -> Vec<String> {
    let mut terms = Vec::new();
    let mut i = 0;
    while i < bits.len() {
        if bits[i].axis != axis {
            i += 1;
            continue;
        }
        let (low, stride) = (i, bits[i].stride);
        while i + 1 < bits.len()
            && bits[i + 1].axis == axis
            && bits[i + 1].stride == bits[i].stride * 2
        {
            i += 1;
        }
        let len = (i - low + 1) as u32;
        let mut term = name.to_string();
        if low > 0 {
            term = format!("{term} / {}", 1u32 << low);
        }
        if low as u32 + len < width {
            term = format!("{term} % {}", 1u32 << len);
        }
        terms.push(if stride == 1 {
            term
        } else if term.contains(' ') {
            format!("{stride} * ({term})")
        } else {
            format!("{stride} * {term}")
        });
        i += 1;
    }
    terms
}

/// The lane bits of every m16n8 and m8n8 layout: lane % 4 ("threadID_in_group")
/// picks along one axis, lane / 4 ("groupID") the other.
const fn lanes(low: [Bit; 2], group: Axis) -> [Bit; 5] {
    [
        low[0],
        low[1],
        Bit {
            axis: group,
            stride: 1,
        },
        Bit {
            axis: group,
            stride: 2,
        },
        Bit {
            axis: group,
            stride: 4,
        },
    ]
}

/// The three operand layouts of one `mma` shape and multiplicand width.
#[derive(Debug, Clone, Copy)]
pub struct MmaLayouts {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a: FragmentLayout,
    pub b: FragmentLayout,
    pub c: FragmentLayout,
}

/// C/D of every m16n8 shape: lane % 4 picks column pairs, lane / 4 the row;
/// element i: i % 2 the column in the pair, i / 2 the row half.
const C_M16N8: FragmentLayout = FragmentLayout {
    rows: 16,
    cols: 8,
    element: &[c(1), r(8)],
    lane: &lanes([c(2), c(4)], Axis::Row),
};

/// C/D of the m8n8 shapes: two consecutive columns per lane.
const C_M8N8: FragmentLayout = FragmentLayout {
    rows: 8,
    cols: 8,
    element: &[c(1)],
    lane: &lanes([c(2), c(4)], Axis::Row),
};

macro_rules! layouts {
    ($($name:ident: $m:literal x $n:literal x $k:literal,
        a [$($ae:expr),*] lane [$al0:expr, $al1:expr] group $ag:ident,
        b [$($be:expr),*] lane [$bl0:expr, $bl1:expr] group $bg:ident,
        c $c:ident;)*) => {
        $(
            const $name: MmaLayouts = MmaLayouts {
                m: $m,
                n: $n,
                k: $k,
                a: FragmentLayout {
                    rows: $m,
                    cols: $k,
                    element: &[$($ae),*],
                    lane: &lanes([$al0, $al1], Axis::$ag),
                },
                b: FragmentLayout {
                    rows: $k,
                    cols: $n,
                    element: &[$($be),*],
                    lane: &lanes([$bl0, $bl1], Axis::$bg),
                },
                c: $c,
            };
        )*
    };
}

layouts! {
    // 16-bit multiplicands (f16, bf16), k16: A a0..a3 = rows g, g+8, g, g+8
    // at columns 2t.., 2t.., 2t+8.., 2t+8..; B b0, b1 = k 2t.., 2t+8...
    M16N8K16_B16: 16 x 8 x 16,
        a [c(1), r(8), c(8)] lane [c(2), c(4)] group Row,
        b [r(1), r(8)] lane [r(2), r(4)] group Col,
        c C_M16N8;
    M16N8K8_B16: 16 x 8 x 8,
        a [c(1), r(8)] lane [c(2), c(4)] group Row,
        b [r(1)] lane [r(2), r(4)] group Col,
        c C_M16N8;
    // tf32 (one element per register): A a0..a3 = (g, t), (g+8, t),
    // (g, t+4), (g+8, t+4); B b0, b1 = k t, t+4.
    M16N8K8_TF32: 16 x 8 x 8,
        a [r(8), c(4)] lane [c(1), c(2)] group Row,
        b [r(4)] lane [r(1), r(2)] group Col,
        c C_M16N8;
    M16N8K4_TF32: 16 x 8 x 4,
        a [r(8)] lane [c(1), c(2)] group Row,
        b [] lane [r(1), r(2)] group Col,
        c C_M16N8;
    // 8-bit multiplicands (s8, u8, e4m3, e5m2): four per register.
    M16N8K32_B8: 16 x 8 x 32,
        a [c(1), c(2), r(8), c(16)] lane [c(4), c(8)] group Row,
        b [r(1), r(2), r(16)] lane [r(4), r(8)] group Col,
        c C_M16N8;
    M16N8K16_B8: 16 x 8 x 16,
        a [c(1), c(2), r(8)] lane [c(4), c(8)] group Row,
        b [r(1), r(2)] lane [r(4), r(8)] group Col,
        c C_M16N8;
    // 4-bit multiplicands (s4, u4): eight per register.
    M16N8K64_B4: 16 x 8 x 64,
        a [c(1), c(2), c(4), r(8), c(32)] lane [c(8), c(16)] group Row,
        b [r(1), r(2), r(4), r(32)] lane [r(8), r(16)] group Col,
        c C_M16N8;
    M16N8K32_B4: 16 x 8 x 32,
        a [c(1), c(2), c(4), r(8)] lane [c(8), c(16)] group Row,
        b [r(1), r(2), r(4)] lane [r(8), r(16)] group Col,
        c C_M16N8;
    // Single bits: 32 per register.
    M16N8K256_B1: 16 x 8 x 256,
        a [c(1), c(2), c(4), c(8), c(16), r(8), c(128)] lane [c(32), c(64)] group Row,
        b [r(1), r(2), r(4), r(8), r(16), r(128)] lane [r(32), r(64)] group Col,
        c C_M16N8;
    M16N8K128_B1: 16 x 8 x 128,
        a [c(1), c(2), c(4), c(8), c(16), r(8)] lane [c(32), c(64)] group Row,
        b [r(1), r(2), r(4), r(8), r(16)] lane [r(32), r(64)] group Col,
        c C_M16N8;
    M8N8K128_B1: 8 x 8 x 128,
        a [c(1), c(2), c(4), c(8), c(16)] lane [c(32), c(64)] group Row,
        b [r(1), r(2), r(4), r(8), r(16)] lane [r(32), r(64)] group Col,
        c C_M8N8;
    M8N8K16_B8: 8 x 8 x 16,
        a [c(1), c(2)] lane [c(4), c(8)] group Row,
        b [r(1), r(2)] lane [r(4), r(8)] group Col,
        c C_M8N8;
    M8N8K32_B4: 8 x 8 x 32,
        a [c(1), c(2), c(4)] lane [c(8), c(16)] group Row,
        b [r(1), r(2), r(4)] lane [r(8), r(16)] group Col,
        c C_M8N8;
    // f64: one element per register; A (g, t), B (k t, n g).
    M8N8K4_F64: 8 x 8 x 4,
        a [] lane [c(1), c(2)] group Row,
        b [] lane [r(1), r(2)] group Col,
        c C_M8N8;
}

/// The layouts of `mma.sync.aligned.<shape>` with multiplicands of
/// `bits` bits (16: f16/bf16, 32: tf32, 64: f64, 8: s8/u8/e4m3/e5m2,
/// 4: s4/u4, 1: b1), or `None` for a combination PTX does not have.
pub fn mma(shape: &str, bits: u32) -> Option<&'static MmaLayouts> {
    Some(match (shape, bits) {
        ("m16n8k16", 16) => &M16N8K16_B16,
        ("m16n8k8", 16) => &M16N8K8_B16,
        ("m16n8k8", 32) => &M16N8K8_TF32,
        ("m16n8k4", 32) => &M16N8K4_TF32,
        ("m16n8k32", 8) => &M16N8K32_B8,
        ("m16n8k16", 8) => &M16N8K16_B8,
        ("m16n8k64", 4) => &M16N8K64_B4,
        ("m16n8k32", 4) => &M16N8K32_B4,
        ("m16n8k256", 1) => &M16N8K256_B1,
        ("m16n8k128", 1) => &M16N8K128_B1,
        ("m8n8k128", 1) => &M8N8K128_B1,
        ("m8n8k16", 8) => &M8N8K16_B8,
        ("m8n8k32", 4) => &M8N8K32_B4,
        ("m8n8k4", 64) => &M8N8K4_F64,
        _ => return None,
    })
}

/// Every shape of [`mma`], for tests and docs.
pub const MMA_SHAPES: &[(&str, u32)] = &[
    ("m16n8k16", 16),
    ("m16n8k8", 16),
    ("m16n8k8", 32),
    ("m16n8k4", 32),
    ("m16n8k32", 8),
    ("m16n8k16", 8),
    ("m16n8k64", 4),
    ("m16n8k32", 4),
    ("m16n8k256", 1),
    ("m16n8k128", 1),
    ("m8n8k128", 1),
    ("m8n8k16", 8),
    ("m8n8k32", 4),
    ("m8n8k4", 64),
];

/// `wgmma`'s register fragments (PTX ISA 9.7.15.5.1, "Register
/// fragments"): over a warpgroup of 128 threads, warp `w = thread / 32`
/// holds rows `16 w .. 16 w + 16` of the 64-row A and D in the layouts of
/// the m16n8 `mma` shapes, D's columns in blocks of 8.
///
/// D (64 x N) element `i` of a thread (numbered as its `N / 2` f32 or s32
/// registers; an f16 D packs elements `2 r`, `2 r + 1` into register `r`):
/// column block `i / 4`, element `i % 4` of the m16n8 C layout.
pub fn wgmma_accumulator(thread: u32, element: u32) -> (u32, u32) {
    let (row, col) = C_M16N8.coordinates(thread % 32, element % 4);
    (16 * (thread / 32) + row, 8 * (element / 4) + col)
}

/// A (64 x K) from registers: element `i` of a thread in the A layout of
/// the m16n8 shape with the same K and element width (`bits`: 16 for
/// f16/bf16 at K 16, 32 for tf32 at K 8, 8 for 8-bit types at K 32).
pub fn wgmma_a(bits: u32, thread: u32, element: u32) -> Option<(u32, u32)> {
    let shape = match bits {
        16 => "m16n8k16",
        32 => "m16n8k8",
        8 => "m16n8k32",
        _ => return None,
    };
    let (row, col) = mma(shape, bits)?.a.coordinates(thread % 32, element);
    Some((16 * (thread / 32) + row, col))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wgmma fragments cover D and A once over a warpgroup.
    #[test]
    fn wgmma_fragments_cover_their_matrices_once() {
        let n = 24;
        let mut seen = vec![false; 64 * n as usize];
        for thread in 0..128 {
            for i in 0..n / 2 {
                let (row, col) = wgmma_accumulator(thread, i);
                assert!(row < 64 && col < n);
                assert!(!std::mem::replace(
                    &mut seen[(row * n + col) as usize],
                    true
                ));
            }
        }
        assert!(seen.iter().all(|s| *s));
        for (bits, k) in [(16u32, 16u32), (32, 8), (8, 32)] {
            let mut seen = vec![false; (64 * k) as usize];
            for thread in 0..128 {
                for i in 0..128 / bits {
                    let (row, col) = wgmma_a(bits, thread, i).unwrap();
                    assert!(!std::mem::replace(
                        &mut seen[(row * k + col) as usize],
                        true
                    ));
                }
            }
            assert!(seen.iter().all(|s| *s), "{bits}");
        }
        // The ISA's D: thread 37 (warp 1, lane 5) element 6 is row 16 + 1
        // + 8, column 8 + 2 * 1.
        assert_eq!(wgmma_accumulator(37, 6), (25, 10));
    }

    /// Every layout is a bijection between (lane, element) and the matrix.
    #[test]
    fn every_layout_covers_its_matrix_once() {
        for &(shape, bits) in MMA_SHAPES {
            let layouts = mma(shape, bits).unwrap();
            for (name, layout) in [("a", layouts.a), ("b", layouts.b), ("c", layouts.c)] {
                let mut seen = vec![false; (layout.rows * layout.cols) as usize];
                for lane in 0..32 {
                    for e in 0..layout.elements() {
                        let (row, col) = layout.coordinates(lane, e);
                        assert!(row < layout.rows && col < layout.cols, "{shape} {name}");
                        let at = (row * layout.cols + col) as usize;
                        assert!(!seen[at], "{shape} {name}: ({row}, {col}) twice");
                        seen[at] = true;
                    }
                }
                assert!(seen.iter().all(|&s| s), "{shape} {name}");
            }
            assert_eq!((layouts.a.rows, layouts.a.cols), (layouts.m, layouts.k));
            assert_eq!((layouts.b.rows, layouts.b.cols), (layouts.k, layouts.n));
            assert_eq!((layouts.c.rows, layouts.c.cols), (layouts.m, layouts.n));
        }
    }

    /// The ISA's formulas for m16n8k16 with 16-bit multiplicands.
    #[test]
    fn the_m16n8k16_formulas_are_the_isa_s() {
        let l = mma("m16n8k16", 16).unwrap();
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            for i in 0..8 {
                let row = if i % 4 < 2 { g } else { g + 8 };
                let col = t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
                assert_eq!(l.a.coordinates(lane, i), (row, col));
            }
            for i in 0..4 {
                let k = t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
                assert_eq!(l.b.coordinates(lane, i), (k, g));
                let row = if i < 2 { g } else { g + 8 };
                assert_eq!(l.c.coordinates(lane, i), (row, t * 2 + (i & 1)));
            }
        }
        assert_eq!(l.a.formula(Axis::Row), "lane / 4 + 8 * (i / 2 % 2)");
        assert_eq!(
            l.a.formula(Axis::Col),
            "2 * (lane % 4) + i % 2 + 8 * (i / 4)"
        );
        assert_eq!(l.c.formula(Axis::Col), "2 * (lane % 4) + i % 2");
    }
}
