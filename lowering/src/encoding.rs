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
//! What the macro embeds is that binary form as text: `TKIR`, then the
//! rest in standard base64 (unpadded). Every byte of the text is printable
//! ASCII with no quote or backslash, so the kernel's `b"..."` literal holds
//! each byte as itself: about 1.4 characters a byte instead of the 3 to 4
//! of the `\xNN` escapes most binary bytes need, for rustc to lex and for
//! the macro (or `proc_macro2`'s fallback outside rustc) to write.
//!
//! [postcard]: https://docs.rs/postcard

use std::fmt;

use crate::program::Program;
use crate::ptx::table::fingerprint;

/// The first bytes of every encoded program.
pub const MAGIC: [u8; 4] = *b"TKIR";

/// Bumped whenever the IR types change shape: a program encoded with
/// another version does not decode.
pub const FORMAT_VERSION: u8 = 12;

/// The magic, the version and the table's fingerprint.
fn header() -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1024);
    bytes.extend_from_slice(&MAGIC);
    bytes.push(FORMAT_VERSION);
    bytes.extend_from_slice(&fingerprint().to_le_bytes());
    bytes
}

/// Encodes `program` as the text the macro embeds: the magic, then the
/// binary form after it in base64.
pub fn encode(program: &Program) -> Vec<u8> {
    let binary = to_binary(program);
    let mut text = Vec::with_capacity(MAGIC.len() + binary.len().div_ceil(3) * 4);
    text.extend_from_slice(&MAGIC);
    base64_encode(&binary[MAGIC.len()..], &mut text);
    text
}

/// Decodes what [`encode`] produced; every byte must be used.
pub fn decode(text: &[u8]) -> Result<Program, DecodeError> {
    let rest = text.strip_prefix(&MAGIC).ok_or(DecodeError::NotAProgram)?;
    let mut binary = Vec::with_capacity(MAGIC.len() + rest.len() / 4 * 3 + 2);
    binary.extend_from_slice(&MAGIC);
    base64_decode(rest, &mut binary).ok_or(DecodeError::NotAProgram)?;
    from_binary(&binary)
}

/// Base64's 64 digits (RFC 4648's standard alphabet).
const BASE64_DIGITS: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends `bytes` in unpadded base64: four digits for each three bytes,
/// two or three for a last one or two. Written for a build without
/// optimizations (the macro's, by default), where every call stays a call:
/// the digits go by index into room made first, through slices (whose
/// indexing is built in, where a `Vec`'s is a call), with `as` casts and
/// no helper function or iterator adapter per byte.
fn base64_encode(bytes: &[u8], out: &mut Vec<u8>) {
    let whole = bytes.len() / 3;
    let tail = bytes.len() % 3;
    let start = out.len();
    out.resize(start + whole * 4 + if tail == 0 { 0 } else { tail + 1 }, 0);
    let digits: &[u8] = BASE64_DIGITS;
    let out: &mut [u8] = &mut out[start..];
    let (mut i, mut at) = (0, 0);
    while i < whole * 3 {
        let bits = ((bytes[i] as u32) << 16) | ((bytes[i + 1] as u32) << 8) | bytes[i + 2] as u32;
        out[at] = digits[(bits >> 18) as usize & 63];
        out[at + 1] = digits[(bits >> 12) as usize & 63];
        out[at + 2] = digits[(bits >> 6) as usize & 63];
        out[at + 3] = digits[bits as usize & 63];
        i += 3;
        at += 4;
    }
    if tail > 0 {
        let second = if tail == 2 { bytes[i + 1] as u32 } else { 0 };
        let bits = ((bytes[i] as u32) << 16) | (second << 8);
        out[at] = digits[(bits >> 18) as usize & 63];
        out[at + 1] = digits[(bits >> 12) as usize & 63];
        if tail == 2 {
            out[at + 2] = digits[(bits >> 6) as usize & 63];
        }
    }
}

/// Appends the bytes of unpadded base64 `text`; `None` for anything
/// [`base64_encode`] cannot have written (another character, a length of
/// one more than a multiple of four, a last digit with bits below its
/// bytes).
fn base64_decode(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    for chunk in text.chunks(4) {
        let bytes = chunk.len().checked_sub(1).filter(|n| *n > 0)?;
        let mut bits: u32 = 0;
        for (i, &c) in chunk.iter().enumerate() {
            let value = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return None,
            };
            bits |= u32::from(value) << (18 - 6 * i);
        }
        if bits & ((1 << (8 * (3 - bytes))) - 1) != 0 {
            return None;
        }
        out.extend_from_slice(&bits.to_be_bytes()[1..=bytes]);
    }
    Some(())
}

/// The binary form: magic, version, table fingerprint, postcard body.
fn to_binary(program: &Program) -> Vec<u8> {
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

/// Decodes what [`to_binary`] produced; every byte must be used.
fn from_binary(bytes: &[u8]) -> Result<Program, DecodeError> {
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

    /// RFC 4648's test vectors (unpadded), and random bytes of every length
    /// up to 40 round-trip through base64 digits only.
    #[test]
    fn base64_is_rfc_4648s() {
        let text = |bytes: &[u8]| {
            let mut out = Vec::new();
            base64_encode(bytes, &mut out);
            String::from_utf8(out).expect("ASCII")
        };
        for (bytes, expected) in [
            (&b""[..], ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
            (b"\xff\xfe\x00", "//4A"),
        ] {
            assert_eq!(text(bytes), expected);
        }
        let mut rng = tile_kernel_testkit::Rng::new(0x510e_527f_ade6_82d1);
        for len in 0..=40 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let encoded = text(&bytes);
            assert!(encoded.bytes().all(|c| BASE64_DIGITS.contains(&c)));
            let mut decoded = Vec::new();
            assert_eq!(base64_decode(encoded.as_bytes(), &mut decoded), Some(()));
            assert_eq!(decoded, bytes);
        }
    }

    /// An embedded program is printable ASCII without `"` or `\\` (each
    /// byte of its literal is itself), and text `encode` cannot have
    /// written is refused: a character outside base64, a lone last digit,
    /// a last digit with bits below its bytes, a cut.
    #[test]
    fn embedded_text_is_plain_and_checked() {
        let text = encode(&compiled(&to_half()));
        assert!(text.starts_with(b"TKIR"));
        assert!(
            text.iter()
                .all(|c| c.is_ascii_graphic() && *c != b'"' && *c != b'\\')
        );
        let with = |tail: &[u8]| [&text[..], tail].concat();
        for (bad, what) in [
            (with(b" "), "a space"),
            (with(b"="), "padding"),
            (b"TKIRZm9vA".to_vec(), "a lone last digit"),
            (b"TKIRZh".to_vec(), "bits below the last byte"),
        ] {
            assert_eq!(decode(&bad), Err(DecodeError::NotAProgram), "{what}");
        }
        // A cut at a digit boundary decodes into a short body.
        let cut = text.len() - 4;
        assert!(matches!(decode(&text[..cut]), Err(DecodeError::Body(_))));
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        let bytes = to_binary(&compiled(&narrow_pairs()));
        let decode = from_binary;
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
