//! The Caves (levels 9 to 12): ragged blocks grown from a seed block, smoothed, then lava pools
//! in enclosed rock, rivers of lava with bridges, fences, stairs.
//!
//! 1. A 3 x 3 seed block near the middle, then `create_block` in the four directions: blocks of
//!    3 or 4 (plus one) cells whose border cells are each floor with chance 1/2, each growing
//!    three more unless a 1-in-4 roll stops it.
//! 2. Smoothing: fill checkerboard diagonals, fill single holes, clear the last row and column.
//! 3. At least 600 floor cells, and every floor cell reachable (the lockout check), else start
//!    over.
//! 4. Marching squares into walls; stairs.
//! 5. Lava pools: rock regions enclosed by the cave (not touching the map's edge), of 5 to 40
//!    tiles, each with chance 1/4; at least one, else start over.
//! 6. Up to 4 rivers of lava: a walk over floor from beside a pool, at least 7 cells, ending at a
//!    wall, with one bridge across a straight stretch; kept only if the level stays in one piece.
//! 7. Themed rooms, then a few dividing fences with a gap.

use rand::Rng;

use super::{Dividers, Stage, StageError, add_walls, close_edges, finish_stage, place_stairs};
use crate::seed;
use crate::tiles::convert::MarchingTable;
use crate::tiles::regions::{find_regions, fully_connected};
use crate::tiles::themes::{ThemeRooms, place_theme_rooms};
use crate::tiles::{Grid, Tile};

/// The map's side.
pub const SIZE: usize = 40;

/// Fewest floor cells a level may have.
pub const MIN_FLOOR: usize = 600;

/// A river of lava: its cells in order and its bridge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct River {
    /// The cells, from its source.
    pub cells: Vec<(usize, usize)>,
    /// The bridge's cell.
    pub bridge: (usize, usize),
}

/// Generates Caves level `level` from `seed` (the `"caves"` sub-stream), with its rivers.
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::caves;
/// let (stage, rivers) = caves::generate(9, 4)?;
/// assert!(stage.tiles.tiles.values().contains(&levelplan::tiles::Tile::Lava));
/// for r in &rivers {
///     assert!(r.cells.contains(&r.bridge));
/// }
/// # Ok::<(), levelplan::recipes::diablo::StageError>(())
/// ```
pub fn generate(level: u32, seed: u64) -> Result<(Stage, Vec<River>), StageError> {
    generate_with(level, seed, &super::DiabloParams::default())
}

/// [`generate`] with parameters (the retry budget).
pub fn generate_with(
    level: u32,
    seed: u64,
    params: &super::DiabloParams,
) -> Result<(Stage, Vec<River>), StageError> {
    let mut rng = seed::stream(seed, "caves");
    let mut reason = String::new();
    // Blocks this ragged reach 600 floor cells in about one cave in twenty, and pass every
    // check in about one in a hundred; an attempt that fails early costs little.
    const ATTEMPTS: u32 = 5000;
    let mut made = 0;
    for attempt in params.retry_or(ATTEMPTS).attempts() {
        made = attempt;
        let square = params
            .set_piece
            .as_ref()
            .map_or(0, |p| p.width().max(p.height()) as i64 + 2);
        let blank = grow(&mut rng, square);
        let floor = blank.values().iter().filter(|&&b| b).count();
        if floor < MIN_FLOOR {
            reason = format!("the cave has {floor} floor cells, fewer than {MIN_FLOOR}");
            continue;
        }
        if find_regions(&bool_tiles(&blank), |t| t == Tile::Floor)
            .sizes
            .len()
            != 1
        {
            reason = "the cave is not in one piece (lockout)".into();
            continue;
        }
        let mut tiles = MarchingTable::cathedral().convert(&blank);
        close_edges(&mut tiles);
        if !lava_pools(&mut tiles, &mut rng) {
            reason = "no enclosed rock for a lava pool".into();
            continue;
        }
        let rivers = rivers(&mut tiles, &mut rng);
        let mut protected = Grid::new(SIZE, SIZE, false);
        // The set piece at a free spot that keeps the cave in one piece.
        let mut piece = super::SetPiecePlacement::new(params.set_piece.as_ref(), SIZE, SIZE);
        if let Err(r) = piece.place_free(&mut tiles, &mut protected, &mut rng) {
            reason = r;
            continue;
        }
        // Themed rooms: every floor tile tried, 5 to 10 a side, fixed size.
        let themes = ThemeRooms {
            min: 5,
            max: 10,
            chance: 1.0,
            random_size: false,
        };
        place_theme_rooms(&mut tiles, &mut protected, &mut rng, themes);
        add_walls(&mut tiles, &mut protected, &mut rng, Dividers::Caves);
        match place_stairs(&mut tiles, &mut protected, &mut rng, &piece) {
            Ok(stairs) => {
                let stage = finish_stage(
                    "caves", level, seed, attempt, blank, tiles, &protected, &mut rng, stairs,
                    &piece,
                );
                return Ok((stage, rivers));
            }
            Err(r) => reason = r,
        }
    }
    Err(StageError::NoLevel {
        stage: "Caves",
        attempts: made,
        reason,
    })
}

