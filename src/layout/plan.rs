//! The planner: preparation (shapes, configuration spaces, room order) and the search.

use std::collections::HashMap;

use rand::Rng;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use super::corridor::{self, Corridor};
use super::geom::{Point, Rect, segment_gap};
use super::template::{DoorKind, RepeatMode, Shape};
use super::verify;
use super::{
    Layout, LayoutError, LayoutProblem, PlacedLink, PlacedRoom, Realise, RetryPolicy, Segment,
};
use crate::graph::composite::{Composite, decompose};
use crate::graph::{LevelGraph, Link, LinkKind, Room, RoomId, RoomKind};
use crate::seed;

/// An index entry: a cell box and what owns it (a room, or `rooms + corridor`).
pub(crate) type Entry = GeomWithData<Rectangle<[i32; 2]>, u32>;

/// One point of a configuration space: the new shape at `offset` from the placed one, with the
/// two doors that meet there.
#[derive(Debug, Clone, Copy)]
struct Touch {
    offset: Point,
    door_placed: u16,
    door_new: u16,
}

/// How a room is joined to a neighbour placed before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// A link of the problem.
    Link(usize),
    /// Through corridor room `k` (collapsed: placed together with the second of its two rooms).
    Via(usize),
}

/// A corridor room between exactly two rooms, joined to both by contact: the search treats it
/// as one link whose configuration space is that of room - corridor - room.
#[derive(Debug, Clone, Copy)]
struct ViaRoom {
    /// The room on the `a` side.
    a: usize,
    /// The room on the `b` side.
    b: usize,
    /// Its corridor class (shapes and door directions).
    class: u32,
}

/// Offsets of room `b` from room `a` through a corridor, with every corridor placement that
/// gives each offset.
#[derive(Debug, Clone, Default)]
struct Compound {
    offsets: Vec<Point>,
    starts: Vec<u32>,
    /// (corridor shape, corridor offset from the placed room).
    alts: Vec<(u32, Point)>,
}

/// What the search knows about one step of the room order.
#[derive(Debug, Clone)]
struct Step {
    room: usize,
    /// Neighbours placed earlier, with the edge to each.
    earlier: Vec<(usize, Edge)>,
    /// For a loop room before the loop is closed: the head of the other arm, and how far (in
    /// Manhattan distance between boxes) this room may be from it and still be joined.
    target: Option<(usize, u32)>,
    /// Whether candidates are sorted by distance to the target (late in the loop).
    pull: bool,
}

