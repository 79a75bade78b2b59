//! Loop decomposition: a level graph cut into loop composites (simple cycles) and tree
//! composites, as the layout stage lays them out one by one (`shared/spec/flows.md`,
//! "Composites" and reference section 6).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::level::{LevelGraph, LinkId, LinkKind, RoomId};
use super::query::bridges;

/// What kind of part a composite is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompositeKind {
    /// A simple cycle of rooms.
    Loop {
        /// Whether one of the cycle's links is one-way (the loop can only be walked one way).
        one_way: bool,
    },
    /// A tree of rooms (no cycle inside).
    Tree,
}

/// One part of a decomposition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Composite {
    /// Loop or tree.
    pub kind: CompositeKind,
    /// The rooms in layout order: for a loop, around the cycle from the room where it was
    /// entered; for a tree, depth first from the room nearest the decomposition's root.
    pub rooms: Vec<RoomId>,
    /// The links that make the composite: for a loop, `links[i]` joins `rooms[i]` and
    /// `rooms[(i + 1) % n]`; for a tree, its `rooms.len() - 1` links, each entering the room
    /// of the same position in `rooms[1..]`.
    pub links: Vec<LinkId>,
}

impl Composite {
    /// Whether this is a loop composite.
    pub fn is_loop(&self) -> bool {
        matches!(self.kind, CompositeKind::Loop { .. })
    }
}

/// A level graph cut into composites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decomposition {
    /// The room the decomposition started from: the one with the most links.
    pub root: Option<RoomId>,
    /// The composites, in the order they were found from the root.
    pub composites: Vec<Composite>,
    /// Links whose two rooms lie in different composites, in id order.
    pub links_between: Vec<LinkId>,
    /// Links inside one composite that are not part of its cycle or tree (a second link
    /// between two rooms of the same loop), in id order.
    pub extra_links: Vec<LinkId>,
    /// For each room id slot, the index of its composite (`usize::MAX` for no room).
    composite_of: Vec<usize>,
}

impl Decomposition {
    /// The index in [`composites`](Self::composites) of the composite holding `room`.
    pub fn composite_of(&self, room: RoomId) -> Option<usize> {
        self.composite_of
            .get(room.0 as usize)
            .copied()
            .filter(|&c| c != usize::MAX)
    }
}

/// Cuts the graph into loop and tree composites (link direction ignored).
///
/// Re-roots at the room with the most links (ties: lowest id) and walks the graph breadth
/// first from it. Each room met that is not yet in a loop takes the shortest cycle through it
/// that avoids rooms already in loops, if there is one, as a new loop composite. A shortest
/// cycle through a room has no chord, so each loop composite is a simple cycle of the graph.
/// Rooms left over form trees: a cycle among them would have been found from its first room.
/// Each connected group of left-over rooms becomes one tree composite.
///
/// # Returns
/// The [`Decomposition`]: composites partition the rooms; every link is in exactly one of a
/// composite's `links`, `links_between` or `extra_links`.
///
/// # Complexity
/// `O(L · (V + E) + E log E)` for `L` rooms that lie on cycles: one breadth-first search per
/// such room, restricted to links that lie on cycles.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
/// use levelplan::graph::composite::decompose;
///
/// // A square with a tail.
/// let mut g = LevelGraph::new();
/// let r: Vec<_> = (0..5).map(|_| g.add_room(Room::new(RoomKind::Normal))).collect();
/// for i in 0..4 {
///     g.add_link(r[i], r[(i + 1) % 4], Link::door());
/// }
/// g.add_link(r[3], r[4], Link::door());
/// let d = decompose(&g);
/// assert_eq!(d.composites.len(), 2);
/// assert!(d.composites[0].is_loop());
/// assert_eq!(d.composites[0].rooms.len(), 4);
/// assert_eq!(d.composites[1].rooms, vec![r[4]]);
/// assert_eq!(d.links_between.len(), 1);
/// ```
pub fn decompose(graph: &LevelGraph) -> Decomposition {
    let n = graph.room_bound();
    let link_bound = graph.link_bound();
    let mut adj: Vec<Vec<(LinkId, usize)>> = vec![Vec::new(); n];
    let mut one_way = vec![false; link_bound];
    for (l, a, b, link) in graph.links() {
        adj[a.0 as usize].push((l, b.0 as usize));
        adj[b.0 as usize].push((l, a.0 as usize));
        one_way[l.0 as usize] = link.kind == LinkKind::OneWay;
    }
    let mut on_cycle = vec![true; link_bound];
    for l in bridges(graph) {
        on_cycle[l.0 as usize] = false;
    }

    // Visit order: breadth first from the most connected room, then any other parts.
    let root = graph
        .room_ids()
        .max_by_key(|&r| (adj[r.0 as usize].len(), std::cmp::Reverse(r)));
    let mut order = Vec::with_capacity(graph.room_count());
    let mut seen = vec![false; n];
    for start in root.into_iter().chain(graph.room_ids()) {
        let s = start.0 as usize;
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut queue = VecDeque::from([s]);
        while let Some(x) = queue.pop_front() {
            order.push(x);
            for &(_, y) in &adj[x] {
                if !seen[y] {
                    seen[y] = true;
                    queue.push_back(y);
                }
            }
        }
    }

    let mut composite_of = vec![usize::MAX; n];
    let mut composites: Vec<Composite> = Vec::new();
    let mut search = CycleSearch::new(n);
    let mut in_loop = vec![false; n];
    // First position in `order` of each room, to order composites by discovery.
    let mut first_seen = vec![usize::MAX; n];
    for (i, &x) in order.iter().enumerate() {
        first_seen[x] = i;
    }
    let mut loops: Vec<(usize, Composite)> = Vec::new();
    for &v in &order {
        if in_loop[v] || !adj[v].iter().any(|&(l, _)| on_cycle[l.0 as usize]) {
            continue;
        }
        if let Some((rooms, links)) = search.shortest_cycle(v, &adj, &on_cycle, &in_loop) {
            for &r in &rooms {
                in_loop[r] = true;
            }
            let kind = CompositeKind::Loop {
                one_way: links.iter().any(|l| one_way[l.0 as usize]),
            };
            loops.push((
                first_seen[v],
                Composite {
                    kind,
                    rooms: rooms.into_iter().map(|r| RoomId(r as u32)).collect(),
                    links,
                },
            ));
        }
    }

    // Trees: connected groups of the rooms in no loop, depth first from their first room.
    let mut trees: Vec<(usize, Composite)> = Vec::new();
    let mut placed = in_loop.clone();
    for &start in &order {
        if placed[start] {
            continue;
        }
        placed[start] = true;
        let mut rooms = Vec::new();
        let mut links = Vec::new();
        let mut stack = vec![(start, None)];
        while let Some((x, via)) = stack.pop() {
            rooms.push(RoomId(x as u32));
            links.extend(via);
            for &(l, y) in adj[x].iter().rev() {
                if !placed[y] {
                    placed[y] = true;
                    stack.push((y, Some(l)));
                }
            }
        }
        trees.push((
            first_seen[start],
            Composite {
                kind: CompositeKind::Tree,
                rooms,
                links,
            },
        ));
    }

    let mut all: Vec<(usize, Composite)> = loops.into_iter().chain(trees).collect();
    all.sort_by_key(|(first, _)| *first);
    for (i, (_, c)) in all.iter().enumerate() {
        for r in &c.rooms {
            composite_of[r.0 as usize] = i;
        }
    }
    composites.extend(all.into_iter().map(|(_, c)| c));

    let mut owned = vec![false; link_bound];
    for c in &composites {
        for l in &c.links {
            owned[l.0 as usize] = true;
        }
    }
    let mut links_between = Vec::new();
    let mut extra_links = Vec::new();
    for (l, a, b, _) in graph.links() {
        if owned[l.0 as usize] {
            continue;
        }
        if composite_of[a.0 as usize] == composite_of[b.0 as usize] {
            extra_links.push(l);
        } else {
            links_between.push(l);
        }
    }
    Decomposition {
        root,
        composites,
        links_between,
        extra_links,
        composite_of,
    }
}

