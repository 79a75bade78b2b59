//! Graph queries a designer needs: distances, dead ends, loops.
//!
//! Free functions over [`LevelGraph`]; each states its complexity. `V` is the number of rooms,
//! `E` the number of links.

use std::collections::{BTreeMap, VecDeque};

use super::level::{LevelGraph, LinkId, LinkRole, RoomId};

/// Shortest walking distances (in links) from `start` to every room a player can reach,
/// respecting one-way links and windows but ignoring locks.
///
/// # Arguments
/// * `graph`: the level.
/// * `start`: where to measure from (usually [`LevelGraph::entrance`]).
///
/// # Returns
/// A map from each reachable room to its distance; `start` maps to 0. Rooms that cannot be
/// reached are absent. Empty if `start` is not in the graph.
///
/// # Complexity
/// `O(V + E + V log V)` (breadth-first search, then the map).
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, LinkKind, Room, RoomKind};
/// use levelplan::graph::distances_from;
///
/// let mut g = LevelGraph::new();
/// let a = g.add_room(Room::new(RoomKind::Entrance));
/// let b = g.add_room(Room::new(RoomKind::Normal));
/// let c = g.add_room(Room::new(RoomKind::Reward));
/// g.add_link(a, b, Link::door());
/// g.add_link(c, b, Link::new(LinkKind::OneWay)); // only c -> b
/// let d = distances_from(&g, a);
/// assert_eq!(d.get(&b), Some(&1));
/// assert_eq!(d.get(&c), None);
/// ```
pub fn distances_from(graph: &LevelGraph, start: RoomId) -> BTreeMap<RoomId, u32> {
    dense_to_map(&walking_distances(graph, start))
}

/// Marks rooms that a dense per-room vector leaves unreached.
pub(crate) const UNREACHED: u32 = u32::MAX;

/// [`distances_from`] as a vector indexed by `RoomId.0`, [`UNREACHED`] where unreachable.
pub(crate) fn walking_distances(graph: &LevelGraph, start: RoomId) -> Vec<u32> {
    let mut dist = vec![UNREACHED; graph.room_bound()];
    if !graph.contains_room(start) {
        return dist;
    }
    let mut queue = VecDeque::from([start]);
    dist[start.0 as usize] = 0;
    while let Some(r) = queue.pop_front() {
        let d = dist[r.0 as usize];
        for (_, next, link, forward) in graph.links_at(r) {
            if link.passable(forward) && dist[next.0 as usize] == UNREACHED {
                dist[next.0 as usize] = d + 1;
                queue.push_back(next);
            }
        }
    }
    dist
}

fn dense_to_map(dense: &[u32]) -> BTreeMap<RoomId, u32> {
    dense
        .iter()
        .enumerate()
        .filter(|(_, d)| **d != UNREACHED)
        .map(|(i, &d)| (RoomId(i as u32), d))
        .collect()
}

/// Rooms with exactly one link: the ends of branches (the leaves, in a tree).
///
/// # Complexity
/// `O(V + E)`.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// let mut g = LevelGraph::new();
/// let a = g.add_room(Room::new(RoomKind::Entrance));
/// let b = g.add_room(Room::new(RoomKind::Normal));
/// g.add_link(a, b, Link::door());
/// assert_eq!(levelplan::graph::dead_ends(&g), vec![a, b]);
/// ```
#[doc(alias = "leaves")]
pub fn dead_ends(graph: &LevelGraph) -> Vec<RoomId> {
    graph.room_ids().filter(|&r| graph.degree(r) == 1).collect()
}

/// The number of connected components, ignoring link direction.
///
/// # Complexity
/// `O(V + E)`.
pub fn component_count(graph: &LevelGraph) -> usize {
    let mut seen = vec![false; graph.room_bound()];
    let mut count = 0;
    let mut stack = Vec::new();
    for r in graph.room_ids() {
        if seen[r.0 as usize] {
            continue;
        }
        count += 1;
        seen[r.0 as usize] = true;
        stack.push(r);
        while let Some(x) = stack.pop() {
            for (_, y, _, _) in graph.links_at(x) {
                if !std::mem::replace(&mut seen[y.0 as usize], true) {
                    stack.push(y);
                }
            }
        }
    }
    count
}

