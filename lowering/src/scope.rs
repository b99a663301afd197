//! Scopes and uniformity: the vocabulary shared by semantic analysis (which
//! threads issue an `apply` and own a group tile together) and the proofs
//! (over which threads a value is the same, and what a collective of a
//! scope needs of the conditions around it).

/// Which threads issue an `apply` together and own a tile together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    Thread,
    Warp,
    Warpgroup,
    Cta,
    /// Every thread of a thread-block cluster: the scope of a cluster
    /// barrier's `apply` only (the threads of a cluster share no tiles).
    Cluster,
}

impl Scope {
    pub(crate) fn parse(text: &str) -> Option<Scope> {
        Some(match text {
            "thread" => Scope::Thread,
            "warp" => Scope::Warp,
            "warpgroup" => Scope::Warpgroup,
            "cta" => Scope::Cta,
            "cluster" => Scope::Cluster,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::Thread => "thread",
            Scope::Warp => "warp",
            Scope::Warpgroup => "warpgroup",
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
        }
    }

    /// Threads in one instance of the scope, for a block of `threads`.
    pub(crate) fn size(self, threads: usize) -> usize {
        match self {
            Scope::Thread => 1,
            Scope::Warp => 32,
            Scope::Warpgroup => 128,
            // A CTA's part of its cluster (no tile has this scope).
            Scope::Cta | Scope::Cluster => threads,
        }
    }

    /// The coarsest uniformity a condition around a collective of this
    /// scope needs.
    pub(crate) fn needs(self) -> Uniformity {
        match self {
            Scope::Thread => Uniformity::Thread,
            Scope::Warp => Uniformity::Warp,
            Scope::Warpgroup => Uniformity::Warpgroup,
            Scope::Cta => Uniformity::Cta,
            Scope::Cluster => Uniformity::Cluster,
        }
    }

    /// The scope in prose: "warp", "warpgroup", "CTA".
    pub(crate) fn prose(self) -> &'static str {
        match self {
            Scope::Cta => "CTA",
            other => other.name(),
        }
    }

    /// How a tile of this scope names the threads: "lane", "thread".
    pub(crate) fn member(self) -> &'static str {
        match self {
            Scope::Warp => "lane",
            _ => "thread",
        }
    }
}

/// Over which threads a value is the same: ordered from finest to coarsest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Uniformity {
    /// May differ between any two threads.
    Thread,
    /// The same for the 32 lanes of a warp.
    Warp,
    /// The same for the 4 warps of a warpgroup.
    Warpgroup,
    /// The same for every thread of a CTA.
    Cta,
    /// The same for every thread of a thread-block cluster (a CTA's
    /// `cta_id` where no cluster spans its axis, `cluster_id`).
    Cluster,
    /// The same for every thread of the launch.
    Grid,
}
