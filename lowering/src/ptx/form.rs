//! The data model of the PTX instruction table.
//!
//! One [`InstructionForm`] describes one *syntax shape* of an instruction: its
//! mnemonic, its ordered modifier slots, its ordered operands, a cross-slot
//! legality rule and the target it needs. Everything that differs between
//! opcodes is data here; [`mod@super::resolve`] interprets it generically.

use crate::ptx::Slot;
use serde::{Deserialize, Serialize};

use super::types::PtxType;
use crate::DType;
use crate::target::{Requirement, Target};

/// One syntax shape of a PTX instruction.
#[derive(Debug, Clone, Copy)]
pub struct InstructionForm {
    /// Unique table key, for docs and tests (`cvt.packed-from-f32`).
    pub id: &'static str,
    /// The PTX mnemonic (may contain dots in later tables, e.g. `shfl.sync`).
    pub mnemonic: &'static str,
    /// Dotted modifiers in PTX order.
    pub slots: &'static [ModifierSlot],
    /// Operands in PTX order (destinations first).
    pub operands: &'static [OperandSlot],
    /// Cross-slot legality: which slot combinations PTX actually defines.
    pub rule: fn(&Modifiers) -> Result<(), Violation>,
    /// Minimum architecture and PTX ISA version for one variant on a target.
    pub requires: fn(&Modifiers, Target) -> Requirement,
    /// How the form places several values in one register.
    pub packing: Packing,
    /// One line for docs: what the form does.
    pub summary: &'static str,
    /// What the form does beyond its registers, read by the checker and
    /// the interpreter ([`Modifiers::effect`] resolves it for a variant).
    pub effect: Effect,
    /// Whether kernels may use the form today.
    pub usable: Usability,
}

/// Whether kernels may use a form. Every form is registered and certified
/// against ptxas; some need language features that do not exist yet, and
/// using them is a clear error (TK0224) naming what is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usability {
    /// Checked, proven and emitted like any form.
    Yes,
    /// A warp-level collective: usable in an `apply` with `scope = "warp"`
    /// (the member mask is the whole warp; convergence is checked).
    NeedsScope,
    /// A barrier of the whole CTA: usable in an `apply` with
    /// `scope = "cta"` (every thread reaches it; convergence is checked).
    CtaBarrier,
    /// A warpgroup collective (`wgmma`): usable in an `apply` with
    /// `scope = "warpgroup"` (the 128 threads of a warpgroup issue it
    /// together; convergence is checked).
    Warpgroup,
    /// A half of the cluster barrier (`barrier.cluster.arrive`,
    /// `barrier.cluster.wait`): usable in an `apply` with
    /// `scope = "cluster"` (every thread of the cluster reaches it;
    /// convergence over the cluster and the pairing of the halves are
    /// checked).
    ClusterBarrier,
    /// The language lacks what the form needs, named here ("shared memory
    /// tiles", "barriers"): it completes "`<form>` needs ...".
    NotYet(&'static str),
}

/// What an instruction does, beyond computing its register destinations
/// from its register sources: table data, so the checker and the
/// interpreter never rediscover it from the mnemonic. Certified against the
/// operands (`lowering/tests/certify.rs`): a form that writes memory is a
/// store, an atomic, an asynchronous copy, an mbarrier operation or a
/// collective (`stmatrix`); a load reads memory into registers; and so on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Registers (and special registers) to registers only.
    Pure,
    /// Memory to the destination registers. `non_coherent`: through the
    /// non-coherent (read-only) data path (`ldu`, and `ld` with `.nc`,
    /// which [`Modifiers::effect`] adds), so the data must not change
    /// while the kernel runs.
    Load { non_coherent: bool },
    /// The source registers to memory.
    Store,
    /// A read-modify-write of each addressed element; `returns_old`: the
    /// old value reaches a destination (`atom`), else nothing does (`red`).
    Atomic { returns_old: bool },
    /// A cache hint: moves no value.
    Prefetch,
    /// A warp-level collective: reads or waits for other lanes of the warp
    /// (`shfl.sync`, `vote.sync`, `bar.warp.sync`, `ldmatrix`, `mma`).
    Collective,
    /// A barrier of the CTA. `waits`: the thread waits for the others
    /// (`bar.sync`, `barrier.red`); else it only arrives (`bar.arrive`).
    Barrier { waits: bool },
    /// Orders memory accesses without moving data (`fence`, `membar`).
    Fence,
    /// Memory to memory, asynchronously, completed by a later wait
    /// (`cp.async`, bulk and tensor copies and reductions).
    AsyncCopy,
    /// Commits or waits for a group of asynchronous operations
    /// (`cp.async.wait_group`, `wgmma.commit_group`).
    AsyncGroup,
    /// `wgmma.mma_async`: a warpgroup's asynchronous matrix
    /// multiply-accumulate. It reads its shared-memory operands (through
    /// matrix descriptors) and its register operands, and writes its
    /// accumulator registers, at some time between its issue and the
    /// `wgmma.wait_group` that retires its group.
    WarpgroupMma,
    /// An operation on an mbarrier object in shared memory.
    Mbarrier,
    /// Changes how many registers each thread of the executing warp owns
    /// (`setmaxnreg`): moves no value and names no memory; the register
    /// pool obligation (`crate::prove::register_pool`) decides whether the
    /// CTA's registers suffice.
    RegisterCount,
}

