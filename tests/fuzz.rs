//! Bad input, generated: every loader (flow RON, template library RON and JSON, Edgar level,
//! Edgar layout, level document, Tiled room templates, set pieces, sector settings) is fed mutations of the fixtures (byte flips, truncation,
//! duplicated and deleted lines, extreme numbers, deep nesting) and must neither panic nor
//! abort; every error must be a message that names the file; whatever loads is then used as a
//! game would (a flow's level made and proven, a library's templates laid out, an Edgar level
//! laid out under a small attempt budget and a time cap), and must not panic either.
//!
//! Each loader gets `LEVELPLAN_FUZZ_CASES` cases (default 48, so that `cargo test` stays
//! quick), drawn from a fixed stream per loader so that every run sees the same mutations (a
//! test that draws fresh ones each run fails now and then where it asserts how many loaded);
//! for a long local run with fresh mutations:
//!
//! ```text
//! LEVELPLAN_FUZZ_RANDOM=1 LEVELPLAN_FUZZ_CASES=5000 cargo test --release --test fuzz
//! ```
//!
//! Time is bounded by the library's own budgets (attempt counts, `Budget::time_limit_ms`, the
//! flow room budget), memory by its limits (file size, outline size, ids), not by timed
//! assertions here.

use std::path::Path;

