#!/usr/bin/env bash
# Check one upstream report: bash docs/findings/upstream/check.sh NAME
#
# NAME is a folder next to this script holding test.patch, fix.patch and fails-with.txt (an
# extended regex the failing test's panic message must match). The script copies a
# pristine quinn-proto from the cargo registry into a scratch folder, applies test.patch alone
# and shows the new test FAILING, then applies fix.patch on top (the fix alone: none of
# ftw-sim's other quinn-proto patches) and shows it PASSING. It exits non-zero if either
# expectation is not met, or if a patch does not apply or the crate does not build.
#
# Environment:
#   QUINN_PROTO_VERSION  the registry release to check (default 0.11.19, the newest on
#                        crates.io when this was written)
#   QUINN_MAIN_DIR       optional: a checkout (or `git archive`) of quinn's repository; the
#                        same two patches are then also checked in its quinn-proto/ (or
#                        NAME/main/test.patch and NAME/main/fix.patch where those exist)
#   QUINN_MAIN_REV       optional: the commit QUINN_MAIN_DIR was taken from, for the printout
#   CARGO_TARGET_DIR     where to build (default: $TMPDIR/quinn-upstream-check-target, kept
#                        between runs so that only quinn-proto itself is rebuilt)
#
# The registry source is ~/.cargo/registry/src/*/quinn-proto-<version>/. If it is not there,
# a throwaway crate depending on quinn-proto = "=<version>" is fetched once (needs the
# network); later runs work offline.
set -uo pipefail

NAME="${1:-}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VER="${QUINN_PROTO_VERSION:-0.11.19}"
TMP="${TMPDIR:-/tmp}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$TMP/quinn-upstream-check-target}"
CARGO_HOME_DIR="${CARGO_HOME:-$HOME/.cargo}"

say() { printf '\n=== %s\n' "$*"; }
die() { printf '\ncheck.sh: FAIL: %s\n' "$*" >&2; exit 1; }

if [ -z "$NAME" ] || [ ! -f "$HERE/$NAME/test.patch" ] || [ ! -f "$HERE/$NAME/fix.patch" ]; then
    echo "usage: bash $0 NAME   (NAME: one of the folders with test.patch and fix.patch:"
    for d in "$HERE"/*/; do [ -f "$d/test.patch" ] && echo "  $(basename "$d")"; done
    echo ")"
    exit 2
fi
TEST_PATCH="$HERE/$NAME/test.patch"
FIX_PATCH="$HERE/$NAME/fix.patch"

# The test's name: the first `fn` after a `#[test]` that test.patch adds.
TEST="$(grep -A1 '^+#\[test\]' "$TEST_PATCH" | sed -n 's/^+fn \([A-Za-z0-9_]*\)().*/\1/p' | head -n1)"
[ -n "$TEST" ] || die "no #[test] fn found in $TEST_PATCH"

