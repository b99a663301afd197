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

use crate::program::{Cond, Node, Program, Statement};
use crate::prove::convergence::{LoopUniformity, Uniformities};
use crate::prove::races::Threads;
use crate::ptx::Usability;
use crate::scope::Uniformity;
use crate::sym::AtomId;

/// The program's body with its role loops split (see the module doc).
pub(crate) fn split(program: &Program) -> Vec<Node> {
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
        return program.body.clone();
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
    let mut out = Vec::new();
    splitter.nodes(&program.body, &vec![true; block], false, &mut out);
    out
}

struct Splitter<'a, 't> {
    threads: &'a Threads<'t>,
    uniformities: Uniformities<'a>,
}

impl Splitter<'_, '_> {
    /// `nodes`, run by the threads `here`, into `out`, their loops split.
    /// `in_copy`: inside a loop copy of a split, whose arms none of `here`
    /// runs are dropped (elsewhere the body is kept as it is).
    fn nodes(&self, nodes: &[Node], here: &[bool], in_copy: bool, out: &mut Vec<Node>) {
        for node in nodes {
            match node {
                Node::If {
                    cond,
                    then,
                    otherwise,
                } => match self.decided(cond, here).filter(|_| in_copy) {
                    Some(true) => self.nodes(then, here, in_copy, out),
                    Some(false) => self.nodes(otherwise, here, in_copy, out),
                    None => {
                        let (then_here, else_here) = self.arms(cond, here);
                        let mut then_out = Vec::new();
                        let mut else_out = Vec::new();
                        self.nodes(then, &then_here, in_copy, &mut then_out);
                        self.nodes(otherwise, &else_here, in_copy, &mut else_out);
                        // An `if` left with nothing to run in a copy goes.
                        if in_copy && then_out.is_empty() && else_out.is_empty() {
                            continue;
                        }
                        out.push(Node::If {
                            cond: cond.clone(),
                            then: then_out,
                            otherwise: else_out,
                        });
                    }
                },
                Node::Loop {
                    var,
                    start,
                    end,
                    step,
                    body,
                } => {
                    let copy = |body: Vec<Node>| Node::Loop {
                        var: *var,
                        start: start.clone(),
                        end: end.clone(),
                        step: step.clone(),
                        body,
                    };
                    // What `here`'s threads run of the body, in a copy.
                    let body = if in_copy {
                        let mut kept = Vec::new();
                        self.nodes(body, here, true, &mut kept);
                        kept
                    } else {
                        body.clone()
                    };
                    match self.role_condition(&body, *var, here) {
                        Some(cond) => {
                            let (then_here, else_here) = self.arms(&cond, here);
                            let mut then_out = Vec::new();
                            let mut else_out = Vec::new();
                            self.nodes(&[copy(body.clone())], &then_here, true, &mut then_out);
                            self.nodes(&[copy(body.clone())], &else_here, true, &mut else_out);
                            out.push(Node::If {
                                cond,
                                then: then_out,
                                otherwise: else_out,
                            });
                        }
                        None => {
                            let mut inner = Vec::new();
                            self.nodes(&body, here, in_copy, &mut inner);
                            out.push(copy(inner));
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
