//! Levels as plain text, for a terminal: the tile map one character per tile, or for grid floor
//! plans (Isaac-style levels) one character per grid cell with the doors between cells.

use crate::graph::RoomKind;
use crate::tiles::Tile;
use crate::{Level, LevelDetail};

/// The level as text: a grid floor plan as its cells (see [`grid_to_ascii`]), any other level
/// with tiles as its tile map ([`crate::tiles::TileMap::to_ascii`]), a graph-only level as
/// nothing.
///
/// # Examples
/// ```
/// use levelplan::export::text::level_to_ascii;
/// use levelplan::recipes::isaac::IsaacRecipe;
/// use levelplan::Recipe;
/// let level = IsaacRecipe::new(1, Default::default()).generate(4)?;
/// let text = level_to_ascii(&level);
/// assert_eq!(text.matches('S').count(), 1, "one start room:\n{text}");
/// # Ok::<(), levelplan::RecipeError>(())
/// ```
pub fn level_to_ascii(level: &Level) -> String {
    grid_to_ascii(level)
        .or_else(|| sectors_to_ascii(level))
        .unwrap_or_else(|| level.tiles.to_ascii())
}

/// A sector level's tile map with what lies on it: `@` the start, `E` the exit switch, `k` a
/// key, `s` a switch, `t` a task; `H` for the tiles of a heavy door (2 or 3 cells wide). `None`
/// for levels of other recipes.
///
/// # Examples
/// ```
/// use levelplan::export::text::sectors_to_ascii;
/// use levelplan::recipes::sectors::{SectorParams, SectorRecipe};
/// use levelplan::Recipe;
/// let level = SectorRecipe::new(SectorParams::default())?.generate(2)?;
/// let text = sectors_to_ascii(&level).unwrap();
/// assert_eq!((text.matches('@').count(), text.matches('E').count()), (1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sectors_to_ascii(level: &Level) -> Option<String> {
    use crate::graph::Item;
    let LevelDetail::Sectors { connections, .. } = &level.detail else {
        return None;
    };
    let items = &level.items;
    let map = &level.tiles.tiles;
    let mut rows: Vec<Vec<char>> = (0..map.height())
        .map(|y| {
            (0..map.width())
                .map(|x| map.get(x as i64, y as i64).map_or(' ', |t| t.glyph()))
                .collect()
        })
        .collect();
    let mut mark = |(x, y): (usize, usize), c: char| {
        if let Some(cell) = rows.get_mut(y).and_then(|r| r.get_mut(x)) {
            *cell = c;
        }
    };
    for o in connections.iter().flat_map(|c| &c.openings) {
        if o.heavy() {
            for &(a, b) in &o.cells {
                mark(a, 'H');
                mark(b, 'H');
            }
        }
    }
    for placed in items {
        let c = match &placed.item {
            Item::Key(_) | Item::SmallKey(_) => 'k',
            Item::Switch(_) => 's',
            Item::Task(_) => 't',
            Item::Named(_) => 'E',
        };
        mark(placed.at, c);
    }
    if let Some(stairs) = level.stairs {
        mark(stairs.up, '@');
    }
    let mut out = String::new();
    for row in rows {
        out.push_str(row.iter().collect::<String>().trim_end());
        out.push('\n');
    }
    Some(out)
}

/// What the characters of [`level_to_ascii`] mean for this level's recipe, where they need
/// saying.
pub fn legend(level: &Level) -> Option<&'static str> {
    match &level.detail {
        LevelDetail::Isaac { .. } => Some(
            "S start, B boss, T treasure, $ shop, ? secret, * other special, # normal; - | doors, \
             = \" inside large rooms",
        ),
        LevelDetail::Diablo { .. } => Some(
            "< stairs up, > stairs down, D door, A arch, f fence, o pillar, i lamp, ~ lava, \
             = bridge; walls | - + * #",
        ),
        LevelDetail::Sectors { .. } => Some(
            "@ start, E exit switch, k key, s switch, t task; D door, H heavy door (a switch \
             opens it), w window, % secret wall, # wall, . floor",
        ),
        _ => None,
    }
}

/// A grid floor plan (an Isaac-style level) as one character per cell, by its room's kind
/// (`S` start, `B` boss, `T` treasure, `$` shop, `?` secret, `#` normal, `*` any other), with
/// `-` and `|` for a door between two rooms and `=` and `"` between two cells of one large
/// room. The doors are read from the tile map: a door tile in the middle of the shared side, so
/// the picture shows what the tiles hold. `None` for levels that are not grid floor plans.
pub fn grid_to_ascii(level: &Level) -> Option<String> {
    let LevelDetail::Isaac { size, rooms, .. } = &level.detail else {
        return None;
    };
    let (w, h) = *size;
    if w <= 0 || h <= 0 {
        return Some(String::new());
    }
    // The tiles of one cell: the map is the grid, cell by cell.
    let rw = (level.tiles.tiles.width() / w as usize) as i64;
    let rh = (level.tiles.tiles.height() / h as usize) as i64;
    let mut owner = vec![None; (w * h) as usize];
    let index = |(x, y): (i32, i32)| {
        ((1..=w).contains(&x) && (0..h).contains(&y)).then(|| (y * w + x - 1) as usize)
    };
    for (i, r) in rooms.iter().enumerate() {
        for &c in &r.cells {
            if let Some(at) = index(c) {
                owner[at] = Some(i);
            }
        }
    }
    let door_at = |x: i64, y: i64| {
        matches!(
            level.tiles.tiles.get(x, y),
            Some(Tile::Door | Tile::SecretDoor)
        )
    };
    let mut canvas = vec![vec![' '; (2 * w + 1) as usize]; (2 * h + 1) as usize];
    for (i, r) in rooms.iter().enumerate() {
        let glyph = match level.graph.room(r.room).map(|room| &room.kind) {
            Some(RoomKind::Entrance) => 'S',
            Some(RoomKind::Boss) => 'B',
            Some(RoomKind::Reward) => 'T',
            Some(RoomKind::Shop) => '$',
            Some(RoomKind::Secret) => '?',
            Some(RoomKind::Normal) => '#',
            _ => '*',
        };
        for &(x, y) in &r.cells {
            if index((x, y)).is_none() {
                continue;
            }
            canvas[(2 * y + 1) as usize][(2 * x - 1) as usize] = glyph;
            let (ox, oy) = ((x as i64 - 1) * rw, y as i64 * rh);
            // Right, then down.
            let sides = [
                (
                    (x + 1, y),
                    (2 * x, 2 * y + 1),
                    '=',
                    '-',
                    (ox + rw - 1, oy + rh / 2),
                ),
                (
                    (x, y + 1),
                    (2 * x - 1, 2 * y + 2),
                    '"',
                    '|',
                    (ox + rw / 2, oy + rh - 1),
                ),
            ];
            for (next, (cx, cy), inside, door, tile) in sides {
                let Some(other) = index(next).and_then(|at| owner[at]) else {
                    continue;
                };
                let mark = if other == i {
                    Some(inside)
                } else if door_at(tile.0, tile.1) {
                    Some(door)
                } else {
                    None
                };
                if let Some(m) = mark {
                    canvas[cy as usize][cx as usize] = m;
                }
            }
        }
    }
    let mut out = String::new();
    for row in canvas.iter().skip(1).take((2 * h - 1) as usize) {
        let line: String = row.iter().collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Some(out)
}
