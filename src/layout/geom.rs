//! Grid geometry for the embedding layer: integer points, the four facings, the eight
//! transformations of the square grid, and rectilinear outlines turned into cell masks.
//!
//! Coordinates follow the Edgar convention: `x` grows to the right, `y` grows **up**. A point is
//! a corner between tiles; the cell `(x, y)` is the unit square `[x, x+1] x [y, y+1]`.

use serde::{Deserialize, Serialize};

/// An integer point (a grid corner), or a cell named by its lower-left corner.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub struct Point {
    /// Horizontal coordinate, growing to the right.
    pub x: i32,
    /// Vertical coordinate, growing up.
    pub y: i32,
}

/// As a person writes a point: `(3, -2)`.
impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

impl Point {
    /// A point.
    pub const fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    /// Manhattan distance.
    pub fn manhattan(self, other: Point) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y)
    }
}

impl std::ops::Add for Point {
    type Output = Point;
    fn add(self, o: Point) -> Point {
        Point::new(self.x + o.x, self.y + o.y)
    }
}

impl std::ops::Sub for Point {
    type Output = Point;
    fn sub(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }
}

impl std::ops::Neg for Point {
    type Output = Point;
    fn neg(self) -> Point {
        Point::new(-self.x, -self.y)
    }
}

/// A facing: the outward normal of a wall, or a step on the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dir {
    /// `+y`.
    North,
    /// `+x`.
    East,
    /// `-y`.
    South,
    /// `-x`.
    West,
}

impl Dir {
    /// All four, in a fixed order.
    pub const ALL: [Dir; 4] = [Dir::North, Dir::East, Dir::South, Dir::West];

    /// The unit step.
    pub fn step(self) -> Point {
        match self {
            Dir::North => Point::new(0, 1),
            Dir::East => Point::new(1, 0),
            Dir::South => Point::new(0, -1),
            Dir::West => Point::new(-1, 0),
        }
    }

    /// The opposite facing.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
        }
    }

    /// Whether walls with this facing run horizontally (north and south walls).
    pub fn horizontal_wall(self) -> bool {
        matches!(self, Dir::North | Dir::South)
    }

    /// The unit step along a wall with this facing (`+x` along north and south walls, `+y`
    /// along east and west ones).
    pub(crate) fn along_wall(self) -> Point {
        if self.horizontal_wall() {
            Point::new(1, 0)
        } else {
            Point::new(0, 1)
        }
    }

    fn from_step(p: Point) -> Dir {
        match (p.x.signum(), p.y.signum()) {
            (0, 1) => Dir::North,
            (1, 0) => Dir::East,
            (0, -1) => Dir::South,
            _ => Dir::West,
        }
    }
}

/// One of the eight symmetries of the square grid. The names and point maps are Edgar's
/// (`TransformationGrid2D`), with `y` up: rotations are clockwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Transform {
    /// `(x, y)`.
    Identity,
    /// `(y, -x)`: a quarter turn clockwise.
    Rotate90,
    /// `(-x, -y)`.
    Rotate180,
    /// `(-y, x)`: a quarter turn anticlockwise.
    Rotate270,
    /// `(x, -y)`: mirrored across the x axis.
    MirrorX,
    /// `(-x, y)`: mirrored across the y axis.
    MirrorY,
    /// `(y, x)`: mirrored across the main diagonal.
    Diagonal13,
    /// `(-y, -x)`: mirrored across the other diagonal.
    Diagonal24,
}

impl Transform {
    /// All eight, in Edgar's order.
    pub const ALL: [Transform; 8] = [
        Transform::Identity,
        Transform::Rotate90,
        Transform::Rotate180,
        Transform::Rotate270,
        Transform::MirrorX,
        Transform::MirrorY,
        Transform::Diagonal13,
        Transform::Diagonal24,
    ];

    /// The four rotations.
    pub const ROTATIONS: [Transform; 4] = [
        Transform::Identity,
        Transform::Rotate90,
        Transform::Rotate180,
        Transform::Rotate270,
    ];

    /// Maps a point (or a vector).
    pub fn apply(self, p: Point) -> Point {
        let (x, y) = (p.x, p.y);
        let (a, b) = match self {
            Transform::Identity => (x, y),
            Transform::Rotate90 => (y, -x),
            Transform::Rotate180 => (-x, -y),
            Transform::Rotate270 => (-y, x),
            Transform::MirrorX => (x, -y),
            Transform::MirrorY => (-x, y),
            Transform::Diagonal13 => (y, x),
            Transform::Diagonal24 => (-y, -x),
        };
        Point::new(a, b)
    }

