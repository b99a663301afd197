//! Role loops: the body the emitter writes, with each runtime loop that
//! branches on the thread's index split into one loop per role.
//!
//! A warp-specialised kernel is written (and proven) as one loop whose
//! body has an arm per role: `for k in 1..steps { if wg < 2 { consume }
//! if next < steps { if t == 256 { produce } } }`. ptxas compiles that
//! loop as one region every thread runs: it serializes the `wgmma`s of a
//! loop that holds another role's divergent code ("wgmma.mma_async
//! instructions are serialized due to program dependence on
//! compiler-inserted WG.DP in divergent path", C7518, ptxas 12.9) and drops
//! a `setmaxnreg` whose role shares code with another ("'setmaxnreg'
//! ignored to maintain minimum register requirements", C7507). Here such
//! a loop becomes `if wg < 2 { for k { consume } } else if t == 256 {
//! for k { produce } }` (loop unswitching), each copy keeping only the
//! arms its threads run.
//!
//! **When.** A loop that holds a warpgroup instruction (`wgmma`,
//! `setmaxnreg`; other loops gain nothing and would double their code) is
//! split on a condition of an `if` anywhere in its
//! body that depends on the thread's index alone (every thread of the
//! block evaluates it, [`Threads::where_holds`]), through no atom the loop
//! defines, and that holds for some but not all of the threads that reach
//! the loop. The rest of the loop (outside its arms) has no CTA or cluster
//! barrier (every thread of the CTA runs the same `bar.sync` instruction,
//! `.aligned`, and after the split two roles would run two copies of it),
//! and either the condition is the same for every thread of a warpgroup
//! or the rest of the loop has no collective at all: a warp or a
//! warpgroup reaches each of its collective instructions together, which
//! a split on a condition that divides a warp or warpgroup would break.
//!
//! **Guarantee.** Every thread runs the same instructions in the same
//! order as in the program's body: a loop's header is evaluated the same
//! in each copy, a condition on the thread's index has the same value at
//! every iteration, and a copy drops only arms whose condition fails (or
//! holds) for every thread that runs it. So the proofs about the program's body (which
//! the interpreter runs as it is) hold for the PTX.

use std::borrow::Cow;

use crate::program::{Cond, Node, Program, Statement};
use crate::prove::convergence::{LoopUniformity, Uniformities};
use crate::prove::races::Threads;
use crate::ptx::Usability;
use crate::scope::Uniformity;
use crate::sym::AtomId;

/// The program's body with its role loops split (see the module doc):
/// the body itself where no loop splits (most kernels), without copying
/// it.
pub(crate) fn split(program: &Program) -> Cow<'_, [Node]> {
    let loop_classes = Default::default();
    let threads = Threads {
        atoms: &program.atoms,
        launch: &program.launch,
        loop_classes: &loop_classes,
        fact_sets: Default::default(),
    };
    let block: usize = program
        .launch
        .block
        .iter()
        .map(|b| usize::try_from(*b).unwrap_or(0))
        .product();
    if block == 0 || block > 1 << 16 {
        return Cow::Borrowed(&program.body);
    }
    let loops = LoopUniformity::default();
    let splitter = Splitter {
        threads: &threads,
        uniformities: Uniformities {
            atoms: &program.atoms,
            block: program.launch.block,
            loops: &loops,
        },
    };
    match splitter.changed_block(&program.body, &vec![true; block]) {
        Some(body) => Cow::Owned(body),
        None => Cow::Borrowed(&program.body),
    }
}

struct Splitter<'a, 't> {
    threads: &'a Threads<'t>,
    uniformities: Uniformities<'a>,
}

impl Splitter<'_, '_> {
    /// `nodes`, run by the threads `here` outside any loop copy, with
    /// their loops split; `None` where none is (the nodes as they are).
    fn changed_block(&self, nodes: &[Node], here: &[bool]) -> Option<Vec<Node>> {
        let changed: Vec<Option<Node>> = nodes.iter().map(|n| self.changed(n, here)).collect();
        if changed.iter().all(Option::is_none) {
            return None;
        }
        Some(
            nodes
                .iter()
                .zip(changed)
                .map(|(node, changed)| changed.unwrap_or_else(|| node.clone()))
                .collect(),
        )
    }

