//! The shape set (compiled templates and their turns) and configuration spaces: where a
//! shape may touch another with two doors meeting, and the compound spaces through corridor
//! rooms.

use super::*;
use crate::layout::template::DoorKind;

impl Planner {
    pub(super) fn build_compounds(&mut self) {
        let mut cneed: Vec<(u32, u32, u32, bool)> = Vec::new();
        for step in &self.steps {
            for &(nb, e) in &step.earlier {
                if let Edge::Via(k) = e {
                    let v = self.via[k].expect("via edges come from via rooms");
                    for &(sp, _) in &self.room_shapes[nb] {
                        for &(sn, _) in &self.room_shapes[step.room] {
                            cneed.push((sp, sn, v.class, nb == v.a));
                        }
                    }
                }
            }
        }
        cneed.sort_unstable();
        cneed.dedup();
        self.compounds = Dense::new(
            if cneed.is_empty() {
                0
            } else {
                self.set.shapes.len()
            },
            self.classes.len(),
        );
        // Slots only: a compound is computed the first time the search meets it
        // (`compound_at`), so a one-shot layout pays for the few it needs.
        for key in cneed {
            self.compounds
                .insert(key.0, key.1, key.2, key.3, std::sync::OnceLock::new());
        }
    }

    /// The compound of `placed` and `new` through a corridor of `class`, if the search may
    /// meet it (computed on first use).
    pub(super) fn compound_at(
        &self,
        placed: u32,
        new: u32,
        class: u32,
        placed_is_a: bool,
    ) -> Option<&Compound> {
        self.compounds
            .get(placed, new, class, placed_is_a)
            .map(|cell| cell.get_or_init(|| self.compound((placed, new, class, placed_is_a))))
    }

    /// Offsets of the new room from the placed one through a corridor of class `class`, each
    /// with every corridor placement that gives it (by corridor shape, then offset).
    ///
    /// Counted on a grid of the offsets rather than sorted (as in [`ShapeSet::space`]): pairs
    /// of offsets are met in (corridor shape, first offset) order, so a first pass counts
    /// each sum, the offsets that keep the rooms apart are given their place in order, and a
    /// second pass writes each corridor placement into its offset's run.
    ///
    /// # Complexity
    /// `O(P + G)` for `P` pairs of offsets (placed - corridor, corridor - new) and `G` cells of
    /// the offset grid, then an overlap test per offset.
    pub(super) fn compound(&self, (sp, sn, class, placed_is_a): (u32, u32, u32, bool)) -> Compound {
        let (cshapes, a_from, k_from) = &self.classes[class as usize];
        let (f1, f2) = if placed_is_a {
            (*a_from, *k_from)
        } else {
            (!*k_from, !*a_from)
        };
        let mut out = Compound::default();
        let spaces: Vec<(u32, &Space, &Space)> = cshapes
            .iter()
            .filter_map(|&sc| {
                let s1 = self.set.space_at(sp, sc, f1)?;
                let s2 = self.set.space_at(sc, sn, f2)?;
                (!s1.offsets.is_empty() && !s2.offsets.is_empty()).then_some((sc, s1, s2))
            })
            .collect();
        // Sums of offsets lie in the sum of the two spaces' boxes (each space is non-empty).
        let boxes = spaces.iter().filter_map(|(_, s1, s2)| {
            let ((l1, h1), (l2, h2)) = (
                corners(s1.offsets.iter().copied())?,
                corners(s2.offsets.iter().copied())?,
            );
            Some([l1 + l2, h1 + h2])
        });
        let Some((lo, hi)) = corners(boxes.flatten()) else {
            out.starts.push(0);
            return out;
        };
        let (w, h) = ((hi.x - lo.x + 1) as usize, (hi.y - lo.y + 1) as usize);
        let cell = |o: Point| (o.x - lo.x) as usize * h + (o.y - lo.y) as usize;
        let mut count = vec![0u32; w * h];
        for (_, s1, s2) in &spaces {
            for &o1 in &s1.offsets {
                for &o2 in &s2.offsets {
                    count[cell(o1 + o2)] += 1;
                }
            }
        }
        // Where each kept offset's run starts (`u32::MAX`: the offset is not kept).
        let (p, q) = (&self.set.shapes[sp as usize], &self.set.shapes[sn as usize]);
        let d = self.problem.min_distance;
        let mut at = count;
        let mut total = 0u32;
        for x in 0..w {
            for y in 0..h {
                let k = x * h + y;
                let c = at[k];
                if c == 0 {
                    continue;
                }
                let o = Point::new(lo.x + x as i32, lo.y + y as i32);
                if !overlap(p, Point::default(), q, o)
                    && (d == 0 || outline_gap(p, Point::default(), q, o) >= d)
                {
                    out.offsets.push(o);
                    out.starts.push(total);
                    at[k] = total;
                    total += c;
                } else {
                    at[k] = u32::MAX;
                }
            }
        }
        out.starts.push(total);
        out.alts = vec![(0, Point::default()); total as usize];
        for (sc, s1, s2) in &spaces {
            for &o1 in &s1.offsets {
                for &o2 in &s2.offsets {
                    let k = cell(o1 + o2);
                    if at[k] != u32::MAX {
                        out.alts[at[k] as usize] = (*sc, o1);
                        at[k] += 1;
                    }
                }
            }
        }
        out
    }