    /// Maps a facing.
    pub fn apply_dir(self, d: Dir) -> Dir {
        Dir::from_step(self.apply(d.step()))
    }

    /// The name used in data files.
    pub fn name(self) -> &'static str {
        match self {
            Transform::Identity => "Identity",
            Transform::Rotate90 => "Rotate90",
            Transform::Rotate180 => "Rotate180",
            Transform::Rotate270 => "Rotate270",
            Transform::MirrorX => "MirrorX",
            Transform::MirrorY => "MirrorY",
            Transform::Diagonal13 => "Diagonal13",
            Transform::Diagonal24 => "Diagonal24",
        }
    }
}

/// An axis-aligned box of cells: `min` inclusive, `max` exclusive (in points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rect {
    /// Lower-left corner.
    pub min: Point,
    /// Upper-right corner.
    pub max: Point,
}

impl Rect {
    /// Width in cells.
    pub fn width(&self) -> i32 {
        self.max.x - self.min.x
    }

    /// Height in cells.
    pub fn height(&self) -> i32 {
        self.max.y - self.min.y
    }

    /// Manhattan gap between two boxes of points (0 when they touch or overlap).
    pub fn gap(&self, o: &Rect) -> u32 {
        let gx = (o.min.x - self.max.x).max(self.min.x - o.max.x).max(0);
        let gy = (o.min.y - self.max.y).max(self.min.y - o.max.y).max(0);
        (gx + gy) as u32
    }

    /// The centre, doubled (to stay in integers).
    pub fn centre2(&self) -> Point {
        Point::new(self.min.x + self.max.x, self.min.y + self.max.y)
    }
}

/// A side of an outline: an axis-aligned segment from `a` to `b` (`a < b`), with the facing of
/// the room's outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Side {
    /// Lower end.
    pub a: Point,
    /// Upper end.
    pub b: Point,
    /// Outward normal.
    pub facing: Dir,
}

impl Side {
    /// Length in cells.
    pub fn len(&self) -> i32 {
        (self.b.x - self.a.x) + (self.b.y - self.a.y)
    }

    /// Whether it has no length.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the (axis-aligned) segment `p..q` lies on this side.
    pub fn contains_segment(&self, p: Point, q: Point) -> bool {
        let (lo, hi) = (p.min(q), p.max(q));
        if self.facing.horizontal_wall() {
            lo.y == self.a.y && hi.y == self.a.y && lo.x >= self.a.x && hi.x <= self.b.x
        } else {
            lo.x == self.a.x && hi.x == self.a.x && lo.y >= self.a.y && hi.y <= self.b.y
        }
    }
}

/// Manhattan distance between two axis-aligned segments (each given by its two ends).
pub fn segment_gap(a0: Point, a1: Point, b0: Point, b1: Point) -> u32 {
    let gap = |lo1: i32, hi1: i32, lo2: i32, hi2: i32| (lo2 - hi1).max(lo1 - hi2).max(0);
    let gx = gap(
        a0.x.min(a1.x),
        a0.x.max(a1.x),
        b0.x.min(b1.x),
        b0.x.max(b1.x),
    );
    let gy = gap(
        a0.y.min(a1.y),
        a0.y.max(a1.y),
        b0.y.min(b1.y),
        b0.y.max(b1.y),
    );
    (gx + gy) as u32
}

/// What is wrong with an outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutlineProblem {
    /// Fewer than four corners.
    TooFewPoints(usize),
    /// Two consecutive corners differ in both coordinates.
    NotRectilinear(Point, Point),
    /// Two consecutive corners are equal.
    RepeatedPoint(Point),
    /// The outline crosses or touches itself.
    SelfIntersecting,
    /// Wider or taller than the limit.
    TooLarge(i32, i32),
}

impl std::fmt::Display for OutlineProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutlineProblem::TooFewPoints(n) => {
                write!(f, "an outline needs at least 4 corners, this one has {n}")
            }
            OutlineProblem::NotRectilinear(p, q) => write!(
                f,
                "corners ({}, {}) and ({}, {}) are not on one horizontal or vertical line",
                p.x, p.y, q.x, q.y
            ),
            OutlineProblem::RepeatedPoint(p) => {
                write!(f, "corner ({}, {}) is repeated", p.x, p.y)
            }
            OutlineProblem::SelfIntersecting => write!(f, "the outline crosses or touches itself"),
            OutlineProblem::TooLarge(w, h) => write!(
                f,
                "the outline is {w} x {h} cells; at most {MAX_SIDE} x {MAX_SIDE} is allowed"
            ),
        }
    }
}

