//! Spanning trees and extra links: reduce a connected graph to a tree, then give some links
//! back so that the level has loops again (the sector pipeline's steps 6 and 7).
//!
//! Link direction is ignored throughout: a spanning tree of a level is a tree of its rooms.

use rand::Rng;

use super::level::{GraphError, LevelGraph, LinkId, LinkRole};
use super::query::component_count;
use crate::seed;

/// Dense adjacency over room id slots: for each room, its `(link, other room)` pairs in link id
/// order (removed rooms have empty lists).
fn adjacency(graph: &LevelGraph) -> Vec<Vec<(LinkId, usize)>> {
    let mut adj = vec![Vec::new(); graph.room_bound()];
    for (l, a, b, _) in graph.links() {
        adj[a.0 as usize].push((l, b.0 as usize));
        adj[b.0 as usize].push((l, a.0 as usize));
    }
    adj
}

fn require_connected(graph: &LevelGraph, what: &'static str) -> Result<(), GraphError> {
    let components = component_count(graph);
    if components > 1 {
        return Err(GraphError::NotConnected { components, what });
    }
    Ok(())
}

/// A spanning tree drawn uniformly at random among all spanning trees of the graph.
///
/// Wilson's algorithm: loop-erased random walks from each room not yet in the tree until they
/// hit it. Parallel links count as different edges, so a pair of rooms joined twice is twice as
/// likely to be joined in the tree.
///
/// # Arguments
/// * `graph`: a connected level graph (direction ignored).
/// * `rng`: the random source.
///
/// # Returns
/// The tree's links (`V - 1` of them) in id order, or [`GraphError::NotConnected`].
///
/// # Complexity
/// Expected `O(τ)` steps for the mean hitting time `τ` of the graph's random walk (at most
/// `O(V · E)`, far less on level-like graphs), plus `O(V + E)` set-up.
///
/// See: D. B. Wilson, "Generating random spanning trees more quickly than the cover time", 1996.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// use levelplan::graph::spanning::wilson_spanning_tree;
///
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..4).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// for i in 0..4 {
///     g.add_link(r[i], r[(i + 1) % 4], Link::door()); // a ring of four rooms
/// }
/// let tree = wilson_spanning_tree(&g, &mut levelplan::seed::stream(1, "doc"))?;
/// assert_eq!(tree.len(), 3);
/// # Ok::<(), levelplan::GraphError>(())
/// ```
pub fn wilson_spanning_tree<R: Rng + ?Sized>(
    graph: &LevelGraph,
    rng: &mut R,
) -> Result<Vec<LinkId>, GraphError> {
    require_connected(graph, "a spanning tree")?;
    let adj = adjacency(graph);
    let rooms: Vec<usize> = graph.room_ids().map(|r| r.0 as usize).collect();
    let Some(&root) = rooms.first() else {
        return Ok(Vec::new());
    };
    let mut in_tree = vec![false; adj.len()];
    let mut next: Vec<(LinkId, usize)> = vec![(LinkId(0), 0); adj.len()];
    in_tree[root] = true;
    let mut tree = Vec::with_capacity(rooms.len().saturating_sub(1));
    for &start in &rooms {
        // Random walk until the tree is hit; `next` keeps only the last exit from each room,
        // which erases the loops of the walk.
        let mut v = start;
        while !in_tree[v] {
            let step = adj[v][seed::index(rng, adj[v].len())];
            next[v] = step;
            v = step.1;
        }
        let mut v = start;
        while !in_tree[v] {
            in_tree[v] = true;
            tree.push(next[v].0);
            v = next[v].1;
        }
    }
    tree.sort_unstable();
    Ok(tree)
}

