//! Room templates: a rectilinear shape with door positions, the transformations it allows and
//! how often it may repeat. A template compiles, once per transformation, into a [`Shape`]:
//! the cell mask, the outline and every door position, in the shape's own frame (lower-left
//! corner at the origin).

use serde::{Deserialize, Serialize};

use super::geom::{Dir, Mask, Point, Transform, min_corner, outline_key};

/// A point in a data file: `(x, y)` in RON, `[x, y]` in JSON.
pub type XY = [i32; 2];

/// The largest coordinate (in absolute value) a template's outline or doors may use: far beyond
/// any room (outlines are at most [`super::geom::MAX_SIDE`] cells across), small enough that no
/// arithmetic on it overflows.
pub const MAX_COORDINATE: i32 = 1 << 16;

fn xy(p: XY) -> Point {
    Point::new(p[0], p[1])
}

/// The shape of a template: an outline polygon or a picture of its cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TemplateShape {
    /// Corners of a rectilinear polygon, in order (either way round), `y` up.
    Outline(Vec<XY>),
    /// Rows of cells, top row first; any character but a space or `.` is inside. The shape must
    /// be one piece without holes.
    Cells(Vec<String>),
}

/// Which way a door may be walked through first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum DoorKind {
    /// Either way.
    #[default]
    Any,
    /// Only as the way in: the link must lead into this room.
    Entrance,
    /// Only as the way out: the link must lead out of this room.
    Exit,
}

impl DoorKind {
    /// Whether a door of this kind may carry a link that leaves its room (`leaving`) or
    /// enters it.
    pub fn allows(self, leaving: bool) -> bool {
        match self {
            DoorKind::Any => true,
            DoorKind::Exit => leaving,
            DoorKind::Entrance => !leaving,
        }
    }
}

/// One explicit door: a segment on the outline (template frame).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorSpec {
    /// One end.
    pub from: XY,
    /// The other end (equal to `from` for a point door).
    pub to: XY,
    /// Direction restriction.
    #[serde(default)]
    pub kind: DoorKind,
    /// Only doors with the same socket (or none on either side) may meet.
    #[serde(default)]
    pub socket: Option<String>,
}

/// All doors of one length sliding along a segment of the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorLine {
    /// One end of the line.
    pub from: XY,
    /// The other end.
    pub to: XY,
    /// Length of each door.
    pub length: i32,
    /// Direction restriction.
    #[serde(default)]
    pub kind: DoorKind,
    /// Socket, as for [`DoorSpec`].
    #[serde(default)]
    pub socket: Option<String>,
}

/// Where a template may have doors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DoorMode {
    /// Sliding: every segment of `length` on any side, at least `corner_distance` from both
    /// ends of that side.
    Sliding {
        /// Door length in cells.
        length: i32,
        /// Distance kept from the corners of each side.
        corner_distance: i32,
        /// Socket for every door.
        #[serde(default)]
        socket: Option<String>,
    },
    /// An explicit list.
    Manual(Vec<DoorSpec>),
    /// Sliding along given lines.
    Lines(Vec<DoorLine>),
}

/// How often a template may be used in one level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum RepeatMode {
    /// Any number of times.
    #[default]
    AllowRepeat,
    /// Never by two linked rooms.
    NoImmediate,
    /// At most once.
    NoRepeat,
}

fn identity_only() -> Vec<Transform> {
    vec![Transform::Identity]
}

fn one() -> f64 {
    1.0
}

/// A room template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomTemplate {
    /// Unique name.
    pub name: String,
    /// The shape.
    pub shape: TemplateShape,
    /// Door positions.
    pub doors: DoorMode,
    /// Allowed transformations (default: identity only).
    #[serde(default = "identity_only")]
    pub transforms: Vec<Transform>,
    /// Repeat restriction (`None`: the level's default).
    #[serde(default)]
    pub repeat: Option<RepeatMode>,
    /// Room kinds this template serves in a library (`"Normal"`, `"Boss"`, `"Connector"`, ...).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Tags a room may ask for.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Relative weight when picking among templates.
    #[serde(default = "one")]
    pub weight: f64,
}

