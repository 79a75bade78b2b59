//! Tiled map files (`.tmj`, Tiled's JSON format): a tile layer and object layers (a level's
//! game view: rooms, doors, items, warps, start and goal, spawn slots).
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

/// An object of an object layer, in tile units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TiledObject {
    /// Its name (for rooms, the room id).
    pub name: String,
    /// Its class (Tiled's `type`): a room kind, `door`, `locked door`, `key`, `start`, ...
    pub class: String,
    /// Left edge, in tiles.
    pub x: f64,
    /// Top edge, in tiles.
    pub y: f64,
    /// Width in tiles (0 with `height` 0 makes a point).
    pub width: f64,
    /// Height in tiles.
    pub height: f64,
    /// Its custom properties, in order.
    pub properties: Vec<(String, TiledValue)>,
}

/// The value of a custom property of a [`TiledObject`].
#[derive(Debug, Clone, PartialEq)]
pub enum TiledValue {
    /// A string.
    Text(String),
    /// A whole number.
    Int(i64),
    /// A reference to another object of the map, by its index among all the objects written
    /// (layer after layer, in order); Tiled shows it as an object link.
    Object(usize),
}

impl TiledObject {
    /// A point at the middle of tile `(x, y)`.
    pub fn point(
        name: impl Into<String>,
        class: impl Into<String>,
        (x, y): (usize, usize),
    ) -> TiledObject {
        TiledObject {
            name: name.into(),
            class: class.into(),
            x: x as f64 + 0.5,
            y: y as f64 + 0.5,
            ..TiledObject::default()
        }
    }

    /// The same object with one more property (builder style).
    pub fn with(mut self, name: &str, value: TiledValue) -> TiledObject {
        self.properties.push((name.to_string(), value));
        self
    }
}

/// A tile map and objects as a Tiled `.tmj` document (one object layer, `rooms and doors`).
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
/// let room = TiledObject { name: "r0".into(), class: "entrance".into(), x: 1.0, y: 0.0, width: 1.0, height: 1.0, ..Default::default() };
/// let doc: serde_json::Value = serde_json::from_str(&to_tmj(&map, &[room])).unwrap();
/// assert_eq!(doc["layers"][0]["data"], serde_json::json!([1, 2]));
/// ```
pub fn to_tmj(map: &TileMap, objects: &[TiledObject]) -> String {
    to_tmj_using(map, objects, TILESET_IMAGE)
}

/// [`to_tmj`] with a tileset image of the caller's (a path relative to the map, laid out as
/// [`tileset_png`]'s).
pub fn to_tmj_using(map: &TileMap, objects: &[TiledObject], image: &str) -> String {
    to_tmj_layers(map, &[("rooms and doors", objects.to_vec())], image)
}