/// Largest width or height of a room template, in cells.
pub const MAX_SIDE: i32 = 256;

/// A rectilinear outline rasterised: its box, a cell mask and its sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mask {
    /// Width in cells (the outline's lower-left corner is at the origin).
    pub width: i32,
    /// Height in cells.
    pub height: i32,
    /// Row-major (`y * width + x`) inside flags.
    pub bits: Vec<bool>,
    /// Number of inside cells.
    pub area: u32,
    /// Whether the mask fills its box.
    pub is_rect: bool,
    /// The sides, collinear runs merged.
    pub sides: Vec<Side>,
}

impl Mask {
    /// Whether the cell `(x, y)` (relative to the lower-left corner) is inside.
    pub fn inside(&self, x: i32, y: i32) -> bool {
        x >= 0
            && y >= 0
            && x < self.width
            && y < self.height
            && self.bits[(y * self.width + x) as usize]
    }

    /// Rasterises a closed outline whose lower-left box corner is the origin.
    pub fn from_outline(points: &[Point]) -> Result<Mask, OutlineProblem> {
        let pts = simplify(points)?;
        let max = pts.iter().fold(Point::new(0, 0), |m, p| m.max_each(*p));
        let (w, h) = (max.x, max.y);
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(OutlineProblem::TooLarge(w, h));
        }
        if w <= 0 || h <= 0 {
            return Err(OutlineProblem::SelfIntersecting);
        }
        if pts.len() == 4 && pts.contains(&Point::new(0, 0)) {
            // Four corners, simplified (so the sides turn at each), one of them the origin and
            // none beyond `max`: a rectangle filling its box, whose cells the scan below would
            // all find inside, with nothing to refuse.
            let area = (w * h) as u32;
            return Ok(Mask::with_sides(
                &pts,
                w,
                h,
                vec![true; area as usize],
                area,
            ));
        }
        // Crossing number per row over the vertical edges, taken left to right: each row is a
        // list of runs of inside cells (touching runs merged).
        let mut bits = vec![false; (w * h) as usize];
        let n = pts.len();
        let mut verticals: Vec<(i32, i32, i32)> = (0..n)
            .filter_map(|i| {
                let (p, q) = (pts[i], pts[(i + 1) % n]);
                (p.x == q.x).then(|| (p.x, p.y.min(q.y), p.y.max(q.y)))
            })
            .collect();
        verticals.sort_unstable();
        // Cell edges between inside and outside, counted from the runs: two per run along a
        // row (the box's sides included), and between each pair of rows (the bottom and top
        // included) the cells inside one of the two rows but not the other.
        let mut edges = 0i64;
        let mut area = 0u32;
        let mut below: Vec<(i32, i32)> = Vec::new();
        let mut row_runs: Vec<(i32, i32)> = Vec::new();
        for y in 0..h {
            row_runs.clear();
            let mut open: Option<i32> = None;
            for &(x, lo, hi) in &verticals {
                if lo <= y && y < hi {
                    match open.take() {
                        None => open = Some(x),
                        Some(a) if a < x => match row_runs.last_mut() {
                            Some(last) if last.1 == a => last.1 = x,
                            _ => row_runs.push((a, x)),
                        },
                        Some(_) => {}
                    }
                }
            }
            let row = &mut bits[(y * w) as usize..((y + 1) * w) as usize];
            for &(a, b) in &row_runs {
                row[a as usize..b as usize].fill(true);
                area += (b - a) as u32;
            }
            edges += 2 * row_runs.len() as i64 + symmetric_difference(&row_runs, &below);
            std::mem::swap(&mut below, &mut row_runs);
        }
        edges += below.iter().map(|&(a, b)| i64::from(b - a)).sum::<i64>();
        // Shoelace area must match the cells, and the boundary length must match the count of
        // cell edges between inside and outside; both fail for self-touching outlines.
        let mut twice = 0i64;
        let mut perimeter = 0i64;
        for i in 0..n {
            let (p, q) = (pts[i], pts[(i + 1) % n]);
            twice += p.x as i64 * q.y as i64 - q.x as i64 * p.y as i64;
            perimeter += p.manhattan(q) as i64;
        }
        if twice.abs() != 2 * area as i64 || edges != perimeter {
            return Err(OutlineProblem::SelfIntersecting);
        }
        Ok(Mask::with_sides(&pts, w, h, bits, area))
    }

    /// The mask of the same outline under `t`, given that outline turned (`outline`, lower-left
    /// box corner at the origin): `self` must be the mask of the unturned outline (lower-left
    /// box corner at the origin too). The same as [`Mask::from_outline`] on `outline`, without
    /// rasterising or checking it again: each cell is turned.
    pub(crate) fn turned(&self, t: Transform, outline: &[Point]) -> Result<Mask, OutlineProblem> {
        let pts = simplify(outline)?;
        let (c0, c1) = (
            t.apply(Point::new(0, 0)),
            t.apply(Point::new(self.width, self.height)),
        );
        let m = c0.min_each(c1);
        let size = c0.max_each(c1) - m;
        let (w, h) = (size.x, size.y);
        if self.is_rect {
            // Every cell of the box is inside, turned or not.
            return Ok(Mask::with_sides(
                &pts,
                w,
                h,
                vec![true; (w * h) as usize],
                self.area,
            ));
        }
        let mut bits = vec![false; (w * h) as usize];
        for y in 0..self.height {
            for x in 0..self.width {
                if self.bits[(y * self.width + x) as usize] {
                    let (a, b) = (t.apply(Point::new(x, y)), t.apply(Point::new(x + 1, y + 1)));
                    let c = a.min_each(b) - m;
                    bits[(c.y * w + c.x) as usize] = true;
                }
            }
        }
        Ok(Mask::with_sides(&pts, w, h, bits, self.area))
    }

    /// A mask from its cells, with its sides read off the simplified outline `pts`.
    fn with_sides(pts: &[Point], w: i32, h: i32, bits: Vec<bool>, area: u32) -> Mask {
        let n = pts.len();
        let mask_inside =
            |x: i32, y: i32| x >= 0 && y >= 0 && x < w && y < h && bits[(y * w + x) as usize];
        let mut sides = Vec::with_capacity(n);
        for i in 0..n {
            let (p, q) = (pts[i], pts[(i + 1) % n]);
            let (a, b) = (p.min(q), p.max(q));
            let facing = if a.x == b.x {
                if mask_inside(a.x, a.y) {
                    Dir::West
                } else {
                    Dir::East
                }
            } else if mask_inside(a.x, a.y) {
                Dir::South
            } else {
                Dir::North
            };
            sides.push(Side { a, b, facing });
        }
        Mask {
            width: w,
            height: h,
            is_rect: area == (w * h) as u32,
            bits,
            area,
            sides,
        }
    }
}

