//! Grid floor plans in the style of The Binding of Isaac (`shared/spec/isaac.md`).
//!
//! A floor is a set of occupied cells on a small grid of equal rooms; grid neighbours are joined
//! by a door in the middle of their shared side. The recipe reads like the spec:
//!
//! 1. the room count from the level;
//! 2. breadth-first growth from the start cell, under the neighbour rule and a coin flip per
//!    direction, recording dead ends in the order they are found (Rebirth's large rooms grow
//!    from every exit of a room, and replace single rooms at random);
//! 3. validation (exact count, boss not next to the start, enough dead ends), else regenerate;
//! 4. the boss on the last dead end (optionally a large boss room), the secret room by its
//!    scored search with two relaxations, the special rooms on the remaining dead ends;
//! 5. room designs from the difficulty pools.
//!
//! The result is a [`Floor`]: rooms with their grid cells, and a [`LevelGraph`] of the same
//! rooms, so the lock planner, the solver and every graph export work on it.

use std::collections::{BTreeSet, VecDeque};

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::graph::{LevelGraph, Link, LinkKind, LinkRole, Room, RoomId, RoomKind, distances_from};
use crate::seed;
use crate::tiles::{Tile, TileMap};

/// Tiles per grid cell: 13 x 7 floor inside a one-tile wall.
pub const ROOM_TILES: (usize, usize) = (15, 9);

/// A direction on the floor grid (named apart from `layout::geom::Dir`, the layout layer's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum GridDir {
    /// Towards row 0.
    Up,
    /// Away from row 0.
    Down,
    /// Towards column 1.
    Left,
    /// Away from column 1.
    Right,
}

impl GridDir {
    /// The four directions in the order growth tries them (the original's -10, +10, -1, +1).
    pub const ALL: [GridDir; 4] = [GridDir::Up, GridDir::Down, GridDir::Left, GridDir::Right];

    /// The cell offset of one step.
    pub fn delta(self) -> (i32, i32) {
        match self {
            GridDir::Up => (0, -1),
            GridDir::Down => (0, 1),
            GridDir::Left => (-1, 0),
            GridDir::Right => (1, 0),
        }
    }

    /// The opposite direction.
    pub fn opposite(self) -> GridDir {
        match self {
            GridDir::Up => GridDir::Down,
            GridDir::Down => GridDir::Up,
            GridDir::Left => GridDir::Right,
            GridDir::Right => GridDir::Left,
        }
    }
}

/// A grid cell `(x, y)`: columns `1..=width`, rows `0..height` (column 0 is never used, as in
/// the original's `10 * y + x` numbering).
pub type Cell = (i32, i32);

fn step(c: Cell, d: GridDir) -> Cell {
    let (dx, dy) = d.delta();
    (c.0 + dx, c.1 + dy)
}

/// The shape of a room: a single cell or one of Rebirth's eleven large shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RoomShape {
    /// One cell, doors on all four sides.
    Single,
    /// One cell, doors only left and right.
    NarrowH,
    /// One cell, doors only up and down.
    NarrowV,
    /// Two cells side by side.
    Wide,
    /// Two cells stacked.
    Tall,
    /// Two cells side by side, doors only at the two ends.
    NarrowWide,
    /// Two cells stacked, doors only at the two ends.
    NarrowTall,
    /// Two by two cells.
    Big,
    /// Two by two less the top-left cell.
    LNoTopLeft,
    /// Two by two less the top-right cell.
    LNoTopRight,
    /// Two by two less the bottom-left cell.
    LNoBottomLeft,
    /// Two by two less the bottom-right cell.
    LNoBottomRight,
}

impl RoomShape {
    /// The eleven large shapes.
    pub const LARGE: [RoomShape; 11] = [
        RoomShape::NarrowH,
        RoomShape::NarrowV,
        RoomShape::Wide,
        RoomShape::Tall,
        RoomShape::NarrowWide,
        RoomShape::NarrowTall,
        RoomShape::Big,
        RoomShape::LNoTopLeft,
        RoomShape::LNoTopRight,
        RoomShape::LNoBottomLeft,
        RoomShape::LNoBottomRight,
    ];

    /// The shape's cells as offsets from the top-left of its bounding box.
    pub fn cells(self) -> &'static [Cell] {
        match self {
            RoomShape::Single | RoomShape::NarrowH | RoomShape::NarrowV => &[(0, 0)],
            RoomShape::Wide | RoomShape::NarrowWide => &[(0, 0), (1, 0)],
            RoomShape::Tall | RoomShape::NarrowTall => &[(0, 0), (0, 1)],
            RoomShape::Big => &[(0, 0), (1, 0), (0, 1), (1, 1)],
            RoomShape::LNoTopLeft => &[(1, 0), (0, 1), (1, 1)],
            RoomShape::LNoTopRight => &[(0, 0), (0, 1), (1, 1)],
            RoomShape::LNoBottomLeft => &[(0, 0), (1, 0), (1, 1)],
            RoomShape::LNoBottomRight => &[(0, 0), (1, 0), (0, 1)],
        }
    }

    /// Whether a door may leave cell `offset` of the shape in direction `dir` (the side must be
    /// on the shape's outline; narrow shapes have doors only at their ends).
    pub fn has_exit(self, offset: Cell, dir: GridDir) -> bool {
        let cells = self.cells();
        if !cells.contains(&offset) || cells.contains(&step(offset, dir)) {
            return false;
        }
        match self {
            RoomShape::NarrowH | RoomShape::NarrowWide => {
                matches!(dir, GridDir::Left | GridDir::Right)
            }
            RoomShape::NarrowV | RoomShape::NarrowTall => {
                matches!(dir, GridDir::Up | GridDir::Down)
            }
            _ => true,
        }
    }

    /// Every door slot of the shape, as `(cell offset, direction)`, cell by cell in the order of
    /// [`cells`](Self::cells), directions in [`GridDir::ALL`] order.
    pub fn exits(self) -> Vec<(Cell, GridDir)> {
        self.cells()
            .iter()
            .flat_map(|&c| GridDir::ALL.into_iter().map(move |d| (c, d)))
            .filter(|&(c, d)| self.has_exit(c, d))
            .collect()
    }
}

