//! Random level graphs, for tests, benchmarks and prototyping.

use rand::Rng;

use super::level::{LevelGraph, Link, LinkRole, Room, RoomId, RoomKind};
use super::planar::planar_edges;
use crate::seed;

/// A random connected graph of `rooms` rooms with `loops` independent cycles.
///
/// Room 0 is the entrance and the last room is the exit; the rest are normal. Each room after
/// the first hangs from a uniformly chosen earlier room (a random recursive tree, whose depth
/// grows like `ln V`); then `loops` extra links join random pairs of distinct rooms that are not
/// yet linked and keep the graph planar, so it can be laid out (fewer if the graph runs out of
/// such pairs). Tree links point from parent to child and have [`LinkRole::Tree`]; extra links
/// have [`LinkRole::Loop`].
///
/// # Complexity
/// `O(L · V)` expected, for `L` loops: a planarity test per extra link drawn.
///
/// # Examples
/// ```
/// use levelplan::graph::{cycle_rank, random::connected_graph};
/// let g = connected_graph(100, 10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(g.room_count(), 100);
/// assert_eq!(cycle_rank(&g), 10);
/// ```
pub fn connected_graph<R: Rng + ?Sized>(rooms: usize, loops: usize, rng: &mut R) -> LevelGraph {
    let (mut g, ids) = numbered_rooms(rooms);
    let mut edges = Vec::with_capacity(rooms + loops);
    for i in 1..rooms {
        let parent = seed::index(rng, i);
        g.add_link(ids[parent], ids[i], Link::door());
        edges.push((parent, i));
    }
    let mut added = 0;
    // Dense graphs can run out of free pairs: give up after a generous number of draws.
    let mut budget = 64 * (loops + 1);
    while added < loops && budget > 0 && rooms >= 2 {
        budget -= 1;
        let (a, b) = (seed::index(rng, rooms), seed::index(rng, rooms));
        if a == b
            || g.links_at(ids[a]).any(|(_, o, _, _)| o == ids[b])
            || !keeps_planar(&mut edges, a, b, rooms)
        {
            continue;
        }
        g.add_link(ids[a], ids[b], Link::door().with_role(LinkRole::Loop));
        added += 1;
    }
    g
}

/// A level-like random graph: a branching tree (each room hangs off one of the four rooms
/// before it, so paths run long and branch often) plus up to `loops` extra links, each between
/// two rooms four to seven tree steps apart that keeps the graph planar (local loops, as designed
/// levels have; compare [`connected_graph`], whose extra links join any two rooms). Room 0 is
/// the entrance, the last room the exit; tree links have [`LinkRole::Tree`], extra links
/// [`LinkRole::Loop`].
///
/// Loops drawn this way often overlap and cross the tree's branches, so many of these graphs
/// need a loop drawn round a room with rooms hanging off it ([`crate::graph::enclosures`]):
/// about half of them at 30 rooms and 4 loops, nearly all from 100 rooms and 10 loops. Such
/// graphs rarely lay out when their links must touch (see [`crate::layout`]); filter them with
/// `enclosures` where that matters, or draw them with [`local_loops_graph_without_holes`].
///
/// # Complexity
/// `O(V + L · V)` expected: a breadth-first search and a planarity test per extra link drawn.
///
/// # Examples
/// ```
/// use levelplan::graph::{cycle_rank, random::local_loops_graph};
/// let g = local_loops_graph(100, 10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(g.room_count(), 100);
/// assert_eq!(cycle_rank(&g), 10);
/// ```
pub fn local_loops_graph<R: Rng + ?Sized>(rooms: usize, loops: usize, rng: &mut R) -> LevelGraph {
    local_loops(rooms, loops, rng, false)
}

