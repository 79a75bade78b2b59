//! Level metrics on hand-made levels with known values, and `levelplan stats` as a user runs
//! it: the same output on any number of threads, well-formed SVG and HTML, a comparison.

use std::process::Command;

use levelplan::graph::solve::solve;
use levelplan::stats::{Summary, metrics};
use levelplan::{Item, KeyId, Level, LevelGraph, Link, LinkKind, Lock, Opener, Room, RoomKind};

/// Entrance (key k0) - a - [locked by k0] - boss - exit, a side room c off a, a loop a - d -
/// boss, a one-way link from the exit back to a, and a secret room off the entrance.
fn hand_made() -> Level {
    let mut g = LevelGraph::new();
    let mut entrance = Room::new(RoomKind::Entrance);
    entrance.items.push(Item::Key(KeyId(0)));
    let s = g.add_room(entrance);
    let a = g.add_room(Room::new(RoomKind::Normal));
    let boss = g.add_room(Room::new(RoomKind::Boss));
    let exit = g.add_room(Room::new(RoomKind::Exit));
    let c = g.add_room(Room::new(RoomKind::Reward));
    let d = g.add_room(Room::new(RoomKind::Normal));
    let secret = g.add_room(Room::new(RoomKind::Secret));
    let lock = Lock {
        by: KeyId(0),
        opener: Opener::Key,
    };
    g.add_link(s, a, Link::door());
    g.add_link(a, boss, Link::door().with_lock(lock));
    g.add_link(boss, exit, Link::door());
    g.add_link(a, c, Link::door());
    g.add_link(a, d, Link::door().with_lock(lock));
    g.add_link(d, boss, Link::door());
    g.add_link(exit, a, Link::new(LinkKind::OneWay));
    g.add_link(s, secret, Link::new(LinkKind::Secret));
    let walkthrough = solve(&g).unwrap();
    Level::graph_only("hand-made", 1, g, walkthrough)
}

#[test]
fn metrics_of_a_hand_made_level() {
    let level = hand_made();
    let m = metrics(&level);
    let want = [
        ("rooms", 7.0),
        ("links", 8.0),
        // 8 links - 7 rooms + 1 component.
        ("loops", 2.0),
        // c and the secret room.
        ("dead_ends", 2.0),
        // Entrance -> a -> boss -> exit: 4 rooms.
        ("critical_path", 4.0),
        ("boss_depth", 2.0),
        // The deepest room (exit) is 3 from the start.
        ("boss_depth_frac", 2.0 / 3.0),
        ("reward_depth", 2.0),
        ("secret_rooms", 1.0),
        ("locks", 2.0),
        ("key_locks", 2.0),
        ("switch_locks", 0.0),
        ("small_key_locks", 0.0),
        // Every room past a is behind one lock.
        ("lock_nesting", 1.0),
        // The key lies in the entrance; both locks' nearer side is a, one room away.
        ("opener_distance", 1.0),
        ("one_way", 1.0),
        ("attempts", 1.0),
    ];
    for (name, value) in want {
        let got = m.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert!((got - value).abs() < 1e-9, "{name}: {got}, want {value}");
    }
    // Branching: children in the walk outward: entrance (a, secret), a (boss, c, d), boss
    // (exit): 6 children over 3 rooms.
    assert_eq!(m.get("branching"), Some(2.0));
    // No tiles: the space metrics do not apply.
    for name in [
        "area",
        "floor_density",
        "corridor_share",
        "room_size",
        "templates",
    ] {
        assert!(m.get(name).unwrap().is_nan(), "{name}");
    }
    assert_eq!(
        m.get("walk_length"),
        Some(level.walkthrough.rooms_walked as f64)
    );
    assert_eq!(
        m.get("backtracking"),
        Some(level.walkthrough.rooms_revisited as f64)
    );
    // Every listed metric is computed.
    for (name, _) in levelplan::stats::METRICS {
        assert!(m.get(name).is_some(), "{name}");
    }
}

