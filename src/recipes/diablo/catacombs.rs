//! The Catacombs (levels 5 to 8): rooms by a recursive pinwheel partition of the map, halls
//! walked from every room to its parent, then a character map turned into tiles by 3x3
//! pattern rules.
//!
//! 1. `create_room`: a room of 4 to 9 cells a side somewhere in the area, then the four strips
//!    around it (two cells clear of it, in a pinwheel) recurse, each child hall queued towards
//!    this room; at most 80 rooms.
//! 2. `connect_hall`: a biased random walk from a point on the child's wall facing its parent to
//!    a point on the parent's facing wall, 1 to 3 cells wide, with doors where it goes through a
//!    wall.
//! 3. Hall cells become floor and the void around them wall; stray doors become wall again; a
//!    wall one cell thick between two floors without a door gets one (the local lockout fix).
//! 4. At most 700 void cells must remain, else start over; the 3x3 pattern table
//!    (`fixtures/tiles/catacombs.ron`) makes the tiles; themed rooms; stairs and the lockout
//!    check.

use std::collections::VecDeque;

use rand::Rng;

use super::{Stage, StageError, finish_stage, place_stairs};
use crate::seed;
use crate::tiles::Grid;
use crate::tiles::convert::PatternTable;
use crate::tiles::themes::{ThemeRooms, place_theme_rooms};

/// The map's side.
pub const SIZE: usize = 40;

/// Most void cells a level may keep.
pub const MAX_VOID: usize = 700;

/// The built-in 3x3 pattern table.
pub fn pattern_table() -> PatternTable {
    PatternTable::from_ron(
        include_str!("../../../fixtures/tiles/catacombs.ron"),
        "catacombs.ron",
    )
    .expect("the built-in table is valid")
}

/// An inclusive rectangle `(x1, y1, x2, y2)`.
type Area = (i64, i64, i64, i64);

/// Where a room's parent lies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Up,
    Down,
    Left,
    Right,
}

/// A hall to walk: `(from, to, the side the parent lies on)`.
type Hall = ((i64, i64), (i64, i64), Side);

struct Builder<'r, R: Rng + ?Sized> {
    map: Grid<char>,
    rooms: Vec<Area>,
    /// Halls to walk: from a point on a child room's wall to one on its parent's.
    halls: VecDeque<Hall>,
    rng: &'r mut R,
}

/// Generates Catacombs level `level` from `seed` (the `"catacombs"` sub-stream).
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::catacombs;
/// let stage = catacombs::generate(5, 3)?;
/// assert!(stage.solve().is_ok());
/// # Ok::<(), levelplan::recipes::diablo::StageError>(())
/// ```
pub fn generate(level: u32, seed: u64) -> Result<Stage, StageError> {
    let mut rng = seed::stream(seed, "catacombs");
    let table = pattern_table();
    let mut reason = String::new();
    const ATTEMPTS: u32 = 500;
    for attempt in 1..=ATTEMPTS {
        let mut b = Builder {
            map: Grid::new(SIZE, SIZE, ' '),
            rooms: Vec::new(),
            halls: VecDeque::new(),
            rng: &mut rng,
        };
        b.create_room((1, 1, SIZE as i64 - 2, SIZE as i64 - 2), None);
        while let Some((from, to, side)) = b.halls.pop_front() {
            b.connect_hall(from, to, side);
        }
        b.finish_halls();
        let void = b.map.values().iter().filter(|&&c| c == ' ').count();
        if void > MAX_VOID {
            reason = format!("{void} void cells remain, more than {MAX_VOID}");
            continue;
        }
        let blank = {
            let mut g = Grid::new(SIZE, SIZE, false);
            for ((x, y), &c) in b.map.iter() {
                g.set(x as i64, y as i64, c == '.' || c == 'D');
            }
            g
        };
        let mut tiles = table.convert(&b.map);
        let mut protected = Grid::new(SIZE, SIZE, false);
        // Themed rooms: every floor tile tried, 6 to 10 a side, fixed size.
        let themes = ThemeRooms {
            min: 6,
            max: 10,
            chance: 1.0,
            random_size: false,
        };
        place_theme_rooms(&mut tiles, &mut protected, &mut rng, themes);
        match place_stairs(&mut tiles, &mut protected, &mut rng) {
            Ok((up, down)) => {
                return Ok(finish_stage(level, seed, blank, tiles, up, down, attempt));
            }
            Err(r) => reason = r,
        }
    }
    Err(StageError::NoLevel {
        stage: "Catacombs",
        attempts: ATTEMPTS,
        reason,
    })
}

