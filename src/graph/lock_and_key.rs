//! Lock-and-key planning: where the locks go, where their openers lie, and the sector
//! pipeline's chained scripts.
//!
//! [`plan`] splits a level into regions behind gates on the walk from the entrance, locks every way
//! into each region with that region's lock (a key, a switch, a task, or small keys), puts each
//! opener where the player reaches it before its lock, and proves the result with the
//! [solver](super::solve): no level it returns can soft-lock any player, even one who skips
//! rooms and openers. [`place_openers`] is the placement step on its own (flows use it for
//! their locked doors), and [`sector_scenario`] is the scenario generator of
//! `shared/spec/sectors.md` (steps 9 and 12).

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::level::{
    GraphError, Item, KeyId, LevelGraph, LinkId, LinkKind, Lock, Opener, RoomId, RoomKind,
};
use super::solve::{SolveOptions, Unsolvable, Walkthrough, solve_with};
use crate::seed;

/// The item that opens `lock`.
fn opener_item(lock: Lock) -> Item {
    match lock.opener {
        Opener::Key => Item::Key(lock.by),
        Opener::Switch => Item::Switch(lock.by),
        Opener::Task => Item::Task(lock.by),
        Opener::SmallKey => Item::SmallKey(lock.by),
    }
}

/// Breadth-first search over passable links whose lock is open, forwards (where the player can
/// go from `start`) or backwards (where the player can come to `start` from).
fn walk(graph: &LevelGraph, start: RoomId, open: &[bool], forwards: bool) -> Vec<bool> {
    let mut seen = vec![false; graph.room_bound()];
    seen[start.0 as usize] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(r) = queue.pop_front() {
        for (l, next, link, from_here) in graph.links_at(r) {
            // Backwards, the player walks next -> r: from `next`'s side of the link.
            let passable = link.passable(if forwards { from_here } else { !from_here });
            let unlocked = link.lock.is_none() || open[l.0 as usize];
            if passable && unlocked && !std::mem::replace(&mut seen[next.0 as usize], true) {
                queue.push_back(next);
            }
        }
    }
    seen
}

/// Rooms within reach of `start` over open, passable links, with their distance in links.
fn distances(graph: &LevelGraph, start: RoomId, open: &[bool]) -> Vec<Option<usize>> {
    let mut dist = vec![None; graph.room_bound()];
    dist[start.0 as usize] = Some(0);
    let mut queue = VecDeque::from([start]);
    while let Some(r) = queue.pop_front() {
        let d = dist[r.0 as usize].expect("queued rooms have a distance");
        for (l, next, link, _) in graph.links_at(r) {
            let unlocked = link.lock.is_none() || open[l.0 as usize];
            if link.kind.is_passable() && unlocked && dist[next.0 as usize].is_none() {
                dist[next.0 as usize] = Some(d + 1);
                queue.push_back(next);
            }
        }
    }
    dist
}

