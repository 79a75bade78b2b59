//! The raster layer: plain grids of tiles.
//!
//! [`Grid`] is a rectangle of values; [`TileMap`] is a grid of [`Tile`]s with, for each tile,
//! the region (room) it belongs to. [`convert`] turns passability blanks into tiles (marching
//! squares, 3x3 pattern rules), [`miniset`] searches and replaces small stamps, [`setpiece`]
//! holds prebuilt blocks stamped once and protected, [`regions`] finds connected regions and
//! their contacts. This layer knows nothing of graphs: regions are
//! plain numbers, which recipes map to rooms.

pub mod convert;
pub mod fix;
pub mod miniset;
pub mod regions;
pub mod setpiece;
pub mod themes;
pub mod variants;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// A rectangle of values, row by row.
///
/// Reads back (JSON, RON) only when its `cells` are exactly `width` x `height`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "GridRecord<T>")]
pub struct Grid<T> {
    width: usize,
    height: usize,
    cells: Vec<T>,
}

/// A grid as a document spells it, before its size is checked.
#[derive(Deserialize)]
struct GridRecord<T> {
    width: usize,
    height: usize,
    cells: Vec<T>,
}

impl<T> TryFrom<GridRecord<T>> for Grid<T> {
    type Error = String;

    fn try_from(r: GridRecord<T>) -> Result<Grid<T>, String> {
        if r.width.checked_mul(r.height) != Some(r.cells.len()) {
            return Err(format!(
                "a grid of {} x {} has {} cells",
                r.width,
                r.height,
                r.cells.len()
            ));
        }
        Ok(Grid {
            width: r.width,
            height: r.height,
            cells: r.cells,
        })
    }
}

impl<T: Clone> Grid<T> {
    /// A `width` x `height` grid filled with `fill`.
    pub fn new(width: usize, height: usize, fill: T) -> Grid<T> {
        Grid {
            width,
            height,
            cells: vec![fill; width * height],
        }
    }
}

impl<T> Default for Grid<T> {
    /// An empty grid (0 x 0).
    fn default() -> Grid<T> {
        Grid {
            width: 0,
            height: 0,
            cells: Vec::new(),
        }
    }
}

impl<T> Grid<T> {
    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether `(x, y)` lies inside.
    pub fn in_bounds(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height
    }

    /// The value at `(x, y)`, if inside.
    pub fn get(&self, x: i64, y: i64) -> Option<&T> {
        self.in_bounds(x, y)
            .then(|| &self.cells[y as usize * self.width + x as usize])
    }

    /// Sets the value at `(x, y)`; outside the grid nothing happens.
    pub fn set(&mut self, x: i64, y: i64, value: T) {
        if self.in_bounds(x, y) {
            self.cells[y as usize * self.width + x as usize] = value;
        }
    }

    /// The values row by row, with their coordinates.
    pub fn iter(&self) -> impl Iterator<Item = ((usize, usize), &T)> + '_ {
        // Row by row: no division per cell (a map of no width has no cells).
        self.cells
            .chunks(self.width.max(1))
            .enumerate()
            .flat_map(|(y, row)| row.iter().enumerate().map(move |(x, v)| ((x, y), v)))
    }

    /// The values row by row.
    pub fn values(&self) -> &[T] {
        &self.cells
    }
}

/// What a tile is: a vocabulary shared by every recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Tile {
    /// Rock: outside every room.
    Solid,
    /// Walkable floor.
    Floor,
    /// A wall (any orientation).
    Wall,
    /// A wall running up and down.
    WallVertical,
    /// A wall running left and right.
    WallHorizontal,
    /// An outer corner of a wall.
    WallCornerOuter,
    /// An inner corner of a wall.
    WallCornerInner,
    /// A door (walkable).
    Door,
    /// A hidden door (walkable once found).
    SecretDoor,
    /// An open archway (walkable).
    Arch,
    /// A fence: blocks walking, not sight.
    Fence,
    /// A grate: blocks walking, not sight.
    Grate,
    /// A pillar standing on the floor.
    Pillar,
    /// Corridor floor (walkable).
    Corridor,
    /// Lava (deadly).
    Lava,
    /// A bridge over lava or water (walkable).
    Bridge,
    /// Stairs up (walkable).
    StairsUp,
    /// Stairs down (walkable).
    StairsDown,
    /// A window: blocks walking, not sight.
    Window,
    /// A lamp standing on the floor: blocks walking, lights the room.
    Lamp,
    /// A locked door (walkable once its opener is held; the level's `doors` name the lock).
    LockedDoor,
    /// A one-way door (walkable only towards the room its door record names).
    OneWayDoor,
    /// A heavy door, two or three tiles wide, that only a switch opens.
    HeavyDoor,
    /// A teleporter pad: stepping on it takes the player to the other pad of its warp.
    WarpPad,
}

impl Tile {
    /// Every tile kind, in the order of their numbers in exports (Tiled gids are this plus 1).
    pub const ALL: [Tile; 24] = [
        Tile::Solid,
        Tile::Floor,
        Tile::Wall,
        Tile::WallVertical,
        Tile::WallHorizontal,
        Tile::WallCornerOuter,
        Tile::WallCornerInner,
        Tile::Door,
        Tile::SecretDoor,
        Tile::Arch,
        Tile::Fence,
        Tile::Grate,
        Tile::Pillar,
        Tile::Corridor,
        Tile::Lava,
        Tile::Bridge,
        Tile::StairsUp,
        Tile::StairsDown,
        Tile::Window,
        Tile::Lamp,
        Tile::LockedDoor,
        Tile::OneWayDoor,
        Tile::HeavyDoor,
        Tile::WarpPad,
    ];

