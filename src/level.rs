//! [`Level`], what every recipe returns, and [`Recipe`], how a game holds any generator.
//!
//! A recipe is prepared once from its parameters and then makes a level per seed:
//!
//! ```
//! use levelplan::{Level, Recipe};
//! use levelplan::recipes::gungeon::{Generator, GungeonParams};
//! use levelplan::recipes::isaac::IsaacRecipe;
//!
//! let recipes: Vec<Box<dyn Recipe>> = vec![
//!     Box::new(Generator::new(levelplan::Flow::builtin("classic").unwrap(), GungeonParams::default())?),
//!     Box::new(IsaacRecipe::new(2, Default::default())),
//! ];
//! for recipe in &recipes {
//!     let level: Level = recipe.generate(7)?;
//!     // Every level has a graph proven completable, a tile map whose floor knows its rooms,
//!     // and reads back from its JSON document.
//!     assert!(level.graph.contains_room(level.goal));
//!     assert_eq!(Level::from_json(&level.to_json())?, level);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! This module may use `graph`, `tiles` and `layout`; recipes build on it, and writers read it.

use std::error::Error;

use serde::{Deserialize, Serialize};

use crate::graph::solve::{Unsolvable, Walkthrough};
use crate::graph::{LevelGraph, LinkId, RoomId};
use crate::layout::Layout;
use crate::tiles::{Grid, TileMap};

/// A tile position `(x, y)`, column and row from the top left.
pub type TilePos = (usize, usize);

/// A generated level, whatever recipe made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// The recipe that made it, as `levelplan generate --recipe` spells it.
    pub recipe: String,
    /// The seed it came from.
    pub seed: u64,
    /// Attempts the recipe made before this level passed every check.
    pub attempts: u32,
    /// The abstract level: rooms, links, locks, openers.
    pub graph: LevelGraph,
    /// Where the player starts.
    pub start: RoomId,
    /// The goal.
    pub goal: RoomId,
    /// The solver's proof that any player can finish the level from `start` to `goal`.
    pub walkthrough: Walkthrough,
    /// The tiles. A floor tile's region names its room through [`Level::region_rooms`].
    pub tiles: TileMap,
    /// Per tile region, the graph room it is part of (`None`: a region of no room).
    pub region_rooms: Vec<Option<RoomId>>,
    /// Where the rooms were placed, for recipes that lay rooms out.
    pub layout: Option<Layout>,
    /// The layout cell shown at tile (0, 0): layout cell `(x, y)` is tile
    /// `(x - tile_origin.0, tile_origin.1 - y)` (layout rows grow upwards, tile rows down).
    #[serde(default)]
    pub tile_origin: (i32, i32),
    /// The tiles of the ways in and out, for recipes that place them (stairs).
    pub stairs: Option<Stairs>,
    /// The game's view ([`crate::view`]): where the player appears, `[x, y]` on a walkable
    /// tile of `start` (`None` for a level without tiles).
    pub start_tile: Option<TilePos>,
    /// What ends the level, `[x, y]` on a walkable tile of `goal` (the stairs down on Diablo's
    /// stages, the exit switch on sector levels).
    pub goal_tile: Option<TilePos>,
    /// One record per graph room that has tiles: kind, bounds, spawn slots.
    pub rooms: Vec<crate::view::RoomView>,
    /// One record per passage: its link, rooms, tiles, lock and direction.
    pub doors: Vec<crate::view::DoorView>,
    /// One record per warp link: a teleporter pad in each room.
    pub warps: Vec<crate::view::WarpView>,
    /// Every item of the graph's rooms, each on a floor tile of its room.
    pub items: Vec<PlacedItem>,
    /// What only one recipe has.
    pub detail: LevelDetail,
}

/// Where the stairs are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stairs {
    /// The way in.
    pub up: TilePos,
    /// The way out.
    pub down: TilePos,
}

