//! Forced enclosures: rooms that some loop must be drawn round.
//!
//! A group of loops (rooms joined by links that lie on cycles) is drawn as rings of rooms.
//! Rooms of the group with more rooms hanging off them (through links on no cycle) need their
//! hangings drawn beside them: outside every ring if the room is on the outside of the
//! group's drawing, else inside a ring, in a hole that ring must leave. Whether every such room
//! can be on the outside at once is a planarity question: join a new vertex to all of them;
//! the graph stays planar exactly when some drawing has them all on its outer face (the new
//! vertex sits there). When it does not, a loop must be drawn round a room and what hangs off
//! it, and a layout that closes its loops tight (as the room-by-room search does) cannot be
//! found; naming the group and the rooms tells a designer what to change.
//!
//! Only rooms with rooms hanging off them are looked at. Rooms of the group itself may also
//! have to be inside a ring (of three paths between two rooms, one lies between the other
//! two in any drawing); a layout places them first and closes the ring round them, which
//! works where the ring is long enough, so they are not reported.

use super::level::{LevelGraph, RoomId};
use super::planar::{join_apex_while_planar, planar_edges};
use super::query::{bridge_flags, group_links, loop_groups};

/// A group of loops that no drawing leaves with all its hanging rooms outside (see
/// [`enclosures`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosure {
    /// The rooms of the group (joined by links on cycles), ascending.
    pub rooms: Vec<RoomId>,
    /// Rooms of the group with rooms hanging off them, each with how many hang off it,
    /// heaviest first.
    pub hanging: Vec<(RoomId, usize)>,
    /// Rooms a drawing can put inside a loop so that all the other hanging rooms stay outside:
    /// the heaviest are kept outside first. One choice of possibly several.
    pub inside: Vec<RoomId>,
}

impl Enclosure {
    /// The rooms the hole must hold: the rooms drawn inside ([`Enclosure::inside`]) and all
    /// that hangs off them. The size of the biggest such hole decides most of whether a
    /// level lays out: of 40 level-like graphs of 100 rooms (`random::local_loops_graph`, 20
    /// attempts each), the 4 that need no hole laid out, 5 of 9 whose biggest hole holds 1 to
    /// 3 rooms, 3 of 15 holding 4 to 10, none of 12 holding more.
    ///
    /// ```
    /// use levelplan::graph::{LevelGraph, Link, Room, RoomKind, enclosures};
    /// // Three paths of one room between `s` and `t`, with 1, 2 and 3 rooms hanging off the
    /// // middle rooms: the lightest middle room goes inside, with its one room.
    /// let mut g = LevelGraph::new();
    /// let s = g.add_room(Room::new(RoomKind::Normal));
    /// let t = g.add_room(Room::new(RoomKind::Normal));
    /// for k in 0..3 {
    ///     let m = g.add_room(Room::new(RoomKind::Normal));
    ///     g.add_link(s, m, Link::door());
    ///     g.add_link(m, t, Link::door());
    ///     for _ in 0..=k {
    ///         let leaf = g.add_room(Room::new(RoomKind::Normal));
    ///         g.add_link(m, leaf, Link::door());
    ///     }
    /// }
    /// assert_eq!(enclosures(&g)[0].rooms_held(), 2);
    /// ```
    pub fn rooms_held(&self) -> usize {
        held(&self.hanging, &self.inside)
    }
}

/// The rooms in `inside` and what hangs off them (`hanging`: room and rooms hanging off it).
fn held<R: PartialEq>(hanging: &[(R, usize)], inside: &[R]) -> usize {
    hanging
        .iter()
        .filter(|h| inside.contains(&h.0))
        .map(|h| h.1 + 1)
        .sum()
}

