//! Time per Isaac floor for levels 1, 4 and 8, with and without large rooms.

use levelplan::recipes::isaac::{IsaacParams, generate};

fn main() {
    divan::main();
}

#[divan::bench(args = [1, 4, 8])]
fn floor(bencher: divan::Bencher, level: u32) {
    let params = IsaacParams::default();
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        generate(level, seed, &params).unwrap()
    });
}

#[divan::bench(args = [1, 4, 8])]
fn floor_large_rooms(bencher: divan::Bencher, level: u32) {
    let params = IsaacParams {
        large_rooms: true,
        ..IsaacParams::default()
    };
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        generate(level, seed, &params).unwrap()
    });
}
