//! The planner: preparation (shapes, configuration spaces, room order) and the search.

use std::collections::HashMap;

use std::sync::Arc;

use rand::Rng;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use super::corridor::{self, Corridor};
use super::geom::{Point, Rect, segment_gap};
use super::template::{RepeatMode, RoomTemplate, Shape};
use super::verify;
use super::{
    Layout, LayoutError, LayoutProblem, PartialLayout, PlacedLink, PlacedRoom, Realise,
    RetryPolicy, Segment,
};
use crate::graph::planar_edges;
use crate::seed;

mod anneal;
mod assemble;
mod ears;

/// How far from a room its free cells must lead to count as open space for what must still
/// hang off it (more than the biggest room of most levels).
const OPEN_REACH: i32 = 20;

/// How many first loops are tried when the order must shut rooms inside a loop.
const FIRST_LOOPS: usize = 12;

/// How many positions that need a corridor a room tries per visit (routing is costly).
const FALLBACK_TRIES: usize = 6;

/// An index entry: a cell box and what owns it (a room, or `rooms + corridor`).
pub(crate) type Entry = GeomWithData<Rectangle<[i32; 2]>, u32>;

/// A configuration space: the offsets (sorted) at which a new shape touches a placed one, with
/// the two doors that meet at each.
#[derive(Debug, Clone, Default)]
struct Space {
    offsets: Vec<Point>,
    doors: Vec<(u16, u16)>,
}

/// A map keyed by (placed shape, new shape, class, flag), stored densely.
#[derive(Debug, Clone)]
struct Dense<T> {
    shapes: usize,
    index: Vec<u32>,
    items: Vec<T>,
}

impl<T> Dense<T> {
    fn new(shapes: usize, classes: usize) -> Dense<T> {
        Dense {
            shapes,
            index: vec![u32::MAX; shapes * shapes * classes.max(1) * 2],
            items: Vec::new(),
        }
    }

    fn slot(&self, a: u32, b: u32, class: u32, flag: bool) -> usize {
        ((class as usize * self.shapes + a as usize) * self.shapes + b as usize) * 2 + flag as usize
    }

    fn get(&self, a: u32, b: u32, class: u32, flag: bool) -> Option<&T> {
        let i = self.index[self.slot(a, b, class, flag)];
        (i != u32::MAX).then(|| &self.items[i as usize])
    }

    fn insert(&mut self, a: u32, b: u32, class: u32, flag: bool, item: T) {
        let k = self.slot(a, b, class, flag);
        self.index[k] = self.items.len() as u32;
        self.items.push(item);
    }
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
    /// Rooms placed earlier that a path of rooms placed later will join to this one: each with
    /// the largest box gap such a path can bridge, and how many rooms the path has. A loop's
    /// arm sees the head of the other arm here.
    targets: Vec<(usize, u32, u32)>,
    /// Whether candidates are sorted by distance to the targets (late in the loop).
    pull: bool,
    /// For the room that closes an ear: placed rooms that must stay on the outside (later
    /// rooms still have to reach them), so the ear must not go round them.
    keep_out: Vec<usize>,
}

/// Loops' rooms in placing order (see `Planner::sequence`).
struct Sequence {
    order: Vec<usize>,
    done: Vec<bool>,
    /// Per room that closes an ear: placed rooms the ear must leave outside.
    keep_out: Vec<Vec<usize>>,
    /// Per room: the loop it was placed in, for error messages.
    labels: Vec<String>,
    /// What the ears shut in: rooms later rooms must reach (a lot each), rooms shut in by
    /// ears without a link that may become a corridor (much each), rooms hanging off the
    /// rooms shut in; then the rooms shut in.
    shut: (u64, u64),
}

/// A problem checked and prepared for repeated layouts.
#[derive(Debug, Clone)]
pub struct Planner {
    problem: LayoutProblem,
    set: Arc<ShapeSet>,
    room_shapes: Vec<Vec<(u32, f64)>>,
    repeat: Vec<RepeatMode>,
    adj: Vec<Vec<(usize, usize)>>,
    via: Vec<Option<ViaRoom>>,
    /// Corridor classes: shapes, whether `a` is the `from` of `la`, whether the corridor is the
    /// `from` of `lb`.
    classes: Vec<(Vec<u32>, bool, bool)>,
    compounds: Dense<Compound>,
    steps: Vec<Step>,
    /// The step that places each room (corridor rooms: the step of their second room).
    step_of: Vec<usize>,
    composite_of: Vec<String>,
    /// The longest side of any shape: how far a placement can reach to block a neighbour.
    span: i32,
    /// A big level ([`BIG`] rooms or more): worth the forward check and resumed attempts,
    /// which cost more than they save on small ones.
    big: bool,
    /// A big level cut into parts at bridges, each laid out alone and then fitted to the
    /// others (see `assemble`); `None`: the level is laid out room by room.
    parts: Option<Vec<assemble::Part>>,
}

/// Rooms from which a level counts as big (see `Planner::big`).
const BIG: usize = 50;

#[derive(Debug, Clone, Copy)]
struct Cand {
    shape: u32,
    pos: Point,
}

struct Frame {
    cands: Vec<Cand>,
    /// Shapes whose candidates are not generated yet (last first).
    shapes_left: Vec<u32>,
    next: usize,
    failures: u32,
    corridors: usize,
    /// Corridor rooms placed together with this step's room.
    extra: Vec<usize>,
    /// Earlier steps this step's failure depends on.
    conflict: Vec<usize>,
}

/// The deepest point a search reached: how many steps were open, what was placed, and the
/// room it was trying to place.
#[derive(Default)]
struct Deepest {
    depth: usize,
    placed: Vec<Option<(u32, Point)>>,
    corridors: Vec<Corridor>,
    next: usize,
}

/// A search to take up again: its frames and state, and the step to start over from.
struct Resume {
    frames: Vec<Frame>,
    state: State,
    cut: usize,
}

/// The search state of one attempt.
pub(crate) struct State {
    pub(crate) placed: Vec<Option<(u32, Point)>>,
    pub(crate) index: RTree<Entry>,
    pub(crate) corridors: Vec<Corridor>,
    /// Per link: a free position last found for its unplaced room (a hint, checked on use).
    pub(crate) witness: Vec<Option<(u32, Point)>>,
}

impl State {
    /// Adds a routed corridor, indexed under `rooms + its number`.
    pub(crate) fn push_corridor(&mut self, cor: Corridor) {
        let id = (self.placed.len() + self.corridors.len()) as u32;
        self.index.insert(box_entry(cor.rect, id));
        self.corridors.push(cor);
    }
}

/// The index entry of a box of cells (`max` exclusive) owned by `id`.
pub(crate) fn box_entry(r: Rect, id: u32) -> Entry {
    Entry::new(
        Rectangle::from_corners([r.min.x, r.min.y], [r.max.x - 1, r.max.y - 1]),
        id,
    )
}

impl Planner {
    /// Checks the problem, compiles its templates and computes the configuration spaces.
    pub fn new(problem: LayoutProblem) -> Result<Planner, LayoutError> {
        let n = problem.rooms.len();
        if n == 0 {
            return Err(LayoutError::NoRooms);
        }
        let set = ShapeSet::compile(&problem.templates)?;
        let mut planner = Planner::prepare(problem, Arc::new(set))?;
        let need = planner.needed_spaces();
        // The planner holds the only reference: no copy is made.
        let set = Arc::make_mut(&mut planner.set);
        for (a, b, f) in need {
            if set.spaces.get(a, b, 0, f).is_none() {
                let space = set.space(a, b, f);
                set.spaces.insert(a, b, 0, f, space);
            }
        }
        planner.build_compounds();
        planner.parts = planner.cut_into_parts();
        Ok(planner)
    }

    /// A planner that shares compiled templates and their configuration spaces (see
    /// [`ShapeSet::new`]) with others: preparing it costs little, which matters when a game
    /// lays out many levels from one template library.
    pub fn with_shapes(problem: LayoutProblem, set: Arc<ShapeSet>) -> Result<Planner, LayoutError> {
        if !set.complete
            || set.names.len() != problem.templates.len()
            || set
                .names
                .iter()
                .zip(&problem.templates)
                .any(|(a, t)| *a != t.name)
        {
            return Err(LayoutError::ShapeSetMismatch);
        }
        let mut planner = Planner::prepare(problem, set)?;
        planner.build_compounds();
        planner.parts = planner.cut_into_parts();
        Ok(planner)
    }

