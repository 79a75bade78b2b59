//! The solver against brute force on small graphs, and its walkthroughs replayed.

use std::collections::{BTreeSet, HashMap, VecDeque};

use levelplan::graph::solve::{Missing, SolveOptions, Step, Unsolvable, solve, solve_with};
use levelplan::{Item, KeyId, LevelGraph, Link, LinkKind, Lock, Opener, Room, RoomId, RoomKind};
use proptest::prelude::*;

/// A small random level: rooms 0 (entrance) .. n-1 (exit), a random tree plus extra links,
/// random locks (keys, switches, small keys) and openers, some one-way links.
fn random_level(n: usize, extra: usize, locks: usize, one_way: bool, seed: u64) -> LevelGraph {
    let mut rng = levelplan::seed::stream(seed, "solver-test");
    let r = |rng: &mut levelplan::LevelRng, k: usize| levelplan::seed::index(rng, k);
    let mut g = LevelGraph::new();
    let rooms: Vec<RoomId> = (0..n)
        .map(|i| {
            g.add_room(Room::new(if i == 0 {
                RoomKind::Entrance
            } else if i == n - 1 {
                RoomKind::Exit
            } else {
                RoomKind::Normal
            }))
        })
        .collect();
    let mut links = Vec::new();
    for i in 1..n {
        let p = rooms[r(&mut rng, i)];
        links.push(g.add_link(p, rooms[i], Link::door()));
    }
    for _ in 0..extra {
        let (a, b) = (rooms[r(&mut rng, n)], rooms[r(&mut rng, n)]);
        if a != b {
            let kind = if one_way && levelplan::seed::chance(&mut rng, 0.4) {
                LinkKind::OneWay
            } else {
                LinkKind::Door
            };
            links.push(g.add_link(a, b, Link::new(kind)));
        }
    }
    let ring = g.new_key();
    for _ in 0..locks {
        let l = links[r(&mut rng, links.len())];
        let roll = r(&mut rng, 4);
        let lock = match roll {
            0 => Lock {
                by: g.new_key(),
                opener: Opener::Key,
            },
            1 => Lock {
                by: g.new_key(),
                opener: Opener::Switch,
            },
            _ => Lock {
                by: ring,
                opener: Opener::SmallKey,
            },
        };
        g.link_mut(l).unwrap().lock = Some(lock);
        // Usually one opener somewhere, sometimes none.
        let copies = if lock.opener == Opener::SmallKey {
            // Often fewer small keys than small locks: that is where spending orders matter.
            [0, 0, 1, 1, 1, 2][r(&mut rng, 6)]
        } else {
            usize::from(levelplan::seed::chance(&mut rng, 0.9))
        };
        for _ in 0..copies {
            let room = rooms[r(&mut rng, n)];
            let item = match lock.opener {
                Opener::Key => Item::Key(lock.by),
                Opener::Switch => Item::Switch(lock.by),
                _ => Item::SmallKey(ring),
            };
            g.room_mut(room).unwrap().items.push(item);
        }
    }
    g
}

/// Everything brute force finds: whether the goal is reachable, and whether some reachable
/// state can no longer reach it. Raw states: (room, openers picked up, small locks opened);
/// walking into a room picks up what lies there.
fn brute_force(g: &LevelGraph) -> (bool, bool) {
    let start = g.entrance().unwrap();
    let goal = g.rooms_of_kind(&RoomKind::Exit).next().unwrap();
    let openers: Vec<(RoomId, KeyId, Opener)> = g
        .rooms()
        .flat_map(|(id, r)| {
            r.items
                .iter()
                .filter_map(move |i| i.opens().map(|(k, o)| (id, k, o)))
        })
        .collect();
    let pick = |room: RoomId, held: u32| -> u32 {
        openers
            .iter()
            .enumerate()
            .filter(|(_, o)| o.0 == room)
            .fold(held, |h, (i, _)| h | 1 << i)
    };
    let small_links: Vec<_> = g
        .links()
        .filter(|(.., l)| l.lock.is_some_and(|k| k.opener == Opener::SmallKey))
        .map(|(id, ..)| id)
        .collect();
    let keys_left = |held: u32, spent: u32, ring: KeyId| -> usize {
        let got = openers
            .iter()
            .enumerate()
            .filter(|(i, o)| held >> i & 1 == 1 && o.2 == Opener::SmallKey && o.1 == ring)
            .count();
        let used = small_links
            .iter()
            .enumerate()
            .filter(|(i, l)| spent >> i & 1 == 1 && g.link(**l).unwrap().lock.unwrap().by == ring)
            .count();
        got - used
    };
    type St = (RoomId, u32, u32);
    let first: St = (start, pick(start, 0), 0);
    let mut index: HashMap<St, usize> = HashMap::from([(first, 0)]);
    let mut states = vec![first];
    let mut edges: Vec<Vec<usize>> = vec![vec![]];
    let mut queue = VecDeque::from([0]);
    while let Some(i) = queue.pop_front() {
        let (room, held, spent) = states[i];
        let mut next = Vec::new();
        for (l, other) in g.incident_links(room) {
            let link = g.link(l).unwrap();
            let (from, _) = g.endpoints(l).unwrap();
            if !link.passable(from == room) {
                continue;
            }
            match link.lock {
                None => next.push((other, pick(other, held), spent)),
                Some(k) if k.opener == Opener::SmallKey => {
                    let si = small_links.iter().position(|&x| x == l).unwrap();
                    if spent >> si & 1 == 1 {
                        next.push((other, pick(other, held), spent));
                    } else if keys_left(held, spent, k.by) > 0 {
                        next.push((room, held, spent | 1 << si)); // spend here, stay
                    }
                }
                Some(k) => {
                    if openers
                        .iter()
                        .enumerate()
                        .any(|(i, o)| held >> i & 1 == 1 && o.1 == k.by && o.2 == k.opener)
                    {
                        next.push((other, pick(other, held), spent));
                    }
                }
            }
        }
        for s in next {
            let j = *index.entry(s).or_insert_with(|| {
                states.push(s);
                edges.push(vec![]);
                queue.push_back(states.len() - 1);
                states.len() - 1
            });
            edges[i].push(j);
        }
    }
    let n = states.len();
    let mut alive: Vec<bool> = states.iter().map(|s| s.0 == goal).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if !alive[i] && edges[i].iter().any(|&j| alive[j]) {
                alive[i] = true;
                changed = true;
            }
        }
    }
    (
        alive[0] || states.iter().any(|s| s.0 == goal),
        alive.iter().any(|a| !a),
    )
}

