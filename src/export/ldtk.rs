//! LDtk projects (`.ldtk`): one level with an IntGrid layer of the tiles and an entity layer of
//! the level's game view.
//!
//! The project follows LDtk's JSON format version [`JSON_VERSION`]; the editor opens it (and
//! upgrades it when newer) and LDtk loaders read it. One grid cell is one tile of
//! [`TILE_PIXELS`] pixels; an entity's `__grid` is its tile position, as in the level's JSON.
//!
//! - Layer `Tiles` (IntGrid), one value per tile: 0 empty (solid rock), [`WALL`], [`FLOOR`]
//!   (every tile a player can stand on that is not a door: floor, corridor, arch, bridge,
//!   stairs, warp pad), [`DOOR`] (a door of any kind: which kind is the door entity's) and
//!   [`OBSTACLE`] (pillars, lamps, fences, grates, windows, lava).
//! - Layer `Objects` (Entities): `Room` (a rectangle over the room's tiles; fields `room`,
//!   `kind`), `Door` (a rectangle over its tiles; `link`, `rooms`, `kind`, `lock` and
//!   `one_way_to` as in the level's `doors`, null where the door has none, and `opener`, a
//!   reference to the `Item` that opens its lock), `Item` (`item`, its kind `type`, `room`),
//!   `Warp` (a pad; `link`, `to`: a reference to the other pad), `Start` and `Goal` (`room`),
//!   `Spawn_slot` (`room`).
//!
//! Identifiers are numbered in a fixed order, so one level always gives the same file.
//!
//! # Examples
//! ```
//! use levelplan::Recipe;
//! use levelplan::recipes::isaac::IsaacRecipe;
//!
//! let level = IsaacRecipe::new(1, Default::default()).generate(3).unwrap();
//! let project: serde_json::Value =
//!     serde_json::from_str(&levelplan::export::ldtk::level_to_ldtk(&level)).unwrap();
//! let layers = &project["levels"][0]["layerInstances"];
//! assert_eq!(layers[0]["__identifier"], "Objects");
//! let entities = layers[0]["entityInstances"].as_array().unwrap();
//! assert!(entities.iter().any(|e| e["__identifier"] == "Start"));
//! ```

use serde_json::{Value, json};

use crate::Level;
use crate::graph::RoomId;
use crate::tiles::Tile;
use crate::view::DoorKind;

/// The LDtk JSON format version written.
pub const JSON_VERSION: &str = "1.1.3";

/// Pixels per grid cell (one tile).
pub const TILE_PIXELS: i64 = 16;

/// IntGrid value of walls.
pub const WALL: i64 = 1;
/// IntGrid value of walkable tiles that are not doors.
pub const FLOOR: i64 = 2;
/// IntGrid value of door tiles of every kind.
pub const DOOR: i64 = 3;
/// IntGrid value of tiles that block walking and are not walls.
pub const OBSTACLE: i64 = 4;

/// The IntGrid value of a tile.
pub fn int_grid_value(tile: Tile) -> i64 {
    if tile == Tile::Solid {
        0
    } else if tile.is_wall() {
        WALL
    } else if tile.is_door() {
        DOOR
    } else if tile.walkable() {
        FLOOR
    } else {
        OBSTACLE
    }
}

// Fixed uids of the definitions.
const TILES_LAYER: i64 = 1;
const OBJECTS_LAYER: i64 = 2;
const LEVEL_UID: i64 = 3;

/// What each field holds.
#[derive(Clone, Copy, PartialEq)]
enum FieldType {
    Int,
    Text,
    Texts,
    Reference,
}

impl FieldType {
    fn names(self) -> (&'static str, &'static str) {
        match self {
            FieldType::Int => ("Int", "F_Int"),
            FieldType::Text => ("String", "F_String"),
            FieldType::Texts => ("Array<String>", "F_String"),
            FieldType::Reference => ("EntityRef", "F_EntityRef"),
        }
    }
}

/// An entity kind: identifier, colour, whether it is an area (a rectangle drawn hollow) or a
/// point, and its fields.
struct EntityKind {
    name: &'static str,
    colour: &'static str,
    area: bool,
    fields: &'static [(&'static str, FieldType, bool)],
}

