//! Writers that turn levels into things a person can look at or load: SVG pictures of tile
//! maps, Tiled `.tmj` files, LDtk projects and plain text (DOT, JSON and RON of graphs live with the graph layer). May use
//! every other layer.

pub mod ldtk;
pub mod svg;
pub mod text;
pub mod tiled;
