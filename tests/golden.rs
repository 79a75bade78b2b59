//! Golden outputs: fixed (flow, seed) pairs pinned byte for byte.
//!
//! A change in these files means every level a game ever generated from these seeds changes:
//! make it on purpose, then regenerate with `LEVELPLAN_BLESS=1 cargo test --test golden` and
//! say so in the changelog. (Only the value `1` blesses; see `common::golden`.)

mod common;

use levelplan::layout::Planner;
use levelplan::layout::edgar::EdgarLevel;
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::{IsaacParams, IsaacRecipe};
use levelplan::{Conditions, Flow, FlowTemplate, LevelGraph, Recipe};

const PINNED: &[(&str, u64)] = &[
    ("classic", 1),
    ("big_loop", 7),
    ("fork", 11),
    ("one_way_reward", 5),
    ("hub_spokes", 2),
    ("long_chain", 42),
    ("secrets", 3),
];

fn golden_name(flow: &str, seed: u64, ext: &str) -> String {
    format!("{flow}_seed{seed}.{ext}")
}

fn check(name: String, actual: &str) {
    common::golden::check(&name, actual);
}

#[test]
fn pinned_levels_match_their_golden_json() {
    for &(name, seed) in PINNED {
        let flow = FlowTemplate::builtin(name).unwrap();
        let level = flow.generate(seed, &Conditions::default()).unwrap();
        check(golden_name(name, seed, "json"), &level.to_json());
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
        golden_name(name, seed, "dot"),
        &levelplan::graph::to_dot(&level, &format!("{name} (seed {seed})")),
    );
}

#[test]
fn golden_json_reads_back_into_the_same_graph() {
    for &(name, seed) in PINNED {
        let text = std::fs::read_to_string(common::golden::path(&golden_name(name, seed, "json")))
            .unwrap();
        let level = LevelGraph::from_json(&text).unwrap();
        assert_eq!(level.to_json(), text);
    }
}

/// An Isaac floor: its grid as text and its graph.
#[test]
fn an_isaac_floor_matches_its_golden_text_and_graph() {
    let params = IsaacParams {
        large_rooms: true,
        ..IsaacParams::default()
    };
    let level = IsaacRecipe::new(6, params).generate(9).unwrap();
    check(
        "isaac_level6_large_seed9.txt".into(),
        &levelplan::export::text::level_to_ascii(&level),
    );
    check(
        "isaac_level6_large_seed9.json".into(),
        &level.graph.to_json(),
    );
}

/// A layout of an Edgar level, as `levelplan layout` writes it.
#[test]
fn an_edgar_layout_matches_its_golden_json() {
    let name = "example_corridors";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("fixtures/edgar/inputs/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let edgar = EdgarLevel::from_json(&text, name).unwrap();
    let layout = Planner::new(edgar.problem.clone())
        .unwrap()
        .layout(3)
        .unwrap();
    check(
        format!("layout_{name}_seed3.json"),
        &edgar.layout_to_json(&layout),
    );
}

/// The picture and the Tiled map of one level.
#[test]
fn a_level_s_svg_and_tiled_map_match_their_goldens() {
    let generator =
        Generator::new(Flow::builtin("classic").unwrap(), GungeonParams::default()).unwrap();
    let level = generator.generate(1).unwrap();
    check(
        "gungeon_classic_seed1.svg".into(),
        &levelplan::export::svg::level_to_svg(&level, 12),
    );
    check(
        "gungeon_classic_seed1.tmj".into(),
        &levelplan::export::tiled::level_to_tmj(&level),
    );
}
