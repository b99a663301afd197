//! Helpers the semantics tests share: finding a variant, running its
//! register semantics, and the deterministic generators of the property
//! tests. Each test file uses part of it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use tile_kernel_interp::semantics::{Bits, Compute, Semantics, compute, semantics};
use tile_kernel_lowering::ptx::resolve::legal_variants;
use tile_kernel_lowering::ptx::table::FORMS;
use tile_kernel_lowering::ptx::{Modifiers, Usability, resolve};

/// Variant `opcode` of form `form` (the form named, so dispatch by operand
/// shapes cannot pick another).
pub fn variant(form: &str, opcode: &str) -> Modifiers {
    let f = FORMS
        .iter()
        .find(|f| f.id == form)
        .unwrap_or_else(|| panic!("no form {form}"));
    legal_variants(f)
        .into_iter()
        .find(|m| m.opcode_text() == opcode)
        .unwrap_or_else(|| panic!("{opcode} is not a variant of {form}"))
}

/// The first usable variant `opcode` resolves to.
pub fn usable_variant(opcode: &str) -> Modifiers {
    resolve(opcode)
        .unwrap_or_else(|e| panic!("{opcode}: {e:?}"))
        .into_iter()
        .find(|m| m.usability() == Usability::Yes)
        .unwrap_or_else(|| panic!("{opcode}: no usable variant"))
}

/// The register semantics of `opcode` (its first usable variant).
pub fn op(opcode: &str) -> Compute {
    match semantics(&usable_variant(opcode)) {
        Ok(Semantics::Compute(c)) => c,
        other => panic!("{opcode}: {other:?}"),
    }
}

/// Runs a one-destination compute.
pub fn run_one(c: &Compute, sources: &[u64]) -> u64 {
    let mut d = [0u64; 1];
    c.run(sources, &mut d);
    d[0]
}

thread_local! {
    /// Each variant's semantics, built once per test thread.
    static CACHE: RefCell<HashMap<(String, String), Rc<Compute>>> = RefCell::default();
}

/// Every destination lane of variant `opcode` of `form` on `inputs`
/// (which must be exactly its source lanes).
pub fn run(form: &str, opcode: &str, inputs: &[Bits]) -> Vec<Bits> {
    let key = (form.to_string(), opcode.to_string());
    let c = CACHE.with(|cache| {
        Rc::clone(cache.borrow_mut().entry(key).or_insert_with(|| {
            let v = variant(form, opcode);
            Rc::new(compute(&v).unwrap_or_else(|| panic!("no semantics for {opcode}")))
        }))
    });
    assert_eq!(c.inputs(), inputs.len(), "{opcode}: source lanes");
    let mut out = vec![0; c.outputs()];
    c.run(inputs, &mut out);
    out
}

/// The one destination lane of variant `opcode` of `form` on `inputs`.
pub fn one(form: &str, opcode: &str, inputs: &[Bits]) -> Bits {
    let out = run(form, opcode, inputs);
    assert_eq!(out.len(), 1, "{opcode}: destination lanes");
    out[0]
}
