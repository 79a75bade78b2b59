//! Sector levels (`../shared/spec/sectors.md`): geometry -> sector graph -> scenario -> doors
//! and windows. **In progress**: this module holds the first steps, each a function named for
//! its step: [`bsp_geometry`] (step 1, the BSP generator), [`clean_up`] (steps 2 and 3, the
//! 3 x 3 rule) and [`sector_graph`] (steps 4 and 5, connections between touching sectors and
//! the largest component). The scenario already exists as
//! [`crate::graph::lock_and_key::sector_scenario`]; room growth, the graph passes, secret rooms,
//! doors and windows and the `Recipe` follow.
//!
//! A field is a grid of sector ids (`None`: wall). Cells are `(x, y)`, `y` down.
//!
//! # Examples
//! ```
//! use levelplan::recipes::sectors::{BspParams, bsp_geometry, clean_up, sector_graph};
//! let mut rng = levelplan::seed::stream(3, "sectors");
//! let mut field = bsp_geometry(&BspParams::default(), &mut rng);
//! clean_up(&mut field);
//! let sectors = sector_graph(&mut field);
//! assert!(sectors.graph.room_count() >= 2);
//! assert_eq!(levelplan::graph::component_count(&sectors.graph), 1);
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rand::Rng;

use crate::graph::{LevelGraph, Link, Room, RoomId, RoomKind};
use crate::seed;
use crate::tiles::Grid;

/// A field of sectors: each cell's sector, `None` for wall.
pub type Field = Grid<Option<u32>>;

/// The narrowest a sector may be anywhere: every sector cell lies in a 3 x 3 block of its
/// sector (the spec: "no sector part narrower than 3 x 3").
pub const MIN_SIDE: usize = 3;

/// Parameters of the BSP generator (step 1).
#[derive(Debug, Clone, PartialEq)]
pub struct BspParams {
    /// Field width in cells.
    pub width: usize,
    /// Field height in cells.
    pub height: usize,
    /// How many times the field is split (leaves: up to `2^depth`).
    pub depth: u32,
    /// The smallest leaf side a split may leave.
    pub min_leaf: usize,
    /// Corridor width (at least [`MIN_SIDE`], or the cleanup removes corridors).
    pub corridor: usize,
}

impl Default for BspParams {
    fn default() -> BspParams {
        BspParams {
            width: 64,
            height: 48,
            depth: 4,
            min_leaf: 8,
            corridor: 3,
        }
    }
}

/// A rectangle of cells (`x0..x1`, `y0..y1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
}

impl Rect {
    fn centre(self) -> (usize, usize) {
        ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)
    }
}

/// Step 1, BSP: the field is split recursively (direction and position random, `depth`
/// levels, no leaf below `min_leaf`), a room rectangle is placed in each leaf (at least 3 x 3,
/// at most the leaf less a one-cell margin), and sibling subtrees are joined by a corridor
/// (`corridor` cells wide) between their rooms' centres, drawn *behind* rooms: a corridor cell
/// inside a room stays the room's, so a room a corridor crosses splits it into sections, each
/// a sector of its own. Rooms are sectors `0..rooms`, corridor sections the ids after.
pub fn bsp_geometry<R: Rng + ?Sized>(params: &BspParams, rng: &mut R) -> Field {
    let (w, h) = (
        params.width.max(MIN_SIDE + 2),
        params.height.max(MIN_SIDE + 2),
    );
    let mut rooms: Vec<Rect> = Vec::new();
    let mut corridors: Vec<Rect> = Vec::new();
    let whole = Rect {
        x0: 0,
        y0: 0,
        x1: w,
        y1: h,
    };
    split(whole, params.depth, params, rng, &mut rooms, &mut corridors);
    // Corridors first (behind), rooms over them.
    let mut corridor_cells = Grid::new(w, h, false);
    for c in &corridors {
        for y in c.y0..c.y1.min(h) {
            for x in c.x0..c.x1.min(w) {
                corridor_cells.set(x as i64, y as i64, true);
            }
        }
    }
    let mut field: Field = Grid::new(w, h, None);
    for (i, r) in rooms.iter().enumerate() {
        for y in r.y0..r.y1 {
            for x in r.x0..r.x1 {
                field.set(x as i64, y as i64, Some(i as u32));
            }
        }
    }
    // Corridor cells outside rooms, by connected section: each section a sector.
    let mut next = rooms.len() as u32;
    for y in 0..h {
        for x in 0..w {
            let free = |x: usize, y: usize, f: &Field| {
                corridor_cells.get(x as i64, y as i64) == Some(&true)
                    && f.get(x as i64, y as i64) == Some(&None)
            };
            if !free(x, y, &field) {
                continue;
            }
            let mut queue = VecDeque::from([(x, y)]);
            field.set(x as i64, y as i64, Some(next));
            while let Some((cx, cy)) = queue.pop_front() {
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (cx as i64 + dx, cy as i64 + dy);
                    if nx >= 0 && ny >= 0 && free(nx as usize, ny as usize, &field) {
                        field.set(nx, ny, Some(next));
                        queue.push_back((nx as usize, ny as usize));
                    }
                }
            }
            next += 1;
        }
    }
    field
}