/// A level-like random graph that needs no hole: the tree of [`local_loops_graph`], then up to
/// `loops` extra links, each between two rooms four to seven steps apart along the links so
/// far (extra links count, so loops stay local instead of spanning earlier ones), that keeps
/// the graph planar and leaves every room with rooms hanging off it drawable outside every
/// loop ([`crate::graph::enclosures`] finds none), as a designer avoiding forced holes would
/// draw a level. No loop must then be drawn round a room and what hangs off it, which suits
/// the layout's tight loops. A loop may still have to go round rooms of its own group: where
/// two rooms are joined by three paths, one path lies between the other two in any drawing,
/// so the ring the other two make goes round it, and that ring must be long enough (its
/// rooms and corridors) to hold it. Fewer than `loops` links may fit.
///
/// # Complexity
/// `O(L · V)` expected: a planarity test and an enclosure test (`O(V)` unless it fails, then
/// a planarity test per hanging room) per extra link drawn.
///
/// # Examples
/// ```
/// use levelplan::graph::{enclosures, random::local_loops_graph_without_holes};
/// let g = local_loops_graph_without_holes(100, 10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(g.room_count(), 100);
/// assert!(enclosures(&g).is_empty());
/// ```
pub fn local_loops_graph_without_holes<R: Rng + ?Sized>(
    rooms: usize,
    loops: usize,
    rng: &mut R,
) -> LevelGraph {
    local_loops(rooms, loops, rng, true)
}

/// [`local_loops_graph`], refusing links that force a hole if `no_holes`.
fn local_loops<R: Rng + ?Sized>(
    rooms: usize,
    loops: usize,
    rng: &mut R,
    no_holes: bool,
) -> LevelGraph {
    let (mut g, ids) = numbered_rooms(rooms);
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); rooms];
    let mut edges = Vec::with_capacity(rooms + loops);
    for i in 1..rooms {
        let p = i - 1 - seed::below(rng, i.min(4) as u64) as usize;
        g.add_link(ids[p], ids[i], Link::door());
        adj[p].push(i);
        adj[i].push(p);
        edges.push((p, i));
    }
    let (mut added, mut budget) = (0, 64 * (loops + 1));
    let mut dist = vec![usize::MAX; rooms];
    while added < loops && budget > 0 && rooms >= 5 {
        budget -= 1;
        let a = seed::index(rng, rooms);
        dist.iter_mut().for_each(|d| *d = usize::MAX);
        dist[a] = 0;
        let mut queue = std::collections::VecDeque::from([a]);
        while let Some(x) = queue.pop_front() {
            if dist[x] == 7 {
                continue;
            }
            for &y in &adj[x] {
                if dist[y] == usize::MAX {
                    dist[y] = dist[x] + 1;
                    queue.push_back(y);
                }
            }
        }
        let far: Vec<usize> = (0..rooms).filter(|&r| (4..=7).contains(&dist[r])).collect();
        if far.is_empty() {
            continue;
        }
        let b = far[seed::index(rng, far.len())];
        if g.links_at(ids[a]).any(|(_, o, _, _)| o == ids[b])
            || !keeps_planar(&mut edges, a, b, rooms)
        {
            continue;
        }
        if no_holes {
            let mut with: Vec<Vec<(usize, usize)>> = vec![Vec::new(); rooms];
            for (l, &(x, y)) in edges.iter().enumerate() {
                with[x].push((y, l));
                with[y].push((x, l));
            }
            if !super::enclosure_groups(&with, edges.len()).is_empty() {
                edges.pop();
                continue;
            }
        }
        g.add_link(ids[a], ids[b], Link::door().with_role(LinkRole::Loop));
        if no_holes {
            adj[a].push(b);
            adj[b].push(a);
        }
        added += 1;
    }
    g
}

