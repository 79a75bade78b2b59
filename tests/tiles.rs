//! The raster layer: conversion tables, mini-sets, regions, and regions back into graphs.

use std::collections::BTreeSet;

use levelplan::recipes::isaac::{IsaacParams, generate};
use levelplan::recipes::regions_to_graph;
use levelplan::tiles::convert::{MarchingTable, PatternRule, PatternTable, TableError};
use levelplan::tiles::fix::FixRules;
use levelplan::tiles::miniset::{Miniset, MinisetError};
use levelplan::tiles::regions::{contacts, find_regions, fully_connected};
use levelplan::tiles::variants::{Substitution, SubstitutionPass};
use levelplan::tiles::{Grid, Tile};
use proptest::prelude::*;

fn blank_strategy() -> impl Strategy<Value = Grid<bool>> {
    (1usize..20, 1usize..20).prop_flat_map(|(w, h)| {
        prop::collection::vec(any::<bool>(), w * h).prop_map(move |cells| {
            let mut g = Grid::new(w, h, false);
            for (i, c) in cells.into_iter().enumerate() {
                g.set((i % w) as i64, (i / w) as i64, c);
            }
            g
        })
    })
}

fn tile_grid_strategy() -> impl Strategy<Value = Grid<Tile>> {
    (1usize..16, 1usize..16).prop_flat_map(|(w, h)| {
        prop::collection::vec(
            prop::sample::select(vec![Tile::Floor, Tile::Floor, Tile::Wall, Tile::Door]),
            w * h,
        )
        .prop_map(move |cells| {
            let mut g = Grid::new(w, h, Tile::Solid);
            for (i, c) in cells.into_iter().enumerate() {
                g.set((i % w) as i64, (i / w) as i64, c);
            }
            g
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn marching_squares_keep_rooms_as_floor_and_walls_beside_them(blank in blank_strategy()) {
        let tiles = MarchingTable::cathedral().convert(&blank);
        for ((x, y), &t) in tiles.iter() {
            let (x, y) = (x as i64, y as i64);
            let cell = |dx, dy| *blank.get(x + dx, y + dy).unwrap_or(&false);
            if cell(0, 0) {
                prop_assert_eq!(t, Tile::Floor, "a room cell stays floor");
            } else if !cell(1, 0) && !cell(0, 1) && !cell(1, 1) {
                prop_assert_eq!(t, Tile::Solid, "far from rooms: solid");
            } else {
                prop_assert!(t.is_wall() || t == Tile::Floor, "next to a room: wall (or a filled notch)");
            }
        }
    }

    #[test]
    fn regions_partition_the_floor_and_contacts_join_different_regions(grid in tile_grid_strategy()) {
        let rooms = find_regions(&grid, |t| t == Tile::Floor);
        let floor = grid.values().iter().filter(|&&t| t == Tile::Floor).count();
        prop_assert_eq!(rooms.sizes.iter().sum::<usize>(), floor);
        for ((x, y), &t) in grid.iter() {
            let label = *rooms.labels.get(x as i64, y as i64).unwrap();
            prop_assert_eq!(label.is_some(), t == Tile::Floor);
            // Neighbouring floor tiles share their region.
            if let (Some(a), Some(Some(b))) = (label, rooms.labels.get(x as i64 + 1, y as i64)) {
                prop_assert_eq!(a, *b);
            }
        }
        let links = contacts(&grid, &rooms, |t| t == Tile::Door);
        for c in &links {
            prop_assert!(c.a < c.b);
            prop_assert!(!c.cells.is_empty());
            for &(x, y) in &c.cells {
                prop_assert_eq!(grid.get(x as i64, y as i64), Some(&Tile::Door));
            }
        }
        // The graph of regions is connected exactly when every floor tile lies in one piece of
        // floor and doors.
        let graph = regions_to_graph(&rooms, &links);
        prop_assert_eq!(graph.room_count(), rooms.sizes.len());
        let walk = find_regions(&grid, |t| t == Tile::Floor || t == Tile::Door);
        let pieces_with_floor: BTreeSet<u32> = grid.iter()
            .filter(|(_, t)| **t == Tile::Floor)
            .filter_map(|((x, y), _)| *walk.labels.get(x as i64, y as i64).unwrap())
            .collect();
        prop_assert_eq!(levelplan::graph::component_count(&graph) <= 1, pieces_with_floor.len() <= 1);
    }
}

#[test]
fn isaac_tile_maps_turn_back_into_their_room_graphs() {
    for seed in 0..40 {
        let floor = generate(
            5,
            seed,
            &IsaacParams {
                large_rooms: seed % 2 == 0,
                ..IsaacParams::default()
            },
        )
        .unwrap();
        let map = floor.tile_map();
        let rooms = find_regions(&map.tiles, |t| t == Tile::Floor);
        assert_eq!(
            rooms.sizes.len(),
            floor.rooms.len(),
            "one floor region per room"
        );
        let links = contacts(&map.tiles, &rooms, |t| {
            matches!(t, Tile::Door | Tile::SecretDoor)
        });
        let pairs: BTreeSet<(u32, u32)> = floor
            .graph
            .links()
            .map(|(_, a, b, _)| (a.0.min(b.0), a.0.max(b.0)))
            .collect();
        assert_eq!(
            links.len(),
            pairs.len(),
            "one contact per pair of rooms with a door"
        );
        let graph = regions_to_graph(&rooms, &links);
        assert_eq!(levelplan::graph::component_count(&graph), 1);
        assert!(fully_connected(&map.tiles, Tile::walkable));
    }
}

#[test]
fn pattern_rules_last_match_wins_and_bad_rules_are_named() {
    let table = PatternTable {
        rules: vec![
            PatternRule {
                rows: vec!["???".into(), "?#?".into(), "???".into()],
                tile: Tile::Wall,
            },
            PatternRule {
                rows: vec!["?.?".into(), "?#?".into(), "?.?".into()],
                tile: Tile::WallHorizontal,
            },
            PatternRule {
                rows: vec!["???".into(), ".#.".into(), "???".into()],
                tile: Tile::WallVertical,
            },
        ],
        default: Tile::Floor,
    };
    let mut map = Grid::new(3, 3, '.');
    map.set(1, 1, '#');
    map.set(0, 1, '#');
    let tiles = table.convert(&map);
    assert_eq!(
        tiles.get(1, 1),
        Some(&Tile::WallHorizontal),
        "rule 2 matches, rule 3 does not"
    );
    // Cells outside the map match every class: at the left edge, rule 3 still fails on the
    // right neighbour ('#', not '.'), and rule 2 matches.
    assert_eq!(tiles.get(0, 1), Some(&Tile::WallHorizontal));
    assert_eq!(tiles.get(2, 2), Some(&Tile::Floor), "no rule: the default");
    let err = PatternTable::from_ron(
        r#"(rules: [(rows: ["???", "?x?", "???"], tile: Wall)], default: Solid)"#,
        "l2.ron",
    )
    .unwrap_err();
    assert_eq!(
        err,
        TableError::Rule {
            file: "l2.ron".into(),
            rule: 0,
            problem: "'x' is no class letter; valid: ? # . D (space) d w _ *".into()
        }
    );
    let err = MarchingTable::from_ron("(tiles: [Floor])", "short.ron").unwrap_err();
    assert!(
        err.to_string()
            .contains("the table lists 1 tiles; it needs exactly 16"),
        "{err}"
    );
    let err = MarchingTable::from_ron("(tiles: [Flor])", "typo.ron").unwrap_err();
    assert!(err.to_string().starts_with("typo.ron:1:"), "{err}");
}

#[test]
fn bad_minisets_are_named() {
    let err = Miniset::list_from_ron(
        r#"[(name: "stairs", search: ["..", "..."], replace: ["<<", "<<"])]"#,
        "sets.ron",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "sets.ron: mini-set \"stairs\": field `search`: row \"...\" is not 2 wide like the first row"
    );
    let err = Miniset::list_from_ron(
        r#"[(name: "stairs", search: [".."], replace: ["<<", "<<"])]"#,
        "sets.ron",
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            MinisetError::Invalid {
                field: "replace",
                ..
            }
        ),
        "{err}"
    );
    let err = Miniset::list_from_ron(
        r#"[(name: "odd", search: ["Q"], replace: ["."])]"#,
        "sets.ron",
    )
    .unwrap_err();
    assert!(err.to_string().contains("'Q' is no tile glyph"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn themed_rooms_are_walled_in_with_one_door_and_keep_the_level_whole(
        w in 8usize..30, h in 8usize..30, seed in any::<u64>(), chance in 0.05f64..1.0, random_size in any::<bool>(),
    ) {
        use levelplan::tiles::themes::{enclosed_regions, place_theme_rooms, ThemeRooms};
        // An open hall with a wall around it and a few pillars.
        let mut tiles = Grid::new(w, h, Tile::Floor);
        for ((x, y), _) in Grid::new(w, h, ()).iter() {
            if x == 0 || y == 0 || x == w - 1 || y == h - 1 || (x * 7 + y * 3) % 23 == 0 {
                tiles.set(x as i64, y as i64, Tile::Wall);
            }
        }
        let before = find_regions(&tiles, Tile::walkable).sizes.len();
        let mut protected = Grid::new(w, h, false);
        let mut rng = levelplan::seed::stream(seed, "themes");
        let rooms = place_theme_rooms(&mut tiles, &mut protected, &mut rng, ThemeRooms { min: 5, max: 10, chance, random_size });
        prop_assert_eq!(find_regions(&tiles, Tile::walkable).sizes.len(), before, "still in one piece");
        let regions = find_regions(&tiles, |t| t == Tile::Floor);
        let enclosed = enclosed_regions(&tiles, &regions, 1, 100);
        for &(x, y, s, _) in &rooms {
            let mut doors = 0;
            for i in 0..s {
                for j in 0..s {
                    let t = *tiles.get((x + i) as i64, (y + j) as i64).unwrap();
                    let edge = i == 0 || j == 0 || i == s - 1 || j == s - 1;
                    if edge {
                        prop_assert!(t == Tile::Wall || t == Tile::Door);
                        doors += usize::from(t == Tile::Door);
                    } else {
                        prop_assert_eq!(t, Tile::Floor);
                    }
                }
            }
            prop_assert_eq!(doors, 1);
            let inside = regions.labels.get((x + 1) as i64, (y + 1) as i64).unwrap().unwrap();
            prop_assert!(enclosed.contains(&inside), "the room's inside is an enclosed region");
        }
    }
}

#[test]
fn an_open_hall_gets_themed_rooms() {
    use levelplan::tiles::themes::{ThemeRooms, place_theme_rooms};
    let mut tiles = Grid::new(24, 24, Tile::Floor);
    let mut protected = Grid::new(24, 24, false);
    let rooms = place_theme_rooms(
        &mut tiles,
        &mut protected,
        &mut levelplan::seed::stream(1, "t"),
        ThemeRooms {
            min: 6,
            max: 10,
            chance: 1.0,
            random_size: false,
        },
    );
    assert!(rooms.len() >= 2, "{rooms:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Substitution picks pictures, never tiles: the grid is untouched, variants land only on
    /// listed tiles within their count, protected tiles stay plain, and the spread rule holds.
    #[test]
    fn substitution_varies_only_listed_unprotected_tiles_and_keeps_its_spread(
        grid in tile_grid_strategy(),
        protect in prop::collection::vec(any::<bool>(), 256),
        seed in any::<u64>(),
        spread in 0usize..3,
    ) {
        let sub = Substitution {
            passes: vec![
                SubstitutionPass { chance: 0.7, variants: vec![(Tile::Floor, 3), (Tile::Wall, 1)], spread, first: 0 },
                SubstitutionPass { chance: 0.2, variants: vec![(Tile::Door, 2)], spread: 0, first: 4 },
            ],
        };
        let mut protected = Grid::new(grid.width(), grid.height(), false);
        for ((x, y), _) in grid.iter() {
            protected.set(x as i64, y as i64, protect[(y * 16 + x) % 256]);
        }
        let mut variants = Grid::new(grid.width(), grid.height(), 0u8);
        let before = grid.clone();
        sub.apply(&grid, &mut variants, &protected, &mut levelplan::seed::stream(seed, "t"));
        prop_assert_eq!(&grid, &before);
        for ((x, y), &v) in variants.iter() {
            let t = *grid.get(x as i64, y as i64).unwrap();
            if v == 0 {
                continue;
            }
            prop_assert!(!protected.get(x as i64, y as i64).unwrap(), "protected ({}, {}) varied", x, y);
            let ok = match t {
                Tile::Floor => (1..=3).contains(&v),
                Tile::Wall => v == 1,
                Tile::Door => (5..=6).contains(&v),
                _ => false,
            };
            prop_assert!(ok, "{:?} got variant {}", t, v);
            if spread > 0 && t == Tile::Floor {
                let s = spread as i64;
                for ny in y as i64 - s..=y as i64 + s {
                    for nx in x as i64 - s..=x as i64 + s {
                        if (nx, ny) != (x as i64, y as i64) && grid.get(nx, ny) == Some(&t) {
                            prop_assert!(variants.get(nx, ny) != Some(&v));
                        }
                    }
                }
            }
        }
    }

    /// The built-in edge fixes leave no plain wall, change nothing but plain walls, and keep
    /// every wall a wall.
    #[test]
    fn edge_fixes_classify_every_plain_wall(grid in tile_grid_strategy()) {
        let mut fixed = grid.clone();
        let rules = FixRules::builtin("edges").unwrap();
        let changed = rules.apply(&mut fixed, &Grid::new(grid.width(), grid.height(), false));
        prop_assert_eq!(changed, grid.values().iter().filter(|&&t| t == Tile::Wall).count());
        for ((x, y), &t) in grid.iter() {
            let after = *fixed.get(x as i64, y as i64).unwrap();
            if t == Tile::Wall {
                prop_assert!(after.is_wall() && after != Tile::Wall);
                // Open floor above or below: a horizontal wall.
                let open = |dx: i64, dy: i64| grid.get(x as i64 + dx, y as i64 + dy).is_some_and(|n| n.walkable());
                if open(0, -1) || open(0, 1) {
                    prop_assert_eq!(after, Tile::WallHorizontal);
                } else if open(-1, 0) || open(1, 0) {
                    prop_assert_eq!(after, Tile::WallVertical);
                }
            } else {
                prop_assert_eq!(after, t);
            }
        }
    }
}

#[test]
fn bad_substitutions_and_fixes_are_named() {
    let err = Substitution::table_from_ron(
        r#"{ "s": (passes: [(chance: 1.5, variants: [(Floor, 2)])]) }"#,
        "subs.ron",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("subs.ron: rule #0: substitution \"s\": chance 1.5"),
        "{err}"
    );
    let err = Substitution::table_from_ron(
        r#"{ "s": (passes: [(chance: 0.5, variants: [(Floor, 0)])]) }"#,
        "subs.ron",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("Floor has 0 variants; give 1 to 15"),
        "{err}"
    );
    let err = FixRules::table_from_ron(
        r#"{ "f": (rules: [(tile: Wall, side: Up, becomes: WallHorizontal)]) }"#,
        "fixes.ron",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("fixes.ron: rule #0: fix list \"f\": a rule with a side needs"),
        "{err}"
    );
    let err = FixRules::table_from_ron(
        r#"{ "f": (rules: [(tile: Wall, becomes: Wal)]) }"#,
        "fixes.ron",
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("fixes.ron:1:"), "{err}");
}

/// A floor-heavy grid (so that 3 x 3 floor windows are common) and scattered protected cells
/// (about one in `1 / density`, so that most windows are free and some are not).
fn protected_grid_strategy() -> impl Strategy<Value = (Grid<Tile>, Grid<bool>)> {
    (3usize..16, 3usize..16, 4u32..40).prop_flat_map(|(w, h, rarity)| {
        (
            prop::collection::vec(0u32..10, w * h),
            prop::collection::vec(0u32..rarity, w * h),
        )
            .prop_map(move |(tiles, protect)| {
                let mut g = Grid::new(w, h, Tile::Solid);
                let mut p = Grid::new(w, h, false);
                for i in 0..w * h {
                    let (x, y) = ((i % w) as i64, (i / w) as i64);
                    g.set(
                        x,
                        y,
                        if tiles[i] < 8 {
                            Tile::Floor
                        } else {
                            Tile::Wall
                        },
                    );
                    p.set(x, y, protect[i] == 0);
                }
                (g, p)
            })
    })
}

/// Brute force: whether the 3 x 3 floor window at `(x, y)` is all floor and free of `blocked`.
fn window_free(grid: &Grid<Tile>, blocked: &dyn Fn(i64, i64) -> bool, x: usize, y: usize) -> bool {
    (0..3).all(|dy| {
        (0..3).all(|dx| {
            let (cx, cy) = ((x + dx) as i64, (y + dy) as i64);
            grid.get(cx, cy) == Some(&Tile::Floor) && !blocked(cx, cy)
        })
    })
}

/// Mini-set stamping, checked by brute force: a stamp lands only on a window that was all
/// floor and held no protected cell (the protection given, or a centre stamped before), never
/// changes a protected cell, keeps its spacing; scattering with certainty leaves no free window
/// unstamped, and `place_once` with every position in its budget finds one if one exists.
/// Run by hand so that the cases can be counted: most of them must stamp something, and some
/// must have a protected cell in a window that would otherwise match, or the property is not
/// exercised.
#[test]
fn minisets_never_touch_protected_cells_and_match_before_they_stamp() {
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::Cell;
    let set = &Miniset::list_from_ron(
        r#"[(name: "pillar", search: ["...", "...", "..."], replace: ["???", "?o?", "???"], protect: true)]"#,
        "test",
    )
    .unwrap()[0];
    let (cases, stamped, refused) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(Config::with_cases(1000));
    runner
        .run(
            &(protected_grid_strategy(), any::<u64>(), any::<bool>()),
            |((grid, given), seed, certain)| {
                cases.set(cases.get() + 1);
                let mut tiles = grid.clone();
                let mut protected = given.clone();
                let mut rng = levelplan::seed::stream(seed, "miniset");
                let chance = if certain { 1.0 } else { 0.7 };
                let scattered = set.scatter(&mut tiles, &mut protected, &mut rng, chance, 3);
                let once = set.place_once(&mut tiles, &mut protected, &mut rng, usize::MAX);
                let mut placed = scattered.clone();
                placed.extend(once);
                // A window that would match but for the protection given.
                let (w, h) = (grid.width(), grid.height());
                let windows = || (0..=h - 3).flat_map(move |y| (0..=w - 3).map(move |x| (x, y)));
                let none = |_: i64, _: i64| false;
                if windows().any(|(x, y)| {
                    window_free(&grid, &none, x, y)
                        && !window_free(&grid, &|cx, cy| given.get(cx, cy) == Some(&true), x, y)
                }) {
                    refused.set(refused.get() + 1);
                }
                if !placed.is_empty() {
                    stamped.set(stamped.get() + 1);
                }
                for (i, &(x, y)) in placed.iter().enumerate() {
                    let earlier = &placed[..i];
                    let blocked = |cx: i64, cy: i64| {
                        given.get(cx, cy) == Some(&true)
                            || earlier
                                .iter()
                                .any(|&(ex, ey)| (ex as i64 + 1, ey as i64 + 1) == (cx, cy))
                    };
                    prop_assert!(
                        window_free(&grid, &blocked, x, y),
                        "stamp {i} at ({x}, {y})"
                    );
                    prop_assert_eq!(
                        tiles.get((x + 1) as i64, (y + 1) as i64),
                        Some(&Tile::Pillar)
                    );
                    prop_assert_eq!(protected.get((x + 1) as i64, (y + 1) as i64), Some(&true));
                }
                // Only stamp centres changed, and no protected cell did.
                for ((x, y), &t) in tiles.iter() {
                    let centre = placed.iter().any(|&(px, py)| (px + 1, py + 1) == (x, y));
                    if !centre {
                        prop_assert_eq!(
                            Some(&t),
                            grid.get(x as i64, y as i64),
                            "({}, {}) changed",
                            x,
                            y
                        );
                    }
                    if given.get(x as i64, y as i64) == Some(&true) {
                        prop_assert!(!centre, "protected ({}, {}) stamped", x, y);
                    }
                }
                for (i, a) in scattered.iter().enumerate() {
                    for b in scattered.iter().skip(i + 1) {
                        prop_assert!(a.0.abs_diff(b.0).max(a.1.abs_diff(b.1)) >= 3);
                    }
                }
                if certain {
                    // Scattering with certainty is maximal: every free window left is near a
                    // stamp.
                    let centres = |cx: i64, cy: i64| {
                        scattered
                            .iter()
                            .any(|&(px, py)| (px as i64 + 1, py as i64 + 1) == (cx, cy))
                    };
                    let blocked =
                        |cx: i64, cy: i64| given.get(cx, cy) == Some(&true) || centres(cx, cy);
                    for (x, y) in windows() {
                        let far = scattered
                            .iter()
                            .all(|&(px, py)| px.abs_diff(x).max(py.abs_diff(y)) >= 3);
                        prop_assert!(
                            !(far && window_free(&grid, &blocked, x, y)),
                            "free window ({}, {}) left",
                            x,
                            y
                        );
                    }
                }
                if once.is_none() {
                    // With every position in its budget, place_once fails only when no window
                    // is free after scattering.
                    let blocked = |cx: i64, cy: i64| protected.get(cx, cy) == Some(&true);
                    prop_assert!(windows().all(|(x, y)| !window_free(&tiles, &blocked, x, y)));
                }
                Ok(())
            },
        )
        .unwrap();
    let (cases, stamped, refused) = (cases.get(), stamped.get(), refused.get());
    assert!(
        stamped * 2 > cases,
        "{stamped} of {cases} cases stamped: the property is barely exercised"
    );
    assert!(
        refused * 4 > cases,
        "{refused} of {cases} cases had a window refused for protection"
    );
}
