//! Safety for a player who skips: no play of any player gets stuck, and no part of the level is
//! out of every play's reach.
//!
//! A player who has skipped openers is worse off than one who took them (holding more never
//! hurts: every move open to the one is open to the other), so a trap is a place where the
//! player arrives *without* something. Walking and picking up can never trap anyone (a two-way
//! link can be walked back, and a pick-up only adds): only an irreversible step can, a one-way
//! link taken or a small key spent. So a level traps some player exactly when some play reaches
//! such a step with a set of openers `T` and the state just after it is dead (the goal cannot be
//! reached from it, whatever the player does next).
//!
//! The search does not enumerate the sets `T`. It runs the area search for a player who takes
//! everything but a set `F` of openers they skip for good, starting with `F` empty. At every
//! irreversible step it checks the state just after: if it is dead, that is the trap. If it is
//! alive, it finds a smallest part `U` of what the player holds with which it is still alive
//! (a *rescue set*: anyone arriving there holding `U` gets out), and for each opener `u` of `U`
//! searches again with `u` added to `F`: a player who lacks `u` is the only kind this step could
//! still trap. Every trap is found this way: if a play arrives holding `T*` in a dead state, take
//! `F*` to be everything not in `T*`; each search with `F` inside `F*` reaches the same step
//! holding at least `T*`, alive, so its rescue set holds an opener outside `T*`, that is, in
//! `F*` but not in `F`, and one of the branches grows `F` inside `F*` again, until the trap
//! shows. Levels whose one-way links lead into areas that need nothing from behind (the usual
//! case, and what the lock planner builds) have empty rescue sets, and the search ends with
//! the first pass.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::Step;
use super::Unsolvable;
use super::search::{Bits, Budget, Prepared, Raw, Search, StateKey, Transition};
use crate::graph::level::{Item, LevelGraph, LinkId, Lock, Opener, RoomId, RoomKind};

/// A trap found: the steps into it, and the dead state it leaves the player in.
pub(super) struct Trap {
    steps: Vec<Step>,
    shut_by: LinkId,
    dead: Raw,
    skipped: Bits,
}

/// Whether states can still reach the goal, shared by every search of a solve: by the key of
/// their area state, and by the raw position (which spares the closure).
#[derive(Default)]
struct Memo {
    states: HashMap<StateKey, bool>,
    raw: HashMap<Raw, bool>,
    /// Per skip set, the rooms such a player might reach (see [`Prepared::may_reach`]).
    reach: HashMap<Bits, Bits>,
}

impl Prepared {
    /// Non-secret rooms, openers and locks that no play reaches, as an error; `None` if every
    /// part of the level is reached in some play. `search` is the thorough player's search
    /// from the start, whose states cover every play (a thorough player can follow any walk,
    /// holding at least as much).
    pub(super) fn never_reached(&self, graph: &LevelGraph, search: &Search) -> Option<Unsolvable> {
        let reach = search.reach_union(self.rooms());
        let mut held = Bits::new(self.openers.len());
        let mut spent = Bits::new(self.small_count);
        for s in &search.states {
            held.union_with(&s.held);
            spent.union_with(&s.spent);
        }
        // A spend can lead to a state already known under another spending order.
        for outs in &search.edges {
            for &(t, _) in outs {
                if let Transition::Spend(l) = t {
                    spent.set(self.small_index[l.0 as usize].expect("a small lock"));
                }
            }
        }
        let rooms: Vec<RoomId> = graph
            .rooms()
            .filter(|(id, room)| room.kind != RoomKind::Secret && !reach.get(id.0 as usize))
            .map(|(id, _)| id)
            .collect();
        let openers: Vec<(RoomId, Item)> = self
            .openers
            .iter()
            .enumerate()
            .filter(|(i, _)| !held.get(*i))
            .map(|(_, o)| (o.room, o.item.clone()))
            .collect();
        let mut locks: Vec<(LinkId, Lock)> = Vec::new();
        for (l, entry) in self.links.iter().enumerate() {
            let Some((a, b, link)) = entry else { continue };
            let Some(lock) = link.lock else { continue };
            let id = LinkId(l as u32);
            let passed = if lock.opener == Opener::SmallKey {
                self.small_index[l].is_some_and(|i| spent.get(i))
            } else {
                search.states.iter().any(|s| {
                    self.open(id, link.lock, &s.held, &s.spent)
                        && ((s.reach.get(*a) && link.passable(true))
                            || (s.reach.get(*b) && link.passable(false)))
                })
            };
            if !passed {
                locks.push((id, lock));
            }
        }
        if rooms.is_empty() && openers.is_empty() && locks.is_empty() {
            return None;
        }
        Some(Unsolvable::NeverReached {
            rooms,
            openers,
            locks,
            blockers: self.blockers(search),
        })
    }