/// Puts the missing openers of a level's locks where the player finds them in time, and makes
/// the player walk for them.
///
/// Every lock whose opener lies nowhere in the level gets one (a small-key ring without any
/// small key gets one small key per small lock). Locks are taken in the order the player meets
/// them: each round, the locks at the edge of what is reachable get their openers in reachable
/// rooms from which the lock can still be reached, never in a secret room, an exit or a boss
/// room; then those locks count as open and the next round begins. A lock whose opener the
/// level already holds (a flow's own key) counts as open only once that opener is reachable, so
/// no opener ends up behind a lock that needs it, directly or through a chain of locks.
///
/// Where an opener goes: in the region the last round opened up (the rooms behind the locks
/// just opened) unless that region is a single room, far from its lock (a room's chance grows
/// with the square of its distance from the lock, so the player walks for the opener instead of
/// finding it beside the door), and in a room that holds no other opener where there is one.
/// `recent_weight` multiplies the chance of the last round's rooms when the opener may go
/// anywhere reachable (1.0: no preference).
///
/// # Complexity
/// `O(L · (V + E))` for `L` locks.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Lock, Opener, Room, RoomKind};
/// use levelplan::graph::lock_and_key::place_openers;
///
/// let mut g = LevelGraph::new();
/// let a = g.add_room(Room::new(RoomKind::Entrance));
/// let b = g.add_room(Room::new(RoomKind::Normal));
/// let c = g.add_room(Room::new(RoomKind::Exit));
/// g.add_link(a, b, Link::door());
/// let k = g.new_key();
/// g.add_link(b, c, Link::door().with_lock(Lock { by: k, opener: Opener::Switch }));
/// place_openers(&mut g, &mut levelplan::seed::stream(1, "doc"), 1.0);
/// // The switch lies in the entrance, the room farthest from the door it opens.
/// assert!(g.room(a).unwrap().items.contains(&levelplan::Item::Switch(k)));
/// assert!(levelplan::graph::solve::solve(&g).is_ok());
/// ```
pub fn place_openers<R: Rng + ?Sized>(graph: &mut LevelGraph, rng: &mut R, recent_weight: f64) {
    let existing: Vec<(RoomId, KeyId, Opener)> = graph
        .rooms()
        .flat_map(|(id, r)| {
            r.items
                .iter()
                .filter_map(move |i| i.opens().map(|(k, o)| (id, k, o)))
        })
        .collect();
    let link_bound = graph.link_bound();
    let mut open = vec![false; link_bound];
    // Locks whose openers the level holds already, and those that need one.
    let mut waiting: Vec<(LinkId, Lock)> = Vec::new();
    let mut pending: Vec<(LinkId, Lock)> = Vec::new();
    for (l, lock) in graph.locks() {
        if existing
            .iter()
            .any(|&(_, k, o)| (k, o) == (lock.by, lock.opener))
        {
            waiting.push((l, lock));
        } else {
            pending.push((l, lock));
        }
    }
    let Some(entrance) = graph.entrance().or_else(|| graph.room_ids().next()) else {
        return;
    };
    let mut before = vec![false; graph.room_bound()];
    loop {
        // Open the locks whose (existing) openers are within reach, until nothing changes.
        let reached = loop {
            let reached = walk(graph, entrance, &open, true);
            let mut changed = false;
            waiting.retain(|&(l, lock)| {
                let found = existing.iter().any(|&(room, k, o)| {
                    (k, o) == (lock.by, lock.opener) && reached[room.0 as usize]
                });
                if found {
                    open[l.0 as usize] = true;
                    changed = true;
                }
                !found
            });
            if !changed {
                break reached;
            }
        };
        if pending.is_empty() {
            return;
        }
        // Locks on the frontier: the player can stand at their near side. If there are none,
        // the remaining locks are out of reach anyway: give them openers in what is reachable,
        // so that every lock has one.
        let frontier: Vec<(LinkId, Lock)> = pending
            .iter()
            .copied()
            .filter(|(l, _)| {
                let (from, to) = graph.endpoints(*l).expect("lock link");
                let link = graph.link(*l).expect("lock link");
                (reached[from.0 as usize] && link.passable(true))
                    || (reached[to.0 as usize] && link.passable(false))
            })
            .collect();
        let batch = if frontier.is_empty() {
            std::mem::take(&mut pending)
        } else {
            frontier
        };
        let mut placed_unique: Vec<(KeyId, Opener)> = Vec::new();
        for &(l, lock) in &batch {
            let unique = lock.opener != Opener::SmallKey;
            if unique && placed_unique.contains(&(lock.by, lock.opener)) {
                continue; // one opener serves every link with this lock
            }
            let (from, to) = graph.endpoints(l).expect("lock link");
            let near = if reached[from.0 as usize] { from } else { to };
            let room = opener_room(graph, near, &reached, &before, &open, recent_weight, rng)
                .unwrap_or(entrance);
            graph
                .room_mut(room)
                .expect("candidate")
                .items
                .push(opener_item(lock));
            if unique {
                placed_unique.push((lock.by, lock.opener));
            }
        }
        for &(l, lock) in &batch {
            open[l.0 as usize] = true;
            if lock.opener != Opener::SmallKey {
                // Every other link with the same lock opens with the same opener.
                for (m, other) in graph.locks() {
                    if other == lock {
                        open[m.0 as usize] = true;
                    }
                }
            }
        }
        pending.retain(|(l, _)| !open[l.0 as usize]);
        before = reached;
    }
}

/// Where the opener of a lock whose near side is `near` goes (see [`place_openers`]): a room
/// within reach from which the lock can be reached, preferring the region opened last (unless
/// it is one room), rooms far from the lock, and rooms without an opener yet.
fn opener_room<R: Rng + ?Sized>(
    graph: &LevelGraph,
    near: RoomId,
    reached: &[bool],
    before: &[bool],
    open: &[bool],
    recent_weight: f64,
    rng: &mut R,
) -> Option<RoomId> {
    let back = walk(graph, near, open, false);
    let dist = distances(graph, near, open);
    let candidates: Vec<RoomId> = graph
        .rooms()
        .filter(|(r, room)| {
            reached[r.0 as usize]
                && back[r.0 as usize]
                && !matches!(
                    room.kind,
                    RoomKind::Secret | RoomKind::Exit | RoomKind::Boss
                )
        })
        .map(|(r, _)| r)
        .collect();
    let recent: Vec<RoomId> = candidates
        .iter()
        .copied()
        .filter(|r| !before[r.0 as usize])
        .collect();
    let pool = if recent.len() >= 2 {
        recent
    } else {
        candidates
    };
    // Rooms away from the lock, without an opener yet, if any; else away from the lock.
    let away = |r: &RoomId| dist[r.0 as usize].is_some_and(|d| d > 0);
    let free = |r: &RoomId| {
        graph
            .room(*r)
            .is_some_and(|room| room.items.iter().all(|i| i.opens().is_none()))
    };
    let far_and_free: Vec<RoomId> = pool
        .iter()
        .copied()
        .filter(|r| away(r) && free(r))
        .collect();
    let far: Vec<RoomId> = pool.iter().copied().filter(away).collect();
    let pool = if !far_and_free.is_empty() {
        far_and_free
    } else if !far.is_empty() {
        far
    } else {
        pool
    };
    let weights: Vec<f64> = pool
        .iter()
        .map(|r| {
            let d = dist[r.0 as usize].unwrap_or(0) as f64;
            let region = if before[r.0 as usize] {
                1.0
            } else {
                recent_weight
            };
            d * d * region
        })
        .collect();
    match seed::weighted_index(rng, &weights) {
        Some(i) => Some(pool[i]),
        // Every candidate is the lock's own room (or there is none).
        None => pool.first().copied(),
    }
}

