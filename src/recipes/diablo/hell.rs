//! Hell (levels 13 to 16): one quadrant budded from a start room, joined to its mirror images by
//! corridors along its inner borders, mirrored four ways, then walls, doorways and stairs.
//!
//! 1. `first_room` in a 20 x 20 quadrant: a room of sides 2 to 6 biased towards the map's
//!    centre, then budding confined to the quadrant; row 0 and column 0 stay solid. Repeat
//!    until four times the quadrant's area reaches 692 cells.
//! 2. `inner_borders`: a corridor two cells wide from the quadrant's inner edge to its rooms,
//!    once along a row and once along a column, so the mirrored copies meet.
//! 3. The mirror: `(x, y)` also sets `(x, 39 - y)`, `(39 - x, y)` and `(39 - x, 39 - y)`.
//! 4. Marching squares into walls; dividing walls with doorways; themed rooms (not on level
//!    16); stairs; the lockout check.

use rand::Rng;

use super::{
    Dividers, Rect, Stage, StageError, add_walls, bud, close_edges, fill, finish_stage,
    place_stairs,
};
use crate::seed;
use crate::tiles::Grid;
use crate::tiles::convert::MarchingTable;
use crate::tiles::themes::{ThemeRooms, place_theme_rooms};

/// The quadrant's side.
pub const QUADRANT: usize = 20;

/// Four times the quadrant's carved area must reach this.
pub const AREA_THRESHOLD: usize = 692;

/// Generates Hell level `level` from `seed` (the `"hell"` sub-stream).
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::hell;
/// let stage = hell::generate(13, 7)?;
/// // The blank is the same in all four quadrants.
/// assert_eq!(stage.blank.get(3, 5), stage.blank.get(36, 34));
/// # Ok::<(), levelplan::recipes::diablo::StageError>(())
/// ```
pub fn generate(level: u32, seed: u64) -> Result<Stage, StageError> {
    generate_with(level, seed, &super::DiabloParams::default())
}

/// [`generate`] with parameters (the retry budget).
pub fn generate_with(
    level: u32,
    seed: u64,
    params: &super::DiabloParams,
) -> Result<Stage, StageError> {
    let mut rng = seed::stream(seed, "hell");
    let mut reason = String::new();
    const ATTEMPTS: u32 = 200;
    let mut made = 0;
    for attempt in params.retry_or(ATTEMPTS).attempts() {
        made = attempt;
        let mut quadrant = None;
        // A set piece asks for a first room its size (as the game's quest levels do).
        let least = params
            .set_piece
            .as_ref()
            .map_or(0, |p| p.width().max(p.height()) as i64 + 2);
        for _ in 0..1000 {
            let q = first_room(&mut rng, least);
            if q.values().iter().filter(|&&b| b).count() * 4 >= AREA_THRESHOLD {
                quadrant = Some(q);
                break;
            }
        }
        let Some(mut quadrant) = quadrant else {
            reason = format!("no quadrant reached {AREA_THRESHOLD} / 4 cells in 1000 tries");
            continue;
        };
        inner_borders(&mut quadrant, &mut rng);
        let blank = mirror(&quadrant);
        let mut tiles = MarchingTable::cathedral().convert(&blank);
        close_edges(&mut tiles);
        let mut protected = Grid::new(tiles.width(), tiles.height(), false);
        let mut piece =
            super::SetPiecePlacement::new(params.set_piece.as_ref(), tiles.width(), tiles.height());
        if let Err(r) = piece.place_free(&mut tiles, &mut protected, &mut rng) {
            reason = r;
            continue;
        }
        add_walls(&mut tiles, &mut protected, &mut rng, Dividers::Hell);
        // Themed rooms (none on level 16, Diablo's lair): 1 floor tile in 8 tried, 7 to 10 a
        // side, random size.
        if level != 16 {
            let themes = ThemeRooms {
                min: 7,
                max: 10,
                chance: 1.0 / 8.0,
                random_size: true,
            };
            place_theme_rooms(&mut tiles, &mut protected, &mut rng, themes);
        }
        match place_stairs(&mut tiles, &mut protected, &mut rng, &piece) {
            Ok(stairs) => {
                return Ok(finish_stage(
                    "hell", level, seed, attempt, blank, tiles, &protected, &mut rng, stairs,
                    &piece,
                ));
            }
            Err(r) => reason = r,
        }
    }
    Err(StageError::NoLevel {
        stage: "Hell",
        attempts: made,
        reason,
    })
}

