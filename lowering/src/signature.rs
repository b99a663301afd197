//! What the launcher's signature says of each parameter, decided from the
//! kernel as written: a tensor parameter is taken `&mut` exactly when it
//! (or a view bound from it by `let`) sits in a memory-destination slot of
//! an `apply` (a store, an atomic, a reduction: the table's operands that
//! write an address, [`crate::ptx::resolve::memory_destinations`]).
//!
//! The answer depends only on the opcode texts and the operand names, not on
//! whether the statements check, so the signature does not change while
//! the body has errors (a user typing sees the same launcher throughout).
//! A statement the macro could not read counts through its traces
//! ([`ast::Invalid`]): its first touched name is the stored one when it
//! looked like a store, and a broken `let` aliases its first touched name.
//!
//! Invariant, tested on every shipped kernel: for a legal kernel this is the
//! set of tensors the checker records as written.

use std::collections::HashMap;

use crate::ast::{self, Expr, Operand, ParamType, Stmt};
use crate::ptx::resolve::memory_destinations;

/// For each parameter of `kernel`: whether the launcher takes it `&mut`.
pub fn tensor_writes(kernel: &ast::Kernel) -> Vec<bool> {
    let mut scope = Scope {
        frames: vec![HashMap::new()],
        writes: vec![false; kernel.params.len()],
        functions: HashMap::new(),
    };
    for (index, param) in kernel.params.iter().enumerate() {
        let tensor = matches!(param.ty, ParamType::Tensor { .. }).then_some(index);
        scope.bind(&param.name, tensor);
    }
    scope.block(&kernel.body);
    scope.writes
}

/// Names in scope, each with the tensor parameter it views (if any).
struct Scope {
    frames: Vec<HashMap<String, Option<usize>>>,
    writes: Vec<bool>,
    /// The kernel functions defined so far, with the parameters each
    /// writes (its stores, directly or through the functions it calls).
    functions: HashMap<String, Vec<bool>>,
}

impl Scope {
    /// The parameters of kernel function `def` that it stores into.
    fn function_writes(&self, def: &ast::KernelFunction) -> Vec<bool> {
        let mut inner = Scope {
            frames: vec![HashMap::new()],
            writes: vec![false; def.params.len()],
            functions: self.functions.clone(),
        };
        for (index, param) in def.params.iter().enumerate() {
            inner.bind(&param.name, Some(index));
        }
        inner.block(&def.body);
        inner.writes
    }

    fn call(&mut self, call: &ast::Call) {
        let Some(writes) = self.functions.get(&call.name).cloned() else {
            return;
        };
        for (arg, written) in call.args.iter().zip(writes) {
            if written && let Operand::Place(place) = arg {
                self.write(&place.base);
            }
        }
    }

    fn bind(&mut self, name: &str, tensor: Option<usize>) {
        if let Some(frame) = self.frames.last_mut() {
            frame.insert(name.to_string(), tensor);
        }
    }

    fn tensor(&self, name: &str) -> Option<usize> {
        self.frames
            .iter()
            .rev()
            .find_map(|frame| frame.get(name))
            .copied()
            .flatten()
    }

    fn write(&mut self, name: &str) {
        if let Some(slot) = self.tensor(name).and_then(|p| self.writes.get_mut(p)) {
            *slot = true;
        }
    }

    fn nested(&mut self, body: &[Stmt]) {
        self.frames.push(HashMap::new());
        self.block(body);
        self.frames.pop();
    }

    fn block(&mut self, body: &[Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::AllocLocal(alloc) => self.bind(&alloc.name, None),
                Stmt::Let(binding) => {
                    let tensor = match &binding.value {
                        Expr::View(place) => self.tensor(&place.base),
                        Expr::Name(name, _) => self.tensor(name),
                        _ => None,
                    };
                    self.bind(&binding.name, tensor);
                }
                Stmt::Apply(apply) => {
                    for position in memory_destinations(&apply.opcode) {
                        if let Some(Operand::Place(place)) = apply.operands.get(position) {
                            self.write(&place.base);
                        }
                    }
                }
                Stmt::For(for_loop) => {
                    self.frames
                        .push(HashMap::from([(for_loop.var.clone(), None)]));
                    self.block(&for_loop.body);
                    self.frames.pop();
                }
                Stmt::If(branch) => {
                    self.nested(&branch.then);
                    self.nested(&branch.otherwise);
                }
                // Scalar functions write registers only.
                Stmt::Ewise(_) => {}
                Stmt::Function(def) => self.bind(&def.name, None),
                Stmt::KernelFunction(def) => {
                    let writes = self.function_writes(def);
                    self.functions.insert(def.name.clone(), writes);
                    self.bind(&def.name, None);
                }
                // A kernel function's stores write the tensors passed to it.
                Stmt::Call(call) => self.call(call),
                Stmt::Invalid(invalid) => {
                    let first = invalid.touches.first();
                    if invalid.stores
                        && let Some(name) = first
                    {
                        self.write(name);
                    }
                    let tensor = first.and_then(|name| self.tensor(name));
                    for name in &invalid.binds {
                        self.bind(name, tensor);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::memory_destinations;

    #[test]
    fn destinations_come_from_the_table() {
        assert_eq!(memory_destinations("st.global.b32"), [0]);
        assert_eq!(memory_destinations("st.global.v4.b32"), [0]);
        // Misspelled modifiers still name the mnemonic's destination.
        assert_eq!(memory_destinations("st.glob.b33"), [0]);
        assert!(memory_destinations("ld.global.f32").is_empty());
        assert!(memory_destinations("cvt.rn.f16x2.f32").is_empty());
        assert!(memory_destinations("stt.global.b32").is_empty());
        assert!(!memory_destinations("atom.global.add.u32").is_empty());
        assert!(!memory_destinations("red.global.add.u32").is_empty());
    }
}
