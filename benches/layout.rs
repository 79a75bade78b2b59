//! The embedding layer: Edgar's inputs (the ones Edgar's medians were measured on), every
//! built-in flow end to end with the Gungeon recipe, and generated graphs of growing size.
//!
//! Edgar inputs are prepared once (templates compiled, configuration spaces computed) and then
//! laid out with a new seed per iteration, as a game would; preparation is benchmarked apart.

#[path = "common/scale.rs"]
mod scale;

use levelplan::Flow;
use levelplan::graph::enclosures;
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::{LayoutError, LayoutProblem, Planner};
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use scale::{
    all_corridors, chain_problem, open_problem, placed_problem, scale_graph, scale_problem,
};

fn main() {
    // The success rates take minutes; a run filtered to some benchmarks
    // (`cargo bench --bench layout -- edgar`) skips them.
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    if !filtered {
        scale_success_rates();
    }
    divan::main();
}

/// Lays `problem` out once (seed `seed`) and checks the layout: whether it laid out, and the
/// seconds the call took (preparing excluded); `Err` with the seconds `Planner::new` took where
/// it refused the problem because a hole proof shows that no layout exists
/// (`layout::proof::hole_proof`).
fn timed_layout(problem: LayoutProblem, seed: u64) -> Result<(bool, f64), f64> {
    let t = std::time::Instant::now();
    let planner = match Planner::new(problem) {
        Ok(p) => p,
        Err(LayoutError::HoleTooSmall { .. }) => return Err(t.elapsed().as_secs_f64()),
        Err(e) => panic!("{e}"),
    };
    let t = std::time::Instant::now();
    let result = planner.layout(seed);
    let secs = t.elapsed().as_secs_f64();
    if let Ok(layout) = &result {
        assert!(planner.check(layout).is_ok());
    }
    Ok((result.is_ok(), secs))
}