/// What [`plan`] is asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockPlan {
    /// How many locks (regions past the first) to add.
    pub locks: usize,
    /// Of those, how many are heavy doors opened by switches (keys cannot open them).
    pub switches: usize,
    /// Of those, how many open when a task is done (clear a room, solve a puzzle).
    pub tasks: usize,
    /// Of those, how many are small-key doors: every door into the region takes one small key
    /// (used up), and the level holds one small key per such door.
    pub small_key_locks: usize,
    /// How many links that would lead back into an earlier region to turn into one-way
    /// shortcuts (passable only back), which spares the player some backtracking.
    pub one_way_shortcuts: usize,
    /// How strongly openers favour the region opened just before their lock (1.0: no
    /// preference).
    pub recent_weight: f64,
    /// How many plans to try before giving up.
    pub max_tries: usize,
}

impl Default for LockPlan {
    fn default() -> LockPlan {
        LockPlan {
            locks: 3,
            switches: 0,
            tasks: 0,
            small_key_locks: 0,
            one_way_shortcuts: 0,
            recent_weight: 3.0,
            max_tries: 16,
        }
    }
}

/// What [`plan`] did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanReport {
    /// The lock of each region past the first: `region_locks[i]` closes region `i + 1`.
    /// Small-key regions share their ring's lock.
    pub region_locks: Vec<Lock>,
    /// The locks added, as `(link, lock)`, in link id order.
    pub added: Vec<(LinkId, Lock)>,
    /// Locks the graph already had (a flow's own locked doors), kept as they were.
    pub existing_locks: usize,
    /// One-way links the graph already had.
    pub existing_one_way: usize,
    /// Links turned into one-way shortcuts.
    pub shortcuts: Vec<LinkId>,
    /// Per room id slot, the region it was put in (0: reachable without any new lock).
    pub regions: Vec<Option<u32>>,
    /// The solver's proof that the planned level is completable and cannot soft-lock.
    pub walkthrough: Walkthrough,
    /// How many tries it took.
    pub tries: usize,
}

/// Why [`plan`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The graph has no entrance.
    #[error("the level has no entrance to plan from")]
    NoEntrance,
    /// The graph has no exit or boss room to plan towards.
    #[error("the level has no goal (an Exit or Boss room) to plan towards")]
    NoGoal,
    /// More locks than the level has rooms to separate.
    #[error(
        "{asked} locks asked for, but the level can hold at most {possible} (one region per lock, each with at least one room, besides the entrance's)"
    )]
    TooManyLocks {
        /// Locks asked for.
        asked: usize,
        /// Most locks possible.
        possible: usize,
    },
    /// The kinds of lock asked for add up to more than the number of locks.
    #[error(
        "switches ({switches}) + tasks ({tasks}) + small-key locks ({small}) exceed the {locks} locks asked for"
    )]
    KindsExceedLocks {
        /// Locks asked for.
        locks: usize,
        /// Switches asked for.
        switches: usize,
        /// Tasks asked for.
        tasks: usize,
        /// Small-key locks asked for.
        small: usize,
    },
    /// A room the player cannot walk to even with every door open.
    #[error("room {0} cannot be reached from the entrance even with every door open")]
    Unreachable(RoomId),
    /// No try produced a level the solver accepts.
    #[error("no plan passed the solver in {tries} tries; the last failed with: {last}")]
    Unsafe {
        /// Tries made.
        tries: usize,
        /// The solver's verdict on the last try.
        last: Unsolvable,
    },
}

/// Plans locks and openers on a level graph, and proves the result completable.
///
/// 1. The rooms are walked breadth first from the entrance (one-way links respected), the
///    goal (the first exit, else the first boss room) and whatever lies only behind it last.
///    In that walk's tree, `locks` links become gates: the region behind a gate is its subtree
///    less the subtrees of the gates below it, so every region is connected and entered through
///    its gate; gates are chosen from the leaves up so regions have about equal size (with
///    some jitter).
/// 2. Every link into a region gets the region's lock (a unique key, a switch, a task, or one
///    small lock per link, of a ring of the region's own; a link between two regions takes the
///    later region's lock); links already locked (a flow's own doors) keep their locks.
///    Optionally, some links between regions that are not gates become one-way shortcuts back
///    from the later region instead: only into a region on the way to the later one, and only
///    where every way to the shortcut's tail passes a door into the region it leads back to, so
///    that no player, whatever they skipped, is shut in by it. Where fewer shortcuts fit than
///    asked, a few more region plans are drawn and the one with the most is kept.
/// 3. Openers are placed with [`place_openers`]: each where the player gets it before its lock,
///    far from it, never in a secret room, the exit or a boss room, never behind a lock that
///    needs it (the flow's own locks included, directly or through a chain).
/// 4. The [solver](super::solve::solve_with) must accept the level for a player who skips rooms
///    and openers. If a small-key region lets the player spend keys in an order that gets them
///    stuck, that region falls back to a unique key; otherwise the plan is drawn again, up to
///    `max_tries` times.
///
/// # Returns
/// A [`PlanReport`] with the walkthrough; the graph is changed only on success.
///
/// # Complexity
/// `O(T · (L · (V + E) + S))` for `T` tries, `L` locks and the solver's cost `S`.
///
/// # Examples
/// ```
/// use levelplan::{Conditions, FlowTemplate};
/// use levelplan::graph::lock_and_key::{plan, LockPlan};
///
/// let mut level = FlowTemplate::builtin("long_chain").unwrap().generate(3, &Conditions::default())?;
/// let report = plan(&mut level, &LockPlan { locks: 4, small_key_locks: 1, ..LockPlan::default() }, &mut levelplan::seed::stream(3, "locks"))?;
/// assert_eq!(report.region_locks.len(), 4);
/// assert!(levelplan::graph::solve::solve(&level).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    options: &LockPlan,
    rng: &mut R,
) -> Result<PlanReport, PlanError> {
    let entrance = graph.entrance().ok_or(PlanError::NoEntrance)?;
    let goal = graph
        .rooms_of_kind(&RoomKind::Exit)
        .next()
        .or_else(|| graph.rooms_of_kind(&RoomKind::Boss).next())
        .ok_or(PlanError::NoGoal)?;
    plan_between(graph, entrance, goal, options, rng)
}