/// Groups of loops that cannot be drawn with every room that has rooms hanging off it on the
/// outside: some loop must be drawn round one of them, and round what hangs off it.
///
/// Such a level needs a hole of the right size inside a ring of rooms. The layout's
/// room-by-room search closes loops tight, so it leaves a hole only where a loop closes by a
/// corridor that goes round what is already placed (the Gungeon recipe's loops often do);
/// rings of rooms that must touch leave none (annealing, its fallback on small problems,
/// sometimes does), and such graphs rarely lay out. A designer can move the hanging rooms to
/// rooms on the outside, join them to a second room of the group, or let the loops close by
/// corridors. Where the hole would have to hold more cells than any loop round it can
/// enclose, no layout exists at all: [`crate::layout::proof::hole_proof`] proves it from the
/// rooms' templates, and `layout::Planner::new` refuses such a level.
///
/// # Complexity
/// `O(V + E)` to find the groups, then a planarity test per hanging room of each group that
/// fails the first test: `O(H · (V + E))` at worst.
///
/// # Examples
/// ```
/// use levelplan::graph::{LevelGraph, Link, Room, RoomKind, enclosures};
/// // Three paths of one room between `s` and `t`; each middle room has a room hanging off.
/// let mut g = LevelGraph::new();
/// let s = g.add_room(Room::new(RoomKind::Normal));
/// let t = g.add_room(Room::new(RoomKind::Normal));
/// for k in 0..3 {
///     let m = g.add_room(Room::new(RoomKind::Normal));
///     g.add_link(s, m, Link::door());
///     g.add_link(m, t, Link::door());
///     for _ in 0..=k {
///         let leaf = g.add_room(Room::new(RoomKind::Normal));
///         g.add_link(m, leaf, Link::door());
///     }
/// }
/// // One middle room lies between the other two paths in any drawing: the lightest goes in.
/// let e = enclosures(&g);
/// assert_eq!(e.len(), 1);
/// assert_eq!(e[0].hanging.len(), 3);
/// assert_eq!(e[0].inside.len(), 1);
/// assert_eq!(e[0].hanging.last().unwrap().0, e[0].inside[0]);
/// ```
pub fn enclosures(graph: &LevelGraph) -> Vec<Enclosure> {
    let ids: Vec<RoomId> = graph.room_ids().collect();
    let slot = |r: RoomId| ids.binary_search(&r).ok();
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); ids.len()];
    let mut links = 0;
    for (_, a, b, _) in graph.links() {
        if let (Some(a), Some(b)) = (slot(a), slot(b)) {
            adj[a].push((b, links));
            adj[b].push((a, links));
            links += 1;
        }
    }
    enclosure_groups(&adj, links)
        .into_iter()
        .map(|g| Enclosure {
            rooms: g.rooms.iter().map(|&r| ids[r]).collect(),
            hanging: g.hanging.iter().map(|&(r, w)| (ids[r], w)).collect(),
            inside: g.inside.iter().map(|&r| ids[r]).collect(),
        })
        .collect()
}

/// [`Enclosure`] over room indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) rooms: Vec<usize>,
    pub(crate) hanging: Vec<(usize, usize)>,
    pub(crate) inside: Vec<usize>,
}

impl Group {
    /// [`Enclosure::rooms_held`].
    pub(crate) fn rooms_held(&self) -> usize {
        held(&self.hanging, &self.inside)
    }
}

/// The groups of loops of a graph (rooms joined by links that are not bridges) and the tree
/// the bridges make of them, rooted at the group of the lowest room of each connected part:
/// enough to say how many rooms lie beyond a bridge, seen from either end.
pub(crate) struct BridgeTree {
    /// Each room's group.
    pub(crate) group: Vec<usize>,
    /// Each group's rooms, ascending.
    pub(crate) members: Vec<Vec<usize>>,
    /// Each group's parent group (`usize::MAX` for a root).
    parent: Vec<usize>,
    /// Rooms in each group's subtree.
    below: Vec<usize>,
    /// Rooms in each group's connected part.
    total: Vec<usize>,
}

impl BridgeTree {
    /// The tree of `adj` (adjacency lists of (neighbour, link index)), `bridge` flagging
    /// the links on no cycle.
    pub(crate) fn new(adj: &[Vec<(usize, usize)>], bridge: &[bool]) -> BridgeTree {
        let (group, members) = loop_groups(adj, bridge, |_| true);
        let m = members.len();
        let mut parent = vec![usize::MAX; m];
        let mut below: Vec<usize> = members.iter().map(Vec::len).collect();
        let mut total = vec![0usize; m];
        let mut seen = vec![false; m];
        for root in 0..m {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            let mut order = vec![root];
            let mut k = 0;
            while k < order.len() {
                let g = order[k];
                k += 1;
                for &v in &members[g] {
                    for &(w, l) in &adj[v] {
                        let h = group[w];
                        if bridge[l] && !seen[h] {
                            seen[h] = true;
                            parent[h] = g;
                            order.push(h);
                        }
                    }
                }
            }
            for &g in order.iter().rev() {
                if parent[g] != usize::MAX {
                    below[parent[g]] += below[g];
                }
            }
            for &g in &order {
                total[g] = below[root];
            }
        }
        BridgeTree {
            group,
            members,
            parent,
            below,
            total,
        }
    }

    /// The rooms beyond the bridge from room `v` to room `w`, seen from `v`: those `w` reaches
    /// without crossing back.
    pub(crate) fn beyond(&self, v: usize, w: usize) -> usize {
        let (g, h) = (self.group[v], self.group[w]);
        if self.parent[h] == g {
            self.below[h]
        } else {
            self.total[g] - self.below[g]
        }
    }
}