/// A door position of a compiled shape, in the shape's frame.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DoorPos {
    /// Lower end.
    pub a: Point,
    /// Upper end.
    pub b: Point,
    /// Facing out of the room.
    pub facing: Dir,
    /// Direction restriction.
    pub kind: DoorKind,
    /// Socket.
    pub socket: Option<String>,
}

impl DoorPos {
    /// Length in cells.
    pub fn len(&self) -> i32 {
        self.a.manhattan(self.b) as i32
    }

    /// Whether it is a point door.
    pub fn is_empty(&self) -> bool {
        self.a == self.b
    }
}

/// A template under one transformation.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Index of the template in its set.
    pub template: usize,
    /// The transformation.
    pub transform: Transform,
    /// Where the transformed outline's lower-left corner was before moving it to the origin.
    pub shift: Point,
    /// Outline corners (lower-left corner of the box at the origin).
    pub outline: Vec<Point>,
    /// Cell mask and sides.
    pub mask: Mask,
    /// Every door position.
    pub doors: Vec<DoorPos>,
}

/// A template that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("room template `{template}`: {problem}")]
pub struct TemplateError {
    /// The template's name.
    pub template: String,
    /// What is wrong.
    pub problem: String,
}

/// The five room shapes of Edgar's basic benchmark inputs
/// ([`crate::graph::random::BASIC_SHAPES`]) as templates: doors of one cell anywhere on the
/// outline, every transformation, serving `Normal` rooms. With them, the graphs of
/// [`crate::graph::random::placed_rooms_graph`] have a layout by construction.
///
/// # Examples
/// ```
/// use levelplan::layout::template::basic_templates;
/// let t = basic_templates();
/// assert_eq!(t.len(), 5);
/// assert!(t.iter().all(|t| t.compile(0).is_ok()));
/// ```
pub fn basic_templates() -> Vec<RoomTemplate> {
    crate::graph::random::BASIC_SHAPES
        .iter()
        .map(|(name, rows)| RoomTemplate {
            name: (*name).to_string(),
            shape: TemplateShape::Cells(rows.iter().map(|r| (*r).to_string()).collect()),
            doors: DoorMode::Sliding {
                length: 1,
                corner_distance: 0,
                socket: None,
            },
            transforms: Transform::ALL.to_vec(),
            repeat: None,
            kinds: vec!["Normal".into()],
            tags: Vec::new(),
            weight: 1.0,
        })
        .collect()
}

impl RoomTemplate {
    /// A `w` x `h` rectangle with sliding doors of length 1, `corner` away from the corners,
    /// all eight transformations.
    pub fn rectangle(name: &str, w: i32, h: i32, corner: i32) -> RoomTemplate {
        RoomTemplate {
            name: name.to_string(),
            shape: TemplateShape::Outline(vec![[0, 0], [0, h], [w, h], [w, 0]]),
            doors: DoorMode::Sliding {
                length: 1,
                corner_distance: corner,
                socket: None,
            },
            transforms: Transform::ALL.to_vec(),
            repeat: None,
            kinds: Vec::new(),
            tags: Vec::new(),
            weight: 1.0,
        }
    }

