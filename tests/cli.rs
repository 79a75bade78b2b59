//! The command line, run as a user would.

use std::process::{Command, Output};

fn levelplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_levelplan"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn generate_with_no_flags_makes_a_whole_level() {
    let o = levelplan(&["generate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The ASCII map first, then the summary and the walkthrough.
    assert!(out.contains("#...#") || out.contains("#..#"), "{out}");
    assert!(
        out.contains("level from flow \"classic\", seed 1: "),
        "{out}"
    );
    assert!(out.contains("walkthrough ("), "{out}");
    assert!(out.contains("reach the goal"), "{out}");
    assert_eq!(stdout(&levelplan(&["generate"])), out);
}

#[test]
fn generate_recipe_flow_stops_at_the_graph() {
    let o = levelplan(&["generate", "--recipe", "flow"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("flow \"classic\", seed 1\n"), "{out}");
    assert!(out.contains("rooms by kind: "), "{out}");
    assert!(out.contains("entrance 1"), "{out}");
    // The same command prints the same level.
    assert_eq!(stdout(&levelplan(&["generate", "--recipe", "flow"])), out);
}

#[test]
fn generate_writes_dot_json_and_ron() {
    let dir = std::env::temp_dir().join(format!("levelplan-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (dot, json, ron) = (dir.join("l.dot"), dir.join("l.json"), dir.join("l.ron"));
    let o = levelplan(&[
        "generate",
        "--flow",
        "secrets",
        "--seed",
        "9",
        "--dot",
        dot.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--ron",
        ron.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dot_text = std::fs::read_to_string(&dot).unwrap();
    assert!(dot_text.starts_with("digraph \"secrets (seed 9)\""));
    // The JSON document is the level: graph, walkthrough, tiles, layout; RON the same.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["recipe"], "gungeon");
    assert_eq!(doc["detail"]["Gungeon"]["flow"], "secrets");
    assert_eq!(doc["seed"], 9);
    assert!(
        doc["walkthrough"]["steps"]
            .as_array()
            .is_some_and(|s| !s.is_empty())
    );
    let level = levelplan::Level::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let from_ron = levelplan::Level::from_ron(&std::fs::read_to_string(&ron).unwrap()).unwrap();
    assert_eq!(level, from_ron);
    assert!(level.layout.is_some() && level.tiles.tiles.width() > 0);
    let from_json = level.graph;
    assert!(
        dot_text.contains("subgraph cluster_0"),
        "composites are clusters"
    );
    let direct = levelplan::FlowTemplate::builtin("secrets")
        .unwrap()
        .generate(9, &Default::default())
        .unwrap();
    assert_eq!(from_json, direct, "the CLI and the library agree");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generate_accepts_a_flow_file() {
    let o = levelplan(&[
        "generate",
        "--flow",
        "fixtures/flows/fork.ron",
        "--seed",
        "4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        stdout(&levelplan(&["generate", "--flow", "fork", "--seed", "4"]))
    );
}

#[test]
fn an_unknown_flow_is_an_error_listing_the_built_ins() {
    let o = levelplan(&["generate", "--flow", "nope"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("\"nope\" is neither a built-in flow nor a file"),
        "{err}"
    );
    assert!(err.contains("classic, big_loop"), "{err}");
}

#[test]
fn check_accepts_good_flows_and_rejects_broken_ones() {
    let o = levelplan(&[
        "check",
        "fixtures/flows/classic.ron",
        "fixtures/flows/secrets.ron",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains("ok: fixtures/flows/classic.ron"));

    let o = levelplan(&[
        "check",
        "fixtures/flows/classic.ron",
        "fixtures/flows/broken/tree_cycle.ron",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o)
            .contains("invalid: fixtures/flows/broken/tree_cycle.ron: tree edges form a cycle")
    );
    assert!(stderr(&o).contains("1 of 2 flow files are invalid"));

    // A flow that validates but whose levels `generate` cannot prove: `check` runs the same
    // rules and refuses it, naming the seed and the reason.
    let o = levelplan(&["check", "fixtures/flows/unsolvable/no_goal.ron"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("invalid: fixtures/flows/unsolvable/no_goal.ron: `generate` fails on 20 of 20 seeds; seed 0: the level is not completable: the level has no goal"),
        "{out}"
    );
}

#[test]
fn check_warns_about_flows_that_need_a_hole() {
    let o = levelplan(&[
        "check",
        "fixtures/flows/classic.ron",
        "fixtures/flows/hole/three_paths.ron",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("ok: fixtures/flows/hole/three_paths.ron"),
        "{out}"
    );
    assert!(
        out.contains("warning: fixtures/flows/hole/three_paths.ron: 20 of 20 levels need a hole"),
        "{out}"
    );
    assert!(out.contains("a loop must enclose `"), "{out}");
    assert!(
        out.contains("in all, with what hangs off; the biggest hole of the 20 levels holds "),
        "{out}"
    );
    assert!(
        !out.contains("warning: fixtures/flows/classic.ron"),
        "{out}"
    );
}

#[test]
fn flows_lists_and_prints_the_built_ins() {
    let o = levelplan(&["flows"]);
    assert!(o.status.success());
    for name in levelplan::FlowTemplate::builtin_names() {
        assert!(stdout(&o).contains(name));
    }
    let o = levelplan(&["flows", "hub_spokes"]);
    assert_eq!(
        stdout(&o),
        std::fs::read_to_string("fixtures/flows/hub_spokes.ron").unwrap()
    );
}

#[test]
fn help_explains_every_command() {
    let o = levelplan(&["--help"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for cmd in [
        "generate",
        "check",
        "flows",
        "layout",
        "verify-layout",
        "verify-level",
        "stats",
    ] {
        assert!(out.contains(cmd), "{out}");
    }
    for (cmd, flags) in [
        ("layout", &["--edgar", "--seed", "--out", "--explain"][..]),
        ("verify-layout", &["LEVEL", "LAYOUT"][..]),
        ("verify-level", &["--thorough"][..]),
    ] {
        let o = levelplan(&[cmd, "--help"]);
        assert!(o.status.success(), "{cmd}");
        let out = stdout(&o);
        for flag in flags {
            assert!(out.contains(flag), "{cmd}: {out}");
        }
    }
    let o = levelplan(&["generate", "--help"]);
    let out = stdout(&o);
    for flag in ["--flow", "--seed", "--dot", "--json", "--ron", "--flag"] {
        assert!(out.contains(flag), "{out}");
    }
}

#[test]
fn generate_plans_locks_and_prints_the_walkthrough() {
    let o = levelplan(&[
        "generate",
        "--recipe",
        "flow",
        "--flow",
        "long_chain",
        "--seed",
        "3",
        "--locks",
        "4",
        "--small-keys",
        "1",
        "--switches",
        "1",
        "--shortcuts",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The graph's summary counts the flow's own locks and the four planned.
    let locks: usize = out
        .split(" locks,")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a lock count in {out}"));
    assert!(locks >= 4, "{out}");
    assert!(out.contains("walkthrough ("), "{out}");
    assert!(out.contains("reach the goal"), "{out}");
    assert!(out.contains("with switch k"), "{out}");
    // Same command, same level.
    assert_eq!(
        stdout(&levelplan(&[
            "generate",
            "--recipe",
            "flow",
            "--flow",
            "long_chain",
            "--seed",
            "3",
            "--locks",
            "4",
            "--small-keys",
            "1",
            "--switches",
            "1",
            "--shortcuts",
            "1"
        ])),
        out
    );
    let o = levelplan(&["generate", "--locks", "500"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("500 locks asked for, but the level can hold at most"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn generate_isaac_prints_the_floor_grid() {
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--level",
        "4",
        "--seed",
        "2",
        "--large-rooms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("isaac floor, level 4, seed 2: "), "{out}");
    for glyph in ["S", "B", "T", "$", "?"] {
        assert!(out.contains(glyph), "{glyph} missing from\n{out}");
    }
    let floor = levelplan::recipes::isaac::generate(
        4,
        2,
        &levelplan::recipes::isaac::IsaacParams {
            large_rooms: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        out.contains(&floor.to_ascii()),
        "the CLI prints the library's grid"
    );
    // A level too big for the grid is refused before any attempt, pointing at --grid; with
    // the grid enlarged it is made.
    let o = levelplan(&["generate", "--recipe", "isaac", "--level", "20"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("field `level`: level 20 wants up to 58 rooms, more than a 9 x 8 grid holds"),
        "{err}"
    );
    assert!(err.contains("--grid"), "{err}");
    let o = levelplan(&[
        "generate", "--recipe", "isaac", "--level", "20", "--grid", "13x11",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("isaac floor, level 20, seed 1: 5"),
        "{}",
        stdout(&o)
    );
    // The default grid given explicitly is the default.
    let grid = |extra: &[&str]| {
        let mut args = vec!["generate", "--recipe", "isaac", "--seed", "4"];
        args.extend(extra);
        stdout(&levelplan(&args))
    };
    assert_eq!(grid(&["--grid", "9x8"]), grid(&[]));
    let o = levelplan(&["generate", "--recipe", "isaac", "--grid", "1x8"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("from 2 to 64"), "{}", stderr(&o));
    let o = levelplan(&["generate", "--grid", "12x10"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("work with --recipe isaac"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn generate_isaac_draws_its_tile_map_as_svg() {
    let path = std::env::temp_dir().join(format!("levelplan-isaac-{}.svg", std::process::id()));
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--level",
        "3",
        "--seed",
        "8",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(
        // 135 x 72 tiles at 6 pixels, with a margin of two tiles all round.
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"834\" height=\"456\""),
        "{}",
        &svg[..100]
    );
    // One writer draws every recipe: rooms labelled by id and kind.
    assert!(
        svg.contains(" boss<") && svg.contains(">r0 entrance<"),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn generate_isaac_writes_a_tiled_map() {
    let path = std::env::temp_dir().join(format!("levelplan-isaac-{}.tmj", std::process::id()));
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--level",
        "2",
        "--seed",
        "4",
        "--tmj",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(doc["type"], "map");
    assert_eq!(doc["width"], 135);
    assert_eq!(doc["height"], 72);
    assert_eq!(doc["layers"][0]["data"].as_array().unwrap().len(), 135 * 72);
    let objects = all_objects(&doc);
    assert!(objects.iter().any(|o| o["type"] == "boss"));
    assert!(objects.iter().any(|o| o["type"] == "door"));
    assert!(objects.iter().any(|o| o["type"] == "start"));
    assert!(objects.iter().any(|o| o["type"] == "goal"));
    // A bare flow has no tile map: asking for one is an error, not a silent no-op.
    let o = levelplan(&["generate", "--recipe", "flow", "--svg", "x.svg"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--svg, --tmj and --ldtk need a recipe with a tile map"));
}

#[test]
fn generate_cathedral_prints_the_map() {
    let o = levelplan(&[
        "generate",
        "--recipe",
        "cathedral",
        "--level",
        "1",
        "--seed",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let golden = std::fs::read_to_string("fixtures/golden/cathedral_level1_seed1.txt").unwrap();
    assert!(out.contains(&golden), "the CLI prints the golden map");
    assert!(out.contains("walkthrough ("), "{out}");
    assert!(out.contains("reach the goal"), "{out}");
}

#[test]
fn flow_options_with_other_recipes_are_an_error() {
    let o = levelplan(&["generate", "--recipe", "isaac", "--flow", "fork"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--flow works on flows; --recipe isaac makes its own level"),
        "{}",
        stderr(&o)
    );
    let o = levelplan(&["generate", "--recipe", "sectors", "--locks", "2"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("sector levels plan their own scripts"),
        "{}",
        stderr(&o)
    );
    let o = levelplan(&["generate", "--recipe", "isaac", "--tasks", "1"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("need --locks K"), "{}", stderr(&o));
}

#[test]
fn locks_work_on_isaac_and_the_diablo_stages() {
    let dir = std::env::temp_dir().join(format!("levelplan-cli-locks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("l.json");
    for recipe in ["isaac", "cathedral", "catacombs", "hell"] {
        let o = levelplan(&[
            "generate",
            "--recipe",
            recipe,
            "--locks",
            "2",
            "--tasks",
            "1",
            "--seed",
            "3",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{recipe}: {}", stderr(&o));
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let doors = doc["doors"].as_array().unwrap();
        let tasks = doors
            .iter()
            .filter(|d| d["lock"]["opener"] == "Task")
            .count();
        assert!(tasks >= 1, "{recipe}: {doors:?}");
        let o = levelplan(&["verify-level", json.to_str().unwrap()]);
        assert!(o.status.success(), "{recipe}: {}", stdout(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generate_gungeon_writes_svg_tmj_json_and_dot() {
    let dir = std::env::temp_dir().join(format!("levelplan-cli-g-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, tmj, json, dot) = (
        dir.join("l.svg"),
        dir.join("l.tmj"),
        dir.join("l.json"),
        dir.join("l.dot"),
    );
    let o = levelplan(&[
        "generate",
        "--flow",
        "big_loop",
        "--seed",
        "5",
        "--locks",
        "2",
        "--svg",
        svg.to_str().unwrap(),
        "--tmj",
        tmj.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.starts_with("<svg") && picture.contains("entrance"),
        "{picture}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tmj).unwrap()).unwrap();
    let objects = all_objects(&doc);
    assert!(objects.iter().any(|o| o["type"] == "entrance"));
    assert!(objects.iter().any(|o| o["type"] == "boss"));
    assert!(objects.iter().any(|o| o["type"] == "door"));
    let level: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        level["layout"]["rooms"].as_array().unwrap().len(),
        level["graph"]["rooms"].as_array().unwrap().len()
    );
    assert!(
        std::fs::read_to_string(&dot)
            .unwrap()
            .starts_with("digraph")
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn layout_and_verify_layout_speak_edgar() {
    let dir = std::env::temp_dir().join(format!("levelplan-cli-e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/edgar/inputs/ma2014_fig1_17v_corridors.json"
    );
    let out = dir.join("layout.json");
    let o = levelplan(&[
        "layout",
        "--edgar",
        input,
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let layout: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rooms = layout["rooms"].as_array().unwrap();
    assert_eq!(rooms.len(), 17 + 20);
    assert_eq!(
        rooms.iter().filter(|r| r["is_corridor"] == true).count(),
        20
    );
    let o = levelplan(&["verify-layout", input, out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("valid: "));
    // Edgar's own layout of another input is not a layout of this one.
    let other = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/edgar/layouts/ma2014_fig7top_9v_basic_seed1.json"
    );
    let o = levelplan(&["verify-layout", input, other]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("invalid: "), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn layout_explain_pictures_where_a_failure_got_stuck() {
    // A hall with a single door cannot touch two rooms.
    let dir = std::env::temp_dir().join(format!("levelplan-cli-x-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let level = serde_json::json!({
        "format": "edgar-neutral-level/1",
        "name": "one_door",
        "minimum_room_distance": 0,
        "repeat_mode_default": "AllowRepeat",
        "repeat_mode_override": null,
        "rooms": [
            {"id": 0, "name": "hall", "templates": ["hall"]},
            {"id": 1, "name": "east", "templates": ["room"]},
            {"id": 2, "name": "west", "templates": ["room"]}
        ],
        "connections": [{"from": 0, "to": 1}, {"from": 0, "to": 2}],
        "room_templates": {
            "hall": {
                "outline": [[0, 0], [0, 12], [12, 12], [12, 0]],
                "doors": {"mode": "manual", "doors": [{"from": [5, 0], "to": [6, 0]}]},
                "transformations": ["Identity"]
            },
            "room": {
                "outline": [[0, 0], [0, 6], [6, 6], [6, 0]],
                "doors": {"mode": "simple", "door_length": 1, "corner_distance": 1},
                "transformations": ["Identity"]
            }
        }
    });
    let input = dir.join("one_door.json");
    std::fs::write(&input, level.to_string()).unwrap();
    let plain = levelplan(&["layout", "--edgar", input.to_str().unwrap(), "--seed", "2"]);
    assert!(!plain.status.success());
    assert!(
        stderr(&plain).contains("no layout after"),
        "{}",
        stderr(&plain)
    );
    assert!(!stderr(&plain).contains("where the search got stuck"));
    let o = levelplan(&[
        "layout",
        "--edgar",
        input.to_str().unwrap(),
        "--seed",
        "2",
        "--explain",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("where the search got stuck:"), "{err}");
    assert!(err.contains("does not fit next to `hall`"), "{err}");
    assert!(err.contains("hall (links to the stuck room)"), "{err}");
    let svg = dir.join("stuck.svg");
    let o = levelplan(&[
        "layout",
        "--edgar",
        input.to_str().unwrap(),
        "--explain-svg",
        svg.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("a picture of where the search got stuck is in"));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains(">hall</text>"));
    assert!(picture.contains("does not fit next to `hall`"), "{picture}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn layout_explain_pictures_where_a_big_levels_parts_got_stuck() {
    // A path of 60 rooms ending in a 3 x 3 cell (one door a side) linked to five rooms: the
    // level is laid out in parts, and the cell's part finds no place.
    let dir = scratch("parts");
    let mut rooms = Vec::new();
    let mut connections = Vec::new();
    for r in 0..60 {
        rooms.push(serde_json::json!({"id": r, "name": format!("r{r}"), "templates": ["room"]}));
        if r > 0 {
            connections.push(serde_json::json!({"from": r - 1, "to": r}));
        }
    }
    rooms.push(serde_json::json!({"id": 60, "name": "cell", "templates": ["cell"]}));
    connections.push(serde_json::json!({"from": 59, "to": 60}));
    for k in 0..4 {
        rooms.push(
            serde_json::json!({"id": 61 + k, "name": format!("leaf{k}"), "templates": ["room"]}),
        );
        connections.push(serde_json::json!({"from": 60, "to": 61 + k}));
    }
    let square = |side: i32| {
        serde_json::json!({
            "outline": [[0, 0], [0, side], [side, side], [side, 0]],
            "doors": {"mode": "simple", "door_length": 1, "corner_distance": 1},
            "transformations": ["Identity"]
        })
    };
    let level = serde_json::json!({
        "format": "edgar-neutral-level/1",
        "name": "cell_at_the_end",
        "minimum_room_distance": 0,
        "repeat_mode_default": "AllowRepeat",
        "repeat_mode_override": null,
        "rooms": rooms,
        "connections": connections,
        "room_templates": {"room": square(6), "cell": square(3)}
    });
    let input = dir.join("cell_at_the_end.json");
    std::fs::write(&input, level.to_string()).unwrap();
    let o = levelplan(&["layout", "--edgar", input.to_str().unwrap(), "--explain"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("where fitting the level's parts together got stuck:"),
        "{err}"
    );
    assert!(err.contains("does not fit next to"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("levelplan-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn verify_level_accepts_what_every_recipe_writes() {
    let dir = scratch("verify-ok");
    let runs: [&[&str]; 5] = [
        &[
            "--recipe",
            "flow",
            "--flow",
            "classic",
            "--seed",
            "8",
            "--locks",
            "3",
            "--shortcuts",
            "3",
        ],
        &["--flow", "big_loop", "--seed", "7", "--locks", "2"],
        &["--recipe", "isaac", "--level", "3", "--seed", "4"],
        &["--recipe", "cathedral", "--level", "1", "--seed", "2"],
        &[
            "--recipe",
            "flow",
            "--flow",
            "fork",
            "--seed",
            "9",
            "--locks",
            "4",
            "--small-keys",
            "1",
        ],
    ];
    for (i, args) in runs.iter().enumerate() {
        for ext in ["json", "ron"] {
            let path = dir.join(format!("level{i}.{ext}"));
            let path = path.to_str().unwrap();
            let flag = format!("--{ext}");
            let mut generate = vec!["generate"];
            generate.extend_from_slice(args);
            generate.extend_from_slice(&[&flag[..], path]);
            let o = levelplan(&generate);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            let v = levelplan(&["verify-level", path]);
            assert_eq!(
                v.status.code(),
                Some(0),
                "{args:?} {ext}: {}{}",
                stdout(&v),
                stderr(&v)
            );
            assert!(stdout(&v).starts_with("accepted: "), "{}", stdout(&v));
        }
    }
}

#[test]
fn every_recipe_writes_one_level_document() {
    let dir = scratch("documents");
    let runs: [(&str, &[&str]); 6] = [
        ("flow", &["--recipe", "flow", "--locks", "2"]),
        ("sectors", &["--recipe", "sectors", "--geometry", "growth"]),
        ("gungeon", &["--flow", "fork"]),
        ("isaac", &["--recipe", "isaac", "--level", "2"]),
        ("cathedral", &["--recipe", "cathedral"]),
        ("caves", &["--recipe", "caves", "--level", "9"]),
    ];
    for (recipe, args) in runs {
        let path = dir.join(format!("{recipe}.json"));
        let mut generate = vec!["generate", "--seed", "3", "--json", path.to_str().unwrap()];
        generate.extend_from_slice(args);
        let o = levelplan(&generate);
        assert!(o.status.success(), "{recipe}: {}", stderr(&o));
        let level = levelplan::Level::from_json(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{recipe}: {e}"));
        assert_eq!(level.recipe, recipe);
        assert_eq!(level.seed, 3);
        assert!(level.graph.contains_room(level.goal), "{recipe}");
        assert_eq!(level.walkthrough.goal, level.goal, "{recipe}");
        // Only the graph-only recipe has no tiles.
        assert_eq!(level.tiles.tiles.width() == 0, recipe == "flow", "{recipe}");
    }
}

#[test]
fn verify_level_rejects_traps_and_names_mistakes() {
    let dir = scratch("verify-bad");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // A one-way link into a wing whose door needs a key from a side room: a player who skips
    // the key is shut in.
    let trap = write(
        "trap.json",
        r#"{"graph": {"next_key": 1,
            "rooms": [{"id": 0, "kind": "Entrance"}, {"id": 1, "kind": "Normal", "items": [{"Key": 0}]},
                      {"id": 2, "kind": "Normal"}, {"id": 3, "kind": "Normal"}, {"id": 4, "kind": "Exit"}],
            "links": [{"id": 0, "from": 0, "to": 1, "kind": "Door"}, {"id": 1, "from": 0, "to": 2, "kind": "Door"},
                      {"id": 2, "from": 2, "to": 3, "kind": "OneWay"},
                      {"id": 3, "from": 3, "to": 0, "kind": "Door", "lock": {"by": 0, "opener": "Key"}},
                      {"id": 4, "from": 0, "to": 4, "kind": "Door"}]}}"#,
    );
    let o = levelplan(&["verify-level", &trap]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "rejected: the player can get stuck: after take one-way l2 to r3, the goal r4 can no \
         longer be reached; shut in r3 by l2 (one-way), having skipped key k0 in r1\n"
    );
    // The thorough player picks the key up first.
    let o = levelplan(&["verify-level", &trap, "--thorough"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // A lock whose key lies nowhere.
    let keyless = write(
        "keyless.json",
        r#"{"rooms": [{"id": 0, "kind": "Entrance"}, {"id": 1, "kind": "Exit"}],
            "links": [{"id": 0, "from": 0, "to": 1, "kind": "Door", "lock": {"by": 3, "opener": "Switch"}}]}"#,
    );
    let o = levelplan(&["verify-level", &keyless]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "rejected: the goal r1 cannot be reached from r0: lock l0 needs switch k3 and no room holds it\n"
    );
    // Hand-edited mistakes: an unknown room in a link, a huge id, a start that is no room,
    // something that is not a level.
    let cases = [
        (
            r#"{"graph": {"rooms": [{"id": 0, "kind": "Entrance"}, {"id": 1, "kind": "Exit"}],
                "links": [{"id": 0, "from": 0, "to": 7, "kind": "Door"}]}}"#,
            "graph: link l0 joins r7, which is not among the graph's rooms",
        ),
        (
            r#"{"graph": {"rooms": [{"id": 4000000000, "kind": "Entrance"}], "links": []}}"#,
            "graph: room id 4000000000 in a graph of 1 rooms: ids may be at most 1088",
        ),
        (
            r#"{"start": 9, "graph": {"rooms": [{"id": 0, "kind": "Entrance"}], "links": []}}"#,
            "\"start\" is 9, which is not a room of the graph",
        ),
        (r#"{"seed": 3}"#, "no level graph"),
        ("not a level at all", "cannot read the document"),
        ("{\"graph\": [1, 2", "cannot read the document"),
    ];
    for (i, (text, message)) in cases.iter().enumerate() {
        let path = write(&format!("bad{i}.json"), text);
        let o = levelplan(&["verify-level", &path]);
        assert_eq!(o.status.code(), Some(2), "{text}");
        let err = stderr(&o);
        assert!(err.contains(message), "{err}");
        assert!(err.contains(&path), "names the file: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn generate_takes_a_template_library() {
    let dir = scratch("templates");
    // The built-in library with every room's look renamed: the level must use the file's.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/templates/default.ron"
    ))
    .unwrap();
    let renamed = text.replace("name: \"", "name: \"mine_");
    assert_ne!(renamed, text, "the library names its templates");
    let library = dir.join("mine.ron");
    std::fs::write(&library, renamed).unwrap();
    let json = dir.join("level.json");
    let o = levelplan(&[
        "generate",
        "--templates",
        library.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let level: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rooms = level["layout"]["rooms"].as_array().unwrap();
    assert!(!rooms.is_empty());
    for room in rooms {
        let name = room["template_name"].as_str().unwrap();
        assert!(name.starts_with("mine_"), "{name}");
    }
    // A library that is not one is an error naming the file.
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "( templates: [ (name: ").unwrap();
    let o = levelplan(&["generate", "--templates", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("bad.ron"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--flag met_blacksmith` lets the classic flow's blacksmith rule inject its room (it
/// `requires` the flag); without the flag no seed has one.
#[test]
fn flags_change_the_level_as_the_flow_s_rules_say() {
    let kinds = |seed: u64, flag: bool| {
        let seed = seed.to_string();
        let mut args = vec!["generate", "--recipe", "flow", "--seed", &seed];
        if flag {
            args.extend(["--flag", "met_blacksmith"]);
        }
        let o = levelplan(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .find(|l| l.contains("rooms by kind: "))
            .unwrap()
            .to_string()
    };
    let with: Vec<String> = (1..=12).map(|s| kinds(s, true)).collect();
    let without: Vec<String> = (1..=12).map(|s| kinds(s, false)).collect();
    assert!(without.iter().all(|k| !k.contains("npc")), "{without:?}");
    assert!(with.iter().any(|k| k.contains("npc 1")), "{with:?}");
}

#[test]
fn generate_isaac_labyrinth_doubles_the_boss() {
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--labyrinth",
        "--level",
        "3",
        "--seed",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let grid: String = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("S start"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(grid.matches('B').count(), 2, "{out}");
    assert_eq!(grid.matches('S').count(), 1, "{out}");
    // Not a labyrinth: one boss.
    let o = levelplan(&[
        "generate", "--recipe", "isaac", "--level", "3", "--seed", "2",
    ]);
    let out = stdout(&o);
    let grid: String = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("S start"))
        .collect();
    assert_eq!(grid.matches('B').count(), 1, "{out}");
}

#[test]
fn generate_prints_every_diablo_stage_s_golden_map() {
    for (recipe, level, seed) in [
        ("catacombs", 5, 1),
        ("caves", 9, 1),
        ("hell", 13, 3),
        ("cathedral", 3, 2),
    ] {
        let (l, s) = (level.to_string(), seed.to_string());
        let o = levelplan(&["generate", "--recipe", recipe, "--level", &l, "--seed", &s]);
        assert!(o.status.success(), "{recipe}: {}", stderr(&o));
        let out = stdout(&o);
        let golden = std::fs::read_to_string(format!(
            "{}/fixtures/golden/{recipe}_level{level}_seed{seed}.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert!(out.contains(&golden), "{recipe}: the golden map\n{out}");
        assert!(
            out.starts_with(&format!("{recipe}, level {level}, seed {seed}: ")),
            "{out}"
        );
        assert!(out.contains("< stairs up, > stairs down"), "{out}");
        assert!(out.contains("reach the goal"), "{out}");
    }
}

#[test]
fn layout_without_out_prints_the_layout() {
    let input = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/edgar/inputs/example_basics.json"
    );
    let o = levelplan(&["layout", "--edgar", input, "--seed", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let layout: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(!layout["rooms"].as_array().unwrap().is_empty());
    // What it prints is what --out writes.
    let dir = scratch("layout-out");
    let out = dir.join("l.json");
    let o = levelplan(&[
        "layout",
        "--edgar",
        input,
        "--seed",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written, layout);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn flows_of_an_unknown_name_is_an_error_listing_the_built_ins() {
    let o = levelplan(&["flows", "nosuch"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("\"nosuch\""), "{err}");
    assert!(err.contains("built-in flows: classic"), "{err}");
    assert!(stdout(&o).is_empty());
}

/// Outputs are written whole or not at all: when one cannot be written, none is, files already
/// there keep their content, and no temporary file is left behind. One path given to two
/// outputs is refused before anything is made.
#[test]
fn outputs_are_written_all_or_none() {
    let dir = scratch("atomic");
    let dot = dir.join("a.dot");
    std::fs::write(&dot, "old").unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let missing = dir.join("missing").join("x.json");
    let full = std::path::Path::new("/dev/full");
    let mut bad: Vec<(&str, std::path::PathBuf)> = vec![
        ("No such file", missing),
        ("it is a directory", dir.clone()),
    ];
    if full.exists() {
        bad.push(("No space left", full.to_path_buf()));
    }
    for recipe in ["gungeon", "isaac"] {
        for (says, json) in &bad {
            let svg = dir.join("a.svg");
            let o = levelplan(&[
                "generate",
                "--recipe",
                recipe,
                "--dot",
                dot.to_str().unwrap(),
                "--svg",
                svg.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ]);
            assert!(!o.status.success(), "{recipe} {json:?}");
            let err = stderr(&o);
            assert!(err.contains(says), "{err}");
            assert!(err.contains(json.to_str().unwrap()), "{err}");
            assert_eq!(std::fs::read_to_string(&dot).unwrap(), "old");
            assert_eq!(listing(), vec!["a.dot".to_string()], "{recipe} {json:?}");
        }
    }
    let o = levelplan(&[
        "generate",
        "--dot",
        dot.to_str().unwrap(),
        "--svg",
        &format!("{}/./a.dot", dir.display()),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("are the same file"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&dot).unwrap(), "old");
    // And when everything can be written, everything is.
    let json = dir.join("a.json");
    let o = levelplan(&[
        "generate",
        "--dot",
        dot.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&dot).unwrap().starts_with("graph")
            || std::fs::read_to_string(&dot)
                .unwrap()
                .starts_with("digraph")
    );
    assert!(json.exists());
    assert_eq!(listing(), vec!["a.dot".to_string(), "a.json".to_string()]);
    std::fs::remove_dir_all(&dir).ok();
}

/// `--tmj` writes the tileset image beside the map; `--tileset` names the game's own instead.
#[test]
fn tiled_maps_come_with_their_tileset_image() {
    let dir = scratch("tileset");
    let map = dir.join("floor.tmj");
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--tmj",
        map.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let image = std::fs::read(dir.join("levelplan_tiles.png")).unwrap();
    assert_eq!(image, levelplan::export::tiled::tileset_png());
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    assert_eq!(doc["tilesets"][0]["image"], "levelplan_tiles.png");
    std::fs::remove_file(dir.join("levelplan_tiles.png")).unwrap();
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--tmj",
        map.to_str().unwrap(),
        "--tileset",
        "art/tiles.png",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&map).unwrap()).unwrap();
    assert_eq!(doc["tilesets"][0]["image"], "art/tiles.png");
    assert!(!dir.join("levelplan_tiles.png").exists());
    // --tileset without --tmj is refused.
    let o = levelplan(&["generate", "--tileset", "x.png"]);
    assert!(!o.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sectors_print_the_map_the_scripts_and_the_walkthrough() {
    let dir = scratch("sectors");
    let tmj = dir.join("s.tmj");
    let svg = dir.join("s.svg");
    let o = levelplan(&[
        "generate",
        "--recipe",
        "sectors",
        "--geometry",
        "growth",
        "--size",
        "48",
        "40",
        "--seed",
        "4",
        "--tmj",
        tmj.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("sectors (growth), 48 x 40, seed 4: "),
        "{out}"
    );
    for part in [
        "@ start, E exit switch",
        "scripts, in the order the player opens them:",
        "the exit switch is in r",
        "walkthrough (",
    ] {
        assert!(out.contains(part), "{part}: {out}");
    }
    assert_eq!(
        out.matches('@').count(),
        2,
        "the start on the map and in the legend: {out}"
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<circle"));
    assert!(dir.join("levelplan_tiles.png").exists());
    // Options of other recipes, and bad sizes, are clear errors.
    let o = levelplan(&["generate", "--recipe", "isaac", "--size", "40", "40"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--recipe sectors"), "{}", stderr(&o));
    let o = levelplan(&["generate", "--recipe", "sectors", "--size", "8", "40"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("`width`"), "{}", stderr(&o));
    // A settings file.
    let file = dir.join("mine.ron");
    std::fs::write(
        &file,
        "(geometry: Growth, width: 40, height: 32, max_keys: 0)",
    )
    .unwrap();
    let o = levelplan(&[
        "generate",
        "--recipe",
        "sectors",
        "--sector-params",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("sectors (growth), 40 x 32"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("the key"), "{}", stdout(&o));
}

#[test]
fn diablo_stages_take_a_set_piece() {
    let dir = scratch("set-piece");
    let json = dir.join("hell.json");
    let o = levelplan(&[
        "generate",
        "--recipe",
        "hell",
        "--level",
        "13",
        "--seed",
        "2",
        "--set-piece",
        "fixtures/setpieces/hell_sanctum.ron",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let level = levelplan::Level::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let levelplan::LevelDetail::Diablo { set_piece, .. } = &level.detail else {
        panic!()
    };
    assert_eq!(set_piece.as_ref().map(|p| p.name.as_str()), Some("sanctum"));
    // A Tiled set piece too.
    let o = levelplan(&[
        "generate",
        "--recipe",
        "catacombs",
        "--level",
        "5",
        "--set-piece",
        "fixtures/setpieces/catacombs_crypt.tmj",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Other recipes refuse it; a missing file is named.
    let o = levelplan(&[
        "generate",
        "--recipe",
        "isaac",
        "--set-piece",
        "fixtures/setpieces/hell_sanctum.ron",
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("--set-piece works with the Diablo stages"),
        "{}",
        stderr(&o)
    );
    let o = levelplan(&[
        "generate",
        "--recipe",
        "caves",
        "--set-piece",
        "nowhere.ron",
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("nowhere.ron"),
        "{}",
        stderr(&o)
    );
}

/// Every object of every object layer of a Tiled map.
fn all_objects(map: &serde_json::Value) -> Vec<serde_json::Value> {
    map["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["type"] == "objectgroup")
        .flat_map(|l| l["objects"].as_array().unwrap().clone())
        .collect()
}
