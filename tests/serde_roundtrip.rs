//! Level graphs survive JSON and RON both ways, ids, gaps and all.

mod common;

use levelplan::{
    GraphError, Item, KeyId, LevelGraph, Link, LinkKind, LinkRole, Lock, Opener, Room, RoomKind,
};

fn everything() -> LevelGraph {
    let mut g = LevelGraph::new();
    let a = g.add_room(Room::new(RoomKind::Entrance).with_tag("start"));
    let b = g.add_room(Room::new(RoomKind::Custom("forge".into())));
    let gone = g.add_room(Room::new(RoomKind::Normal));
    let c = g.add_room(Room::new(RoomKind::Secret));
    let d = g.add_room(Room::new(RoomKind::Boss));
    let k = g.new_key();
    let s = g.new_key();
    g.room_mut(b)
        .unwrap()
        .items
        .extend([Item::Key(k), Item::Named("anvil".into())]);
    g.room_mut(c).unwrap().items.push(Item::Switch(s));
    g.add_link(a, b, Link::door());
    g.add_link(b, gone, Link::new(LinkKind::Open));
    g.add_link(b, c, Link::new(LinkKind::Secret));
    g.add_link(c, a, Link::new(LinkKind::OneWay).with_role(LinkRole::Loop));
    g.add_link(
        b,
        d,
        Link::door().with_lock(Lock {
            by: k,
            opener: Opener::Key,
        }),
    );
    g.add_link(
        a,
        d,
        Link::new(LinkKind::Window).with_lock(Lock {
            by: s,
            opener: Opener::Switch,
        }),
    );
    g.add_link(a, c, Link::new(LinkKind::Warp));
    g.remove_room(gone); // leaves a gap in room and link ids
    g
}

#[test]
fn json_round_trip_keeps_everything() {
    let g = everything();
    let back = LevelGraph::from_json(&g.to_json()).unwrap();
    assert_eq!(back, g);
    assert_eq!(back.to_json(), g.to_json());
}

#[test]
fn ron_round_trip_keeps_everything() {
    let g = everything();
    let back = LevelGraph::from_ron(&g.to_ron()).unwrap();
    assert_eq!(back, g);
    assert_eq!(back.to_ron(), g.to_ron());
}

#[test]
fn ids_survive_and_new_ones_do_not_collide() {
    let g = everything();
    let mut back = LevelGraph::from_json(&g.to_json()).unwrap();
    let old_ids: Vec<_> = g.room_ids().collect();
    assert_eq!(back.room_ids().collect::<Vec<_>>(), old_ids);
    let fresh = back.add_room(Room::new(RoomKind::Normal));
    assert!(old_ids.iter().all(|&r| r < fresh));
    assert_eq!(back.new_key(), KeyId(2));
}

#[test]
fn generated_levels_round_trip() {
    for flow in common::builtin_flows() {
        for seed in 0..20 {
            let g = flow.generate(seed, &Default::default()).unwrap();
            assert_eq!(LevelGraph::from_json(&g.to_json()).unwrap(), g);
            assert_eq!(LevelGraph::from_ron(&g.to_ron()).unwrap(), g);
        }
    }
}

#[test]
fn bad_serialized_graphs_are_rejected_with_a_reason() {
    let dangling = r#"{"rooms":[{"id":0,"kind":"Entrance"}],"links":[{"id":0,"from":0,"to":7,"kind":"Door"}]}"#;
    let err = LevelGraph::from_json(dangling).unwrap_err();
    assert!(
        err.to_string()
            .contains("link l0 joins r7, which is not among the graph's rooms"),
        "{err}"
    );
    let twice = r#"{"rooms":[{"id":0,"kind":"Entrance"},{"id":0,"kind":"Boss"}],"links":[]}"#;
    assert!(
        LevelGraph::from_json(twice)
            .unwrap_err()
            .to_string()
            .contains("used twice")
    );
    let self_link = r#"{"rooms":[{"id":0,"kind":"Entrance"}],"links":[{"id":0,"from":0,"to":0,"kind":"Door"}]}"#;
    assert!(matches!(
        LevelGraph::from_json(self_link),
        Err(GraphError::Format(_))
    ));
}