/// A tile map and named object layers as a Tiled `.tmj` document; object ids run from 1 over
/// every layer in order (a [`TiledValue::Object`] is an index in that order).
pub fn to_tmj_layers(map: &TileMap, layers: &[(&str, Vec<TiledObject>)], image: &str) -> String {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    let data: Vec<u32> = map
        .tiles
        .values()
        .iter()
        .map(|t| t.index() as u32 + 1)
        .collect();
    let px = f64::from(TILE_PIXELS);
    let mut next_id = 1usize;
    let mut out_layers = vec![json!({
        "type": "tilelayer", "id": 1, "name": "tiles",
        "width": w, "height": h, "x": 0, "y": 0,
        "opacity": 1, "visible": true, "data": data,
    })];
    for (l, (name, objects)) in layers.iter().enumerate() {
        let objects: Vec<Value> = objects
            .iter()
            .map(|o| {
                let mut v = json!({
                    "id": next_id,
                    "name": o.name,
                    "type": o.class,
                    "x": o.x * px,
                    "y": o.y * px,
                    "width": o.width * px,
                    "height": o.height * px,
                    "rotation": 0,
                    "visible": true,
                });
                next_id += 1;
                if o.width == 0.0 && o.height == 0.0 {
                    v["point"] = json!(true);
                }
                if !o.properties.is_empty() {
                    let props: Vec<Value> = o
                        .properties
                        .iter()
                        .map(|(name, value)| match value {
                            TiledValue::Text(s) => {
                                json!({"name": name, "type": "string", "value": s})
                            }
                            TiledValue::Int(n) => json!({"name": name, "type": "int", "value": n}),
                            TiledValue::Object(i) => {
                                json!({"name": name, "type": "object", "value": i + 1})
                            }
                        })
                        .collect();
                    v["properties"] = json!(props);
                }
                v
            })
            .collect();
        out_layers.push(json!({
            "type": "objectgroup", "id": l + 2, "name": name,
            "draworder": "topdown", "x": 0, "y": 0,
            "opacity": 1, "visible": true, "objects": objects,
        }));
    }
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
        "nextlayerid": layers.len() + 2,
        "nextobjectid": next_id,
        "layers": out_layers,
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

/// A level of any recipe as a Tiled map: the tile layer and the game view ([`crate::view`])
/// as object layers:
///
/// - `rooms`: one rectangle per room (name: its id, class: its kind);
/// - `doors`: one rectangle per door over its tiles (class `door`, `locked door`, `one-way
///   door`, `secret door`, `heavy door`, `window` or `arch`), with the properties `link`,
///   `rooms`, `lock` (`""` or as `key k2`, `switch k0`, `task k1`, `small key k3`),
///   `one_way_to` (`""` or the room) and, for a locked door, `opener`: the item object of its
///   opener;
/// - `items`: a point per item (class `key`, `switch`, `task`, `small key` or `item`, name its
///   lock or its name) with the property `room`;
/// - `warps`: a point per pad (class `warp`) with `link` and `to`, the other pad;
/// - `start and goal`: the points `start` and `goal`;
/// - `spawn slots`: a point per slot (class `spawn`) with `room`.
///
/// # Complexity
/// `O(W · H + rooms + doors + items)`.
///
/// # Examples
/// ```
/// use levelplan::Recipe;
/// use levelplan::export::tiled::level_to_tmj;
/// use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage};
/// let level = DiabloRecipe::new(DiabloStage::Hell, 13).generate(1)?;
/// let map: serde_json::Value = serde_json::from_str(&level_to_tmj(&level)).unwrap();
/// assert_eq!(map["type"], "map");
/// assert_eq!(map["layers"][2]["name"], "doors");
/// # Ok::<(), levelplan::RecipeError>(())
/// ```
pub fn level_to_tmj(level: &crate::Level) -> String {
    level_to_tmj_using(level, TILESET_IMAGE)
}

/// [`level_to_tmj`] naming the caller's tileset image (a path relative to the map, laid out as
/// [`tileset_png`]'s: one tile per kind in the order of [`Tile::ALL`]).
pub fn level_to_tmj_using(level: &crate::Level, image: &str) -> String {
    to_tmj_layers(&level.tiles, &view_layers(level), image)
}

/// How a lock reads in a property: `key k2`, `switch k0`, ...
/// The object layers of a level's game view.
pub fn view_layers(level: &crate::Level) -> Vec<(&'static str, Vec<TiledObject>)> {
    use crate::view::DoorKind;
    let rooms: Vec<TiledObject> = level
        .rooms
        .iter()
        .map(|r| {
            let [x, y, w, h] = r.rect;
            TiledObject {
                name: r.room.to_string(),
                class: r.kind.clone(),
                x: x as f64,
                y: y as f64,
                width: w as f64,
                height: h as f64,
                properties: Vec::new(),
            }
        })
        .collect();
    let items: Vec<TiledObject> = level
        .items
        .iter()
        .map(|placed| {
            let (name, class) = super::item_parts(&placed.item);
            TiledObject::point(name, class, placed.at)
                .with("room", TiledValue::Text(placed.room.to_string()))
        })
        .collect();
    // Object indices: rooms, doors, items, ...
    let item_base = rooms.len() + level.doors.len();
    let doors: Vec<TiledObject> = level
        .doors
        .iter()
        .map(|d| {
            let [x, y, w, h] = super::door_bounds(d);
            let class = match d.kind {
                DoorKind::Secret => "secret door",
                DoorKind::Heavy => "heavy door",
                DoorKind::Window => "window",
                DoorKind::Open => "arch",
                DoorKind::Plain if d.one_way_to.is_some() => "one-way door",
                DoorKind::Plain if d.lock.is_some() => "locked door",
                DoorKind::Plain => "door",
            };
            let [a, b] = d.rooms;
            let mut o = TiledObject {
                name: d.link.to_string(),
                class: class.into(),
                x: x as f64,
                y: y as f64,
                width: w as f64,
                height: h as f64,
                properties: Vec::new(),
            }
            .with("link", TiledValue::Int(i64::from(d.link.0)))
            .with("rooms", TiledValue::Text(format!("{a} {b}")))
            .with(
                "lock",
                TiledValue::Text(d.lock.map(|l| l.to_string()).unwrap_or_default()),
            )
            .with(
                "one_way_to",
                TiledValue::Text(d.one_way_to.map(|r| r.to_string()).unwrap_or_default()),
            );
            if let Some(i) = d.lock.and_then(|lock| super::opener_index(level, &lock)) {
                o = o.with("opener", TiledValue::Object(item_base + i));
            }
            o
        })
        .collect();
    let warp_base = item_base + items.len();
    let mut warps = Vec::new();
    for (i, wv) in level.warps.iter().enumerate() {
        for (side, at) in wv.tiles.iter().enumerate() {
            let other = warp_base + 2 * i + (1 - side);
            warps.push(
                TiledObject::point(wv.link.to_string(), "warp", *at)
                    .with("link", TiledValue::Int(i64::from(wv.link.0)))
                    .with("to", TiledValue::Object(other)),
            );
        }
    }
    let mut ends = Vec::new();
    if let Some(at) = level.start_tile {
        ends.push(TiledObject::point(level.start.to_string(), "start", at));
    }
    if let Some(at) = level.goal_tile {
        ends.push(TiledObject::point(level.goal.to_string(), "goal", at));
    }
    let slots: Vec<TiledObject> = level
        .rooms
        .iter()
        .flat_map(|r| {
            r.spawn_slots.iter().map(move |&at| {
                TiledObject::point(String::new(), "spawn", at)
                    .with("room", TiledValue::Text(r.room.to_string()))
            })
        })
        .collect();
    vec![
        ("rooms", rooms),
        ("doors", doors),
        ("items", items),
        ("warps", warps),
        ("start and goal", ends),
        ("spawn slots", slots),
    ]
}
