//! The lowered IR as bytes: how a compiled [`Program`] travels from the
//! `#[tile_kernel]` macro (which embeds it in the kernel's spec as a byte
//! string) to the runtime's CPU interpreter (which decodes it at the first
//! launch on a CPU device).
//!
//! The format is a 4-byte magic (`TKIR`), a format version (one byte,
//! [`FORMAT_VERSION`]), the PTX table's fingerprint (8 bytes, little
//! endian, [`crate::ptx::table::fingerprint`]: statements name their table
//! variant by position), then the program in [postcard]'s encoding of its
//! serde derive. postcard because it is compact (varint integers, no field
//! names: README's `to_half` encodes in 2.2 KB, under half its PTX), fast
//! and deterministic, small (serde plus `cobs`), well kept, and usable
//! without `std` should the runtime ever need that. The version byte and
//! the fingerprint make a program encoded by another version of this crate,
//! or against another build of the table, a clean [`DecodeError`] instead
//! of a misread; the decoder also refuses trailing bytes.
//!
//! [postcard]: https://docs.rs/postcard

use std::fmt;

use crate::program::Program;
use crate::ptx::table::fingerprint;

/// The first bytes of every encoded program.
pub const MAGIC: [u8; 4] = *b"TKIR";

/// Bumped whenever the IR types change shape: a program encoded with
/// another version does not decode.
pub const FORMAT_VERSION: u8 = 11;

/// The magic, the version and the table's fingerprint.
fn header() -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1024);
    bytes.extend_from_slice(&MAGIC);
    bytes.push(FORMAT_VERSION);
    bytes.extend_from_slice(&fingerprint().to_le_bytes());
    bytes
}

/// Encodes `program` (magic, version, table fingerprint, postcard body).
pub fn encode(program: &Program) -> Vec<u8> {
    let bytes = header();
    // Serializing into a `Vec` fails only for types serde cannot represent
    // (none in the IR: no maps with unsized keys, no sequences of unknown
    // length), so this never errors; a failure would leave the body empty
    // and `decode` would report it.
    match postcard::to_extend(program, bytes) {
        Ok(bytes) => bytes,
        Err(_) => header(),
    }
}

