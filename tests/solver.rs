//! The solver against an exhaustive player on small random levels (both verdicts, every kind of
//! lock and link), its walkthroughs replayed strictly, and the traps it must name.

mod common;

use common::player::{Verdict, exhaustive, replay};
use levelplan::graph::solve::{
    Missing, PlayerModel, SolveOptions, Step, Unsolvable, solve, solve_with,
};
use levelplan::{Item, LevelGraph, Link, LinkId, LinkKind, Lock, Opener, Room, RoomId, RoomKind};
use proptest::prelude::*;

/// The entrance and the goal (first exit) of a test level.
fn ends(g: &LevelGraph) -> (RoomId, RoomId) {
    let goal = g
        .rooms_of_kind(&RoomKind::Exit)
        .next()
        .or_else(|| g.rooms_of_kind(&RoomKind::Boss).next())
        .unwrap();
    (g.entrance().unwrap(), goal)
}

/// A small random level of `n` rooms: 0 the entrance, `n - 1` the exit, some secret rooms; a
/// random tree plus `extra` links of every kind (doors, one-way, secret, window, warp, open);
/// `locks` locks of every kind (keys, switches, tasks, small keys of one ring) with zero, one or
/// two openers each, anywhere.
pub fn random_level(n: usize, extra: usize, locks: usize, seed: u64) -> LevelGraph {
    let mut rng = levelplan::seed::stream(seed, "solver-test");
    let r = |rng: &mut levelplan::LevelRng, k: usize| levelplan::seed::index(rng, k);
    let chance = |rng: &mut levelplan::LevelRng, p: f64| levelplan::seed::chance(rng, p);
    let mut g = LevelGraph::new();
    let rooms: Vec<RoomId> = (0..n)
        .map(|i| {
            g.add_room(Room::new(if i == 0 {
                RoomKind::Entrance
            } else if i == n - 1 {
                RoomKind::Exit
            } else if chance(&mut rng, 0.12) {
                RoomKind::Secret
            } else {
                RoomKind::Normal
            }))
        })
        .collect();
    let kinds = [
        LinkKind::Door,
        LinkKind::Door,
        LinkKind::OneWay,
        LinkKind::OneWay,
        LinkKind::Secret,
        LinkKind::Window,
        LinkKind::Warp,
        LinkKind::Open,
    ];
    let mut links = Vec::new();
    for i in 1..n {
        let p = rooms[r(&mut rng, i)];
        let kind = if g.room(rooms[i]).unwrap().kind == RoomKind::Secret {
            LinkKind::Secret
        } else if chance(&mut rng, 0.15) {
            LinkKind::OneWay
        } else {
            LinkKind::Door
        };
        // One-way tree links point either way.
        let (a, b) = if kind == LinkKind::OneWay && chance(&mut rng, 0.5) {
            (rooms[i], p)
        } else {
            (p, rooms[i])
        };
        links.push(g.add_link(a, b, Link::new(kind)));
    }
    for _ in 0..extra {
        let (a, b) = (rooms[r(&mut rng, n)], rooms[r(&mut rng, n)]);
        if a != b {
            let kind = kinds[r(&mut rng, kinds.len())];
            links.push(g.add_link(a, b, Link::new(kind)));
        }
    }
    let ring = g.new_key();
    for _ in 0..locks {
        let l = links[r(&mut rng, links.len())];
        let opener = [
            Opener::Key,
            Opener::Switch,
            Opener::Task,
            Opener::SmallKey,
            Opener::SmallKey,
        ][r(&mut rng, 5)];
        let lock = Lock {
            by: if opener == Opener::SmallKey {
                ring
            } else {
                g.new_key()
            },
            opener,
        };
        g.link_mut(l).unwrap().lock = Some(lock);
        let copies = if opener == Opener::SmallKey {
            // Often fewer small keys than small locks: that is where spending orders matter.
            [0, 0, 1, 1, 1, 2][r(&mut rng, 6)]
        } else {
            [0, 1, 1, 1, 1, 1, 1, 2][r(&mut rng, 8)]
        };
        for _ in 0..copies {
            let room = rooms[r(&mut rng, n)];
            let item = match opener {
                Opener::Key => Item::Key(lock.by),
                Opener::Switch => Item::Switch(lock.by),
                Opener::Task => Item::Task(lock.by),
                Opener::SmallKey => Item::SmallKey(ring),
            };
            g.room_mut(room).unwrap().items.push(item);
        }
    }
    g
}

