//! A planar embedding: for each room, the cyclic order of its neighbours in one drawing of
//! the graph without crossings (a rotation system), or `None` if the graph is not planar.
//!
//! [`super::planar`] says whether a drawing exists; this module finds one, for the layout
//! experiments of issue 22 that need to know which rooms bound which face. The method is that
//! of Demoucron, Malgrange and Pertuiset (1964), block by block: a cycle of the block is drawn
//! first (two faces, inside and out); then, as long as links are left, the pieces of the block
//! not drawn yet (a link between two drawn rooms, or a connected group of undrawn rooms with
//! the links that join it to drawn ones) are each matched with the faces that hold all the
//! drawn rooms they touch; a piece that fits one face only goes first (none: not planar), and
//! a path through it between two of those rooms splits its face in two. Each face is kept as
//! the cycle of its rooms, walked with the face on one side, so that the order of the
//! neighbours round a room can be read off the faces at the end. Blocks meet at single rooms,
//! whose orders are the blocks' orders one after another. `O(V · E)` per block.

/// The cyclic order of each vertex's neighbours (`0..n`, undirected `edges`; parallel edges
/// and loops ignored) in one plane drawing of the graph, or `None` if there is none.
pub(crate) fn rotation_system(n: usize, edges: &[(usize, usize)]) -> Option<Vec<Vec<usize>>> {
    let simple = super::planar::simple_edges(n, edges);
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in &simple {
        adj[a].push(b);
        adj[b].push(a);
    }
    let mut rotation: Vec<Vec<usize>> = vec![Vec::new(); n];
    for block in blocks(&adj) {
        if block.len() == 1 {
            let (a, b) = block[0];
            rotation[a].push(b);
            rotation[b].push(a);
            continue;
        }
        for (v, order) in embed_block(&block)? {
            rotation[v].extend(order);
        }
    }
    Some(rotation)
}

/// The faces of a rotation system, each as the cycle of vertices walked along it (a vertex
/// where the face touches itself appears once per visit); every edge is walked once each way.
#[cfg(test)]
pub(crate) fn faces(rotation: &[Vec<usize>]) -> Vec<Vec<usize>> {
    // The position of each neighbour in each vertex's rotation.
    let at = |v: usize, w: usize| rotation[v].iter().position(|&x| x == w);
    let mut used: Vec<Vec<bool>> = rotation.iter().map(|r| vec![false; r.len()]).collect();
    let mut out = Vec::new();
    for v in 0..rotation.len() {
        for k in 0..rotation[v].len() {
            if used[v][k] {
                continue;
            }
            // Walk darts: from (u -> w), the next dart leaves w towards the neighbour after
            // u in w's rotation.
            let mut face = Vec::new();
            let (mut u, mut i) = (v, k);
            while !used[u][i] {
                used[u][i] = true;
                face.push(u);
                let w = rotation[u][i];
                let Some(back) = at(w, u) else { break };
                let next = (back + 1) % rotation[w].len();
                (u, i) = (w, next);
            }
            out.push(face);
        }
    }
    out
}

/// The biconnected blocks of a graph given by adjacency lists, each as its edges.
fn blocks(adj: &[Vec<usize>]) -> Vec<Vec<(usize, usize)>> {
    let n = adj.len();
    let mut disc = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut time = 0;
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for root in 0..n {
        if disc[root] != usize::MAX || adj[root].is_empty() {
            continue;
        }
        disc[root] = time;
        low[root] = time;
        time += 1;
        // (vertex, its parent, next neighbour index)
        let mut frames: Vec<(usize, usize, usize)> = vec![(root, usize::MAX, 0)];
        while let Some(&mut (v, parent, ref mut next)) = frames.last_mut() {
            if *next < adj[v].len() {
                let w = adj[v][*next];
                *next += 1;
                if w == parent {
                    continue;
                }
                if disc[w] == usize::MAX {
                    disc[w] = time;
                    low[w] = time;
                    time += 1;
                    stack.push((v, w));
                    frames.push((w, v, 0));
                } else if disc[w] < disc[v] {
                    stack.push((v, w));
                    low[v] = low[v].min(disc[w]);
                }
                continue;
            }
            frames.pop();
            if parent == usize::MAX {
                continue;
            }
            low[parent] = low[parent].min(low[v]);
            if low[v] >= disc[parent] {
                let mut block = Vec::new();
                while let Some(e) = stack.pop() {
                    block.push(e);
                    if e == (parent, v) {
                        break;
                    }
                }
                out.push(block);
            }
        }
    }
    out
}