/// Splits `r` (see [`bsp_geometry`]), returning the room of the subtree that corridors to it
/// aim at.
fn split<R: Rng + ?Sized>(
    r: Rect,
    depth: u32,
    p: &BspParams,
    rng: &mut R,
    rooms: &mut Vec<Rect>,
    corridors: &mut Vec<Rect>,
) -> Rect {
    let (w, h) = (r.x1 - r.x0, r.y1 - r.y0);
    let min = p.min_leaf.max(MIN_SIDE + 2);
    let can_v = w >= 2 * min;
    let can_h = h >= 2 * min;
    if depth == 0 || !(can_v || can_h) {
        // A room in the leaf: 3 x 3 at least, a one-cell margin inside the leaf.
        let (aw, ah) = (w - 2, h - 2);
        let rw = seed::range_inclusive(rng, MIN_SIDE as u32, aw.max(MIN_SIDE) as u32) as usize;
        let rh = seed::range_inclusive(rng, MIN_SIDE as u32, ah.max(MIN_SIDE) as u32) as usize;
        let rx = r.x0 + 1 + seed::index(rng, aw.saturating_sub(rw) + 1);
        let ry = r.y0 + 1 + seed::index(rng, ah.saturating_sub(rh) + 1);
        let room = Rect {
            x0: rx,
            y0: ry,
            x1: (rx + rw).min(r.x1),
            y1: (ry + rh).min(r.y1),
        };
        rooms.push(room);
        return room;
    }
    let vertical = match (can_v, can_h) {
        (true, true) => seed::chance(rng, 0.5),
        (v, _) => v,
    };
    let (a, b) = if vertical {
        let at = r.x0 + min + seed::index(rng, w - 2 * min + 1);
        (Rect { x1: at, ..r }, Rect { x0: at, ..r })
    } else {
        let at = r.y0 + min + seed::index(rng, h - 2 * min + 1);
        (Rect { y1: at, ..r }, Rect { y0: at, ..r })
    };
    let ra = split(a, depth - 1, p, rng, rooms, corridors);
    let rb = split(b, depth - 1, p, rng, rooms, corridors);
    // Join the siblings: an L of two straight runs between the rooms' centres.
    let ((ax, ay), (bx, by)) = (ra.centre(), rb.centre());
    let half = p.corridor.max(1) / 2;
    let run_x = Rect {
        x0: ax.min(bx).saturating_sub(half),
        y0: ay.saturating_sub(half),
        x1: ax.max(bx) + p.corridor - half,
        y1: ay + p.corridor - half,
    };
    let run_y = Rect {
        x0: bx.saturating_sub(half),
        y0: ay.min(by).saturating_sub(half),
        x1: bx + p.corridor - half,
        y1: ay.max(by) + p.corridor - half,
    };
    corridors.push(run_x);
    corridors.push(run_y);
    if seed::chance(rng, 0.5) { ra } else { rb }
}

