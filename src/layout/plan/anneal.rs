//! Simulated annealing over whole rooms (the method of Ma et al., which Edgar uses): the
//! rescue for a small problem, or a part of a big one, that the room-by-room search could not
//! lay out.
//!
//! The room-by-room search closes every loop tight, so it never leaves a hole inside a loop;
//! some graphs need one (a room that lies inside a loop in every planar drawing of the graph,
//! such as the middle one of three paths between two rooms). Annealing keeps every room placed
//! and moves them freely. The energy is the overlap area of the rooms (and how far two rooms
//! that are not linked come inside the minimum distance), plus, for every link, how far its
//! rooms are from touching with two doors meeting, or from a corridor's length bounds. A room
//! moves to a position where it touches all its placed neighbours at once (the intersection of
//! their configuration spaces), or as many as can be touched at once, or one of them; or it
//! takes another shape. At zero energy the corridors are routed and every room checked against
//! them; a link whose corridor could not be routed must touch from then on. Only a layout that
//! passes those checks is returned.

use rand::Rng;
use rstar::RTree;

use super::super::LayoutError;
use super::super::geom::{Point, Rect};
use super::{Entry, Planner, State};
use crate::seed;

/// Problems up to this many rooms are annealed when the room-by-room search fails.
pub(super) const MAX_ROOMS: usize = 60;
/// Runs at most under [`super::RetryPolicy::Attempts`] (a run costs as much as dozens of
/// attempts of the search).
const MAX_RUNS: u32 = 20;
/// Temperature steps per run.
const CYCLES: u32 = 50;
/// Moves per room per temperature step.
const MOVES_PER_ROOM: u32 = 30;
/// Rooms per chain at most (a chain also ends where a loop closes).
const CHAIN_ROOMS: usize = 6;
/// Moves per temperature step at least, however short the chain.
const MOVES_FLOOR: usize = 4;
/// Chance that a move takes a room of the chain being annealed (else any placed room).
const OWN_CHAIN: f64 = 0.8;
/// Zero-energy states whose corridors did not route, per run, before the run gives up.
const MAX_SETTLES: u32 = 8;
/// Candidates drawn for each room when a run starts (the one of least energy is taken).
const START_TRIES: usize = 8;
/// Energy of one cell of distance from a satisfied link, against one cell of overlap.
const DISTANCE_WEIGHT: u64 = 4;
/// Chance that a move puts a room a corridor's length away from a neighbour (when a link
/// allows a corridor).
const CORRIDOR_MOVE: f64 = 0.3;
/// Chance that a move changes the room's shape (when it has several).
const SHAPE_MOVE: f64 = 0.25;
/// Chance that a move shifts a room by a cell or two (fine adjustment) instead of drawing a
/// new position.
const NUDGE: f64 = 0.2;
/// Energy of a typical worsening move (two cells of distance), for the acceptance rule.
const ACCEPT_SCALE: f64 = 8.0;
/// Acceptance of a worsening move of [`ACCEPT_SCALE`] at the first temperature (as in Edgar).
const P_FIRST: f64 = 0.2;
/// The same at the last temperature; the temperature falls geometrically in between.
const P_LAST: f64 = 0.01;

/// One annealing run's rooms.
struct Run<'a> {
    p: &'a Planner,
    shape: Vec<u32>,
    pos: Vec<Point>,
    /// Rooms placed so far (all of them once the run has started).
    on: Vec<bool>,
    /// Links whose corridor could not be routed: their rooms must touch.
    contact_only: Vec<bool>,
}

impl Planner {
    /// Whether annealing can take this problem on: few enough rooms, and no corridor room
    /// between two rooms (those are placed with their second room by the room-by-room search).
    pub(super) fn can_anneal(&self) -> bool {
        // (Annealing moves rooms freely: it would not keep `Planner::with_rotation`'s order.)
        self.problem.rooms.len() <= MAX_ROOMS
            && self.via.iter().all(Option::is_none)
            && self.rotation.is_none()
    }

    /// Anneals up to `runs` times (or until `deadline`): the placed rooms and corridors, and
    /// the runs it took. The error names no room; the caller reports its own.
    pub(super) fn anneal(
        &self,
        seed: u64,
        runs: u32,
        deadline: Option<std::time::Instant>,
    ) -> Result<(State, u32), u32> {
        let mut rng = seed::stream(seed, "anneal");
        for run in 1..=runs.max(1) {
            if run > 1 && super::search::past(deadline) {
                return Err(run - 1);
            }
            let mut r = Run::new(self);
            if let Some(st) = r.go(&mut rng, deadline) {
                return Ok((st, run));
            }
        }
        Err(runs.max(1))
    }

