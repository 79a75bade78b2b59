//! The embedding layer: where rooms go.
//!
//! A [`LayoutProblem`] lists room templates, rooms (each with the templates it may use) and
//! links (each realised by direct contact, by an A* corridor, or by contact if possible and a
//! corridor otherwise). [`Planner::new`] checks the problem (a graph that is not planar has no
//! layout and is refused, see [`crate::graph::is_planar`]) and prepares it once: templates are
//! compiled under their transformations into shapes, and for every pair of shapes that a link
//! may join, the *configuration space* is computed: every offset at which the second shape
//! touches the first with two doors meeting exactly. [`Planner::layout`] then places the rooms
//! for a seed:
//!
//! * the rooms are ordered loops first (the shortest loop, then ears: runs of unplaced rooms
//!   between two placed ones), then trees, so that each one after the first has a placed
//!   neighbour (the planner finds the loops itself; it does not use `graph::decompose`, whose
//!   composites are for designers reading the graph); a loop grows
//!   from both ends alternately, so its last room closes it. After the first loop, each run of
//!   rooms between two placed ones goes round the outside of what is placed and shuts in one
//!   side of it: the order follows the outline of what is placed and takes the run that shuts
//!   in least of what later rooms must still reach; rooms hanging off the rooms it shuts in
//!   are placed before it, and its last room must leave the other side outside (a flood fill
//!   from the rooms on that side that still wait for neighbours);
//! * a room's candidate positions are the intersection of the configuration spaces of its
//!   placed neighbours (exit gluing); collisions are checked with an `rstar` index for the
//!   broad phase and cell masks for the exact test, plus the minimum distance between rooms
//!   that are not linked;
//! * loop rooms prefer positions that bring the two open ends together, and positions that
//!   cannot be joined to the other end any more are cut off;
//! * the search is depth first with backtracking: a room whose subtrees failed more than three
//!   times gives up to its parent; each attempt has a step budget and the whole layout a number
//!   of attempts (or a time limit), after which the error names the room and constraint that
//!   failed most;
//! * big levels (50 rooms or more) that come apart at bridges (links on no loop that may be
//!   realised by contact) are first laid out in parts, as the spec's final assembly does:
//!   blocks of loops, with the small blocks around them merged up to 5 rooms, are each laid
//!   out alone by the search above (with a stand-in for each room of another part they link
//!   to, so that the linked room keeps a free side, searched again if one is shut in; up to 12
//!   layouts per part, shared by the attempts), then fitted together whole, the part whose
//!   joint room has the fewest free positions first, each touching its joint, moved and turned
//!   (every rotation and mirror that its rooms' templates allow) and placed away from the
//!   level's middle; a move that leaves a waiting part near it no position is refused, and a
//!   part that cannot be fitted sends the search back to the last part placed near its joint
//!   (after 8 failures in an attempt, to the part it hangs off, then further up). If the parts do
//!   not fit within the budget, the level is laid out room by room, then cut again with every
//!   piece of up to 3 rooms kept in the part it hangs off (placed by that part's own search,
//!   before a loop of the part closes round its joint) and fitted again, each with a budget of
//!   its own (so a failure costs all three); where a part found no layout of its own, not even
//!   without its stand-ins, the second cut is skipped, the room-by-room search gets up to 20
//!   attempts (the part's search is not the level's), and the error names the part;
//! * the room-by-room search closes every loop tight, so it never leaves a hole inside a loop,
//!   and some graphs need one (a room that lies inside a loop in every drawing, such as the
//!   middle of three paths between two rooms). When it fails on a problem of up to 60 rooms
//!   without corridor rooms (or on a part of a big level), the rooms are annealed instead, as
//!   Edgar does: chain by chain (a loop, an ear, a few tree rooms), every room moves freely to
//!   where it touches all (or most) of its neighbours, a corridor's length away from one, or a
//!   cell or two aside, and a move is kept if it lowers the overlap of rooms plus their
//!   distance from touching (or from a corridor's bounds), or by chance as the temperature
//!   falls. At zero the corridors are routed and every room checked against them; only a
//!   layout that passes is returned;
//! * if that fails too, on a level of fewer than 50 rooms (or a part of a big level) the
//!   search runs again under up to 24 other room orders, each with at most 10 attempts: the
//!   ear order from another first loop (the second shortest, the third, ...) and, in turn, a
//!   random greedy order (from a random room, the next one linked to the most rooms already
//!   placed). An order fixes which way the drawing grows, and a block of a few loops round big
//!   rooms may have no drawing that grows the ear order's way, so that every attempt fails at
//!   the same room, where another order lays it out at once. A part of a big level that still
//!   has no layout is then laid out without its stand-ins (the fitting finds out whether its
//!   joint rooms kept a free side);
//! * a graph that needs a hole round rooms with more rooms hanging off them (no drawing has
//!   every such room on the outside of its loops, see [`crate::graph::enclosures`]) lays out
//!   where the loop round them can close by a corridor (the rooms to enclose are placed
//!   first), rarely where its rings must touch; when it fails, the error says so and names the
//!   room a loop must enclose. Where the hole would have to hold more cells than any loop
//!   round it can enclose, [`Planner::new`] refuses the problem before any search
//!   ([`LayoutError::HoleTooSmall`], proven by [`proof::hole_proof`]).
//!
//! When no layout is found, [`Planner::deepest`] shows where the search got stuck: the rooms
//! placed at its deepest point, the room that did not fit and the placed rooms it links to, as a
//! [`PartialLayout`] with a text picture.
//!
//! The result, a [`Layout`], gives each room its template, transformation, position and
//! outline, and each link its doors (and corridor cells). [`raster::rasterise`] turns it into a
//! [`TileMap`](crate::tiles::TileMap).
//!
//! ```
//! use levelplan::layout::{LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate};
//!
//! let mut problem = LayoutProblem::new(vec![
//!     RoomTemplate::rectangle("small", 6, 6, 1),
//!     RoomTemplate::rectangle("long", 6, 10, 1),
//! ]);
//! for i in 0..4 {
//!     problem.rooms.push(RoomSpec::new(&format!("r{i}"), vec![0, 1]));
//! }
//! for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
//!     problem.links.push(LinkSpec::new(a, b, Realise::Contact));
//! }
//! let planner = Planner::new(problem).unwrap();
//! let layout = planner.layout(7).unwrap();
//! assert_eq!(layout.rooms.len(), 4);
//! assert!(planner.check(&layout).is_ok());
//! ```

