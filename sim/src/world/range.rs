//! Whole-number fields and their ranges (issue 19 section 3): one check for every
//! table of ranges (a leg's, host processing's, each fault kind's), each table
//! beside the fields it describes.

/// A whole-number field, its range (inclusive) and why.
pub type FieldRange = (&'static str, u64, u64, &'static str);

/// Every `(field, value)` within its range in `ranges`, in the order given; the
/// error names `prefix` and the field, the value and the range. A field with no
/// range is a bug in the caller's table, not bad input, so it panics.
pub fn check_whole(prefix: &str, fields: &[(&'static str, u64)], ranges: &[FieldRange]) -> Result<(), String> {
    for &(field, v) in fields {
        let Some(&(_, lo, hi, why)) = ranges.iter().find(|r| r.0 == field) else {
            panic!("{prefix}{field} has no range in its table");
        };
        if !(lo..=hi).contains(&v) {
            return Err(format!("{prefix}{field} = {v}: must be from {lo} to {hi} ({why})"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: &[FieldRange] = &[("a", 1, 3, "why a"), ("b", 0, 0, "why b")];

    #[test]
    fn inside_passes_and_outside_names_field_value_and_range() {
        assert_eq!(check_whole("p.", &[("a", 1), ("a", 3), ("b", 0)], R), Ok(()));
        assert_eq!(check_whole("p.", &[("a", 4)], R), Err("p.a = 4: must be from 1 to 3 (why a)".into()));
        assert_eq!(check_whole("", &[("a", 2), ("b", 1)], R), Err("b = 1: must be from 0 to 0 (why b)".into()));
    }

    #[test]
    #[should_panic(expected = "p.c has no range")]
    fn a_field_without_a_range_is_a_bug() {
        let _ = check_whole("p.", &[("c", 0)], R);
    }
}
