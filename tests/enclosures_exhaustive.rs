//! `graph::enclosures` against an exhaustive search over drawings, on small random graphs.
//!
//! `enclosures` decides by a planarity test (a new vertex joined to the rooms with rooms
//! hanging off them) whether some drawing of a group of loops has all those rooms on its
//! outside. Here the same question is answered by brute force: every rotation system of the
//! group (each room's links in every cyclic order), kept where face tracing gives Euler's
//! count of faces (a drawing in the plane), and for each, every face as the outside. The
//! planner's hints ("the graph needs a hole") and `local_loops_graph_without_holes` rest on
//! this answer.

use levelplan::graph::{LevelGraph, Link, Room, RoomKind, enclosures};
use levelplan::seed::{chance, index};

/// Every rotation system of the graph (`adj[v]`: neighbours of `v`), as one cyclic order per
/// vertex; `visit` returns true to stop.
fn each_rotation(adj: &[Vec<usize>], visit: &mut impl FnMut(&[Vec<usize>]) -> bool) -> bool {
    fn perms(rest: &mut Vec<usize>, out: &mut Vec<Vec<usize>>, cur: &mut Vec<usize>) {
        if rest.is_empty() {
            out.push(cur.clone());
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            cur.push(x);
            perms(rest, out, cur);
            cur.pop();
            rest.insert(i, x);
        }
    }
    // Per vertex, its cyclic orders: the first neighbour fixed, the rest in every order.
    let choices: Vec<Vec<Vec<usize>>> = adj
        .iter()
        .map(|nb| {
            if nb.len() <= 2 {
                return vec![nb.clone()];
            }
            let mut out = Vec::new();
            perms(&mut nb[1..].to_vec(), &mut out, &mut vec![nb[0]]);
            out
        })
        .collect();
    let mut pick = vec![0usize; adj.len()];
    loop {
        let rot: Vec<Vec<usize>> = (0..adj.len())
            .map(|v| choices[v][pick[v]].clone())
            .collect();
        if visit(&rot) {
            return true;
        }
        let mut v = 0;
        loop {
            if v == adj.len() {
                return false;
            }
            pick[v] += 1;
            if pick[v] < choices[v].len() {
                break;
            }
            pick[v] = 0;
            v += 1;
        }
    }
}

/// The faces of a rotation system, each as the set of vertices on its boundary walk.
fn faces(rot: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut seen: std::collections::HashSet<(usize, usize)> = Default::default();
    let mut out = Vec::new();
    for u in 0..rot.len() {
        for &v in &rot[u] {
            if seen.contains(&(u, v)) {
                continue;
            }
            let mut face = Vec::new();
            let (mut a, mut b) = (u, v);
            while seen.insert((a, b)) {
                face.push(a);
                // Arriving at b from a, leave by the neighbour after a round b.
                let k = rot[b].iter().position(|&x| x == a).expect("symmetric");
                let c = rot[b][(k + 1) % rot[b].len()];
                (a, b) = (b, c);
            }
            out.push(face);
        }
    }
    out
}

/// Whether some drawing of the connected graph `adj` (`m` edges) has every vertex of `want`
/// on one face; `None` if it has no drawing in the plane at all.
fn one_face_holds(adj: &[Vec<usize>], m: usize, want: &[usize]) -> Option<bool> {
    let n = adj.len();
    let mut planar = false;
    let found = each_rotation(adj, &mut |rot| {
        let f = faces(rot);
        // Euler: n - m + f = 2 for a drawing of a connected graph on the sphere.
        if n + f.len() != m + 2 {
            return false;
        }
        planar = true;
        f.iter().any(|face| want.iter().all(|w| face.contains(w)))
    });
    planar.then_some(found)
}

/// A random group of loops on `n` rooms (a ring with chords, so every link is on a cycle) and
/// rooms hanging off some of them; returns the graph, the group's adjacency, its link count
/// and the rooms with rooms hanging off them.
fn random_case(seed: u64) -> (LevelGraph, Vec<Vec<usize>>, usize, Vec<usize>) {
    let mut rng = levelplan::seed::stream(seed, "enclosures cross-check");
    let n = 4 + index(&mut rng, 3);
    let mut edges: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    for _ in 0..2 + index(&mut rng, 4) {
        let (a, b) = (index(&mut rng, n), index(&mut rng, n));
        let e = (a.min(b), a.max(b));
        if a != b && !edges.iter().any(|&(x, y)| (x.min(y), x.max(y)) == e) {
            edges.push(e);
        }
    }
    let mut g = LevelGraph::new();
    let ids: Vec<_> = (0..n)
        .map(|_| g.add_room(Room::new(RoomKind::Normal)))
        .collect();
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in &edges {
        g.add_link(ids[a], ids[b], Link::door());
        adj[a].push(b);
        adj[b].push(a);
    }
    let mut hanging = Vec::new();
    for (v, &id) in ids.iter().enumerate() {
        if chance(&mut rng, 0.8) {
            hanging.push(v);
            let leaf = g.add_room(Room::new(RoomKind::Normal));
            g.add_link(id, leaf, Link::door());
            if chance(&mut rng, 0.3) {
                let more = g.add_room(Room::new(RoomKind::Normal));
                g.add_link(leaf, more, Link::door());
            }
        }
    }
    (g, adj, edges.len(), hanging)
}

#[test]
fn enclosures_agree_with_every_drawing() {
    let (mut need, mut open, mut skipped) = (0, 0, 0);
    for case in 0..1500u64 {
        let (g, adj, m, hanging) = random_case(case);
        let Some(fits) = one_face_holds(&adj, m, &hanging) else {
            skipped += 1; // not planar: no drawing, no layout
            continue;
        };
        let found = enclosures(&g);
        let ids: Vec<_> = g.room_ids().collect();
        if fits {
            open += 1;
            assert!(
                found.is_empty(),
                "case {case}: a drawing has every hanging room outside, yet {found:?}"
            );
        } else {
            need += 1;
            assert_eq!(
                found.len(),
                1,
                "case {case}: no drawing has every hanging room outside"
            );
            let e = &found[0];
            let slot = |r| ids.iter().position(|&x| x == r).expect("a room");
            let mut named: Vec<usize> = e.hanging.iter().map(|&(r, _)| slot(r)).collect();
            named.sort_unstable();
            assert_eq!(named, hanging, "case {case}: the hanging rooms named");
            // The rooms it puts inside are enough: the others can all be outside at once.
            let inside: Vec<usize> = e.inside.iter().map(|&r| slot(r)).collect();
            assert!(!inside.is_empty(), "case {case}");
            let outside: Vec<usize> = hanging
                .iter()
                .copied()
                .filter(|v| !inside.contains(v))
                .collect();
            assert_eq!(
                one_face_holds(&adj, m, &outside),
                Some(true),
                "case {case}: with {inside:?} inside, the rest still cannot be outside"
            );
        }
    }
    println!("{need} need a hole, {open} do not, {skipped} not planar");
    assert!(
        need >= 150 && open >= 150,
        "{need} need a hole, {open} do not"
    );
}