/// A chain of separate loops, as levels built from loop composites are: `loops` cycles of 5 to
/// 8 rooms, each after the first hanging by a path of 1 to 3 rooms off a random room of an
/// earlier loop. No room is on two loops. Room 0 is the entrance, the last room the exit; path
/// and loop links have [`LinkRole::Tree`] except the link closing each loop, which has
/// [`LinkRole::Loop`].
///
/// # Complexity
/// `O(V)`.
///
/// # Examples
/// ```
/// use levelplan::graph::{cycle_rank, random::loop_chain_graph};
/// let g = loop_chain_graph(10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(cycle_rank(&g), 10);
/// assert!((10 * 5..=10 * 11).contains(&g.room_count()));
/// ```
pub fn loop_chain_graph<R: Rng + ?Sized>(loops: usize, rng: &mut R) -> LevelGraph {
    // Sizes first, so the rooms can be numbered (and the last made the exit) up front.
    let mut plan: Vec<(usize, usize)> = Vec::with_capacity(loops);
    for k in 0..loops {
        let cycle = 5 + seed::below(rng, 4) as usize;
        let path = if k == 0 {
            0
        } else {
            1 + seed::below(rng, 3) as usize
        };
        plan.push((path, cycle));
    }
    let total: usize = plan.iter().map(|(p, c)| p + c).sum();
    let (mut g, ids) = numbered_rooms(total.max(1));
    let mut next = 0;
    let mut on_loops: Vec<usize> = Vec::new();
    for (path, cycle) in plan {
        let mut prev = if on_loops.is_empty() {
            None
        } else {
            Some(on_loops[seed::index(rng, on_loops.len())])
        };
        for _ in 0..path {
            if let Some(p) = prev {
                g.add_link(ids[p], ids[next], Link::door());
            }
            prev = Some(next);
            next += 1;
        }
        let first = next;
        for i in 0..cycle {
            if let Some(p) = prev {
                g.add_link(ids[p], ids[next], Link::door());
            }
            prev = Some(next);
            on_loops.push(next);
            next += 1;
            if i + 1 == cycle {
                g.add_link(
                    ids[next - 1],
                    ids[first],
                    Link::door().with_role(LinkRole::Loop),
                );
            }
        }
    }
    g
}

/// Adds `(a, b)` to `edges` if the graph stays planar; says whether it did.
/// The five room shapes of Edgar's basic benchmark inputs, as rows of cells (top row first):
/// `Square` 6 x 6, `Rectangle` 6 x 9, `L-shape` 6 x 6, `L-shape_long` 6 x 9 and `T-shape` 9 x 6
/// (their outlines in `fixtures/edgar/inputs/ma2014_fig7top_9v_basic.json`).
pub const BASIC_SHAPES: [(&str, &[&str]); 5] = [
    ("Square", &["######"; 6]),
    ("Rectangle", &["######"; 9]),
    (
        "L-shape",
        &["###...", "###...", "###...", "######", "######", "######"],
    ),
    (
        "L-shape_long",
        &[
            "###...", "###...", "###...", "###...", "###...", "###...", "######", "######",
            "######",
        ],
    ),
    (
        "T-shape",
        &[
            "...###...",
            "...###...",
            "...###...",
            "#########",
            "#########",
            "#########",
        ],
    ),
];

/// A room of a [`PlacedRooms`] graph: which of [`BASIC_SHAPES`] it is, turned by which of the
/// eight grid transformations, and the cells it covers (`y` down).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedShape {
    /// Index into [`BASIC_SHAPES`].
    pub shape: usize,
    /// The transformation, `0..8`: bit 0 mirrors `x`, bit 1 mirrors `y`, bit 2 swaps the axes
    /// (applied in that order, to the shape's rows as drawn).
    pub transform: u8,
    /// The cells covered.
    pub cells: Vec<(i32, i32)>,
}

/// A level graph read off an actual placement of rooms: the graph, and the placement that
/// proves it can be laid out with every link a contact.
#[derive(Debug, Clone)]
pub struct PlacedRooms {
    /// Rooms `0..n` (room 0 the entrance, the last the exit); tree links have
    /// [`LinkRole::Tree`], the others [`LinkRole::Loop`].
    pub graph: LevelGraph,
    /// Where each room lies (`rooms[i]` is room `i`): no two share a cell, and the rooms of
    /// every link share a stretch of wall at least one cell long.
    pub rooms: Vec<PlacedShape>,
}