/// Whether cell `(x, y)` lies in some 3 x 3 block of cells of sector `s`, counting the cells
/// `wild` accepts as belonging to it.
fn in_block(field: &Field, x: usize, y: usize, s: u32, wild: &dyn Fn(i64, i64) -> bool) -> bool {
    let k = MIN_SIDE as i64;
    (0..k).any(|oy| {
        (0..k).any(|ox| {
            let (bx, by) = (x as i64 - ox, y as i64 - oy);
            (0..k).all(|dy| {
                (0..k).all(|dx| {
                    let (cx, cy) = (bx + dx, by + dy);
                    match field.get(cx, cy) {
                        Some(&Some(o)) => o == s || wild(cx, cy),
                        _ => false,
                    }
                })
            })
        })
    })
}

/// The cells that lie in no 3 x 3 block of their own sector.
fn strict_garbage(field: &Field) -> BTreeSet<(usize, usize)> {
    let none = |_: i64, _: i64| false;
    field
        .iter()
        .filter_map(|((x, y), s)| s.map(|s| (x, y, s)))
        .filter(|&(x, y, s)| !in_block(field, x, y, s, &none))
        .map(|(x, y, _)| (x, y))
        .collect()
}

/// Steps 2 and 3, garbage cells and sectors. A garbage cell lies in no 3 x 3 block of its own
/// sector even when the loose cells of smaller sectors are counted as its own (so a sector
/// does not lose cells for a stray cell of another lying in it). Each garbage cell is attached to a
/// neighbouring sector in which it then lies in a 3 x 3 block (the same counting), else made
/// wall; rounds repeat while anything changes (at most 64), and whatever still breaks the
/// rule is made wall at the end, so that every sector cell lies in a 3 x 3 block of its sector.
/// Sectors left with no cell are gone; the others keep their ids (the field is raster, so
/// "vectorising back into poly-boxes" is reading each sector's cells).
pub fn clean_up(field: &mut Field) {
    for _ in 0..64 {
        let loose = strict_garbage(field);
        if loose.is_empty() {
            return;
        }
        // Sizes rank the sectors: a sector's loose cells count as wild for bigger sectors only
        // (ties: for lower ids), so a stray cell never makes its big neighbour garbage.
        let mut size: BTreeMap<u32, usize> = BTreeMap::new();
        for (_, c) in field.iter() {
            if let Some(s) = c {
                *size.entry(*s).or_default() += 1;
            }
        }
        let rank = |s: u32| (size.get(&s).copied().unwrap_or(0), std::cmp::Reverse(s));
        let wild_for = |field: &Field, s: u32| {
            let snapshot: BTreeSet<(usize, usize)> = loose
                .iter()
                .filter(|&&(x, y)| {
                    field
                        .get(x as i64, y as i64)
                        .copied()
                        .flatten()
                        .is_some_and(|o| o != s && rank(o) < rank(s))
                })
                .copied()
                .collect();
            move |x: i64, y: i64| x >= 0 && y >= 0 && snapshot.contains(&(x as usize, y as usize))
        };
        let garbage: Vec<(usize, usize, u32)> = loose
            .iter()
            .filter_map(|&(x, y)| {
                let s = (*field.get(x as i64, y as i64)?)?;
                let wild = wild_for(field, s);
                (!in_block(field, x, y, s, &wild)).then_some((x, y, s))
            })
            .collect();
        let garbage = if garbage.is_empty() {
            loose
                .iter()
                .filter_map(|&(x, y)| Some((x, y, (*field.get(x as i64, y as i64)?)?)))
                .collect()
        } else {
            garbage
        };
        let mut changes = Vec::new();
        for &(x, y, s) in &garbage {
            let mut others: BTreeSet<u32> = BTreeSet::new();
            for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                if let Some(&Some(o)) = field.get(x as i64 + dx, y as i64 + dy)
                    && o != s
                {
                    others.insert(o);
                }
            }
            let home = others.into_iter().find(|&o| {
                // The cell itself counts as `o`'s, as if attached.
                let wild = wild_for(field, o);
                let as_o = |cx: i64, cy: i64| (cx, cy) == (x as i64, y as i64) || wild(cx, cy);
                in_block(field, x, y, o, &as_o)
            });
            changes.push((x, y, home));
        }
        for (x, y, home) in changes {
            field.set(x as i64, y as i64, home);
        }
    }
    // What still breaks the rule is wall (a shrinking loop: it ends).
    loop {
        let loose = strict_garbage(field);
        if loose.is_empty() {
            return;
        }
        for (x, y) in loose {
            field.set(x as i64, y as i64, None);
        }
    }
}

