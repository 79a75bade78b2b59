//! Golden outputs: fixed (flow, seed) pairs pinned byte for byte.
//!
//! A change in these files means every level a game ever generated from these seeds changes:
//! make it on purpose, then regenerate with `LEVELPLAN_BLESS=1 cargo test --test golden` and
//! say so in the changelog.

use std::path::PathBuf;

use levelplan::{Conditions, FlowTemplate, LevelGraph};

const PINNED: &[(&str, u64)] = &[
    ("classic", 1),
    ("big_loop", 7),
    ("fork", 11),
    ("one_way_reward", 5),
    ("hub_spokes", 2),
    ("long_chain", 42),
    ("secrets", 3),
];

fn golden_path(flow: &str, seed: u64, ext: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("fixtures/golden/{flow}_seed{seed}.{ext}"))
}

fn check(path: PathBuf, actual: &str) {
    if std::env::var_os("LEVELPLAN_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with LEVELPLAN_BLESS=1 to create it)",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{} differs from the generated output",
        path.display()
    );
}

#[test]
fn pinned_levels_match_their_golden_json() {
    for &(name, seed) in PINNED {
        let flow = FlowTemplate::builtin(name).unwrap();
        let level = flow.generate(seed, &Conditions::default()).unwrap();
        check(golden_path(name, seed, "json"), &level.to_json());
    }
}

#[test]
fn pinned_levels_match_their_golden_dot() {
    let (name, seed) = PINNED[0];
    let level = FlowTemplate::builtin(name)
        .unwrap()
        .generate(seed, &Conditions::default())
        .unwrap();
    check(
        golden_path(name, seed, "dot"),
        &levelplan::graph::to_dot(&level, &format!("{name} (seed {seed})")),
    );
}

#[test]
fn golden_json_reads_back_into_the_same_graph() {
    for &(name, seed) in PINNED {
        let text = std::fs::read_to_string(golden_path(name, seed, "json")).unwrap();
        let level = LevelGraph::from_json(&text).unwrap();
        assert_eq!(level.to_json(), text);
    }
}
