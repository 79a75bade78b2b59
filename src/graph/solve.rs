//! A solver that proves a level completable, or says why it is not.
//!
//! The search runs over abstract states `(area, openers held, small locks opened)`, where the
//! area is the set of rooms the player can walk around in and come back from (the strongly
//! connected part of the open level around their position). Within an area the player picks up
//! every opener (keys, switches, tasks, small keys), and doors locked by a unique opener open as
//! soon as it is held: neither choice can ever hurt. The choices that can hurt are the
//! irreversible ones, and the search branches on exactly those:
//!
//! - spending a small key on a small lock (keys are used up, so spending one on the wrong door
//!   can leave none for the door that matters), and
//! - walking through a one-way link out of the area.
//!
//! Every reachable state is explored (up to a budget). The level is *solvable* when the goal
//! can be reached from the start, and *safe* when it can still be reached from every reachable
//! state: no order of spending keys or of taking one-way doors leaves the player stuck.
//!
//! The player model is a thorough one: before leaving an area through a one-way door, the player
//! has picked up what the area holds. A player who skips a reachable opener and then takes a
//! one-way door may be stuck where a thorough one is not; such traps are not reported here.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

use super::level::{Item, KeyId, LevelGraph, Link, LinkId, Lock, Opener, RoomId, RoomKind};

/// One thing the player does on the way to the goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Pick up an opener (a key, switch or small key, or complete a task) in a room.
    Collect {
        /// Where.
        room: RoomId,
        /// What.
        item: Item,
    },
    /// Open a locked link (for a small lock, this uses up a small key).
    Open {
        /// The link.
        link: LinkId,
        /// Its lock.
        lock: Lock,
    },
    /// Walk through a one-way link, leaving the area behind for good.
    OneWay {
        /// The link.
        link: LinkId,
        /// The room on its far side.
        to: RoomId,
    },
    /// Arrive at the goal.
    Reach {
        /// The goal room.
        room: RoomId,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Collect { room, item } => write!(f, "collect {} in {room}", item_name(item)),
            Step::Open { link, lock } => write!(f, "open {link} with {}", opener_name(lock)),
            Step::OneWay { link, to } => write!(f, "take one-way {link} to {to}"),
            Step::Reach { room } => write!(f, "reach the goal {room}"),
        }
    }
}

fn item_name(item: &Item) -> String {
    match item {
        Item::Key(k) => format!("key {k}"),
        Item::Switch(k) => format!("switch {k}"),
        Item::Task(k) => format!("task {k}"),
        Item::SmallKey(k) => format!("small key of ring {k}"),
        Item::Named(n) => n.clone(),
    }
}

fn opener_name(lock: &Lock) -> String {
    match lock.opener {
        Opener::Key => format!("key {}", lock.by),
        Opener::Switch => format!("switch {}", lock.by),
        Opener::Task => format!("task {}", lock.by),
        Opener::SmallKey => format!("a small key of ring {}", lock.by),
    }
}

/// How a level is completed: the openers to collect and locks to open, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walkthrough {
    /// Where the player starts.
    pub start: RoomId,
    /// The goal.
    pub goal: RoomId,
    /// What to do, in order: only the openers and locks the goal needs, with the one-way links
    /// taken, ending with [`Step::Reach`].
    pub steps: Vec<Step>,
    /// Rooms entered when the steps are walked along shortest paths.
    pub rooms_walked: usize,
    /// Of those, entries into a room already visited: the backtracking the level asks for.
    pub rooms_revisited: usize,
    /// Abstract states the search explored.
    pub states_explored: usize,
}

/// Why a lock could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Missing {
    /// No room holds the opener.
    Nowhere,
    /// The opener lies in a room the player never reaches without opening the lock first.
    OutOfReach {
        /// Where it lies.
        room: RoomId,
    },
    /// Small keys of the ring run out.
    SmallKeys {
        /// Small keys of the ring the player can pick up.
        available: usize,
    },
}

/// A locked link that stands between the player and the goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocker {
    /// The link.
    pub link: LinkId,
    /// Its lock.
    pub lock: Lock,
    /// Why it stays shut.
    pub missing: Missing,
}

