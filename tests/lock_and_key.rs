//! Lock-and-key planning and the sector scenario: every planned level is solvable and safe,
//! openers sit where the rules say, on random graphs of up to 200 rooms and on every built-in
//! flow.

mod common;

use std::collections::{BTreeSet, VecDeque};

use common::player::{exhaustive, replay};
use levelplan::graph::lock_and_key::{LockPlan, PlanError, ScenarioOptions, plan, sector_scenario};
use levelplan::graph::random::connected_graph;
use levelplan::graph::solve::solve;
use levelplan::{Item, LevelGraph, LinkId, LinkKind, Opener, RoomId, RoomKind};
use proptest::prelude::*;

/// A random connected graph with a few secret rooms (dead ends become secret).
fn level(rooms: usize, loops: usize, seed: u64) -> LevelGraph {
    let mut rng = levelplan::seed::stream(seed, "lock-test");
    let mut g = connected_graph(rooms, loops, &mut rng);
    let leaves: Vec<RoomId> = levelplan::graph::dead_ends(&g)
        .into_iter()
        .filter(|&r| g.room(r).unwrap().kind == RoomKind::Normal)
        .collect();
    for r in leaves.into_iter().take(2) {
        g.room_mut(r).unwrap().kind = RoomKind::Secret;
    }
    g
}

/// Rooms reachable from the entrance with every lock open except `closed`.
fn reach_without(g: &LevelGraph, closed: &[LinkId]) -> BTreeSet<RoomId> {
    let start = g.entrance().unwrap();
    let mut seen = BTreeSet::from([start]);
    let mut queue = VecDeque::from([start]);
    while let Some(x) = queue.pop_front() {
        for (l, y) in g.exits(x) {
            if !closed.contains(&l) && seen.insert(y) {
                queue.push_back(y);
            }
        }
    }
    seen
}

/// The exhaustive player's verdict on a planned level (`Ok(false)` if it has more than
/// `max_states` states to walk): every play, independent of the solver.
fn exhaustively_accepted(g: &LevelGraph, max_states: usize) -> Result<bool, TestCaseError> {
    let start = g.entrance().unwrap();
    let goal = g
        .rooms_of_kind(&RoomKind::Exit)
        .next()
        .or_else(|| g.rooms_of_kind(&RoomKind::Boss).next())
        .unwrap();
    let Some(v) = exhaustive(g, start, goal, max_states) else {
        return Ok(false);
    };
    prop_assert!(v.goal_reachable, "the goal cannot be reached");
    prop_assert!(
        v.dead_rooms.is_empty(),
        "a player can get stuck in {:?}",
        v.dead_rooms
    );
    prop_assert!(
        v.everything_reached(g),
        "never reached: rooms {:?}, openers {:?}, locks {:?}",
        v.rooms_never_entered(g),
        v.openers_never_taken(g),
        v.locks_never_passed(g)
    );
    let w = solve(g).unwrap();
    prop_assert_eq!(replay(g, start, goal, &w.steps), Ok(()));
    Ok(true)
}

fn check_rules(g: &LevelGraph) -> Result<(), TestCaseError> {
    let goal = g
        .rooms_of_kind(&RoomKind::Exit)
        .next()
        .or_else(|| g.rooms_of_kind(&RoomKind::Boss).next())
        .unwrap();
    let w = solve(g);
    prop_assert!(w.is_ok(), "{}", w.unwrap_err());
    for (id, room) in g.rooms() {
        for item in &room.items {
            if item.opens().is_some() {
                prop_assert!(
                    room.kind != RoomKind::Secret,
                    "opener {:?} in secret room {}",
                    item,
                    id
                );
            }
            if matches!(item, Item::Key(_)) {
                prop_assert!(id != goal, "a key in the goal room");
            }
        }
    }
    // A unique opener is never behind its own lock: with every link of that lock shut (and
    // every other lock open), some copy of the opener is still reachable.
    let locks: BTreeSet<_> = g
        .locks()
        .map(|(_, l)| l)
        .filter(|l| l.opener != Opener::SmallKey)
        .collect();
    for lock in locks {
        let shut: Vec<LinkId> = g
            .locks()
            .filter(|(_, l)| *l == lock)
            .map(|(id, _)| id)
            .collect();
        let reached = reach_without(g, &shut);
        let holders: Vec<RoomId> = g
            .rooms()
            .filter(|(_, r)| {
                r.items
                    .iter()
                    .any(|i| i.opens() == Some((lock.by, lock.opener)))
            })
            .map(|(id, _)| id)
            .collect();
        prop_assert!(
            holders.iter().any(|h| reached.contains(h)),
            "opener of {:?} only behind its own lock",
            lock
        );
    }
    Ok(())
}

