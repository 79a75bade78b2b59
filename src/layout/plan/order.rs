//! The room order: loops first (the shortest, then ears round what is placed), then trees, so
//! that every room after the first has a placed neighbour.

use super::*;

impl Planner {
    /// The loop room `r` was placed in, as error messages name it (" in the loop of `a`, `b`,
    /// ..."; empty for a room on no loop).
    pub(super) fn composite_label(&self, r: usize) -> String {
        let Some(rooms) = self.loops.get(self.composite_of[r] as usize) else {
            return String::new();
        };
        let names: Vec<String> = rooms
            .iter()
            .map(|&q| format!("`{}`", self.problem.rooms[q].name))
            .collect();
        format!(" in the loop of {}", names.join(", "))
    }

    /// The room order, one step per line (for diagnosing hard problems).
    #[doc(hidden)]
    pub fn debug_order(&self) -> String {
        let whole = match self.ordered() {
            Ok(whole) => whole,
            Err(e) => return e.to_string(),
        };
        whole
            .steps
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

    /// The neighbours of each room the search sees: collapsed corridor rooms are replaced by a
    /// `Via` edge between their two rooms.
    pub(super) fn virtual_adjacency(&self) -> Vec<Vec<(usize, Edge)>> {
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
    pub(super) fn ear_order(
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
    pub(super) fn sequence(
        &self,
        vadj: &[Vec<(usize, Edge)>],
        cycles: &[Vec<usize>],
        first: Option<usize>,
    ) -> Sequence {
        let n = vadj.len();
        let mut labels = vec![u32::MAX; n];
        let mut loops: Vec<Vec<usize>> = Vec::new();
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
                let weights = self.weights.as_deref().map(Vec::as_slice);
                if let Some(next) =
                    ears::choose(vadj, &done, &cost, &mut outline, &relaxable, weights)
                {
                    let (a, ear, b) = (next.a, next.run, next.b);
                    shut = (shut.0 + next.shut.0, shut.1 + next.shut.1);
                    let label = loops.len() as u32;
                    loops.push(
                        std::iter::once(a)
                            .chain(ear.iter().copied())
                            .chain([b])
                            .collect(),
                    );
                    for &r in &ear {
                        if labels[r] == u32::MAX {
                            labels[r] = label;
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
            let label = loops.len() as u32;
            loops.push(cyc.clone());
            for &r in &cyc {
                if !done[r] && labels[r] == u32::MAX {
                    labels[r] = label;
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
            loops,
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
    pub(super) fn order(&mut self) -> Result<(), LayoutError> {
        self.order_from(None).map(|_| ())
    }

    /// [`Planner::order`], from loop `first` of the short loops (sorted by length) if given;
    /// `Ok(false)` (and nothing changed) if there is no such loop.
    pub(super) fn order_from(&mut self, first: Option<usize>) -> Result<bool, LayoutError> {
        let n = self.problem.rooms.len();
        let vadj = self.virtual_adjacency();
        let real: Vec<usize> = (0..n).filter(|&r| self.via[r].is_none()).collect();
        // Short cycles: for every edge, the shortest cycle through it.
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        {
            // The room sets of the cycles kept, sorted (searched, not hashed: there are few).
            let mut seen_sets: Vec<Vec<usize>> = Vec::new();
            let mut prev = vec![usize::MAX; n];
            let mut stamp = vec![usize::MAX; n];
            let mut queue = std::collections::VecDeque::new();
            let mut key: Vec<usize> = Vec::new();
            for &u in &real {
                for (ei, &(v, edge)) in vadj[u].iter().enumerate() {
                    if v < u {
                        continue;
                    }
                    // Breadth first from v to u without this edge.
                    let tag = u * n + ei;
                    stamp[v] = tag;
                    prev[v] = usize::MAX;
                    queue.clear();
                    queue.push_back(v);
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
                        // The cycle is kept if its set of rooms is new (most cycles are found
                        // once per link of theirs).
                        let walk = |mut x: usize, out: &mut Vec<usize>| {
                            out.push(u);
                            while x != usize::MAX {
                                out.push(x);
                                x = prev[x];
                            }
                        };
                        key.clear();
                        walk(prev[u], &mut key);
                        key.sort_unstable();
                        if let Err(at) = seen_sets.binary_search(&key) {
                            seen_sets.insert(at, key.clone());
                            let mut cyc = Vec::with_capacity(key.len());
                            walk(prev[u], &mut cyc);
                            cycles.push(cyc);
                        }
                    }
                }
            }
        }
        cycles.sort_by_key(|c| c.len());
        if first.is_some_and(|c| c >= cycles.len()) {
            return Ok(false);
        }
        let mut seq = self.sequence(&vadj, &cycles, first);
        // Where a loop must shut in rooms with rooms hanging off them (or an ear of contacts
        // only must shut rooms in), another first loop may need less: try the shortest few.
        if seq.shut.0 > 0 && first.is_none() {
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
            keep_out,
            labels,
            loops,
            ..
        } = seq;
        self.composite_of = labels;
        self.loops = loops;
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
        self.set_steps(&vadj, &real, &planned, order, keep_out)?;
        Ok(true)
    }

    /// Places the rooms in `order` (every room of the problem once; collapsed corridor rooms
    /// are skipped) instead of the planner's own order, room by room (big levels are not cut
    /// into parts). An experiment for orders computed elsewhere, such as canonical orderings
    /// of a planar drawing (issue 22); not a stable interface.
    ///
    /// # Errors
    /// [`LayoutError::NotConnected`] if `order` is not a permutation of the rooms, and
    /// [`LayoutError::NoPlacedNeighbour`] if a room after the first has no neighbour before it.
    #[doc(hidden)]
    pub fn with_order(mut self, order: &[usize]) -> Result<Planner, LayoutError> {
        let n = self.problem.rooms.len();
        let mut seen = vec![false; n];
        for &r in order {
            if r >= n || std::mem::replace(&mut seen[r], true) {
                return Err(LayoutError::NotConnected {
                    missing: vec![self.room_label(r)],
                    from: "the order given (a room out of range or listed twice)".into(),
                });
            }
        }
        if let Some(missing) = (0..n).find(|&r| !seen[r]) {
            return Err(LayoutError::NotConnected {
                missing: vec![self.room_label(missing)],
                from: "the order given (a room left out)".into(),
            });
        }
        let vadj = self.virtual_adjacency();
        let real: Vec<usize> = (0..n).filter(|&r| self.via[r].is_none()).collect();
        let order: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&r| self.via[r].is_none())
            .collect();
        self.set_steps(&vadj, &real, &order, order.clone(), vec![Vec::new(); n])?;
        self.build_compounds();
        self.parts = None;
        self.merged_parts = std::sync::OnceLock::new();
        Ok(self)
    }

    /// The room-by-room search again under up to [`OTHER_ORDERS`] other room orders, until
    /// one lays the rooms out: the state and the attempts it took (those of the orders before
    /// it included), or the attempts made. The orders alternate between the ear order from
    /// another first loop (the second shortest, the third, ...) and a random greedy order (see
    /// [`Planner::greedy_order`]); each gets the planner's attempt budget, at most
    /// [`ATTEMPTS_PER_ORDER`], and all stop at `deadline`. None on a big level, where a greedy
    /// order does not get far and the ear order's choices matter more than its first loop.
    ///
    /// Why: an order fixes which way the drawing grows. A block of a few loops round big rooms
    /// (a part of a big level, or a small level) may have no drawing that grows the ear
    /// order's way, so that every attempt fails at the same room, where another order lays it
    /// out in one attempt.
    pub(super) fn search_other_orders(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
    ) -> Result<(State, u32), u32> {
        let mut rng = crate::seed::stream(seed, "other orders");
        let mut used = 0;
        let orders = if self.big { 0 } else { OTHER_ORDERS };
        let (mut first, mut loops_left) = (1, true);
        for k in 0..orders {
            if super::search::past(deadline) {
                break;
            }
            let mut looped = None;
            if k % 2 == 0 && loops_left {
                looped = self.with_first_loop(first);
                loops_left = looped.is_some();
                first += 1;
            }
            let Some(mut other) =
                looped.or_else(|| self.clone().with_order(&self.greedy_order(&mut rng)).ok())
            else {
                continue;
            };
            if let RetryPolicy::Attempts(k) = self.problem.budget.retry {
                other.problem.budget.retry = RetryPolicy::Attempts(k.min(ATTEMPTS_PER_ORDER));
            }
            // Under a time budget, each order left an even share of the time left.
            match other.search(seed, self.time_share(deadline, orders - k)) {
                Ok((st, attempts)) => return Ok((st, used + attempts)),
                Err(LayoutError::NoLayout { attempts, .. }) => used += attempts,
                Err(_) => {}
            }
        }
        Err(used)
    }

    /// Under a time budget (`RetryPolicy::Millis`), a deadline `1 / parts` of the time left
    /// before `deadline` from now, so that `parts` stages run in turn share it evenly; under
    /// a count, `deadline` itself (each stage makes its own attempts).
    pub(super) fn time_share(
        &self,
        deadline: Option<std::time::Instant>,
        parts: u32,
    ) -> Option<std::time::Instant> {
        match self.problem.budget.retry {
            RetryPolicy::Millis(_) => deadline.map(|d| {
                let now = std::time::Instant::now();
                now + d.saturating_duration_since(now) / parts.max(1)
            }),
            RetryPolicy::Attempts(_) => deadline,
        }
    }

    /// This planner with the ear order from loop `first` of the short loops, `None` if there
    /// is no such loop.
    fn with_first_loop(&self, first: usize) -> Option<Planner> {
        let mut other = self.clone();
        matches!(other.order_from(Some(first)), Ok(true)).then(|| {
            other.build_compounds();
            other
        })
    }

    /// A random order of the rooms in which each room after the first has a neighbour before
    /// it: from a random room, the next is one with the most neighbours already in the order
    /// (ties broken at random), so that a room joins as many placed rooms as it can and loops
    /// close as soon as they can.
    pub(super) fn greedy_order<R: rand::Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        let n = self.problem.rooms.len();
        let mut placed = vec![false; n];
        let mut count = vec![0usize; n];
        let mut order = Vec::with_capacity(n);
        let mut next = crate::seed::index(rng, n);
        loop {
            placed[next] = true;
            order.push(next);
            for &(v, _) in &self.adj[next] {
                count[v] += 1;
            }
            let best = (0..n)
                .filter(|&r| !placed[r] && count[r] > 0)
                .map(|r| (count[r], crate::seed::index(rng, 1 << 20), r))
                .max();
            match best {
                Some((_, _, r)) => next = r,
                None => break,
            }
        }
        order
    }

    /// The steps of placing the rooms in `order` (`planned`: the order before rooms with two
    /// placed neighbours were moved ahead).
    fn set_steps(
        &mut self,
        vadj: &[Vec<(usize, Edge)>],
        real: &[usize],
        planned: &[usize],
        order: Vec<usize>,
        mut keep_out: Vec<Vec<usize>>,
    ) -> Result<(), LayoutError> {
        let n = self.problem.rooms.len();
        let name = |r: usize| self.problem.rooms[r].name.clone();
        let mut done = vec![false; n];
        for &r in &order {
            done[r] = true;
        }
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
        let mut marks = TargetMarks {
            seen: vec![0; n],
            best_at: vec![0; n],
            best: vec![(0, 0); n],
            found: Vec::new(),
            heap: std::collections::BinaryHeap::new(),
        };
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
            let far = self.future_targets(vadj, &pos, &span, r, i, &mut marks);
            steps.push(Step {
                room: r,
                earlier,
                pull: far.iter().any(|&(_, _, hops)| hops <= 2),
                targets: far,
                keep_out: std::mem::take(&mut keep_out[r]),
            });
        }
        // (A collapsed corridor room's two rooms are not collapsed: their steps are read
        // unchanged.)
        let mut step_of = pos;
        for (k, v) in self.via.iter().enumerate() {
            if let Some(v) = v {
                step_of[k] = step_of[v.a].max(step_of[v.b]);
            }
        }
        self.step_of = step_of;
        self.steps = steps;
        Ok(())
    }

    /// Rooms placed before step `i` that later rooms will join to room `r`: a search through
    /// rooms placed after `i` (up to 8 of them), cheapest bridgeable gap first.
    pub(super) fn future_targets(
        &self,
        vadj: &[Vec<(usize, Edge)>],
        pos: &[usize],
        span: &[u32],
        r: usize,
        i: usize,
        marks: &mut TargetMarks,
    ) -> Vec<(usize, u32, u32)> {
        let edge_reach = |e: Edge| match e {
            Edge::Link(l) => self.problem.links[l]
                .realise
                .path_bounds()
                .map_or(0, |b| b.1),
            Edge::Via(k) => span[k],
        };
        // Marks stamped with the step (each step asks once): rooms seen, and the best
        // (reach, hops) found so far for each placed room reached.
        let stamp = i + 1;
        let TargetMarks {
            seen,
            best_at,
            best,
            found,
            heap,
        } = marks;
        found.clear();
        heap.clear();
        for &(u, e) in &vadj[r] {
            if pos[u] > i {
                heap.push(std::cmp::Reverse((edge_reach(e) + span[u], 1u32, u)));
            }
        }
        while let Some(std::cmp::Reverse((reach, hops, u))) = heap.pop() {
            if seen[u] == stamp {
                continue;
            }
            seen[u] = stamp;
            for &(w, e) in &vadj[u] {
                if w == r {
                    continue;
                }
                let total = reach + edge_reach(e);
                if pos[w] < i {
                    if best_at[w] != stamp {
                        best_at[w] = stamp;
                        best[w] = (u32::MAX, u32::MAX);
                        found.push(w);
                    }
                    let entry = &mut best[w];
                    entry.0 = entry.0.min(total);
                    entry.1 = entry.1.min(hops);
                } else if pos[w] > i && hops < 8 && seen[w] != stamp {
                    heap.push(std::cmp::Reverse((total + span[w], hops + 1, w)));
                }
            }
        }
        let mut out: Vec<(usize, u32, u32)> =
            found.iter().map(|&t| (t, best[t].0, best[t].1)).collect();
        out.sort_unstable();
        out
    }
}

/// Scratch for [`Planner::future_targets`], one slot per room, stamped with the step that set
/// it (so it is not cleared between steps).
pub(super) struct TargetMarks {
    seen: Vec<usize>,
    best_at: Vec<usize>,
    best: Vec<(u32, u32)>,
    found: Vec<usize>,
    /// (reach so far, hops, room), nearest first.
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(u32, u32, usize)>>,
}

/// How many unplaced rooms reach the placed part only through one unplaced room of
/// `cycle` (they hang off that room; parts joined to two of them are later ears).
pub(super) fn hanging(vadj: &[Vec<(usize, Edge)>], done: &[bool], cycle: &[usize]) -> usize {
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
pub(super) fn hanging_weights(vadj: &[Vec<(usize, Edge)>], root: usize) -> Vec<usize> {
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

#[cfg(test)]
mod tests {
    use crate::layout::RoomTemplate;
    use crate::layout::{LayoutProblem, LinkSpec, Planner, Realise, RetryPolicy, RoomSpec};

    /// A block of loops round three halls, taken from a level of
    /// `local_loops_graph_without_holes(100, 10)` (seed 0): tree links contact, loop links
    /// contact or corridor.
    fn three_halls() -> LayoutProblem {
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("square", 6, 6, 1),
            RoomTemplate::rectangle("long", 5, 9, 1),
            RoomTemplate::rectangle("hall", 16, 16, 1),
        ]);
        let halls = [79, 88, 95];
        let names = [
            79, 80, 81, 82, 83, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99,
        ];
        for n in names {
            let t = if halls.contains(&n) {
                vec![2]
            } else {
                vec![0, 1]
            };
            p.rooms.push(RoomSpec::new(&format!("r{n}"), t));
        }
        let at = |n: usize| names.iter().position(|&x| x == n).unwrap();
        let contacts = [
            (79, 80),
            (79, 81),
            (79, 82),
            (79, 83),
            (81, 85),
            (82, 86),
            (86, 87),
            (86, 88),
            (88, 89),
            (88, 90),
            (88, 91),
            (90, 92),
            (89, 93),
            (91, 94),
            (92, 95),
            (95, 96),
            (95, 97),
            (96, 98),
            (97, 99),
        ];
        for (a, b) in contacts {
            p.links.push(LinkSpec::new(at(a), at(b), Realise::Contact));
        }
        for (a, b) in [(85, 91), (94, 79), (93, 94), (95, 81)] {
            let realise = Realise::ContactOrPath { min: 4, max: 30 };
            p.links.push(LinkSpec::new(at(a), at(b), realise));
        }
        p.budget.retry = RetryPolicy::Attempts(20);
        p
    }

    /// The ear order cannot draw this block (every attempt fails where a room must touch a
    /// hall and a room next to a room that must stay reachable); the other orders can, and
    /// what they find passes the verifier, the same for the same seed.
    #[test]
    fn other_orders_lay_out_what_the_ear_order_cannot() {
        let planner = Planner::new(three_halls()).unwrap();
        for seed in 0..4 {
            assert!(planner.search(seed, None).is_err(), "seed {seed}");
            let layout = planner.layout(seed).unwrap();
            planner.check(&layout).unwrap();
            assert_eq!(
                format!("{layout:?}"),
                format!("{:?}", planner.layout(seed).unwrap())
            );
        }
    }

    /// Greedy orders are orders the search can use: every room once, each after the first
    /// next to one before it.
    #[test]
    fn greedy_orders_grow_from_placed_rooms() {
        let planner = Planner::new(three_halls()).unwrap();
        let mut rng = crate::seed::stream(3, "greedy test");
        for _ in 0..50 {
            let order = planner.greedy_order(&mut rng);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..planner.problem.rooms.len()).collect::<Vec<_>>());
            for (i, &r) in order.iter().enumerate().skip(1) {
                assert!(
                    planner.adj[r]
                        .iter()
                        .any(|&(nb, _)| order[..i].contains(&nb)),
                    "{order:?}"
                );
            }
            assert!(planner.clone().with_order(&order).is_ok());
        }
    }
}