    /// The two doors that meet when `new` is at `offset` from `placed`.
    pub(super) fn touch(
        &self,
        placed: u32,
        new: u32,
        placed_is_from: bool,
        offset: Point,
    ) -> Option<(u16, u16)> {
        let s = self.set.space_at(placed, new, placed_is_from)?;
        s.offsets.binary_search(&offset).ok().map(|i| s.doors[i])
    }
}

/// The lower-left and upper-right corners of the box round some points (`None`: no points).
fn corners(points: impl Iterator<Item = Point>) -> Option<(Point, Point)> {
    points.fold(None, |b, p| {
        Some(match b {
            None => (p, p),
            Some((lo, hi)) => (
                Point::new(lo.x.min(p.x), lo.y.min(p.y)),
                Point::new(hi.x.max(p.x), hi.y.max(p.y)),
            ),
        })
    })
}

/// A door as a configuration space reads it: its index, lower end, length and socket.
type DoorView<'a> = (u16, Point, i32, Option<&'a str>);

/// Per transformation (in `Transform::ALL`'s order), the shape a shape turns into and the
/// corner it lands at (see `ShapeSet::turn_table`).
pub(super) type Turned = [Option<(u32, Point)>; 8];

/// One row of the table of configuration spaces: a cell per new shape, filled on first use.
type SpaceRow = Box<[std::sync::OnceLock<Box<Space>>]>;

/// The most shapes (templates under their transformations) one set may hold: the table of
/// configuration spaces has a row per shape, and a row a cell per shape (16 bytes each), so
/// a set that placed every shape would hold `2 * MAX_SHAPES^2` cells (about 0.5 GB here).
/// Libraries of a thousand ordinary templates compile into about 2,300 shapes.
pub const MAX_SHAPES: usize = 4096;

/// Room templates compiled under their transformations into shapes, with the configuration
/// spaces between pairs of shapes: every offset at which one shape touches another with two
/// doors meeting. Built once per template list and shared by planners
/// ([`Planner::with_shapes`]). A pair's space is computed the first time a search asks for it
/// and kept (shared by every planner and thread holding the set), so preparing a library costs
/// little however many templates it has, and a level pays only for the pairs its search meets.
#[derive(Debug, Clone)]
pub struct ShapeSet {
    pub(super) names: Vec<String>,
    /// Per shape, per transformation (in `Transform::ALL`'s order): the shape of the same
    /// template it turns into, and where that shape's box corner lands relative to the
    /// turned position (see `assemble`); filled when first needed.
    pub(super) turns: std::sync::OnceLock<Vec<Turned>>,
    pub(super) shapes: Vec<Shape>,
    pub(super) template_shapes: Vec<Vec<u32>>,
    /// Per (placed shape, placed is `from`): a row of spaces, one per new shape, each filled
    /// when first asked for; a row is allocated when its first space is. (Boxed: an empty cell
    /// is 16 bytes, so rows stay small for libraries of thousands of shapes.)
    spaces: Vec<std::sync::OnceLock<SpaceRow>>,
    /// Per shape: whether every door of it may be used in both directions.
    two_way: Vec<bool>,
}

