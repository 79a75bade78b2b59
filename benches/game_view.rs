//! What the game's view costs against the whole level, per recipe: `level` makes a level
//! (`Recipe::generate`, the view included), `view` builds the view of one of the same levels
//! again (`view::reattach`: doors and their tiles, start, goal, items, warp pads, rooms and
//! spawn slots, the door kinds on the tiles). Both run over the same 32 seeds.

use levelplan::graph::lock_and_key::LockPlan;
use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage};
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::IsaacRecipe;
use levelplan::recipes::sectors::{SectorParams, SectorRecipe};
use levelplan::{Flow, Level, Recipe};

fn main() {
    divan::main();
}

const RECIPES: [&str; 7] = [
    "gungeon",
    "isaac",
    "cathedral",
    "catacombs",
    "caves",
    "hell",
    "sectors",
];

const SEEDS: u64 = 32;

/// Each recipe as the game-view tests make it: with locks where it takes them.
fn recipe(name: &str) -> Box<dyn Recipe> {
    let locks = LockPlan {
        locks: 2,
        ..LockPlan::default()
    };
    let diablo = |stage, level, locks: Option<LockPlan>| {
        let mut r = DiabloRecipe::new(stage, level);
        r.params.locks = locks;
        Box::new(r) as Box<dyn Recipe>
    };
    match name {
        "gungeon" => Box::new(
            Generator::new(
                Flow::builtin("classic").unwrap(),
                GungeonParams {
                    locks: Some(LockPlan::default()),
                    ..GungeonParams::default()
                },
            )
            .unwrap(),
        ),
        "isaac" => Box::new(IsaacRecipe::new(4, Default::default()).with_locks(locks)),
        "cathedral" => diablo(DiabloStage::Cathedral, 2, Some(locks)),
        "catacombs" => diablo(DiabloStage::Catacombs, 6, Some(locks)),
        "caves" => diablo(
            DiabloStage::Caves,
            10,
            Some(LockPlan {
                locks: 1,
                ..LockPlan::default()
            }),
        ),
        "hell" => diablo(DiabloStage::Hell, 14, Some(locks)),
        _ => Box::new(SectorRecipe::new(SectorParams::default()).unwrap()),
    }
}

#[divan::bench(args = RECIPES)]
fn level(bencher: divan::Bencher, name: &str) {
    let recipe = recipe(name);
    let mut seed = 0;
    bencher.bench_local(|| {
        seed = (seed + 1) % SEEDS;
        recipe.generate(seed).unwrap()
    });
}

#[divan::bench(args = RECIPES)]
fn view(bencher: divan::Bencher, name: &str) {
    let recipe = recipe(name);
    let levels: Vec<Level> = (0..SEEDS).map(|s| recipe.generate(s).unwrap()).collect();
    let mut i = 0;
    bencher
        .with_inputs(|| {
            i = (i + 1) % levels.len();
            levels[i].clone()
        })
        .bench_local_values(|mut level| {
            levelplan::view::reattach(&mut level);
            level
        });
}