    /// [`Splitter::changed_block`] of one node: every arm of an `if` kept
    /// (outside a copy no thread set has dropped one).
    fn changed(&self, node: &Node, here: &[bool]) -> Option<Node> {
        match node {
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                // Only a loop of warpgroup instructions splits: an `if`
                // without one needs no threads of its arms.
                if !has_warpgroup_loop(then) && !has_warpgroup_loop(otherwise) {
                    return None;
                }
                let (then_here, else_here) = self.arms(cond, here);
                let then_out = self.changed_block(then, &then_here);
                let else_out = self.changed_block(otherwise, &else_here);
                if then_out.is_none() && else_out.is_none() {
                    return None;
                }
                Some(Node::If {
                    cond: cond.clone(),
                    then: then_out.unwrap_or_else(|| then.clone()),
                    otherwise: else_out.unwrap_or_else(|| otherwise.clone()),
                })
            }
            Node::Loop { var, body, .. } => match self.role_condition(body, *var, here) {
                Some(cond) => Some(self.split_loop(node, cond, here)),
                None => self
                    .changed_block(body, here)
                    .map(|inner| loop_with_body(node, inner)),
            },
            Node::Statement(_) | Node::Define(_) => None,
        }
    }

    /// Loop `looped` split on `cond`: `if cond { loop } else { loop }`,
    /// each copy keeping what its threads of `here` run.
    fn split_loop(&self, looped: &Node, cond: Cond, here: &[bool]) -> Node {
        let (then_here, else_here) = self.arms(&cond, here);
        let mut then_out = Vec::new();
        let mut else_out = Vec::new();
        self.copied(std::slice::from_ref(looped), &then_here, &mut then_out);
        self.copied(std::slice::from_ref(looped), &else_here, &mut else_out);
        Node::If {
            cond,
            then: then_out,
            otherwise: else_out,
        }
    }

    /// `nodes` in a loop copy of a split, run by the threads `here`, into
    /// `out`: the arms none of `here` runs dropped, inner loops split.
    fn copied(&self, nodes: &[Node], here: &[bool], out: &mut Vec<Node>) {
        for node in nodes {
            match node {
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => match self.decided(cond, here) {
                    Some(true) => self.copied(then, here, out),
                    Some(false) => self.copied(otherwise, here, out),
                    None => {
                        let (then_here, else_here) = self.arms(cond, here);
                        let mut then_out = Vec::new();
                        let mut else_out = Vec::new();
                        self.copied(then, &then_here, &mut then_out);
                        self.copied(otherwise, &else_here, &mut else_out);
                        // An `if` left with nothing to run in a copy goes.
                        if then_out.is_empty() && else_out.is_empty() {
                            continue;
                        }
                        out.push(Node::If {
                            cond: cond.clone(),
                            then: then_out,
                            otherwise: else_out,
                        });
                    }
                },
                Node::Loop { var, body, .. } => {
                    // What `here`'s threads run of the body.
                    let mut kept = Vec::new();
                    self.copied(body, here, &mut kept);
                    match self.role_condition(&kept, *var, here) {
                        Some(cond) => {
                            let looped = loop_with_body(node, kept);
                            out.push(self.split_loop(&looped, cond, here));
                        }
                        None => {
                            let mut inner = Vec::new();
                            self.copied(&kept, here, &mut inner);
                            out.push(loop_with_body(node, inner));
                        }
                    }
                }
                Node::Statement(_) | Node::Define(_) => out.push(node.clone()),
            }
        }
    }

    /// Whether `cond` holds for every thread of `here` (`Some(true)`), for
    /// none (`Some(false)`), or may differ (`None`, also where it depends
    /// on more than the thread).
    fn decided(&self, cond: &Cond, here: &[bool]) -> Option<bool> {
        if let Cond::Const(value) = cond {
            return Some(*value);
        }
        let holds = self.threads.where_holds(cond)?;
        let mut values = here
            .iter()
            .zip(&holds)
            .filter(|(h, _)| **h)
            .map(|(_, c)| *c);
        let first = values.next()?;
        values.all(|v| v == first).then_some(first)
    }

    /// The threads of `here` that run each arm of an `if` on `cond` (all
    /// of them both, where `cond` does not depend on the thread alone).
    fn arms(&self, cond: &Cond, here: &[bool]) -> (Vec<bool>, Vec<bool>) {
        match self.threads.where_holds(cond) {
            Some(holds) => (
                here.iter().zip(&holds).map(|(h, c)| *h && *c).collect(),
                here.iter().zip(&holds).map(|(h, c)| *h && !*c).collect(),
            ),
            None => (here.to_vec(), here.to_vec()),
        }
    }

    /// The condition to split a loop of variable `var` on: the first `if`
    /// of its body, at any depth, on the thread's index alone and through
    /// no atom the loop defines, that `here`'s threads do not all decide
    /// alike, and that the split keeps collectives whole on (module doc).
    fn role_condition(&self, body: &[Node], var: AtomId, here: &[bool]) -> Option<Cond> {
        // Only a loop of `wgmma`s or `setmaxnreg`s gains: ptxas compiles
        // other loops with divergent arms well, and a split doubles code.
        if !anywhere(body, &warpgroup) {
            return None;
        }
        let mut defined = vec![var];
        defines(body, &mut defined);
        let mut candidates = Vec::new();
        conditions(body, &mut candidates);
        candidates.into_iter().find_map(|cond| {
            let ok = !mentions_any(cond, &defined)
                && self.threads.where_holds(cond).is_some()
                && self.decided(cond, here).is_none()
                && !outside_arms(body, cond, &barrier)
                && (self.uniformities.of_cond(cond) >= Uniformity::Warpgroup
                    || !outside_arms(body, cond, &collective));
            ok.then(|| cond.clone())
        })
    }
}

