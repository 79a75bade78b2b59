//! Parts turned whole: a rotation or mirror of a part's layout keeps every contact and
//! corridor, so each layout of a part is tried under every transformation its rooms' templates
//! allow. [`ShapeSet::turn_table`] finds, by geometry, the shape each shape turns into;
//! [`Piece`] is one layout of a part in its own coordinates, and [`Planner::turned`] its copies.

use super::super::Segment;
use super::super::corridor::Corridor;
use super::super::geom::{Point, Rect, Transform, min_corner};
use super::parts::Part;
use super::{Planner, ShapeSet, State};

/// A layout of a part turned every way its rooms' templates allow (see
/// [`Planner::turned`]); the first is the layout as found.
pub(super) type Turns = std::rc::Rc<[Piece]>;

/// One layout of a part, in the part's own coordinates.
#[derive(Clone)]
pub(super) struct Piece {
    pub(super) placed: Vec<(u32, Point)>,
    pub(super) corridors: Vec<Corridor>,
    /// The middle of its rooms' boxes.
    pub(super) centre: (f64, f64),
    /// The box around its rooms.
    pub(super) bbox: Rect,
}

impl Piece {
    /// Whether the two pieces are the same up to a move.
    pub(super) fn same_as(&self, other: &Piece) -> bool {
        let t = other.placed[0].1 - self.placed[0].1;
        self.placed.len() == other.placed.len()
            && self.corridors.len() == other.corridors.len()
            && self
                .placed
                .iter()
                .zip(&other.placed)
                .all(|(a, b)| a.0 == b.0 && a.1 + t == b.1)
            && self.corridors.iter().zip(&other.corridors).all(|(a, b)| {
                a.cells.len() == b.cells.len()
                    && a.cells.iter().zip(&b.cells).all(|(&p, &q)| p + t == q)
            })
    }

    /// Its box moved by `t`.
    pub(super) fn bbox_at(&self, t: Point) -> Rect {
        Rect {
            min: self.bbox.min + t,
            max: self.bbox.max + t,
        }
    }
}

impl ShapeSet {
    /// For each shape and transformation (in [`Transform::ALL`]'s order), the shape of the
    /// same template that the shape turns into, and the corner `m` such that a room of the
    /// shape at `p`, turned about the origin, is the found shape at `turn(p) + m`; `None`
    /// where the template does not allow the turned shape.
    pub(super) fn turn_table(&self) -> &[super::Turned] {
        self.turns.get_or_init(|| {
            (0..self.shapes.len())
                .map(|s| {
                    let mut row = [None; 8];
                    for (r, &tr) in Transform::ALL.iter().enumerate() {
                        row[r] = self.turn_shape(s, tr);
                    }
                    row
                })
                .collect()
        })
    }

    /// See [`ShapeSet::turn_table`].
    pub(super) fn turn_shape(&self, s: usize, tr: Transform) -> Option<(u32, Point)> {
        let shape = &self.shapes[s];
        let moved: Vec<Point> = shape.outline.iter().map(|&p| tr.apply(p)).collect();
        let m = min_corner(&moved);
        let (w, h) = (shape.mask.width, shape.mask.height);
        // Doors turned, as (lower end, upper end, facing), with their kind and socket.
        let key = |a: Point, b: Point, f| (a.min_each(b), a.max_each(b), f);
        let mut doors: Vec<_> = shape
            .doors
            .iter()
            .map(|d| {
                let (a, b) = (tr.apply(d.a) - m, tr.apply(d.b) - m);
                (key(a, b, tr.apply_dir(d.facing)), d.kind, &d.socket)
            })
            .collect();
        doors.sort_by_key(|d| d.0);
        self.template_shapes[shape.template]
            .iter()
            .copied()
            .find(|&c| {
                let cand = &self.shapes[c as usize];
                if cand.mask.area != shape.mask.area || cand.doors.len() != doors.len() {
                    return false;
                }
                let cells_match = (0..h).all(|y| {
                    (0..w).all(|x| {
                        let q = Point::new(x, y);
                        !shape.mask.inside(x, y) || {
                            let t = tr.apply(q).min_each(tr.apply(q + Point::new(1, 1))) - m;
                            cand.mask.inside(t.x, t.y)
                        }
                    })
                });
                if !cells_match {
                    return false;
                }
                let mut theirs: Vec<_> = cand
                    .doors
                    .iter()
                    .map(|d| (key(d.a, d.b, d.facing), d.kind, &d.socket))
                    .collect();
                theirs.sort_by_key(|d| d.0);
                theirs == doors
            })
            .map(|c| (c, m))
    }
}

impl Planner {
    /// A part's finished search as a piece.
    pub(super) fn piece(&self, part: &Part, sub: State) -> Piece {
        let placed: Vec<(u32, Point)> = sub
            .placed
            .into_iter()
            .take(part.rooms.len())
            .map(|p| p.expect("a finished search places every room"))
            .collect();
        let corridors = sub
            .corridors
            .into_iter()
            .filter(|c| part.links[c.link] != usize::MAX)
            .collect();
        self.piece_of(placed, corridors)
    }

    /// A piece of rooms and corridors, with its box and middle.
    pub(super) fn piece_of(&self, placed: Vec<(u32, Point)>, corridors: Vec<Corridor>) -> Piece {
        let (mut x, mut y) = (0.0, 0.0);
        let mut bbox = Rect {
            min: Point::new(i32::MAX, i32::MAX),
            max: Point::new(i32::MIN, i32::MIN),
        };
        for &(s, p) in &placed {
            let r = self.rect_of(s, p);
            bbox.min = Point::new(bbox.min.x.min(r.min.x), bbox.min.y.min(r.min.y));
            bbox.max = Point::new(bbox.max.x.max(r.max.x), bbox.max.y.max(r.max.y));
            x += f64::from(r.min.x + r.max.x) / 2.0;
            y += f64::from(r.min.y + r.max.y) / 2.0;
        }
        let k = placed.len().max(1) as f64;
        Piece {
            placed,
            corridors,
            centre: (x / k, y / k),
            bbox,
        }
    }

