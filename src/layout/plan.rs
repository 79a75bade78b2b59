//! The planner: the problem prepared once (checked, shapes compiled, spaces computed, rooms
//! ordered), then searched per seed. Each job has a file of its own: `shapes` (the shape set
//! and configuration spaces), `order` (the room order), `search` (attempts and backjumping),
//! `candidates` (exit gluing), `drawing` (a drawing of a big level that orders candidates),
//! `occupancy` (collisions, minimum distance, shut-in tests),
//! `finish` (a search's result as a layout), `parts` (big levels cut into parts at bridges),
//! `turns` (a part's layout turned whole), `assemble` (the parts fitted together), `anneal` (the
//! fallback), `ears` (which run of rooms closes round what is placed).

use std::sync::Arc;

use rand::Rng;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use super::corridor::{self, Corridor};
use super::geom::{Point, Rect};
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
mod candidates;
mod drawing;
mod ears;
mod finish;
pub mod occupancy;
mod order;
mod parts;
mod search;
mod shapes;
mod turns;

use shapes::Turned;
pub use shapes::{MAX_SHAPES, ShapeSet};

/// How far from a room its free cells must lead to count as open space for what must still
/// hang off it (more than the biggest room of most levels).
const OPEN_REACH: i32 = 20;

/// How many first loops are tried when the order must shut rooms inside a loop.
const FIRST_LOOPS: usize = 12;

/// How many positions that need a corridor a room tries per visit (routing is costly).
const FALLBACK_TRIES: usize = 6;

/// An index entry: a cell box and what owns it (a room, or `rooms + corridor`).
pub(crate) type Entry = GeomWithData<Rectangle<[i32; 2]>, u32>;