    /// The room-by-room search, then annealing where it applies, then (on a small level) the
    /// search under other room orders: the state and the attempts. `after_others`: the
    /// search follows stages that already made attempts, so its first attempt too ends where
    /// the deadline passes (see `Planner::search_recording`).
    pub(super) fn solve(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
        after_others: bool,
    ) -> Result<(State, u32), LayoutError> {
        // Under a time budget each stage that may follow gets a share of the time: the search
        // the first, annealing an even share of what the search leaves, other orders the rest
        // (see `RetryPolicy::Millis`). Under a count, each stage makes its own attempts.
        let anneals = self.can_anneal();
        let others = !self.big;
        let stages = 1 + u32::from(anneals) + u32::from(others);
        let searched =
            self.search_recording(seed, self.time_share(deadline, stages), after_others, None);
        let annealed = or_next(searched, || {
            if !anneals {
                return Err(0);
            }
            let runs = match self.problem.budget.retry {
                super::RetryPolicy::Attempts(k) => k.min(MAX_RUNS),
                super::RetryPolicy::Millis(_) => u32::MAX,
            };
            self.anneal(seed, runs, self.time_share(deadline, 1 + u32::from(others)))
        });
        or_next(annealed, || self.search_other_orders(seed, deadline))
    }
}

/// `first`, or where it found no layout, `next` (a state and its attempts, or the attempts it
/// made): the attempts of both counted, and `first`'s reason kept if both fail.
fn or_next(
    first: Result<(State, u32), LayoutError>,
    next: impl FnOnce() -> Result<(State, u32), u32>,
) -> Result<(State, u32), LayoutError> {
    match first {
        Err(LayoutError::NoLayout {
            attempts,
            room,
            composite,
            failures,
            constraint,
        }) => match next() {
            Ok((st, k)) => Ok((st, attempts + k)),
            Err(k) => Err(LayoutError::NoLayout {
                attempts: attempts + k,
                room,
                composite,
                failures,
                constraint,
            }),
        },
        other => other,
    }
}

/// The box gaps (cells between two rooms) a straight corridor of `min..=max` cells bridges
/// with room to spare: one cell of wall on each side, and a few cells for bends.
fn gap_bounds(min: u32, max: u32) -> (u32, u32) {
    let lo = min.max(3);
    (lo, max.saturating_sub(4).max(lo))
}

/// Cells between two boxes, across and up (0 when they touch or overlap).
fn box_gap(a: Rect, b: Rect) -> u32 {
    let dx = (b.min.x - a.max.x).max(a.min.x - b.max.x).max(0);
    let dy = (b.min.y - a.max.y).max(a.min.y - b.max.y).max(0);
    (dx + dy) as u32
}

