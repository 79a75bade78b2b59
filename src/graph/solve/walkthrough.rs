//! The walkthrough: from a winning path of search states, the openers the goal needs and the
//! locks they open, in order, walked along shortest paths to count the backtracking.

use std::collections::{HashMap, VecDeque};

use super::search::{Bits, Prepared, Search, Transition};
use super::{Step, Walkthrough};
use crate::graph::level::{KeyId, LinkId, Lock, Opener, RoomId};

impl Prepared {
    /// The walkthrough along a winning path of states: the openers the goal needs, the locks
    /// they open, the irreversible steps, and the walking it takes.
    pub(super) fn walkthrough(
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
            if let Some(lock) = self.links[l.0 as usize].expect("live").2.lock
                && lock.opener != Opener::SmallKey
            {
                locks.push(lock);
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
        if let Some(lock) = lock
            && !opened[l.0 as usize]
        {
            opened[l.0 as usize] = true;
            steps.push(Step::Open { link: l, lock });
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
