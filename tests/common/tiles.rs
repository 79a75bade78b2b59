//! A layout's tiles read on their own, independent of the check that accepts the layout.
//! Shared by the layout tests and the scale probe (`examples/scale_probe.rs` includes this
//! file).

/// What is wrong with `layout` as tiles (`layout::raster::rasterise`), found on the tiles
/// alone: a room's floor beside a corridor tile or beside another room's floor (a way the
/// level's graph does not have), or two corridors whose corridor tiles run together. `None` if
/// nothing is.
pub fn tile_faults(layout: &levelplan::layout::Layout) -> Option<String> {
    use levelplan::tiles::Tile;
    let raster = levelplan::layout::raster::rasterise(layout, |_| Some(Tile::Door));
    let (tiles, regions) = (&raster.map.tiles, &raster.map.regions);
    let (w, h) = (tiles.width() as i64, tiles.height() as i64);
    for y in 0..h {
        for x in 0..w {
            let t = tiles.get(x, y).copied();
            for (dx, dy) in [(1, 0), (0, 1)] {
                let u = tiles.get(x + dx, y + dy).copied();
                match (t, u) {
                    (Some(Tile::Floor), Some(Tile::Corridor))
                    | (Some(Tile::Corridor), Some(Tile::Floor)) => {
                        return Some(format!("floor beside a corridor at tile ({x}, {y})"));
                    }
                    (Some(Tile::Floor), Some(Tile::Floor))
                        if regions.get(x, y) != regions.get(x + dx, y + dy) =>
                    {
                        return Some(format!("two rooms' floors meet at tile ({x}, {y})"));
                    }
                    _ => {}
                }
            }
        }
    }
    // Separate runs of corridor tiles: the 4-connected regions of corridor tiles. Each
    // corridor's corridor tiles must lie in runs of its own (a corridor of one or two cells
    // has none: its cells are the doorways in front of its two doors).
    let runs = levelplan::tiles::regions::find_regions(tiles, |t| t == Tile::Corridor);
    let mut run_of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (l, link) in layout.links.iter().enumerate() {
        for &c in &link.corridor {
            let (x, y) = raster.tile_of(c);
            let Some(Some(run)) = runs.labels.get(x, y).copied() else {
                continue;
            };
            if let Some(&other) = run_of.get(&run)
                && other != l
            {
                return Some(format!(
                    "the corridors of links {other} and {l} run together at tile ({x}, {y})"
                ));
            }
            run_of.insert(run, l);
        }
    }
    None
}