/// The number of independent cycles (the circuit rank `E - V + C`, direction ignored):
/// 0 for a tree, 1 for a single loop, and so on.
///
/// # Complexity
/// `O(V + E log E)`.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..3).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// g.add_link(r[0], r[1], Link::door());
/// g.add_link(r[1], r[2], Link::door());
/// assert_eq!(levelplan::graph::cycle_rank(&g), 0);
/// g.add_link(r[2], r[0], Link::door());
/// assert_eq!(levelplan::graph::cycle_rank(&g), 1);
/// ```
pub fn cycle_rank(graph: &LevelGraph) -> usize {
    (graph.link_count() + component_count(graph)).saturating_sub(graph.room_count())
}

/// Whether the graph has any cycle (direction ignored). Two links between the same pair of
/// rooms count as a cycle.
///
/// # Complexity
/// `O(V + E log E)`.
pub fn has_cycle(graph: &LevelGraph) -> bool {
    cycle_rank(graph) > 0
}

/// The bridges: links whose removal disconnects their two rooms (direction ignored). A link is
/// on a cycle exactly when it is not a bridge.
///
/// # Returns
/// The bridges in link id order.
///
/// # Complexity
/// `O(V + E + B log B)` for `B` bridges: Tarjan's low-link algorithm, iterative (no recursion
/// limit).
///
/// See: R. E. Tarjan, "A note on finding the bridges of a graph", 1974.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..4).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// g.add_link(r[0], r[1], Link::door());
/// g.add_link(r[1], r[2], Link::door());
/// g.add_link(r[2], r[0], Link::door());
/// let tail = g.add_link(r[2], r[3], Link::door());
/// assert_eq!(levelplan::graph::bridges(&g), vec![tail]);
/// ```
pub fn bridges(graph: &LevelGraph) -> Vec<LinkId> {
    // Dense adjacency over room id slots (removed rooms are isolated, empty slots).
    let n = graph.room_bound();
    let mut adjacency: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    let mut ids = Vec::new();
    for (l, a, b, _) in graph.links() {
        adjacency[a.0 as usize].push((b.0 as usize, ids.len()));
        adjacency[b.0 as usize].push((a.0 as usize, ids.len()));
        ids.push(l);
    }
    let flags = bridge_flags(&adjacency, ids.len());
    let mut out: Vec<LinkId> = ids
        .into_iter()
        .zip(flags)
        .filter_map(|(l, f)| f.then_some(l))
        .collect();
    out.sort_unstable();
    out
}

/// Adjacency lists of (neighbour, link index) for `n` rooms joined by `links` (link `l` is
/// `links[l]`), as [`bridge_flags`] and the layout's helpers take them (for tests).
#[cfg(test)]
pub(crate) fn adjacency_of(n: usize, links: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    let mut adj = vec![Vec::new(); n];
    for (l, &(a, b)) in links.iter().enumerate() {
        adj[a].push((b, l));
        adj[b].push((a, l));
    }
    adj
}

