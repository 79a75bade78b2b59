//! The embedding layer: Edgar's inputs lay out and verify, Edgar's own layouts verify, broken
//! layouts are caught, and random graphs lay out with every invariant holding.

use std::path::{Path, PathBuf};

use levelplan::graph::random::connected_graph;
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::verify::{Violation, check};
use levelplan::layout::{
    LayoutError, LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate, TemplateShape,
};
use proptest::prelude::*;

/// The tile check shared with the scale probe.
#[path = "common/tiles.rs"]
mod tiles;
use tiles::tile_faults;

/// The scale benchmark's problems (shared with `benches/layout.rs` and the scale probe).
#[path = "../benches/common/scale.rs"]
#[allow(dead_code)]
mod scale;

fn edgar_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/edgar")
        .join(sub)
}

fn read_level(name: &str) -> EdgarLevel {
    let path = edgar_dir("inputs").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    EdgarLevel::from_json(&text, name).expect("fixture parses")
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

/// Every one of Edgar's 62 inputs lays out, and the layout passes the strict check both as our
/// own layout and after a round trip through Edgar's output shape.
#[test]
fn every_edgar_input_lays_out_and_verifies() {
    let files = json_files(&edgar_dir("inputs"));
    assert_eq!(files.len(), 62);
    for f in files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let level = read_level(&name);
        let planner = Planner::new(level.problem.clone()).expect("prepares");
        for seed in [1, 2] {
            let layout = planner
                .layout(seed)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            planner
                .check(&layout)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            let text = level.layout_to_json(&layout);
            level
                .verify_json(&text, &name)
                .expect("our output parses")
                .unwrap_or_else(|e| panic!("{name} seed {seed} (Edgar shape): {e}"));
        }
    }
}

/// The time limit's promise on every one of Edgar's inputs: a layout under a limit is the one
/// found without it, or an [`LayoutError::OutOfTime`]. A limit of 0 ms has run out before the
/// first attempt ends, so a stage after the first (annealing, other room orders) would show
/// here if it were started past the limit and found a layout of its own.
#[test]
fn edgar_inputs_under_a_spent_time_limit_give_the_unlimited_layout_or_out_of_time() {
    let mut same = 0;
    for f in json_files(&edgar_dir("inputs")) {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let problem = read_level(&name).problem;
        let planner = Planner::new(problem.clone()).expect("prepares");
        // 0 ms, and 1 ms, which runs out at a point that depends on the machine: the promise
        // holds wherever that is.
        for limit in [0, 1] {
            let mut p = problem.clone();
            p.budget.time_limit_ms = Some(limit);
            let capped = Planner::new(p).expect("prepares");
            for seed in 0..3 {
                let free = planner.layout(seed);
                match capped.layout(seed) {
                    Ok(layout) => {
                        assert_eq!(Ok(&layout), free.as_ref(), "{name} seed {seed}");
                        same += 1;
                    }
                    Err(LayoutError::OutOfTime { limit_ms, .. }) if limit_ms == limit => {}
                    other => panic!("{name} seed {seed}, {limit} ms: {other:?}"),
                }
            }
        }
    }
    // Levels laid out in their first attempt come back laid out (the first attempt is made
    // whatever the limit), so the comparison above did happen.
    assert!(same > 0);
}

/// Edgar's own layouts pass the same check.
#[test]
fn edgar_layouts_verify() {
    let files = json_files(&edgar_dir("layouts"));
    assert_eq!(files.len(), 27);
    for f in files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let input = &stem[..stem.rfind("_seed").unwrap()];
        let level = read_level(input);
        let text = std::fs::read_to_string(&f).unwrap();
        level
            .verify_json(&text, &stem)
            .expect("parses")
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
    }
}