/// A special room the recipe may place on a dead end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecialRoom {
    /// The room's kind (treasure rooms are [`RoomKind::Reward`]).
    pub kind: RoomKind,
    /// Chance that it appears (1.0: guaranteed; a floor without a dead end for it regenerates).
    pub chance: f64,
    /// A better chance when a condition flag is set: `(flag, chance)`.
    pub chance_if: Option<(String, f64)>,
    /// A flag that must be set for it to appear at all.
    pub requires: Option<String>,
    /// First level it may appear on.
    pub min_level: u32,
}

impl SpecialRoom {
    /// A special room of `kind` appearing with `chance`, on any level, whatever the flags.
    pub fn new(kind: RoomKind, chance: f64) -> SpecialRoom {
        SpecialRoom {
            kind,
            chance,
            chance_if: None,
            requires: None,
            min_level: 1,
        }
    }

    fn guaranteed(&self) -> bool {
        self.chance >= 1.0 && self.requires.is_none()
    }
}

/// The default special-room table (`fixtures/isaac/special_rooms.ron`): a treasure room and a
/// shop on every floor, then rooms that depend on chance and on the caller's flags (a sacrifice
/// room 1 time in 7, 1 in 3 when the player is at full health; a library 1 in 5; an arcade half
/// the time when the player has coins; a curse room 1 in 2 once a devil deal was taken).
pub fn default_special_rooms() -> Vec<SpecialRoom> {
    special_rooms_from_ron(
        include_str!("../../fixtures/isaac/special_rooms.ron"),
        "fixtures/isaac/special_rooms.ron",
    )
    .expect("the built-in special-room table is valid")
}

/// Reads a special-room table from RON text (a list, as `fixtures/isaac/special_rooms.ron`);
/// `file` names it in errors.
///
/// # Examples
/// ```
/// use levelplan::recipes::isaac::special_rooms_from_ron;
/// let table = special_rooms_from_ron(
///     "[(kind: Reward, chance: 1.0, chance_if: None, requires: None, min_level: 1)]",
///     "mine.ron",
/// )?;
/// assert_eq!(table.len(), 1);
/// assert!(special_rooms_from_ron("[(kind: Reward)]", "mine.ron").is_err());
/// # Ok::<(), levelplan::recipes::isaac::IsaacError>(())
/// ```
pub fn special_rooms_from_ron(text: &str, file: &str) -> Result<Vec<SpecialRoom>, IsaacError> {
    crate::data::from_ron(text, false).map_err(|e| IsaacError::SpecialRooms {
        file: file.to_string(),
        message: format!("{}:{}: {}", e.line, e.column, e.message),
    })
}

/// Pools of room designs by difficulty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomPools {
    /// Easy designs.
    pub easy: Vec<String>,
    /// Medium designs.
    pub medium: Vec<String>,
    /// Hard designs.
    pub hard: Vec<String>,
}

impl RoomPools {
    /// The built-in pools (`fixtures/isaac/rooms.ron`).
    pub fn builtin() -> RoomPools {
        let options = ron::Options::default();
        options
            .from_str(include_str!("../../fixtures/isaac/rooms.ron"))
            .expect("the built-in room pools are valid RON")
    }

    /// Reads pools from RON text; `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<RoomPools, IsaacError> {
        crate::data::from_ron(text, false).map_err(|e| IsaacError::Pools {
            file: file.to_string(),
            message: format!("{}:{}: {}", e.line, e.column, e.message),
        })
    }
}

/// How many rooms a floor of a given level wants: `random(spread) + floor(base + level ·
/// per_level)`, where `random(spread)` is a whole number in `0..spread` (the spec's
/// `random(2) + 5 + level * 2.6`: 7 or 8 rooms on level 1, 2 or 3 more per level).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoomCount {
    /// The constant part (5).
    pub base: f64,
    /// Rooms per level (2.6).
    pub per_level: f64,
    /// The random part is a whole number in `0..spread` (2).
    pub spread: u32,
}

impl RoomCount {
    /// The room count for `level`, drawing the random part from `rng`.
    pub fn draw<R: Rng + ?Sized>(&self, level: u32, rng: &mut R) -> usize {
        let random = seed::below(rng, u64::from(self.spread.max(1))) as f64;
        (random + self.base + f64::from(level) * self.per_level)
            .floor()
            .max(0.0) as usize
    }
}

/// The recipe's parameters; [`Default`] gives the spec's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsaacParams {
    /// Grid columns (9): cells have `x` in `1..=width`.
    pub width: i32,
    /// Grid rows (8): cells have `y` in `0..height`.
    pub height: i32,
    /// The start cell (`(5, 3)`, the original's cell 35).
    pub start: Cell,
    /// The room-count formula.
    pub room_count: RoomCount,
    /// Above this many rooms, the start cell is queued again whenever growth runs dry (16).
    pub requeue_above: usize,
    /// The special rooms, placed in this order on the dead ends left after the boss.
    pub special_rooms: Vec<SpecialRoom>,
    /// Rebirth's large rooms.
    pub large_rooms: bool,
    /// Chance that a new room tries a large shape instead of a single cell.
    pub large_room_chance: f64,
    /// Chance that the boss room tries a large shape.
    pub large_boss_chance: f64,
    /// The Curse of the Labyrinth: a double floor.
    pub labyrinth: bool,
    /// Most rooms a labyrinth floor may have (45).
    pub labyrinth_cap: usize,
    /// Condition flags for the special-room table.
    pub flags: BTreeSet<String>,
    /// Floors to generate before giving up (default: 10 000 attempts).
    pub retry: crate::layout::RetryPolicy,
    /// The room designs normal rooms are drawn from.
    pub pools: RoomPools,
}

