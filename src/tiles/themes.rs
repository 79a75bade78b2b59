//! Themed rooms: small areas enclosed by wall with one door, found in a level or stamped into
//! open floor.

use rand::Rng;

use super::regions::Regions;
use super::{Grid, Tile};
use crate::seed;

/// Regions that can serve as themed rooms as they are: between `min` and `max` tiles, without
/// stairs, entered only through doors (every walkable tile beside them, diagonals included, is
/// theirs or a door), with at least one door.
///
/// # Complexity
/// `O(W · H)`.
pub fn enclosed_regions(tiles: &Grid<Tile>, regions: &Regions, min: usize, max: usize) -> Vec<u32> {
    let n = regions.sizes.len();
    let mut ok = vec![true; n];
    let mut doors = vec![0usize; n];
    for ((x, y), label) in regions.labels.iter() {
        let Some(r) = *label else { continue };
        let r = r as usize;
        let t = *tiles.get(x as i64, y as i64).expect("inside");
        if matches!(t, Tile::StairsUp | Tile::StairsDown) {
            ok[r] = false;
        }
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                let Some(&nt) = tiles.get(nx, ny) else {
                    continue;
                };
                let theirs = regions.labels.get(nx, ny) == Some(&Some(r as u32));
                if nt == Tile::Door {
                    if dx == 0 || dy == 0 {
                        doors[r] += 1;
                    }
                } else if nt.walkable() && !theirs {
                    ok[r] = false;
                }
            }
        }
    }
    (0..n)
        .filter(|&r| ok[r] && doors[r] > 0 && (min..=max).contains(&regions.sizes[r]))
        .map(|r| r as u32)
        .collect()
}

/// How themed rooms are stamped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThemeRooms {
    /// Smallest side of the open floor square a room needs (before its 2-tile margin).
    pub min: usize,
    /// Largest side measured.
    pub max: usize,
    /// Chance that a floor tile is tried as a room's corner.
    pub chance: f64,
    /// Whether the room's size is drawn below the largest that fits.
    pub random_size: bool,
}

/// Stamps themed rooms into open floor: from a floor tile (tried with `chance`), measure the
/// largest open square (`min..=max` a side) to its lower right; skip it within 2 tiles of an
/// earlier themed room; take 2 off each side (a ring of floor stays around it); optionally draw
/// a smaller size; wall it in with one door in the middle of its right or bottom wall (50/50).
/// Walls and door are protected.
///
/// # Returns
/// The rooms stamped, as `(x, y, w, h)` including their walls.
///
/// # Complexity
/// `O(W · H · max²)`.
pub fn place_theme_rooms<R: Rng + ?Sized>(
    tiles: &mut Grid<Tile>,
    protected: &mut Grid<bool>,
    rng: &mut R,
    params: ThemeRooms,
) -> Vec<(usize, usize, usize, usize)> {
    let mut placed: Vec<(usize, usize, usize, usize)> = Vec::new();
    let (w, h) = (tiles.width(), tiles.height());
    let free = |t: &Grid<Tile>, p: &Grid<bool>, x: usize, y: usize| {
        t.get(x as i64, y as i64) == Some(&Tile::Floor) && p.get(x as i64, y as i64) == Some(&false)
    };
    for y in 0..h {
        for x in 0..w {
            if !free(tiles, protected, x, y) || !seed::chance(rng, params.chance) {
                continue;
            }
            // The largest open square from here.
            let mut side = 0;
            while side < params.max
                && x + side < w
                && y + side < h
                && (0..=side).all(|i| {
                    free(tiles, protected, x + side, y + i)
                        && free(tiles, protected, x + i, y + side)
                })
            {
                side += 1;
            }
            if side < params.min {
                continue;
            }
            let near = placed.iter().any(|&(px, py, pw, ph)| {
                x + side + 2 > px && px + pw + 2 > x && y + side + 2 > py && py + ph + 2 > y
            });
            if near {
                continue;
            }
            let mut size = side - 2;
            if params.random_size && size > 3 {
                size = 3 + seed::below(rng, (size - 2) as u64) as usize;
            }
            if size < 3 {
                continue;
            }
            let (rx, ry) = (x + 1, y + 1);
            for i in 0..size {
                for j in 0..size {
                    let edge = i == 0 || j == 0 || i == size - 1 || j == size - 1;
                    if edge {
                        tiles.set((rx + i) as i64, (ry + j) as i64, Tile::Wall);
                        protected.set((rx + i) as i64, (ry + j) as i64, true);
                    }
                }
            }
            let mid = size / 2;
            let (dx, dy) = if seed::chance(rng, 0.5) {
                (size - 1, mid)
            } else {
                (mid, size - 1)
            };
            tiles.set((rx + dx) as i64, (ry + dy) as i64, Tile::Door);
            placed.push((rx, ry, size, size));
        }
    }
    placed
}