    /// Whether the player can stand on it.
    pub fn walkable(self) -> bool {
        matches!(
            self,
            Tile::Floor
                | Tile::Door
                | Tile::SecretDoor
                | Tile::Arch
                | Tile::Corridor
                | Tile::Bridge
                | Tile::StairsUp
                | Tile::StairsDown
                | Tile::LockedDoor
                | Tile::OneWayDoor
                | Tile::HeavyDoor
                | Tile::WarpPad
        )
    }

    /// Whether it is a door of any kind (plain, secret, locked, one-way, heavy); arches are
    /// open passages, not doors.
    pub fn is_door(self) -> bool {
        matches!(
            self,
            Tile::Door | Tile::SecretDoor | Tile::LockedDoor | Tile::OneWayDoor | Tile::HeavyDoor
        )
    }

    /// Whether it is a wall of any kind.
    pub fn is_wall(self) -> bool {
        matches!(
            self,
            Tile::Wall
                | Tile::WallVertical
                | Tile::WallHorizontal
                | Tile::WallCornerOuter
                | Tile::WallCornerInner
        )
    }

    /// One character for text maps.
    pub fn glyph(self) -> char {
        match self {
            Tile::Solid => ' ',
            Tile::Floor => '.',
            Tile::Wall => '#',
            Tile::WallVertical => '|',
            Tile::WallHorizontal => '-',
            Tile::WallCornerOuter => '+',
            Tile::WallCornerInner => '*',
            Tile::Door => 'D',
            Tile::SecretDoor => '%',
            Tile::Arch => 'A',
            Tile::Fence => 'f',
            Tile::Grate => 'g',
            Tile::Pillar => 'o',
            Tile::Corridor => ',',
            Tile::Lava => '~',
            Tile::Bridge => '=',
            Tile::StairsUp => '<',
            Tile::StairsDown => '>',
            Tile::Window => 'w',
            Tile::Lamp => 'i',
            Tile::LockedDoor => 'L',
            Tile::OneWayDoor => 'O',
            Tile::HeavyDoor => 'H',
            Tile::WarpPad => '&',
        }
    }

    /// The tile a glyph stands for.
    pub fn from_glyph(c: char) -> Option<Tile> {
        Tile::ALL.into_iter().find(|t| t.glyph() == c)
    }

    /// The tile's number in [`Tile::ALL`].
    pub fn index(self) -> usize {
        Tile::ALL.iter().position(|&t| t == self).unwrap_or(0)
    }
}

/// A grid of tiles, each with the region (room) it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileMap {
    /// The tiles.
    pub tiles: Grid<Tile>,
    /// The region of each tile (`None` for rock and shared walls).
    pub regions: Grid<Option<u32>>,
    /// Which picture of its tile each tile shows (0: the plain one; see
    /// [`variants`]). Empty in maps nothing varied.
    #[serde(default)]
    pub variants: Grid<u8>,
}

impl TileMap {
    /// A map of solid rock.
    pub fn new(width: usize, height: usize) -> TileMap {
        TileMap {
            tiles: Grid::new(width, height, Tile::Solid),
            regions: Grid::new(width, height, None),
            variants: Grid::default(),
        }
    }

    /// The variant of the tile at `(x, y)`: 0 (plain) outside the map or where none was set.
    pub fn variant(&self, x: i64, y: i64) -> u8 {
        self.variants.get(x, y).copied().unwrap_or(0)
    }

    /// Sets a tile and its region.
    pub fn put(&mut self, x: i64, y: i64, tile: Tile, region: Option<u32>) {
        self.tiles.set(x, y, tile);
        self.regions.set(x, y, region);
    }

    /// The map as text, one character per tile ([`Tile::glyph`]), rows trimmed on the right.
    pub fn to_ascii(&self) -> String {
        let mut out = String::with_capacity((self.tiles.width() + 1) * self.tiles.height());
        for y in 0..self.tiles.height() {
            let row: String = (0..self.tiles.width())
                .map(|x| {
                    self.tiles
                        .get(x as i64, y as i64)
                        .map_or(' ', |t| t.glyph())
                })
                .collect();
            out.push_str(row.trim_end());
            out.push('\n');
        }
        out
    }

    /// The tiles reachable from `(x, y)` in four directions over tiles `passable` accepts, as a
    /// grid of flags.
    ///
    /// # Complexity
    /// `O(W · H)`.
    pub fn flood_fill(&self, x: i64, y: i64, passable: impl Fn(Tile) -> bool) -> Grid<bool> {
        let mut seen = Grid::new(self.tiles.width(), self.tiles.height(), false);
        if !self.tiles.get(x, y).is_some_and(|&t| passable(t)) {
            return seen;
        }
        seen.set(x, y, true);
        let mut queue = VecDeque::from([(x, y)]);
        while let Some((cx, cy)) = queue.pop_front() {
            for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
                let (nx, ny) = (cx + dx, cy + dy);
                if self.tiles.get(nx, ny).is_some_and(|&t| passable(t))
                    && seen.get(nx, ny) == Some(&false)
                {
                    seen.set(nx, ny, true);
                    queue.push_back((nx, ny));
                }
            }
        }
        seen
    }
}