impl Default for IsaacParams {
    fn default() -> IsaacParams {
        IsaacParams {
            width: 9,
            height: 8,
            start: (5, 3),
            room_count: RoomCount {
                base: 5.0,
                per_level: 2.6,
                spread: 2,
            },
            requeue_above: 16,
            special_rooms: default_special_rooms(),
            large_rooms: false,
            large_room_chance: 0.25,
            large_boss_chance: 0.5,
            labyrinth: false,
            labyrinth_cap: 45,
            flags: BTreeSet::new(),
            retry: crate::layout::RetryPolicy::Attempts(10_000),
            pools: RoomPools::builtin(),
        }
    }
}

/// A room of a floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FloorRoom {
    /// The room's id in [`Floor::graph`].
    pub id: RoomId,
    /// Its shape.
    pub shape: RoomShape,
    /// The top-left of its shape's bounding box.
    pub anchor: Cell,
    /// Its cells.
    pub cells: Vec<Cell>,
    /// What it is.
    pub kind: RoomKind,
    /// Its design, for normal rooms.
    pub design: Option<String>,
    /// Its steps from the start room.
    pub distance: u32,
}

/// A generated floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// The level (1 = the first floor).
    pub level: u32,
    /// The seed it came from.
    pub seed: u64,
    /// Grid columns and rows.
    pub size: (i32, i32),
    /// The room count the floor was grown to (the secret room, and the labyrinth's second
    /// boss room, come on top).
    pub room_target: usize,
    /// The rooms (the start first).
    pub rooms: Vec<FloorRoom>,
    /// The same floor as a level graph: one link per door (two large rooms side by side can be
    /// joined by two doors), secret rooms behind secret links.
    pub graph: LevelGraph,
    /// Dead ends in the order growth found them.
    pub dead_ends: Vec<RoomId>,
    /// Floors generated before this one passed validation.
    pub attempts: u32,
    /// Tries the secret-room search took.
    pub secret_tries: u32,
    /// How many rooms the secret room had to touch when it was placed (3, then 2, then 1).
    pub secret_needed: u32,
    /// Whether the start cell was queued again during growth.
    pub requeued: bool,
}

impl Floor {
    /// The room covering a cell.
    pub fn room_at(&self, cell: Cell) -> Option<&FloorRoom> {
        self.rooms.iter().find(|r| r.cells.contains(&cell))
    }

    /// The floor as text: one character per cell (`S` start, `B` boss, `T` treasure, `$` shop,
    /// `?` secret, `#` normal, `*` other special), doors as `-` and `|`, large rooms' inner
    /// joins as `=` and `"`.
    pub fn to_ascii(&self) -> String {
        let (w, h) = self.size;
        let mut canvas = vec![vec![' '; (2 * w + 1) as usize]; (2 * h + 1) as usize];
        let glyph = |r: &FloorRoom| match &r.kind {
            RoomKind::Entrance => 'S',
            RoomKind::Boss => 'B',
            RoomKind::Reward => 'T',
            RoomKind::Shop => '$',
            RoomKind::Secret => '?',
            RoomKind::Normal => '#',
            _ => '*',
        };
        for r in &self.rooms {
            for &(x, y) in &r.cells {
                canvas[(2 * y + 1) as usize][(2 * x - 1) as usize] = glyph(r);
                for d in [GridDir::Right, GridDir::Down] {
                    let n = step((x, y), d);
                    let (cx, cy) = match d {
                        GridDir::Right => (2 * x, 2 * y + 1),
                        _ => (2 * x - 1, 2 * y + 2),
                    };
                    let mark = if r.cells.contains(&n) {
                        Some(if d == GridDir::Right { '=' } else { '"' })
                    } else if self.door_between((x, y), d) {
                        Some(if d == GridDir::Right { '-' } else { '|' })
                    } else {
                        None
                    };
                    if let Some(m) = mark {
                        canvas[cy as usize][cx as usize] = m;
                    }
                }
            }
        }
        let mut out = String::new();
        for row in canvas.iter().skip(1).take((2 * h - 1) as usize) {
            let line: String = row.iter().collect();
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The floor as tiles: each grid cell is a room of [`ROOM_TILES`] (13 x 7 floor inside a
    /// wall), cells of one large room open into each other, and every door is a pair of door
    /// tiles through the two walls in the middle of the shared side (secret doors into the
    /// secret room). Each floor and door tile's region is its room's id.
    ///
    /// # Examples
    /// ```
    /// use levelplan::recipes::isaac::{generate, IsaacParams, ROOM_TILES};
    /// let floor = generate(2, 5, &IsaacParams::default())?;
    /// let map = floor.tile_map();
    /// assert_eq!(map.tiles.width(), 9 * ROOM_TILES.0);
    /// # Ok::<(), levelplan::recipes::isaac::IsaacError>(())
    /// ```
    pub fn tile_map(&self) -> TileMap {
        let (rw, rh) = (ROOM_TILES.0 as i64, ROOM_TILES.1 as i64);
        let (w, h) = (self.size.0 as usize, self.size.1 as usize);
        let mut map = TileMap::new(w * ROOM_TILES.0, h * ROOM_TILES.1);
        let origin = |(x, y): Cell| ((x as i64 - 1) * rw, y as i64 * rh);
        for r in &self.rooms {
            let region = Some(r.id.0);
            for &c in &r.cells {
                let (ox, oy) = origin(c);
                for ty in 0..rh {
                    for tx in 0..rw {
                        let edge = tx == 0 || ty == 0 || tx == rw - 1 || ty == rh - 1;
                        let tile = if edge { Tile::Wall } else { Tile::Floor };
                        map.put(ox + tx, oy + ty, tile, if edge { None } else { region });
                    }
                }
            }
            // Cells of one room open into each other (and the middle of a 2 x 2 room).
            for &c in &r.cells {
                let (ox, oy) = origin(c);
                if r.cells.contains(&step(c, GridDir::Right)) {
                    for ty in 1..rh - 1 {
                        map.put(ox + rw - 1, oy + ty, Tile::Floor, region);
                        map.put(ox + rw, oy + ty, Tile::Floor, region);
                    }
                }
                if r.cells.contains(&step(c, GridDir::Down)) {
                    for tx in 1..rw - 1 {
                        map.put(ox + tx, oy + rh - 1, Tile::Floor, region);
                        map.put(ox + tx, oy + rh, Tile::Floor, region);
                    }
                }
                let square = [GridDir::Right, GridDir::Down]
                    .iter()
                    .all(|&d| r.cells.contains(&step(c, d)))
                    && r.cells.contains(&(c.0 + 1, c.1 + 1));
                if square {
                    for (dx, dy) in [(rw - 1, rh - 1), (rw, rh - 1), (rw - 1, rh), (rw, rh)] {
                        map.put(ox + dx, oy + dy, Tile::Floor, region);
                    }
                }
            }
        }
        // Doors in the middle of shared sides.
        for r in &self.rooms {
            for &c in &r.cells {
                for d in [GridDir::Right, GridDir::Down] {
                    if !self.door_between(c, d) {
                        continue;
                    }
                    let other = self.room_at(step(c, d)).expect("door to a room");
                    let secret = r.kind == RoomKind::Secret || other.kind == RoomKind::Secret;
                    let tile = if secret { Tile::SecretDoor } else { Tile::Door };
                    let (ox, oy) = origin(c);
                    let (a, b) = match d {
                        GridDir::Right => ((ox + rw - 1, oy + rh / 2), (ox + rw, oy + rh / 2)),
                        _ => ((ox + rw / 2, oy + rh - 1), (ox + rw / 2, oy + rh)),
                    };
                    map.put(a.0, a.1, tile, Some(r.id.0));
                    map.put(b.0, b.1, tile, Some(other.id.0));
                }
            }
        }
        map
    }

    fn door_between(&self, cell: Cell, dir: GridDir) -> bool {
        let (Some(a), Some(b)) = (self.room_at(cell), self.room_at(step(cell, dir))) else {
            return false;
        };
        a.id != b.id && door_fits(a, cell, dir) && door_fits(b, step(cell, dir), dir.opposite())
    }
}

fn door_fits(room: &FloorRoom, cell: Cell, dir: GridDir) -> bool {
    let offset = (cell.0 - room.anchor.0, cell.1 - room.anchor.1);
    room.shape.has_exit(offset, dir)
}

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IsaacError {
    /// The parameters cannot work.
    #[error("invalid Isaac parameters: field `{field}`: {problem}")]
    Params {
        /// The field.
        field: &'static str,
        /// What is wrong and what would be valid.
        problem: String,
    },
    /// No floor passed validation within the attempt budget.
    #[error(
        "no valid floor in {attempts} attempts: the last failed because {reason}; lower the room count, enlarge the grid or remove guaranteed special rooms"
    )]
    NoFloor {
        /// Attempts made.
        attempts: u32,
        /// Why the last attempt failed.
        reason: String,
    },
    /// Room pools that could not be read.
    #[error("{file}: cannot read the room pools: {message}")]
    Pools {
        /// The file.
        file: String,
        /// What the parser said.
        message: String,
    },
    /// A special-room table that could not be read.
    #[error("{file}: cannot read the special-room table: {message}")]
    SpecialRooms {
        /// The file.
        file: String,
        /// What the parser said (line, column, what is wrong).
        message: String,
    },
}

/// A room under construction.
struct Plan {
    shape: RoomShape,
    anchor: Cell,
    kind: RoomKind,
    /// The room it grew from, and the door: (parent index, parent cell, direction).
    parent: Option<(usize, Cell, GridDir)>,
}

impl Plan {
    fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.shape
            .cells()
            .iter()
            .map(move |&(dx, dy)| (self.anchor.0 + dx, self.anchor.1 + dy))
    }
}