/// Which links are bridges, for a graph given as adjacency lists of (neighbour, link index)
/// over `links` links: iterative depth-first search with low links (of two parallel links,
/// neither is a bridge).
pub(crate) fn bridge_flags(adj: &[Vec<(usize, usize)>], links: usize) -> Vec<bool> {
    let n = adj.len();
    let mut bridge = vec![false; links];
    let mut order = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut counter = 0;
    for root in 0..n {
        if order[root] != usize::MAX {
            continue;
        }
        // Frames: (vertex, link used to enter it, next neighbour index).
        let mut stack: Vec<(usize, Option<usize>, usize)> = vec![(root, None, 0)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        while let Some(&mut (v, via, ref mut next)) = stack.last_mut() {
            if let Some(&(w, link)) = adj[v].get(*next) {
                *next += 1;
                if Some(link) == via {
                    continue;
                }
                if order[w] == usize::MAX {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push((w, Some(link), 0));
                } else {
                    low[v] = low[v].min(order[w]);
                }
            } else {
                stack.pop();
                if let Some(&(parent, _, _)) = stack.last() {
                    low[parent] = low[parent].min(low[v]);
                    if low[v] > order[parent] {
                        bridge[via.expect("non-root frames have an entering link")] = true;
                    }
                }
            }
        }
    }
    bridge
}

/// The groups of loops that hold a room for which `from(room)` holds: rooms joined by links
/// that are not bridges. Returns each room's group (`usize::MAX` for rooms of no group
/// returned) and each group's rooms, ascending.
pub(crate) fn loop_groups(
    adj: &[Vec<(usize, usize)>],
    bridge: &[bool],
    from: impl Fn(usize) -> bool,
) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = adj.len();
    let mut group = vec![usize::MAX; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    for start in 0..n {
        if group[start] != usize::MAX || !from(start) {
            continue;
        }
        let g = members.len();
        group[start] = g;
        let mut list = vec![start];
        let mut k = 0;
        while k < list.len() {
            let v = list[k];
            k += 1;
            for &(w, l) in &adj[v] {
                if !bridge[l] && group[w] == usize::MAX {
                    group[w] = g;
                    list.push(w);
                }
            }
        }
        list.sort_unstable();
        members.push(list);
    }
    (group, members)
}

/// The links of a group of loops (`rooms`, ascending, as [`loop_groups`] gives them) that are
/// not bridges, once each, as (index into `rooms`, index into `rooms`, link).
pub(crate) fn group_links(
    rooms: &[usize],
    adj: &[Vec<(usize, usize)>],
    bridge: &[bool],
) -> Vec<(usize, usize, usize)> {
    let local = |v: usize| rooms.binary_search(&v).expect("a member");
    let mut edges = Vec::new();
    for &v in rooms {
        for &(w, l) in &adj[v] {
            if !bridge[l] && v < w {
                edges.push((local(v), local(w), l));
            }
        }
    }
    edges
}

/// The links that lie on at least one cycle (direction ignored), in link id order.
///
/// # Complexity
/// `O(V + E log E)`; see [`bridges`].
pub fn links_on_cycles(graph: &LevelGraph) -> Vec<LinkId> {
    let b = bridges(graph);
    graph
        .links()
        .map(|(id, ..)| id)
        .filter(|id| b.binary_search(id).is_err())
        .collect()
}

/// Depth of every room in the spanning tree (tree links only, from parent to child), measured
/// from `root`. Rooms not below `root` are absent.
///
/// # Complexity
/// `O(V + E log E)`.
pub fn tree_depths(graph: &LevelGraph, root: RoomId) -> BTreeMap<RoomId, u32> {
    dense_to_map(&tree_depth_vec(graph, root))
}

/// [`tree_depths`] as a vector indexed by `RoomId.0`, [`UNREACHED`] where not below `root`.
pub(crate) fn tree_depth_vec(graph: &LevelGraph, root: RoomId) -> Vec<u32> {
    let mut depth = vec![UNREACHED; graph.room_bound()];
    if !graph.contains_room(root) {
        return depth;
    }
    depth[root.0 as usize] = 0;
    let mut queue = VecDeque::from([root]);
    while let Some(r) = queue.pop_front() {
        let d = depth[r.0 as usize];
        for (_, c, link, forward) in graph.links_at(r) {
            if forward && link.role == LinkRole::Tree && depth[c.0 as usize] == UNREACHED {
                depth[c.0 as usize] = d + 1;
                queue.push_back(c);
            }
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Link, Room, RoomKind};

    #[test]
    fn bridge_flags_mark_the_links_on_no_cycle() {
        // A triangle 0-1-2, a bridge 2-3, a doubled link 3-4, a bridge 4-5.
        let links = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (3, 4), (4, 5)];
        let mut adj = vec![Vec::new(); 6];
        for (l, &(a, b)) in links.iter().enumerate() {
            adj[a].push((b, l));
            adj[b].push((a, l));
        }
        let b = bridge_flags(&adj, links.len());
        assert_eq!(b, vec![false, false, false, true, false, false, true]);
    }

    #[test]
    fn parallel_links_form_a_cycle() {
        let mut g = LevelGraph::new();
        let a = g.add_room(Room::new(RoomKind::Normal));
        let b = g.add_room(Room::new(RoomKind::Normal));
        g.add_link(a, b, Link::door());
        assert_eq!(bridges(&g).len(), 1);
        g.add_link(b, a, Link::door());
        assert!(bridges(&g).is_empty());
        assert!(has_cycle(&g));
    }

    #[test]
    fn bridges_agree_with_removal_on_a_ladder() {
        // A ladder with a tail: rungs and rails are on cycles, the tail is a bridge.
        let mut g = LevelGraph::new();
        let r: Vec<_> = (0..7)
            .map(|_| g.add_room(Room::new(RoomKind::Normal)))
            .collect();
        for (a, b) in [
            (0, 1),
            (1, 2),
            (3, 4),
            (4, 5),
            (0, 3),
            (1, 4),
            (2, 5),
            (5, 6),
        ] {
            g.add_link(r[a], r[b], Link::door());
        }
        let found = bridges(&g);
        let brute: Vec<LinkId> = g
            .links()
            .map(|(id, ..)| id)
            .filter(|&id| {
                let mut h = g.clone();
                h.remove_link(id);
                component_count(&h) > component_count(&g)
            })
            .collect();
        assert_eq!(found, brute);
        assert_eq!(found.len(), 1);
    }
}