fn bool_tiles(blank: &Grid<bool>) -> Grid<Tile> {
    let mut g = Grid::new(blank.width(), blank.height(), Tile::Solid);
    for ((x, y), &b) in blank.iter() {
        if b {
            g.set(x as i64, y as i64, Tile::Floor);
        }
    }
    g
}

/// The seed block, the blocks grown from it, and the smoothing passes.
fn grow<R: Rng + ?Sized>(rng: &mut R, square: i64) -> Grid<bool> {
    let mut blank = Grid::new(SIZE, SIZE, false);
    let x1 = 10 + seed::below(rng, 20) as i64;
    let y1 = 10 + seed::below(rng, 20) as i64;
    fill_room(&mut blank, rng, (x1, y1, x1 + 2, y1 + 2));
    create_block(&mut blank, rng, (x1, y1), 2, 0);
    create_block(&mut blank, rng, (x1 + 2, y1), 2, 1);
    create_block(&mut blank, rng, (x1, y1 + 2), 2, 2);
    create_block(&mut blank, rng, (x1, y1), 2, 3);
    // A set piece's square of floor, as the game forces one for the anvil quest.
    if square > 0 {
        let most = SIZE as i64 - 2 - square;
        let x = (10 + seed::below(rng, 10) as i64).min(most).max(1);
        let y = (10 + seed::below(rng, 10) as i64).min(most).max(1);
        for py in y..y + square {
            for px in x..x + square {
                blank.set(px, py, true);
            }
        }
    }
    fill_diagonals(&mut blank, rng);
    fill_singles(&mut blank);
    fill_straights(&mut blank, rng);
    fill_diagonals(&mut blank, rng);
    for i in 0..SIZE as i64 {
        blank.set(SIZE as i64 - 1, i, false);
        blank.set(i, SIZE as i64 - 1, false);
    }
    blank
}

/// A block with inclusive corners: fails on the map's margins or over floor; else the inside
/// is floor and each border cell is floor with chance 1/2.
fn fill_room<R: Rng + ?Sized>(
    blank: &mut Grid<bool>,
    rng: &mut R,
    (x1, y1, x2, y2): (i64, i64, i64, i64),
) -> bool {
    if x1 <= 1 || x2 >= 34 || y1 <= 1 || y2 >= 38 {
        return false;
    }
    if (y1..=y2).any(|y| (x1..=x2).any(|x| blank.get(x, y) == Some(&true))) {
        return false;
    }
    for y in y1..=y2 {
        for x in x1..=x2 {
            let border = x == x1 || x == x2 || y == y1 || y == y2;
            if !border || seed::chance(rng, 0.5) {
                blank.set(x, y, true);
            }
        }
    }
    true
}

