//! A strict, independent check of a layout against its problem: every room placed once with an
//! allowed template and transformation and the template's exact outline; no two interiors
//! overlap; every link realised by a door position both rooms allow (contact), or by a corridor
//! of allowed length that starts and ends outside a door of each room and runs through no room
//! and no other corridor; the minimum distance between rooms that are not linked.

use std::collections::HashMap;

use super::corridor::outside_cell;
use super::geom::{Mask, Point, min_corner};
use super::geom::{outline_gap, overlap};
use super::template::Shape;
use super::{Layout, LayoutProblem, Segment};

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
    let mut shapes: Vec<(Shape, Point)> = Vec::with_capacity(layout.rooms.len());
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
            .compile_one(placed.template, &outline, placed.transform)
            .map_err(|e| bad(e.to_string()))?;
        let pos = min_corner(&placed.outline);
        let local: Vec<Point> = placed.outline.iter().map(|&p| p - pos).collect();
        let mask = Mask::from_outline(&local).map_err(|e| bad(format!("outline: {e}")))?;
        if mask.bits != shape.mask.bits || mask.width != shape.mask.width {
            return Err(bad(format!(
                "the outline is not template `{}` under {}",
                t.name,
                placed.transform.name()
            )));
        }
        shapes.push((shape, pos));
    }
    let n = shapes.len();
    let mut linked = vec![Vec::new(); n];
    for l in &problem.links {
        linked[l.from].push(l.to);
        linked[l.to].push(l.from);
    }
    let name = |i: usize| problem.rooms[i].name.clone();
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, pa) = (&shapes[i].0, shapes[i].1);
            let (b, pb) = (&shapes[j].0, shapes[j].1);
            if overlap(&a.mask, pa, &b.mask, pb) {
                return Err(Violation::Overlap(name(i), name(j)));
            }
            if problem.min_distance > 0 && !linked[i].contains(&j) {
                let g = outline_gap(&a.mask, pa, &b.mask, pb);
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
            let (shape, pos) = (&shapes[room].0, shapes[room].1);
            shape
                .doors
                .iter()
                .find(|d| seg(d.a + pos, d.b + pos) == seg(s.a, s.b) && d.kind.allows(is_from))
        };
        let Some(df) = door_at(spec.from, placed.door_from, true) else {
            return Err(bad(format!(
                "door {:?}-{:?} is not a door position of `{}`",
                placed.door_from.a,
                placed.door_from.b,
                name(spec.from)
            )));
        };
        let Some(dt) = door_at(spec.to, placed.door_to, false) else {
            return Err(bad(format!(
                "door {:?}-{:?} is not a door position of `{}`",
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
        let pf = shapes[spec.from].1;
        let pt = shapes[spec.to].1;
        let start = outside_cell(df.a + pf, df.b + pf, df.facing);
        let end = outside_cell(dt.a + pt, dt.b + pt, dt.facing);
        if cells.first() != Some(&start) || cells.last() != Some(&end) {
            return Err(bad(
                "the corridor does not start and end at its doors".into()
            ));
        }
        if cells.windows(2).any(|w| w[0].manhattan(w[1]) != 1) {
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
            for (r, (shape, pos)) in shapes.iter().enumerate() {
                if shape.mask.inside(c.x - pos.x, c.y - pos.y) {
                    return Err(bad(format!("the corridor runs through room `{}`", name(r))));
                }
            }
        }
    }
    Ok(())
}