    /// Refuses numbers beyond what a template can mean before any arithmetic is done with them:
    /// coordinates beyond [`MAX_COORDINATE`], door lengths and corner distances beyond
    /// [`super::geom::MAX_SIDE`] (no side is longer), so that nothing overflows or loops for
    /// long on a file's extreme values.
    fn check_numbers(&self) -> Result<(), TemplateError> {
        let max_side = super::geom::MAX_SIDE;
        let point = |what: &str, p: XY| {
            if p.iter().any(|c| c.unsigned_abs() > MAX_COORDINATE as u32) {
                Err(self.err(format!(
                    "{what} ({}, {}) is out of range: coordinates must lie within \
                     -{MAX_COORDINATE}..={MAX_COORDINATE}",
                    p[0], p[1]
                )))
            } else {
                Ok(())
            }
        };
        let length = |what: &str, v: i32, least: i32| {
            if v < least || v > max_side {
                Err(self.err(format!(
                    "{what} is {v}; it must be in {least}..={max_side} (no side of an outline is \
                     longer than {max_side})"
                )))
            } else {
                Ok(())
            }
        };
        if let TemplateShape::Outline(points) = &self.shape {
            for &p in points {
                point("outline corner", p)?;
            }
        }
        match &self.doors {
            DoorMode::Sliding {
                length: l,
                corner_distance,
                ..
            } => {
                length("the sliding door length", *l, 1)?;
                length("the sliding doors' corner distance", *corner_distance, 0)?;
            }
            DoorMode::Manual(list) => {
                for d in list {
                    point("door end", d.from)?;
                    point("door end", d.to)?;
                }
            }
            DoorMode::Lines(lines) => {
                for l in lines {
                    point("door line end", l.from)?;
                    point("door line end", l.to)?;
                    length("a door line's door length", l.length, 0)?;
                }
            }
        }
        Ok(())
    }

    fn err(&self, problem: impl Into<String>) -> TemplateError {
        TemplateError {
            template: self.name.clone(),
            problem: problem.into(),
        }
    }

    /// The outline corners in the template's own frame.
    pub fn outline(&self) -> Result<Vec<Point>, TemplateError> {
        self.check_numbers()?;
        match &self.shape {
            TemplateShape::Outline(p) => Ok(p.iter().map(|&q| xy(q)).collect()),
            TemplateShape::Cells(rows) => trace_cells(rows).map_err(|p| self.err(p)),
        }
    }

    /// Checks the template and compiles every allowed transformation, dropping those that give
    /// the same shape and doors as an earlier one.
    pub fn compile(&self, index: usize) -> Result<Vec<Shape>, TemplateError> {
        if self.transforms.is_empty() {
            return Err(self.err("`transforms` is empty; list at least `Identity`"));
        }
        if !(self.weight.is_finite() && self.weight > 0.0) {
            return Err(self.err(format!("weight {} must be a positive number", self.weight)));
        }
        let outline = self.outline()?;
        let mut out: Vec<Shape> = Vec::new();
        // Per shape kept: its doors in a fixed order, made when a later shape has its mask.
        let mut sorted: Vec<Option<Vec<DoorPos>>> = Vec::new();
        let in_order = |s: &Shape| {
            let mut d = s.doors.clone();
            d.sort_by_key(|d| (d.a, d.b, d.facing));
            d
        };
        // Sliding doors follow from the outline alone, so a transformation that moves the
        // outline onto one already compiled gives the same shape and doors: it is known
        // before rasterising (the outlines met so far, as `outline_key`s).
        let sliding = matches!(self.doors, DoorMode::Sliding { .. });
        let mut met: Vec<Vec<Point>> = Vec::new();
        let mut unturned: Option<Mask> = None;
        for (k, &t) in self.transforms.iter().enumerate() {
            let key = (sliding && !out.is_empty()).then(|| {
                let (local, _) = turned_outline(&outline, t);
                outline_key(&local).expect("the first shape checked the outline")
            });
            if key.as_ref().is_some_and(|k| met.contains(k)) {
                continue;
            }
            let shape = self.compile_one(index, &outline, t, unturned.as_ref())?;
            if unturned.is_none() && self.transforms.len() > 1 {
                // The first shape checked the outline: the others turn its cells.
                unturned = Some(if t == Transform::Identity {
                    shape.mask.clone()
                } else {
                    let (local, _) = turned_outline(&outline, Transform::Identity);
                    Mask::from_outline(&local).map_err(|p| self.err(p.to_string()))?
                });
            }
            // (No transformation after the last one looks its outline up.)
            if sliding && k + 1 < self.transforms.len() {
                met.push(key.unwrap_or_else(|| {
                    outline_key(&shape.outline).expect("the shape's outline is checked")
                }));
            }
            let mut mine: Option<Vec<DoorPos>> = None;
            let mut same = false;
            for (s, doors) in out.iter().zip(sorted.iter_mut()) {
                if (s.mask.width, s.mask.height) != (shape.mask.width, shape.mask.height)
                    || s.mask.bits != shape.mask.bits
                    || s.doors.len() != shape.doors.len()
                {
                    continue;
                }
                let a = doors.get_or_insert_with(|| in_order(s));
                if *a == *mine.get_or_insert_with(|| in_order(&shape)) {
                    same = true;
                    break;
                }
            }
            if !same {
                out.push(shape);
                sorted.push(mine);
            }
        }
        Ok(out)
    }

