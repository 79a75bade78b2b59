//! The game's view of a level: what a game spawns from the level's document alone.
//!
//! Every recipe that makes tiles fills the same fields of [`Level`], in tile coordinates
//! (`[x, y]`, column and row from the top left of [`Level::tiles`], the one convention of the
//! crate):
//!
//! - [`Level::start_tile`] and [`Level::goal_tile`]: where the player appears and what ends the
//!   level (the stairs on Diablo's stages, the exit switch on sector levels), walkable tiles of
//!   the `start` and `goal` rooms;
//! - [`Level::rooms`]: one [`RoomView`] per graph room that has tiles: its kind, the bounds of
//!   its tiles and floor tiles to spawn enemies and props on;
//! - [`Level::doors`]: one [`DoorView`] per passage (graph link) with every tile of its
//!   opening, its two rooms, its lock exactly as the graph has it and its one-way direction;
//! - [`Level::warps`]: one [`WarpView`] per warp link, a teleporter pad in each room;
//! - [`Level::items`]: every item of the graph's rooms on a floor tile of its room, never on a
//!   door, the start or stairs.
//!
//! The tile layer says the same: a locked door's tiles are [`Tile::LockedDoor`], a one-way
//! door's [`Tile::OneWayDoor`], a heavy door's [`Tile::HeavyDoor`], a secret door's
//! [`Tile::SecretDoor`], a warp's pads [`Tile::WarpPad`].
//!
//! ```
//! use levelplan::Recipe;
//! use levelplan::recipes::isaac::IsaacRecipe;
//!
//! let level = IsaacRecipe::new(2, Default::default()).generate(7)?;
//! let (x, y) = level.start_tile.expect("a level with tiles has a start tile");
//! assert_eq!(level.room_at(x, y), Some(level.start));
//! for door in &level.doors {
//!     // Each door joins the two rooms of its link, and its tiles are door tiles.
//!     assert_eq!(level.graph.endpoints(door.link).map(|(a, b)| [a, b]), Some(door.rooms));
//!     assert!(door.tiles.iter().all(|&(x, y)| level.tiles.tiles.get(x as i64, y as i64).unwrap().is_door()));
//! }
//! levelplan::view::check(&level)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`check`] is the same view read back against the level's graph and tiles: `levelplan
//! verify-level` runs it on every document with tiles.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::graph::{Item, LinkId, LinkKind, Lock, RoomId};
use crate::level::{Level, PlacedItem, TilePos};
use crate::seed;
use crate::tiles::{Grid, Tile};

/// At most this many spawn slots per room.
pub const MAX_SPAWN_SLOTS: usize = 12;

/// A room as a game sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomView {
    /// The graph room.
    pub room: RoomId,
    /// What a game switches on: the graph kind's name (`entrance`, `boss`, `secret`, ...; a
    /// custom kind's own name).
    pub kind: String,
    /// The bounds of the room's tiles, `[x, y, w, h]`.
    pub rect: [usize; 4],
    /// Floor tiles for enemies and props: clear of doors (no door tile among their eight
    /// neighbours), items, stairs, warp pads, the start and the goal. At most
    /// [`MAX_SPAWN_SLOTS`], drawn from the level's seed, in row order.
    pub spawn_slots: Vec<TilePos>,
}

/// What kind of passage a door is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DoorKind {
    /// A door (locked or one-way when its record says so).
    Plain,
    /// A hidden door, passable once found.
    Secret,
    /// A door two or three tiles wide that only a switch opens.
    Heavy,
    /// A window: look through, not pass.
    Window,
    /// An open archway: no door at all.
    Open,
}

/// A passage between two rooms, as a game spawns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoorView {
    /// The graph link.
    pub link: LinkId,
    /// The link's two rooms, `[from, to]` as the graph has them.
    pub rooms: [RoomId; 2],
    /// Every tile of the opening (for a corridor, the door tiles at both ends), in row order.
    pub tiles: Vec<TilePos>,
    /// The link's lock, exactly as the graph has it (`None`: unlocked).
    pub lock: Option<Lock>,
    /// For a one-way door, the room it lets the player into (the link's `to`).
    pub one_way_to: Option<RoomId>,
    /// What kind of passage it is.
    pub kind: DoorKind,
}

