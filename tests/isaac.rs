//! The Isaac recipe: floor plans over levels 1-8 and random seeds.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use levelplan::recipes::isaac::{Floor, GridDir, IsaacParams, RoomShape, SpecialRoom, generate};
use levelplan::{LinkKind, RoomId, RoomKind};
use proptest::prelude::*;

/// Steps from the start to every room, over doors but not through the secret room.
fn distances_without_secret(f: &Floor) -> BTreeMap<RoomId, u32> {
    let g = &f.graph;
    let start = g.entrance().unwrap();
    let mut dist = BTreeMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(r) = queue.pop_front() {
        for (l, next) in g.exits(r) {
            if g.link(l).unwrap().kind == LinkKind::Secret {
                continue;
            }
            if !dist.contains_key(&next) {
                dist.insert(next, dist[&r] + 1);
                queue.push_back(next);
            }
        }
    }
    dist
}

/// Dead ends read from the graph: rooms other than the start and the secret room with one door
/// (not counting secret doors).
fn graph_dead_ends(f: &Floor) -> BTreeSet<RoomId> {
    f.graph
        .rooms()
        .filter(|(_, room)| !matches!(room.kind, RoomKind::Entrance | RoomKind::Secret))
        .map(|(id, _)| id)
        .filter(|&id| non_secret_degree(f, id) == 1)
        .collect()
}

/// The grid's four directions with their steps.
const SIDES: [(GridDir, (i32, i32)); 4] = [
    (GridDir::Up, (0, -1)),
    (GridDir::Down, (0, 1)),
    (GridDir::Left, (-1, 0)),
    (GridDir::Right, (1, 0)),
];

/// The secret-room score of every cell, read from the grid without the secret room: for a free
/// cell, the number of rooms it touches, if none of them is a dead end and each has a door slot
/// towards it (`None` otherwise).
fn secret_scores(f: &Floor, dead: &BTreeSet<RoomId>) -> Vec<Option<usize>> {
    let (w, h) = f.size;
    let owner = |c: (i32, i32)| {
        f.rooms
            .iter()
            .find(|r| r.kind != RoomKind::Secret && r.cells.contains(&c))
    };
    let mut out = Vec::new();
    for y in 0..h {
        for x in 1..=w {
            if owner((x, y)).is_some() {
                out.push(None);
                continue;
            }
            let mut around = BTreeSet::new();
            let mut fits = true;
            for (_, (dx, dy)) in SIDES {
                let n = (x + dx, y + dy);
                if let Some(r) = owner(n) {
                    around.insert(r.id);
                    let offset = (n.0 - r.anchor.0, n.1 - r.anchor.1);
                    let back = SIDES.iter().find(|s| s.1 == (-dx, -dy)).unwrap().0;
                    fits &= !dead.contains(&r.id) && r.shape.has_exit(offset, back);
                }
            }
            out.push(fits.then_some(around.len()));
        }
    }
    out
}