/// [`plan`] for a level played from `start` to `goal`, whatever their kinds: the recipes
/// whose levels name their ends (a Diablo stage's stairs, an Isaac floor's start and boss)
/// plan through this. `start` and `goal` may be the same room (both stairs in one room):
/// the locks then close off the rest of the level, each opener before its lock.
///
/// # Errors
/// As [`plan`]; [`PlanError::Unreachable`] also for a `start` or `goal` not in the graph.
///
/// # Examples
/// ```
/// use levelplan::graph::lock_and_key::{LockPlan, plan_between};
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
///
/// // A hall with three wings; the player starts and ends in the hall.
/// let mut g = LevelGraph::new();
/// let hall = g.add_room(Room::new(RoomKind::Normal));
/// for _ in 0..3 {
///     let a = g.add_room(Room::new(RoomKind::Normal));
///     let b = g.add_room(Room::new(RoomKind::Normal));
///     g.add_link(hall, a, Link::door());
///     g.add_link(a, b, Link::door());
/// }
/// let options = LockPlan { locks: 2, ..LockPlan::default() };
/// let report = plan_between(&mut g, hall, hall, &options, &mut levelplan::seed::stream(1, "locks"))?;
/// assert_eq!(g.locks().count(), 2);
/// assert_eq!(report.walkthrough.start, hall);
/// # Ok::<(), levelplan::graph::lock_and_key::PlanError>(())
/// ```
pub fn plan_between<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    entrance: RoomId,
    goal: RoomId,
    options: &LockPlan,
    rng: &mut R,
) -> Result<PlanReport, PlanError> {
    for end in [entrance, goal] {
        if !graph.contains_room(end) {
            return Err(PlanError::Unreachable(end));
        }
    }
    let special = options.switches + options.tasks + options.small_key_locks;
    if special > options.locks {
        return Err(PlanError::KindsExceedLocks {
            locks: options.locks,
            switches: options.switches,
            tasks: options.tasks,
            small: options.small_key_locks,
        });
    }
    let (order, via) = walk_order(graph, entrance, goal)?;
    let possible = order.len().saturating_sub(1);
    if options.locks > possible {
        return Err(PlanError::TooManyLocks {
            asked: options.locks,
            possible,
        });
    }
    let existing_locks = graph.locks().count();
    let existing_one_way = graph
        .links()
        .filter(|(.., l)| l.kind == LinkKind::OneWay)
        .count();
    let mut small_allowed = options.small_key_locks;
    let mut last = None;
    let tries = options.max_tries.max(1);
    for attempt in 1..=tries {
        // Shortcuts fit only between a region and one on the way to it: when a draw of the
        // regions has room for fewer than asked, a few more are drawn (cheap: no solving) and
        // the one with the most is kept.
        let mut candidate = graph.clone();
        let mut regions = lock_regions(&mut candidate, &order, &via, options, small_allowed, rng);
        for _ in 0..SHORTCUT_DRAWS {
            if regions.shortcuts.len() >= options.one_way_shortcuts {
                break;
            }
            let mut other = graph.clone();
            let drawn = lock_regions(&mut other, &order, &via, options, small_allowed, rng);
            if drawn.shortcuts.len() > regions.shortcuts.len() {
                candidate = other;
                regions = drawn;
            }
        }
        place_openers(&mut candidate, rng, options.recent_weight);
        let verdict = solve_with(
            &candidate,
            &SolveOptions {
                start: Some(entrance),
                goal: Some(goal),
                ..SolveOptions::default()
            },
        );
        match verdict {
            Ok(walkthrough) => {
                *graph = candidate;
                return Ok(PlanReport {
                    region_locks: regions.locks,
                    added: regions.added,
                    existing_locks,
                    existing_one_way,
                    shortcuts: regions.shortcuts,
                    regions: regions.region,
                    walkthrough,
                    tries: attempt,
                });
            }
            Err(e) => {
                if matches!(e, Unsolvable::SoftLock { .. }) && small_allowed > 0 {
                    small_allowed -= 1;
                }
                last = Some(e);
            }
        }
    }
    Err(PlanError::Unsafe {
        tries,
        last: last.expect("at least one try"),
    })
}

