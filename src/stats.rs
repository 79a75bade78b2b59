//! Expressive range: numbers that describe a [`Level`], so that many levels can be compared
//! (Smith and Whitehead's expressive range analysis: score many levels on a few metrics, then
//! look at histograms and 2D histograms of metric pairs). `levelplan stats` computes them over
//! thousands of seeds.
//!
//! Every metric is a number (`f64`); a metric that does not apply to a level (the boss depth
//! of a level without a boss, the space of a graph-only level) is `NaN`, and summaries skip it.
//! One function per group: [`graph_metrics`], [`progression_metrics`], [`space_metrics`];
//! [`metrics`] is all of them, in a fixed order ([`METRICS`]).
//!
//! # Examples
//! ```
//! use levelplan::recipes::isaac::IsaacRecipe;
//! use levelplan::Recipe;
//! let level = IsaacRecipe::new(3, Default::default()).generate(1)?;
//! let m = levelplan::stats::metrics(&level);
//! assert_eq!(m.get("rooms"), Some(level.graph.room_count() as f64));
//! assert!(m.get("critical_path").unwrap() >= 1.0);
//! # Ok::<(), levelplan::RecipeError>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::graph::{LevelGraph, LinkKind, Opener, RoomId, RoomKind, cycle_rank, distances_from};
use crate::tiles::Tile;
use crate::{Level, LevelDetail};

/// The metrics, in the order [`metrics`] lists them, with what each means.
pub const METRICS: &[(&str, &str)] = &[
    ("rooms", "rooms in the graph"),
    ("links", "links between rooms"),
    (
        "loops",
        "independent cycles (cycle rank: links - rooms + components)",
    ),
    ("dead_ends", "rooms with one link"),
    (
        "branching",
        "mean children per room that has any, in the walk outward from the start",
    ),
    (
        "critical_path",
        "rooms walked from the start to the goal along the shortest way (one-way links one \
         way, locks open)",
    ),
    (
        "boss_depth",
        "walking distance from the start to the boss room",
    ),
    (
        "boss_depth_frac",
        "boss depth as a share of the deepest room's distance",
    ),
    (
        "reward_depth",
        "mean walking distance from the start to the reward rooms",
    ),
    (
        "reward_depth_frac",
        "reward depth as a share of the deepest room's distance",
    ),
    ("secret_rooms", "secret rooms"),
    ("locks", "locked links"),
    ("key_locks", "locks opened by keys"),
    ("switch_locks", "locks opened by switches"),
    ("small_key_locks", "locks opened by small keys"),
    ("task_locks", "locks opened by tasks"),
    (
        "lock_nesting",
        "most locks on the way from the start to any room (fewest-locks paths)",
    ),
    (
        "opener_distance",
        "mean rooms from each opener to the nearer side of its lock",
    ),
    (
        "backtracking",
        "rooms entered again along the walkthrough (as metazelda counts it)",
    ),
    ("walk_length", "rooms entered along the walkthrough"),
    ("one_way", "one-way links"),
    ("area", "tiles in the map's box"),
    ("floor_density", "walkable tiles per tile of the box"),
    ("corridor_share", "corridor tiles per walkable tile"),
    ("room_size", "mean floor tiles per room with floor"),
    ("templates", "distinct room templates in the layout"),
    ("attempts", "attempts the recipe made"),
];

/// A level's metrics by name, in the order of [`METRICS`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Metrics(pub BTreeMap<String, f64>);

impl Metrics {
    /// One metric (`None` if unknown; `NaN` if it does not apply).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }

    fn put(&mut self, name: &str, value: f64) {
        self.0.insert(name.to_string(), value);
    }

    fn extend(&mut self, other: Metrics) {
        self.0.extend(other.0);
    }
}

/// Every metric of `level`.
pub fn metrics(level: &Level) -> Metrics {
    let mut m = graph_metrics(level);
    m.extend(progression_metrics(level));
    m.extend(space_metrics(level));
    m.put("attempts", f64::from(level.attempts));
    m
}

/// Undirected breadth-first distances (every link, whatever its kind), indexed by room id.
fn plain_distances(g: &LevelGraph, start: RoomId) -> BTreeMap<RoomId, u32> {
    let mut dist = BTreeMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(r) = queue.pop_front() {
        let d = dist[&r];
        for (_, next) in g.incident_links(r) {
            if let std::collections::btree_map::Entry::Vacant(slot) = dist.entry(next) {
                slot.insert(d + 1);
                queue.push_back(next);
            }
        }
    }
    dist
}

