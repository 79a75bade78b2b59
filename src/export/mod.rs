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

/// The bounds `[x, y, w, h]` of a door's tiles (a door of no tiles: `[0, 0, 1, 1]`).
pub(crate) fn door_bounds(door: &crate::DoorView) -> [usize; 4] {
    let xs = door.tiles.iter().map(|t| t.0);
    let ys = door.tiles.iter().map(|t| t.1);
    let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
    let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
    [x0, y0, x1 - x0 + 1, y1 - y0 + 1]
}

/// Which of `level.items` opens `lock`, if one does.
pub(crate) fn opener_index(level: &crate::Level, lock: &crate::graph::Lock) -> Option<usize> {
    level
        .items
        .iter()
        .position(|p| p.item.opens() == Some((lock.by, lock.opener)))
}