/// What the exhaustive player says the solver must answer: `Ok(())` for an accepted level, or
/// the name of the error kind.
fn expected(g: &LevelGraph, v: &Verdict) -> Result<(), &'static str> {
    if !v.goal_reachable {
        Err("unreachable")
    } else if !v.everything_reached(g) {
        Err("never reached")
    } else if !v.dead_rooms.is_empty() {
        Err("soft-lock")
    } else {
        Ok(())
    }
}

fn kind(
    result: &Result<levelplan::graph::solve::Walkthrough, Unsolvable>,
) -> Result<(), &'static str> {
    match result {
        Ok(_) => Ok(()),
        Err(Unsolvable::Unreachable { .. }) => Err("unreachable"),
        Err(Unsolvable::NeverReached { .. }) => Err("never reached"),
        Err(Unsolvable::SoftLock { .. }) => Err("soft-lock"),
        Err(_) => Err("other"),
    }
}

/// Checks the solver's answer on `g` against the exhaustive player, in every detail it names.
fn cross_check(g: &LevelGraph) -> Result<Result<(), &'static str>, TestCaseError> {
    let (start, goal) = ends(g);
    let v = exhaustive(g, start, goal, 2_000_000).expect("small level");
    let want = expected(g, &v);
    let got = solve(g);
    prop_assert_eq!(kind(&got), want, "solver said {:?}", got);
    match &got {
        Ok(w) => prop_assert_eq!(replay(g, start, goal, &w.steps), Ok(())),
        Err(Unsolvable::NeverReached {
            rooms,
            openers,
            locks,
            ..
        }) => {
            prop_assert_eq!(rooms, &v.rooms_never_entered(g));
            prop_assert_eq!(openers, &v.openers_never_taken(g));
            prop_assert_eq!(locks, &v.locks_never_passed(g));
        }
        Err(Unsolvable::SoftLock {
            stuck_at,
            shut_in,
            steps,
            shut_by,
            ..
        }) => {
            prop_assert!(v.dead_rooms.contains(stuck_at), "{} is no trap", stuck_at);
            prop_assert!(!shut_in.contains(&goal) && shut_in.contains(stuck_at));
            let last = steps.last().expect("a step shuts the trap");
            let link = match last {
                Step::Open { link, .. } | Step::OneWay { link, .. } => *link,
                other => return Err(TestCaseError::fail(format!("last step {other}"))),
            };
            prop_assert_eq!(link, *shut_by);
        }
        Err(_) => {}
    }
    // Tolerating everything, the solver says whether the goal can be reached at all.
    let lenient = solve_with(
        g,
        &SolveOptions {
            allow_soft_locks: true,
            allow_never_reached: true,
            ..Default::default()
        },
    );
    prop_assert_eq!(lenient.is_ok(), v.goal_reachable, "{:?}", lenient);
    if let Ok(w) = &lenient {
        prop_assert_eq!(replay(g, start, goal, &w.steps), Ok(()));
    }
    // The thorough model is weaker, never wrong: a soft-lock it reports is real.
    let thorough = solve_with(
        g,
        &SolveOptions {
            model: PlayerModel::Thorough,
            allow_never_reached: true,
            ..Default::default()
        },
    );
    if let Err(Unsolvable::SoftLock { stuck_at, .. }) = &thorough {
        prop_assert!(v.dead_rooms.contains(stuck_at));
    }
    Ok(want)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn solver_agrees_with_the_exhaustive_player(n in 2usize..=12, extra in 0usize..7, locks in 0usize..6, seed in any::<u64>()) {
        let g = random_level(n, extra, locks, seed);
        let _verdict = cross_check(&g)?;
    }
}

