//! Lists of laws built from named parts at compile time: a scenario declares
//! its own laws and the named sets it shares with others (the reference models
//! of the network, of the whole system), each written once.

use super::Law;

/// How many laws `parts` hold in all.
pub const fn total(parts: &[&[&'static Law]]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// `parts` one after the other, in order.
pub const fn concat<const N: usize>(parts: &[&[&'static Law]]) -> [&'static Law; N] {
    let mut out: [&'static Law; N] = [&super::RUN; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "a law list's length is the sum of its parts");
    out
}

/// A `&'static [&'static Law]` of its parts (each a slice of laws), in order.
#[macro_export]
macro_rules! law_list {
    ($($part:expr),* $(,)?) => {{
        const PARTS: &[&[&'static $crate::law::Law]] = &[$($part),*];
        const N: usize = $crate::law::list_total(PARTS);
        const LIST: [&'static $crate::law::Law; N] = $crate::law::list_concat::<N>(PARTS);
        &LIST
    }};
}
