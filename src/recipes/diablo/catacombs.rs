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
//! 3. Hall cells become floor and the void around them wall.
//! 4. `fill_voids`: rooms grown into big voids from the walls that border them, opened onto the
//!    room behind that wall, until at most 700 void cells remain (at most 100 tries; else start
//!    over).
//! 5. Stray doors become wall again; a wall one cell thick between two floors without a door
//!    gets one (the local lockout fix).
//! 6. The 3x3 pattern table
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

impl Side {
    /// One step towards that side.
    fn step(self) -> (i64, i64) {
        match self {
            Side::Up => (0, -1),
            Side::Down => (0, 1),
            Side::Left => (-1, 0),
            Side::Right => (1, 0),
        }
    }
}

/// Most steps of one hall's walk.
const HALL_STEPS: u32 = 1000;

/// A hall to walk: `(from, to, the side the parent lies on)`.
type Hall = ((i64, i64), (i64, i64), Side);

struct Builder<'r, R: Rng + ?Sized> {
    map: Grid<char>,
    /// The first room's size, forced for a set piece (walls included).
    forced: Option<(i64, i64)>,
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
    generate_with(level, seed, &super::DiabloParams::default())
}

/// [`generate`] with parameters (the retry budget).
pub fn generate_with(
    level: u32,
    seed: u64,
    params: &super::DiabloParams,
) -> Result<Stage, StageError> {
    let mut rng = seed::stream(seed, "catacombs");
    let table = pattern_table();
    let mut reason = String::new();
    const ATTEMPTS: u32 = 500;
    let mut made = 0;
    for attempt in params.retry_or(ATTEMPTS).attempts() {
        made = attempt;
        let mut b = Builder {
            map: Grid::new(SIZE, SIZE, ' '),
            forced: params
                .set_piece
                .as_ref()
                .map(|p| (p.width() as i64 + 1, p.height() as i64 + 1)),
            rooms: Vec::new(),
            halls: VecDeque::new(),
            rng: &mut rng,
        };
        b.create_room((1, 1, SIZE as i64 - 2, SIZE as i64 - 2), None);
        while let Some((from, to, side)) = b.halls.pop_front() {
            b.connect_hall(from, to, side);
        }
        b.finish_halls();
        let void = b.fill_voids();
        b.fix_lockout();
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
        let first = b.rooms.first().copied();
        let mut tiles = table.convert(&b.map);
        let mut protected = Grid::new(SIZE, SIZE, false);
        // The set piece fills the first room's floor (the room was made its size).
        let mut piece = super::SetPiecePlacement::new(params.set_piece.as_ref(), SIZE, SIZE);
        if let (Some((pw, ph)), Some((x1, y1, x2, y2))) = (piece.size(), first) {
            if x2 - x1 - 1 < pw as i64 || y2 - y1 - 1 < ph as i64 {
                reason = format!(
                    "the first room ({} x {} inside) is smaller than the set piece",
                    x2 - x1 - 1,
                    y2 - y1 - 1
                );
                continue;
            }
            piece.stamp(
                &mut tiles,
                &mut protected,
                ((x1 + 1) as usize, (y1 + 1) as usize),
            );
        }
        // Themed rooms: every floor tile tried, 6 to 10 a side, fixed size.
        let themes = ThemeRooms {
            min: 6,
            max: 10,
            chance: 1.0,
            random_size: false,
        };
        place_theme_rooms(&mut tiles, &mut protected, &mut rng, themes);
        match place_stairs(&mut tiles, &mut protected, &mut rng, &piece) {
            Ok(stairs) => {
                return Ok(finish_stage(
                    "catacombs",
                    level,
                    seed,
                    attempt,
                    blank,
                    tiles,
                    &protected,
                    &mut rng,
                    stairs,
                    &piece,
                ));
            }
            Err(r) => reason = r,
        }
    }
    Err(StageError::NoLevel {
        stage: "Catacombs",
        attempts: made,
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
        let (w, h) = match self.forced.take() {
            Some(size) => size,
            None => (side(self.rng, aw), side(self.rng, ah)),
        };
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
                let c = match (x == x1, x == x2, y == y1, y == y2) {
                    (true, _, true, _) => 'C',
                    (_, true, true, _) => 'B',
                    (true, _, _, true) => 'E',
                    (_, true, _, true) => 'A',
                    (false, false, false, false) => '.',
                    _ => '#',
                };
                self.map.set(x, y, c);
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

    /// A biased random walk from `from` (on the child's wall) to `to` (on the parent's), leaving
    /// in direction `side`, 1 to 3 cells wide: void becomes hall (`,`), walls it crosses get
    /// doors. The steering is the spec's: along the longer axis with chance min(2|dx|, 30)% or
    /// min(5|dy|, 80)%, forced turns when aligned, bounces off the map's edge and room corners.
    fn connect_hall(&mut self, from: (i64, i64), to: (i64, i64), side: Side) {
        let widen_minus = seed::chance(self.rng, 0.5);
        let widen_plus = seed::chance(self.rng, 0.5);
        let (mut x, mut y) = from;
        self.door(x, y);
        self.door(to.0, to.1);
        let (mut dx, mut dy) = side.step();
        // The walk ends on the cell before the parent's wall.
        let end = (to.0 - dx, to.1 - dy);
        let last = SIZE as i64 - 2;
        let mut in_room = false;
        let mut steps = 0;
        while (x, y) != end {
            steps += 1;
            if steps > HALL_STEPS {
                return; // the level will fail its checks and be generated again
            }
            // Bounce off the map's edge.
            if (x >= last && dx > 0) || (x <= 1 && dx < 0) {
                dx = -dx;
            }
            if (y >= last && dy > 0) || (y <= 1 && dy < 0) {
                dy = -dy;
            }
            // Turn away from room corners (walls are never entered at a corner).
            match self.at(x, y) {
                'C' if dy < 0 || dx < 0 => (dx, dy) = (1, 0),
                'B' if dy < 0 || dx > 0 => (dx, dy) = (0, 1),
                'E' if dx < 0 || dy > 0 => (dx, dy) = (0, -1),
                'A' if dx > 0 || dy > 0 => (dx, dy) = (-1, 0),
                _ => {}
            }
            x += dx;
            y += dy;
            match self.at(x, y) {
                ' ' => {
                    if in_room {
                        self.door(x - dx, y - dy);
                    } else {
                        // Side cells across the walk, where still void.
                        let (sx, sy) = (dy.abs(), dx.abs());
                        for (on, k) in [(widen_minus, -1), (widen_plus, 1)] {
                            if on && self.at(x + sx * k, y + sy * k) == ' ' {
                                self.map.set(x + sx * k, y + sy * k, ',');
                            }
                        }
                    }
                    self.map.set(x, y, ',');
                    in_room = false;
                }
                c => {
                    if !in_room && c == '#' {
                        self.door(x, y);
                    }
                    if c != ',' {
                        in_room = true;
                    }
                }
            }
            // Steering towards the end.
            let (ex, ey) = (end.0 - x, end.1 - y);
            let (adx, ady) = (ex.abs(), ey.abs());
            let towards_x = if ex <= 0 { (-1, 0) } else { (1, 0) };
            let towards_y = if ey <= 0 { (0, -1) } else { (0, 1) };
            if adx > ady {
                if seed::below(self.rng, 100) < (2 * adx).min(30) as u64 {
                    (dx, dy) = towards_x;
                }
            } else if seed::below(self.rng, 100) < (5 * ady).min(80) as u64 {
                (dx, dy) = towards_y;
            }
            // Forced turns, each seeing the direction the ones before chose.
            let here = self.at(x, y);
            if adx == 0 && ady < 10 && dx != 0 {
                (dx, dy) = towards_y;
            }
            if ady == 0 && adx < 10 && dy != 0 {
                (dx, dy) = towards_x;
            }
            if ady == 1 && adx > 1 && dy != 0 {
                (dx, dy) = towards_x;
            }
            if adx == 1 && ady > 1 && dx != 0 {
                (dx, dy) = towards_y;
            }
            if adx == 0 && here != ' ' && dx != 0 {
                (dx, dy) = towards_y;
            }
            if ady == 0 && here != ' ' && dy != 0 {
                (dx, dy) = towards_x;
            }
        }
    }

    /// A door on a wall cell, unless a door is beside it already.
    fn door(&mut self, x: i64, y: i64) {
        let beside = [(0, -1), (0, 1), (-1, 0), (1, 0)]
            .iter()
            .any(|(ddx, ddy)| self.at(x + ddx, y + ddy) == 'D');
        if self.at(x, y) == '#' && !beside {
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
        for y in 0..n {
            for x in 0..n {
                if matches!(self.at(x, y), 'A' | 'B' | 'C' | 'E') {
                    self.map.set(x, y, '#');
                }
            }
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
    }

    /// Fills big voids with rooms opened onto the room they border: a wall cell with void on
    /// one side and floor on the other grows a rectangle into the void (at most 14 along the
    /// wall and 12 away from it, less 2 at each end; more than 5 both ways), whose shared wall
    /// is knocked through wherever floor lies on both sides. At most 100 tries, stopping once
    /// no more than [`MAX_VOID`] void cells remain. Returns the void left.
    fn fill_voids(&mut self) -> usize {
        let n = SIZE as i64;
        let count = |b: &Self| b.map.values().iter().filter(|&&c| c == ' ').count();
        let mut void = count(self);
        let mut tries = 0;
        while void > MAX_VOID && tries < 100 {
            tries += 1;
            let x = 1 + seed::below(self.rng, (n - 2) as u64) as i64;
            let y = 1 + seed::below(self.rng, (n - 2) as u64) as i64;
            if self.at(x, y) != '#' {
                continue;
            }
            // Which way the void lies: (out) away from the floor; (along) the wall's axis.
            let side_is = |b: &Self, (ox, oy): (i64, i64), c: char| {
                let (ax, ay) = (oy.abs(), ox.abs());
                [0, -1, 1]
                    .iter()
                    .all(|&k| b.at(x + ox + ax * k, y + oy + ay * k) == c)
            };
            let Some(out) = [(0, -1), (0, 1), (-1, 0), (1, 0)]
                .into_iter()
                .find(|&(ox, oy)| side_is(self, (ox, oy), ' ') && side_is(self, (-ox, -oy), '.'))
            else {
                continue;
            };
            let (ox, oy) = out;
            let (ax, ay) = (oy.abs(), ox.abs());
            // Along the wall, in the void row beside it.
            let void_at = |b: &Self, k: i64, depth: i64| {
                let (cx, cy) = (x + ax * k + ox * depth, y + ay * k + oy * depth);
                cx >= 1 && cy >= 1 && cx <= n - 2 && cy <= n - 2 && b.at(cx, cy) == ' '
            };
            let (mut lo, mut hi) = (0i64, 0i64);
            while hi - lo < 14 && void_at(self, lo - 1, 1) {
                lo -= 1;
            }
            while hi - lo < 14 && void_at(self, hi + 1, 1) {
                hi += 1;
            }
            let (lo, hi) = (lo + 2, hi - 2);
            if hi - lo <= 5 {
                continue;
            }
            // Away from the wall, while the whole span is void.
            let mut depth = 1;
            while depth < 12 && (lo..=hi).all(|k| void_at(self, k, depth + 1)) {
                depth += 1;
            }
            let depth = depth - 2;
            if depth <= 5 {
                continue;
            }
            // Stamp the room (its near border is the wall it grew from), then knock through.
            let cell = |k: i64, d: i64| (x + ax * k + ox * d, y + ay * k + oy * d);
            let mut opened = Vec::new();
            for k in lo..=hi {
                for d in 1..=depth {
                    let (cx, cy) = cell(k, d);
                    let border = k == lo || k == hi || d == depth;
                    self.map.set(cx, cy, if border { '#' } else { '.' });
                }
                let (wx, wy) = cell(k, 0);
                let (fx, fy) = cell(k, -1);
                if k > lo && k < hi && self.at(wx, wy) == '#' && self.at(fx, fy) == '.' {
                    opened.push((wx, wy));
                }
            }
            for (wx, wy) in opened {
                self.map.set(wx, wy, '.');
            }
            void = count(self);
        }
        void
    }

    /// Doors that lead nowhere become wall again; a wall one cell thick between two floors with
    /// no door in it gets one (the local lockout fix).
    fn fix_lockout(&mut self) {
        let n = SIZE as i64;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn builder<'r>(rng: &'r mut seed::LevelRng, rows: &[&str]) -> Builder<'r, seed::LevelRng> {
        let mut map = Grid::new(SIZE, SIZE, ' ');
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                map.set(x as i64, y as i64, c);
            }
        }
        Builder {
            map,
            forced: None,
            rooms: Vec::new(),
            halls: VecDeque::new(),
            rng,
        }
    }

    #[test]
    fn fill_voids_opens_new_rooms_onto_the_old_one() {
        // One wide room along the top; everything below it is void.
        let wall = "#".repeat(SIZE);
        let inside = format!("#{}#", ".".repeat(SIZE - 2));
        let rows = [
            wall.as_str(),
            &inside,
            &inside,
            &inside,
            &inside,
            wall.as_str(),
        ];
        let mut filled = 0;
        for s in 0..10 {
            let mut rng = seed::stream(s, "test");
            let mut b = builder(&mut rng, &rows);
            let before = b.map.values().iter().filter(|&&c| c == ' ').count();
            let after = b.fill_voids();
            if after < before {
                filled += 1;
            }
            // Every floor cell is reachable from the first room through floor.
            let mut seen = Grid::new(SIZE, SIZE, false);
            let mut stack = vec![(1i64, 1i64)];
            seen.set(1, 1, true);
            while let Some((x, y)) = stack.pop() {
                for (dx, dy) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                    let (nx, ny) = (x + dx, y + dy);
                    if b.at(nx, ny) == '.' && seen.get(nx, ny) == Some(&false) {
                        seen.set(nx, ny, true);
                        stack.push((nx, ny));
                    }
                }
            }
            for ((x, y), &c) in b.map.iter() {
                if c == '.' {
                    assert!(
                        seen.get(x as i64, y as i64) == Some(&true),
                        "seed {s}: ({x}, {y}) cut off"
                    );
                }
            }
        }
        assert!(filled >= 7, "only {filled} of 10 seeds filled any void");
    }

    #[test]
    fn halls_reach_their_parent() {
        // Two rooms, a hall from the lower one up to the upper one.
        let rows = [
            "",
            " CB######",
            " #.......#",
            " E#######A",
            "",
            "",
            "",
            "",
            "",
            "    C####B",
            "    #....#",
            "    E####A",
        ];
        for s in 0..20 {
            let mut rng = seed::stream(s, "test");
            let mut b = builder(&mut rng, &rows);
            b.connect_hall((6, 9), (5, 3), Side::Up);
            b.finish_halls();
            // A door on each wall, and floor between them.
            assert_eq!(b.at(6, 9), 'D', "seed {s}");
            assert_eq!(b.at(5, 3), 'D', "seed {s}");
            assert_eq!(
                b.at(5, 4),
                '.',
                "seed {s}: the walk must end before the parent's door"
            );
        }
    }
}