# 1. A pristine quinn-proto from the registry.
find_src() { ls -d "$CARGO_HOME_DIR"/registry/src/*/"quinn-proto-$VER" 2>/dev/null | head -n1; }
SRC="$(find_src)"
if [ -z "$SRC" ]; then
    say "quinn-proto $VER is not in the registry cache: fetching it once"
    FETCH="$(mktemp -d "$TMP/quinn-proto-fetch.XXXXXX")"
    mkdir -p "$FETCH/src"
    printf '[package]\nname = "fetch-quinn-proto"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nquinn-proto = "=%s"\n' "$VER" > "$FETCH/Cargo.toml"
    : > "$FETCH/src/lib.rs"
    (cd "$FETCH" && cargo fetch) || die "cargo fetch of quinn-proto $VER failed"
    rm -rf "$FETCH"
    SRC="$(find_src)"
    [ -n "$SRC" ] || die "quinn-proto $VER still not under $CARGO_HOME_DIR/registry/src after cargo fetch"
fi

# Runs the test in crate directory $1 (cargo package dir), expecting $2 = FAILED or ok.
# $3: extra cargo arguments (the package, in a workspace).
run_test() {
    local dir="$1" want="$2" pkg="$3" log
    log="$(mktemp "$TMP/quinn-upstream-check.XXXXXX.log")"
    # Dependencies come from the crate's own Cargo.lock; offline once they are cached.
    (cd "$dir" && { cargo fetch --locked --offline >/dev/null 2>&1 || cargo fetch --locked >"$log" 2>&1; }) \
        || { tail -n 20 "$log"; die "cargo fetch failed in $dir"; }
    # Copies of one crate at other paths share the target directory; make sure this one is built.
    (cd "$dir" && cargo clean --offline -p quinn-proto) >/dev/null 2>&1
    (cd "$dir" && nice -n 10 cargo test --locked --offline $pkg --lib --no-run) >"$log" 2>&1 \
        || { tail -n 40 "$log"; die "the tests do not build in $dir"; }
    (cd "$dir" && RUST_BACKTRACE=0 nice -n 10 cargo test --locked --offline $pkg --lib -- "tests::$TEST" --exact) >"$log" 2>&1
    local rc=$?
    # What the test said: its result line, a failure's panic message, the summary.
    grep -E "^test tests::$TEST \.\.\. " "$log"
    awk '/panicked at/ {p=1} p && (/^$/ || /^note: / || /^stack backtrace/) {exit} p' "$log"
    grep -m1 -E '^test result:' "$log"
    local rc_ok=0
    if [ "$want" = ok ]; then [ $rc -eq 0 ] && rc_ok=1; else [ $rc -ne 0 ] && rc_ok=1; fi
    # A failure counts only if it is the test's own assertion (fails-with.txt), not a setup step.
    local msg_ok=1
    if [ "$want" = FAILED ] && [ -f "$HERE/$NAME/fails-with.txt" ]; then
        grep -Eq -f "$HERE/$NAME/fails-with.txt" "$log" || msg_ok=0
    fi
    if [ $rc_ok = 1 ] && [ $msg_ok = 1 ] && grep -q "^test tests::$TEST \.\.\. $want\$" "$log"; then
        echo "as expected: tests::$TEST ... $want"
        rm -f "$log"
        return 0
    fi
    echo "(full log: $log)"
    [ $msg_ok = 1 ] || die "tests::$TEST failed, but not with $(cat "$HERE/$NAME/fails-with.txt")"
    die "expected tests::$TEST ... $want in $dir"
}

# check_tree CRATE_DIR PACKAGE_ARGS LABEL TEST_PATCH FIX_PATCH
check_tree() {
    local crate="$1" pkg="$2" label="$3" test_patch="$4" fix_patch="$5"
    say "$label: applying ${test_patch#"$HERE/"} alone"
    (cd "$crate" && patch -p1 --forward --no-backup-if-mismatch < "$test_patch") || die "${test_patch#"$HERE/"} does not apply to $label"
    say "$label: tests::$TEST without the fix (must FAIL)"
    run_test "$crate" FAILED "$pkg"
    say "$label: applying ${fix_patch#"$HERE/"}"
    (cd "$crate" && patch -p1 --forward --no-backup-if-mismatch < "$fix_patch") || die "${fix_patch#"$HERE/"} does not apply to $label"
    say "$label: tests::$TEST with the fix (must PASS)"
    run_test "$crate" ok "$pkg"
}

SCRATCH="$TMP/quinn-upstream-check/$NAME"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
echo "report:      $NAME"
echo "test:        tests::$TEST"
echo "quinn-proto: $VER from $SRC"
echo "scratch:     $SCRATCH (target $CARGO_TARGET_DIR)"

cp -r "$SRC" "$SCRATCH/quinn-proto-$VER"
chmod -R u+w "$SCRATCH/quinn-proto-$VER"
rm -f "$SCRATCH/quinn-proto-$VER/.cargo-ok"
check_tree "$SCRATCH/quinn-proto-$VER" "" "quinn-proto $VER (registry)" "$TEST_PATCH" "$FIX_PATCH"

if [ -n "${QUINN_MAIN_DIR:-}" ]; then
    [ -f "$QUINN_MAIN_DIR/quinn-proto/Cargo.toml" ] || die "QUINN_MAIN_DIR=$QUINN_MAIN_DIR has no quinn-proto/Cargo.toml"
    rev="${QUINN_MAIN_REV:-$(git -C "$QUINN_MAIN_DIR" rev-parse HEAD 2>/dev/null || echo "commit unknown")}"
    mkdir -p "$SCRATCH/quinn-main"
    (cd "$QUINN_MAIN_DIR" && tar --exclude=./target --exclude=./.git -cf - .) | (cd "$SCRATCH/quinn-main" && tar xf -)
    # A report whose patch needs other code on main (not only other context) ships main/*.patch.
    main_test="$TEST_PATCH"; main_fix="$FIX_PATCH"
    [ -f "$HERE/$NAME/main/test.patch" ] && main_test="$HERE/$NAME/main/test.patch"
    [ -f "$HERE/$NAME/main/fix.patch" ] && main_fix="$HERE/$NAME/main/fix.patch"
    check_tree "$SCRATCH/quinn-main/quinn-proto" "-p quinn-proto" "quinn main ($rev)" "$main_test" "$main_fix"
fi

say "PASS: $NAME: tests::$TEST fails on pristine quinn-proto $VER${QUINN_MAIN_DIR:+ and on quinn main} and passes with its fix alone (fix.patch${QUINN_MAIN_DIR:+, on main $( [ -f "$HERE/$NAME/main/fix.patch" ] && echo main/fix.patch || echo fix.patch)})"