/// A warp link: a teleporter pad in each of its rooms, no door.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpView {
    /// The graph link.
    pub link: LinkId,
    /// The pads, in the link's `from` room and in its `to` room.
    pub tiles: [TilePos; 2],
}

/// A passage as a recipe knows it: its link, the tiles of its opening and its kind (the lock
/// and direction come from the graph).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Passage {
    pub link: LinkId,
    pub tiles: Vec<TilePos>,
    pub kind: DoorKind,
}

/// What a recipe hands [`attach`]: its passages, and what it placed itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct ViewParts {
    /// One per passable link that is not a warp.
    pub passages: Vec<Passage>,
    /// The start tile, if the recipe chose it (else the floor tile nearest the start room's
    /// middle).
    pub start_tile: Option<TilePos>,
    /// The goal tile, likewise.
    pub goal_tile: Option<TilePos>,
    /// The items, if the recipe placed them (else each on a floor tile of its room away from
    /// doors, drawn from the level's seed).
    pub items: Option<Vec<PlacedItem>>,
    /// Boxes `[x0, y0, x1, y1]` (inclusive) holding every tile of each room, if the recipe
    /// knows them: only they are scanned (else the whole map). A sparse map (an Isaac floor)
    /// is mostly rock.
    pub room_boxes: Option<Vec<(RoomId, [usize; 4])>>,
}

