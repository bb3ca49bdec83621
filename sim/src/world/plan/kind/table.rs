//! The table every list of fault kinds is generated from (issue 35 point 2), as
//! `switches!` is for the bug switches: one row a swarm kind (the unit the
//! generator switches on), in the order the generator draws them:
//!
//! ```text
//! /// What the kind does.
//! Name "toml_name" [Variant(module), ...] [Struct::drawn, ...],
//! ```
//!
//! The first list names the timed faults the row owns: each is `module.rs`'s
//! struct, a variant of [`FaultKind`](super::FaultKind) (`kind = "..."` in a
//! plan is the variant's name in snake case); the second, the functions that
//! make the row's faults of one drawn case, in order. A link setting (delay,
//! loss, ...) has both empty; a row may draw another row's struct (`path_drop`
//! draws a `udp_blocked`). From the table come the modules and their structs,
//! `FaultKind` with its `def` and `From` of each struct, [`Kind`](super::Kind),
//! `KINDS`, and each kind's name, draw and whether it is timed.

macro_rules! kinds {
    ($(
        $(#[$doc:meta])*
        $kind:ident $name:literal [$($ty:ident($module:ident)),*] [$($draw:path),*]
    ),* $(,)?) => {
        $($(
            mod $module;
            pub use $module::$ty;
        )*)*

        /// What a timed fault does: one variant a kind, each kind's struct in its file.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case", tag = "kind")]
        pub enum FaultKind {
            $($($ty($ty),)*)*
        }

        $($(
            impl From<$ty> for FaultKind {
                fn from(k: $ty) -> Self {
                    FaultKind::$ty(k)
                }
            }
        )*)*

        impl FaultKind {
            /// The kind's own description of itself.
            pub fn def(&self) -> &dyn TimedKind {
                match self {
                    $($(FaultKind::$ty(k) => k,)*)*
                }
            }
        }

        /// A kind of fault the generator can switch on (the unit of swarm testing).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $($(#[$doc])* $kind,)*
        }

        /// Every kind, in the order the generator draws them.
        pub const KINDS: &[Kind] = &[$(Kind::$kind,)*];

        impl Kind {
            /// A timed fault (drawn with a time and a host), not a link setting.
            pub fn is_timed(self) -> bool {
                let draws: &[&str] = match self {
                    $(Kind::$kind => &[$(stringify!($draw)),*],)*
                };
                !draws.is_empty()
            }

            /// Its name in a plan, a domain and a report.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$kind => $name,)*
                }
            }

            /// The timed faults this swarm kind makes of one drawn case's values (each
            /// kind's `drawn` says how); empty for the link settings.
            pub fn draw(self, d: &Draw) -> Vec<TimedFault> {
                match self {
                    $(Kind::$kind => vec![$(drawn_at(d, $draw(d))),*],)*
                }
            }
        }
    };
}