/// A block beside `(x, y)` in direction `dir` (0 north, 1 east, 2 south, 3 west), offset along
/// the shared edge by how its size compares with the parent's (`obs`); then, unless a 1-in-4
/// roll stops it, three more blocks from it (not back towards the parent).
fn create_block<R: Rng + ?Sized>(
    blank: &mut Grid<bool>,
    rng: &mut R,
    (x, y): (i64, i64),
    obs: i64,
    dir: u8,
) {
    let sx = 3 + seed::below(rng, 2) as i64;
    let sy = 3 + seed::below(rng, 2) as i64;
    let along = |rng: &mut R, origin: i64, size: i64| match size.cmp(&obs) {
        std::cmp::Ordering::Less => origin + seed::below(rng, size as u64) as i64,
        std::cmp::Ordering::Equal => origin,
        std::cmp::Ordering::Greater => origin - seed::below(rng, size as u64) as i64,
    };
    let (x1, y1) = match dir {
        0 => (along(rng, x, sx), y - 1 - sy),
        1 => (x + 1, along(rng, y, sy)),
        2 => (along(rng, x, sx), y + 1),
        _ => (x - 1 - sx, along(rng, y, sy)),
    };
    let (x2, y2) = (x1 + sx, y1 + sy);
    if !fill_room(blank, rng, (x1, y1, x2, y2)) || seed::below(rng, 4) == 0 {
        return;
    }
    if dir != 2 {
        create_block(blank, rng, (x1, y1), sx, 0);
    }
    if dir != 3 {
        create_block(blank, rng, (x2, y1), sy, 1);
    }
    if dir != 0 {
        create_block(blank, rng, (x1, y2), sx, 2);
    }
    if dir != 1 {
        create_block(blank, rng, (x1, y1), sy, 3);
    }
}

/// Any 2 x 2 window holding only two diagonal floor cells gets one of its empty cells filled.
fn fill_diagonals<R: Rng + ?Sized>(blank: &mut Grid<bool>, rng: &mut R) {
    let n = SIZE as i64;
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let c = |dx, dy| blank.get(x + dx, y + dy) == Some(&true);
            let (a, b, d, e) = (c(0, 0), c(1, 0), c(0, 1), c(1, 1));
            if a && e && !b && !d {
                if seed::chance(rng, 0.5) {
                    blank.set(x + 1, y, true)
                } else {
                    blank.set(x, y + 1, true)
                }
            } else if b && d && !a && !e {
                if seed::chance(rng, 0.5) {
                    blank.set(x, y, true)
                } else {
                    blank.set(x + 1, y + 1, true)
                }
            }
        }
    }
}

/// Roughens long straight edges: a run of more than 3 empty cells along floor (rock above
/// floor, floor above rock, rock left of floor, floor left of rock: four passes) is, with chance
/// 1/2, redrawn cell by cell, each cell floor with chance 1/2. Runs stop at index 37.
fn fill_straights<R: Rng + ?Sized>(blank: &mut Grid<bool>, rng: &mut R) {
    let n = SIZE as i64;
    // Edges across rows or across columns, and whether the rock cell comes first.
    for (vertical, rock_first) in [(false, true), (false, false), (true, true), (true, false)] {
        for j in 0..n - 1 {
            let mut run_start = 0;
            let mut run = 0;
            for i in 0..=37 {
                // The pair across the edge: (first, second) along the cross axis.
                let cell = |a: i64, k: i64| if vertical { (a, k) } else { (k, a) };
                let (first, second) = (cell(j, i), cell(j + 1, i));
                let (rock, floor) = if rock_first {
                    (first, second)
                } else {
                    (second, first)
                };
                let edge = i < 37
                    && blank.get(rock.0, rock.1) == Some(&false)
                    && blank.get(floor.0, floor.1) == Some(&true);
                if edge {
                    if run == 0 {
                        run_start = i;
                    }
                    run += 1;
                    continue;
                }
                if run > 3 && seed::chance(rng, 0.5) {
                    for k in run_start..i {
                        let c = if rock_first {
                            cell(j, k)
                        } else {
                            cell(j + 1, k)
                        };
                        blank.set(c.0, c.1, seed::chance(rng, 0.5));
                    }
                }
                run = 0;
            }
        }
    }
}