pub mod corridor;
pub mod edgar;
pub mod geom;
pub mod library;
mod plan;
pub mod proof;
pub mod raster;
pub mod template;
pub mod tiled;
pub mod verify;

use serde::{Deserialize, Serialize};

pub use geom::{Dir, Point, Rect, Transform};
pub use plan::{MAX_SHAPES, Planner, ShapeSet};
pub use template::{
    DoorKind, DoorLine, DoorMode, DoorSpec, RepeatMode, RoomTemplate, TemplateError, TemplateShape,
};

/// How a link is realised in space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Realise {
    /// The two rooms touch and two of their doors coincide.
    Contact,
    /// An A* corridor of `min..=max` cells joins a door of each room.
    Path {
        /// Shortest corridor, in cells.
        min: u32,
        /// Longest corridor, in cells.
        max: u32,
    },
    /// Contact where the search finds it, else a corridor. The freedom this gives is worth
    /// most on big levels: a part fitted at such a bridge may stand off and take a corridor
    /// where contact is crowded out (with every link allowed a corridor, 10 of 10 chains of
    /// 70 loops lay out, 3 of 10 with contact at the bridges).
    ContactOrPath {
        /// Shortest corridor, in cells.
        min: u32,
        /// Longest corridor, in cells.
        max: u32,
    },
}

