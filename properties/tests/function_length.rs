//! Functions read at a glance (issue 35 point 6; docs/STYLE's TigerBeetle limit of
//! 70 lines): no non-test function of the project's own code is over 120 lines,
//! and at most five are over 70. Vendored crates, test files and `#[cfg(test)]`
//! modules are not counted. A function's length runs from its `fn` line to the
//! line that closes its body, counted by braces (string literals with unbalanced
//! braces would miscount; the project has none in function bodies, and a
//! miscount shows as a length far off in the failure's list).

use std::path::{Path, PathBuf};

/// The project's own source folders.
const ROOTS: &[&str] = &["sim/src", "sim/tcp/src", "sim/crypto/src", "models", "properties/src"];
const HARD_LIMIT: usize = 120;
const SOFT_LIMIT: usize = 70;
const OVER_SOFT_MAX: usize = 5;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("readable source folder").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if p.is_dir() && name != "tests" && name != "target" && name != "vendor" {
            rust_files(&p, out);
        } else if name.ends_with(".rs") && !name.starts_with("tests") {
            out.push(p);
        }
    }
}

/// Whether a line starts a function (`fn`, with any of `pub`, `pub(crate)`, `const`, `async`).
fn starts_fn(line: &str) -> bool {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        if w.starts_with("pub") || *w == "const" || *w == "async" || *w == "unsafe" {
            words.next();
        } else {
            break;
        }
    }
    words.next() == Some("fn")
}

/// (length in lines, first line) of every function before the file's test module.
fn function_lengths(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines.iter().position(|l| l.trim_start().starts_with("#[cfg(test)]")).unwrap_or(lines.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i < end {
        if !starts_fn(lines[i]) {
            i += 1;
            continue;
        }
        let (mut depth, mut opened, mut j) = (0i64, false, i);
        while j < end {
            let l = lines[j];
            depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
            opened |= l.contains('{');
            if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        out.push((j - i + 1, i + 1));
        i = j + 1;
    }
    out
}

#[test]
fn functions_read_at_a_glance() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for r in ROOTS {
        rust_files(&root.join(r), &mut files);
    }
    assert!(files.len() > 50, "found the sources ({} files)", files.len());
    let mut long: Vec<(usize, String)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable source");
        for (n, line) in function_lengths(&text) {
            if n > SOFT_LIMIT {
                long.push((n, format!("{}:{line}", f.strip_prefix(&root).unwrap_or(f).display())));
            }
        }
    }
    long.sort();
    long.reverse();
    let over_hard: Vec<_> = long.iter().filter(|(n, _)| *n > HARD_LIMIT).collect();
    assert!(over_hard.is_empty(), "functions over {HARD_LIMIT} lines: {over_hard:?}");
    assert!(long.len() <= OVER_SOFT_MAX, "{} functions over {SOFT_LIMIT} lines (at most {OVER_SOFT_MAX}): {long:?}", long.len());
}

#[test]
fn the_count_sees_a_long_function() {
    let body: String = (0..130).map(|i| format!("    let x{i} = {i};\n")).collect();
    let text = format!("pub(crate) async fn long() {{\n{body}}}\n\nfn short() {{\n    if true {{\n    }}\n}}\n#[cfg(test)]\nmod tests {{\n    fn ignored() {{\n{body}    }}\n}}\n");
    assert_eq!(function_lengths(&text), vec![(132, 1), (4, 134)]);
}
