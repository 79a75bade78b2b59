//! A strict, independent check of a layout against its problem: every room placed once with an
//! allowed template and transformation and the template's exact outline; no two interiors
//! overlap; every link realised by a door position both rooms allow (contact), or by a corridor
//! of allowed length that starts and ends outside a door of each room, runs through no room
//! and no other corridor, and beside no other corridor and no room without walls (thinner than
//! three cells) but its own two; the minimum distance between rooms that are not linked.
//!
//! The geometry here is its own, plain and cell by cell, and shares no code with the planner's
//! fast geometry (masks, sides, configuration spaces): a room is the set of cells whose centres
//! lie inside its outline polygon; two rooms overlap if they share a cell; their distance is the
//! smallest Manhattan distance between lattice points of their outlines; a corridor starts in
//! the cell beside the middle of its door that is not in the room. Only the door positions a
//! template allows come from the template layer (the template's own definition). The unit tests
//! cross-check the planner's geometry against this one on random shapes.

use std::collections::{HashMap, HashSet};

use super::geom::{Point, min_corner};
use super::template::Shape;
use super::{Layout, LayoutProblem, Segment};

/// The cells (by lower-left corner) whose centres lie inside the closed rectilinear polygon
/// `outline`: a ray from each centre crosses the polygon's vertical edges an odd number of
/// times. Centres sit at half cells, so no ray meets a corner.
pub(crate) fn cells_inside(outline: &[Point]) -> HashSet<Point> {
    let mut out = HashSet::new();
    if outline.len() < 3 {
        return out;
    }
    let (lo, hi) = outline.iter().fold(
        (
            Point::new(i32::MAX, i32::MAX),
            Point::new(i32::MIN, i32::MIN),
        ),
        |(lo, hi), p| {
            (
                Point::new(lo.x.min(p.x), lo.y.min(p.y)),
                Point::new(hi.x.max(p.x), hi.y.max(p.y)),
            )
        },
    );
    let edges: Vec<(Point, Point)> = (0..outline.len())
        .map(|i| (outline[i], outline[(i + 1) % outline.len()]))
        .filter(|(a, b)| a.x == b.x)
        .collect();
    for y in lo.y..hi.y {
        for x in lo.x..hi.x {
            // In doubled coordinates the centre is (2x + 1, 2y + 1).
            let (cx, cy) = (2 * i64::from(x) + 1, 2 * i64::from(y) + 1);
            let crossings = edges
                .iter()
                .filter(|(a, b)| {
                    let ex = 2 * i64::from(a.x);
                    let (y0, y1) = (2 * i64::from(a.y.min(b.y)), 2 * i64::from(a.y.max(b.y)));
                    ex > cx && y0 < cy && cy < y1
                })
                .count();
            if crossings % 2 == 1 {
                out.insert(Point::new(x, y));
            }
        }
    }
    out
}

/// Every lattice point on the closed polygon `outline`.
pub(crate) fn outline_points(outline: &[Point]) -> Vec<Point> {
    let mut out = Vec::new();
    for i in 0..outline.len() {
        let (a, b) = (outline[i], outline[(i + 1) % outline.len()]);
        let steps = a.manhattan(b) as i32;
        let dir = Point::new((b.x - a.x).signum(), (b.y - a.y).signum());
        for k in 0..steps.max(1) {
            out.push(Point::new(a.x + dir.x * k, a.y + dir.y * k));
        }
    }
    out
}

/// The smallest Manhattan distance between lattice points of two outlines (the smallest
/// distance between the outlines: between axis-parallel segments with integer ends it is met
/// at lattice points).
pub(crate) fn points_gap(a: &[Point], b: &[Point]) -> u32 {
    a.iter()
        .flat_map(|p| b.iter().map(move |q| distance(*p, *q)))
        .min()
        .unwrap_or(u32::MAX)
}

/// A lower bound on [`points_gap`]: the Manhattan gap between the boxes round the points.
fn box_gap(a: &[Point], b: &[Point]) -> u32 {
    let span = |v: &[Point]| {
        v.iter().fold(
            (i32::MAX, i32::MAX, i32::MIN, i32::MIN),
            |(x0, y0, x1, y1), p| (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)),
        )
    };
    let (a, b) = (span(a), span(b));
    // In 64 bits: a file may put rooms at both ends of the coordinate range.
    let gap = |lo_a: i32, hi_a: i32, lo_b: i32, hi_b: i32| {
        (i64::from(lo_b) - i64::from(hi_a))
            .max(i64::from(lo_a) - i64::from(hi_b))
            .max(0)
    };
    let (dx, dy) = (gap(a.0, a.2, b.0, b.2), gap(a.1, a.3, b.1, b.3));
    u32::try_from(dx + dy).unwrap_or(u32::MAX)
}