impl Effect {
    /// Whether the form's register inputs reach beyond its destinations:
    /// memory, the memory system (a load's or prefetch's cache policy) or
    /// other threads. Only a [`Effect::Pure`] form's do not.
    pub fn observes_inputs(self) -> bool {
        self != Effect::Pure
    }
}

/// Bit placement of packing forms: the rule users most often get backwards,
/// kept as data so docs, tests and a future interpreter read it from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// One value per register.
    None,
    /// Two sources packed into one destination, the FIRST source in the HIGH
    /// half: `cvt.rn.f16x2.f32 d, a, b` gives `d[31:16] = a`, `d[15:0] = b`.
    FirstSourceHigh,
    /// A `{..}` group (or split operands) and one wide register: the FIRST
    /// lane is the LOW bits: `mov.b32 d, {lo, hi}`.
    FirstLaneLow,
    /// Packed to packed: each element keeps its position (high half -> high byte).
    InPlace,
}

/// A dotted-modifier position, such as the rounding mode or the type.
#[derive(Debug)]
pub struct ModifierSlot {
    pub name: Slot,
    pub choices: &'static [&'static str],
    pub required: bool,
}

/// Direction of an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Where an operand lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandKind {
    /// A register (or brace group of registers) of the issuing thread.
    Register,
    /// A memory address `[addr]`; the operand names the memory moved. Its
    /// state space is the form's `space` slot ([`Modifiers::space`]).
    Address,
    /// A `.pred` register (`setp`'s destination, `selp`'s selector).
    Predicate,
    /// A compile-time integer only, within `min..=max` (`lop3`'s LUT,
    /// `bar.sync`'s barrier number): never a register.
    Immediate { min: i64, max: i64 },
    /// A tensor-map address with one 32-bit coordinate register per lane:
    /// `[tensorMap, {c0, c1, ..}]` (TMA). No kernel operand is one yet.
    TensorCoords,
    /// One of these special registers (`%laneid`, `%clock64`), written
    /// `sreg("%laneid")` in a kernel.
    Special(&'static [&'static str]),
}

/// The state space an address operand points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// No space token: a generic address (global tensors qualify).
    Generic,
    Global,
    /// `.shared` / `.shared::cta` (`cluster: false`) or `.shared::cluster`.
    Shared {
        cluster: bool,
    },
    Local,
    Const,
    /// `.param` (kernel or function parameters).
    Param,
}

impl Space {
    /// The space a `space` slot token names.
    pub fn from_token(token: Option<&str>) -> Space {
        match token {
            None => Space::Generic,
            Some("global") => Space::Global,
            Some("shared" | "shared::cta") => Space::Shared { cluster: false },
            Some("shared::cluster") => Space::Shared { cluster: true },
            Some("local") => Space::Local,
            Some(t) if t.starts_with("const") => Space::Const,
            Some(t) if t.starts_with("param") => Space::Param,
            Some(_) => Space::Generic,
        }
    }
}

