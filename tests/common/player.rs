//! An exhaustive player, independent of the solver: every walk of a level, state by state, and
//! a strict replay of walkthroughs. Shared by the tests and the completability report
//! (`examples/completability.rs` includes this file).
//!
//! The player model is the one `levelplan::graph::solve` promises to check: the player walks any
//! path, may skip any room and any opener, picks up any of the openers of the room it stands in, passes a key / switch / task lock while it holds
//! that opener, opens a small-key lock by spending one small key of the lock's ring (the door then
//! stays open), passes one-way links forwards only, never passes windows, and finds secret links.
//!
//! Openers are taken one by one: a player may take one key of a room and leave another there,
//! so the state records the openers taken, not the rooms emptied.
#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};

use levelplan::graph::solve::Step;
use levelplan::{Item, LevelGraph, LinkId, LinkKind, Lock, Opener, RoomId, RoomKind};

/// Everything the exhaustive player finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Some play reaches the goal.
    pub goal_reachable: bool,
    /// Rooms where a reachable state from which the goal cannot be reached stands.
    pub dead_rooms: BTreeSet<RoomId>,
    /// Rooms some play enters.
    pub rooms_entered: BTreeSet<RoomId>,
    /// Openers some play picks up, as (room, index among the room's items).
    pub openers_taken: BTreeSet<(RoomId, usize)>,
    /// Locked links some play passes (small locks: opens).
    pub locks_passed: BTreeSet<LinkId>,
    /// States explored.
    pub states: usize,
}

impl Verdict {
    /// Non-secret rooms no play enters.
    pub fn rooms_never_entered(&self, g: &LevelGraph) -> Vec<RoomId> {
        g.rooms()
            .filter(|(id, r)| r.kind != RoomKind::Secret && !self.rooms_entered.contains(id))
            .map(|(id, _)| id)
            .collect()
    }

    /// Openers no play picks up, as (room, item), in room order.
    pub fn openers_never_taken(&self, g: &LevelGraph) -> Vec<(RoomId, Item)> {
        g.rooms()
            .flat_map(|(id, r)| {
                r.items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| item.opens().is_some())
                    .filter(move |(i, _)| !self.openers_taken.contains(&(id, *i)))
                    .map(move |(_, item)| (id, item.clone()))
            })
            .collect()
    }

    /// Locked links no play passes.
    pub fn locks_never_passed(&self, g: &LevelGraph) -> Vec<(LinkId, Lock)> {
        g.locks()
            .filter(|(l, _)| !self.locks_passed.contains(l))
            .collect()
    }

    /// Whether every non-secret room, opener and lock is reached in some play.
    pub fn everything_reached(&self, g: &LevelGraph) -> bool {
        self.rooms_never_entered(g).is_empty()
            && self.openers_never_taken(g).is_empty()
            && self.locks_never_passed(g).is_empty()
    }

    /// The verdict a sound solver must give: accept only a level whose goal is reachable, with
    /// no dead state and everything reached.
    pub fn accepts(&self, g: &LevelGraph) -> bool {
        self.goal_reachable && self.dead_rooms.is_empty() && self.everything_reached(g)
    }
}