/// A plane drawing of one block (two or more edges, no cut vertex): per vertex of the block,
/// the cyclic order of its neighbours in the block; `None` if the block is not planar.
fn embed_block(edges: &[(usize, usize)]) -> Option<Vec<(usize, Vec<usize>)>> {
    // Local numbering.
    let mut verts: Vec<usize> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    verts.sort_unstable();
    verts.dedup();
    let n = verts.len();
    let local = |v: usize| verts.binary_search(&v).expect("a vertex of the block");
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        let (a, b) = (local(a), local(b));
        adj[a].push(b);
        adj[b].push(a);
    }
    let key = |a: usize, b: usize| (a.min(b), a.max(b));
    let mut drawn_edge: std::collections::HashSet<(usize, usize)> =
        std::collections::HashSet::new();
    let mut drawn = vec![false; n];
    // A first cycle: walk a depth-first path until a vertex on it is met again.
    let cycle = first_cycle(&adj)?;
    for k in 0..cycle.len() {
        drawn[cycle[k]] = true;
        drawn_edge.insert(key(cycle[k], cycle[(k + 1) % cycle.len()]));
    }
    let mut faces: Vec<Vec<usize>> = vec![cycle.clone(), cycle.iter().rev().copied().collect()];
    let total = edges.len();
    while drawn_edge.len() < total {
        // The pieces not drawn: (the drawn vertices they touch, a path between two of them).
        let mut pieces: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for a in 0..n {
            if !drawn[a] {
                continue;
            }
            for &b in &adj[a] {
                if a < b && drawn[b] && !drawn_edge.contains(&key(a, b)) {
                    pieces.push((vec![a, b], vec![a, b]));
                }
            }
        }
        let mut group = vec![usize::MAX; n];
        for s in 0..n {
            if drawn[s] || group[s] != usize::MAX {
                continue;
            }
            let g = s;
            group[s] = g;
            let mut members = vec![s];
            let mut contacts = Vec::new();
            let mut k = 0;
            while k < members.len() {
                let x = members[k];
                k += 1;
                for &y in &adj[x] {
                    if drawn[y] {
                        contacts.push(y);
                    } else if group[y] == usize::MAX {
                        group[y] = g;
                        members.push(y);
                    }
                }
            }
            contacts.sort_unstable();
            contacts.dedup();
            if contacts.len() < 2 {
                // A block has no piece that hangs by one vertex.
                return None;
            }
            let path = path_through(&adj, &drawn, &group, g, contacts[0], contacts[1])?;
            pieces.push((contacts, path));
        }
        // Faces that hold every vertex a piece touches; the piece with fewest goes first.
        let mut best: Option<(usize, usize, usize)> = None;
        for (p, (contacts, _)) in pieces.iter().enumerate() {
            let fitting: Vec<usize> = (0..faces.len())
                .filter(|&f| contacts.iter().all(|c| faces[f].contains(c)))
                .collect();
            if fitting.is_empty() {
                return None;
            }
            if best.is_none_or(|(k, _, _)| fitting.len() < k) {
                best = Some((fitting.len(), p, fitting[0]));
            }
            if fitting.len() == 1 {
                break;
            }
        }
        let (_, p, f) = best?;
        let path = &pieces[p].1;
        let face = std::mem::take(&mut faces[f]);
        let (a, b) = (path[0], path[path.len() - 1]);
        let i = face.iter().position(|&x| x == a)?;
        let j = face.iter().position(|&x| x == b)?;
        let m = face.len();
        let inner = &path[1..path.len() - 1];
        // One side: from a along the face to b, back along the path; the other: from b along
        // the face to a, on along the path.
        let mut one: Vec<usize> = (0..=(j + m - i) % m).map(|t| face[(i + t) % m]).collect();
        one.extend(inner.iter().rev());
        let mut two: Vec<usize> = (0..=(i + m - j) % m).map(|t| face[(j + t) % m]).collect();
        two.extend(inner.iter());
        faces[f] = one;
        faces.push(two);
        for w in path.windows(2) {
            drawn_edge.insert(key(w[0], w[1]));
        }
        for &x in inner {
            drawn[x] = true;
        }
    }
    // Each corner (u, v, w) of a face: round v, w comes after u.
    let mut after: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for face in &faces {
        let m = face.len();
        for t in 0..m {
            let (u, v, w) = (face[(t + m - 1) % m], face[t], face[(t + 1) % m]);
            after[v].push((u, w));
        }
    }
    let mut out = Vec::with_capacity(n);
    for v in 0..n {
        let start = adj[v][0];
        let mut order = vec![verts[start]];
        let mut x = start;
        for _ in 1..adj[v].len() {
            x = after[v].iter().find(|&&(u, _)| u == x)?.1;
            order.push(verts[x]);
        }
        out.push((verts[v], order));
    }
    Some(out)
}

