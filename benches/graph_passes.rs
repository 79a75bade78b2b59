//! Graph passes: spanning trees, loop decomposition, the planarity test, lock-and-key planning
//! and the solver, on random graphs with about one loop per ten rooms.

use levelplan::LevelGraph;
use levelplan::graph::composite::decompose;
use levelplan::graph::is_planar;
use levelplan::graph::lock_and_key::{LockPlan, plan};
use levelplan::graph::random::connected_graph;
use levelplan::graph::solve::solve;
use levelplan::graph::spanning::{random_deletion_spanning_tree, wilson_spanning_tree};

fn main() {
    divan::main();
}

fn graph(rooms: usize) -> LevelGraph {
    connected_graph(
        rooms,
        rooms / 10,
        &mut levelplan::seed::stream(rooms as u64, "bench"),
    )
}

#[divan::bench(args = [100, 1000])]
fn decomposition(bencher: divan::Bencher, rooms: usize) {
    let g = graph(rooms);
    bencher.bench_local(|| decompose(&g));
}

#[divan::bench(args = [100, 1000])]
fn planarity(bencher: divan::Bencher, rooms: usize) {
    let g = graph(rooms);
    bencher.bench_local(|| is_planar(&g));
}

#[divan::bench(args = [100, 1000])]
fn wilson(bencher: divan::Bencher, rooms: usize) {
    let g = graph(rooms);
    let mut rng = levelplan::seed::stream(1, "bench");
    bencher.bench_local(|| wilson_spanning_tree(&g, &mut rng).unwrap());
}

#[divan::bench(args = [100, 1000])]
fn random_deletion(bencher: divan::Bencher, rooms: usize) {
    let g = graph(rooms);
    let mut rng = levelplan::seed::stream(1, "bench");
    bencher.bench_local(|| random_deletion_spanning_tree(&g, &mut rng).unwrap());
}

/// (rooms, locks) pairs of the lock-and-key benchmarks (metazelda's reference sizes).
const PLANS: &[(usize, usize)] = &[(25, 4), (100, 16)];

fn planned(rooms: usize, locks: usize) -> (LevelGraph, LockPlan) {
    let g = connected_graph(
        rooms,
        rooms / 10,
        &mut levelplan::seed::stream(rooms as u64, "bench"),
    );
    let options = LockPlan {
        locks,
        ..LockPlan::default()
    };
    (g, options)
}

/// Planning `locks` locks (unique keys) on a random level, including the solver's proof.
#[divan::bench(args = PLANS)]
fn plan_and_solve(bencher: divan::Bencher, &(rooms, locks): &(usize, usize)) {
    let (g, options) = planned(rooms, locks);
    let mut seed = 0;
    // The graph is copied outside the timed part: only planning is measured.
    bencher
        .with_inputs(|| {
            seed += 1;
            (g.clone(), seed)
        })
        .bench_local_values(|(mut level, seed)| {
            plan(
                &mut level,
                &options,
                &mut levelplan::seed::stream(seed, "bench"),
            )
            .unwrap()
        });
}

/// The same with a quarter of the locks as small-key doors and four one-way shortcuts (the
/// completability issue's third target: 100 rooms, 16 locks, 4 small-key locks, 4 shortcuts).
#[divan::bench(args = PLANS)]
fn plan_and_solve_small_keys(bencher: divan::Bencher, &(rooms, locks): &(usize, usize)) {
    let (g, mut options) = planned(rooms, locks);
    options.small_key_locks = locks / 4;
    options.one_way_shortcuts = 4;
    let mut seed = 0;
    // The graph is copied outside the timed part: only planning is measured.
    bencher
        .with_inputs(|| {
            seed += 1;
            (g.clone(), seed)
        })
        .bench_local_values(|(mut level, seed)| {
            plan(
                &mut level,
                &options,
                &mut levelplan::seed::stream(seed, "bench"),
            )
            .unwrap()
        });
}

/// Solving an already planned level.
#[divan::bench(args = PLANS)]
fn solve_only(bencher: divan::Bencher, &(rooms, locks): &(usize, usize)) {
    let (mut g, options) = planned(rooms, locks);
    plan(&mut g, &options, &mut levelplan::seed::stream(1, "bench")).unwrap();
    bencher.bench_local(|| solve(&g).unwrap());
}
