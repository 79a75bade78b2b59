//! The Cathedral (levels 1 to 4): chambers and a hallway, rooms budded off them recursively,
//! marching squares into walls, dividing walls with doors, then the stairs.
//!
//! 1. Area threshold by level: 533, 693, then 761 cells.
//! 2. `first_room` until the blank reaches the threshold: one to three 10 x 10 chambers on a
//!    hallway (horizontal or vertical), then `bud` from every chamber.
//! 3. Marching squares ([`MarchingTable::cathedral`]) turn the blank into floor and the walls
//!    above and left of rooms; a fix pass walls the right and bottom edges.
//! 4. The chambers get their pillars and the hallway its arches; chambers are kept free of
//!    dividing walls.
//! 5. `add_walls`: straight dividing walls across the budded blobs, each with a door (or an
//!    arch; a quarter of them fences), so every part stays reachable.
//! 6. Stairs up and down as mini-sets on open floor; if either finds no place, or the level
//!    is not in one piece (the lockout check), start over.

use rand::Rng;

use super::{Stage, finish_stage};
use crate::seed;
use crate::tiles::convert::MarchingTable;
use crate::tiles::miniset::{Miniset, MinisetSpec};
use crate::tiles::regions::{find_regions, fully_connected};
use crate::tiles::{Grid, Tile};

/// The logical map's side (the game's 40 x 40).
pub const SIZE: usize = 40;

/// The blank's area threshold for a level: 533 on level 1, 693 on level 2, 761 after.
pub fn area_threshold(level: u32) -> usize {
    match level {
        0 | 1 => 533,
        2 => 693,
        _ => 761,
    }
}

/// A rectangle `(x, y, w, h)` on the logical map.
type Rect = (i64, i64, i64, i64);

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CathedralError {
    /// No blank passed every check within the budget.
    #[error("no Cathedral level in {attempts} attempts: the last failed because {reason}")]
    NoLevel {
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        reason: String,
    },
}

/// Generates Cathedral level `level` (1 to 4) from `seed` (the `"cathedral"` sub-stream).
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::cathedral;
/// let stage = cathedral::generate(1, 7)?;
/// assert!(levelplan::graph::solve::solve(&stage.graph).is_ok());
/// println!("{}", stage.tiles.to_ascii());
/// # Ok::<(), levelplan::recipes::diablo::cathedral::CathedralError>(())
/// ```
pub fn generate(level: u32, seed: u64) -> Result<Stage, CathedralError> {
    let mut rng = seed::stream(seed, "cathedral");
    let threshold = area_threshold(level);
    let mut reason = String::new();
    const ATTEMPTS: u32 = 200;
    for attempt in 1..=ATTEMPTS {
        // Step 2: bud until the blank is big enough (each try starts from nothing).
        let mut tries = 0;
        let (blank, chambers, hall) = loop {
            tries += 1;
            let (blank, chambers, hall) = first_room(&mut rng);
            let area = blank.values().iter().filter(|&&b| b).count();
            if area >= threshold || tries >= 1000 {
                break (blank, chambers, hall);
            }
        };
        if blank.values().iter().filter(|&&b| b).count() < threshold {
            reason = format!("no blank reached {threshold} cells in 1000 tries");
            continue;
        }
        // Step 3: marching squares, then wall the right and bottom edges.
        let mut tiles = MarchingTable::cathedral().convert(&blank);
        close_edges(&mut tiles);
        // Step 4: chambers and hallway.
        let mut protected = Grid::new(SIZE, SIZE, false);
        for &(x, y, w, h) in &chambers {
            for py in y..y + h {
                for px in x..x + w {
                    protected.set(px, py, true);
                }
            }
            for (dx, dy) in [(3, 3), (6, 3), (3, 6), (6, 6)] {
                tiles.set(x + dx, y + dy, Tile::Pillar);
            }
        }
        let (hx, hy, hw, hh) = hall;
        let vertical = hh > hw;
        for i in 0..hw.max(hh) {
            for off in [1, hw.min(hh) - 2] {
                let (px, py) = if vertical {
                    (hx + off, hy + i)
                } else {
                    (hx + i, hy + off)
                };
                if !protected.get(px, py).copied().unwrap_or(true)
                    && tiles.get(px, py) == Some(&Tile::Floor)
                {
                    tiles.set(px, py, Tile::Arch);
                }
            }
        }
        // Step 5: dividing walls.
        add_walls(&mut tiles, &mut protected, &mut rng);
        // Step 6: stairs.
        let stairs = |name: &str, tile: char| -> Miniset {
            let spec = MinisetSpec {
                name: name.into(),
                search: vec!["...".into(); 3],
                replace: vec!["???".into(), format!("?{tile}?"), "???".into()],
                protect: true,
            };
            Miniset::new(&spec, "cathedral").expect("a valid built-in mini-set")
        };
        let total = SIZE * SIZE;
        let Some(up) =
            stairs("stairs up", '<').place_once(&mut tiles, &mut protected, &mut rng, total)
        else {
            reason = "the stairs up found no 3 x 3 floor".into();
            continue;
        };
        // The stairs down go to another room than the stairs up: the up room is shielded.
        let rooms = find_regions(&tiles, |t| {
            t.walkable() && !matches!(t, Tile::Door | Tile::Arch)
        });
        let up_room = *rooms
            .labels
            .get(up.0 as i64 + 1, up.1 as i64 + 1)
            .expect("inside");
        let mut shielded = protected.clone();
        for ((x, y), label) in rooms.labels.iter() {
            if label.is_some() && *label == up_room {
                shielded.set(x as i64, y as i64, true);
            }
        }
        let down_stairs = stairs("stairs down", '>');
        let Some(down) = down_stairs.place_once(&mut tiles, &mut shielded, &mut rng, total) else {
            reason =
                "the stairs down found no 3 x 3 floor outside the room of the stairs up".into();
            continue;
        };
        down_stairs.stamp(&mut tiles, &mut protected, down.0, down.1);
        // The lockout check: every walkable tile must be reachable.
        if !fully_connected(&tiles, Tile::walkable) {
            reason = "the level fell apart into unconnected parts".into();
            continue;
        }
        let stage = finish_stage(
            level,
            seed,
            tiles,
            (up.0 + 1, up.1 + 1),
            (down.0 + 1, down.1 + 1),
            attempt,
        );
        return Ok(stage);
    }
    Err(CathedralError::NoLevel {
        attempts: ATTEMPTS,
        reason,
    })
}

