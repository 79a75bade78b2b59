//! Step 1 of the sector pipeline: the two generators of the first geometry, BSP
//! ([`bsp_geometry`]) and room growth ([`growth_geometry`]).

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Field, MIN_SIDE};
use crate::seed;
use crate::tiles::Grid;

/// Parameters of the BSP generator (step 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BspParams {
    /// How many times the field is split (leaves: up to `2^depth`).
    pub depth: u32,
    /// The smallest leaf side a split may leave.
    pub min_leaf: usize,
    /// Corridor width (at least [`MIN_SIDE`], or the cleanup removes corridors).
    pub corridor: usize,
}

impl Default for BspParams {
    fn default() -> BspParams {
        BspParams {
            depth: 5,
            min_leaf: 8,
            corridor: 3,
        }
    }
}

/// A rectangle of cells (`x0..x1`, `y0..y1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Rect {
    fn centre(self) -> (usize, usize) {
        ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)
    }
}

/// Step 1, BSP: the `width` x `height` field is split recursively (direction and position random, `depth`
/// levels, no leaf below `min_leaf`), a room rectangle is placed in each leaf (at least 3 x 3,
/// at most the leaf less a one-cell margin), and sibling subtrees are joined by a corridor
/// (`corridor` cells wide) between their rooms' centres, drawn *behind* rooms: a corridor cell
/// inside a room stays the room's, so a room a corridor crosses splits it into sections, each
/// a sector of its own. Rooms are sectors `0..rooms`, corridor sections the ids after.
pub fn bsp_geometry<R: Rng + ?Sized>(
    width: usize,
    height: usize,
    params: &BspParams,
    rng: &mut R,
) -> Field {
    let (w, h) = (width.max(MIN_SIDE + 2), height.max(MIN_SIDE + 2));
    let mut rooms: Vec<Rect> = Vec::new();
    let mut corridors: Vec<Rect> = Vec::new();
    let whole = Rect {
        x0: 0,
        y0: 0,
        x1: w,
        y1: h,
    };
    split(whole, params.depth, params, rng, &mut rooms, &mut corridors);
    // Corridors first (behind), rooms over them.
    let mut corridor_cells = Grid::new(w, h, false);
    for c in &corridors {
        for y in c.y0..c.y1.min(h) {
            for x in c.x0..c.x1.min(w) {
                corridor_cells.set(x as i64, y as i64, true);
            }
        }
    }
    let mut field: Field = Grid::new(w, h, None);
    for (i, r) in rooms.iter().enumerate() {
        for y in r.y0..r.y1 {
            for x in r.x0..r.x1 {
                field.set(x as i64, y as i64, Some(i as u32));
            }
        }
    }
    // Corridor cells outside rooms, by connected section: each section a sector.
    let mut next = rooms.len() as u32;
    for y in 0..h {
        for x in 0..w {
            let free = |x: usize, y: usize, f: &Field| {
                corridor_cells.get(x as i64, y as i64) == Some(&true)
                    && f.get(x as i64, y as i64) == Some(&None)
            };
            if !free(x, y, &field) {
                continue;
            }
            let mut queue = VecDeque::from([(x, y)]);
            field.set(x as i64, y as i64, Some(next));
            while let Some((cx, cy)) = queue.pop_front() {
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (cx as i64 + dx, cy as i64 + dy);
                    if nx >= 0 && ny >= 0 && free(nx as usize, ny as usize, &field) {
                        field.set(nx, ny, Some(next));
                        queue.push_back((nx as usize, ny as usize));
                    }
                }
            }
            next += 1;
        }
    }
    field
}

