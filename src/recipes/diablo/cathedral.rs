//! The Cathedral (levels 1 to 4): chambers and a hallway, rooms budded off them recursively,
//! marching squares into walls, dividing walls with doors, then the stairs.
//!
//! 1. Area threshold by level: 533, 693, then 761 cells.
//! 2. `first_room` until the blank reaches the threshold: one to three 10 x 10 chambers on a
//!    hallway (horizontal or vertical), then `bud` from every chamber.
//! 3. Marching squares ([`MarchingTable::cathedral`]) turn the blank into floor and the walls
//!    above and left of rooms; a fix pass walls the right and bottom edges.
//! 4. The chambers get their pillars and the hallway its arches; chambers are kept free of
//!    dividing walls.
//! 5. `add_walls`: straight dividing walls across the budded blobs, each with a door (or an
//!    arch; a quarter of them fences), so every part stays reachable.
//! 6. Stairs up and down as mini-sets on open floor; if either finds no place, or the level
//!    is not in one piece (the lockout check), start over.
//! 7. 5 to 9 lamps (`fixtures/tiles/minisets.ron`), each in the middle of a 3 x 3 of open floor
//!    so it never blocks a way; edge fixes and tile variants (1 in 4 walls, floors re-rolled).

use rand::Rng;

use super::{
    Dividers, Rect, SetPiecePlacement, Stage, StageError, add_walls, bud, close_edges, fill,
    finish_stage, place_stairs,
};
use crate::seed;
use crate::tiles::convert::MarchingTable;
use crate::tiles::{Grid, Tile};

/// The logical map's side (the game's 40 x 40).
pub const SIZE: usize = 40;

/// A chamber's side: the largest set piece the Cathedral takes.
pub const CHAMBER: usize = 10;

/// The blank's area threshold for a level: 533 on level 1, 693 on level 2, 761 after.
pub fn area_threshold(level: u32) -> usize {
    match level {
        0 | 1 => 533,
        2 => 693,
        _ => 761,
    }
}

