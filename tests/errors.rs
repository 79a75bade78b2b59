//! Every error that user input or a budget can produce, produced, with its message checked for
//! what it must name: the solver's, the lock planner's, Edgar files', the Gungeon recipe's
//! retry budget, the Diablo stages' retry budget.

use levelplan::graph::lock_and_key::{LockPlan, PlanError, plan};
use levelplan::graph::solve::{Blocker, Missing, SolveOptions, Unsolvable, solve, solve_with};
use levelplan::layout::RetryPolicy;
use levelplan::layout::edgar::{EdgarError, EdgarLevel};
use levelplan::layout::template::{DoorMode, DoorSpec};
use levelplan::recipes::diablo::{DiabloParams, DiabloRecipe, DiabloStage, StageError};
use levelplan::recipes::gungeon::{Generator, GungeonError, GungeonParams};
use levelplan::{
    Flow, Item, KeyId, LevelGraph, Link, LinkId, Lock, Opener, Recipe, RecipeError, Room, RoomId,
    RoomKind,
};

/// Entrance - a - exit, with the entrance's items and the two doors' locks as given.
fn corridor(items: Vec<Item>, locks: [Option<Lock>; 2]) -> LevelGraph {
    let mut g = LevelGraph::new();
    let mut entrance = Room::new(RoomKind::Entrance);
    entrance.items = items;
    let s = g.add_room(entrance);
    let a = g.add_room(Room::new(RoomKind::Normal));
    let e = g.add_room(Room::new(RoomKind::Exit));
    for (i, (from, to)) in [(s, a), (a, e)].into_iter().enumerate() {
        let link = match locks[i] {
            Some(lock) => Link::door().with_lock(lock),
            None => Link::door(),
        };
        g.add_link(from, to, link);
    }
    g
}

#[test]
fn the_solver_names_a_missing_start_goal_or_room() {
    let mut g = LevelGraph::new();
    let a = g.add_room(Room::new(RoomKind::Normal));
    let b = g.add_room(Room::new(RoomKind::Exit));
    g.add_link(a, b, Link::door());
    let e = solve(&g).unwrap_err();
    assert_eq!(e, Unsolvable::NoStart);
    assert!(e.to_string().contains("no start"), "{e}");
    assert!(e.to_string().contains("Entrance"), "{e}");

    let mut g = LevelGraph::new();
    let a = g.add_room(Room::new(RoomKind::Entrance));
    let b = g.add_room(Room::new(RoomKind::Normal));
    g.add_link(a, b, Link::door());
    let e = solve(&g).unwrap_err();
    assert_eq!(e, Unsolvable::NoGoal);
    assert!(e.to_string().contains("no goal"), "{e}");
    assert!(e.to_string().contains("Exit"), "{e}");

    let g = corridor(vec![], [None, None]);
    let options = SolveOptions {
        goal: Some(RoomId(42)),
        ..SolveOptions::default()
    };
    let e = solve_with(&g, &options).unwrap_err();
    assert_eq!(e, Unsolvable::UnknownRoom(RoomId(42)));
    assert_eq!(e.to_string(), "room r42 is not in the graph");
}

