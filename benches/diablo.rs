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

/// Each stage with and without its set piece (`fixtures/setpieces`), the same seeds.
#[divan::bench(args = ["cathedral", "catacombs", "caves", "hell"], consts = [false, true])]
fn stage_set_piece<const WITH: bool>(bencher: divan::Bencher, stage: &str) {
    use levelplan::Recipe;
    use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage, load_set_piece};
    let (stage, level, file) = match stage {
        "cathedral" => (DiabloStage::Cathedral, 1, "cathedral_shrine.ron"),
        "catacombs" => (DiabloStage::Catacombs, 5, "catacombs_crypt.tmj"),
        "caves" => (DiabloStage::Caves, 9, "caves_altar.ron"),
        _ => (DiabloStage::Hell, 13, "hell_sanctum.ron"),
    };
    let mut recipe = DiabloRecipe::new(stage, level);
    if WITH {
        let path = format!("{}/fixtures/setpieces/{file}", env!("CARGO_MANIFEST_DIR"));
        recipe.params.set_piece = Some(load_set_piece(std::path::Path::new(&path)).unwrap());
    }
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        recipe.generate(seed).unwrap()
    });
}