impl Realise {
    /// The default corridor bounds of the spec: 4 to 30 cells.
    pub const CORRIDOR: Realise = Realise::Path { min: 4, max: 30 };

    fn path_bounds(self) -> Option<(u32, u32)> {
        match self {
            Realise::Contact => None,
            Realise::Path { min, max } | Realise::ContactOrPath { min, max } => Some((min, max)),
        }
    }

    fn contact_allowed(self) -> bool {
        !matches!(self, Realise::Path { .. })
    }
}

/// A room to place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomSpec {
    /// A label (used in errors and outputs).
    pub name: String,
    /// Indices of the templates it may use; a template listed twice is twice as likely.
    pub templates: Vec<usize>,
    /// Whether this room only exists to join two others (a corridor room).
    #[serde(default)]
    pub corridor: bool,
}

impl RoomSpec {
    /// A room that may use the given templates.
    pub fn new(name: &str, templates: Vec<usize>) -> RoomSpec {
        RoomSpec {
            name: name.to_string(),
            templates,
            corridor: false,
        }
    }
}

/// A link between two rooms. Directed doors (entrance-only, exit-only) are matched against
/// `from -> to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSpec {
    /// One room (the way out of it, for directed doors).
    pub from: usize,
    /// The other room.
    pub to: usize,
    /// How the link is realised.
    pub realise: Realise,
}

impl LinkSpec {
    /// A link.
    pub fn new(from: usize, to: usize, realise: Realise) -> LinkSpec {
        LinkSpec { from, to, realise }
    }
}

/// When to stop retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetryPolicy {
    /// A number of attempts (deterministic). On big levels (50 rooms or more) an attempt that runs
    /// out of steps hands the next one the rooms it placed well before where it got stuck; the next
    /// starts over from there, cutting back twice as far each time it gets no deeper, and from
    /// scratch once the cut reaches the first room. Smaller levels start every attempt from
    /// scratch. A big level laid out in parts (see the module docs) makes up to this many attempts
    /// at fitting its parts (an attempt whose parts' searches made more than ten times
    /// [`Budget::steps_per_room`] tries per room of the level counts as one per ten, so a failing
    /// assembly is bounded like a room-by-room search, ten times over), then up to as many room by
    /// room, then as many again at fitting the parts of its second cut (where that differs); where
    /// a part found no layout of its own, at most 20 room by room and no second cut, and the error
    /// names the part if these fail too. A problem the room-by-room search fails on is then
    /// annealed (up to 60 rooms, see the module docs), up to this many runs but at most 20, and a
    /// level under 50 rooms (or a part of a big one) is then searched under up to 24 other room
    /// orders, each with this many attempts but at most 10; the error counts every attempt and run.
    Attempts(u32),
    /// Attempts until this many milliseconds have passed (not reproducible across machines: the
    /// number of attempts depends on speed). A big level laid out in parts gives the fitting of its
    /// parts the first 70% of the time and the room-by-room search the rest (its second cut is not
    /// tried: it would follow the room-by-room search); each stage makes at least one attempt,
    /// except that the room-by-room search there ends where the time does, even within its first
    /// attempt (so that a failed layout ends on time: the clock is read every few hundred tries). A
    /// part whose own searches find no layout leaves the rest of the time to the room-by-room
    /// search (its search is not the level's), and the error names the part if that fails too. A
    /// level laid out room by room shares its time among the stages that may follow a failed
    /// search: on a level that can be annealed and is under 50 rooms, the search gets the first
    /// third, annealing half of what the search leaves and the other room orders the rest, each
    /// order an even share of what is left when it starts (two stages: halves; each stage makes at
    /// least one attempt or run). Every search's attempts after its first end where its share of
    /// the time does.
    Millis(u64),
}

