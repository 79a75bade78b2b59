//! Connectivity: flood-fill regions, the contacts between them, and the "lockout" check.

use std::collections::{BTreeMap, VecDeque};

use super::{Grid, Tile};

/// The connected regions of a tile grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regions {
    /// The region of each tile (`None` for tiles in no region).
    pub labels: Grid<Option<u32>>,
    /// Tiles per region.
    pub sizes: Vec<usize>,
}

/// Labels the 4-connected regions of the tiles `inside` accepts, numbered in row-major order
/// of their first tile.
///
/// # Complexity
/// `O(W · H)`.
///
/// # Examples
/// ```
/// use levelplan::tiles::{Grid, Tile, regions::find_regions};
/// let mut g = Grid::new(3, 1, Tile::Floor);
/// g.set(1, 0, Tile::Wall);
/// let r = find_regions(&g, |t| t == Tile::Floor);
/// assert_eq!(r.sizes, vec![1, 1]);
/// ```
pub fn find_regions(tiles: &Grid<Tile>, inside: impl Fn(Tile) -> bool) -> Regions {
    let (w, h) = (tiles.width(), tiles.height());
    let mut labels: Grid<Option<u32>> = Grid::new(w, h, None);
    let mut sizes = Vec::new();
    let mut queue = VecDeque::new();
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            if labels.get(x, y) != Some(&None) || !tiles.get(x, y).is_some_and(|&t| inside(t)) {
                continue;
            }
            let id = sizes.len() as u32;
            let mut size = 0;
            labels.set(x, y, Some(id));
            queue.push_back((x, y));
            while let Some((cx, cy)) = queue.pop_front() {
                size += 1;
                for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
                    let (nx, ny) = (cx + dx, cy + dy);
                    if labels.get(nx, ny) == Some(&None)
                        && tiles.get(nx, ny).is_some_and(|&t| inside(t))
                    {
                        labels.set(nx, ny, Some(id));
                        queue.push_back((nx, ny));
                    }
                }
            }
            sizes.push(size);
        }
    }
    Regions { labels, sizes }
}

/// A place where two regions meet through connector tiles (doors, arches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    /// The lower region number.
    pub a: u32,
    /// The higher region number.
    pub b: u32,
    /// The connector tiles joining them.
    pub cells: Vec<(usize, usize)>,
}

/// The contacts between regions: each run of connector tiles (4-connected tiles `connector`
/// accepts, such as a door two tiles thick) joins every pair of the regions it touches. One
/// contact per pair of regions, with all the connector tiles between them, in pair order.
///
/// # Complexity
/// `O(W · H + C log C)`.
///
/// # Examples
/// ```
/// use levelplan::tiles::{Grid, Tile, regions::{contacts, find_regions}};
/// let mut g = Grid::new(4, 1, Tile::Floor);
/// g.set(1, 0, Tile::Door);
/// g.set(2, 0, Tile::Door); // a door two tiles thick
/// let rooms = find_regions(&g, |t| t == Tile::Floor);
/// let c = contacts(&g, &rooms, |t| t == Tile::Door);
/// assert_eq!((c[0].a, c[0].b, c[0].cells.len()), (0, 1, 2));
/// ```
pub fn contacts(
    tiles: &Grid<Tile>,
    regions: &Regions,
    connector: impl Fn(Tile) -> bool,
) -> Vec<Contact> {
    let runs = find_regions(tiles, &connector);
    let mut cells_of: Vec<Vec<(usize, usize)>> = vec![Vec::new(); runs.sizes.len()];
    let mut touched: Vec<Vec<u32>> = vec![Vec::new(); runs.sizes.len()];
    for ((x, y), label) in runs.labels.iter() {
        let Some(run) = label else { continue };
        let run = *run as usize;
        cells_of[run].push((x, y));
        for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
            if let Some(Some(r)) = regions.labels.get(x as i64 + dx, y as i64 + dy)
                && !touched[run].contains(r)
            {
                touched[run].push(*r);
            }
        }
    }
    let mut pairs: BTreeMap<(u32, u32), Vec<(usize, usize)>> = BTreeMap::new();
    for (run, around) in touched.iter_mut().enumerate() {
        around.sort_unstable();
        for i in 0..around.len() {
            for j in i + 1..around.len() {
                pairs
                    .entry((around[i], around[j]))
                    .or_default()
                    .extend(&cells_of[run]);
            }
        }
    }
    pairs
        .into_iter()
        .map(|((a, b), cells)| Contact { a, b, cells })
        .collect()
}

/// The "lockout" check: whether every tile `passable` accepts can be reached from every other.
///
/// # Complexity
/// `O(W · H)`.
pub fn fully_connected(tiles: &Grid<Tile>, passable: impl Fn(Tile) -> bool) -> bool {
    find_regions(tiles, passable).sizes.len() <= 1
}
