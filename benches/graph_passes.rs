//! Graph passes: spanning trees and loop decomposition, on random graphs of 100 and 1000
//! rooms with about one loop per ten rooms.

use levelplan::LevelGraph;
use levelplan::graph::composite::decompose;
use levelplan::graph::random::connected_graph;
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