impl RetryPolicy {
    /// The attempts this policy allows, numbered from 1: the count, or as many as start before
    /// the time is up (at least one). The clock starts with the iterator. Recipes spend their
    /// retry budgets through it, so a count and a time read the same everywhere.
    ///
    /// # Examples
    /// ```
    /// use levelplan::layout::RetryPolicy;
    /// assert_eq!(RetryPolicy::Attempts(3).attempts().collect::<Vec<_>>(), vec![1, 2, 3]);
    /// assert_eq!(RetryPolicy::Attempts(0).attempts().count(), 1);
    /// assert_eq!(RetryPolicy::Millis(0).attempts().count(), 1);
    /// ```
    pub fn attempts(self) -> AttemptCounter {
        AttemptCounter {
            policy: self,
            start: std::time::Instant::now(),
            made: 0,
        }
    }
}

/// The attempts a [`RetryPolicy`] allows; see [`RetryPolicy::attempts`].
#[derive(Debug, Clone)]
pub struct AttemptCounter {
    policy: RetryPolicy,
    start: std::time::Instant,
    made: u32,
}

impl Iterator for AttemptCounter {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let more = match self.policy {
            RetryPolicy::Attempts(n) => self.made < n.max(1),
            RetryPolicy::Millis(ms) => {
                self.made == 0 || self.start.elapsed().as_millis() < u128::from(ms)
            }
        };
        if more {
            self.made += 1;
            Some(self.made)
        } else {
            None
        }
    }
}

/// Search budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Retries (see [`RetryPolicy::Attempts`] for how an attempt starts).
    pub retry: RetryPolicy,
    /// Candidate positions tried per attempt, per room. An attempt at fitting a big level's
    /// parts together may let its parts' own searches try 100 times as many, per room of the
    /// level, before it ends.
    pub steps_per_room: u32,
    /// How many times a room's subtree may fail before it gives up to its parent.
    pub failures_per_room: u32,
    /// A wall-clock cap on the whole layout, in milliseconds (`None`: none). Unlike
    /// [`RetryPolicy::Millis`] it never changes which layout a seed gives: a layout found within
    /// the cap is the one found without it, and reaching the cap is an error
    /// ([`LayoutError::OutOfTime`]).
    #[serde(default)]
    pub time_limit_ms: Option<u64>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            retry: RetryPolicy::Attempts(1000),
            steps_per_room: 100,
            failures_per_room: 1,
            time_limit_ms: None,
        }
    }
}

/// Everything the planner needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutProblem {
    /// The templates rooms refer to by index.
    pub templates: Vec<RoomTemplate>,
    /// The rooms.
    pub rooms: Vec<RoomSpec>,
    /// The links.
    pub links: Vec<LinkSpec>,
    /// Manhattan distance kept between the outlines of rooms that are not linked (0: they may
    /// touch).
    pub min_distance: u32,
    /// Repeat mode of templates that set none.
    pub repeat_default: RepeatMode,
    /// If set, replaces every template's repeat mode.
    pub repeat_override: Option<RepeatMode>,
    /// Search budgets.
    pub budget: Budget,
    /// Soft penalty for templates already used in the level: a template used `n` times (plus
    /// its [`earlier_uses`](LayoutProblem::earlier_uses)) has its weight multiplied by
    /// `max(1 - recent_penalty * n, 0.05)` (0: no penalty; the Gungeon recipe uses the game's
    /// 0.33).
    #[serde(default)]
    pub recent_penalty: f64,
    /// Uses of each template (by index) in earlier levels of a run, added to the uses in this
    /// level when `recent_penalty` weighs templates down (see [`TemplateHistory`]); empty: none.
    #[serde(default)]
    pub earlier_uses: Vec<f64>,
}

/// Template uses carried from level to level of a run, so that a run does not keep showing the
/// same rooms: after each level, earlier uses fade by `decay` and the level's uses are added.
/// Give [`TemplateHistory::uses`] to the next level's [`LayoutProblem::earlier_uses`].
///
/// # Examples
/// ```
/// use levelplan::layout::TemplateHistory;
/// let mut history = TemplateHistory::new(0.5);
/// history.record_templates([0, 0, 2]);
/// history.record_templates([2]);
/// assert_eq!(history.uses(), &[1.0, 0.0, 1.5]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateHistory {
    uses: Vec<f64>,
    decay: f64,
}