/// A configuration space: the offsets (sorted) at which a new shape touches a placed one. (The
/// doors that meet at an offset are found when asked for, [`ShapeSet::doors_at`]: the search
/// needs only the offsets, a finished layout the doors of its few links.)
#[derive(Debug, Clone, Default)]
struct Space {
    offsets: Vec<Point>,
    /// The runs of doors that face each other (indices into the two shapes' runs), in door
    /// order: what finds the doors at an offset.
    runs: Vec<(u16, u16)>,
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

/// Offsets of room `b` from room `a` through a corridor, sorted (the corridor placements that
/// give an offset are found when a placement needs them: [`Planner::compound_alts`]).
#[derive(Debug, Clone, Default)]
struct Compound {
    offsets: Vec<Point>,
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
    /// Per room: the loop it was placed in (an index into `loops`), for error messages.
    labels: Vec<u32>,
    /// The rooms of each loop that rooms were placed in.
    loops: Vec<Vec<usize>>,
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
    /// Per room: its shapes with their weights (rooms with the same templates share a list).
    room_shapes: Vec<Arc<[(u32, f64)]>>,
    repeat: Vec<RepeatMode>,
    adj: Vec<Vec<(usize, usize)>>,
    via: Vec<Option<ViaRoom>>,
    /// Corridor classes: shapes, whether `a` is the `from` of `la`, whether the corridor is the
    /// `from` of `lb`.
    classes: Vec<(Vec<u32>, bool, bool)>,
    /// Corridor compounds the search may meet, each computed the first time it does.
    compounds: Dense<std::sync::OnceLock<Compound>>,
    steps: Vec<Step>,
    /// The step that places each room (corridor rooms: the step of their second room).
    step_of: Vec<usize>,
    /// Per room: the loop it was placed in, an index into `loops` (`u32::MAX`: none).
    composite_of: Vec<u32>,
    /// The rooms of each loop named in `composite_of` (for error messages).
    loops: Vec<Vec<usize>>,
    /// The longest side of any shape: how far a placement can reach to block a neighbour.
    span: i32,
    /// A big level ([`BIG`] rooms or more): worth the forward check and resumed attempts,
    /// which cost more than they save on small ones.
    big: bool,
    /// A big level cut into parts at bridges, each laid out alone and then fitted to the
    /// others (see `assemble`); `None`: the level is laid out room by room.
    parts: Option<Vec<parts::Part>>,
    /// The second cut of a big level, made the first time it is tried (after the parts of the
    /// first did not fit together and the room-by-room search failed): pieces of up to
    /// [`parts::HANGING_ROOMS`] rooms kept in the part they hang off; `None` inside where it
    /// would cut the level as the first does.
    merged_parts: std::sync::OnceLock<Option<Vec<parts::Part>>>,
    /// Per room, how many rooms of the level it stands for: a part's stand-in counts every
    /// room beyond its cut link (see `parts`); `None`: one each. The room order weighs what
    /// an ear would shut in by it ([`ears::choose`]).
    weights: Option<Arc<Vec<usize>>>,
    /// Per room: whether `graph::enclosures` puts it inside a loop (with what hangs off it),
    /// found the first time it is asked for (see `Planner::stand_ins_out`), and whether any
    /// room is.
    enclosed: std::sync::OnceLock<(Vec<bool>, bool)>,
    /// An experiment (issue 22, [`Planner::with_rotation`]): per room, its neighbours in the
    /// cyclic order a planar drawing puts them round it; candidates that break it are dropped.
    rotation: Option<Arc<Vec<Vec<usize>>>>,
    /// An experiment (issue 22, [`Planner::with_pins`]): per room, the one shape and position
    /// the search may give it.
    pins: Option<Arc<Vec<Option<Pin>>>>,
    /// Whether this is a big level whose links are all contacts, or a part of one: the search
    /// orders candidates by a drawing (see `drawing`).
    guided: bool,
    /// The drawing of the level the search places rooms by (see `drawing`), made when first
    /// asked for.
    drawing: std::sync::OnceLock<Vec<Point>>,
    /// Whether a corridor a new room would cover is routed again round it
    /// (`Planner::try_place`): in levels under [`BIG`] rooms, where it lays out more; a big
    /// level's searches (its parts' too) try so many positions that the routing costs more
    /// than it saves.
    give_way: bool,
}

/// Rooms from which a level counts as big (see `Planner::big`).
const BIG: usize = 50;

/// Other room orders a small level's search (or a part's) tries when its own order fails
/// (see `Planner::search_other_orders`).
const OTHER_ORDERS: u32 = 24;

/// Attempts each of those orders gets at most.
const ATTEMPTS_PER_ORDER: u32 = 10;

/// A pinned room's shape and position ([`Planner::with_pins`]).
type Pin = (u32, Point);

#[derive(Debug, Clone, Copy)]
struct Cand {
    shape: u32,
    pos: Point,
}

struct Frame {
    cands: Vec<Cand>,
    /// Shapes whose candidates are not generated yet.
    shapes_left: ShapesLeft,
    next: usize,
    failures: u32,
    corridors: usize,
    /// Corridor rooms placed together with this step's room.
    extra: Vec<usize>,
    /// Corridors routed again round this step's room: their number and their route before.
    rerouted: Vec<(usize, Corridor)>,
    /// Earlier steps this step's failure depends on, besides those its candidates depend on
    /// (`Planner::base_conflicts`).
    conflict: Vec<usize>,
}

/// Shapes still to come a step keeps on the stack (more go to the heap).
const INLINE_LEFT: usize = 7;

/// The shapes of a step whose candidates are still to come, taken in order; on the stack for
/// the few shapes a room usually has.
struct ShapesLeft {
    inline: [u32; INLINE_LEFT],
    /// How many of `inline` are left (the last `len`, taken from the front).
    len: usize,
    /// Those left when there were more than `inline` holds, last first.
    spill: Vec<u32>,
}

impl ShapesLeft {
    /// `shapes`, to be taken in order.
    fn new(shapes: &[u32]) -> ShapesLeft {
        let mut left = ShapesLeft {
            inline: [0; INLINE_LEFT],
            len: 0,
            spill: Vec::new(),
        };
        if shapes.len() <= INLINE_LEFT {
            left.len = shapes.len();
            left.inline[INLINE_LEFT - shapes.len()..].copy_from_slice(shapes);
        } else {
            left.spill = shapes.iter().rev().copied().collect();
        }
        left
    }