#[test]
fn a_key_no_room_holds_is_named() {
    let lock = Lock {
        by: KeyId(7),
        opener: Opener::Key,
    };
    let g = corridor(vec![], [None, Some(lock)]);
    let e = solve(&g).unwrap_err();
    let Unsolvable::Unreachable { blockers, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(
        blockers,
        &vec![Blocker {
            link: LinkId(1),
            lock,
            missing: Missing::Nowhere
        }]
    );
    let text = e.to_string();
    assert!(text.contains("lock l1 needs key k7"), "{text}");
    assert!(text.contains("no room holds it"), "{text}");
}

#[test]
fn too_few_small_keys_are_counted() {
    // One small key of ring k0 and two small locks of it on the way.
    let lock = Lock {
        by: KeyId(0),
        opener: Opener::SmallKey,
    };
    let g = corridor(vec![Item::SmallKey(KeyId(0))], [Some(lock), Some(lock)]);
    let e = solve(&g).unwrap_err();
    let Unsolvable::Unreachable { blockers, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(
        blockers,
        &vec![Blocker {
            link: LinkId(1),
            lock,
            missing: Missing::SmallKeys { available: 1 }
        }]
    );
    let text = e.to_string();
    assert!(text.contains("a small key of ring k0"), "{text}");
    assert!(
        text.contains("only 1 small keys of the ring can be found"),
        "{text}"
    );
}

#[test]
fn the_solver_s_budget_is_named() {
    // Two keys in side rooms, two locks on the way.
    let lock = |k| Lock {
        by: KeyId(k),
        opener: Opener::Key,
    };
    let mut g = corridor(vec![], [Some(lock(0)), Some(lock(1))]);
    for (k, at) in [(0, RoomId(0)), (1, RoomId(1))] {
        let mut side = Room::new(RoomKind::Normal);
        side.items.push(Item::Key(KeyId(k)));
        let side = g.add_room(side);
        g.add_link(at, side, Link::door());
    }
    // One state fewer than the search needs.
    let limit = solve(&g).unwrap().states_explored - 1;
    let options = SolveOptions {
        max_states: limit,
        ..SolveOptions::default()
    };
    let e = solve_with(&g, &options).unwrap_err();
    assert_eq!(e, Unsolvable::TooManyStates { limit });
    assert!(
        e.to_string().contains(&format!("after {limit} states")),
        "{e}"
    );
    assert!(e.to_string().contains("max_states"), "{e}");
}

#[test]
fn the_lock_planner_names_what_it_cannot_plan_on() {
    let options = LockPlan {
        locks: 1,
        ..LockPlan::default()
    };
    let mut rng = levelplan::seed::stream(1, "errors");

    let mut g = corridor(vec![], [None, None]);
    g.room_mut(RoomId(0)).unwrap().kind = RoomKind::Normal;
    let e = plan(&mut g, &options, &mut rng).unwrap_err();
    assert_eq!(e, PlanError::NoEntrance);
    assert!(e.to_string().contains("no entrance"), "{e}");

    let mut g = corridor(vec![], [None, None]);
    g.room_mut(RoomId(2)).unwrap().kind = RoomKind::Normal;
    let e = plan(&mut g, &options, &mut rng).unwrap_err();
    assert_eq!(e, PlanError::NoGoal);
    assert!(e.to_string().contains("no goal"), "{e}");

    // A room that only a one-way link leads out of, towards the entrance.
    let mut g = corridor(vec![], [None, None]);
    let cut_off = g.add_room(Room::new(RoomKind::Normal));
    g.add_link(cut_off, RoomId(1), Link::new(levelplan::LinkKind::OneWay));
    let e = plan(&mut g, &options, &mut rng).unwrap_err();
    assert_eq!(e, PlanError::Unreachable(cut_off));
    assert_eq!(
        e.to_string(),
        format!("room {cut_off} cannot be reached from the entrance even with every door open")
    );

    let mut g = corridor(vec![], [None, None]);
    let e = plan(
        &mut g,
        &LockPlan {
            locks: 9,
            ..LockPlan::default()
        },
        &mut rng,
    )
    .unwrap_err();
    assert!(
        matches!(e, PlanError::TooManyLocks { asked: 9, .. }),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("9 locks asked for"), "{e}");

    let mut g = corridor(vec![], [None, None]);
    let e = plan(
        &mut g,
        &LockPlan {
            locks: 1,
            switches: 1,
            small_key_locks: 1,
            ..LockPlan::default()
        },
        &mut rng,
    )
    .unwrap_err();
    assert!(matches!(e, PlanError::KindsExceedLocks { .. }), "{e:?}");
    assert!(e.to_string().contains("exceed the 1 locks"), "{e}");
}

#[test]
fn a_flow_s_own_trap_makes_every_plan_unsafe() {
    // The flow's own design: a one-way drop from the entrance to `a`, whose door to the exit
    // needs the key in a side room by the entrance. A player who drops without the key is
    // stuck; the planner keeps the flow's links and openers, so no plan passes the solver.
    let lock = Lock {
        by: KeyId(5),
        opener: Opener::Key,
    };
    let mut g = LevelGraph::new();
    let s = g.add_room(Room::new(RoomKind::Entrance));
    let mut side = Room::new(RoomKind::Normal);
    side.items.push(Item::Key(KeyId(5)));
    let side = g.add_room(side);
    let a = g.add_room(Room::new(RoomKind::Normal));
    let e = g.add_room(Room::new(RoomKind::Exit));
    let more = g.add_room(Room::new(RoomKind::Normal));
    g.add_link(s, side, Link::door());
    g.add_link(s, a, Link::new(levelplan::LinkKind::OneWay));
    g.add_link(a, e, Link::door().with_lock(lock));
    g.add_link(s, more, Link::door());
    let options = LockPlan {
        locks: 1,
        max_tries: 3,
        ..LockPlan::default()
    };
    let err = plan(&mut g, &options, &mut levelplan::seed::stream(2, "errors")).unwrap_err();
    let PlanError::Unsafe { tries, last } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*tries, 3);
    assert!(matches!(last, Unsolvable::SoftLock { .. }), "{last:?}");
    let text = err.to_string();
    assert!(
        text.contains("no plan passed the solver in 3 tries"),
        "{text}"
    );
    assert!(text.contains(&last.to_string()), "{text}");
}

#[test]
fn bad_edgar_files_name_the_file_and_the_fault() {
    let e = EdgarLevel::from_json("{ \"rooms\": [", "broken.json").unwrap_err();
    assert!(matches!(e, EdgarError::Syntax { .. }), "{e:?}");
    assert!(e.to_string().starts_with("broken.json: "), "{e}");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/edgar/inputs/example_basics.json"),
    )
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // A connection to a room that does not exist.
    let connections = v["connections"].as_array_mut().expect("connections");
    connections[0]["to"] = 999.into();
    let e = EdgarLevel::from_json(&v.to_string(), "bad.json").unwrap_err();
    assert!(matches!(e, EdgarError::Invalid { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.starts_with("bad.json: "), "{msg}");
    assert!(msg.contains("999"), "{msg}");
    // A connection from a room to itself, and one listed twice, named by the file's own ids.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = v["connections"][0].clone();
    let from = first["from"].clone();
    v["connections"][1]["to"] = v["connections"][1]["from"].clone();
    let own = v["connections"][1]["from"].clone();
    let e = EdgarLevel::from_json(&v.to_string(), "self.json").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "self.json: connection #2 ({own}-{own}) joins room {own} to itself; a connection \
             needs two different rooms"
        )
    );
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["connections"].as_array_mut().unwrap().push(first.clone());
    let e = EdgarLevel::from_json(&v.to_string(), "twice.json").unwrap_err();
    let to = first["to"].clone();
    assert!(
        e.to_string().ends_with(&format!(
            "both join rooms {from} and {to}; list each connection once"
        )),
        "{e}"
    );
}

