//! The finished floor: rooms on the grid, its graph, its tile map and text picture, and its
//! `Level`.

use serde::{Deserialize, Serialize};

use super::*;
use crate::graph::{LevelGraph, LinkKind, RoomId, RoomKind};
use crate::tiles::{Tile, TileMap};

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
    /// Its steps from the start room, walked without passing through the secret room (the
    /// secret room itself: one step beyond its nearest neighbour).
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
        for (r, other, a, b) in self.door_tiles() {
            let secret = self
                .rooms
                .iter()
                .any(|f| (f.id == r || f.id == other) && f.kind == RoomKind::Secret);
            let tile = if secret { Tile::SecretDoor } else { Tile::Door };
            map.put(a.0 as i64, a.1 as i64, tile, Some(r.0));
            map.put(b.0 as i64, b.1 as i64, tile, Some(other.0));
        }
        map
    }

    /// Every door of the floor: the two rooms (the one left of or above the door first) and
    /// the door's tile in each room's wall.
    fn door_tiles(&self) -> Vec<(RoomId, RoomId, crate::TilePos, crate::TilePos)> {
        let (rw, rh) = (ROOM_TILES.0 as i64, ROOM_TILES.1 as i64);
        let origin = |(x, y): Cell| ((x as i64 - 1) * rw, y as i64 * rh);
        let mut out = Vec::new();
        for r in &self.rooms {
            for &c in &r.cells {
                for d in [GridDir::Right, GridDir::Down] {
                    if !self.door_between(c, d) {
                        continue;
                    }
                    let Some(other) = self.room_at(step(c, d)) else {
                        continue;
                    };
                    let (ox, oy) = origin(c);
                    let (a, b) = match d {
                        GridDir::Right => ((ox + rw - 1, oy + rh / 2), (ox + rw, oy + rh / 2)),
                        _ => ((ox + rw / 2, oy + rh - 1), (ox + rw / 2, oy + rh)),
                    };
                    out.push((
                        r.id,
                        other.id,
                        (a.0 as usize, a.1 as usize),
                        (b.0 as usize, b.1 as usize),
                    ));
                }
            }
        }
        out
    }

    pub(super) fn door_between(&self, cell: Cell, dir: GridDir) -> bool {
        let (Some(a), Some(b)) = (self.room_at(cell), self.room_at(step(cell, dir))) else {
            return false;
        };
        a.id != b.id && door_fits(a, cell, dir) && door_fits(b, step(cell, dir), dir.opposite())
    }
}

pub(super) fn door_fits(room: &FloorRoom, cell: Cell, dir: GridDir) -> bool {
    let offset = (cell.0 - room.anchor.0, cell.1 - room.anchor.1);
    room.shape.has_exit(offset, dir)
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
        // One passage per link: a pair of rooms joined by two doors has two links, and each
        // door is one of them (the k-th door of a pair is its k-th link).
        let mut links_of: std::collections::BTreeMap<(RoomId, RoomId), Vec<crate::LinkId>> =
            std::collections::BTreeMap::new();
        for (id, a, b, _) in self.graph.links() {
            links_of.entry((a.min(b), a.max(b))).or_default().push(id);
        }
        let mut used: std::collections::BTreeMap<(RoomId, RoomId), usize> =
            std::collections::BTreeMap::new();
        let mut passages: std::collections::BTreeMap<crate::LinkId, crate::view::Passage> =
            std::collections::BTreeMap::new();
        for (r, other, a, b) in self.door_tiles() {
            let pair = (r.min(other), r.max(other));
            let Some(links) = links_of.get(&pair) else {
                continue;
            };
            let k = used.entry(pair).or_default();
            let link = links[(*k).min(links.len() - 1)];
            *k += 1;
            let secret = self.graph.link(link).map(|l| l.kind) == Some(LinkKind::Secret);
            let passage = passages
                .entry(link)
                .or_insert_with(|| crate::view::Passage {
                    link,
                    tiles: Vec::new(),
                    kind: if secret {
                        crate::DoorKind::Secret
                    } else {
                        crate::DoorKind::Plain
                    },
                });
            passage.tiles.extend([a, b]);
        }
        let mut level = crate::Level {
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
            start_tile: None,
            goal_tile: None,
            rooms: Vec::new(),
            doors: Vec::new(),
            warps: Vec::new(),
            items: Vec::new(),
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
        };
        // Each room's tiles lie in the tiles of its cells.
        let (rw, rh) = ROOM_TILES;
        let room_boxes = self
            .rooms
            .iter()
            .filter_map(|r| {
                let xs = r
                    .cells
                    .iter()
                    .map(|c| (c.0 as usize).saturating_sub(1) * rw);
                let ys = r.cells.iter().map(|c| c.1 as usize * rh);
                let (x0, y0) = (xs.clone().min()?, ys.clone().min()?);
                let (x1, y1) = (xs.max()? + rw - 1, ys.max()? + rh - 1);
                Some((r.id, [x0, y0, x1, y1]))
            })
            .collect();
        crate::view::attach(
            &mut level,
            crate::view::ViewParts {
                passages: passages.into_values().collect(),
                room_boxes: Some(room_boxes),
                ..Default::default()
            },
        );
        Ok(level)
    }
}