struct Grid<'p> {
    params: &'p IsaacParams,
    owner: Vec<Option<usize>>,
    rooms: Vec<Plan>,
}

impl Grid<'_> {
    fn in_bounds(&self, (x, y): Cell) -> bool {
        x >= 1 && x <= self.params.width && y >= 0 && y < self.params.height
    }

    fn slot(&self, (x, y): Cell) -> usize {
        (y * (self.params.width + 1) + x) as usize
    }

    fn at(&self, c: Cell) -> Option<usize> {
        if self.in_bounds(c) {
            self.owner[self.slot(c)]
        } else {
            None
        }
    }

    fn free(&self, c: Cell) -> bool {
        self.in_bounds(c) && self.at(c).is_none()
    }

    /// Occupied cells next to `c`.
    fn neighbours(&self, c: Cell) -> usize {
        GridDir::ALL
            .iter()
            .filter(|&&d| self.at(step(c, d)).is_some())
            .count()
    }

    /// Distinct rooms next to `c` (at most four), and how many.
    fn neighbour_rooms(&self, c: Cell) -> ([usize; 4], usize) {
        let mut v = [usize::MAX; 4];
        let mut n = 0;
        for d in GridDir::ALL {
            if let Some(r) = self.at(step(c, d)) {
                if !v[..n].contains(&r) {
                    v[n] = r;
                    n += 1;
                }
            }
        }
        (v, n)
    }

    fn place(&mut self, plan: Plan) -> usize {
        let i = self.rooms.len();
        let cells: Vec<Cell> = plan.cells().collect();
        for c in cells {
            let s = self.slot(c);
            self.owner[s] = Some(i);
        }
        self.rooms.push(plan);
        i
    }

    /// Whether room `r` has a door slot on cell `c` towards `d`.
    fn has_exit(&self, r: usize, c: Cell, d: GridDir) -> bool {
        let p = &self.rooms[r];
        p.shape.has_exit((c.0 - p.anchor.0, c.1 - p.anchor.1), d)
    }
}

