//! Room templates drawn in the Tiled map editor (`.tmj` JSON maps and `.tmx` XML maps).
//!
//! A map is one room template:
//!
//! - **Tile layers** give the room's cells: every tile drawn (in any tile layer) is inside the
//!   room. Which tiles are wall is said by a boolean tile property `wall` in the map's tileset,
//!   or by the library's `wall_tiles` (tile ids within the map's first tileset); the other tiles
//!   drawn are floor. Without either, the ring of cells along the outline is the wall, as in
//!   every template.
//! - **Doors** are the objects of an object layer named `doors` (or objects of class `door` in
//!   any object layer): a rectangle one tile thick lying on the wall ring (the door is its side
//!   on the outline), a line (a rectangle of zero width or height, or a two-point polyline) on
//!   the outline, or a point in a wall tile of the ring (a door one cell long on that tile's
//!   outer side). Properties: `kind` (`entrance`, `exit` or `any`), `socket` (text), `length`
//!   (an integer: doors of that length slide along the object's segment).
//! - Instead of door objects, map properties `door_length` and `corner_distance` give sliding
//!   doors on every side.
//! - **Map properties**: `name` (default: the file's stem), `kinds` and `tags` (comma-separated;
//!   default kinds `Normal`), `weight` (default 1), `transforms` (comma-separated names such as
//!   `Identity, Rotate90`; default `Identity`), `repeat` (`AllowRepeat`, `NoImmediate`,
//!   `NoRepeat`).
//!
//! Every template read passes the checks of the built-in ones (it compiles: one piece, no
//! holes, doors on the outline), and the drawing's own: its floor is one connected piece and
//! every door opens onto floor. A bad file gets a [`TiledError`] naming the file, the layer or
//! object, and what is wrong.
//!
//! # Examples
//! ```
//! use levelplan::layout::tiled::template_from_tmj;
//! let map = r#"{"width": 5, "height": 4, "tilewidth": 16, "tileheight": 16,
//!   "orientation": "orthogonal", "infinite": false,
//!   "properties": [{"name": "kinds", "type": "string", "value": "Normal, Reward"}],
//!   "tilesets": [{"firstgid": 1, "name": "plain", "tilecount": 2, "columns": 2,
//!                 "tiles": [{"id": 1, "properties": [{"name": "wall", "type": "bool", "value": true}]}]}],
//!   "layers": [
//!     {"type": "tilelayer", "name": "room", "width": 5, "height": 4,
//!      "data": [2,2,2,2,2, 2,1,1,1,2, 2,1,1,1,2, 2,2,2,2,2]},
//!     {"type": "objectgroup", "name": "doors", "objects": [
//!        {"id": 1, "x": 32, "y": 0, "width": 16, "height": 16}]}]}"#;
//! let t = template_from_tmj(map, "closet.tmj", &[])?;
//! assert_eq!((t.name.as_str(), t.kinds.len()), ("closet", 2));
//! # Ok::<(), levelplan::layout::tiled::TiledError>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::Transform;

mod read;

use super::template::{
    DoorKind, DoorLine, DoorMode, DoorSpec, RepeatMode, RoomTemplate, TemplateShape,
};
use read::{parse_tmj, parse_tmx};

/// A Tiled file that does not make a room template, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {place}{problem}")]
pub struct TiledError {
    /// The file.
    pub file: String,
    /// Where in it (`layer `doors`, object 3: `), possibly empty.
    pub place: String,
    /// What is wrong.
    pub problem: String,
}

/// A property value of a map, tile or object.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Text(String),
    Number(f64),
    Bool(bool),
}

impl Value {
    fn text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
        }
    }
}

type Properties = BTreeMap<String, Value>;

/// An object of an object layer, in pixels.
#[derive(Debug, Clone)]
struct Object {
    id: u64,
    class: String,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    point: bool,
    polyline: Option<Vec<(f64, f64)>>,
    properties: Properties,
}

/// What a map says, whichever format it came in.
#[derive(Debug, Clone, Default)]
struct MapData {
    width: usize,
    height: usize,
    tile_w: f64,
    tile_h: f64,
    properties: Properties,
    /// Per tile layer: its name and gids, row by row.
    tile_layers: Vec<(String, Vec<u32>)>,
    /// Per object layer: its name and objects.
    object_layers: Vec<(String, Vec<Object>)>,
    /// The tilesets' first gids, in order, with the local ids of their `wall` tiles (`Some`
    /// where the tileset says, per tile, whether it is wall).
    tilesets: Vec<(u32, BTreeMap<u32, bool>)>,
}