fn edgar_layout_value(stem: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(edgar_dir("layouts").join(format!("{stem}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn verdict(level: &EdgarLevel, v: &serde_json::Value) -> Result<(), Violation> {
    level
        .verify_json(&v.to_string(), "mutated")
        .expect("still parses")
}

/// The checker is not a rubber stamp: moving a room, changing a transformation, dropping a door
/// or a room, or breaking the minimum distance is each caught, and named.
#[test]
fn broken_layouts_are_rejected() {
    let level = read_level("ma2014_fig7top_9v_basic");
    let good = edgar_layout_value("ma2014_fig7top_9v_basic_seed1");
    assert!(verdict(&level, &good).is_ok());

    // Move room 2 one cell right: it overlaps room 1.
    let mut moved = good.clone();
    for p in moved["rooms"][2]["outline_absolute"]
        .as_array_mut()
        .unwrap()
    {
        p[0] = (p[0].as_i64().unwrap() + 1).into();
    }
    assert_eq!(
        verdict(&level, &moved),
        Err(Violation::Overlap("1".into(), "2".into()))
    );

    // A transformation the outline does not match.
    let mut turned = good.clone();
    let t = turned["rooms"][0]["transformation"]
        .as_str()
        .unwrap()
        .to_string();
    turned["rooms"][0]["transformation"] = if t == "Identity" {
        "Rotate90"
    } else {
        "Identity"
    }
    .into();
    assert!(matches!(
        verdict(&level, &turned),
        Err(Violation::Room { .. })
    ));

    // A door removed from both sides of a connection.
    let mut doorless = good.clone();
    let to = doorless["rooms"][0]["doors"][0]["to_room"].clone();
    doorless["rooms"][0]["doors"]
        .as_array_mut()
        .unwrap()
        .remove(0);
    let back = doorless["rooms"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["room"] == to)
        .unwrap();
    back["doors"]
        .as_array_mut()
        .unwrap()
        .retain(|d| d["to_room"] != 0);
    let e = verdict(&level, &doorless).unwrap_err();
    assert!(matches!(e, Violation::Link { .. }), "{e}");

    // A room left out.
    let mut missing = good.clone();
    missing["rooms"].as_array_mut().unwrap().pop();
    // (Edgar's format lists doors per room: the room left out is still named by a door.)
    assert_eq!(
        verdict(&level, &missing),
        Err(Violation::Room {
            room: "6".into(),
            problem: "has a door to room 8, which it is not linked to".into()
        })
    );

    // Minimum distance: Edgar's layout for distance 2 fails when 3 is asked.
    let strict = read_level("example_minimum_room_distance_3");
    let loose = edgar_layout_value("example_minimum_room_distance_2_seed1");
    let e = verdict(&strict, &loose).unwrap_err();
    assert!(matches!(e, Violation::Distance { .. }), "{e}");
}

/// The same seed gives the same layout, byte for byte; another seed another layout.
#[test]
fn layouts_are_deterministic() {
    let level = read_level("mapdesc_gungeon_1_1");
    let planner = Planner::new(level.problem.clone()).unwrap();
    let a = level.layout_to_json(&planner.layout(9).unwrap());
    let b = level.layout_to_json(
        &Planner::new(level.problem.clone())
            .unwrap()
            .layout(9)
            .unwrap(),
    );
    assert_eq!(a, b);
    assert_ne!(a, level.layout_to_json(&planner.layout(10).unwrap()));
}

/// A planner's layout for a seed does not depend on what it laid out before (it keeps
/// configuration spaces, corridor compounds, the second cut and its parts' planners from one
/// layout to the next): on a big level laid out in parts, seeds in one order and in the
/// other on one planner, and each on a fresh planner, give the same layouts.
#[test]
fn a_planners_layouts_do_not_depend_on_its_earlier_ones() {
    // Graph 0 of the benchmark's 100-room graphs without holes: its parts' searches fail
    // now and then, so parts are searched again with corridors giving way.
    let p = scale::open_problem(100, 10, 0);
    let seeds = 0..3u64;
    let fresh: Vec<_> = seeds
        .clone()
        .map(|s| Planner::new(p.clone()).unwrap().layout(s))
        .collect();
    assert!(fresh.iter().any(Result::is_ok), "something to compare");
    let planner = Planner::new(p.clone()).unwrap();
    let forward: Vec<_> = seeds.clone().map(|s| planner.layout(s)).collect();
    let other = Planner::new(p).unwrap();
    let mut backward: Vec<_> = seeds.rev().map(|s| other.layout(s)).collect();
    backward.reverse();
    assert_eq!(forward, fresh);
    assert_eq!(backward, fresh);
}

/// A hub room with a single door and `leaves` rooms it must touch: it can touch one, so more
/// than one cannot lay out.
fn one_door_hub(leaves: usize) -> LayoutProblem {
    let mut hub = RoomTemplate::rectangle("hub", 5, 5, 2);
    hub.doors = levelplan::layout::DoorMode::Manual(vec![levelplan::layout::DoorSpec {
        from: [2, 0],
        to: [3, 0],
        kind: Default::default(),
        socket: None,
    }]);
    let mut p = LayoutProblem::new(vec![hub, RoomTemplate::rectangle("room", 5, 5, 2)]);
    p.rooms.push(RoomSpec::new("hub", vec![0]));
    for i in 0..leaves {
        p.rooms.push(RoomSpec::new(&format!("leaf{i}"), vec![1]));
        p.links.push(LinkSpec::new(0, i + 1, Realise::Contact));
    }
    p
}

/// A problem the search cannot solve ends with an error that names the room and constraint.
#[test]
fn impossible_problems_fail_with_a_reason() {
    let mut p = one_door_hub(2);
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(5);
    let e = Planner::new(p).unwrap().layout(1).unwrap_err().to_string();
    assert!(e.contains("no free position for `leaf"), "{e}");
    assert!(e.contains("next to `hub`"), "{e}");
}

/// A failed layout can be pictured: the deepest partial layout holds placed rooms that do not
/// overlap, names the room that did not fit and its placed neighbours, and is the same for
/// the same seed; a problem that lays out has none.
#[test]
fn a_failed_layout_shows_where_it_got_stuck() {
    let mut p = one_door_hub(3);
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(3);
    let planner = Planner::new(p.clone()).unwrap();
    for seed in 0..3 {
        assert!(planner.layout(seed).is_err());
        let stuck = planner.deepest(seed).expect("the layout fails");
        assert_eq!(stuck, planner.deepest(seed).unwrap(), "seed {seed}");
        assert!(stuck.stuck.starts_with("leaf"), "{}", stuck.stuck);
        assert_eq!(stuck.stuck_next_to, ["hub"]);
        assert_eq!(stuck.placed(), 2, "{}", stuck.to_ascii());
        assert!(stuck.rooms[0].is_some());
        let slot = p.rooms.iter().position(|r| r.name == stuck.stuck).unwrap();
        assert!(stuck.rooms[slot].is_none());
        // The two placed rooms (rectangles) share no cell.
        let boxes: Vec<(i32, i32, i32, i32)> = stuck
            .rooms
            .iter()
            .flatten()
            .map(|r| {
                let xs = r.outline.iter().map(|q| q.x);
                let ys = r.outline.iter().map(|q| q.y);
                (
                    xs.clone().min().unwrap(),
                    xs.max().unwrap(),
                    ys.clone().min().unwrap(),
                    ys.max().unwrap(),
                )
            })
            .collect();
        let (a, b) = (boxes[0], boxes[1]);
        assert!(a.1 <= b.0 || b.1 <= a.0 || a.3 <= b.2 || b.3 <= a.2);
        let picture = stuck.to_ascii();
        assert!(
            picture.contains("hub (links to the stuck room)"),
            "{picture}"
        );
        assert!(picture.contains(&format!("`{}` does not fit next to `hub`", stuck.stuck)));
        assert!(picture.contains('@'));
    }
    // With one room to touch, the hub lays out, and there is nothing to show.
    let planner = Planner::new(one_door_hub(1)).unwrap();
    assert!(planner.layout(0).is_ok());
    assert_eq!(planner.deepest(0), None);
}

/// Bad problems are refused before any search, with a message naming what is wrong.
#[test]
fn bad_problems_are_refused() {
    let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("a", 4, 4, 1)]);
    p.rooms.push(RoomSpec::new("r0", vec![0]));
    p.rooms.push(RoomSpec::new("r1", vec![3]));
    let e = Planner::new(p.clone()).unwrap_err().to_string();
    assert!(e.contains("room `r1` lists template 3"), "{e}");
    p.rooms[1].templates = vec![0];
    let e = Planner::new(p.clone()).unwrap_err().to_string();
    assert!(e.contains("not all linked"), "{e}");
    p.links.push(LinkSpec::new(0, 0, Realise::Contact));
    let e = Planner::new(p.clone()).unwrap_err().to_string();
    assert!(e.contains("link 0"), "{e}");
    let mut bad = RoomTemplate::rectangle("bent", 4, 4, 1);
    bad.shape = TemplateShape::Outline(vec![[0, 0], [0, 4], [4, 5], [4, 0]]);
    let e = Planner::new(LayoutProblem::new(vec![bad]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no rooms") || e.contains("bent"), "{e}");
}

/// A graph that cannot be drawn without crossings (K3,3) has no layout: refused up front,
/// naming the link that makes it non-planar, rather than searched until the budget runs out.
#[test]
fn non_planar_problems_are_refused() {
    let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("a", 6, 6, 1)]);
    for i in 0..6 {
        p.rooms.push(RoomSpec::new(&format!("r{i}"), vec![0]));
    }
    for a in 0..3 {
        for b in 3..6 {
            p.links.push(LinkSpec::new(
                a,
                b,
                Realise::ContactOrPath { min: 1, max: 30 },
            ));
        }
    }
    let e = Planner::new(p.clone()).unwrap_err().to_string();
    assert!(e.contains("not planar"), "{e}");
    assert!(e.contains("link 8 (`r2`-`r5`)"), "{e}");
    // Without its last link the graph is planar, and the planner takes it.
    p.links.pop();
    assert!(Planner::new(p).is_ok());
}

fn basic_templates() -> Vec<RoomTemplate> {
    let mut l = RoomTemplate::rectangle("l", 1, 1, 1);
    l.shape = TemplateShape::Cells(vec![
        "###...".into(),
        "###...".into(),
        "######".into(),
        "######".into(),
    ]);
    vec![
        RoomTemplate::rectangle("square", 6, 6, 1),
        RoomTemplate::rectangle("long", 5, 9, 1),
        l,
        RoomTemplate::rectangle("hall", 16, 16, 1),
    ]
}

/// A problem over a random connected graph: rooms use the small templates, or the hall if
/// they have more than three links (a small room cannot touch seven others).
fn random_problem(rooms: usize, loops: usize, seed: u64, min_distance: u32) -> LayoutProblem {
    let mut rng = levelplan::seed::stream(seed, "layout test graph");
    let g = connected_graph(rooms, loops, &mut rng);
    let mut p = LayoutProblem::new(basic_templates());
    p.min_distance = min_distance;
    let ids: Vec<_> = g.room_ids().collect();
    for id in &ids {
        let degree = g.incident_links(*id).count();
        let templates = if degree > 3 { vec![3] } else { vec![0, 1, 2] };
        p.rooms.push(RoomSpec::new(&id.to_string(), templates));
    }
    let slot = |r| ids.iter().position(|x| *x == r).unwrap();
    for (_, a, b, link) in g.links() {
        // Trees use contact only; with loops every link may fall back to a corridor, so
        // whichever room closes a loop can.
        let realise = match link.role {
            levelplan::LinkRole::Tree if loops == 0 => Realise::Contact,
            _ => Realise::ContactOrPath { min: 4, max: 30 },
        };
        p.links.push(LinkSpec::new(slot(a), slot(b), realise));
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random graphs of up to 30 rooms: whenever a layout comes back it passes the strict
    /// check (no overlaps, every link a door both rooms allow or a corridor within 4..30 cells
    /// that runs through nothing, minimum distance) and the same seed reproduces it. Trees
    /// always lay out; a graph with loops may be impossible with these small rigid rooms, and
    /// then the answer is a `NoLayout` error, never a broken level.
    #[test]
    fn random_graphs_lay_out_validly(
        rooms in 4usize..30,
        loops in 0usize..4,
        graph_seed in any::<u64>(),
        seed in any::<u64>(),
        min_distance in 0u32..2,
    ) {
        let mut p = random_problem(rooms, loops, graph_seed, min_distance);
        p.budget.retry = levelplan::layout::RetryPolicy::Attempts(200);
        let planner = Planner::new(p.clone()).unwrap();
        match planner.layout(seed) {
            Ok(layout) => {
                prop_assert_eq!(check(&p, &layout), Ok(()));
                prop_assert_eq!(tile_faults(&layout), None);
                for (spec, placed) in p.links.iter().zip(&layout.links) {
                    if !placed.corridor.is_empty() {
                        let optional = matches!(spec.realise, Realise::ContactOrPath { .. });
                        prop_assert!(optional && loops > 0);
                        prop_assert!((4..=30).contains(&placed.corridor.len()));
                    }
                }
                prop_assert_eq!(planner.layout(seed).unwrap(), layout);
            }
            Err(e) => {
                prop_assert!(loops > 0, "a tree failed: {}", e);
                let no_layout = matches!(e, levelplan::layout::LayoutError::NoLayout { .. });
                prop_assert!(no_layout, "{}", e);
            }
        }
    }
}

/// A big level (50 rooms or more, laid out in parts where it comes apart at bridges) under
/// settings the benchmark never uses: a random graph or chain of loops, minimum distances of
/// 0 to 2, every repeat mode, small 3 x 3 rooms, templates that may not turn, links that must
/// be corridors, that may be, or that must touch, a count of attempts or a time budget, and a
/// cap on the whole layout.
fn big_odd_problem(case: u64) -> LayoutProblem {
    use levelplan::graph::random::loop_chain_graph;
    use levelplan::layout::{RepeatMode, RetryPolicy, Transform};
    use levelplan::seed::{below, chance};
    let rng = &mut levelplan::seed::stream(case, "big odd problem");
    let g = if chance(rng, 0.25) {
        loop_chain_graph(5 + below(rng, 8) as usize, rng)
    } else {
        connected_graph(50 + below(rng, 70) as usize, below(rng, 10) as usize, rng)
    };
    let mut templates = basic_templates();
    templates.push(RoomTemplate::rectangle("tiny", 3, 3, 1));
    if chance(rng, 0.3) {
        for t in &mut templates {
            t.transforms = vec![Transform::ALL[0]];
        }
    }
    if chance(rng, 0.2) {
        templates[0].repeat = Some(RepeatMode::NoImmediate);
    }
    let mut p = LayoutProblem::new(templates);
    p.min_distance = below(rng, 3) as u32;
    p.repeat_default = [
        RepeatMode::AllowRepeat,
        RepeatMode::NoImmediate,
        RepeatMode::NoRepeat,
    ][below(rng, 3) as usize];
    let ids: Vec<_> = g.room_ids().collect();
    for id in &ids {
        let t = if g.incident_links(*id).count() > 3 {
            vec![3]
        } else if chance(rng, 0.1) {
            vec![4]
        } else {
            vec![0, 1, 2]
        };
        p.rooms.push(RoomSpec::new(&id.to_string(), t));
    }
    let slot = |r| ids.iter().position(|x| *x == r).unwrap();
    for (_, a, b, link) in g.links() {
        let realise = match below(rng, 6) {
            0 => Realise::Path { min: 2, max: 20 },
            1 | 2 => Realise::ContactOrPath { min: 1, max: 30 },
            _ if link.role == levelplan::LinkRole::Tree => Realise::Contact,
            _ => Realise::ContactOrPath { min: 4, max: 30 },
        };
        p.links.push(LinkSpec::new(slot(a), slot(b), realise));
    }
    p.budget.retry = if chance(rng, 0.3) {
        RetryPolicy::Millis(300)
    } else {
        RetryPolicy::Attempts(2)
    };
    p.budget.time_limit_ms = Some(if chance(rng, 0.2) { 200 } else { 4000 });
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Big levels under odd settings ([`big_odd_problem`]): preparing and laying out never
    /// panics; a layout that comes back passes the strict check and its tiles, and under a
    /// count of attempts the same seed gives it again (or, on a slower run, runs out of the
    /// cap: the layout returned under a cap is the one found without it); a failure is a typed
    /// error, and the pictures of where it got stuck can be drawn.
    #[test]
    fn big_levels_under_odd_settings_lay_out_validly_or_say_why(
        case in 0u64..1_000_000,
        seed in 0u64..1000,
    ) {
        let p = big_odd_problem(case);
        let planner = match Planner::new(p.clone()) {
            Ok(planner) => planner,
            Err(e) => {
                let refused = matches!(e, LayoutError::HoleTooSmall { .. });
                prop_assert!(refused, "{}", e);
                return Ok(());
            }
        };
        let counted = matches!(p.budget.retry, levelplan::layout::RetryPolicy::Attempts(_));
        match planner.layout(seed) {
            Ok(layout) => {
                prop_assert_eq!(check(&p, &layout), Ok(()));
                prop_assert_eq!(tile_faults(&layout), None);
                if counted {
                    match planner.layout(seed) {
                        Ok(again) => prop_assert_eq!(again, layout),
                        Err(e) => prop_assert!(
                            matches!(e, LayoutError::OutOfTime { .. }),
                            "{}",
                            e
                        ),
                    }
                }
            }
            Err(e) => {
                let typed = matches!(
                    e,
                    LayoutError::NoLayout { .. } | LayoutError::OutOfTime { .. }
                );
                prop_assert!(typed, "{}", e);
                prop_assert!(!e.to_string().is_empty());
                if let LayoutError::NoLayout { .. } = e {
                    let _ = planner.deepest_parts(seed);
                    let _ = planner.deepest(seed);
                }
            }
        }
    }
}

/// Over 60 fixed random graphs with loops, at least 90% lay out (the rest are reported as
/// errors; see above), and every layout is valid.
#[test]
fn random_graphs_with_loops_mostly_lay_out() {
    let mut ok = 0;
    for i in 0..60u64 {
        let rooms = 10 + (i as usize * 7) % 30;
        let loops = 1 + (i as usize) % 4;
        let mut p = random_problem(rooms, loops, 1000 + i, 0);
        p.budget.retry = levelplan::layout::RetryPolicy::Attempts(200);
        ok += usize::from(lays_out_valid(&p, i));
    }
    assert!(ok >= 54, "only {ok} of 60 graphs laid out");
}

/// Lays `p` out for `seed`: whether a layout was found; one that is must pass the strict
/// check and be sound as tiles (`tile_faults`).
fn lays_out_valid(p: &LayoutProblem, seed: u64) -> bool {
    let planner = Planner::new(p.clone()).unwrap();
    match planner.layout(seed) {
        Ok(layout) => {
            assert_eq!(check(p, &layout), Ok(()), "seed {seed}");
            assert_eq!(tile_faults(&layout), None, "seed {seed}");
            true
        }
        Err(_) => false,
    }
}

/// The soft penalty for templates already used spreads a level over more templates: over 20
/// seeds, the most used template is used less often on average with it than without.
#[test]
fn recent_use_penalty_spreads_templates() {
    let spread = |penalty: f64| -> f64 {
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("a", 6, 6, 1),
            RoomTemplate::rectangle("b", 7, 7, 1),
            RoomTemplate::rectangle("c", 6, 8, 1),
            RoomTemplate::rectangle("d", 8, 8, 1),
        ]);
        for i in 0..16 {
            p.rooms
                .push(RoomSpec::new(&format!("r{i}"), vec![0, 1, 2, 3]));
            if i > 0 {
                p.links.push(LinkSpec::new(i - 1, i, Realise::Contact));
            }
        }
        p.recent_penalty = penalty;
        let planner = Planner::new(p).unwrap();
        let mut total = 0usize;
        for seed in 0..20 {
            let layout = planner.layout(seed).unwrap();
            let mut uses = [0usize; 4];
            for r in &layout.rooms {
                uses[r.template] += 1;
            }
            total += uses.iter().max().unwrap();
        }
        total as f64 / 20.0
    };
    let (with, without) = (spread(0.33), spread(0.0));
    assert!(
        with < without,
        "max uses {with} with the penalty, {without} without"
    );
    // Four templates over 16 rooms: with the penalty the most used stays near 4.
    assert!(with <= 5.5, "{with}");
}

