//! The Diablo stages: connectivity, stairs, thresholds, determinism, golden maps.

mod common;

use common::player::{exhaustive, replay};

use levelplan::recipes::diablo::{Stage, catacombs, cathedral, caves, hell};
use levelplan::tiles::Tile;
use levelplan::tiles::regions::fully_connected;
use levelplan::tiles::variants::Substitution;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn cathedral_levels_are_connected_with_reachable_stairs(level in 1u32..=4, seed in any::<u64>()) {
        let stage = cathedral::generate(level, seed).unwrap();
        check_stage(&stage)?;
        // The area threshold holds: at least that many cells of the blank were carved.
        let carved = stage.blank.values().iter().filter(|&&b| b).count();
        prop_assert!(carved >= cathedral::area_threshold(level));
        // 5 to 9 lamps, each with open floor all round it.
        let tiles = &stage.tiles.tiles;
        let lamps: Vec<(usize, usize)> = tiles.iter().filter(|(_, t)| **t == Tile::Lamp).map(|(p, _)| p).collect();
        prop_assert!((5..=9).contains(&lamps.len()), "{} lamps", lamps.len());
        for &(x, y) in &lamps {
            for (dx, dy) in [(-1i64, -1i64), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                let n = *tiles.get(x as i64 + dx, y as i64 + dy).unwrap();
                prop_assert!(n.walkable(), "lamp ({}, {}) beside {:?}", x, y, n);
            }
        }
        // Same seed, same level.
        prop_assert_eq!(cathedral::generate(level, seed).unwrap(), stage);
    }
}

/// What every stage's level guarantees: one piece, both stairs, reachable, a solvable graph.
fn check_stage(stage: &Stage) -> Result<(), TestCaseError> {
    let tiles = &stage.tiles.tiles;
    prop_assert!(fully_connected(tiles, Tile::walkable));
    let (ux, uy) = stage.stairs_up;
    let (dx, dy) = stage.stairs_down;
    prop_assert_eq!(tiles.get(ux as i64, uy as i64), Some(&Tile::StairsUp));
    prop_assert_eq!(tiles.get(dx as i64, dy as i64), Some(&Tile::StairsDown));
    let reach = stage.tiles.flood_fill(ux as i64, uy as i64, Tile::walkable);
    prop_assert_eq!(reach.get(dx as i64, dy as i64), Some(&true));
    let walkthrough = stage.solve();
    prop_assert!(walkthrough.is_ok(), "{:?}", walkthrough);
    let steps = walkthrough.unwrap().steps;
    prop_assert_eq!(
        replay(&stage.graph, stage.start, stage.goal, &steps),
        Ok(())
    );
    let every_play = exhaustive(&stage.graph, stage.start, stage.goal, 1_000_000).unwrap();
    prop_assert!(every_play.accepts(&stage.graph));
    // The edge fixes leave no plain wall: each is vertical, horizontal or a corner.
    prop_assert!(
        !tiles.values().contains(&Tile::Wall),
        "a plain wall is left"
    );
    // Variants only on tiles the stage's substitution lists, and never on rock.
    let sub = Substitution::builtin(stage_name(stage.level)).unwrap();
    let listed: Vec<(Tile, u8)> = sub
        .passes
        .iter()
        .flat_map(|p| p.variants.iter().map(move |&(t, n)| (t, p.first + n)))
        .collect();
    let mut varied = 0;
    for ((x, y), &t) in tiles.iter() {
        let v = stage.tiles.variant(x as i64, y as i64);
        if v > 0 {
            varied += 1;
            prop_assert!(
                listed.iter().any(|&(lt, most)| lt == t && v <= most),
                "{:?} at ({}, {}) has variant {}",
                t,
                x,
                y,
                v
            );
        }
    }
    prop_assert!(varied > 0, "no tile varied");
    Ok(())
}