/// What only one recipe's levels have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum LevelDetail {
    /// A flow's graph only, not yet given space (`levelplan generate --recipe flow`): the level
    /// has no tiles.
    Flow {
        /// The flow the level was made from.
        flow: String,
    },
    /// Gungeon-style levels (`recipes::gungeon`).
    Gungeon {
        /// The flow the level was made from.
        flow: String,
        /// The graph room of each room of the layout (`layout.rooms[i]` is `rooms[i]`).
        rooms: Vec<RoomId>,
        /// The graph link of each link of the layout.
        links: Vec<LinkId>,
    },
    /// Isaac-style floors (`recipes::isaac`): the grid and its rooms' cells and shapes.
    Isaac {
        /// The floor level (1 = the first).
        level: u32,
        /// Grid columns and rows.
        size: (i32, i32),
        /// The rooms on the grid.
        rooms: Vec<GridRoom>,
    },
    /// Diablo's stages (`recipes::diablo`).
    Diablo {
        /// The dungeon level (1 to 16).
        level: u32,
        /// The passability blank the tiles were made from (`true`: carved).
        blank: Grid<bool>,
        /// The caves' lava rivers: each river's cells from its source, and its bridge.
        rivers: Vec<RiverRecord>,
        /// The set piece stamped into the level, if any.
        #[serde(default)]
        set_piece: Option<SetPieceRecord>,
    },
    /// Sector levels (`recipes::sectors`): geometry made into a graph, a chain of scripts,
    /// doors and windows on the shared walls. Region `i` of the tiles is room `i`.
    Sectors {
        /// The geometry generator (`bsp` or `growth`).
        geometry: String,
        /// The field's width and height in tiles.
        size: (usize, usize),
        /// Every sector (one per room, in room order).
        sectors: Vec<SectorRecord>,
        /// Every connection (one per link, in link order) with its doors and windows.
        connections: Vec<SectorConnection>,
        /// The lock-and-key scripts, outermost first: script 0 holds the exit. The openers
        /// and the exit switch are in [`Level::items`].
        scripts: Vec<crate::graph::lock_and_key::Script>,
    },
}

/// A sector of a sector level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorRecord {
    /// Its room.
    pub room: RoomId,
    /// Its cells (walls and floor).
    pub cells: usize,
    /// The script that closes it off (`None`: the start sector and secret rooms).
    pub script: Option<usize>,
}

/// A connection of a sector level: the side the player comes from, and what is in the wall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorConnection {
    /// The link.
    pub link: LinkId,
    /// The side the player first reaches (the connection's orientation).
    pub from: RoomId,
    /// The other side.
    pub to: RoomId,
    /// Its doors, windows or secret wall, the first always a door (or the secret wall).
    pub openings: Vec<Opening>,
}

/// A door, window or secret wall in the boundary between two sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// What it is.
    pub kind: OpeningKind,
    /// Its tiles across the wall, as `(tile on the from side, tile on the to side)` pairs,
    /// one pair per cell of width.
    pub cells: Vec<(TilePos, TilePos)>,
}

impl Opening {
    /// Its width in cells.
    pub fn width(&self) -> usize {
        self.cells.len()
    }

    /// Whether it is a heavy door (2 or 3 cells wide), which only a switch opens.
    pub fn heavy(&self) -> bool {
        self.kind == OpeningKind::Door && self.width() >= 2
    }
}

/// What an [`Opening`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OpeningKind {
    /// A door (1 cell: plain; 2 or 3: heavy).
    Door,
    /// A window: look, do not pass.
    Window,
    /// A secret wall, towards a secret room.
    SecretWall,
}

/// An item on a tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedItem {
    /// Its tile.
    pub at: TilePos,
    /// Its room.
    pub room: RoomId,
    /// The item.
    pub item: crate::graph::Item,
}

/// A room of a grid floor plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridRoom {
    /// The room in the graph.
    pub room: RoomId,
    /// Its shape's name (`Single`, `Wide`, `L`, ...).
    pub shape: String,
    /// Its grid cells `(column, row)`.
    pub cells: Vec<(i32, i32)>,
    /// Its design, for normal rooms.
    pub design: Option<String>,
    /// Its steps from the start room, walked without passing through a secret room.
    pub distance: u32,
}