/// Whether `nodes` hold a loop with a warpgroup instruction (at any
/// depth): the only loops [`Splitter::role_condition`] splits.
fn has_warpgroup_loop(nodes: &[Node]) -> bool {
    nodes.iter().any(|node| match node {
        Node::If {
            then, otherwise, ..
        } => has_warpgroup_loop(then) || has_warpgroup_loop(otherwise),
        Node::Loop { body, .. } => anywhere(body, &warpgroup),
        Node::Statement(_) | Node::Define(_) => false,
    })
}

/// Loop `looped` (a [`Node::Loop`]) with its body replaced by `body`.
fn loop_with_body(looped: &Node, body: Vec<Node>) -> Node {
    match looped {
        Node::Loop {
            var,
            start,
            end,
            step,
            ..
        } => Node::Loop {
            var: *var,
            start: start.clone(),
            end: end.clone(),
            step: step.clone(),
            body,
        },
        other => other.clone(),
    }
}

/// The conditions of the `if`s in `nodes`, outer first, in order.
fn conditions<'a>(nodes: &'a [Node], out: &mut Vec<&'a Cond>) {
    for node in nodes {
        match node {
            Node::If {
                cond,
                then,
                otherwise,
            } => {
                out.push(cond);
                conditions(then, out);
                conditions(otherwise, out);
            }
            Node::Loop { body, .. } => conditions(body, out),
            Node::Statement(_) | Node::Define(_) => {}
        }
    }
}

/// The atoms `nodes` define (and the variables of their loops).
fn defines(nodes: &[Node], out: &mut Vec<AtomId>) {
    for node in nodes {
        match node {
            Node::Define(atom) => out.push(*atom),
            Node::If {
                then, otherwise, ..
            } => {
                defines(then, out);
                defines(otherwise, out);
            }
            Node::Loop { var, body, .. } => {
                out.push(*var);
                defines(body, out);
            }
            Node::Statement(_) => {}
        }
    }
}

fn mentions_any(cond: &Cond, atoms: &[AtomId]) -> bool {
    match cond {
        Cond::Cmp(_, poly) => poly.atoms().iter().any(|a| atoms.contains(a)),
        Cond::Not(inner) => mentions_any(inner, atoms),
        Cond::And(a, b) | Cond::Or(a, b) => mentions_any(a, atoms) || mentions_any(b, atoms),
        Cond::Const(_) | Cond::Param(_) | Cond::Register { .. } => false,
    }
}

/// Whether `nodes` hold a statement `kind` accepts, at any depth.
fn anywhere(nodes: &[Node], kind: &dyn Fn(&Statement) -> bool) -> bool {
    nodes.iter().any(|node| match node {
        Node::Statement(statement) => kind(statement),
        Node::If {
            then, otherwise, ..
        } => anywhere(then, kind) || anywhere(otherwise, kind),
        Node::Loop { body, .. } => anywhere(body, kind),
        Node::Define(_) => false,
    })
}

/// Whether `nodes` hold a statement `kind` accepts outside the arms of
/// the `if`s on `cond`.
fn outside_arms(nodes: &[Node], cond: &Cond, kind: &dyn Fn(&Statement) -> bool) -> bool {
    nodes.iter().any(|node| match node {
        Node::Statement(statement) => kind(statement),
        Node::If {
            cond: c,
            then,
            otherwise,
        } => c != cond && (outside_arms(then, cond, kind) || outside_arms(otherwise, cond, kind)),
        Node::Loop { body, .. } => outside_arms(body, cond, kind),
        Node::Define(_) => false,
    })
}

/// A statement that threads must reach together: a warp or warpgroup
/// collective or a barrier (anything but a plain form; one whose variant
/// is not known counts).
fn collective(statement: &Statement) -> bool {
    statement
        .variant
        .modifiers()
        .is_none_or(|m| m.usability() != Usability::Yes)
}

/// A warpgroup instruction (`wgmma`, `setmaxnreg`): what ptxas serializes
/// or drops in a loop that holds another role's code.
fn warpgroup(statement: &Statement) -> bool {
    statement
        .variant
        .modifiers()
        .is_some_and(|m| m.usability() == Usability::Warpgroup)
}

/// A barrier of the CTA or the cluster: every thread of the CTA runs the
/// same instruction (`bar.sync` is `.aligned` over the CTA), so no split
/// may give two roles their own copies of it (one whose variant is not
/// known counts).
fn barrier(statement: &Statement) -> bool {
    statement.variant.modifiers().is_none_or(|m| {
        matches!(
            m.usability(),
            Usability::CtaBarrier | Usability::ClusterBarrier
        )
    })
}