/// A problem over a chain of loops: each room's templates from its number of links; tree
/// links contact, loop links contact or corridor.
fn chain_problem(
    g: &levelplan::LevelGraph,
    templates: impl Fn(usize) -> Vec<usize>,
) -> LayoutProblem {
    let mut p = LayoutProblem::new(basic_templates());
    let ids: Vec<_> = g.room_ids().collect();
    for id in &ids {
        let t = templates(g.incident_links(*id).count());
        p.rooms.push(RoomSpec::new(&id.to_string(), t));
    }
    let slot = |r| ids.iter().position(|x| *x == r).unwrap();
    for (_, a, b, link) in g.links() {
        let realise = match link.role {
            levelplan::LinkRole::Tree => Realise::Contact,
            _ => Realise::ContactOrPath { min: 4, max: 30 },
        };
        p.links.push(LinkSpec::new(slot(a), slot(b), realise));
    }
    p
}

/// Big levels (50 rooms or more) are laid out in parts, or room by room with the forward check
/// and resumed attempts: chains of 8 to 10 separate loops (60 to 90 rooms, contact everywhere
/// but the link closing each loop) lay out for most graphs with the default budget, validly.
#[test]
fn chains_of_loops_lay_out() {
    let mut ok = 0;
    let mut rooms = 0;
    for i in 0..6u64 {
        let g = levelplan::graph::random::loop_chain_graph(
            8 + (i as usize % 3),
            &mut levelplan::seed::stream(i, "chain test"),
        );
        let p = chain_problem(&g, |_| vec![0, 1, 2]);
        rooms += p.rooms.len();
        ok += usize::from(lays_out_valid(&p, i));
    }
    assert!(
        rooms >= 6 * 50,
        "the chains are big levels ({rooms} rooms in all)"
    );
    assert!(ok >= 5, "only {ok} of 6 chains laid out");
}

