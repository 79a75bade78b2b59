//! Planarity: can a graph be drawn in the plane without crossings?
//!
//! Every level that is given space is drawn in the plane: rooms are regions that do not
//! overlap, a contact link is a shared wall, a corridor is a path that crosses no room and no
//! other corridor. So the graph of rooms and links must be planar, or no layout exists at all,
//! however long a search runs. [`is_planar`] says so in linear time, before any search starts.
//!
//! The test is the left-right planarity test (Brandes, "The Left-Right Planarity Test", after
//! de Fraysseix and Rosenstiehl): a depth-first search orients the graph and orders each
//! room's links by how deep their back links nest; a second search assigns every back link to
//! the left or the right of its tree path, keeping a stack of conflict pairs, and fails when a
//! back link would have to be on both sides. Both searches are iterative, so graphs of any size
//! run on small thread stacks.

use super::level::LevelGraph;

/// `true` if `graph` can be drawn in the plane without two links crossing.
///
/// Parallel links and links from a room to itself do not change the answer. A graph that is
/// not planar has no layout: [`crate::layout::Planner`] refuses one up front.
///
/// # Complexity
/// `O(V + E)` (at most `3V - 6` links are looked at; more cannot be planar).
///
/// # Examples
/// ```
/// use levelplan::graph::{LevelGraph, Link, Room, RoomKind, is_planar};
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..5).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// for i in 0..5 {
///     for j in i + 1..5 {
///         if (i, j) != (3, 4) {
///             g.add_link(r[i], r[j], Link::door());
///         }
///     }
/// }
/// assert!(is_planar(&g)); // K5 less one link
/// g.add_link(r[3], r[4], Link::door());
/// assert!(!is_planar(&g)); // K5
/// ```
pub fn is_planar(graph: &LevelGraph) -> bool {
    let ids: Vec<_> = graph.room_ids().collect();
    let slot = |r| ids.binary_search(&r).ok();
    let mut edges = Vec::new();
    for (_, a, b, _) in graph.links() {
        if let (Some(a), Some(b)) = (slot(a), slot(b)) {
            edges.push((a, b));
        }
    }
    planar_edges(ids.len(), &edges)
}

/// [`is_planar`] on a plain graph: `n` vertices `0..n` and undirected `edges` between them.
pub(crate) fn planar_edges(n: usize, edges: &[(usize, usize)]) -> bool {
    let simple = simple_edges(n, edges);
    if n >= 3 && simple.len() > 3 * n - 6 {
        return false;
    }
    // A graph that is not planar holds a subdivision of K5 (10 edges) or K3,3 (9 edges):
    // fewer edges than that, and it is planar (most small levels stop here).
    if simple.len() < 9 {
        return true;
    }
    Lr::new(n, simple).run()
}

/// `edges` without loops, repeats or vertices outside `0..n`, each as `(low, high)`, sorted.
pub(super) fn simple_edges(n: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut simple: Vec<(usize, usize)> = edges
        .iter()
        .filter(|(a, b)| a != b && *a < n && *b < n)
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    simple.sort_unstable();
    simple.dedup();
    simple
}

/// Joins vertex `apex` to each of `rooms` in turn (`edges` being the graph on `0..=apex`),
/// keeping a join only if the graph stays planar: whether each room was joined. Rooms joined
/// to one new vertex can share one face of a drawing; heaviest first, this keeps the heavy
/// ones outside.
pub(crate) fn join_apex_while_planar(
    apex: usize,
    edges: &mut Vec<(usize, usize)>,
    rooms: &[usize],
) -> Vec<bool> {
    rooms
        .iter()
        .map(|&v| {
            edges.push((v, apex));
            let planar = planar_edges(apex + 1, edges);
            if !planar {
                edges.pop();
            }
            planar
        })
        .collect()
}

const NONE: usize = usize::MAX;

/// An interval of return edges on one side: its lowest and highest edge, or empty.
#[derive(Clone, Copy, Debug)]
struct Interval {
    low: usize,
    high: usize,
}