    /// The piece and its copies turned by every transformation that turns each of its rooms
    /// into a shape its template allows (a rotation or mirror of the whole part keeps every
    /// contact and corridor, so the copy is a layout of the part too).
    pub(super) fn turned(&self, piece: Piece) -> Turns {
        let table = self.set.turn_table();
        let mut out = vec![piece];
        'turn: for (r, &tr) in Transform::ALL.iter().enumerate().skip(1) {
            let first = &out[0];
            let mut placed = Vec::with_capacity(first.placed.len());
            for &(s, p) in &first.placed {
                let Some((s2, m)) = table[s as usize][r] else {
                    continue 'turn;
                };
                placed.push((s2, tr.apply(p) + m));
            }
            let point = |q: Point| tr.apply(q);
            let cell = |q: Point| tr.apply(q).min_each(tr.apply(q + Point::new(1, 1)));
            let seg = |sg: Segment| {
                let (a, b) = (point(sg.a), point(sg.b));
                Segment {
                    a: a.min_each(b),
                    b: a.max_each(b),
                }
            };
            let corridors = first
                .corridors
                .iter()
                .map(|c| {
                    let mut occupied: Vec<Point> = c.occupied.iter().map(|&q| cell(q)).collect();
                    occupied.sort_unstable();
                    let (a, b) = (point(c.rect.min), point(c.rect.max));
                    Corridor {
                        link: c.link,
                        from_room: c.from_room,
                        door_a: seg(c.door_a),
                        door_b: seg(c.door_b),
                        cells: c.cells.iter().map(|&q| cell(q)).collect(),
                        occupied,
                        rect: Rect {
                            min: a.min_each(b),
                            max: a.max_each(b),
                        },
                    }
                })
                .collect();
            let turned = self.piece_of(placed, corridors);
            if !out.iter().any(|p| p.same_as(&turned)) {
                out.push(turned);
            }
        }
        out.into()
    }
}

#[cfg(test)]
mod tests {
    use super::super::ShapeSet;
    use crate::layout::RoomTemplate;
    use crate::layout::geom::{Point, Transform};
    use crate::layout::template::{DoorMode, TemplateShape};

    /// The cells inside a shape placed at `p`.
    fn cells(set: &ShapeSet, s: u32, p: Point) -> Vec<Point> {
        let m = &set.shapes[s as usize].mask;
        let mut out: Vec<Point> = (0..m.height)
            .flat_map(|y| (0..m.width).map(move |x| (x, y)))
            .filter(|&(x, y)| m.inside(x, y))
            .map(|(x, y)| Point::new(x + p.x, y + p.y))
            .collect();
        out.sort_unstable();
        out
    }

    /// Each shape turned by each transformation is a shape of its template exactly when the
    /// template allows it, and that shape at the turned position covers the turned cells and
    /// has the turned doors: an L that may only be turned half round turns no other way, a
    /// rectangle every way.
    #[test]
    fn turned_shapes_cover_the_turned_cells() {
        let mut ell = RoomTemplate::rectangle("ell", 1, 1, 1);
        ell.shape = TemplateShape::Cells(vec!["#   ".into(), "#   ".into(), "####".into()]);
        ell.doors = DoorMode::Sliding {
            length: 1,
            corner_distance: 0,
            socket: None,
        };
        ell.transforms = vec![Transform::Identity, Transform::Rotate180];
        let set = ShapeSet::new(&[RoomTemplate::rectangle("long", 5, 9, 1), ell]).unwrap();
        let table = set.turn_table();
        let p = Point::new(3, -7);
        let cell = |tr: Transform, q: Point| tr.apply(q).min_each(tr.apply(q + Point::new(1, 1)));
        let mut turns = 0;
        for (s, row) in table.iter().enumerate() {
            let template = set.shapes[s].template;
            for (r, &tr) in Transform::ALL.iter().enumerate() {
                let Some((s2, m)) = row[r] else {
                    assert_eq!(template, 1, "the rectangle turns every way");
                    assert!(!matches!(tr, Transform::Identity | Transform::Rotate180));
                    continue;
                };
                turns += 1;
                assert_eq!(set.shapes[s2 as usize].template, template);
                let at = tr.apply(p) + m;
                let mut turned: Vec<Point> = cells(&set, s as u32, p)
                    .into_iter()
                    .map(|q| cell(tr, q))
                    .collect();
                turned.sort_unstable();
                assert_eq!(turned, cells(&set, s2, at), "shape {s}, {tr:?}");
                let doors = |s: u32, off: Point, tr: Transform| {
                    let mut d: Vec<(Point, Point)> = set.shapes[s as usize]
                        .doors
                        .iter()
                        .map(|d| {
                            let (a, b) = (tr.apply(d.a + off), tr.apply(d.b + off));
                            (a.min_each(b), a.max_each(b))
                        })
                        .collect();
                    d.sort_unstable();
                    d
                };
                assert_eq!(doors(s as u32, p, tr), doors(s2, at, Transform::Identity));
            }
        }
        // The rectangle's two shapes turn 8 ways each, the L's two shapes only half round.
        assert_eq!(set.template_shapes[1].len(), 2);
        assert_eq!(turns, 2 * 8 + 2 * 2);
    }
}