/// Replays a walkthrough: every collected room reachable at its turn with what was collected,
/// every lock opened with its opener in hand, the goal reached last.
fn replay(g: &LevelGraph, steps: &[Step]) -> Result<(), String> {
    let mut at = g.entrance().unwrap();
    let mut held: Vec<Item> = Vec::new();
    let mut opened: BTreeSet<levelplan::LinkId> = BTreeSet::new();
    let reach =
        |from: RoomId, held: &[Item], opened: &BTreeSet<levelplan::LinkId>| -> BTreeSet<RoomId> {
            let mut seen = BTreeSet::from([from]);
            let mut queue = VecDeque::from([from]);
            while let Some(x) = queue.pop_front() {
                for (l, y) in g.exits(x) {
                    let open = g.link(l).unwrap().lock.is_none() || opened.contains(&l);
                    if open && seen.insert(y) {
                        queue.push_back(y);
                    }
                }
            }
            let _ = held;
            seen
        };
    for step in steps {
        match step {
            Step::Collect { room, item } => {
                if !reach(at, &held, &opened).contains(room) {
                    return Err(format!("{step}: not reachable"));
                }
                held.push(item.clone());
            }
            Step::Open { link, lock } => {
                let (a, b) = g.endpoints(*link).unwrap();
                let r = reach(at, &held, &opened);
                if !r.contains(&a) && !r.contains(&b) {
                    return Err(format!("{step}: lock not reachable"));
                }
                let ok = match lock.opener {
                    Opener::SmallKey => {
                        let got = held
                            .iter()
                            .filter(|i| **i == Item::SmallKey(lock.by))
                            .count();
                        let used = opened
                            .iter()
                            .filter(|l| {
                                g.link(**l).unwrap().lock.is_some_and(|k| {
                                    k.opener == Opener::SmallKey && k.by == lock.by
                                })
                            })
                            .count();
                        got > used
                    }
                    _ => held
                        .iter()
                        .any(|i| i.opens() == Some((lock.by, lock.opener))),
                };
                if !ok {
                    return Err(format!("{step}: opener not held"));
                }
                opened.insert(*link);
            }
            Step::OneWay { link, to } => {
                let (a, _) = g.endpoints(*link).unwrap();
                if !reach(at, &held, &opened).contains(&a) {
                    return Err(format!("{step}: one-way not reachable"));
                }
                at = *to;
            }
            Step::Reach { room } => {
                if !reach(at, &held, &opened).contains(room) {
                    return Err(format!("{step}: goal not reachable"));
                }
                return Ok(());
            }
        }
    }
    Err("no Reach step".into())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn solver_agrees_with_brute_force_without_one_way_links(n in 2usize..=10, extra in 0usize..6, locks in 0usize..5, seed in any::<u64>()) {
        let g = random_level(n, extra, locks, false, seed);
        let (reachable, soft_lock) = brute_force(&g);
        let lenient = solve_with(&g, &SolveOptions { allow_soft_locks: true, ..Default::default() });
        prop_assert_eq!(lenient.is_ok(), reachable, "{:?}", lenient);
        let strict = solve(&g);
        match &strict {
            Ok(w) => {
                prop_assert!(!soft_lock);
                prop_assert_eq!(replay(&g, &w.steps), Ok(()));
            }
            Err(Unsolvable::SoftLock { .. }) => prop_assert!(reachable && soft_lock),
            Err(Unsolvable::Unreachable { .. }) => prop_assert!(!reachable),
            Err(e) => prop_assert!(false, "unexpected: {}", e),
        }
    }

    #[test]
    fn solver_soft_locks_are_real_with_one_way_links(n in 2usize..=10, extra in 0usize..6, locks in 0usize..5, seed in any::<u64>()) {
        let g = random_level(n, extra, locks, true, seed);
        let (reachable, soft_lock) = brute_force(&g);
        let lenient = solve_with(&g, &SolveOptions { allow_soft_locks: true, ..Default::default() });
        prop_assert_eq!(lenient.is_ok(), reachable, "{:?}", lenient);
        if let Ok(w) = &lenient {
            prop_assert_eq!(replay(&g, &w.steps), Ok(()));
        }
        if let Err(Unsolvable::SoftLock { .. }) = solve(&g) {
            prop_assert!(soft_lock, "the solver's soft-lock is one brute force finds too");
        }
    }
}