/// A problem checked and prepared for repeated layouts.
#[derive(Debug, Clone)]
pub struct Planner {
    problem: LayoutProblem,
    shapes: Vec<Shape>,
    room_shapes: Vec<Vec<(u32, f64)>>,
    repeat: Vec<RepeatMode>,
    adj: Vec<Vec<(usize, usize)>>,
    spaces: HashMap<(u32, u32, bool), Vec<Touch>>,
    via: Vec<Option<ViaRoom>>,
    /// Corridor classes: shapes, whether `a` is the `from` of `la`, whether the corridor is the
    /// `from` of `lb`.
    classes: Vec<(Vec<u32>, bool, bool)>,
    compounds: HashMap<(u32, u32, u32, bool), Compound>,
    steps: Vec<Step>,
    composite_of: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
struct Cand {
    shape: u32,
    pos: Point,
}

struct Frame {
    cands: Vec<Cand>,
    next: usize,
    failures: u32,
    corridors: usize,
    /// Corridor rooms placed together with this step's room.
    extra: Vec<usize>,
}

/// The search state of one attempt.
pub(crate) struct State {
    pub(crate) placed: Vec<Option<(u32, Point)>>,
    pub(crate) index: RTree<Entry>,
    pub(crate) corridors: Vec<Corridor>,
}

impl Planner {
    /// Checks the problem, compiles its templates and computes the configuration spaces.
    pub fn new(problem: LayoutProblem) -> Result<Planner, LayoutError> {
        let n = problem.rooms.len();
        if n == 0 {
            return Err(LayoutError::Problem("there are no rooms to place".into()));
        }
        let mut shapes: Vec<Shape> = Vec::new();
        let mut template_shapes: Vec<Vec<u32>> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (i, t) in problem.templates.iter().enumerate() {
            if !names.insert(t.name.as_str()) {
                return Err(LayoutError::Problem(format!(
                    "two room templates are called `{}`",
                    t.name
                )));
            }
            let compiled = t.compile(i)?;
            let mut ids = Vec::new();
            for s in compiled {
                ids.push(shapes.len() as u32);
                shapes.push(s);
            }
            template_shapes.push(ids);
        }
        let repeat: Vec<RepeatMode> = problem
            .templates
            .iter()
            .map(|t| {
                problem
                    .repeat_override
                    .unwrap_or(t.repeat.unwrap_or(problem.repeat_default))
            })
            .collect();
        let mut room_shapes = Vec::with_capacity(n);
        for r in &problem.rooms {
            if r.templates.is_empty() {
                return Err(LayoutError::Problem(format!(
                    "room `{}` lists no templates",
                    r.name
                )));
            }
            let mut ws: Vec<(u32, f64)> = Vec::new();
            for &t in &r.templates {
                let Some(ids) = template_shapes.get(t) else {
                    return Err(LayoutError::Problem(format!(
                        "room `{}` lists template {t}, but there are {} templates",
                        r.name,
                        template_shapes.len()
                    )));
                };
                let w = problem.templates[t].weight / ids.len() as f64;
                for &s in ids {
                    match ws.iter_mut().find(|(x, _)| *x == s) {
                        Some(e) => e.1 += w,
                        None => ws.push((s, w)),
                    }
                }
            }
            room_shapes.push(ws);
        }
        let mut adj = vec![Vec::new(); n];
        for (i, l) in problem.links.iter().enumerate() {
            if l.from >= n || l.to >= n || l.from == l.to {
                return Err(LayoutError::Problem(format!(
                    "link {i} joins rooms {} and {}; rooms are 0..{n} and a link needs two",
                    l.from, l.to
                )));
            }
            if let Some((lo, hi)) = l.realise.path_bounds()
                && (lo > hi || hi > 1000)
            {
                return Err(LayoutError::Problem(format!(
                    "link {i} (`{}`-`{}`): corridor length {lo}..{hi} is not a range within 0..1000",
                    problem.rooms[l.from].name, problem.rooms[l.to].name
                )));
            }
            adj[l.from].push((l.to, i));
            adj[l.to].push((l.from, i));
        }
        let mut via = vec![None; n];
        let mut classes: Vec<(Vec<u32>, bool, bool)> = Vec::new();
        for k in 0..n {
            if !problem.rooms[k].corridor || adj[k].len() != 2 {
                continue;
            }
            let ((na, la), (nb, lb)) = (adj[k][0], adj[k][1]);
            let contact = |l: usize| problem.links[l].realise == Realise::Contact;
            if na == nb
                || !contact(la)
                || !contact(lb)
                || problem.rooms[na].corridor
                || problem.rooms[nb].corridor
            {
                continue;
            }
            let mut shapes_k: Vec<u32> = room_shapes[k].iter().map(|x: &(u32, f64)| x.0).collect();
            shapes_k.sort_unstable();
            let key = (shapes_k, problem.links[la].from == na, problem.links[lb].from == k);
            let class = match classes.iter().position(|c| *c == key) {
                Some(c) => c,
                None => {
                    classes.push(key);
                    classes.len() - 1
                }
            } as u32;
            via[k] = Some(ViaRoom {
                a: na,
                b: nb,
                class,
            });
        }
        let mut planner = Planner {
            problem,
            shapes,
            room_shapes,
            repeat,
            adj,
            spaces: HashMap::new(),
            via,
            classes,
            compounds: HashMap::new(),
            steps: Vec::new(),
            composite_of: vec![String::new(); n],
        };
        planner.order()?;
        planner.build_spaces()?;
        Ok(planner)
    }

    /// The problem this planner was made from.
    pub fn problem(&self) -> &LayoutProblem {
        &self.problem
    }

    pub(crate) fn shape(&self, i: u32) -> &Shape {
        &self.shapes[i as usize]
    }

    /// The neighbours of each room the search sees: collapsed corridor rooms are replaced by a
    /// `Via` edge between their two rooms.
    fn virtual_adjacency(&self) -> Vec<Vec<(usize, Edge)>> {
        let n = self.problem.rooms.len();
        let mut vadj = vec![Vec::new(); n];
        for (l, link) in self.problem.links.iter().enumerate() {
            if self.via[link.from].is_none() && self.via[link.to].is_none() {
                vadj[link.from].push((link.to, Edge::Link(l)));
                vadj[link.to].push((link.from, Edge::Link(l)));
            }
        }
        for (k, v) in self.via.iter().enumerate() {
            if let Some(v) = v {
                vadj[v.a].push((v.b, Edge::Via(k)));
                vadj[v.b].push((v.a, Edge::Via(k)));
            }
        }
        vadj
    }