/// Splits `r` (see [`bsp_geometry`]), returning the room of the subtree that corridors to it
/// aim at.
fn split<R: Rng + ?Sized>(
    r: Rect,
    depth: u32,
    p: &BspParams,
    rng: &mut R,
    rooms: &mut Vec<Rect>,
    corridors: &mut Vec<Rect>,
) -> Rect {
    let (w, h) = (r.x1 - r.x0, r.y1 - r.y0);
    let min = p.min_leaf.max(MIN_SIDE + 2);
    let can_v = w >= 2 * min;
    let can_h = h >= 2 * min;
    if depth == 0 || !(can_v || can_h) {
        // A room in the leaf: 3 x 3 at least, a one-cell margin inside the leaf.
        let (aw, ah) = (w - 2, h - 2);
        let rw = seed::range_inclusive(rng, MIN_SIDE as u32, aw.max(MIN_SIDE) as u32) as usize;
        let rh = seed::range_inclusive(rng, MIN_SIDE as u32, ah.max(MIN_SIDE) as u32) as usize;
        let rx = r.x0 + 1 + seed::index(rng, aw.saturating_sub(rw) + 1);
        let ry = r.y0 + 1 + seed::index(rng, ah.saturating_sub(rh) + 1);
        let room = Rect {
            x0: rx,
            y0: ry,
            x1: (rx + rw).min(r.x1),
            y1: (ry + rh).min(r.y1),
        };
        rooms.push(room);
        return room;
    }
    let vertical = match (can_v, can_h) {
        (true, true) => seed::chance(rng, 0.5),
        (v, _) => v,
    };
    let (a, b) = if vertical {
        let at = r.x0 + min + seed::index(rng, w - 2 * min + 1);
        (Rect { x1: at, ..r }, Rect { x0: at, ..r })
    } else {
        let at = r.y0 + min + seed::index(rng, h - 2 * min + 1);
        (Rect { y1: at, ..r }, Rect { y0: at, ..r })
    };
    let ra = split(a, depth - 1, p, rng, rooms, corridors);
    let rb = split(b, depth - 1, p, rng, rooms, corridors);
    // Join the siblings: an L of two straight runs between the rooms' centres.
    let ((ax, ay), (bx, by)) = (ra.centre(), rb.centre());
    let half = p.corridor.max(1) / 2;
    let run_x = Rect {
        x0: ax.min(bx).saturating_sub(half),
        y0: ay.saturating_sub(half),
        x1: ax.max(bx) + p.corridor - half,
        y1: ay + p.corridor - half,
    };
    let run_y = Rect {
        x0: bx.saturating_sub(half),
        y0: ay.min(by).saturating_sub(half),
        x1: bx + p.corridor - half,
        y1: ay.max(by) + p.corridor - half,
    };
    corridors.push(run_x);
    corridors.push(run_y);
    if seed::chance(rng, 0.5) { ra } else { rb }
}

/// Parameters of the room-growth generator (step 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GrowthParams {
    /// How many random rectangles are cleared to make the level's outline: `(least, most)`.
    pub clearings: (u32, u32),
    /// Each cleared rectangle's side as a fraction of the field's: `(least, most)`.
    pub clearing_size: (f64, f64),
    /// One room seed per this many free cells (at least one seed per free area that holds a
    /// 3 x 3 seed).
    pub room_area: usize,
}

impl Default for GrowthParams {
    fn default() -> GrowthParams {
        GrowthParams {
            clearings: (3, 6),
            clearing_size: (0.35, 0.75),
            room_area: 120,
        }
    }
}