impl TemplateHistory {
    /// An empty history whose uses fade by `decay` (0 to 1, clamped) per level: 0 remembers
    /// only the last level, 1 the whole run.
    pub fn new(decay: f64) -> TemplateHistory {
        TemplateHistory {
            uses: Vec::new(),
            decay: if decay.is_nan() {
                0.0
            } else {
                decay.clamp(0.0, 1.0)
            },
        }
    }

    /// Records a finished level's layout (corridor rooms are not counted).
    pub fn record(&mut self, layout: &Layout) {
        self.record_templates(
            layout
                .rooms
                .iter()
                .filter(|r| !r.corridor)
                .map(|r| r.template),
        );
    }

    /// Records a level that used these templates (one entry per room).
    pub fn record_templates(&mut self, templates: impl IntoIterator<Item = usize>) {
        for u in &mut self.uses {
            *u *= self.decay;
        }
        for t in templates {
            if self.uses.len() <= t {
                self.uses.resize(t + 1, 0.0);
            }
            self.uses[t] += 1.0;
        }
    }

    /// Uses per template index, faded.
    pub fn uses(&self) -> &[f64] {
        &self.uses
    }
}

impl LayoutProblem {
    /// A problem with these templates and no rooms yet.
    pub fn new(templates: Vec<RoomTemplate>) -> LayoutProblem {
        LayoutProblem {
            templates,
            rooms: Vec::new(),
            links: Vec::new(),
            min_distance: 0,
            repeat_default: RepeatMode::AllowRepeat,
            repeat_override: None,
            budget: Budget::default(),
            recent_penalty: 0.0,
            earlier_uses: Vec::new(),
        }
    }

    /// The problem a graph read off a placement of rooms poses
    /// ([`crate::graph::random::placed_rooms_graph`]): Edgar's five basic shapes
    /// ([`template::basic_templates`]) for every room, rooms named by their ids, every link
    /// a contact, the default budget. The placement is a layout of it.
    ///
    /// # Examples
    /// ```
    /// use levelplan::graph::random::placed_rooms_graph;
    /// use levelplan::layout::{LayoutProblem, Planner};
    /// let placed = placed_rooms_graph(20, 2, &mut levelplan::seed::stream(1, "doc"));
    /// let problem = LayoutProblem::of_placed_rooms(&placed);
    /// assert_eq!(problem.rooms.len(), 20);
    /// assert!(Planner::new(problem).unwrap().layout(1).is_ok());
    /// ```
    pub fn of_placed_rooms(placed: &crate::graph::random::PlacedRooms) -> LayoutProblem {
        let mut p = LayoutProblem::new(template::basic_templates());
        for id in placed.graph.room_ids() {
            p.rooms
                .push(RoomSpec::new(&id.to_string(), vec![0, 1, 2, 3, 4]));
        }
        for (_, a, b, _) in placed.graph.links() {
            p.links
                .push(LinkSpec::new(a.0 as usize, b.0 as usize, Realise::Contact));
        }
        p
    }
}

/// A door: a segment of grid points on a room's outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Segment {
    /// Lower end.
    pub a: Point,
    /// Upper end.
    pub b: Point,
}

/// A placed room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedRoom {
    /// The room's name.
    pub name: String,
    /// Index of its template.
    pub template: usize,
    /// The template's name.
    pub template_name: String,
    /// Its transformation.
    pub transform: Transform,
    /// Where the template's origin went: the transformed template, moved by this, gives the
    /// outline.
    pub position: Point,
    /// Lower-left corner of its box.
    pub min: Point,
    /// The outline, in level coordinates.
    pub outline: Vec<Point>,
    /// Whether it is a corridor room.
    pub corridor: bool,
}