    /// The shape under `t`; `unturned`, if given, is the mask of the outline untransformed
    /// (lower-left box corner at the origin), whose cells are turned rather than the outline
    /// rasterised and checked again.
    pub(crate) fn compile_one(
        &self,
        index: usize,
        outline: &[Point],
        t: Transform,
        unturned: Option<&Mask>,
    ) -> Result<Shape, TemplateError> {
        let (local, shift) = turned_outline(outline, t);
        let mask = match unturned {
            Some(m) => m.turned(t, &local),
            None => Mask::from_outline(&local),
        }
        .map_err(|p| self.err(p.to_string()))?;
        let map = |p: XY| t.apply(xy(p)) - shift;
        let mut doors: Vec<DoorPos> = Vec::new();
        match &self.doors {
            DoorMode::Sliding {
                length,
                corner_distance,
                socket,
            } => {
                if *length < 1 || *corner_distance < 0 {
                    return Err(self.err(format!(
                        "sliding doors need length >= 1 and corner_distance >= 0, got {length} and {corner_distance}"
                    )));
                }
                doors.reserve_exact(
                    mask.sides
                        .iter()
                        .map(|s| (s.len() - length - 2 * corner_distance + 1).max(0) as usize)
                        .sum(),
                );
                for side in &mask.sides {
                    let unit = side.facing.along_wall();
                    let mut s = *corner_distance;
                    while s + length + corner_distance <= side.len() {
                        let a = side.a + Point::new(unit.x * s, unit.y * s);
                        let b = a + Point::new(unit.x * length, unit.y * length);
                        doors.push(DoorPos {
                            a,
                            b,
                            facing: side.facing,
                            kind: DoorKind::Any,
                            socket: socket.clone(),
                        });
                        s += 1;
                    }
                }
            }
            DoorMode::Manual(list) => {
                for d in list {
                    let (p, q) = (map(d.from), map(d.to));
                    let before = doors.len();
                    place_on_sides(&mask, p, q, d.kind, &d.socket, &mut doors);
                    if doors.len() == before {
                        return Err(self.err(format!(
                            "door ({}, {})-({}, {}) does not lie on one side of the outline",
                            d.from[0], d.from[1], d.to[0], d.to[1]
                        )));
                    }
                }
            }
            DoorMode::Lines(lines) => {
                for l in lines {
                    let (p, q) = (map(l.from), map(l.to));
                    let (lo, hi) = (p.min(q), p.max(q));
                    if l.length < 0 || (lo.x != hi.x && lo.y != hi.y) {
                        return Err(self.err(format!(
                            "door line ({}, {})-({}, {}) must be horizontal or vertical with length >= 0",
                            l.from[0], l.from[1], l.to[0], l.to[1]
                        )));
                    }
                    let unit = if lo.x == hi.x {
                        Point::new(0, 1)
                    } else {
                        Point::new(1, 0)
                    };
                    let span = lo.manhattan(hi) as i32;
                    let before = doors.len();
                    for s in 0..=(span - l.length) {
                        let a = lo + Point::new(unit.x * s, unit.y * s);
                        let b = a + Point::new(unit.x * l.length, unit.y * l.length);
                        place_on_sides(&mask, a, b, l.kind, &l.socket, &mut doors);
                    }
                    if doors.len() == before {
                        return Err(self.err(format!(
                            "door line ({}, {})-({}, {}) holds no door of length {} on the outline",
                            l.from[0], l.from[1], l.to[0], l.to[1], l.length
                        )));
                    }
                }
            }
        }
        if doors.is_empty() {
            let settings = match &self.doors {
                DoorMode::Sliding {
                    length,
                    corner_distance,
                    ..
                } => {
                    format!("sliding doors of length {length}, {corner_distance} from each corner")
                }
                DoorMode::Manual(list) => format!("{} listed doors", list.len()),
                DoorMode::Lines(lines) => format!("{} door lines", lines.len()),
            };
            return Err(self.err(format!(
                "no door position fits on the {} x {} outline ({settings}): every side is too \
                 short; shorten the doors or the corner distance",
                mask.width, mask.height
            )));
        }
        // Listed doors and door lines may give one position twice; sliding doors never do
        // (each side of the outline its own positions, and no two sides overlap).
        if !matches!(self.doors, DoorMode::Sliding { .. }) {
            dedup_doors(&mut doors);
        }
        Ok(Shape {
            template: index,
            transform: t,
            shift,
            outline: local,
            mask,
            doors,
        })
    }
}

