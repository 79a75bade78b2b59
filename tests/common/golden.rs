//! Golden files: outputs pinned byte for byte under `fixtures/golden/`.
//!
//! A test compares what the code makes with the checked-in file. Only `LEVELPLAN_BLESS=1`
//! rewrites the file instead (any other value, or none, compares), so that a stray variable
//! never turns a failing test green; CI runs with it unset and fails if the tests changed a
//! tracked file.

use std::path::{Path, PathBuf};

/// Whether this run rewrites golden files: `LEVELPLAN_BLESS=1` exactly.
pub fn blessing() -> bool {
    std::env::var("LEVELPLAN_BLESS").is_ok_and(|v| v == "1")
}

/// The path of golden file `name` under `fixtures/golden/`.
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/golden")
        .join(name)
}

/// Compares `actual` with golden file `name` (or, when blessing, writes it), and says where the
/// first difference is.
pub fn check(name: &str, actual: &str) {
    let path = path(name);
    if blessing() {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with LEVELPLAN_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the generated output from line {} on (expected {} lines, made {}); \
             if the change is meant, regenerate with LEVELPLAN_BLESS=1 and say so in the changelog",
            path.display(),
            line + 1,
            expected.lines().count(),
            actual.lines().count()
        );
    }
}