/// How a link was realised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacedLink {
    /// The door on the `from` room.
    pub door_from: Segment,
    /// The door on the `to` room (the same segment for contact).
    pub door_to: Segment,
    /// Corridor cells from the `from` door to the `to` door (empty for contact).
    pub corridor: Vec<Point>,
}

/// A finished layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The seed it was made from.
    pub seed: u64,
    /// Attempts it took.
    pub attempts: u32,
    /// One per problem room, same order.
    pub rooms: Vec<PlacedRoom>,
    /// One per problem link, same order.
    pub links: Vec<PlacedLink>,
}

impl Layout {
    /// The box around every room and corridor.
    pub fn bounds(&self) -> Rect {
        let mut min = Point::new(i32::MAX, i32::MAX);
        let mut max = Point::new(i32::MIN, i32::MIN);
        for r in &self.rooms {
            for p in &r.outline {
                min = Point::new(min.x.min(p.x), min.y.min(p.y));
                max = Point::new(max.x.max(p.x), max.y.max(p.y));
            }
        }
        for l in &self.links {
            for c in &l.corridor {
                min = Point::new(min.x.min(c.x), min.y.min(c.y));
                max = Point::new(max.x.max(c.x + 1), max.y.max(c.y + 1));
            }
        }
        if min.x > max.x {
            return Rect {
                min: Point::default(),
                max: Point::default(),
            };
        }
        Rect { min, max }
    }

    /// The layout as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a layout serialises")
    }
}

/// How far a failed search got: the rooms it had placed when it was deepest, and the room it
/// could not place next (see [`Planner::deepest`]). A picture of it ([`PartialLayout::to_ascii`])
/// shows where a level gets stuck: which rooms crowd the one that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialLayout {
    /// One per problem room, same order; `None` for rooms not placed.
    pub rooms: Vec<Option<PlacedRoom>>,
    /// The cells of each corridor routed so far, with the index of its link.
    pub corridors: Vec<(usize, Vec<Point>)>,
    /// The room the search could not place next.
    pub stuck: String,
    /// The placed rooms the stuck room links to.
    pub stuck_next_to: Vec<String>,
}

impl PartialLayout {
    /// How many rooms are placed.
    pub fn placed(&self) -> usize {
        self.rooms.iter().flatten().count()
    }

    /// A text picture, north up: each placed room's walls drawn with a letter of its own
    /// (`A`-`Z`, `a`-`z`, then digits, in room order, repeating), its floor `.`, corridors
    /// `#`, and the floor of the rooms the stuck room links to `@`; then a legend of the
    /// letters.
    pub fn to_ascii(&self) -> String {
        const SYMBOLS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut cells: std::collections::BTreeMap<(i32, i32), char> = Default::default();
        let mut legend = String::new();
        for (i, room) in self.rooms.iter().enumerate() {
            let Some(room) = room else { continue };
            let sym = char::from(SYMBOLS[i % SYMBOLS.len()]);
            let near = self.stuck_next_to.contains(&room.name);
            legend.push_str(&format!(
                "{sym} {}{}\n",
                room.name,
                if near {
                    " (links to the stuck room)"
                } else {
                    ""
                }
            ));
            let lo = geom::min_corner(&room.outline);
            let local: Vec<Point> = room.outline.iter().map(|&p| p - lo).collect();
            let Ok(mask) = geom::Mask::from_outline(&local) else {
                continue;
            };
            let inside = |x: i32, y: i32| mask.inside(x - lo.x, y - lo.y);
            for y in lo.y..lo.y + mask.height {
                for x in lo.x..lo.x + mask.width {
                    if !inside(x, y) {
                        continue;
                    }
                    let wall = !inside(x - 1, y)
                        || !inside(x + 1, y)
                        || !inside(x, y - 1)
                        || !inside(x, y + 1);
                    let c = match (wall, near) {
                        (true, _) => sym,
                        (false, true) => '@',
                        (false, false) => '.',
                    };
                    cells.insert((x, y), c);
                }
            }
        }
        for (_, path) in &self.corridors {
            for c in path {
                cells.insert((c.x, c.y), '#');
            }
        }
        let mut out = String::new();
        if let (Some(x0), Some(x1)) = (
            cells.keys().map(|k| k.0).min(),
            cells.keys().map(|k| k.0).max(),
        ) {
            let y0 = cells.keys().map(|k| k.1).min().unwrap_or(0);
            let y1 = cells.keys().map(|k| k.1).max().unwrap_or(0);
            for y in (y0..=y1).rev() {
                let row: String = (x0..=x1)
                    .map(|x| cells.get(&(x, y)).copied().unwrap_or(' '))
                    .collect();
                out.push_str(row.trim_end());
                out.push('\n');
            }
        }
        out.push_str(&self.caption());
        out.push('\n');
        out.push_str(&legend);
        out
    }

