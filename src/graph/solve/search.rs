//! The area search both player models share: states are areas the player can walk around in
//! and come back from, and the transitions between them are the irreversible choices (spending
//! a small key, taking a one-way link out of the area).

use std::collections::{HashMap, VecDeque};

use super::{Blocker, Missing, Step, Unsolvable};
use crate::graph::level::{Item, KeyId, LevelGraph, Link, LinkId, LinkKind, Lock, Opener, RoomId};

/// A compact set of small integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub(super) struct Bits(pub(super) Vec<u64>);

impl Bits {
    pub(super) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    pub(super) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    pub(super) fn union_with(&mut self, other: &Bits) {
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w |= o;
        }
    }
    /// The members, ascending.
    pub(super) fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word >> b & 1 == 1)
                .map(move |b| w * 64 + b)
        })
    }
}

/// An opener lying in a room: one item instance.
pub(super) struct OpenerAt {
    pub(super) room: RoomId,
    pub(super) item: Item,
    pub(super) key: KeyId,
    pub(super) opener: Opener,
}

/// A ring of small keys: the small keys that belong to it and the small locks they open.
struct Ring {
    keys: Vec<usize>,
    locks: Vec<usize>,
}

/// A position of the player: where they stand, what they have taken, which small locks they
/// opened. `held` holds opener instances; small keys left per ring are the ring's keys held
/// minus its locks opened, which may be negative in the hypothetical states the skipping search
/// builds (a spent key handed back to its room): a debt paid by picking keys up again.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Raw {
    pub(super) at: RoomId,
    pub(super) held: Bits,
    pub(super) spent: Bits,
}

/// The level prepared for the search: openers and locks numbered densely.
pub(super) struct Prepared {
    pub(super) openers: Vec<OpenerAt>,
    /// Per room id slot, the openers lying there.
    pub(super) openers_in: Vec<Vec<usize>>,
    /// Per link id slot: its small-lock index, if it has a small lock.
    pub(super) small_index: Vec<Option<usize>>,
    pub(super) small_count: usize,
    /// Per small lock: its ring (index into `rings`).
    small_ring: Vec<usize>,
    rings: Vec<Ring>,
    /// Per room id slot: `(link, other room, whether the link leaves this room)`.
    pub(super) adjacency: Vec<Vec<(LinkId, usize, bool)>>,
    /// Per link id slot: `(from, to, link)`.
    pub(super) links: Vec<Option<(usize, usize, Link)>>,
    /// Per link id slot: the openers that open its (unique) lock.
    lock_openers: Vec<Vec<usize>>,
    /// Lock classes: one per (id, kind) of a key, switch or task lock or opener.
    classes: usize,
    /// Per link id slot: the class of its lock (small locks and no lock: none).
    link_class: Vec<Option<usize>>,
    /// Per opener: its class (small keys: none).
    opener_class: Vec<Option<usize>>,
}

/// One abstract state and how it was reached.
pub(super) struct State {
    /// A room of the area (the position the area was entered at).
    pub(super) at: RoomId,
    pub(super) area: Bits,
    pub(super) reach: Bits,
    pub(super) held: Bits,
    pub(super) spent: Bits,
    /// Round (pick-up order) of each opener picked up here, as (opener, round).
    pub(super) picked: Vec<(usize, usize)>,
    pub(super) parent: Option<(usize, Transition)>,
}

impl State {
    pub(super) fn raw(&self) -> Raw {
        Raw {
            at: self.at,
            held: self.held.clone(),
            spent: self.spent.clone(),
        }
    }
}

/// An irreversible choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transition {
    /// Spend a small key on this link's lock.
    Spend(LinkId),
    /// Walk through this one-way link into this room.
    Move(LinkId, RoomId),
}

/// The identity of a search state; see [`Prepared::key`].
pub(super) type StateKey = (Bits, Bits, Bits, Vec<i64>);

/// The states one search found, and the transitions between them.
pub(super) struct Search {
    pub(super) states: Vec<State>,
    pub(super) first_win: Option<usize>,
    pub(super) goal: RoomId,
    /// Per state, the transitions taken from it and the states they lead to.
    pub(super) edges: Vec<Vec<(Transition, usize)>>,
}

/// How many states every search of one solve may create together.
pub(super) struct Budget {
    pub(super) used: usize,
    pub(super) limit: usize,
}