impl Interval {
    const EMPTY: Interval = Interval {
        low: NONE,
        high: NONE,
    };

    fn is_empty(&self) -> bool {
        self.low == NONE && self.high == NONE
    }
}

#[derive(Clone, Copy, Debug)]
struct Pair {
    left: Interval,
    right: Interval,
}

impl Pair {
    fn swap(&mut self) {
        std::mem::swap(&mut self.left, &mut self.right);
    }
}

struct Lr {
    n: usize,
    /// Undirected edges; after the first search, `edges[e] = (source, target)` as oriented.
    edges: Vec<(usize, usize)>,
    adj: Vec<Vec<usize>>,
    oriented: Vec<bool>,
    height: Vec<usize>,
    parent_edge: Vec<usize>,
    lowpt: Vec<usize>,
    lowpt2: Vec<usize>,
    nesting: Vec<usize>,
    // Second search.
    ordered: Vec<Vec<usize>>,
    stack: Vec<Pair>,
    stack_bottom: Vec<usize>,
    lowpt_edge: Vec<usize>,
    refs: Vec<usize>,
}

impl Lr {
    fn new(n: usize, edges: Vec<(usize, usize)>) -> Lr {
        let m = edges.len();
        let mut adj = vec![Vec::new(); n];
        for (e, &(a, b)) in edges.iter().enumerate() {
            adj[a].push(e);
            adj[b].push(e);
        }
        Lr {
            n,
            edges,
            adj,
            oriented: vec![false; m],
            height: vec![NONE; n],
            parent_edge: vec![NONE; n],
            lowpt: vec![0; m],
            lowpt2: vec![0; m],
            nesting: vec![0; m],
            ordered: vec![Vec::new(); n],
            stack: Vec::new(),
            stack_bottom: vec![0; m],
            lowpt_edge: vec![NONE; m],
            refs: vec![NONE; m],
        }
    }

    fn run(mut self) -> bool {
        let mut roots = Vec::new();
        for v in 0..self.n {
            if self.height[v] == NONE {
                self.height[v] = 0;
                roots.push(v);
                self.orient(v);
            }
        }
        for v in 0..self.n {
            let mut out: Vec<usize> = (self.adj[v].iter().copied())
                .filter(|&e| self.edges[e].0 == v)
                .collect();
            out.sort_by_key(|&e| self.nesting[e]);
            self.ordered[v] = out;
        }
        roots.into_iter().all(|r| self.test(r))
    }