/// A start room biased towards the quadrant's inner corner (at least `least` cells a side,
/// for a set piece), then budding inside the quadrant (never touching row 0 or column 0).
fn first_room<R: Rng + ?Sized>(rng: &mut R, least: i64) -> Grid<bool> {
    let q = QUADRANT as i64;
    let mut blank = Grid::new(QUADRANT, QUADRANT, false);
    let w = (2 + seed::below(rng, 5) as i64).max(least.min(q - 2));
    let h = (2 + seed::below(rng, 5) as i64).max(least.min(q - 2));
    let x = seed::range_inclusive(rng, ((q - w) / 2) as u32, (q - 1 - w) as u32) as i64;
    let y = seed::range_inclusive(rng, ((q - h) / 2) as u32, (q - 1 - h) as u32) as i64;
    let room: Rect = (x, y, w, h);
    fill(&mut blank, room);
    let vertical = seed::chance(rng, 0.5);
    bud(&mut blank, rng, room, vertical, 1);
    for i in 0..q {
        blank.set(i, 0, false);
        blank.set(0, i, false);
    }
    blank
}

/// Corridors two cells wide from the quadrant's inner edge (column 19, row 19) to its rooms:
/// one along a row whose first room cell (seen from the edge) has room below it but not below
/// to the right, one along a column likewise, each drawn from a random start to the next
/// such line.
fn inner_borders<R: Rng + ?Sized>(q: &mut Grid<bool>, rng: &mut R) {
    let n = QUADRANT as i64;
    let cell = |q: &Grid<bool>, x: i64, y: i64| q.get(x, y).copied().unwrap_or(false);
    for along_rows in [true, false] {
        // For line i (a row, or a column), the first room cell from the inner edge.
        let first = |q: &Grid<bool>, i: i64| -> Option<i64> {
            (0..n).rev().find(|&j| {
                if along_rows {
                    cell(q, j, i)
                } else {
                    cell(q, i, j)
                }
            })
        };
        let ok = |q: &Grid<bool>, i: i64| -> bool {
            first(q, i).is_some_and(|j| {
                if along_rows {
                    cell(q, j, i + 1) && !cell(q, j + 1, i + 1)
                } else {
                    cell(q, i + 1, j) && !cell(q, i + 1, j + 1)
                }
            })
        };
        let start = 1 + seed::below(rng, (n - 2) as u64) as i64;
        let line = (0..n - 2)
            .map(|k| 1 + (start - 1 + k) % (n - 2))
            .find(|&i| ok(q, i))
            .or_else(|| (1..n - 1).find(|&i| first(q, i).is_some()));
        let Some(i) = line else { continue };
        let mut j = n - 1;
        while j >= 0
            && !(if along_rows {
                cell(q, j, i)
            } else {
                cell(q, i, j)
            })
        {
            for k in [i, i + 1] {
                if along_rows {
                    q.set(j, k, true);
                } else {
                    q.set(k, j, true);
                }
            }
            j -= 1;
        }
    }
}

/// The quadrant mirrored into a full map: `(x, y)`, `(x, 39 - y)`, `(39 - x, y)`, `(39 - x,
/// 39 - y)`.
fn mirror(q: &Grid<bool>) -> Grid<bool> {
    let n = QUADRANT as i64;
    let mut full = Grid::new(QUADRANT * 2, QUADRANT * 2, false);
    for ((x, y), &v) in q.iter() {
        if v {
            let (x, y) = (x as i64, y as i64);
            for (mx, my) in [
                (x, y),
                (x, 2 * n - 1 - y),
                (2 * n - 1 - x, y),
                (2 * n - 1 - x, 2 * n - 1 - y),
            ] {
                full.set(mx, my, true);
            }
        }
    }
    full
}
