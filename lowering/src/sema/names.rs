//! The names in scope while the checker walks a kernel: blocks open and
//! close in stack order, a block's binding of a name shadows the outer
//! ones until the block closes, and a second binding of a name in one
//! block replaces the first (`let x = ..; let x = ..;`).
//!
//! Kept as one table from each name to its bindings (innermost last, each
//! with the depth of the block that made it), so that a lookup is one
//! probe however deep the blocks nest: an inlined kernel function's body
//! inside unrolled loops and `if` arms looks its names up through a dozen
//! blocks, and a probe per block was most of a lookup at opt-level 0.
//! Each block remembers the names it bound, to unbind them as it closes.
//!
//! Guarantee: [`Names::innermost`] finds what searching the open blocks
//! from the innermost out, each a map of its own names, would find.

use super::Binding;
use crate::sym::WordMap;

/// The bindings of every open block (module doc).
pub(super) struct Names {
    /// Per name, its bindings from the outermost block to the innermost,
    /// each with its block's depth (0: the kernel's own block).
    bindings: WordMap<String, Vec<(usize, Binding)>>,
    /// Per open block, outermost first: the names it bound.
    blocks: Vec<Vec<String>>,
}

impl Names {
    /// The kernel's own block, open and empty.
    pub(super) fn new() -> Names {
        Names {
            bindings: WordMap::default(),
            blocks: vec![Vec::new()],
        }
    }

    /// How many blocks are open (the depth the next one opens at).
    pub(super) fn depth(&self) -> usize {
        self.blocks.len()
    }

    /// Opens a block, binding nothing yet.
    pub(super) fn open(&mut self) {
        self.blocks.push(Vec::new());
    }

    /// Closes the innermost block: its bindings are gone, the ones they
    /// shadowed visible again. The kernel's own block stays open.
    pub(super) fn close(&mut self) {
        if self.blocks.len() <= 1 {
            return;
        }
        let depth = self.blocks.len() - 1;
        for name in self.blocks.pop().unwrap_or_default() {
            if let Some(stack) = self.bindings.get_mut(&name) {
                if stack.last().is_some_and(|(d, _)| *d == depth) {
                    stack.pop();
                }
                if stack.is_empty() {
                    self.bindings.remove(&name);
                }
            }
        }
    }

    /// Binds `name` in the innermost block (replacing that block's own
    /// binding of it, if any).
    pub(super) fn bind(&mut self, name: &str, binding: Binding) {
        let depth = self.blocks.len() - 1;
        let stack = self.bindings.entry(name.to_string()).or_default();
        match stack.last_mut() {
            Some((d, held)) if *d == depth => *held = binding,
            _ => {
                stack.push((depth, binding));
                if let Some(block) = self.blocks.last_mut() {
                    block.push(name.to_string());
                }
            }
        }
    }

    /// Binds `name` in the kernel's own block, under every inner binding
    /// of it (replacing the kernel block's own, if any).
    pub(super) fn bind_outermost(&mut self, name: &str, binding: Binding) {
        let stack = self.bindings.entry(name.to_string()).or_default();
        match stack.first_mut() {
            Some((0, held)) => *held = binding,
            _ => {
                stack.insert(0, (0, binding));
                self.blocks[0].push(name.to_string());
            }
        }
    }

    /// Removes the innermost block's own binding of `name`, if it has one.
    pub(super) fn unbind_innermost(&mut self, name: &str) -> Option<Binding> {
        let depth = self.blocks.len() - 1;
        let stack = self.bindings.get_mut(name)?;
        if stack.last().is_none_or(|(d, _)| *d != depth) {
            return None;
        }
        let (_, binding) = stack.pop()?;
        if stack.is_empty() {
            self.bindings.remove(name);
        }
        if let Some(block) = self.blocks.last_mut() {
            block.retain(|n| n != name);
        }
        Some(binding)
    }

    /// Removes the kernel block's own binding of `name`, if it has one.
    pub(super) fn unbind_outermost(&mut self, name: &str) {
        let Some(stack) = self.bindings.get_mut(name) else {
            return;
        };
        if stack.first().is_some_and(|(d, _)| *d == 0) {
            stack.remove(0);
            if stack.is_empty() {
                self.bindings.remove(name);
            }
            self.blocks[0].retain(|n| n != name);
        }
    }

    /// The innermost binding of `name`, with the depth of its block.
    pub(super) fn innermost(&self, name: &str) -> Option<(usize, &Binding)> {
        self.bindings
            .get(name)
            .and_then(|stack| stack.last())
            .map(|(depth, binding)| (*depth, binding))
    }

    /// Every name bound in an open block, sorted (for "did you mean").
    pub(super) fn all(&self) -> Vec<String> {
        let mut names: Vec<String> = self.bindings.keys().cloned().collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_of(names: &Names, name: &str) -> Option<usize> {
        names.innermost(name).map(|(depth, _)| depth)
    }

    #[test]
    fn inner_bindings_shadow_until_their_block_closes() {
        let mut names = Names::new();
        names.bind("x", Binding::Failed);
        names.open();
        names.open();
        names.bind("x", Binding::Failed);
        assert_eq!(depth_of(&names, "x"), Some(2));
        names.close();
        assert_eq!(depth_of(&names, "x"), Some(0));
        names.close();
        names.close(); // the kernel's block stays open
        assert_eq!(depth_of(&names, "x"), Some(0));
    }

    #[test]
    fn a_second_binding_in_one_block_replaces_the_first() {
        let mut names = Names::new();
        names.open();
        names.bind("x", Binding::Failed);
        names.bind("x", Binding::Unparsed);
        assert!(matches!(names.innermost("x"), Some((1, Binding::Unparsed))));
        names.close();
        assert_eq!(depth_of(&names, "x"), None);
        assert!(names.all().is_empty());
    }

    #[test]
    fn the_outermost_block_is_bound_under_the_inner_ones() {
        let mut names = Names::new();
        names.open();
        names.bind("t", Binding::Failed);
        assert!(names.unbind_innermost("t").is_some());
        assert!(names.unbind_innermost("t").is_none());
        names.bind("t", Binding::Failed);
        names.bind_outermost("t", Binding::Unparsed);
        assert_eq!(depth_of(&names, "t"), Some(1));
        names.close();
        assert!(matches!(names.innermost("t"), Some((0, Binding::Unparsed))));
        names.unbind_outermost("t");
        assert_eq!(depth_of(&names, "t"), None);
    }
}