/// Chains of 25 loops (about 200 rooms) are laid out in parts (see the layout module docs):
/// most graphs lay out within 20 attempts, every layout passes the strict check, and the same
/// seed gives the same layout.
#[test]
fn big_chains_lay_out_in_parts() {
    let mut ok = 0;
    for i in 0..4u64 {
        let g = levelplan::graph::random::loop_chain_graph(
            25,
            &mut levelplan::seed::stream(i, "big chain test"),
        );
        let mut p = chain_problem(&g, |links| if links > 3 { vec![3] } else { vec![0, 1] });
        p.budget.retry = levelplan::layout::RetryPolicy::Attempts(20);
        assert!(p.rooms.len() >= 150, "{} rooms", p.rooms.len());
        let planner = Planner::new(p.clone()).unwrap();
        if let Ok(layout) = planner.layout(i) {
            assert_eq!(check(&p, &layout), Ok(()), "graph {i}");
            assert_eq!(planner.layout(i).unwrap(), layout, "graph {i}");
            ok += 1;
        }
    }
    assert!(ok >= 3, "only {ok} of 4 big chains laid out");
}

/// Level-like graphs that need no hole (`graph::random::local_loops_graph_without_holes`: 100
/// rooms, 10 local loops, a hall where four links or more meet; tree links contact, loop links
/// contact or corridor) are big levels laid out in parts: most lay out within 20 attempts,
/// every layout valid, and the same under a time limit it stays within.
#[test]
fn level_like_graphs_without_holes_lay_out() {
    let mut ok = 0;
    for i in 0..5u64 {
        let g = levelplan::graph::random::local_loops_graph_without_holes(
            100,
            10,
            &mut levelplan::seed::stream(i, "open level test"),
        );
        assert!(levelplan::graph::enclosures(&g).is_empty(), "graph {i}");
        let mut p = chain_problem(&g, |links| if links > 3 { vec![3] } else { vec![0, 1] });
        p.budget.retry = levelplan::layout::RetryPolicy::Attempts(20);
        if lays_out_valid(&p, i) {
            ok += 1;
            // A time limit the layout stays within never changes it (the limit reaches the
            // searches of the parts too).
            let mut capped = p.clone();
            capped.budget.time_limit_ms = Some(600_000);
            assert_eq!(
                Planner::new(capped).unwrap().layout(i).unwrap(),
                Planner::new(p.clone()).unwrap().layout(i).unwrap(),
                "graph {i}"
            );
        }
    }
    assert!(ok >= 4, "only {ok} of 5 graphs laid out");
}

/// A big level with a part that its own searches never lay out: graph 2 of the scale
/// benchmark's 400-room level-like graphs without holes (20 attempts), whose part of 18 rooms
/// (and 6 stand-ins) found no layout in its searches of 10 attempts each, other room orders,
/// annealing or without its stand-ins, and failed the level. That part now gets one long
/// search with corridors giving way to rooms before the level is given up, and the level lays
/// out, validly (a layout of it was found in no other way).
#[test]
fn a_part_its_searches_miss_gets_one_long_search() {
    let p = scale::open_problem(400, 40, 2);
    assert_eq!(p.rooms.len(), 400);
    assert!(lays_out_valid(&p, 2), "graph 2 of 400 rooms without holes");
}

/// A big level with a part that its own searches never lay out, which the level's own
/// room-by-room search lays out at its first attempt: graph 6 of the scale benchmark's 100-room
/// level-like graphs without holes (20 attempts). Its first cut's parts do not fit, and in its
/// second cut a part of 35 rooms found no layout in its searches (other orders, annealing and
/// one long search included), which failed the level; a part is searched with stand-ins for
/// what hangs off it, so that proved nothing about the level. The room-by-room search, which
/// now follows the first cut (and, where it has not run, a part that finds no layout),
/// lays it out, validly, with the first cut's attempts counted.
#[test]
fn a_part_its_searches_miss_leaves_the_level_to_the_room_by_room_search() {
    let p = scale::open_problem(100, 10, 6);
    let layout = Planner::new(p.clone())
        .unwrap()
        .layout(6)
        .expect("graph 6 of 100 rooms");
    assert_eq!(check(&p, &layout), Ok(()));
    assert_eq!(tile_faults(&layout), None);
    assert!(layout.attempts > 1, "the parts' attempt came first");
}

/// A big level whose loops must enclose a room and the room hanging off it (graph 7 of the
/// benchmark's level-like graphs of 100 rooms): the block is three paths between two rooms, and
/// the path that must lie in the middle is the one with the lightest piece hanging off it. Its
/// part's stand-ins weigh the rooms they stand for, so the part's order closes the ring round
/// that path, not round the one-room path whose piece holds more; it lays out, validly.
#[test]
fn a_part_shuts_in_the_lightest_piece() {
    let g = levelplan::graph::random::local_loops_graph(
        100,
        10,
        &mut levelplan::seed::stream(7, "scale graph"),
    );
    let holes = levelplan::graph::enclosures(&g);
    assert_eq!(holes.len(), 1);
    assert_eq!(holes[0].rooms_held(), 2);
    let mut p = chain_problem(&g, |links| if links > 3 { vec![3] } else { vec![0, 1] });
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(20);
    assert!(lays_out_valid(&p, 7));
}

/// A chain of 10 loops (a big level, 50 rooms or more) for the time budget tests.
fn timed_chain() -> LayoutProblem {
    let g = levelplan::graph::random::loop_chain_graph(
        10,
        &mut levelplan::seed::stream(5, "timed chain test"),
    );
    let p = chain_problem(&g, |links| if links > 3 { vec![3] } else { vec![0, 1] });
    assert!(p.rooms.len() >= 50, "{} rooms", p.rooms.len());
    p
}

/// A time budget works for big levels too (the parts get the first 70%, the room-by-room
/// search the rest): a chain of 10 loops lays out validly under one. The budget is far beyond
/// what the level takes on any machine (a fraction of a second here), so that the test does not
/// depend on the machine's speed: a budget only bounds the search, the first valid layout ends
/// it.
#[test]
fn big_levels_take_a_time_budget() {
    let mut p = timed_chain();
    p.budget.retry = levelplan::layout::RetryPolicy::Millis(600_000);
    let layout = Planner::new(p.clone()).unwrap().layout(1).unwrap();
    assert_eq!(check(&p, &layout), Ok(()));
}

/// A big level given a time limit (`Budget::time_limit_ms`) that runs out before its parts
/// are fitted: the layout is then either the one found without the limit or an
/// [`LayoutError::OutOfTime`], never one that a later stage (the second cut, or the
/// room-by-room search) found past the limit. A limit of 0 ms has run out before the first
/// attempt ends, on any machine.
#[test]
fn a_big_level_past_its_time_limit_gives_the_unlimited_layout_or_out_of_time() {
    let mut p = timed_chain();
    for seed in 0..3 {
        let free = Planner::new(p.clone()).unwrap().layout(seed).unwrap();
        // And limits that run out part of the way, wherever that is on the machine.
        for limit in [0, 1, 5, 20] {
            p.budget.time_limit_ms = Some(limit);
            match Planner::new(p.clone()).unwrap().layout(seed) {
                Ok(layout) => assert_eq!(layout, free, "seed {seed}, {limit} ms"),
                Err(LayoutError::OutOfTime { limit_ms, .. }) if limit_ms == limit => {}
                other => panic!("seed {seed}, {limit} ms: {other:?}"),
            }
        }
        p.budget.time_limit_ms = None;
    }
}

/// Lays `p` out with 20 attempts for seeds `0..seeds`: every layout valid, and the same
/// twice.
fn lays_out_every_seed(mut p: LayoutProblem, seeds: u64) {
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(20);
    let planner = Planner::new(p.clone()).unwrap();
    for seed in 0..seeds {
        let layout = planner.layout(seed).unwrap();
        assert_eq!(check(&p, &layout), Ok(()), "seed {seed}");
        assert_eq!(layout.to_json(), planner.layout(seed).unwrap().to_json());
    }
}