/// How many more region plans [`plan`] draws, per try, to find room for the shortcuts asked
/// for.
const SHORTCUT_DRAWS: usize = 8;

/// Rooms in walking order from the entrance, the goal and what lies only behind it last, with
/// the link each room was first walked into through.
fn walk_order(
    graph: &LevelGraph,
    entrance: RoomId,
    goal: RoomId,
) -> Result<(Vec<RoomId>, Vec<Option<LinkId>>), PlanError> {
    let mut seen = vec![false; graph.room_bound()];
    let mut via: Vec<Option<LinkId>> = vec![None; graph.room_bound()];
    let mut order = Vec::with_capacity(graph.room_count());
    let mut queue = VecDeque::new();
    for start in [entrance, goal] {
        if seen[start.0 as usize] {
            continue;
        }
        seen[start.0 as usize] = true;
        queue.push_back(start);
        while let Some(r) = queue.pop_front() {
            order.push(r);
            for (l, next) in graph.exits(r) {
                // The goal waits until everything else is placed.
                if next == goal && start == entrance {
                    continue;
                }
                if !std::mem::replace(&mut seen[next.0 as usize], true) {
                    via[next.0 as usize] = Some(l);
                    queue.push_back(next);
                }
            }
        }
    }
    if let Some(r) = graph.room_ids().find(|r| !seen[r.0 as usize]) {
        return Err(PlanError::Unreachable(r));
    }
    // The goal was reached from somewhere: record a link into it from an earlier room.
    if via[goal.0 as usize].is_none() && goal != entrance {
        let earlier: Vec<bool> = {
            let mut e = vec![false; graph.room_bound()];
            for &r in &order {
                if r == goal {
                    break;
                }
                e[r.0 as usize] = true;
            }
            e
        };
        via[goal.0 as usize] = graph.incident_links(goal).map(|(l, _)| l).find(|&l| {
            let (a, b) = graph.endpoints(l).expect("live");
            let other = if a == goal { b } else { a };
            earlier[other.0 as usize] && graph.link(l).expect("live").passable(other == a)
        });
    }
    Ok((order, via))
}