    /// First search: orients every edge away from the root along the tree and towards it along
    /// back edges, and computes lowpoints and nesting depths.
    fn orient(&mut self, root: usize) {
        // (vertex, next adjacency index)
        let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut next)) = frames.last_mut() {
            if *next == self.adj[v].len() {
                frames.pop();
                // The edge into `v` is done: fold it into its parent's lowpoints.
                let e = self.parent_edge[v];
                if e != NONE {
                    self.finish_edge(e);
                }
                continue;
            }
            let e = self.adj[v][*next];
            *next += 1;
            if self.oriented[e] {
                continue;
            }
            self.oriented[e] = true;
            let (a, b) = self.edges[e];
            let w = if a == v { b } else { a };
            self.edges[e] = (v, w);
            self.lowpt[e] = self.height[v];
            self.lowpt2[e] = self.height[v];
            if self.height[w] == NONE {
                self.parent_edge[w] = e;
                self.height[w] = self.height[v] + 1;
                frames.push((w, 0));
            } else {
                self.lowpt[e] = self.height[w];
                self.finish_edge(e);
            }
        }
    }

    /// Nesting depth of edge `e = (v, w)` and its contribution to the lowpoints of the edge
    /// into `v`.
    fn finish_edge(&mut self, e: usize) {
        let v = self.edges[e].0;
        self.nesting[e] = 2 * self.lowpt[e] + usize::from(self.lowpt2[e] < self.height[v]);
        let p = self.parent_edge[v];
        if p == NONE {
            return;
        }
        if self.lowpt[e] < self.lowpt[p] {
            self.lowpt2[p] = self.lowpt[p].min(self.lowpt2[e]);
            self.lowpt[p] = self.lowpt[e];
        } else if self.lowpt[e] > self.lowpt[p] {
            self.lowpt2[p] = self.lowpt2[p].min(self.lowpt[e]);
        } else {
            self.lowpt2[p] = self.lowpt2[p].min(self.lowpt2[e]);
        }
    }

    /// Second search: sides for the back edges, through the conflict-pair stack.
    fn test(&mut self, root: usize) -> bool {
        // (vertex, next index into its ordered outgoing edges)
        let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut next)) = frames.last_mut() {
            if *next == self.ordered[v].len() {
                frames.pop();
                let e = self.parent_edge[v];
                if e == NONE {
                    continue;
                }
                self.remove_back_edges(e);
                // The edge into `v` is done; its parent integrates it.
                if !self.integrate(e) {
                    return false;
                }
                continue;
            }
            let ei = self.ordered[v][*next];
            *next += 1;
            self.stack_bottom[ei] = self.stack.len();
            let w = self.edges[ei].1;
            if self.parent_edge[w] == ei {
                frames.push((w, 0));
            } else {
                self.lowpt_edge[ei] = ei;
                self.stack.push(Pair {
                    left: Interval::EMPTY,
                    right: Interval { low: ei, high: ei },
                });
                if !self.integrate(ei) {
                    return false;
                }
            }
        }
        true
    }

    /// After edge `ei = (v, w)` and everything below it: its return edges join the
    /// constraints of the edge into `v`.
    fn integrate(&mut self, ei: usize) -> bool {
        let v = self.edges[ei].0;
        if self.lowpt[ei] >= self.height[v] {
            return true;
        }
        let e = self.parent_edge[v];
        if self.ordered[v].first() == Some(&ei) {
            if e != NONE {
                self.lowpt_edge[e] = self.lowpt_edge[ei];
            }
            true
        } else {
            self.add_constraints(ei, e)
        }
    }

    fn conflicting(&self, i: Interval, b: usize) -> bool {
        !i.is_empty() && self.lowpt[i.high] > self.lowpt[b]
    }

    fn lowest(&self, p: &Pair) -> usize {
        if p.left.is_empty() && p.right.is_empty() {
            NONE
        } else if p.left.is_empty() {
            self.lowpt[p.right.low]
        } else if p.right.is_empty() {
            self.lowpt[p.left.low]
        } else {
            self.lowpt[p.left.low].min(self.lowpt[p.right.low])
        }
    }

    fn add_constraints(&mut self, ei: usize, e: usize) -> bool {
        let mut p = Pair {
            left: Interval::EMPTY,
            right: Interval::EMPTY,
        };
        // Merge the return edges of `ei` into the right interval.
        loop {
            let Some(mut q) = self.stack.pop() else {
                return false;
            };
            if !q.left.is_empty() {
                q.swap();
            }
            if !q.left.is_empty() {
                return false;
            }
            if self.lowpt[q.right.low] > self.lowpt[e] {
                if p.right.is_empty() {
                    p.right = q.right;
                } else {
                    self.refs[p.right.low] = q.right.high;
                }
                p.right.low = q.right.low;
            } else {
                self.refs[q.right.low] = self.lowpt_edge[e];
            }
            if self.stack.len() == self.stack_bottom[ei] {
                break;
            }
        }
        // Merge the conflicting return edges of earlier siblings into the left interval.
        while let Some(top) = self.stack.last().copied() {
            if !self.conflicting(top.left, ei) && !self.conflicting(top.right, ei) {
                break;
            }
            let mut q = self.stack.pop().expect("just looked");
            if self.conflicting(q.right, ei) {
                q.swap();
            }
            if self.conflicting(q.right, ei) {
                return false;
            }
            if p.right.low != NONE {
                self.refs[p.right.low] = q.right.high;
            }
            if q.right.low != NONE {
                p.right.low = q.right.low;
            }
            if p.left.is_empty() {
                p.left = q.left;
            } else {
                self.refs[p.left.low] = q.left.high;
            }
            p.left.low = q.left.low;
        }
        if !p.left.is_empty() || !p.right.is_empty() {
            self.stack.push(p);
        }
        true
    }

    /// Drops the back edges that end at the source of tree edge `e`, and sets `e`'s reference
    /// to its highest return edge.
    fn remove_back_edges(&mut self, e: usize) {
        let u = self.edges[e].0;
        while let Some(top) = self.stack.last() {
            if self.lowest(top) != self.height[u] {
                break;
            }
            self.stack.pop();
        }
        if let Some(mut p) = self.stack.pop() {
            while p.left.high != NONE && self.edges[p.left.high].1 == u {
                p.left.high = self.refs[p.left.high];
            }
            if p.left.high == NONE && p.left.low != NONE {
                self.refs[p.left.low] = p.right.low;
                p.left.low = NONE;
            }
            while p.right.high != NONE && self.edges[p.right.high].1 == u {
                p.right.high = self.refs[p.right.high];
            }
            if p.right.high == NONE && p.right.low != NONE {
                self.refs[p.right.low] = p.left.low;
                p.right.low = NONE;
            }
            self.stack.push(p);
        }
        if self.lowpt[e] < self.height[u]
            && let Some(top) = self.stack.last()
        {
            let (hl, hr) = (top.left.high, top.right.high);
            self.refs[e] = if hl != NONE && (hr == NONE || self.lowpt[hl] > self.lowpt[hr]) {
                hl
            } else {
                hr
            };
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The edges of the complete graph on `n` vertices.
    pub(in crate::graph) fn complete(n: usize) -> Vec<(usize, usize)> {
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect()
    }

    #[test]
    fn small_classics() {
        assert!(planar_edges(0, &[]));
        assert!(planar_edges(1, &[]));
        assert!(planar_edges(4, &complete(4)));
        assert!(!planar_edges(5, &complete(5)));
        let k33: Vec<_> = (0..3).flat_map(|i| (3..6).map(move |j| (i, j))).collect();
        assert!(!planar_edges(6, &k33));
        assert!(planar_edges(6, &k33[1..]));
        // Petersen graph: not planar, though sparse enough for the edge bound.
        let mut petersen: Vec<(usize, usize)> = (0..5).map(|i| (i, (i + 1) % 5)).collect();
        petersen.extend((0..5).map(|i| (i, i + 5)));
        petersen.extend((0..5).map(|i| (5 + i, 5 + (i + 2) % 5)));
        assert!(!planar_edges(10, &petersen));
        // A grid with its diagonals one way is planar.
        let idx = |x: usize, y: usize| y * 6 + x;
        let mut grid = Vec::new();
        for y in 0..6 {
            for x in 0..6 {
                if x + 1 < 6 {
                    grid.push((idx(x, y), idx(x + 1, y)));
                }
                if y + 1 < 6 {
                    grid.push((idx(x, y), idx(x, y + 1)));
                }
                if x + 1 < 6 && y + 1 < 6 {
                    grid.push((idx(x, y), idx(x + 1, y + 1)));
                }
            }
        }
        assert!(planar_edges(36, &grid));
        // Both diagonals in one cell make a K4 there, still planar; a link across two cells
        // on top of both diagonals everywhere is not.
        grid.push((idx(1, 0), idx(0, 1)));
        assert!(planar_edges(36, &grid));
    }

    /// The shortcut for graphs of fewer than 9 edges agrees with the full test: every graph
    /// of 5 or 6 rooms with 8 edges (each a subgraph of all sparser ones), run through the
    /// left-right test itself, is planar.
    #[test]
    fn every_graph_of_eight_edges_is_planar_by_the_full_test() {
        for n in [5, 6] {
            let all = complete(n);
            let m = all.len();
            let mut checked = 0;
            for mask in 0u32..(1 << m) {
                if mask.count_ones() != 8 {
                    continue;
                }
                let edges: Vec<(usize, usize)> = (0..m)
                    .filter(|&k| mask >> k & 1 == 1)
                    .map(|k| all[k])
                    .collect();
                assert!(Lr::new(n, edges.clone()).run(), "{edges:?}");
                checked += 1;
            }
            assert!(checked > 0);
        }
    }

    use proptest::prelude::*;

    /// A random tree on `n` vertices plus chords of a cycle through them that do not cross
    /// (an outerplanar graph), with the vertices renamed by `perm`.
    fn outerplanar(n: usize, chords: &[(usize, usize)], perm: &[usize]) -> Vec<(usize, usize)> {
        let mut edges: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let mut kept: Vec<(usize, usize)> = Vec::new();
        for &(a, b) in chords {
            let (a, b) = (a % n, b % n);
            let (a, b) = (a.min(b), a.max(b));
            // Two chords cross when exactly one end of one lies strictly inside the other.
            let crosses = |&(c, d): &(usize, usize)| {
                let inside = |x: usize| a < x && x < b;
                (inside(c) && !inside(d) && d != a && d != b)
                    || (inside(d) && !inside(c) && c != a && c != b)
            };
            if b > a + 1 && !kept.iter().any(crosses) {
                kept.push((a, b));
            }
        }
        edges.extend(kept);
        edges.iter().map(|&(a, b)| (perm[a], perm[b])).collect()
    }

    proptest! {
        /// Outerplanar graphs are planar, in any vertex naming and edge order; joining a new
        /// vertex to every vertex of one (at least five of them) keeps it planar too, since
        /// the new vertex sits in the outer face.
        #[test]
        fn outerplanar_graphs_are_planar(
            n in 3usize..40,
            chords in proptest::collection::vec((0usize..40, 0usize..40), 0..60),
            shuffle in proptest::collection::vec(any::<u32>(), 41),
        ) {
            let mut perm: Vec<usize> = (0..n).collect();
            perm.sort_by_key(|&i| shuffle[i]);
            let mut edges = outerplanar(n, &chords, &perm);
            edges.sort_by_key(|&(a, b)| shuffle[(a * 7 + b) % 41]);
            prop_assert!(planar_edges(n, &edges));
            edges.extend((0..n).map(|i| (i, n)));
            prop_assert!(planar_edges(n + 1, &edges));
        }

        /// A subdivided K5 or K3,3 hung on a random tree is never planar, and removing any one
        /// of its edges makes a planar graph again when the rest is a tree.
        #[test]
        fn kuratowski_subdivisions_are_not_planar(
            k5 in any::<bool>(),
            subdivide in proptest::collection::vec(0usize..3, 10),
            tree in proptest::collection::vec(any::<u32>(), 0..30),
            drop in 0usize..10,
        ) {
            let core: Vec<(usize, usize)> = if k5 {
                (0..5).flat_map(|i| (i + 1..5).map(move |j| (i, j))).collect()
            } else {
                (0..3).flat_map(|i| (3..6).map(move |j| (i, j))).collect()
            };
            let mut n = if k5 { 5 } else { 6 };
            let mut edges = Vec::new();
            let mut paths = Vec::new();
            for (k, &(a, b)) in core.iter().enumerate() {
                // Replace the edge by a path with `subdivide[k]` new vertices.
                let mut prev = a;
                let first = edges.len();
                for _ in 0..subdivide[k] {
                    edges.push((prev, n));
                    prev = n;
                    n += 1;
                }
                edges.push((prev, b));
                paths.push(first..edges.len());
            }
            for &t in &tree {
                // Hang a new vertex off any existing one.
                edges.push((t as usize % n, n));
                n += 1;
            }
            prop_assert!(!planar_edges(n, &edges));
            let cut = paths[drop % paths.len()].start;
            edges.remove(cut);
            prop_assert!(planar_edges(n, &edges));
        }
    }
}