#[test]
fn spending_small_keys_in_the_wrong_order_is_reported() {
    // One small key; two small-locked doors: one to a dead end, one to the exit.
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let closet = g.add_room(Room::new(RoomKind::Normal));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let ring = g.new_key();
    g.room_mut(start).unwrap().items.push(Item::SmallKey(ring));
    let small = Lock {
        by: ring,
        opener: Opener::SmallKey,
    };
    let wrong = g.add_link(start, closet, Link::door().with_lock(small));
    g.add_link(start, exit, Link::door().with_lock(small));
    let err = solve(&g).unwrap_err();
    match &err {
        Unsolvable::SoftLock { steps, .. } => assert_eq!(
            steps,
            &vec![Step::Open {
                link: wrong,
                lock: small
            }]
        ),
        other => panic!("expected a soft-lock, got {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("the player can get stuck: after open l0 with a small key of ring k0"),
        "{err}"
    );
    // Tolerating soft-locks, the level is still completable.
    let w = solve_with(
        &g,
        &SolveOptions {
            allow_soft_locks: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(w.steps.len(), 3); // collect, open, reach
}

#[test]
fn a_key_behind_its_own_lock_is_named() {
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let k = g.new_key();
    g.room_mut(exit).unwrap().items.push(Item::Key(k));
    let door = g.add_link(
        start,
        exit,
        Link::door().with_lock(Lock {
            by: k,
            opener: Opener::Key,
        }),
    );
    match solve(&g).unwrap_err() {
        Unsolvable::Unreachable { blockers, .. } => {
            assert_eq!(blockers.len(), 1);
            assert_eq!(blockers[0].link, door);
            assert_eq!(blockers[0].missing, Missing::OutOfReach { room: exit });
        }
        other => panic!("{other}"),
    }
    let message = solve(&g).unwrap_err().to_string();
    assert_eq!(
        message,
        "the goal r1 cannot be reached from r0: lock l0 needs key k0 and it lies in r1, which cannot be reached before the lock"
    );
}

#[test]
fn a_one_way_trap_is_a_soft_lock() {
    // start -> pit is one-way and the pit leads nowhere; the exit is elsewhere.
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let pit = g.add_room(Room::new(RoomKind::Normal));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let trap = g.add_link(start, pit, Link::new(LinkKind::OneWay));
    g.add_link(start, exit, Link::door());
    match solve(&g).unwrap_err() {
        Unsolvable::SoftLock {
            steps, stuck_at, ..
        } => {
            assert_eq!(
                steps,
                vec![Step::OneWay {
                    link: trap,
                    to: pit
                }]
            );
            assert_eq!(stuck_at, pit);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn built_in_flows_are_solvable_and_safe() {
    for name in levelplan::FlowTemplate::builtin_names() {
        let flow = levelplan::Flow::builtin(name).unwrap();
        for seed in 0..50 {
            let g = flow.generate(seed, &Default::default()).unwrap();
            let w = solve(&g).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(replay(&g, &w.steps), Ok(()), "{name} seed {seed}");
            assert!(w.rooms_walked >= 1);
        }
    }
}

#[test]
fn random_levels_cover_every_outcome() {
    // Guards the generator of the properties above: each outcome must occur often enough.
    let (mut unreachable, mut soft, mut safe) = (0, 0, 0);
    for seed in 0..600 {
        let g = random_level(
            3 + (seed % 8) as usize,
            (seed % 5) as usize,
            1 + (seed % 4) as usize,
            seed % 2 == 0,
            seed,
        );
        match brute_force(&g) {
            (false, _) => unreachable += 1,
            (true, true) => soft += 1,
            (true, false) => safe += 1,
        }
    }
    assert!(
        unreachable >= 60 && soft >= 12 && safe >= 60,
        "unreachable {unreachable}, soft-lock {soft}, safe {safe}"
    );
}

#[test]
fn a_locked_one_way_link_needs_its_key_in_the_walkthrough() {
    // The key for the locked one-way door lies in the start room; the walkthrough must pick it
    // up before opening that door (found by the brute-force cross-check).
    let g = random_level(5, 2, 3, true, 6753355111607069393);
    let w = solve_with(
        &g,
        &SolveOptions {
            allow_soft_locks: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(replay(&g, &w.steps), Ok(()));
}