/// Cuts the walk tree into regions behind gates, locks the ways into each region, turns some
/// into shortcuts.
fn lock_regions<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    order: &[RoomId],
    via: &[Option<LinkId>],
    options: &LockPlan,
    small_allowed: usize,
    rng: &mut R,
) -> Regions {
    let k = options.locks;
    let slots = graph.room_bound();
    // The walk tree: each room's parent is the room its walk link came from.
    let mut parent: Vec<Option<usize>> = vec![None; slots];
    for &r in order {
        if let Some(l) = via[r.0 as usize] {
            let (a, b) = graph.endpoints(l).expect("live");
            parent[r.0 as usize] = Some(if a == r { b } else { a }.0 as usize);
        }
    }
    let gates = choose_gates(order, &parent, k, rng);
    // Regions: 0 for the entrance's, then 1.. in walk order of their gate rooms.
    let mut region: Vec<Option<u32>> = vec![None; slots];
    let mut next = 1;
    for &r in order {
        let x = r.0 as usize;
        region[x] = Some(if gates[x] {
            next += 1;
            next - 1
        } else {
            parent[x].and_then(|p| region[p]).unwrap_or(0)
        });
    }
    // The kind of each region's lock, spread at random over the regions.
    let mut kinds: Vec<Opener> = std::iter::repeat_n(Opener::SmallKey, small_allowed)
        .chain(std::iter::repeat_n(Opener::Switch, options.switches))
        .chain(std::iter::repeat_n(Opener::Task, options.tasks))
        .collect();
    kinds.resize(k, Opener::Key);
    seed::shuffle(rng, &mut kinds);
    // Every region has its own lock id; for a small-key region that is its own ring, so its
    // small keys open only its doors and a player cannot spend them elsewhere.
    let locks: Vec<Lock> = kinds
        .iter()
        .map(|&opener| Lock {
            by: graph.new_key(),
            opener,
        })
        .collect();
    let link_bound = graph.link_bound();
    let mut is_gate = vec![false; link_bound];
    for &r in order {
        if gates[r.0 as usize]
            && let Some(l) = via[r.0 as usize]
        {
            is_gate[l.0 as usize] = true;
        }
    }
    // Links between regions: gates, and the other ways across (which get a lock too, or
    // become one-way shortcuts back from the later region).
    let mut crossings: Vec<(LinkId, u32, u32)> = Vec::new(); // (link, region of from, of to)
    for (l, a, b, link) in graph.links() {
        let (Some(ra), Some(rb)) = (region[a.0 as usize], region[b.0 as usize]) else {
            continue;
        };
        if ra != rb && link.lock.is_none() && link.kind.is_passable() {
            crossings.push((l, ra, rb));
        }
    }
    // The region tree: each region's parent is the region its gate is entered from.
    let mut region_parent: Vec<Option<u32>> = vec![None; k + 1];
    for &r in order {
        let x = r.0 as usize;
        if gates[x]
            && let (Some(g), Some(p)) = (region[x], parent[x])
        {
            region_parent[g as usize] = region[p];
        }
    }
    let is_ancestor = |a: u32, mut b: u32| {
        while let Some(p) = region_parent[b as usize] {
            if p == a {
                return true;
            }
            b = p;
        }
        false
    };
    // A shortcut leads from a region back into one of the regions on the way to it, never
    // sideways: a player who came through the earlier region can walk back to where they
    // were from there (every lock on the way opened behind them), so the shortcut traps no
    // one; sideways, it would drop the player into a region whose way out needs an opener they
    // may never have picked up.
    let mut shortcut_pool: Vec<usize> = (0..crossings.len())
        .filter(|&i| {
            let (l, ra, rb) = crossings[i];
            !is_gate[l.0 as usize]
                && graph.link(l).is_some_and(|x| x.kind == LinkKind::Door)
                && (is_ancestor(ra, rb) || is_ancestor(rb, ra))
        })
        .collect();
    seed::shuffle(rng, &mut shortcut_pool);
    // The region each crossing enters (the later of two-way ends), which takes that region's
    // lock unless it becomes a shortcut.
    let enters = |&(l, ra, rb): &(LinkId, u32, u32)| -> Option<u32> {
        let link = graph.link(l)?;
        match (link.passable(true), link.passable(false)) {
            (true, true) => Some(ra.max(rb)),
            (true, false) => Some(rb),
            (false, true) => Some(ra),
            (false, false) => None,
        }
    };
    // Keep a shortcut only where no player can stand at its tail without having come through
    // a door into the region it leads back to (so they hold that region's opener, or opened
    // its small-key door): walking any link but the locked doors into that region (and the
    // shortcut itself), its tail must be out of reach.
    let mut chosen: Vec<usize> = Vec::new();
    for &i in &shortcut_pool {
        if chosen.len() >= options.one_way_shortcuts {
            break;
        }
        let (l, ra, rb) = crossings[i];
        let (earlier, tail) = {
            let (a, b) = graph.endpoints(l).expect("live");
            if ra < rb { (ra, b) } else { (rb, a) }
        };
        let shut: Vec<LinkId> = crossings
            .iter()
            .enumerate()
            .filter(|(j, c)| !chosen.contains(j) && enters(c) == Some(earlier))
            .map(|(_, c)| c.0)
            .chain([l])
            .collect();
        if earlier == 0 || !reaches_without(graph, order[0], tail, &shut) {
            chosen.push(i);
        }
    }
    let shortcut_pool = chosen;
    let mut shortcuts = Vec::new();
    let mut added = Vec::new();
    for (i, &(l, ra, rb)) in crossings.iter().enumerate() {
        let link = *graph.link(l).expect("live");
        if shortcut_pool.contains(&i) {
            // One-way from the later region back to the earlier one.
            if ra < rb {
                graph.reverse_link(l).expect("live link");
            }
            if let Some(x) = graph.link_mut(l) {
                x.kind = LinkKind::OneWay;
            }
            shortcuts.push(l);
            continue;
        }
        // The region entered through this link: for a two-way link, the later of the two
        // (the earlier one was opened on the way to the later one when it is its ancestor).
        let entered = match (link.passable(true), link.passable(false)) {
            (true, true) => ra.max(rb),
            (true, false) => rb,
            (false, true) => ra,
            (false, false) => continue,
        };
        if entered == 0 {
            continue;
        }
        let lock = locks[entered as usize - 1];
        if let Some(x) = graph.link_mut(l) {
            x.lock = Some(lock);
        }
        added.push((l, lock));
    }
    shortcuts.sort_unstable();
    Regions {
        region,
        locks,
        added,
        shortcuts,
    }
}

/// Whether `to` can be reached from `from` walking any link but windows and `shut`, either way
/// (more than a player reaches, so `false` is a proof).
fn reaches_without(graph: &LevelGraph, from: RoomId, to: RoomId, shut: &[LinkId]) -> bool {
    let mut seen = vec![false; graph.room_bound()];
    seen[from.0 as usize] = true;
    let mut queue = VecDeque::from([from]);
    while let Some(r) = queue.pop_front() {
        if r == to {
            return true;
        }
        for (l, next, link, _) in graph.links_at(r) {
            if link.kind.is_passable()
                && !shut.contains(&l)
                && !std::mem::replace(&mut seen[next.0 as usize], true)
            {
                queue.push_back(next);
            }
        }
    }
    false
}

/// What [`lock_regions`] did.
struct Regions {
    /// The region of each room slot.
    region: Vec<Option<u32>>,
    /// Each region's lock (region `i + 1` at index `i`).
    locks: Vec<Lock>,
    /// The locks added.
    added: Vec<(LinkId, Lock)>,
    /// The links turned into shortcuts.
    shortcuts: Vec<LinkId>,
}

