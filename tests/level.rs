//! `Level` and `Recipe`: every recipe, held the same way, makes levels that read back from their
//! documents, reproduce from their seed, know the room of every floor tile, are finishable by
//! any player, and match what the recipe's own API makes.

mod common;

use common::player::{exhaustive, replay};
use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage, cathedral, caves, hell};
use levelplan::recipes::flow::FlowRecipe;
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::{self, IsaacParams, IsaacRecipe};
use levelplan::tiles::Tile;
use levelplan::{Flow, Level, LevelDetail, Recipe, RoomKind};

fn recipes() -> Vec<Box<dyn Recipe>> {
    let locked = GungeonParams {
        locks: Some(levelplan::graph::lock_and_key::LockPlan {
            locks: 3,
            small_key_locks: 1,
            one_way_shortcuts: 1,
            ..Default::default()
        }),
        ..GungeonParams::default()
    };
    vec![
        Box::new(
            Generator::new(Flow::builtin("classic").unwrap(), GungeonParams::default()).unwrap(),
        ),
        Box::new(Generator::new(Flow::builtin("big_loop").unwrap(), locked).unwrap()),
        Box::new(IsaacRecipe::new(1, IsaacParams::default())),
        Box::new(IsaacRecipe::new(
            6,
            IsaacParams {
                large_rooms: true,
                ..IsaacParams::default()
            },
        )),
        Box::new(DiabloRecipe::new(DiabloStage::Cathedral, 2)),
        Box::new(DiabloRecipe::new(DiabloStage::Catacombs, 6)),
        Box::new(DiabloRecipe::new(DiabloStage::Caves, 9)),
        Box::new(DiabloRecipe::new(DiabloStage::Hell, 14)),
        Box::new(FlowRecipe::new(
            Flow::builtin("classic").unwrap(),
            Default::default(),
            None,
        )),
        Box::new(FlowRecipe::new(
            Flow::builtin("big_loop").unwrap(),
            Default::default(),
            Some(levelplan::graph::lock_and_key::LockPlan {
                locks: 3,
                small_key_locks: 1,
                one_way_shortcuts: 1,
                ..Default::default()
            }),
        )),
    ]
}

/// What every level promises, whatever made it.
fn check(level: &Level) {
    let what = format!("{} seed {}", level.recipe, level.seed);
    // Documents read back, both ways, and the same seed gives the same level.
    assert_eq!(
        &Level::from_json(&level.to_json()).unwrap(),
        level,
        "{what}"
    );
    assert_eq!(&Level::from_ron(&level.to_ron()).unwrap(), level, "{what}");
    // Finishable by any player, with a walkthrough that replays.
    assert_eq!(level.walkthrough.start, level.start);
    assert_eq!(level.walkthrough.goal, level.goal);
    assert_eq!(
        replay(
            &level.graph,
            level.start,
            level.goal,
            &level.walkthrough.steps
        ),
        Ok(()),
        "{what}"
    );
    let every_play = exhaustive(&level.graph, level.start, level.goal, 2_000_000).unwrap();
    assert!(every_play.accepts(&level.graph), "{what}");
    if level.tiles.tiles.width() == 0 {
        // Only a graph-only level has no tiles.
        assert!(
            matches!(level.detail, LevelDetail::Flow { .. }),
            "{what}: no tiles"
        );
        assert!(
            level.layout.is_none() && level.region_rooms.is_empty(),
            "{what}"
        );
        return;
    }
    // Every floor tile that has a room names a room of the graph, and every non-secret room
    // but corridor-only ones has floor.
    let mut floored = std::collections::BTreeSet::new();
    for ((x, y), tile) in level.tiles.tiles.iter() {
        if let Some(room) = level.room_at(x, y) {
            assert!(level.graph.contains_room(room), "{what}: tile ({x}, {y})");
            if *tile == Tile::Floor {
                floored.insert(room);
            }
        }
    }
    for (id, room) in level.graph.rooms() {
        if room.kind != RoomKind::Secret {
            assert!(floored.contains(&id), "{what}: {id} has no floor tile");
        }
    }
}

#[test]
fn every_recipe_makes_levels_of_one_shape() {
    for recipe in recipes() {
        for seed in [1, 7] {
            let level = recipe
                .generate(seed)
                .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", recipe.name()));
            assert_eq!(level.recipe, recipe.name());
            assert_eq!(level.seed, seed);
            check(&level);
            assert_eq!(recipe.generate(seed).unwrap().to_json(), level.to_json());
        }
    }
}