/// The Manhattan distance between two points, `u32::MAX` where it is more (a file may hold
/// points at both ends of the coordinate range).
fn distance(a: Point, b: Point) -> u32 {
    a.x.abs_diff(b.x).saturating_add(a.y.abs_diff(b.y))
}

/// The cell a corridor through door `a`-`b` of a room with cells `inside` starts in: of the two
/// cells that share the door's middle unit edge (the lower middle for even lengths), the one not
/// in the room. `None` if the door is not on the room's boundary there.
pub(crate) fn cell_outside(a: Point, b: Point, inside: &HashSet<Point>) -> Option<Point> {
    let (a, b) = (a.min(b), a.max(b));
    let len = a.manhattan(b) as i32;
    let k = (len - 1).max(0) / 2;
    let (one, two) = if a.y == b.y {
        // A horizontal door: the unit edge from (a.x + k, y) to (a.x + k + 1, y) is shared by
        // the cells above and below it.
        let x = a.x + k;
        (Point::new(x, a.y), Point::new(x, a.y - 1))
    } else {
        let y = a.y + k;
        (Point::new(a.x, y), Point::new(a.x - 1, y))
    };
    match (inside.contains(&one), inside.contains(&two)) {
        (true, false) => Some(two),
        (false, true) => Some(one),
        _ => None,
    }
}

/// What is wrong with a layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// The numbers of rooms or links differ from the problem.
    #[error("the layout has {got} {what}, the problem {want}")]
    Count {
        /// `"rooms"` or `"links"`.
        what: &'static str,
        /// In the layout.
        got: usize,
        /// In the problem.
        want: usize,
    },
    /// A room uses a template or transformation it may not, or its outline is not the
    /// template's.
    #[error("room `{room}`: {problem}")]
    Room {
        /// The room.
        room: String,
        /// What is wrong.
        problem: String,
    },
    /// Two rooms' interiors overlap.
    #[error("rooms `{0}` and `{1}` overlap")]
    Overlap(String, String),
    /// Two rooms that are not linked are too close.
    #[error("rooms `{a}` and `{b}` are {distance} apart; the minimum distance is {min}")]
    Distance {
        /// One room.
        a: String,
        /// The other.
        b: String,
        /// Their distance.
        distance: u32,
        /// The minimum.
        min: u32,
    },
    /// A link is not realised properly.
    #[error("link `{from}`-`{to}`: {problem}")]
    Link {
        /// One end.
        from: String,
        /// The other end.
        to: String,
        /// What is wrong.
        problem: String,
    },
}

/// A placed room as the check sees it.
struct Room {
    /// The template's shape under the room's transformation (for its door positions).
    shape: Shape,
    /// The lower-left corner of the room's box.
    pos: Point,
    /// Its cells.
    cells: HashSet<Point>,
    /// The lattice points of its outline.
    boundary: Vec<Point>,
}

fn seg(a: Point, b: Point) -> Segment {
    Segment {
        a: a.min(b),
        b: a.max(b),
    }
}