impl Point {
    pub(crate) fn max_each(self, o: Point) -> Point {
        Point::new(self.x.max(o.x), self.y.max(o.y))
    }

    pub(crate) fn min_each(self, o: Point) -> Point {
        Point::new(self.x.min(o.x), self.y.min(o.y))
    }
}

/// How many cells lie in one of two lists of runs (sorted, disjoint, half-open) but not the
/// other.
fn symmetric_difference(a: &[(i32, i32)], b: &[(i32, i32)]) -> i64 {
    let len = |l: &[(i32, i32)]| l.iter().map(|&(x, y)| i64::from(y - x)).sum::<i64>();
    let (mut i, mut j, mut both) = (0, 0, 0i64);
    while i < a.len() && j < b.len() {
        let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if lo < hi {
            both += i64::from(hi - lo);
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    len(a) + len(b) - 2 * both
}

/// The lower-left corner of the box around some points.
pub fn min_corner(points: &[Point]) -> Point {
    points
        .iter()
        .fold(Point::new(i32::MAX, i32::MAX), |m, p| m.min_each(*p))
}

/// Checks an outline is closed, rectilinear and without repeated corners; merges collinear
/// runs.
/// A rectilinear outline in one spelling: [`simplify`]'s corners (straight runs merged),
/// counter-clockwise, starting at the least corner. Two valid outlines bound the same region
/// exactly when their keys are equal.
pub(crate) fn outline_key(points: &[Point]) -> Result<Vec<Point>, OutlineProblem> {
    let mut out = simplify(points)?;
    let m = out.len();
    let twice: i64 = (0..m)
        .map(|i| {
            let (p, q) = (out[i], out[(i + 1) % m]);
            p.x as i64 * q.y as i64 - q.x as i64 * p.y as i64
        })
        .sum();
    if twice < 0 {
        out.reverse();
    }
    if let Some(first) = (0..m).min_by_key(|&i| out[i]) {
        out.rotate_left(first);
    }
    Ok(out)
}

fn simplify(points: &[Point]) -> Result<Vec<Point>, OutlineProblem> {
    let pts = match points {
        [first, .., last] if first == last => &points[..points.len() - 1],
        _ => points,
    };
    if pts.len() < 4 {
        return Err(OutlineProblem::TooFewPoints(pts.len()));
    }
    let n = pts.len();
    for i in 0..n {
        let (p, q) = (pts[i], pts[(i + 1) % n]);
        if p == q {
            return Err(OutlineProblem::RepeatedPoint(p));
        }
        if p.x != q.x && p.y != q.y {
            return Err(OutlineProblem::NotRectilinear(p, q));
        }
    }
    // A point met twice (the least, as sorting finds it): pair by pair on the short outlines
    // rooms have, else sorted.
    if n <= 32 {
        let twice = (0..n)
            .filter(|&i| pts[..i].contains(&pts[i]))
            .map(|i| pts[i])
            .min();
        if let Some(p) = twice {
            return Err(OutlineProblem::RepeatedPoint(p));
        }
    } else {
        let mut seen = pts.to_vec();
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
            return Err(OutlineProblem::RepeatedPoint(w[0]));
        }
    }
    // Drop corners in the middle of a straight run.
    let mut out: Vec<Point> = Vec::with_capacity(n);
    for i in 0..n {
        let (prev, p, next) = (pts[(i + n - 1) % n], pts[i], pts[(i + 1) % n]);
        let straight = (prev.x == p.x && p.x == next.x) || (prev.y == p.y && p.y == next.y);
        if !straight {
            out.push(p);
        }
    }
    if out.len() < 4 {
        return Err(OutlineProblem::SelfIntersecting);
    }
    Ok(out)
}

/// The box where two masks' boxes at two positions meet (min x, min y, max x, max y; max
/// exclusive), if they do.
pub(crate) fn shared_box(a: &Mask, pa: Point, b: &Mask, pb: Point) -> Option<(i32, i32, i32, i32)> {
    let x0 = pa.x.max(pb.x);
    let y0 = pa.y.max(pb.y);
    let x1 = (pa.x + a.width).min(pb.x + b.width);
    let y1 = (pa.y + a.height).min(pb.y + b.height);
    (x0 < x1 && y0 < y1).then_some((x0, y0, x1, y1))
}

/// Whether two masks at two positions share a cell.
pub(crate) fn overlap(a: &Mask, pa: Point, b: &Mask, pb: Point) -> bool {
    let Some((x0, y0, x1, y1)) = shared_box(a, pa, b, pb) else {
        return false;
    };
    if a.is_rect && b.is_rect {
        return true;
    }
    for y in y0..y1 {
        for x in x0..x1 {
            if a.inside(x - pa.x, y - pa.y) && b.inside(x - pb.x, y - pb.y) {
                return true;
            }
        }
    }
    false
}

/// How many cells two masks at two positions share.
pub(crate) fn overlap_area(a: &Mask, pa: Point, b: &Mask, pb: Point) -> u64 {
    let Some((x0, y0, x1, y1)) = shared_box(a, pa, b, pb) else {
        return 0;
    };
    if a.is_rect && b.is_rect {
        return ((x1 - x0) * (y1 - y0)) as u64;
    }
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            n += u64::from(a.inside(x - pa.x, y - pa.y) && b.inside(x - pb.x, y - pb.y));
        }
    }
    n
}