    /// The next shape, if any.
    fn take(&mut self) -> Option<u32> {
        if self.len > 0 {
            let next = self.inline[INLINE_LEFT - self.len];
            self.len -= 1;
            return Some(next);
        }
        self.spill.pop()
    }
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
    /// Checks the problem, compiles its templates and computes the configuration spaces its
    /// links may meet.
    pub fn new(problem: LayoutProblem) -> Result<Planner, LayoutError> {
        Planner::compiled(problem, true)
    }

    /// [`Planner::new`], with the hole proof (`prove`) or without.
    fn compiled(problem: LayoutProblem, prove: bool) -> Result<Planner, LayoutError> {
        if problem.rooms.is_empty() {
            return Err(LayoutError::NoRooms);
        }
        let set = ShapeSet::compile(&problem.templates)?;
        // Configuration spaces and corridor compounds are computed when the search first
        // meets them: a game that prepares and lays out once pays only for those.
        Planner::prepare_whole_as(problem, Arc::new(set), prove)
    }

    /// A planner that shares compiled templates and their configuration spaces (see
    /// [`ShapeSet::new`]) with others: preparing it costs little, which matters when a game
    /// lays out many levels from one template library.
    pub fn with_shapes(problem: LayoutProblem, set: Arc<ShapeSet>) -> Result<Planner, LayoutError> {
        if set.names.len() != problem.templates.len()
            || set
                .names
                .iter()
                .zip(&problem.templates)
                .any(|(a, t)| *a != t.name)
        {
            return Err(LayoutError::ShapeSetMismatch);
        }
        Planner::prepare_whole(problem, set)
    }

    /// A planner for a whole level: a big level is cut into parts, and its own room order
    /// (which only the room-by-room search after failed parts needs; on a level of 1000
    /// rooms it is a sixth of the work of a layout that succeeds in parts) is left until
    /// then ([`Planner::ordered`]).
    fn prepare_whole(problem: LayoutProblem, set: Arc<ShapeSet>) -> Result<Planner, LayoutError> {
        Planner::prepare_whole_as(problem, set, true)
    }

    /// A planner for `problem` even where [`crate::layout::proof::hole_proof`] shows that it
    /// has no layout, so that tests can hold the search to the proof (no layout the search
    /// finds may be refused by it). A game has no use for it.
    #[doc(hidden)]
    pub fn new_without_proof(problem: LayoutProblem) -> Result<Planner, LayoutError> {
        Planner::compiled(problem, false)
    }

    /// [`Planner::prepare_whole`], with the hole proof (`prove`) or without.
    fn prepare_whole_as(
        problem: LayoutProblem,
        set: Arc<ShapeSet>,
        prove: bool,
    ) -> Result<Planner, LayoutError> {
        let mut planner = Planner::prepare_unordered(problem, set)?;
        // A loop that must enclose more than it can go round: no layout, whatever the search
        // (the proof is independent of it, see `proof`).
        if prove && let Some(p) = super::proof::prove(&planner.problem, &planner.adj)? {
            let problem = &planner.problem;
            return Err(LayoutError::HoleTooSmall {
                rooms: p
                    .rooms
                    .iter()
                    .take(8)
                    .map(|h| {
                        let name = problem.rooms[h.room].name.clone();
                        (name, h.cells, h.loop_length, h.capacity)
                    })
                    .collect(),
            });
        }
        planner.parts = planner.cut_into_parts(0);
        if planner.parts.is_none() {
            planner.order()?;
            planner.build_compounds();
        }
        Ok(planner)
    }

    /// This planner with its room order: itself, or, for a big level cut into parts, a copy
    /// with the order made (the same order [`Planner::prepare`] makes).
    pub(super) fn ordered(&self) -> Result<std::borrow::Cow<'_, Planner>, LayoutError> {
        if !self.steps.is_empty() {
            return Ok(std::borrow::Cow::Borrowed(self));
        }
        let mut full = self.clone();
        full.order()?;
        full.build_compounds();
        Ok(std::borrow::Cow::Owned(full))
    }

    /// A planner for `problem` with its room order (its corridor compounds are built by the
    /// caller).
    fn prepare(problem: LayoutProblem, set: Arc<ShapeSet>) -> Result<Planner, LayoutError> {
        let mut planner = Planner::prepare_unordered(problem, set)?;
        planner.order()?;
        Ok(planner)
    }