impl ShapeSet {
    /// Compiles `templates` (the configuration spaces are computed when first needed).
    ///
    /// # Complexity
    /// `O(S)` for `S` shapes; each pair's space later costs `O(D^2)` for `D` door positions,
    /// once.
    pub fn new(templates: &[RoomTemplate]) -> Result<ShapeSet, LayoutError> {
        ShapeSet::compile(templates)
    }

    /// The configuration space of `new` against `placed` (computed on first use).
    #[inline]
    pub(super) fn space_at(&self, placed: u32, new: u32, placed_is_from: bool) -> Option<&Space> {
        let row = self
            .spaces
            .get(placed as usize * 2 + usize::from(placed_is_from))?;
        if let Some(found) = row.get().and_then(|r| r.get(new as usize)?.get()) {
            return Some(&**found);
        }
        self.compute_space(placed, new, placed_is_from)
    }

    /// [`ShapeSet::space_at`] the first time: allocates the row if need be and computes the
    /// space.
    #[cold]
    #[inline(never)]
    fn compute_space(&self, placed: u32, new: u32, placed_is_from: bool) -> Option<&Space> {
        let row = self
            .spaces
            .get(placed as usize * 2 + usize::from(placed_is_from))?
            .get_or_init(|| {
                (0..self.shapes.len())
                    .map(|_| std::sync::OnceLock::new())
                    .collect()
            });
        Some(&**row.get(new as usize)?.get_or_init(|| {
            // Shapes whose doors all go both ways have one space for either direction of the
            // link: the other direction's, if it is known, is copied.
            if self.two_way[placed as usize] && self.two_way[new as usize] {
                let other = self
                    .spaces
                    .get(placed as usize * 2 + usize::from(!placed_is_from))
                    .and_then(|r| r.get()?.get(new as usize)?.get());
                if let Some(known) = other {
                    return known.clone();
                }
            }
            Box::new(self.space(placed, new, placed_is_from))
        }))
    }

    /// Number of distinct shapes.
    pub fn shape_count(&self) -> usize {
        self.shapes.len()
    }

    pub(super) fn compile(templates: &[RoomTemplate]) -> Result<ShapeSet, LayoutError> {
        let mut shapes: Vec<Shape> = Vec::new();
        let mut template_shapes: Vec<Vec<u32>> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (i, t) in templates.iter().enumerate() {
            if !names.insert(t.name.as_str()) {
                return Err(LayoutError::DuplicateTemplate {
                    name: t.name.clone(),
                });
            }
            let compiled = t.compile(i)?;
            let mut ids = Vec::new();
            for s in compiled {
                ids.push(shapes.len() as u32);
                shapes.push(s);
            }
            template_shapes.push(ids);
        }
        if shapes.len() > MAX_SHAPES {
            return Err(LayoutError::TooManyShapes {
                shapes: shapes.len(),
                templates: templates.len(),
                limit: MAX_SHAPES,
            });
        }
        Ok(ShapeSet {
            names: templates.iter().map(|t| t.name.clone()).collect(),
            turns: std::sync::OnceLock::new(),
            two_way: shapes
                .iter()
                .map(|s| s.doors.iter().all(|d| d.kind == DoorKind::Any))
                .collect(),
            spaces: (0..shapes.len() * 2)
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            shapes,
            template_shapes,
        })
    }