/// An empty cell whose eight neighbours are all floor becomes floor.
fn fill_singles(blank: &mut Grid<bool>) {
    let snapshot = blank.clone();
    for ((x, y), &v) in snapshot.iter() {
        let (x, y) = (x as i64, y as i64);
        let surrounded = (-1..=1).all(|dy| {
            (-1..=1).all(|dx| (dx == 0 && dy == 0) || snapshot.get(x + dx, y + dy) == Some(&true))
        });
        if !v && surrounded {
            blank.set(x, y, true);
        }
    }
}

/// Turns enclosed rock into lava: regions of rock and wall tiles that do not touch the map's
/// edge and hold 5 to 40 tiles, each with chance 1/4 (their rock becomes lava, their walls stay
/// as its banks). Returns whether any pool was made.
fn lava_pools<R: Rng + ?Sized>(tiles: &mut Grid<Tile>, rng: &mut R) -> bool {
    let rock = find_regions(tiles, |t| t == Tile::Solid || t.is_wall());
    let n = SIZE;
    let mut touches_edge = vec![false; rock.sizes.len()];
    for ((x, y), label) in rock.labels.iter() {
        if let Some(r) = label
            && (x == 0 || y == 0 || x == n - 1 || y == n - 1)
        {
            touches_edge[*r as usize] = true;
        }
    }
    let mut made = false;
    for (r, &size) in rock.sizes.iter().enumerate() {
        if touches_edge[r] || !(5..=40).contains(&size) || !seed::chance(rng, 0.25) {
            continue;
        }
        let mut any = false;
        for ((x, y), label) in rock.labels.iter() {
            if *label == Some(r as u32) && tiles.get(x as i64, y as i64) == Some(&Tile::Solid) {
                tiles.set(x as i64, y as i64, Tile::Lava);
                any = true;
            }
        }
        made |= any;
    }
    made
}

