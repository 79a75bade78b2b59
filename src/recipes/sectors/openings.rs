//! Step 11 of the sector pipeline: doors and windows on each connection's shared boundary.

use std::collections::{BTreeMap, BTreeSet};

use rand::Rng;

use super::graph::Contact;
use crate::level::{Opening, OpeningKind, TilePos};
use crate::seed;

/// The shortest part of a boundary that gets another opening after a split.
const MIN_PART: usize = 3;

/// What step 11 draws from: the chance of a window at the steps after the first (`[step 2,
/// step 3, step 4]`, then round again from step 2) and the weights of door widths 1, 2 and 3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpeningChances {
    /// Chance that an opening is a window, by step (2, 3, 4).
    pub window: [f64; 3],
    /// Weights of 1-, 2- and 3-cell widths.
    pub widths: [f64; 3],
}

/// Splits a connection's doorways into straight runs of side-by-side pairs (the same two
/// lines, consecutive along them), longest first (ties: scan order).
fn runs(contacts: &[Contact]) -> Vec<Vec<Contact>> {
    // Key: the pair's lines and direction; position along them.
    let mut lines: BTreeMap<(bool, usize, usize), Vec<(usize, Contact)>> = BTreeMap::new();
    for &c in contacts {
        let ((ax, ay), (bx, by)) = c;
        if ay == by {
            lines.entry((true, ax, bx)).or_default().push((ay, c));
        } else {
            lines.entry((false, ay, by)).or_default().push((ax, c));
        }
    }
    let mut out: Vec<Vec<Contact>> = Vec::new();
    for (_, mut cells) in lines {
        cells.sort_unstable_by_key(|&(t, _)| t);
        let mut run: Vec<Contact> = Vec::new();
        let mut last = None;
        for (t, c) in cells {
            if last.is_some_and(|l: usize| t != l + 1) {
                out.push(std::mem::take(&mut run));
            }
            run.push(c);
            last = Some(t);
        }
        if !run.is_empty() {
            out.push(run);
        }
    }
    // Stable: equal lengths keep their order.
    out.sort_by_key(|r| std::cmp::Reverse(r.len()));
    out
}

/// The opening kind at `step` (1: always a door; then window chances by step, cycling over
/// steps 2 to 4).
fn kind_at<R: Rng + ?Sized>(step: usize, chances: &OpeningChances, rng: &mut R) -> OpeningKind {
    if step <= 1 {
        return OpeningKind::Door;
    }
    if seed::chance(rng, chances.window[(step - 2) % 3]) {
        OpeningKind::Window
    } else {
        OpeningKind::Door
    }
}

/// Step 11 for one connection: `contacts` are its doorways as `(cell on side a, cell on side
/// b)`. Picks a point near the middle of the longest run and puts a door there (or, when
/// `secret`, a 1-cell secret wall and nothing else), then works through the rest of the
/// boundary in order: the parts left either side of each opening (one cell of wall between)
/// and the other runs, each at least 3 cells long, one opening per part, its kind by step.
/// Openings never share a tile with one already in `used`, nor stand side by side with one
/// (the first door may, if nothing else is left); none takes a tile in `carved` (walls
/// carved into floor to join a sector's floor: a window, or a door shut by its lock, there
/// would cut the sector's floor in two). Returns the openings (empty: no door fits).
pub fn doors_and_windows<R: Rng + ?Sized>(
    contacts: &[Contact],
    secret: bool,
    chances: &OpeningChances,
    used: &mut BTreeSet<TilePos>,
    carved: &BTreeSet<TilePos>,
    rng: &mut R,
) -> Vec<Opening> {
    let runs = runs(contacts);
    let mut out: Vec<Opening> = Vec::new();
    // Parts still to fill: (run, lo, hi) over positions `lo..hi`.
    let mut queue: std::collections::VecDeque<(usize, usize, usize)> = Default::default();
    let Some(first) = runs.first() else {
        return out;
    };
    queue.push_back((0, 0, first.len()));
    let mut step = 1;
    let mut others_queued = false;
    while let Some((r, lo, hi)) = queue.pop_front() {
        let run = &runs[r];
        let len = hi - lo;
        let kind = if secret {
            OpeningKind::SecretWall
        } else {
            kind_at(step, chances, rng)
        };
        let wanted = if kind == OpeningKind::SecretWall {
            1
        } else {
            1 + seed::weighted_index(rng, &chances.widths).unwrap_or(0)
        };
        let width = wanted.min(len);
        // Near the middle: up to a quarter of the slack either way.
        let slack = len - width;
        let jitter = slack / 4;
        let middle = lo + slack / 2;
        let offset = seed::index(rng, 2 * jitter + 1);
        let pick = (middle + offset)
            .saturating_sub(jitter)
            .clamp(lo, lo + slack);
        // Try the pick, then outwards from it.
        let fits = |p: usize, strict: bool| {
            let cells: BTreeSet<TilePos> = run[p..p + width]
                .iter()
                .flat_map(|&(a, b)| [a, b])
                .collect();
            cells.iter().all(|c| !used.contains(c))
                && cells.iter().all(|c| !carved.contains(c))
                && (!strict
                    || cells.iter().all(|&(x, y)| {
                        [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
                            .iter()
                            .all(|&(dx, dy)| {
                                let n = (x as i64 + dx, y as i64 + dy);
                                n.0 < 0
                                    || n.1 < 0
                                    || cells.contains(&(n.0 as usize, n.1 as usize))
                                    || !used.contains(&(n.0 as usize, n.1 as usize))
                            })
                    }))
        };
        let candidates: Vec<usize> = (0..=slack)
            .flat_map(|d| [pick + d, pick.wrapping_sub(d)])
            .filter(|&p| p >= lo && p <= lo + slack)
            .collect();
        let mut at = candidates.iter().copied().find(|&p| fits(p, true));
        if at.is_none() && out.is_empty() {
            at = candidates.iter().copied().find(|&p| fits(p, false));
        }
        if let Some(p) = at {
            let cells: Vec<(TilePos, TilePos)> = run[p..p + width].to_vec();
            for &(a, b) in &cells {
                used.insert(a);
                used.insert(b);
            }
            out.push(Opening { kind, cells });
            step += 1;
            if secret {
                break;
            }
            if p > lo + MIN_PART {
                queue.push_back((r, lo, p - 1));
            }
            if hi >= p + width + 1 + MIN_PART {
                queue.push_back((r, p + width + 1, hi));
            }
        } else if out.is_empty() && !others_queued {
            // The first door did not fit this run: try the others, longest first.
            for (i, other) in runs.iter().enumerate().skip(1) {
                queue.push_back((i, 0, other.len()));
            }
            others_queued = true;
            continue;
        }
        if !others_queued && !out.is_empty() {
            for (i, other) in runs.iter().enumerate().skip(1) {
                if other.len() >= MIN_PART {
                    queue.push_back((i, 0, other.len()));
                }
            }
            others_queued = true;
        }
    }
    out
}