/// Fills `level`'s game view from `parts`, and marks door kinds and warp pads on its tiles.
/// The level's graph, tiles, rooms of regions, seed, start and goal must be set.
pub(crate) fn attach(level: &mut Level, parts: ViewParts) {
    let mut rng = seed::stream(level.seed, "game view");
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    // Doors, and their kinds on the tiles.
    let mut doors: Vec<DoorView> = parts
        .passages
        .into_iter()
        .filter_map(|p| {
            let (a, b) = level.graph.endpoints(p.link)?;
            let link = level.graph.link(p.link)?;
            let mut tiles = p.tiles;
            tiles.sort_by_key(|&(x, y)| (y, x));
            tiles.dedup();
            let one_way_to = (link.kind == LinkKind::OneWay).then_some(b);
            // An archway that is locked or one-way is a door.
            let gated = link.lock.is_some() || one_way_to.is_some();
            let kind = match p.kind {
                DoorKind::Open if gated => DoorKind::Plain,
                kind => kind,
            };
            Some(DoorView {
                link: p.link,
                rooms: [a, b],
                tiles,
                lock: link.lock,
                one_way_to,
                kind,
            })
        })
        .collect();
    doors.sort_by_key(|d| d.link);
    for d in &doors {
        let tile = door_tile(d);
        for &(x, y) in &d.tiles {
            if level
                .tiles
                .tiles
                .get(x as i64, y as i64)
                .is_some_and(|t| (t.is_door() || *t == Tile::Arch) && *t != tile)
            {
                level.tiles.tiles.set(x as i64, y as i64, tile);
                // A variant is a picture of the tile it was drawn for.
                level.tiles.variants.set(x as i64, y as i64, 0);
            }
        }
    }
    // Each region's room, as a slot in the list of rooms with tiles (rooms in id order).
    let mut with_tiles: Vec<RoomId> = level.region_rooms.iter().flatten().copied().collect();
    with_tiles.sort();
    with_tiles.dedup();
    let region_slot: Vec<Option<usize>> = level
        .region_rooms
        .iter()
        .map(|r| r.and_then(|r| with_tiles.binary_search(&r).ok()))
        .collect();
    // One pass over the map, row by row: the tiles next to doors, the stairs, each room's
    // floor (in row order) and bounds.
    let mut near_door = vec![false; w * h];
    let mut taken = Grid::new(w, h, false);
    let mut floor_of: Vec<Vec<TilePos>> = vec![Vec::new(); with_tiles.len()];
    let mut bounds_of: Vec<Option<[usize; 4]>> = vec![None; with_tiles.len()];
    let cells = level.tiles.tiles.values();
    let regions = level.tiles.regions.values();
    let slot_at =
        |i: usize| regions[i].and_then(|r| region_slot.get(r as usize).copied().flatten());
    // Room for each room's floor up front: its box, where the boxes are known.
    for &(room, [x0, y0, x1, y1]) in parts.room_boxes.iter().flatten() {
        if let Ok(slot) = with_tiles.binary_search(&room) {
            let area = (x1.saturating_sub(x0) + 1) * (y1.saturating_sub(y0) + 1);
            floor_of[slot].reserve(area.min(w * h));
        }
    }
    let mut visit = |x: usize, y: usize, slot: usize| {
        let b = bounds_of[slot].get_or_insert([x, y, x, y]);
        *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        match cells[y * w + x] {
            Tile::Floor => floor_of[slot].push((x, y)),
            // Stairs are never taken by items or slots.
            Tile::StairsUp | Tile::StairsDown => flag(&mut taken, (x, y)),
            t if t.is_door() || t == Tile::Arch => mark_around(&mut near_door, (w, h), (x, y)),
            _ => {}
        }
    };
    match &parts.room_boxes {
        // Each room's box, its own tiles only (boxes may overlap).
        Some(boxes) if w > 0 && h > 0 => {
            for &(room, [x0, y0, x1, y1]) in boxes {
                let Ok(want) = with_tiles.binary_search(&room) else {
                    continue;
                };
                for y in y0..=y1.min(h - 1) {
                    for x in x0..=x1.min(w - 1) {
                        if slot_at(y * w + x) == Some(want) {
                            visit(x, y, want);
                        }
                    }
                }
            }
        }
        _ => {
            for y in 0..h {
                for x in 0..w {
                    if let Some(slot) = slot_at(y * w + x) {
                        visit(x, y, slot);
                    }
                }
            }
        }
    }
    // Door tiles are their records' (arches of no record are their rooms' tiles, above).
    for d in &doors {
        for &p in &d.tiles {
            mark_around(&mut near_door, (w, h), p);
        }
    }
    let floor: BTreeMap<RoomId, Vec<TilePos>> = with_tiles
        .iter()
        .copied()
        .zip(floor_of)
        .filter(|(_, f)| !f.is_empty())
        .collect();
    let bounds: BTreeMap<RoomId, [usize; 4]> = with_tiles
        .iter()
        .copied()
        .zip(bounds_of)
        .filter_map(|(r, b)| Some((r, b?)))
        .collect();
    let calm = |p: &TilePos| !near_door[p.1 * w + p.0];
    let middle = |room: RoomId, taken: &Grid<bool>| -> Option<TilePos> {
        let tiles = floor.get(&room)?;
        let n = tiles.len() as i64;
        let (sx, sy) = tiles.iter().fold((0i64, 0i64), |(sx, sy), &(x, y)| {
            (sx + x as i64, sy + y as i64)
        });
        let d = |&(x, y): &TilePos| (x as i64 * n - sx).abs() + (y as i64 * n - sy).abs();
        let best = |pool: &mut dyn Iterator<Item = &TilePos>| pool.min_by_key(|p| d(p)).copied();
        best(&mut tiles.iter().filter(|p| calm(p) && !flagged(taken, p)))
            .or_else(|| best(&mut tiles.iter().filter(|p| !flagged(taken, p))))
    };
    let start_tile = parts.start_tile.or_else(|| middle(level.start, &taken));
    start_tile.into_iter().for_each(|p| flag(&mut taken, p));
    let goal_tile = parts.goal_tile.or_else(|| middle(level.goal, &taken));
    goal_tile.into_iter().for_each(|p| flag(&mut taken, p));
    let pick = |room: RoomId, taken: &mut Grid<bool>, rng: &mut crate::LevelRng| {
        let tiles = floor.get(&room)?;
        let free: Vec<TilePos> = tiles
            .iter()
            .copied()
            .filter(|p| !flagged(taken, p))
            .collect();
        let quiet: Vec<TilePos> = free.iter().copied().filter(calm).collect();
        let pool = if quiet.is_empty() { &free } else { &quiet };
        if pool.is_empty() {
            return None;
        }
        let at = pool[seed::index(rng, pool.len())];
        flag(taken, at);
        Some(at)
    };
    // Warp pads.
    let mut warps = Vec::new();
    let warp_links: Vec<(LinkId, RoomId, RoomId)> = level
        .graph
        .links()
        .filter(|(_, _, _, l)| l.kind == LinkKind::Warp)
        .map(|(id, a, b, _)| (id, a, b))
        .collect();
    for (link, a, b) in warp_links {
        if let (Some(pa), Some(pb)) = (pick(a, &mut taken, &mut rng), pick(b, &mut taken, &mut rng))
        {
            for (x, y) in [pa, pb] {
                level.tiles.tiles.set(x as i64, y as i64, Tile::WarpPad);
                level.tiles.variants.set(x as i64, y as i64, 0);
            }
            warps.push(WarpView {
                link,
                tiles: [pa, pb],
            });
        }
    }
    // Items.
    let items = match parts.items {
        Some(items) => {
            items.iter().for_each(|i| flag(&mut taken, i.at));
            items
        }
        None => {
            let mut items = Vec::new();
            let graph_items: Vec<(RoomId, Item)> = level
                .graph
                .rooms()
                .flat_map(|(id, room)| room.items.iter().map(move |i| (id, i.clone())))
                .collect();
            for (room, item) in graph_items {
                if let Some(at) = pick(room, &mut taken, &mut rng) {
                    items.push(PlacedItem { at, room, item });
                }
            }
            items
        }
    };
    // Rooms and their spawn slots.
    let rooms = bounds
        .iter()
        .map(|(&room, b)| {
            let tiles = floor.get(&room).map_or(&[][..], |t| &t[..]);
            let mut slots: Vec<TilePos> = Vec::with_capacity(tiles.len());
            slots.extend(
                tiles
                    .iter()
                    .copied()
                    .filter(|p| calm(p) && !flagged(&taken, p)),
            );
            // A uniform choice of `want` of them: the first steps of a Fisher-Yates shuffle.
            let want = (slots.len() / 8).clamp(slots.len().min(1), MAX_SPAWN_SLOTS);
            for i in 0..want {
                let j = i + seed::index(&mut rng, slots.len() - i);
                slots.swap(i, j);
            }
            slots.truncate(want);
            slots.sort_by_key(|&(x, y)| (y, x));
            RoomView {
                room,
                kind: level
                    .graph
                    .room(room)
                    .map(|r| r.kind.name().to_string())
                    .unwrap_or_default(),
                rect: [b[0], b[1], b[2] - b[0] + 1, b[3] - b[1] + 1],
                spawn_slots: slots,
            }
        })
        .collect();
    level.start_tile = start_tile;
    level.goal_tile = goal_tile;
    level.rooms = rooms;
    level.doors = doors;
    level.warps = warps;
    level.items = items;
}