    /// One line saying how far the search got: how many rooms are placed, and which room does
    /// not fit next to which (only the count where no room is named as stuck, as in a picture
    /// of a whole layout).
    pub fn caption(&self) -> String {
        if self.stuck.is_empty() {
            return format!("{} of {} rooms placed", self.placed(), self.rooms.len());
        }
        let next_to = if self.stuck_next_to.is_empty() {
            "the rooms placed".to_string()
        } else {
            self.stuck_next_to
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        };
        format!(
            "{} of {} rooms placed; `{}` does not fit next to {next_to}",
            self.placed(),
            self.rooms.len(),
            self.stuck
        )
    }
}

/// Why a layout could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A template is broken.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The problem has no rooms.
    #[error("layout problem: there are no rooms to place")]
    NoRooms,
    /// A room may use no template at all (the same every time: a setup error).
    #[error("layout problem: room `{room}` lists no templates")]
    NoTemplates {
        /// The room.
        room: String,
    },
    /// A room lists a template the problem does not have.
    #[error(
        "layout problem: room `{room}` lists template {template}, but there are {count} templates"
    )]
    UnknownTemplate {
        /// The room.
        room: String,
        /// The template index it lists.
        template: usize,
        /// How many templates there are.
        count: usize,
    },
    /// Two templates share a name.
    #[error("layout problem: two room templates are called `{name}`")]
    DuplicateTemplate {
        /// The name.
        name: String,
    },
    /// The cyclic orders given to the experimental `Planner::with_rotation` do not fit the
    /// problem: a room without a row, or a row listing a room that is not a neighbour.
    #[error("layout problem: the rotation given round room `{room}` {reason}")]
    BadRotation {
        /// The room whose row is wrong (or missing).
        room: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A link joins rooms that do not exist.
    #[error(
        "layout problem: link {link} joins rooms {from} and {to}; rooms are 0..{rooms} and a link needs two"
    )]
    BadLink {
        /// The link's index.
        link: usize,
        /// One end.
        from: usize,
        /// The other end.
        to: usize,
        /// How many rooms there are.
        rooms: usize,
    },
    /// A corridor length range that is empty or too long.
    #[error(
        "layout problem: link {link} (`{from}`-`{to}`): corridor length {lo}..{hi} is not a range within 0..1000"
    )]
    BadCorridor {
        /// The link's index.
        link: usize,
        /// One end's name.
        from: String,
        /// The other end's name.
        to: String,
        /// The shortest length asked for.
        lo: u32,
        /// The longest.
        hi: u32,
    },
    /// The rooms and links cannot be drawn without crossings: no layout exists.
    #[error(
        "layout problem: the rooms and links cannot be drawn without two links crossing (the graph is not planar), so no layout exists; link {link} (`{from}`-`{to}`) is the first that makes it so"
    )]
    NotPlanar {
        /// The first link that makes it so.
        link: usize,
        /// One end's name.
        from: String,
        /// The other end's name.
        to: String,
    },
    /// A loop would have to enclose more than it can: no layout exists (see
    /// [`proof::hole_proof`]).
    #[error(
        "layout problem: no layout exists: no drawing has all of {} on the outside of their \
         loops, and what hangs off each covers more cells than a loop round it can enclose (a \
         loop L cells round encloses at most L^2 / 4 pi); hang some of those rooms off a room \
         outside the loops, join them to a second room of the loop, or let the loop's links be \
         longer corridors",
        held_out(.rooms)
    )]
    HoleTooSmall {
        /// The rooms (at most eight) that cannot all be on the outside, each with the cells
        /// hanging off it, the longest loop round it and the most cells that loop encloses.
        rooms: Vec<(String, u64, f64, f64)>,
    },
    /// Some rooms are not linked to the rest.
    #[error("layout problem: the rooms are not all linked together: {} cannot be reached from `{from}`", .missing.join(", "))]
    NotConnected {
        /// Some of the rooms cut off (at most five).
        missing: Vec<String>,
        /// The room they cannot be reached from.
        from: String,
    },
    /// A shape set given to the planner was made from other templates.
    #[error(
        "layout problem: the shape set was not made by ShapeSet::new from this problem's templates"
    )]
    ShapeSetMismatch,
    /// The search reached a room with no placed neighbour (an internal inconsistency).
    #[error("layout problem: room `{room}` has no neighbour placed before it")]
    NoPlacedNeighbour {
        /// The room.
        room: String,
    },
    /// Every attempt failed.
    #[error(
        "no layout after {attempts} attempt{}: {constraint} (room `{room}`{composite}{})",
        if *attempts == 1 { "" } else { "s" },
        failed_most_often(*failures)
    )]
    NoLayout {
        /// Attempts made.
        attempts: u32,
        /// The room where the search failed most (for a big level whose part found no layout
        /// of its own, the part's first room).
        room: String,
        /// The composite (or part) it belongs to, as text (`""` if none).
        composite: String,
        /// How often it failed (it may be 0 where a part found no layout of its own; the
        /// message then leaves the count out).
        failures: u32,
        /// The constraint that could not be met there.
        constraint: String,
    },
    /// The templates compile into more shapes than a set may hold ([`MAX_SHAPES`]).
    #[error(
        "the {templates} templates compile into {shapes} shapes (each template under each \
         transformation it allows); at most {limit} are supported: use fewer templates, or \
         allow fewer transformations"
    )]
    TooManyShapes {
        /// Shapes compiled.
        shapes: usize,
        /// Templates given.
        templates: usize,
        /// The limit.
        limit: usize,
    },
    /// The time limit ([`Budget::time_limit_ms`]) ran out before a layout was found.
    #[error(
        "the layout's time limit of {limit_ms} ms (Budget::time_limit_ms) ran out after \
         {attempts} attempt{}; the last failed because {constraint}",
        if *attempts == 1 { "" } else { "s" }
    )]
    OutOfTime {
        /// The limit.
        limit_ms: u64,
        /// Attempts made by then.
        attempts: u32,
        /// Why the attempts so far failed (the constraint most often broken).
        constraint: String,
    },
}

/// The rooms of [`LayoutError::HoleTooSmall`]'s message, each with its figures.
fn held_out(rooms: &[(String, u64, f64, f64)]) -> String {
    rooms
        .iter()
        .map(|(name, cells, length, capacity)| {
            format!(
                "`{name}` ({cells} cells hang off it; a loop round it runs at most {length:.0} \
                 cells round, enclosing at most {capacity:.0})"
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tail of [`LayoutError::NoLayout`]'s message: how often its room failed, if it did (a
/// part with no layout of its own names its first room, which may never have failed to fit).
fn failed_most_often(failures: u32) -> String {
    match failures {
        0 => String::new(),
        1 => " failed most often, 1 time".to_string(),
        n => format!(" failed most often, {n} times"),
    }
}
