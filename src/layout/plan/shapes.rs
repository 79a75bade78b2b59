//! The shape set (compiled templates and their turns) and configuration spaces: where a
//! shape may touch another with two doors meeting, and the compound spaces through corridor
//! rooms.

use super::*;
use crate::layout::geom::Dir;
use crate::layout::template::DoorKind;

impl Planner {
    pub(super) fn build_compounds(&mut self) {
        let mut cneed: Vec<(u32, u32, u32, bool)> = Vec::new();
        for step in &self.steps {
            for &(nb, e) in &step.earlier {
                if let Edge::Via(k) = e {
                    let v = self.via[k].expect("via edges come from via rooms");
                    for &(sp, _) in self.room_shapes[nb].iter() {
                        for &(sn, _) in self.room_shapes[step.room].iter() {
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

    /// Offsets of the new room from the placed one through a corridor of class `class`, in
    /// order: the sums of an offset of a corridor shape from the placed room and of the new
    /// room from the corridor that keep the two rooms apart.
    ///
    /// Marked on a grid of the offsets rather than sorted (as in [`ShapeSet::space`]), a
    /// whole space at a time as shifted bits; the corridor placements behind each offset are
    /// found only for the offsets a placement tries ([`Planner::compound_alts`]).
    ///
    /// # Complexity
    /// `O(A · G' / 64 + G / 64)` for `A` offsets of the corridor shapes from the placed room,
    /// `G'` cells of a corridor's space from the new room laid out on the sums' grid and `G`
    /// cells of that grid, then an overlap test per offset.
    pub(super) fn compound(&self, key: (u32, u32, u32, bool)) -> Compound {
        let (sp, sn, _, _) = key;
        let mut out = Compound::default();
        let spaces = self.compound_spaces(key);
        // Sums of offsets lie in the sum of the two spaces' boxes (each space is non-empty).
        let boxes = spaces.iter().filter_map(|(_, s1, s2)| {
            let ((l1, h1), (l2, h2)) = (
                corners(s1.offsets.iter().copied())?,
                corners(s2.offsets.iter().copied())?,
            );
            Some([l1 + l2, h1 + h2])
        });
        let Some((lo, hi)) = corners(boxes.flatten()) else {
            return out;
        };
        // Bits of a grid of the sums, column by column: a sum's bit is its first offset's
        // shift plus the second offset's bit in a grid of the second space laid out the same
        // way, so each offset of the first space ORs the second space's bits in, shifted.
        let (w, h) = ((hi.x - lo.x + 1) as usize, (hi.y - lo.y + 1) as usize);
        let mut met = vec![0u64; (w * h).div_ceil(64)];
        let mut bits: Vec<u64> = Vec::new();
        for (_, s1, s2) in &spaces {
            let (l2, h2) = corners(s2.offsets.iter().copied()).expect("not empty");
            let at2 = |o: Point| (o.x - l2.x) as usize * h + (o.y - l2.y) as usize;
            bits.clear();
            bits.resize(at2(h2) / 64 + 1, 0);
            for &o2 in &s2.offsets {
                let k = at2(o2);
                bits[k / 64] |= 1 << (k % 64);
            }
            for &o1 in &s1.offsets {
                let shift = (o1.x + l2.x - lo.x) as usize * h + (o1.y + l2.y - lo.y) as usize;
                let (words, b) = (shift / 64, shift % 64);
                for (i, &x) in bits.iter().enumerate() {
                    if x == 0 {
                        continue;
                    }
                    met[i + words] |= x << b;
                    if b > 0
                        && let Some(next) = met.get_mut(i + words + 1)
                    {
                        *next |= x >> (64 - b);
                    }
                }
            }
        }
        let (p, q) = (&self.set.shapes[sp as usize], &self.set.shapes[sn as usize]);
        let d = self.problem.min_distance;
        for_each_bit(&met, |k| {
            let o = Point::new(lo.x + (k / h) as i32, lo.y + (k % h) as i32);
            if !self.set.overlap_at(sp, sn, o) && gap_at_least(p, Point::default(), q, o, d) {
                out.offsets.push(o);
            }
        });
        out
    }

    /// The corridor shapes of a compound's class, each with its two spaces (placed room to
    /// corridor, corridor to new room), where both have offsets.
    fn compound_spaces(
        &self,
        (sp, sn, class, placed_is_a): (u32, u32, u32, bool),
    ) -> Vec<(u32, &Space, &Space)> {
        let (cshapes, a_from, k_from) = &self.classes[class as usize];
        let (f1, f2) = if placed_is_a {
            (*a_from, *k_from)
        } else {
            (!*k_from, !*a_from)
        };
        cshapes
            .iter()
            .filter_map(|&sc| {
                let s1 = self.set.space_at(sp, sc, f1)?;
                let s2 = self.set.space_at(sc, sn, f2)?;
                (!s1.offsets.is_empty() && !s2.offsets.is_empty()).then_some((sc, s1, s2))
            })
            .collect()
    }

    /// Every corridor placement (corridor shape, its offset from the placed room) that puts
    /// the new room at offset `o` of a compound, by corridor shape and then offset.
    ///
    /// # Complexity
    /// `O(C log C')` for `C` offsets of the corridor shapes from the placed room and `C'` of
    /// the new room from a corridor.
    pub(super) fn compound_alts(&self, key: (u32, u32, u32, bool), o: Point) -> Vec<(u32, Point)> {
        let mut out = Vec::new();
        for (sc, s1, s2) in self.compound_spaces(key) {
            for &o1 in &s1.offsets {
                if s2.offsets.binary_search(&(o - o1)).is_ok() {
                    out.push((sc, o1));
                }
            }
        }
        out
    }

    /// Whether two doors meet when `new` is at `offset` from `placed`.
    pub(super) fn meets(&self, placed: u32, new: u32, placed_is_from: bool, offset: Point) -> bool {
        self.set
            .space_at(placed, new, placed_is_from)
            .is_some_and(|s| s.offsets.binary_search(&offset).is_ok())
    }

    /// The two doors that meet when `new` is at `offset` from `placed`.
    pub(super) fn touch(
        &self,
        placed: u32,
        new: u32,
        placed_is_from: bool,
        offset: Point,
    ) -> Option<(u16, u16)> {
        self.meets(placed, new, placed_is_from, offset)
            .then(|| self.set.doors_at(placed, new, placed_is_from, offset))
            .flatten()
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

/// Per transformation (in `Transform::ALL`'s order), the shape a shape turns into and the
/// corner it lands at (see `ShapeSet::turn_table`).
pub(super) type Turned = [Option<(u32, Point)>; 8];

/// One row of the table of configuration spaces: a cell per new shape, filled on first use.
type SpaceRow = Box<[std::sync::OnceLock<Space>]>;

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
    /// Per shape: its doors as runs (see [`DoorRun`]), in door order.
    runs: Vec<Vec<DoorRun>>,
    /// Per shape at most 64 cells wide: its mask's rows as bits (cell `x` of a row is bit `x`).
    rows: Vec<Option<Vec<u64>>>,
}

/// A mask's rows as bits, if it is at most 64 cells wide.
fn bit_rows(m: &crate::layout::geom::Mask) -> Option<Vec<u64>> {
    (m.width <= 64).then(|| {
        m.bits
            .chunks_exact(m.width as usize)
            .map(|row| {
                row.iter()
                    .enumerate()
                    .fold(0u64, |b, (x, &inside)| b | u64::from(inside) << x)
            })
            .collect()
    })
}

/// Consecutive doors of a shape (by index) along one wall, each one cell further along it
/// than the one before, alike in facing, length, kind and socket: the doors a sliding door
/// gives on one side. Door pairs of two runs that face each other give offsets along one line,
/// so a configuration space is counted run pair by run pair rather than door pair by door pair.
#[derive(Debug, Clone)]
struct DoorRun {
    /// Index of the run among its shape's runs.
    index: u16,
    /// Index of the first door.
    first: u16,
    /// Number of doors.
    count: u16,
    /// Lower end of the first door.
    a: Point,
    facing: Dir,
    len: i32,
    kind: DoorKind,
}

impl DoorRun {
    /// The runs of `doors`, in door order.
    fn of(doors: &[crate::layout::template::DoorPos]) -> Vec<DoorRun> {
        let mut runs: Vec<DoorRun> = Vec::new();
        for (i, d) in doors.iter().enumerate() {
            if let Some(r) = runs.last_mut() {
                let last = &doors[i - 1];
                if d.facing == r.facing
                    && d.kind == r.kind
                    && d.len() == r.len
                    && d.socket == last.socket
                    && d.a == last.a + r.facing.along_wall()
                    && r.count < u16::MAX
                {
                    r.count += 1;
                    continue;
                }
            }
            runs.push(DoorRun {
                index: runs.len() as u16,
                first: i as u16,
                count: 1,
                a: d.a,
                facing: d.facing,
                len: d.len(),
                kind: d.kind,
            });
        }
        runs
    }

    /// Lower end of the last door.
    fn last(&self) -> Point {
        self.at(i32::from(self.count) - 1)
    }

    /// Lower end of door `k` of the run.
    fn at(&self, k: i32) -> Point {
        let u = self.facing.along_wall();
        self.a + Point::new(u.x * k, u.y * k)
    }
}

thread_local! {
    /// The offsets met by [`ShapeSet::space`], as bits of its offset grid, kept per thread.
    static MET: std::cell::RefCell<Vec<u64>> = std::cell::RefCell::default();
}

/// Calls `f` with the index of every set bit of `bits`, in order.
fn for_each_bit(bits: &[u64], mut f: impl FnMut(usize)) {
    for (word, &b) in bits.iter().enumerate() {
        let mut b = b;
        while b != 0 {
            f(word * 64 + b.trailing_zeros() as usize);
            b &= b - 1;
        }
    }
}

impl ShapeSet {
    /// Compiles `templates` (the configuration spaces are computed when first needed).
    ///
    /// # Complexity
    /// `O(S)` for `S` shapes; each pair's space later costs about the doors of the runs that
    /// face each other plus its offsets (see `space`), once.
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
            return Some(found);
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
        Some(row.get(new as usize)?.get_or_init(|| {
            // Shapes whose doors all go both ways have one space for either direction of the
            // link: the other direction's, if it is known, is copied.
            if self.two_way[placed as usize] && self.two_way[new as usize] {
                let known = |a: u32, b: u32, from: bool| {
                    self.spaces
                        .get(a as usize * 2 + usize::from(from))
                        .and_then(|r| r.get()?.get(b as usize)?.get())
                };
                if let Some(known) = known(placed, new, !placed_is_from) {
                    return known.clone();
                }
                // The same pair the other way round: `new` at `o` from `placed` touches it
                // exactly where `placed` at `-o` from `new` does (the same doors meet, the
                // same cells would overlap), so its offsets are these negated, in reverse
                // to stay sorted.
                if let Some(mirror) = known(new, placed, placed_is_from)
                    .or_else(|| known(new, placed, !placed_is_from))
                {
                    return Space {
                        offsets: mirror
                            .offsets
                            .iter()
                            .rev()
                            .map(|o| Point::new(-o.x, -o.y))
                            .collect(),
                        runs: self.run_pairs(placed, new, placed_is_from),
                    };
                }
            }
            self.space(placed, new, placed_is_from)
        }))
    }

    /// Number of distinct shapes.
    pub fn shape_count(&self) -> usize {
        self.shapes.len()
    }

    pub(super) fn compile(templates: &[RoomTemplate]) -> Result<ShapeSet, LayoutError> {
        let mut shapes: Vec<Shape> = Vec::new();
        let mut template_shapes: Vec<Vec<u32>> = Vec::new();
        // Names met so far: a scan for the few templates a level usually has, hashed beyond
        // (the set is made only then).
        let mut names = (templates.len() > 32)
            .then(|| std::collections::HashSet::with_capacity(templates.len()));
        for (i, t) in templates.iter().enumerate() {
            let repeated = match &mut names {
                Some(set) => !set.insert(t.name.as_str()),
                None => templates[..i].iter().any(|u| u.name == t.name),
            };
            if repeated {
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
            runs: shapes.iter().map(|s| DoorRun::of(&s.doors)).collect(),
            rows: shapes.iter().map(|s| bit_rows(&s.mask)).collect(),
            shapes,
            template_shapes,
        })
    }

    /// Every offset at which shape `new` touches shape `placed` with two doors meeting (the
    /// door pair used at each is found when asked for: [`ShapeSet::doors_at`]).
    ///
    /// Marked on a grid of the offsets the doors can give rather than sorted, run pair by run
    /// pair ([`DoorRun`]): two runs facing each other give the offsets along one line, so the
    /// offsets are marked without meeting every door pair; reading the marks column by column
    /// gives them in order.
    ///
    /// # Complexity
    /// `O(R (a + b) + G / 64)` for `R` pairs of runs that face each other, `a + b` doors in
    /// each, and `G` cells of the offset grid (at most `(w_p + w_q + 1) (h_p + h_q + 1)`), then
    /// an overlap test per offset that only runs off the sides of the shapes' boxes give.
    pub(super) fn space(&self, placed: u32, new: u32, placed_is_from: bool) -> Space {
        let mut out = Space {
            runs: self.run_pairs(placed, new, placed_is_from),
            ..Space::default()
        };
        let (pr, qr) = (&self.runs[placed as usize], &self.runs[new as usize]);
        let pairs = out
            .runs
            .iter()
            .map(|&(r, t)| (&pr[r as usize], &qr[t as usize]));
        let Some((lo, hi)) = corners(
            pairs
                .clone()
                .flat_map(|(r, t)| [r.a - t.last(), r.last() - t.a]),
        ) else {
            return out;
        };
        // Columns of the grid are a power of two long, so a bit's cell needs no division.
        let w = (hi.x - lo.x + 1) as usize;
        let sh = ((hi.y - lo.y + 1) as usize)
            .next_power_of_two()
            .trailing_zeros();
        let h = 1usize << sh;
        let cell = |o: Point| ((o.x - lo.x) as usize) << sh | (o.y - lo.y) as usize;
        // A run on the side of its shape's box (a side no cell lies beyond) meeting a run on
        // the opposite side of the other shape's box: the shapes lie on either side of the
        // line their doors share, so they cannot overlap at those offsets.
        let outer = |shape: u32, r: &DoorRun| {
            let m = &self.shapes[shape as usize].mask;
            match r.facing {
                Dir::South => r.a.y == 0,
                Dir::North => r.a.y == m.height,
                Dir::West => r.a.x == 0,
                Dir::East => r.a.x == m.width,
            }
        };
        MET.with_borrow_mut(|met| {
            // Two grids of bits: the offsets met, then those met by two outer runs.
            let words = (w * h).div_ceil(64);
            met.clear();
            met.resize(2 * words, 0);
            let (met, safe) = met.split_at_mut(words);
            // Runs `r` and `t` meet at offsets `r.at(k) - t.a`, `k` from `1 - t.count` to
            // `r.count - 1`.
            for (r, t) in pairs {
                let apart = outer(placed, r) && outer(new, t);
                for k in 1 - i32::from(t.count)..i32::from(r.count) {
                    let x = cell(r.at(k) - t.a);
                    met[x / 64] |= 1 << (x % 64);
                    if apart {
                        safe[x / 64] |= 1 << (x % 64);
                    }
                }
            }
            let n = met.iter().map(|b| b.count_ones() as usize).sum();
            out.offsets.reserve_exact(n);
            for_each_bit(met, |k| {
                let o = Point::new(lo.x + (k >> sh) as i32, lo.y + (k & (h - 1)) as i32);
                if safe[k / 64] & (1 << (k % 64)) != 0 || !self.overlap_at(placed, new, o) {
                    out.offsets.push(o);
                }
            });
        });
        out
    }

    /// Runs of the placed shape that may take part in a space, each with the new shape's runs
    /// that face it (same length, sockets that agree), in door order, as indices into the two
    /// shapes' runs.
    fn run_pairs(&self, placed: u32, new: u32, placed_is_from: bool) -> Vec<(u16, u16)> {
        let (p, q) = (&self.shapes[placed as usize], &self.shapes[new as usize]);
        let mut pairs = Vec::new();
        for r in &self.runs[placed as usize] {
            if !r.kind.allows(placed_is_from) {
                continue;
            }
            for t in &self.runs[new as usize] {
                if t.facing != r.facing.opposite()
                    || t.len != r.len
                    || !t.kind.allows(!placed_is_from)
                {
                    continue;
                }
                if let (Some(x), Some(y)) = (
                    p.doors[r.first as usize].socket.as_deref(),
                    q.doors[t.first as usize].socket.as_deref(),
                ) && x != y
                {
                    continue;
                }
                pairs.push((r.index, t.index));
            }
        }
        pairs
    }

    /// The door pair used when `new` is at offset `o` from `placed`: of the door pairs that
    /// meet there, the middle one in `(placed door, new door)` order; `None` if none meets.
    /// (It does not look at overlap: ask only for offsets of the space.)
    ///
    /// The pairs at `o` of two runs are consecutive in that order, so they are counted and
    /// the middle one found arithmetically; where two runs of the new shape on one line face
    /// the same run of the placed one, their pairs interleave, and that run is walked door by
    /// door.
    ///
    /// # Complexity
    /// `O(R)` for `R` pairs of runs that face each other (plus the doors of an interleaved
    /// run).
    pub(super) fn doors_at(
        &self,
        placed: u32,
        new: u32,
        placed_is_from: bool,
        o: Point,
    ) -> Option<(u16, u16)> {
        let (pr, qr) = (&self.runs[placed as usize], &self.runs[new as usize]);
        let pairs = &self.space_at(placed, new, placed_is_from)?.runs;
        let runs = |&(r, t): &(u16, u16)| (&pr[r as usize], &qr[t as usize]);
        // Where `o` lies on the line of runs `r` and `t`: the `k` with `r.at(k) - t.a == o`
        // and the doors `i0..i1` of `r` that meet door `i - k` of `t` there.
        let at = |r: &DoorRun, t: &DoorRun| {
            let d = o - (r.a - t.a);
            let k = if r.facing.horizontal_wall() {
                (d.y == 0).then_some(d.x)?
            } else {
                (d.x == 0).then_some(d.y)?
            };
            let (i0, i1) = (k.max(0), i32::from(r.count).min(i32::from(t.count) + k));
            (i0 < i1).then_some((k, i0, i1))
        };
        let count: i32 = pairs
            .iter()
            .filter_map(|p| {
                let (r, t) = runs(p);
                at(r, t).map(|(_, i0, i1)| i1 - i0)
            })
            .sum();
        if count == 0 {
            return None;
        }
        let mut left = count / 2;
        for mine in pairs.chunk_by(|a, b| a.0 == b.0) {
            let r = runs(&mine[0]).0;
            let mine = || mine.iter().map(|p| runs(p).1);
            let line = |t: &DoorRun| {
                if r.facing.horizontal_wall() {
                    t.a.y
                } else {
                    t.a.x
                }
            };
            let interleaved = mine()
                .enumerate()
                .any(|(x, a)| mine().take(x).any(|b| line(a) == line(b)));
            if interleaved {
                // Door by door of `r`, each with the new shape's runs in order.
                for i in 0..i32::from(r.count) {
                    for t in mine() {
                        if let Some((k, i0, i1)) = at(r, t)
                            && (i0..i1).contains(&i)
                        {
                            if left == 0 {
                                return Some((r.first + i as u16, t.first + (i - k) as u16));
                            }
                            left -= 1;
                        }
                    }
                }
            } else {
                for t in mine() {
                    if let Some((k, i0, i1)) = at(r, t) {
                        if left < i1 - i0 {
                            let i = i0 + left;
                            return Some((r.first + i as u16, t.first + (i - k) as u16));
                        }
                        left -= i1 - i0;
                    }
                }
            }
        }
        None
    }

    /// Whether shape `new` at `o` shares a cell with shape `placed` at the origin (row by row
    /// on bits where both are at most 64 cells wide).
    fn overlap_at(&self, placed: u32, new: u32, o: Point) -> bool {
        let (p, q) = (&self.shapes[placed as usize], &self.shapes[new as usize]);
        let (Some(a), Some(b)) = (&self.rows[placed as usize], &self.rows[new as usize]) else {
            return overlap(p, Point::default(), q, o);
        };
        let Some((_, y0, _, y1)) =
            crate::layout::geom::shared_box(&p.mask, Point::default(), &q.mask, o)
        else {
            return false;
        };
        // `o.x` lies in `-63..=63` here: the boxes share a column and both are at most 64 wide.
        (y0..y1).any(|y| {
            let (ra, rb) = (a[y as usize], b[(y - o.y) as usize]);
            let moved = if o.x >= 0 { rb << o.x } else { rb >> -o.x };
            ra & moved != 0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::edgar::EdgarLevel;

    impl ShapeSet {
        /// The first way of computing [`ShapeSet::space`]: every door pair, sorted.
        fn space_by_sorting(
            &self,
            placed: u32,
            new: u32,
            placed_is_from: bool,
        ) -> (Vec<Point>, Vec<(u16, u16)>) {
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
            let (mut offsets, mut doors) = (Vec::new(), Vec::new());
            for run in all.chunk_by(|a, b| a.0 == b.0) {
                // Of several door pairs at one offset, the middle one.
                let t = run[run.len() / 2];
                if !overlap(p, Point::default(), q, t.0) {
                    offsets.push(t.0);
                    doors.push((t.1, t.2));
                }
            }
            (offsets, doors)
        }
    }

    impl Planner {
        /// The first way of computing [`Planner::compound`]: every pair of offsets, sorted;
        /// each kept offset with every corridor placement that gives it, in order.
        fn compound_by_sorting(
            &self,
            (sp, sn, class, placed_is_a): (u32, u32, u32, bool),
        ) -> Vec<(Point, Vec<(u32, Point)>)> {
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
            let mut out = Vec::new();
            for run in all.chunk_by(|a, b| a.0 == b.0) {
                let o = run[0].0;
                let fine = !overlap(p, Point::default(), q, o)
                    && (d == 0 || outline_gap(p, Point::default(), q, o) >= d);
                if fine {
                    out.push((o, run.iter().map(|&(_, c, o1)| (c, o1)).collect()));
                }
            }
            out
        }
    }

    /// Corridor compounds by marking are those by sorting (the same offsets, and at each the
    /// same corridor placements in the same order), on every compound the search may meet in
    /// Edgar's inputs with corridors.
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
                            let key = (a, b, class, flag);
                            let x: Vec<(Point, Vec<(u32, Point)>)> = planner
                                .compound(key)
                                .offsets
                                .iter()
                                .map(|&o| (o, planner.compound_alts(key, o)))
                                .collect();
                            let y = planner.compound_by_sorting(key);
                            assert_eq!(x, y, "{}", path.display());
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 100, "{compared} compounds compared");
    }

    /// Asserts that every space among the first `n` shapes of `set`, both ways round, is what
    /// sorting every door pair gives (offsets, order and the door pair kept at each), as the
    /// set computes it and as its cache hands it out (where a pair of two-way shapes is
    /// mirrored from the pair the other way round, met first); returns how many were not
    /// empty.
    fn same_as_sorting(set: &ShapeSet, n: u32, what: &str) -> usize {
        let mut checked = 0;
        for a in 0..n {
            for b in 0..n {
                for from in [false, true] {
                    let (x, (offsets, doors)) =
                        (set.space(a, b, from), set.space_by_sorting(a, b, from));
                    assert_eq!(x.offsets, offsets, "{what}: shapes {a}, {b}");
                    let cached = set.space_at(a, b, from).expect("a space");
                    assert_eq!(cached.offsets, offsets, "{what}: shapes {a}, {b}, cached");
                    assert_eq!(cached.runs, x.runs, "{what}: shapes {a}, {b}, cached");
                    let found: Vec<_> = offsets
                        .iter()
                        .map(|&o| set.doors_at(a, b, from, o).unwrap())
                        .collect();
                    assert_eq!(found, doors, "{what}: shapes {a}, {b}");
                    checked += usize::from(!x.offsets.is_empty());
                }
            }
        }
        checked
    }

    /// Spaces and their door pairs are exactly what sorting every door pair gives (offsets,
    /// order and the door pair kept at each), on every pair of shapes of Edgar's inputs and the
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
        let checked: usize = sets
            .iter()
            .map(|set| same_as_sorting(set, set.shapes.len().min(40) as u32, "an input"))
            .sum();
        assert!(checked > 1000, "{checked} non-empty spaces compared");
    }

    /// Counting run pair by run pair gives what sorting every door pair gives, on random
    /// templates made to reach every path of it: U shapes (two walls of one facing on one
    /// line, so their door pairs interleave), staircases, doors sliding with lengths of one to
    /// three and corner distances, door lines and single doors of every kind, with sockets,
    /// under every transformation.
    #[test]
    fn runs_count_what_door_pairs_give_on_random_templates() {
        use crate::layout::geom::Transform;
        use crate::layout::template::{DoorLine, DoorMode, DoorSpec, TemplateShape};
        let mut rng = crate::seed::stream(11, "random templates");
        let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
        let mut checked = 0;
        for round in 0..40 {
            let mut templates = Vec::new();
            for k in 0..4 {
                let (w, h) = (4 + below(6), 4 + below(6));
                let outline: Vec<[i32; 2]> = match below(3) {
                    0 => vec![[0, 0], [w, 0], [w, h], [0, h]],
                    1 => {
                        // A U: a notch `a` in from each side and `d` deep, from the top.
                        let (a, d) = (1 + below((w as usize - 2) / 2), 1 + below(h as usize - 2));
                        vec![
                            [0, 0],
                            [w, 0],
                            [w, h],
                            [w - a, h],
                            [w - a, h - d],
                            [a, h - d],
                            [a, h],
                            [0, h],
                        ]
                    }
                    _ => {
                        let (a, b) = (1 + below(w as usize - 1), 1 + below(h as usize - 1));
                        vec![[0, 0], [w, 0], [w, b], [a, b], [a, h], [0, h]]
                    }
                };
                let kinds = [DoorKind::Any, DoorKind::Exit, DoorKind::Entrance];
                let sockets = [None, None, Some("a".to_string()), Some("b".to_string())];
                let n = outline.len();
                let doors = match below(3) {
                    0 => DoorMode::Sliding {
                        length: 1 + below(3),
                        corner_distance: below(2),
                        socket: sockets[below(4) as usize].clone(),
                    },
                    mode => {
                        // Doors along some sides: whole lines, or single doors.
                        let mut lines = Vec::new();
                        let mut specs = Vec::new();
                        for e in 0..n {
                            // (The first side always has a door.)
                            if e > 0 && below(3) == 0 {
                                continue;
                            }
                            let (p, q) = (outline[e], outline[(e + 1) % n]);
                            let kind = kinds[below(3) as usize];
                            let socket = sockets[below(4) as usize].clone();
                            let len = (p[0] - q[0]).abs() + (p[1] - q[1]).abs();
                            if mode == 1 {
                                lines.push(DoorLine {
                                    from: p,
                                    to: q,
                                    length: 1 + below(2.min(len as usize)),
                                    kind,
                                    socket,
                                });
                            } else {
                                for t in 0..len {
                                    if (e, t) != (0, 0) && below(2) == 0 {
                                        continue;
                                    }
                                    let at = |t: i32| {
                                        [
                                            p[0] + (q[0] - p[0]).signum() * t,
                                            p[1] + (q[1] - p[1]).signum() * t,
                                        ]
                                    };
                                    specs.push(DoorSpec {
                                        from: at(t),
                                        to: at(t + 1),
                                        kind,
                                        socket: socket.clone(),
                                    });
                                }
                            }
                        }
                        if mode == 1 {
                            DoorMode::Lines(lines)
                        } else {
                            DoorMode::Manual(specs)
                        }
                    }
                };
                templates.push(RoomTemplate {
                    name: format!("t{round}_{k}"),
                    shape: TemplateShape::Outline(outline),
                    doors,
                    transforms: Transform::ALL.to_vec(),
                    repeat: None,
                    kinds: Vec::new(),
                    tags: Vec::new(),
                    weight: 1.0,
                });
            }
            let set = ShapeSet::new(&templates).unwrap();
            checked += same_as_sorting(&set, set.shapes.len() as u32, &format!("round {round}"));
        }
        assert!(checked > 5000, "{checked} non-empty spaces compared");
    }

    /// Shapes with many runs of doors (a door on every other cell of every side, each a run of
    /// its own): hundreds of pairs of facing runs, and the doors found at each offset are
    /// still those sorting gives.
    #[test]
    fn many_runs_find_the_doors_sorting_gives() {
        use crate::layout::geom::Transform;
        use crate::layout::template::{DoorMode, DoorSpec, TemplateShape};
        let side = 24;
        let mut doors = Vec::new();
        for t in (1..side - 1).step_by(2) {
            for (from, to) in [
                ([t, 0], [t + 1, 0]),
                ([t, side], [t + 1, side]),
                ([0, t], [0, t + 1]),
                ([side, t], [side, t + 1]),
            ] {
                doors.push(DoorSpec {
                    from,
                    to,
                    kind: DoorKind::Any,
                    socket: None,
                });
            }
        }
        let template = RoomTemplate {
            name: "many".into(),
            shape: TemplateShape::Outline(vec![[0, 0], [side, 0], [side, side], [0, side]]),
            doors: DoorMode::Manual(doors),
            transforms: vec![Transform::Identity],
            repeat: None,
            kinds: Vec::new(),
            tags: Vec::new(),
            weight: 1.0,
        };
        let set = ShapeSet::new(&[template]).unwrap();
        // 11 runs on each side: 121 pairs of facing runs each way.
        assert_eq!(set.run_pairs(0, 0, true).len(), 4 * 121);
        assert_eq!(same_as_sorting(&set, 1, "many runs"), 2);
    }
}