    /// Every offset at which shape `new` touches shape `placed` with two doors meeting; of
    /// several door pairs at one offset, the middle one (in door order).
    ///
    /// Counted on a grid of the offsets the doors can give rather than sorted: door pairs are
    /// met in `(placed door, new door)` order, so a first pass counts each offset's pairs, a
    /// second keeps the middle one, and reading the grid column by column gives the offsets
    /// in order. Sliding doors give many pairs per offset (every pair of door slots along two
    /// facing walls), so this is several times faster than sorting the pairs.
    ///
    /// # Complexity
    /// `O(P + G)` for `P` door pairs that face each other and `G` cells of the offset grid
    /// (at most `(w_p + w_q + 1) (h_p + h_q + 1)`), then an overlap test per offset.
    pub(super) fn space(&self, placed: u32, new: u32, placed_is_from: bool) -> Space {
        let (p, q) = (&self.shapes[placed as usize], &self.shapes[new as usize]);
        let mut out = Space::default();
        // The new shape's doors that may take part, by facing.
        let mut facing: [Vec<DoorView>; 4] = Default::default();
        for (j, d) in q.doors.iter().enumerate() {
            if d.kind.allows(!placed_is_from) {
                facing[d.facing as usize].push((j as u16, d.a, d.len(), d.socket.as_deref()));
            }
        }
        // The lower ends of the doors that may take part, boxed (the new shape's read off
        // the lists just made).
        let pbox = corners(
            p.doors
                .iter()
                .filter(|d| d.kind.allows(placed_is_from))
                .map(|d| d.a),
        );
        let qbox = corners(facing.iter().flatten().map(|d| d.1));
        let (Some((pmin, pmax)), Some((qmin, qmax))) = (pbox, qbox) else {
            return out;
        };
        // Offsets `dp.a - dq.a` lie in this box.
        let lo = pmin - qmax;
        let (w, h) = (
            (pmax.x - qmin.x - lo.x + 1) as usize,
            (pmax.y - qmin.y - lo.y + 1) as usize,
        );
        let cell = |o: Point| (o.x - lo.x) as usize * h + (o.y - lo.y) as usize;
        // Door pairs that meet, in (placed door, new door) order, given to `f`.
        let pairs = |f: &mut dyn FnMut(u16, u16, Point)| {
            for (i, dp) in p.doors.iter().enumerate() {
                if !dp.kind.allows(placed_is_from) {
                    continue;
                }
                let (len, socket) = (dp.len(), dp.socket.as_deref());
                for &(j, a, qlen, qsocket) in &facing[dp.facing.opposite() as usize] {
                    if qlen != len {
                        continue;
                    }
                    if let (Some(x), Some(y)) = (socket, qsocket)
                        && x != y
                    {
                        continue;
                    }
                    f(i as u16, j, dp.a - a);
                }
            }
        };
        let mut count = vec![0u32; w * h];
        let mut offsets = 0;
        pairs(&mut |_, _, o| {
            let k = cell(o);
            offsets += usize::from(count[k] == 0);
            count[k] += 1;
        });
        // The middle pair of each offset: the `count / 2`-th met. (Zeroed grids: big ones
        // come from the allocator zeroed, unlike a grid filled with a marker.)
        let mut middle = vec![(0u16, 0u16); w * h];
        let mut seen = vec![0u32; w * h];
        pairs(&mut |i, j, o| {
            let k = cell(o);
            if seen[k] == count[k] / 2 {
                middle[k] = (i, j);
            }
            seen[k] += 1;
        });
        out.offsets.reserve_exact(offsets);
        out.doors.reserve_exact(offsets);
        for x in 0..w {
            for y in 0..h {
                let k = x * h + y;
                if count[k] == 0 {
                    continue;
                }
                let o = Point::new(lo.x + x as i32, lo.y + y as i32);
                if !overlap(p, Point::default(), q, o) {
                    out.offsets.push(o);
                    out.doors.push(middle[k]);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::edgar::EdgarLevel;

    impl ShapeSet {
        /// The first way of computing [`ShapeSet::space`]: every door pair, sorted.
        fn space_by_sorting(&self, placed: u32, new: u32, placed_is_from: bool) -> Space {
            let (p, q) = (&self.shapes[placed as usize], &self.shapes[new as usize]);
            let mut all: Vec<(Point, u16, u16)> = Vec::new();
            for (i, dp) in p.doors.iter().enumerate() {
                if !dp.kind.allows(placed_is_from) {
                    continue;
                }
                for (j, dq) in q.doors.iter().enumerate() {
                    if dq.facing != dp.facing.opposite()
                        || dq.len() != dp.len()
                        || !dq.kind.allows(!placed_is_from)
                    {
                        continue;
                    }
                    if let (Some(a), Some(b)) = (&dp.socket, &dq.socket)
                        && a != b
                    {
                        continue;
                    }
                    all.push((dp.a - dq.a, i as u16, j as u16));
                }
            }
            all.sort_unstable();
            let mut out = Space::default();
            for run in all.chunk_by(|a, b| a.0 == b.0) {
                // Of several door pairs at one offset, the middle one.
                let t = run[run.len() / 2];
                if !overlap(p, Point::default(), q, t.0) {
                    out.offsets.push(t.0);
                    out.doors.push((t.1, t.2));
                }
            }
            out
        }
    }

    impl Planner {
        /// The first way of computing [`Planner::compound`]: every pair of offsets, sorted.
        fn compound_by_sorting(
            &self,
            (sp, sn, class, placed_is_a): (u32, u32, u32, bool),
        ) -> Compound {
            let (cshapes, a_from, k_from) = &self.classes[class as usize];
            let (f1, f2) = if placed_is_a {
                (*a_from, *k_from)
            } else {
                (!*k_from, !*a_from)
            };
            let mut all: Vec<(Point, u32, Point)> = Vec::new();
            for &sc in cshapes {
                let (Some(s1), Some(s2)) =
                    (self.set.space_at(sp, sc, f1), self.set.space_at(sc, sn, f2))
                else {
                    continue;
                };
                for &o1 in &s1.offsets {
                    for &o2 in &s2.offsets {
                        all.push((o1 + o2, sc, o1));
                    }
                }
            }
            all.sort_unstable();
            all.dedup();
            let (p, q) = (&self.set.shapes[sp as usize], &self.set.shapes[sn as usize]);
            let d = self.problem.min_distance;
            let mut out = Compound::default();
            for run in all.chunk_by(|a, b| a.0 == b.0) {
                let o = run[0].0;
                let fine = !overlap(p, Point::default(), q, o)
                    && (d == 0 || outline_gap(p, Point::default(), q, o) >= d);
                if fine {
                    out.offsets.push(o);
                    out.starts.push(out.alts.len() as u32);
                    out.alts.extend(run.iter().map(|&(_, c, o1)| (c, o1)));
                }
            }
            out.starts.push(out.alts.len() as u32);
            out
        }
    }

    /// Corridor compounds by counting are those by sorting, on every compound the search may
    /// meet in Edgar's inputs with corridors.
    #[test]
    fn counted_compounds_are_the_sorted_ones() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/edgar/inputs");
        let mut compared = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let level = EdgarLevel::from_json(&text, "input").unwrap();
            let planner = Planner::new(level.problem).unwrap();
            let c = &planner.compounds;
            for class in 0..planner.classes.len() as u32 {
                for a in 0..c.shapes as u32 {
                    for b in 0..c.shapes as u32 {
                        for flag in [false, true] {
                            if c.get(a, b, class, flag).is_none() {
                                continue;
                            }
                            let x = planner.compound((a, b, class, flag));
                            let y = planner.compound_by_sorting((a, b, class, flag));
                            assert_eq!(
                                (&x.offsets, &x.starts, &x.alts),
                                (&y.offsets, &y.starts, &y.alts),
                                "{}",
                                path.display()
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 100, "{compared} compounds compared");
    }

    /// The counting grid gives exactly what sorting every door pair gives (offsets, order and
    /// the door pair kept at each), on every pair of shapes of Edgar's inputs and the
    /// built-in library, both ways round.
    #[test]
    fn counted_spaces_are_the_sorted_ones() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/edgar/inputs");
        let mut sets = vec![ShapeSet::new(&crate::layout::template::basic_templates()).unwrap()];
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files.iter().step_by(3) {
            let text = std::fs::read_to_string(f).unwrap();
            let level = EdgarLevel::from_json(&text, "input").unwrap();
            sets.push(ShapeSet::new(&level.problem.templates).unwrap());
        }
        let mut checked = 0;
        for set in &sets {
            let n = set.shapes.len().min(40) as u32;
            for a in 0..n {
                for b in 0..n {
                    for from in [false, true] {
                        let (x, y) = (set.space(a, b, from), set.space_by_sorting(a, b, from));
                        assert_eq!(x.offsets, y.offsets, "shapes {a}, {b}");
                        assert_eq!(x.doors, y.doors, "shapes {a}, {b}");
                        checked += usize::from(!x.offsets.is_empty());
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked} non-empty spaces compared");
    }
}