fn non_secret_degree(f: &Floor, r: RoomId) -> usize {
    f.graph
        .incident_links(r)
        .filter(|(l, _)| f.graph.link(*l).unwrap().kind != LinkKind::Secret)
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn floors_keep_the_spec_invariants(level in 1u32..=8, seed in any::<u64>(), large in any::<bool>()) {
        let params = IsaacParams { large_rooms: large, ..IsaacParams::default() };
        let f = generate(level, seed, &params).unwrap();
        // Exact room count: the formula's value, plus the secret room.
        let low = (5.0 + 2.6 * level as f64).floor() as usize;
        prop_assert!(f.room_target == low || f.room_target == low + 1, "target {}", f.room_target);
        prop_assert_eq!(f.rooms.len(), f.room_target + 1);
        prop_assert_eq!(f.graph.room_count(), f.rooms.len());
        let secret = f.rooms.iter().find(|r| r.kind == RoomKind::Secret).unwrap();
        let boss = f.rooms.iter().find(|r| r.kind == RoomKind::Boss).unwrap();
        let start = &f.rooms[0];
        prop_assert_eq!(&start.kind, &RoomKind::Entrance);
        // Without the secret room the plan is a tree, unless large rooms closed a loop.
        let non_secret_links = f.graph.links().filter(|(.., l)| l.kind != LinkKind::Secret).count();
        let has_large = f.rooms.iter().any(|r| r.shape != RoomShape::Single);
        if !has_large {
            prop_assert_eq!(non_secret_links, f.rooms.len() - 2);
        }
        // The boss is at the maximal distance from the start (growth is breadth first) unless
        // the start was queued again or large rooms reshaped the floor; never next to the start.
        let dist = distances_without_secret(&f);
        prop_assert_eq!(dist.len(), f.rooms.len() - 1, "every room but the secret one is reachable without it");
        if !f.requeued && !has_large {
            let far = dist.values().max().unwrap();
            prop_assert_eq!(dist[&boss.id], *far);
        }
        let touching = boss.cells.iter().any(|&(x, y)| start.cells.iter().any(|&(a, b)| (x - a).abs() + (y - b).abs() == 1));
        prop_assert!(!touching, "the boss is next to the start");
        prop_assert!(dist[&boss.id] >= 2);
        // The secret room, read from the grid: the rooms on its four sides are its graph
        // neighbours (a secret door on each side with a room), none of them a dead end (dead ends read from the
        // graph). It touches 3 rooms if a free cell touching 3 exists, unless it missed every
        // such cell in 300 uniform draws over the 72 cells (4 such cells or more are all
        // missed with chance (68/72)^300 < 1e-7); the same for 2 rooms over the next 300.
        let dead = graph_dead_ends(&f);
        let cell = secret.cells[0];
        let touching: BTreeSet<RoomId> = SIDES
            .iter()
            .filter_map(|(_, (dx, dy))| {
                let n = (cell.0 + dx, cell.1 + dy);
                f.rooms.iter().find(|r| r.cells.contains(&n)).map(|r| r.id)
            })
            .collect();
        let sides = SIDES
            .iter()
            .filter(|(_, (dx, dy))| f.rooms.iter().any(|r| r.cells.contains(&(cell.0 + dx, cell.1 + dy))))
            .count();
        let around: BTreeSet<RoomId> = f.graph.incident_links(secret.id).map(|(_, o)| o).collect();
        prop_assert_eq!(&touching, &around);
        prop_assert_eq!(f.graph.incident_links(secret.id).count(), sides, "a secret door per side");
        prop_assert!(!touching.is_empty());
        for r in &touching {
            prop_assert!(!dead.contains(r), "the secret room touches dead end {}", r);
        }
        let scores = secret_scores(&f, &dead);
        let at_least = |k: usize| scores.iter().filter(|s| s.is_some_and(|n| n >= k)).count();
        if touching.len() < 3 {
            prop_assert!(at_least(3) <= 3, "{} cells touch 3 rooms; the secret room touches {}", at_least(3), touching.len());
        }
        if touching.len() < 2 {
            prop_assert!(at_least(2) <= 3, "{} cells touch 2 rooms; the secret room touches 1", at_least(2));
        }
        // Special rooms lie on dead ends.
        for r in &f.rooms {
            if !matches!(r.kind, RoomKind::Normal | RoomKind::Entrance | RoomKind::Secret) {
                prop_assert!(dead.contains(&r.id), "{} room {} is not on a dead end", r.kind, r.id);
            }
        }
        prop_assert_eq!(f.graph.rooms_of_kind(&RoomKind::Reward).count(), 1);
        prop_assert_eq!(f.graph.rooms_of_kind(&RoomKind::Shop).count(), 1);
        // Normal rooms have designs from the chapter's pools.
        for r in f.rooms.iter().filter(|r| r.kind == RoomKind::Normal) {
            let tags = &f.graph.room(r.id).unwrap().tags;
            prop_assert!(r.design.is_some());
            if level % 2 == 1 { prop_assert!(!tags.contains("hard")); } else { prop_assert!(!tags.contains("easy")); }
        }
        // Same seed, same floor.
        let again = generate(level, seed, &params).unwrap();
        prop_assert_eq!(again, f);
    }

    #[test]
    fn labyrinth_floors_double_up(level in 1u32..=6, seed in any::<u64>()) {
        let params = IsaacParams { labyrinth: true, ..IsaacParams::default() };
        let f = generate(level, seed, &params).unwrap();
        let base = (5.0 + 2.6 * level as f64).floor() as usize;
        prop_assert!(f.room_target <= 45);
        prop_assert!(f.room_target == ((base as f64 * 1.8) as usize).min(45) || f.room_target == (((base + 1) as f64 * 1.8) as usize).min(45));
        let bosses: Vec<_> = f.rooms.iter().filter(|r| r.kind == RoomKind::Boss).collect();
        prop_assert_eq!(bosses.len(), 2);
        prop_assert!(f.graph.incident_links(bosses[0].id).any(|(_, o)| o == bosses[1].id), "the two boss rooms are adjacent");
        prop_assert_eq!(f.graph.rooms_of_kind(&RoomKind::Reward).count(), 2);
        prop_assert_eq!(f.graph.rooms_of_kind(&RoomKind::Shop).count(), 2);
    }
}