/// The median of some call times (seconds).
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Success rates of the scale problems and the loop chains (ten graphs and seeds per size),
/// printed before the timings: a failure is a `NoLayout` error after 20 attempts. For the scale
/// graphs, also how many need a hole (a loop drawn round a room with rooms hanging off it, see
/// `graph::enclosures`), which the layout rarely manages when rings must touch, and how many of
/// the others lay out; then level-like graphs drawn without holes
/// (`local_loops_graph_without_holes`), as a designer avoiding them would draw a level, graphs
/// read off a placement of rooms, and chains of loops (with contact bridges, then with every
/// link allowed a corridor; 100 of those under a 30 s limit each, a failure then being
/// `OutOfTime`). Each line gives the median time per
/// call of the graphs that laid out and of all of them; a table of rooms against the median
/// time of the successes closes the output (the growth with size).
fn scale_success_rates() {
    // (family, rooms, median seconds of the successes)
    let mut growth: Vec<(&str, usize, f64)> = Vec::new();
    let mut report =
        |family: &'static str, rooms: usize, calls: &[Result<(bool, f64), f64>]| -> String {
            let runs: Vec<(bool, f64)> = calls.iter().filter_map(|c| c.ok()).collect();
            let proven: Vec<f64> = calls.iter().filter_map(|c| c.err()).collect();
            let ok: Vec<f64> = runs.iter().filter(|r| r.0).map(|r| r.1).collect();
            let all = if runs.is_empty() {
                "-".to_string()
            } else {
                format!("{:.3} s", median(runs.iter().map(|r| r.1).collect()))
            };
            let good = if ok.is_empty() {
                "-".to_string()
            } else {
                let m = median(ok.clone());
                growth.push((family, rooms, m));
                format!("{m:.3} s")
            };
            let refused = if proven.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} proven to have no layout (refused by Planner::new, median {:.2} ms)",
                    proven.len(),
                    median(proven.clone()) * 1e3
                )
            };
            format!(
                "{}/{} laid out; median per call {good} (successes), {all} (all searched){refused}",
                ok.len(),
                calls.len()
            )
        };
    for (rooms, loops) in [(30, 4), (100, 10), (300, 30), (1000, 100)] {
        let mut runs = Vec::new();
        // Laid out and tried, by the rooms the graph's biggest forced hole must hold: none,
        // 1 to 3, 4 to 10, more.
        let mut by_hole = [(0, 0); 4];
        for s in 0..10 {
            let held = enclosures(&scale_graph(rooms, loops, s))
                .iter()
                .map(|e| e.rooms_held())
                .max()
                .unwrap_or(0);
            let bucket = match held {
                0 => 0,
                1..=3 => 1,
                4..=10 => 2,
                _ => 3,
            };
            let run = timed_layout(scale_problem(rooms, loops, s), s);
            by_hole[bucket].0 += usize::from(run.is_ok_and(|r| r.0));
            by_hole[bucket].1 += 1;
            runs.push(run);
        }
        let [none, small, mid, big] = by_hole.map(|(ok, all)| format!("{ok}/{all}"));
        println!(
            "scale {rooms} rooms, {loops} loops: {}; by the rooms the biggest hole must hold \
             (graph::Enclosure::rooms_held): no hole {none}, 1-3 {small}, 4-10 {mid}, more {big}",
            report("level-like", rooms, &runs),
        );
    }
    // 400 rooms / 40 loops too: the size of issue 22's time target (a median under 100 ms).
    for (rooms, loops) in [(30, 4), (100, 10), (300, 30), (400, 40), (1000, 100)] {
        let runs: Vec<_> = (0..10)
            .map(|s| timed_layout(open_problem(rooms, loops, s), s))
            .collect();
        println!(
            "level-like without holes, {rooms} rooms, {loops} loops: {}",
            report("without holes", rooms, &runs)
        );
    }
    // Graphs read off a placement of Edgar's five basic shapes: a contact layout exists.
    for rooms in [100, 300, 1000] {
        let seeds = if rooms >= 1000 { 3 } else { 10 };
        let runs: Vec<_> = (0..seeds)
            .map(|s| timed_layout(placed_problem(rooms, rooms / 10, s), s))
            .collect();
        println!(
            "placed rooms (a contact layout exists), {rooms} rooms, {} loops: {}",
            rooms / 10,
            report("placed rooms", rooms, &runs)
        );
    }
    // Chains of loops, then some with every link allowed a corridor, bridges too (parts out of
    // contact positions stand off for a corridor at their joints); those of 100 loops take up
    // to half a minute each, so they get a 30 s limit per graph (`Budget::time_limit_ms`: a
    // layout found within it is the one found without it).
    let chains = [10, 30, 50, 70, 100].map(|l| (l, false));
    for (loops, corridors) in chains
        .into_iter()
        .chain([(30, true), (70, true), (100, true)])
    {
        let mut rooms = 0;
        let mut runs = Vec::new();
        for s in 0..10 {
            let mut problem = chain_problem(loops, s);
            if corridors {
                problem = all_corridors(problem);
            }
            if loops >= 100 && corridors {
                problem.budget.time_limit_ms = Some(30_000);
            }
            rooms += problem.rooms.len();
            runs.push(timed_layout(problem, s));
        }
        let (what, family) = if corridors {
            (", every link contact or corridor", "chain, corridors")
        } else {
            ("", "chain of loops")
        };
        println!(
            "chain of {loops} loops{what} ({} rooms on average): {}",
            rooms / 10,
            report(family, rooms / 10, &runs)
        );
    }
    println!("growth with size (median seconds per layout of the graphs that laid out):");
    println!("{:<16} {:>6} {:>10}", "family", "rooms", "median s");
    for (family, rooms, m) in growth {
        println!("{family:<16} {rooms:>6} {m:>10.4}");
    }
}

const EDGAR: &[&str] = &[
    "example_basics",
    "ma2014_fig7top_9v_basic",
    "ma2014_fig9_15v_basic",
    "ma2014_fig1_17v_basic",
    "ma2014_fig7bottom_17v_basic",
    "ma2014_fig8_41v_basic",
    "ma2014_fig1_17v_corridors",
    "ma2014_fig8_41v_corridors",
    "example_complex_dungeon",
    "yaml_thesis_game2_basic",
    "mapdesc_gungeon_1_1",
    "mapdesc_gungeon_2_1",
    "mapdesc_dead_cells_rooftop",
];

fn edgar(name: &str) -> EdgarLevel {
    let path = format!(
        "{}/fixtures/edgar/inputs/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    EdgarLevel::from_json(&std::fs::read_to_string(&path).unwrap(), name).unwrap()
}

/// One layout of a prepared Edgar input, a new seed each time.
#[divan::bench(args = EDGAR)]
fn edgar_layout(bencher: divan::Bencher, name: &str) {
    let planner = Planner::new(edgar(name).problem).unwrap();
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        planner.layout(seed).unwrap()
    });
}

