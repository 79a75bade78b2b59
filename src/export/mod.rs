//! Writers that turn levels into things a person can look at or load: SVG pictures of tile
//! maps, Tiled `.tmj` files, LDtk projects and plain text (DOT, JSON and RON of graphs live with the graph layer). May use
//! every other layer.

pub mod ldtk;
pub mod svg;
pub mod text;
pub mod tiled;

/// An item's name and kind as the exports write them: `("k1", "key")`, `("k4", "small key")`,
/// or a named item's name and `"item"`.
pub(crate) fn item_parts(item: &crate::graph::Item) -> (String, &'static str) {
    match (item.opens(), item) {
        (Some((k, opener)), _) => (k.to_string(), opener.name()),
        (None, crate::graph::Item::Named(n)) => (n.clone(), "item"),
        (None, _) => (String::new(), "item"),
    }
}