/// Tiled keeps flip flags in the top bits of a gid.
const GID_MASK: u32 = 0x0fff_ffff;

/// Reads a room template from a Tiled JSON map (`.tmj`); `file` names it in errors (and gives
/// the template's default name, its stem); `wall_tiles` are the ids, within the map's first
/// tileset, of tiles that are wall (see the module docs).
pub fn template_from_tmj(
    text: &str,
    file: &str,
    wall_tiles: &[u32],
) -> Result<RoomTemplate, TiledError> {
    let data = parse_tmj(text).map_err(located(file))?;
    to_template(&data, file, wall_tiles)
}

/// Reads a room template from a Tiled XML map (`.tmx`); as [`template_from_tmj`].
pub fn template_from_tmx(
    text: &str,
    file: &str,
    wall_tiles: &[u32],
) -> Result<RoomTemplate, TiledError> {
    let data = parse_tmx(text).map_err(located(file))?;
    to_template(&data, file, wall_tiles)
}

/// Reads a room template from a Tiled map file, `.tmj` or `.tmx` by its extension.
pub fn load_template(
    path: &std::path::Path,
    wall_tiles: &[u32],
) -> Result<RoomTemplate, TiledError> {
    let file = path.display().to_string();
    let text = crate::read_text_file(path).map_err(|e| TiledError {
        file: file.clone(),
        place: String::new(),
        problem: format!("cannot read it: {e}"),
    })?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("tmx") => template_from_tmx(&text, &file, wall_tiles),
        Some("tmj") | Some("json") => template_from_tmj(&text, &file, wall_tiles),
        _ => Err(TiledError {
            file,
            place: String::new(),
            problem: "not a Tiled map: the name must end in .tmj or .tmx".into(),
        }),
    }
}

type Fault = (String, String);

/// A reader's fault, placed in `file`.
fn located(file: &str) -> impl Fn(Fault) -> TiledError + '_ {
    move |(place, problem)| TiledError {
        file: file.into(),
        place,
        problem,
    }
}

/// The file's name without folder or extension (a map's default name).
fn stem(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(file)
        .to_string()
}

/// A segment between two corners of the tile grid, `(x, y)` with `y` down.
type Segment = ((i64, i64), (i64, i64));

fn fault(place: impl Into<String>, problem: impl Into<String>) -> Fault {
    (place.into(), problem.into())
}

// ---- to a template -----------------------------------------------------------------------

/// A door read from an object: its end corners in the picture's frame (`y` down) and its
/// properties.
struct DrawnDoor {
    from: (i64, i64),
    to: (i64, i64),
    kind: DoorKind,
    socket: Option<String>,
    length: Option<i32>,
    place: String,
}

