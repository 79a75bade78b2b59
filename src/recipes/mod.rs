//! Recipes: complete generators that compose the layers in one style.
//!
//! Each recipe reads like the pipeline it implements. May use the graph layer (and, as they
//! arrive, the layout and tile layers).

pub mod isaac;