/// How an operand's PTX type is found from the modifiers.
#[derive(Debug, Clone, Copy)]
pub enum TypeRef {
    /// The type token in the named slot.
    Slot(Slot),
    /// A fixed type.
    Fixed(PtxType),
    /// Twice the width of the type in the named slot (`mul.wide`).
    Wide(Slot),
    /// One lane of a pack/unpack group: the bit type of `slot`'s width divided
    /// by `lanes` (`mov.b32 d, {a, b}` has `.b16` lanes).
    LaneOf { slot: Slot, lanes: u8 },
}

/// How many registers an operand names (its register-axis extent).
#[derive(Debug, Clone, Copy)]
pub enum Lanes {
    Fixed(u8),
    /// From the `vec` slot: absent = 1, `v2` = 2, `v4` = 4, `v8` = 8.
    Vector,
    /// From the token in `slot`: `(token, lanes)` pairs (`wgmma`'s
    /// accumulator count follows its shape, TMA's coordinates its `.dim`).
    ByToken {
        slot: Slot,
        lanes: &'static [(&'static str, u8)],
    },
}

/// One operand position of a form.
#[derive(Debug)]
pub struct OperandSlot {
    pub name: &'static str,
    pub access: Access,
    pub kind: OperandKind,
    pub ty: TypeRef,
    pub lanes: Lanes,
    /// Written inside one `{..}` with the neighbouring braced operands: the
    /// separate-operand spelling of `mov.b32 d, {a, b}`.
    pub braced: bool,
    /// A source register that also accepts an immediate in PTX. Certified
    /// both ways: ptxas accepts an immediate exactly where this is set. (A
    /// literal operand of a kernel is materialised in a register either way.)
    pub imm: bool,
    /// A destination that may be the sink `_` (the value is discarded).
    pub sink: bool,
    /// Two registers written `p|q` (`setp`'s second predicate destination)
    /// instead of a `{..}` group.
    pub piped: bool,
    /// Written after the previous operand as `prev|this`, with a type of
    /// its own (`shfl.sync`'s `d|p`: a `.b32` and a `.pred`).
    pub after_pipe: bool,
    /// A group written in its own `{..}` even with one register
    /// (`mma.m8n8k4.f64`'s `{a}`), never merged with braced neighbours.
    pub own_braces: bool,
    /// An address whose access is the whole operand view, one contiguous
    /// run of bytes (a bulk copy's `[dst]`, `[src]`), not `lanes` elements
    /// per repeat coordinate.
    pub whole: bool,
    /// An address of an mbarrier object (`alloc_shared::<Mbarrier>`),
    /// which nothing else may reach.
    pub mbarrier: bool,
    /// A whole-view operand's address alignment in bytes (16 for a bulk
    /// copy's, 128 for a tensor copy's shared side); 0: its element size
    /// (a tensor map's box, whose start the coordinates name).
    pub whole_alignment: usize,
    /// A shared-memory matrix descriptor (`wgmma`'s `a-desc`, `b-desc`):
    /// in PTX a `.b64` register, in a kernel a view of a shared buffer
    /// whose layout the compiler encodes (`crate::ptx::matrix`).
    pub descriptor: bool,
    /// A destination that is only ever the sink `_` (the `state` of an
    /// arrive on another CTA's mbarrier: ptxas takes no register there).
    pub sink_only: bool,
}

/// A rule violation: what is wrong and, where one token is to blame, which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub message: String,
    pub token: Option<&'static str>,
}

impl Violation {
    pub fn new(message: impl Into<String>) -> Self {
        Violation {
            message: message.into(),
            token: None,
        }
    }

    pub fn at(token: &'static str, message: impl Into<String>) -> Self {
        Violation {
            message: message.into(),
            token: Some(token),
        }
    }
}

/// The modifier tokens chosen for each slot of one form (the "mod map").
#[derive(Debug, Clone)]
pub struct Modifiers {
    pub form: &'static InstructionForm,
    /// One entry per slot of `form`, `None` where an optional slot is omitted.
    pub tokens: Vec<Option<&'static str>>,
}

impl PartialEq for Modifiers {
    fn eq(&self, other: &Self) -> bool {
        self.form.id == other.form.id && self.tokens == other.tokens
    }
}

impl Eq for Modifiers {}