#[test]
fn random_levels_cover_every_verdict() {
    // Guards the property above: each verdict, and traps only a skipping player falls into,
    // must come up often enough among the same kind of levels.
    let mut counts = std::collections::BTreeMap::new();
    let mut skip_only = 0;
    for seed in 0..1500u64 {
        let g = random_level(
            2 + (seed % 11) as usize,
            (seed % 7) as usize,
            (seed % 6) as usize,
            seed,
        );
        let want = cross_check(&g).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        *counts.entry(want).or_insert(0) += 1;
        if want == Err("soft-lock") {
            let thorough = solve_with(
                &g,
                &SolveOptions {
                    model: PlayerModel::Thorough,
                    ..Default::default()
                },
            );
            if thorough.is_ok() {
                skip_only += 1;
            }
        }
    }
    eprintln!(
        "verdicts over 1500 levels: {counts:?}; traps only a skipping player falls into: {skip_only}"
    );
    for (verdict, least) in [
        (Ok(()), 150),
        (Err("unreachable"), 150),
        (Err("never reached"), 150),
        (Err("soft-lock"), 60),
    ] {
        let got = counts.get(&verdict).copied().unwrap_or(0);
        assert!(got >= least, "{verdict:?}: {got} of 1500 ({counts:?})");
    }
    assert!(
        skip_only >= 10,
        "only {skip_only} traps need skipping ({counts:?})"
    );
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
            let (start, goal) = ends(&g);
            assert_eq!(
                replay(&g, start, goal, &w.steps),
                Ok(()),
                "{name} seed {seed}"
            );
            assert!(w.rooms_walked >= 1);
        }
    }
}

/// A one-way shortcut back into a wing whose door needs a key from a side room: the shape of
/// `generate --recipe flow --flow classic --seed 8 --locks 3 --shortcuts 3` before the fix.
fn skip_trap() -> (LevelGraph, [RoomId; 5], LinkId, levelplan::KeyId) {
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let side = g.add_room(Room::new(RoomKind::Normal));
    let hall = g.add_room(Room::new(RoomKind::Normal));
    let wing = g.add_room(Room::new(RoomKind::Normal));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let k = g.new_key();
    g.room_mut(side).unwrap().items.push(Item::Key(k));
    g.add_link(start, side, Link::door());
    g.add_link(start, hall, Link::door());
    let drop = g.add_link(hall, wing, Link::new(LinkKind::OneWay));
    let key_door = Lock {
        by: k,
        opener: Opener::Key,
    };
    g.add_link(wing, start, Link::door().with_lock(key_door));
    g.add_link(start, exit, Link::door());
    (g, [start, side, hall, wing, exit], drop, k)
}

#[test]
fn a_player_who_skips_a_key_and_takes_a_one_way_link_is_caught() {
    let (g, [_, side, _, wing, exit], drop, k) = skip_trap();
    let err = solve(&g).unwrap_err();
    assert_eq!(
        err,
        Unsolvable::SoftLock {
            goal: exit,
            steps: vec![Step::OneWay {
                link: drop,
                to: wing
            }],
            stuck_at: wing,
            shut_by: drop,
            shut_in: vec![wing],
            skipped: vec![(side, Item::Key(k))],
        }
    );
    assert_eq!(
        err.to_string(),
        "the player can get stuck: after take one-way l2 to r3, the goal r4 can no longer be \
         reached; shut in r3 by l2 (one-way), having skipped key k0 in r1"
    );
    // The thorough player picks the key up first, so the weaker model misses the trap.
    let thorough = SolveOptions {
        model: PlayerModel::Thorough,
        ..Default::default()
    };
    assert!(solve_with(&g, &thorough).is_ok());
}

