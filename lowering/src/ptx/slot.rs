//! The names of the table's modifier slots, as a type: a misspelled slot
//! is a compile error, not a silent `None`.

use std::fmt;

macro_rules! slots {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// A modifier slot of a form (`.rnd`, `.type`, `.scope`, ..), by the
        /// name the table gives it. [`super::Modifiers::get`] asks a
        /// variant for the token in one.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Slot {
            $($variant),*
        }

        impl Slot {
            /// Every slot.
            pub const ALL: &'static [Slot] = &[$(Slot::$variant),*];

            /// The name as the table and the docs write it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Slot::$variant => $name),*
                }
            }
        }
    };
}

slots! {
    Abs = "abs",
    Abtype = "abtype",
    Acc = "acc",
    Action = "action",
    Alayout = "alayout",
    Aligned = "aligned",
    Atype = "atype",
    Bitop = "bitop",
    Blayout = "blayout",
    Bool = "bool",
    Boolop = "boolop",
    Btype = "btype",
    Cc = "cc",
    Cmp = "cmp",
    Completion = "completion",
    Convert = "convert",
    Cop = "cop",
    Ctype = "ctype",
    Dim = "dim",
    Dir = "dir",
    Dst = "dst",
    Dtype = "dtype",
    Evict = "evict",
    Ftz = "ftz",
    Hint = "hint",
    Level = "level",
    LoadMode = "load_mode",
    Mmio = "mmio",
    Mode = "mode",
    Multicast = "multicast",
    Nan = "nan",
    Nc = "nc",
    Noftz = "noftz",
    Noinc = "noinc",
    Num = "num",
    Oob = "oob",
    Op = "op",
    Parity = "parity",
    Popc = "popc",
    Prefetch = "prefetch",
    Primary = "primary",
    Proxy = "proxy",
    Read = "read",
    Redop = "redop",
    Relu = "relu",
    Rnd = "rnd",
    Sat = "sat",
    Satfinite = "satfinite",
    Scope = "scope",
    Secondary = "secondary",
    Sem = "sem",
    Shape = "shape",
    Shiftamt = "shiftamt",
    Space = "space",
    Src = "src",
    Stype = "stype",
    Sync = "sync",
    Test = "test",
    Trans = "trans",
    Type = "type",
    Vec = "vec",
    Xorsign = "xorsign",
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_names_are_distinct() {
        let mut names: Vec<&str> = Slot::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Slot::ALL.len());
    }

    #[test]
    fn every_slot_is_a_slot_of_some_form() {
        for slot in Slot::ALL {
            assert!(
                crate::ptx::table::FORMS
                    .iter()
                    .any(|f| f.slots.iter().any(|s| s.name == *slot)),
                "no form has a `{slot}` slot"
            );
        }
    }
}
