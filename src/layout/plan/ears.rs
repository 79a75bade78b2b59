//! Which run of rooms (ear) the search places next, chosen with the drawing in mind.
//!
//! Loops are placed ear by ear: after the first loop, each ear is a run of unplaced rooms
//! joining two placed ones. Placed tight, an ear goes round the outside of what is placed and
//! shuts in one of the two stretches of its outline between the ear's ends. A room shut in
//! can take nothing more from outside: a later ear that must reach it fails, and rooms
//! hanging off it must fit in the hole. [`Outline`] follows the outer boundary of the rooms
//! placed so far, as the order is built, and [`choose`] takes the ear whose cheaper side
//! shuts in the least: first what later ears still need (never, if it can help it), then
//! rooms shut in by a short ear of touching rooms only, then the rooms hanging off the rooms
//! shut in; then the ear's own weight (the lightest ear, as before), then how many rooms it
//! shuts in. Rooms hanging off the rooms shut in are placed just before the ear, so the ear
//! (and its corridor, if it may have one) goes round them; the ear's last room is told which
//! placed rooms must stay outside ([`Ear::keep_out`]).

use super::Edge;

/// The cost of shutting in a room that a later ear still has to reach.
const SHUT: u64 = 1 << 24;

/// The cost of shutting in rooms with an ear whose links must all be contacts and that has no
/// more rooms than it shuts in (with what hangs off them): its rooms alone must fit exactly
/// round them, where a corridor could go round at its own length.
const RIGID: u64 = 1 << 16;

/// The outer boundary of the rooms placed so far, as a closed walk: a room where parts meet
/// (and a room of a path between loops) appears once for each time the boundary passes it.
#[derive(Default)]
pub(super) struct Outline {
    walk: Vec<usize>,
}

/// The ear to place next.
pub(super) struct Ear {
    /// The placed room the run starts from.
    pub a: usize,
    /// The unplaced rooms, from `a`'s side to `b`'s.
    pub run: Vec<usize>,
    /// The placed room the run ends at.
    pub b: usize,
    /// Rooms hanging off the rooms the ear shuts in, breadth first: placed before the ear.
    pub inside_first: Vec<usize>,
    /// Placed rooms on the side the ear leaves outside that later rooms must still reach.
    pub keep_out: Vec<usize>,
    /// What the ear shuts in: rooms later rooms must still reach ([`SHUT`] each), [`RIGID`]
    /// if a short ear of touching rooms shuts rooms in, plus the rooms hanging off the rooms
    /// shut in; and how many rooms it shuts in.
    pub shut: (u64, u64),
}

impl Outline {
    /// A loop placed next to room `cycle[0]` (or the first loop, if nothing is placed): the
    /// rest of `cycle` goes round the outside from `cycle[0]` back to it.
    pub(super) fn open_cycle(&mut self, cycle: &[usize]) {
        if self.walk.is_empty() {
            self.walk = cycle.to_vec();
            return;
        }
        let Some(at) = self.walk.iter().position(|&r| r == cycle[0]) else {
            return;
        };
        let mut loop_round: Vec<usize> = cycle[1..].to_vec();
        loop_round.push(cycle[0]);
        self.walk.splice(at + 1..at + 1, loop_round);
    }

    /// A path of rooms placed out from room `at`: the boundary runs out along it and back.
    pub(super) fn open_path(&mut self, at: usize, path: &[usize]) {
        let Some(pos) = self.walk.iter().position(|&r| r == at) else {
            return;
        };
        let out_and_back: Vec<usize> = path
            .iter()
            .copied()
            .chain(path.iter().rev().skip(1).copied())
            .chain([at])
            .collect();
        self.walk.splice(pos + 1..pos + 1, out_and_back);
    }
}

/// Walk positions from `from` forwards to `to`, both included.
fn span(from: usize, to: usize, len: usize) -> impl Iterator<Item = usize> {
    (0..=(to + len - from) % len).map(move |k| (from + k) % len)
}

/// Walk positions strictly between `from` and `to`, going forwards.
fn between(from: usize, to: usize, len: usize) -> impl Iterator<Item = usize> {
    (1..(to + len - from) % len).map(move |k| (from + k) % len)
}

/// The best ear found so far: (what it shuts in, its cost, how many rooms it shuts in, `a`,
/// `b`), its run, and the walk positions `(i, j)` between which it shuts rooms in.
type Pick = (
    (u64, u64, u64, usize, usize),
    Vec<usize>,
    Option<(usize, usize)>,
);