fn mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { f64::NAN } else { sum / n as f64 }
}

/// The graph's shape: rooms, links, loops, dead ends, branching, the critical path from start
/// to goal, the depths of the boss and reward rooms (walking distance from the start, and as a
/// share of the deepest room's), secret rooms.
pub fn graph_metrics(level: &Level) -> Metrics {
    let g = &level.graph;
    let mut m = Metrics::default();
    m.put("rooms", g.room_count() as f64);
    m.put("links", g.link_count() as f64);
    m.put("loops", cycle_rank(g) as f64);
    m.put(
        "dead_ends",
        g.room_ids().filter(|&r| g.degree(r) == 1).count() as f64,
    );
    // Branching: the walk outward from the start (one-way links one way) as a tree, each room
    // the child of its lowest-numbered neighbour one step nearer the start.
    let walk = distances_from(g, level.start);
    let mut children: BTreeMap<RoomId, usize> = BTreeMap::new();
    for (&r, &d) in &walk {
        if d == 0 {
            continue;
        }
        let parent = g
            .links_at(r)
            .filter(|&(_, n, link, forward)| {
                link.passable(!forward) && walk.get(&n) == Some(&(d - 1))
            })
            .map(|(_, n, ..)| n)
            .min();
        if let Some(p) = parent {
            *children.entry(p).or_default() += 1;
        }
    }
    m.put("branching", mean(children.values().map(|&c| c as f64)));
    m.put(
        "critical_path",
        walk.get(&level.goal)
            .map_or(f64::NAN, |&d| f64::from(d) + 1.0),
    );
    let deepest = walk.values().copied().max().unwrap_or(0);
    let depth_of = |kind: &RoomKind| {
        mean(
            g.rooms_of_kind(kind)
                .filter_map(|r| walk.get(&r))
                .map(|&d| f64::from(d)),
        )
    };
    let frac = |d: f64| {
        if deepest == 0 {
            f64::NAN
        } else {
            d / f64::from(deepest)
        }
    };
    let boss = depth_of(&RoomKind::Boss);
    m.put("boss_depth", boss);
    m.put("boss_depth_frac", frac(boss));
    let reward = depth_of(&RoomKind::Reward);
    m.put("reward_depth", reward);
    m.put("reward_depth_frac", frac(reward));
    m.put(
        "secret_rooms",
        g.rooms_of_kind(&RoomKind::Secret).count() as f64,
    );
    m
}

/// The progression: locks by opener kind, how deeply they nest, how far each opener lies from
/// its lock, the backtracking the walkthrough asks for, one-way links.
pub fn progression_metrics(level: &Level) -> Metrics {
    let g = &level.graph;
    let mut m = Metrics::default();
    let locks: Vec<_> = g.locks().collect();
    m.put("locks", locks.len() as f64);
    for (name, opener) in [
        ("key_locks", Opener::Key),
        ("switch_locks", Opener::Switch),
        ("small_key_locks", Opener::SmallKey),
        ("task_locks", Opener::Task),
    ] {
        m.put(
            name,
            locks.iter().filter(|(_, l)| l.opener == opener).count() as f64,
        );
    }
    // Nesting: a 0-1 breadth-first walk (one-way links one way), a locked link costing 1.
    let mut cost: BTreeMap<RoomId, u32> = BTreeMap::from([(level.start, 0)]);
    let mut queue = VecDeque::from([level.start]);
    while let Some(r) = queue.pop_front() {
        let c = cost[&r];
        for (_, next, link, forward) in g.links_at(r) {
            if !link.passable(forward) {
                continue;
            }
            let step = u32::from(link.lock.is_some());
            if cost.get(&next).is_none_or(|&old| c + step < old) {
                cost.insert(next, c + step);
                if step == 0 {
                    queue.push_front(next);
                } else {
                    queue.push_back(next);
                }
            }
        }
    }
    m.put(
        "lock_nesting",
        f64::from(cost.values().copied().max().unwrap_or(0)),
    );
    // Opener distance: from each room holding an opener to the nearer end of each lock it opens.
    let mut distances = Vec::new();
    for (room, r) in g.rooms() {
        for item in &r.items {
            let Some((key, opener)) = item.opens() else {
                continue;
            };
            let from = plain_distances(g, room);
            for (l, lock) in &locks {
                if lock.by != key || lock.opener != opener {
                    continue;
                }
                let Some((a, b)) = g.endpoints(*l) else {
                    continue;
                };
                let d = [a, b].iter().filter_map(|x| from.get(x)).min();
                if let Some(&d) = d {
                    distances.push(f64::from(d));
                }
            }
        }
    }
    m.put("opener_distance", mean(distances));
    m.put("backtracking", level.walkthrough.rooms_revisited as f64);
    m.put("walk_length", level.walkthrough.rooms_walked as f64);
    m.put(
        "one_way",
        g.links()
            .filter(|(.., l)| l.kind == LinkKind::OneWay)
            .count() as f64,
    );
    m
}