impl Modifiers {
    /// The token in slot `slot`: `None` when the slot is left empty or
    /// this shape of the instruction has no such slot (`ld.weak` has no
    /// `.scope`, `ld.relaxed` has). Slots are a type, so a misspelled one
    /// does not compile; [`Self::has_slot`] tells the two `None`s apart.
    pub fn get(&self, slot: Slot) -> Option<&'static str> {
        self.form
            .slots
            .iter()
            .position(|s| s.name == slot)
            .and_then(|i| self.tokens[i])
    }

    /// Whether the form has slot `slot` (filled or not).
    pub fn has_slot(&self, slot: Slot) -> bool {
        self.form.slots.iter().any(|s| s.name == slot)
    }

    /// Whether slot `slot` holds a token.
    pub fn has(&self, slot: Slot) -> bool {
        self.get(slot).is_some()
    }

    /// The PTX type in slot `slot`.
    pub fn ty(&self, slot: Slot) -> Option<PtxType> {
        self.get(slot).and_then(PtxType::from_token)
    }

    /// The variant's position in this build of the table.
    pub fn id(&self) -> VariantId {
        let form = table_position(self.form)
            .or_else(|| {
                super::table::FORMS
                    .iter()
                    .position(|f| f.id == self.form.id)
            })
            .and_then(|i| u16::try_from(i).ok())
            .unwrap_or(u16::MAX);
        let tokens = self
            .form
            .slots
            .iter()
            .zip(&self.tokens)
            .map(|(slot, token)| {
                token.map(|t| {
                    let index = slot.choices.iter().position(|c| *c == t);
                    index.and_then(|i| u8::try_from(i).ok()).unwrap_or(u8::MAX)
                })
            })
            .collect();
        VariantId { form, tokens }
    }

    /// Canonical PTX spelling: mnemonic then tokens in slot order.
    pub fn opcode_text(&self) -> String {
        let mut text = self.form.mnemonic.to_string();
        for token in self.tokens.iter().flatten() {
            text.push('.');
            text.push_str(token);
        }
        text
    }

    /// The concrete type and lane count of each operand.
    pub fn operands(&self) -> Vec<ResolvedOperand> {
        self.form
            .operands
            .iter()
            .map(|slot| {
                let ty = self.resolve_type(slot.ty);
                ResolvedOperand {
                    name: slot.name,
                    access: slot.access,
                    kind: slot.kind,
                    ty,
                    lanes: self.resolve_lanes(slot.lanes),
                    braced: slot.braced,
                    imm: slot.imm && ty.takes_immediates(),
                    sink: slot.sink,
                    piped: slot.piped,
                    after_pipe: slot.after_pipe,
                    own_braces: slot.own_braces,
                    whole: slot.whole,
                    mbarrier: slot.mbarrier,
                    whole_alignment: slot.whole_alignment,
                    descriptor: slot.descriptor,
                    sink_only: slot.sink_only,
                }
            })
            .collect()
    }

    fn resolve_type(&self, ty: TypeRef) -> PtxType {
        // The table's own tests assert every form resolves; B32 is never reached.
        match ty {
            TypeRef::Fixed(t) => t,
            TypeRef::Slot(slot) => self.ty(slot).unwrap_or(PtxType::B32),
            TypeRef::Wide(slot) => self
                .ty(slot)
                .and_then(PtxType::widened)
                .unwrap_or(PtxType::B32),
            TypeRef::LaneOf { slot, lanes } => self
                .ty(slot)
                .and_then(|t| PtxType::bits_of_width(t.carrier_bits() / lanes as usize))
                .unwrap_or(PtxType::B32),
        }
    }

    fn resolve_lanes(&self, lanes: Lanes) -> u8 {
        match lanes {
            Lanes::Fixed(n) => n,
            Lanes::Vector => match self.get(Slot::Vec) {
                Some("v2") => 2,
                Some("v4") => 4,
                Some("v8") => 8,
                _ => 1,
            },
            Lanes::ByToken { slot, lanes } => self
                .get(slot)
                .and_then(|token| lanes.iter().find(|(t, _)| *t == token))
                .map_or(1, |(_, n)| *n),
        }
    }

    /// The effect of this variant: the form's [`InstructionForm::effect`],
    /// with a load made non-coherent by its `.nc` token.
    pub fn effect(&self) -> Effect {
        match self.form.effect {
            Effect::Load { non_coherent } => Effect::Load {
                non_coherent: non_coherent || self.has(Slot::Nc),
            },
            effect => effect,
        }
    }

    /// Whether this variant is a bulk reduction into global memory
    /// (`cp.reduce.async.bulk{.tensor}...global.shared::cta.bulk_group.op.type`):
    /// a bulk store whose every element is an atomic update (`.op`) of the
    /// destination, each with relaxed `.gpu` semantics, as `red` would do.
    pub fn bulk_reduction(&self) -> bool {
        matches!(
            self.form.mnemonic,
            "cp.reduce.async.bulk" | "cp.reduce.async.bulk.tensor"
        ) && self.get(Slot::Dst) == Some("global")
    }

    /// The state space of the form's address operands (its `space` slot).
    pub fn space(&self) -> Space {
        Space::from_token(self.get(Slot::Space))
    }

    /// The state space the address operand `operand` points into: a
    /// copy's source has its own slot (`cp.async.cg.shared.global [dst],
    /// [src]`: `src` is global), and so may its destination
    /// (`cp.async.bulk.shared::cluster.global`), whose mbarrier lies in
    /// the same space; every other address the form's [`Modifiers::space`].
    pub fn operand_space(&self, operand: &str) -> Space {
        match (self.get(Slot::Src), self.get(Slot::Dst)) {
            (Some(src), _) if matches!(operand, "src" | "srcMem") => Space::from_token(Some(src)),
            (_, Some(dst)) if matches!(operand, "dst" | "dstMem" | "mbar") => {
                Space::from_token(Some(dst))
            }
            // A tensor map describes a tensor in global memory.
            _ if operand == "tensorMap" => Space::Global,
            _ => self.space(),
        }
    }

    /// Whether kernels may use this variant: the form's own
    /// [`InstructionForm::usable`], and memory only in the spaces kernels
    /// have (global tensors, reached by global or generic addresses).
    pub fn usability(&self) -> Usability {
        if self.form.usable != Usability::Yes {
            return self.form.usable;
        }
        if self
            .form
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::TensorCoords && !o.whole)
        {
            // A tensor map's box is a tensor slice only where the table
            // says so (`tensor_box`).
            return Usability::NotYet("tensor maps (TMA descriptors)");
        }
        // A register type no tile dtype carries (`.b128`) has no operand.
        // (The operands' resolved types, without building the operands.)
        let uncarried = self.form.operands.iter().any(|slot| {
            matches!(slot.kind, OperandKind::Register | OperandKind::Address) && {
                let ty = self.resolve_type(slot.ty);
                !DType::ALL.into_iter().any(|d| ty.accepts(d))
            }
        });
        if uncarried {
            return Usability::NotYet("128-bit registers (`.b128`), which no tile dtype carries");
        }
        let addresses = self
            .form
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::Address);
        if !addresses {
            return Usability::Yes;
        }
        match self.space() {
            Space::Generic | Space::Global => Usability::Yes,
            // `.shared::cluster`: the executing CTA's buffers, or another
            // CTA's through `.in_cta` (the checker's cluster rules).
            Space::Shared { .. } => Usability::Yes,
            Space::Local => Usability::NotYet(
                "local memory, which kernels do not address (local tiles live in registers)",
            ),
            Space::Const => Usability::NotYet("constant memory banks"),
            Space::Param => Usability::NotYet(
                "parameter-space addresses (scalar parameters are read by the compiler)",
            ),
        }
    }

    /// Runs the form's legality rule.
    pub fn check(&self) -> Result<(), Violation> {
        (self.form.rule)(self)
    }

    pub fn requirement(&self, target: Target) -> Requirement {
        (self.form.requires)(self, target)
    }
}