// Fields: name, type, whether it may be null.
const KINDS: [EntityKind; 7] = [
    EntityKind {
        name: "Room",
        colour: "#5FCDE4",
        area: true,
        fields: &[
            ("room", FieldType::Text, false),
            ("kind", FieldType::Text, false),
        ],
    },
    EntityKind {
        name: "Door",
        colour: "#D77643",
        area: true,
        fields: &[
            ("link", FieldType::Int, false),
            ("rooms", FieldType::Texts, false),
            ("kind", FieldType::Text, false),
            ("lock", FieldType::Text, true),
            ("one_way_to", FieldType::Text, true),
            ("opener", FieldType::Reference, true),
        ],
    },
    EntityKind {
        name: "Item",
        colour: "#F2D15C",
        area: false,
        fields: &[
            ("item", FieldType::Text, false),
            ("type", FieldType::Text, false),
            ("room", FieldType::Text, false),
        ],
    },
    EntityKind {
        name: "Warp",
        colour: "#B86CE0",
        area: false,
        fields: &[
            ("link", FieldType::Int, false),
            ("to", FieldType::Reference, false),
        ],
    },
    EntityKind {
        name: "Start",
        colour: "#63C74D",
        area: false,
        fields: &[("room", FieldType::Text, false)],
    },
    EntityKind {
        name: "Goal",
        colour: "#E43B44",
        area: false,
        fields: &[("room", FieldType::Text, false)],
    },
    EntityKind {
        name: "Spawn_slot",
        colour: "#8B9BB4",
        area: false,
        fields: &[("room", FieldType::Text, false)],
    },
];

/// The uid of an entity kind's definition and of its fields': kinds from 10, ten apart.
fn kind_uid(kind: usize) -> i64 {
    10 + 10 * kind as i64
}

fn kind_index(name: &str) -> usize {
    KINDS.iter().position(|k| k.name == name).unwrap_or(0)
}

/// A deterministic identifier in UUID form: what it names, then its number.
fn iid(what: u32, n: usize) -> String {
    format!("{what:08x}-0000-4000-8000-{n:012x}")
}

fn project_iid() -> String {
    iid(0, 0)
}

fn level_iid() -> String {
    iid(1, 0)
}

fn layer_iid(layer: i64) -> String {
    iid(2, layer as usize)
}

fn entity_iid(n: usize) -> String {
    iid(3, n)
}

/// A field's value, before it is written as LDtk writes it.
enum FieldValue {
    Int(i64),
    Text(String),
    Texts(Vec<String>),
    Reference(usize),
    Null,
}

fn field_instance(kind: usize, field: usize, value: &FieldValue) -> Value {
    let (name, ty, _) = KINDS[kind].fields[field];
    let (type_name, _) = ty.names();
    let reference = |n: usize| {
        json!({
            "entityIid": entity_iid(n),
            "layerIid": layer_iid(OBJECTS_LAYER),
            "levelIid": level_iid(),
            "worldIid": project_iid(),
        })
    };
    // `__value` is what a game reads; `realEditorValues` what the editor keeps.
    let (value, editor) = match value {
        FieldValue::Int(v) => (json!(v), json!([{"id": "V_Int", "params": [v]}])),
        FieldValue::Text(s) => (json!(s), json!([{"id": "V_String", "params": [s]}])),
        FieldValue::Texts(v) => (
            json!(v),
            Value::Array(
                v.iter()
                    .map(|s| json!({"id": "V_String", "params": [s]}))
                    .collect(),
            ),
        ),
        FieldValue::Reference(n) => (
            reference(*n),
            json!([{"id": "V_String", "params": [entity_iid(*n)]}]),
        ),
        FieldValue::Null => (Value::Null, json!([])),
    };
    json!({
        "__identifier": name,
        "__type": type_name,
        "__value": value,
        "__tile": null,
        "defUid": kind_uid(kind) + 1 + field as i64,
        "realEditorValues": editor,
    })
}

/// One entity: its kind, its tile rectangle `[x, y, w, h]` and its field values (in the
/// order of the kind's fields).
struct Entity {
    kind: usize,
    rect: [i64; 4],
    values: Vec<FieldValue>,
}

