//! The Diablo stages: connectivity, stairs, thresholds, determinism, golden maps.

use std::path::PathBuf;

use levelplan::graph::solve::solve;
use levelplan::recipes::diablo::cathedral;
use levelplan::tiles::Tile;
use levelplan::tiles::regions::fully_connected;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn cathedral_levels_are_connected_with_reachable_stairs(level in 1u32..=4, seed in any::<u64>()) {
        let stage = cathedral::generate(level, seed).unwrap();
        let tiles = &stage.tiles.tiles;
        // One piece: the flood fill from the stairs up reaches every walkable tile.
        prop_assert!(fully_connected(tiles, Tile::walkable));
        let (ux, uy) = stage.stairs_up;
        let (dx, dy) = stage.stairs_down;
        prop_assert_eq!(tiles.get(ux as i64, uy as i64), Some(&Tile::StairsUp));
        prop_assert_eq!(tiles.get(dx as i64, dy as i64), Some(&Tile::StairsDown));
        let reach = stage.tiles.flood_fill(ux as i64, uy as i64, Tile::walkable);
        prop_assert_eq!(reach.get(dx as i64, dy as i64), Some(&true));
        // The area threshold holds: at least that many cells were carved (walls and doors now
        // stand on some of them, never on more than the blank lost to them).
        let open = tiles.values().iter().filter(|t| !matches!(t, Tile::Solid)).count();
        prop_assert!(open >= cathedral::area_threshold(level));
        // Its rooms form a graph the solver walks from the stairs up to the stairs down.
        prop_assert!(solve(&stage.graph).is_ok());
        // Same seed, same level.
        prop_assert_eq!(cathedral::generate(level, seed).unwrap(), stage);
    }
}

#[test]
fn cathedral_golden_maps() {
    for (level, seed) in [(1u32, 1u64), (3, 2)] {
        let stage = cathedral::generate(level, seed).unwrap();
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
            "fixtures/golden/cathedral_level{level}_seed{seed}.txt"
        ));
        let text = stage.tiles.to_ascii();
        if std::env::var_os("LEVELPLAN_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let expected =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(expected == text, "{} differs:\n{text}", path.display());
    }
}