/// A variant named by position, not by text: the form's index in
/// [`super::table::FORMS`] and, per slot of the form, the index of its
/// token among the slot's choices (`None` where an optional slot is
/// omitted). Exact within one build of the table (an encoded program
/// carries the table's [`super::table::fingerprint`], so another build's
/// ids are refused, not misread); the IR names each statement's variant by
/// one, so the interpreter never parses opcode text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VariantId {
    pub form: u16,
    pub tokens: Vec<Option<u8>>,
}

impl VariantId {
    /// The variant this id names, or `None` when it names no legal variant
    /// of this table (a form or token index out of range, a required slot
    /// left out, a combination the form's rule rejects).
    pub fn modifiers(&self) -> Option<Modifiers> {
        let form = super::table::FORMS.get(usize::from(self.form))?;
        if self.tokens.len() != form.slots.len() {
            return None;
        }
        let tokens = form
            .slots
            .iter()
            .zip(&self.tokens)
            .map(|(slot, token)| match token {
                Some(i) => slot.choices.get(usize::from(*i)).copied().map(Some),
                None if slot.required => None,
                None => Some(None),
            })
            .collect::<Option<Vec<_>>>()?;
        let variant = Modifiers { form, tokens };
        variant.check().is_ok().then_some(variant)
    }
}

