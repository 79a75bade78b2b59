//! The level-file verifier: what the recipes write is accepted, edits that break the level are
//! rejected with their reasons, and no mangled document makes it panic.

use levelplan::graph::lock_and_key::{LockPlan, plan};
use levelplan::graph::solve::Unsolvable;
use levelplan::graph::verify::{LevelFileError, verify_level_document};
use levelplan::{Conditions, FlowTemplate};
use proptest::prelude::*;

/// A planned level of a built-in flow as `generate --recipe flow --json` would hold it.
fn document(flow: &str, seed: u64) -> String {
    let mut g = FlowTemplate::builtin(flow)
        .unwrap()
        .generate(seed, &Conditions::default())
        .unwrap();
    let options = LockPlan {
        locks: 3,
        one_way_shortcuts: 2,
        ..LockPlan::default()
    };
    plan(
        &mut g,
        &options,
        &mut levelplan::seed::stream(seed, "locks"),
    )
    .unwrap();
    format!(
        "{{\"flow\": \"{flow}\", \"seed\": {seed}, \"graph\": {}}}",
        g.to_json()
    )
}

#[test]
fn removing_an_opener_is_caught() {
    let text = document("classic", 3);
    let verdict = verify_level_document(&text, "x.json", &Default::default()).unwrap();
    assert!(verdict.accepted(), "{verdict}");
    // Take the first key out of the level: its lock can no longer open.
    let at = text.find("\"Key\":").expect("a key");
    let end = at + text[at..].find(['}', '\n']).unwrap();
    let mut broken = text.clone();
    broken.replace_range(at..end, "\"Named\": \"a pebble\"");
    let verdict = verify_level_document(&broken, "x.json", &Default::default()).unwrap();
    assert!(!verdict.accepted());
    assert!(
        matches!(
            verdict.verdict,
            Err(Unsolvable::Unreachable { .. } | Unsolvable::NeverReached { .. })
        ),
        "{verdict}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mangled_documents_never_panic(
        flow in prop::sample::select(FlowTemplate::builtin_names().collect::<Vec<_>>()),
        seed in 0u64..50,
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0usize..6), 1..4),
    ) {
        let mut text = document(flow, seed).into_bytes();
        for (at, how) in edits {
            if text.is_empty() {
                break;
            }
            let i = at.index(text.len());
            match how {
                0 => { text.truncate(i); }
                1 => { text.remove(i); }
                2 => text[i] = b'9',
                3 => text.insert(i, b'"'),
                4 => text[i] = b'}',
                _ => text.splice(i..i, b"4000000000".iter().copied()).for_each(drop),
            }
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        match verify_level_document(&text, "mangled.json", &Default::default()) {
            Ok(_) => {}
            Err(e) => {
                prop_assert!(e.to_string().starts_with("mangled.json: "), "{}", e);
                let _kind_is_named: &LevelFileError = &e;
            }
        }
    }
}

/// A Gungeon level's JSON document, with keys, and what `mangle` makes of it read back.
fn view_verdict(mangle: impl Fn(&mut serde_json::Value)) -> String {
    let generator = levelplan::recipes::gungeon::Generator::new(
        levelplan::Flow::builtin("classic").unwrap(),
        levelplan::recipes::gungeon::GungeonParams {
            locks: Some(LockPlan::default()),
            ..Default::default()
        },
    )
    .unwrap();
    let level = generator.generate(3).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&level.to_json()).unwrap();
    let verdict = verify_level_document(&doc.to_string(), "x.json", &Default::default()).unwrap();
    assert!(verdict.accepted(), "{verdict}");
    mangle(&mut doc);
    let verdict = verify_level_document(&doc.to_string(), "x.json", &Default::default()).unwrap();
    assert!(!verdict.accepted(), "the mangled view passed");
    verdict.to_string()
}

#[test]
fn a_view_that_does_not_match_its_graph_is_rejected_by_name() {
    // A door without the lock its link has.
    let text = view_verdict(|doc| {
        let door = doc["doors"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|d| !d["lock"].is_null())
            .unwrap();
        door["lock"] = serde_json::Value::Null;
    });
    assert!(text.contains("the game view: doors: link l"), "{text}");
    assert!(
        text.contains("lock is none, the graph's is key k"),
        "{text}"
    );
    // An item moved onto a door.
    let text = view_verdict(|doc| {
        let tile = doc["doors"][0]["tiles"][0].clone();
        doc["items"][0]["at"] = tile;
    });
    assert!(text.contains("the game view: items: room r"), "{text}");
    // The start off the map's floor.
    let text = view_verdict(|doc| doc["start_tile"] = serde_json::json!([0, 0]));
    assert!(text.contains("the game view: start_tile"), "{text}");
    // A door record dropped.
    let text = view_verdict(|doc| {
        doc["doors"].as_array_mut().unwrap().remove(0);
    });
    assert!(text.contains("the game view: doors"), "{text}");
    // A room's rectangle that does not bound its tiles.
    let text = view_verdict(|doc| doc["rooms"][1]["rect"] = serde_json::json!([0, 0, 1, 1]));
    assert!(text.contains("the game view: rooms: room r"), "{text}");
}