/// Generates a floor for `level` from `seed` (the `"isaac"` sub-stream).
///
/// # Errors
/// [`IsaacError::Params`] for parameters that cannot work (a start outside the grid, a grid
/// too small for the room count); [`IsaacError::NoFloor`] when no floor passes validation
/// within the `retry` budget.
///
/// # Examples
/// ```
/// use levelplan::recipes::isaac::{generate, IsaacParams};
/// use levelplan::RoomKind;
///
/// let floor = generate(1, 42, &IsaacParams::default())?;
/// assert!((7..=8).contains(&(floor.rooms.len() - 1))); // plus the secret room
/// assert_eq!(floor.graph.rooms_of_kind(&RoomKind::Boss).count(), 1);
/// println!("{}", floor.to_ascii());
/// # Ok::<(), levelplan::recipes::isaac::IsaacError>(())
/// ```
pub fn generate(level: u32, seed: u64, params: &IsaacParams) -> Result<Floor, IsaacError> {
    let mut rng = seed::stream(seed, "isaac");
    let mut floor = generate_with(level, &mut rng, params)?;
    floor.seed = seed;
    Ok(floor)
}

/// [`generate`] drawing from the caller's generator (the floor's `seed` field is left 0).
pub fn generate_with<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
) -> Result<Floor, IsaacError> {
    check_params(params)?;
    let pools = &params.pools;
    let mut reason = String::new();
    let mut made = 0;
    for attempt in params.retry.attempts() {
        made = attempt;
        match attempt_floor(level, rng, params) {
            Ok((mut grid, dead_ends, requeued)) => {
                let target = grid.rooms.len();
                match finish(level, rng, params, &mut grid, dead_ends) {
                    Ok((dead, secret_tries, secret_needed)) => {
                        let mut floor =
                            build_floor(level, rng, params, &grid, &dead, pools, attempt);
                        floor.secret_tries = secret_tries;
                        floor.secret_needed = secret_needed;
                        floor.requeued = requeued;
                        floor.room_target = target;
                        return Ok(floor);
                    }
                    Err(r) => reason = r,
                }
            }
            Err(r) => reason = r,
        }
    }
    Err(IsaacError::NoFloor {
        attempts: made,
        reason,
    })
}

fn check_params(p: &IsaacParams) -> Result<(), IsaacError> {
    if p.width < 2 || p.height < 2 || p.width > 64 || p.height > 64 {
        return Err(IsaacError::Params {
            field: "width/height",
            problem: format!(
                "the grid is {} x {}; both sides must be between 2 and 64",
                p.width, p.height
            ),
        });
    }
    let (x, y) = p.start;
    if x < 1 || x > p.width || y < 0 || y >= p.height {
        return Err(IsaacError::Params {
            field: "start",
            problem: format!(
                "({x}, {y}) is outside the grid; x must be in 1..={} and y in 0..{}",
                p.width, p.height
            ),
        });
    }
    for (field, v) in [
        ("large_room_chance", p.large_room_chance),
        ("large_boss_chance", p.large_boss_chance),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(IsaacError::Params {
                field,
                problem: format!("is {v}; it must be a probability between 0 and 1"),
            });
        }
    }
    if !(p.room_count.base.is_finite() && p.room_count.per_level.is_finite()) {
        return Err(IsaacError::Params {
            field: "room_count",
            problem: "every part of the formula must be a finite number".into(),
        });
    }
    Ok(())
}

/// Growth and validation; returns the grid, the dead ends in order, and whether the start was
/// queued again.
fn attempt_floor<'p, R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &'p IsaacParams,
) -> Result<(Grid<'p>, Vec<usize>, bool), String> {
    let base = params.room_count.draw(level, rng);
    let cells = (params.width * params.height) as usize;
    let wanted = if params.labyrinth {
        ((base as f64 * 1.8) as usize).min(params.labyrinth_cap)
    } else {
        base
    }
    .clamp(1, cells);
    let mut grid = Grid {
        params,
        owner: vec![None; ((params.width + 1) * params.height) as usize],
        rooms: Vec::new(),
    };
    let start = grid.place(Plan {
        shape: RoomShape::Single,
        anchor: params.start,
        kind: RoomKind::Entrance,
        parent: None,
    });
    let mut pool: Vec<RoomShape> = RoomShape::LARGE.to_vec();
    let mut queue = VecDeque::from([start]);
    let mut dead_ends = Vec::new();
    let mut requeues = 0;
    while let Some(r) = queue.pop_front() {
        let mut created = false;
        let (shape, anchor) = (grid.rooms[r].shape, grid.rooms[r].anchor);
        // Door slots in cell order, directions in growth order (no allocation: this runs for
        // every room of every attempt).
        let slots = shape
            .cells()
            .iter()
            .flat_map(|&c| GridDir::ALL.map(|d| (c, d)))
            .filter(|&(c, d)| shape.has_exit(c, d))
            .map(|((dx, dy), d)| ((anchor.0 + dx, anchor.1 + dy), d));
        for (cell, dir) in slots {
            let target = step(cell, dir);
            if !grid.free(target)
                || grid.neighbours(target) > 1
                || grid.rooms.len() >= wanted
                || seed::chance(rng, 0.5)
            {
                continue;
            }
            let plan = if params.large_rooms && seed::chance(rng, params.large_room_chance) {
                large_plan(&grid, rng, &mut pool, target, dir, (r, cell))
            } else {
                None
            };
            let plan = plan.unwrap_or(Plan {
                shape: RoomShape::Single,
                anchor: target,
                kind: RoomKind::Normal,
                parent: Some((r, cell, dir)),
            });
            let i = grid.place(plan);
            queue.push_back(i);
            created = true;
        }
        if !created && r != start {
            dead_ends.push(r);
        }
        // Queue the start again while it can still grow (a start whose every side is taken or
        // blocked by the neighbour rule would only spin: it draws no coin, so skipping it
        // changes nothing).
        let start_can_grow = || {
            GridDir::ALL.iter().any(|&d| {
                let t = step(params.start, d);
                grid.free(t) && grid.neighbours(t) <= 1
            })
        };
        if queue.is_empty()
            && grid.rooms.len() < wanted
            && wanted > params.requeue_above
            && requeues < 64
            && start_can_grow()
        {
            queue.push_back(start);
            requeues += 1;
        }
    }
    if params.labyrinth {
        // Extra normal rooms, placed like secret rooms, until the count is met.
        while grid.rooms.len() < wanted {
            let dead: Vec<usize> = dead_ends.clone();
            match scored_cell(&grid, rng, &dead, 3) {
                Some((cell, _, _)) => {
                    grid.place(Plan {
                        shape: RoomShape::Single,
                        anchor: cell,
                        kind: RoomKind::Normal,
                        parent: None,
                    });
                }
                None => break,
            }
        }
    }
    if grid.rooms.len() != wanted {
        return Err(format!(
            "growth made {} rooms, not {wanted}",
            grid.rooms.len()
        ));
    }
    // A large room placed later may have touched a dead end: it is a dead end no more.
    dead_ends.retain(|&r| door_count(&grid, r) == 1);
    let Some(&boss) = dead_ends.last() else {
        return Err("there is no dead end for the boss".into());
    };
    let start_cell = params.start;
    let touches_start = grid.rooms[boss]
        .cells()
        .any(|c| GridDir::ALL.iter().any(|&d| step(c, d) == start_cell));
    if touches_start {
        return Err("the boss room is next to the start".into());
    }
    Ok((grid, dead_ends, requeues > 0))
}

