//! Recipes: complete generators that compose the layers in one style.
//!
//! Each recipe reads like the pipeline it implements. May use the graph and tile layers (and,
//! as it arrives, the layout layer). [`regions_to_graph`] turns a raster level's regions back
//! into a graph.

pub mod diablo;
pub mod flow;
pub mod gungeon;
pub mod isaac;
pub mod sectors;

use crate::graph::{LevelGraph, Link, Room, RoomId, RoomKind};
use crate::tiles::regions::{Contact, Regions};

/// Turns the regions of a raster level into a level graph: one normal room per region (room
/// `i` is region `i`), one door per contact. The lock planner and the solver then work on it.
///
/// # Examples
/// ```
/// use levelplan::recipes::regions_to_graph;
/// use levelplan::tiles::{Grid, Tile, regions::{contacts, find_regions}};
/// let mut g = Grid::new(5, 1, Tile::Floor);
/// g.set(2, 0, Tile::Door);
/// let rooms = find_regions(&g, |t| t == Tile::Floor);
/// let graph = regions_to_graph(&rooms, &contacts(&g, &rooms, |t| t == Tile::Door));
/// assert_eq!((graph.room_count(), graph.link_count()), (2, 1));
/// ```
pub fn regions_to_graph(regions: &Regions, contacts: &[Contact]) -> LevelGraph {
    let mut graph = LevelGraph::new();
    for _ in &regions.sizes {
        graph.add_room(Room::new(RoomKind::Normal));
    }
    for c in contacts {
        graph.add_link(RoomId(c.a), RoomId(c.b), Link::door());
    }
    graph
}