/// Unplaced rooms in connected groups: per room its group (`usize::MAX` if placed), per
/// group its size and the placed rooms next to it.
struct Groups {
    of: Vec<usize>,
    size: Vec<u64>,
    ends: Vec<Vec<usize>>,
}

fn groups(vadj: &[Vec<(usize, Edge)>], done: &[bool], weights: Option<&[usize]>) -> Groups {
    let n = vadj.len();
    let mut g = Groups {
        of: vec![usize::MAX; n],
        size: Vec::new(),
        ends: Vec::new(),
    };
    for s in 0..n {
        if done[s] || g.of[s] != usize::MAX {
            continue;
        }
        let id = g.size.len();
        g.of[s] = id;
        let (mut size, mut ends) = (0, Vec::new());
        let mut stack = vec![s];
        while let Some(x) = stack.pop() {
            size += weights.map_or(1, |w| w[x] as u64);
            for &(y, _) in &vadj[x] {
                if done[y] {
                    ends.push(y);
                } else if g.of[y] == usize::MAX {
                    g.of[y] = id;
                    stack.push(y);
                }
            }
        }
        ends.sort_unstable();
        ends.dedup();
        g.size.push(size);
        g.ends.push(ends);
    }
    g
}

/// Every placed pair `a < b` that a run of unplaced rooms joins, with the cheapest such run
/// (cost: the sum of its rooms' `cost`), as `(cost, a, run, b)`.
fn candidates(
    vadj: &[Vec<(usize, Edge)>],
    done: &[bool],
    cost: &[u64],
    groups: &Groups,
) -> Vec<(u64, usize, Vec<usize>, usize)> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = vadj.len();
    let mut out = Vec::new();
    let mut dist = vec![u64::MAX; n];
    let mut prev = vec![usize::MAX; n];
    let mut touched: Vec<usize> = Vec::new();
    for (id, ends) in groups.ends.iter().enumerate() {
        if ends.len() < 2 {
            continue;
        }
        for (k, &a) in ends.iter().enumerate().take(ends.len() - 1) {
            for &t in &touched {
                dist[t] = u64::MAX;
                prev[t] = usize::MAX;
            }
            touched.clear();
            let mut heap = BinaryHeap::new();
            for &(u, _) in &vadj[a] {
                if !done[u] && groups.of[u] == id && cost[u] < dist[u] {
                    dist[u] = cost[u];
                    touched.push(u);
                    heap.push(Reverse((cost[u], u)));
                }
            }
            while let Some(Reverse((d, u))) = heap.pop() {
                if d > dist[u] {
                    continue;
                }
                for &(v, _) in &vadj[u] {
                    if done[v] {
                        continue;
                    }
                    let nd = d + cost[v];
                    if nd < dist[v] {
                        if dist[v] == u64::MAX {
                            touched.push(v);
                        }
                        dist[v] = nd;
                        prev[v] = u;
                        heap.push(Reverse((nd, v)));
                    }
                }
            }
            for &b in &ends[k + 1..] {
                let best = vadj[b]
                    .iter()
                    .map(|&(u, _)| u)
                    .filter(|&u| !done[u] && dist[u] != u64::MAX)
                    .min_by_key(|&u| (dist[u], u));
                let Some(end) = best else { continue };
                let mut run = vec![end];
                let mut x = prev[end];
                while x != usize::MAX {
                    run.push(x);
                    x = prev[x];
                }
                run.reverse();
                out.push((dist[end], a, run, b));
            }
        }
    }
    out
}