impl<R: Rng + ?Sized> Builder<'_, R> {
    fn at(&self, x: i64, y: i64) -> char {
        self.map.get(x, y).copied().unwrap_or('#')
    }

    /// A room somewhere in `area`, then the pinwheel of strips around it.
    fn create_room(&mut self, (ax1, ay1, ax2, ay2): Area, parent: Option<(usize, Side)>) {
        let (aw, ah) = (ax2 - ax1, ay2 - ay1);
        if self.rooms.len() >= 80 || aw < 2 || ah < 2 {
            return;
        }
        let side = |rng: &mut R, span: i64| {
            if span > 4 {
                4 + seed::below(rng, (span.min(10) - 4) as u64) as i64
            } else {
                span
            }
        };
        let (w, h) = (side(self.rng, aw), side(self.rng, ah));
        let mut x1 = ax1 + seed::below(self.rng, aw as u64) as i64;
        let mut y1 = ay1 + seed::below(self.rng, ah as u64) as i64;
        if x1 + w > ax2 {
            x1 = ax2 - w;
        }
        if y1 + h > ay2 {
            y1 = ay2 - h;
        }
        let clamp = |v: i64| v.clamp(1, SIZE as i64 - 2);
        let (x1, y1, x2, y2) = (clamp(x1), clamp(y1), clamp(x1 + w), clamp(y1 + h));
        if x2 - x1 < 2 || y2 - y1 < 2 {
            return;
        }
        for y in y1..=y2 {
            for x in x1..=x2 {
                let border = x == x1 || x == x2 || y == y1 || y == y2;
                self.map.set(x, y, if border { '#' } else { '.' });
            }
        }
        let me = self.rooms.len();
        self.rooms.push((x1, y1, x2, y2));
        if let Some((p, side)) = parent {
            let (px1, py1, px2, py2) = self.rooms[p];
            let along = |rng: &mut R, a: i64, b: i64| {
                a + 1 + seed::below(rng, (b - a - 1).max(1) as u64) as i64
            };
            let (from, to) = match side {
                Side::Up => (
                    (along(self.rng, x1, x2), y1),
                    (along(self.rng, px1, px2), py2),
                ),
                Side::Down => (
                    (along(self.rng, x1, x2), y2),
                    (along(self.rng, px1, px2), py1),
                ),
                Side::Left => (
                    (x1, along(self.rng, y1, y2)),
                    (px2, along(self.rng, py1, py2)),
                ),
                Side::Right => (
                    (x2, along(self.rng, y1, y2)),
                    (px1, along(self.rng, py1, py2)),
                ),
            };
            self.halls.push_back((from, to, side));
        }
        // The pinwheel: four strips two cells clear of the room, each pointing back at it.
        let strips: [(Area, Side); 4] = if y2 - y1 > x2 - x1 {
            [
                ((ax1, ay1, x1 - 2, y2), Side::Right),
                ((x2 + 2, y1, ax2, ay2), Side::Left),
                ((ax1, y2 + 2, x2, ay2), Side::Up),
                ((x1, ay1, ax2, y1 - 2), Side::Down),
            ]
        } else {
            [
                ((ax1, ay1, x2, y1 - 2), Side::Down),
                ((x1, y2 + 2, ax2, ay2), Side::Up),
                ((ax1, y1, x1 - 2, ay2), Side::Right),
                ((x2 + 2, ay1, ax2, y2), Side::Left),
            ]
        };
        for (area, side) in strips {
            self.create_room(area, Some((me, side)));
        }
    }

    /// A biased random walk from `from` to `to` (leaving in direction `side`), 1 to 3 cells
    /// wide, marking void as hall (`,`) and walls it passes through as doors.
    fn connect_hall(&mut self, from: (i64, i64), to: (i64, i64), side: Side) {
        let widen_minus = seed::chance(self.rng, 0.5);
        let widen_plus = seed::chance(self.rng, 0.5);
        let (mut x, mut y) = from;
        self.door(x, y);
        let (mut dx, mut dy) = match side {
            Side::Up => (0, -1),
            Side::Down => (0, 1),
            Side::Left => (-1, 0),
            Side::Right => (1, 0),
        };
        for _ in 0..400 {
            x += dx;
            y += dy;
            if (x, y) == to {
                self.door(x, y);
                return;
            }
            match self.at(x, y) {
                ' ' | ',' => {
                    self.map.set(x, y, ',');
                    // Side cells across the walk, where still void.
                    let (sx, sy) = (dy.abs(), dx.abs());
                    for (on, k) in [(widen_minus, -1), (widen_plus, 1)] {
                        if on && self.at(x + sx * k, y + sy * k) == ' ' {
                            self.map.set(x + sx * k, y + sy * k, ',');
                        }
                    }
                }
                '#' => self.door(x, y),
                _ => {}
            }
            // Steer towards the end, mostly along the longer way.
            let (ex, ey) = (to.0 - x, to.1 - y);
            let horizontal = if ex == 0 {
                false
            } else if ey == 0 {
                true
            } else if ex.abs() > ey.abs() {
                seed::chance(self.rng, (2.0 * ex.abs() as f64 / 100.0).min(0.3) + 0.5)
            } else {
                !seed::chance(self.rng, (5.0 * ey.abs() as f64 / 100.0).clamp(0.5, 0.8))
            };
            (dx, dy) = if horizontal {
                (ex.signum(), 0)
            } else {
                (0, ey.signum())
            };
        }
    }

    fn door(&mut self, x: i64, y: i64) {
        if self.at(x, y) == '#' {
            self.map.set(x, y, 'D');
        }
    }

    /// Hall cells become floor, the void beside them wall; doors that lead nowhere become wall
    /// again; a wall one cell thick between two floors with no door gets one.
    fn finish_halls(&mut self) {
        let n = SIZE as i64;
        let halls: Vec<(i64, i64)> = self
            .map
            .iter()
            .filter(|(_, c)| **c == ',')
            .map(|((x, y), _)| (x as i64, y as i64))
            .collect();
        for &(x, y) in &halls {
            self.map.set(x, y, '.');
        }
        for &(x, y) in &halls {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if self.at(x + dx, y + dy) == ' ' {
                        self.map.set(x + dx, y + dy, '#');
                    }
                }
            }
        }
        // The map's edge is wall.
        for i in 0..n {
            for (x, y) in [(i, 0), (i, n - 1), (0, i), (n - 1, i)] {
                if self.at(x, y) != ' ' {
                    self.map.set(x, y, '#');
                }
            }
        }
        // A door must lead somewhere: open (floor or door, at least one of them floor) on two
        // opposite sides. Doors a hall left along a wall fail this; repeat until none is left.
        let leads = |b: &Self, (ax, ay): (i64, i64), (bx, by): (i64, i64)| {
            let (p, q) = (b.at(ax, ay), b.at(bx, by));
            matches!(p, '.' | 'D') && matches!(q, '.' | 'D') && (p == '.' || q == '.')
        };
        for _ in 0..SIZE {
            let mut changed = false;
            for y in 0..n {
                for x in 0..n {
                    if self.at(x, y) == 'D'
                        && !leads(self, (x - 1, y), (x + 1, y))
                        && !leads(self, (x, y - 1), (x, y + 1))
                    {
                        self.map.set(x, y, '#');
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // The local lockout fix, along rows and then columns.
        for horizontal in [true, false] {
            for a in 0..n {
                let mut run: Vec<(i64, i64)> = Vec::new();
                for b in 0..=n {
                    let (x, y) = if horizontal { (b, a) } else { (a, b) };
                    let thin = matches!(self.at(x, y), '#' | 'D')
                        && b < n
                        && if horizontal {
                            self.at(x, y - 1) == '.' && self.at(x, y + 1) == '.'
                        } else {
                            self.at(x - 1, y) == '.' && self.at(x + 1, y) == '.'
                        };
                    if thin {
                        run.push((x, y));
                    } else {
                        if !run.is_empty() && run.iter().all(|&(rx, ry)| self.at(rx, ry) != 'D') {
                            let (lx, ly) = *run.last().expect("non-empty");
                            self.map.set(lx, ly, 'D');
                        }
                        run.clear();
                    }
                }
            }
        }
    }
}
