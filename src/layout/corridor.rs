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
    /// [`Occupancy::room_at`] for each of `cells` (an occupancy with an index answers a
    /// batch of nearby cells with one query).
    fn rooms_at(&self, cells: &[Point]) -> Vec<bool> {
        cells.iter().map(|&p| self.room_at(p)).collect()
    }
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

/// How many door pairs a corridor tries.
const TRIED: usize = 6;

/// Of the door pairs of `ea` and `eb` (door index and the cell outside it; `fa` and `fb`
/// give a door's facing) whose cells are far enough apart for a corridor of `lo` cells and
/// near enough for `hi`, the [`TRIED`] closest, in order: doors that face away from the
/// other end count 12 cells further. Each pair is `(distance, i, j, cell a, cell b)`, so
/// the cells never decide the order. Big rooms have thousands of door pairs: the closest
/// are kept as the pairs are met, and a pair whose distance alone passes the last kept
/// cannot be closer.
fn closest_pairs(
    ea: &[(usize, Point)],
    eb: &[(usize, Point)],
    fa: impl Fn(usize) -> Dir,
    fb: impl Fn(usize) -> Dir,
    (lo, hi): (u32, u32),
) -> Vec<(u32, usize, usize, Point, Point)> {
    let mut pairs: Vec<(u32, usize, usize, Point, Point)> = Vec::with_capacity(TRIED + 1);
    let away = |c: Point, f: Dir, to: Point| {
        let s = f.step();
        (to.x - c.x) * s.x + (to.y - c.y) * s.y < 0
    };
    // Each of `ea`'s cells is at least its distance from the box round `eb`'s cells from any
    // of them: taken nearest the box first, the cells left once that bound passes the last
    // pair kept (or `hi`) cannot give a pair that is kept. (The pairs kept are the first of
    // all in range by their whole tuple, whatever order they are met in.)
    let Some((bmin, bmax)) = eb
        .iter()
        .map(|&(_, c)| (c, c))
        .reduce(|(a, b), (c, d)| (a.min_each(c), b.max_each(d)))
    else {
        return pairs;
    };
    let bound = |c: Point| {
        let dx = (bmin.x - c.x).max(c.x - bmax.x).max(0);
        let dy = (bmin.y - c.y).max(c.y - bmax.y).max(0);
        (dx + dy) as u32 + 1
    };
    let mut nearest: Vec<(u32, usize)> = ea
        .iter()
        .enumerate()
        .map(|(k, &(_, c))| (bound(c), k))
        .collect();
    nearest.sort_unstable();
    for (least, k) in nearest {
        if least > hi || (pairs.len() == TRIED && least > pairs[TRIED - 1].0) {
            break;
        }
        let (i, ca) = ea[k];
        for &(j, cb) in eb {
            let m = ca.manhattan(cb) + 1;
            if m < lo || m > hi || (pairs.len() == TRIED && m > pairs[TRIED - 1].0) {
                continue;
            }
            let penalty = 12 * (u32::from(away(ca, fa(i), cb)) + u32::from(away(cb, fb(j), ca)));
            let pair = (m + penalty, i, j, ca, cb);
            let at = pairs.partition_point(|p| *p < pair);
            if at < TRIED {
                pairs.insert(at, pair);
                pairs.truncate(TRIED);
            }
        }
    }
    pairs
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
    // The usable doors whose outside cell no room covers, with that cell.
    let ends = |shape: &Shape, pos: Point, is_from: bool| -> Vec<(usize, Point)> {
        let doors: Vec<(usize, Point)> = shape
            .doors
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind.allows(is_from))
            .map(|(i, d)| (i, outside_cell(d.a + pos, d.b + pos, d.facing)))
            .collect();
        let cells: Vec<Point> = doors.iter().map(|&(_, c)| c).collect();
        let covered = occ.rooms_at(&cells);
        doors
            .into_iter()
            .zip(covered)
            .filter_map(|(door, covered)| (!covered).then_some(door))
            .collect()
    };
    let ea = ends(shape_a, pa, spec.from == room);
    let eb = ends(shape_b, pb, spec.from == nb);
    let pairs = closest_pairs(
        &ea,
        &eb,
        |i| shape_a.doors[i].facing,
        |j| shape_b.doors[j].facing,
        (lo, hi),
    );
    // One window of what is solid serves every pair tried: the box round all their search
    // windows, read from `occ` when the first search needs it.
    let mut window: Option<Window> = None;
    let union = pairs
        .iter()
        .map(|&(_, _, _, oa, ob)| search_box((oa, ob)))
        .reduce(|(a, b), (c, d)| (a.min_each(c), b.max_each(d)));
    // Try the closest few distinct pairs.
    for &(_, i, j, oa, ob) in &pairs {
        let (da, db) = (&shape_a.doors[i], &shape_b.doors[j]);
        let Some(cells) = search(
            || {
                let (min, max) = union.expect("a pair is tried");
                Window::new(occ, min, max)
            },
            &mut window,
            oa,
            da.facing,
            ob,
            db.facing,
            hi,
        ) else {
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

/// The search window of a corridor between two cells: the box round them, `PAD` cells
/// more on each side (lower corner included, upper excluded).
fn search_box((a, b): (Point, Point)) -> (Point, Point) {
    (
        Point::new(a.x.min(b.x) - PAD, a.y.min(b.y) - PAD),
        Point::new(a.x.max(b.x) + PAD + 1, a.y.max(b.y) + PAD + 1),
    )
}

/// The solid cells of a window, and the cells with a solid cell among their eight
/// neighbours or themselves (where no corridor cell may go).
struct Window {
    min: Point,
    max: Point,
    width: i32,
    solid: Vec<bool>,
    near: Vec<bool>,
}

impl Window {
    fn new(occ: &impl Occupancy, min: Point, max: Point) -> Window {
        let w = max.x - min.x;
        let solid = occ.solid_window(min, max);
        // Spread each solid cell over its row neighbours, then over the rows above and
        // below (slices zipped with themselves shifted by one: wide byte operations).
        let wu = w as usize;
        let mut across = solid.clone();
        for (out, row) in across.chunks_exact_mut(wu).zip(solid.chunks_exact(wu)) {
            for (o, &s) in out[1..].iter_mut().zip(&row[..wu - 1]) {
                *o |= s;
            }
            for (o, &s) in out[..wu - 1].iter_mut().zip(&row[1..]) {
                *o |= s;
            }
        }
        let mut near = across.clone();
        let rows = across.len();
        for (o, &s) in near[wu..].iter_mut().zip(&across[..rows - wu]) {
            *o |= s;
        }
        for (o, &s) in near[..rows - wu].iter_mut().zip(&across[wu..]) {
            *o |= s;
        }
        Window {
            min,
            max,
            width: w,
            solid,
            near,
        }
    }

    fn at(&self, p: Point) -> usize {
        ((p.y - self.min.y) * self.width + (p.x - self.min.x)) as usize
    }

    fn holds(&self, p: Point) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x < self.max.x && p.y < self.max.y
    }
}

/// A* from the cell outside one door to the cell outside the other, within the pair's search
/// window (`search_box`; cells outside it count as solid), on the solid cells of `window`
/// (made by `make` when first needed; it must cover the pair's search window).
fn search(
    make: impl FnOnce() -> Window,
    window: &mut Option<Window>,
    oa: Point,
    fa: Dir,
    ob: Point,
    fb: Dir,
    hi: u32,
) -> Option<Vec<Point>> {
    if oa == ob {
        return Some(vec![oa]);
    }
    let (min, max) = search_box((oa, ob));
    let (w, h) = (max.x - min.x, max.y - min.y);
    let win: &Window = window.get_or_insert_with(make);
    debug_assert!(win.holds(min) && win.holds(max - Point::new(1, 1)));
    let solid_at = |p: Point| -> bool {
        p.x < min.x || p.y < min.y || p.x >= max.x || p.y >= max.y || win.solid[win.at(p)]
    };
    if solid_at(oa) || solid_at(ob) {
        return None;
    }
    // Clear: the cell and its eight neighbours inside the pair's window and not solid.
    let clear = |p: Point| -> bool {
        p.x > min.x && p.y > min.y && p.x < max.x - 1 && p.y < max.y - 1 && !win.near[win.at(p)]
    };
    let a1 = oa + fa.step();
    let b1 = ob + fb.step();
    if (a1 != ob && !clear(a1)) || (b1 != oa && !clear(b1)) {
        return None;
    }
    // A breadth-first search over the same moves first: where the other door cannot be
    // reached, or only by more than `hi` cells, A* would search the whole window to find
    // nothing, or find a path too long (its path has at least as many cells as the
    // shortest).
    if !reachable_within(oa, a1, ob, b1, hi, (min, max), &clear) {
        return None;
    }
    let dirs = Dir::ALL;
    let start = (oa, 4u8);
    let mut expansions = 0u32;
    let limit = (w * h * 4) as u32;
    type Next = Option<((Point, u8), u32)>;
    let result = astar(
        &start,
        |&(p, d)| {
            expansions += 1;
            let mut out: [Next; 4] = [None; 4];
            if expansions > limit {
                return out.into_iter().flatten();
            }
            if p == oa {
                let next = a1;
                if next == ob || clear(next) {
                    out[0] = Some(((next, fa as u8), 2));
                }
                return out.into_iter().flatten();
            }
            for (k, dir) in dirs.iter().enumerate() {
                let q = p + dir.step();
                let turn = u32::from(d != 4 && d != k as u8);
                if q == ob {
                    if p == b1 {
                        out[k] = Some(((q, k as u8), 2 + turn));
                    }
                } else if q != oa && clear(q) {
                    out[k] = Some(((q, k as u8), 2 + turn));
                }
            }
            out.into_iter().flatten()
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

/// Whether a corridor of at most `hi` cells leads from `oa` to `ob` with A*'s moves: out of
/// `oa` only to `a1`, into `ob` only from `b1`, elsewhere to any clear neighbour other than
/// `oa`, all within the window `(min, max)`.
fn reachable_within(
    oa: Point,
    a1: Point,
    ob: Point,
    b1: Point,
    hi: u32,
    (min, max): (Point, Point),
    clear: &impl Fn(Point) -> bool,
) -> bool {
    if a1 == ob {
        return hi >= 2;
    }
    let w = max.x - min.x;
    let at = |p: Point| ((p.y - min.y) * w + (p.x - min.x)) as usize;
    let mut seen = vec![false; (w * (max.y - min.y)) as usize];
    seen[at(oa)] = true;
    seen[at(a1)] = true;
    // Cells in order of distance from `oa`; `a1` is two cells into the corridor.
    let mut layer = vec![a1];
    let mut next = Vec::new();
    let mut cells = 2;
    while !layer.is_empty() && cells < hi {
        for &p in &layer {
            for dir in Dir::ALL {
                let q = p + dir.step();
                if q == ob {
                    if p == b1 {
                        return true;
                    }
                } else if q != oa && clear(q) && !seen[at(q)] {
                    seen[at(q)] = true;
                    next.push(q);
                }
            }
        }
        std::mem::swap(&mut layer, &mut next);
        next.clear();
        cells += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Solid cells given as a set.
    struct Cells(HashSet<Point>);

    impl Occupancy for Cells {
        fn room_at(&self, p: Point) -> bool {
            self.0.contains(&p)
        }
        fn solid_window(&self, min: Point, max: Point) -> Vec<bool> {
            let mut out = Vec::new();
            for y in min.y..max.y {
                for x in min.x..max.x {
                    out.push(self.0.contains(&Point::new(x, y)));
                }
            }
            out
        }
    }

    /// The closest door pairs kept as they are met are the first of all pairs in range,
    /// sorted: on random doors round two rooms (many at one distance, so ties are common).
    #[test]
    fn closest_pairs_are_the_first_of_all_sorted() {
        let mut rng = crate::seed::stream(4, "closest pairs");
        let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
        let mut kept = 0;
        for _ in 0..2000 {
            let (na, nb) = (below(40), below(40));
            let (lo, hi) = (below(8) as u32, 4 + below(30) as u32);
            // The second room's doors as often beside the first's as apart from them (up
            // to 30 cells off), so that the pairs of far cells are cut short too.
            let (ox, oy) = (below(61) - 30, below(61) - 30);
            let apart = if below(2) == 0 { (ox, oy) } else { (0, 0) };
            let mut doors = |n: i32, (ox, oy): (i32, i32)| -> Vec<(usize, Point, Dir)> {
                (0..n)
                    .map(|k| {
                        let c = Point::new(below(20) - 10 + ox, below(20) - 10 + oy);
                        (k as usize, c, Dir::ALL[below(4) as usize])
                    })
                    .collect()
            };
            let (da, db) = (doors(na, (0, 0)), doors(nb, apart));
            let ea: Vec<(usize, Point)> = da.iter().map(|&(i, c, _)| (i, c)).collect();
            let eb: Vec<(usize, Point)> = db.iter().map(|&(i, c, _)| (i, c)).collect();
            let got = closest_pairs(&ea, &eb, |i| da[i].2, |j| db[j].2, (lo, hi));
            let mut all = Vec::new();
            for &(i, ca, fa) in &da {
                for &(j, cb, fb) in &db {
                    let m = ca.manhattan(cb) + 1;
                    if m < lo || m > hi {
                        continue;
                    }
                    let behind = |c: Point, f: Dir, to: Point| {
                        let s = f.step();
                        u32::from((to.x - c.x) * s.x + (to.y - c.y) * s.y < 0)
                    };
                    all.push((
                        m + 12 * (behind(ca, fa, cb) + behind(cb, fb, ca)),
                        i,
                        j,
                        ca,
                        cb,
                    ));
                }
            }
            all.sort_unstable();
            all.truncate(TRIED);
            assert_eq!(got, all);
            kept += got.len();
        }
        assert!(kept > 5000, "{kept} pairs kept");
    }

    /// The breadth-first check and the corridor search agree with a plain breadth-first
    /// search (the `pathfinding` crate's) over the same moves, written out cell by cell: a
    /// corridor is found only where one of at most `hi` cells exists, the check says so
    /// exactly then, and a found corridor is a path of clear cells between the two doors.
    #[test]
    fn corridor_search_matches_a_plain_breadth_first_search() {
        let mut rng = crate::seed::stream(11, "corridor search");
        let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
        let (mut found, mut refused) = (0, 0);
        for _ in 0..3000 {
            let density = 1 + below(6);
            let mut solid = HashSet::new();
            for y in -12..24 {
                for x in -12..24 {
                    if below(40) < density {
                        solid.insert(Point::new(x, y));
                    }
                }
            }
            let oa = Point::new(below(12), below(12));
            let ob = Point::new(below(12), below(12));
            let (fa, fb) = (Dir::ALL[below(4) as usize], Dir::ALL[below(4) as usize]);
            let hi = 1 + below(30) as u32;
            solid.remove(&oa);
            solid.remove(&ob);
            let occ = Cells(solid);
            let (min, max) = search_box((oa, ob));
            let solid_at = |p: Point| {
                p.x < min.x || p.y < min.y || p.x >= max.x || p.y >= max.y || occ.0.contains(&p)
            };
            let clear = |p: Point| {
                (-1..=1).all(|dy| (-1..=1).all(|dx| !solid_at(Point::new(p.x + dx, p.y + dy))))
            };
            let (a1, b1) = (oa + fa.step(), ob + fb.step());
            // The reference: shortest path in cells under the router's moves, or none.
            let shortest = if oa == ob {
                Some(1)
            } else if (a1 != ob && !clear(a1)) || (b1 != oa && !clear(b1)) {
                None
            } else {
                pathfinding::directed::bfs::bfs(
                    &oa,
                    |&p| -> Vec<Point> {
                        if p == oa {
                            return if a1 == ob || clear(a1) {
                                vec![a1]
                            } else {
                                vec![]
                            };
                        }
                        Dir::ALL
                            .iter()
                            .map(|d| p + d.step())
                            .filter(|&q| {
                                if q == ob {
                                    p == b1
                                } else {
                                    q != oa && clear(q)
                                }
                            })
                            .collect()
                    },
                    |&p| p == ob,
                )
                .map(|path| path.len() as u32)
            };
            let within = shortest.is_some_and(|n| n <= hi);
            if oa != ob && a1 != oa && clear(a1) && (b1 == oa || clear(b1)) {
                assert_eq!(
                    reachable_within(oa, a1, ob, b1, hi, (min, max), &clear),
                    within,
                    "{oa:?} {fa:?} {ob:?} {fb:?} hi {hi}"
                );
            }
            let mut window = None;
            let got = search(
                || Window::new(&occ, min, max),
                &mut window,
                oa,
                fa,
                ob,
                fb,
                hi,
            );
            match got {
                Some(cells) => {
                    found += 1;
                    assert!(within, "{oa:?} {ob:?}: a corridor where none fits");
                    let n = cells.len() as u32;
                    assert!(shortest.unwrap() <= n && n <= hi);
                    assert_eq!((cells[0], cells[cells.len() - 1]), (oa, ob));
                    for pair in cells.windows(2) {
                        assert_eq!(pair[0].manhattan(pair[1]), 1);
                    }
                    for &c in cells.iter().skip(1).take(cells.len().saturating_sub(2)) {
                        assert!(c == a1 || c == b1 || clear(c), "{c:?} not clear");
                    }
                }
                None => {
                    refused += 1;
                }
            }
        }
        assert!(found > 400 && refused > 400, "{found} {refused}");
    }
}
