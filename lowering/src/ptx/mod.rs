//! The PTX instruction table and its interpreter.
//!
//! - [`types`]: PTX operand types and which dtypes carry them.
//! - [`form`]: the table's data model (forms, slots, operands).
//! - [`fragments`]: which matrix element each lane of a warp matrix instruction holds.
//! - [`table`]: the table itself, as data.
//! - [`slot`]: the names of the modifier slots, as a type.
//! - [`rules`]: cross-slot legality rules and target requirements.
//! - [`docs`]: a Markdown reference generated from the table.
//! - [`mod@resolve`]: opcode text -> candidate forms, with spelling suggestions.

pub mod docs;
pub mod form;
pub mod fragments;
pub mod resolve;
pub mod rules;
pub mod slot;
pub mod table;
pub mod types;

pub use form::{
    Access, Effect, InstructionForm, Modifiers, OperandKind, Packing, ResolvedOperand, Space,
    Usability, VariantId,
};
pub use resolve::{OpcodeError, resolve};
pub use slot::Slot;
pub use types::PtxType;