/// A spanning tree made by deleting random links, each drawn uniformly among the links whose
/// removal keeps the graph connected, until none is left (the sector pipeline's step 6). Not
/// uniform over spanning trees, but the variant the sector pipeline describes.
///
/// Deleting the links of a random order one by one, skipping each that is a bridge at that
/// moment, draws each deleted link uniformly among the current non-bridges (a bridge stays a
/// bridge as links go). That pass keeps exactly the links Kruskal's algorithm keeps when it
/// adds links in the reverse order (the reverse-delete/Kruskal duality), which is how it is
/// computed here, with a union-find.
///
/// # Returns
/// The tree's links in id order, or [`GraphError::NotConnected`].
///
/// # Complexity
/// `O(E α(V) + V)`, `α` the inverse Ackermann function.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// use levelplan::graph::spanning::random_deletion_spanning_tree;
///
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..5).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// for i in 0..5 {
///     for j in i + 1..5 {
///         g.add_link(r[i], r[j], Link::door()); // a complete graph of five rooms
///     }
/// }
/// let tree = random_deletion_spanning_tree(&g, &mut levelplan::seed::stream(1, "doc"))?;
/// assert_eq!(tree.len(), 4);
/// # Ok::<(), levelplan::GraphError>(())
/// ```
pub fn random_deletion_spanning_tree<R: Rng + ?Sized>(
    graph: &LevelGraph,
    rng: &mut R,
) -> Result<Vec<LinkId>, GraphError> {
    require_connected(graph, "a spanning tree")?;
    let mut order: Vec<(LinkId, usize, usize)> = graph
        .links()
        .map(|(l, a, b, _)| (l, a.0 as usize, b.0 as usize))
        .collect();
    seed::shuffle(rng, &mut order);
    let mut sets = UnionFind::new(graph.room_bound());
    let mut tree: Vec<LinkId> = order
        .iter()
        .rev()
        .filter(|&&(_, a, b)| sets.union(a, b))
        .map(|&(l, ..)| l)
        .collect();
    tree.sort_unstable();
    Ok(tree)
}

/// Disjoint sets with path halving and union by size.
struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`; `false` if they were one set already.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
        true
    }
}

/// How many links to give back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    /// This many (or all, if fewer are available).
    Count(usize),
    /// This fraction of the candidates, rounded to the nearest whole number (clamped to 0..=1).
    Fraction(f64),
}

/// Chooses links to give back from `removed` (for example, the links a spanning tree left
/// out), uniformly at random.
///
/// # Returns
/// The chosen links in id order.
///
/// # Complexity
/// `O(n log n)` for `n` candidates.
///
/// # Examples
/// ```
/// use levelplan::LinkId;
/// use levelplan::graph::spanning::{choose_links, Amount};
/// let removed: Vec<LinkId> = (0..10).map(LinkId).collect();
/// let back = choose_links(&removed, Amount::Fraction(0.3), &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(back.len(), 3);
/// ```
pub fn choose_links<R: Rng + ?Sized>(
    removed: &[LinkId],
    amount: Amount,
    rng: &mut R,
) -> Vec<LinkId> {
    let n = match amount {
        Amount::Count(n) => n.min(removed.len()),
        Amount::Fraction(f) => {
            let f = if f.is_finite() {
                f.clamp(0.0, 1.0)
            } else {
                0.0
            };
            ((removed.len() as f64) * f).round() as usize
        }
    };
    let mut pool = removed.to_vec();
    pool.sort_unstable();
    pool.dedup();
    seed::shuffle(rng, &mut pool);
    pool.truncate(n);
    pool.sort_unstable();
    pool
}

/// Keeps only the links of `tree` and `extra`, removing every other link; the kept links get
/// the role [`LinkRole::Tree`] or [`LinkRole::Loop`]. Returns the removed links.
///
/// # Complexity
/// `O(E log E)`.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, LinkRole, Room, RoomKind};
/// use levelplan::graph::spanning::{keep_links, wilson_spanning_tree, choose_links, Amount};
///
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..6).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// for i in 0..6 {
///     for j in i + 1..6 {
///         g.add_link(r[i], r[j], Link::door());
///     }
/// }
/// let mut rng = levelplan::seed::stream(3, "doc");
/// let tree = wilson_spanning_tree(&g, &mut rng)?;
/// let rest: Vec<_> = g.links().map(|(l, ..)| l).filter(|l| !tree.contains(l)).collect();
/// let extra = choose_links(&rest, Amount::Count(2), &mut rng);
/// keep_links(&mut g, &tree, &extra);
/// assert_eq!(g.link_count(), 5 + 2);
/// assert_eq!(levelplan::graph::cycle_rank(&g), 2);
/// # Ok::<(), levelplan::GraphError>(())
/// ```
pub fn keep_links(graph: &mut LevelGraph, tree: &[LinkId], extra: &[LinkId]) -> Vec<LinkId> {
    let mut tree_set: Vec<LinkId> = tree.to_vec();
    tree_set.sort_unstable();
    let mut extra_set: Vec<LinkId> = extra.to_vec();
    extra_set.sort_unstable();
    let all: Vec<LinkId> = graph.links().map(|(l, ..)| l).collect();
    let mut removed = Vec::new();
    for l in all {
        let role = if tree_set.binary_search(&l).is_ok() {
            LinkRole::Tree
        } else if extra_set.binary_search(&l).is_ok() {
            LinkRole::Loop
        } else {
            graph.remove_link(l);
            removed.push(l);
            continue;
        };
        if let Some(link) = graph.link_mut(l) {
            link.role = role;
        }
    }
    removed
}
