//! # levelplan
//!
//! Graph-first procedural level planning. A level is first planned as an abstract graph of rooms
//! (pacing, loops, locks and keys, secrets) and only afterwards given space.
//!
//! The crate is layered (see `DESIGN.md` in the repository):
//!
//! - [`graph`]: what a level *is*: [`LevelGraph`] (rooms, links, locks, items), hand-authored
//!   [`FlowTemplate`]s with their transforms (expanding chains, selectors, sub-chains, injection
//!   rules), graph queries, spanning trees, loop decomposition into composites, lock-and-key
//!   planning, a solver that proves levels completable, and DOT export. It depends on nothing
//!   else in the crate.
//! - [`tiles`]: plain grids of tiles with regions, flood fill, mini-sets, tile conversion.
//!   Knows nothing of graphs.
//! - [`layout`]: where rooms go: room templates, configuration spaces, the layout search, A*
//!   corridors, rasterising a layout into tiles.
//! - [`Level`] and [`Recipe`]: what every recipe returns, and how a game holds any recipe.
//! - [`recipes`]: complete generators in one style: [`recipes::gungeon`] (flows laid out with
//!   room templates), [`recipes::isaac`] (grid floor plans), [`recipes::diablo`] (the four
//!   stages).
//! - [`export`]: pictures and files: SVG, Tiled maps, text.
//! - [`stats`]: metrics of a level, for comparing many (expressive range).
//! - [`seed`]: the deterministic random streams every stage draws from.
//!
//! # Example
//!
//! ```
//! use levelplan::{Conditions, FlowTemplate, RoomKind};
//!
//! // One of the built-in flows, instantiated from a seed.
//! let flow = FlowTemplate::builtin("classic").expect("built-in flow");
//! let level = flow.generate(42, &Conditions::default())?;
//!
//! let entrance = level.entrance().expect("every flow has an entrance");
//! assert_eq!(level.rooms_of_kind(&RoomKind::Entrance).count(), 1);
//! let distances = levelplan::graph::distances_from(&level, entrance);
//! assert_eq!(distances.len(), level.room_count(), "every room is reachable");
//!
//! // The same seed gives the same level, byte for byte.
//! let again = flow.generate(42, &Conditions::default())?;
//! assert_eq!(level.to_json(), again.to_json());
//! # Ok::<(), levelplan::FlowError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod data;
pub mod export;
pub mod graph;
pub mod layout;
mod level;
pub mod recipes;
pub mod seed;
pub mod stats;
pub mod tiles;
pub mod view;

pub use data::{MAX_FILE_BYTES, read_text_file};
pub use graph::flow::{Conditions, Flow, FlowError, FlowTemplate};
pub use graph::{
    GraphError, Item, KeyId, LevelGraph, Link, LinkId, LinkKind, LinkRole, Lock, Opener, Room,
    RoomId, RoomKind, RoomOrigin,
};
pub use level::{
    GridRoom, Level, LevelDetail, LevelReadError, Opening, OpeningKind, PlacedItem, Recipe,
    RecipeError, RiverRecord, SectorConnection, SectorRecord, SetPieceRecord, Stairs, TilePos,
};
pub use seed::LevelRng;
pub use view::{DoorKind, DoorView, RoomView, WarpView};

// The README's library example runs as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