/// Whether `p` is flagged in `set` (outside it: no).
fn flagged(set: &Grid<bool>, &(x, y): &TilePos) -> bool {
    set.get(x as i64, y as i64) == Some(&true)
}

/// Flags `p` in `set` (outside it: nothing).
fn flag(set: &mut Grid<bool>, (x, y): TilePos) {
    set.set(x as i64, y as i64, true);
}

/// Marks the tiles around `(x, y)`, itself included, in the row-major `near` of a `w` x `h`
/// map.
fn mark_around(near: &mut [bool], (w, h): (usize, usize), (x, y): TilePos) {
    for ny in y.saturating_sub(1)..(y + 2).min(h) {
        near[ny * w + x.saturating_sub(1)..ny * w + (x + 2).min(w)].fill(true);
    }
}

/// Builds `level`'s game view again from its own door records (their tiles and kinds),
/// placing the start, goal, items and warp pads afresh: the work a recipe's generation does to
/// attach the view, for the game-view benchmark (`benches/game_view.rs`). Not for games: the
/// view the recipe made is the one to use.
#[doc(hidden)]
pub fn reattach(level: &mut Level) {
    let passages = level
        .doors
        .iter()
        .map(|d| Passage {
            link: d.link,
            tiles: d.tiles.clone(),
            kind: d.kind,
        })
        .collect();
    // The boxes the Isaac recipe hands over are its rooms' tile bounds.
    let room_boxes = matches!(level.detail, crate::LevelDetail::Isaac { .. }).then(|| {
        level
            .rooms
            .iter()
            .map(|r| {
                let [x, y, w, h] = r.rect;
                (r.room, [x, y, x + w - 1, y + h - 1])
            })
            .collect()
    });
    let parts = ViewParts {
        passages,
        room_boxes,
        ..ViewParts::default()
    };
    attach(level, parts);
}