/// Reusable buffers for the shortest-cycle searches.
struct CycleSearch {
    dist: Vec<u32>,
    parent: Vec<(LinkId, usize)>,
    branch: Vec<usize>,
    touched: Vec<usize>,
}

const NONE: u32 = u32::MAX;

impl CycleSearch {
    fn new(n: usize) -> CycleSearch {
        CycleSearch {
            dist: vec![NONE; n],
            parent: vec![(LinkId(0), usize::MAX); n],
            branch: vec![usize::MAX; n],
            touched: Vec::new(),
        }
    }

    /// The shortest cycle through `v` over links on cycles and rooms not in `blocked`, as its
    /// rooms (from `v`) and links (`links[i]` joins `rooms[i]` and the next room). Ties go to
    /// the cycle found first in link id order.
    fn shortest_cycle(
        &mut self,
        v: usize,
        adj: &[Vec<(LinkId, usize)>],
        on_cycle: &[bool],
        blocked: &[bool],
    ) -> Option<(Vec<usize>, Vec<LinkId>)> {
        for &t in &self.touched {
            self.dist[t] = NONE;
        }
        self.touched.clear();
        self.dist[v] = 0;
        self.branch[v] = usize::MAX;
        self.touched.push(v);
        let mut queue = VecDeque::from([v]);
        // Best closing link: (cycle length, x, y, link).
        let mut best: Option<(u32, usize, usize, LinkId)> = None;
        while let Some(x) = queue.pop_front() {
            let dx = self.dist[x];
            if let Some((len, ..)) = best
                && 2 * dx + 1 > len
            {
                break; // no shorter cycle can close from here on
            }
            for &(l, y) in &adj[x] {
                if !on_cycle[l.0 as usize] || blocked[y] || self.parent[x].0 == l && x != v {
                    continue;
                }
                if self.dist[y] == NONE {
                    self.dist[y] = dx + 1;
                    self.parent[y] = (l, x);
                    self.branch[y] = if x == v { y } else { self.branch[x] };
                    self.touched.push(y);
                    queue.push_back(y);
                } else if y == v || x == v || self.branch[x] != self.branch[y] {
                    // A link closing a cycle through v (from two different first steps, or
                    // straight back to v, or a second link from v).
                    if x == v && self.parent[y] == (l, v) {
                        continue; // the link that discovered y
                    }
                    let len = dx + self.dist[y] + 1;
                    if best.is_none_or(|(b, ..)| len < b) {
                        best = Some((len, x, y, l));
                    }
                }
            }
        }
        let (_, x, y, l) = best?;
        // v .. x, then l, then y .. v.
        let mut down = vec![x];
        let mut down_links = Vec::new();
        let mut at = x;
        while at != v {
            let (pl, p) = self.parent[at];
            down_links.push(pl);
            down.push(p);
            at = p;
        }
        down.reverse();
        down_links.reverse();
        let mut rooms = down; // v .. x
        let mut links = down_links;
        links.push(l);
        let mut at = y;
        while at != v {
            rooms.push(at);
            let (pl, p) = self.parent[at];
            links.push(pl);
            at = p;
        }
        Some((rooms, links))
    }
}
