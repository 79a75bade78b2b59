//! Random level graphs, for tests, benchmarks and prototyping.

use rand::Rng;

use super::level::{LevelGraph, Link, LinkRole, Room, RoomId, RoomKind};
use crate::seed;

/// A random connected graph of `rooms` rooms with `loops` independent cycles.
///
/// Room 0 is the entrance and the last room is the exit; the rest are normal. Each room after
/// the first hangs from a uniformly chosen earlier room (a random recursive tree, whose depth
/// grows like `ln V`); then `loops` extra links join random pairs of distinct rooms that are not
/// yet linked (fewer if the graph runs out of such pairs). Tree links point from parent to child
/// and have [`LinkRole::Tree`]; extra links have [`LinkRole::Loop`].
///
/// # Complexity
/// `O(V + L · d)` expected, for `L` loops and rooms of degree `d`.
///
/// # Examples
/// ```
/// use levelplan::graph::{cycle_rank, random::connected_graph};
/// let g = connected_graph(100, 10, &mut levelplan::seed::stream(1, "doc"));
/// assert_eq!(g.room_count(), 100);
/// assert_eq!(cycle_rank(&g), 10);
/// ```
pub fn connected_graph<R: Rng + ?Sized>(rooms: usize, loops: usize, rng: &mut R) -> LevelGraph {
    let mut g = LevelGraph::new();
    let ids: Vec<RoomId> = (0..rooms)
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
    for i in 1..rooms {
        let parent = ids[seed::index(rng, i)];
        g.add_link(parent, ids[i], Link::door());
    }
    let mut added = 0;
    // Dense graphs can run out of free pairs: give up after a generous number of draws.
    let mut budget = 64 * (loops + 1);
    while added < loops && budget > 0 && rooms >= 2 {
        budget -= 1;
        let a = ids[seed::index(rng, rooms)];
        let b = ids[seed::index(rng, rooms)];
        if a == b || g.links_at(a).any(|(_, o, _, _)| o == b) {
            continue;
        }
        g.add_link(a, b, Link::door().with_role(LinkRole::Loop));
        added += 1;
    }
    g
}