fn entity_instance(n: usize, e: &Entity) -> Value {
    let [x, y, w, h] = e.rect;
    let kind = &KINDS[e.kind];
    let fields: Vec<Value> = e
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| field_instance(e.kind, i, v))
        .collect();
    json!({
        "__identifier": kind.name,
        "__grid": [x, y],
        "__pivot": [0, 0],
        "__tags": [],
        "__tile": null,
        "__smartColor": kind.colour,
        "iid": entity_iid(n),
        "width": w * TILE_PIXELS,
        "height": h * TILE_PIXELS,
        "defUid": kind_uid(e.kind),
        "px": [x * TILE_PIXELS, y * TILE_PIXELS],
        "fieldInstances": fields,
        "__worldX": x * TILE_PIXELS,
        "__worldY": y * TILE_PIXELS,
    })
}

/// A count of tiles as LDtk's numbers.
fn cells(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn room_text(room: RoomId) -> FieldValue {
    FieldValue::Text(room.to_string())
}

/// The entities of a level's game view, in the order they are numbered: rooms, doors, items,
/// warp pads, start, goal, spawn slots.
fn entities(level: &Level) -> Vec<Entity> {
    let mut out = Vec::new();
    for r in &level.rooms {
        let [x, y, w, h] = r.rect;
        out.push(Entity {
            kind: kind_index("Room"),
            rect: [x, y, w, h].map(cells),
            values: vec![room_text(r.room), FieldValue::Text(r.kind.clone())],
        });
    }
    let item_base = out.len() + level.doors.len();
    for d in &level.doors {
        let kind = match d.kind {
            DoorKind::Plain => "plain",
            DoorKind::Secret => "secret",
            DoorKind::Heavy => "heavy",
            DoorKind::Window => "window",
            DoorKind::Open => "open",
        };
        let opener = d
            .lock
            .and_then(|lock| super::opener_index(level, &lock))
            .map_or(FieldValue::Null, |i| FieldValue::Reference(item_base + i));
        out.push(Entity {
            kind: kind_index("Door"),
            rect: super::door_bounds(d).map(cells),
            values: vec![
                FieldValue::Int(i64::from(d.link.0)),
                FieldValue::Texts(d.rooms.iter().map(|r| r.to_string()).collect()),
                FieldValue::Text(kind.into()),
                d.lock
                    .as_ref()
                    .map_or(FieldValue::Null, |l| FieldValue::Text(l.to_string())),
                d.one_way_to.map_or(FieldValue::Null, room_text),
                opener,
            ],
        });
    }
    for p in &level.items {
        let (name, ty) = super::item_parts(&p.item);
        out.push(Entity {
            kind: kind_index("Item"),
            rect: [cells(p.at.0), cells(p.at.1), 1, 1],
            values: vec![
                FieldValue::Text(name),
                FieldValue::Text(ty.into()),
                room_text(p.room),
            ],
        });
    }
    let warp_base = out.len();
    for (i, w) in level.warps.iter().enumerate() {
        for (side, at) in w.tiles.iter().enumerate() {
            out.push(Entity {
                kind: kind_index("Warp"),
                rect: [cells(at.0), cells(at.1), 1, 1],
                values: vec![
                    FieldValue::Int(i64::from(w.link.0)),
                    FieldValue::Reference(warp_base + 2 * i + (1 - side)),
                ],
            });
        }
    }
    for (name, at, room) in [
        ("Start", level.start_tile, level.start),
        ("Goal", level.goal_tile, level.goal),
    ] {
        if let Some(at) = at {
            out.push(Entity {
                kind: kind_index(name),
                rect: [cells(at.0), cells(at.1), 1, 1],
                values: vec![room_text(room)],
            });
        }
    }
    for r in &level.rooms {
        for at in &r.spawn_slots {
            out.push(Entity {
                kind: kind_index("Spawn_slot"),
                rect: [cells(at.0), cells(at.1), 1, 1],
                values: vec![room_text(r.room)],
            });
        }
    }
    out
}

fn field_definition(kind: usize, field: usize) -> Value {
    let (name, ty, nullable) = KINDS[kind].fields[field];
    let (type_name, def_type) = ty.names();
    json!({
        "identifier": name,
        "__type": type_name,
        "uid": kind_uid(kind) + 1 + field as i64,
        "type": def_type,
        "isArray": ty == FieldType::Texts,
        "canBeNull": nullable,
        "arrayMinLength": null,
        "arrayMaxLength": null,
        "editorDisplayMode": if ty == FieldType::Reference { "RefLinkBetweenCenters" } else { "Hidden" },
        "editorDisplayPos": "Above",
        "editorAlwaysShow": false,
        "editorCutLongValues": true,
        "editorTextSuffix": null,
        "editorTextPrefix": null,
        "useForSmartColor": false,
        "min": null,
        "max": null,
        "regex": null,
        "acceptFileTypes": null,
        "defaultOverride": null,
        "textLanguageMode": null,
        "symmetricalRef": false,
        "autoChainRef": false,
        "allowOutOfLevelRef": false,
        "allowedRefs": "OnlySame",
        "allowedRefTags": [],
        "tilesetUid": null,
    })
}

fn entity_definition(kind: usize) -> Value {
    let k = &KINDS[kind];
    let fields: Vec<Value> = (0..k.fields.len())
        .map(|f| field_definition(kind, f))
        .collect();
    json!({
        "identifier": k.name,
        "uid": kind_uid(kind),
        "tags": [],
        "width": TILE_PIXELS,
        "height": TILE_PIXELS,
        "resizableX": k.area,
        "resizableY": k.area,
        "keepAspectRatio": false,
        "tileOpacity": 1,
        "fillOpacity": if k.area { 0.08 } else { 1.0 },
        "lineOpacity": 1,
        "hollow": k.area,
        "color": k.colour,
        "renderMode": if k.area { "Rectangle" } else { "Ellipse" },
        "showName": true,
        "tilesetId": null,
        "tileId": null,
        "tileRenderMode": "FitInside",
        "tileRect": null,
        "nineSliceBorders": [],
        "maxCount": 0,
        "limitScope": "PerLevel",
        "limitBehavior": "MoveLastOne",
        "pivotX": 0,
        "pivotY": 0,
        "fieldDefs": fields,
    })
}

fn layer_definition(uid: i64, name: &str, ty: &str, values: Value) -> Value {
    json!({
        "__type": ty,
        "identifier": name,
        "type": ty,
        "uid": uid,
        "gridSize": TILE_PIXELS,
        "guideGridWid": 0,
        "guideGridHei": 0,
        "displayOpacity": 1,
        "inactiveOpacity": 1,
        "hideInList": false,
        "hideFieldsWhenInactive": false,
        "pxOffsetX": 0,
        "pxOffsetY": 0,
        "parallaxFactorX": 0,
        "parallaxFactorY": 0,
        "parallaxScaling": true,
        "requiredTags": [],
        "excludedTags": [],
        "intGridValues": values,
        "autoTilesetDefUid": null,
        "autoRuleGroups": [],
        "autoSourceLayerDefUid": null,
        "tilesetDefUid": null,
        "tilePivotX": 0,
        "tilePivotY": 0,
    })
}

fn layer_instance(uid: i64, name: &str, ty: &str, level: &Level) -> Value {
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    let (csv, entities): (Vec<i64>, Vec<Value>) = if ty == "IntGrid" {
        let csv = level
            .tiles
            .tiles
            .values()
            .iter()
            .map(|&t| int_grid_value(t))
            .collect();
        (csv, Vec::new())
    } else {
        let all = entities(level);
        let list = all
            .iter()
            .enumerate()
            .map(|(n, e)| entity_instance(n, e))
            .collect();
        (Vec::new(), list)
    };
    json!({
        "__identifier": name,
        "__type": ty,
        "__cWid": w,
        "__cHei": h,
        "__gridSize": TILE_PIXELS,
        "__opacity": 1,
        "__pxTotalOffsetX": 0,
        "__pxTotalOffsetY": 0,
        "__tilesetDefUid": null,
        "__tilesetRelPath": null,
        "iid": layer_iid(uid),
        "levelId": LEVEL_UID,
        "layerDefUid": uid,
        "pxOffsetX": 0,
        "pxOffsetY": 0,
        "visible": true,
        "optionalRules": [],
        "intGridCsv": csv,
        "autoLayerTiles": [],
        "seed": 0,
        "overrideTilesetUid": null,
        "gridTiles": [],
        "entityInstances": entities,
    })
}

/// The level's identifier: its recipe and seed, in the letters LDtk allows.
fn level_identifier(level: &Level) -> String {
    let recipe: String = level
        .recipe
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("L_{recipe}_seed_{}", level.seed)
}

/// A level as an LDtk project of one level (see the module's documentation for its layers and
/// entities). The level's tiles, rooms, doors, items, warps, start and goal are all there; a
/// level without tiles gives an empty level.
pub fn level_to_ldtk(level: &Level) -> String {
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    let values = json!([
        {"value": WALL, "identifier": "wall", "color": "#3F3F74"},
        {"value": FLOOR, "identifier": "floor", "color": "#C9B28A"},
        {"value": DOOR, "identifier": "door", "color": "#D77643"},
        {"value": OBSTACLE, "identifier": "obstacle", "color": "#5A6988"},
    ]);
    let entity_defs: Vec<Value> = (0..KINDS.len()).map(entity_definition).collect();
    let next_uid = kind_uid(KINDS.len());
    let background = "#222034";
    let defs = json!({
        "layers": [
            layer_definition(OBJECTS_LAYER, "Objects", "Entities", json!([])),
            layer_definition(TILES_LAYER, "Tiles", "IntGrid", values),
        ],
        "entities": entity_defs,
        "tilesets": [],
        "enums": [],
        "externalEnums": [],
        "levelFields": [],
    });
    let one_level = json!({
        "identifier": level_identifier(level),
        "iid": level_iid(),
        "uid": LEVEL_UID,
        "worldX": 0,
        "worldY": 0,
        "worldDepth": 0,
        "pxWid": w as i64 * TILE_PIXELS,
        "pxHei": h as i64 * TILE_PIXELS,
        "__bgColor": background,
        "bgColor": null,
        "useAutoIdentifier": false,
        "bgRelPath": null,
        "bgPos": null,
        "bgPivotX": 0.5,
        "bgPivotY": 0.5,
        "__smartColor": "#ADADB5",
        "__bgPos": null,
        "externalRelPath": null,
        "fieldInstances": [],
        "layerInstances": [
            layer_instance(OBJECTS_LAYER, "Objects", "Entities", level),
            layer_instance(TILES_LAYER, "Tiles", "IntGrid", level),
        ],
        "__neighbours": [],
    });
    let project = json!({
        "__header__": {
            "fileType": "LDtk Project JSON",
            "app": "levelplan",
            "doc": "https://ldtk.io/json",
            "schema": "https://ldtk.io/files/JSON_SCHEMA.json",
            "appAuthor": "levelplan",
            "appVersion": env!("CARGO_PKG_VERSION"),
            "url": "https://ldtk.io",
        },
        "iid": project_iid(),
        "jsonVersion": JSON_VERSION,
        "appBuildId": 0,
        "nextUid": next_uid,
        "identifierStyle": "Free",
        "worldLayout": "Free",
        "worldGridWidth": w as i64 * TILE_PIXELS,
        "worldGridHeight": h as i64 * TILE_PIXELS,
        "defaultLevelWidth": w as i64 * TILE_PIXELS,
        "defaultLevelHeight": h as i64 * TILE_PIXELS,
        "defaultPivotX": 0,
        "defaultPivotY": 0,
        "defaultGridSize": TILE_PIXELS,
        "bgColor": background,
        "defaultLevelBgColor": background,
        "minifyJson": false,
        "externalLevels": false,
        "exportTiled": false,
        "simplifiedExport": false,
        "imageExportMode": "None",
        "pngFilePattern": null,
        "backupOnSave": false,
        "backupLimit": 10,
        "levelNamePattern": "Level_%idx",
        "tutorialDesc": null,
        "flags": [],
        "defs": defs,
        "levels": [one_level],
        "worlds": [],
    });
    let mut text = serde_json::to_string_pretty(&project).expect("a project always serialises");
    text.push('\n');
    text
}