/// Explores every state `(room, openers taken, small locks opened)` reachable from `start`;
/// `None` if there are more than `max_states`.
///
/// Panics if the level has more than 64 openers or 32 small locks (test inputs only).
pub fn exhaustive(
    g: &LevelGraph,
    start: RoomId,
    goal: RoomId,
    max_states: usize,
) -> Option<Verdict> {
    // Every opener instance: (room, index among the room's items, item).
    let openers: Vec<(RoomId, usize, Item)> = g
        .rooms()
        .flat_map(|(id, r)| {
            r.items
                .iter()
                .cloned()
                .enumerate()
                .filter(|(_, i)| i.opens().is_some())
                .map(move |(i, item)| (id, i, item))
        })
        .collect();
    assert!(openers.len() <= 64, "too many openers for the checker");
    let small: Vec<LinkId> = g
        .locks()
        .filter(|(_, k)| k.opener == Opener::SmallKey)
        .map(|(l, _)| l)
        .collect();
    assert!(small.len() <= 32, "too many small locks for the checker");
    let holds = |taken: u64, lock: Lock| -> bool {
        openers.iter().enumerate().any(|(o, (_, _, item))| {
            taken >> o & 1 == 1 && item.opens() == Some((lock.by, lock.opener))
        })
    };
    let keys_left = |taken: u64, opened: u32, ring| -> i64 {
        let got = openers
            .iter()
            .enumerate()
            .filter(|(o, (_, _, item))| taken >> o & 1 == 1 && *item == Item::SmallKey(ring))
            .count();
        let used = small
            .iter()
            .enumerate()
            .filter(|(s, l)| opened >> s & 1 == 1 && g.link(**l).unwrap().lock.unwrap().by == ring)
            .count();
        got as i64 - used as i64
    };
    type St = (RoomId, u64, u32);
    let first: St = (start, 0, 0);
    let mut index: HashMap<St, usize> = HashMap::from([(first, 0)]);
    let mut states = vec![first];
    let mut edges: Vec<Vec<usize>> = vec![Vec::new()];
    let mut locks_passed = BTreeSet::new();
    let mut i = 0;
    while i < states.len() {
        let (room, taken, opened) = states[i];
        let mut next: Vec<St> = Vec::new();
        for (o, (at, _, _)) in openers.iter().enumerate() {
            if *at == room && taken >> o & 1 == 0 {
                next.push((room, taken | 1 << o, opened));
            }
        }
        for (l, other) in g.incident_links(room) {
            let link = g.link(l).unwrap();
            let (from, _) = g.endpoints(l).unwrap();
            let passable = match link.kind {
                LinkKind::Window => false,
                LinkKind::OneWay => from == room,
                LinkKind::Door | LinkKind::Secret | LinkKind::Open | LinkKind::Warp => true,
            };
            if !passable {
                continue;
            }
            match link.lock {
                None => next.push((other, taken, opened)),
                Some(lock) if lock.opener == Opener::SmallKey => {
                    let s = small.iter().position(|&x| x == l).unwrap();
                    if opened >> s & 1 == 1 {
                        next.push((other, taken, opened));
                    } else if keys_left(taken, opened, lock.by) > 0 {
                        locks_passed.insert(l);
                        next.push((room, taken, opened | 1 << s));
                    }
                }
                Some(lock) => {
                    if holds(taken, lock) {
                        locks_passed.insert(l);
                        next.push((other, taken, opened));
                    }
                }
            }
        }
        for s in next {
            let j = match index.get(&s) {
                Some(&j) => j,
                None => {
                    if states.len() >= max_states {
                        return None;
                    }
                    states.push(s);
                    edges.push(Vec::new());
                    index.insert(s, states.len() - 1);
                    states.len() - 1
                }
            };
            edges[i].push(j);
        }
        i += 1;
    }
    // Backwards from the states at the goal: which states can still get there.
    let n = states.len();
    let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (s, outs) in edges.iter().enumerate() {
        for &t in outs {
            reverse[t].push(s);
        }
    }
    let mut alive: Vec<bool> = states.iter().map(|s| s.0 == goal).collect();
    let mut stack: Vec<usize> = (0..n).filter(|&s| alive[s]).collect();
    while let Some(t) = stack.pop() {
        for &s in &reverse[t] {
            if !alive[s] {
                alive[s] = true;
                stack.push(s);
            }
        }
    }
    let mut openers_taken = BTreeSet::new();
    for &(_, taken, _) in &states {
        for (o, (room, i, _)) in openers.iter().enumerate() {
            if taken >> o & 1 == 1 {
                openers_taken.insert((*room, *i));
            }
        }
    }
    Some(Verdict {
        goal_reachable: states.iter().any(|s| s.0 == goal),
        dead_rooms: (0..n).filter(|&s| !alive[s]).map(|s| states[s].0).collect(),
        rooms_entered: states.iter().map(|s| s.0).collect(),
        openers_taken,
        locks_passed,
        states: n,
    })
}