/// `outline` under `t`, moved so that its box's lower corner is the origin, and how far it
/// was moved.
fn turned_outline(outline: &[Point], t: Transform) -> (Vec<Point>, Point) {
    let mut local: Vec<Point> = outline.iter().map(|&p| t.apply(p)).collect();
    let shift = min_corner(&local);
    local.iter_mut().for_each(|p| *p = *p - shift);
    (local, shift)
}

/// Drops door positions given before, keeping the first of each in order.
fn dedup_doors(doors: &mut Vec<DoorPos>) {
    let key = |d: &DoorPos| (d.a, d.b, d.facing);
    let mut order: Vec<usize> = (0..doors.len()).collect();
    order.sort_by_key(|&i| (key(&doors[i]), i));
    let mut repeat = vec![false; doors.len()];
    for run in order.chunk_by(|&x, &y| key(&doors[x]) == key(&doors[y])) {
        for (k, &i) in run.iter().enumerate() {
            repeat[i] = run[..k].iter().any(|&j| doors[j] == doors[i]);
        }
    }
    let mut i = 0;
    doors.retain(|_| {
        i += 1;
        !repeat[i - 1]
    });
}

fn place_on_sides(
    mask: &Mask,
    p: Point,
    q: Point,
    kind: DoorKind,
    socket: &Option<String>,
    out: &mut Vec<DoorPos>,
) {
    let (a, b) = (p.min(q), p.max(q));
    for side in &mask.sides {
        let along = if side.facing.horizontal_wall() {
            a.y == b.y
        } else {
            a.x == b.x
        };
        if along && side.contains_segment(a, b) {
            out.push(DoorPos {
                a,
                b,
                facing: side.facing,
                kind,
                socket: socket.clone(),
            });
        }
    }
}

