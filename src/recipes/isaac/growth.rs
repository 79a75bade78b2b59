//! Growth: rooms under construction on the grid, grown breadth first from the start under the
//! neighbour rule (steps 1 to 3 of the spec).

use std::collections::VecDeque;

use rand::Rng;

use super::*;
use crate::graph::RoomKind;
use crate::seed;

/// A room under construction.
pub(super) struct Plan {
    pub(super) shape: RoomShape,
    pub(super) anchor: Cell,
    pub(super) kind: RoomKind,
    /// The room it grew from, and the door: (parent index, parent cell, direction).
    pub(super) parent: Option<(usize, Cell, GridDir)>,
}

impl Plan {
    pub(super) fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.shape
            .cells()
            .iter()
            .map(move |&(dx, dy)| (self.anchor.0 + dx, self.anchor.1 + dy))
    }
}

pub(super) struct Grid<'p> {
    pub(super) params: &'p IsaacParams,
    pub(super) owner: Vec<Option<usize>>,
    pub(super) rooms: Vec<Plan>,
}

impl Grid<'_> {
    pub(super) fn in_bounds(&self, (x, y): Cell) -> bool {
        x >= 1 && x <= self.params.width && y >= 0 && y < self.params.height
    }

    pub(super) fn slot(&self, (x, y): Cell) -> usize {
        (y * (self.params.width + 1) + x) as usize
    }

    pub(super) fn at(&self, c: Cell) -> Option<usize> {
        if self.in_bounds(c) {
            self.owner[self.slot(c)]
        } else {
            None
        }
    }

    pub(super) fn free(&self, c: Cell) -> bool {
        self.in_bounds(c) && self.at(c).is_none()
    }

    /// Occupied cells next to `c`.
    pub(super) fn neighbours(&self, c: Cell) -> usize {
        GridDir::ALL
            .iter()
            .filter(|&&d| self.at(step(c, d)).is_some())
            .count()
    }

    /// Distinct rooms next to `c` (at most four), and how many.
    pub(super) fn neighbour_rooms(&self, c: Cell) -> ([usize; 4], usize) {
        let mut v = [usize::MAX; 4];
        let mut n = 0;
        for d in GridDir::ALL {
            if let Some(r) = self.at(step(c, d))
                && !v[..n].contains(&r)
            {
                v[n] = r;
                n += 1;
            }
        }
        (v, n)
    }

    pub(super) fn place(&mut self, plan: Plan) -> usize {
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
    pub(super) fn has_exit(&self, r: usize, c: Cell, d: GridDir) -> bool {
        let p = &self.rooms[r];
        p.shape.has_exit((c.0 - p.anchor.0, c.1 - p.anchor.1), d)
    }
}

/// Growth and validation; returns the grid, the dead ends in order, and whether the start was
/// queued again.
pub(super) fn attempt_floor<'p, R: Rng + ?Sized>(
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
    if requeues > 0 {
        // Breadth-first growth records dead ends nearest first, so the last is among the
        // farthest (the spec's boss rule). A start queued again grows near rooms late: order
        // the dead ends by distance again (stable, so a floor grown in one pass is unchanged).
        let dist = super::special::room_distances(&grid);
        dead_ends.sort_by_key(|&r| dist[r]);
    }
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
pub(super) fn large_plan<R: Rng + ?Sized>(
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
pub(super) fn scored_cell<R: Rng + ?Sized>(
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
