//! The scale benchmark's graph families, one line per seed: whether the graph laid out (20
//! attempts, as in `cargo bench --bench layout`), in how long, a hash of the layout's JSON
//! (so that a change meant to keep every layout can be checked to), and the median time of
//! the successes at the end. For reading one family's failures, or measuring a change on
//! more seeds than the benchmark's, without running the whole benchmark.
//!
//! `cargo run --release --example scale_probe -- FAMILY SIZE FIRST_SEED LAST_SEED`
//! where FAMILY is `holes` (level-like graphs), `open` (level-like without holes), `placed`
//! (read off a placement), `chain` (chains of loops, contact bridges) or `chain-corridors`
//! (every link contact or corridor); SIZE is the rooms (the loops, for chains; the others
//! take a tenth of the rooms as loops, and 4 at 30 rooms, as the benchmark does). With
//! `DUMP=1` set, each problem's rooms and links are printed before it is laid out; with
//! `LONG=1`, a failure's whole message (else its first 160 characters); with `SVG=DIR`, a
//! picture of where a failed level got stuck (`Planner::deepest_parts`, else `deepest`) is
//! written to `DIR/FAMILY-SIZE-SEED.svg` (with `SVG_OK=DIR`, a picture of each layout found, to
//! `DIR/FAMILY-SIZE-SEED-ok.svg`); with `MILLIS=N`, each graph gets N milliseconds
//! instead of 20 attempts (with `ATTEMPTS=N`, N attempts; with `CAP=N`, a cap of N milliseconds on the whole layout,
//! `Budget::time_limit_ms`, the 20 attempts kept); with `ORDER=1`, the room order the search follows
//! (`Planner::debug_order`); with `PARTS=1`, the rooms of each part of a level laid out in
//! parts, one part per line in the order they are fitted (`Planner::debug_parts`; a line
//! passed as `BLOCK` lays that part out alone); with `EMBED=1`, the search keeps the cyclic order of a plane
//! drawing in which the pieces hanging off the level's loops share one face as far as a
//! drawing allows (`Planner::heavy_outside_rotation`, an experiment); with `BLOCK=r1,r2,...`, only the rooms named, with a stand-in for
//! each room outside them that a link joins to one of them (a block laid out alone), and with
//! `TAIL=K` as well, a line of K rooms behind each stand-in (so that the stand-ins weigh more
//! than the pieces inside the block); `BLOCK=biggest` takes the level's biggest group of
//! loops. With `USE_ORDER=r1,r2,...`, the search places the rooms named first, in that
//! order, then the rest breadth first from them (`Planner::with_order`). With
//! `PINS=r1:x:y:w:h,...`, each room named may go only where its box has lower-left corner
//! (x, y), width w and height h (`Planner::with_pins`). `FAILS=N` and `STEPS=N` set the
//! search's budget per room (`Budget::failures_per_room`, `Budget::steps_per_room`). With
//! `CHECK=FILE`, the problem is not laid out: the layout in FILE (JSON, as `Layout::to_json`
//! writes it; `docs/experiments/block_feasibility.py` writes one) is held to the library's
//! own check (`layout::verify::check`), and drawn with `SVG_OK=DIR`. With `STUCK=DIR`, where
//! the room-by-room search alone got (`Planner::search_deepest`) is drawn to
//! `DIR/FAMILY-SIZE-SEED-search.svg` for a level that laid out too (found by a fallback). With
//! `RASTER=1`, each layout found is also held to its tiles (`layout::raster::rasterise`): no
//! room's floor beside a corridor or another room's floor, no two corridors' corridor tiles
//! running together (`tests/common/tiles.rs`). With `RELAX=MIN,MAX`, every link that must touch
//! may instead be a corridor of MIN to MAX cells (`Realise::ContactOrPath`), and a layout found
//! says how many of those links took a corridor, and how long each is. With `JSON_OK=DIR`,
//! each layout found is written as JSON (`Layout::to_json`) to `DIR/FAMILY-SIZE-SEED-ok.json`.

#[path = "../benches/common/scale.rs"]
mod scale;
#[path = "../tests/common/tiles.rs"]
mod tiles;

use levelplan::layout::{LayoutError, LayoutProblem, Planner};
use scale::{all_corridors, chain_problem, open_problem, placed_problem, scale_problem};

/// The benchmark's loops for `rooms` rooms: 4 at 30 rooms, else a tenth of the rooms.
fn loops_of(rooms: usize) -> usize {
    if rooms == 30 { 4 } else { rooms / 10 }
}