#[test]
fn levels_match_what_each_recipe_s_own_api_makes() {
    let flow = Flow::builtin("classic").unwrap();
    let old = Generator::new(flow.clone(), GungeonParams::default())
        .unwrap()
        .generate(3)
        .unwrap();
    let new =
        Recipe::generate(&Generator::new(flow, GungeonParams::default()).unwrap(), 3).unwrap();
    assert_eq!(new, old, "the inherent generate and the Recipe's are one");
    let free = levelplan::recipes::gungeon::generate(
        &Flow::builtin("classic").unwrap(),
        3,
        &GungeonParams::default(),
    )
    .unwrap();
    assert_eq!(free, old);
    let floor = isaac::generate(4, 5, &IsaacParams::default()).unwrap();
    let level = IsaacRecipe::new(4, IsaacParams::default())
        .generate(5)
        .unwrap();
    assert_eq!(level.tiles, floor.tile_map());
    assert_eq!(level.graph, floor.graph);
    let LevelDetail::Isaac { rooms, size, .. } = &level.detail else {
        panic!("an Isaac detail");
    };
    assert_eq!(*size, floor.size);
    assert_eq!(rooms.len(), floor.rooms.len());
    let stage = cathedral::generate(3, 2).unwrap();
    let level = DiabloRecipe::new(DiabloStage::Cathedral, 3)
        .generate(2)
        .unwrap();
    assert_eq!(level.tiles, stage.tiles);
    assert_eq!(
        level.stairs.map(|s| (s.up, s.down)),
        Some((stage.stairs_up, stage.stairs_down))
    );
    let (stage, rivers) = caves::generate(10, 4).unwrap();
    let level = DiabloRecipe::new(DiabloStage::Caves, 10)
        .generate(4)
        .unwrap();
    assert_eq!(level.tiles, stage.tiles);
    let LevelDetail::Diablo {
        rivers: recorded,
        blank,
        ..
    } = &level.detail
    else {
        panic!("a Diablo detail");
    };
    assert_eq!(blank, &stage.blank);
    assert_eq!(recorded.len(), rivers.len());
    assert!(!rivers.is_empty(), "the caves have rivers to record");
    let stage = hell::generate(13, 1).unwrap();
    assert_eq!(
        DiabloRecipe::new(DiabloStage::Hell, 13)
            .generate(1)
            .unwrap()
            .graph,
        stage.graph
    );
}

#[test]
fn a_recipe_that_fails_says_which_and_why() {
    let bad = IsaacRecipe::new(
        1,
        IsaacParams {
            width: 0,
            ..IsaacParams::default()
        },
    );
    let err = bad.generate(1).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("isaac: invalid Isaac parameters"),
        "{err}"
    );
    assert!(
        std::error::Error::source(&err).is_some(),
        "the recipe's own error is kept"
    );
}

#[test]
fn one_writer_draws_every_recipe() {
    for recipe in recipes() {
        let level = recipe.generate(2).unwrap();
        let svg = levelplan::export::svg::level_to_svg(&level, 6);
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
            "{}",
            recipe.name()
        );
        if level.tiles.tiles.width() == 0 {
            continue; // a graph-only level has nothing to draw
        }
        // Every room with floor is labelled with its id.
        assert!(
            svg.contains(&format!(">{} ", level.start))
                || svg.contains(&format!(">{}<", level.start)),
            "{}",
            recipe.name()
        );
        let map: serde_json::Value =
            serde_json::from_str(&levelplan::export::tiled::level_to_tmj(&level)).unwrap();
        assert_eq!(map["width"], level.tiles.tiles.width());
        let layer = |name: &str| {
            map["layers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["name"] == name)
                .and_then(|l| l["objects"].as_array())
                .cloned()
                .unwrap_or_else(|| panic!("{}: no {name} layer", recipe.name()))
        };
        // One rectangle per room with tiles, named by its id.
        let rooms = layer("rooms");
        assert_eq!(rooms.len(), level.rooms.len(), "{}", recipe.name());
        assert!(
            rooms.len()
                >= level.graph.room_count() - level.graph.rooms_of_kind(&RoomKind::Secret).count(),
            "{}: {} rooms",
            recipe.name(),
            rooms.len()
        );
        // One door object per door record, carrying its link.
        let doors = layer("doors");
        assert_eq!(doors.len(), level.doors.len(), "{}", recipe.name());
        for (object, door) in doors.iter().zip(&level.doors) {
            let link = object["properties"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == "link")
                .unwrap();
            assert_eq!(link["value"], door.link.0, "{}", recipe.name());
        }
        assert_eq!(layer("items").len(), level.items.len(), "{}", recipe.name());
    }
}

