//! Finishing a grown floor: the boss, the secret room, the special rooms, designs, and the
//! floor built from the plan (steps 4 and 5 of the spec).

use std::collections::{BTreeSet, VecDeque};

use rand::Rng;

use super::*;
use crate::graph::{LevelGraph, Link, LinkKind, LinkRole, Room, RoomId, RoomKind, distances_from};
use crate::seed;

/// Boss, large boss, labyrinth's second boss, secret room, special rooms. Returns the dead
/// ends, the secret search's tries and requirement.
pub(super) fn finish<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
    grid: &mut Grid<'_>,
    mut dead_ends: Vec<usize>,
) -> Result<(Vec<usize>, u32, u32), String> {
    let boss = *dead_ends.last().expect("validated");
    grid.rooms[boss].kind = RoomKind::Boss;
    if params.large_rooms && seed::chance(rng, params.large_boss_chance) {
        large_boss(grid, rng, &dead_ends);
    }
    if params.labyrinth {
        // A second boss room next to the first, touching nothing else.
        let cells: Vec<Cell> = grid.rooms[boss].cells().collect();
        let spot = cells
            .iter()
            .flat_map(|&c| GridDir::ALL.map(|d| (c, d)))
            .find(|&(c, d)| {
                let n = step(c, d);
                let (around, count) = grid.neighbour_rooms(n);
                grid.free(n) && count == 1 && around[0] == boss && grid.has_exit(boss, c, d)
            });
        let Some((c, d)) = spot else {
            return Err("there is no room for the second boss room".into());
        };
        let i = grid.place(Plan {
            shape: RoomShape::Single,
            anchor: step(c, d),
            kind: RoomKind::Boss,
            parent: Some((boss, c, d)),
        });
        dead_ends.push(i);
    }
    // Special rooms on the remaining dead ends (the six farthest under the labyrinth).
    // Special rooms are single cells.
    let mut free: Vec<usize> = dead_ends
        .iter()
        .copied()
        .filter(|&r| {
            grid.rooms[r].kind == RoomKind::Normal && grid.rooms[r].shape == RoomShape::Single
        })
        .collect();
    if params.labyrinth {
        let dist = room_distances(grid);
        free.sort_by_key(|&r| std::cmp::Reverse(dist[r]));
        free.truncate(6);
        free.sort_unstable();
    }
    let copies = if params.labyrinth { 2 } else { 1 };
    for special in &params.special_rooms {
        for _ in 0..copies {
            if level < special.min_level
                || special
                    .requires
                    .as_ref()
                    .is_some_and(|f| !params.flags.contains(f))
            {
                continue;
            }
            let chance = match &special.chance_if {
                Some((flag, c)) if params.flags.contains(flag) => *c,
                _ => special.chance,
            };
            if !seed::chance(rng, chance) {
                continue;
            }
            if free.is_empty() {
                if special.guaranteed() {
                    return Err(format!("no dead end is left for the {} room", special.kind));
                }
                continue;
            }
            let r = free.remove(seed::index(rng, free.len()));
            grid.rooms[r].kind = special.kind.clone();
        }
    }
    let Some((cell, tries, needed)) = scored_cell(grid, rng, &dead_ends, 3) else {
        return Err("there is no cell for the secret room".into());
    };
    grid.place(Plan {
        shape: RoomShape::Single,
        anchor: cell,
        kind: RoomKind::Secret,
        parent: None,
    });
    Ok((dead_ends, tries, needed))
}

/// How many doors room `r` has (one per neighbouring cell pair with door slots on both sides).
pub(super) fn door_count(grid: &Grid<'_>, r: usize) -> usize {
    let cells: Vec<Cell> = grid.rooms[r].cells().collect();
    cells
        .iter()
        .flat_map(|&c| GridDir::ALL.map(|d| (c, d)))
        .filter(|&(c, d)| {
            let n = step(c, d);
            grid.at(n).is_some_and(|o| {
                o != r && grid.has_exit(r, c, d) && grid.has_exit(o, n, d.opposite())
            })
        })
        .count()
}