#[test]
fn large_rooms_appear_and_can_make_loops() {
    let params = IsaacParams {
        large_rooms: true,
        ..IsaacParams::default()
    };
    let (mut large, mut loops, mut large_boss) = (0, 0, 0);
    for seed in 0..300 {
        let f = generate(6, seed, &params).unwrap();
        large += f
            .rooms
            .iter()
            .filter(|r| r.shape != RoomShape::Single)
            .count();
        let non_secret = f
            .graph
            .links()
            .filter(|(.., l)| l.kind != LinkKind::Secret)
            .count();
        if non_secret > f.rooms.len() - 2 {
            loops += 1;
        }
        if f.rooms
            .iter()
            .any(|r| r.kind == RoomKind::Boss && r.shape != RoomShape::Single)
        {
            large_boss += 1;
        }
        for r in &f.rooms {
            assert_eq!(r.cells.len(), r.shape.cells().len());
        }
    }
    assert!(large > 300, "large rooms: {large}");
    assert!(loops > 5, "floors with loops: {loops}");
    assert!(large_boss > 30, "large boss rooms: {large_boss}");
}

#[test]
fn conditions_change_the_special_rooms() {
    let count = |flags: &[&str], kind: &str| -> usize {
        let params = IsaacParams {
            flags: flags.iter().map(|s| s.to_string()).collect(),
            ..IsaacParams::default()
        };
        (0..700)
            .filter(|&seed| {
                let f = generate(5, seed, &params).unwrap();
                f.graph
                    .rooms_of_kind(&RoomKind::Custom(kind.into()))
                    .count()
                    > 0
            })
            .count()
    };
    // A sacrifice room 1 time in 7, 1 in 3 at full health: see `special_room_chances_are_binomial`.
    let plain = count(&[], "sacrifice");
    let healthy = count(&["full_health"], "sacrifice");
    assert!(healthy > plain + 60, "at full health: {healthy} of 700");
    assert_eq!(count(&[], "arcade"), 0, "arcades need coins");
    assert!(count(&["has_coins"], "arcade") > 100);
}