#[test]
fn space_metrics_of_a_grid_floor() {
    use levelplan::Recipe;
    let level = levelplan::recipes::isaac::IsaacRecipe::new(2, Default::default())
        .generate(5)
        .unwrap();
    let m = metrics(&level);
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    assert_eq!(m.get("area"), Some((w * h) as f64));
    // Isaac rooms are 13 x 7 floor per cell (large rooms more), and there are no corridors.
    assert!(m.get("room_size").unwrap() >= 91.0);
    assert_eq!(m.get("corridor_share"), Some(0.0));
    let walkable = level
        .tiles
        .tiles
        .iter()
        .filter(|(_, t)| t.walkable())
        .count();
    assert_eq!(
        m.get("floor_density"),
        Some(walkable as f64 / (w * h) as f64)
    );
}

#[test]
fn summaries_have_the_right_percentiles_and_bins() {
    let values: Vec<f64> = (1..=100).map(f64::from).collect();
    let s = Summary::of(&values).unwrap();
    assert_eq!((s.count, s.min, s.max), (100, 1.0, 100.0));
    assert_eq!(s.mean, 50.5);
    assert_eq!((s.p10, s.p50, s.p90), (11.0, 51.0, 90.0));
    assert_eq!(s.histogram.len(), levelplan::stats::BINS);
    assert_eq!(s.histogram.iter().map(|b| b.1).sum::<usize>(), 100);
    let small = Summary::of(&[2.0, 2.0, 5.0, f64::NAN]).unwrap();
    assert_eq!(
        small.histogram,
        vec![(2.0, 2), (3.0, 0), (4.0, 0), (5.0, 1)]
    );
}

fn stats(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_levelplan"))
        .arg("stats")
        .args(args)
        .output()
        .unwrap()
}

/// levels.jsonl without the times (which differ from run to run).
fn lines_without_times(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("levels.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("time_ms");
            v
        })
        .collect()
}

#[test]
fn stats_runs_the_same_on_any_number_of_threads_and_writes_well_formed_pages() {
    let base = std::env::temp_dir().join(format!("levelplan-stats-{}", std::process::id()));
    let (one, three) = (base.join("one"), base.join("three"));
    for (dir, threads) in [(&one, "1"), (&three, "3")] {
        let o = stats(&[
            "--recipe",
            "flow",
            "--locks",
            "3",
            "--seeds",
            "150",
            "--from",
            "7",
            "--threads",
            threads,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let a = lines_without_times(&one);
    assert_eq!(a.len(), 150);
    assert_eq!(a, lines_without_times(&three));
    // In seed order.
    let seeds: Vec<u64> = a.iter().map(|v| v["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, (7..157).collect::<Vec<_>>());
    let summary = |dir: &std::path::Path| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        v.as_object_mut().unwrap().remove("time_ms");
        v
    };
    assert_eq!(summary(&one), summary(&three));
    assert_eq!(summary(&one)["made"], 150);
    // Every SVG and the page parse as XML; the page shows every chart.
    let page = std::fs::read_to_string(one.join("index.html")).unwrap();
    let options = || roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(&page, options())
        .unwrap_or_else(|e| panic!("index.html: {e}"));
    let mut charts = 0;
    for entry in std::fs::read_dir(&one).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = roxmltree::Document::parse(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            let name = path.file_name().unwrap().to_str().unwrap();
            assert!(page.contains(&format!("src=\"{name}\"")), "{name}");
            charts += 1;
        }
    }
    assert!(charts >= 20, "{charts} charts");
    assert!(one.join("heat_critical_path_x_backtracking.svg").exists());
    // A comparison with an earlier run: the other run's means beside this one's.
    let cmp = base.join("cmp");
    let o = stats(&[
        "--recipe",
        "flow",
        "--flow",
        "fork",
        "--seeds",
        "50",
        "--out",
        cmp.to_str().unwrap(),
        "--compare",
        one.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(cmp.join("index.html")).unwrap();
    roxmltree::Document::parse_with_options(&page, options()).unwrap();
    assert!(page.contains("other run's mean"));
    let hist = std::fs::read_to_string(cmp.join("hist_rooms.svg")).unwrap();
    assert!(
        hist.contains("stroke=\"#d9534f\""),
        "the other run is outlined"
    );
    // Bad arguments are named.
    let o = stats(&["--seeds", "0", "--out", cmp.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seeds 0"));
    let o = stats(&[
        "--seeds",
        "5",
        "--out",
        cmp.to_str().unwrap(),
        "--compare",
        base.join("nothing").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--compare"));
    std::fs::remove_dir_all(&base).ok();
}
