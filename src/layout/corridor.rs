//! A* corridors: a one-cell path between a door of each room, kept one cell clear of every
//! other room and corridor (so it has walls of its own), found with the `pathfinding` crate's
//! A* with a penalty for turns.

use pathfinding::directed::astar::astar;

use super::geom::{Dir, Point, Rect};
use super::template::Shape;
use super::{LinkSpec, Segment};

/// What a corridor is routed round: the rooms and corridors placed so far. The planner's
/// search state implements it; the router needs nothing else of the planner.
pub(crate) trait Occupancy {
    /// Whether a placed room covers cell `p`.
    fn room_at(&self, p: Point) -> bool;
    /// The cells of the window from `min` (included) to `max` (excluded) that rooms or
    /// corridor paths cover, row by row.
    fn solid_window(&self, min: Point, max: Point) -> Vec<bool>;
}

/// One end of a corridor: the room's index, its shape and where it is placed.
pub(crate) type End<'a> = (usize, &'a Shape, Point);

/// A routed corridor.
#[derive(Debug, Clone)]
pub(crate) struct Corridor {
    pub(crate) link: usize,
    /// The room whose door `door_a` is, where `cells` start.
    pub(crate) from_room: usize,
    pub(crate) door_a: Segment,
    pub(crate) door_b: Segment,
    pub(crate) cells: Vec<Point>,
    /// Cells no later room may cover: the path and its walls.
    pub(crate) occupied: Vec<Point>,
    pub(crate) rect: Rect,
}

/// The cell just outside a door (its middle unit).
pub fn outside_cell(a: Point, b: Point, facing: Dir) -> Point {
    let len = a.manhattan(b) as i32;
    let k = (len - 1).max(0) / 2;
    match facing {
        Dir::North => Point::new(a.x + k, a.y),
        Dir::South => Point::new(a.x + k, a.y - 1),
        Dir::East => Point::new(a.x, a.y + k),
        Dir::West => Point::new(a.x - 1, a.y + k),
    }
}

/// Extra cells searched around the two ends.
const PAD: i32 = 8;

/// A corridor for link `link` (`spec`) from `room` to `nb`, round what `occ` holds.
pub(crate) fn route(
    occ: &impl Occupancy,
    (link, spec): (usize, LinkSpec),
    (room, shape_a, pa): End,
    (nb, shape_b, pb): End,
) -> Option<Corridor> {
    let (lo, hi) = match spec.realise {
        super::Realise::Contact => return None,
        super::Realise::Path { min, max } | super::Realise::ContactOrPath { min, max } => {
            (min, max)
        }
    };
    let occupied_by_room = |p: Point| occ.room_at(p);
    let ends = |shape: &Shape, pos: Point, is_from: bool| -> Vec<(usize, Point)> {
        shape
            .doors
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind.allows(is_from))
            .map(|(i, d)| (i, outside_cell(d.a + pos, d.b + pos, d.facing)))
            .filter(|&(_, c)| !occupied_by_room(c))
            .collect()
    };
    let ea = ends(shape_a, pa, spec.from == room);
    let eb = ends(shape_b, pb, spec.from == nb);
    // Door pairs whose cells are far enough apart for a corridor of `lo` cells and near
    // enough for `hi`; doors that face away from the other end are tried last.
    let mut pairs: Vec<(u32, usize, usize)> = Vec::new();
    for &(i, ca) in &ea {
        for &(j, cb) in &eb {
            let m = ca.manhattan(cb) + 1;
            if m < lo || m > hi {
                continue;
            }
            let away = |c: Point, f: Dir, to: Point| {
                let s = f.step();
                (to.x - c.x) * s.x + (to.y - c.y) * s.y < 0
            };
            let fa = shape_a.doors[i].facing;
            let fb = shape_b.doors[j].facing;
            let penalty = 12 * (u32::from(away(ca, fa, cb)) + u32::from(away(cb, fb, ca)));
            pairs.push((m + penalty, i, j));
        }
    }
    pairs.sort_unstable();
    // Try the closest few distinct pairs.
    for &(_, i, j) in pairs.iter().take(6) {
        let (da, db) = (&shape_a.doors[i], &shape_b.doors[j]);
        let oa = outside_cell(da.a + pa, da.b + pa, da.facing);
        let ob = outside_cell(db.a + pb, db.b + pb, db.facing);
        let Some(cells) = search(occ, oa, da.facing, ob, db.facing, hi) else {
            continue;
        };
        let len = cells.len() as u32;
        if len < lo || len > hi {
            continue;
        }
        let mut occupied: Vec<Point> = Vec::with_capacity(cells.len() * 3);
        for &c in &cells {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let q = Point::new(c.x + dx, c.y + dy);
                    if !shape_a.mask.inside(q.x - pa.x, q.y - pa.y)
                        && !shape_b.mask.inside(q.x - pb.x, q.y - pb.y)
                    {
                        occupied.push(q);
                    }
                }
            }
        }
        occupied.sort_unstable();
        occupied.dedup();
        let mut rect = Rect {
            min: Point::new(i32::MAX, i32::MAX),
            max: Point::new(i32::MIN, i32::MIN),
        };
        for q in &occupied {
            rect.min = Point::new(rect.min.x.min(q.x), rect.min.y.min(q.y));
            rect.max = Point::new(rect.max.x.max(q.x + 1), rect.max.y.max(q.y + 1));
        }
        return Some(Corridor {
            link,
            from_room: room,
            door_a: Segment {
                a: da.a + pa,
                b: da.b + pa,
            },
            door_b: Segment {
                a: db.a + pb,
                b: db.b + pb,
            },
            cells,
            occupied,
            rect,
        });
    }
    None
}