    /// Orders the rooms: loops first, each grown from both ends; then trees, breadth first.
    fn order(&mut self) -> Result<(), LayoutError> {
        let n = self.problem.rooms.len();
        let vadj = self.virtual_adjacency();
        let real: Vec<usize> = (0..n).filter(|&r| self.via[r].is_none()).collect();
        let mut g = LevelGraph::new();
        for _ in 0..n {
            g.add_room(Room::new(RoomKind::Normal));
        }
        for (r, list) in vadj.iter().enumerate() {
            for &(nb, _) in list {
                if r < nb {
                    g.add_link(RoomId(r as u32), RoomId(nb as u32), Link::new(LinkKind::Door));
                }
            }
        }
        let dec = decompose(&g);
        let mut done = vec![false; n];
        let mut order: Vec<usize> = Vec::with_capacity(real.len());
        let mut targets: Vec<Option<(usize, Vec<usize>, bool)>> = Vec::new();
        let mut used = vec![false; dec.composites.len()];
        let name = |r: usize| self.problem.rooms[r].name.clone();
        loop {
            // Next composite: one touching what is placed (any, at the start), loops first.
            let touching = |c: &Composite| {
                c.rooms.iter().all(|r| self.via[r.0 as usize].is_none())
                    && (order.is_empty()
                        || c.rooms
                            .iter()
                            .any(|r| vadj[r.0 as usize].iter().any(|&(nb, _)| done[nb])))
            };
            let pick = (0..dec.composites.len())
                .filter(|&i| !used[i] && touching(&dec.composites[i]))
                .min_by_key(|&i| (!dec.composites[i].is_loop(), i));
            let Some(ci) = pick else { break };
            used[ci] = true;
            let comp = &dec.composites[ci];
            let rooms: Vec<usize> = comp.rooms.iter().map(|r| r.0 as usize).collect();
            let entry = if order.is_empty() {
                dec.root
                    .map(|r| r.0 as usize)
                    .filter(|r| rooms.contains(r))
                    .unwrap_or(rooms[0])
            } else {
                *rooms
                    .iter()
                    .find(|&&r| vadj[r].iter().any(|&(nb, _)| done[nb]))
                    .unwrap_or(&rooms[0])
            };
            let label = if comp.is_loop() {
                format!(
                    " in the loop of {}",
                    rooms.iter().map(|&r| format!("`{}`", name(r))).collect::<Vec<_>>().join(", ")
                )
            } else {
                String::new()
            };
            for &r in &rooms {
                self.composite_of[r] = label.clone();
            }
            if comp.is_loop() {
                let k = rooms.iter().position(|&r| r == entry).unwrap_or(0);
                let m = rooms.len();
                let seq: Vec<usize> = (0..m).map(|i| rooms[(k + i) % m]).collect();
                if !done[seq[0]] {
                    done[seq[0]] = true;
                    order.push(seq[0]);
                    targets.push(None);
                }
                let (mut l, mut r) = (0usize, m);
                let mut left = true;
                while r - l > 1 {
                    let i = if left { l + 1 } else { r - 1 };
                    let (tgt, between): (usize, Vec<usize>) = if left {
                        (seq[r % m], ((i + 1)..r).map(|j| seq[j]).collect())
                    } else {
                        (seq[l], ((l + 1)..i).map(|j| seq[j]).collect())
                    };
                    let placed_in_loop = l + (m - r) + 1;
                    let pull = m <= 4 || placed_in_loop * 4 > m;
                    done[seq[i]] = true;
                    order.push(seq[i]);
                    targets.push(if between.is_empty() {
                        None
                    } else {
                        Some((tgt, between, pull))
                    });
                    if left {
                        l = i;
                    } else {
                        r = i;
                    }
                    left = !left;
                }
            } else {
                // Breadth first inside the tree from its entry.
                let inside: std::collections::HashSet<usize> = rooms.iter().copied().collect();
                let mut queue = std::collections::VecDeque::from([entry]);
                let mut seen = std::collections::HashSet::from([entry]);
                while let Some(r) = queue.pop_front() {
                    if !done[r] {
                        done[r] = true;
                        order.push(r);
                        targets.push(None);
                    }
                    for &(nb, _) in &vadj[r] {
                        if inside.contains(&nb) && seen.insert(nb) {
                            queue.push_back(nb);
                        }
                    }
                }
            }
        }
        if order.len() != real.len() {
            let missing: Vec<String> = real
                .iter()
                .copied()
                .filter(|&r| !done[r])
                .map(name)
                .take(5)
                .collect();
            return Err(LayoutError::Problem(format!(
                "the rooms are not all linked together: {} cannot be reached from `{}`",
                missing.join(", "),
                name(order[0])
            )));
        }
        let mut pos = vec![usize::MAX; n];
        for (i, &r) in order.iter().enumerate() {
            pos[r] = i;
        }
        let span: Vec<u32> = (0..n)
            .map(|r| {
                self.room_shapes[r]
                    .iter()
                    .map(|&(s, _)| {
                        let m = &self.shapes[s as usize].mask;
                        (m.width + m.height) as u32
                    })
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut steps = Vec::with_capacity(order.len());
        for (i, &r) in order.iter().enumerate() {
            let mut earlier: Vec<(usize, Edge)> = vadj[r]
                .iter()
                .copied()
                .filter(|&(nb, _)| pos[nb] < i)
                .collect();
            // Contact edges first: the first one anchors the candidates.
            earlier.sort_by_key(|&(nb, e)| {
                let contact = match e {
                    Edge::Link(l) => self.problem.links[l].realise.contact_allowed(),
                    Edge::Via(_) => true,
                };
                (!contact, pos[nb])
            });
            if i > 0 && earlier.is_empty() {
                return Err(LayoutError::Problem(format!(
                    "room `{}` has no neighbour placed before it",
                    name(r)
                )));
            }
            let target = targets[i].as_ref().map(|(t, between, _)| {
                let mut reach: u32 = between.iter().map(|&b| span[b]).sum();
                for &b in between.iter().chain([r, *t].iter()) {
                    for &(_, e) in &vadj[b] {
                        match e {
                            Edge::Link(l) => {
                                if let Some((_, hi)) = self.problem.links[l].realise.path_bounds()
                                {
                                    reach += hi;
                                }
                            }
                            Edge::Via(k) => reach += span[k],
                        }
                    }
                }
                (*t, reach)
            });
            steps.push(Step {
                room: r,
                earlier,
                target,
                pull: targets[i].as_ref().is_some_and(|t| t.2),
            });
        }
        self.steps = steps;
        Ok(())
    }

    fn build_spaces(&mut self) -> Result<(), LayoutError> {
        let mut need: Vec<(u32, u32, bool)> = Vec::new();
        for l in &self.problem.links {
            for &(sf, _) in &self.room_shapes[l.from] {
                for &(st, _) in &self.room_shapes[l.to] {
                    need.push((sf, st, true));
                    need.push((st, sf, false));
                }
            }
        }
        need.sort_unstable();
        need.dedup();
        for key in need {
            let space = self.space(key.0, key.1, key.2);
            self.spaces.insert(key, space);
        }
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
        for key in cneed {
            let c = self.compound(key);
            self.compounds.insert(key, c);
        }
        Ok(())
    }

    /// Offsets of the new room from the placed one through a corridor of class `class`.
    fn compound(&self, (sp, sn, class, placed_is_a): (u32, u32, u32, bool)) -> Compound {
        let (cshapes, a_from, k_from) = &self.classes[class as usize];
        let (f1, f2) = if placed_is_a {
            (*a_from, *k_from)
        } else {
            (!*k_from, !*a_from)
        };
        let mut all: Vec<(Point, u32, Point)> = Vec::new();
        for &sc in cshapes {
            let s1 = self.spaces.get(&(sp, sc, f1)).cloned().unwrap_or_else(|| self.space(sp, sc, f1));
            let s2 = self.spaces.get(&(sc, sn, f2)).cloned().unwrap_or_else(|| self.space(sc, sn, f2));
            for t1 in &s1 {
                for t2 in &s2 {
                    all.push((t1.offset + t2.offset, sc, t1.offset));
                }
            }
        }
        all.sort_unstable();
        all.dedup();
        let (p, q) = (&self.shapes[sp as usize], &self.shapes[sn as usize]);
        let d = self.problem.min_distance;
        let mut out = Compound::default();
        let mut i = 0;
        while i < all.len() {
            let mut j = i;
            while j < all.len() && all[j].0 == all[i].0 {
                j += 1;
            }
            let o = all[i].0;
            let fine = !overlap(p, Point::default(), q, o)
                && (d == 0 || outline_gap(p, Point::default(), q, o) >= d);
            if fine {
                out.offsets.push(o);
                out.starts.push(out.alts.len() as u32);
                out.alts.extend(all[i..j].iter().map(|&(_, c, o1)| (c, o1)));
            }
            i = j;
        }
        out.starts.push(out.alts.len() as u32);
        out
    }

    /// Every offset at which shape `new` touches shape `placed` with two doors meeting.
    fn space(&self, placed: u32, new: u32, placed_is_from: bool) -> Vec<Touch> {
        let (p, q) = (&self.shapes[placed as usize], &self.shapes[new as usize]);
        let ok = |k: DoorKind, is_from: bool| match k {
            DoorKind::Any => true,
            DoorKind::Exit => is_from,
            DoorKind::Entrance => !is_from,
        };
        let mut all: Vec<Touch> = Vec::new();
        for (i, dp) in p.doors.iter().enumerate() {
            if !ok(dp.kind, placed_is_from) {
                continue;
            }
            for (j, dq) in q.doors.iter().enumerate() {
                if dq.facing != dp.facing.opposite()
                    || dq.len() != dp.len()
                    || !ok(dq.kind, !placed_is_from)
                {
                    continue;
                }
                if let (Some(a), Some(b)) = (&dp.socket, &dq.socket)
                    && a != b
                {
                    continue;
                }
                all.push(Touch {
                    offset: dp.a - dq.a,
                    door_placed: i as u16,
                    door_new: j as u16,
                });
            }
        }
        all.sort_by_key(|t| (t.offset, t.door_placed, t.door_new));
        let mut out: Vec<Touch> = Vec::new();
        let mut i = 0;
        while i < all.len() {
            let mut j = i;
            while j < all.len() && all[j].offset == all[i].offset {
                j += 1;
            }
            let t = all[i + (j - i) / 2];
            if !overlap(p, Point::default(), q, t.offset) {
                out.push(t);
            }
            i = j;
        }
        out
    }

    fn touch(&self, placed: u32, new: u32, placed_is_from: bool, offset: Point) -> Option<Touch> {
        let s = self.spaces.get(&(placed, new, placed_is_from))?;
        s.binary_search_by_key(&offset, |t| t.offset)
            .ok()
            .map(|i| s[i])
    }

    /// Lays the rooms out for a seed.
    pub fn layout(&self, seed: u64) -> Result<Layout, LayoutError> {
        let mut rng = seed::stream(seed, "layout");
        let n = self.problem.rooms.len();
        let mut failures = vec![0u32; n];
        let mut reasons: Vec<u8> = vec![0; n];
        let start = std::time::Instant::now();
        let mut attempt = 0u32;
        loop {
            let more = match self.problem.budget.retry {
                RetryPolicy::Attempts(k) => attempt < k.max(1),
                RetryPolicy::Millis(ms) => {
                    attempt == 0 || start.elapsed().as_millis() < u128::from(ms)
                }
            };
            if !more {
                break;
            }
            attempt += 1;
            if let Some(state) = self.attempt(&mut rng, &mut failures, &mut reasons) {
                return Ok(self.finish(seed, attempt, state));
            }
        }
        let worst = (0..n).max_by_key(|&r| (failures[r], n - r)).unwrap_or(0);
        let step = self.steps.iter().find(|s| s.room == worst);
        let nbs: Vec<String> = step
            .map(|s| {
                s.earlier
                    .iter()
                    .map(|&(nb, _)| format!("`{}`", self.problem.rooms[nb].name))
                    .collect()
            })
            .unwrap_or_default();
        let constraint = match reasons[worst] {
            2 => format!(
                "no corridor of the allowed length could be routed from `{}`",
                self.problem.rooms[worst].name
            ),
            _ if nbs.len() >= 2 => format!(
                "no free position for `{}` touching {} at once",
                self.problem.rooms[worst].name,
                nbs.join(" and ")
            ),
            _ => format!(
                "no free position for `{}` next to {}",
                self.problem.rooms[worst].name,
                nbs.first().cloned().unwrap_or_else(|| "the start".into())
            ),
        };
        Err(LayoutError::NoLayout {
            attempts: attempt,
            room: self.problem.rooms[worst].name.clone(),
            composite: self.composite_of[worst].clone(),
            failures: failures[worst],
            constraint,
        })
    }

    fn attempt<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        failures: &mut [u32],
        reasons: &mut [u8],
    ) -> Option<State> {
        let n = self.steps.len();
        let mut st = State {
            placed: vec![None; self.problem.rooms.len()],
            index: RTree::new(),
            corridors: Vec::new(),
        };
        let budget = self.problem.budget;
        let mut steps_left = u64::from(budget.steps_per_room) * n as u64;
        let mut frames: Vec<Frame> = Vec::with_capacity(n);
        frames.push(Frame {
            cands: self.candidates(rng, &st, 0),
            next: 0,
            failures: 0,
            corridors: 0,
            extra: Vec::new(),
        });
        loop {
            let i = frames.len() - 1;
            let room = self.steps[i].room;
            let mut placed = false;
            {
                let f = &mut frames[i];
                while f.next < f.cands.len() && f.failures <= budget.failures_per_room {
                    if steps_left == 0 {
                        failures[room] += 1;
                        return None;
                    }
                    steps_left -= 1;
                    let c = f.cands[f.next];
                    f.next += 1;
                    match self.try_place(&mut st, i, c, f.corridors) {
                        Ok(extra) => {
                            f.extra = extra;
                            placed = true;
                            break;
                        }
                        Err(reason) => reasons[room] = reasons[room].max(reason),
                    }
                }
            }
            if placed {
                if i + 1 == n {
                    return Some(st);
                }
                let before = st.corridors.len();
                let cands = self.candidates(rng, &st, i + 1);
                frames.push(Frame {
                    cands,
                    next: 0,
                    failures: 0,
                    corridors: before,
                    extra: Vec::new(),
                });
                continue;
            }
            failures[room] += 1;
            frames.pop();
            if i == 0 {
                return None;
            }
            let prev = self.steps[i - 1].room;
            let f = &mut frames[i - 1];
            let extra = std::mem::take(&mut f.extra);
            self.unplace(&mut st, prev, f.corridors, &extra);
            f.failures += 1;
        }
    }

    fn rect_of(&self, shape: u32, pos: Point) -> Rect {
        let m = &self.shapes[shape as usize].mask;
        Rect {
            min: pos,
            max: pos + Point::new(m.width, m.height),
        }
    }

    fn linked(&self, a: usize, b: usize) -> bool {
        self.adj[a].iter().any(|&(nb, _)| nb == b)
    }

    fn entry(&self, shape: u32, pos: Point, id: u32) -> Entry {
        let r = self.rect_of(shape, pos);
        Entry::new(
            Rectangle::from_corners([r.min.x, r.min.y], [r.max.x - 1, r.max.y - 1]),
            id,
        )
    }

    /// Whether `room` with `shape` at `pos` collides with anything placed (or comes too close
    /// to a room it is not linked to).
    fn collides(&self, st: &State, room: usize, shape_id: u32, pos: Point) -> bool {
        let shape = &self.shapes[shape_id as usize];
        let rect = self.rect_of(shape_id, pos);
        let d = self.problem.min_distance as i32;
        let env = AABB::from_corners(
            [rect.min.x - d, rect.min.y - d],
            [rect.max.x - 1 + d, rect.max.y - 1 + d],
        );
        let nrooms = st.placed.len() as u32;
        for e in st.index.locate_in_envelope_intersecting(env) {
            let id = e.data;
            if id < nrooms {
                let q = id as usize;
                if q == room {
                    continue;
                }
                let Some((qs, qp)) = st.placed[q] else {
                    continue;
                };
                let other = &self.shapes[qs as usize];
                if overlap(shape, pos, other, qp) {
                    return true;
                }
                if d > 0 && !self.linked(room, q) && outline_gap(shape, pos, other, qp) < d as u32
                {
                    return true;
                }
            } else {
                let cor = &st.corridors[(id - nrooms) as usize];
                if cor
                    .occupied
                    .iter()
                    .any(|&p| shape.mask.inside(p.x - pos.x, p.y - pos.y))
                {
                    return true;
                }
            }
        }
        false
    }

    /// Places candidate `c` for step `i` if it fits, with the corridor rooms and corridors its
    /// edges need; returns the corridor rooms placed. Error codes: 1 = it collides, 2 = a
    /// corridor could not be routed.
    fn try_place(&self, st: &mut State, i: usize, c: Cand, keep: usize) -> Result<Vec<usize>, u8> {
        let step = &self.steps[i];
        let room = step.room;
        if self.collides(st, room, c.shape, c.pos) {
            return Err(1);
        }
        // Which links need a corridor; which corridor rooms to place.
        let mut routes: Vec<(usize, usize)> = Vec::new();
        let mut vias: Vec<(usize, usize, usize)> = Vec::new();
        for &(nb, e) in &step.earlier {
            let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
            match e {
                Edge::Link(l) => {
                    let link = self.problem.links[l];
                    let contact = link.realise.contact_allowed()
                        && self
                            .touch(ns, c.shape, link.from == nb, c.pos - np)
                            .is_some();
                    match link.realise {
                        Realise::Contact if !contact => return Err(1),
                        Realise::Contact => {}
                        _ if contact => {}
                        _ => routes.push((nb, l)),
                    }
                }
                Edge::Via(k) => {
                    let v = self.via[k].expect("via edges come from via rooms");
                    let Some(comp) = self.compounds.get(&(ns, c.shape, v.class, nb == v.a)) else {
                        return Err(1);
                    };
                    let Ok(at) = comp.offsets.binary_search(&(c.pos - np)) else {
                        return Err(1);
                    };
                    vias.push((k, nb, at));
                }
            }
        }
        st.placed[room] = Some((c.shape, c.pos));
        st.index.insert(self.entry(c.shape, c.pos, room as u32));
        let mut extra: Vec<usize> = Vec::new();
        for (k, nb, at) in vias {
            let v = self.via[k].expect("via");
            let comp = &self.compounds[&(st.placed[nb].expect("placed").0, c.shape, v.class, nb == v.a)];
            let np = st.placed[nb].expect("placed").1;
            let (lo, hi) = (comp.starts[at] as usize, comp.starts[at + 1] as usize);
            let fit = comp.alts[lo..hi]
                .iter()
                .find(|&&(sc, o1)| !self.collides(st, k, sc, np + o1))
                .copied();
            match fit {
                Some((sc, o1)) => {
                    st.placed[k] = Some((sc, np + o1));
                    st.index.insert(self.entry(sc, np + o1, k as u32));
                    extra.push(k);
                }
                None => {
                    self.unplace(st, room, keep, &extra);
                    return Err(1);
                }
            }
        }
        let nrooms = st.placed.len() as u32;
        for (nb, l) in routes {
            match corridor::route(self, st, l, room, nb) {
                Some(cor) => {
                    let r = cor.rect;
                    let id = nrooms + st.corridors.len() as u32;
                    st.corridors.push(cor);
                    st.index.insert(Entry::new(
                        Rectangle::from_corners([r.min.x, r.min.y], [r.max.x - 1, r.max.y - 1]),
                        id,
                    ));
                }
                None => {
                    self.unplace(st, room, keep, &extra);
                    return Err(2);
                }
            }
        }
        Ok(extra)
    }

    fn unplace(&self, st: &mut State, room: usize, keep_corridors: usize, extra: &[usize]) {
        let nrooms = st.placed.len() as u32;
        while st.corridors.len() > keep_corridors {
            let id = nrooms + st.corridors.len() as u32 - 1;
            let cor = st.corridors.pop().expect("len checked");
            let r = cor.rect;
            st.index.remove(&Entry::new(
                Rectangle::from_corners([r.min.x, r.min.y], [r.max.x - 1, r.max.y - 1]),
                id,
            ));
        }
        for &k in extra.iter().chain(std::iter::once(&room)) {
            if let Some((s, p)) = st.placed[k].take() {
                st.index.remove(&self.entry(s, p, k as u32));
            }
        }
    }

    /// Candidate placements for step `i`, best first.
    fn candidates<R: Rng + ?Sized>(&self, rng: &mut R, st: &State, i: usize) -> Vec<Cand> {
        let step = &self.steps[i];
        let room = step.room;
        // Shapes allowed by the repeat modes (soft: all of them if none is). Corridor rooms
        // ignore repeat modes, as in Edgar.
        let used_here = |t: usize, neighbours_only: bool| {
            if neighbours_only {
                self.adj[room].iter().any(|&(nb, _)| {
                    st.placed[nb].is_some_and(|(s, _)| self.shapes[s as usize].template == t)
                })
            } else {
                st.placed
                    .iter()
                    .enumerate()
                    .any(|(r, p)| {
                        !self.problem.rooms[r].corridor
                            && p.is_some_and(|(s, _)| self.shapes[s as usize].template == t)
                    })
            }
        };
        let corridor_room = self.problem.rooms[room].corridor;
        let mut shapes: Vec<(u32, f64)> = self.room_shapes[room]
            .iter()
            .copied()
            .filter(|&(s, _)| {
                let t = self.shapes[s as usize].template;
                corridor_room
                    || match self.repeat[t] {
                        RepeatMode::AllowRepeat => true,
                        RepeatMode::NoImmediate => !used_here(t, true),
                        RepeatMode::NoRepeat => !used_here(t, false),
                    }
            })
            .collect();
        if shapes.is_empty() {
            shapes = self.room_shapes[room].clone();
        }
        // Weighted random order (exponential keys).
        let mut keyed: Vec<(f64, u32)> = shapes
            .iter()
            .map(|&(s, w)| (-(1.0 - seed::unit(rng)).ln() / w, s))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut out: Vec<Cand> = Vec::new();
        if i == 0 {
            for &(_, s) in &keyed {
                out.push(Cand {
                    shape: s,
                    pos: Point::default(),
                });
            }
            return out;
        }
        let target = step.target.and_then(|(t, reach)| {
            st.placed[t].map(|(ts, tp)| (self.rect_of(ts, tp), reach))
        });
        for &(_, s) in &keyed {
            let start = out.len();
            self.positions(st, step, s, &mut out);
            seed::shuffle(rng, &mut out[start..]);
        }
        let Some((trect, reach)) = target else {
            return out;
        };
        let mut scored: Vec<(u32, Cand)> = Vec::with_capacity(out.len());
        for c in out {
            let gap = self.rect_of(c.shape, c.pos).gap(&trect);
            if gap > reach {
                continue;
            }
            let score = if step.pull {
                gap + 2 * seed::below(rng, 4) as u32
            } else {
                0
            };
            scored.push((score, c));
        }
        if step.pull {
            scored.sort_by_key(|&(s, _)| s);
        }
        scored.into_iter().map(|(_, c)| c).collect()
    }

    /// The sorted offsets at which shape `s` meets neighbour `nb` over edge `e`.
    fn translated(&self, st: &State, s: u32, nb: usize, e: Edge) -> Vec<Point> {
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        match e {
            Edge::Link(l) => self
                .spaces
                .get(&(ns, s, self.problem.links[l].from == nb))
                .map(|v| v.iter().map(|t| t.offset + np).collect())
                .unwrap_or_default(),
            Edge::Via(k) => {
                let v = self.via[k].expect("via");
                self.compounds
                    .get(&(ns, s, v.class, nb == v.a))
                    .map(|c| c.offsets.iter().map(|&o| o + np).collect())
                    .unwrap_or_default()
            }
        }
    }

    /// Positions of shape `s` for a step: first those where every contact-capable link is
    /// realised by contact, then those where the optional ones are left to corridors.
    fn positions(&self, st: &State, step: &Step, s: u32, out: &mut Vec<Cand>) {
        let links = &self.problem.links;
        let kind = |e: Edge| match e {
            Edge::Via(_) => 0,
            Edge::Link(l) => match links[l].realise {
                Realise::Contact => 0,
                Realise::ContactOrPath { .. } => 1,
                Realise::Path { .. } => 2,
            },
        };
        let mandatory: Vec<(usize, Edge)> =
            step.earlier.iter().copied().filter(|&(_, e)| kind(e) == 0).collect();
        let optional: Vec<(usize, Edge)> =
            step.earlier.iter().copied().filter(|&(_, e)| kind(e) == 1).collect();
        let base: Vec<Point> = if let Some((&(nb, e), rest)) = mandatory.split_first() {
            let mut set = self.translated(st, s, nb, e);
            for &(nb, e) in rest {
                if set.is_empty() {
                    break;
                }
                set = intersect(&set, &self.translated(st, s, nb, e));
            }
            set
        } else if let Some(&(nb, e)) = optional.first() {
            self.translated(st, s, nb, e)
        } else {
            // Only corridor links: stand off from the first neighbour's contact positions.
            let mut v = Vec::new();
            self.standoff(st, s, step.earlier[0], &mut v);
            v
        };
        if optional.is_empty() {
            out.extend(base.iter().map(|&pos| Cand { shape: s, pos }));
            return;
        }
        let mut full = base.clone();
        for &(nb, e) in &optional {
            full = intersect(&full, &self.translated(st, s, nb, e));
        }
        out.extend(full.iter().map(|&pos| Cand { shape: s, pos }));
        if mandatory.is_empty() && optional.len() == 1 {
            // Contact positions failed: stand off far enough for a corridor.
            let mut v = Vec::new();
            self.standoff(st, s, optional[0], &mut v);
            out.extend(v.into_iter().map(|pos| Cand { shape: s, pos }));
        } else {
            out.extend(
                base.into_iter()
                    .filter(|p| full.binary_search(p).is_err())
                    .map(|pos| Cand { shape: s, pos }),
            );
        }
    }

    /// Positions that leave room for a corridor to one neighbour: its contact positions moved
    /// out through the door by a few corridor lengths.
    fn standoff(&self, st: &State, s: u32, (nb, e): (usize, Edge), out: &mut Vec<Point>) {
        let Edge::Link(l) = e else { return };
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        let (lo, hi) = self.problem.links[l].realise.path_bounds().unwrap_or((4, 30));
        let shape = &self.shapes[ns as usize];
        if let Some(space) = self.spaces.get(&(ns, s, self.problem.links[l].from == nb)) {
            for t in space {
                let f = shape.doors[t.door_placed as usize].facing.step();
                for g in [lo.max(3), (lo + hi) / 3, (lo + hi) / 2] {
                    let g = (g as i32).max(2);
                    out.push(t.offset + np + Point::new(f.x * g, f.y * g));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    fn finish(&self, seed: u64, attempts: u32, st: State) -> Layout {
        let nrooms = self.problem.rooms.len();
        let mut rooms = Vec::with_capacity(nrooms);
        for (r, spec) in self.problem.rooms.iter().enumerate() {
            let (s, p) = st.placed[r].expect("a finished layout places every room");
            let shape = &self.shapes[s as usize];
            rooms.push(PlacedRoom {
                name: spec.name.clone(),
                template: shape.template,
                template_name: self.problem.templates[shape.template].name.clone(),
                transform: shape.transform,
                position: p - shape.shift,
                min: p,
                outline: shape.outline.iter().map(|&q| q + p).collect(),
                corridor: spec.corridor,
            });
        }
        let mut links = Vec::with_capacity(self.problem.links.len());
        for (l, link) in self.problem.links.iter().enumerate() {
            if let Some(c) = st.corridors.iter().find(|c| c.link == l) {
                let (from_door, to_door) = if c.from_room == link.from {
                    (c.door_a, c.door_b)
                } else {
                    (c.door_b, c.door_a)
                };
                let mut cells = c.cells.clone();
                if c.from_room != link.from {
                    cells.reverse();
                }
                links.push(PlacedLink {
                    door_from: from_door,
                    door_to: to_door,
                    corridor: cells,
                });
                continue;
            }
            let (fs, fp) = st.placed[link.from].expect("placed");
            let (ts, tp) = st.placed[link.to].expect("placed");
            let t = self
                .touch(fs, ts, true, tp - fp)
                .expect("contact links touch in a finished layout");
            let d = &self.shapes[fs as usize].doors[t.door_placed as usize];
            let seg = Segment {
                a: d.a + fp,
                b: d.b + fp,
            };
            links.push(PlacedLink {
                door_from: seg,
                door_to: seg,
                corridor: Vec::new(),
            });
        }
        Layout {
            seed,
            attempts,
            rooms,
            links,
        }
    }

    /// Checks a layout against this planner's problem (see [`verify::check`]).
    pub fn check(&self, layout: &Layout) -> Result<(), verify::Violation> {
        verify::check(&self.problem, layout)
    }
}

/// Whether two shapes at two positions share a cell.
pub(crate) fn overlap(a: &Shape, pa: Point, b: &Shape, pb: Point) -> bool {
    let (ma, mb) = (&a.mask, &b.mask);
    let x0 = pa.x.max(pb.x);
    let y0 = pa.y.max(pb.y);
    let x1 = (pa.x + ma.width).min(pb.x + mb.width);
    let y1 = (pa.y + ma.height).min(pb.y + mb.height);
    if x0 >= x1 || y0 >= y1 {
        return false;
    }
    if ma.is_rect && mb.is_rect {
        return true;
    }
    for y in y0..y1 {
        for x in x0..x1 {
            if ma.inside(x - pa.x, y - pa.y) && mb.inside(x - pb.x, y - pb.y) {
                return true;
            }
        }
    }
    false
}

/// Smallest Manhattan distance between the outlines of two placed shapes.
pub(crate) fn outline_gap(a: &Shape, pa: Point, b: &Shape, pb: Point) -> u32 {
    let mut best = u32::MAX;
    for sa in &a.mask.sides {
        for sb in &b.mask.sides {
            best = best.min(segment_gap(sa.a + pa, sa.b + pa, sb.a + pb, sb.b + pb));
            if best == 0 {
                return 0;
            }
        }
    }
    best
}

fn intersect(a: &[Point], b: &[Point]) -> Vec<Point> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}