/// Tries to place a large room whose cell `target` gets the door from `parent` (entering in
/// direction `dir`). Candidates are drawn from the pool at random; a placed shape leaves the
/// pool with probability 95%.
fn large_plan<R: Rng + ?Sized>(
    grid: &Grid<'_>,
    rng: &mut R,
    pool: &mut Vec<RoomShape>,
    target: Cell,
    dir: GridDir,
    parent: (usize, Cell),
) -> Option<Plan> {
    let mut order: Vec<usize> = (0..pool.len()).collect();
    seed::shuffle(rng, &mut order);
    for i in order {
        let shape = pool[i];
        let mut offsets: Vec<Cell> = shape.cells().to_vec();
        seed::shuffle(rng, &mut offsets);
        for off in offsets {
            // The door enters this cell of the shape from the parent's side.
            if !shape.has_exit(off, dir.opposite()) {
                continue;
            }
            let anchor = (target.0 - off.0, target.1 - off.1);
            let fits = shape
                .cells()
                .iter()
                .all(|&(dx, dy)| grid.free((anchor.0 + dx, anchor.1 + dy)));
            if fits {
                if seed::chance(rng, 0.95) {
                    pool.swap_remove(i);
                }
                return Some(Plan {
                    shape,
                    anchor,
                    kind: RoomKind::Normal,
                    parent: Some((parent.0, parent.1, dir)),
                });
            }
        }
    }
    None
}

/// A random empty cell touching at least `needed` rooms and no dead end, with the spec's
/// relaxations: 300 tries at `needed`, 300 at `needed - 1`, then at `needed - 2` (at least 1);
/// every neighbouring room must have a door slot towards the cell. After 900 tries the grid
/// is scanned in a random order. Returns the cell, the tries and the requirement it met.
fn scored_cell<R: Rng + ?Sized>(
    grid: &Grid<'_>,
    rng: &mut R,
    dead_ends: &[usize],
    needed: usize,
) -> Option<(Cell, u32, u32)> {
    let p = grid.params;
    // The grid does not change during the search: score every cell once. A cell's score is
    // the number of rooms it touches, if it is free, touches no dead end and every room it
    // touches has a door slot towards it; `None` otherwise.
    let w = p.width as usize;
    let score: Vec<Option<usize>> = (0..p.height)
        .flat_map(|y| (1..=p.width).map(move |x| (x, y)))
        .map(|c| {
            if !grid.free(c) {
                return None;
            }
            let (around, count) = grid.neighbour_rooms(c);
            let fits = around[..count].iter().all(|r| !dead_ends.contains(r))
                && GridDir::ALL.iter().all(|&d| {
                    let n = step(c, d);
                    grid.at(n).is_none_or(|r| grid.has_exit(r, n, d.opposite()))
                });
            fits.then_some(count)
        })
        .collect();
    let ok = |(x, y): Cell, need: usize| {
        score[y as usize * w + (x - 1) as usize].is_some_and(|count| count >= need)
    };
    let need_at = |tries: u32| match tries {
        0..300 => needed,
        300..600 => needed.saturating_sub(1).max(1),
        _ => needed.saturating_sub(2).max(1),
    };
    for tries in 0..900u32 {
        let c = (
            1 + seed::below(rng, p.width as u64) as i32,
            seed::below(rng, p.height as u64) as i32,
        );
        let need = need_at(tries);
        if ok(c, need) {
            return Some((c, tries + 1, need as u32));
        }
    }
    let mut all: Vec<Cell> = (0..p.height)
        .flat_map(|y| (1..=p.width).map(move |x| (x, y)))
        .collect();
    seed::shuffle(rng, &mut all);
    all.into_iter().find(|&c| ok(c, 1)).map(|c| (c, 900, 1))
}

