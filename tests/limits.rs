//! Budgets: flows that would grow without bound stop with an error that says why.

use std::collections::BTreeSet;

use levelplan::graph::flow::{
    FlowNode, FlowTemplate, MAX_ROOMS, NodeType, Priority, SubChainMember, TreeEdge,
};
use levelplan::{Conditions, FlowError, RoomKind};

fn node(id: &str, kind: RoomKind, node_type: NodeType) -> FlowNode {
    FlowNode {
        id: id.into(),
        kind,
        tags: BTreeSet::new(),
        chance: 1.0,
        priority: Priority::Mandatory,
        node_type,
        subchain: None,
    }
}

fn edge(from: &str, to: &str) -> TreeEdge {
    TreeEdge {
        from: from.into(),
        to: to.into(),
        door: Default::default(),
    }
}

fn flow(nodes: Vec<FlowNode>, edges: Vec<TreeEdge>) -> FlowTemplate {
    FlowTemplate {
        name: "limits".into(),
        description: String::new(),
        root: "n0".into(),
        nodes,
        edges,
        loops: vec![],
        injections: vec![],
        injection_sets: vec![],
    }
}

#[test]
fn a_very_deep_flow_builds_without_exhausting_the_stack() {
    let n = MAX_ROOMS - 1;
    let nodes = (0..n)
        .map(|i| {
            node(
                &format!("n{i}"),
                if i == 0 {
                    RoomKind::Entrance
                } else {
                    RoomKind::Normal
                },
                NodeType::Room,
            )
        })
        .collect();
    let edges = (1..n)
        .map(|i| edge(&format!("n{}", i - 1), &format!("n{i}")))
        .collect();
    let g = flow(nodes, edges)
        .generate(1, &Conditions::default())
        .unwrap();
    assert_eq!(g.room_count(), n);
}

#[test]
fn a_runaway_selector_stops_at_the_room_budget() {
    let f = flow(
        vec![
            node("n0", RoomKind::Entrance, NodeType::Room),
            node(
                "many",
                RoomKind::Normal,
                NodeType::Selector {
                    min: 100_000,
                    max: 100_000,
                    duplicates: true,
                },
            ),
            node("leaf", RoomKind::Normal, NodeType::Room),
        ],
        vec![edge("n0", "many"), edge("many", "leaf")],
    );
    let err = f.generate(1, &Conditions::default()).unwrap_err();
    assert!(matches!(err, FlowError::Generation { .. }), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("grew past {MAX_ROOMS} rooms")),
        "{err}"
    );
}

#[test]
fn a_sub_chain_that_grafts_itself_stops_at_its_copy_limit() {
    let mut member = node("m", RoomKind::Normal, NodeType::Room);
    member.subchain = Some(SubChainMember {
        pool: "p".into(),
        max_copies: 64,
    });
    let mut again = node(
        "again",
        RoomKind::Normal,
        NodeType::SubChain {
            pools: vec!["p".into()],
        },
    );
    again.priority = Priority::Optional;
    let f = flow(
        vec![
            node("n0", RoomKind::Entrance, NodeType::Room),
            node(
                "slot",
                RoomKind::Normal,
                NodeType::SubChain {
                    pools: vec!["p".into()],
                },
            ),
            member,
            again,
        ],
        vec![edge("n0", "slot"), edge("m", "again")],
    );
    let g = f.generate(1, &Conditions::default()).unwrap();
    assert_eq!(
        g.room_count(),
        1 + 64,
        "the entrance and 64 copies of the member"
    );

    let mut too_many = f.clone();
    too_many.nodes[2].subchain.as_mut().unwrap().max_copies = 1000;
    let err = too_many.validate("x.ron").unwrap_err();
    assert!(
        err.to_string()
            .contains("field `subchain.max_copies`: is 1000; it must be between 1 and 64"),
        "{err}"
    );
}

#[test]
fn a_mandatory_sub_chain_with_its_pool_used_up_is_an_error() {
    let mut member = node("m", RoomKind::Normal, NodeType::Room);
    member.subchain = Some(SubChainMember {
        pool: "p".into(),
        max_copies: 1,
    });
    let f = flow(
        vec![
            node("n0", RoomKind::Entrance, NodeType::Room),
            node(
                "a",
                RoomKind::Normal,
                NodeType::SubChain {
                    pools: vec!["p".into()],
                },
            ),
            node(
                "b",
                RoomKind::Normal,
                NodeType::SubChain {
                    pools: vec!["p".into()],
                },
            ),
            member,
        ],
        vec![edge("n0", "a"), edge("n0", "b")],
    );
    let err = f.generate(1, &Conditions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "flow \"limits\": node \"b\": every sub-chain of the pools [\"p\"] is used up (max_copies reached); \
         add members to the pools, raise their max_copies, or make this node Optional"
    );
}