/// The benchmark's problem of `family` at `size` (rooms, or loops for chains), graph `seed`.
fn problem(family: &str, size: usize, seed: u64) -> Result<LayoutProblem, String> {
    Ok(match family {
        "holes" => scale_problem(size, loops_of(size), seed),
        "open" => open_problem(size, loops_of(size), seed),
        "placed" => placed_problem(size, size / 10, seed),
        "chain" => chain_problem(size, seed),
        "chain-corridors" => all_corridors(chain_problem(size, seed)),
        other => return Err(format!("unknown family {other}")),
    })
}

/// The rooms of `p` named in `names`, with a stand-in (a copy of the room, named with a `*`)
/// for each room outside them that a link joins to one of them: a block laid out alone, as a
/// part of the level is.
fn block_of(p: &LayoutProblem, names: &[&str]) -> LayoutProblem {
    let mut q = p.clone();
    let inside: Vec<usize> = (0..p.rooms.len())
        .filter(|&r| names.contains(&p.rooms[r].name.as_str()))
        .collect();
    let mut index: Vec<Option<usize>> = vec![None; p.rooms.len()];
    q.rooms = inside.iter().map(|&r| p.rooms[r].clone()).collect();
    for (i, &r) in inside.iter().enumerate() {
        index[r] = Some(i);
    }
    q.links.clear();
    for l in &p.links {
        let (a, b) = (index[l.from], index[l.to]);
        let (a, b) = match (a, b) {
            (None, None) => continue,
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => {
                let mut stand_in = p.rooms[l.to].clone();
                stand_in.name = format!("{}*", stand_in.name);
                q.rooms.push(stand_in);
                (a, q.rooms.len() - 1)
            }
            (None, Some(b)) => {
                let mut stand_in = p.rooms[l.from].clone();
                stand_in.name = format!("{}*", stand_in.name);
                q.rooms.push(stand_in);
                (q.rooms.len() - 1, b)
            }
        };
        let mut link = *l;
        link.from = a;
        link.to = b;
        q.links.push(link);
    }
    // With `TAIL=K`, each stand-in carries a line of K rooms, so that it weighs more than
    // what hangs off the block's rooms inside it.
    let tail: usize = std::env::var("TAIL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for s in inside.len()..q.rooms.len() {
        let mut prev = s;
        for k in 0..tail {
            let mut room = q.rooms[s].clone();
            room.name = format!("{}~{k}", q.rooms[s].name);
            q.rooms.push(room);
            let next = q.rooms.len() - 1;
            q.links.push(levelplan::layout::LinkSpec::new(
                prev,
                next,
                levelplan::layout::Realise::Contact,
            ));
            prev = next;
        }
    }
    q
}

/// The names of the rooms of `p`'s biggest group of loops (rooms joined by links that are not
/// bridges; brute force, a connectivity test per link).
fn biggest_group(p: &LayoutProblem) -> Vec<String> {
    let n = p.rooms.len();
    let reach = |skip: usize, from: usize| -> Vec<bool> {
        let mut seen = vec![false; n];
        seen[from] = true;
        let mut stack = vec![from];
        while let Some(x) = stack.pop() {
            for (k, l) in p.links.iter().enumerate() {
                if k == skip {
                    continue;
                }
                for (a, b) in [(l.from, l.to), (l.to, l.from)] {
                    if a == x && !seen[b] {
                        seen[b] = true;
                        stack.push(b);
                    }
                }
            }
        }
        seen
    };
    let on_loop: Vec<bool> = (0..p.links.len())
        .map(|k| reach(k, p.links[k].from)[p.links[k].to])
        .collect();
    let mut group = vec![usize::MAX; n];
    let mut sizes = Vec::new();
    for start in 0..n {
        if group[start] != usize::MAX {
            continue;
        }
        let g = sizes.len();
        group[start] = g;
        let mut stack = vec![start];
        let mut size = 0;
        while let Some(x) = stack.pop() {
            size += 1;
            for (k, l) in p.links.iter().enumerate() {
                if !on_loop[k] {
                    continue;
                }
                for (a, b) in [(l.from, l.to), (l.to, l.from)] {
                    if a == x && group[b] == usize::MAX {
                        group[b] = g;
                        stack.push(b);
                    }
                }
            }
        }
        sizes.push(size);
    }
    let best = (0..sizes.len()).max_by_key(|&g| sizes[g]).unwrap_or(0);
    let names: Vec<String> = (0..n)
        .filter(|&r| group[r] == best)
        .map(|r| p.rooms[r].name.clone())
        .collect();
    println!("biggest group: {} rooms: {}", names.len(), names.join(","));
    names
}