/// A* from the cell outside one door to the cell outside the other.
fn search(
    occ: &impl Occupancy,
    oa: Point,
    fa: Dir,
    ob: Point,
    fb: Dir,
    hi: u32,
) -> Option<Vec<Point>> {
    if oa == ob {
        return Some(vec![oa]);
    }
    let min = Point::new(oa.x.min(ob.x) - PAD, oa.y.min(ob.y) - PAD);
    let max = Point::new(oa.x.max(ob.x) + PAD + 1, oa.y.max(ob.y) + PAD + 1);
    let (w, h) = (max.x - min.x, max.y - min.y);
    let solid = occ.solid_window(min, max);
    let solid_at = |p: Point| -> bool {
        p.x < min.x
            || p.y < min.y
            || p.x >= max.x
            || p.y >= max.y
            || solid[((p.y - min.y) * w + (p.x - min.x)) as usize]
    };
    if solid_at(oa) || solid_at(ob) {
        return None;
    }
    let clear = |p: Point| -> bool {
        (-1..=1).all(|dy| (-1..=1).all(|dx| !solid_at(Point::new(p.x + dx, p.y + dy))))
    };
    let a1 = oa + fa.step();
    let b1 = ob + fb.step();
    if (a1 != ob && !clear(a1)) || (b1 != oa && !clear(b1)) {
        return None;
    }
    let dirs = Dir::ALL;
    let start = (oa, 4u8);
    let mut expansions = 0u32;
    let limit = (w * h * 4) as u32;
    let result = astar(
        &start,
        |&(p, d)| {
            expansions += 1;
            let mut out: Vec<((Point, u8), u32)> = Vec::with_capacity(4);
            if expansions > limit {
                return out;
            }
            if p == oa {
                let next = a1;
                if next == ob || clear(next) {
                    out.push(((next, fa as u8), 2));
                }
                return out;
            }
            for (k, dir) in dirs.iter().enumerate() {
                let q = p + dir.step();
                let turn = u32::from(d != 4 && d != k as u8);
                if q == ob {
                    if p == b1 {
                        out.push(((q, k as u8), 2 + turn));
                    }
                } else if q != oa && clear(q) {
                    out.push(((q, k as u8), 2 + turn));
                }
            }
            out
        },
        |&(p, _)| 2 * p.manhattan(ob),
        |&(p, _)| p == ob,
    )?;
    let cells: Vec<Point> = result.0.into_iter().map(|(p, _)| p).collect();
    if cells.len() as u32 > hi {
        return None;
    }
    Some(cells)
}
