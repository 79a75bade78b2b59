//! The four stages of Diablo's dungeons (`shared/spec/diablo.md`): each first carves a
//! passability blank, then turns it into tiles and stamps mini-sets. So far: the Cathedral.
//!
//! Bit-exact compatibility with the game is not a goal; the techniques, constants and
//! guarantees are.

pub mod cathedral;

use serde::{Deserialize, Serialize};

use crate::graph::{LevelGraph, RoomId, RoomKind};
use crate::recipes::regions_to_graph;
use crate::tiles::regions::{contacts, find_regions};
use crate::tiles::{Tile, TileMap};

/// A generated stage level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    /// The dungeon level (1 to 16).
    pub level: u32,
    /// The seed it came from.
    pub seed: u64,
    /// The tiles; each walkable tile's region is its room in `graph`.
    pub tiles: TileMap,
    /// The rooms (regions split by doors and arches) and their doors; the region holding the
    /// stairs up is the entrance, the one holding the stairs down the exit.
    pub graph: LevelGraph,
    /// Where the stairs up are (tile coordinates of their centre).
    pub stairs_up: (usize, usize),
    /// Where the stairs down are.
    pub stairs_down: (usize, usize),
    /// Blanks generated before one passed every check.
    pub attempts: u32,
}

/// Tiles that make up rooms (doors and arches join them).
fn room_tile(t: Tile) -> bool {
    t.walkable() && !matches!(t, Tile::Door | Tile::SecretDoor | Tile::Arch)
}

/// Regions, their graph, and the tile map with regions set; kinds from the stairs.
fn finish_stage(
    level: u32,
    seed: u64,
    tiles: crate::tiles::Grid<Tile>,
    stairs_up: (usize, usize),
    stairs_down: (usize, usize),
    attempts: u32,
) -> Stage {
    let regions = find_regions(&tiles, room_tile);
    let links = contacts(&tiles, &regions, |t| matches!(t, Tile::Door | Tile::Arch));
    let mut graph = regions_to_graph(&regions, &links);
    let mut map = TileMap::new(tiles.width(), tiles.height());
    for ((x, y), &t) in tiles.iter() {
        let region = *regions.labels.get(x as i64, y as i64).expect("inside");
        map.put(x as i64, y as i64, t, region);
    }
    for ((x, y), kind) in [
        (stairs_up, RoomKind::Entrance),
        (stairs_down, RoomKind::Exit),
    ] {
        if let Some(Some(r)) = regions.labels.get(x as i64, y as i64) {
            if let Some(room) = graph.room_mut(RoomId(*r)) {
                room.kind = kind;
            }
        }
    }
    Stage {
        level,
        seed,
        tiles: map,
        graph,
        stairs_up,
        stairs_down,
        attempts,
    }
}
