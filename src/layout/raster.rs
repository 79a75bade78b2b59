//! A layout turned into a tile map.
//!
//! A room's outline encloses its walls: the ring of cells along the outline becomes wall, the
//! rest floor (rooms thinner than three cells, such as Edgar's corridor rooms, are all floor).
//! A door becomes a door tile on each side of its segment; an A* corridor becomes corridor
//! tiles with walls around them; the corridor cells in front of its doors are door tiles, so a
//! corridor of one or two cells is all doorway. Every floor and door tile of a room knows the
//! room (its region is the room's index); corridor tiles have no region.

use super::geom::{Mask, Point, min_corner};
use super::{Layout, Segment};
use crate::tiles::{Tile, TileMap};

/// A rasterised layout: the map, and where level coordinates land on it.
#[derive(Debug, Clone)]
pub struct Raster {
    /// The tiles (row 0 at the top).
    pub map: TileMap,
    /// The level cell shown at tile (0, 0) is `(origin.x, origin.y)`; rows grow downwards, so
    /// level cell `(x, y)` is tile `(x - origin.x, origin.y - y)`.
    pub origin: Point,
}

impl Raster {
    /// The tile of a level cell.
    pub fn tile_of(&self, cell: Point) -> (i64, i64) {
        (
            i64::from(cell.x - self.origin.x),
            i64::from(self.origin.y - cell.y),
        )
    }
}

/// The two cells on either side of a door segment (one per unit of its length).
pub fn door_cells(door: Segment) -> Vec<Point> {
    let mut out = Vec::new();
    if door.a.y == door.b.y {
        for x in door.a.x..door.b.x {
            out.push(Point::new(x, door.a.y));
            out.push(Point::new(x, door.a.y - 1));
        }
    } else {
        for y in door.a.y..door.b.y {
            out.push(Point::new(door.a.x, y));
            out.push(Point::new(door.a.x - 1, y));
        }
    }
    out
}

/// Rasterises `layout`; `door_tile(link)` picks the tile of each link's doors (a plain
/// [`Tile::Door`], a [`Tile::SecretDoor`], ...), or `None` for a link that is not drawn at all
/// (a warp, whose rooms a game joins by teleporter pads: no door, no corridor).
pub fn rasterise(layout: &Layout, door_tile: impl Fn(usize) -> Option<Tile>) -> Raster {
    let b = layout.bounds();
    let pad = 1;
    let origin = Point::new(b.min.x - pad, b.max.y - 1 + pad);
    let width = (b.width() + 2 * pad).max(1) as usize;
    let height = (b.height() + 2 * pad).max(1) as usize;
    let mut raster = Raster {
        map: TileMap::new(width, height),
        origin,
    };
    let put = |r: &mut Raster, c: Point, tile: Tile, region: Option<u32>| {
        let (x, y) = r.tile_of(c);
        r.map.put(x, y, tile, region);
    };
    // Each room's mask, once: (lower-left corner, mask).
    let masks: Vec<Option<(Point, Mask)>> = layout
        .rooms
        .iter()
        .map(|room| {
            let min = min_corner(&room.outline);
            let local: Vec<Point> = room.outline.iter().map(|&p| p - min).collect();
            Mask::from_outline(&local).ok().map(|m| (min, m))
        })
        .collect();
    for (i, (room, entry)) in layout.rooms.iter().zip(&masks).enumerate() {
        let Some((min, mask)) = entry else {
            continue;
        };
        let min = *min;
        let thin = mask.width < 3 || mask.height < 3;
        for y in 0..mask.height {
            for x in 0..mask.width {
                if !mask.inside(x, y) {
                    continue;
                }
                let edge =
                    !thin && (-1..=1).any(|dy| (-1..=1).any(|dx| !mask.inside(x + dx, y + dy)));
                let tile = match (edge, room.corridor) {
                    (true, _) => Tile::Wall,
                    (false, true) => Tile::Corridor,
                    (false, false) => Tile::Floor,
                };
                let region = (tile != Tile::Wall).then_some(i as u32);
                put(&mut raster, Point::new(x, y) + min, tile, region);
            }
        }
    }
    for (l, link) in layout.links.iter().enumerate() {
        let Some(tile) = door_tile(l) else {
            continue;
        };
        for c in &link.corridor {
            put(&mut raster, *c, Tile::Corridor, None);
        }
        for c in &link.corridor {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let q = Point::new(c.x + dx, c.y + dy);
                    let (x, y) = raster.tile_of(q);
                    if raster.map.tiles.get(x, y) == Some(&Tile::Solid) {
                        raster.map.put(x, y, Tile::Wall, None);
                    }
                }
            }
        }
        for door in [link.door_from, link.door_to] {
            for c in door_cells(door) {
                let (x, y) = raster.tile_of(c);
                if let Some(Tile::Wall | Tile::Floor | Tile::Corridor | Tile::Door) =
                    raster.map.tiles.get(x, y)
                {
                    let region = raster
                        .map
                        .regions
                        .get(x, y)
                        .copied()
                        .flatten()
                        .or_else(|| owner(&masks, c));
                    raster.map.put(x, y, tile, region);
                }
            }
        }
    }
    raster
}

/// The room whose outline holds cell `c`.
fn owner(masks: &[Option<(Point, Mask)>], c: Point) -> Option<u32> {
    masks
        .iter()
        .position(|e| {
            e.as_ref()
                .is_some_and(|(min, m)| m.inside(c.x - min.x, c.y - min.y))
        })
        .map(|i| i as u32)
}