/// Why a level cannot be completed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsolvable {
    /// No start room: the graph has no entrance and none was given.
    #[error("the level has no start: add an Entrance room or name the start")]
    NoStart,
    /// No goal room: the graph has no exit or boss and none was given.
    #[error("the level has no goal: add an Exit (or Boss) room or name the goal")]
    NoGoal,
    /// The start or goal given is not in the graph.
    #[error("room {0} is not in the graph")]
    UnknownRoom(RoomId),
    /// No play reaches the goal.
    #[error("the goal {goal} cannot be reached from {start}: {}", describe_blockers(.blockers))]
    Unreachable {
        /// Where the player starts.
        start: RoomId,
        /// The goal.
        goal: RoomId,
        /// The locked links at the edge of everything the player can reach.
        blockers: Vec<Blocker>,
    },
    /// Some order of play leaves the player stuck.
    #[error("the player can get stuck: after {}, the goal {goal} can no longer be reached (stuck around {stuck_at})", describe_steps(.steps))]
    SoftLock {
        /// The goal.
        goal: RoomId,
        /// The steps that lead into the trap.
        steps: Vec<Step>,
        /// A room of the area the player is stuck in.
        stuck_at: RoomId,
    },
    /// The search ran out of its state budget.
    #[error("the search gave up after {limit} states; raise SolveOptions::max_states")]
    TooManyStates {
        /// The budget.
        limit: usize,
    },
}