impl<'a> Run<'a> {
    fn new(p: &'a Planner) -> Run<'a> {
        let n = p.problem.rooms.len();
        Run {
            p,
            shape: vec![0; n],
            pos: vec![Point::default(); n],
            on: vec![false; n],
            contact_only: vec![false; p.problem.links.len()],
        }
    }

    /// Where room `r` is pinned ([`Planner::with_pins`]), if it is: it never moves.
    fn pin(&self, r: usize) -> Option<super::Pin> {
        self.p.pins.as_ref().and_then(|p| p[r])
    }

    /// Energy between room `a` (as shape `sa` at `pa`) and placed room `b`: shared cells, and
    /// how far inside the minimum distance two rooms that are not linked come.
    fn pair(&self, a: usize, sa: u32, pa: Point, b: usize) -> u64 {
        let p = self.p;
        let (sb, pb) = (self.shape[b], self.pos[b]);
        let d = p.problem.min_distance as i32;
        let (ra, rb) = (p.rect_of(sa, pa), p.rect_of(sb, pb));
        if ra.min.x >= rb.max.x + d
            || rb.min.x >= ra.max.x + d
            || ra.min.y >= rb.max.y + d
            || rb.min.y >= ra.max.y + d
        {
            return 0;
        }
        let (x, y) = (p.shape(sa), p.shape(sb));
        let area = super::overlap_area(x, pa, y, pb);
        if area > 0 || d == 0 || p.linked(a, b) {
            return area;
        }
        let gap = super::outline_gap(x, pa, y, pb);
        u64::from((d as u32).saturating_sub(gap))
    }

    /// Energy of link `l` with room `a` as shape `sa` at `pa` and the other room where it is:
    /// the distance (in cells, weighted) from the nearest position where they touch, or from
    /// the box gaps a corridor can bridge, whichever is less.
    fn link(&self, l: usize, a: usize, sa: u32, pa: Point) -> u64 {
        let p = self.p;
        let spec = p.problem.links[l];
        let b = if spec.from == a { spec.to } else { spec.from };
        let (sb, pb) = (self.shape[b], self.pos[b]);
        let mut best = u32::MAX;
        if spec.realise.contact_allowed() {
            // Offsets of `a` from `b`.
            if let Some(space) = p.set.space_at(sb, sa, spec.from == b) {
                let o = pa - pb;
                for &s in &space.offsets {
                    best = best.min(s.manhattan(o));
                    if best == 0 {
                        return 0;
                    }
                }
            }
        }
        if let Some((min, max)) = spec.realise.path_bounds()
            && !self.contact_only[l]
        {
            let (lo, hi) = gap_bounds(min, max);
            let g = box_gap(p.rect_of(sa, pa), p.rect_of(sb, pb));
            let off = lo.saturating_sub(g) + g.saturating_sub(hi);
            best = best.min(off);
        }
        if best == u32::MAX {
            // No position lets the two shapes touch: as far as it gets.
            best = 64;
        }
        u64::from(best) * DISTANCE_WEIGHT
    }

    /// Energy of everything that involves room `r` as shape `s` at `at` (placed rooms only).
    fn cost(&self, r: usize, s: u32, at: Point) -> u64 {
        let mut e = 0;
        for q in 0..self.on.len() {
            if q != r && self.on[q] {
                e += self.pair(r, s, at, q);
            }
        }
        for &(nb, l) in &self.p.adj[r] {
            if nb != r && self.on[nb] {
                e += self.link(l, r, s, at);
            }
        }
        e
    }

    /// Energy of the whole run.
    fn total(&self) -> u64 {
        let n = self.on.len();
        let mut e = 0;
        for a in (0..n).filter(|&a| self.on[a]) {
            for b in (a + 1..n).filter(|&b| self.on[b]) {
                e += self.pair(a, self.shape[a], self.pos[a], b);
            }
        }
        for (l, spec) in self.p.problem.links.iter().enumerate() {
            if self.on[spec.from] && self.on[spec.to] {
                e += self.link(l, spec.from, self.shape[spec.from], self.pos[spec.from]);
            }
        }
        e
    }

    /// A shape for room `r`: one its repeat modes allow against the placed rooms (any, if
    /// none is), drawn by weight.
    fn draw_shape<R: Rng + ?Sized>(&self, rng: &mut R, r: usize) -> u32 {
        let pool = self
            .p
            .repeat_allowed(r, |q| (q != r && self.on[q]).then(|| self.shape[q]));
        let weights: Vec<f64> = pool.iter().map(|&(_, w)| w).collect();
        match seed::weighted_index(rng, &weights) {
            Some(k) => pool[k].0,
            None => pool.last().map_or(0, |&(s, _)| s),
        }
    }

    /// A position for room `r` as shape `s`: touching as many of its placed neighbours as can
    /// be touched at once (all, else all but one, else one), drawn uniformly among those.
    fn draw_position<R: Rng + ?Sized>(&self, rng: &mut R, r: usize, s: u32) -> Point {
        let p = self.p;
        // Each placed neighbour with contact allowed: where it is, and the offsets of `r`
        // from it at which they touch.
        let mut sets: Vec<(Point, &[Point])> = Vec::new();
        let mut any: Option<Point> = None;
        let mut corridors: Vec<(usize, usize)> = Vec::new();
        for &(nb, l) in &p.adj[r] {
            if nb == r || !self.on[nb] {
                continue;
            }
            any = Some(self.pos[nb]);
            let spec = p.problem.links[l];
            if spec.realise.path_bounds().is_some() && !self.contact_only[l] {
                corridors.push((nb, l));
            }
            if !spec.realise.contact_allowed() {
                continue;
            }
            if let Some(space) = p.set.space_at(self.shape[nb], s, spec.from == nb)
                && !space.offsets.is_empty()
            {
                sets.push((self.pos[nb], &space.offsets));
            }
        }
        // Now and then, away from a neighbour a corridor may join: straight out of a door of
        // its, as far as a corridor of the allowed length reaches.
        if !corridors.is_empty() && seed::chance(rng, CORRIDOR_MOVE) {
            let (nb, l) = corridors[seed::index(rng, corridors.len())];
            let (min, max) = p.problem.links[l]
                .realise
                .path_bounds()
                .expect("path allowed");
            let (lo, hi) = gap_bounds(min, max);
            let spec = p.problem.links[l];
            if let Some(space) = p.set.space_at(self.shape[nb], s, spec.from == nb)
                && !space.offsets.is_empty()
            {
                let k = seed::index(rng, space.offsets.len());
                let pair = p
                    .set
                    .doors_at(self.shape[nb], s, spec.from == nb, space.offsets[k])
                    .expect("offsets of a space have doors that meet");
                let door = &p.shape(self.shape[nb]).doors[pair.0 as usize];
                let far = seed::range_inclusive(rng, lo, hi) as i32;
                let step = door.facing.step();
                return self.pos[nb] + space.offsets[k] + Point::new(step.x * far, step.y * far);
            }
        }
        if sets.is_empty() {
            // Only corridors (or nothing placed) around: a step of up to a room's span.
            let base = any.unwrap_or(self.pos[r]);
            let m = self.p.span.max(4);
            let dx = seed::below(rng, (2 * m + 1) as u64) as i32 - m;
            let dy = seed::below(rng, (2 * m + 1) as u64) as i32 - m;
            return base + Point::new(dx, dy);
        }
        sets.sort_by_key(|(_, o)| o.len());
        let meet = |skip: Option<usize>| -> Vec<Point> {
            let first = if skip == Some(0) { 1 } else { 0 };
            let (bp, bo) = sets[first];
            bo.iter()
                .map(|&o| bp + o)
                .filter(|&q| {
                    sets.iter().enumerate().all(|(k, &(np, no))| {
                        k == first || Some(k) == skip || no.binary_search(&(q - np)).is_ok()
                    })
                })
                .collect()
        };
        let mut found = meet(None);
        if found.is_empty() && sets.len() > 2 {
            let mut order: Vec<usize> = (0..sets.len()).collect();
            seed::shuffle(rng, &mut order);
            for k in order {
                found = meet(Some(k));
                if !found.is_empty() {
                    break;
                }
            }
        }
        if found.is_empty() {
            let (np, no) = sets[seed::index(rng, sets.len())];
            return np + no[seed::index(rng, no.len())];
        }
        found[seed::index(rng, found.len())]
    }

    /// The planner's room order cut into chains, annealed one after another: a cut after
    /// every room that closes a loop (it has two placed neighbours), and after
    /// [`CHAIN_ROOMS`] rooms.
    fn chains(&self) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = vec![Vec::new()];
        for step in &self.p.steps {
            let last = out.last_mut().expect("one chain at least");
            last.push(step.room);
            if step.earlier.len() >= 2 || last.len() >= CHAIN_ROOMS {
                out.push(Vec::new());
            }
        }
        out.retain(|c| !c.is_empty());
        out
    }