/// Six rooms linked as K3,3 less one link: the 4-cycle `a0 b0 a1 b1` splits the plane, and the
/// two rooms left (`a2`, joined to `b0` and `b1`; `b2`, joined to `a0` and `a1`) must lie on
/// either side of it, so one of them sits inside the loop: a layout needs a hole. The
/// room-by-room search closes loops tight and never leaves one; annealing (its fallback) moves
/// rooms apart until one fits. Every seed lays out, valid, the same way twice.
#[test]
fn a_loop_drawn_round_a_room_lays_out() {
    let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("square", 6, 6, 1)]);
    for name in ["a0", "a1", "a2", "b0", "b1", "b2"] {
        p.rooms.push(RoomSpec::new(name, vec![0]));
    }
    for a in 0..3 {
        for b in 3..6 {
            if (a, b) != (2, 5) {
                let realise = Realise::ContactOrPath { min: 1, max: 30 };
                p.links.push(LinkSpec::new(a, b, realise));
            }
        }
    }
    lays_out_every_seed(p, 8);
}

/// A level-like graph that needs a hole (the shape of the scale benchmark's failures): a hall
/// with three loops through it and its neighbour `r19`, rooms hanging off the loops' rooms, a
/// tail of three rooms off `r14`; tree links contact, the links closing loops contact or
/// corridor (4 to 30 cells). Whatever the drawing, a loop must go round a room with a room
/// hanging off it (`r18` and `r20`, or `r27` and `r29`). The order places what will be shut in
/// first, the ring round it last, closing by corridor, and checks that the ring leaves the
/// tail's room outside. Every seed lays out, valid, the same way twice (1 seed in 20 before).
#[test]
fn a_ring_closes_round_rooms_placed_first() {
    let mut p = LayoutProblem::new(vec![
        RoomTemplate::rectangle("square", 6, 6, 1),
        RoomTemplate::rectangle("long", 5, 9, 1),
        RoomTemplate::rectangle("hall", 16, 16, 1),
    ]);
    let names = [
        "hall", "r14", "r15", "r18", "r19", "r20", "r21", "r23", "r24", "r25", "r26", "r27", "r28",
        "r29", "t1", "t2", "t3",
    ];
    for n in names {
        let shapes = if n == "hall" { vec![2] } else { vec![0, 1] };
        p.rooms.push(RoomSpec::new(n, shapes));
    }
    let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
    let tree = [
        ("r15", "r18"),
        ("r15", "r19"),
        ("r18", "r20"),
        ("r19", "r21"),
        ("r19", "hall"),
        ("hall", "r23"),
        ("hall", "r24"),
        ("hall", "r25"),
        ("hall", "r26"),
        ("r25", "r27"),
        ("r26", "r28"),
        ("r27", "r29"),
        ("r14", "r15"),
        ("r14", "t1"),
        ("t1", "t2"),
        ("t2", "t3"),
    ];
    for (a, b) in tree {
        p.links.push(LinkSpec::new(at(a), at(b), Realise::Contact));
    }
    for (a, b) in [("r23", "r18"), ("r21", "r27"), ("r24", "r14")] {
        let realise = Realise::ContactOrPath { min: 4, max: 30 };
        p.links.push(LinkSpec::new(at(a), at(b), realise));
    }
    lays_out_every_seed(p, 8);
}

/// Three paths of one room between `s` and `t`, each middle room with rooms hanging off it, all
/// links contact: the middle path lies inside the ring of the other two in any drawing, and a
/// ring of four touching rooms has no hole. The error says the graph needs a hole and names
/// the room a loop must enclose (the lightest), next to the room that failed.
#[test]
fn a_graph_that_needs_a_hole_says_so() {
    let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("square", 6, 6, 1)]);
    p.rooms.push(RoomSpec::new("s", vec![0]));
    p.rooms.push(RoomSpec::new("t", vec![0]));
    for m in 0..3 {
        let mid = p.rooms.len();
        p.rooms.push(RoomSpec::new(&format!("m{m}"), vec![0]));
        p.links.push(LinkSpec::new(0, mid, Realise::Contact));
        p.links.push(LinkSpec::new(mid, 1, Realise::Contact));
        let mut prev = mid;
        for k in 0..=m {
            p.rooms.push(RoomSpec::new(&format!("m{m}-{k}"), vec![0]));
            p.links
                .push(LinkSpec::new(prev, p.rooms.len() - 1, Realise::Contact));
            prev = p.rooms.len() - 1;
        }
    }
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(5);
    let e = Planner::new(p).unwrap().layout(0).unwrap_err().to_string();
    assert!(e.contains("the graph needs a hole"), "{e}");
    assert!(
        e.contains("a loop must enclose `m0` and the 1 room hanging off it"),
        "{e}"
    );
}

/// Two groups of loops that each need a hole, joined by a link: three paths of one room
/// between two rooms, with 1, 2 and 3 rooms hanging off the middle rooms in the first group
/// and 5, 6 and 7 in the second. The error names the group whose hole must hold the most
/// rooms (the second: its lightest middle room and the 5 rooms hanging off it) and says that
/// another group needs a hole too.
#[test]
fn the_hole_named_is_the_biggest_one() {
    let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("square", 6, 6, 1)]);
    let theta = |p: &mut LayoutProblem, tag: &str, hanging: [usize; 3]| -> usize {
        let s = p.rooms.len();
        p.rooms.push(RoomSpec::new(&format!("{tag}s"), vec![0]));
        p.rooms.push(RoomSpec::new(&format!("{tag}t"), vec![0]));
        for (m, &count) in hanging.iter().enumerate() {
            let mid = p.rooms.len();
            p.rooms.push(RoomSpec::new(&format!("{tag}{m}"), vec![0]));
            p.links.push(LinkSpec::new(s, mid, Realise::Contact));
            p.links.push(LinkSpec::new(mid, s + 1, Realise::Contact));
            let mut prev = mid;
            for k in 0..count {
                p.rooms
                    .push(RoomSpec::new(&format!("{tag}{m}-{k}"), vec![0]));
                p.links
                    .push(LinkSpec::new(prev, p.rooms.len() - 1, Realise::Contact));
                prev = p.rooms.len() - 1;
            }
        }
        s
    };
    let a = theta(&mut p, "a", [1, 2, 3]);
    let b = theta(&mut p, "b", [5, 6, 7]);
    p.links.push(LinkSpec::new(a, b, Realise::Contact));
    p.budget.retry = levelplan::layout::RetryPolicy::Attempts(2);
    // The search's own error, where the planner is made to search.
    let e = Planner::new_without_proof(p.clone())
        .unwrap()
        .layout(0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "a loop must enclose `b0` and the 5 rooms hanging off it (1 other group of loops \
             needs a hole too)"
        ),
        "{e}"
    );
    // A ring of four 6 x 6 rooms encloses at most (4 * 6.71)^2 / 4 pi = 57 cells, not the 180
    // of `b0`'s five rooms: the planner refuses the problem before any search, naming the
    // three middle rooms (one of which would have to be inside).
    let e = Planner::new(p).unwrap_err();
    let LayoutError::HoleTooSmall { rooms } = &e else {
        panic!("{e}");
    };
    let names: Vec<&str> = rooms.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["b0", "b1", "b2"]);
    assert_eq!(rooms[0].1, 180, "b0's five rooms");
    assert!((rooms[0].3 - 57.30).abs() < 0.01, "{:?}", rooms[0]);
    assert!(
        e.to_string().contains(
            "no drawing has all of `b0` (180 cells hang off it; a loop round it runs at most 27 \
             cells round, enclosing at most 57), `b1`"
        ),
        "{e}"
    );
}

/// A hand-made layout and its problem, every position chosen so that each kind of violation can
/// be made by one change. Four 6 x 6 squares (sliding doors of length 2, one cell from the
/// corners): `a` at (0, 0) and `b` at (6, 0) touch (contact link a-b through the door
/// (6, 2)-(6, 4)); `c` at (20, 0) is joined to `b` by a corridor along row 2 from (12, 2) to
/// (19, 2); `d` at (0, 12) to `a` by a corridor up column 2 from (2, 6) to (2, 11). Rooms that
/// are not linked are at least 6 apart (`b` and `d`); the minimum distance is 3.
mod hand_made {
    use levelplan::layout::geom::{Point, Transform};
    use levelplan::layout::{
        Layout, LayoutProblem, LinkSpec, PlacedLink, PlacedRoom, Realise, RoomSpec, RoomTemplate,
        Segment,
    };