/// Checks `layout` against `problem`.
pub fn check(problem: &LayoutProblem, layout: &Layout) -> Result<(), Violation> {
    if layout.rooms.len() != problem.rooms.len() {
        return Err(Violation::Count {
            what: "rooms",
            got: layout.rooms.len(),
            want: problem.rooms.len(),
        });
    }
    if layout.links.len() != problem.links.len() {
        return Err(Violation::Count {
            what: "links",
            got: layout.links.len(),
            want: problem.links.len(),
        });
    }
    let mut shapes: Vec<Room> = Vec::with_capacity(layout.rooms.len());
    for (spec, placed) in problem.rooms.iter().zip(&layout.rooms) {
        let bad = |problem: String| Violation::Room {
            room: spec.name.clone(),
            problem,
        };
        if !spec.templates.contains(&placed.template) {
            return Err(bad(format!(
                "template {} is not one of the room's templates",
                placed.template_name
            )));
        }
        let t = &problem.templates[placed.template];
        if !t.transforms.contains(&placed.transform) {
            return Err(bad(format!(
                "template `{}` does not allow {}",
                t.name,
                placed.transform.name()
            )));
        }
        let outline = t.outline().map_err(|e| bad(e.to_string()))?;
        let shape = t
            .compile_one(placed.template, &outline, placed.transform, None)
            .map_err(|e| bad(e.to_string()))?;
        let pos = min_corner(&placed.outline);
        // A room's box is never bigger than an outline may be: refuse a bigger one before
        // counting its cells (a file may hold any numbers).
        let too_big = placed.outline.iter().any(|p| {
            i64::from(p.x) - i64::from(pos.x) > i64::from(super::geom::MAX_SIDE)
                || i64::from(p.y) - i64::from(pos.y) > i64::from(super::geom::MAX_SIDE)
        });
        if too_big || placed.outline.len() > 4 * super::geom::MAX_SIDE as usize {
            return Err(bad(format!(
                "the outline is not template `{}` under {}: it spans more than {} cells",
                t.name,
                placed.transform.name(),
                super::geom::MAX_SIDE
            )));
        }
        let cells = cells_inside(&placed.outline);
        let want: HashSet<Point> = cells_inside(&shape.outline)
            .into_iter()
            .map(|c| c + pos)
            .collect();
        if cells != want {
            return Err(bad(format!(
                "the outline is not template `{}` under {}",
                t.name,
                placed.transform.name()
            )));
        }
        shapes.push(Room {
            shape,
            pos,
            cells,
            boundary: outline_points(&placed.outline),
        });
    }
    let n = shapes.len();
    let mut linked = vec![Vec::new(); n];
    for l in &problem.links {
        linked[l.from].push(l.to);
        linked[l.to].push(l.from);
    }
    let name = |i: usize| problem.rooms[i].name.clone();
    // Overlap: a cell in two rooms (the first pair found, in room order).
    let mut owner: HashMap<Point, usize> = HashMap::new();
    let mut clash: Option<(usize, usize)> = None;
    for (j, room) in shapes.iter().enumerate() {
        for &c in &room.cells {
            if let Some(&i) = owner.get(&c) {
                clash = Some(clash.map_or((i, j), |c| c.min((i, j))));
            } else {
                owner.insert(c, j);
            }
        }
    }
    for i in 0..n {
        for j in (i + 1)..n {
            if clash == Some((i, j)) {
                return Err(Violation::Overlap(name(i), name(j)));
            }
            if problem.min_distance > 0
                && !linked[i].contains(&j)
                && box_gap(&shapes[i].boundary, &shapes[j].boundary) < problem.min_distance
            {
                let g = points_gap(&shapes[i].boundary, &shapes[j].boundary);
                if g < problem.min_distance {
                    return Err(Violation::Distance {
                        a: name(i),
                        b: name(j),
                        distance: g,
                        min: problem.min_distance,
                    });
                }
            }
        }
    }
    let mut corridor_cells: HashMap<Point, usize> = HashMap::new();
    for (li, (spec, placed)) in problem.links.iter().zip(&layout.links).enumerate() {
        let bad = |problem: String| Violation::Link {
            from: name(spec.from),
            to: name(spec.to),
            problem,
        };
        let door_at = |room: usize, s: Segment, is_from: bool| {
            let (shape, pos) = (&shapes[room].shape, shapes[room].pos);
            shape
                .doors
                .iter()
                .find(|d| seg(d.a + pos, d.b + pos) == seg(s.a, s.b) && d.kind.allows(is_from))
        };
        let Some(df) = door_at(spec.from, placed.door_from, true) else {
            return Err(bad(format!(
                "door {}-{} is not a door position of `{}`",
                placed.door_from.a,
                placed.door_from.b,
                name(spec.from)
            )));
        };
        let Some(dt) = door_at(spec.to, placed.door_to, false) else {
            return Err(bad(format!(
                "door {}-{} is not a door position of `{}`",
                placed.door_to.a,
                placed.door_to.b,
                name(spec.to)
            )));
        };
        if let (Some(a), Some(b)) = (&df.socket, &dt.socket)
            && a != b
        {
            return Err(bad(format!("sockets `{a}` and `{b}` do not match")));
        }
        if placed.corridor.is_empty() {
            if !spec.realise.contact_allowed() {
                return Err(bad("the link must be a corridor".into()));
            }
            if seg(placed.door_from.a, placed.door_from.b)
                != seg(placed.door_to.a, placed.door_to.b)
                || df.facing != dt.facing.opposite()
            {
                return Err(bad("the two doors do not meet".into()));
            }
            continue;
        }
        let Some((lo, hi)) = spec.realise.path_bounds() else {
            return Err(bad("the link must be direct contact".into()));
        };
        let cells = &placed.corridor;
        let len = cells.len() as u32;
        if len < lo || len > hi {
            return Err(bad(format!("corridor of {len} cells, allowed {lo}..={hi}")));
        }
        let start = cell_outside(
            placed.door_from.a,
            placed.door_from.b,
            &shapes[spec.from].cells,
        );
        let end = cell_outside(placed.door_to.a, placed.door_to.b, &shapes[spec.to].cells);
        let (Some(start), Some(end)) = (start, end) else {
            return Err(bad("a corridor's door is not on its room's outline".into()));
        };
        if cells.first() != Some(&start) || cells.last() != Some(&end) {
            return Err(bad(
                "the corridor does not start and end at its doors".into()
            ));
        }
        if cells.windows(2).any(|w| distance(w[0], w[1]) != 1) {
            return Err(bad("the corridor has a gap".into()));
        }
        for &c in cells {
            if let Some(other) = corridor_cells.insert(c, li)
                && other != li
            {
                return Err(bad(format!(
                    "the corridor crosses the corridor of link {other}"
                )));
            }
            if let Some(&r) = owner.get(&c) {
                return Err(bad(format!("the corridor runs through room `{}`", name(r))));
            }
        }
    }
    // As tiles, a corridor is floor with walls round it, and a room's outer ring of cells is
    // wall, except in a room thinner than three cells, which is floor throughout: a corridor
    // beside another corridor, or beside a thin room that is not one of its ends, would be
    // a way between them that the level's graph does not have.
    let thin: Vec<bool> = shapes
        .iter()
        .map(|r| {
            let (lo, hi) = r.cells.iter().fold(
                (
                    Point::new(i32::MAX, i32::MAX),
                    Point::new(i32::MIN, i32::MIN),
                ),
                |(lo, hi), &c| (lo.min_each(c), hi.max_each(c)),
            );
            i64::from(hi.x) - i64::from(lo.x) < 2 || i64::from(hi.y) - i64::from(lo.y) < 2
        })
        .collect();
    for (li, (spec, placed)) in problem.links.iter().zip(&layout.links).enumerate() {
        for &c in &placed.corridor {
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                // (A file may hold any numbers: a cell beyond them is beside nothing.)
                let (Some(x), Some(y)) = (c.x.checked_add(dx), c.y.checked_add(dy)) else {
                    continue;
                };
                let q = Point::new(x, y);
                let beside = match (corridor_cells.get(&q), owner.get(&q)) {
                    (Some(&other), _) if other != li => format!("link {other}'s corridor"),
                    (_, Some(&r)) if thin[r] && r != spec.from && r != spec.to => {
                        format!("room `{}`, which has no walls", name(r))
                    }
                    _ => continue,
                };
                return Err(Violation::Link {
                    from: name(spec.from),
                    to: name(spec.to),
                    problem: format!("the corridor runs beside {beside} at cell {c}"),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The planner's fast geometry (masks, sides, `overlap`, `outline_gap`, `outside_cell`)
    //! against the plain cell-by-cell geometry of the check, on random rectangles, L and U
    //! shapes under every transformation.

    use super::*;
    use crate::layout::geom::{Mask, Transform, gap_at_least, outline_gap, overlap};
    use crate::layout::template::{DoorMode, RoomTemplate, TemplateShape, XY};
    use proptest::prelude::*;

    /// A rectangle, an L (a corner cut) or a U (a notch in the top side), as outline corners.
    fn outline_strategy() -> impl Strategy<Value = Vec<XY>> {
        (0u8..3, 2i32..9, 2i32..9, 1i32..8, 1i32..8, 0usize..8).prop_map(
            |(kind, w, h, p, q, turn)| {
                let corners: Vec<XY> = match kind {
                    0 => vec![[0, 0], [0, h], [w, h], [w, 0]],
                    1 => {
                        let (cw, ch) = (p.min(w - 1), q.min(h - 1));
                        vec![
                            [0, 0],
                            [0, h],
                            [w - cw, h],
                            [w - cw, h - ch],
                            [w, h - ch],
                            [w, 0],
                        ]
                    }
                    _ => {
                        let w = w.max(3);
                        let (a, c) = (1 + (p - 1).min(w - 3), 0);
                        let c = (a + 1 + c).max(a + 1).min(w - 1);
                        let b = q.min(h - 1).max(1);
                        vec![
                            [0, 0],
                            [0, h],
                            [a, h],
                            [a, h - b],
                            [c, h - b],
                            [c, h],
                            [w, h],
                            [w, 0],
                        ]
                    }
                };
                let t = Transform::ALL[turn];
                corners
                    .into_iter()
                    .map(|[x, y]| {
                        let p = t.apply(Point::new(x, y));
                        [p.x, p.y]
                    })
                    .collect()
            },
        )
    }

    fn points(v: &[XY]) -> Vec<Point> {
        v.iter().map(|&[x, y]| Point::new(x, y)).collect()
    }

    /// A mask and its outline placed with its box's lower-left corner at `at`.
    fn placed(outline: &[XY], at: Point) -> (Mask, Vec<Point>) {
        let pts = points(outline);
        let m = min_corner(&pts);
        let local: Vec<Point> = pts.iter().map(|&p| p - m).collect();
        let mask = Mask::from_outline(&local).expect("a simple rectilinear outline");
        (mask, local.iter().map(|&p| p + at).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn masks_overlap_and_gaps_match_the_cell_by_cell_geometry(
            a in outline_strategy(), b in outline_strategy(),
            pa in (-6i32..6, -6i32..6), pb in (-12i32..12, -12i32..12),
        ) {
            let (pa, pb) = (Point::new(pa.0, pa.1), Point::new(pb.0, pb.1));
            let (ma, oa) = placed(&a, pa);
            let (mb, ob) = placed(&b, pb);
            let (ca, cb) = (cells_inside(&oa), cells_inside(&ob));
            // The mask holds exactly the cells inside the outline.
            let from_mask: HashSet<Point> = (0..ma.height)
                .flat_map(|y| (0..ma.width).map(move |x| (x, y)))
                .filter(|&(x, y)| ma.inside(x, y))
                .map(|(x, y)| Point::new(x, y) + pa)
                .collect();
            prop_assert_eq!(&from_mask, &ca);
            prop_assert_eq!(ma.area as usize, ca.len());
            prop_assert_eq!(overlap(&ma, pa, &mb, pb), ca.intersection(&cb).next().is_some());
            if ca.is_disjoint(&cb) {
                let gap = points_gap(&outline_points(&oa), &outline_points(&ob));
                prop_assert_eq!(outline_gap(&ma, pa, &mb, pb), gap);
                for d in 0..8 {
                    prop_assert_eq!(gap_at_least(&ma, pa, &mb, pb, d), gap >= d);
                }
            }
        }

        #[test]
        fn corridors_start_in_the_cell_outside_each_door(
            a in outline_strategy(), length in 1i32..3, corner in 0i32..1,
            at in (-9i32..9, -9i32..9),
        ) {
            let template = RoomTemplate {
                shape: TemplateShape::Outline(a),
                doors: DoorMode::Sliding { length, corner_distance: corner, socket: None },
                ..RoomTemplate::rectangle("shape", 1, 1, 0)
            };
            let outline = template.outline().unwrap();
            let at = Point::new(at.0, at.1);
            let mut doors = 0;
            for &t in &Transform::ALL {
                let shape = template.compile_one(0, &outline, t, None).unwrap();
                let cells: HashSet<Point> =
                    cells_inside(&shape.outline).into_iter().map(|c| c + at).collect();
                for d in &shape.doors {
                    doors += 1;
                    let fast = crate::layout::corridor::outside_cell(d.a + at, d.b + at, d.facing);
                    prop_assert_eq!(Some(fast), cell_outside(d.a + at, d.b + at, &cells), "{:?}", d);
                }
            }
            // Every shape is at least 2 wide and 2 tall, so doors of length 1 or 2 fit.
            prop_assert!(doors > 0);
        }
    }
}