/// Chambers on a hallway, then rooms budded off the chambers. Returns the blank, the chambers
/// present and the hallway.
fn first_room<R: Rng + ?Sized>(rng: &mut R) -> (Grid<bool>, Vec<Rect>, Rect) {
    let mut blank = Grid::new(SIZE, SIZE, false);
    let vertical = seed::chance(rng, 0.5);
    let mut has = [
        seed::chance(rng, 0.5),
        seed::chance(rng, 0.5),
        seed::chance(rng, 0.5),
    ];
    if !has[0] || !has[2] {
        has[1] = true; // at least one chamber, and the hallway is never orphaned
    }
    let layout: [Rect; 3] = [(1, 15, 10, 10), (15, 15, 10, 10), (29, 15, 10, 10)];
    let (mut hx, hy, mut hw, hh) = (1, 17, 38, 6);
    if !has[0] {
        hx += 17;
        hw -= 17;
    }
    if !has[2] {
        hw -= 16;
    }
    let flip = |(x, y, w, h): Rect| if vertical { (y, x, h, w) } else { (x, y, w, h) };
    let chambers: Vec<Rect> = (0..3)
        .filter(|&i| has[i])
        .map(|i| flip(layout[i]))
        .collect();
    let hall = flip((hx, hy, hw, hh));
    for &r in chambers.iter().chain([&hall]) {
        fill(&mut blank, r);
    }
    for &c in &chambers {
        bud(&mut blank, rng, c, vertical);
    }
    (blank, chambers, hall)
}

fn fill(blank: &mut Grid<bool>, (x, y, w, h): Rect) {
    for py in y..y + h {
        for px in x..x + w {
            blank.set(px, py, true);
        }
    }
}

/// Whether the rectangle lies inside the map and holds no room cell.
fn clear(blank: &Grid<bool>, (x, y, w, h): Rect) -> bool {
    x >= 0
        && y >= 0
        && x + w <= SIZE as i64
        && y + h <= SIZE as i64
        && (y..y + h).all(|py| (x..x + w).all(|px| blank.get(px, py) == Some(&false)))
}