/// Preparing an Edgar input: compiling templates, configuration spaces, room order.
#[divan::bench(args = EDGAR, sample_count = 20)]
fn edgar_prepare(bencher: divan::Bencher, name: &str) {
    let problem = edgar(name).problem;
    // The problem is copied outside the timed part: only preparing is measured.
    bencher
        .with_inputs(|| problem.clone())
        .bench_local_values(|problem| Planner::new(problem).unwrap());
}

/// The hole proof alone on an Edgar input (part of `Planner::new`, so of preparing and of the
/// one-shot time): none of them needs a hole too small, so this is its cost on levels that
/// lay out.
#[divan::bench(args = EDGAR)]
fn edgar_hole_proof(bencher: divan::Bencher, name: &str) {
    let problem = edgar(name).problem;
    bencher.bench_local(|| {
        levelplan::layout::proof::hole_proof(&problem)
            .unwrap()
            .is_none()
    });
}

/// What a game that makes one level waits: preparing a fresh planner and laying out once,
/// a new seed each time (configuration spaces computed as the search meets them).
#[divan::bench(args = EDGAR, sample_count = 100)]
fn edgar_one_shot(bencher: divan::Bencher, name: &str) {
    let problem = edgar(name).problem;
    let mut seed = 0;
    bencher
        .with_inputs(|| problem.clone())
        .bench_local_values(|problem| {
            seed += 1;
            Planner::new(problem).unwrap().layout(seed).unwrap()
        });
}

/// A whole level: flow, injections, locks, solver, layout with the built-in templates, tiles.
#[divan::bench(args = levelplan::FlowTemplate::builtin_names())]
fn gungeon_level(bencher: divan::Bencher, flow: &str) {
    let generator = Generator::new(Flow::builtin(flow).unwrap(), GungeonParams::default()).unwrap();
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        generator.generate(seed).unwrap()
    });
}

/// Time per call (success, or failure after 20 attempts) on graphs with a contact layout by
/// construction, one graph per size.
#[divan::bench(args = [100, 300], sample_count = 5, sample_size = 1)]
fn scale_placed(bencher: divan::Bencher, rooms: usize) {
    time_seeds(bencher, placed_problem(rooms, rooms / 10, 3));
}

/// Time per call (success, or failure after 20 attempts) on chains of separate loops, one
/// graph per size; success rates over ten graphs are printed before the timings.
#[divan::bench(args = [10, 30, 100], sample_count = 5, sample_size = 1)]
fn chain(bencher: divan::Bencher, loops: usize) {
    time_seeds(bencher, chain_problem(loops, 3));
}

/// Times `problem` laid out with seeds 1, 2, ... (success or failure alike).
fn time_seeds(bencher: divan::Bencher, problem: LayoutProblem) {
    let planner = Planner::new(problem).unwrap();
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        planner.layout(seed).is_ok()
    });
}

/// The hole proof (`layout::proof::hole_proof`) on level-like graphs of 300 and 1000 rooms
/// that it shows to have no layout (seeds 2 and 0), as `Planner::new` runs it before refusing
/// them.
#[divan::bench(args = [(300, 2), (1000, 0)])]
fn hole_proof(bencher: divan::Bencher, (rooms, seed): (usize, u64)) {
    let problem = scale_problem(rooms, rooms / 10, seed);
    bencher.bench_local(|| {
        levelplan::layout::proof::hole_proof(&problem)
            .unwrap()
            .is_some()
    });
}

/// Time per call (success, or failure after 20 attempts) as graphs grow, on one graph per
/// size; the success rates over ten graphs are printed before the timings.
#[divan::bench(args = [(100, 10), (300, 30), (1000, 100)], sample_count = 5, sample_size = 1)]
fn scale(bencher: divan::Bencher, (rooms, loops): (usize, usize)) {
    time_seeds(bencher, scale_problem(rooms, loops, 3));
}

/// Time per call (success, or failure after 20 attempts) on level-like graphs that need no
/// hole, one graph per size; success rates over ten graphs are printed before the timings.
#[divan::bench(args = [(100, 10), (300, 30), (1000, 100)], sample_count = 5, sample_size = 1)]
fn scale_without_holes(bencher: divan::Bencher, (rooms, loops): (usize, usize)) {
    time_seeds(bencher, open_problem(rooms, loops, 3));
}