/// Up to four rivers of lava over the floor, from beside a lava pool's wall to another wall,
/// each with one bridge; a river that would cut the level apart is left out.
fn rivers<R: Rng + ?Sized>(tiles: &mut Grid<Tile>, rng: &mut R) -> Vec<River> {
    let mut out = Vec::new();
    let dirs = [(0i64, -1i64), (1, 0), (0, 1), (-1, 0)];
    let floor = |t: &Grid<Tile>, x: i64, y: i64| t.get(x, y) == Some(&Tile::Floor);
    // Sources: floor tiles next to a wall that touches lava.
    let near_lava = |t: &Grid<Tile>, x: i64, y: i64| {
        dirs.iter().any(|&(dx, dy)| {
            t.get(x + dx, y + dy).is_some_and(|w| w.is_wall())
                && dirs
                    .iter()
                    .any(|&(ex, ey)| t.get(x + dx + ex, y + dy + ey) == Some(&Tile::Lava))
        })
    };
    let sources: Vec<(i64, i64)> = tiles
        .iter()
        .map(|((x, y), _)| (x as i64, y as i64))
        .filter(|&(x, y)| floor(tiles, x, y) && near_lava(tiles, x, y))
        .collect();
    let mut tries = 0;
    while out.len() < 4 && tries < 200 && !sources.is_empty() {
        tries += 1;
        let (sx, sy) = sources[seed::index(rng, sources.len())];
        if !floor(tiles, sx, sy) {
            continue;
        }
        // The walk: a random turn or straight on, never back, over floor not yet in the river.
        let mut cells = vec![(sx, sy)];
        let mut dir = seed::index(rng, 4);
        while cells.len() < 100 {
            let (x, y) = *cells.last().expect("started");
            let mut options: Vec<usize> = (0..4).filter(|&d| d != (dir + 2) % 4).collect();
            seed::shuffle(rng, &mut options);
            let next = options.into_iter().find(|&d| {
                let (nx, ny) = (x + dirs[d].0, y + dirs[d].1);
                floor(tiles, nx, ny) && !cells.contains(&(nx, ny))
            });
            let Some(d) = next else { break };
            dir = d;
            cells.push((x + dirs[d].0, y + dirs[d].1));
        }
        let (ex, ey) = *cells.last().expect("started");
        let ends_at_wall = dirs
            .iter()
            .any(|&(dx, dy)| tiles.get(ex + dx, ey + dy).is_some_and(|t| t.is_wall()));
        if cells.len() < 7 || !ends_at_wall {
            continue;
        }
        // A bridge: a cell in a straight stretch, with floor on both sides across the flow.
        let candidates: Vec<usize> = (1..cells.len() - 1)
            .filter(|&i| {
                let (a, b, c) = (cells[i - 1], cells[i], cells[i + 1]);
                let straight = (a.0 == b.0 && b.0 == c.0) || (a.1 == b.1 && b.1 == c.1);
                let (cx, cy) = if a.0 == b.0 { (1, 0) } else { (0, 1) };
                straight
                    && floor(tiles, b.0 + cx, b.1 + cy)
                    && floor(tiles, b.0 - cx, b.1 - cy)
                    && !cells.contains(&(b.0 + cx, b.1 + cy))
                    && !cells.contains(&(b.0 - cx, b.1 - cy))
            })
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let bridge = cells[candidates[seed::index(rng, candidates.len())]];
        let before = tiles.clone();
        for &(x, y) in &cells {
            tiles.set(
                x,
                y,
                if (x, y) == bridge {
                    Tile::Bridge
                } else {
                    Tile::Lava
                },
            );
        }
        if !fully_connected(tiles, Tile::walkable) {
            *tiles = before;
            continue;
        }
        out.push(River {
            cells: cells
                .iter()
                .map(|&(x, y)| (x as usize, y as usize))
                .collect(),
            bridge: (bridge.0 as usize, bridge.1 as usize),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_straights_only_roughens_long_edges() {
        // A floor rectangle with long straight edges.
        let mut blank = Grid::new(SIZE, SIZE, false);
        for y in 10..20 {
            for x in 5..30 {
                blank.set(x, y, true);
            }
        }
        let mut changed_any = false;
        for s in 0..8 {
            let mut b = blank.clone();
            fill_straights(&mut b, &mut seed::stream(s, "test"));
            for ((x, y), &after) in b.iter() {
                let (x, y) = (x as i64, y as i64);
                let before = *blank.get(x, y).unwrap();
                assert!(!before || after, "seed {s}: floor ({x}, {y}) removed");
                changed_any |= after && !before;
            }
            // Each redrawn cell touched floor when it was drawn: the floor stays in one piece.
            let floor = b.values().iter().filter(|&&v| v).count();
            let mut seen = Grid::new(SIZE, SIZE, false);
            let mut stack = vec![(5i64, 10i64)];
            seen.set(5, 10, true);
            let mut reached = 1;
            while let Some((x, y)) = stack.pop() {
                for (dx, dy) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                    let (nx, ny) = (x + dx, y + dy);
                    if b.get(nx, ny) == Some(&true) && seen.get(nx, ny) == Some(&false) {
                        seen.set(nx, ny, true);
                        reached += 1;
                        stack.push((nx, ny));
                    }
                }
            }
            assert_eq!(reached, floor, "seed {s}: the floor fell apart");
        }
        assert!(changed_any, "no edge was roughened in 8 seeds");
    }
}
