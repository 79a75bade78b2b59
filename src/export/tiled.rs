//! Tiled map files (`.tmj`, Tiled's JSON format): a tile layer and an object layer.
//!
//! The tileset is embedded and names an image, `levelplan_tiles.png`, with one 16 x 16 tile
//! per [`Tile`] kind in the order of [`Tile::ALL`] (gid = index + 1); supply your own art under
//! that name, or swap the tileset in Tiled.

use serde_json::{Value, json};

use crate::recipes::isaac::{Floor, ROOM_TILES};
use crate::tiles::{Tile, TileMap};

/// Pixels per tile in the files written.
pub const TILE_PIXELS: u32 = 16;

/// An object of the object layer, in tile units.
#[derive(Debug, Clone, PartialEq)]
pub struct TiledObject {
    /// Its name (for rooms, the room id).
    pub name: String,
    /// Its class (Tiled's `type`): a room kind, `door`, `secret door`.
    pub class: String,
    /// Left edge, in tiles.
    pub x: f64,
    /// Top edge, in tiles.
    pub y: f64,
    /// Width in tiles (0 with `height` 0 makes a point).
    pub width: f64,
    /// Height in tiles.
    pub height: f64,
}

/// A tile map and objects as a Tiled `.tmj` document.
///
/// # Complexity
/// `O(W · H + objects)`.
///
/// # Examples
/// ```
/// use levelplan::export::tiled::{to_tmj, TiledObject};
/// use levelplan::tiles::{Tile, TileMap};
/// let mut map = TileMap::new(2, 1);
/// map.put(1, 0, Tile::Floor, Some(0));
/// let room = TiledObject { name: "r0".into(), class: "entrance".into(), x: 1.0, y: 0.0, width: 1.0, height: 1.0 };
/// let doc: serde_json::Value = serde_json::from_str(&to_tmj(&map, &[room])).unwrap();
/// assert_eq!(doc["layers"][0]["data"], serde_json::json!([1, 2]));
/// ```
pub fn to_tmj(map: &TileMap, objects: &[TiledObject]) -> String {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    let data: Vec<u32> = map
        .tiles
        .values()
        .iter()
        .map(|t| t.index() as u32 + 1)
        .collect();
    let px = f64::from(TILE_PIXELS);
    let objects: Vec<Value> = objects
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut v = json!({
                "id": i + 1,
                "name": o.name,
                "type": o.class,
                "x": o.x * px,
                "y": o.y * px,
                "width": o.width * px,
                "height": o.height * px,
                "rotation": 0,
                "visible": true,
            });
            if o.width == 0.0 && o.height == 0.0 {
                v["point"] = json!(true);
            }
            v
        })
        .collect();
    let doc = json!({
        "type": "map",
        "version": "1.8",
        "tiledversion": "1.8.2",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "width": w,
        "height": h,
        "tilewidth": TILE_PIXELS,
        "tileheight": TILE_PIXELS,
        "infinite": false,
        "compressionlevel": -1,
        "nextlayerid": 3,
        "nextobjectid": objects.len() + 1,
        "layers": [
            {
                "type": "tilelayer", "id": 1, "name": "tiles",
                "width": w, "height": h, "x": 0, "y": 0,
                "opacity": 1, "visible": true, "data": data,
            },
            {
                "type": "objectgroup", "id": 2, "name": "rooms and doors",
                "draworder": "topdown", "x": 0, "y": 0,
                "opacity": 1, "visible": true, "objects": objects,
            },
        ],
        "tilesets": [{
            "firstgid": 1, "name": "levelplan",
            "tilewidth": TILE_PIXELS, "tileheight": TILE_PIXELS,
            "tilecount": Tile::ALL.len(), "columns": Tile::ALL.len(),
            "image": "levelplan_tiles.png",
            "imagewidth": TILE_PIXELS as usize * Tile::ALL.len(), "imageheight": TILE_PIXELS,
            "margin": 0, "spacing": 0,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("a map always serialises")
}

/// An Isaac floor as a `.tmj`: its tile map, a rectangle per room cell (class: the room's kind,
/// name: its id) and a point per door tile pair.
pub fn floor_to_tmj(floor: &Floor) -> String {
    let map = floor.tile_map();
    let (rw, rh) = (ROOM_TILES.0 as f64, ROOM_TILES.1 as f64);
    let mut objects: Vec<TiledObject> = Vec::new();
    for r in &floor.rooms {
        for &(x, y) in &r.cells {
            objects.push(TiledObject {
                name: r.id.to_string(),
                class: r.kind.name().to_string(),
                x: f64::from(x - 1) * rw,
                y: f64::from(y) * rh,
                width: rw,
                height: rh,
            });
        }
    }
    for ((x, y), t) in map.tiles.iter() {
        // One point per door: at its first tile (the left or upper of the pair).
        let first = match t {
            Tile::Door | Tile::SecretDoor => {
                let left = x > 0 && map.tiles.get(x as i64 - 1, y as i64) == Some(t);
                let up = y > 0 && map.tiles.get(x as i64, y as i64 - 1) == Some(t);
                !left && !up
            }
            _ => false,
        };
        if first {
            objects.push(TiledObject {
                name: String::new(),
                class: if *t == Tile::Door {
                    "door"
                } else {
                    "secret door"
                }
                .into(),
                x: x as f64 + 0.5,
                y: y as f64 + 0.5,
                width: 0.0,
                height: 0.0,
            });
        }
    }
    to_tmj(&map, &objects)
}

/// A Gungeon-style level as a Tiled map: the tile layer, one rectangle per room (class: the
/// room kind, name: the room id; its box) and one point per door (class `door`, `locked door`
/// or `secret door`, name: the two rooms).
///
/// # Complexity
/// `O(W · H + rooms + links)`.
pub fn level_to_tmj(level: &crate::recipes::gungeon::Level) -> String {
    let map = &level.tiles.map;
    let mut objects: Vec<TiledObject> = Vec::new();
    for (i, room) in level.layout.rooms.iter().enumerate() {
        let id = level.rooms[i];
        let kind = level
            .graph
            .room(id)
            .map(|r| r.kind.name().to_string())
            .unwrap_or_default();
        let (lo, hi) = room.outline.iter().fold(
            (
                crate::layout::Point::new(i32::MAX, i32::MAX),
                crate::layout::Point::new(i32::MIN, i32::MIN),
            ),
            |(lo, hi), p| {
                (
                    crate::layout::Point::new(lo.x.min(p.x), lo.y.min(p.y)),
                    crate::layout::Point::new(hi.x.max(p.x), hi.y.max(p.y)),
                )
            },
        );
        // The top-left tile of the box: level cell (lo.x, hi.y - 1).
        let (x, y) = level
            .tiles
            .tile_of(crate::layout::Point::new(lo.x, hi.y - 1));
        objects.push(TiledObject {
            name: id.to_string(),
            class: kind,
            x: x as f64,
            y: y as f64,
            width: f64::from(hi.x - lo.x),
            height: f64::from(hi.y - lo.y),
        });
    }
    for (l, placed) in level.layout.links.iter().enumerate() {
        let id = level.links[l];
        let Some((a, b)) = level.graph.endpoints(id) else {
            continue;
        };
        let link = level.graph.link(id);
        let class = match link {
            Some(k) if k.kind == crate::graph::LinkKind::Secret => "secret door",
            Some(k) if k.lock.is_some() => "locked door",
            _ => "door",
        };
        for door in [placed.door_from, placed.door_to] {
            // The middle of the segment, in tile units (rows grow downwards).
            let cx = f64::from(door.a.x + door.b.x) / 2.0 - f64::from(level.tiles.origin.x);
            let cy = f64::from(level.tiles.origin.y + 1) - f64::from(door.a.y + door.b.y) / 2.0;
            objects.push(TiledObject {
                name: format!("{a}-{b}"),
                class: class.into(),
                x: cx,
                y: cy,
                width: 0.0,
                height: 0.0,
            });
            if placed.corridor.is_empty() {
                break;
            }
        }
    }
    to_tmj(map, &objects)
}