    /// Places room `r` at the best of a few drawn positions (the origin for the first room).
    fn put<R: Rng + ?Sized>(&mut self, rng: &mut R, r: usize, first: bool) {
        if let Some((s, at)) = self.pin(r) {
            (self.shape[r], self.pos[r]) = (s, at);
            self.on[r] = true;
            return;
        }
        let mut best: Option<(u64, u32, Point)> = None;
        for _ in 0..START_TRIES {
            let s = self.draw_shape(rng, r);
            let at = if first {
                Point::default()
            } else {
                self.draw_position(rng, r, s)
            };
            let e = self.cost(r, s, at);
            if best.is_none_or(|(b, _, _)| e < b) {
                best = Some((e, s, at));
            }
            if first || e == 0 {
                break;
            }
        }
        let (_, s, at) = best.expect("START_TRIES > 0");
        (self.shape[r], self.pos[r]) = (s, at);
        self.on[r] = true;
    }

    /// One run: chain by chain, each added room by room and then annealed to zero energy
    /// (moving mostly its own rooms, now and then any placed room); the settled state once
    /// the last chain is at zero energy and its corridors route.
    fn go<R: Rng + ?Sized>(
        &mut self,
        rng: &mut R,
        deadline: Option<std::time::Instant>,
    ) -> Option<State> {
        let chains = self.chains();
        let (t0, t1) = (-1.0 / P_FIRST.ln(), -1.0 / P_LAST.ln());
        let ratio = (t1 / t0).powf(1.0 / f64::from(CYCLES - 1));
        let mut settles = 0;
        let mut placed: Vec<usize> = Vec::new();
        for (c, chain) in chains.iter().enumerate() {
            for &r in chain {
                self.put(rng, r, placed.is_empty());
                placed.push(r);
            }
            let last = c + 1 == chains.len();
            let mut energy = self.total();
            let mut t = t0;
            let mut done = false;
            'cycles: for _ in 0..CYCLES {
                if super::search::past(deadline) {
                    return None;
                }
                for _ in 0..MOVES_PER_ROOM as usize * chain.len().max(MOVES_FLOOR) {
                    if energy == 0 {
                        if !last {
                            done = true;
                            break 'cycles;
                        }
                        match self.settle() {
                            Ok(st) => return Some(st),
                            Err(failed) => {
                                settles += 1;
                                if settles > MAX_SETTLES {
                                    return None;
                                }
                                for l in failed {
                                    self.contact_only[l] = true;
                                }
                                energy = self.total();
                            }
                        }
                    }
                    let r = if seed::chance(rng, OWN_CHAIN) {
                        chain[seed::index(rng, chain.len())]
                    } else {
                        placed[seed::index(rng, placed.len())]
                    };
                    if self.pin(r).is_some() {
                        continue;
                    }
                    let s = if self.p.room_shapes[r].len() > 1 && seed::chance(rng, SHAPE_MOVE) {
                        self.draw_shape(rng, r)
                    } else {
                        self.shape[r]
                    };
                    let at = if s == self.shape[r] && seed::chance(rng, NUDGE) {
                        let d = crate::layout::geom::Dir::ALL[seed::index(rng, 4)].step();
                        let k = 1 + seed::below(rng, 2) as i32;
                        self.pos[r] + Point::new(d.x * k, d.y * k)
                    } else {
                        self.draw_position(rng, r, s)
                    };
                    let old = self.cost(r, self.shape[r], self.pos[r]);
                    let new = self.cost(r, s, at);
                    let accept = if new <= old {
                        true
                    } else {
                        let delta = (new - old) as f64;
                        seed::unit(rng) < (-delta / (ACCEPT_SCALE * t)).exp()
                    };
                    if accept {
                        (self.shape[r], self.pos[r]) = (s, at);
                        energy = energy + new - old;
                    }
                }
                t *= ratio;
            }
            if !done {
                return None;
            }
        }
        None
    }

    /// Routes the corridors of a zero-energy run and checks every room against them: the
    /// state, or the links whose corridor could not be routed (none if a corridor came too
    /// close to a room).
    fn settle(&self) -> Result<State, Vec<usize>> {
        let p = self.p;
        let n = self.on.len();
        let entries: Vec<Entry> = (0..n)
            .map(|r| p.entry(self.shape[r], self.pos[r], r as u32))
            .collect();
        let mut st = State {
            placed: (0..n).map(|r| Some((self.shape[r], self.pos[r]))).collect(),
            index: RTree::bulk_load(entries),
            corridors: Vec::new(),
            witness: vec![None; p.problem.links.len()],
        };
        let mut failed = Vec::new();
        for (l, spec) in p.problem.links.iter().enumerate() {
            let (a, b) = (spec.from, spec.to);
            if spec.realise.contact_allowed()
                && p.meets(
                    self.shape[a],
                    self.shape[b],
                    true,
                    self.pos[b] - self.pos[a],
                )
            {
                continue;
            }
            match p.route(&st, l, b, a) {
                Some(cor) => st.push_corridor(cor),
                None => failed.push(l),
            }
        }
        if !failed.is_empty() {
            return Err(failed);
        }
        if (0..n).any(|r| p.collides(&st, r, self.shape[r], self.pos[r]).is_some()) {
            return Err(Vec::new());
        }
        Ok(st)
    }
}

