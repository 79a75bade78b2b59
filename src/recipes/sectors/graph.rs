//! Steps 4 to 8 of the sector pipeline: the sector graph, its largest component, the spanning
//! tree, connections restored and opened into passages, and the secret rooms.

use std::collections::{BTreeMap, BTreeSet};

use rand::Rng;

use super::Field;
use crate::graph::spanning::{Amount, choose_links, keep_links, random_deletion_spanning_tree};
use crate::graph::{LevelGraph, Link, LinkId, Room, RoomId, RoomKind};
use crate::seed;

/// Whether `(x, y)` is floor: a sector cell whose eight neighbours are all of its sector (the
/// middle of a 3 x 3 block; a sector's other cells are its walls).
pub fn interior(field: &Field, x: i64, y: i64) -> bool {
    let Some(&Some(s)) = field.get(x, y) else {
        return false;
    };
    (-1..=1).all(|dy| (-1..=1).all(|dx| field.get(x + dx, y + dy) == Some(&Some(s))))
}

/// Whether side-by-side cells `a` and `b` of two sectors are a doorway: the cell behind `a`
/// (away from `b`) is floor of `a`'s sector and the cell behind `b` floor of `b`'s, so that a
/// door through `a` and `b` joins the two floors.
pub fn doorway(field: &Field, a: (usize, usize), b: (usize, usize)) -> bool {
    let (dx, dy) = (b.0 as i64 - a.0 as i64, b.1 as i64 - a.1 as i64);
    interior(field, a.0 as i64 - dx, a.1 as i64 - dy)
        && interior(field, b.0 as i64 + dx, b.1 as i64 + dy)
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
    /// Per link (by id), the doorways on the shared boundary (see [`doorway`]), as `(cell in
    /// the lower-numbered room, cell in the other)` pairs, in scan order.
    pub contacts: BTreeMap<u32, Vec<Contact>>,
}

/// Steps 4 and 5: a connection for every pair of touching sectors, on their shared boundary;
/// sectors touch where a door fits: two cells side by side, each with a floor cell of its own
/// sector behind it (see [`doorway`]); if the graph falls apart, the component with the largest area (the
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
                    && doorway(field, (x, y), (nx, ny))
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

/// Steps 6 and 7: the graph is reduced to a spanning tree by deleting random connections that
/// keep it connected; `restore` (a fraction) of the deleted ones come back as loops; then each
/// kept connection becomes an open passage with chance `open`, merging its two sectors into
/// one (in `field` too: the merged sector takes the lower id). At least `keep_rooms` sectors
/// stay (merges that would leave fewer are skipped). Returns the new graph.
pub fn randomise_connections<R: Rng + ?Sized>(
    sectors: SectorGraph,
    field: &mut Field,
    restore: f64,
    open: f64,
    keep_rooms: usize,
    rng: &mut R,
) -> SectorGraph {
    let SectorGraph {
        mut graph,
        sectors,
        contacts,
    } = sectors;
    let Ok(tree) = random_deletion_spanning_tree(&graph, rng) else {
        // Not connected: nothing to reduce (step 5 keeps one component, so this is a graph
        // someone built by hand).
        return SectorGraph {
            graph,
            sectors,
            contacts,
        };
    };
    let rest: Vec<LinkId> = graph
        .links()
        .map(|(l, ..)| l)
        .filter(|l| tree.binary_search(l).is_err())
        .collect();
    let extra = choose_links(&rest, Amount::Fraction(restore), rng);
    keep_links(&mut graph, &tree, &extra);
    // Open passages: union-find over rooms.
    let n = sectors.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut classes = n;
    let links: Vec<(LinkId, RoomId, RoomId)> =
        graph.links().map(|(l, a, b, _)| (l, a, b)).collect();
    for &(_, a, b) in &links {
        if !seed::chance(rng, open) || classes <= keep_rooms {
            continue;
        }
        let (ra, rb) = (
            root(&mut parent, a.0 as usize),
            root(&mut parent, b.0 as usize),
        );
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
            classes -= 1;
        }
    }
    // The merged sectors take their class's lowest id.
    let class_sector: Vec<u32> = (0..n).map(|i| sectors[root(&mut parent, i)]).collect();
    let relabel: BTreeMap<u32, u32> = (0..n).map(|i| (sectors[i], class_sector[i])).collect();
    if classes < n {
        let (w, h) = (field.width() as i64, field.height() as i64);
        for y in 0..h {
            for x in 0..w {
                if let Some(&Some(s)) = field.get(x, y)
                    && let Some(&t) = relabel.get(&s)
                    && t != s
                {
                    field.set(x, y, Some(t));
                }
            }
        }
    }
    let kept: BTreeSet<u32> = class_sector.iter().copied().collect();
    let new_sectors: Vec<u32> = kept.into_iter().collect();
    let mut new_graph = LevelGraph::new();
    for _ in &new_sectors {
        new_graph.add_room(Room::new(RoomKind::Normal));
    }
    let room_of = |s: u32| RoomId(new_sectors.binary_search(&s).unwrap_or(0) as u32);
    // One connection per pair of classes, its doorways gathered (kept in the `(lower, other)`
    // order of the new rooms).
    let mut joined: BTreeMap<(u32, u32), (Link, Vec<Contact>)> = BTreeMap::new();
    for &(l, a, b) in &links {
        let (ca, cb) = (class_sector[a.0 as usize], class_sector[b.0 as usize]);
        if ca == cb {
            continue;
        }
        let link = *graph.link(l).expect("listed");
        let cells = contacts.get(&l.0).cloned().unwrap_or_default();
        let (key, cells) = if ca < cb {
            ((ca, cb), cells)
        } else {
            ((cb, ca), cells.into_iter().map(|(p, q)| (q, p)).collect())
        };
        let entry = joined.entry(key).or_insert((link, Vec::new()));
        entry.1.extend(cells);
    }
    let mut new_contacts = BTreeMap::new();
    for ((a, b), (link, mut cells)) in joined {
        cells.sort_unstable_by_key(|&((x, y), _)| (y, x));
        let id = new_graph.add_link(room_of(a), room_of(b), link);
        new_contacts.insert(id.0, cells);
    }
    SectorGraph {
        graph: new_graph,
        sectors: new_sectors,
        contacts: new_contacts,
    }
}

/// Step 8: the sectors with exactly one connection are candidates; sorted by area (their
/// cells, smallest first, ties by id) and cut at a random length (at least one), they become
/// secret rooms, leaving at least `keep_rooms` other sectors. Returns them in that order.
pub fn secret_rooms<R: Rng + ?Sized>(
    sectors: &SectorGraph,
    field: &Field,
    keep_rooms: usize,
    rng: &mut R,
) -> Vec<RoomId> {
    let mut area: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, s) in field.iter() {
        if let Some(s) = s {
            *area.entry(*s).or_default() += 1;
        }
    }
    let mut candidates: Vec<(usize, RoomId)> = sectors
        .graph
        .room_ids()
        .filter(|&r| sectors.graph.incident_links(r).count() == 1)
        .map(|r| {
            (
                area.get(&sectors.sectors[r.0 as usize])
                    .copied()
                    .unwrap_or(0),
                r,
            )
        })
        .collect();
    candidates.sort_unstable();
    let room_count = sectors.graph.room_count();
    let most = candidates.len().min(room_count.saturating_sub(keep_rooms));
    if most == 0 {
        return Vec::new();
    }
    let cut = seed::range_inclusive(rng, 1, most as u32) as usize;
    candidates.into_iter().take(cut).map(|(_, r)| r).collect()
}