/// Replays a walkthrough strictly. Between steps the player walks through passable links whose
/// lock is open (unlocked, or opened by an earlier step), one-way links forwards only. A
/// `Collect` needs its room reachable and the item lying there, not yet taken; an `Open` needs
/// a reachable side from which the link can be passed, the link's own lock, and its opener in
/// hand (a small key is used up); a `OneWay` goes forwards through a one-way link whose lock is
/// open, from a reachable tail; the last step, and only it, is `Reach` of the goal.
pub fn replay(g: &LevelGraph, start: RoomId, goal: RoomId, steps: &[Step]) -> Result<(), String> {
    let mut at = start;
    let mut taken: Vec<(RoomId, Item)> = Vec::new();
    let mut opened: BTreeSet<LinkId> = BTreeSet::new();
    let mut small_spent: Vec<levelplan::KeyId> = Vec::new();
    let reach = |from: RoomId, opened: &BTreeSet<LinkId>| -> BTreeSet<RoomId> {
        let mut seen = BTreeSet::from([from]);
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            for (l, y) in g.incident_links(x) {
                let link = g.link(l).unwrap();
                let (a, _) = g.endpoints(l).unwrap();
                let passable = match link.kind {
                    LinkKind::Window => false,
                    LinkKind::OneWay => a == x,
                    _ => true,
                };
                let open = link.lock.is_none() || opened.contains(&l);
                if passable && open && seen.insert(y) {
                    stack.push(y);
                }
            }
        }
        seen
    };
    for (n, step) in steps.iter().enumerate() {
        let here = reach(at, &opened);
        match step {
            Step::Collect { room, item } => {
                if !here.contains(room) {
                    return Err(format!("step {n} ({step}): {room} cannot be reached"));
                }
                let lying = g
                    .room(*room)
                    .map_or(0, |r| r.items.iter().filter(|i| *i == item).count());
                let already = taken.iter().filter(|(r, i)| r == room && i == item).count();
                if item.opens().is_none() || lying <= already {
                    return Err(format!("step {n} ({step}): no such opener left there"));
                }
                taken.push((*room, item.clone()));
                at = *room;
            }
            Step::Open { link, lock } => {
                let Some((a, b)) = g.endpoints(*link) else {
                    return Err(format!("step {n} ({step}): no such link"));
                };
                let data = g.link(*link).unwrap();
                if data.lock != Some(*lock) {
                    return Err(format!("step {n} ({step}): the link has another lock"));
                }
                if opened.contains(link) {
                    return Err(format!("step {n} ({step}): already open"));
                }
                let side = if here.contains(&a) && data.passable(true) {
                    a
                } else if here.contains(&b) && data.passable(false) {
                    b
                } else {
                    return Err(format!(
                        "step {n} ({step}): no side it can be passed from is reachable"
                    ));
                };
                let ok = match lock.opener {
                    Opener::SmallKey => {
                        let got = taken
                            .iter()
                            .filter(|(_, i)| *i == Item::SmallKey(lock.by))
                            .count();
                        let used = small_spent.iter().filter(|r| **r == lock.by).count();
                        got > used
                    }
                    _ => taken
                        .iter()
                        .any(|(_, i)| i.opens() == Some((lock.by, lock.opener))),
                };
                if !ok {
                    return Err(format!("step {n} ({step}): opener not in hand"));
                }
                if lock.opener == Opener::SmallKey {
                    small_spent.push(lock.by);
                }
                opened.insert(*link);
                at = side;
            }
            Step::OneWay { link, to } => {
                let Some((a, b)) = g.endpoints(*link) else {
                    return Err(format!("step {n} ({step}): no such link"));
                };
                let data = g.link(*link).unwrap();
                if data.kind != LinkKind::OneWay || b != *to {
                    return Err(format!("step {n} ({step}): not a one-way link into {to}"));
                }
                if data.lock.is_some() && !opened.contains(link) {
                    return Err(format!("step {n} ({step}): its lock is shut"));
                }
                if !here.contains(&a) {
                    return Err(format!("step {n} ({step}): its tail {a} cannot be reached"));
                }
                at = *to;
            }
            Step::Reach { room } => {
                if *room != goal || n + 1 != steps.len() {
                    return Err(format!("step {n} ({step}): Reach must be the goal, last"));
                }
                if !here.contains(room) {
                    return Err(format!("step {n} ({step}): the goal cannot be reached"));
                }
                return Ok(());
            }
        }
    }
    Err("the walkthrough does not end by reaching the goal".into())
}