/// Recursive budding: a room on one side of `parent` and its mirror on the other, sides 2, 4
/// or 6 (chances 2/5, 2/5, 1/5), touching the parent and one cell clear of everything else;
/// the axis flips with chance 1/4, and alternates for the children.
fn bud<R: Rng + ?Sized>(blank: &mut Grid<bool>, rng: &mut R, parent: Rect, vertical: bool) {
    let vertical = if seed::chance(rng, 0.25) {
        !vertical
    } else {
        vertical
    };
    let (px, py, pw, ph) = parent;
    let side = |rng: &mut R| ((seed::below(rng, 5) + 2) & !1) as i64;
    let (mut w, mut h) = (2, 2);
    let mut first: Option<Rect> = None;
    for _ in 0..20 {
        w = side(rng);
        h = side(rng);
        let (x, y, test) = if vertical {
            let (x, y) = (px - w, py + ph / 2 - h / 2);
            (x, y, (x - 1, y - 1, w + 1, h + 2))
        } else {
            let (x, y) = (px + pw / 2 - w / 2, py - h);
            (x, y, (x - 1, y - 1, w + 2, h + 1))
        };
        if clear(blank, test) {
            first = Some((x, y, w, h));
            break;
        }
    }
    // The mirror room uses the last size tried, even when the first room failed.
    let second = if vertical {
        let (x, y) = (px + pw, py + ph / 2 - h / 2);
        clear(blank, (x, y - 1, w + 1, h + 2)).then_some((x, y, w, h))
    } else {
        let (x, y) = (px + pw / 2 - w / 2, py + ph);
        clear(blank, (x - 1, y, w + 2, h + 1)).then_some((x, y, w, h))
    };
    for r in first.iter().chain(second.iter()) {
        fill(blank, *r);
    }
    if let Some(r) = first {
        bud(blank, rng, r, !vertical);
    }
    if let Some(r) = second {
        bud(blank, rng, r, !vertical);
    }
}

/// Walls every solid tile that touches floor (8 neighbours): marching squares leave the
/// right and bottom edges of rooms open.
fn close_edges(tiles: &mut Grid<Tile>) {
    let snapshot = tiles.clone();
    for ((x, y), &t) in snapshot.iter() {
        if t != Tile::Solid {
            continue;
        }
        let (x, y) = (x as i64, y as i64);
        let near_floor = (-1..=1).any(|dy| {
            (-1..=1).any(|dx| snapshot.get(x + dx, y + dy).is_some_and(|n| n.walkable()))
        });
        if near_floor {
            tiles.set(x, y, Tile::Wall);
        }
    }
}

/// Straight dividing walls: from a wall corner with open floor beside it (floor on both sides
/// of the run), a run of at least two floor tiles ending on a wall becomes a wall (or a fence)
/// with one door (or arch) at a random place; doors are protected. Style: `rand(4)` 0 and 1
/// a wall with a door, 2 a wall with an arch, 3 a fence with a door; `rand(6) == 5` makes the
/// door an arch.
fn add_walls<R: Rng + ?Sized>(tiles: &mut Grid<Tile>, protected: &mut Grid<bool>, rng: &mut R) {
    let n = SIZE as i64;
    for y in 0..n {
        for x in 0..n {
            // Dividing walls start at the corners marching squares left where budded rooms
            // meet (and at the ends of walls placed before).
            let stub = tiles
                .get(x, y)
                .is_some_and(|t| matches!(t, Tile::WallCornerInner | Tile::WallCornerOuter));
            if !stub || protected.get(x, y) == Some(&true) {
                continue;
            }
            for (dx, dy) in [(1, 0), (0, 1)] {
                // Across the run: the two neighbours that must be open floor.
                let (sx, sy) = (dy, dx);
                let open = |px: i64, py: i64| {
                    tiles.get(px, py) == Some(&Tile::Floor) && protected.get(px, py) == Some(&false)
                };
                let mut len = 0;
                while open(x + dx * (len + 1), y + dy * (len + 1))
                    && open(x + dx * (len + 1) + sx, y + dy * (len + 1) + sy)
                    && open(x + dx * (len + 1) - sx, y + dy * (len + 1) - sy)
                {
                    len += 1;
                }
                let end = tiles.get(x + dx * (len + 1), y + dy * (len + 1)).copied();
                if len <= 1 || !end.is_some_and(|t| t.is_wall()) {
                    continue;
                }
                let style = seed::below(rng, 4);
                let line = if style == 3 { Tile::Fence } else { Tile::Wall };
                let mut door = if style == 2 { Tile::Arch } else { Tile::Door };
                if seed::below(rng, 6) == 5 {
                    door = Tile::Arch;
                }
                let at = 1 + seed::below(rng, (len - 1) as u64) as i64;
                for i in 1..=len {
                    let (px, py) = (x + dx * i, y + dy * i);
                    if i == at {
                        tiles.set(px, py, door);
                        protected.set(px, py, true);
                    } else {
                        tiles.set(px, py, line);
                    }
                }
            }
        }
    }
}
