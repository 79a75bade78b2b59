//! The abstract layer: what a level *is*.
//!
//! [`LevelGraph`] holds rooms and links (with locks and the items that open them);
//! [`flow`] instantiates hand-authored flow templates into level graphs; the free functions
//! re-exported here answer the questions a designer asks of a graph; [`spanning`] reduces a
//! graph to a tree and gives links back; [`composite`] cuts it into loops and trees for layout;
//! [`lock_and_key`] plans locks and openers; [`solve`] proves a level completable by any player;
//! [`verify`] reads a level file and gives the verdict;
//! [`random`] makes test graphs; [`dot`] draws them.
//!
//! This layer depends on nothing else in the crate (but [`crate::seed`]'s random helpers).

pub mod composite;
pub mod dot;
mod embed;
mod enclose;
pub mod flow;
mod level;
pub mod lock_and_key;
mod planar;
mod query;
pub mod random;
pub mod solve;
pub mod spanning;
pub mod summary;
pub mod verify;

pub use dot::{to_dot, to_dot_with_composites};
#[cfg(test)]
pub(crate) use embed::faces;
pub(crate) use embed::rotation_system;
pub(crate) use enclose::{BridgeTree, enclosure_groups};
pub use enclose::{Enclosure, enclosures};
pub use level::{
    GraphError, Item, KeyId, LevelGraph, Link, LinkId, LinkKind, LinkRole, Lock, Opener, Room,
    RoomId, RoomKind, RoomOrigin,
};
pub use planar::is_planar;
pub(crate) use planar::{join_apex_while_planar, planar_edges};
#[cfg(test)]
pub(crate) use query::adjacency_of;
pub(crate) use query::{bridge_flags, group_links, loop_groups};
pub use query::{
    bridges, component_count, cycle_rank, dead_ends, distances_from, has_cycle, links_on_cycles,
    tree_depths,
};
