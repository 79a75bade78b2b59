//! Time per sector level (the whole recipe, proof included) for 64 x 64 and 128 x 128 fields,
//! both geometries; and the pipeline's steps on a 128 x 128 field.

use levelplan::Recipe;
use levelplan::recipes::sectors::{Geometry, SectorParams, SectorRecipe};

fn main() {
    divan::main();
}

fn recipe(geometry: Geometry, side: usize) -> SectorRecipe {
    SectorRecipe::new(SectorParams {
        geometry,
        width: side,
        height: side,
        ..SectorParams::default()
    })
    .unwrap()
}

#[divan::bench(args = [64, 128])]
fn bsp_level(bencher: divan::Bencher, side: usize) {
    let recipe = recipe(Geometry::Bsp, side);
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        recipe.generate(seed).unwrap()
    });
}

#[divan::bench(args = [64, 128])]
fn growth_level(bencher: divan::Bencher, side: usize) {
    let recipe = recipe(Geometry::Growth, side);
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        recipe.generate(seed).unwrap()
    });
}

/// The geometry and cleanup steps alone (room growth, 128 x 128).
#[divan::bench]
fn growth_geometry_and_cleanup(bencher: divan::Bencher) {
    use levelplan::recipes::sectors::{clean_up, growth_geometry, split_sections};
    let mut seed = 0;
    bencher.bench_local(|| {
        seed += 1;
        let mut rng = levelplan::seed::stream(seed, "sectors");
        let mut field = growth_geometry(128, 128, &Default::default(), &mut rng);
        clean_up(&mut field);
        split_sections(&mut field)
    });
}