/// A room as messages say it, or `none`.
fn room_words(room: Option<RoomId>) -> String {
    room.map_or_else(|| "none".into(), |r| r.to_string())
}

/// A lock as messages say it, or `none`.
fn lock_words(lock: Option<&Lock>) -> String {
    lock.map_or_else(|| "none".into(), |l| l.to_string())
}

/// The tile a door record's tiles show.
fn door_tile(d: &DoorView) -> Tile {
    match d.kind {
        DoorKind::Secret => Tile::SecretDoor,
        DoorKind::Heavy => Tile::HeavyDoor,
        DoorKind::Window => Tile::Window,
        DoorKind::Open => Tile::Arch,
        DoorKind::Plain if d.one_way_to.is_some() => Tile::OneWayDoor,
        DoorKind::Plain if d.lock.is_some() => Tile::LockedDoor,
        DoorKind::Plain => Tile::Door,
    }
}

/// A game view that does not match its level: the field and the record that is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {subject}: {problem}")]
pub struct ViewError {
    /// The document's field (`start_tile`, `doors`, `items`, ...).
    pub field: &'static str,
    /// The record (`link l3`, `room r2`, ...).
    pub subject: String,
    /// What is wrong.
    pub problem: String,
}

fn fail<T>(
    field: &'static str,
    subject: impl ToString,
    problem: impl Into<String>,
) -> Result<T, ViewError> {
    Err(ViewError {
        field,
        subject: subject.to_string(),
        problem: problem.into(),
    })
}