#[test]
fn a_template_with_no_room_for_its_doors_says_which_settings() {
    let mut t = levelplan::layout::RoomTemplate::rectangle("Square", 3, 3, 1);
    t.doors = DoorMode::Sliding {
        length: 2,
        corner_distance: 1,
        socket: None,
    };
    let e = t.compile(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "room template `Square`: no door position fits on the 3 x 3 outline (sliding doors of \
         length 2, 1 from each corner): every side is too short; shorten the doors or the corner \
         distance"
    );
}

#[test]
fn a_gungeon_level_that_never_lays_out_gives_up_with_the_reason() {
    // Boss rooms get one door only, but the boss room of the classic flow has two links.
    let mut params = GungeonParams {
        retry: RetryPolicy::Attempts(1),
        ..GungeonParams::default()
    };
    for t in params
        .library
        .templates
        .iter_mut()
        .filter(|t| t.kinds.iter().any(|k| k == "Boss"))
    {
        t.doors = DoorMode::Manual(vec![DoorSpec {
            from: [0, 2],
            to: [0, 4],
            kind: Default::default(),
            socket: None,
        }]);
    }
    let generator = Generator::new(Flow::builtin("classic").unwrap(), params).unwrap();
    let e = generator.generate(1).unwrap_err();
    let GungeonError::GaveUp { attempts, last } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*attempts, 1);
    assert!(last.contains("no layout after"), "{last}");
    let text = e.to_string();
    assert!(text.starts_with("no level after 1 attempt;"), "{text}");
    // Through the Recipe interface the recipe's own error is the source.
    let e = Recipe::generate(&generator, 1).unwrap_err();
    assert!(
        matches!(
            e,
            RecipeError::Failed {
                recipe: "gungeon",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("gungeon: no level after"), "{e}");
}

#[test]
fn a_diablo_stage_out_of_attempts_says_why_the_last_failed() {
    let recipe = DiabloRecipe {
        params: DiabloParams {
            retry: Some(RetryPolicy::Attempts(1)),
            ..DiabloParams::default()
        },
        ..DiabloRecipe::new(DiabloStage::Caves, 3)
    };
    let e = recipe.generate(1).unwrap_err();
    let RecipeError::Failed { source, .. } = &e else {
        panic!("{e:?}");
    };
    let stage = source
        .downcast_ref::<StageError>()
        .expect("the stage's own error");
    assert!(matches!(stage, StageError::NoLevel { .. }), "{stage:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("caves: no Caves level in 1 attempt: the last failed because"),
        "{text}"
    );
    assert!(text.contains("floor cells"), "{text}");
}

/// The time limit of a whole generate: reaching it is an error that says which budget ran out;
/// under it the level is the one made without it (the limit never changes a level).
#[test]
fn the_time_limit_is_named_and_never_changes_a_level() {
    let flow = Flow::builtin("classic").unwrap();
    let without = GungeonParams {
        time_limit: None,
        ..GungeonParams::default()
    };
    let generous = GungeonParams {
        time_limit: Some(std::time::Duration::from_secs(600)),
        ..GungeonParams::default()
    };
    for seed in 0..5 {
        let a = Generator::new(flow.clone(), without.clone())
            .unwrap()
            .generate(seed)
            .unwrap();
        let b = Generator::new(flow.clone(), generous.clone())
            .unwrap()
            .generate(seed)
            .unwrap();
        assert_eq!(a, b, "seed {seed}");
    }
    // A limit already spent: no attempt starts.
    let spent = GungeonParams {
        time_limit: Some(std::time::Duration::ZERO),
        ..GungeonParams::default()
    };
    let e = Generator::new(flow.clone(), spent)
        .unwrap()
        .generate(1)
        .unwrap_err();
    assert!(
        matches!(e, GungeonError::OutOfTime { attempts: 0, .. }),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("no level within the time limit of 0 ms (GungeonParams::time_limit"),
        "{e}"
    );
}

/// The layout's own cap: a problem with no layout, capped at 0 ms, makes its first attempt and
/// then stops with `OutOfTime`, not `NoLayout`; a problem with a layout finds the same one.
#[test]
fn the_layout_time_cap_is_named() {
    use levelplan::layout::{LayoutError, LayoutProblem, LinkSpec, Planner, Realise, RoomSpec};
    // Three rooms in a triangle of contact links, each a 6 x 6 square with one door: no layout.
    let mut one_door = levelplan::layout::RoomTemplate::rectangle("one door", 6, 6, 1);
    one_door.doors = DoorMode::Manual(vec![DoorSpec {
        from: [0, 2],
        to: [0, 4],
        kind: Default::default(),
        socket: None,
    }]);
    let mut p = LayoutProblem::new(vec![one_door]);
    for name in ["a", "b", "c"] {
        p.rooms.push(RoomSpec::new(name, vec![0]));
    }
    for (a, b) in [(0, 1), (1, 2), (2, 0)] {
        p.links.push(LinkSpec::new(a, b, Realise::Contact));
    }
    p.budget.retry = RetryPolicy::Attempts(50);
    p.budget.time_limit_ms = Some(0);
    let e = Planner::new(p).unwrap().layout(1).unwrap_err();
    let LayoutError::OutOfTime { limit_ms, .. } = &e else {
        panic!("{e:?}");
    };
    assert_eq!(*limit_ms, 0);
    assert!(
        e.to_string()
            .starts_with("the layout's time limit of 0 ms (Budget::time_limit_ms) ran out"),
        "{e}"
    );
    let level = EdgarLevel::from_json(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/edgar/inputs/example_basics.json"
        ))
        .unwrap(),
        "basics",
    )
    .unwrap();
    let free = Planner::new(level.problem.clone())
        .unwrap()
        .layout(3)
        .unwrap();
    let mut capped = level.problem.clone();
    capped.budget.time_limit_ms = Some(600_000);
    assert_eq!(Planner::new(capped).unwrap().layout(3).unwrap(), free);
}

/// A layout's `NoLayout` names the room that failed most and how often, in the singular for
/// once, and gives no count where there is none (a big level's part with no layout of its own
/// names its first room, which never failed to fit).
#[test]
fn no_layout_counts_failures_only_where_there_are_some() {
    use levelplan::layout::LayoutError;
    let error = |failures: u32| {
        LayoutError::NoLayout {
            attempts: 3,
            room: "hall".into(),
            composite: " in part 2 of 5".into(),
            failures,
            constraint: "the part could not be laid out on its own".into(),
        }
        .to_string()
    };
    assert_eq!(
        error(0),
        "no layout after 3 attempts: the part could not be laid out on its own (room `hall` \
         in part 2 of 5)"
    );
    assert!(error(1).ends_with("(room `hall` in part 2 of 5 failed most often, 1 time)"));
    assert!(error(7).ends_with("(room `hall` in part 2 of 5 failed most often, 7 times)"));
}
