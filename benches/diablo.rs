//! Time per Diablo stage level.

use levelplan::recipes::diablo::cathedral;

fn main() {
    divan::main();
}

#[divan::bench(args = [1, 2, 4])]
fn cathedral_level(bencher: divan::Bencher, level: u32) {
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        cathedral::generate(level, seed).unwrap()
    });
}

#[divan::bench(args = [13, 16])]
fn hell_level(bencher: divan::Bencher, level: u32) {
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        levelplan::recipes::diablo::hell::generate(level, seed).unwrap()
    });
}

#[divan::bench(args = [9, 12])]
fn caves_level(bencher: divan::Bencher, level: u32) {
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        levelplan::recipes::diablo::caves::generate(level, seed).unwrap()
    });
}

#[divan::bench(args = [5, 8])]
fn catacombs_level(bencher: divan::Bencher, level: u32) {
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        levelplan::recipes::diablo::catacombs::generate(level, seed).unwrap()
    });
}