use levelplan::graph::verify::verify_level_document;
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::library::TemplateLibrary;
use levelplan::layout::{Planner, RetryPolicy};
use levelplan::recipes::flow::FlowRecipe;
use levelplan::{Conditions, Flow, Recipe};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn cases() -> u32 {
    std::env::var("LEVELPLAN_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// One edit of a text.
#[derive(Debug, Clone)]
enum Edit {
    /// Replace the byte at a position with another.
    Flip(prop::sample::Index, u8),
    /// Cut the text at a position.
    Truncate(prop::sample::Index),
    /// Repeat a line.
    DuplicateLine(prop::sample::Index),
    /// Delete a line.
    DeleteLine(prop::sample::Index),
    /// Replace a number with an extreme one.
    Extreme(prop::sample::Index, &'static str),
    /// Wrap a position in deep brackets.
    Nest(prop::sample::Index, usize),
}

const EXTREMES: &[&str] = &[
    "-1",
    "0",
    "-2147483649",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "99999999999999999999999",
    "1e308",
    "-1e308",
    "NaN",
    "inf",
    "0.0000001",
    "1073741824",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        any::<prop::sample::Index>().prop_map(Edit::Truncate),
        any::<prop::sample::Index>().prop_map(Edit::DuplicateLine),
        any::<prop::sample::Index>().prop_map(Edit::DeleteLine),
        (
            any::<prop::sample::Index>(),
            prop::sample::select(EXTREMES.to_vec())
        )
            .prop_map(|(i, n)| Edit::Extreme(i, n)),
        (any::<prop::sample::Index>(), 1usize..2000).prop_map(|(i, d)| Edit::Nest(i, d)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        if bytes.is_empty() {
            break;
        }
        match e {
            Edit::Flip(i, b) => {
                let at = i.index(bytes.len());
                bytes[at] = *b;
            }
            Edit::Truncate(i) => bytes.truncate(i.index(bytes.len())),
            Edit::DuplicateLine(i) | Edit::DeleteLine(i) => {
                let s = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<&str> = s.lines().collect();
                if lines.is_empty() {
                    continue;
                }
                let at = i.index(lines.len());
                if matches!(e, Edit::DuplicateLine(_)) {
                    lines.insert(at, lines[at]);
                } else {
                    lines.remove(at);
                }
                bytes = lines.join("\n").into_bytes();
            }
            Edit::Extreme(i, n) => {
                // The number nearest after the position (or at it).
                let start = i.index(bytes.len());
                let Some(from) = (start..bytes.len()).find(|&k| bytes[k].is_ascii_digit()) else {
                    continue;
                };
                let mut to = from;
                while to < bytes.len() && (bytes[to].is_ascii_digit() || bytes[to] == b'.') {
                    to += 1;
                }
                bytes.splice(from..to, n.bytes());
            }
            Edit::Nest(i, depth) => {
                let at = i.index(bytes.len());
                let open = "[".repeat(*depth) + &"(".repeat(*depth);
                let close = ")".repeat(*depth) + &"]".repeat(*depth);
                bytes.splice(at..at, (open + &close).bytes());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `check` on `cases()` mutations of `text` and returns how many loaded (for the guard
/// that the mutations do not all fail to parse, and do not all leave the text intact).
fn fuzz(
    label: &str,
    text: &str,
    check: impl Fn(&str) -> Result<bool, TestCaseError>,
) -> (u32, u32) {
    // A fixed stream per label, so that a run repeats (the figures below are asserted);
    // `LEVELPLAN_FUZZ_RANDOM=1` draws fresh mutations.
    let mut runner = if std::env::var_os("LEVELPLAN_FUZZ_RANDOM").is_some() {
        TestRunner::new(Config::with_cases(cases()))
    } else {
        let mut key = [7u8; 32];
        for (i, b) in label.bytes().enumerate() {
            key[i % 32] ^= b.rotate_left(i as u32 / 32);
        }
        TestRunner::new_with_rng(
            Config::with_cases(cases()),
            TestRng::from_seed(RngAlgorithm::ChaCha, &key),
        )
    };
    let (loaded, total) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(&prop::collection::vec(edit(), 1..4), |edits| {
            total.set(total.get() + 1);
            let mutated = apply(text, &edits);
            if check(&mutated)? {
                loaded.set(loaded.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "{label}: {} of {} mutations loaded",
        loaded.get(),
        total.get()
    );
    (loaded.get(), total.get())
}

fn names_the_file(message: &str, file: &str) -> Result<(), TestCaseError> {
    prop_assert!(!message.trim().is_empty(), "an empty message");
    prop_assert!(
        message.contains(file),
        "the message names {}: {}",
        file,
        message
    );
    Ok(())
}

#[test]
fn mutated_flows_load_or_say_why() {
    for name in ["classic", "fork", "secrets"] {
        let text = fixture(&format!("fixtures/flows/{name}.ron"));
        let (loaded, total) = fuzz(&format!("flow {name}"), &text, |t| {
            match Flow::from_ron(t, "mutated.ron") {
                Ok(flow) => {
                    // Used as a game would: a level made and proven, or a message.
                    let recipe = FlowRecipe::new(flow, Conditions::default(), None);
                    for seed in 0..2 {
                        if let Err(e) = recipe.generate(seed) {
                            prop_assert!(!e.to_string().is_empty());
                        }
                    }
                    Ok(true)
                }
                Err(e) => {
                    names_the_file(&e.to_string(), "mutated.ron")?;
                    Ok(false)
                }
            }
        });
        assert!(loaded < total, "{name}: every mutation loaded");
    }
}

#[test]
fn mutated_template_libraries_load_or_say_why() {
    let ron = fixture("fixtures/templates/default.ron");
    let library = TemplateLibrary::from_ron(&ron, "default.ron").unwrap();
    let json = serde_json::to_string_pretty(&library).unwrap();
    for (text, json_format) in [(ron, false), (json, true)] {
        let label = if json_format {
            "library json"
        } else {
            "library ron"
        };
        let (loaded, total) = fuzz(label, &text, |t| {
            let read = if json_format {
                TemplateLibrary::from_json(t, "mutated")
            } else {
                TemplateLibrary::from_ron(t, "mutated")
            };
            match read.and_then(|l| l.validate("mutated").map(|()| l)) {
                Ok(library) => {
                    // Every template compiles into shapes with doors (validated), and a small
                    // problem over all of them prepares.
                    let mut p = levelplan::layout::LayoutProblem::new(library.templates.clone());
                    let all: Vec<usize> = (0..library.templates.len()).collect();
                    p.rooms
                        .push(levelplan::layout::RoomSpec::new("a", all.clone()));
                    p.rooms.push(levelplan::layout::RoomSpec::new("b", all));
                    p.links.push(levelplan::layout::LinkSpec::new(
                        0,
                        1,
                        levelplan::layout::Realise::Contact,
                    ));
                    p.budget.retry = RetryPolicy::Attempts(2);
                    p.budget.time_limit_ms = Some(2_000);
                    if let Ok(planner) = Planner::new(p) {
                        let _ = planner.layout(1);
                    }
                    Ok(true)
                }
                Err(e) => {
                    names_the_file(&e.to_string(), "mutated")?;
                    Ok(false)
                }
            }
        });
        assert!(loaded < total, "every mutation loaded");
    }
}

#[test]
fn mutated_edgar_levels_and_layouts_load_or_say_why() {
    for name in ["example_basics", "ma2014_fig7top_9v_basic"] {
        let text = fixture(&format!("fixtures/edgar/inputs/{name}.json"));
        let (loaded, total) = fuzz(
            &format!("edgar {name}"),
            &text,
            |t| match EdgarLevel::from_json(t, "mutated.json") {
                Ok(level) => {
                    let mut p = level.problem.clone();
                    p.budget.retry = RetryPolicy::Attempts(2);
                    p.budget.time_limit_ms = Some(2_000);
                    match Planner::new(p) {
                        Ok(planner) => {
                            if let Err(e) = planner.layout(1) {
                                prop_assert!(!e.to_string().is_empty());
                            }
                        }
                        Err(e) => prop_assert!(!e.to_string().is_empty()),
                    }
                    Ok(true)
                }
                Err(e) => {
                    names_the_file(&e.to_string(), "mutated.json")?;
                    Ok(false)
                }
            },
        );
        assert!(loaded < total, "{name}: every mutation loaded");
    }
    // Layouts: Edgar's own layout of an input, mutated, against that input.
    let level = EdgarLevel::from_json(
        &fixture("fixtures/edgar/inputs/ma2014_fig7top_9v_basic.json"),
        "level.json",
    )
    .unwrap();
    let layout = fixture("fixtures/edgar/layouts/ma2014_fig7top_9v_basic_seed1.json");
    fuzz("edgar layout", &layout, |t| {
        match level.verify_json(t, "mutated.json") {
            Ok(Ok(())) => Ok(true),
            Ok(Err(violation)) => {
                prop_assert!(!violation.to_string().is_empty());
                Ok(true)
            }
            Err(e) => {
                names_the_file(&e.to_string(), "mutated.json")?;
                Ok(false)
            }
        }
    });
}

#[test]
fn mutated_level_documents_verify_or_say_why() {
    let flow = Flow::builtin("classic").unwrap();
    let level = FlowRecipe::new(flow, Conditions::default(), None)
        .generate(3)
        .unwrap();
    let isaac = levelplan::recipes::isaac::IsaacRecipe::new(2, Default::default())
        .generate(3)
        .unwrap();
    for (label, text) in [
        ("flow level", level.to_json()),
        ("isaac level", isaac.to_json()),
    ] {
        fuzz(label, &text, |t| {
            match verify_level_document(t, "mutated.json", &Default::default()) {
                Ok(verdict) => Ok(verdict.accepted()),
                Err(e) => {
                    names_the_file(&e.to_string(), "mutated.json")?;
                    Ok(false)
                }
            }
        });
    }
}

#[test]
fn mutated_tiled_maps_set_pieces_and_sector_settings_load_or_say_why() {
    use levelplan::layout::tiled::{set_piece_from_tmj, template_from_tmj, template_from_tmx};
    use levelplan::recipes::sectors::{SectorParams, SectorRecipe};
    use levelplan::tiles::setpiece::SetPiece;
    // Room templates drawn in Tiled: whatever reads compiles (the reader checked it).
    for (file, xml) in [
        ("fixtures/templates/tiled/long_hall.tmj", false),
        ("fixtures/templates/tiled/u_room.tmx", true),
    ] {
        let text = fixture(file);
        let (loaded, total) = fuzz(file, &text, |t| {
            let read = if xml {
                template_from_tmx(t, "mutated.tmx", &[])
            } else {
                template_from_tmj(t, "mutated.tmj", &[])
            };
            match read {
                Ok(template) => {
                    prop_assert!(template.compile(0).is_ok());
                    Ok(true)
                }
                Err(e) => {
                    names_the_file(&e.to_string(), "mutated.tm")?;
                    Ok(false)
                }
            }
        });
        assert!(loaded < total, "{file}: every mutation loaded");
    }
    // Set pieces, RON and Tiled: whatever reads goes into a Hell level (or a named error).
    for (file, tiled) in [
        ("fixtures/setpieces/hell_sanctum.ron", false),
        ("fixtures/setpieces/catacombs_crypt.tmj", true),
    ] {
        let text = fixture(file);
        let (loaded, total) = fuzz(file, &text, |t| {
            let read = if tiled {
                set_piece_from_tmj(t, "mutated").map_err(|e| e.to_string())
            } else {
                SetPiece::from_ron(t, "mutated").map_err(|e| e.to_string())
            };
            match read {
                Ok(piece) => {
                    let mut recipe = levelplan::recipes::diablo::DiabloRecipe::new(
                        levelplan::recipes::diablo::DiabloStage::Hell,
                        13,
                    );
                    recipe.params.set_piece = Some(piece);
                    recipe.params.retry = Some(RetryPolicy::Attempts(3));
                    if let Err(e) = recipe.generate(1) {
                        prop_assert!(!e.to_string().is_empty());
                    }
                    Ok(true)
                }
                Err(e) => {
                    names_the_file(&e, "mutated")?;
                    Ok(false)
                }
            }
        });
        assert!(loaded < total, "{file}: every mutation loaded");
    }
    // Sector settings: whatever reads makes a level or a message.
    // One field a line, so that deleting a line leaves the field's default.
    let text = "(\n    geometry: Growth,\n    width: 48,\n    height: 40,\n    \
                bsp: (depth: 4, min_leaf: 8, corridor: 3),\n    \
                growth: (clearings: (3, 6), clearing_size: (0.35, 0.75), room_area: 120),\n    \
                restore: 0.15,\n    open_passages: 0.08,\n    continue_chance: 0.5,\n    \
                max_keys: 3,\n    task_chance: 0.2,\n    window_chances: (0.75, 1.0, 0.5),\n    \
                door_widths: (0.6, 0.25, 0.15),\n    retry: Attempts(5),\n)\n";
    assert!(SectorParams::from_ron(text, "base.ron").is_ok());
    let (loaded, total) = fuzz("sector settings", text, |t| {
        match SectorParams::from_ron(t, "mutated.ron") {
            Ok(mut params) => {
                // Within the field limits a level is made or refused with a message.
                params.width = params.width.min(128);
                params.height = params.height.min(128);
                if let Ok(recipe) = SectorRecipe::new(params)
                    && let Err(e) = recipe.generate(1)
                {
                    prop_assert!(!e.to_string().is_empty());
                }
                Ok(true)
            }
            Err(e) => {
                names_the_file(&e.to_string(), "mutated.ron")?;
                Ok(false)
            }
        }
    });
    assert!(loaded > 0 && loaded < total, "{loaded} of {total} loaded");
}