/// Two side-by-side cells of two sectors: `(cell of the lower-numbered room, cell of the other)`.
pub type Contact = ((usize, usize), (usize, usize));

/// The sectors as a graph (steps 4 and 5).
#[derive(Debug, Clone)]
pub struct SectorGraph {
    /// One room per sector kept, one door per pair of touching sectors.
    pub graph: LevelGraph,
    /// The sector id of each room (`sectors[room.0]`).
    pub sectors: Vec<u32>,
    /// Per link (by id), the cells on either side of the shared boundary, as `(cell in the
    /// lower-numbered room, cell in the other)` pairs, in scan order.
    pub contacts: BTreeMap<u32, Vec<Contact>>,
}

/// Steps 4 and 5: a connection for every pair of touching sectors (cells side by side), on
/// their shared boundary; if the graph falls apart, the component with the largest area (the
/// bounding boxes of its sectors, as the spec allows) is kept and the other sectors are made
/// wall in `field`.
pub fn sector_graph(field: &mut Field) -> SectorGraph {
    let (w, h) = (field.width(), field.height());
    let mut boxes: BTreeMap<u32, (usize, usize, usize, usize)> = BTreeMap::new();
    let mut touching: BTreeMap<(u32, u32), Vec<Contact>> = BTreeMap::new();
    for y in 0..h {
        for x in 0..w {
            let Some(&Some(s)) = field.get(x as i64, y as i64) else {
                continue;
            };
            let b = boxes.entry(s).or_insert((x, y, x, y));
            *b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y));
            for (nx, ny) in [(x + 1, y), (x, y + 1)] {
                if let Some(&Some(o)) = field.get(nx as i64, ny as i64)
                    && o != s
                {
                    let (pair, cells) = if s < o {
                        ((s, o), ((x, y), (nx, ny)))
                    } else {
                        ((o, s), ((nx, ny), (x, y)))
                    };
                    touching.entry(pair).or_default().push(cells);
                }
            }
        }
    }
    // Components, by union of touching pairs.
    let ids: Vec<u32> = boxes.keys().copied().collect();
    let mut comp: BTreeMap<u32, u32> = ids.iter().map(|&s| (s, s)).collect();
    fn find(comp: &mut BTreeMap<u32, u32>, s: u32) -> u32 {
        let p = comp[&s];
        if p == s {
            return s;
        }
        let r = find(comp, p);
        comp.insert(s, r);
        r
    }
    for &(a, b) in touching.keys() {
        let (ra, rb) = (find(&mut comp, a), find(&mut comp, b));
        if ra != rb {
            comp.insert(ra.max(rb), ra.min(rb));
        }
    }
    let mut area: BTreeMap<u32, usize> = BTreeMap::new();
    for &s in &ids {
        let b = boxes[&s];
        *area.entry(find(&mut comp, s)).or_default() += (b.2 - b.0 + 1) * (b.3 - b.1 + 1);
    }
    // The largest area; ties go to the lowest root.
    let keep = area
        .iter()
        .max_by_key(|&(&root, &a)| (a, std::cmp::Reverse(root)))
        .map(|(&root, _)| root);
    let kept: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&s| Some(find(&mut comp, s)) == keep)
        .collect();
    let kept_set: BTreeSet<u32> = kept.iter().copied().collect();
    for y in 0..h {
        for x in 0..w {
            if let Some(&Some(s)) = field.get(x as i64, y as i64)
                && !kept_set.contains(&s)
            {
                field.set(x as i64, y as i64, None);
            }
        }
    }
    let mut graph = LevelGraph::new();
    let mut room_of: BTreeMap<u32, RoomId> = BTreeMap::new();
    for &s in &kept {
        room_of.insert(s, graph.add_room(Room::new(RoomKind::Normal)));
    }
    let mut contacts = BTreeMap::new();
    for ((a, b), cells) in touching {
        let (Some(&ra), Some(&rb)) = (room_of.get(&a), room_of.get(&b)) else {
            continue;
        };
        let link = graph.add_link(ra, rb, Link::door());
        contacts.insert(link.0, cells);
    }
    SectorGraph {
        graph,
        sectors: kept,
        contacts,
    }
}