/// Boss, large boss, labyrinth's second boss, secret room, special rooms. Returns the dead
/// ends, the secret search's tries and requirement.
fn finish<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
    grid: &mut Grid<'_>,
    mut dead_ends: Vec<usize>,
) -> Result<(Vec<usize>, u32, u32), String> {
    let boss = *dead_ends.last().expect("validated");
    grid.rooms[boss].kind = RoomKind::Boss;
    if params.large_rooms && seed::chance(rng, params.large_boss_chance) {
        large_boss(grid, rng, &dead_ends);
    }
    if params.labyrinth {
        // A second boss room next to the first, touching nothing else.
        let cells: Vec<Cell> = grid.rooms[boss].cells().collect();
        let spot = cells
            .iter()
            .flat_map(|&c| GridDir::ALL.map(|d| (c, d)))
            .find(|&(c, d)| {
                let n = step(c, d);
                let (around, count) = grid.neighbour_rooms(n);
                grid.free(n) && count == 1 && around[0] == boss && grid.has_exit(boss, c, d)
            });
        let Some((c, d)) = spot else {
            return Err("there is no room for the second boss room".into());
        };
        let i = grid.place(Plan {
            shape: RoomShape::Single,
            anchor: step(c, d),
            kind: RoomKind::Boss,
            parent: Some((boss, c, d)),
        });
        dead_ends.push(i);
    }
    // Special rooms on the remaining dead ends (the six farthest under the labyrinth).
    // Special rooms are single cells.
    let mut free: Vec<usize> = dead_ends
        .iter()
        .copied()
        .filter(|&r| {
            grid.rooms[r].kind == RoomKind::Normal && grid.rooms[r].shape == RoomShape::Single
        })
        .collect();
    if params.labyrinth {
        let dist = room_distances(grid);
        free.sort_by_key(|&r| std::cmp::Reverse(dist[r]));
        free.truncate(6);
        free.sort_unstable();
    }
    let copies = if params.labyrinth { 2 } else { 1 };
    for special in &params.special_rooms {
        for _ in 0..copies {
            if level < special.min_level
                || special
                    .requires
                    .as_ref()
                    .is_some_and(|f| !params.flags.contains(f))
            {
                continue;
            }
            let chance = match &special.chance_if {
                Some((flag, c)) if params.flags.contains(flag) => *c,
                _ => special.chance,
            };
            if !seed::chance(rng, chance) {
                continue;
            }
            if free.is_empty() {
                if special.guaranteed() {
                    return Err(format!("no dead end is left for the {} room", special.kind));
                }
                continue;
            }
            let r = free.remove(seed::index(rng, free.len()));
            grid.rooms[r].kind = special.kind.clone();
        }
    }
    let Some((cell, tries, needed)) = scored_cell(grid, rng, &dead_ends, 3) else {
        return Err("there is no cell for the secret room".into());
    };
    grid.place(Plan {
        shape: RoomShape::Single,
        anchor: cell,
        kind: RoomKind::Secret,
        parent: None,
    });
    Ok((dead_ends, tries, needed))
}

/// How many doors room `r` has (one per neighbouring cell pair with door slots on both sides).
fn door_count(grid: &Grid<'_>, r: usize) -> usize {
    let cells: Vec<Cell> = grid.rooms[r].cells().collect();
    cells
        .iter()
        .flat_map(|&c| GridDir::ALL.map(|d| (c, d)))
        .filter(|&(c, d)| {
            let n = step(c, d);
            grid.at(n).is_some_and(|o| {
                o != r && grid.has_exit(r, c, d) && grid.has_exit(o, n, d.opposite())
            })
        })
        .count()
}

/// Steps from the start room to every room, over doors.
fn room_distances(grid: &Grid<'_>) -> Vec<u32> {
    let n = grid.rooms.len();
    let mut dist = vec![u32::MAX; n];
    dist[0] = 0;
    let mut queue = VecDeque::from([0usize]);
    while let Some(r) = queue.pop_front() {
        let cells: Vec<Cell> = grid.rooms[r].cells().collect();
        for c in cells {
            for d in GridDir::ALL {
                let nc = step(c, d);
                if let Some(o) = grid.at(nc) {
                    if o != r
                        && dist[o] == u32::MAX
                        && grid.has_exit(r, c, d)
                        && grid.has_exit(o, nc, d.opposite())
                    {
                        dist[o] = dist[r] + 1;
                        queue.push_back(o);
                    }
                }
            }
        }
    }
    dist
}

/// Replaces the boss room with a large shape where one fits without touching other rooms: on
/// the boss's own dead end, else on another dead end at the same (maximal) distance.
fn large_boss<R: Rng + ?Sized>(grid: &mut Grid<'_>, rng: &mut R, dead_ends: &[usize]) {
    let boss = *dead_ends.last().expect("validated");
    let dist = room_distances(grid);
    let far = dist[boss];
    let mut candidates: Vec<usize> = vec![boss];
    candidates.extend(
        dead_ends
            .iter()
            .copied()
            .filter(|&r| r != boss && dist[r] == far && grid.rooms[r].shape == RoomShape::Single),
    );
    for r in candidates {
        if grid.rooms[r].shape != RoomShape::Single {
            continue;
        }
        let Some((parent, pcell, dir)) = grid.rooms[r].parent else {
            continue;
        };
        let cell = grid.rooms[r].anchor;
        let mut shapes = [RoomShape::Big, RoomShape::Wide, RoomShape::Tall];
        seed::shuffle(rng, &mut shapes);
        for shape in shapes {
            for &off in shape.cells() {
                if !shape.has_exit(off, dir.opposite()) {
                    continue;
                }
                let anchor = (cell.0 - off.0, cell.1 - off.1);
                let new: Vec<Cell> = shape
                    .cells()
                    .iter()
                    .map(|&(dx, dy)| (anchor.0 + dx, anchor.1 + dy))
                    .collect();
                // Every new cell is free and touches no room but this one.
                let fits = new.iter().filter(|&&c| c != cell).all(|&c| {
                    grid.free(c)
                        && GridDir::ALL.iter().all(|&d| {
                            let n = step(c, d);
                            new.contains(&n) || grid.at(n).is_none()
                        })
                });
                if fits {
                    for c in &new {
                        let s = grid.slot(*c);
                        grid.owner[s] = Some(r);
                    }
                    let room = &mut grid.rooms[r];
                    room.shape = shape;
                    room.anchor = anchor;
                    room.parent = Some((parent, pcell, dir));
                    if r != boss {
                        grid.rooms[boss].kind = RoomKind::Normal;
                        grid.rooms[r].kind = RoomKind::Boss;
                    }
                    return;
                }
            }
        }
    }
}