impl Budget {
    pub(super) fn take(&mut self) -> Result<(), Unsolvable> {
        if self.used >= self.limit {
            return Err(Unsolvable::TooManyStates { limit: self.limit });
        }
        self.used += 1;
        Ok(())
    }
}

impl Search {
    pub(super) fn path_to(&self, mut s: usize) -> Vec<usize> {
        let mut path = vec![s];
        while let Some((p, _)) = self.states[s].parent {
            path.push(p);
            s = p;
        }
        path.reverse();
        path
    }

    /// Per state, whether the goal can be reached from it.
    pub(super) fn alive(&self) -> Vec<bool> {
        let n = self.states.len();
        let mut alive = vec![false; n];
        let mut reverse: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (s, outs) in self.edges.iter().enumerate() {
            for &(_, t) in outs {
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
        alive
    }

    /// Everything some state reaches.
    pub(super) fn reach_union(&self, rooms: usize) -> Bits {
        let mut all = Bits::new(rooms);
        for s in &self.states {
            all.union_with(&s.reach);
        }
        all
    }
}

impl Prepared {
    pub(super) fn new(graph: &LevelGraph) -> Prepared {
        let n = graph.room_bound();
        let mut openers = Vec::new();
        let mut openers_in = vec![Vec::new(); n];
        for (id, room) in graph.rooms() {
            for item in &room.items {
                if let Some((key, opener)) = item.opens() {
                    openers_in[id.0 as usize].push(openers.len());
                    openers.push(OpenerAt {
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
        let mut rings: Vec<Ring> = Vec::new();
        let mut ring_ids: Vec<KeyId> = Vec::new();
        let mut small_ring = Vec::new();
        let mut ring_of = |k: KeyId, rings: &mut Vec<Ring>| -> usize {
            match ring_ids.iter().position(|&r| r == k) {
                Some(i) => i,
                None => {
                    ring_ids.push(k);
                    rings.push(Ring {
                        keys: Vec::new(),
                        locks: Vec::new(),
                    });
                    rings.len() - 1
                }
            }
        };
        for (l, a, b, link) in graph.links() {
            if let Some(lock) = link.lock.filter(|k| k.opener == Opener::SmallKey) {
                let i = small_ring.len();
                small_index[l.0 as usize] = Some(i);
                let r = ring_of(lock.by, &mut rings);
                small_ring.push(r);
                rings[r].locks.push(i);
            }
            links[l.0 as usize] = Some((a.0 as usize, b.0 as usize, *link));
            adjacency[a.0 as usize].push((l, b.0 as usize, true));
            adjacency[b.0 as usize].push((l, a.0 as usize, false));
        }
        for (i, o) in openers.iter().enumerate() {
            if o.opener == Opener::SmallKey {
                let r = ring_of(o.key, &mut rings);
                rings[r].keys.push(i);
            }
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
        // Lock classes, numbered in first-seen order.
        let mut class_ids: Vec<(KeyId, Opener)> = Vec::new();
        let mut class_of = |k: KeyId, o: Opener| -> Option<usize> {
            if o == Opener::SmallKey {
                return None;
            }
            Some(match class_ids.iter().position(|&c| c == (k, o)) {
                Some(i) => i,
                None => {
                    class_ids.push((k, o));
                    class_ids.len() - 1
                }
            })
        };
        let link_class: Vec<Option<usize>> = links
            .iter()
            .map(|e| e.and_then(|(_, _, link)| link.lock.and_then(|k| class_of(k.by, k.opener))))
            .collect();
        let opener_class: Vec<Option<usize>> =
            openers.iter().map(|o| class_of(o.key, o.opener)).collect();
        Prepared {
            classes: class_ids.len(),
            link_class,
            opener_class,
            openers,
            openers_in,
            small_index,
            small_count: small_ring.len(),
            small_ring,
            rings,
            adjacency,
            links,
            lock_openers,
        }
    }

    pub(super) fn rooms(&self) -> usize {
        self.adjacency.len()
    }

    pub(super) fn link(&self, l: LinkId) -> (usize, usize, Link) {
        self.links[l.0 as usize].expect("a live link")
    }

    /// Whether the link's lock (if any) is open.
    pub(super) fn open(&self, link: LinkId, lock: Option<Lock>, held: &Bits, spent: &Bits) -> bool {
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
    pub(super) fn walk(
        &self,
        start: usize,
        held: &Bits,
        spent: &Bits,
        forwards: bool,
    ) -> (Bits, Vec<usize>) {
        let mut seen = Bits::new(self.rooms());
        seen.set(start);
        let mut order = vec![start];
        let mut i = 0;
        while i < order.len() {
            let x = order[i];
            i += 1;
            for &(l, y, out) in &self.adjacency[x] {
                let (_, _, link) = self.link(l);
                let passable = link.passable(if forwards { out } else { !out });
                if passable && !seen.get(y) && self.open(l, link.lock, held, spent) {
                    seen.set(y);
                    order.push(y);
                }
            }
        }
        (seen, order)
    }

    /// Picks up everything in the area around `at` but the openers in `avoid`, in rounds (an
    /// opener's round is one more than the rounds of the openers whose doors led to it, at
    /// most). Returns the area, the reach, and the openers picked with their rounds.
    ///
    /// First the rooms joined to `at` by two-way links grow outwards, each door waiting until
    /// an opener for it is picked up (linear time); then one forward and one backward walk find
    /// the true area, which one-way links can make larger; if it holds more openers, again.
    fn close(
        &self,
        at: RoomId,
        held: &mut Bits,
        spent: &Bits,
        avoid: &Bits,
    ) -> (Bits, Bits, Vec<(usize, usize)>) {
        let mut picked = Vec::new();
        let mut round = 0;
        loop {
            let (joined, next) = self.grow(at.0 as usize, held, spent, avoid, &mut picked, round);
            round = next;
            // Beyond the two-way part: what one-way links lead to, and which of that leads back.
            let (reach, beyond) = self.reach_beyond(&joined, held, spent);
            if beyond.is_empty() {
                return (joined.clone(), joined, picked);
            }
            let area = self.back_into(&joined, &beyond, &reach, held, spent);
            let mut new = false;
            for &r in &beyond {
                if !area.get(r) {
                    continue;
                }
                for &o in &self.openers_in[r] {
                    if !held.get(o) && !avoid.get(o) {
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

    /// Everything reachable from `joined` (forwards through open, passable links), and the
    /// rooms of it outside `joined`.
    fn reach_beyond(&self, joined: &Bits, held: &Bits, spent: &Bits) -> (Bits, Vec<usize>) {
        let mut reach = joined.clone();
        let mut beyond = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut expand = |x: usize, reach: &mut Bits, stack: &mut Vec<usize>| {
            for &(l, y, out) in &self.adjacency[x] {
                if reach.get(y) {
                    continue;
                }
                let (_, _, link) = self.link(l);
                if link.passable(out) && self.open(l, link.lock, held, spent) {
                    reach.set(y);
                    beyond.push(y);
                    stack.push(y);
                }
            }
        };
        for x in joined.ones() {
            expand(x, &mut reach, &mut stack);
        }
        while let Some(x) = stack.pop() {
            expand(x, &mut reach, &mut stack);
        }
        (reach, beyond)
    }

    /// `joined` and the rooms of `beyond` that can walk back into it.
    fn back_into(
        &self,
        joined: &Bits,
        beyond: &[usize],
        reach: &Bits,
        held: &Bits,
        spent: &Bits,
    ) -> Bits {
        let mut area = joined.clone();
        // Backwards from `joined`: a room y of `beyond` comes back if a link leads from y into
        // a room that does.
        let mut stack: Vec<usize> = joined.ones().collect();
        while let Some(x) = stack.pop() {
            for &(l, y, out) in &self.adjacency[x] {
                if area.get(y) || !reach.get(y) {
                    continue;
                }
                let (_, _, link) = self.link(l);
                // The player walks y -> x: from y's side of the link.
                if link.passable(!out) && self.open(l, link.lock, held, spent) {
                    area.set(y);
                    stack.push(y);
                }
            }
        }
        let _ = beyond;
        area
    }

    /// Grows the rooms joined to `start` by open two-way links, picking up every opener on the
    /// way (but `avoid`); a door whose opener is not held waits until it is. Returns those rooms
    /// and the next free round.
    fn grow(
        &self,
        start: usize,
        held: &mut Bits,
        spent: &Bits,
        avoid: &Bits,
        picked: &mut Vec<(usize, usize)>,
        mut round: usize,
    ) -> (Bits, usize) {
        let mut seen = Bits::new(self.rooms());
        seen.set(start);
        let mut queue = VecDeque::from([start]);
        // Per lock class, the rooms waiting behind a door of that class.
        let mut waiting: Vec<Vec<usize>> = vec![Vec::new(); self.classes];
        let mut class_open: Vec<bool> = (0..self.classes).map(|_| false).collect();
        for o in held.ones() {
            if let Some(c) = self.opener_class[o] {
                class_open[c] = true;
            }
        }
        let mut released: Vec<usize> = Vec::new();
        loop {
            while let Some(x) = queue.pop_front() {
                for &(l, y, _) in &self.adjacency[x] {
                    if seen.get(y) {
                        continue;
                    }
                    let (_, _, link) = self.link(l);
                    if matches!(link.kind, LinkKind::OneWay | LinkKind::Window) {
                        continue;
                    }
                    let open = match link.lock {
                        None => true,
                        Some(k) if k.opener == Opener::SmallKey => {
                            self.small_index[l.0 as usize].is_some_and(|i| spent.get(i))
                        }
                        Some(_) => match self.link_class[l.0 as usize] {
                            Some(c) if class_open[c] => true,
                            Some(c) => {
                                waiting[c].push(y);
                                false
                            }
                            None => false,
                        },
                    };
                    if open {
                        seen.set(y);
                        queue.push_back(y);
                    }
                }
                for &o in &self.openers_in[x] {
                    if !held.get(o) && !avoid.get(o) {
                        held.set(o);
                        picked.push((o, round));
                        // Its doors open in the next round (rounds order the walkthrough).
                        if let Some(c) = self.opener_class[o]
                            && !class_open[c]
                            && !released.contains(&c)
                        {
                            released.push(c);
                        }
                    }
                }
            }
            if released.is_empty() {
                return (seen, round + 1);
            }
            // Rooms behind the doors just opened belong to the next round.
            round += 1;
            for c in released.drain(..) {
                class_open[c] = true;
                for y in std::mem::take(&mut waiting[c]) {
                    if !seen.get(y) {
                        seen.set(y);
                        queue.push_back(y);
                    }
                }
            }
        }
    }

    /// The state the player is in after standing at `raw` and picking up everything of the
    /// area but `avoid`.
    pub(super) fn state(
        &self,
        raw: Raw,
        avoid: &Bits,
        parent: Option<(usize, Transition)>,
    ) -> State {
        let Raw {
            at,
            mut held,
            spent,
        } = raw;
        let (area, reach, picked) = self.close(at, &mut held, &spent, avoid);
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

    /// The small locks of every ring of which `held` has a key.
    pub(super) fn small_locks_with_a_key<'a>(
        &'a self,
        held: &'a Bits,
    ) -> impl Iterator<Item = usize> + 'a {
        self.rings
            .iter()
            .filter(|r| r.keys.iter().any(|&o| held.get(o)))
            .flat_map(|r| r.locks.iter().copied())
    }

    /// Small keys of a ring held, minus small locks of the ring opened (negative: a debt).
    fn keys_left(&self, ring: usize, held: &Bits, spent: &Bits) -> i64 {
        let r = &self.rings[ring];
        let got = r.keys.iter().filter(|&&o| held.get(o)).count() as i64;
        let used = r.locks.iter().filter(|&&i| spent.get(i)).count() as i64;
        got - used
    }

    /// The irreversible choices from a state: small locks to open, one-way links to take.
    pub(super) fn transitions(&self, s: &State) -> Vec<Transition> {
        let mut out = Vec::new();
        for (l, entry) in self.links.iter().enumerate() {
            let Some((a, b, link)) = entry else { continue };
            let id = LinkId(l as u32);
            if let Some(i) = self.small_index[l] {
                let near = (s.area.get(*a) && link.passable(true))
                    || (s.area.get(*b) && link.passable(false));
                if !s.spent.get(i)
                    && near
                    && self.keys_left(self.small_ring[i], &s.held, &s.spent) > 0
                {
                    out.push(Transition::Spend(id));
                }
            }
            // Every one-way link counts, even one whose far side is in the area: it is a way
            // back for this player, but maybe not for one who skipped an opener.
            if link.kind == LinkKind::OneWay
                && s.area.get(*a)
                && self.open(id, link.lock, &s.held, &s.spent)
            {
                out.push(Transition::Move(id, RoomId(*b as u32)));
            }
        }
        out
    }

    /// Where a transition leaves the player, before they pick anything up.
    pub(super) fn after(&self, s: &State, t: Transition) -> Raw {
        match t {
            Transition::Spend(l) => {
                let mut spent = s.spent.clone();
                spent.set(self.small_index[l.0 as usize].expect("a small lock"));
                Raw {
                    at: s.at,
                    held: s.held.clone(),
                    spent,
                }
            }
            Transition::Move(_, to) => Raw {
                at: to,
                held: s.held.clone(),
                spent: s.spent.clone(),
            },
        }
    }

    /// What makes two states alike for the search: the area, the openers held, the small locks
    /// opened, and the small keys left per ring (implied by the rest, kept for reports). Which
    /// small locks are open matters even where both sides lie in the area: a player who skipped
    /// an opener may need the one that is open.
    pub(super) fn key(&self, s: &State) -> StateKey {
        let left = (0..self.rings.len())
            .map(|r| self.keys_left(r, &s.held, &s.spent))
            .collect();
        (s.area.clone(), s.held.clone(), s.spent.clone(), left)
    }

    /// Every state reachable from `root` by a player who never picks up the openers in
    /// `avoid`. With `stop_at_goal`, the search ends at the first state that reaches the goal.
    pub(super) fn search(
        &self,
        root: Raw,
        avoid: &Bits,
        goal: RoomId,
        budget: &mut Budget,
        stop_at_goal: bool,
    ) -> Result<Search, Unsolvable> {
        budget.take()?;
        let first = self.state(root, avoid, None);
        let mut search = Search {
            states: vec![first],
            first_win: None,
            goal,
            edges: vec![Vec::new()],
        };
        let mut index: HashMap<StateKey, usize> = HashMap::new();
        index.insert(self.key(&search.states[0]), 0);
        let mut seen_raw: HashMap<Raw, usize> = HashMap::new();
        let mut queue = VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            if search.first_win.is_none() && search.states[i].reach.get(goal.0 as usize) {
                search.first_win = Some(i);
                if stop_at_goal {
                    break;
                }
            }
            for t in self.transitions(&search.states[i]) {
                // Many steps lead to the same position: the closure is computed once.
                let raw = self.after(&search.states[i], t);
                if let Some(&j) = seen_raw.get(&raw) {
                    search.edges[i].push((t, j));
                    continue;
                }
                let next = self.state(raw.clone(), avoid, Some((i, t)));
                let key = self.key(&next);
                let j = match index.get(&key) {
                    Some(&j) => j,
                    None => {
                        budget.take()?;
                        let j = search.states.len();
                        index.insert(key, j);
                        search.states.push(next);
                        search.edges.push(Vec::new());
                        queue.push_back(j);
                        j
                    }
                };
                seen_raw.insert(raw, j);
                search.edges[i].push((t, j));
            }
        }
        Ok(search)
    }

    /// The locked links at the edge of everything reachable, and why each stays shut.
    pub(super) fn blockers(&self, search: &Search) -> Vec<Blocker> {
        let reached = search.reach_union(self.rooms());
        let mut ever_opened = vec![false; self.links.len()];
        let mut any_held = Bits::new(self.openers.len());
        for s in &search.states {
            any_held.union_with(&s.held);
            for (l, entry) in self.links.iter().enumerate() {
                if let Some((_, _, link)) = entry
                    && self.open(LinkId(l as u32), link.lock, &s.held, &s.spent)
                {
                    ever_opened[l] = true;
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
            out.push(Blocker {
                link: LinkId(l as u32),
                lock,
                missing: self.missing(lock, &any_held),
            });
        }
        out
    }

    /// Why a lock stays shut, given every opener the player ever holds.
    fn missing(&self, lock: Lock, any_held: &Bits) -> Missing {
        if lock.opener == Opener::SmallKey {
            let available = self
                .openers
                .iter()
                .enumerate()
                .filter(|(i, o)| {
                    o.opener == Opener::SmallKey && o.key == lock.by && any_held.get(*i)
                })
                .count();
            return Missing::SmallKeys { available };
        }
        match self
            .openers
            .iter()
            .find(|o| o.key == lock.by && o.opener == lock.opener)
        {
            None => Missing::Nowhere,
            Some(o) => Missing::OutOfReach { room: o.room },
        }
    }

    /// The irreversible steps along a path of states.
    pub(super) fn transition_steps(&self, search: &Search, path: &[usize]) -> Vec<Step> {
        path.iter()
            .filter_map(|&s| search.states[s].parent.map(|(_, t)| t))
            .map(|t| self.transition_step(t))
            .collect()
    }

    pub(super) fn transition_step(&self, t: Transition) -> Step {
        match t {
            Transition::Spend(link) => Step::Open {
                link,
                lock: self.link(link).2.lock.expect("locked"),
            },
            Transition::Move(link, to) => Step::OneWay { link, to },
        }
    }
}
