//! Tiled map files (`.tmj`, Tiled's JSON format): a tile layer and an object layer.
//!
//! The tileset is embedded and names an image, [`TILESET_IMAGE`] by default, with one 16 x 16
//! tile per [`Tile`] kind in the order of [`Tile::ALL`] (gid = index + 1). [`tileset_png`]
//! draws that image in the SVG pictures' colours (`levelplan generate --tmj` writes it beside
//! the map); a game points the map at its own art with [`level_to_tmj_using`].

use serde_json::{Value, json};

use crate::tiles::{Tile, TileMap};

/// Pixels per tile in the files written.
pub const TILE_PIXELS: u32 = 16;

/// The tileset image a map names unless told otherwise.
pub const TILESET_IMAGE: &str = "levelplan_tiles.png";

/// The tileset image as PNG: one [`TILE_PIXELS`]-square tile per [`Tile`] kind, in the order
/// of [`Tile::ALL`], filled with the SVG pictures' colour ([`crate::export::svg::tile_colour`];
/// solid rock the background). Kinds that share a colour are told apart by a mark: the four
/// wall variants by a darker line along their run or a corner square, fences and grates by
/// bars, stairs by steps, a pillar and a lamp by a dot.
///
/// # Examples
/// ```
/// let png = levelplan::export::tiled::tileset_png();
/// assert_eq!(&png[1..4], b"PNG");
/// ```
pub fn tileset_png() -> Vec<u8> {
    let (tile, count) = (TILE_PIXELS as usize, Tile::ALL.len());
    let (w, h) = (tile * count, tile);
    let mut rgb = vec![0u8; w * h * 3];
    let parse = |hex: &str| {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap_or(0);
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    };
    let dark = |c: [u8; 3]| c.map(|x| (u32::from(x) * 3 / 5) as u8);
    for (i, &t) in Tile::ALL.iter().enumerate() {
        let base =
            parse(crate::export::svg::tile_colour(t).unwrap_or(crate::export::svg::BACKGROUND));
        let mark = dark(base);
        for y in 0..tile {
            for x in 0..tile {
                let (mid, edge) = (tile / 2, tile - 1);
                let marked = match t {
                    Tile::WallVertical => (mid - 1..=mid).contains(&x),
                    Tile::WallHorizontal => (mid - 1..=mid).contains(&y),
                    Tile::WallCornerOuter => x < mid && y < mid,
                    Tile::WallCornerInner => x >= mid && y >= mid,
                    Tile::Fence => x % 4 == 1,
                    Tile::Grate => x % 4 == 1 || y % 4 == 1,
                    Tile::StairsUp | Tile::StairsDown => y % 4 == 3,
                    Tile::Pillar | Tile::Lamp => x.abs_diff(mid) + y.abs_diff(mid) <= tile / 4,
                    _ => false,
                } || ((x == 0 || y == 0 || x == edge || y == edge)
                    && t != Tile::Solid);
                let c = if marked { mark } else { base };
                let at = (y * w + i * tile + x) * 3;
                rgb[at..at + 3].copy_from_slice(&c);
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w as u32, h as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .expect("writing a PNG header to memory cannot fail");
        writer
            .write_image_data(&rgb)
            .expect("the image has the size given");
    }
    out
}

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
    to_tmj_using(map, objects, TILESET_IMAGE)
}

/// [`to_tmj`] with a tileset image of the caller's (a path relative to the map, laid out as
/// [`tileset_png`]'s).
pub fn to_tmj_using(map: &TileMap, objects: &[TiledObject], image: &str) -> String {
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
            "image": image,
            "imagewidth": TILE_PIXELS as usize * Tile::ALL.len(), "imageheight": TILE_PIXELS,
            "margin": 0, "spacing": 0,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("a map always serialises")
}

/// A level of any recipe as a Tiled map: the tile layer, one rectangle per room (class: the
/// room kind, name: the room id) and one point per door (class `door`, `locked door` or `secret
/// door`). Rooms of a layout are their outline's box and doors the layout's; rooms of other
/// recipes are the box of their region's tiles, and doors their door tiles.
///
/// # Complexity
/// `O(W · H + rooms + links)`.
///
/// # Examples
/// ```
/// use levelplan::Recipe;
/// use levelplan::export::tiled::level_to_tmj;
/// use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage};
/// let level = DiabloRecipe::new(DiabloStage::Hell, 13).generate(1)?;
/// let map: serde_json::Value = serde_json::from_str(&level_to_tmj(&level)).unwrap();
/// assert_eq!(map["type"], "map");
/// # Ok::<(), levelplan::RecipeError>(())
/// ```
pub fn level_to_tmj(level: &crate::Level) -> String {
    level_to_tmj_using(level, TILESET_IMAGE)
}

/// [`level_to_tmj`] naming the caller's tileset image (a path relative to the map, laid out as
/// [`tileset_png`]'s: one tile per kind in the order of [`Tile::ALL`]).
pub fn level_to_tmj_using(level: &crate::Level, image: &str) -> String {
    let objects = match &level.layout {
        Some(layout) => layout_objects(level, layout),
        None => tile_objects(level),
    };
    to_tmj_using(&level.tiles, &objects, image)
}

/// The rooms and doors of a laid-out level.
fn layout_objects(level: &crate::Level, layout: &crate::layout::Layout) -> Vec<TiledObject> {
    use crate::layout::Point;
    let (ox, oy) = level.tile_origin;
    let mut objects: Vec<TiledObject> = Vec::new();
    let rooms = match &level.detail {
        crate::LevelDetail::Gungeon { rooms, .. } => &rooms[..],
        _ => &[],
    };
    for (i, room) in layout.rooms.iter().enumerate() {
        let Some(&id) = rooms.get(i) else { continue };
        let kind = level
            .graph
            .room(id)
            .map(|r| r.kind.name().to_string())
            .unwrap_or_default();
        let (lo, hi) = room.outline.iter().fold(
            (
                Point::new(i32::MAX, i32::MAX),
                Point::new(i32::MIN, i32::MIN),
            ),
            |(lo, hi), p| {
                (
                    Point::new(lo.x.min(p.x), lo.y.min(p.y)),
                    Point::new(hi.x.max(p.x), hi.y.max(p.y)),
                )
            },
        );
        // The top-left tile of the box: level cell (lo.x, hi.y - 1).
        objects.push(TiledObject {
            name: id.to_string(),
            class: kind,
            x: f64::from(lo.x - ox),
            y: f64::from(oy - (hi.y - 1)),
            width: f64::from(hi.x - lo.x),
            height: f64::from(hi.y - lo.y),
        });
    }
    for (l, placed) in layout.links.iter().enumerate() {
        let Some(&id) = level.layout_links().get(l) else {
            continue;
        };
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
            let cx = f64::from(door.a.x + door.b.x) / 2.0 - f64::from(ox);
            let cy = f64::from(oy + 1) - f64::from(door.a.y + door.b.y) / 2.0;
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
    objects
}

/// The rooms (their region's box) and doors (door tiles) of a level without a layout.
fn tile_objects(level: &crate::Level) -> Vec<TiledObject> {
    let map = &level.tiles;
    let mut boxes: Vec<Option<(usize, usize, usize, usize)>> = vec![None; level.region_rooms.len()];
    for ((x, y), region) in map.regions.iter() {
        let Some(r) = region.map(|r| r as usize) else {
            continue;
        };
        if let Some(b) = boxes.get_mut(r) {
            *b = Some(match *b {
                None => (x, y, x, y),
                Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
            });
        }
    }
    let mut objects: Vec<TiledObject> = Vec::new();
    for (r, bounds) in boxes.iter().enumerate() {
        let (Some(id), Some((x0, y0, x1, y1))) = (level.region_rooms[r], bounds) else {
            continue;
        };
        objects.push(TiledObject {
            name: id.to_string(),
            class: level
                .graph
                .room(id)
                .map(|room| room.kind.name().to_string())
                .unwrap_or_default(),
            x: *x0 as f64,
            y: *y0 as f64,
            width: (x1 - x0 + 1) as f64,
            height: (y1 - y0 + 1) as f64,
        });
    }
    for ((x, y), t) in map.tiles.iter() {
        // One point per door: at its first tile (the left or upper of a run).
        let first = match t {
            t if t.is_door() => {
                let left = x > 0 && map.tiles.get(x as i64 - 1, y as i64) == Some(t);
                let up = y > 0 && map.tiles.get(x as i64, y as i64 - 1) == Some(t);
                !left && !up
            }
            _ => false,
        };
        if first {
            objects.push(TiledObject {
                name: String::new(),
                class: match t {
                    Tile::SecretDoor => "secret door",
                    Tile::LockedDoor => "locked door",
                    Tile::OneWayDoor => "one-way door",
                    Tile::HeavyDoor => "heavy door",
                    _ => "door",
                }
                .into(),
                x: x as f64 + 0.5,
                y: y as f64 + 0.5,
                width: 0.0,
                height: 0.0,
            });
        }
    }
    // Sector levels: the start, the openers and the exit switch, each a point on its tile.
    if let crate::LevelDetail::Sectors { .. } = &level.detail {
        let items = &level.items;
        use crate::graph::Item;
        let point = |name: String, class: &str, (x, y): (usize, usize)| TiledObject {
            name,
            class: class.into(),
            x: x as f64 + 0.5,
            y: y as f64 + 0.5,
            width: 0.0,
            height: 0.0,
        };
        if let Some(stairs) = level.stairs {
            objects.push(point(level.start.to_string(), "start", stairs.up));
        }
        for placed in items {
            let (name, class) = match &placed.item {
                Item::Key(k) | Item::SmallKey(k) => (k.to_string(), "key"),
                Item::Switch(k) => (k.to_string(), "switch"),
                Item::Task(k) => (k.to_string(), "task"),
                Item::Named(n) => (n.clone(), "item"),
            };
            objects.push(point(name, class, placed.at));
        }
    }
    objects
}