/// Steps from the start room to every room, over doors.
pub(super) fn room_distances(grid: &Grid<'_>) -> Vec<u32> {
    let n = grid.rooms.len();
    let mut dist = vec![u32::MAX; n];
    dist[0] = 0;
    let mut queue = VecDeque::from([0usize]);
    while let Some(r) = queue.pop_front() {
        let cells: Vec<Cell> = grid.rooms[r].cells().collect();
        for c in cells {
            for d in GridDir::ALL {
                let nc = step(c, d);
                if let Some(o) = grid.at(nc)
                    && o != r
                    && dist[o] == u32::MAX
                    && grid.has_exit(r, c, d)
                    && grid.has_exit(o, nc, d.opposite())
                {
                    dist[o] = dist[r] + 1;
                    queue.push_back(o);
                }
            }
        }
    }
    dist
}

/// Replaces the boss room with a large shape where one fits without touching other rooms: on
/// the boss's own dead end, else on another dead end at the same (maximal) distance.
pub(super) fn large_boss<R: Rng + ?Sized>(grid: &mut Grid<'_>, rng: &mut R, dead_ends: &[usize]) {
    let boss = *dead_ends.last().expect("validated");
    let dist = room_distances(grid);
    let far = dist[boss];
    let mut candidates: Vec<usize> = vec![boss];
    candidates.extend(
        dead_ends
            .iter()
            .copied()
            .filter(|&r| r != boss && dist[r] == far && grid.rooms[r].shape == RoomShape::Single),
    );
    for r in candidates {
        if grid.rooms[r].shape != RoomShape::Single {
            continue;
        }
        let Some((parent, pcell, dir)) = grid.rooms[r].parent else {
            continue;
        };
        let cell = grid.rooms[r].anchor;
        let mut shapes = [RoomShape::Big, RoomShape::Wide, RoomShape::Tall];
        seed::shuffle(rng, &mut shapes);
        for shape in shapes {
            for &off in shape.cells() {
                if !shape.has_exit(off, dir.opposite()) {
                    continue;
                }
                let anchor = (cell.0 - off.0, cell.1 - off.1);
                let new: Vec<Cell> = shape
                    .cells()
                    .iter()
                    .map(|&(dx, dy)| (anchor.0 + dx, anchor.1 + dy))
                    .collect();
                // Every new cell is free and touches no room but this one.
                let fits = new.iter().filter(|&&c| c != cell).all(|&c| {
                    grid.free(c)
                        && GridDir::ALL.iter().all(|&d| {
                            let n = step(c, d);
                            new.contains(&n) || grid.at(n).is_none()
                        })
                });
                if fits {
                    for c in &new {
                        let s = grid.slot(*c);
                        grid.owner[s] = Some(r);
                    }
                    let room = &mut grid.rooms[r];
                    room.shape = shape;
                    room.anchor = anchor;
                    room.parent = Some((parent, pcell, dir));
                    if r != boss {
                        grid.rooms[boss].kind = RoomKind::Normal;
                        grid.rooms[r].kind = RoomKind::Boss;
                    }
                    return;
                }
            }
        }
    }
}