/// Picks `k` rooms (never the entrance) whose walk links become gates, so that the regions
/// behind them (each gate's subtree less the subtrees of the gates below it) are connected and
/// of roughly equal size. Returns a flag per room slot.
///
/// Greedy from the leaves up: a room whose ungated subtree reaches the target size (with a
/// random jitter of +-25%) gets a gate. The target shrinks until at least `k` gates come out;
/// then the smallest regions merge into the ones above them until `k` are left.
fn choose_gates<R: Rng + ?Sized>(
    order: &[RoomId],
    parent: &[Option<usize>],
    k: usize,
    rng: &mut R,
) -> Vec<bool> {
    let slots = parent.len();
    let n = order.len();
    let jitter: Vec<f64> = order.iter().map(|_| 0.75 + 0.5 * seed::unit(rng)).collect();
    let mut target = n as f64 / (k + 1) as f64;
    loop {
        let mut gates = vec![false; slots];
        let mut size = vec![0usize; slots];
        let mut count = 0;
        for (i, r) in order.iter().enumerate().rev() {
            let x = r.0 as usize;
            size[x] += 1;
            let Some(p) = parent[x] else { continue };
            // At the smallest target every room but the entrance may be a gate.
            let threshold = if target <= 1.0 {
                1.0
            } else {
                target * jitter[i]
            };
            if k > 0 && size[x] as f64 >= threshold {
                gates[x] = true;
                count += 1;
            } else {
                size[p] += size[x];
            }
        }
        if count >= k || target <= 1.0 {
            // Merge the smallest regions upwards until k gates are left.
            let mut by_size: Vec<(usize, usize)> = (0..slots)
                .filter(|&x| gates[x])
                .map(|x| (size[x], x))
                .collect();
            by_size.sort_unstable();
            for &(_, x) in by_size.iter().take(count.saturating_sub(k)) {
                gates[x] = false;
            }
            return gates;
        }
        target = (target * 0.8).max(1.0);
    }
}

/// One script of a [`Scenario`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The sectors the script closes off, in the order they were collected.
    pub rooms: Vec<RoomId>,
    /// The lock on the links around them.
    pub lock: Lock,
    /// The links the script closes.
    pub links: Vec<LinkId>,
    /// Where its opener lies.
    pub opener_room: RoomId,
}

/// A chained lock-and-key script over a sector graph (`shared/spec/sectors.md`, steps 9 and 12).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// The scripts, outermost first: script 0 holds the exit.
    pub scripts: Vec<Script>,
    /// The start: the last free sector.
    pub start: RoomId,
    /// The exit room (in script 0's sectors).
    pub exit: RoomId,
}

/// Settings of [`sector_scenario`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioOptions {
    /// Chance that a neighbouring sector joins the list being built.
    pub continue_chance: f64,
    /// Most keys among the openers (0 to 3 in the spec); the rest are switches.
    pub max_keys: usize,
}

impl Default for ScenarioOptions {
    fn default() -> ScenarioOptions {
        ScenarioOptions {
            continue_chance: 0.5,
            max_keys: 3,
        }
    }
}