#[test]
fn writers_know_levels_not_recipes() {
    // The export layer reads `Level`; no writer reaches into a recipe's own types.
    for file in [
        "src/export/svg.rs",
        "src/export/tiled.rs",
        "src/export/mod.rs",
    ] {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
                .unwrap();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!code.contains("recipes::"), "{file} uses a recipe");
    }
}

#[test]
fn every_recipe_takes_one_retry_policy() {
    use levelplan::layout::RetryPolicy;
    use levelplan::recipes::diablo::DiabloParams;
    // A time budget makes the same attempts in the same order: with time to spare, the same
    // level as the count.
    let by_time = DiabloRecipe {
        params: DiabloParams {
            retry: Some(RetryPolicy::Millis(60_000)),
            ..DiabloParams::default()
        },
        ..DiabloRecipe::new(DiabloStage::Catacombs, 5)
    };
    let by_count = DiabloRecipe::new(DiabloStage::Catacombs, 5);
    assert_eq!(by_time.generate(4).unwrap(), by_count.generate(4).unwrap());
    let isaac = IsaacRecipe::new(
        3,
        IsaacParams {
            retry: RetryPolicy::Millis(60_000),
            ..IsaacParams::default()
        },
    );
    assert_eq!(
        isaac.generate(4).unwrap(),
        IsaacRecipe::new(3, IsaacParams::default())
            .generate(4)
            .unwrap()
    );
    let gungeon = GungeonParams {
        retry: RetryPolicy::Attempts(3),
        ..GungeonParams::default()
    };
    let level = Generator::new(Flow::builtin("fork").unwrap(), gungeon)
        .unwrap()
        .generate(5)
        .unwrap();
    assert!((1..=3).contains(&level.attempts));
}

#[test]
fn the_flow_recipe_is_the_flow_s_graph_with_its_planned_locks() {
    let flow = Flow::builtin("big_loop").unwrap();
    let plan = levelplan::graph::lock_and_key::LockPlan {
        locks: 2,
        ..Default::default()
    };
    for seed in 0..20 {
        let level = FlowRecipe::new(flow.clone(), Default::default(), Some(plan.clone()))
            .generate(seed)
            .unwrap();
        let mut graph = flow.generate(seed, &Default::default()).unwrap();
        let report = levelplan::graph::lock_and_key::plan(
            &mut graph,
            &plan,
            &mut levelplan::seed::stream(seed, "locks"),
        )
        .unwrap();
        assert_eq!(level.graph, graph, "seed {seed}");
        assert_eq!(
            level.graph.locks().count(),
            report.added.len() + report.existing_locks,
            "seed {seed}: the planned locks are in the level"
        );
        // Without a plan (or a plan of no locks) the level is the flow's own graph.
        for locks in [
            None,
            Some(levelplan::graph::lock_and_key::LockPlan {
                locks: 0,
                ..Default::default()
            }),
        ] {
            let bare = FlowRecipe::new(flow.clone(), Default::default(), locks)
                .generate(seed)
                .unwrap();
            assert_eq!(
                bare.graph,
                flow.generate(seed, &Default::default()).unwrap()
            );
        }
    }
}

#[test]
fn grid_floors_as_text_show_what_their_tiles_hold() {
    // The text writer reads doors from the tile map; the floor draws them from its own grid.
    for (level, large_rooms) in [(1, false), (4, false), (6, true), (8, true)] {
        let params = IsaacParams {
            large_rooms,
            ..IsaacParams::default()
        };
        for seed in 0..15 {
            let floor = isaac::generate(level, seed, &params).unwrap();
            let made = IsaacRecipe::new(level, params.clone())
                .generate(seed)
                .unwrap();
            assert_eq!(
                levelplan::export::text::level_to_ascii(&made),
                floor.to_ascii(),
                "level {level} seed {seed}"
            );
        }
    }
    // Any other level as text is its tile map.
    let stage = DiabloRecipe::new(DiabloStage::Catacombs, 5)
        .generate(2)
        .unwrap();
    assert_eq!(
        levelplan::export::text::level_to_ascii(&stage),
        stage.tiles.to_ascii()
    );
    assert!(levelplan::export::text::grid_to_ascii(&stage).is_none());
}