/// A room of the growth generator: its cells' bounding box (the room itself is the cells of
/// its id in the field).
#[derive(Debug, Clone, Copy)]
struct Bounds {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

/// The four directions, `(dx, dy)`.
const DIRS: [(i64, i64); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// Step 1, room growth: the field starts as stop cells; `clearings` random rectangles are
/// cleared (the level's outline); room seeds of 3 x 3 are scattered on free space (one per
/// `room_area` free cells). Phase 1: in turn, each room grows its longest side that can still
/// grow by one cell (ties: a random side), so rooms stay rectangles and never meet. Phase 2: a
/// room's sides may split into parts (the runs of its boundary facing free cells), and a part
/// grows straight to its maximal stop in one go (no one-cell staircase), parts at least 3
/// cells long first. Free areas no room reaches get seeds of their own, and the phases repeat
/// while that places seeds; at the end parts of any length fill what is left next to rooms.
/// Rooms are sectors `0..`; cells still free (pockets narrower than a seed that no room
/// touches) are wall.
pub fn growth_geometry<R: Rng + ?Sized>(
    width: usize,
    height: usize,
    params: &GrowthParams,
    rng: &mut R,
) -> Field {
    let (w, h) = (width.max(MIN_SIDE), height.max(MIN_SIDE));
    let mut free = Grid::new(w, h, false);
    let (lo, hi) = (
        params.clearings.0,
        params.clearings.1.max(params.clearings.0),
    );
    let count = seed::range_inclusive(rng, lo, hi).max(1);
    let (f0, f1) = (
        params.clearing_size.0,
        params.clearing_size.1.max(params.clearing_size.0),
    );
    for _ in 0..count {
        let fw = f0 + (f1 - f0) * seed::unit(rng);
        let fh = f0 + (f1 - f0) * seed::unit(rng);
        let rw = ((w as f64 * fw).round() as usize).clamp(MIN_SIDE, w);
        let rh = ((h as f64 * fh).round() as usize).clamp(MIN_SIDE, h);
        let x0 = seed::index(rng, w - rw + 1);
        let y0 = seed::index(rng, h - rh + 1);
        for y in y0..y0 + rh {
            for x in x0..x0 + rw {
                free.set(x as i64, y as i64, true);
            }
        }
    }
    let mut field: Field = Grid::new(w, h, None);
    let mut rooms: Vec<Bounds> = Vec::new();
    let area = params.room_area.max(MIN_SIDE * MIN_SIDE);
    for _round in 0..16 {
        let placed = scatter_seeds(&free, &mut field, &mut rooms, area, rng);
        if placed == 0 {
            break;
        }
        grow_rectangles(&free, &mut field, &mut rooms, rng);
        while grow_parts(&free, &mut field, &mut rooms, MIN_SIDE, rng) {}
    }
    while grow_parts(&free, &mut field, &mut rooms, 1, rng) {}
    field
}

/// Whether `(x, y)` is free and no room's.
fn open(free: &Grid<bool>, field: &Field, x: i64, y: i64) -> bool {
    free.get(x, y) == Some(&true) && field.get(x, y) == Some(&None)
}

/// Seeds rooms of 3 x 3 on open space: per connected open area, one per `area` cells (at
/// least one where a seed fits). Returns how many were placed.
fn scatter_seeds<R: Rng + ?Sized>(
    free: &Grid<bool>,
    field: &mut Field,
    rooms: &mut Vec<Bounds>,
    area: usize,
    rng: &mut R,
) -> usize {
    let (w, h) = (field.width() as i64, field.height() as i64);
    let k = MIN_SIDE as i64;
    let fits = |field: &Field, x: i64, y: i64| {
        (0..k).all(|dy| (0..k).all(|dx| open(free, field, x + dx, y + dy)))
    };
    // Open areas, by flood fill.
    let mut area_of: Grid<Option<usize>> = Grid::new(w as usize, h as usize, None);
    let mut sizes: Vec<usize> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if !open(free, field, x, y) || area_of.get(x, y) != Some(&None) {
                continue;
            }
            let id = sizes.len();
            let mut queue = VecDeque::from([(x, y)]);
            area_of.set(x, y, Some(id));
            let mut size = 0;
            while let Some((cx, cy)) = queue.pop_front() {
                size += 1;
                for (dx, dy) in DIRS {
                    let (nx, ny) = (cx + dx, cy + dy);
                    if open(free, field, nx, ny) && area_of.get(nx, ny) == Some(&None) {
                        area_of.set(nx, ny, Some(id));
                        queue.push_back((nx, ny));
                    }
                }
            }
            sizes.push(size);
        }
    }
    let mut spots: Vec<Vec<(i64, i64)>> = vec![Vec::new(); sizes.len()];
    for y in 0..h {
        for x in 0..w {
            if fits(field, x, y)
                && let Some(&Some(a)) = area_of.get(x, y)
            {
                spots[a].push((x, y));
            }
        }
    }
    let mut placed = 0;
    for (a, mut spots) in spots.into_iter().enumerate() {
        let wanted = (sizes[a] / area).max(1);
        let mut made = 0;
        while made < wanted && !spots.is_empty() {
            let i = seed::index(rng, spots.len());
            let (x, y) = spots.swap_remove(i);
            // A seed keeps a cell of open space from the others, so that each can grow.
            let clear = (-1..=k).all(|dy| {
                (-1..=k).all(|dx| {
                    let (cx, cy) = (x + dx, y + dy);
                    !matches!(field.get(cx, cy), Some(Some(_)))
                })
            });
            if !fits(field, x, y) || !clear {
                continue;
            }
            let id = rooms.len() as u32;
            for dy in 0..k {
                for dx in 0..k {
                    field.set(x + dx, y + dy, Some(id));
                }
            }
            rooms.push(Bounds {
                x0: x,
                y0: y,
                x1: x + k - 1,
                y1: y + k - 1,
            });
            made += 1;
        }
        placed += made;
    }
    placed
}