/// The cells of shape `shape` under transformation `t` (see [`PlacedShape::transform`]).
pub fn shape_cells(shape: usize, t: u8) -> Vec<(i32, i32)> {
    let rows = BASIC_SHAPES[shape % BASIC_SHAPES.len()].1;
    let (w, h) = (rows[0].len() as i32, rows.len() as i32);
    let mut out = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c != '#' {
                continue;
            }
            let (mut x, mut y) = (x as i32, y as i32);
            if t & 1 != 0 {
                x = w - 1 - x;
            }
            if t & 2 != 0 {
                y = h - 1 - y;
            }
            if t & 4 != 0 {
                std::mem::swap(&mut x, &mut y);
            }
            out.push((x, y));
        }
    }
    out.sort_unstable();
    out
}

/// A graph that has a layout by construction (the direct-contact family of the layout-at-scale
/// work): `rooms` rooms of [`BASIC_SHAPES`], each placed against a random room already placed
/// (a random shape and transformation, touching it along at least one cell of wall, covering
/// no placed cell); the rooms each was placed against give a spanning tree, and `loops` of
/// the other pairs of touching rooms, drawn at random, become loop links (fewer if fewer
/// touch). Every link is a contact in the placement returned, so a layout with these shapes
/// exists.
///
/// # Complexity
/// `O(V · A · S)` for `A` tries per room (at most 200) and `S` cells per shape.
///
/// # Examples
/// ```
/// use levelplan::graph::{cycle_rank, random::placed_rooms_graph};
/// let placed = placed_rooms_graph(100, 10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(placed.graph.room_count(), 100);
/// assert_eq!(cycle_rank(&placed.graph), 10);
/// ```
pub fn placed_rooms_graph<R: Rng + ?Sized>(rooms: usize, loops: usize, rng: &mut R) -> PlacedRooms {
    use std::collections::{BTreeSet, HashMap};
    let (mut g, ids) = numbered_rooms(rooms);
    let mut owner: HashMap<(i32, i32), usize> = HashMap::new();
    let mut placed: Vec<PlacedShape> = Vec::new();
    let mut parent: Vec<Option<usize>> = Vec::new();
    const DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    while placed.len() < rooms {
        let shape = seed::index(rng, BASIC_SHAPES.len());
        let t = seed::index(rng, 8) as u8;
        let cells = shape_cells(shape, t);
        if placed.is_empty() {
            for &c in &cells {
                owner.insert(c, 0);
            }
            placed.push(PlacedShape {
                shape,
                transform: t,
                cells,
            });
            parent.push(None);
            continue;
        }
        // Per direction `d` of `DIRS`, the shape's cells with no cell of it at `-d`: the side
        // that can face a room lying that way.
        let facing: [Vec<(i32, i32)>; 4] = DIRS.map(|(dx, dy)| {
            cells
                .iter()
                .copied()
                .filter(|&(x, y)| cells.binary_search(&(x - dx, y - dy)).is_err())
                .collect()
        });
        // Where it goes: `(anchor, offset)`.
        let mut spot: Option<(usize, (i32, i32))> = None;
        for _ in 0..200 {
            let anchor = seed::index(rng, placed.len());
            let a = &placed[anchor].cells;
            let c = a[seed::index(rng, a.len())];
            let d = seed::index(rng, 4);
            let (dx, dy) = DIRS[d];
            let n = (c.0 + dx, c.1 + dy);
            if owner.contains_key(&n) {
                continue;
            }
            // A cell of the new shape on its side facing the anchor goes to `n`.
            let s = facing[d][seed::index(rng, facing[d].len())];
            let offset = (n.0 - s.0, n.1 - s.1);
            if cells
                .iter()
                .any(|&(x, y)| owner.contains_key(&(x + offset.0, y + offset.1)))
            {
                continue;
            }
            spot = Some((anchor, offset));
            break;
        }
        // Rare: against the rightmost cell of all, whose right side no room covers; the new
        // shape's leftmost cell goes there, so it covers nothing placed.
        let (anchor, (ox, oy)) = spot.unwrap_or_else(|| {
            let (&c, &anchor) = owner
                .iter()
                .max_by_key(|(p, _)| (p.0, p.1))
                .expect("a room is placed");
            let s = *cells
                .iter()
                .min_by_key(|p| (p.0, p.1))
                .expect("shapes have cells");
            (anchor, (c.0 + 1 - s.0, c.1 - s.1))
        });
        let moved: Vec<(i32, i32)> = cells.iter().map(|&(x, y)| (x + ox, y + oy)).collect();
        let me = placed.len();
        for &p in &moved {
            owner.insert(p, me);
        }
        placed.push(PlacedShape {
            shape,
            transform: t,
            cells: moved,
        });
        parent.push(Some(anchor));
    }
    // Tree links, then the other touching pairs.
    let mut tree: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            g.add_link(ids[p], ids[i], Link::door());
            tree.insert((p.min(i), p.max(i)));
        }
    }
    let mut touching: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (&(x, y), &a) in &owner {
        for (dx, dy) in [(1, 0), (0, 1)] {
            if let Some(&b) = owner.get(&(x + dx, y + dy))
                && a != b
            {
                touching.insert((a.min(b), a.max(b)));
            }
        }
    }
    let mut others: Vec<(usize, usize)> = touching
        .into_iter()
        .filter(|pair| !tree.contains(pair))
        .collect();
    seed::shuffle(rng, &mut others);
    others.truncate(loops);
    others.sort_unstable();
    for (a, b) in others {
        g.add_link(ids[a], ids[b], Link::door().with_role(LinkRole::Loop));
    }
    PlacedRooms {
        graph: g,
        rooms: placed,
    }
}