/// The sector pipeline's scenario: chained scripts peeled from the edge of the graph inwards.
///
/// While free sectors remain: take a free sector with the fewest free links whose removal keeps
/// the free sectors connected; grow a list from it through neighbouring free sectors whose
/// removal also keeps them connected, each joining with `continue_chance`; close every link
/// between the list and the remaining free sectors with a new script's lock, and put the previous
/// script's opener in one of this list's sectors. The last free sector is the start and holds
/// the last script's opener. Script 0's first sector becomes the exit. Then 0 to `max_keys`
/// openers, drawn at random among those not in the start sector, become keys; the rest are
/// switches. No opener lies in a secret room (when a list has only secret rooms, the opener goes
/// to the next list). Room kinds: the start becomes the entrance, the exit an exit; any other
/// entrance or exit becomes a normal room.
///
/// # Errors
/// [`GraphError::NotConnected`] if the graph is not connected.
///
/// # Complexity
/// `O(V · (V + E))`: a connectivity check per sector.
///
/// # Examples
/// ```
/// use levelplan::graph::lock_and_key::{sector_scenario, ScenarioOptions};
/// use levelplan::graph::random::connected_graph;
/// use levelplan::graph::solve::solve;
///
/// let mut g = connected_graph(20, 4, &mut levelplan::seed::stream(5, "doc"));
/// let scenario = sector_scenario(&mut g, &ScenarioOptions::default(), &mut levelplan::seed::stream(5, "scenario"))?;
/// assert_eq!(g.entrance(), Some(scenario.start));
/// assert!(solve(&g).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sector_scenario<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    options: &ScenarioOptions,
    rng: &mut R,
) -> Result<Scenario, GraphError> {
    let components = super::query::component_count(graph);
    if components > 1 {
        return Err(GraphError::NotConnected {
            components,
            what: "a sector scenario",
        });
    }
    let n = graph.room_bound();
    let mut free = vec![false; n];
    for r in graph.room_ids() {
        free[r.0 as usize] = true;
    }
    let free_degree = |free: &[bool], r: RoomId| {
        graph
            .incident_links(r)
            .filter(|&(_, o)| free[o.0 as usize])
            .count()
    };
    // Whether the free sectors stay connected without `r`.
    let removable = |free: &[bool], r: RoomId| {
        let mut f = free.to_vec();
        f[r.0 as usize] = false;
        let Some(start) = graph.room_ids().find(|x| f[x.0 as usize]) else {
            return true;
        };
        let mut seen = vec![false; n];
        seen[start.0 as usize] = true;
        let mut queue = VecDeque::from([start]);
        let mut count = 1;
        while let Some(x) = queue.pop_front() {
            for (_, y) in graph.incident_links(x) {
                if f[y.0 as usize] && !std::mem::replace(&mut seen[y.0 as usize], true) {
                    count += 1;
                    queue.push_back(y);
                }
            }
        }
        count == f.iter().filter(|&&b| b).count()
    };
    let mut lists: Vec<Vec<RoomId>> = Vec::new();
    while free.iter().filter(|&&b| b).count() > 1 {
        let candidates: Vec<RoomId> = graph
            .room_ids()
            .filter(|&r| free[r.0 as usize] && removable(&free, r))
            .collect();
        let fewest = candidates
            .iter()
            .map(|&r| free_degree(&free, r))
            .min()
            .unwrap_or(0);
        let seeds: Vec<RoomId> = candidates
            .into_iter()
            .filter(|&r| free_degree(&free, r) == fewest)
            .collect();
        let first = seeds[seed::index(rng, seeds.len())];
        free[first.0 as usize] = false;
        let mut list = vec![first];
        let mut i = 0;
        while i < list.len() {
            let x = list[i];
            i += 1;
            for (_, y) in graph.incident_links(x) {
                let remaining = free.iter().filter(|&&b| b).count();
                if free[y.0 as usize]
                    && remaining > 1
                    && removable(&free, y)
                    && seed::chance(rng, options.continue_chance)
                {
                    free[y.0 as usize] = false;
                    list.push(y);
                }
            }
        }
        lists.push(list);
    }
    let start = graph
        .room_ids()
        .find(|r| free[r.0 as usize])
        .ok_or(GraphError::NotConnected {
            components: 0,
            what: "a sector scenario",
        })?;
    // Scripts close each list off from everything peeled later (and from the start).
    let mut in_list: Vec<Option<usize>> = vec![None; n];
    for (i, list) in lists.iter().enumerate() {
        for r in list {
            in_list[r.0 as usize] = Some(i);
        }
    }
    let later = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (Some(x), Some(y)) => y > x,
        (Some(_), None) => true, // the start is later than every list
        _ => false,
    };
    let mut scripts = Vec::new();
    for (i, list) in lists.iter().enumerate() {
        let lock = Lock {
            by: graph.new_key(),
            opener: Opener::Switch,
        };
        let mut links = Vec::new();
        for &r in list {
            for (l, o) in graph.incident_links(r) {
                if later(Some(i), in_list[o.0 as usize]) && !links.contains(&l) {
                    links.push(l);
                }
            }
        }
        links.sort_unstable();
        // The opener lies in the next list (or the start), never in a secret room.
        let holders: Vec<RoomId> = match lists.get(i + 1) {
            Some(next) => next.clone(),
            None => vec![start],
        };
        let mut eligible: Vec<RoomId> = holders
            .iter()
            .copied()
            .filter(|r| graph.room(*r).is_some_and(|x| x.kind != RoomKind::Secret))
            .collect();
        if eligible.is_empty() {
            // A list of secret rooms only: the opener moves further in.
            eligible = lists[i + 1..]
                .iter()
                .flatten()
                .copied()
                .chain([start])
                .filter(|r| graph.room(*r).is_some_and(|x| x.kind != RoomKind::Secret))
                .collect();
        }
        if eligible.is_empty() {
            eligible.push(start);
        }
        let opener_room = eligible[seed::index(rng, eligible.len())];
        scripts.push(Script {
            rooms: list.clone(),
            lock,
            links,
            opener_room,
        });
    }
    // 0..=max_keys of the openers become keys; never the one in the start sector.
    let keyable: Vec<usize> = (0..scripts.len())
        .filter(|&i| scripts[i].opener_room != start)
        .collect();
    let keys = seed::range_inclusive(rng, 0, options.max_keys.min(keyable.len()) as u32) as usize;
    let mut pool = keyable;
    seed::shuffle(rng, &mut pool);
    for &i in pool.iter().take(keys) {
        scripts[i].lock.opener = Opener::Key;
    }
    for s in &scripts {
        for &l in &s.links {
            if let Some(link) = graph.link_mut(l) {
                link.lock = Some(s.lock);
            }
        }
        if let Some(room) = graph.room_mut(s.opener_room) {
            room.items.push(opener_item(s.lock));
        }
    }
    let exit = scripts.first().map(|s| s.rooms[0]).unwrap_or(start);
    let ids: Vec<RoomId> = graph.room_ids().collect();
    for r in ids {
        let room = graph.room_mut(r).expect("listed");
        if r == start {
            room.kind = RoomKind::Entrance;
        } else if r == exit {
            room.kind = RoomKind::Exit;
        } else if matches!(room.kind, RoomKind::Entrance | RoomKind::Exit) {
            room.kind = RoomKind::Normal;
        }
    }
    Ok(Scenario {
        scripts,
        start,
        exit,
    })
}