/// The next ear, and the outline once it is placed; `None` when no run of unplaced rooms
/// joins two placed rooms. `cost` weighs each room (1 plus what hangs off it); `relaxable`
/// says whether the link between two rooms may become a corridor; `weights` counts the rooms
/// each room stands for (a part's stand-ins: the rooms beyond their cut links; `None`: one
/// each), so that the rooms hanging off the rooms an ear shuts in count as what they stand
/// for, and of two ways of closing a ring the one that shuts in the lighter piece wins.
pub(super) fn choose(
    vadj: &[Vec<(usize, Edge)>],
    done: &[bool],
    cost: &[u64],
    outline: &mut Outline,
    relaxable: &dyn Fn(usize, usize) -> bool,
    weights: Option<&[usize]>,
) -> Option<Ear> {
    let n = vadj.len();
    let groups = groups(vadj, done, weights);
    let walk = &outline.walk;
    let len = walk.len();
    let mut stamp = vec![0u32; n];
    let mut tag = 0u32;
    let mut counted: Vec<usize> = Vec::new();
    // What shutting in the walk's rooms strictly between positions `i` and `j` (going
    // forwards) costs, given the ear's own rooms.
    let mut side_cost = |i: usize, j: usize, run: &[usize], a: usize, b: usize| -> (u64, u64) {
        tag += 1;
        // Rooms on the side kept outside (and the ear's ends) stay on the boundary.
        for p in span(j, i, len) {
            stamp[walk[p]] = tag;
        }
        stamp[a] = tag;
        stamp[b] = tag;
        let (mut total, mut rooms) = (0, 0);
        for p in between(i, j, len) {
            let x = walk[p];
            if stamp[x] == tag {
                continue;
            }
            stamp[x] = tag;
            rooms += 1;
            counted.clear();
            for &(y, _) in &vadj[x] {
                if done[y] {
                    continue;
                }
                let gid = groups.of[y];
                if groups.ends[gid].len() >= 2 {
                    if !run.contains(&y) {
                        total += SHUT;
                    }
                } else if !counted.contains(&gid) {
                    counted.push(gid);
                    total += groups.size[gid];
                }
            }
        }
        (total, rooms)
    };
    let mut best: Option<Pick> = None;
    for (ear_cost, a, run, b) in candidates(vadj, done, cost, &groups) {
        let mut side: ((u64, u64), Option<(usize, usize)>) = ((SHUT, 0), None);
        for i in (0..len).filter(|&i| walk[i] == a) {
            for j in (0..len).filter(|&j| walk[j] == b) {
                let forward = side_cost(i, j, &run, a, b);
                if forward < side.0 || side.1.is_none() {
                    side = (forward, Some((i, j)));
                }
                let backward = side_cost(j, i, &run, a, b);
                if backward < side.0 {
                    side = (backward, Some((j, i)));
                }
            }
        }
        let rigid = !std::iter::once(a)
            .chain(run.iter().copied())
            .zip(run.iter().copied().chain([b]))
            .any(|(u, v)| relaxable(u, v));
        if rigid && side.0 != (0, 0) && side.0.0 + side.0.1 >= run.len() as u64 {
            side.0.0 += RIGID;
        }
        let key = (side.0.0, ear_cost, side.0.1, a, b);
        if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
            best = Some((key, run, side.1));
        }
    }
    let ((hang, _, rooms, a, b), run, side) = best?;
    let shut = (hang, rooms);
    // The rooms shut in, and what hangs off them: placed first, so the ear goes round them.
    let mut inside_first = Vec::new();
    let mut keep_out = Vec::new();
    if let Some((i, j)) = side {
        let mut keep = vec![false; n];
        for p in span(j, i, len) {
            keep[walk[p]] = true;
        }
        let mut taken = vec![false; groups.size.len()];
        for p in between(i, j, len) {
            let x = walk[p];
            if keep[x] {
                continue;
            }
            for &(y, _) in &vadj[x] {
                if done[y] || taken[groups.of[y]] || groups.ends[groups.of[y]].len() >= 2 {
                    continue;
                }
                taken[groups.of[y]] = true;
                let start = inside_first.len();
                inside_first.push(y);
                keep[y] = true;
                let mut head = start;
                while head < inside_first.len() {
                    let r = inside_first[head];
                    head += 1;
                    for &(z, _) in &vadj[r] {
                        if !done[z] && !keep[z] {
                            keep[z] = true;
                            inside_first.push(z);
                        }
                    }
                }
            }
        }
        // An ear that shuts nothing in closes against an edge: it cannot go round the rest
        // without a corridor far longer than any allowed, so it is not checked.
        if shut != (0, 0) {
            for p in span(j, i, len) {
                let x = walk[p];
                let waits = vadj[x]
                    .iter()
                    .any(|&(y, _)| !done[y] && !keep[y] && !run.contains(&y));
                if waits && !keep_out.contains(&x) {
                    keep_out.push(x);
                }
            }
        }
        // The new boundary: from `walk[i]` along the ear to `walk[j]`, then on round the side
        // kept.
        let mut next = Vec::with_capacity(len + run.len());
        next.push(walk[i]);
        if walk[i] == a {
            next.extend(run.iter().copied());
        } else {
            next.extend(run.iter().rev().copied());
        }
        next.extend(span(j, i, len).map(|p| walk[p]));
        next.pop();
        outline.walk = next;
    }
    Some(Ear {
        a,
        run,
        b,
        inside_first,
        keep_out,
        shut,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    type Adjacency = Vec<Vec<(usize, Edge)>>;

    /// Adjacency lists for `links`, every link its own `Edge::Link`.
    fn adjacency(n: usize, links: &[(usize, usize)]) -> Adjacency {
        let mut vadj = vec![Vec::new(); n];
        for (l, &(a, b)) in links.iter().enumerate() {
            vadj[a].push((b, Edge::Link(l)));
            vadj[b].push((a, Edge::Link(l)));
        }
        vadj
    }

    /// The ring 0-1-2-3 and the ear 0-4-2 across it, which both tests below start from.
    const RING_AND_EAR: [(usize, usize); 6] = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (4, 2)];

    /// `n` rooms joined by `links`, the ring 0-1-2-3 placed: adjacency, placed rooms, outline.
    fn ring_placed(n: usize, links: &[(usize, usize)]) -> (Adjacency, Vec<bool>, Outline) {
        let mut done = vec![false; n];
        done[..4].fill(true);
        let mut outline = Outline::default();
        outline.open_cycle(&[0, 1, 2, 3]);
        (adjacency(n, links), done, outline)
    }

    /// A placed ring 0-1-2-3 and an ear 0-4-2 that must shut in 1 or 3: room 1 has one room
    /// hanging off it, room 3 two. The ear shuts in 1, its hanging room goes first, and 3
    /// (still waited for by its own) must stay outside; 0 and 2 wait for nothing but the ear.
    #[test]
    fn the_ear_shuts_in_the_lighter_side() {
        let links = [&RING_AND_EAR[..], &[(1, 5), (3, 6), (6, 7)]].concat();
        let (vadj, done, mut outline) = ring_placed(8, &links);
        let ear = choose(&vadj, &done, &[1; 8], &mut outline, &|_, _| true, None).unwrap();
        assert_eq!((ear.a, ear.run.as_slice(), ear.b), (0, &[4][..], 2));
        assert_eq!(ear.inside_first, vec![5]);
        assert_eq!(ear.keep_out, vec![3]);
        assert_eq!(ear.shut, (1, 1));
        assert_eq!(outline.walk, vec![0, 4, 2, 3]);
    }

    /// Ears across an edge of the outline (rooms 5 and 6) shut nothing in and go before ear
    /// 0-4-2, which would shut in 1 or 3 while they still wait for theirs. Once it is the
    /// last, it shuts in two rooms either way (and a room hanging off them, once rooms hang
    /// off both sides), and costs more if none of its links may become a corridor.
    #[test]
    fn ears_that_shut_nothing_in_go_first() {
        let links = [&RING_AND_EAR[..], &[(3, 5), (5, 0), (0, 6), (6, 1)]].concat();
        let (vadj, done, mut outline) = ring_placed(7, &links);
        let ear = choose(&vadj, &done, &[1; 7], &mut outline, &|_, _| false, None).unwrap();
        assert_eq!(ear.shut, (0, 0));
        assert_eq!(ear.keep_out, Vec::<usize>::new());
        let run: Vec<usize> = ear.run.clone();
        assert!(run == [5] || run == [6], "{run:?}");
        let mut done = vec![true; 7];
        done[4] = false;
        let last = |vadj: &[Vec<(usize, Edge)>], done: &[bool], relaxable: bool| {
            let mut outline = Outline::default();
            outline.open_cycle(&[0, 6, 1, 2, 3, 5]);
            choose(vadj, done, &[1; 9], &mut outline, &|_, _| relaxable, None)
                .unwrap()
                .shut
        };
        assert_eq!(last(&vadj, &done, true), (0, 2));
        assert_eq!(last(&vadj, &done, false), (RIGID, 2));
        let mut links = links;
        links.extend([(1, 7), (3, 8)]);
        let vadj = adjacency(9, &links);
        done.extend([false, false]);
        assert_eq!(last(&vadj, &done, true), (1, 2));
        assert_eq!(last(&vadj, &done, false), (RIGID + 1, 2));
    }
}