    fn prepare(problem: LayoutProblem, set: Arc<ShapeSet>) -> Result<Planner, LayoutError> {
        let n = problem.rooms.len();
        if n == 0 {
            return Err(LayoutError::NoRooms);
        }
        let template_shapes = &set.template_shapes;
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
                return Err(LayoutError::NoTemplates {
                    room: r.name.clone(),
                });
            }
            let mut ws: Vec<(u32, f64)> = Vec::new();
            for &t in &r.templates {
                let Some(ids) = template_shapes.get(t) else {
                    return Err(LayoutError::UnknownTemplate {
                        room: r.name.clone(),
                        template: t,
                        count: template_shapes.len(),
                    });
                };
                let w = problem.templates[t].weight / ids.len() as f64;
                let ids = ids.clone();
                for s in ids {
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
                return Err(LayoutError::BadLink {
                    link: i,
                    from: l.from,
                    to: l.to,
                    rooms: n,
                });
            }
            if let Some((lo, hi)) = l.realise.path_bounds()
                && (lo > hi || hi > 1000)
            {
                return Err(LayoutError::BadCorridor {
                    link: i,
                    from: problem.rooms[l.from].name.clone(),
                    to: problem.rooms[l.to].name.clone(),
                    lo,
                    hi,
                });
            }
            adj[l.from].push((l.to, i));
            adj[l.to].push((l.from, i));
        }
        // Rooms do not overlap and corridors cross nothing, so a layout is a drawing of the
        // graph without crossings: a graph that is not planar has none, whatever the search.
        let edges: Vec<(usize, usize)> = problem.links.iter().map(|l| (l.from, l.to)).collect();
        if !planar_edges(n, &edges) {
            // The first link (in the problem's order) whose addition breaks planarity: the
            // links before `lo` are planar, those up to and with `hi` are not.
            let (mut lo, mut hi) = (0, edges.len() - 1);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if planar_edges(n, &edges[..=mid]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let l = problem.links[hi];
            return Err(LayoutError::NotPlanar {
                link: hi,
                from: problem.rooms[l.from].name.clone(),
                to: problem.rooms[l.to].name.clone(),
            });
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
            let key = (
                shapes_k,
                problem.links[la].from == na,
                problem.links[lb].from == k,
            );
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
            set,
            room_shapes,
            repeat,
            adj,
            via,
            classes,
            compounds: Dense::new(0, 0),
            steps: Vec::new(),
            step_of: Vec::new(),
            composite_of: vec![String::new(); n],
            span: 0,
            big: n >= BIG,
            parts: None,
        };
        planner.span = planner
            .set
            .shapes
            .iter()
            .map(|s| s.mask.width.max(s.mask.height))
            .max()
            .unwrap_or(0);
        planner.order()?;
        Ok(planner)
    }

    /// The room order, one step per line (for diagnosing hard problems).
    #[doc(hidden)]
    pub fn debug_order(&self) -> String {
        self.steps
            .iter()
            .map(|st| {
                format!(
                    "{} <- [{}] keep out {:?} targets {:?} pull {}\n",
                    self.problem.rooms[st.room].name,
                    st.earlier
                        .iter()
                        .map(|&(nb, _)| self.problem.rooms[nb].name.clone())
                        .collect::<Vec<_>>()
                        .join(","),
                    st.keep_out
                        .iter()
                        .map(|&r| self.problem.rooms[r].name.as_str())
                        .collect::<Vec<_>>(),
                    st.targets
                        .iter()
                        .map(|&(t, r, h)| (self.problem.rooms[t].name.clone(), r, h))
                        .collect::<Vec<_>>(),
                    st.pull
                )
            })
            .collect()
    }

    /// The problem this planner was made from.
    pub fn problem(&self) -> &LayoutProblem {
        &self.problem
    }