/// [`enclosures`] on a graph given as adjacency lists of (neighbour, link index) over `links`
/// links.
pub(crate) fn enclosure_groups(adj: &[Vec<(usize, usize)>], links: usize) -> Vec<Group> {
    let bridge = bridge_flags(adj, links);
    let tree = BridgeTree::new(adj, &bridge);
    let (group, members) = (&tree.group, &tree.members);
    let mut out = Vec::new();
    for (g, rooms) in members.iter().enumerate() {
        if rooms.len() < 3 {
            continue;
        }
        // Rooms hanging off each room of the group: beyond each bridge, the far side's rooms.
        let mut hanging: Vec<(usize, usize)> = Vec::new();
        for &v in rooms {
            let mut w_sum = 0;
            for &(w, l) in &adj[v] {
                if !bridge[l] || group[w] == g {
                    continue;
                }
                w_sum += tree.beyond(v, w);
            }
            if w_sum > 0 {
                hanging.push((v, w_sum));
            }
        }
        if hanging.len() < 2 {
            continue;
        }
        let local = |v: usize| rooms.binary_search(&v).expect("a member");
        let mut edges: Vec<(usize, usize)> = group_links(rooms, adj, &bridge)
            .into_iter()
            .map(|(a, b, _)| (a, b))
            .collect();
        let apex = rooms.len();
        let base = edges.len();
        edges.extend(hanging.iter().map(|&(v, _)| (local(v), apex)));
        if planar_edges(apex + 1, &edges) {
            continue;
        }
        // Keep the heaviest outside first; a room that cannot join them goes inside.
        hanging.sort_by_key(|&(v, w)| (std::cmp::Reverse(w), v));
        edges.truncate(base);
        let order: Vec<usize> = hanging.iter().map(|&(v, _)| local(v)).collect();
        let joined = join_apex_while_planar(apex, &mut edges, &order);
        let inside: Vec<usize> = (hanging.iter().zip(joined))
            .filter(|&(_, j)| !j)
            .map(|(&(v, _), _)| v)
            .collect();
        out.push(Group {
            rooms: rooms.clone(),
            hanging,
            inside,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::enclosure_groups;
    use crate::graph::adjacency_of as adjacency;

    /// A ring with a room hanging off every room: all can be outside, nothing is reported.
    #[test]
    fn a_ring_with_hangings_all_round_needs_no_hole() {
        let mut edges: Vec<(usize, usize)> = (0..6).map(|i| (i, (i + 1) % 6)).collect();
        edges.extend((0..6).map(|i| (i, 6 + i)));
        assert!(enclosure_groups(&adjacency(12, &edges), edges.len()).is_empty());
    }

    /// Three paths between rooms 0 and 1, through rooms 2, 3 and 4; a subtree of 1, 2 and 3
    /// rooms hangs off them. One middle room must be inside: the lightest, room 2; the group,
    /// the hanging rooms and their weights are right, and a fourth hanging subtree off room 0
    /// (on the outside whatever the drawing) changes nothing.
    #[test]
    fn the_middle_of_three_paths_goes_inside() {
        let mut edges = vec![(0, 2), (2, 1), (0, 3), (3, 1), (0, 4), (4, 1)];
        edges.extend([(2, 5), (3, 6), (6, 7), (4, 8), (8, 9), (9, 10)]);
        let groups = enclosure_groups(&adjacency(11, &edges), edges.len());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].rooms, vec![0, 1, 2, 3, 4]);
        assert_eq!(groups[0].hanging, vec![(4, 3), (3, 2), (2, 1)]);
        assert_eq!(groups[0].inside, vec![2]);
        assert_eq!(groups[0].rooms_held(), 2, "room 2 and room 5 off it");
        edges.extend([(0, 11), (11, 12)]);
        let groups = enclosure_groups(&adjacency(13, &edges), edges.len());
        assert_eq!(groups[0].hanging, vec![(4, 3), (0, 2), (3, 2), (2, 1)]);
        assert_eq!(groups[0].inside, vec![2]);
    }

    /// What hangs beyond a bridge counts on its far side, whether that side is below the group
    /// (a subtree with a loop of its own) or above it (towards the lowest room).
    #[test]
    fn weights_count_the_far_side_of_each_bridge() {
        // Room 0 hangs off end 1 of a theta (ends 1, 2; middles 3, 4, 5). Leaf 6 hangs off 3;
        // a triangle 7-8-9 with leaf 10 off 4; a path 11-12 off 5.
        let edges = [
            (0, 1),
            (1, 3),
            (3, 2),
            (1, 4),
            (4, 2),
            (1, 5),
            (5, 2),
            (3, 6),
            (4, 7),
            (7, 8),
            (8, 9),
            (9, 7),
            (8, 10),
            (5, 11),
            (11, 12),
        ];
        let groups = enclosure_groups(&adjacency(13, &edges), edges.len());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].rooms, vec![1, 2, 3, 4, 5]);
        assert_eq!(groups[0].hanging, vec![(4, 4), (5, 2), (1, 1), (3, 1)]);
        assert_eq!(groups[0].inside, vec![3]);
    }
}