fn keeps_planar(edges: &mut Vec<(usize, usize)>, a: usize, b: usize, rooms: usize) -> bool {
    edges.push((a, b));
    let ok = planar_edges(rooms, edges);
    if !ok {
        edges.pop();
    }
    ok
}

/// `rooms` unlinked rooms: the first the entrance, the last the exit, the rest normal.
fn numbered_rooms(rooms: usize) -> (LevelGraph, Vec<RoomId>) {
    let mut g = LevelGraph::new();
    let ids = (0..rooms)
        .map(|i| {
            let kind = if i == 0 {
                RoomKind::Entrance
            } else if i + 1 == rooms {
                RoomKind::Exit
            } else {
                RoomKind::Normal
            };
            g.add_room(Room::new(kind))
        })
        .collect();
    (g, ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{cycle_rank, enclosures, is_planar};

    /// Without holes: the same tree as `local_loops_graph` from the same stream, planar, no
    /// forced enclosure, and each extra link closes one loop; the plain generator, from the
    /// same streams, forces holes in most of these graphs.
    #[test]
    fn graphs_without_holes_keep_the_tree_and_need_no_hole() {
        let mut plain_holes = 0;
        for seed in 0..8 {
            let open = local_loops_graph_without_holes(60, 6, &mut seed::stream(seed, "test"));
            let plain = local_loops_graph(60, 6, &mut seed::stream(seed, "test"));
            let tree = |g: &LevelGraph| -> Vec<(RoomId, RoomId)> {
                g.links()
                    .filter(|l| l.3.role == LinkRole::Tree)
                    .map(|l| (l.1, l.2))
                    .collect()
            };
            assert_eq!(tree(&open), tree(&plain), "seed {seed}");
            assert_eq!(tree(&open).len(), 59);
            assert!(is_planar(&open));
            assert!(enclosures(&open).is_empty(), "seed {seed}");
            let extra = open.links().count() - 59;
            assert!((1..=6).contains(&extra), "seed {seed}: {extra} extra links");
            assert_eq!(cycle_rank(&open), extra);
            plain_holes += usize::from(!enclosures(&plain).is_empty());
        }
        assert!(
            plain_holes >= 4,
            "{plain_holes} of 8 plain graphs need a hole"
        );
    }
}