    pub fn p(x: i32, y: i32) -> Point {
        Point::new(x, y)
    }

    pub fn seg(a: (i32, i32), b: (i32, i32)) -> Segment {
        Segment {
            a: p(a.0, a.1),
            b: p(b.0, b.1),
        }
    }

    fn square(name: &str, socket: Option<&str>) -> RoomTemplate {
        let mut t = RoomTemplate::rectangle(name, 6, 6, 1);
        t.doors = levelplan::layout::template::DoorMode::Sliding {
            length: 2,
            corner_distance: 1,
            socket: socket.map(String::from),
        };
        t
    }

    pub fn problem() -> LayoutProblem {
        let mut pr = LayoutProblem::new(vec![
            square("square", None),
            RoomTemplate::rectangle("long", 6, 9, 1),
        ]);
        for name in ["a", "b", "c", "d"] {
            pr.rooms.push(RoomSpec::new(name, vec![0]));
        }
        let path = Realise::Path { min: 1, max: 20 };
        pr.links.push(LinkSpec::new(0, 1, Realise::Contact));
        pr.links.push(LinkSpec::new(1, 2, path));
        pr.links.push(LinkSpec::new(0, 3, path));
        pr.min_distance = 3;
        pr
    }

    pub fn room(name: &str, x: i32, y: i32) -> PlacedRoom {
        PlacedRoom {
            name: name.into(),
            template: 0,
            template_name: "square".into(),
            transform: Transform::Identity,
            position: p(x, y),
            min: p(x, y),
            outline: vec![p(x, y), p(x, y + 6), p(x + 6, y + 6), p(x + 6, y)],
            corridor: false,
        }
    }

    pub fn layout() -> Layout {
        Layout {
            seed: 0,
            attempts: 1,
            rooms: vec![
                room("a", 0, 0),
                room("b", 6, 0),
                room("c", 20, 0),
                room("d", 0, 12),
            ],
            links: vec![
                PlacedLink {
                    door_from: seg((6, 2), (6, 4)),
                    door_to: seg((6, 2), (6, 4)),
                    corridor: vec![],
                },
                PlacedLink {
                    door_from: seg((12, 2), (12, 4)),
                    door_to: seg((20, 2), (20, 4)),
                    corridor: (12..=19).map(|x| p(x, 2)).collect(),
                },
                PlacedLink {
                    door_from: seg((2, 6), (4, 6)),
                    door_to: seg((2, 12), (4, 12)),
                    corridor: (6..=11).map(|y| p(2, y)).collect(),
                },
            ],
        }
    }
}

/// One broken layout per kind of violation, each reported exactly (which rooms or link, and
/// what): too few rooms or links, a template or transformation the room may not use, an outline
/// that is not the template's, two rooms overlapping, two rooms too close, a door where the
/// template has none, sockets that differ, contact where a corridor is required and the
/// reverse, contact doors that do not meet, a corridor too long, one that does not start at its
/// door, one with a gap, two corridors crossing, a corridor through a room, one beside another
/// corridor and one beside a room without walls (while one beside a room with walls passes).
#[test]
fn each_kind_of_violation_is_named_exactly() {
    use hand_made::{layout, p, problem, seg};
    use levelplan::layout::geom::Transform;
    let (good, pr) = (layout(), problem());
    assert_eq!(check(&pr, &good), Ok(()));
    let link = |from: &str, to: &str, problem: &str| Violation::Link {
        from: from.into(),
        to: to.into(),
        problem: problem.into(),
    };
    let room_problem = |room: &str, problem: &str| Violation::Room {
        room: room.into(),
        problem: problem.into(),
    };

    let mut l = good.clone();
    l.rooms.pop();
    assert_eq!(
        check(&pr, &l),
        Err(Violation::Count {
            what: "rooms",
            got: 3,
            want: 4
        })
    );
    let mut l = good.clone();
    l.links.pop();
    assert_eq!(
        check(&pr, &l),
        Err(Violation::Count {
            what: "links",
            got: 2,
            want: 3
        })
    );

    let mut l = good.clone();
    l.rooms[0].template = 1;
    l.rooms[0].template_name = "long".into();
    assert_eq!(
        check(&pr, &l),
        Err(room_problem(
            "a",
            "template long is not one of the room's templates"
        ))
    );
    let mut only_turned = problem();
    only_turned.templates[0].transforms = vec![Transform::Rotate90];
    assert_eq!(
        check(&only_turned, &good),
        Err(room_problem(
            "a",
            &format!(
                "template `square` does not allow {}",
                Transform::Identity.name()
            )
        ))
    );
    let mut l = good.clone();
    l.rooms[2].outline[1] = p(20, 7);
    l.rooms[2].outline[2] = p(26, 7);
    assert_eq!(
        check(&pr, &l),
        Err(room_problem(
            "c",
            &format!(
                "the outline is not template `square` under {}",
                Transform::Identity.name()
            )
        ))
    );

    // `d` moved onto `b`.
    let mut l = good.clone();
    l.rooms[3] = hand_made::room("d", 6, 0);
    assert_eq!(
        check(&pr, &l),
        Err(Violation::Overlap("b".into(), "d".into()))
    );
    let mut strict = problem();
    strict.min_distance = 7;
    assert_eq!(
        check(&strict, &good),
        Err(Violation::Distance {
            a: "b".into(),
            b: "d".into(),
            distance: 6,
            min: 7
        })
    );

    // A door one cell from the corner is the first position; at the corner there is none.
    let mut l = good.clone();
    l.links[0].door_from = seg((6, 0), (6, 2));
    assert_eq!(
        check(&pr, &l),
        Err(link(
            "a",
            "b",
            "door (6, 0)-(6, 2) is not a door position of `a`"
        ))
    );
    let mut sockets = problem();
    sockets.templates[0] = {
        let mut t = RoomTemplate::rectangle("square", 6, 6, 1);
        t.doors = levelplan::layout::template::DoorMode::Sliding {
            length: 2,
            corner_distance: 1,
            socket: Some("stone".into()),
        };
        t
    };
    sockets.templates.push({
        let mut t = sockets.templates[0].clone();
        t.name = "wooden".into();
        t.doors = levelplan::layout::template::DoorMode::Sliding {
            length: 2,
            corner_distance: 1,
            socket: Some("wood".into()),
        };
        t
    });
    sockets.rooms[1].templates = vec![2];
    let mut l = good.clone();
    l.rooms[1].template = 2;
    l.rooms[1].template_name = "wooden".into();
    assert_eq!(
        check(&sockets, &l),
        Err(link("a", "b", "sockets `stone` and `wood` do not match"))
    );

    let mut corridor_only = problem();
    corridor_only.links[0].realise = Realise::Path { min: 1, max: 20 };
    assert_eq!(
        check(&corridor_only, &good),
        Err(link("a", "b", "the link must be a corridor"))
    );
    let mut contact_only = problem();
    contact_only.links[1].realise = Realise::Contact;
    assert_eq!(
        check(&contact_only, &good),
        Err(link("b", "c", "the link must be direct contact"))
    );
    let mut l = good.clone();
    l.links[0].door_to = seg((6, 3), (6, 5));
    assert_eq!(
        check(&pr, &l),
        Err(link("a", "b", "the two doors do not meet"))
    );

    let mut short = problem();
    short.links[1].realise = Realise::Path { min: 1, max: 5 };
    assert_eq!(
        check(&short, &good),
        Err(link("b", "c", "corridor of 8 cells, allowed 1..=5"))
    );
    let mut l = good.clone();
    l.links[1].corridor.remove(0);
    assert_eq!(
        check(&pr, &l),
        Err(link(
            "b",
            "c",
            "the corridor does not start and end at its doors"
        ))
    );
    let mut l = good.clone();
    l.links[1].corridor.remove(3);
    assert_eq!(
        check(&pr, &l),
        Err(link("b", "c", "the corridor has a gap"))
    );
    // The b-c corridor goes up column 12 and along row 7 to column 2 (through the a-d
    // corridor's cell (2, 7)), comes back the same way and on to `c`.
    let mut long = problem();
    long.links[1].realise = Realise::Path { min: 1, max: 100 };
    let mut l = good.clone();
    let mut out: Vec<_> = (2..=7).map(|y| p(12, y)).collect();
    out.extend((2..12).rev().map(|x| p(x, 7)));
    let back: Vec<_> = out.iter().rev().skip(1).copied().collect();
    out.extend(back);
    out.extend((13..=19).map(|x| p(x, 2)));
    l.links[1].corridor = out;
    assert_eq!(
        check(&long, &l),
        Err(link(
            "a",
            "d",
            "the corridor crosses the corridor of link 1"
        ))
    );
    // Into `b` and out again.
    let mut l = good.clone();
    l.links[1].corridor.splice(1..1, [p(11, 2), p(12, 2)]);
    assert_eq!(
        check(&pr, &l),
        Err(link("b", "c", "the corridor runs through room `b`"))
    );
    // The b-c corridor up column 12, left along row 7 to column 3, beside the a-d corridor's
    // cell (2, 7), right along row 8, down column 13 and along row 2 to `c`: as tiles the
    // two corridors would be one.
    let mut l = good.clone();
    let mut out: Vec<_> = (2..=7).map(|y| p(12, y)).collect();
    out.extend((3..12).rev().map(|x| p(x, 7)));
    out.extend((3..=13).map(|x| p(x, 8)));
    out.extend((2..=7).rev().map(|y| p(13, y)));
    out.extend((14..=19).map(|x| p(x, 2)));
    l.links[1].corridor = out;
    assert_eq!(
        check(&long, &l),
        Err(link(
            "b",
            "c",
            "the corridor runs beside link 2's corridor at cell (3, 7)"
        ))
    );
    assert_eq!(
        tile_faults(&l).as_deref(),
        Some("the corridors of links 1 and 2 run together at tile (3, 11)")
    );
    assert_eq!(tile_faults(&good), None);
    // A room `e` just above the b-c corridor: a square has walls of its own, so the corridor
    // may run beside it; a room two cells wide is floor throughout, so it may not.
    let with_e = |template: usize, name: &str, w: i32, h: i32| {
        let mut pr = problem();
        pr.templates
            .push(levelplan::layout::RoomTemplate::rectangle("slot", 2, 6, 1));
        pr.rooms
            .push(levelplan::layout::RoomSpec::new("e", vec![template]));
        pr.min_distance = 0;
        let mut l = good.clone();
        let mut e = hand_made::room("e", 14, 3);
        e.template = template;
        e.template_name = name.into();
        e.outline = vec![p(14, 3), p(14, 3 + h), p(14 + w, 3 + h), p(14 + w, 3)];
        l.rooms.push(e);
        (pr, l)
    };
    let (pr_square, l) = with_e(0, "square", 6, 6);
    assert_eq!(check(&pr_square, &l), Ok(()));
    assert_eq!(tile_faults(&l), None);
    let (pr_slot, l) = with_e(2, "slot", 2, 6);
    assert!(tile_faults(&l).is_some_and(|f| f.starts_with("floor beside a corridor")));
    assert_eq!(
        check(&pr_slot, &l),
        Err(link(
            "b",
            "c",
            "the corridor runs beside room `e`, which has no walls at cell (14, 2)"
        ))
    );
    // The original, untouched, still passes.
    assert_eq!(check(&pr, &layout()), Ok(()));
}