    pub(crate) fn shape(&self, i: u32) -> &Shape {
        &self.set.shapes[i as usize]
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

    /// The order to place an ear (a run of rooms between placed rooms `a` and `b`): from both
    /// ends alternately, meeting in the middle, or, if a link of the run may become a corridor,
    /// meeting at that link, so the room that closes the loop can fall back to a corridor.
    fn ear_order(
        &self,
        vadj: &[Vec<(usize, Edge)>],
        a: usize,
        ear: &[usize],
        b: usize,
    ) -> Vec<usize> {
        let k = ear.len();
        let chain: Vec<usize> = std::iter::once(a)
            .chain(ear.iter().copied())
            .chain([b])
            .collect();
        let relaxable = |u: usize, v: usize| {
            vadj[u].iter().any(|&(w, e)| {
                w == v
                    && matches!(e, Edge::Link(l) if self.problem.links[l].realise.path_bounds().is_some())
            })
        };
        // Edge t joins chain[t] and chain[t + 1]; prefer the one nearest the middle.
        let cut = (0..=k)
            .filter(|&t| relaxable(chain[t], chain[t + 1]))
            .min_by_key(|&t| (2 * t).abs_diff(k));
        let (left, right): (Vec<usize>, Vec<usize>) = match cut {
            Some(t) => (ear[..t].to_vec(), ear[t..].iter().rev().copied().collect()),
            None => {
                let half = k.div_ceil(2);
                (
                    ear[..half].to_vec(),
                    ear[half..].iter().rev().copied().collect(),
                )
            }
        };
        let mut out = Vec::with_capacity(k);
        for i in 0..left.len().max(right.len()) {
            out.extend(left.get(i));
            out.extend(right.get(i));
        }
        out
    }

    /// The rooms of the loops in placing order, from loop `first` of `cycles` (by default,
    /// the shortest): after the first loop, ears (runs of unplaced rooms between two placed
    /// ones) as [`ears::choose`] picks them, else the next loop touching what is placed.
    fn sequence(
        &self,
        vadj: &[Vec<(usize, Edge)>],
        cycles: &[Vec<usize>],
        first: Option<usize>,
    ) -> Sequence {
        let n = vadj.len();
        let name = |r: usize| self.problem.rooms[r].name.clone();
        let mut labels = vec![String::new(); n];
        let mut shut = (0u64, 0u64);
        let relaxable = |u: usize, v: usize| {
            vadj[u].iter().any(|&(w, e)| {
                w == v
                    && matches!(e, Edge::Link(l) if self.problem.links[l].realise.path_bounds().is_some())
            })
        };
        let mut done = vec![false; n];
        let mut order: Vec<usize> = Vec::with_capacity(n);
        let mut used = vec![false; cycles.len()];
        let push = |r: usize, order: &mut Vec<usize>, done: &mut Vec<bool>| {
            if !done[r] {
                done[r] = true;
                order.push(r);
            }
        };
        // Once the first loop is placed: what hangs off each room (rooms that reach the first
        // room only through it), and the cost of taking a room into an ear.
        let mut cost: Vec<u64> = Vec::new();
        let mut outline = ears::Outline::default();
        let mut keep_out: Vec<Vec<usize>> = vec![Vec::new(); n];
        loop {
            if !order.is_empty() {
                if cost.is_empty() {
                    cost = hanging_weights(vadj, order[0])
                        .into_iter()
                        .map(|h| 1 + h as u64)
                        .collect();
                }
                // The next ear: a run of unplaced rooms between two placed ones, the one that
                // shuts in least of what is still waited for, then the lightest (runs that
                // much hangs off go last, round the outside). What it shuts in goes first.
                if let Some(next) = ears::choose(vadj, &done, &cost, &mut outline, &relaxable) {
                    let (a, ear, b) = (next.a, next.run, next.b);
                    shut = (shut.0 + next.shut.0, shut.1 + next.shut.1);
                    let label = format!(
                        " in the loop of {}",
                        std::iter::once(a)
                            .chain(ear.iter().copied())
                            .chain([b])
                            .map(|r| format!("`{}`", name(r)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    for &r in &ear {
                        if labels[r].is_empty() {
                            labels[r] = label.clone();
                        }
                    }
                    for r in next.inside_first {
                        push(r, &mut order, &mut done);
                    }
                    let ear_rooms = self.ear_order(vadj, a, &ear, b);
                    if let Some(&last) = ear_rooms.last() {
                        keep_out[last] = next.keep_out;
                    }
                    for r in ear_rooms {
                        push(r, &mut order, &mut done);
                    }
                    continue;
                }
            }
            // Among the cycles touching the placed part, the one with the least hanging off
            // its unplaced rooms, then the fewest unplaced rooms. A run of rooms placed early
            // may end up enclosed by later ones; what hangs off it (rooms that reach the rest
            // only through it) would be shut in with it, so heavy runs go last, outside.
            let pick = if order.is_empty() && first.is_some() {
                first
            } else {
                (0..cycles.len())
                    .filter(|&i| !used[i])
                    .filter(|&i| order.is_empty() || cycles[i].iter().any(|&r| done[r]))
                    .min_by_key(|&i| {
                        let unplaced = cycles[i].iter().filter(|&&r| !done[r]).count();
                        let hang = if order.is_empty() {
                            0
                        } else {
                            hanging(vadj, &done, &cycles[i])
                        };
                        (hang, unplaced, cycles[i].len(), i)
                    })
            };
            let Some(ci) = pick else {
                // No loop touches what is placed: walk to the nearest one that is left.
                let on_cycle: std::collections::HashSet<usize> = (0..cycles.len())
                    .filter(|&i| !used[i])
                    .flat_map(|i| cycles[i].iter().copied())
                    .collect();
                if on_cycle.is_empty() {
                    break;
                }
                let mut prev = vec![usize::MAX; n];
                let mut seen = done.clone();
                let mut queue: std::collections::VecDeque<usize> = order.iter().copied().collect();
                let mut reached = None;
                'walk: while let Some(x) = queue.pop_front() {
                    for &(y, _) in &vadj[x] {
                        if !seen[y] {
                            seen[y] = true;
                            prev[y] = x;
                            if on_cycle.contains(&y) {
                                reached = Some(y);
                                break 'walk;
                            }
                            queue.push_back(y);
                        }
                    }
                }
                let Some(end) = reached else { break };
                let mut path = vec![end];
                let mut x = prev[end];
                while x != usize::MAX && !done[x] {
                    path.push(x);
                    x = prev[x];
                }
                path.reverse();
                if x != usize::MAX {
                    outline.open_path(x, &path);
                }
                for &r in &path {
                    push(r, &mut order, &mut done);
                }
                continue;
            };
            used[ci] = true;
            let cyc = cycles[ci].clone();
            let m = cyc.len();
            let label = format!(
                " in the loop of {}",
                cyc.iter()
                    .map(|&r| format!("`{}`", name(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for &r in &cyc {
                if !done[r] && labels[r].is_empty() {
                    labels[r] = label.clone();
                }
            }
            if order.is_empty() {
                // The first loop: from its best-connected room, both arms alternately.
                let start = (0..m)
                    .max_by_key(|&i| (vadj[cyc[i]].len(), m - i))
                    .unwrap_or(0);
                let seq: Vec<usize> = (0..m).map(|i| cyc[(start + i) % m]).collect();
                outline.open_cycle(&seq);
                push(seq[0], &mut order, &mut done);
                for r in self.ear_order(vadj, seq[0], &seq[1..], seq[0]) {
                    push(r, &mut order, &mut done);
                }
                continue;
            }
            // Ears: runs of unplaced rooms between placed ones, each from both ends.
            let Some(anchor) = (0..m).find(|&i| done[cyc[i]]) else {
                continue;
            };
            let seq: Vec<usize> = (0..m).map(|i| cyc[(anchor + i) % m]).collect();
            if seq[1..].iter().all(|&r| !done[r]) {
                outline.open_cycle(&seq);
            }
            let mut i = 1;
            while i < m {
                if done[seq[i]] {
                    i += 1;
                    continue;
                }
                let mut j = i;
                while j < m && !done[seq[j]] {
                    j += 1;
                }
                let right = seq[j % m];
                for r in self.ear_order(vadj, seq[i - 1], &seq[i..j], right) {
                    push(r, &mut order, &mut done);
                }
                i = j;
            }
        }
        Sequence {
            order,
            done,
            keep_out,
            labels,
            shut,
        }
    }

    /// Orders the rooms: loops first, then trees, breadth first. The first loop is the
    /// shortest; after it, ears (runs of unplaced rooms between two placed ones) as
    /// [`ears::choose`] picks them: the one that shuts in least of what later rooms must reach,
    /// then the lightest (a room's weight is 1 plus what hangs off it, rooms that reach the
    /// first room only through it), so runs carrying big subtrees come last and go round the
    /// outside instead of being shut inside a loop. Where the order must shut rooms with rooms
    /// hanging off them inside a loop (or shut rooms in with an ear whose links must all be
    /// contacts), the shortest few loops are tried first instead and the order that shuts in
    /// least is kept. Each ear grows from both ends.
    fn order(&mut self) -> Result<(), LayoutError> {
        let n = self.problem.rooms.len();
        let vadj = self.virtual_adjacency();
        let real: Vec<usize> = (0..n).filter(|&r| self.via[r].is_none()).collect();
        let name = |r: usize| self.problem.rooms[r].name.clone();
        // Short cycles: for every edge, the shortest cycle through it.
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        {
            let mut seen_sets: std::collections::HashSet<Vec<usize>> = Default::default();
            let mut prev = vec![usize::MAX; n];
            let mut stamp = vec![usize::MAX; n];
            for &u in &real {
                for (ei, &(v, edge)) in vadj[u].iter().enumerate() {
                    if v < u {
                        continue;
                    }
                    // Breadth first from v to u without this edge.
                    let tag = u * n + ei;
                    stamp[v] = tag;
                    prev[v] = usize::MAX;
                    let mut queue = std::collections::VecDeque::from([v]);
                    let mut found = false;
                    'bfs: while let Some(x) = queue.pop_front() {
                        for (ej, &(y, _)) in vadj[x].iter().enumerate() {
                            if x == v && y == u && vadj[v][ej].1 == edge {
                                continue;
                            }
                            if stamp[y] == tag {
                                continue;
                            }
                            stamp[y] = tag;
                            prev[y] = x;
                            if y == u {
                                found = true;
                                break 'bfs;
                            }
                            queue.push_back(y);
                        }
                    }
                    if found {
                        let mut cyc = vec![u];
                        let mut x = prev[u];
                        while x != usize::MAX {
                            cyc.push(x);
                            x = prev[x];
                        }
                        let mut key = cyc.clone();
                        key.sort_unstable();
                        if seen_sets.insert(key) {
                            cycles.push(cyc);
                        }
                    }
                }
            }
        }
        cycles.sort_by_key(|c| c.len());
        let mut seq = self.sequence(&vadj, &cycles, None);
        // Where a loop must shut in rooms with rooms hanging off them (or an ear of contacts
        // only must shut rooms in), another first loop may need less: try the shortest few.
        if seq.shut.0 > 0 {
            for c in 1..cycles.len().min(FIRST_LOOPS) {
                let other = self.sequence(&vadj, &cycles, Some(c));
                if other.shut < seq.shut {
                    seq = other;
                }
            }
        }
        let Sequence {
            mut order,
            mut done,
            mut keep_out,
            labels,
            ..
        } = seq;
        self.composite_of = labels;
        let push = |r: usize, order: &mut Vec<usize>, done: &mut Vec<bool>| {
            if !done[r] {
                done[r] = true;
                order.push(r);
            }
        };
        // Trees: breadth first from what is placed.
        if order.is_empty() {
            let root = real
                .iter()
                .copied()
                .max_by_key(|&r| (vadj[r].len(), n - r))
                .expect("there are rooms");
            push(root, &mut order, &mut done);
        }
        let mut head = 0;
        while head < order.len() {
            let r = order[head];
            head += 1;
            for &(nb, _) in &vadj[r] {
                push(nb, &mut order, &mut done);
            }
        }
        // Any room with two placed neighbours goes as early as it can.
        let mut promoted: Vec<usize> = Vec::with_capacity(order.len());
        let mut placed = vec![false; n];
        let mut rest: std::collections::VecDeque<usize> = order.iter().copied().collect();
        while let Some(next) = rest.pop_front() {
            promoted.push(next);
            placed[next] = true;
            let mut k = 0;
            while k < rest.len() {
                let r = rest[k];
                let count = vadj[r].iter().filter(|&&(nb, _)| placed[nb]).count();
                if count >= 2 {
                    rest.remove(k);
                    promoted.push(r);
                    placed[r] = true;
                    k = 0;
                } else {
                    k += 1;
                }
            }
        }
        let planned = order;
        let order = promoted;
        if order.len() != real.len() {
            let missing: Vec<String> = real
                .iter()
                .copied()
                .filter(|&r| !done[r])
                .map(name)
                .take(5)
                .collect();
            return Err(LayoutError::NotConnected {
                missing,
                from: name(order[0]),
            });
        }
        let mut pos = vec![usize::MAX; n];
        for (i, &r) in order.iter().enumerate() {
            pos[r] = i;
        }
        // A room moved ahead of an ear's last room (it had two placed neighbours) is placed
        // when the ear closes: if it still waits for a neighbour, it must stay outside too.
        let mut was = vec![usize::MAX; n];
        for (i, &r) in planned.iter().enumerate() {
            was[r] = i;
        }
        for &r in &order {
            if keep_out[r].is_empty() {
                continue;
            }
            let ahead = order[..pos[r]]
                .iter()
                .copied()
                .filter(|&x| was[x] > was[r] && vadj[x].iter().any(|&(y, _)| pos[y] > pos[r]));
            let mut list: Vec<usize> = keep_out[r].iter().copied().chain(ahead).collect();
            list.retain(|&x| pos[x] <= pos[r]);
            list.sort_unstable();
            list.dedup();
            keep_out[r] = list;
        }
        let span: Vec<u32> = (0..n)
            .map(|r| {
                self.room_shapes[r]
                    .iter()
                    .map(|&(s, _)| {
                        let m = &self.set.shapes[s as usize].mask;
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
                return Err(LayoutError::NoPlacedNeighbour { room: name(r) });
            }
            let far = self.future_targets(&vadj, &pos, &span, r, i);
            steps.push(Step {
                room: r,
                earlier,
                pull: far.iter().any(|&(_, _, hops)| hops <= 2),
                targets: far,
                keep_out: std::mem::take(&mut keep_out[r]),
            });
        }
        let mut step_of = pos.clone();
        for (k, v) in self.via.iter().enumerate() {
            if let Some(v) = v {
                step_of[k] = pos[v.a].max(pos[v.b]);
            }
        }
        self.step_of = step_of;
        self.steps = steps;
        Ok(())
    }

    /// Rooms placed before step `i` that later rooms will join to room `r`: a search through
    /// rooms placed after `i` (up to 8 of them), cheapest bridgeable gap first.
    fn future_targets(
        &self,
        vadj: &[Vec<(usize, Edge)>],
        pos: &[usize],
        span: &[u32],
        r: usize,
        i: usize,
    ) -> Vec<(usize, u32, u32)> {
        let edge_reach = |e: Edge| match e {
            Edge::Link(l) => self.problem.links[l]
                .realise
                .path_bounds()
                .map_or(0, |b| b.1),
            Edge::Via(k) => span[k],
        };
        let mut best: HashMap<usize, (u32, u32)> = HashMap::new();
        let mut seen: HashMap<usize, u32> = HashMap::new();
        // (reach so far, hops, room)
        let mut heap = std::collections::BinaryHeap::new();
        for &(u, e) in &vadj[r] {
            if pos[u] > i {
                heap.push(std::cmp::Reverse((edge_reach(e) + span[u], 1u32, u)));
            }
        }
        while let Some(std::cmp::Reverse((reach, hops, u))) = heap.pop() {
            if seen.contains_key(&u) {
                continue;
            }
            seen.insert(u, reach);
            for &(w, e) in &vadj[u] {
                if w == r {
                    continue;
                }
                let total = reach + edge_reach(e);
                if pos[w] < i {
                    let entry = best.entry(w).or_insert((u32::MAX, u32::MAX));
                    entry.0 = entry.0.min(total);
                    entry.1 = entry.1.min(hops);
                } else if pos[w] > i && hops < 8 && !seen.contains_key(&w) {
                    heap.push(std::cmp::Reverse((total + span[w], hops + 1, w)));
                }
            }
        }
        let mut out: Vec<(usize, u32, u32)> = best
            .into_iter()
            .map(|(t, (reach, hops))| (t, reach, hops))
            .collect();
        out.sort_unstable();
        out
    }

    /// The (placed shape, new shape, placed is `from`) pairs the problem's links need.
    fn needed_spaces(&self) -> Vec<(u32, u32, bool)> {
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
        need
    }

    fn build_compounds(&mut self) {
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
        for key in cneed {
            let c = self.compound(key);
            self.compounds.insert(key.0, key.1, key.2, key.3, c);
        }
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
            let own1;
            let s1 = match self.set.spaces.get(sp, sc, 0, f1) {
                Some(x) => x,
                None => {
                    own1 = self.set.space(sp, sc, f1);
                    &own1
                }
            };
            let own2;
            let s2 = match self.set.spaces.get(sc, sn, 0, f2) {
                Some(x) => x,
                None => {
                    own2 = self.set.space(sc, sn, f2);
                    &own2
                }
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

    /// The two doors that meet when `new` is at `offset` from `placed`.
    fn touch(
        &self,
        placed: u32,
        new: u32,
        placed_is_from: bool,
        offset: Point,
    ) -> Option<(u16, u16)> {
        let s = self.set.spaces.get(placed, new, 0, placed_is_from)?;
        s.offsets.binary_search(&offset).ok().map(|i| s.doors[i])
    }

    /// Lays the rooms out for a seed.
    pub fn layout(&self, seed: u64) -> Result<Layout, LayoutError> {
        let start = std::time::Instant::now();
        let ms = match self.problem.budget.retry {
            RetryPolicy::Millis(ms) => Some(ms),
            RetryPolicy::Attempts(_) => None,
        };
        let after = |ms: u64| start + std::time::Duration::from_millis(ms);
        let mut before = 0;
        if let Some(parts) = &self.parts {
            // The parts get the first half of a time budget, the room-by-room search the rest.
            match self.assemble(seed, parts, ms.map(|ms| after(ms / 2))) {
                Ok(layout) => return Ok(layout),
                // The parts did not fit together (or one could not be laid out with its
                // stand-ins): room by room, with a budget of its own.
                Err(LayoutError::NoLayout { attempts, .. }) => before = attempts,
                Err(e) => return Err(e),
            }
        }
        match self.solve(seed, ms.map(after)) {
            Ok((st, attempts)) => Ok(self.finish(seed, before + attempts, st)),
            Err(mut e) => {
                if let LayoutError::NoLayout {
                    attempts,
                    constraint,
                    ..
                } = &mut e
                {
                    *attempts += before;
                    if let Some(hint) = self.enclosure_hint() {
                        constraint.push_str("; ");
                        constraint.push_str(&hint);
                    }
                }
                Err(e)
            }
        }
    }

    /// Why the level may need a hole, if it does: the first group of loops that no drawing
    /// leaves with every room that has rooms hanging off it outside (see
    /// [`crate::graph::enclosures`]).
    fn enclosure_hint(&self) -> Option<String> {
        let groups = crate::graph::enclosure_groups(&self.adj, self.problem.links.len());
        let g = groups.first()?;
        let names = |rooms: &[usize], most: usize| {
            let mut text = rooms
                .iter()
                .take(most)
                .map(|&r| format!("`{}`", self.problem.rooms[r].name))
                .collect::<Vec<_>>()
                .join(", ");
            if rooms.len() > most {
                text.push_str(&format!(" and {} more", rooms.len() - most));
            }
            text
        };
        let count: usize = g
            .hanging
            .iter()
            .filter(|h| g.inside.contains(&h.0))
            .map(|h| h.1)
            .sum();
        Some(format!(
            "the graph needs a hole, which loops closed tight do not leave: no drawing of the \
             loops of {} has every room with rooms hanging off it on the outside, so a loop \
             must enclose {} and the {} room{} hanging off {}",
            names(&g.rooms, 6),
            names(&g.inside, 3),
            count,
            if count == 1 { "" } else { "s" },
            if g.inside.len() == 1 { "it" } else { "them" },
        ))
    }

    /// Whether the retry policy allows another attempt after `attempt` attempts: under
    /// [`RetryPolicy::Millis`], the first attempt always, then until `deadline`.
    fn attempts_left(&self, attempt: u32, deadline: Option<std::time::Instant>) -> bool {
        match self.problem.budget.retry {
            RetryPolicy::Attempts(k) => attempt < k.max(1),
            RetryPolicy::Millis(_) => {
                attempt == 0 || deadline.is_none_or(|d| std::time::Instant::now() < d)
            }
        }
    }

    /// The room-by-room search: the placed rooms and corridors, and the attempts it took.
    fn search(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
    ) -> Result<(State, u32), LayoutError> {
        self.search_recording(seed, deadline, None)
    }

    /// Where [`Planner::layout`] gets stuck for `seed`: `None` if it lays the level out, else
    /// the rooms its room-by-room search had placed at its deepest point over all attempts,
    /// and the room it could not place next. The search runs again under the same budget (a
    /// big level's parts are not shown: the picture is of the room-by-room search they fall
    /// back on), so under an attempt budget the same seed gives the same picture; it costs up
    /// to twice a failed layout.
    ///
    /// ```
    /// use levelplan::layout::{
    ///     DoorMode, DoorSpec, LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate,
    /// };
    /// // A room with one door cannot touch two rooms.
    /// let mut closet = RoomTemplate::rectangle("closet", 5, 5, 1);
    /// closet.doors = DoorMode::Manual(vec![DoorSpec {
    ///     from: [2, 0],
    ///     to: [3, 0],
    ///     kind: Default::default(),
    ///     socket: None,
    /// }]);
    /// let mut problem =
    ///     LayoutProblem::new(vec![closet, RoomTemplate::rectangle("room", 6, 6, 1)]);
    /// problem.rooms.push(RoomSpec::new("closet", vec![0]));
    /// for name in ["east", "west"] {
    ///     problem.rooms.push(RoomSpec::new(name, vec![1]));
    /// }
    /// problem.links.push(LinkSpec::new(0, 1, Realise::Contact));
    /// problem.links.push(LinkSpec::new(0, 2, Realise::Contact));
    /// problem.budget.retry = levelplan::layout::RetryPolicy::Attempts(2);
    /// let planner = Planner::new(problem).unwrap();
    /// assert!(planner.layout(1).is_err());
    /// let stuck = planner.deepest(1).unwrap();
    /// assert_eq!(stuck.placed(), 2);
    /// assert_eq!(stuck.stuck_next_to, ["closet"]);
    /// print!("{}", stuck.to_ascii());
    /// ```
    pub fn deepest(&self, seed: u64) -> Option<PartialLayout> {
        if self.layout(seed).is_ok() {
            return None;
        }
        let deadline = match self.problem.budget.retry {
            RetryPolicy::Millis(ms) => {
                Some(std::time::Instant::now() + std::time::Duration::from_millis(ms))
            }
            RetryPolicy::Attempts(_) => None,
        };
        let mut rec = Deepest::default();
        if self
            .search_recording(seed, deadline, Some(&mut rec))
            .is_ok()
        {
            return None;
        }
        let stuck = rec.next;
        let name = |r: usize| self.problem.rooms[r].name.clone();
        Some(PartialLayout {
            rooms: (0..self.problem.rooms.len())
                .map(|r| {
                    rec.placed
                        .get(r)
                        .copied()
                        .flatten()
                        .map(|(s, p)| self.placed_room(r, s, p))
                })
                .collect(),
            corridors: rec
                .corridors
                .iter()
                .map(|c| (c.link, c.cells.clone()))
                .collect(),
            stuck: name(stuck),
            stuck_next_to: self.adj[stuck]
                .iter()
                .map(|&(nb, _)| nb)
                .filter(|&nb| rec.placed.get(nb).copied().flatten().is_some())
                .map(name)
                .collect(),
        })
    }

    /// [`Planner::search`], recording its deepest state in `record` if given.
    fn search_recording(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
        mut record: Option<&mut Deepest>,
    ) -> Result<(State, u32), LayoutError> {
        let mut rng = seed::stream(seed, "layout");
        let n = self.problem.rooms.len();
        let mut failures = vec![0u32; n];
        let mut reasons: Vec<u8> = vec![0; n];
        let mut attempt = 0u32;
        let mut carry: Option<Box<Resume>> = None;
        let (mut best_depth, mut back) = (0usize, 2usize);
        loop {
            if !self.attempts_left(attempt, deadline) {
                break;
            }
            attempt += 1;
            match self.attempt(
                &mut rng,
                &mut failures,
                &mut reasons,
                carry.take(),
                record.as_deref_mut(),
            ) {
                Ok(state) => return Ok((state, attempt)),
                // Out of steps: the next attempt keeps the rooms placed well before the
                // deepest point this one reached, and cuts back further each time it gets no
                // deeper; from scratch once the cut reaches the first room.
                Err(Some(mut resume)) => {
                    let deepest = resume.cut;
                    if deepest > best_depth {
                        (best_depth, back) = (deepest, 2);
                    } else {
                        back *= 2;
                    }
                    let cut = deepest.saturating_sub(back).min(resume.frames.len() - 1);
                    if cut > 0 && self.big {
                        resume.cut = cut;
                        carry = Some(resume);
                    } else {
                        (best_depth, back) = (0, 2);
                    }
                }
                Err(None) => (best_depth, back) = (0, 2),
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

    /// The steps a step's candidates depend on: its placed neighbours and its targets.
    fn base_conflicts(&self, i: usize) -> Vec<usize> {
        let step = &self.steps[i];
        let mut c: Vec<usize> = step
            .earlier
            .iter()
            .map(|&(nb, _)| self.step_of[nb])
            .chain(step.targets.iter().map(|&(t, _, _)| self.step_of[t]))
            .filter(|&j| j < i)
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// One attempt: depth first over the room order with conflict-directed backjumping (a room
    /// with no position left sends the search back to the latest room among those its
    /// candidates depended on or collided with).
    fn attempt<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        failures: &mut [u32],
        reasons: &mut [u8],
        resume: Option<Box<Resume>>,
        mut record: Option<&mut Deepest>,
    ) -> Result<State, Option<Box<Resume>>> {
        let n = self.steps.len();
        let budget = self.problem.budget;
        let (mut frames, mut st, from) = match resume.map(|r| *r) {
            Some(Resume {
                mut frames,
                mut state,
                cut,
            }) => {
                // Undo everything from step `cut` on; that step starts over with fresh
                // candidates.
                while frames.len() > cut {
                    let k = frames.len() - 1;
                    let f = frames.pop().expect("len checked");
                    self.unplace(&mut state, self.steps[k].room, f.corridors, &f.extra);
                }
                let corridors = state.corridors.len();
                frames.push(self.frame(rng, &state, cut, corridors));
                (frames, state, cut)
            }
            None => {
                let st = State {
                    placed: vec![None; self.problem.rooms.len()],
                    index: RTree::new(),
                    corridors: Vec::new(),
                    witness: vec![None; self.problem.links.len()],
                };
                let mut frames: Vec<Frame> = Vec::with_capacity(n);
                frames.push(self.frame(rng, &st, 0, 0));
                (frames, st, 0)
            }
        };
        let mut steps_left = u64::from(budget.steps_per_room) * (n - from) as u64;
        let mut deepest = frames.len();
        loop {
            if let Some(rec) = record.as_deref_mut()
                && frames.len() > rec.depth
            {
                rec.depth = frames.len();
                rec.placed.clone_from(&st.placed);
                rec.corridors.clone_from(&st.corridors);
                rec.next = self.steps[frames.len() - 1].room;
            }
            deepest = deepest.max(frames.len());
            let i = frames.len() - 1;
            let room = self.steps[i].room;
            let mut placed = false;
            {
                let f = &mut frames[i];
                loop {
                    if f.next == f.cands.len() {
                        let Some(s) = f.shapes_left.pop() else { break };
                        f.cands = self.candidates(rng, &st, i, &[s]);
                        f.next = 0;
                        continue;
                    }
                    if f.failures > budget.failures_per_room {
                        break;
                    }
                    if steps_left == 0 {
                        failures[room] += 1;
                        return Err(Some(Box::new(Resume {
                            frames,
                            state: st,
                            cut: deepest - 1,
                        })));
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
                        Err((reason, culprit)) => {
                            reasons[room] = reasons[room].max(reason);
                            let j = match culprit {
                                Some(q) => self.step_of[q],
                                None if reason == 2 => i.saturating_sub(1),
                                None => usize::MAX,
                            };
                            if j < i && !f.conflict.contains(&j) {
                                f.conflict.push(j);
                            }
                        }
                    }
                }
            }
            if placed {
                if i + 1 == n {
                    return Ok(st);
                }
                let before = st.corridors.len();
                let frame = self.frame(rng, &st, i + 1, before);
                frames.push(frame);
                continue;
            }
            failures[room] += 1;
            let dead = frames.pop().expect("a frame is open");
            if i == 0 {
                return Err(None);
            }
            // Jump back to the latest step in the conflict set.
            let target = dead.conflict.iter().copied().max().unwrap_or(i - 1);
            while frames.len() > target + 1 {
                let k = frames.len() - 1;
                let f = frames.pop().expect("len checked");
                self.unplace(&mut st, self.steps[k].room, f.corridors, &f.extra);
            }
            let prev = self.steps[target].room;
            let f = &mut frames[target];
            let extra = std::mem::take(&mut f.extra);
            self.unplace(&mut st, prev, f.corridors, &extra);
            f.failures += 1;
            for j in dead.conflict {
                if j < target && !f.conflict.contains(&j) {
                    f.conflict.push(j);
                }
            }
        }
    }

    fn rect_of(&self, shape: u32, pos: Point) -> Rect {
        let m = &self.set.shapes[shape as usize].mask;
        Rect {
            min: pos,
            max: pos + Point::new(m.width, m.height),
        }
    }

    fn linked(&self, a: usize, b: usize) -> bool {
        self.adj[a].iter().any(|&(nb, _)| nb == b)
    }

    fn entry(&self, shape: u32, pos: Point, id: u32) -> Entry {
        box_entry(self.rect_of(shape, pos), id)
    }

    /// Whether `room` with `shape` at `pos` collides with anything placed (or comes too close
    /// to a room it is not linked to).
    fn collides(&self, st: &State, room: usize, shape_id: u32, pos: Point) -> Option<usize> {
        let shape = &self.set.shapes[shape_id as usize];
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
                let other = &self.set.shapes[qs as usize];
                if overlap(shape, pos, other, qp) {
                    return Some(q);
                }
                if d > 0 && !self.linked(room, q) && outline_gap(shape, pos, other, qp) < d as u32 {
                    return Some(q);
                }
            } else {
                let cor = &st.corridors[(id - nrooms) as usize];
                if cor
                    .occupied
                    .iter()
                    .any(|&p| shape.mask.inside(p.x - pos.x, p.y - pos.y))
                {
                    return Some(cor.from_room);
                }
            }
        }
        None
    }

    /// Places candidate `c` for step `i` if it fits, with the corridor rooms and corridors its
    /// edges need; returns the corridor rooms placed. Errors: the code (1 = it collides, 2 = a
    /// corridor could not be routed) and the room it collided with, if one is known.
    fn try_place(
        &self,
        st: &mut State,
        i: usize,
        c: Cand,
        keep: usize,
    ) -> Result<Vec<usize>, (u8, Option<usize>)> {
        let step = &self.steps[i];
        let room = step.room;
        if let Some(q) = self.collides(st, room, c.shape, c.pos) {
            return Err((1, Some(q)));
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
                        Realise::Contact if !contact => return Err((1, None)),
                        Realise::Contact => {}
                        _ if contact => {}
                        _ => routes.push((nb, l)),
                    }
                }
                Edge::Via(k) => {
                    let v = self.via[k].expect("via edges come from via rooms");
                    let Some(comp) = self.compounds.get(ns, c.shape, v.class, nb == v.a) else {
                        return Err((1, None));
                    };
                    let Ok(at) = comp.offsets.binary_search(&(c.pos - np)) else {
                        return Err((1, None));
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
            let comp = self
                .compounds
                .get(
                    st.placed[nb].expect("placed").0,
                    c.shape,
                    v.class,
                    nb == v.a,
                )
                .expect("checked above");
            let np = st.placed[nb].expect("placed").1;
            let (lo, hi) = (comp.starts[at] as usize, comp.starts[at + 1] as usize);
            let fit = comp.alts[lo..hi]
                .iter()
                .find(|&&(sc, o1)| self.collides(st, k, sc, np + o1).is_none())
                .copied();
            match fit {
                Some((sc, o1)) => {
                    st.placed[k] = Some((sc, np + o1));
                    st.index.insert(self.entry(sc, np + o1, k as u32));
                    extra.push(k);
                }
                None => {
                    self.unplace(st, room, keep, &extra);
                    return Err((1, None));
                }
            }
        }
        for (nb, l) in routes {
            match corridor::route(self, st, l, room, nb) {
                Some(cor) => st.push_corridor(cor),
                None => {
                    self.unplace(st, room, keep, &extra);
                    return Err((2, None));
                }
            }
        }
        // An ear closed: the rooms it was to leave outside must still reach the outside.
        if self.steps[i]
            .keep_out
            .iter()
            .any(|&q| !self.reaches_out(st, q))
        {
            self.unplace(st, room, keep, &extra);
            return Err((1, None));
        }
        // Forward check: no placed room near what was just placed may be left without a free
        // spot for a neighbour it must still touch.
        if self.big
            && let Some(q) = self.shut_in(st, room, keep)
        {
            self.unplace(st, room, keep, &extra);
            return Err((1, Some(q)));
        }
        Ok(extra)
    }

    /// Whether placed room `q` still has free cells beside it that lead [`OPEN_REACH`] cells
    /// away from it (out of what is placed, or into a space big enough for what must still
    /// hang off it): a flood fill over the cells round it.
    fn reaches_out(&self, st: &State, q: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        let r = self.rect_of(qs, qp);
        let min = Point::new(r.min.x - OPEN_REACH, r.min.y - OPEN_REACH);
        let max = Point::new(r.max.x + OPEN_REACH, r.max.y + OPEN_REACH);
        self.open_to_edge(st, q, min, max)
    }

    /// Whether the free cells round placed room `q` lead to the edge of the window from `min`
    /// to `max` (exclusive), which must hold the room with a cell to spare on every side.
    fn open_to_edge(&self, st: &State, q: usize, min: Point, max: Point) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        let w = max.x - min.x;
        let mut seen = corridor::solid_window(self, st, min, max);
        let at = |x: i32, y: i32| ((y - min.y) * w + (x - min.x)) as usize;
        // Start from the free cells just outside the room's mask.
        let mask = &self.set.shapes[qs as usize].mask;
        let mut stack: Vec<(i32, i32)> = Vec::new();
        let steps = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        for y in 0..mask.height {
            for x in 0..mask.width {
                if !mask.inside(x, y) {
                    continue;
                }
                for (dx, dy) in steps {
                    let (cx, cy) = (qp.x + x + dx, qp.y + y + dy);
                    if !mask.inside(x + dx, y + dy) && !seen[at(cx, cy)] {
                        seen[at(cx, cy)] = true;
                        stack.push((cx, cy));
                    }
                }
            }
        }
        while let Some((x, y)) = stack.pop() {
            if x == min.x || y == min.y || x == max.x - 1 || y == max.y - 1 {
                return true;
            }
            for (dx, dy) in steps {
                let (nx, ny) = (x + dx, y + dy);
                if !seen[at(nx, ny)] {
                    seen[at(nx, ny)] = true;
                    stack.push((nx, ny));
                }
            }
        }
        false
    }

    /// A placed room near `room` (or `room` itself, or near a corridor routed since `keep`)
    /// that can no longer reach one of its unplaced neighbours (see `room_to_spare`).
    fn shut_in(&self, st: &mut State, room: usize, keep: usize) -> Option<usize> {
        let nrooms = st.placed.len() as u32;
        let (s, p) = st.placed[room]?;
        let mut areas = vec![self.rect_of(s, p)];
        areas.extend(st.corridors[keep..].iter().map(|c| c.rect));
        let m = self.span;
        let mut near: Vec<usize> = vec![room];
        for r in areas {
            let env = AABB::from_corners(
                [r.min.x - m, r.min.y - m],
                [r.max.x - 1 + m, r.max.y - 1 + m],
            );
            near.extend(
                st.index
                    .locate_in_envelope_intersecting(env)
                    .filter(|e| e.data < nrooms)
                    .map(|e| e.data as usize),
            );
        }
        near.sort_unstable();
        near.dedup();
        near.into_iter().find(|&q| !self.room_to_spare(st, q))
    }

    /// Whether placed room `q` has a door link `l` may use with a free cell in front of it.
    fn free_door(&self, st: &State, q: usize, l: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        let shape = &self.set.shapes[qs as usize];
        let is_from = self.problem.links[l].from == q;
        shape
            .doors
            .iter()
            .filter(|d| d.kind.allows(is_from))
            .any(|d| {
                let c = corridor::outside_cell(d.a + qp, d.b + qp, d.facing);
                let nrooms = st.placed.len();
                !st.index.locate_all_at_point([c.x, c.y]).any(|e| {
                    let id = e.data as usize;
                    if id < nrooms {
                        st.placed[id].is_some_and(|(s, p)| {
                            self.set.shapes[s as usize]
                                .mask
                                .inside(c.x - p.x, c.y - p.y)
                        })
                    } else {
                        st.corridors[id - nrooms].occupied.binary_search(&c).is_ok()
                    }
                })
            })
    }

    /// Whether every unplaced neighbour of placed room `q` can still be reached: one that must
    /// touch it has a free position beside it (the last one found for each link is tried
    /// first); one a corridor may join has a door with a free cell in front of it.
    fn room_to_spare(&self, st: &mut State, q: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        // What lies around `q` (rooms and corridor cells), gathered when first needed.
        type Around = (Vec<(u32, Point)>, Vec<Point>);
        let mut around: Option<Around> = None;
        for &(u, l) in &self.adj[q] {
            let link = self.problem.links[l];
            if st.placed[u].is_some() || self.via[u].is_some() {
                continue;
            }
            if link.realise != Realise::Contact {
                // A corridor needs a door of `q` with a free cell in front of it.
                if !self.free_door(st, q, l) {
                    return false;
                }
                continue;
            }
            if let Some((us, at)) = st.witness[l]
                && self.room_shapes[u].iter().any(|&(s, _)| s == us)
                && self
                    .set
                    .spaces
                    .get(qs, us, 0, link.from == q)
                    .is_some_and(|sp| sp.offsets.binary_search(&(at - qp)).is_ok())
                && self.collides(st, u, us, at).is_none()
            {
                continue;
            }
            let (rooms, cells) = around.get_or_insert_with(|| {
                let qr = self.rect_of(qs, qp);
                let m = self.span;
                let env = AABB::from_corners(
                    [qr.min.x - m, qr.min.y - m],
                    [qr.max.x - 1 + m, qr.max.y - 1 + m],
                );
                let nrooms = st.placed.len() as u32;
                let mut rooms: Vec<(u32, Point)> = Vec::new();
                let mut cells: Vec<Point> = Vec::new();
                for e in st.index.locate_in_envelope_intersecting(env) {
                    if e.data < nrooms {
                        rooms.extend(st.placed[e.data as usize]);
                    } else {
                        cells.extend(&st.corridors[(e.data - nrooms) as usize].occupied);
                    }
                }
                (rooms, cells)
            });
            let found = self.room_shapes[u].iter().find_map(|&(us, _)| {
                let sp = self.set.spaces.get(qs, us, 0, link.from == q)?;
                let shape = &self.set.shapes[us as usize];
                sp.offsets
                    .iter()
                    .find(|&&o| {
                        let at = qp + o;
                        !rooms
                            .iter()
                            .any(|&(os, op)| overlap(shape, at, &self.set.shapes[os as usize], op))
                            && !cells
                                .iter()
                                .any(|&c| shape.mask.inside(c.x - at.x, c.y - at.y))
                    })
                    .map(|&o| (us, qp + o))
            });
            match found {
                Some(w) => st.witness[l] = Some(w),
                None => return false,
            }
        }
        true
    }

    fn unplace(&self, st: &mut State, room: usize, keep_corridors: usize, extra: &[usize]) {
        let nrooms = st.placed.len() as u32;
        while st.corridors.len() > keep_corridors {
            let id = nrooms + st.corridors.len() as u32 - 1;
            let cor = st.corridors.pop().expect("len checked");
            st.index.remove(&box_entry(cor.rect, id));
        }
        for &k in extra.iter().chain(std::iter::once(&room)) {
            if let Some((s, p)) = st.placed[k].take() {
                st.index.remove(&self.entry(s, p, k as u32));
            }
        }
    }

    /// The shapes (with weights) `room` may take given the shapes other rooms have
    /// (`shape_of`, `None` for a room without one): those its repeat modes allow, or all of
    /// them if none is (the modes are soft). Corridor rooms ignore repeat modes, as in Edgar.
    pub(crate) fn repeat_allowed(
        &self,
        room: usize,
        shape_of: impl Fn(usize) -> Option<u32>,
    ) -> Vec<(u32, f64)> {
        let template_of = |r: usize| shape_of(r).map(|s| self.set.shapes[s as usize].template);
        let used_here = |t: usize, neighbours_only: bool| {
            if neighbours_only {
                self.adj[room]
                    .iter()
                    .any(|&(nb, _)| template_of(nb) == Some(t))
            } else {
                (0..self.problem.rooms.len())
                    .any(|r| !self.problem.rooms[r].corridor && template_of(r) == Some(t))
            }
        };
        let corridor_room = self.problem.rooms[room].corridor;
        let shapes: Vec<(u32, f64)> = self.room_shapes[room]
            .iter()
            .copied()
            .filter(|&(s, _)| {
                let t = self.set.shapes[s as usize].template;
                corridor_room
                    || match self.repeat[t] {
                        RepeatMode::AllowRepeat => true,
                        RepeatMode::NoImmediate => !used_here(t, true),
                        RepeatMode::NoRepeat => !used_here(t, false),
                    }
            })
            .collect();
        if shapes.is_empty() {
            self.room_shapes[room].clone()
        } else {
            shapes
        }
    }

    /// The shapes step `i` may use, in weighted random order.
    fn shape_order<R: Rng + ?Sized>(&self, rng: &mut R, st: &State, i: usize) -> Vec<u32> {
        let room = self.steps[i].room;
        let mut shapes = self.repeat_allowed(room, |r| st.placed[r].map(|(s, _)| s));
        let corridor_room = self.problem.rooms[room].corridor;
        // Templates already used (in this level, and in earlier ones of a run) weigh less.
        let penalty = self.problem.recent_penalty;
        if penalty > 0.0 && !corridor_room {
            let mut uses = vec![0u32; self.problem.templates.len()];
            for (r, p) in st.placed.iter().enumerate() {
                if let Some((s, _)) = p
                    && !self.problem.rooms[r].corridor
                {
                    uses[self.set.shapes[*s as usize].template] += 1;
                }
            }
            for (s, w) in shapes.iter_mut() {
                let t = self.set.shapes[*s as usize].template;
                let n = f64::from(uses[t])
                    + self
                        .problem
                        .earlier_uses
                        .get(t)
                        .copied()
                        .unwrap_or(0.0)
                        .max(0.0);
                *w *= (1.0 - penalty * n).max(0.05);
            }
        }
        // Weighted random order (exponential keys).
        let mut keyed: Vec<(f64, u32)> = shapes
            .iter()
            .map(|&(s, w)| (-(1.0 - seed::unit(rng)).ln() / w, s))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|(_, s)| s).collect()
    }

    /// Candidate placements of `shapes` for step `i`, best first: shuffled, cut to those that
    /// can still be joined to the step's targets, and sorted by distance to them for a step
    /// that pulls.
    fn candidates<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        i: usize,
        shapes: &[u32],
    ) -> Vec<Cand> {
        let step = &self.steps[i];
        let mut out: Vec<Cand> = Vec::new();
        if i == 0 {
            out.extend(shapes.iter().map(|&s| Cand {
                shape: s,
                pos: Point::default(),
            }));
            return out;
        }
        // Contact positions first, shuffled; positions that need a corridor after them,
        // nearest first (short corridors route more often), and only a few of them.
        let mut fallback: Vec<Cand> = Vec::new();
        for &s in shapes {
            let start = out.len();
            self.positions(st, step, s, &mut out, &mut fallback);
            seed::shuffle(rng, &mut out[start..]);
        }
        if !fallback.is_empty() {
            // Partners reached by corridor, with the gap a corridor likes best.
            let partners: Vec<(Rect, u32)> = step
                .earlier
                .iter()
                .filter_map(|&(nb, e)| {
                    let Edge::Link(l) = e else { return None };
                    let (lo, _) = self.problem.links[l].realise.path_bounds()?;
                    st.placed[nb].map(|(ns, np)| (self.rect_of(ns, np), lo + 2))
                })
                .collect();
            let mut keyed: Vec<(u32, u64, Cand)> = fallback
                .into_iter()
                .map(|c| {
                    let r = self.rect_of(c.shape, c.pos);
                    let d: u32 = partners
                        .iter()
                        .map(|(a, ideal)| r.gap(a).abs_diff(*ideal))
                        .sum();
                    (d, rng.next_u64(), c)
                })
                .collect();
            keyed.sort_unstable_by_key(|&(d, k, _)| (d, k));
            out.extend(keyed.into_iter().take(FALLBACK_TRIES).map(|(_, _, c)| c));
        }
        if step.targets.is_empty() {
            return out;
        }
        let targets: Vec<(Rect, u32, u32)> = step
            .targets
            .iter()
            .filter_map(|&(t, reach, hops)| {
                st.placed[t].map(|(ts, tp)| (self.rect_of(ts, tp), reach, hops))
            })
            .collect();
        let mut scored: Vec<(u32, Cand)> = Vec::with_capacity(out.len());
        'cands: for c in out {
            let rect = self.rect_of(c.shape, c.pos);
            let mut score = 0;
            for &(trect, reach, hops) in &targets {
                let gap = rect.gap(&trect);
                if gap > reach {
                    continue 'cands;
                }
                if hops <= 3 {
                    score += gap;
                }
            }
            if step.pull {
                score += 2 * seed::below(rng, 4) as u32;
            }
            scored.push((score, c));
        }
        if step.pull {
            scored.sort_by_key(|&(s, _)| s);
        }
        scored.into_iter().map(|(_, c)| c).collect()
    }

    /// A frame for step `i`: a step that pulls gets every candidate at once (sorted); any other
    /// gets one shape's candidates at a time.
    fn frame<R: Rng + ?Sized>(&self, rng: &mut R, st: &State, i: usize, corridors: usize) -> Frame {
        let shapes = self.shape_order(rng, st, i);
        let (cands, shapes_left) = if self.steps[i].pull || i == 0 {
            (self.candidates(rng, st, i, &shapes), Vec::new())
        } else {
            let mut rest = shapes;
            rest.reverse();
            let first = rest.pop().expect("rooms have shapes");
            (self.candidates(rng, st, i, &[first]), rest)
        };
        Frame {
            cands,
            shapes_left,
            next: 0,
            failures: 0,
            corridors,
            extra: Vec::new(),
            conflict: self.base_conflicts(i),
        }
    }

    /// The sorted offsets (from the neighbour) at which shape `s` meets neighbour `nb` over
    /// edge `e`, and the neighbour's position.
    fn offsets(&self, st: &State, s: u32, nb: usize, e: Edge) -> (&[Point], Point) {
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        let list: &[Point] = match e {
            Edge::Link(l) => self
                .set
                .spaces
                .get(ns, s, 0, self.problem.links[l].from == nb)
                .map_or(&[], |v| &v.offsets),
            Edge::Via(k) => {
                let v = self.via[k].expect("via");
                self.compounds
                    .get(ns, s, v.class, nb == v.a)
                    .map_or(&[], |c| &c.offsets)
            }
        };
        (list, np)
    }

    /// Positions in the first list that are also in all the others.
    fn meet(lists: &[(&[Point], Point)], out: &mut Vec<Point>) {
        let Some((&(first, p0), rest)) = lists.split_first() else {
            return;
        };
        for &o in first {
            let p = o + p0;
            if rest.iter().all(|&(l, q)| l.binary_search(&(p - q)).is_ok()) {
                out.push(p);
            }
        }
    }

    /// Positions of shape `s` for a step: first those where every contact-capable link is
    /// realised by contact, then those where the optional ones are left to corridors.
    fn positions(
        &self,
        st: &State,
        step: &Step,
        s: u32,
        out: &mut Vec<Cand>,
        fallback: &mut Vec<Cand>,
    ) {
        let links = &self.problem.links;
        let kind = |e: Edge| match e {
            Edge::Via(_) => 0,
            Edge::Link(l) => match links[l].realise {
                Realise::Contact => 0,
                Realise::ContactOrPath { .. } => 1,
                Realise::Path { .. } => 2,
            },
        };
        let mut mandatory: Vec<(&[Point], Point)> = Vec::new();
        let mut optional: Vec<(&[Point], Point)> = Vec::new();
        let mut first_optional = None;
        for &(nb, e) in &step.earlier {
            match kind(e) {
                0 => mandatory.push(self.offsets(st, s, nb, e)),
                1 => {
                    first_optional.get_or_insert((nb, e));
                    optional.push(self.offsets(st, s, nb, e));
                }
                _ => {}
            }
        }
        let mut pts: Vec<Point> = Vec::new();
        if mandatory.is_empty() && optional.is_empty() {
            // Only corridor links: stand off from the first neighbour's contact positions.
            self.standoff(st, s, step.earlier[0], &mut pts);
            fallback.extend(pts.into_iter().map(|pos| Cand { shape: s, pos }));
            return;
        }
        let all: Vec<(&[Point], Point)> = mandatory.iter().chain(&optional).copied().collect();
        Self::meet(&all, &mut pts);
        out.extend(pts.iter().map(|&pos| Cand { shape: s, pos }));
        if optional.is_empty() {
            return;
        }
        let mut rest: Vec<Point> = Vec::new();
        if mandatory.is_empty() {
            // Contact positions with the optional neighbour failed: stand off for a corridor.
            if let Some(first) = first_optional {
                self.standoff(st, s, first, &mut rest);
            }
        } else {
            Self::meet(&mandatory, &mut rest);
            rest.retain(|p| pts.binary_search(p).is_err());
        }
        fallback.extend(rest.into_iter().map(|pos| Cand { shape: s, pos }));
    }

    /// Positions that leave room for a corridor to one neighbour: its contact positions moved
    /// out through the door by a few corridor lengths.
    fn standoff(&self, st: &State, s: u32, (nb, e): (usize, Edge), out: &mut Vec<Point>) {
        let Edge::Link(l) = e else { return };
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        let (lo, hi) = self.problem.links[l]
            .realise
            .path_bounds()
            .unwrap_or((4, 30));
        let shape = &self.set.shapes[ns as usize];
        if let Some(space) = self
            .set
            .spaces
            .get(ns, s, 0, self.problem.links[l].from == nb)
        {
            for (o, d) in space.offsets.iter().zip(&space.doors) {
                let f = shape.doors[d.0 as usize].facing.step();
                for g in [lo.max(3), (lo + hi) / 3, (lo + hi) / 2] {
                    let g = (g as i32).max(2);
                    out.push(*o + np + Point::new(f.x * g, f.y * g));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Room `r` as shape `s` at `p`, for a layout.
    fn placed_room(&self, r: usize, s: u32, p: Point) -> PlacedRoom {
        let spec = &self.problem.rooms[r];
        let shape = &self.set.shapes[s as usize];
        PlacedRoom {
            name: spec.name.clone(),
            template: shape.template,
            template_name: self.problem.templates[shape.template].name.clone(),
            transform: shape.transform,
            position: p - shape.shift,
            min: p,
            outline: shape.outline.iter().map(|&q| q + p).collect(),
            corridor: spec.corridor,
        }
    }

    fn finish(&self, seed: u64, attempts: u32, st: State) -> Layout {
        let nrooms = self.problem.rooms.len();
        let mut rooms = Vec::with_capacity(nrooms);
        for r in 0..nrooms {
            let (s, p) = st.placed[r].expect("a finished layout places every room");
            rooms.push(self.placed_room(r, s, p));
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
            let d = &self.set.shapes[fs as usize].doors[t.0 as usize];
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

/// Per transformation (in `Transform::ALL`'s order), the shape a shape turns into and the
/// corner it lands at (see `ShapeSet::turn_table`).
type Turned = [Option<(u32, Point)>; 8];

/// Room templates compiled under their transformations into shapes, with the configuration
/// spaces between pairs of shapes: every offset at which one shape touches another with two
/// doors meeting. Built once per template list and shared by planners
/// ([`Planner::with_shapes`]).
#[derive(Debug, Clone)]
pub struct ShapeSet {
    names: Vec<String>,
    /// Per shape, per transformation (in `Transform::ALL`'s order): the shape of the same
    /// template it turns into, and where that shape's box corner lands relative to the
    /// turned position (see `assemble`); filled when first needed.
    turns: std::sync::OnceLock<Vec<Turned>>,
    shapes: Vec<Shape>,
    template_shapes: Vec<Vec<u32>>,
    spaces: Dense<Space>,
    complete: bool,
}

impl ShapeSet {
    /// Compiles `templates` and computes the configuration space of every pair of shapes.
    ///
    /// # Complexity
    /// `O(S^2 D^2)` for `S` shapes with `D` door positions each.
    pub fn new(templates: &[RoomTemplate]) -> Result<ShapeSet, LayoutError> {
        let mut set = ShapeSet::compile(templates)?;
        let n = set.shapes.len() as u32;
        for a in 0..n {
            for b in 0..n {
                for f in [false, true] {
                    let space = set.space(a, b, f);
                    set.spaces.insert(a, b, 0, f, space);
                }
            }
        }
        set.complete = true;
        Ok(set)
    }

    /// Number of distinct shapes.
    pub fn shape_count(&self) -> usize {
        self.shapes.len()
    }

    fn compile(templates: &[RoomTemplate]) -> Result<ShapeSet, LayoutError> {
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
        Ok(ShapeSet {
            names: templates.iter().map(|t| t.name.clone()).collect(),
            turns: std::sync::OnceLock::new(),
            spaces: Dense::new(shapes.len(), 1),
            shapes,
            template_shapes,
            complete: false,
        })
    }

    /// Every offset at which shape `new` touches shape `placed` with two doors meeting.
    fn space(&self, placed: u32, new: u32, placed_is_from: bool) -> Space {
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
        let mut i = 0;
        while i < all.len() {
            let mut j = i;
            while j < all.len() && all[j].0 == all[i].0 {
                j += 1;
            }
            // Of several door pairs at one offset, the middle one.
            let t = all[i + (j - i) / 2];
            if !overlap(p, Point::default(), q, t.0) {
                out.offsets.push(t.0);
                out.doors.push((t.1, t.2));
            }
            i = j;
        }
        out
    }
}

/// The box where two shapes' boxes at two positions meet (min x, min y, max x, max y; max
/// exclusive), if they do.
fn shared_box(a: &Shape, pa: Point, b: &Shape, pb: Point) -> Option<(i32, i32, i32, i32)> {
    let (ma, mb) = (&a.mask, &b.mask);
    let x0 = pa.x.max(pb.x);
    let y0 = pa.y.max(pb.y);
    let x1 = (pa.x + ma.width).min(pb.x + mb.width);
    let y1 = (pa.y + ma.height).min(pb.y + mb.height);
    (x0 < x1 && y0 < y1).then_some((x0, y0, x1, y1))
}

/// Whether two shapes at two positions share a cell.
pub(crate) fn overlap(a: &Shape, pa: Point, b: &Shape, pb: Point) -> bool {
    let Some((x0, y0, x1, y1)) = shared_box(a, pa, b, pb) else {
        return false;
    };
    if a.mask.is_rect && b.mask.is_rect {
        return true;
    }
    for y in y0..y1 {
        for x in x0..x1 {
            if a.mask.inside(x - pa.x, y - pa.y) && b.mask.inside(x - pb.x, y - pb.y) {
                return true;
            }
        }
    }
    false
}

/// How many cells two shapes at two positions share.
pub(crate) fn overlap_area(a: &Shape, pa: Point, b: &Shape, pb: Point) -> u64 {
    let Some((x0, y0, x1, y1)) = shared_box(a, pa, b, pb) else {
        return 0;
    };
    if a.mask.is_rect && b.mask.is_rect {
        return ((x1 - x0) * (y1 - y0)) as u64;
    }
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            n += u64::from(a.mask.inside(x - pa.x, y - pa.y) && b.mask.inside(x - pb.x, y - pb.y));
        }
    }
    n
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

/// How many unplaced rooms reach the placed part only through one unplaced room of
/// `cycle` (they hang off that room; parts joined to two of them are later ears).
fn hanging(vadj: &[Vec<(usize, Edge)>], done: &[bool], cycle: &[usize]) -> usize {
    let n = vadj.len();
    let mut mark = vec![0u8; n]; // 1: on the run, 2: seen
    for &r in cycle {
        if !done[r] {
            mark[r] = 1;
        }
    }
    let mut total = 0;
    for &r in cycle {
        if done[r] {
            continue;
        }
        for &(start, _) in &vadj[r] {
            if done[start] || mark[start] != 0 {
                continue;
            }
            mark[start] = 2;
            let mut stack = vec![start];
            let (mut size, mut free) = (0, false);
            while let Some(x) = stack.pop() {
                size += 1;
                for &(y, _) in &vadj[x] {
                    if done[y] || (mark[y] == 1 && y != r) {
                        free = true;
                    } else if mark[y] == 0 {
                        mark[y] = 2;
                        stack.push(y);
                    }
                }
            }
            if !free {
                total += size;
            }
        }
    }
    total
}

/// For every room, how many rooms reach `root` only through it (the parts hanging off it, as
/// the block-cut tree sees them from `root`). Iterative depth-first search with low links.
fn hanging_weights(vadj: &[Vec<(usize, Edge)>], root: usize) -> Vec<usize> {
    let n = vadj.len();
    let mut disc = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut size = vec![1usize; n];
    let mut hang = vec![0usize; n];
    let mut time = 0;
    // (room, parent, next neighbour index)
    let mut stack: Vec<(usize, usize, usize)> = vec![(root, usize::MAX, 0)];
    disc[root] = 0;
    low[root] = 0;
    while let Some(&mut (u, parent, ref mut next)) = stack.last_mut() {
        if *next < vadj[u].len() {
            let v = vadj[u][*next].0;
            *next += 1;
            if disc[v] == usize::MAX {
                time += 1;
                disc[v] = time;
                low[v] = time;
                stack.push((v, u, 0));
            } else if v != parent {
                low[u] = low[u].min(disc[v]);
            }
            continue;
        }
        stack.pop();
        if parent != usize::MAX {
            low[parent] = low[parent].min(low[u]);
            size[parent] += size[u];
            if low[u] >= disc[parent] {
                hang[parent] += size[u];
            }
        }
    }
    hang
}