/// An operand slot with its type and lane count resolved for one variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedOperand {
    pub name: &'static str,
    pub access: Access,
    pub kind: OperandKind,
    pub ty: PtxType,
    pub lanes: u8,
    pub braced: bool,
    pub imm: bool,
    pub sink: bool,
    pub piped: bool,
    pub after_pipe: bool,
    pub own_braces: bool,
    pub whole: bool,
    pub mbarrier: bool,
    pub whole_alignment: usize,
    pub descriptor: bool,
    /// A destination that is only ever the sink `_` (the `state` of an
    /// arrive on another CTA's mbarrier: ptxas takes no register there).
    pub sink_only: bool,
}

impl ResolvedOperand {
    /// How the operand is written in a PTX syntax line (`d`, `{a, b}`, `[addr]`).
    pub fn syntax(&self) -> String {
        match self.kind {
            OperandKind::Address => format!("[{}]", self.name),
            OperandKind::Special(_) => "%sreg".to_string(),
            OperandKind::TensorCoords => {
                let coords: Vec<String> = (0..self.lanes).map(|i| format!("c{i}")).collect();
                format!("[{}, {{{}}}]", self.name, coords.join(", "))
            }
            OperandKind::Register | OperandKind::Predicate
                if self.piped || self.lanes > 1 || self.own_braces =>
            {
                let lanes: Vec<String> = (0..self.lanes)
                    .map(|i| format!("{}{}", self.name, i))
                    .collect();
                registers_text(&lanes, self.piped, self.own_braces)
            }
            OperandKind::Register | OperandKind::Predicate | OperandKind::Immediate { .. } => {
                self.name.to_string()
            }
        }
    }
}

/// A register operand's lanes as PTX writes them: `p|q` when piped, a
/// `{a, b}` group (also of one register in its own braces), else the one
/// register.
pub fn registers_text(names: &[String], piped: bool, own_braces: bool) -> String {
    if piped {
        names.join("|")
    } else if names.len() > 1 || own_braces {
        format!("{{{}}}", names.join(", "))
    } else {
        names.concat()
    }
}

/// Always legal: the form's slot domains are exactly its syntax line.
pub fn no_rule(_: &Modifiers) -> Result<(), Violation> {
    Ok(())
}

/// `form`'s position in [`super::table::FORMS`] when it is an element of
/// that slice (every form the resolver hands out is), from its address:
/// no scan of the table comparing ids.
fn table_position(form: &'static InstructionForm) -> Option<usize> {
    let forms = super::table::FORMS;
    let size = std::mem::size_of::<InstructionForm>();
    let offset = std::ptr::from_ref(form)
        .addr()
        .checked_sub(forms.as_ptr().addr())?;
    let index = offset / size;
    (offset % size == 0 && forms.get(index).is_some_and(|f| std::ptr::eq(f, form))).then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_position_is_the_position_of_the_id() {
        for (i, form) in super::super::table::FORMS.iter().enumerate() {
            assert_eq!(table_position(form), Some(i), "{}", form.id);
        }
        // A copy outside the table has no address in it.
        let copy: &'static InstructionForm = Box::leak(Box::new(super::super::table::FORMS[0]));
        assert_eq!(table_position(copy), None);
    }
}