fn to_template(data: &MapData, file: &str, wall_tiles: &[u32]) -> Result<RoomTemplate, TiledError> {
    let bad = |place: &str, problem: String| TiledError {
        file: file.into(),
        place: place.into(),
        problem,
    };
    let (w, h) = (data.width, data.height);
    if w == 0 || h == 0 || w > super::geom::MAX_SIDE as usize || h > super::geom::MAX_SIDE as usize
    {
        return Err(bad(
            "",
            format!("the map is {w} x {h} tiles; a room is 1 to 256 tiles a side"),
        ));
    }
    if !(data.tile_w > 0.0 && data.tile_h > 0.0) {
        return Err(bad("", "tiles of no size".into()));
    }
    if data.tile_layers.is_empty() {
        return Err(bad(
            "",
            "no tile layer: draw the room's cells in one".into(),
        ));
    }
    // Inside cells, and walls.
    let first_gid = data.tilesets.first().map_or(1, |t| t.0);
    let mut inside = vec![false; w * h];
    let mut wall = vec![false; w * h];
    let mut said = false;
    for (name, gids) in &data.tile_layers {
        if gids.len() != w * h {
            return Err(bad(
                &format!("layer `{name}`: "),
                format!("{} tiles for a {w} x {h} map", gids.len()),
            ));
        }
        for (i, &g) in gids.iter().enumerate() {
            let gid = g & GID_MASK;
            if gid == 0 {
                continue;
            }
            inside[i] = true;
            // The tileset holding the gid: the last whose first gid is at most it.
            let set = data.tilesets.iter().rev().find(|t| t.0 <= gid);
            if let Some((first, walls)) = set
                && let Some(&is) = walls.get(&(gid - first))
            {
                said = true;
                wall[i] |= is;
            } else if gid >= first_gid && wall_tiles.contains(&(gid - first_gid)) {
                said = true;
                wall[i] = true;
            }
        }
    }
    let at = |x: i64, y: i64| x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h;
    let is_in = |x: i64, y: i64| at(x, y) && inside[y as usize * w + x as usize];
    if !said {
        // No word on walls: the ring along the outline is the wall.
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let ring = (-1..=1).any(|dy| (-1..=1).any(|dx| !is_in(x + dx, y + dy)));
                if is_in(x, y) && ring {
                    wall[y as usize * w + x as usize] = true;
                }
            }
        }
    }
    let floor = |x: i64, y: i64| is_in(x, y) && !wall[y as usize * w + x as usize];
    // One connected floor.
    let floors: Vec<(i64, i64)> = (0..h as i64)
        .flat_map(|y| (0..w as i64).map(move |x| (x, y)))
        .filter(|&(x, y)| floor(x, y))
        .collect();
    let Some(&first) = floors.first() else {
        return Err(bad("", "no floor: every tile drawn is wall".into()));
    };
    let mut seen = BTreeSet::from([first]);
    let mut queue = VecDeque::from([first]);
    while let Some((x, y)) = queue.pop_front() {
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let n = (x + dx, y + dy);
            if floor(n.0, n.1) && seen.insert(n) {
                queue.push_back(n);
            }
        }
    }
    if seen.len() != floors.len() {
        let lost = floors.iter().find(|p| !seen.contains(p)).expect("some");
        return Err(bad(
            "",
            format!(
                "the floor is in pieces: tile ({}, {}) is cut off from tile ({}, {})",
                lost.0, lost.1, first.0, first.1
            ),
        ));
    }
    // Properties.
    let props = &data.properties;
    let text = |k: &str| props.get(k).map(Value::text);
    let list = |k: &str| -> Vec<String> {
        text(k)
            .map(|s| {
                s.split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let stem = stem(file);
    let number = |k: &str| -> Result<Option<f64>, TiledError> {
        match props.get(k) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(*n)),
            Some(Value::Text(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| bad("map properties: ", format!("`{k}` is `{s}`, not a number"))),
            Some(Value::Bool(_)) => Err(bad("map properties: ", format!("`{k}` is not a number"))),
        }
    };
    let mut transforms = Vec::new();
    for name in list("transforms") {
        let t: Transform = ron::from_str(&name).map_err(|_| {
            bad(
                "map properties: ",
                format!(
                    "`transforms`: `{name}` is not one of Identity, Rotate90, Rotate180, Rotate270, MirrorX, MirrorY, Diagonal13, Diagonal24"
                ),
            )
        })?;
        transforms.push(t);
    }
    if transforms.is_empty() {
        transforms.push(Transform::Identity);
    }
    let repeat = match text("repeat") {
        None => None,
        Some(r) => Some(ron::from_str::<RepeatMode>(r.trim()).map_err(|_| {
            bad(
                "map properties: ",
                format!("`repeat`: `{r}` is not AllowRepeat, NoImmediate or NoRepeat"),
            )
        })?),
    };
    let mut kinds = list("kinds");
    if kinds.is_empty() {
        kinds.push("Normal".into());
    }
    // Doors.
    let mut drawn: Vec<DrawnDoor> = Vec::new();
    for (layer, objects) in &data.object_layers {
        let door_layer = layer.eq_ignore_ascii_case("doors");
        for o in objects {
            if !(door_layer || o.class.eq_ignore_ascii_case("door")) {
                continue;
            }
            let place = format!("layer `{layer}`, object {}: ", o.id);
            drawn.push(read_door(o, data, &is_in, &place).map_err(|p| bad(&place, p))?);
        }
    }
    let sliding_length = number("door_length")?;
    let corner = number("corner_distance")?;
    let doors = match (drawn.is_empty(), sliding_length) {
        (false, Some(_)) => {
            return Err(bad(
                "map properties: ",
                "`door_length` (sliding doors) and door objects both given; use one".into(),
            ));
        }
        (true, None) => {
            return Err(bad(
                "",
                "no doors: add an object layer `doors` or the map property `door_length`".into(),
            ));
        }
        (true, Some(len)) => DoorMode::Sliding {
            length: len as i32,
            corner_distance: corner.unwrap_or(1.0) as i32,
            socket: text("socket"),
        },
        (false, None) => {
            // Each door must open onto floor: the cells just inside its wall cells.
            for d in &drawn {
                check_opens_onto_floor(d, &is_in, &floor).map_err(|p| bad(&d.place, p))?;
            }
            let flip = |(x, y): (i64, i64)| [x as i32, h as i32 - y as i32];
            if drawn.iter().any(|d| d.length.is_some()) {
                DoorMode::Lines(
                    drawn
                        .iter()
                        .map(|d| DoorLine {
                            from: flip(d.from),
                            to: flip(d.to),
                            length: d.length.unwrap_or_else(|| {
                                ((d.from.0 - d.to.0).abs() + (d.from.1 - d.to.1).abs()) as i32
                            }),
                            kind: d.kind,
                            socket: d.socket.clone(),
                        })
                        .collect(),
                )
            } else {
                DoorMode::Manual(
                    drawn
                        .iter()
                        .map(|d| DoorSpec {
                            from: flip(d.from),
                            to: flip(d.to),
                            kind: d.kind,
                            socket: d.socket.clone(),
                        })
                        .collect(),
                )
            }
        }
    };
    let rows: Vec<String> = (0..h as i64)
        .map(|y| {
            (0..w as i64)
                .map(|x| if is_in(x, y) { '#' } else { '.' })
                .collect()
        })
        .collect();
    let template = RoomTemplate {
        name: text("name").unwrap_or(stem),
        shape: TemplateShape::Cells(rows),
        doors,
        transforms,
        repeat,
        kinds,
        tags: list("tags"),
        weight: number("weight")?.unwrap_or(1.0),
    };
    template.compile(0).map_err(|e| bad("", e.problem))?;
    Ok(template)
}

/// The door an object draws (see the module docs).
fn read_door(
    o: &Object,
    data: &MapData,
    is_in: &dyn Fn(i64, i64) -> bool,
    place: &str,
) -> Result<DrawnDoor, String> {
    let (tw, th) = (data.tile_w, data.tile_h);
    // Corners of the picture grid, y down.
    let grid = |px: f64, py: f64| -> Result<(i64, i64), String> {
        let (gx, gy) = (px / tw, py / th);
        let (rx, ry) = (gx.round(), gy.round());
        if !(gx.is_finite() && gy.is_finite()) || (gx - rx).abs() > 0.01 || (gy - ry).abs() > 0.01 {
            return Err(format!(
                "({px}, {py}) is not on the tile grid; snap doors to the grid"
            ));
        }
        Ok((rx as i64, ry as i64))
    };
    // Whether the unit edge between corners `p` and `q` (one apart) separates an inside cell
    // from an outside one.
    let on_outline = |p: (i64, i64), q: (i64, i64)| -> bool {
        let (lo, hi) = (p.min(q), p.max(q));
        let (a, b) = if lo.1 == hi.1 {
            ((lo.0, lo.1 - 1), (lo.0, lo.1)) // cells above and below a horizontal edge
        } else {
            ((lo.0 - 1, lo.1), (lo.0, lo.1)) // cells left and right of a vertical edge
        };
        is_in(a.0, a.1) != is_in(b.0, b.1)
    };
    let segment_on_outline = |p: (i64, i64), q: (i64, i64)| -> bool {
        if p.0 != q.0 && p.1 != q.1 {
            return false;
        }
        let (lo, hi) = (p.min(q), p.max(q));
        let step = if lo.0 == hi.0 { (0, 1) } else { (1, 0) };
        let mut c = lo;
        let mut any = false;
        while c != hi {
            let n = (c.0 + step.0, c.1 + step.1);
            if !on_outline(c, n) {
                return false;
            }
            any = true;
            c = n;
        }
        any
    };
    let (from, to) = if let Some(line) = &o.polyline {
        if line.len() != 2 {
            return Err(format!(
                "a polyline of {} points; a door is a line of 2",
                line.len()
            ));
        }
        let p = grid(o.x + line[0].0, o.y + line[0].1)?;
        let q = grid(o.x + line[1].0, o.y + line[1].1)?;
        if !segment_on_outline(p, q) {
            return Err("the line does not lie along the room's outline".into());
        }
        (p, q)
    } else {
        if o.point {
            // A point inside a tile: the tile's sides on the outline.
            let (cx, cy) = ((o.x / tw).floor() as i64, (o.y / th).floor() as i64);
            if !is_in(cx, cy) {
                return Err(format!(
                    "the point is in tile ({cx}, {cy}), outside the room"
                ));
            }
            let sides = [
                ((cx, cy), (cx + 1, cy)),
                ((cx, cy + 1), (cx + 1, cy + 1)),
                ((cx, cy), (cx, cy + 1)),
                ((cx + 1, cy), (cx + 1, cy + 1)),
            ];
            let on: Vec<_> = sides.iter().filter(|(p, q)| on_outline(*p, *q)).collect();
            match on.as_slice() {
                [one] => **one,
                [] => return Err(format!("tile ({cx}, {cy}) is not on the outline")),
                _ => {
                    return Err(format!(
                        "tile ({cx}, {cy}) is a corner of the outline; mark the door with a line or rectangle"
                    ));
                }
            }
        } else {
            let (x0, y0) = grid(o.x, o.y)?;
            let (x1, y1) = grid(o.x + o.width, o.y + o.height)?;
            read_box((x0, y0), (x1, y1), &segment_on_outline)?
        }
    };
    let kind = match o.properties.get("kind").map(Value::text).as_deref() {
        None | Some("any") | Some("Any") => DoorKind::Any,
        Some("entrance") | Some("Entrance") => DoorKind::Entrance,
        Some("exit") | Some("Exit") => DoorKind::Exit,
        Some(other) => return Err(format!("`kind` is `{other}`, not entrance, exit or any")),
    };
    let length = match o.properties.get("length") {
        None => None,
        Some(Value::Number(n)) if *n >= 0.0 && n.fract() == 0.0 => Some(*n as i32),
        Some(v) => return Err(format!("`length` is `{}`, not a whole number", v.text())),
    };
    Ok(DrawnDoor {
        from,
        to,
        kind,
        socket: o.properties.get("socket").map(Value::text),
        length,
        place: place.to_string(),
    })
}

/// Whether every unit of a drawn door has floor just inside its wall cell.
fn check_opens_onto_floor(
    d: &DrawnDoor,
    is_in: &dyn Fn(i64, i64) -> bool,
    floor: &dyn Fn(i64, i64) -> bool,
) -> Result<(), String> {
    let (lo, hi) = (d.from.min(d.to), d.from.max(d.to));
    let horizontal = lo.1 == hi.1;
    let units: Vec<(i64, i64)> = if horizontal {
        (lo.0..hi.0.max(lo.0 + 1)).map(|x| (x, lo.1)).collect()
    } else {
        (lo.1..hi.1.max(lo.1 + 1)).map(|y| (lo.0, y)).collect()
    };
    for (x, y) in units {
        // The wall cell on the inside of the edge, and the cell past it.
        let (wall_cell, inward) = if horizontal {
            if is_in(x, y) {
                ((x, y), (x, y + 1))
            } else {
                ((x, y - 1), (x, y - 2))
            }
        } else if is_in(x, y) {
            ((x, y), (x + 1, y))
        } else {
            ((x - 1, y), (x - 2, y))
        };
        if !floor(inward.0, inward.1) {
            return Err(format!(
                "the door at tile ({}, {}) opens onto tile ({}, {}), which is not floor",
                wall_cell.0, wall_cell.1, inward.0, inward.1
            ));
        }
    }
    Ok(())
}

/// The door segment of a rectangle object from corner `(x0, y0)` to `(x1, y1)` (tiles, `y`
/// down): a rectangle of no width or height is the segment itself; a strip one tile thick
/// gives its side on the outline.
fn read_box(
    (x0, y0): (i64, i64),
    (x1, y1): (i64, i64),
    segment_on_outline: &dyn Fn((i64, i64), (i64, i64)) -> bool,
) -> Result<Segment, String> {
    if x0 == x1 || y0 == y1 {
        if !segment_on_outline((x0, y0), (x1, y1)) {
            return Err("the line does not lie along the room's outline".into());
        }
        return Ok(((x0, y0), (x1, y1)));
    }
    let mut candidates = Vec::new();
    if y1 - y0 == 1 {
        candidates.extend([((x0, y0), (x1, y0)), ((x0, y1), (x1, y1))]);
    }
    if x1 - x0 == 1 {
        candidates.extend([((x0, y0), (x0, y1)), ((x1, y0), (x1, y1))]);
    }
    if candidates.is_empty() {
        return Err(format!(
            "a rectangle {} x {} tiles; a door is a strip one tile thick",
            x1 - x0,
            y1 - y0
        ));
    }
    let on: Vec<_> = candidates
        .iter()
        .filter(|(p, q)| segment_on_outline(*p, *q))
        .collect();
    match on.as_slice() {
        [one] => Ok(**one),
        [] => Err("the rectangle does not lie along the room's outline".into()),
        _ => Err("the rectangle touches the outline on two sides; draw the door as a line".into()),
    }
}

/// Reads a set piece (see [`crate::tiles::setpiece`]) drawn in Tiled with levelplan's tileset
/// (`export::tiled::tileset_png`: tile `i` of the map's first tileset is [`crate::tiles::Tile::ALL`]`[i]`):
/// every tile drawn in a tile layer (a later layer's over an earlier one's) is the piece's,
/// an empty cell is transparent. The name is the map property `name`, else the file's stem.
pub fn set_piece_from_tmj(
    text: &str,
    file: &str,
) -> Result<crate::tiles::setpiece::SetPiece, TiledError> {
    let data = parse_tmj(text).map_err(located(file))?;
    to_set_piece(&data, file)
}

/// [`set_piece_from_tmj`] for a `.tmx` map.
pub fn set_piece_from_tmx(
    text: &str,
    file: &str,
) -> Result<crate::tiles::setpiece::SetPiece, TiledError> {
    let data = parse_tmx(text).map_err(located(file))?;
    to_set_piece(&data, file)
}

fn to_set_piece(
    data: &MapData,
    file: &str,
) -> Result<crate::tiles::setpiece::SetPiece, TiledError> {
    use crate::tiles::{Grid, Tile};
    let bad = |place: &str, problem: String| TiledError {
        file: file.into(),
        place: place.into(),
        problem,
    };
    let (w, h) = (data.width, data.height);
    let most = crate::tiles::setpiece::MAX_SIDE;
    if w == 0 || h == 0 || w > most || h > most {
        return Err(bad(
            "",
            format!("the map is {w} x {h} tiles; a set piece is 1 to {most} tiles a side"),
        ));
    }
    let first = data.tilesets.first().map_or(1, |t| t.0);
    let mut cells: Grid<Option<Tile>> = Grid::new(w, h, None);
    if data.tile_layers.is_empty() {
        return Err(bad("", "no tile layer: draw the set piece in one".into()));
    }
    for (name, gids) in &data.tile_layers {
        let place = format!("layer `{name}`: ");
        if gids.len() != w * h {
            return Err(bad(
                &place,
                format!("{} tiles for a {w} x {h} map", gids.len()),
            ));
        }
        for (i, &g) in gids.iter().enumerate() {
            let gid = g & GID_MASK;
            if gid == 0 {
                continue;
            }
            let tile = gid
                .checked_sub(first)
                .and_then(|k| Tile::ALL.get(k as usize))
                .ok_or_else(|| {
                    bad(
                        &place,
                        format!(
                            "tile ({}, {}) is gid {gid}, not one of levelplan's {} tiles (gids {first} to {})",
                            i % w,
                            i / w,
                            Tile::ALL.len(),
                            first as usize + Tile::ALL.len() - 1
                        ),
                    )
                })?;
            cells.set((i % w) as i64, (i / w) as i64, Some(*tile));
        }
    }
    let stem = stem(file);
    let name = data.properties.get("name").map(Value::text).unwrap_or(stem);
    crate::tiles::setpiece::SetPiece::new(name, cells).map_err(|p| bad("", p))
}