#[cfg(test)]
mod tests {
    use super::super::RetryPolicy;
    use crate::layout::geom::Point;
    use crate::layout::{LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate};

    /// Two paths of rooms between `s` and `t` and a third, middle one carrying a room that
    /// hangs inside: a ring that must hold a room. The room-by-room search never leaves a hole
    /// in a loop; annealing does.
    fn ring_round_a_room() -> LayoutProblem {
        let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("square", 6, 6, 1)]);
        for a in 0..3 {
            p.rooms.push(RoomSpec::new(&format!("a{a}"), vec![0]));
        }
        for b in 0..3 {
            p.rooms.push(RoomSpec::new(&format!("b{b}"), vec![0]));
        }
        for a in 0..3 {
            for b in 3..6 {
                if (a, b) != (2, 5) {
                    p.links.push(LinkSpec::new(
                        a,
                        b,
                        Realise::ContactOrPath { min: 1, max: 30 },
                    ));
                }
            }
        }
        p
    }

    /// The search fails where annealing succeeds, every annealed layout passes the checks,
    /// and the error after both counts the attempts of both. The ring round a room, which
    /// the search used to fail, it now lays out itself (a corridor position drawn at random
    /// leaves the hole, and a corridor in the way of the room inside gives way); a level-like
    /// graph of 30 rooms with a hole is one it still fails and annealing lays out.
    #[test]
    fn annealing_leaves_the_hole_the_search_cannot() {
        let mut p = ring_round_a_room();
        p.budget.retry = RetryPolicy::Attempts(10);
        let planner = Planner::new(p).unwrap();
        assert!(planner.can_anneal());
        for seed in 0..4 {
            let (st, attempts) = planner.search(seed, None).expect("the search lays it out");
            let layout = planner.finish(seed, attempts, st);
            assert_eq!(planner.check(&layout), Ok(()), "seed {seed}");
        }
        let mut p = super::super::parts::tests::level_like(30, 4, 27);
        p.budget.retry = RetryPolicy::Attempts(10);
        let planner = Planner::new(p).unwrap();
        assert!(planner.can_anneal());
        assert!(planner.search(27, None).is_err());
        let (st, runs) = planner.anneal(27, 10, None).expect("annealing lays it out");
        assert!((1..=10).contains(&runs));
        let layout = planner.finish(27, runs, st);
        assert_eq!(planner.check(&layout), Ok(()));
        // Pinned rooms stay where pinned (`Planner::with_pins`): a0 and b0 side by side.
        let mut p = ring_round_a_room();
        p.budget.retry = RetryPolicy::Attempts(10);
        let pins = [(0, Point::new(0, 0), 6, 6), (3, Point::new(6, 0), 6, 6)];
        let pinned = Planner::new(p).unwrap().with_pins(&pins).unwrap();
        assert!(pinned.can_anneal());
        let mut laid = 0;
        for seed in 0..4 {
            let Ok((st, runs)) = pinned.anneal(seed, 10, None) else {
                continue;
            };
            laid += 1;
            let layout = pinned.finish(seed, runs, st);
            assert_eq!(pinned.check(&layout), Ok(()), "seed {seed}");
            let min = |r: usize| layout.rooms[r].min;
            assert_eq!(min(3) - min(0), Point::new(6, 0), "seed {seed}");
        }
        assert!(laid > 0);
        // Under a time budget (the search stops at a third of it, annealing and the other
        // orders share the rest) the level lays out too.
        let mut p = ring_round_a_room();
        p.budget.retry = RetryPolicy::Millis(3000);
        let planner = Planner::new(p).unwrap();
        for seed in 0..2 {
            let layout = planner.layout(seed).expect("laid out in time");
            assert_eq!(planner.check(&layout), Ok(()), "seed {seed}");
        }
        // A 3 x 3 room has one door a side, so it cannot touch five rooms: both stages fail,
        // and so do the other orders; the error counts the attempts of all.
        let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("cell", 3, 3, 1)]);
        for r in 0..6 {
            p.rooms.push(RoomSpec::new(&format!("r{r}"), vec![0]));
        }
        for r in 1..6 {
            p.links.push(LinkSpec::new(0, r, Realise::Contact));
        }
        p.budget.retry = RetryPolicy::Attempts(3);
        let planner = Planner::new(p).unwrap();
        match planner.layout(0) {
            Err(crate::layout::LayoutError::NoLayout { attempts, .. }) => {
                assert_eq!(attempts, 3 + 3 + 3 * super::super::OTHER_ORDERS)
            }
            other => panic!("expected no layout, got {other:?}"),
        }
    }
}