/// The floor: rooms in placement order, their designs, and the level graph.
pub(super) fn build_floor<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
    grid: &Grid<'_>,
    dead_ends: &[usize],
    pools: &RoomPools,
    attempts: u32,
) -> Floor {
    let mut graph = LevelGraph::new();
    let ids: Vec<RoomId> = grid
        .rooms
        .iter()
        .map(|p| graph.add_room(Room::new(p.kind.clone())))
        .collect();
    // Designs: the first floor of a chapter (odd levels) draws easy and medium rooms, the
    // second (even levels) medium and hard; the labyrinth draws from all three.
    let (a, b, c): (&[String], &[String], &[String]) = if params.labyrinth {
        (&pools.easy, &pools.medium, &pools.hard)
    } else if level % 2 == 1 {
        (&pools.easy, &pools.medium, &[])
    } else {
        (&pools.medium, &pools.hard, &[])
    };
    let choices: Vec<(&str, &String)> = a
        .iter()
        .map(|d| (difficulty(pools, d), d))
        .chain(b.iter().map(|d| (difficulty(pools, d), d)))
        .chain(c.iter().map(|d| (difficulty(pools, d), d)))
        .collect();
    // Doors: every pair of neighbouring cells of different rooms with door slots on both
    // sides; the link a room grew through is its tree link.
    let mut seen: BTreeSet<(usize, usize, Cell, GridDir)> = BTreeSet::new();
    for (i, p) in grid.rooms.iter().enumerate() {
        if let Some((parent, cell, dir)) = p.parent {
            let kind = link_kind(p);
            graph.add_link(ids[parent], ids[i], Link::new(kind));
            seen.insert((parent, i, cell, dir));
        }
    }
    for (i, p) in grid.rooms.iter().enumerate() {
        for c in p.cells() {
            for d in [GridDir::Right, GridDir::Down, GridDir::Left, GridDir::Up] {
                let n = step(c, d);
                let Some(o) = grid.at(n) else { continue };
                if o == i || !grid.has_exit(i, c, d) || !grid.has_exit(o, n, d.opposite()) {
                    continue;
                }
                let (lo, hi, cell, dir) = if i < o {
                    (i, o, c, d)
                } else {
                    (o, i, n, d.opposite())
                };
                let tree = grid.rooms[hi].parent == Some((lo, cell, dir));
                if tree || !seen.insert((lo, hi, cell, dir)) {
                    continue;
                }
                let kind = if grid.rooms[lo].kind == RoomKind::Secret {
                    link_kind(&grid.rooms[lo])
                } else {
                    link_kind(&grid.rooms[hi])
                };
                graph.add_link(ids[lo], ids[hi], Link::new(kind).with_role(LinkRole::Loop));
            }
        }
    }
    // The designed distance: walked without passing through the secret room (which is one
    // step beyond its nearest neighbour).
    let mut open = graph.clone();
    let secret_links: Vec<_> = open
        .links()
        .filter(|(.., l)| l.kind == LinkKind::Secret)
        .map(|(id, ..)| id)
        .collect();
    for l in secret_links {
        open.remove_link(l);
    }
    let mut dist = distances_from(&open, ids[0]);
    for (i, p) in grid.rooms.iter().enumerate() {
        if p.kind == RoomKind::Secret {
            let near = graph
                .incident_links(ids[i])
                .filter_map(|(_, o)| dist.get(&o).copied())
                .min();
            if let Some(d) = near {
                dist.insert(ids[i], d + 1);
            }
        }
    }
    let rooms = grid
        .rooms
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let design = (p.kind == RoomKind::Normal && !choices.is_empty()).then(|| {
                let (diff, name) = choices[seed::index(rng, choices.len())];
                if let Some(room) = graph.room_mut(ids[i]) {
                    room.tags.insert(diff.to_string());
                }
                name.clone()
            });
            FloorRoom {
                id: ids[i],
                shape: p.shape,
                anchor: p.anchor,
                cells: p.cells().collect(),
                kind: p.kind.clone(),
                design,
                distance: dist.get(&ids[i]).copied().unwrap_or(u32::MAX),
            }
        })
        .collect();
    Floor {
        level,
        seed: 0,
        size: (params.width, params.height),
        room_target: 0,
        rooms,
        graph,
        dead_ends: dead_ends.iter().map(|&r| ids[r]).collect(),
        attempts,
        secret_tries: 0,
        secret_needed: 0,
        requeued: false,
    }
}

pub(super) fn link_kind(room: &Plan) -> LinkKind {
    if room.kind == RoomKind::Secret {
        LinkKind::Secret
    } else {
        LinkKind::Door
    }
}

pub(super) fn difficulty(pools: &RoomPools, design: &String) -> &'static str {
    if pools.easy.contains(design) {
        "easy"
    } else if pools.medium.contains(design) {
        "medium"
    } else {
        "hard"
    }
}