/// The floor: rooms in placement order, their designs, and the level graph.
fn build_floor<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
    grid: &Grid<'_>,
    dead_ends: &[usize],
    pools: &RoomPools,
    attempts: u32,
) -> Floor {
    let mut graph = LevelGraph::new();
    let ids: Vec<RoomId> = grid
        .rooms
        .iter()
        .map(|p| graph.add_room(Room::new(p.kind.clone())))
        .collect();
    // Designs: the first floor of a chapter (odd levels) draws easy and medium rooms, the
    // second (even levels) medium and hard; the labyrinth draws from all three.
    let (a, b, c): (&[String], &[String], &[String]) = if params.labyrinth {
        (&pools.easy, &pools.medium, &pools.hard)
    } else if level % 2 == 1 {
        (&pools.easy, &pools.medium, &[])
    } else {
        (&pools.medium, &pools.hard, &[])
    };
    let choices: Vec<(&str, &String)> = a
        .iter()
        .map(|d| (difficulty(pools, d), d))
        .chain(b.iter().map(|d| (difficulty(pools, d), d)))
        .chain(c.iter().map(|d| (difficulty(pools, d), d)))
        .collect();
    // Doors: every pair of neighbouring cells of different rooms with door slots on both
    // sides; the link a room grew through is its tree link.
    let mut seen: BTreeSet<(usize, usize, Cell, GridDir)> = BTreeSet::new();
    for (i, p) in grid.rooms.iter().enumerate() {
        if let Some((parent, cell, dir)) = p.parent {
            let kind = link_kind(p);
            graph.add_link(ids[parent], ids[i], Link::new(kind));
            seen.insert((parent, i, cell, dir));
        }
    }
    for (i, p) in grid.rooms.iter().enumerate() {
        for c in p.cells() {
            for d in [GridDir::Right, GridDir::Down, GridDir::Left, GridDir::Up] {
                let n = step(c, d);
                let Some(o) = grid.at(n) else { continue };
                if o == i || !grid.has_exit(i, c, d) || !grid.has_exit(o, n, d.opposite()) {
                    continue;
                }
                let (lo, hi, cell, dir) = if i < o {
                    (i, o, c, d)
                } else {
                    (o, i, n, d.opposite())
                };
                let tree = grid.rooms[hi].parent == Some((lo, cell, dir));
                if tree || !seen.insert((lo, hi, cell, dir)) {
                    continue;
                }
                let kind = if grid.rooms[lo].kind == RoomKind::Secret {
                    link_kind(&grid.rooms[lo])
                } else {
                    link_kind(&grid.rooms[hi])
                };
                graph.add_link(ids[lo], ids[hi], Link::new(kind).with_role(LinkRole::Loop));
            }
        }
    }
    let dist = distances_from(&graph, ids[0]);
    let rooms = grid
        .rooms
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let design = (p.kind == RoomKind::Normal && !choices.is_empty()).then(|| {
                let (diff, name) = choices[seed::index(rng, choices.len())];
                if let Some(room) = graph.room_mut(ids[i]) {
                    room.tags.insert(diff.to_string());
                }
                name.clone()
            });
            FloorRoom {
                id: ids[i],
                shape: p.shape,
                anchor: p.anchor,
                cells: p.cells().collect(),
                kind: p.kind.clone(),
                design,
                distance: dist.get(&ids[i]).copied().unwrap_or(u32::MAX),
            }
        })
        .collect();
    Floor {
        level,
        seed: 0,
        size: (params.width, params.height),
        room_target: 0,
        rooms,
        graph,
        dead_ends: dead_ends.iter().map(|&r| ids[r]).collect(),
        attempts,
        secret_tries: 0,
        secret_needed: 0,
        requeued: false,
    }
}

fn link_kind(room: &Plan) -> LinkKind {
    if room.kind == RoomKind::Secret {
        LinkKind::Secret
    } else {
        LinkKind::Door
    }
}

fn difficulty(pools: &RoomPools, design: &String) -> &'static str {
    if pools.easy.contains(design) {
        "easy"
    } else if pools.medium.contains(design) {
        "medium"
    } else {
        "hard"
    }
}

/// The Isaac recipe prepared for one floor level: a [`crate::Recipe`].
#[derive(Debug, Clone, PartialEq)]
pub struct IsaacRecipe {
    /// The floor level (1 = the first).
    pub level: u32,
    /// The parameters.
    pub params: IsaacParams,
}

impl IsaacRecipe {
    /// The recipe for floor `level` with `params`.
    pub fn new(level: u32, params: IsaacParams) -> IsaacRecipe {
        IsaacRecipe { level, params }
    }
}

impl Floor {
    /// This floor as the crate's one [`crate::Level`] shape, with its proof of completion.
    pub fn into_level(self) -> Result<crate::Level, crate::graph::solve::Unsolvable> {
        let walkthrough = crate::graph::solve::solve(&self.graph)?;
        let regions = self
            .rooms
            .iter()
            .map(|r| r.id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        let mut region_rooms = vec![None; regions];
        for r in &self.rooms {
            // The tile map's region of a room is its id.
            region_rooms[r.id.0 as usize] = Some(r.id);
        }
        let tiles = self.tile_map();
        Ok(crate::Level {
            recipe: "isaac".to_string(),
            seed: self.seed,
            attempts: self.attempts,
            start: walkthrough.start,
            goal: walkthrough.goal,
            walkthrough,
            tiles,
            region_rooms,
            layout: None,
            tile_origin: (0, 0),
            stairs: None,
            detail: crate::LevelDetail::Isaac {
                level: self.level,
                size: self.size,
                rooms: self
                    .rooms
                    .iter()
                    .map(|r| crate::GridRoom {
                        room: r.id,
                        shape: format!("{:?}", r.shape),
                        cells: r.cells.clone(),
                        design: r.design.clone(),
                        distance: r.distance,
                    })
                    .collect(),
            },
            graph: self.graph,
        })
    }
}

impl crate::Recipe for IsaacRecipe {
    fn name(&self) -> &'static str {
        "isaac"
    }

    fn generate(&self, seed: u64) -> Result<crate::Level, crate::RecipeError> {
        let floor = generate(self.level, seed, &self.params)
            .map_err(|e| crate::RecipeError::failed("isaac", e))?;
        floor
            .into_level()
            .map_err(|source| crate::RecipeError::Unsolvable {
                recipe: "isaac",
                source,
            })
    }
}