#[test]
fn openers_behind_each_others_locks_are_never_reached() {
    // The shape of `--flow fork --seed 9 --locks 4` before the fix: k0 behind k1's lock and
    // k1 behind k0's; the goal does not need either wing.
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let west = g.add_room(Room::new(RoomKind::Reward));
    let east = g.add_room(Room::new(RoomKind::Reward));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let (k0, k1) = (g.new_key(), g.new_key());
    g.room_mut(east).unwrap().items.push(Item::Key(k0));
    g.room_mut(west).unwrap().items.push(Item::Key(k1));
    let lock0 = Lock {
        by: k0,
        opener: Opener::Key,
    };
    let lock1 = Lock {
        by: k1,
        opener: Opener::Key,
    };
    let to_west = g.add_link(start, west, Link::door().with_lock(lock0));
    let to_east = g.add_link(start, east, Link::door().with_lock(lock1));
    g.add_link(start, exit, Link::door());
    let err = solve(&g).unwrap_err();
    let Unsolvable::NeverReached {
        rooms,
        openers,
        locks,
        blockers,
    } = &err
    else {
        panic!("{err}");
    };
    assert_eq!(rooms, &vec![west, east]);
    assert_eq!(openers, &vec![(west, Item::Key(k1)), (east, Item::Key(k0))]);
    assert_eq!(locks, &vec![(to_west, lock0), (to_east, lock1)]);
    assert_eq!(blockers.len(), 2);
    assert_eq!(blockers[0].missing, Missing::OutOfReach { room: east });
    assert_eq!(
        err.to_string(),
        "part of the level can never be reached in any play: rooms r1, r2 are never entered; \
         key k1 in r1, key k0 in r2 never picked up; locks l0 (key k0), l1 (key k1) never open: \
         lock l0 needs key k0 and it lies in r2, which cannot be reached before the lock; lock \
         l1 needs key k1 and it lies in r1, which cannot be reached before the lock"
    );
    // Secret rooms may stay hidden, but not an opener inside one.
    let mut hidden = g.clone();
    for l in [to_west, to_east] {
        hidden.link_mut(l).unwrap().lock = None;
    }
    let secret = hidden.add_room(Room::new(RoomKind::Secret));
    hidden.add_link(exit, secret, Link::new(LinkKind::Window));
    assert!(solve(&hidden).is_ok());
    hidden
        .room_mut(secret)
        .unwrap()
        .items
        .push(Item::Switch(k1));
    assert!(matches!(
        solve(&hidden),
        Err(Unsolvable::NeverReached { ref rooms, ref openers, .. })
            if rooms.is_empty() && openers == &vec![(secret, Item::Switch(k1))]
    ));
}

#[test]
fn running_out_of_states_is_an_error_never_an_acceptance() {
    let (g, ..) = skip_trap();
    for max_states in 0..3 {
        let result = solve_with(
            &g,
            &SolveOptions {
                max_states,
                ..Default::default()
            },
        );
        assert!(
            matches!(result, Err(Unsolvable::TooManyStates { limit }) if limit == max_states),
            "{result:?}"
        );
    }
}

#[test]
fn the_strict_replay_rejects_wrong_walkthroughs() {
    // A key in a side room opens the door to a hall; a one-way drop leads on to the exit.
    let mut g = LevelGraph::new();
    let start = g.add_room(Room::new(RoomKind::Entrance));
    let side = g.add_room(Room::new(RoomKind::Normal));
    let hall = g.add_room(Room::new(RoomKind::Normal));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let k = g.new_key();
    g.room_mut(side).unwrap().items.push(Item::Key(k));
    let lock = Lock {
        by: k,
        opener: Opener::Key,
    };
    g.add_link(start, side, Link::door());
    let door = g.add_link(start, hall, Link::door().with_lock(lock));
    let drop = g.add_link(hall, exit, Link::new(LinkKind::OneWay));
    let w = solve(&g).unwrap();
    let good = vec![
        Step::Collect {
            room: side,
            item: Item::Key(k),
        },
        Step::Open { link: door, lock },
        Step::OneWay {
            link: drop,
            to: exit,
        },
        Step::Reach { room: exit },
    ];
    assert_eq!(replay(&g, start, exit, &w.steps), Ok(()));
    assert_eq!(replay(&g, start, exit, &good), Ok(()));
    let mut wrong: Vec<Vec<Step>> = Vec::new();
    // The key is not in that room.
    let mut s = good.clone();
    s[0] = Step::Collect {
        room: start,
        item: Item::Key(k),
    };
    wrong.push(s);
    // The door opened without the key.
    wrong.push(good[1..].to_vec());
    // Through the locked door without opening it.
    wrong.push(vec![good[0].clone(), good[2].clone(), good[3].clone()]);
    // The one-way link backwards.
    let mut s = good.clone();
    s[2] = Step::OneWay {
        link: drop,
        to: hall,
    };
    wrong.push(s);
    // Reaching a room that is not the goal, or not last.
    let mut s = good.clone();
    s[3] = Step::Reach { room: hall };
    wrong.push(s);
    let mut s = good.clone();
    s.insert(3, Step::Reach { room: exit });
    wrong.push(s);
    // The same key collected twice.
    let mut s = good.clone();
    s.insert(1, good[0].clone());
    wrong.push(s);
    // No Reach at all.
    wrong.push(good[..3].to_vec());
    for (i, steps) in wrong.iter().enumerate() {
        assert!(
            replay(&g, start, exit, steps).is_err(),
            "wrong walkthrough {i} accepted"
        );
    }
}