/// Phase 1: rooms (still rectangles) grow, in turn, their longest side that can grow by one
/// cell, until none can. Rooms that stopped being rectangles (earlier rounds) sit out.
fn grow_rectangles<R: Rng + ?Sized>(
    free: &Grid<bool>,
    field: &mut Field,
    rooms: &mut [Bounds],
    rng: &mut R,
) {
    let is_rect = |field: &Field, i: usize, b: Bounds| {
        (b.y0..=b.y1).all(|y| (b.x0..=b.x1).all(|x| field.get(x, y) == Some(&Some(i as u32))))
    };
    let mut growing: Vec<bool> = rooms
        .iter()
        .enumerate()
        .map(|(i, &b)| is_rect(field, i, b))
        .collect();
    loop {
        let mut grew = false;
        for i in 0..rooms.len() {
            if !growing[i] {
                continue;
            }
            let b = rooms[i];
            // The sides that can grow, with their lengths.
            let mut sides: Vec<(usize, i64)> = Vec::new();
            for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                let cells: Vec<(i64, i64)> = match (dx, dy) {
                    (1, 0) => (b.y0..=b.y1).map(|y| (b.x1 + 1, y)).collect(),
                    (-1, 0) => (b.y0..=b.y1).map(|y| (b.x0 - 1, y)).collect(),
                    (0, 1) => (b.x0..=b.x1).map(|x| (x, b.y1 + 1)).collect(),
                    _ => (b.x0..=b.x1).map(|x| (x, b.y0 - 1)).collect(),
                };
                // A side grows only where it keeps a cell away from other rooms, so that
                // rectangles never touch before phase 2.
                let ok = cells.iter().all(|&(x, y)| {
                    open(free, field, x, y)
                        && DIRS.iter().all(|&(ex, ey)| {
                            !matches!(field.get(x + ex, y + ey), Some(&Some(o)) if o != i as u32)
                        })
                });
                if ok {
                    sides.push((d, cells.len() as i64));
                }
            }
            let Some(longest) = sides.iter().map(|s| s.1).max() else {
                growing[i] = false;
                continue;
            };
            let best: Vec<usize> = sides
                .iter()
                .filter(|s| s.1 == longest)
                .map(|s| s.0)
                .collect();
            let d = best[seed::index(rng, best.len())];
            let b = &mut rooms[i];
            match DIRS[d] {
                (1, 0) => b.x1 += 1,
                (-1, 0) => b.x0 -= 1,
                (0, 1) => b.y1 += 1,
                _ => b.y0 -= 1,
            }
            let b = *b;
            for y in b.y0..=b.y1 {
                for x in b.x0..=b.x1 {
                    field.set(x, y, Some(i as u32));
                }
            }
            grew = true;
        }
        if !grew {
            return;
        }
    }
}

/// Phase 2, one round: each room in turn takes its longest part (a run of at least
/// `min_len` boundary cells facing open cells, all on one line) and grows it straight to its
/// maximal stop. Returns whether any room grew.
fn grow_parts<R: Rng + ?Sized>(
    free: &Grid<bool>,
    field: &mut Field,
    rooms: &mut [Bounds],
    min_len: usize,
    rng: &mut R,
) -> bool {
    let mut grew = false;
    for (i, b) in rooms.iter_mut().enumerate() {
        let id = i as u32;
        let bounds = *b;
        // Every part: (direction, the run's cells).
        let mut parts: Vec<(usize, Vec<(i64, i64)>)> = Vec::new();
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            // Lines across the direction of growth: columns for horizontal growth, rows for
            // vertical.
            let (lines, along) = if dx != 0 {
                (bounds.x0..=bounds.x1, bounds.y0..=bounds.y1)
            } else {
                (bounds.y0..=bounds.y1, bounds.x0..=bounds.x1)
            };
            for line in lines {
                let mut run: Vec<(i64, i64)> = Vec::new();
                for t in along.clone().chain([i64::MAX]) {
                    let cell = if dx != 0 { (line, t) } else { (t, line) };
                    let facing = t != i64::MAX
                        && field.get(cell.0, cell.1) == Some(&Some(id))
                        && open(free, field, cell.0 + dx, cell.1 + dy);
                    if facing {
                        run.push(cell);
                    } else if !run.is_empty() {
                        if run.len() >= min_len {
                            parts.push((d, std::mem::take(&mut run)));
                        }
                        run.clear();
                    }
                }
            }
        }
        let Some(longest) = parts.iter().map(|p| p.1.len()).max() else {
            continue;
        };
        let best: Vec<usize> = (0..parts.len())
            .filter(|&p| parts[p].1.len() == longest)
            .collect();
        let (d, run) = &parts[best[seed::index(rng, best.len())]];
        let (dx, dy) = DIRS[*d];
        // The maximal stop: as far as every cell of the run sees open cells.
        let mut steps = 0;
        while run
            .iter()
            .all(|&(x, y)| open(free, field, x + dx * (steps + 1), y + dy * (steps + 1)))
        {
            steps += 1;
        }
        for &(x, y) in run {
            for s in 1..=steps {
                let (cx, cy) = (x + dx * s, y + dy * s);
                field.set(cx, cy, Some(id));
                b.x0 = b.x0.min(cx);
                b.y0 = b.y0.min(cy);
                b.x1 = b.x1.max(cx);
                b.y1 = b.y1.max(cy);
            }
        }
        grew = true;
    }
    grew
}