fn describe_blockers(blockers: &[Blocker]) -> String {
    if blockers.is_empty() {
        return "no locked door is in the way, so one-way links must lead away from it".into();
    }
    blockers
        .iter()
        .map(|b| {
            let why = match &b.missing {
                Missing::Nowhere => "no room holds it".to_string(),
                Missing::OutOfReach { room } => {
                    format!("it lies in {room}, which cannot be reached before the lock")
                }
                Missing::SmallKeys { available } => {
                    format!("only {available} small keys of the ring can be found, all spent")
                }
            };
            format!("lock {} needs {} and {why}", b.link, opener_name(&b.lock))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn describe_steps(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "nothing".into();
    }
    steps
        .iter()
        .map(Step::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Settings of a solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolveOptions {
    /// Where the player starts; default: the entrance.
    pub start: Option<RoomId>,
    /// The goal; default: the first exit, else the first boss room.
    pub goal: Option<RoomId>,
    /// Most abstract states to explore before giving up (default 100 000).
    pub max_states: usize,
    /// Whether a level where some order of play gets stuck still counts as solved
    /// (default `false`: soft-locks are errors).
    pub allow_soft_locks: bool,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            start: None,
            goal: None,
            max_states: 100_000,
            allow_soft_locks: false,
        }
    }
}

/// Proves the level completable from its entrance to its exit (or boss), or says why not;
/// [`solve_with`] with the default [`SolveOptions`].
///
/// # Examples
/// ```
/// use levelplan::{Item, LevelGraph, Link, Lock, Opener, Room, RoomKind};
/// use levelplan::graph::solve::{solve, Step};
///
/// let mut g = LevelGraph::new();
/// let start = g.add_room(Room::new(RoomKind::Entrance));
/// let side = g.add_room(Room::new(RoomKind::Normal));
/// let exit = g.add_room(Room::new(RoomKind::Exit));
/// let k = g.new_key();
/// g.room_mut(side).unwrap().items.push(Item::Key(k));
/// g.add_link(start, side, Link::door());
/// let door = g.add_link(start, exit, Link::door().with_lock(Lock { by: k, opener: Opener::Key }));
///
/// let w = solve(&g)?;
/// assert_eq!(w.steps, vec![
///     Step::Collect { room: side, item: Item::Key(k) },
///     Step::Open { link: door, lock: Lock { by: k, opener: Opener::Key } },
///     Step::Reach { room: exit },
/// ]);
/// assert_eq!(w.rooms_revisited, 1); // back through the start room
/// # Ok::<(), levelplan::graph::solve::Unsolvable>(())
/// ```
pub fn solve(graph: &LevelGraph) -> Result<Walkthrough, Unsolvable> {
    solve_with(graph, &SolveOptions::default())
}

/// Proves the level completable, or says why not.
///
/// # Arguments
/// * `graph`: the level; locks on links, openers as room items.
/// * `options`: start, goal, state budget, and whether soft-locks are tolerated.
///
/// # Returns
/// A [`Walkthrough`] (the openers and locks the goal needs, in order, and how much
/// backtracking walking it takes), or [`Unsolvable`]: which locks stay shut and why, or which
/// order of play gets the player stuck.
///
/// # Complexity
/// `O(S · R · (V + E))` for `S` abstract states explored and `R` pick-up rounds per state
/// (at most the number of openers). Without small keys and one-way links there is a single
/// state.
pub fn solve_with(graph: &LevelGraph, options: &SolveOptions) -> Result<Walkthrough, Unsolvable> {
    let start = match options.start {
        Some(r) if graph.contains_room(r) => r,
        Some(r) => return Err(Unsolvable::UnknownRoom(r)),
        None => graph.entrance().ok_or(Unsolvable::NoStart)?,
    };
    let goal = match options.goal {
        Some(r) if graph.contains_room(r) => r,
        Some(r) => return Err(Unsolvable::UnknownRoom(r)),
        None => graph
            .rooms_of_kind(&RoomKind::Exit)
            .next()
            .or_else(|| graph.rooms_of_kind(&RoomKind::Boss).next())
            .ok_or(Unsolvable::NoGoal)?,
    };
    let level = Level::new(graph);
    let search = level.search(start, goal, options.max_states)?;
    let Some(win) = search.first_win else {
        return Err(Unsolvable::Unreachable {
            start,
            goal,
            blockers: level.blockers(&search),
        });
    };
    if !options.allow_soft_locks {
        if let Some(dead) = search.dead_state() {
            let path = search.path_to(dead);
            let steps = level.transition_steps(&search, &path);
            return Err(Unsolvable::SoftLock {
                goal,
                steps,
                stuck_at: search.states[dead].at,
            });
        }
    }
    let path = search.path_to(win);
    let mut w = level.walkthrough(&search, &path, start, goal);
    w.states_explored = search.states.len();
    Ok(w)
}

/// The identity of a search state; see [`Level::key`].
type StateKey = (Bits, Bits, Bits, Vec<(KeyId, usize)>);

/// A compact set of small integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
}

/// An opener lying in a room.
struct Opener1 {
    room: RoomId,
    item: Item,
    key: KeyId,
    opener: Opener,
}

/// The level prepared for the search: openers and locks numbered densely.
struct Level {
    openers: Vec<Opener1>,
    /// Per room id slot, the openers lying there.
    openers_in: Vec<Vec<usize>>,
    /// Per link id slot: its small-lock index, if it has a small lock.
    small_index: Vec<Option<usize>>,
    small_count: usize,
    /// Per room id slot: `(link, other room, whether the link leaves this room)`.
    adjacency: Vec<Vec<(LinkId, usize, bool)>>,
    /// Per link id slot: `(from, to, link)`.
    links: Vec<Option<(usize, usize, Link)>>,
    /// Per link id slot: the openers that open its (unique) lock.
    lock_openers: Vec<Vec<usize>>,
}

/// One abstract state and how it was reached.
struct State {
    /// A room of the area (the position the area was entered at).
    at: RoomId,
    area: Bits,
    reach: Bits,
    held: Bits,
    spent: Bits,
    /// Round (pick-up order) of each opener picked up here, as (opener, round).
    picked: Vec<(usize, usize)>,
    parent: Option<(usize, Transition)>,
}

#[derive(Debug, Clone, Copy)]
enum Transition {
    Spend(LinkId),
    Move(LinkId, RoomId),
}

struct Search {
    states: Vec<State>,
    first_win: Option<usize>,
    goal: RoomId,
    /// Per state, the states it leads to.
    edges: Vec<Vec<usize>>,
}

impl Search {
    fn path_to(&self, mut s: usize) -> Vec<usize> {
        let mut path = vec![s];
        while let Some((p, _)) = self.states[s].parent {
            path.push(p);
            s = p;
        }
        path.reverse();
        path
    }

    /// A reachable state from which the goal cannot be reached, the first found breadth first.
    fn dead_state(&self) -> Option<usize> {
        let n = self.states.len();
        let mut alive = vec![false; n];
        let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (s, outs) in self.edges.iter().enumerate() {
            for &t in outs {
                reverse[t].push(s);
            }
        }
        let goal = self.goal.0 as usize;
        let mut queue: VecDeque<usize> =
            (0..n).filter(|&s| self.states[s].reach.get(goal)).collect();
        for &s in &queue {
            alive[s] = true;
        }
        while let Some(t) = queue.pop_front() {
            for &s in &reverse[t] {
                if !alive[s] {
                    alive[s] = true;
                    queue.push_back(s);
                }
            }
        }
        (0..n).find(|&s| !alive[s])
    }
}

impl Level {
    fn new(graph: &LevelGraph) -> Level {
        let n = graph.room_bound();
        let mut openers = Vec::new();
        let mut openers_in = vec![Vec::new(); n];
        for (id, room) in graph.rooms() {
            for item in &room.items {
                if let Some((key, opener)) = item.opens() {
                    openers_in[id.0 as usize].push(openers.len());
                    openers.push(Opener1 {
                        room: id,
                        item: item.clone(),
                        key,
                        opener,
                    });
                }
            }
        }
        let link_bound = graph.link_bound();
        let mut small_index = vec![None; link_bound];
        let mut links = vec![None; link_bound];
        let mut adjacency = vec![Vec::new(); n];
        let mut small_count = 0;
        for (l, a, b, link) in graph.links() {
            if link.lock.is_some_and(|k| k.opener == Opener::SmallKey) {
                small_index[l.0 as usize] = Some(small_count);
                small_count += 1;
            }
            links[l.0 as usize] = Some((a.0 as usize, b.0 as usize, *link));
            adjacency[a.0 as usize].push((l, b.0 as usize, true));
            adjacency[b.0 as usize].push((l, a.0 as usize, false));
        }
        let lock_openers = links
            .iter()
            .map(|entry| match entry {
                Some((
                    _,
                    _,
                    Link {
                        lock: Some(lock), ..
                    },
                )) if lock.opener != Opener::SmallKey => openers
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.key == lock.by && o.opener == lock.opener)
                    .map(|(i, _)| i)
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        Level {
            openers,
            openers_in,
            small_index,
            small_count,
            adjacency,
            links,
            lock_openers,
        }
    }

    /// Whether the link's lock (if any) is open.
    fn open(&self, link: LinkId, lock: Option<Lock>, held: &Bits, spent: &Bits) -> bool {
        match lock {
            None => true,
            Some(l) if l.opener == Opener::SmallKey => {
                self.small_index[link.0 as usize].is_some_and(|i| spent.get(i))
            }
            Some(_) => self.lock_openers[link.0 as usize]
                .iter()
                .any(|&o| held.get(o)),
        }
    }

    /// Rooms reachable from `start` (forwards) or that can reach it (backwards), as a bit set
    /// plus the discovery order.
    fn walk(&self, start: usize, held: &Bits, spent: &Bits, forwards: bool) -> (Bits, Vec<usize>) {
        let mut seen = Bits::new(self.adjacency.len());
        seen.set(start);
        let mut order = vec![start];
        let mut i = 0;
        while i < order.len() {
            let x = order[i];
            i += 1;
            for &(l, y, out) in &self.adjacency[x] {
                let (_, _, link) = self.links[l.0 as usize].expect("live link");
                let passable = link.passable(if forwards { out } else { !out });
                if passable && !seen.get(y) && self.open(l, link.lock, held, spent) {
                    seen.set(y);
                    order.push(y);
                }
            }
        }
        (seen, order)
    }

    /// Picks up everything in the area around `at`, round by round (each round's new openers
    /// may open more doors). Returns the area, the reach, and the openers picked with rounds.
    fn close(
        &self,
        at: RoomId,
        held: &mut Bits,
        spent: &Bits,
    ) -> (Bits, Bits, Vec<(usize, usize)>) {
        let mut picked = Vec::new();
        let mut round = 0;
        loop {
            let (reach, order) = self.walk(at.0 as usize, held, spent, true);
            let (back, _) = self.walk(at.0 as usize, held, spent, false);
            let mut area = reach.clone();
            for (w, b) in area.0.iter_mut().zip(&back.0) {
                *w &= b;
            }
            let mut new = false;
            for &r in &order {
                if !area.get(r) {
                    continue;
                }
                for &o in &self.openers_in[r] {
                    if !held.get(o) {
                        held.set(o);
                        picked.push((o, round));
                        new = true;
                    }
                }
            }
            if !new {
                return (area, reach, picked);
            }
            round += 1;
        }
    }

    fn state(
        &self,
        at: RoomId,
        mut held: Bits,
        spent: Bits,
        parent: Option<(usize, Transition)>,
    ) -> State {
        let (area, reach, picked) = self.close(at, &mut held, &spent);
        State {
            at,
            area,
            reach,
            held,
            spent,
            picked,
            parent,
        }
    }

    /// Small keys of `ring` picked up, minus small locks of `ring` opened.
    fn small_keys_left(&self, ring: KeyId, held: &Bits, spent: &Bits) -> usize {
        let got = self
            .openers
            .iter()
            .enumerate()
            .filter(|(i, o)| o.opener == Opener::SmallKey && o.key == ring && held.get(*i))
            .count();
        let used = self
            .links
            .iter()
            .enumerate()
            .filter_map(|(l, x)| x.map(|(_, _, link)| (l, link)))
            .filter(|(l, link)| {
                link.lock
                    .is_some_and(|k| k.opener == Opener::SmallKey && k.by == ring)
                    && self.small_index[*l].is_some_and(|i| spent.get(i))
            })
            .count();
        got.saturating_sub(used)
    }

    /// The irreversible choices from a state: small locks to open, one-way links to take.
    fn transitions(&self, s: &State) -> Vec<Transition> {
        let mut out = Vec::new();
        for (l, entry) in self.links.iter().enumerate() {
            let Some((a, b, link)) = entry else { continue };
            let id = LinkId(l as u32);
            if let Some(i) = self.small_index[l] {
                let lock = link.lock.expect("small lock");
                let near = (s.area.get(*a) && link.passable(true))
                    || (s.area.get(*b) && link.passable(false));
                if !s.spent.get(i) && near && self.small_keys_left(lock.by, &s.held, &s.spent) > 0 {
                    out.push(Transition::Spend(id));
                }
            }
            if link.kind == super::level::LinkKind::OneWay
                && s.area.get(*a)
                && !s.area.get(*b)
                && self.open(id, link.lock, &s.held, &s.spent)
            {
                out.push(Transition::Move(id, RoomId(*b as u32)));
            }
        }
        out
    }

    /// What makes two states alike for the search: the area, the openers held, the small locks
    /// opened that lead out of the area, and the small keys left per ring. A small lock with
    /// both sides inside the area no longer matters (the area is strongly connected without
    /// it), so states that differ only in which such locks were opened have the same future.
    fn key(&self, s: &State) -> StateKey {
        let mut outside = Bits::new(self.small_count);
        let mut left: Vec<(KeyId, usize)> = Vec::new();
        for (l, entry) in self.links.iter().enumerate() {
            let (Some(i), Some((a, b, link))) = (self.small_index[l], entry) else {
                continue;
            };
            if s.spent.get(i) && !(s.area.get(*a) && s.area.get(*b)) {
                outside.set(i);
            }
            let ring = link.lock.expect("small lock").by;
            if !left.iter().any(|(r, _)| *r == ring) {
                left.push((ring, self.small_keys_left(ring, &s.held, &s.spent)));
            }
        }
        (s.area.clone(), s.held.clone(), outside, left)
    }

    fn search(&self, start: RoomId, goal: RoomId, limit: usize) -> Result<Search, Unsolvable> {
        let first = self.state(
            start,
            Bits::new(self.openers.len()),
            Bits::new(self.small_count),
            None,
        );
        let mut search = Search {
            states: vec![first],
            first_win: None,
            goal,
            edges: vec![Vec::new()],
        };
        let mut index: HashMap<StateKey, usize> = HashMap::new();
        index.insert(self.key(&search.states[0]), 0);
        let mut queue = VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            if search.first_win.is_none() && search.states[i].reach.get(goal.0 as usize) {
                search.first_win = Some(i);
            }
            for t in self.transitions(&search.states[i]) {
                let s = &search.states[i];
                let next = match t {
                    Transition::Spend(l) => {
                        let mut spent = s.spent.clone();
                        spent.set(self.small_index[l.0 as usize].expect("small lock"));
                        self.state(s.at, s.held.clone(), spent, Some((i, t)))
                    }
                    Transition::Move(_, to) => {
                        self.state(to, s.held.clone(), s.spent.clone(), Some((i, t)))
                    }
                };
                let key = self.key(&next);
                let j = match index.get(&key) {
                    Some(&j) => j,
                    None => {
                        if search.states.len() >= limit {
                            return Err(Unsolvable::TooManyStates { limit });
                        }
                        let j = search.states.len();
                        index.insert(key, j);
                        search.states.push(next);
                        search.edges.push(Vec::new());
                        queue.push_back(j);
                        j
                    }
                };
                search.edges[i].push(j);
            }
        }
        Ok(search)
    }

    /// The locked links at the edge of everything reachable, and why each stays shut.
    fn blockers(&self, search: &Search) -> Vec<Blocker> {
        let n = self.adjacency.len();
        let mut reached = Bits::new(n);
        let mut ever_opened = vec![false; self.links.len()];
        let mut any_held = Bits::new(self.openers.len());
        for s in &search.states {
            for (w, r) in reached.0.iter_mut().zip(&s.reach.0) {
                *w |= r;
            }
            for (w, h) in any_held.0.iter_mut().zip(&s.held.0) {
                *w |= h;
            }
            for (l, entry) in self.links.iter().enumerate() {
                if let Some((_, _, link)) = entry {
                    if self.open(LinkId(l as u32), link.lock, &s.held, &s.spent) {
                        ever_opened[l] = true;
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (l, entry) in self.links.iter().enumerate() {
            let Some((a, b, link)) = entry else { continue };
            let Some(lock) = link.lock else { continue };
            let near = (reached.get(*a) && link.passable(true))
                || (reached.get(*b) && link.passable(false));
            let far_unreached = !(reached.get(*a) && reached.get(*b));
            if !near || ever_opened[l] || !far_unreached {
                continue;
            }
            let missing = if lock.opener == Opener::SmallKey {
                let available = self
                    .openers
                    .iter()
                    .enumerate()
                    .filter(|(i, o)| {
                        o.opener == Opener::SmallKey && o.key == lock.by && any_held.get(*i)
                    })
                    .count();
                Missing::SmallKeys { available }
            } else {
                match self
                    .openers
                    .iter()
                    .find(|o| o.key == lock.by && o.opener == lock.opener)
                {
                    None => Missing::Nowhere,
                    Some(o) => Missing::OutOfReach { room: o.room },
                }
            };
            out.push(Blocker {
                link: LinkId(l as u32),
                lock,
                missing,
            });
        }
        out
    }

    /// The irreversible steps along a path of states (for soft-lock reports).
    fn transition_steps(&self, search: &Search, path: &[usize]) -> Vec<Step> {
        path.iter()
            .filter_map(|&s| search.states[s].parent.map(|(_, t)| t))
            .map(|t| self.transition_step(t))
            .collect()
    }

    fn transition_step(&self, t: Transition) -> Step {
        match t {
            Transition::Spend(link) => Step::Open {
                link,
                lock: self.links[link.0 as usize]
                    .expect("live")
                    .2
                    .lock
                    .expect("locked"),
            },
            Transition::Move(link, to) => Step::OneWay { link, to },
        }
    }

    /// The walkthrough along a winning path of states: the openers the goal needs, the locks
    /// they open, the irreversible steps, and the walking it takes.
    fn walkthrough(
        &self,
        search: &Search,
        path: &[usize],
        start: RoomId,
        goal: RoomId,
    ) -> Walkthrough {
        // Every pick-up, in order, with the openers held before it (what its round could use).
        struct Pick {
            stage: usize,
            opener: usize,
            before: Bits,
        }
        let mut picks: Vec<Pick> = Vec::new();
        for (stage, &s) in path.iter().enumerate() {
            let state = &search.states[s];
            let mut before = match state.parent {
                Some((p, _)) => search.states[p].held.clone(),
                None => Bits::new(self.openers.len()),
            };
            let mut round = 0;
            let mut round_start = before.clone();
            for &(o, r) in &state.picked {
                if r != round {
                    round = r;
                    round_start = before.clone();
                }
                picks.push(Pick {
                    stage,
                    opener: o,
                    before: round_start.clone(),
                });
                before.set(o);
            }
        }
        // Which pick-ups are needed: walk back from the goal and each irreversible step along
        // paths that use as few locked links as possible.
        let mut needed = vec![false; picks.len()];
        // (from, to, openers held, small locks spent, whether the way back counts too)
        // (from, to, held, spent, whether the way back counts too, a lock passed on arrival)
        let mut todo: Vec<(usize, usize, Bits, Bits, bool, Option<Lock>)> = Vec::new();
        let last = &search.states[path[path.len() - 1]];
        todo.push((
            last.at.0 as usize,
            goal.0 as usize,
            last.held.clone(),
            last.spent.clone(),
            false,
            None,
        ));
        for pair in path.windows(2) {
            let (parent, state) = (&search.states[pair[0]], &search.states[pair[1]]);
            let (from, held, spent) = (
                parent.at.0 as usize,
                parent.held.clone(),
                parent.spent.clone(),
            );
            match state.parent.expect("on the path").1 {
                Transition::Spend(l) => {
                    let (a, b, _) = self.links[l.0 as usize].expect("live");
                    let near = if parent.area.get(a) { a } else { b };
                    todo.push((from, near, held, spent, true, None));
                }
                Transition::Move(l, _) => {
                    // Walk to the one-way link's tail, then through it: its own lock counts.
                    let (a, _, link) = self.links[l.0 as usize].expect("live");
                    let lock = link.lock.filter(|k| k.opener != Opener::SmallKey);
                    todo.push((from, a, held, spent, false, lock));
                }
            }
        }
        // Small keys: every spend needs one; the earliest pick-ups of each ring serve.
        let mut small_needed: HashMap<KeyId, usize> = HashMap::new();
        for &s in path.iter().skip(1) {
            if let Some((_, Transition::Spend(l))) = search.states[s].parent {
                let ring = self.links[l.0 as usize]
                    .expect("live")
                    .2
                    .lock
                    .expect("locked")
                    .by;
                *small_needed.entry(ring).or_insert(0) += 1;
            }
        }
        for (i, p) in picks.iter().enumerate() {
            let o = &self.openers[p.opener];
            let wanted = small_needed.get_mut(&o.key).filter(|n| **n > 0);
            if let (Opener::SmallKey, Some(n)) = (o.opener, wanted) {
                *n -= 1;
                needed[i] = true;
                let state = &search.states[path[p.stage]];
                todo.push((
                    state.at.0 as usize,
                    o.room.0 as usize,
                    p.before.clone(),
                    state.spent.clone(),
                    true,
                    None,
                ));
            }
        }
        while let Some((from, to, held, spent, back, passed)) = todo.pop() {
            let mut locks = self.locks_on_path(from, to, &held, &spent);
            if back {
                locks.extend(self.locks_on_path(to, from, &held, &spent));
            }
            locks.extend(passed);
            for lock in locks {
                // The earliest pick-up of an opener for this lock among those held.
                let found = picks.iter().position(|p| {
                    let o = &self.openers[p.opener];
                    held.get(p.opener) && o.key == lock.by && o.opener == lock.opener
                });
                if let Some(i) = found.filter(|&i| !needed[i]) {
                    needed[i] = true;
                    let p = &picks[i];
                    let state = &search.states[path[p.stage]];
                    let room = self.openers[p.opener].room.0 as usize;
                    todo.push((
                        state.at.0 as usize,
                        room,
                        p.before.clone(),
                        state.spent.clone(),
                        true,
                        None,
                    ));
                }
            }
        }
        // The steps, in order: each stage's needed pick-ups, then its irreversible step.
        let mut objectives: Vec<Step> = Vec::new();
        for (stage, &s) in path.iter().enumerate() {
            if let Some((_, t)) = search.states[s].parent {
                objectives.push(self.transition_step(t));
            }
            for (i, p) in picks.iter().enumerate() {
                if p.stage == stage && needed[i] {
                    let o = &self.openers[p.opener];
                    objectives.push(Step::Collect {
                        room: o.room,
                        item: o.item.clone(),
                    });
                }
            }
        }
        objectives.push(Step::Reach { room: goal });
        self.walk_objectives(start, goal, objectives)
    }

    /// The locks on a path from `from` to `to` that passes as few locks as possible, with the
    /// openers in `held` (small locks count as open if spent).
    fn locks_on_path(&self, from: usize, to: usize, held: &Bits, spent: &Bits) -> Vec<Lock> {
        // 0-1 breadth-first search: a unique-locked link costs 1, anything else 0.
        let n = self.adjacency.len();
        let mut dist = vec![usize::MAX; n];
        let mut via: Vec<Option<LinkId>> = vec![None; n];
        let mut prev = vec![usize::MAX; n];
        let mut deque = VecDeque::from([from]);
        dist[from] = 0;
        while let Some(x) = deque.pop_front() {
            if x == to {
                break;
            }
            for &(l, y, out) in &self.adjacency[x] {
                let (_, _, link) = self.links[l.0 as usize].expect("live");
                if !link.passable(out) || !self.open(l, link.lock, held, spent) {
                    continue;
                }
                let w = usize::from(link.lock.is_some_and(|k| k.opener != Opener::SmallKey));
                if dist[x] + w < dist[y] {
                    dist[y] = dist[x] + w;
                    via[y] = Some(l);
                    prev[y] = x;
                    if w == 0 {
                        deque.push_front(y);
                    } else {
                        deque.push_back(y);
                    }
                }
            }
        }
        let mut locks = Vec::new();
        let mut at = to;
        while let Some(l) = via[at] {
            if let Some(lock) = self.links[l.0 as usize].expect("live").2.lock {
                if lock.opener != Opener::SmallKey {
                    locks.push(lock);
                }
            }
            at = prev[at];
        }
        locks
    }

    /// Walks the objectives along shortest paths, inserting an [`Step::Open`] before the first
    /// passage through each locked link, and counts the rooms walked and revisited.
    fn walk_objectives(&self, start: RoomId, goal: RoomId, objectives: Vec<Step>) -> Walkthrough {
        let n = self.adjacency.len();
        let mut held = Bits::new(self.openers.len());
        let mut spent = Bits::new(self.small_count);
        let mut opened = vec![false; self.links.len()];
        let mut visited = vec![false; n];
        let mut cur = start.0 as usize;
        visited[cur] = true;
        let (mut walked, mut revisited) = (0, 0);
        let mut steps = Vec::new();
        for step in objectives {
            // Where to walk first: the step's room, or the near side of its link.
            let target = match &step {
                Step::Collect { room, .. } | Step::Reach { room } => room.0 as usize,
                Step::OneWay { link, .. } => self.links[link.0 as usize].expect("live").0,
                Step::Open { link, .. } => {
                    let (a, b, data) = self.links[link.0 as usize].expect("live");
                    let (reach, _) = self.walk(cur, &held, &spent, true);
                    if reach.get(a) && data.passable(true) {
                        a
                    } else {
                        b
                    }
                }
            };
            for (l, room) in self.shortest_path(cur, target, &held, &spent) {
                self.note_passage(l, &mut opened, &mut steps);
                walked += 1;
                if std::mem::replace(&mut visited[room], true) {
                    revisited += 1;
                }
                cur = room;
            }
            match &step {
                Step::Collect { room, item } => {
                    let slot = self.openers_in[room.0 as usize]
                        .iter()
                        .copied()
                        .find(|&o| self.openers[o].item == *item && !held.get(o));
                    if let Some(o) = slot {
                        held.set(o);
                    }
                }
                Step::Open { link, .. } => {
                    if let Some(i) = self.small_index[link.0 as usize] {
                        spent.set(i);
                    }
                    opened[link.0 as usize] = true;
                }
                Step::OneWay { link, to } => {
                    self.note_passage(*link, &mut opened, &mut steps);
                    walked += 1;
                    if std::mem::replace(&mut visited[to.0 as usize], true) {
                        revisited += 1;
                    }
                    cur = to.0 as usize;
                }
                Step::Reach { .. } => {}
            }
            steps.push(step);
        }
        Walkthrough {
            start,
            goal,
            steps,
            rooms_walked: walked,
            rooms_revisited: revisited,
            states_explored: 0,
        }
    }

    /// Records the first passage through a unique-locked link as an [`Step::Open`].
    fn note_passage(&self, l: LinkId, opened: &mut [bool], steps: &mut Vec<Step>) {
        let lock = self.links[l.0 as usize].expect("live").2.lock;
        if let Some(lock) = lock {
            if !opened[l.0 as usize] {
                opened[l.0 as usize] = true;
                steps.push(Step::Open { link: l, lock });
            }
        }
    }

    /// A shortest walk from `from` to `to` through open, passable links, as (link, room entered).
    fn shortest_path(
        &self,
        from: usize,
        to: usize,
        held: &Bits,
        spent: &Bits,
    ) -> Vec<(LinkId, usize)> {
        let n = self.adjacency.len();
        let mut prev: Vec<Option<(LinkId, usize)>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[from] = true;
        let mut queue = VecDeque::from([from]);
        while let Some(x) = queue.pop_front() {
            if x == to {
                break;
            }
            for &(l, y, out) in &self.adjacency[x] {
                let (_, _, link) = self.links[l.0 as usize].expect("live");
                if !seen[y] && link.passable(out) && self.open(l, link.lock, held, spent) {
                    seen[y] = true;
                    prev[y] = Some((l, x));
                    queue.push_back(y);
                }
            }
        }
        let mut out = Vec::new();
        let mut at = to;
        while let Some((l, p)) = prev[at] {
            out.push((l, at));
            at = p;
        }
        out.reverse();
        out
    }
}