    /// The thorough player's trap: the first state of the search (breadth first) from which
    /// the goal cannot be reached.
    pub(super) fn thorough_trap(&self, search: &Search) -> Option<Trap> {
        let alive = search.alive();
        let dead = (0..search.states.len()).find(|&s| !alive[s])?;
        let path = search.path_to(dead);
        let steps = self.transition_steps(search, &path);
        let (_, t) = search.states[dead].parent.expect("the start is alive");
        Some(Trap {
            steps,
            shut_by: link_of(t),
            dead: search.states[dead].raw(),
            skipped: Bits::new(self.openers.len()),
        })
    }

    /// The skipping player's trap, if any (see the module docs). `search` is the thorough
    /// player's search from `root`.
    pub(super) fn skipping_trap(
        &self,
        search: &Search,
        root: Raw,
        budget: &mut Budget,
    ) -> Result<Option<Trap>, Unsolvable> {
        let goal = search.goal;
        let mut memo = Memo::default();
        let alive = search.alive();
        for (i, s) in search.states.iter().enumerate() {
            memo.states.insert(self.key(s), alive[i]);
        }
        let nothing = Bits::new(self.openers.len());
        let mut tried: HashSet<Bits> = HashSet::from([nothing.clone()]);
        let mut todo: Vec<Bits> = Vec::new();
        if let Some(trap) =
            self.check_steps(search, &nothing, Some(&alive), budget, &mut memo, |f| {
                if tried.insert(f.clone()) {
                    todo.push(f);
                }
            })?
        {
            return Ok(Some(trap));
        }
        // Depth first over the skip sets, smallest openers first (the order is only for
        // reproducible messages: every branch is searched).
        todo.reverse();
        while let Some(skip) = todo.pop() {
            let found = self.search(root.clone(), &skip, goal, budget, false)?;
            let mut next = Vec::new();
            if let Some(trap) = self.check_steps(&found, &skip, None, budget, &mut memo, |f| {
                if tried.insert(f.clone()) {
                    next.push(f);
                }
            })? {
                return Ok(Some(trap));
            }
            next.reverse();
            todo.extend(next);
        }
        Ok(None)
    }

    /// Checks the state after every irreversible step of `search` (a player skipping `skip`):
    /// a dead one is a trap; for a live one, each opener of its rescue set is handed to
    /// `branch` as `skip` plus that opener. `alive`, for a search that skips nothing, says
    /// which of its states are alive (the state after a step is then the one it leads to).
    fn check_steps(
        &self,
        search: &Search,
        skip: &Bits,
        alive: Option<&[bool]>,
        budget: &mut Budget,
        memo: &mut Memo,
        mut branch: impl FnMut(Bits),
    ) -> Result<Option<Trap>, Unsolvable> {
        for (i, outs) in search.edges.iter().enumerate() {
            for &(t, j) in outs {
                let after = self.after(&search.states[i], t);
                let lives = match alive {
                    Some(alive) => alive[j],
                    None => self.is_alive(&after, search.goal, budget, memo)?,
                };
                if !lives {
                    let mut steps = self.transition_steps(search, &search.path_to(i));
                    steps.push(self.transition_step(t));
                    return Ok(Some(Trap {
                        steps,
                        shut_by: link_of(t),
                        dead: after,
                        skipped: skip.clone(),
                    }));
                }
                let tail = self.tail(&search.states[i], t);
                let start = search.states[0].at;
                for u in self.rescue(&after, search.goal, budget, memo)? {
                    let mut more = skip.clone();
                    more.set(u);
                    // Only a player who can still get to this step without `u` needs a search.
                    if self.may_reach(start, &more, tail, &mut memo.reach) {
                        branch(more);
                    }
                }
            }
        }
        Ok(None)
    }

    /// The room a transition is taken from: the tail of the one-way link, or the side of the
    /// small lock in the area.
    fn tail(&self, s: &super::search::State, t: Transition) -> usize {
        let (Transition::Spend(l) | Transition::Move(l, _)) = t;
        let (a, b, link) = self.link(l);
        if s.area.get(a) && link.passable(true) {
            a
        } else {
            b
        }
    }

    /// Whether a player who never picks up `avoid` might stand in `room` at all: rooms reached
    /// from `start` taking everything else, one-way links forwards, every small lock of a ring
    /// counted open once a key of the ring is in hand (more than any such player reaches, so
    /// `false` is a proof). Memoised per `avoid`.
    fn may_reach(
        &self,
        start: RoomId,
        avoid: &Bits,
        room: usize,
        memo: &mut HashMap<Bits, Bits>,
    ) -> bool {
        if let Some(reach) = memo.get(avoid) {
            return reach.get(room);
        }
        let mut held = Bits::new(self.openers.len());
        let mut spent = Bits::new(self.small_count);
        let reach = loop {
            let (reach, _) = self.walk(start.0 as usize, &held, &spent, true);
            let mut new = false;
            for r in reach.ones() {
                for &o in &self.openers_in[r] {
                    if !held.get(o) && !avoid.get(o) {
                        held.set(o);
                        new = true;
                    }
                }
            }
            // A ring's doors might all be open once one of its keys is in hand.
            for i in self.small_locks_with_a_key(&held) {
                if !spent.get(i) {
                    spent.set(i);
                    new = true;
                }
            }
            if !new {
                break reach;
            }
        };
        let found = reach.get(room);
        memo.insert(avoid.clone(), reach);
        found
    }

