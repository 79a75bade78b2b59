//! Steps 2 and 3 of the sector pipeline: garbage cells and sectors (the 3 x 3 rule), and
//! sections: a sector that falls apart becomes one sector per part.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{Field, MIN_SIDE};
use crate::tiles::Grid;

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

/// After [`clean_up`]: every 4-connected part of a sector becomes a sector of its own (the
/// first part, in scan order, keeps the id; the others get new ids after the largest). A
/// 3 x 3 block is connected, so the 3 x 3 rule still holds. Returns how many sectors there
/// are now.
pub fn split_sections(field: &mut Field) -> usize {
    let (w, h) = (field.width(), field.height());
    let mut next = field
        .iter()
        .filter_map(|(_, s)| *s)
        .max()
        .map_or(0, |m| m + 1);
    let mut seen: Grid<bool> = Grid::new(w, h, false);
    let mut kept: BTreeSet<u32> = BTreeSet::new();
    let mut count = 0;
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let Some(&Some(s)) = field.get(x, y) else {
                continue;
            };
            if seen.get(x, y) == Some(&true) {
                continue;
            }
            let id = if kept.insert(s) {
                s
            } else {
                next += 1;
                next - 1
            };
            count += 1;
            seen.set(x, y, true);
            let mut queue = VecDeque::from([(x, y)]);
            while let Some((cx, cy)) = queue.pop_front() {
                field.set(cx, cy, Some(id));
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (cx + dx, cy + dy);
                    if field.get(nx, ny) == Some(&Some(s)) && seen.get(nx, ny) == Some(&false) {
                        seen.set(nx, ny, true);
                        queue.push_back((nx, ny));
                    }
                }
            }
        }
    }
    count
}