fn options() -> impl Strategy<Value = LockPlan> {
    (0usize..8, 0usize..3, 0usize..2, 0usize..3, 0usize..3).prop_map(
        |(locks, switches, tasks, small, shortcuts)| {
            let switches = switches.min(locks);
            let tasks = tasks.min(locks - switches);
            let small = small.min(locks - switches - tasks);
            LockPlan {
                locks,
                switches,
                tasks,
                small_key_locks: small,
                one_way_shortcuts: shortcuts,
                ..LockPlan::default()
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_planned_level_is_solvable_and_keeps_the_opener_rules(
        rooms in 2usize..200, loops in 0usize..20, seed in any::<u64>(), opts in options(),
    ) {
        let mut g = level(rooms, loops, seed);
        let before = g.clone();
        match plan(&mut g, &opts, &mut levelplan::seed::stream(seed, "plan")) {
            Ok(report) => {
                prop_assert_eq!(report.region_locks.len(), opts.locks, "one lock per region");
                for lock in &report.region_locks {
                    prop_assert!(report.added.iter().any(|(_, l)| l == lock), "every region's lock is used");
                }
                let small = report.region_locks.iter().filter(|l| l.opener == Opener::SmallKey).count();
                prop_assert!(small <= opts.small_key_locks);
                prop_assert_eq!(report.walkthrough.goal, g.rooms_of_kind(&RoomKind::Exit).next().unwrap());
                check_rules(&g)?;
            }
            Err(PlanError::TooManyLocks { possible, .. }) => {
                prop_assert!(opts.locks > possible);
                prop_assert_eq!(g, before, "a failed plan leaves the graph alone");
            }
            Err(e) => prop_assert!(false, "plan failed: {}", e),
        }
    }

    #[test]
    fn every_planned_small_level_passes_the_exhaustive_player(
        rooms in 2usize..30, loops in 0usize..6, seed in any::<u64>(), opts in options(),
    ) {
        let mut g = level(rooms, loops, seed);
        // A plan asking for more locks than the level holds is refused (see above); such cases
        // are not counted: proptest draws others, and fails if more than 1,024 are refused
        // before 200 planned levels were checked.
        let planned = plan(&mut g, &opts, &mut levelplan::seed::stream(seed, "plan")).is_ok();
        prop_assume!(planned);
        prop_assert!(exhaustively_accepted(&g, 2_000_000)?, "too many states to check");
    }

    #[test]
    fn planning_on_built_in_flows_keeps_their_own_locks(
        flow in prop::sample::select(common::builtin_flows()), seed in any::<u64>(), opts in options(),
    ) {
        let mut g = flow.generate(seed, &Default::default()).unwrap();
        let own: Vec<_> = g.locks().collect();
        let own_one_way = g.links().filter(|(.., l)| l.kind == LinkKind::OneWay).count();
        match plan(&mut g, &opts, &mut levelplan::seed::stream(seed, "plan")) {
            Ok(report) => {
                prop_assert_eq!(report.existing_locks, own.len());
                prop_assert_eq!(report.existing_one_way, own_one_way);
                for (l, lock) in &own {
                    prop_assert_eq!(g.link(*l).unwrap().lock, Some(*lock), "the flow's lock on {} stays", l);
                }
                check_rules(&g)?;
                prop_assert!(exhaustively_accepted(&g, 2_000_000)?, "too many states to check");
            }
            // Not counted: proptest draws another case (and fails after too many).
            Err(PlanError::TooManyLocks { .. }) => prop_assume!(false),
            Err(e) => prop_assert!(false, "plan failed: {}", e),
        }
    }

    #[test]
    fn sector_scenarios_chain_their_scripts_and_are_solvable(rooms in 2usize..80, loops in 0usize..10, seed in any::<u64>()) {
        let mut g = level(rooms, loops, seed);
        let s = sector_scenario(&mut g, &ScenarioOptions::default(), &mut levelplan::seed::stream(seed, "scenario")).unwrap();
        prop_assert_eq!(g.entrance(), Some(s.start));
        prop_assert_eq!(g.rooms_of_kind(&RoomKind::Entrance).count(), 1);
        // Every room is in exactly one script or is the start.
        let mut all: Vec<RoomId> = s.scripts.iter().flat_map(|x| x.rooms.iter().copied()).chain([s.start]).collect();
        all.sort_unstable();
        prop_assert_eq!(all, g.room_ids().collect::<Vec<_>>());
        let keys = s.scripts.iter().filter(|x| x.lock.opener == Opener::Key).count();
        prop_assert!(keys <= 3);
        for (i, script) in s.scripts.iter().enumerate() {
            // The opener lies further in (a later list or the start), never in a secret room,
            // and the start holds no key.
            let later: BTreeSet<RoomId> = s.scripts[i + 1..].iter().flat_map(|x| x.rooms.iter().copied()).chain([s.start]).collect();
            prop_assert!(later.contains(&script.opener_room));
            prop_assert!(g.room(script.opener_room).unwrap().kind != RoomKind::Secret);
            if script.opener_room == s.start {
                prop_assert!(script.lock.opener != Opener::Key);
            }
        }
        check_rules(&g)?;
    }
}

#[test]
fn asking_for_too_much_is_a_clear_error() {
    let mut g = level(5, 0, 1);
    let err = plan(
        &mut g,
        &LockPlan {
            locks: 9,
            ..LockPlan::default()
        },
        &mut levelplan::seed::stream(1, "t"),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "9 locks asked for, but the level can hold at most 4 (one region per lock, each with at least one room, besides the entrance's)"
    );
    let err = plan(
        &mut g,
        &LockPlan {
            locks: 2,
            switches: 2,
            tasks: 1,
            ..LockPlan::default()
        },
        &mut levelplan::seed::stream(1, "t"),
    )
    .unwrap_err();
    assert!(matches!(err, PlanError::KindsExceedLocks { .. }), "{err}");
}

#[test]
fn small_keys_and_shortcuts_are_used() {
    // Over many plans, small-key doors and one-way shortcuts do appear in the results.
    let (mut small, mut shortcuts) = (0, 0);
    for seed in 0..40 {
        let mut g = level(60, 8, seed);
        let opts = LockPlan {
            locks: 5,
            small_key_locks: 2,
            one_way_shortcuts: 2,
            ..LockPlan::default()
        };
        let report = plan(&mut g, &opts, &mut levelplan::seed::stream(seed, "t")).unwrap();
        small += report
            .added
            .iter()
            .filter(|(_, l)| l.opener == Opener::SmallKey)
            .count();
        shortcuts += report.shortcuts.len();
        for &l in &report.shortcuts {
            assert_eq!(g.link(l).unwrap().kind, LinkKind::OneWay);
        }
    }
    assert!(small >= 40, "small-key doors: {small}");
    assert!(shortcuts >= 20, "shortcuts: {shortcuts}");
}

#[test]
fn the_levels_of_the_completability_report_are_finishable_by_any_player() {
    // `generate --recipe flow` with these options made a soft-lock (classic 8), rooms no play
    // enters (fork 9) and openers beside their doors (hub_spokes 5) before the skipping player.
    let cases: [(&str, u64, LockPlan); 3] = [
        (
            "classic",
            8,
            LockPlan {
                locks: 3,
                one_way_shortcuts: 3,
                ..LockPlan::default()
            },
        ),
        (
            "fork",
            9,
            LockPlan {
                locks: 4,
                ..LockPlan::default()
            },
        ),
        (
            "hub_spokes",
            5,
            LockPlan {
                locks: 3,
                switches: 1,
                ..LockPlan::default()
            },
        ),
    ];
    for (name, seed, options) in cases {
        let flow = levelplan::FlowTemplate::builtin(name).unwrap();
        let mut g = flow.generate(seed, &Default::default()).unwrap();
        plan(
            &mut g,
            &options,
            &mut levelplan::seed::stream(seed, "locks"),
        )
        .unwrap_or_else(|e| panic!("{name} {seed}: {e}"));
        assert!(
            exhaustively_accepted(&g, 5_000_000).unwrap(),
            "{name} {seed}: too big"
        );
        // No opener lies in a room at either end of the door it opens.
        for (link, lock) in g.locks() {
            let (a, b) = g.endpoints(link).unwrap();
            for end in [a, b] {
                let beside = g
                    .room(end)
                    .unwrap()
                    .items
                    .iter()
                    .any(|i| i.opens() == Some((lock.by, lock.opener)));
                assert!(!beside, "{name} {seed}: the opener of {link} lies in {end}");
            }
        }
    }
}
