//! Compilation targets: the `sm_XX` architecture a kernel is built for and the
//! PTX ISA versions that go with it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A PTX ISA version (`.version 7.8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PtxVersion {
    pub major: u8,
    pub minor: u8,
}

impl PtxVersion {
    pub const fn new(major: u8, minor: u8) -> Self {
        PtxVersion { major, minor }
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A GPU architecture target (`sm_90`, `sm_90a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Target {
    /// The compute capability as a number: `sm_89` -> 89.
    pub sm: u32,
    /// The `a` suffix: arch-specific features, not forward compatible.
    pub arch_specific: bool,
}

/// Targets the compiler knows, with the first PTX ISA version that supports
/// each (PTX ISA release notes). ptxas 12.9 assembles all of them.
const KNOWN_TARGETS: &[(u32, bool, PtxVersion)] = &[
    (70, false, PtxVersion::new(6, 0)),
    (72, false, PtxVersion::new(6, 1)),
    (75, false, PtxVersion::new(6, 3)),
    (80, false, PtxVersion::new(7, 0)),
    (86, false, PtxVersion::new(7, 1)),
    (87, false, PtxVersion::new(7, 4)),
    (89, false, PtxVersion::new(7, 8)),
    (90, false, PtxVersion::new(7, 8)),
    (90, true, PtxVersion::new(8, 0)),
    (100, false, PtxVersion::new(8, 6)),
    (100, true, PtxVersion::new(8, 6)),
    (120, false, PtxVersion::new(8, 7)),
    (120, true, PtxVersion::new(8, 7)),
];

impl Target {
    /// The default target: Hopper.
    pub const SM_90: Target = Target {
        sm: 90,
        arch_specific: false,
    };

    pub const fn sm(sm: u32) -> Target {
        Target {
            sm,
            arch_specific: false,
        }
    }

    /// Whether PTX for this target can be loaded by a device of compute
    /// capability `major.minor`: the same or a newer one (the driver JITs
    /// PTX forward), or exactly the same one for an arch-specific (`a`)
    /// target.
    pub const fn runs_on(self, major: u32, minor: u32) -> bool {
        let device = major * 10 + minor;
        if self.arch_specific {
            device == self.sm
        } else {
            device >= self.sm
        }
    }

    /// Parses `sm_90` / `sm_90a`; `None` for a target this compiler does not know.
    pub fn parse(text: &str) -> Option<Target> {
        let digits = text.strip_prefix("sm_")?;
        let (digits, arch_specific) = match digits.strip_suffix('a') {
            Some(rest) => (rest, true),
            None => (digits, false),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 4 {
            return None;
        }
        let sm: u32 = digits.parse().ok()?;
        let target = Target { sm, arch_specific };
        target.min_ptx_version().map(|_| target)
    }

    /// The lowest PTX ISA version whose `.target` accepts this architecture.
    pub fn min_ptx_version(self) -> Option<PtxVersion> {
        KNOWN_TARGETS
            .iter()
            .find(|(sm, a, _)| *sm == self.sm && *a == self.arch_specific)
            .map(|(_, _, v)| *v)
    }

    /// Every target name this compiler accepts, for error messages.
    pub fn known_names() -> Vec<String> {
        KNOWN_TARGETS
            .iter()
            .map(|(sm, a, _)| {
                Target {
                    sm: *sm,
                    arch_specific: *a,
                }
                .to_string()
            })
            .collect()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sm_{}{}",
            self.sm,
            if self.arch_specific { "a" } else { "" }
        )
    }
}

/// What one instruction form needs from the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requirement {
    /// The lowest architecture (for an arch-specific form: the first of
    /// `only_on`).
    pub sm: u32,
    pub ptx: PtxVersion,
    /// Arch-specific forms (`wgmma` on sm_90a, fp4 conversions on
    /// sm_100a): available exactly on the `a` targets of these
    /// architectures, not on later ones.
    pub only_on: Option<&'static [u32]>,
}

impl Requirement {
    pub const fn new(sm: u32, major: u8, minor: u8) -> Self {
        Requirement {
            sm,
            ptx: PtxVersion::new(major, minor),
            only_on: None,
        }
    }

    /// A form of the `a` targets of `archs` only (the first is the floor).
    pub const fn arch_specific(archs: &'static [u32], major: u8, minor: u8) -> Self {
        Requirement {
            sm: archs[0],
            ptx: PtxVersion::new(major, minor),
            only_on: Some(archs),
        }
    }

    /// The stricter of two requirements, component-wise (an arch-specific
    /// one stays arch-specific).
    pub fn max(self, other: Requirement) -> Requirement {
        Requirement {
            sm: self.sm.max(other.sm),
            ptx: self.ptx.max(other.ptx),
            only_on: self.only_on.or(other.only_on),
        }
    }

    pub fn is_met_by(self, target: Target) -> bool {
        match self.only_on {
            None => target.sm >= self.sm,
            Some(archs) => target.arch_specific && archs.contains(&target.sm),
        }
    }

    /// The targets that meet it, for messages: `sm_89 or newer`,
    /// `sm_100a or sm_120a`.
    pub fn targets_text(self) -> String {
        match self.only_on {
            None => format!("sm_{} or newer", self.sm),
            Some(archs) => archs
                .iter()
                .map(|sm| format!("sm_{sm}a"))
                .collect::<Vec<_>>()
                .join(" or "),
        }
    }

    /// The lowest target that meets it.
    pub fn floor_target(self) -> Target {
        Target {
            sm: self.sm,
            arch_specific: self.only_on.is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_targets_only() {
        assert_eq!(Target::parse("sm_90"), Some(Target::SM_90));
        assert_eq!(
            Target::parse("sm_90a"),
            Some(Target {
                sm: 90,
                arch_specific: true
            })
        );
        assert_eq!(Target::parse("sm_91"), None);
        assert_eq!(Target::parse("sm_"), None);
        assert_eq!(Target::parse("compute_90"), None);
        assert_eq!(
            Target::parse("sm_89").unwrap().min_ptx_version(),
            Some(PtxVersion::new(7, 8))
        );
        assert_eq!(Target::parse("sm_80").unwrap().to_string(), "sm_80");
    }

    #[test]
    fn ptx_runs_forward_and_arch_specific_ptx_only_on_its_own_arch() {
        assert!(Target::sm(80).runs_on(9, 0));
        assert!(Target::SM_90.runs_on(9, 0));
        assert!(!Target::SM_90.runs_on(8, 9));
        assert!(Target::SM_90.runs_on(12, 0));
        let hopper_only = Target::parse("sm_90a").expect("known");
        assert!(hopper_only.runs_on(9, 0));
        assert!(!hopper_only.runs_on(10, 0));
    }
}