/// Generates Cathedral level `level` (1 to 4) from `seed` (the `"cathedral"` sub-stream).
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::cathedral;
/// let stage = cathedral::generate(1, 7)?;
/// assert!(levelplan::graph::solve::solve(&stage.graph).is_ok());
/// println!("{}", stage.tiles.to_ascii());
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
    let mut rng = seed::stream(seed, "cathedral");
    let threshold = area_threshold(level);
    if let Some(p) = &params.set_piece
        && (p.width() > CHAMBER || p.height() > CHAMBER)
    {
        return Err(StageError::SetPiece {
            stage: "Cathedral",
            piece: p.name.clone(),
            reason: format!(
                "it is {} x {}; it goes into a chamber, {CHAMBER} x {CHAMBER}",
                p.width(),
                p.height()
            ),
        });
    }
    let mut reason = String::new();
    const ATTEMPTS: u32 = 200;
    let mut made = 0;
    for attempt in params.retry_or(ATTEMPTS).attempts() {
        made = attempt;
        // Step 2: bud until the blank is big enough (each try starts from nothing).
        let mut tries = 0;
        let (blank, chambers, hall) = loop {
            tries += 1;
            let (blank, chambers, hall) = first_room(&mut rng);
            let area = blank.values().iter().filter(|&&b| b).count();
            if area >= threshold || tries >= 1000 {
                break (blank, chambers, hall);
            }
        };
        if blank.values().iter().filter(|&&b| b).count() < threshold {
            reason = format!("no blank reached {threshold} cells in 1000 tries");
            continue;
        }
        // Step 3: marching squares, then wall the right and bottom edges.
        let mut tiles = MarchingTable::cathedral().convert(&blank);
        close_edges(&mut tiles);
        // Step 4: chambers and hallway.
        let mut protected = Grid::new(SIZE, SIZE, false);
        for &(x, y, w, h) in &chambers {
            for py in y..y + h {
                for px in x..x + w {
                    protected.set(px, py, true);
                }
            }
            for (dx, dy) in [(3, 3), (6, 3), (3, 6), (6, 6)] {
                tiles.set(x + dx, y + dy, Tile::Pillar);
            }
        }
        let (hx, hy, hw, hh) = hall;
        let vertical = hh > hw;
        for i in 0..hw.max(hh) {
            for off in [1, hw.min(hh) - 2] {
                let (px, py) = if vertical {
                    (hx + off, hy + i)
                } else {
                    (hx + i, hy + off)
                };
                if !protected.get(px, py).copied().unwrap_or(true)
                    && tiles.get(px, py) == Some(&Tile::Floor)
                {
                    tiles.set(px, py, Tile::Arch);
                }
            }
        }
        // The set piece, in the middle of a chamber (over its pillars).
        let mut piece = SetPiecePlacement::new(params.set_piece.as_ref(), SIZE, SIZE);
        if let Some((pw, ph)) = piece.size() {
            let (x, y, w, h) = chambers[seed::index(&mut rng, chambers.len())];
            let at = (
                (x + (w - pw as i64) / 2) as usize,
                (y + (h - ph as i64) / 2) as usize,
            );
            piece.stamp(&mut tiles, &mut protected, at);
        }
        // Step 5: dividing walls.
        add_walls(&mut tiles, &mut protected, &mut rng, Dividers::Cathedral);
        // Step 6: stairs, and the lockout check.
        match place_stairs(&mut tiles, &mut protected, &mut rng, &piece) {
            Ok(stairs) => {
                // Step 7: 5 to 9 lamps on open floor, then the fixes and variants.
                // Chambers were kept free of dividing walls; lamps may stand in them.
                for &(x, y, w, h) in &chambers {
                    for py in y..y + h {
                        for px in x..x + w {
                            if tiles.get(px, py) == Some(&Tile::Floor) && !piece.covers(px, py) {
                                protected.set(px, py, false);
                            }
                        }
                    }
                }
                let lamps = 5 + seed::below(&mut rng, 5) as usize;
                let lamp = super::miniset("lamp");
                for _ in 0..lamps {
                    lamp.place_once(&mut tiles, &mut protected, &mut rng, SIZE * SIZE);
                }
                return Ok(finish_stage(
                    "cathedral",
                    level,
                    seed,
                    attempt,
                    blank,
                    tiles,
                    &protected,
                    &mut rng,
                    stairs,
                    &piece,
                ));
            }
            Err(r) => reason = r,
        }
    }
    Err(StageError::NoLevel {
        stage: "Cathedral",
        attempts: made,
        reason,
    })
}

/// Chambers on a hallway, then rooms budded off the chambers. Returns the blank, the chambers
/// present and the hallway.
fn first_room<R: Rng + ?Sized>(rng: &mut R) -> (Grid<bool>, Vec<Rect>, Rect) {
    let mut blank = Grid::new(SIZE, SIZE, false);
    let vertical = seed::chance(rng, 0.5);
    let mut has = [
        seed::chance(rng, 0.5),
        seed::chance(rng, 0.5),
        seed::chance(rng, 0.5),
    ];
    if !has[0] || !has[2] {
        has[1] = true; // at least one chamber, and the hallway is never orphaned
    }
    let layout: [Rect; 3] = [(1, 15, 10, 10), (15, 15, 10, 10), (29, 15, 10, 10)];
    let (mut hx, hy, mut hw, hh) = (1, 17, 38, 6);
    if !has[0] {
        hx += 17;
        hw -= 17;
    }
    if !has[2] {
        hw -= 16;
    }
    let flip = |(x, y, w, h): Rect| if vertical { (y, x, h, w) } else { (x, y, w, h) };
    let chambers: Vec<Rect> = (0..3)
        .filter(|&i| has[i])
        .map(|i| flip(layout[i]))
        .collect();
    let hall = flip((hx, hy, hw, hh));
    for &r in chambers.iter().chain([&hall]) {
        fill(&mut blank, r);
    }
    for &c in &chambers {
        bud(&mut blank, rng, c, vertical, 0);
    }
    (blank, chambers, hall)
}