    /// A smallest part of what the player holds at `raw` with which the goal can still be
    /// reached from there (the rest handed back to the rooms it came from): greedy, so minimal
    /// rather than minimum. `raw` must be alive.
    fn rescue(
        &self,
        raw: &Raw,
        goal: RoomId,
        budget: &mut Budget,
        memo: &mut Memo,
    ) -> Result<Vec<usize>, Unsolvable> {
        let with = |held: Bits| Raw {
            at: raw.at,
            held,
            spent: raw.spent.clone(),
        };
        let nothing = Bits::new(self.openers.len());
        if self.is_alive(&with(nothing.clone()), goal, budget, memo)? {
            return Ok(Vec::new());
        }
        // First guess: only what cannot be picked up again from here.
        let area = self.state(raw.clone(), &nothing, None);
        let mut kept = raw.held.clone();
        for o in raw.held.ones() {
            if area.reach.get(self.openers[o].room.0 as usize) {
                kept.clear(o);
            }
        }
        if kept != raw.held && !self.is_alive(&with(kept.clone()), goal, budget, memo)? {
            kept = raw.held.clone();
        }
        for o in kept.clone().ones() {
            let mut fewer = kept.clone();
            fewer.clear(o);
            if self.is_alive(&with(fewer.clone()), goal, budget, memo)? {
                kept = fewer;
            }
        }
        Ok(kept.ones().collect())
    }

    /// Whether the goal can be reached from `raw` by a player who takes everything.
    fn is_alive(
        &self,
        raw: &Raw,
        goal: RoomId,
        budget: &mut Budget,
        memo: &mut Memo,
    ) -> Result<bool, Unsolvable> {
        if let Some(&known) = memo.raw.get(raw) {
            return Ok(known);
        }
        let alive = self.closure_alive(raw, goal, budget, &mut memo.states)?;
        memo.raw.insert(raw.clone(), alive);
        Ok(alive)
    }

    fn closure_alive(
        &self,
        raw: &Raw,
        goal: RoomId,
        budget: &mut Budget,
        memo: &mut HashMap<StateKey, bool>,
    ) -> Result<bool, Unsolvable> {
        let nothing = Bits::new(self.openers.len());
        let first = self.state(raw.clone(), &nothing, None);
        let first_key = self.key(&first);
        if let Some(&known) = memo.get(&first_key) {
            return Ok(known);
        }
        budget.take()?;
        // Depth first: a live state usually reaches the goal down the first branch it tries.
        let mut seen: HashSet<StateKey> = HashSet::from([first_key.clone()]);
        let mut stack = vec![first];
        while let Some(s) = stack.pop() {
            if s.reach.get(goal.0 as usize) {
                memo.insert(first_key, true);
                return Ok(true);
            }
            for t in self.transitions(&s) {
                let next = self.state(self.after(&s, t), &nothing, None);
                let key = self.key(&next);
                match memo.get(&key) {
                    Some(true) => {
                        memo.insert(first_key, true);
                        return Ok(true);
                    }
                    Some(false) => continue,
                    None => {}
                }
                if seen.insert(key) {
                    budget.take()?;
                    stack.push(next);
                }
            }
        }
        // Nothing reachable reaches the goal: every state seen is dead.
        for key in seen {
            memo.insert(key, false);
        }
        Ok(false)
    }

    /// The error for a trap: where the player is shut in and what they left behind.
    pub(super) fn soft_lock(
        &self,
        trap: Trap,
        goal: RoomId,
        budget: &mut Budget,
    ) -> Result<Unsolvable, Unsolvable> {
        let nothing = Bits::new(self.openers.len());
        let after = self.search(trap.dead.clone(), &nothing, goal, budget, false)?;
        let reach = after.reach_union(self.rooms());
        let shut_in: BTreeSet<RoomId> = reach.ones().map(|r| RoomId(r as u32)).collect();
        Ok(Unsolvable::SoftLock {
            goal,
            steps: trap.steps,
            stuck_at: trap.dead.at,
            shut_by: trap.shut_by,
            shut_in: shut_in.into_iter().collect(),
            skipped: trap
                .skipped
                .ones()
                .map(|o| (self.openers[o].room, self.openers[o].item.clone()))
                .collect(),
        })
    }
}

fn link_of(t: Transition) -> LinkId {
    match t {
        Transition::Spend(l) | Transition::Move(l, _) => l,
    }
}