/// Checks a level's game view against its graph and its tiles: the start and goal tiles are
/// walkable tiles of the start and goal rooms; every passable link has exactly one door
/// record (or, a warp, one warp record) with the link's rooms, lock and direction; a door's
/// tiles are door tiles of its kind whose walkable neighbours are of its two rooms or of no
/// room; every item of the graph lies on a floor tile of its room, off doors, stairs and the
/// start; every room with tiles has its record, with the bounds of its tiles and spawn slots
/// on its free floor. A level without tiles (a flow's graph only) must have an empty view.
///
/// # Errors
/// The first [`ViewError`] found, naming the field and the room or link.
pub fn check(level: &Level) -> Result<(), ViewError> {
    let map = &level.tiles;
    let tile = |p: TilePos| map.tiles.get(p.0 as i64, p.1 as i64).copied();
    if map.tiles.width() == 0 || map.tiles.height() == 0 {
        if level.start_tile.is_some()
            || level.goal_tile.is_some()
            || !level.rooms.is_empty()
            || !level.doors.is_empty()
            || !level.warps.is_empty()
            || !level.items.is_empty()
        {
            return fail("tiles", "the level", "has no tiles but a game view");
        }
        return Ok(());
    }
    // Start and goal.
    for (field, at, room) in [
        ("start_tile", level.start_tile, level.start),
        ("goal_tile", level.goal_tile, level.goal),
    ] {
        let Some(p) = at else {
            return fail(field, format!("room {room}"), "missing");
        };
        if !tile(p).is_some_and(Tile::walkable) {
            return fail(
                field,
                format!("room {room}"),
                format!("{p:?} is not a walkable tile"),
            );
        }
        if level.room_at(p.0, p.1) != Some(room) {
            return fail(
                field,
                format!("room {room}"),
                format!("{p:?} is not a tile of {room}"),
            );
        }
    }
    // Doors: one per passable link that is not a warp.
    let mut door_of: BTreeMap<TilePos, LinkId> = BTreeMap::new();
    let mut seen: BTreeSet<LinkId> = BTreeSet::new();
    for d in &level.doors {
        let subject = format!("link {}", d.link);
        let Some(link) = level.graph.link(d.link) else {
            return fail("doors", subject, "not a link of the graph");
        };
        if !seen.insert(d.link) {
            return fail("doors", subject, "has two door records");
        }
        let (a, b) = level.graph.endpoints(d.link).expect("a link has ends");
        if d.rooms != [a, b] {
            return fail(
                "doors",
                subject,
                format!(
                    "rooms are {:?}, the graph's link joins {a} and {b}",
                    d.rooms
                ),
            );
        }
        if d.lock != link.lock {
            return fail(
                "doors",
                subject,
                format!(
                    "lock is {}, the graph's is {}",
                    lock_words(d.lock.as_ref()),
                    lock_words(link.lock.as_ref())
                ),
            );
        }
        let one_way = (link.kind == LinkKind::OneWay).then_some(b);
        if d.one_way_to != one_way {
            return fail(
                "doors",
                subject,
                format!(
                    "one_way_to is {}, the graph says {}",
                    room_words(d.one_way_to),
                    room_words(one_way)
                ),
            );
        }
        if link.kind == LinkKind::Warp {
            return fail("doors", subject, "is a warp link: it belongs in `warps`");
        }
        if d.tiles.is_empty() {
            return fail("doors", subject, "has no tiles");
        }
        let want = door_tile(d);
        for &p in &d.tiles {
            if tile(p) != Some(want) {
                return fail(
                    "doors",
                    subject,
                    format!(
                        "tile {p:?} is {:?}, a {:?} door's tiles are {want:?}",
                        tile(p),
                        d.kind
                    ),
                );
            }
            if let Some(other) = door_of.insert(p, d.link) {
                return fail(
                    "doors",
                    subject,
                    format!("tile {p:?} is also a tile of link {other}"),
                );
            }
            if let Some(r) = level.room_at(p.0, p.1)
                && r != a
                && r != b
            {
                return fail(
                    "doors",
                    subject,
                    format!("tile {p:?} lies in {r}, not in {a} or {b}"),
                );
            }
        }
    }
    for (id, _, _, link) in level.graph.links() {
        let wanted = link.kind.is_passable() && link.kind != LinkKind::Warp;
        if wanted && !seen.contains(&id) {
            return fail(
                "doors",
                format!("link {id}"),
                "a passable link of the graph has no door record",
            );
        }
    }
    // What each door tile touches: walkable tiles of its rooms, of no room, or its own.
    for d in &level.doors {
        let [a, b] = d.rooms;
        for &(x, y) in &d.tiles {
            for (dx, dy) in [(0i64, -1i64), (0, 1), (-1, 0), (1, 0)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx < 0 || ny < 0 || !map.tiles.get(nx, ny).is_some_and(|t| t.walkable()) {
                    continue;
                }
                let q = (nx as usize, ny as usize);
                if let Some(&other) = door_of.get(&q) {
                    if other != d.link {
                        return fail(
                            "doors",
                            format!("link {}", d.link),
                            format!("tile {:?} touches a tile of link {other}", (x, y)),
                        );
                    }
                    continue;
                }
                if let Some(r) = level.room_at(q.0, q.1)
                    && r != a
                    && r != b
                {
                    return fail(
                        "doors",
                        format!("link {}", d.link),
                        format!(
                            "tile {:?} touches {r}, which the link does not join",
                            (x, y)
                        ),
                    );
                }
            }
        }
    }
    // Every door tile on the map belongs to a record.
    for ((x, y), t) in map.tiles.iter() {
        if t.is_door() && !door_of.contains_key(&(x, y)) {
            return fail(
                "doors",
                format!("tile {:?}", (x, y)),
                format!("a {t:?} tile of no door record"),
            );
        }
    }
    // Warps.
    let mut warp_seen = BTreeSet::new();
    for wv in &level.warps {
        let subject = format!("link {}", wv.link);
        let Some((a, b)) = level.graph.endpoints(wv.link) else {
            return fail("warps", subject, "not a link of the graph");
        };
        if level.graph.link(wv.link).map(|l| l.kind) != Some(LinkKind::Warp) {
            return fail("warps", subject, "not a warp link");
        }
        if !warp_seen.insert(wv.link) {
            return fail("warps", subject, "has two warp records");
        }
        for (p, room) in wv.tiles.into_iter().zip([a, b]) {
            if tile(p) != Some(Tile::WarpPad) || level.room_at(p.0, p.1) != Some(room) {
                return fail(
                    "warps",
                    subject,
                    format!("{p:?} is not a warp pad of {room}"),
                );
            }
        }
    }
    for (id, _, _, link) in level.graph.links() {
        if link.kind == LinkKind::Warp && !warp_seen.contains(&id) {
            return fail(
                "warps",
                format!("link {id}"),
                "a warp link of the graph has no warp record",
            );
        }
    }
    // Items: the graph's, each once, on its room's floor.
    let mut wanted: BTreeMap<(RoomId, String), usize> = BTreeMap::new();
    for (id, room) in level.graph.rooms() {
        for item in &room.items {
            *wanted.entry((id, format!("{item:?}"))).or_default() += 1;
        }
    }
    let mut on_tile = BTreeSet::new();
    for placed in &level.items {
        let subject = format!("room {}", placed.room);
        let key = (placed.room, format!("{:?}", placed.item));
        match wanted.get_mut(&key) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                return fail(
                    "items",
                    subject,
                    format!(
                        "{} is not an item of the room in the graph (or is listed twice)",
                        placed.item
                    ),
                );
            }
        }
        let p = placed.at;
        if tile(p) != Some(Tile::Floor) || level.room_at(p.0, p.1) != Some(placed.room) {
            return fail(
                "items",
                subject,
                format!("{} at {p:?} is not on the room's floor", placed.item),
            );
        }
        if Some(p) == level.start_tile {
            return fail(
                "items",
                subject,
                format!("{} lies on the start tile", placed.item),
            );
        }
        if !on_tile.insert(p) {
            return fail(
                "items",
                subject,
                format!("{} shares the tile {p:?} with another item", placed.item),
            );
        }
    }
    if let Some(((room, item), _)) = wanted.iter().find(|(_, n)| **n > 0) {
        return fail(
            "items",
            format!("room {room}"),
            format!("{item} of the graph has no place on the tiles"),
        );
    }
    // Rooms.
    let mut bounds: BTreeMap<RoomId, [usize; 4]> = BTreeMap::new();
    for ((x, y), _) in map.tiles.iter() {
        if let Some(room) = level.room_at(x, y) {
            let b = bounds.entry(room).or_insert([x, y, x, y]);
            *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        }
    }
    let mut room_seen = BTreeSet::new();
    for r in &level.rooms {
        let subject = format!("room {}", r.room);
        let Some(b) = bounds.get(&r.room) else {
            return fail("rooms", subject, "has no tiles");
        };
        if !room_seen.insert(r.room) {
            return fail("rooms", subject, "has two records");
        }
        let rect = [b[0], b[1], b[2] - b[0] + 1, b[3] - b[1] + 1];
        if r.rect != rect {
            return fail(
                "rooms",
                subject,
                format!("rect is {:?}, its tiles span {rect:?}", r.rect),
            );
        }
        let kind = level
            .graph
            .room(r.room)
            .map(|room| room.kind.name().to_string());
        if kind.as_deref() != Some(r.kind.as_str()) {
            return fail(
                "rooms",
                subject,
                format!("kind is {:?}, the graph's is {kind:?}", r.kind),
            );
        }
        for &p in &r.spawn_slots {
            if tile(p) != Some(Tile::Floor) || level.room_at(p.0, p.1) != Some(r.room) {
                return fail(
                    "rooms",
                    subject,
                    format!("spawn slot {p:?} is not on the room's floor"),
                );
            }
            if on_tile.contains(&p) || Some(p) == level.start_tile || Some(p) == level.goal_tile {
                return fail(
                    "rooms",
                    subject,
                    format!("spawn slot {p:?} is taken by an item, the start or the goal"),
                );
            }
            let near = (-1i64..=1).any(|dy| {
                (-1i64..=1).any(|dx| {
                    map.tiles
                        .get(p.0 as i64 + dx, p.1 as i64 + dy)
                        .is_some_and(|t| t.is_door() || *t == Tile::Arch)
                })
            });
            if near {
                return fail(
                    "rooms",
                    subject,
                    format!("spawn slot {p:?} is next to a door"),
                );
            }
        }
    }
    if let Some(room) = bounds.keys().find(|r| !room_seen.contains(r)) {
        return fail(
            "rooms",
            format!("room {room}"),
            "a room with tiles has no record",
        );
    }
    Ok(())
}