/// Decodes what [`encode`] produced; every byte must be used.
pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
    let body = bytes.strip_prefix(&MAGIC).ok_or(DecodeError::NotAProgram)?;
    let (&version, body) = body.split_first().ok_or(DecodeError::NotAProgram)?;
    if version != FORMAT_VERSION {
        return Err(DecodeError::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let (table, body) = body.split_at_checked(8).ok_or(DecodeError::NotAProgram)?;
    let table = u64::from_le_bytes(table.try_into().map_err(|_| DecodeError::NotAProgram)?);
    if table != fingerprint() {
        return Err(DecodeError::Table {
            found: table,
            expected: fingerprint(),
        });
    }
    let (program, rest) =
        postcard::take_from_bytes::<Program>(body).map_err(|e| DecodeError::Body(e.to_string()))?;
    if !rest.is_empty() {
        return Err(DecodeError::TrailingBytes(rest.len()));
    }
    Ok(program)
}

/// Why bytes are not an encoded [`Program`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes do not start with [`MAGIC`], a version byte and a table
    /// fingerprint (an empty slice is this too).
    NotAProgram,
    /// Encoded by a version of tile-kernel with another IR format.
    Version { found: u8, expected: u8 },
    /// Encoded against another build of the PTX table (its fingerprint).
    Table { found: u64, expected: u64 },
    /// The body is not a program (truncated or corrupt); postcard's message.
    Body(String),
    /// A whole program was decoded, but this many bytes follow it.
    TrailingBytes(usize),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotAProgram => {
                f.write_str("not an encoded tile-kernel program (no `TKIR` header)")
            }
            DecodeError::Version { found, expected } => write!(
                f,
                "the program was encoded in IR format {found}, but this tile-kernel reads format {expected} (rebuild the kernel with the same tile-kernel version as the runtime)"
            ),
            DecodeError::Table { found, expected } => write!(
                f,
                "the program was encoded against PTX table {found:016x}, but this tile-kernel's table is {expected:016x} (rebuild the kernel with the same tile-kernel version as the runtime)"
            ),
            DecodeError::Body(why) => write!(f, "the encoded program is corrupt: {why}"),
            DecodeError::TrailingBytes(count) => write!(
                f,
                "the encoded program is corrupt: {count} bytes follow the program"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;
    use crate::DType;
    use crate::ast::build::{
        SPAN as S, alloc, apply, binary, call, int, kernel, name, place, tensor,
    };
    use crate::ast::*;
    use crate::program::{Node, OperandValue};
    use crate::sym::Poly;

    /// `s![start..end]`.
    fn rows(start: Expr, end: Expr) -> ViewKind {
        ViewKind::Slice(vec![SliceItem::Range {
            start: Some(start),
            end: Some(end),
            step: 1,
            span: S,
        }])
    }

    /// `[index]`.
    fn at(index: Expr) -> ViewKind {
        ViewKind::Slice(vec![SliceItem::Index { index, span: S }])
    }

    /// The seed kernel: constant shapes, register views, three forms.
    fn narrow_pairs() -> Kernel {
        let pair = |column: i64| {
            ViewKind::Slice(vec![
                SliceItem::range(None, None, 1, S),
                SliceItem::range(Some(column), Some(column + 1), 1, S),
            ])
        };
        kernel(
            "narrow_pairs",
            [int(1), int(1), int(1)],
            [1, 1, 1],
            vec![
                tensor("a", DType::F32, vec![int(4), int(2)]),
                tensor("out", DType::U32, vec![int(4), int(1)]),
            ],
            vec![
                alloc("r", DType::F32, &[4, 2]),
                alloc("d", DType::U32, &[4, 1]),
                apply(
                    "ld.global.v2.f32",
                    vec![place("r", vec![]), place("a", vec![])],
                ),
                apply(
                    "cvt.rn.f16x2.f32",
                    vec![
                        place("d", vec![]),
                        place("r", vec![pair(1)]),
                        place("r", vec![pair(0)]),
                    ],
                ),
                apply(
                    "st.global.b32",
                    vec![place("out", vec![]), place("d", vec![])],
                ),
            ],
        )
    }

    /// README's `to_half`: a size symbol, a grid formula, runtime indices,
    /// a runtime `if` and a scalar tail under per-element conditions, so
    /// atoms, polynomials, conditions and symbolic memory offsets all occur.
    fn to_half() -> Kernel {
        let base = || name("base");
        let n = || name("N");
        let add = |a, b| binary(BinOp::Add, a, b);
        let element = |k: Expr| rows(add(base(), k.clone()), add(add(base(), k), int(1)));
        let tail = Stmt::For(For {
            var: "k".into(),
            var_span: S,
            start: int(0),
            end: int(8),
            step: None,
            body: vec![Stmt::If(If {
                cond: binary(BinOp::Lt, add(base(), name("k")), n()),
                then: vec![
                    apply(
                        "ld.global.f32",
                        vec![
                            place("v", vec![at(name("k"))]),
                            place("x", vec![element(name("k"))]),
                        ],
                    ),
                    apply(
                        "cvt.rn.f16.f32",
                        vec![
                            place("h", vec![at(name("k"))]),
                            place("v", vec![at(name("k"))]),
                        ],
                    ),
                    apply(
                        "st.global.b16",
                        vec![
                            place("y", vec![element(name("k"))]),
                            place("h", vec![at(name("k"))]),
                        ],
                    ),
                ],
                otherwise: vec![],
                span: S,
            })],
            span: S,
        });
        let body = Stmt::If(If {
            cond: binary(BinOp::Le, add(base(), int(8)), n()),
            then: vec![
                apply(
                    "ld.global.v4.f32",
                    vec![
                        place("r", vec![]),
                        place(
                            "x",
                            vec![
                                rows(base(), add(base(), int(8))),
                                ViewKind::Reshape(vec![2, 4]),
                            ],
                        ),
                    ],
                ),
                apply(
                    "cvt.rn.f16x2.f32",
                    vec![
                        place("d", vec![ViewKind::Reshape(vec![4, 1])]),
                        place(
                            "r",
                            vec![
                                ViewKind::Reshape(vec![4, 2]),
                                ViewKind::Slice(vec![
                                    SliceItem::range(None, None, 1, S),
                                    SliceItem::range(Some(1), Some(2), 1, S),
                                ]),
                            ],
                        ),
                        place(
                            "r",
                            vec![
                                ViewKind::Reshape(vec![4, 2]),
                                ViewKind::Slice(vec![
                                    SliceItem::range(None, None, 1, S),
                                    SliceItem::range(Some(0), Some(1), 1, S),
                                ]),
                            ],
                        ),
                    ],
                ),
                apply(
                    "st.global.v4.b32",
                    vec![
                        place(
                            "y",
                            vec![
                                rows(base(), add(base(), int(8))),
                                ViewKind::View(DType::U32),
                                ViewKind::Reshape(vec![1, 4]),
                            ],
                        ),
                        place("d", vec![]),
                    ],
                ),
            ],
            otherwise: vec![tail],
            span: S,
        });
        kernel(
            "to_half",
            [call("ceil_div", vec![n(), int(2048)]), int(1), int(1)],
            [256, 1, 1],
            vec![
                tensor("x", DType::F32, vec![n()]),
                tensor("y", DType::U16, vec![n()]),
            ],
            vec![
                Stmt::Let(Let {
                    name: "base".into(),
                    name_span: S,
                    value: binary(
                        BinOp::Mul,
                        add(
                            binary(BinOp::Mul, call("cta_id", vec![int(0)]), int(256)),
                            call("thread_id", vec![int(0)]),
                        ),
                        int(8),
                    ),
                    span: S,
                }),
                alloc("r", DType::F32, &[2, 4]),
                alloc("d", DType::U32, &[1, 4]),
                alloc("v", DType::F32, &[8, 1]),
                alloc("h", DType::F16, &[8, 1]),
                body,
            ],
        )
    }

    fn compiled(kernel: &Kernel) -> Program {
        let compilation = crate::compile(kernel);
        assert!(
            compilation.diagnostics.is_empty(),
            "{}: {:#?}",
            kernel.name,
            compilation.diagnostics
        );
        compilation.program.expect("a legal kernel has a program")
    }

    /// Decoding gives back exactly the program (which then emits the same
    /// PTX), and encoding is deterministic.
    fn round_trips(program: &Program) {
        let bytes = encode(program);
        assert!(bytes.starts_with(b"TKIR"));
        let decoded = decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", program.name));
        assert_eq!(&decoded, program);
        assert_eq!(crate::emit::emit(&decoded), crate::emit::emit(program));
        assert_eq!(encode(&decoded), bytes);
    }

    #[test]
    fn compiled_programs_round_trip() {
        let seed = compiled(&narrow_pairs());
        round_trips(&seed);

        let scale = compiled(&to_half());
        assert_eq!(scale.symbols.len(), 1);
        assert!(scale.launch.grid[0].as_const().is_none());
        assert!(
            scale.body.iter().any(|n| matches!(n, Node::If { .. })),
            "{:#?}",
            scale.body
        );
        round_trips(&scale);
    }

    #[test]
    fn polynomials_decode_to_their_canonical_form() {
        let p = Poly::atom(3)
            .mul(&Poly::atom(1))
            .scale(-7)
            .add_const(i128::MAX)
            .add(&Poly::atom(0).scale(i128::MIN));
        let bytes = postcard::to_allocvec(&p).expect("encodes");
        assert_eq!(postcard::from_bytes::<Poly>(&bytes).expect("decodes"), p);
        // A non-canonical encoding (unsorted monomial, zero coefficient)
        // decodes to the canonical polynomial.
        #[derive(Serialize)]
        struct Raw {
            terms: std::collections::BTreeMap<Vec<u32>, i128>,
        }
        let raw = Raw {
            terms: [(vec![2, 1], 5), (vec![1, 2], -2), (vec![7], 0)]
                .into_iter()
                .collect(),
        };
        let bytes = postcard::to_allocvec(&raw).expect("encodes");
        let want = Poly::atom(1).mul(&Poly::atom(2)).scale(3);
        assert_eq!(postcard::from_bytes::<Poly>(&bytes).expect("decodes"), want);
    }

    #[test]
    fn every_operand_kind_round_trips() {
        let mut program = compiled(&narrow_pairs());
        let extra = [
            OperandValue::Param { param: 0, bits: 32 },
            OperandValue::Constant {
                value: u64::MAX,
                bits: 64,
            },
            OperandValue::Special {
                name: "%clock64".into(),
            },
            OperandValue::Immediate { value: i64::MIN },
        ];
        let Some(Node::Statement(statement)) = program.body.first_mut() else {
            panic!("the seed starts with a statement: {:#?}", program.body);
        };
        statement.instructions[0].operands.extend(extra);
        round_trips(&program);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        let bytes = encode(&compiled(&narrow_pairs()));
        assert_eq!(decode(&[]), Err(DecodeError::NotAProgram));
        assert_eq!(decode(b"TKIR"), Err(DecodeError::NotAProgram));
        assert_eq!(decode(b"PTX!\x01"), Err(DecodeError::NotAProgram));
        let mut other_version = bytes.clone();
        other_version[4] = FORMAT_VERSION.wrapping_add(1);
        assert!(matches!(
            decode(&other_version),
            Err(DecodeError::Version { .. })
        ));
        let mut other_table = bytes.clone();
        other_table[5] ^= 1;
        assert!(matches!(
            decode(&other_table),
            Err(DecodeError::Table { .. })
        ));
        assert_eq!(decode(&bytes[..12]), Err(DecodeError::NotAProgram));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), Err(DecodeError::TrailingBytes(1)));
        for cut in 13..bytes.len() {
            assert!(
                matches!(decode(&bytes[..cut]), Err(DecodeError::Body(_))),
                "cut at {cut}"
            );
        }
        assert!(
            decode(&bytes[..bytes.len() - 1])
                .unwrap_err()
                .to_string()
                .starts_with("the encoded program is corrupt")
        );
    }
}