// ---------------------------------------------------------------------------------------
// Graphs with a layout by construction (`graph::random::placed_rooms_graph`), the family the
// layout-at-scale work is measured on.

mod placed_rooms {
    use std::collections::HashMap;

    use levelplan::graph::random::{PlacedRooms, placed_rooms_graph, shape_cells};
    use levelplan::graph::{component_count, cycle_rank, is_planar};
    use levelplan::layout::{LayoutProblem, Planner, RetryPolicy};
    use levelplan::{LinkRole, RoomId};
    use proptest::prelude::*;

    /// The five basic shapes as templates (doors of one cell anywhere), every link a contact.
    fn problem(placed: &PlacedRooms) -> LayoutProblem {
        let mut p = LayoutProblem::of_placed_rooms(placed);
        p.budget.retry = RetryPolicy::Attempts(20);
        p
    }

    /// Brute force: the placement is a contact layout of the graph.
    fn witness_holds(placed: &PlacedRooms) -> Result<(), String> {
        let mut owner: HashMap<(i32, i32), usize> = HashMap::new();
        for (i, r) in placed.rooms.iter().enumerate() {
            // The cells are the shape's, moved.
            let mut own = shape_cells(r.shape, r.transform);
            let mut cells = r.cells.clone();
            cells.sort_unstable();
            let (dx, dy) = (cells[0].0 - own[0].0, cells[0].1 - own[0].1);
            own.iter_mut().for_each(|c| *c = (c.0 + dx, c.1 + dy));
            if own != cells {
                return Err(format!("room {i} is not its shape"));
            }
            for &c in &r.cells {
                if let Some(j) = owner.insert(c, i) {
                    return Err(format!("rooms {j} and {i} share cell {c:?}"));
                }
            }
        }
        for (l, a, b, _) in placed.graph.links() {
            let (ca, cb) = (
                &placed.rooms[a.0 as usize].cells,
                &placed.rooms[b.0 as usize].cells,
            );
            let touch = ca
                .iter()
                .any(|&(x, y)| cb.iter().any(|&(u, v)| (x - u).abs() + (y - v).abs() == 1));
            if !touch {
                return Err(format!("link {l}: rooms {a} and {b} do not touch"));
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        #[test]
        fn the_placement_proves_a_contact_layout(rooms in 2usize..160, loops in 0usize..24, seed in any::<u64>()) {
            let placed = placed_rooms_graph(rooms, loops, &mut levelplan::seed::stream(seed, "placed"));
            let g = &placed.graph;
            prop_assert_eq!(g.room_count(), rooms);
            prop_assert_eq!(placed.rooms.len(), rooms);
            prop_assert_eq!(component_count(g), 1);
            prop_assert!(cycle_rank(g) <= loops);
            prop_assert!(is_planar(g));
            let tree = g.links().filter(|(.., k)| k.role == LinkRole::Tree).count();
            prop_assert_eq!(tree, rooms - 1);
            witness_holds(&placed).map_err(TestCaseError::fail)?;
            let again = placed_rooms_graph(rooms, loops, &mut levelplan::seed::stream(seed, "placed"));
            prop_assert_eq!(&again.rooms, &placed.rooms);
        }
    }

    #[test]
    fn the_checker_catches_a_broken_placement() {
        let mut placed = placed_rooms_graph(30, 3, &mut levelplan::seed::stream(2, "placed"));
        witness_holds(&placed).unwrap();
        // Move the last room far away: its links no longer touch.
        let far: Vec<(i32, i32)> = placed.rooms[29]
            .cells
            .iter()
            .map(|&(x, y)| (x + 1000, y))
            .collect();
        placed.rooms[29].cells = far;
        assert!(witness_holds(&placed).unwrap_err().contains("do not touch"));
    }

    #[test]
    fn loops_are_drawn_when_rooms_touch() {
        // Blobs of rooms touch a lot: the loops asked for are there.
        for seed in 0..5 {
            let placed = placed_rooms_graph(200, 20, &mut levelplan::seed::stream(seed, "placed"));
            assert_eq!(cycle_rank(&placed.graph), 20, "seed {seed}");
        }
    }

    #[test]
    fn small_placed_graphs_lay_out() {
        for seed in 0..6 {
            let placed = placed_rooms_graph(40, 4, &mut levelplan::seed::stream(seed, "placed"));
            let planner = Planner::new(problem(&placed)).unwrap();
            let layout = planner
                .layout(seed)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            planner.check(&layout).unwrap();
        }
    }

    /// Big graphs of this family (those of the scale benchmark's seeds 1, 3 and 9) whose
    /// biggest block the room-by-room search laid out on at most 1 attempt in 50 before it
    /// placed rooms by a drawing of the level (issue 22): each lays out, and the layout
    /// passes the independent check. (Not every graph of 300 rooms does yet: see
    /// `docs/layout-at-scale.md`.)
    #[test]
    fn big_placed_graphs_lay_out() {
        for seed in [1, 3, 9] {
            let placed =
                placed_rooms_graph(300, 30, &mut levelplan::seed::stream(seed, "placed rooms"));
            let planner = Planner::new(problem(&placed)).unwrap();
            let layout = planner
                .layout(seed)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            planner.check(&layout).unwrap();
            // The drawing is made afresh by a new planner: the same layout, byte for byte.
            let again = Planner::new(problem(&placed))
                .unwrap()
                .layout(seed)
                .unwrap();
            assert_eq!(
                serde_json::to_string(&again).unwrap(),
                serde_json::to_string(&layout).unwrap(),
                "seed {seed}"
            );
        }
    }

    /// A graph of this family (the scale probe's seed 23, 300 rooms) on which every start of
    /// the whole level's drawing crossed links, and whose layout failed until crossing links
    /// were untangled (issue 22): it lays out, and passes the independent check.
    #[test]
    fn a_graph_whose_drawing_is_untangled_lays_out() {
        let placed = placed_rooms_graph(300, 30, &mut levelplan::seed::stream(23, "placed rooms"));
        let planner = Planner::new(problem(&placed)).unwrap();
        let layout = planner.layout(23).unwrap_or_else(|e| panic!("{e}"));
        planner.check(&layout).unwrap();
    }

    #[test]
    fn an_order_given_is_followed_or_refused() {
        let placed = placed_rooms_graph(20, 2, &mut levelplan::seed::stream(4, "placed"));
        let planner = || Planner::new(problem(&placed)).unwrap();
        // The rooms in the order they were built: each touches one built before it.
        let order: Vec<usize> = (0..20).collect();
        let p = planner().with_order(&order).unwrap();
        let first_lines: Vec<String> = p
            .debug_order()
            .lines()
            .take(3)
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect();
        assert_eq!(first_lines, ["r0", "r1", "r2"]);
        if let Ok(layout) = p.layout(1) {
            p.check(&layout).unwrap();
        }
        // Not a permutation; a room with no neighbour before it.
        assert!(planner().with_order(&[0, 1, 1]).is_err());
        assert!(planner().with_order(&(0..19).collect::<Vec<_>>()).is_err());
        // A room that is not room 0's neighbour cannot come right after it.
        let apart = (1..20)
            .find(|&r| {
                !placed
                    .graph
                    .incident_links(RoomId(0))
                    .any(|(_, o)| o.0 as usize == r)
            })
            .expect("20 rooms are no star round room 0 here");
        let mut bad: Vec<usize> = vec![0, apart];
        bad.extend((1..20).filter(|&r| r != apart));
        let Err(err) = planner().with_order(&bad) else {
            panic!("an order with a room before its neighbours is refused");
        };
        let err = err.to_string();
        assert!(err.contains("no neighbour placed before it"), "{err}");
    }
}

/// Per room, its neighbours in the cyclic order of the angles from its box centre to theirs
/// (doubled centres: `min + max` on each axis), given each room's box.
fn rotation_of(boxes: &[(i64, i64, i64, i64)], links: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let centre = |r: usize| {
        let (x0, y0, x1, y1) = boxes[r];
        ((x0 + x1) as f64, (y0 + y1) as f64)
    };
    (0..boxes.len())
        .map(|u| {
            let o = centre(u);
            let mut nbs: Vec<usize> = links
                .iter()
                .filter_map(|&(a, b)| (a == u).then_some(b).or((b == u).then_some(a)))
                .collect();
            nbs.sort_by(|&a, &b| {
                let (pa, pb) = (centre(a), centre(b));
                (pa.1 - o.1)
                    .atan2(pa.0 - o.0)
                    .total_cmp(&(pb.1 - o.1).atan2(pb.0 - o.0))
            });
            nbs
        })
        .collect()
}

/// The box round `points`: (least x, least y, greatest x, greatest y).
fn box_round(points: impl Iterator<Item = (i64, i64)>) -> (i64, i64, i64, i64) {
    points.fold(
        (i64::MAX, i64::MAX, i64::MIN, i64::MIN),
        |(x0, y0, x1, y1), (x, y)| (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
    )
}

/// Whether `order` is `reference` started at some point (the same cyclic order).
fn same_cycle(order: &[usize], reference: &[usize]) -> bool {
    order.len() == reference.len()
        && (0..reference.len().max(1)).any(|k| {
            order
                .iter()
                .enumerate()
                .all(|(i, &x)| reference[(i + k) % reference.len()] == x)
        })
}

#[test]
fn a_rotation_given_is_kept_round_every_room() {
    // Graphs read off a placement of rooms: its angles give a cyclic order of neighbours
    // round each room that some layout has. Under `with_rotation` every layout must show the
    // same order round every room (checked here from the layout's own boxes); without it,
    // some layout shows another, so the check can tell.
    let mut broken_without = 0;
    for seed in 0..6u64 {
        let placed = levelplan::graph::random::placed_rooms_graph(
            30,
            6,
            &mut levelplan::seed::stream(seed, "rotation test"),
        );
        // A cell at (x, y) covers up to (x + 1, y + 1).
        let boxes: Vec<(i64, i64, i64, i64)> = placed
            .rooms
            .iter()
            .map(|r| {
                box_round(r.cells.iter().flat_map(|c| {
                    let (x, y) = (i64::from(c.0), i64::from(c.1));
                    [(x, y), (x + 1, y + 1)]
                }))
            })
            .collect();
        let links: Vec<(usize, usize)> = placed
            .graph
            .links()
            .map(|(_, a, b, _)| (a.0 as usize, b.0 as usize))
            .collect();
        let rotation = rotation_of(&boxes, &links);
        let problem = LayoutProblem::of_placed_rooms(&placed);
        let kept = |layout: &levelplan::layout::Layout| {
            let boxes: Vec<(i64, i64, i64, i64)> = layout
                .rooms
                .iter()
                .map(|r| box_round(r.outline.iter().map(|p| (i64::from(p.x), i64::from(p.y)))))
                .collect();
            let got = rotation_of(&boxes, &links);
            (0..got.len()).all(|r| same_cycle(&got[r], &rotation[r]))
        };
        let free = Planner::new(problem.clone()).unwrap();
        let layout = free.layout(seed).unwrap();
        if !kept(&layout) {
            broken_without += 1;
        }
        let planner = Planner::new(problem.clone())
            .unwrap()
            .with_rotation(rotation.clone())
            .unwrap();
        let layout = planner.layout(seed).unwrap();
        assert!(planner.check(&layout).is_ok(), "seed {seed}");
        assert!(
            kept(&layout),
            "seed {seed}: a room's neighbours out of order"
        );
    }
    assert!(
        broken_without > 0,
        "the planner's own layouts all keep the order"
    );
}

#[test]
fn a_rotation_that_is_not_the_graphs_is_refused() {
    let mut problem = LayoutProblem::new(basic_templates());
    for name in ["a", "b", "c"] {
        problem.rooms.push(RoomSpec::new(name, vec![0]));
    }
    problem.links.push(LinkSpec::new(0, 1, Realise::Contact));
    problem.links.push(LinkSpec::new(1, 2, Realise::Contact));
    let planner = Planner::new(problem).unwrap();
    let short = planner.clone().with_rotation(vec![vec![1], vec![0, 2]]);
    assert_eq!(
        short.unwrap_err().to_string(),
        "layout problem: the rotation given round room `c` is missing or extra: 2 rows for 3 rooms"
    );
    let stranger = planner
        .clone()
        .with_rotation(vec![vec![1, 2], vec![0, 2], vec![1]]);
    assert_eq!(
        stranger.unwrap_err().to_string(),
        "layout problem: the rotation given round room `a` lists `c`, which is not linked to it"
    );
    assert!(
        planner
            .with_rotation(vec![vec![1], vec![2, 0], vec![1]])
            .is_ok()
    );
}

/// A layout file may hold any numbers: rooms and corridor cells at the ends of the
/// coordinate range are refused with a violation, never a panic (the tests build with
/// overflow checks).
#[test]
fn extreme_coordinates_are_refused_not_panicked_on() {
    use hand_made::{layout, p, problem};
    let pr = problem();
    for (x, y) in [
        (i32::MAX - 6, i32::MAX - 6),
        (i32::MIN, i32::MIN),
        (i32::MAX - 6, i32::MIN),
    ] {
        let mut l = layout();
        l.rooms[3] = hand_made::room("d", 0, 0);
        l.rooms[3].outline = vec![p(x, y), p(x, y + 6), p(x + 6, y + 6), p(x + 6, y)];
        l.rooms[3].min = p(x, y);
        l.rooms[3].position = p(x, y);
        assert!(check(&pr, &l).is_err(), "room at ({x}, {y})");
        let mut l = layout();
        l.links[1].corridor.insert(1, p(x, y));
        assert!(check(&pr, &l).is_err(), "corridor cell at ({x}, {y})");
        l.links[1].corridor[1] = p(x, y);
        l.links[1].corridor.push(p(x, y));
        assert!(check(&pr, &l).is_err(), "corridor cells at ({x}, {y})");
    }
}