/// Extreme numbers in a template (from RON or an Edgar file) are refused, naming the field and
/// the range, before any arithmetic: a sliding door's corner distance of 2^30 used to overflow
/// the door loop and allocate until the process aborted.
#[test]
fn extreme_door_numbers_are_refused_with_the_range() {
    use levelplan::layout::edgar::EdgarLevel;
    use levelplan::layout::template::{DoorLine, DoorMode, DoorSpec, TemplateShape};
    use levelplan::layout::{Planner, RoomTemplate};
    let mut t = RoomTemplate::rectangle("Square", 6, 6, 1);
    for (doors, says) in [
        (
            DoorMode::Sliding {
                length: 1,
                corner_distance: 1 << 30,
                socket: None,
            },
            "the sliding doors' corner distance is 1073741824; it must be in 0..=256",
        ),
        (
            DoorMode::Sliding {
                length: i32::MAX,
                corner_distance: 0,
                socket: None,
            },
            "the sliding door length is 2147483647; it must be in 1..=256",
        ),
        (
            DoorMode::Manual(vec![DoorSpec {
                from: [i32::MIN, 0],
                to: [0, 0],
                kind: Default::default(),
                socket: None,
            }]),
            "door end (-2147483648, 0) is out of range",
        ),
        (
            DoorMode::Lines(vec![DoorLine {
                from: [0, 0],
                to: [0, 1 << 30],
                length: 1,
                kind: Default::default(),
                socket: None,
            }]),
            "door line end (0, 1073741824) is out of range",
        ),
    ] {
        t.doors = doors;
        let e = t.compile(0).unwrap_err();
        assert!(e.to_string().contains("room template `Square`"), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    let mut t = RoomTemplate::rectangle("Square", 6, 6, 1);
    t.shape = TemplateShape::Outline(vec![[0, 0], [0, i32::MAX], [6, i32::MAX], [6, 0]]);
    let e = t.compile(0).unwrap_err();
    assert!(
        e.to_string()
            .contains("outline corner (0, 2147483647) is out of range"),
        "{e}"
    );

    // The same through an Edgar file, as the user met it.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/edgar/inputs/example_basics.json"
    ))
    .unwrap()
    .replacen(
        "\"corner_distance\": 1",
        "\"corner_distance\": 1073741824",
        1,
    );
    let e = match EdgarLevel::from_json(&text, "huge.json") {
        Err(e) => e.to_string(),
        Ok(level) => Planner::new(level.problem).unwrap_err().to_string(),
    };
    assert!(e.contains("corner distance is 1073741824"), "{e}");
}

/// Files are read up to a limit: an endless file fails at once with a message, from the library
/// and from every command that reads one.
#[test]
fn endless_files_are_refused_after_the_limit() {
    let zero = std::path::Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let e = levelplan::read_text_file(zero).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    assert!(e.to_string().contains("larger than 64 MiB"), "{e}");
    let e = levelplan::FlowTemplate::load(zero).unwrap_err();
    assert!(e.to_string().contains("larger than 64 MiB"), "{e}");
    let bin = env!("CARGO_BIN_EXE_levelplan");
    for args in [
        &["check", "/dev/zero"][..],
        &["verify-level", "/dev/zero"][..],
        &["layout", "--edgar", "/dev/zero"][..],
        &["generate", "--flow", "/dev/zero"][..],
        &["generate", "--templates", "/dev/zero"][..],
    ] {
        let o = std::process::Command::new(bin).args(args).output().unwrap();
        assert!(!o.status.success(), "{args:?}");
        let text =
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        assert!(text.contains("larger than 64 MiB"), "{args:?}: {text}");
    }
}

/// Template libraries scale: spaces are computed when a search first needs them, so a library
/// of hundreds of templates prepares at once and makes levels; one that compiles into more
/// shapes than a set may hold is refused, naming the counts and the limit.
#[test]
fn big_template_libraries_prepare_at_once_or_name_the_limit() {
    use levelplan::layout::library::TemplateLibrary;
    use levelplan::layout::template::TemplateShape;
    use levelplan::layout::{LayoutError, MAX_SHAPES, RoomTemplate, ShapeSet};
    use levelplan::recipes::gungeon::{Generator, GungeonParams};
    let base = TemplateLibrary::builtin();
    let mut big = base.clone();
    big.templates = (0..600)
        .map(|i| {
            let mut t = base.templates[i % base.templates.len()].clone();
            t.name = format!("{}_{i}", t.name);
            t
        })
        .collect();
    let generator = Generator::new(
        levelplan::Flow::builtin("classic").unwrap(),
        GungeonParams {
            library: big,
            ..GungeonParams::default()
        },
    )
    .unwrap();
    let level = generator.generate(1).unwrap();
    assert!(level.layout.is_some());
    // An L turns 8 ways into 8 shapes: 600 of them are 4,800 shapes.
    let ells: Vec<RoomTemplate> = (0..600)
        .map(|i| {
            let mut t = RoomTemplate::rectangle(&format!("ell{i}"), 1, 1, 0);
            t.shape = TemplateShape::Cells(vec!["#   ".into(), "#   ".into(), "####".into()]);
            t
        })
        .collect();
    let e = ShapeSet::new(&ells).unwrap_err();
    assert!(
        matches!(e, LayoutError::TooManyShapes { shapes: 4800, templates: 600, limit } if limit == MAX_SHAPES),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with("the 600 templates compile into 4800 shapes"),
        "{e}"
    );
}