/// Traces the outline of a picture of cells (top row first).
fn trace_cells(rows: &[String]) -> Result<Vec<Point>, String> {
    let h = rows.len() as i32;
    let w = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0) as i32;
    if h == 0 || w == 0 {
        return Err("the cell picture is empty".into());
    }
    if w > super::geom::MAX_SIDE || h > super::geom::MAX_SIDE {
        return Err(format!("the cell picture is {w} x {h}; at most 256 x 256"));
    }
    let inside = |x: i32, y: i32| -> bool {
        if x < 0 || y < 0 || x >= w || y >= h {
            return false;
        }
        let row = &rows[(h - 1 - y) as usize];
        row.chars()
            .nth(x as usize)
            .is_some_and(|c| c != ' ' && c != '.')
    };
    // Directed boundary edges with the inside on the left (anticlockwise).
    let mut next: std::collections::BTreeMap<Point, Point> = Default::default();
    let mut count = 0usize;
    for y in 0..h {
        for x in 0..w {
            if !inside(x, y) {
                continue;
            }
            let mut add = |from: Point, to: Point| -> Result<(), String> {
                count += 1;
                if next.insert(from, to).is_some() {
                    return Err(format!(
                        "the cell picture touches itself at corner ({}, {})",
                        from.x, from.y
                    ));
                }
                Ok(())
            };
            if !inside(x, y - 1) {
                add(Point::new(x, y), Point::new(x + 1, y))?;
            }
            if !inside(x + 1, y) {
                add(Point::new(x + 1, y), Point::new(x + 1, y + 1))?;
            }
            if !inside(x, y + 1) {
                add(Point::new(x + 1, y + 1), Point::new(x, y + 1))?;
            }
            if !inside(x - 1, y) {
                add(Point::new(x, y + 1), Point::new(x, y))?;
            }
        }
    }
    let Some((&start, _)) = next.iter().next() else {
        return Err("the cell picture has no cells".into());
    };
    let mut path = vec![start];
    let mut at = next[&start];
    while at != start {
        path.push(at);
        at = next[&at];
        if path.len() > count {
            break;
        }
    }
    if path.len() != count {
        return Err("the cell picture must be one piece without holes".into());
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliding_doors_keep_their_corner_distance() {
        let t = RoomTemplate::rectangle("r", 6, 4, 1);
        let shapes = t.compile(0).unwrap();
        // A rectangle has two distinct shapes: lying and standing.
        assert_eq!(shapes.len(), 2);
        let s = &shapes[0];
        // Sides of 6 give 4 positions each, sides of 4 give 2.
        assert_eq!(s.doors.len(), 4 + 4 + 2 + 2);
        assert!(s.doors.iter().all(|d| d.len() == 1));
        assert!(s.doors.iter().all(|d| d.a != Point::new(0, 0)));
    }

    #[test]
    fn cells_trace_to_the_same_shape_as_the_outline() {
        let mut pic = RoomTemplate::rectangle("l", 1, 1, 0);
        pic.shape = TemplateShape::Cells(vec!["##...".into(), "##...".into(), "#####".into()]);
        let mut poly = pic.clone();
        poly.shape = TemplateShape::Outline(vec![[0, 0], [0, 3], [2, 3], [2, 1], [5, 1], [5, 0]]);
        let a = pic.compile(0).unwrap();
        let b = poly.compile(0).unwrap();
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(
                (x.mask.width, x.mask.height, &x.mask.bits),
                (y.mask.width, y.mask.height, &y.mask.bits)
            );
        }
        let mut holed = pic.clone();
        holed.shape = TemplateShape::Cells(vec!["###".into(), "#.#".into(), "###".into()]);
        assert!(
            holed
                .compile(0)
                .unwrap_err()
                .problem
                .contains("without holes")
        );
    }

    #[test]
    fn manual_door_off_the_outline_is_named() {
        let mut t = RoomTemplate::rectangle("c", 2, 1, 0);
        t.doors = DoorMode::Manual(vec![DoorSpec {
            from: [1, 0],
            to: [1, 1],
            kind: DoorKind::Any,
            socket: None,
        }]);
        let e = t.compile(0).unwrap_err();
        assert!(e.to_string().contains("`c`") && e.problem.contains("(1, 0)-(1, 1)"));
    }
}