/// A room order for `Planner::with_order`: the rooms named, in that order, then every other
/// room once a room before it links to it (breadth first).
fn named_order(p: &LayoutProblem, names: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = names
        .iter()
        .filter_map(|n| p.rooms.iter().position(|r| r.name == *n))
        .collect();
    let mut done = vec![false; p.rooms.len()];
    for &r in &order {
        done[r] = true;
    }
    let mut head = 0;
    while head < order.len() {
        let r = order[head];
        head += 1;
        for l in &p.links {
            for (a, b) in [(l.from, l.to), (l.to, l.from)] {
                if a == r && !done[b] {
                    done[b] = true;
                    order.push(b);
                }
            }
        }
    }
    order
}

/// A whole layout as a [`levelplan::layout::PartialLayout`] with every room placed, to draw.
fn whole_picture(layout: &levelplan::layout::Layout) -> levelplan::layout::PartialLayout {
    levelplan::layout::PartialLayout {
        rooms: layout.rooms.iter().cloned().map(Some).collect(),
        corridors: layout
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.corridor.is_empty())
            .map(|(i, l)| (i, l.corridor.clone()))
            .collect(),
        stuck: String::new(),
        stuck_next_to: Vec::new(),
    }
}

/// Writes a picture of `partial` (4 pixels a cell) to `path`.
fn write_svg(path: &str, partial: &levelplan::layout::PartialLayout) -> std::io::Result<()> {
    std::fs::write(
        path,
        levelplan::export::svg::partial_layout_to_svg(partial, 4),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let family = args.first().map_or("placed", String::as_str).to_string();
    let size: usize = args.get(1).map_or(Ok(300), |s| s.parse())?;
    let first: u64 = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let last: u64 = args.get(3).map_or(Ok(first + 9), |s| s.parse())?;
    let mut ok_times = Vec::new();
    let mut tried = 0;
    for s in first..=last {
        let mut p = problem(&family, size, s)?;
        if let Some(ms) = std::env::var("MILLIS").ok().and_then(|v| v.parse().ok()) {
            p.budget.retry = levelplan::layout::RetryPolicy::Millis(ms);
        }
        if let Some(k) = std::env::var("ATTEMPTS").ok().and_then(|v| v.parse().ok()) {
            p.budget.retry = levelplan::layout::RetryPolicy::Attempts(k);
        }
        if let Some(ms) = std::env::var("CAP").ok().and_then(|v| v.parse().ok()) {
            p.budget.time_limit_ms = Some(ms);
        }
        if let Some(k) = std::env::var("FAILS").ok().and_then(|v| v.parse().ok()) {
            p.budget.failures_per_room = k;
        }
        if let Some(k) = std::env::var("STEPS").ok().and_then(|v| v.parse().ok()) {
            p.budget.steps_per_room = k;
        }
        if let Ok(names) = std::env::var("BLOCK") {
            let names: Vec<String> = if names == "biggest" {
                biggest_group(&p)
            } else {
                names.split(',').map(str::to_string).collect()
            };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            p = block_of(&p, &names);
        }
        // `RELAX=MIN,MAX`: every link that must touch may be a corridor of MIN to MAX cells
        // instead; the links so relaxed are remembered, to count how many took a corridor.
        let mut relaxed: Vec<usize> = Vec::new();
        if let Ok(v) = std::env::var("RELAX") {
            let (lo, hi) = v.split_once(',').ok_or("RELAX=MIN,MAX")?;
            let (min, max): (u32, u32) = (lo.parse()?, hi.parse()?);
            for (i, l) in p.links.iter_mut().enumerate() {
                if l.realise == levelplan::layout::Realise::Contact {
                    l.realise = levelplan::layout::Realise::ContactOrPath { min, max };
                    relaxed.push(i);
                }
            }
        }
        let rooms = p.rooms.len();
        if std::env::var("DUMP").is_ok() {
            for (i, r) in p.rooms.iter().enumerate() {
                println!("room {i} {} templates {:?}", r.name, r.templates);
            }
            for l in &p.links {
                println!("link {} {} {:?}", l.from, l.to, l.realise);
            }
        }
        // `CHECK=FILE`: a layout made elsewhere (JSON, as `Layout::to_json` writes it), held to
        // the library's own check instead of laying the problem out.
        if let Ok(file) = std::env::var("CHECK") {
            let layout: levelplan::layout::Layout =
                serde_json::from_str(&std::fs::read_to_string(&file)?)?;
            match levelplan::layout::verify::check(&p, &layout) {
                Ok(()) => println!("seed {s}: {rooms} rooms, the layout in {file} is valid"),
                Err(e) => println!("seed {s}: {rooms} rooms, the layout in {file} is not: {e}"),
            }
            if let Ok(dir) = std::env::var("SVG_OK") {
                let path = format!("{dir}/{family}-{size}-{s}-checked.svg");
                write_svg(&path, &whole_picture(&layout))?;
                println!("  picture: {path}");
            }
            continue;
        }
        let t = std::time::Instant::now();
        let planner = match Planner::new(p) {
            Ok(planner) => planner,
            Err(LayoutError::HoleTooSmall { .. }) => {
                println!("seed {s}: {rooms} rooms, proven to have no layout");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let planner = if std::env::var("EMBED").is_ok() {
            match planner.heavy_outside_rotation() {
                Some(rot) => planner.with_rotation(rot)?,
                None => planner,
            }
        } else {
            planner
        };
        let planner = match std::env::var("USE_ORDER") {
            Ok(names) => {
                let order = named_order(planner.problem(), &names.split(',').collect::<Vec<_>>());
                planner.with_order(&order)?
            }
            Err(_) => planner,
        };
        let planner = match std::env::var("PINS") {
            Ok(pins) => {
                let mut list = Vec::new();
                for pin in pins.split(',') {
                    let f: Vec<&str> = pin.split(':').collect();
                    let room = planner.problem().rooms.iter().position(|r| r.name == f[0]);
                    let nums: Vec<i32> = f[1..].iter().filter_map(|v| v.parse().ok()).collect();
                    match (room, nums.as_slice()) {
                        (Some(r), &[x, y, w, h]) => {
                            list.push((r, levelplan::layout::geom::Point::new(x, y), w, h))
                        }
                        _ => return Err(format!("bad pin {pin}").into()),
                    }
                }
                planner
                    .with_pins(&list)
                    .ok_or("a pinned room has no shape of that size")?
            }
            Err(_) => planner,
        };
        let prep = t.elapsed().as_secs_f64();
        if std::env::var("ORDER").is_ok() {
            print!("{}", planner.debug_order());
        }
        if std::env::var("PARTS").is_ok() {
            print!("{}", planner.debug_parts());
        }
        let t = std::time::Instant::now();
        let result = planner.layout(s);
        let secs = t.elapsed().as_secs_f64();
        tried += 1;
        match result {
            Ok(layout) => {
                planner
                    .check(&layout)
                    .map_err(|e| format!("seed {s}: invalid layout: {e}"))?;
                if std::env::var_os("RASTER").is_some()
                    && let Some(e) = tiles::tile_faults(&layout)
                {
                    return Err(format!("seed {s}: tiles: {e}").into());
                }
                ok_times.push(secs);
                let json = serde_json::to_string(&layout)?;
                let mut h = std::hash::DefaultHasher::new();
                std::hash::Hash::hash(&json, &mut h);
                let hash = std::hash::Hasher::finish(&h);
                println!(
                    "seed {s}: {rooms} rooms, ok in {secs:.3} s (prepare {prep:.3} s, attempt {}), layout {hash:016x}",
                    layout.attempts
                );
                if !relaxed.is_empty() {
                    let lengths: Vec<usize> = relaxed
                        .iter()
                        .map(|&i| layout.links[i].corridor.len())
                        .filter(|&n| n > 0)
                        .collect();
                    println!(
                        "  {} of the {} relaxed links took a corridor, of lengths {lengths:?}",
                        lengths.len(),
                        relaxed.len()
                    );
                }
                if let Ok(dir) = std::env::var("JSON_OK") {
                    let path = format!("{dir}/{family}-{size}-{s}-ok.json");
                    std::fs::write(&path, layout.to_json())?;
                    println!("  layout: {path}");
                }
                if let Ok(dir) = std::env::var("SVG_OK") {
                    let path = format!("{dir}/{family}-{size}-{s}-ok.svg");
                    write_svg(&path, &whole_picture(&layout))?;
                    println!("  picture: {path}");
                }
                if let Ok(dir) = std::env::var("STUCK")
                    && let Some(stuck) = planner.search_deepest(s)
                {
                    let path = format!("{dir}/{family}-{size}-{s}-search.svg");
                    write_svg(&path, &stuck)?;
                    println!("  the search alone: {} ({path})", stuck.caption());
                }
            }
            Err(e) => {
                let e = e.to_string();
                let short: String = e
                    .chars()
                    .take(std::env::var("LONG").map_or(160, |_| 4000))
                    .collect();
                println!("seed {s}: {rooms} rooms, FAILED in {secs:.3} s: {short}");
                if let Ok(dir) = std::env::var("SVG")
                    && let Some(stuck) = planner.deepest_parts(s).or_else(|| planner.deepest(s))
                {
                    let path = format!("{dir}/{family}-{size}-{s}.svg");
                    write_svg(&path, &stuck)?;
                    println!("  where it got stuck: {path}");
                }
            }
        }
    }
    ok_times.sort_by(f64::total_cmp);
    let median = ok_times
        .get(ok_times.len() / 2)
        .copied()
        .unwrap_or(f64::NAN);
    println!(
        "{family} {size}: {} of {tried} laid out, median of successes {median:.3} s",
        ok_times.len()
    );
    Ok(())
}