#[test]
fn bad_parameters_are_named() {
    let err = generate(
        1,
        1,
        &IsaacParams {
            start: (0, 3),
            ..IsaacParams::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid Isaac parameters: field `start`: (0, 3) is outside the grid; x must be in 1..=9 and y in 0..8"
    );
    // Level 14 (42 or 43 rooms) fits the grid, but seed 1 takes 830 attempts.
    let err = generate(
        14,
        1,
        &IsaacParams {
            retry: levelplan::layout::RetryPolicy::Attempts(50),
            ..IsaacParams::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no valid floor in 50 attempts: the last failed because"),
        "{err}"
    );
    // Level 15 (44 or 45 rooms) cannot fit 9 x 8 and is refused before any attempt; a bigger
    // grid takes it.
    let err = generate(15, 1, &IsaacParams::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid Isaac parameters: field `level`: level 15 wants up to 45 rooms, more than a 9 x 8 \
         grid holds (growth keeps rooms apart and fills at most 43 of its 72 cells); enlarge the \
         grid (`width` and `height`, `--grid` on the command line) or choose a lower level"
    );
    let big = IsaacParams {
        width: 12,
        height: 10,
        start: (6, 4),
        ..IsaacParams::default()
    };
    assert!(generate(15, 1, &big).is_ok());
}

/// The mean number of dead ends and boss distance per level, against a model of the growth.
///
/// Model: without the grid's edges and the neighbour rule, growth is a Galton-Watson tree
/// grown breadth first: the start tries 4 directions and every later room 3 (the fourth is its
/// parent), each succeeding with probability 1/2, so the start has 2 children on average and
/// every other room m = 1.5; generation k holds about 2·m^(k-1) rooms and generations 0..=k
/// about 1 + 4·(m^k - 1) rooms. Growth stops at n rooms, so the last (boss) generation is
/// reached at depth d(n) = log_m((n + 3) / 4). The dead ends are the rooms that added nothing:
/// every room still queued when the count is reached (the last generation, a fraction
/// (m - 1) / m = 1/3 of a geometric tree) and, among the others, those whose three coin flips
/// all failed (1/8): about n · (1/3 + 2/3 · 1/8) = 0.417 · n.
///
/// The neighbour rule and the grid's edges only ever remove candidate cells, so the real
/// trees branch less: they are deeper (boss distance at least d(n); measured on floors grown in
/// one pass, 1.3 times d(n) on level 1 rising to 1.7 times on level 8, as the grid fills and
/// blocks more cells: the bound is 1.75 times) and have fewer side branches to end in (dead
/// ends below the model, but not by more than 30%; small floors sit slightly above it because
/// their rooms are queued early and cut off by the count).
#[test]
fn dead_ends_and_boss_distance_follow_the_growth_model() {
    let params = IsaacParams::default();
    for level in 1..=8u32 {
        let seeds = 600;
        let (mut dead, mut boss, mut rooms, mut one_pass) = (0.0, 0.0, 0.0, 0);
        for seed in 0..seeds {
            let f = generate(level, seed, &params).unwrap();
            let dist = distances_without_secret(&f);
            let b = f.rooms.iter().find(|r| r.kind == RoomKind::Boss).unwrap();
            dead += graph_dead_ends(&f).len() as f64;
            // The model is of growth in one pass: a floor whose start was queued again stalled
            // early and grew deep branches before (its boss, the farthest dead end, lies deeper).
            if !f.requeued {
                boss += dist[&b.id] as f64;
                one_pass += 1;
            }
            rooms += f.room_target as f64;
        }
        assert!(
            one_pass >= seeds / 2,
            "level {level}: {one_pass} floors grown in one pass"
        );
        let (dead, boss, n) = (
            dead / seeds as f64,
            boss / one_pass as f64,
            rooms / seeds as f64,
        );
        let depth = ((n + 3.0) / 4.0).ln() / 1.5f64.ln();
        let model_dead = n * (1.0 / 3.0 + 2.0 / 3.0 / 8.0);
        assert!(
            boss >= depth && boss <= 1.75 * depth,
            "level {level}: boss distance {boss:.2}, model {depth:.2}"
        );
        assert!(
            dead >= 0.7 * model_dead && dead <= 1.2 * model_dead,
            "level {level}: dead ends {dead:.2}, model {model_dead:.2}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn the_tile_map_connects_every_room(level in 1u32..=8, seed in any::<u64>(), large in any::<bool>()) {
        use levelplan::tiles::Tile;
        let params = IsaacParams { large_rooms: large, ..IsaacParams::default() };
        let f = generate(level, seed, &params).unwrap();
        let map = f.tile_map();
        let (rw, rh) = (levelplan::recipes::isaac::ROOM_TILES.0 as i64, levelplan::recipes::isaac::ROOM_TILES.1 as i64);
        let centre = |r: &levelplan::recipes::isaac::FloorRoom| {
            let (x, y) = r.cells[0];
            ((x as i64 - 1) * rw + rw / 2, y as i64 * rh + rh / 2)
        };
        let (sx, sy) = centre(&f.rooms[0]);
        // Without secret doors every room but the secret one is reachable; with them, all.
        let open = map.flood_fill(sx, sy, |t| matches!(t, Tile::Floor | Tile::Door));
        let all = map.flood_fill(sx, sy, Tile::walkable);
        for r in &f.rooms {
            let (x, y) = centre(r);
            let owner = Some(r.id.0);
            prop_assert_eq!(map.regions.get(x, y), Some(&owner), "room {} owns its floor", r.id);
            prop_assert_eq!(open.get(x, y) == Some(&true), r.kind != RoomKind::Secret, "room {}", r.id);
            prop_assert_eq!(all.get(x, y), Some(&true));
        }
        // Every floor tile belongs to some room, and doors come in pairs: one per graph link.
        let doors = map.tiles.values().iter().filter(|t| matches!(t, Tile::Door | Tile::SecretDoor)).count();
        prop_assert_eq!(doors, 2 * f.graph.link_count());
        for ((x, y), t) in map.tiles.iter() {
            if *t == Tile::Floor {
                prop_assert!(map.regions.get(x as i64, y as i64).unwrap().is_some());
            }
        }
    }
}

/// The sacrifice room's chance, 1 in 7 (1 in 3 with `full_health`), as a binomial count. With
/// the sacrifice room alone in the table, nothing else takes dead ends, so a floor had a dead
/// end free for it exactly when it has the room or still has a normal dead end (read from the
/// graph); on those floors the room is a coin flip. The count must lie within 4.5 standard
/// deviations of its mean (a false alarm about 1 run in 150,000); a chance off by a quarter
/// falls outside.
#[test]
fn special_room_chances_are_binomial() {
    let sacrifice = RoomKind::Custom("sacrifice".into());
    for (flags, chance) in [(vec![], 1.0 / 7.0), (vec!["full_health"], 1.0 / 3.0)] {
        let mut room = SpecialRoom::new(sacrifice.clone(), 1.0 / 7.0);
        room.chance_if = Some(("full_health".into(), 1.0 / 3.0));
        let params = IsaacParams {
            flags: flags.iter().map(|f| f.to_string()).collect(),
            special_rooms: vec![room],
            ..IsaacParams::default()
        };
        let (mut eligible, mut hits) = (0u32, 0u32);
        for seed in 0..4000 {
            let f = generate(5, seed, &params).unwrap();
            let has = f.graph.rooms_of_kind(&sacrifice).count() > 0;
            let free = graph_dead_ends(&f)
                .iter()
                .any(|&r| f.graph.room(r).unwrap().kind == RoomKind::Normal);
            if has || free {
                eligible += 1;
                hits += u32::from(has);
            }
        }
        let n = f64::from(eligible);
        let (mean, sd) = (n * chance, (n * chance * (1.0 - chance)).sqrt());
        assert!(eligible > 3000, "{eligible} floors had a free dead end");
        assert!(
            (f64::from(hits) - mean).abs() <= 4.5 * sd,
            "{flags:?}: {hits} sacrifice rooms on {eligible} floors, expected {mean:.0} ± {:.0}",
            4.5 * sd
        );
    }
}

/// The spec: "the boss is the last dead end recorded; growth is outward, so it is always among
/// the farthest rooms" (distances walked without the secret room). Floors whose start was
/// queued again grow shallow rooms late; the boss is still a farthest dead end, on every level.
#[test]
fn the_boss_is_always_among_the_farthest_rooms() {
    let params = IsaacParams::default();
    for level in 1..=8u32 {
        let mut requeued = 0;
        for seed in 0..300 {
            let f = generate(level, seed, &params).unwrap();
            requeued += usize::from(f.requeued);
            let dist = distances_without_secret(&f);
            let boss = f.rooms.iter().find(|r| r.kind == RoomKind::Boss).unwrap();
            let far = dist.values().max().unwrap();
            // The distance a floor records (and the CLI prints) is the designed one.
            for r in f.rooms.iter().filter(|r| r.kind != RoomKind::Secret) {
                assert_eq!(
                    r.distance, dist[&r.id],
                    "level {level} seed {seed}: {}",
                    r.id
                );
            }
            assert_eq!(
                dist[&boss.id], *far,
                "level {level} seed {seed}: the boss is {} rooms away, the farthest {far}",
                dist[&boss.id]
            );
        }
        if level >= 5 {
            assert!(requeued > 0, "level {level}: no floor re-queued its start");
        }
    }
}