/// Whether the outlines of two placed masks are at least `d` apart (Manhattan distance):
/// at once where their boxes are (an outline lies in its box), else by [`outline_gap`].
#[inline]
pub(crate) fn gap_at_least(a: &Mask, pa: Point, b: &Mask, pb: Point, d: u32) -> bool {
    if d == 0 {
        return true;
    }
    let dx = (pb.x - (pa.x + a.width))
        .max(pa.x - (pb.x + b.width))
        .max(0);
    let dy = (pb.y - (pa.y + a.height))
        .max(pa.y - (pb.y + b.height))
        .max(0);
    (dx + dy) as u32 >= d || outline_gap(a, pa, b, pb) >= d
}

/// Smallest Manhattan distance between the outlines of two placed masks.
pub(crate) fn outline_gap(a: &Mask, pa: Point, b: &Mask, pb: Point) -> u32 {
    let mut best = u32::MAX;
    for sa in &a.sides {
        for sb in &b.sides {
            best = best.min(segment_gap(sa.a + pa, sa.b + pa, sb.a + pb, sb.b + pb));
            if best == 0 {
                return 0;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[(i32, i32)]) -> Vec<Point> {
        v.iter().map(|&(x, y)| Point::new(x, y)).collect()
    }

    /// `simplify` finds repeated points pair by pair on short outlines: it reports what the
    /// sorting form reports (the least point met twice), on random rectilinear walks over a
    /// small grid, where repeats are common, of up to 40 points (both forms).
    #[test]
    fn repeated_points_are_found_as_sorting_finds_them() {
        fn least_repeat(pts: &[Point]) -> Option<Point> {
            let mut seen = pts.to_vec();
            seen.sort_unstable();
            seen.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
        }
        let mut rng = crate::seed::stream(5, "repeated points");
        let (mut repeats, mut clean) = (0, 0);
        for _ in 0..4000 {
            let n = 2 * (2 + crate::seed::below(&mut rng, 19) as usize);
            let mut p = Point::new(0, 0);
            let mut pts = Vec::with_capacity(n);
            for k in 0..n {
                pts.push(p);
                let step = 1 + crate::seed::below(&mut rng, 3) as i32;
                let step = if crate::seed::below(&mut rng, 2) == 0 {
                    step
                } else {
                    -step
                };
                if k % 2 == 0 { p.x += step } else { p.y += step }
            }
            // Close the walk: the last point shares the first's x.
            let last = pts[n - 1];
            pts[n - 1] = Point::new(0, last.y);
            if pts[n - 2].y != last.y || pts[n - 1] == pts[n - 2] || pts[n - 1] == pts[0] {
                continue;
            }
            match (simplify(&pts), least_repeat(&pts)) {
                (Err(OutlineProblem::RepeatedPoint(a)), Some(b)) => {
                    assert_eq!(a, b, "{pts:?}");
                    repeats += 1;
                }
                (Err(OutlineProblem::RepeatedPoint(a)), None) => panic!("{a:?} in {pts:?}"),
                (_, Some(b)) => panic!("{b:?} repeats in {pts:?}"),
                (_, None) => clean += 1,
            }
        }
        assert!(
            repeats > 500 && clean > 100,
            "{repeats} with repeats, {clean} without"
        );
    }

    /// Asserts that every cell of `mask`'s box is inside exactly when a ray cast over
    /// `outline` says so.
    fn assert_matches_ray_cast(mask: &Mask, outline: &[Point]) {
        for y in 0..mask.height {
            for x in 0..mask.width {
                assert_eq!(
                    mask.inside(x, y),
                    ray_cast_inside(outline, x, y),
                    "{outline:?} at {x}, {y}"
                );
            }
        }
    }

    /// Whether cell `(x, y)` lies inside a closed outline: a ray from the cell's centre towards
    /// +x crosses its vertical edges an odd number of times.
    fn ray_cast_inside(outline: &[Point], x: i32, y: i32) -> bool {
        let n = outline.len();
        let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
        let crossings = (0..n)
            .filter(|&i| {
                let (p, q) = (outline[i], outline[(i + 1) % n]);
                p.x == q.x
                    && (p.x as f64) > cx
                    && (p.y.min(q.y) as f64) < cy
                    && cy < p.y.max(q.y) as f64
            })
            .count();
        crossings % 2 == 1
    }

    /// A mask turned cell by cell is the mask of the turned outline (cells, sides in order,
    /// area), under every transformation, on random outlines: staircases, and U shapes with
    /// the notch anywhere.
    #[test]
    fn turned_masks_are_the_masks_of_turned_outlines() {
        let mut rng = crate::seed::stream(6, "turned masks");
        let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
        for _ in 0..300 {
            let (w, h) = (3 + below(8), 3 + below(8));
            let outline = if below(2) == 0 {
                let (a, b) = (1 + below(w as usize - 1), 1 + below(h as usize - 1));
                pts(&[(0, 0), (w, 0), (w, b), (a, b), (a, h), (0, h)])
            } else {
                let a = 1 + below((w as usize - 1) / 2);
                let d = 1 + below(h as usize - 1);
                pts(&[
                    (0, 0),
                    (w, 0),
                    (w, h),
                    (w - a, h),
                    (w - a, h - d),
                    (a, h - d),
                    (a, h),
                    (0, h),
                ])
            };
            let base = Mask::from_outline(&outline).unwrap();
            for t in Transform::ALL {
                let moved: Vec<Point> = outline.iter().map(|&p| t.apply(p)).collect();
                let m = min_corner(&moved);
                let local: Vec<Point> = moved.iter().map(|&p| p - m).collect();
                assert_eq!(
                    base.turned(t, &local).unwrap(),
                    Mask::from_outline(&local).unwrap(),
                    "{t:?} {outline:?}"
                );
            }
        }
    }

    /// Masks agree with a ray cast from each cell's centre over every edge of the outline, on
    /// random staircase outlines (a column of bars of random widths), and self-touching
    /// outlines are refused.
    #[test]
    fn masks_match_a_ray_cast() {
        let mut rng = crate::seed::stream(5, "masks");
        for _ in 0..300 {
            // Bars `y..y+1` from `x = 0` to `widths[y]`, traced round.
            let h = 1 + crate::seed::index(&mut rng, 8) as i32;
            let widths: Vec<i32> = (0..h)
                .map(|_| 1 + crate::seed::index(&mut rng, 9) as i32)
                .collect();
            let mut outline = vec![Point::new(0, 0)];
            for y in 0..h {
                outline.push(Point::new(widths[y as usize], y));
                outline.push(Point::new(widths[y as usize], y + 1));
            }
            outline.push(Point::new(0, h));
            // Drop repeated corners (equal widths make collinear runs, which are kept).
            outline.dedup();
            let mask = Mask::from_outline(&outline).unwrap();
            assert_matches_ray_cast(&mask, &outline);
        }
        // Two squares meeting at a corner: the cells are right but the outline touches itself.
        let bow = pts(&[
            (0, 0),
            (0, 1),
            (1, 1),
            (1, 2),
            (2, 2),
            (2, 1),
            (1, 1),
            (1, 0),
        ]);
        assert!(Mask::from_outline(&bow).is_err());
    }

    /// Rectangles (filled at once, without the row scan) agree with a ray cast, in every
    /// direction of tracing and from any starting corner, as do rectangles off the origin
    /// (scanned), and turn as their outlines do.
    #[test]
    fn rectangles_match_a_ray_cast() {
        let mut rng = crate::seed::stream(8, "rectangles");
        for _ in 0..200 {
            let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
            let (w, h) = (1 + below(12), 1 + below(12));
            let (dx, dy) = if below(3) == 0 {
                (below(4), below(4))
            } else {
                (0, 0)
            };
            let mut outline = pts(&[(dx, dy), (dx + w, dy), (dx + w, dy + h), (dx, dy + h)]);
            if below(2) == 0 {
                outline.reverse();
            }
            outline.rotate_left(below(4) as usize);
            let mask = Mask::from_outline(&outline).unwrap();
            assert_eq!((mask.width, mask.height), (dx + w, dy + h));
            assert_eq!(mask.area, (w * h) as u32);
            assert_eq!(mask.is_rect, (dx, dy) == (0, 0));
            assert_matches_ray_cast(&mask, &outline);
            if (dx, dy) != (0, 0) {
                continue;
            }
            for t in Transform::ALL {
                let moved: Vec<Point> = outline.iter().map(|&p| t.apply(p)).collect();
                let m = min_corner(&moved);
                let local: Vec<Point> = moved.iter().map(|&p| p - m).collect();
                let turned = mask.turned(t, &local).unwrap();
                assert_eq!(turned, Mask::from_outline(&local).unwrap(), "{t:?}");
                for y in 0..turned.height {
                    for x in 0..turned.width {
                        assert!(turned.inside(x, y) && ray_cast_inside(&local, x, y));
                    }
                }
            }
        }
    }

    /// The run-based count of cells and cell edges in [`Mask::from_outline`] agrees with a
    /// cell-by-cell count on random closed rectilinear outlines, crossing and touching
    /// themselves included: an outline is accepted exactly when its shoelace area matches the
    /// cells inside by ray cast and its length matches the edges between inside and outside.
    #[test]
    fn outline_checks_match_a_cell_by_cell_count() {
        let mut rng = crate::seed::stream(7, "outline counts");
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..2000 {
            // Alternate horizontal and vertical moves between random coordinates.
            let k = 2 + crate::seed::index(&mut rng, 4);
            let xs: Vec<i32> = (0..k)
                .map(|_| crate::seed::index(&mut rng, 7) as i32)
                .collect();
            let ys: Vec<i32> = (0..k)
                .map(|_| crate::seed::index(&mut rng, 7) as i32)
                .collect();
            let mut outline = Vec::new();
            for i in 0..k {
                outline.push(Point::new(xs[i], ys[i]));
                outline.push(Point::new(xs[(i + 1) % k], ys[i]));
            }
            let m = min_corner(&outline);
            let outline: Vec<Point> = outline.iter().map(|&p| p - m).collect();
            let Ok(simple) = simplify(&outline) else {
                assert!(Mask::from_outline(&outline).is_err());
                continue;
            };
            let n = simple.len();
            let (w, h) = simple
                .iter()
                .fold((0, 0), |(w, h), p| (w.max(p.x), h.max(p.y)));
            let inside = |x: i32, y: i32| x >= 0 && y >= 0 && ray_cast_inside(&simple, x, y);
            let (mut area, mut edges) = (0i64, 0i64);
            for y in -1..=h {
                for x in -1..=w {
                    let here = inside(x, y);
                    area += i64::from(here);
                    edges += i64::from(here != inside(x + 1, y));
                    edges += i64::from(here != inside(x, y + 1));
                }
            }
            let twice: i64 = (0..n)
                .map(|i| {
                    let (p, q) = (simple[i], simple[(i + 1) % n]);
                    p.x as i64 * q.y as i64 - q.x as i64 * p.y as i64
                })
                .sum();
            let length: i64 = (0..n)
                .map(|i| simple[i].manhattan(simple[(i + 1) % n]) as i64)
                .sum();
            let good = w > 0 && h > 0 && twice.abs() == 2 * area && edges == length;
            match Mask::from_outline(&outline) {
                Ok(mask) => {
                    assert!(good, "{outline:?} accepted");
                    assert_eq!(mask.area as i64, area, "{outline:?}");
                    for y in 0..h {
                        for x in 0..w {
                            assert_eq!(mask.inside(x, y), inside(x, y), "{outline:?}");
                        }
                    }
                    accepted += 1;
                }
                Err(_) => {
                    assert!(!good, "{outline:?} refused");
                    refused += 1;
                }
            }
        }
        // Both verdicts are exercised.
        assert!(accepted > 100 && refused > 100, "{accepted} {refused}");
    }

    #[test]
    fn l_shape_mask_and_sides() {
        let m =
            Mask::from_outline(&pts(&[(0, 0), (0, 6), (3, 6), (3, 3), (6, 3), (6, 0)])).unwrap();
        assert_eq!((m.width, m.height, m.area), (6, 6, 27));
        assert!(m.inside(0, 5) && !m.inside(4, 4) && m.inside(5, 0));
        assert_eq!(m.sides.len(), 6);
        let west = m
            .sides
            .iter()
            .find(|s| s.a == Point::new(0, 0) && s.b.x == 0)
            .unwrap();
        assert_eq!(west.facing, Dir::West);
        let notch = m
            .sides
            .iter()
            .find(|s| s.a == Point::new(3, 3) && s.b == Point::new(6, 3))
            .unwrap();
        assert_eq!(notch.facing, Dir::North);
    }

    #[test]
    fn bad_outlines_are_named() {
        assert_eq!(
            Mask::from_outline(&pts(&[(0, 0), (0, 2), (2, 3), (2, 0)])),
            Err(OutlineProblem::NotRectilinear(
                Point::new(0, 2),
                Point::new(2, 3)
            ))
        );
        // A figure eight touching itself at one point.
        let eight = pts(&[
            (0, 0),
            (0, 2),
            (2, 2),
            (2, 4),
            (4, 4),
            (4, 2),
            (2, 2),
            (2, 0),
        ]);
        assert!(Mask::from_outline(&eight).is_err());
    }

    #[test]
    fn transforms_match_edgar_point_maps() {
        let p = Point::new(2, 5);
        let got: Vec<Point> = Transform::ALL.iter().map(|t| t.apply(p)).collect();
        assert_eq!(
            got,
            pts(&[
                (2, 5),
                (5, -2),
                (-2, -5),
                (-5, 2),
                (2, -5),
                (-2, 5),
                (5, 2),
                (-5, -2)
            ])
        );
        assert_eq!(Transform::Rotate90.apply_dir(Dir::North), Dir::East);
        assert_eq!(Transform::MirrorX.apply_dir(Dir::North), Dir::South);
    }

    #[test]
    fn segment_gap_is_manhattan() {
        let g = segment_gap(
            Point::new(0, 0),
            Point::new(0, 4),
            Point::new(2, 6),
            Point::new(5, 6),
        );
        assert_eq!(g, 4);
        assert_eq!(
            segment_gap(
                Point::new(0, 0),
                Point::new(4, 0),
                Point::new(2, 0),
                Point::new(2, 3)
            ),
            0
        );
    }
}