    /// [`Planner::prepare`] without the room order.
    fn prepare_unordered(
        problem: LayoutProblem,
        set: Arc<ShapeSet>,
    ) -> Result<Planner, LayoutError> {
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
        let mut room_shapes: Vec<Arc<[(u32, f64)]>> = Vec::with_capacity(n);
        for (k, r) in problem.rooms.iter().enumerate() {
            // Rooms usually share their templates with an earlier room (with the room
            // before, or the first room): their shapes are the same.
            if let Some(&same) = [k.wrapping_sub(1), 0]
                .iter()
                .find(|&&j| j < k && problem.rooms[j].templates == r.templates)
            {
                room_shapes.push(room_shapes[same].clone());
                continue;
            }
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
                for &s in ids {
                    match ws.iter_mut().find(|(x, _)| *x == s) {
                        Some(e) => e.1 += w,
                        None => ws.push((s, w)),
                    }
                }
            }
            room_shapes.push(ws.into());
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
        let guided = n >= BIG
            && problem
                .links
                .iter()
                .all(|l| matches!(l.realise, Realise::Contact))
            && problem.rooms.iter().all(|r| !r.corridor);
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
            composite_of: vec![u32::MAX; n],
            loops: Vec::new(),
            span: 0,
            big: n >= BIG,
            parts: None,
            merged_parts: std::sync::OnceLock::new(),
            weights: None,
            enclosed: std::sync::OnceLock::new(),
            rotation: None,
            pins: None,
            guided,
            drawing: std::sync::OnceLock::new(),
            give_way: n < BIG,
        };
        planner.span = planner
            .set
            .shapes
            .iter()
            .map(|s| s.mask.width.max(s.mask.height))
            .max()
            .unwrap_or(0);
        Ok(planner)
    }

    /// Room `r`'s name, or `#r` for an index that is no room (for errors about indices a
    /// caller gave).
    pub(crate) fn room_label(&self, r: usize) -> String {
        self.problem
            .rooms
            .get(r)
            .map_or(format!("#{r}"), |x| x.name.clone())
    }

    /// The problem this planner was made from.
    pub fn problem(&self) -> &LayoutProblem {
        &self.problem
    }

    pub(crate) fn shape(&self, i: u32) -> &Shape {
        &self.set.shapes[i as usize]
    }
}

/// Whether two shapes at two positions share a cell (see [`geom::overlap`]).
pub(crate) fn overlap(a: &Shape, pa: Point, b: &Shape, pb: Point) -> bool {
    super::geom::overlap(&a.mask, pa, &b.mask, pb)
}

/// How many cells two shapes at two positions share.
pub(crate) fn overlap_area(a: &Shape, pa: Point, b: &Shape, pb: Point) -> u64 {
    super::geom::overlap_area(&a.mask, pa, &b.mask, pb)
}

/// Smallest Manhattan distance between the outlines of two placed shapes.
pub(crate) fn outline_gap(a: &Shape, pa: Point, b: &Shape, pb: Point) -> u32 {
    super::geom::outline_gap(&a.mask, pa, &b.mask, pb)
}

/// Whether the outlines of two placed shapes are at least `d` apart.
#[inline]
pub(crate) fn gap_at_least(a: &Shape, pa: Point, b: &Shape, pb: Point, d: u32) -> bool {
    super::geom::gap_at_least(&a.mask, pa, &b.mask, pb, d)
}

#[cfg(test)]
mod tests {
    use super::ShapesLeft;

    /// Shapes come out in the order given, however many there are (on the stack or not).
    #[test]
    fn shapes_left_come_in_order() {
        for n in [0u32, 1, 3, 6, 7, 8, 20] {
            let shapes: Vec<u32> = (0..n).map(|k| 100 + 3 * k).collect();
            let mut left = ShapesLeft::new(&shapes);
            let got: Vec<u32> = std::iter::from_fn(|| left.take()).collect();
            assert_eq!(got, shapes, "{n} shapes");
            assert_eq!(left.take(), None);
        }
    }
}