/// Where a set piece was stamped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetPieceRecord {
    /// Its name.
    pub name: String,
    /// Its top-left tile.
    pub at: TilePos,
    /// Its width and height.
    pub size: (usize, usize),
}

/// A river of lava, as a level records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiverRecord {
    /// The cells, from its source.
    pub cells: Vec<TilePos>,
    /// The bridge's cell.
    pub bridge: TilePos,
}

impl Level {
    /// A level of a flow's graph only, with its proof of completion: no tiles, no layout (what
    /// `levelplan generate --recipe flow` writes).
    pub fn graph_only(flow: &str, seed: u64, graph: LevelGraph, walkthrough: Walkthrough) -> Level {
        Level {
            recipe: "flow".to_string(),
            seed,
            attempts: 1,
            start: walkthrough.start,
            goal: walkthrough.goal,
            graph,
            walkthrough,
            tiles: TileMap::new(0, 0),
            region_rooms: Vec::new(),
            layout: None,
            tile_origin: (0, 0),
            stairs: None,
            start_tile: None,
            goal_tile: None,
            rooms: Vec::new(),
            doors: Vec::new(),
            warps: Vec::new(),
            items: Vec::new(),
            detail: LevelDetail::Flow {
                flow: flow.to_string(),
            },
        }
    }

    /// The graph room a tile belongs to (`None` for rock, walls between rooms, corridors).
    pub fn room_at(&self, x: usize, y: usize) -> Option<RoomId> {
        let region = *self.tiles.regions.get(x as i64, y as i64)?;
        self.region_rooms.get(region? as usize).copied().flatten()
    }

    /// The graph link each link of the layout realises (Gungeon-style levels), else empty.
    pub fn layout_links(&self) -> &[LinkId] {
        match &self.detail {
            LevelDetail::Gungeon { links, .. } => links,
            _ => &[],
        }
    }

    /// The level as pretty JSON (what `levelplan generate --json` writes).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a level always serialises")
    }

    /// Reads a level from JSON.
    pub fn from_json(text: &str) -> Result<Level, LevelReadError> {
        serde_json::from_str(text).map_err(|e| LevelReadError(e.to_string()))
    }

    /// The level as pretty RON.
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("a level always serialises")
    }

    /// Reads a level from RON.
    pub fn from_ron(text: &str) -> Result<Level, LevelReadError> {
        ron::from_str(text).map_err(|e| LevelReadError(e.to_string()))
    }
}

/// A level document that JSON or RON could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read the level: {0}")]
pub struct LevelReadError(pub String);

/// A level generator, prepared once from its parameters: a game holds any recipe this way.
pub trait Recipe: Send + Sync {
    /// The recipe's name, as `levelplan generate --recipe` spells it.
    fn name(&self) -> &'static str;

    /// Makes the level of `seed`: the same seed gives the same level, byte for byte.
    fn generate(&self, seed: u64) -> Result<Level, RecipeError>;
}

/// Why a recipe made no level.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecipeError {
    /// The recipe failed (its own error is the source: settings that cannot work, or no level
    /// within its retry budget).
    #[error("{recipe}: {source}")]
    Failed {
        /// The recipe.
        recipe: &'static str,
        /// The recipe's own error.
        #[source]
        source: Box<dyn Error + Send + Sync + 'static>,
    },
    /// The level made cannot be proven completable.
    #[error("{recipe}: the level is not completable: {source}")]
    Unsolvable {
        /// The recipe.
        recipe: &'static str,
        /// The solver's verdict.
        #[source]
        source: Unsolvable,
    },
}

impl RecipeError {
    /// The recipe's own error, for `recipe`.
    pub fn failed(recipe: &'static str, source: impl Error + Send + Sync + 'static) -> RecipeError {
        RecipeError::Failed {
            recipe,
            source: Box::new(source),
        }
    }
}
