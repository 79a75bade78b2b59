//! Reading room templates drawn in Tiled: the sample library (16 maps) and a library of 30
//! maps (the samples and copies of them under other names), each read from disk and checked.

use std::path::{Path, PathBuf};

use levelplan::layout::library::TemplateLibrary;

fn main() {
    divan::main();
}

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/templates/tiled");

/// A folder holding a library of `n` Tiled maps: the samples, then copies of them.
fn library_of(n: usize) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("levelplan-bench-tiled-{n}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut maps: Vec<PathBuf> = std::fs::read_dir(SAMPLES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmj" || e == "tmx"))
        .collect();
    maps.sort();
    std::fs::copy(Path::new(SAMPLES).join("tiles.png"), dir.join("tiles.png")).unwrap();
    let mut names = Vec::new();
    for i in 0..n {
        let source = &maps[i % maps.len()];
        let ext = source.extension().unwrap().to_str().unwrap();
        let stem = source.file_stem().unwrap().to_str().unwrap();
        let name = format!("{stem}_{i}.{ext}");
        // The samples set no `name` property, so each copy is named by its file.
        let text = std::fs::read_to_string(source).unwrap();
        std::fs::write(dir.join(&name), text).unwrap();
        names.push(format!("\"{name}\""));
    }
    std::fs::write(
        dir.join("library.ron"),
        format!("TemplateLibrary(tiled: [{}])", names.join(", ")),
    )
    .unwrap();
    dir.join("library.ron")
}

#[divan::bench]
fn sample_library(bencher: divan::Bencher) {
    let path = Path::new(SAMPLES).join("library.ron");
    bencher.bench_local(|| TemplateLibrary::load(&path).unwrap());
}

#[divan::bench]
fn thirty_maps(bencher: divan::Bencher) {
    let path = library_of(30);
    bencher.bench_local(|| TemplateLibrary::load(&path).unwrap());
}