/// A cycle of a graph with no vertex of degree below 2 somewhere: its vertices in order.
fn first_cycle(adj: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = adj.len();
    let mut on_path = vec![usize::MAX; n];
    let mut path: Vec<usize> = vec![0];
    on_path[0] = 0;
    let mut prev = usize::MAX;
    loop {
        let v = *path.last()?;
        let w = *adj[v].iter().find(|&&w| w != prev)?;
        if on_path[w] != usize::MAX {
            return Some(path[on_path[w]..].to_vec());
        }
        on_path[w] = path.len();
        path.push(w);
        prev = v;
    }
}

/// A path from drawn vertex `a` through undrawn vertices of group `g` to drawn vertex `b`.
fn path_through(
    adj: &[Vec<usize>],
    drawn: &[bool],
    group: &[usize],
    g: usize,
    a: usize,
    b: usize,
) -> Option<Vec<usize>> {
    let n = adj.len();
    let mut prev = vec![usize::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    for &x in &adj[a] {
        if !drawn[x] && group[x] == g && prev[x] == usize::MAX {
            prev[x] = a;
            queue.push_back(x);
        }
    }
    while let Some(x) = queue.pop_front() {
        if adj[x].contains(&b) {
            let mut path = vec![b, x];
            let mut y = prev[x];
            while y != a {
                path.push(y);
                y = prev[y];
            }
            path.push(a);
            path.reverse();
            return Some(path);
        }
        for &y in &adj[x] {
            if !drawn[y] && group[y] == g && prev[y] == usize::MAX {
                prev[y] = x;
                queue.push_back(y);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{faces, rotation_system};
    use crate::graph::planar::tests::complete;
    use crate::graph::planar_edges;
    use crate::seed::index;

    /// Euler's formula on each connected part: a rotation system is a plane drawing exactly
    /// when V - E + F = 1 + (number of parts) over the whole graph, with F counted by walking
    /// faces (isolated vertices count as parts with no face).
    fn is_plane(n: usize, edges: &[(usize, usize)], rot: &[Vec<usize>]) -> bool {
        let mut simple: Vec<(usize, usize)> = edges
            .iter()
            .filter(|(a, b)| a != b)
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .collect();
        simple.sort_unstable();
        simple.dedup();
        // Every neighbour once in each rotation.
        for (v, r) in rot.iter().enumerate() {
            let mut want: Vec<usize> = simple
                .iter()
                .filter_map(|&(a, b)| (a == v).then_some(b).or((b == v).then_some(a)))
                .collect();
            let mut got = r.clone();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                return false;
            }
        }
        // Connected parts among vertices with edges.
        let mut uf: Vec<usize> = (0..n).collect();
        fn find(uf: &mut [usize], mut x: usize) -> usize {
            while uf[x] != x {
                uf[x] = uf[uf[x]];
                x = uf[x];
            }
            x
        }
        for &(a, b) in &simple {
            let (x, y) = (find(&mut uf, a), find(&mut uf, b));
            uf[x] = y;
        }
        let with_edges: Vec<usize> = (0..n).filter(|&v| !rot[v].is_empty()).collect();
        let mut roots: Vec<usize> = with_edges.iter().map(|&v| find(&mut uf, v)).collect();
        roots.sort_unstable();
        roots.dedup();
        let f = faces(rot).len();
        let (v, e, c) = (with_edges.len(), simple.len(), roots.len());
        v + f == e + c + c
    }

    #[test]
    fn classics_are_drawn_or_refused() {
        assert!(rotation_system(5, &complete(5)).is_none());
        let k33: Vec<_> = (0..3).flat_map(|i| (3..6).map(move |j| (i, j))).collect();
        assert!(rotation_system(6, &k33).is_none());
        for (n, edges) in [(4, complete(4)), (6, k33[1..].to_vec())] {
            let rot = rotation_system(n, &edges).expect("planar");
            assert!(is_plane(n, &edges, &rot), "{edges:?}: {rot:?}");
        }
        // K4: four triangles.
        let rot = rotation_system(4, &complete(4)).unwrap();
        let mut sizes: Vec<usize> = faces(&rot).iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![3, 3, 3, 3]);
    }

    /// Random graphs, planar or not: the embedding exists exactly when the left-right test
    /// says the graph is planar, and every embedding found satisfies Euler's formula.
    #[test]
    fn agrees_with_the_planarity_test_on_random_graphs() {
        let mut rng = crate::seed::stream(7, "embed test");
        let (mut planar, mut not) = (0, 0);
        for _ in 0..600 {
            let n = 1 + index(&mut rng, 13);
            let m = index(&mut rng, 3 * n + 2);
            let edges: Vec<(usize, usize)> = (0..m)
                .map(|_| (index(&mut rng, n), index(&mut rng, n)))
                .collect();
            let want = planar_edges(n, &edges);
            let got = rotation_system(n, &edges);
            assert_eq!(got.is_some(), want, "n {n} edges {edges:?}");
            if let Some(rot) = got {
                planar += 1;
                assert!(is_plane(n, &edges, &rot), "n {n} edges {edges:?}: {rot:?}");
            } else {
                not += 1;
            }
        }
        assert!(planar > 100 && not > 30, "{planar} planar, {not} not");
    }

    /// Level-sized graphs near the edge of planarity (a graph read off a placement of rooms,
    /// which is planar, with up to sixteen random links more): drawn exactly when the left-right
    /// test says planar, and every drawing satisfies Euler's formula.
    #[test]
    fn agrees_with_the_planarity_test_on_level_sized_graphs() {
        let (mut planar, mut not) = (0, 0);
        for seed in 0..40 {
            let mut rng = crate::seed::stream(seed, "embed near planar");
            let placed = crate::graph::random::placed_rooms_graph(80, 8, &mut rng);
            let ids: Vec<_> = placed.graph.room_ids().collect();
            let n = ids.len();
            let slot = |r| ids.binary_search(&r).unwrap();
            let mut edges: Vec<(usize, usize)> = placed
                .graph
                .links()
                .map(|(_, a, b, _)| (slot(a), slot(b)))
                .collect();
            for _ in 0..(seed % 5) * 4 {
                edges.push((index(&mut rng, n), index(&mut rng, n)));
            }
            let want = planar_edges(n, &edges);
            let got = rotation_system(n, &edges);
            assert_eq!(got.is_some(), want, "seed {seed}");
            match got {
                Some(rot) => {
                    planar += 1;
                    assert!(is_plane(n, &edges, &rot), "seed {seed}");
                }
                None => not += 1,
            }
        }
        assert!(planar > 10 && not > 8, "{planar} planar, {not} not");
    }

    /// Graphs read off a placement of rooms are planar: each gets a plane drawing.
    #[test]
    fn graphs_read_off_a_placement_are_drawn() {
        for seed in 0..6 {
            let placed = crate::graph::random::placed_rooms_graph(
                120,
                12,
                &mut crate::seed::stream(seed, "embed placed"),
            );
            let ids: Vec<_> = placed.graph.room_ids().collect();
            let slot = |r| ids.binary_search(&r).unwrap();
            let edges: Vec<(usize, usize)> = placed
                .graph
                .links()
                .map(|(_, a, b, _)| (slot(a), slot(b)))
                .collect();
            let rot = rotation_system(ids.len(), &edges).expect("planar");
            assert!(is_plane(ids.len(), &edges, &rot));
        }
    }
}