fn stage_name(level: u32) -> &'static str {
    match level {
        1..=4 => "cathedral",
        5..=8 => "catacombs",
        9..=12 => "caves",
        _ => "hell",
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn hell_levels_are_mirrored_connected_and_big_enough(level in 13u32..=16, seed in any::<u64>()) {
        let stage = hell::generate(level, seed).unwrap();
        check_stage(&stage)?;
        let b = &stage.blank;
        prop_assert_eq!((b.width(), b.height()), (40, 40));
        for ((x, y), v) in b.iter() {
            let (x, y) = (x as i64, y as i64);
            prop_assert_eq!(Some(v), b.get(39 - x, y), "mirrored left-right");
            prop_assert_eq!(Some(v), b.get(x, 39 - y), "mirrored top-bottom");
        }
        prop_assert!(b.values().iter().filter(|&&c| c).count() >= hell::AREA_THRESHOLD);
        prop_assert_eq!(hell::generate(level, seed).unwrap(), stage);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn caves_are_big_connected_with_enclosed_pools_and_bridged_rivers(level in 9u32..=12, seed in any::<u64>()) {
        let (stage, rivers) = caves::generate(level, seed).unwrap();
        check_stage(&stage)?;
        prop_assert!(stage.blank.values().iter().filter(|&&b| b).count() >= caves::MIN_FLOOR);
        let tiles = &stage.tiles.tiles;
        let river_cells: std::collections::BTreeSet<(usize, usize)> = rivers.iter().flat_map(|r| r.cells.iter().copied()).collect();
        let mut pool_tiles = 0;
        for ((x, y), &t) in tiles.iter() {
            if t != Tile::Lava || river_cells.contains(&(x, y)) {
                continue;
            }
            pool_tiles += 1;
            // A pool is enclosed: nothing walkable touches it, and it keeps off the map's edge.
            prop_assert!(x > 0 && y > 0 && x + 1 < tiles.width() && y + 1 < tiles.height());
            for (dx, dy) in [(0i64, -1i64), (0, 1), (-1, 0), (1, 0)] {
                let n = *tiles.get(x as i64 + dx, y as i64 + dy).unwrap();
                prop_assert!(!n.walkable() || river_cells.contains(&((x as i64 + dx) as usize, (y as i64 + dy) as usize)), "pool tile ({}, {}) touches {:?}", x, y, n);
            }
        }
        prop_assert!(pool_tiles > 0, "at least one lava pool");
        for r in &rivers {
            prop_assert!(r.cells.len() >= 7);
            prop_assert!(r.cells.contains(&r.bridge));
            prop_assert_eq!(tiles.get(r.bridge.0 as i64, r.bridge.1 as i64), Some(&Tile::Bridge));
        }
        prop_assert_eq!(caves::generate(level, seed).unwrap().0, stage);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn catacombs_are_connected_with_little_void(level in 5u32..=8, seed in any::<u64>()) {
        let stage = catacombs::generate(level, seed).unwrap();
        check_stage(&stage)?;
        let void = stage.tiles.tiles.values().iter().filter(|&&t| t == Tile::Solid).count();
        prop_assert!(void <= catacombs::MAX_VOID, "{} void tiles", void);
        // The Catacombs' spread rule: no tile shows the same variant as a like tile within 2.
        for ((x, y), &t) in stage.tiles.tiles.iter() {
            let v = stage.tiles.variant(x as i64, y as i64);
            if v == 0 {
                continue;
            }
            for ny in y as i64 - 2..=y as i64 + 2 {
                for nx in x as i64 - 2..=x as i64 + 2 {
                    if (nx, ny) != (x as i64, y as i64) && stage.tiles.tiles.get(nx, ny) == Some(&t) {
                        prop_assert!(stage.tiles.variant(nx, ny) != v, "({}, {}) and ({}, {}) both {:?} variant {}", x, y, nx, ny, t, v);
                    }
                }
            }
        }
        // Every door stands between two open tiles, across a wall.
        let tiles = &stage.tiles.tiles;
        for ((x, y), &t) in tiles.iter() {
            if t == Tile::Door {
                let open = |dx: i64, dy: i64| tiles.get(x as i64 + dx, y as i64 + dy).is_some_and(|n| n.walkable());
                prop_assert!((open(-1, 0) && open(1, 0)) || (open(0, -1) && open(0, 1)), "door ({}, {})", x, y);
            }
        }
        prop_assert_eq!(catacombs::generate(level, seed).unwrap(), stage);
    }
}

#[test]
fn golden_maps() {
    for (name, level, seed) in [
        ("cathedral", 1u32, 1u64),
        ("cathedral", 3, 2),
        ("catacombs", 5, 1),
        ("caves", 9, 1),
        ("hell", 13, 3),
    ] {
        let stage = match name {
            "hell" => hell::generate(level, seed).unwrap(),
            "caves" => caves::generate(level, seed).unwrap().0,
            "catacombs" => catacombs::generate(level, seed).unwrap(),
            _ => cathedral::generate(level, seed).unwrap(),
        };
        let text = stage.tiles.to_ascii();
        common::golden::check(&format!("{name}_level{level}_seed{seed}.txt"), &text);
    }
}

// ---------------------------------------------------------------------------------------
// Set pieces: one per stage in fixtures/setpieces, stamped as drawn and kept so.

mod set_pieces {
    use std::collections::{BTreeSet, VecDeque};
    use std::path::Path;

    use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage, load_set_piece};
    use levelplan::tiles::Tile;
    use levelplan::tiles::setpiece::SetPiece;
    use levelplan::{Level, LevelDetail, Recipe};

    fn piece(file: &str) -> SetPiece {
        let path = format!("{}/fixtures/setpieces/{file}", env!("CARGO_MANIFEST_DIR"));
        load_set_piece(Path::new(&path)).unwrap()
    }

    fn level_with(stage: DiabloStage, level: u32, p: &SetPiece, seed: u64) -> Level {
        let mut recipe = DiabloRecipe::new(stage, level);
        recipe.params.set_piece = Some(p.clone());
        recipe
            .generate(seed)
            .unwrap_or_else(|e| panic!("{stage:?} seed {seed}: {e}"))
    }

    /// Brute force: every walkable tile reachable from every other.
    fn one_piece(level: &Level) -> bool {
        let t = &level.tiles.tiles;
        let walk: Vec<(usize, usize)> = t
            .iter()
            .filter(|(_, x)| x.walkable())
            .map(|(p, _)| p)
            .collect();
        let Some(&first) = walk.first() else {
            return false;
        };
        let mut seen = BTreeSet::from([first]);
        let mut queue = VecDeque::from([first]);
        while let Some((x, y)) = queue.pop_front() {
            for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if t.get(nx, ny).is_some_and(|x| x.walkable())
                    && seen.insert((nx as usize, ny as usize))
                {
                    queue.push_back((nx as usize, ny as usize));
                }
            }
        }
        seen.len() == walk.len()
    }

    /// The piece's tiles are in the level exactly as drawn, plain (no variant), at the
    /// recorded place; returns that place.
    fn stamped_as_drawn(level: &Level, p: &SetPiece) -> (usize, usize) {
        let LevelDetail::Diablo {
            set_piece: Some(record),
            ..
        } = &level.detail
        else {
            panic!("no set piece recorded");
        };
        assert_eq!(
            (record.name.as_str(), record.size),
            (p.name.as_str(), (p.width(), p.height()))
        );
        let (ax, ay) = record.at;
        for ((x, y), cell) in p.cells.iter() {
            if let Some(tile) = cell {
                let (tx, ty) = ((ax + x) as i64, (ay + y) as i64);
                assert_eq!(level.tiles.tiles.get(tx, ty), Some(tile), "cell ({x}, {y})");
                assert_eq!(level.tiles.variant(tx, ty), 0, "cell ({x}, {y}) varied");
            }
        }
        (ax, ay)
    }

    #[test]
    fn each_stage_stamps_its_set_piece_as_drawn() {
        let shrine = piece("cathedral_shrine.ron");
        let crypt = piece("catacombs_crypt.tmj");
        let altar = piece("caves_altar.ron");
        let sanctum = piece("hell_sanctum.ron");
        for seed in 0..12 {
            // The Cathedral: inside one of the chambers (the six places a chamber can be).
            let level = level_with(DiabloStage::Cathedral, 2, &shrine, seed);
            let (x, y) = stamped_as_drawn(&level, &shrine);
            let chambers = [(1, 15), (15, 15), (29, 15), (15, 1), (15, 29)];
            assert!(
                chambers.iter().any(|&(cx, cy)| x >= cx
                    && y >= cy
                    && x + shrine.width() <= cx + 10
                    && y + shrine.height() <= cy + 10),
                "seed {seed}: shrine at ({x}, {y}) in no chamber"
            );
            assert!(one_piece(&level), "seed {seed}");
            // The Catacombs: the piece fills its room's floor: every tile round it is wall
            // or a way through the wall; the crypt brings the stairs up.
            let level = level_with(DiabloStage::Catacombs, 5, &crypt, seed);
            let (x, y) = stamped_as_drawn(&level, &crypt);
            let (w, h) = (crypt.width() as i64, crypt.height() as i64);
            for ry in y as i64 - 1..=y as i64 + h {
                for rx in x as i64 - 1..=x as i64 + w {
                    let ring = rx == x as i64 - 1
                        || ry == y as i64 - 1
                        || rx == x as i64 + w
                        || ry == y as i64 + h;
                    if ring {
                        let t = *level.tiles.tiles.get(rx, ry).unwrap();
                        assert!(
                            t.is_wall() || matches!(t, Tile::Door | Tile::Arch),
                            "seed {seed}: {t:?} at ({rx}, {ry})"
                        );
                    }
                }
            }
            let up = crypt.stairs_up().unwrap();
            assert_eq!(
                level.stairs.unwrap().up,
                (x + up.0, y + up.1),
                "seed {seed}"
            );
            assert!(one_piece(&level), "seed {seed}");
            // The Caves and Hell: at a free spot, the level in one piece; the sanctum brings
            // the stairs down, and there are no others.
            let level = level_with(DiabloStage::Caves, 9, &altar, seed);
            stamped_as_drawn(&level, &altar);
            assert!(one_piece(&level), "seed {seed}");
            let level = level_with(DiabloStage::Hell, 13, &sanctum, seed);
            let (x, y) = stamped_as_drawn(&level, &sanctum);
            let down = sanctum.stairs_down().unwrap();
            assert_eq!(
                level.stairs.unwrap().down,
                (x + down.0, y + down.1),
                "seed {seed}"
            );
            let downs = level
                .tiles
                .tiles
                .iter()
                .filter(|(_, t)| **t == Tile::StairsDown)
                .count();
            assert_eq!(downs, 1, "seed {seed}");
            assert!(one_piece(&level), "seed {seed}");
        }
    }

    #[test]
    fn set_piece_levels_are_deterministic_and_proven() {
        let sanctum = piece("hell_sanctum.ron");
        for seed in 0..4 {
            let a = level_with(DiabloStage::Hell, 13, &sanctum, seed);
            let b = level_with(DiabloStage::Hell, 13, &sanctum, seed);
            assert_eq!(a.to_json(), b.to_json());
            assert!(levelplan::graph::solve::solve(&a.graph).is_ok());
        }
        // Without a set piece, the levels are the ones they always were.
        let plain = DiabloRecipe::new(DiabloStage::Hell, 13)
            .generate(3)
            .unwrap();
        let LevelDetail::Diablo { set_piece, .. } = &plain.detail else {
            panic!()
        };
        assert!(set_piece.is_none());
    }

    #[test]
    fn bad_set_pieces_are_named_errors() {
        // Too big for a Cathedral chamber.
        let big = SetPiece::from_ron(
            &format!(
                "(name: \"big\", rows: [{}])",
                ["\"............\""; 12].join(",")
            ),
            "big.ron",
        )
        .unwrap();
        let mut recipe = DiabloRecipe::new(DiabloStage::Cathedral, 1);
        recipe.params.set_piece = Some(big);
        let err = recipe.generate(1).unwrap_err().to_string();
        assert!(
            err.contains("`big`") && err.contains("12 x 12") && err.contains("chamber"),
            "{err}"
        );
        // A glyph that is no tile; walkable tiles in two pieces; no way in; two stairs down.
        for (rows, wanted) in [
            (
                "[\"..\", \".Q\"]",
                "row 2, column 2: `Q` is no tile's glyph",
            ),
            ("[\".#.\"]", "in pieces"),
            ("[\"###\", \"#.#\", \"###\"]", "no way in"),
            ("[\">.>\"]", "2 StairsDown tiles"),
            ("[\"???\"]", "every cell is transparent"),
        ] {
            let err = SetPiece::from_ron(&format!("(name: \"x\", rows: {rows})"), "x.ron")
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("set piece x.ron: ") && err.contains(wanted),
                "{wanted}: {err}"
            );
        }
        // A Tiled map with a tile that is not levelplan's.
        let map = r#"{"width": 2, "height": 1, "tilewidth": 16, "tileheight": 16,
            "tilesets": [{"firstgid": 1}], "layers": [{"type": "tilelayer", "name": "p", "data": [2, 99]}]}"#;
        let err = levelplan::layout::tiled::set_piece_from_tmj(map, "p.tmj")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("p.tmj: layer `p`: tile (1, 0) is gid 99"),
            "{err}"
        );
        // A file that is not there.
        let err = load_set_piece(Path::new("nowhere/piece.ron")).unwrap_err();
        assert!(
            err.contains("nowhere/piece.ron") && err.contains("cannot read"),
            "{err}"
        );
    }

    #[test]
    fn the_set_pieces_tileset_image_is_levelplans() {
        // The image beside the Tiled set piece is the one `generate --tmj` writes.
        let path = format!(
            "{}/fixtures/setpieces/levelplan_tiles.png",
            env!("CARGO_MANIFEST_DIR")
        );
        assert_eq!(
            std::fs::read(path).unwrap(),
            levelplan::export::tiled::tileset_png()
        );
    }
}
