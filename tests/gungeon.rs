//! The Gungeon recipe end to end: every built-in flow over many seeds gives a level whose
//! layout passes the strict check, whose rooms can all be walked to on the tile map, whose
//! corridors keep their bounds, and which the same seed reproduces byte for byte.

mod common;

use common::player::{exhaustive, replay};
use levelplan::export::svg::level_to_svg;
use levelplan::export::tiled::level_to_tmj;
use levelplan::layout::Realise;
use levelplan::layout::verify::check;
use levelplan::recipes::gungeon::{
    self, Generator, GungeonParams, layout_problem, rooms_reachable,
};
use levelplan::{Flow, LevelDetail};

fn flows() -> Vec<Flow> {
    levelplan::FlowTemplate::builtin_names()
        .map(|n| Flow::builtin(n).expect("built-in flow"))
        .collect()
}

#[test]
fn builtin_flows_make_valid_levels() {
    let params = GungeonParams::default();
    for flow in flows() {
        let generator = Generator::new(flow.clone(), params.clone()).unwrap();
        for seed in 0..12 {
            let level = generator
                .generate(seed)
                .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", flow.name()));
            let what = format!("{} seed {seed}", flow.name());
            // Each graph room has a placed room; the layout is that of the level's graph.
            let layout = level.layout.as_ref().expect("a laid-out level");
            assert_eq!(layout.rooms.len(), level.graph.room_count(), "{what}");
            let (problem, rooms, links) = layout_problem(&level.graph, &params);
            let LevelDetail::Gungeon {
                rooms: level_rooms,
                links: level_links,
                ..
            } = &level.detail
            else {
                panic!("{what}: a Gungeon detail");
            };
            assert_eq!((&rooms, &links), (level_rooms, level_links), "{what}");
            // No overlaps, every link realised by doors both rooms allow or a corridor that
            // runs through nothing, minimum distance.
            check(&problem, layout).unwrap_or_else(|e| panic!("{what}: {e}"));
            // Corridors only where allowed, within 4..30 cells.
            for (spec, placed) in problem.links.iter().zip(&layout.links) {
                if !placed.corridor.is_empty() {
                    assert!(
                        matches!(spec.realise, Realise::ContactOrPath { .. }),
                        "{what}"
                    );
                    assert!((4..=30).contains(&placed.corridor.len()), "{what}");
                }
            }
            // Every room can be walked to from the entrance on the tile map.
            rooms_reachable(&level).unwrap_or_else(|e| panic!("{what}: {e}"));
            // Every floor tile of a room knows its room.
            for ((x, y), t) in level.tiles.tiles.iter() {
                if *t == levelplan::tiles::Tile::Floor {
                    assert!(
                        level
                            .tiles
                            .regions
                            .get(x as i64, y as i64)
                            .unwrap()
                            .is_some(),
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn same_seed_same_level() {
    let flow = Flow::builtin("hub_spokes").unwrap();
    let params = GungeonParams::default();
    let a = gungeon::generate(&flow, 21, &params).unwrap();
    let b = gungeon::generate(&flow, 21, &params).unwrap();
    assert_eq!(a.layout, b.layout);
    assert_eq!(a.tiles.to_ascii(), b.tiles.to_ascii());
    assert_eq!(level_to_svg(&a, 10), level_to_svg(&b, 10));
    assert_eq!(level_to_tmj(&a), level_to_tmj(&b));
    let c = gungeon::generate(&flow, 22, &params).unwrap();
    assert_ne!(a.tiles.to_ascii(), c.tiles.to_ascii());
}

#[test]
fn extra_locks_are_planned_and_proven() {
    let flow = Flow::builtin("long_chain").unwrap();
    let params = GungeonParams {
        locks: Some(levelplan::graph::lock_and_key::LockPlan {
            locks: 3,
            ..Default::default()
        }),
        ..GungeonParams::default()
    };
    let level = gungeon::generate(&flow, 4, &params).unwrap();
    let locked = level
        .graph
        .links()
        .filter(|(_, _, _, l)| l.lock.is_some())
        .count();
    assert!(locked >= 3, "{locked} locked links");
    assert!(level.walkthrough.steps.len() >= 4);
    let (start, goal) = (level.walkthrough.start, level.walkthrough.goal);
    assert_eq!(
        replay(&level.graph, start, goal, &level.walkthrough.steps),
        Ok(())
    );
    let every_play = exhaustive(&level.graph, start, goal, 1_000_000).unwrap();
    assert!(every_play.accepts(&level.graph));
    let svg = level_to_svg(&level, 10);
    assert!(
        svg.contains("stroke=\"#ff2020\""),
        "locks are ringed in red"
    );
    assert!(svg.contains("key k"), "keys are marked");
}

#[test]
fn broken_library_is_a_settings_error() {
    let mut params = GungeonParams::default();
    params
        .library
        .templates
        .retain(|t| !t.kinds.iter().any(|k| k == "Normal"));
    let flow = Flow::builtin("classic").unwrap();
    let err = gungeon::generate(&flow, 1, &params).unwrap_err();
    let e = err.to_string();
    assert!(e.contains("Normal"), "{e}");
    // A setup error, reported at once with its cause kept, not retried into `GaveUp`.
    assert!(
        !matches!(err, gungeon::GungeonError::GaveUp { .. }),
        "{err:?}"
    );
    assert!(
        std::error::Error::source(&err).is_some() || e.contains("library"),
        "{err:?}"
    );
}

/// The ASCII map of a fixed level, checked in (regenerate on purpose with
/// `LEVELPLAN_BLESS=1 cargo test --test gungeon`).
#[test]
fn golden_map() {
    let flow = Flow::builtin("classic").unwrap();
    let level = gungeon::generate(&flow, 1, &GungeonParams::default()).unwrap();
    let actual = level.tiles.to_ascii();
    common::golden::check("gungeon_classic_seed1.txt", &actual);
}

/// A run of levels remembers the templates it used: consecutive levels share fewer rooms' looks
/// than levels made one by one from the same seeds, and the same run is made again exactly.
#[test]
fn runs_spread_templates_over_levels() {
    let generator =
        Generator::new(Flow::builtin("classic").unwrap(), GungeonParams::default()).unwrap();
    let counts = |layout: &levelplan::layout::Layout| {
        let mut c = vec![0usize; 64];
        for r in &layout.rooms {
            c[r.template] += 1;
        }
        c
    };
    let overlap = |levels: &[Vec<usize>]| -> usize {
        levels
            .windows(2)
            .map(|w| w[0].iter().zip(&w[1]).map(|(a, b)| a.min(b)).sum::<usize>())
            .sum()
    };
    let run = || {
        let mut history = levelplan::layout::TemplateHistory::new(0.5);
        (0..16u64)
            .map(|s| generator.generate_in_run(500 + s, &mut history).unwrap())
            .collect::<Vec<_>>()
    };
    let with: Vec<_> = run();
    let without: Vec<_> = (0..16u64)
        .map(|s| generator.generate(500 + s).unwrap())
        .collect();
    let a = overlap(
        &with
            .iter()
            .map(|l| counts(l.layout.as_ref().unwrap()))
            .collect::<Vec<_>>(),
    );
    let b = overlap(
        &without
            .iter()
            .map(|l| counts(l.layout.as_ref().unwrap()))
            .collect::<Vec<_>>(),
    );
    assert!(
        a < b,
        "shared templates between consecutive levels: {a} in a run, {b} without"
    );
    let again = run();
    for (x, y) in with.iter().zip(&again) {
        assert!(x.layout == y.layout, "the same run must be made again");
    }
}

/// A flow whose levels need a hole (three paths from the hall to the vault, each middle room
/// with a side room: one path lies inside the ring of the other two, side room and all) lays
/// out every time: its loops may close by a corridor, and the corridor goes round the rooms
/// placed inside. Every level checks as valid.
#[test]
fn a_hole_is_left_where_a_loop_closes_by_corridor() {
    let path = format!(
        "{}/fixtures/flows/hole/three_paths.ron",
        env!("CARGO_MANIFEST_DIR")
    );
    let template = levelplan::FlowTemplate::load(&path).unwrap();
    let flow = Flow::new(template, &path).unwrap();
    let generator = Generator::new(flow, GungeonParams::default()).unwrap();
    for seed in 0..10 {
        let level = generator.generate(seed).unwrap();
        let (problem, ..) = layout_problem(&level.graph, &GungeonParams::default());
        let layout = level.layout.as_ref().unwrap();
        assert_eq!(check(&problem, layout), Ok(()), "seed {seed}");
        assert!(!levelplan::graph::enclosures(&level.graph).is_empty());
        assert!(layout.links.iter().any(|l| !l.corridor.is_empty()));
    }
}

#[test]
fn levels_with_small_keys_switches_and_shortcuts_are_finishable_by_any_player() {
    // The completability report's hardest option set, through the whole recipe.
    let params = GungeonParams {
        locks: Some(levelplan::graph::lock_and_key::LockPlan {
            locks: 5,
            small_key_locks: 2,
            switches: 1,
            one_way_shortcuts: 2,
            ..Default::default()
        }),
        ..GungeonParams::default()
    };
    let mut checked = 0;
    for name in levelplan::FlowTemplate::builtin_names() {
        let flow = Flow::builtin(name).unwrap();
        for seed in 0..3 {
            let level = gungeon::generate(&flow, seed, &params)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            let (start, goal) = (level.walkthrough.start, level.walkthrough.goal);
            assert_eq!(
                replay(&level.graph, start, goal, &level.walkthrough.steps),
                Ok(()),
                "{name} seed {seed}"
            );
            let every_play = exhaustive(&level.graph, start, goal, 2_000_000)
                .unwrap_or_else(|| panic!("{name} seed {seed}: too many states"));
            assert!(every_play.accepts(&level.graph), "{name} seed {seed}");
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        3 * levelplan::FlowTemplate::builtin_names().count()
    );
}