/// The space, where the level has tiles: the box's area, walkable tiles per tile, corridor
/// tiles per walkable tile, mean floor per room, distinct templates of the layout.
pub fn space_metrics(level: &Level) -> Metrics {
    let mut m = Metrics::default();
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    let area = (w * h) as f64;
    if w == 0 || h == 0 {
        for name in [
            "area",
            "floor_density",
            "corridor_share",
            "room_size",
            "templates",
        ] {
            m.put(name, f64::NAN);
        }
        return m;
    }
    let mut walkable = 0usize;
    let mut corridor = 0usize;
    let mut per_room: BTreeMap<RoomId, usize> = BTreeMap::new();
    for ((x, y), &t) in level.tiles.tiles.iter() {
        if t == Tile::Corridor {
            corridor += 1;
        }
        if t.walkable() {
            walkable += 1;
        }
        if t == Tile::Floor
            && let Some(r) = level.room_at(x, y)
        {
            *per_room.entry(r).or_default() += 1;
        }
    }
    m.put("area", area);
    m.put("floor_density", walkable as f64 / area);
    m.put(
        "corridor_share",
        if walkable == 0 {
            f64::NAN
        } else {
            corridor as f64 / walkable as f64
        },
    );
    m.put("room_size", mean(per_room.values().map(|&n| n as f64)));
    let templates = match (&level.layout, &level.detail) {
        (Some(layout), _) => layout
            .rooms
            .iter()
            .map(|r| r.template_name.as_str())
            .collect::<BTreeSet<_>>()
            .len() as f64,
        (None, LevelDetail::Isaac { rooms, .. }) => rooms
            .iter()
            .filter_map(|r| r.design.as_deref())
            .collect::<BTreeSet<_>>()
            .len() as f64,
        _ => f64::NAN,
    };
    m.put("templates", templates);
    m
}

/// Count, mean, percentiles and a histogram of one metric over many levels (levels where it
/// does not apply, `NaN`, are left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Levels where the metric applies.
    pub count: usize,
    /// Mean.
    pub mean: f64,
    /// Smallest.
    pub min: f64,
    /// 10th percentile.
    pub p10: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Largest.
    pub max: f64,
    /// Histogram: `bins` equal bins from `min` to `max` (whole-number metrics with a small
    /// range get one bin per value), as `(lower edge, count)`.
    pub histogram: Vec<(f64, usize)>,
    /// The width of each bin.
    pub bin_width: f64,
}

/// Most bins of a histogram.
pub const BINS: usize = 20;

impl Summary {
    /// The summary of `values` (`None` if no value applies).
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let pct = |p: f64| v[((p * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
        let (min, max) = (v[0], v[v.len() - 1]);
        let whole = v.iter().all(|x| x.fract() == 0.0);
        let (bins, width) = if whole && max - min < BINS as f64 {
            ((max - min) as usize + 1, 1.0)
        } else if max > min {
            (BINS, (max - min) / BINS as f64)
        } else {
            (1, 1.0)
        };
        let mut histogram: Vec<(f64, usize)> =
            (0..bins).map(|i| (min + i as f64 * width, 0)).collect();
        for &x in &v {
            let i = (((x - min) / width) as usize).min(bins - 1);
            histogram[i].1 += 1;
        }
        Some(Summary {
            count: v.len(),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min,
            p10: pct(0.1),
            p50: pct(0.5),
            p90: pct(0.9),
            max,
            histogram,
            bin_width: width,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_count_and_bin() {
        let s = Summary::of(&[1.0, 2.0, 2.0, 3.0, f64::NAN]).unwrap();
        assert_eq!((s.count, s.min, s.max, s.p50), (4, 1.0, 3.0, 2.0));
        assert_eq!(s.histogram, vec![(1.0, 1), (2.0, 2), (3.0, 1)]);
        assert!(Summary::of(&[f64::NAN]).is_none());
    }
}
