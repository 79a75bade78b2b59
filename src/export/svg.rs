//! SVG pictures of tile maps, of whole levels, and of where a failed layout got stuck.

use std::fmt::Write;

use crate::tiles::{Tile, TileMap};

/// A label drawn on the picture, centred on a tile position.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// Tile column of its centre.
    pub x: f64,
    /// Tile row of its centre.
    pub y: f64,
    /// The text.
    pub text: String,
}

/// Draws a tile map as SVG, `scale` pixels per tile. Floor and corridor tiles are filled with
/// `fill(region)` (a CSS colour; regions without one are light grey), walls dark, doors
/// orange, secret doors purple, lava red, stairs blue, lamps yellow, rock left out; tiles with a
/// variant get a faint light or dark veil; labels are drawn on top.
///
/// Runs of equal tiles in a row are merged into one rectangle, so the picture stays small.
///
/// # Complexity
/// `O(W · H)`.
///
/// # Examples
/// ```
/// use levelplan::tiles::{Tile, TileMap};
/// use levelplan::export::svg::tilemap_to_svg;
/// let mut map = TileMap::new(3, 1);
/// map.put(0, 0, Tile::Wall, None);
/// map.put(1, 0, Tile::Floor, Some(0));
/// let svg = tilemap_to_svg(&map, 10, |_| Some("#9c9".to_string()), &[]);
/// assert!(svg.starts_with("<svg"));
/// assert!(svg.contains("fill=\"#9c9\""));
/// ```
pub fn tilemap_to_svg(
    map: &TileMap,
    scale: u32,
    fill: impl Fn(u32) -> Option<String>,
    labels: &[Label],
) -> String {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    let s = f64::from(scale);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">",
        w as f64 * s,
        h as f64 * s,
        w as f64 * s,
        h as f64 * s
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>"
    );
    let colour = |tile: Tile, region: Option<u32>| -> Option<String> {
        match tile {
            Tile::Floor | Tile::Corridor => {
                Some(region.and_then(&fill).unwrap_or_else(|| TILE_FLOOR.into()))
            }
            t => tile_colour(t).map(String::from),
        }
    };
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let at = |x: usize| {
                (
                    *map.tiles.get(x as i64, y as i64).expect("inside"),
                    *map.regions.get(x as i64, y as i64).expect("inside"),
                )
            };
            let (tile, region) = at(x);
            let mut end = x + 1;
            while end < w && at(end) == (tile, region) {
                end += 1;
            }
            if let Some(c) = colour(tile, region) {
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{c}\"/>",
                    x as f64 * s,
                    y as f64 * s,
                    (end - x) as f64 * s,
                    s
                );
            }
            x = end;
        }
    }
    // Variants: a light or dark veil over the plain colour, one tile at a time.
    for ((x, y), &v) in map.variants.iter() {
        if v == 0 || map.tiles.get(x as i64, y as i64) == Some(&Tile::Solid) {
            continue;
        }
        let veil = if v % 2 == 1 { "#ffffff" } else { "#000000" };
        let opacity = 0.05 * f64::from((v - 1) % 3 + 1);
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{s}\" height=\"{s}\" fill=\"{veil}\" fill-opacity=\"{opacity:.2}\"/>",
            x as f64 * s,
            y as f64 * s,
        );
    }
    for l in labels {
        let text = escape(&l.text);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\" fill=\"#1b1b1b\">{text}</text>",
            l.x * s,
            l.y * s,
            (s * 2.2).max(8.0)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The background of every picture (and the colour of solid rock).
pub const BACKGROUND: &str = "#22252b";

/// The colour of floor tiles that no room claims (rooms get their kind's colour).
pub const TILE_FLOOR: &str = "#d9d9d9";

/// The colour a tile is drawn in (`None` for solid rock, which is left as the background):
/// the palette of the SVG pictures and of the Tiled tileset image.
pub fn tile_colour(tile: Tile) -> Option<&'static str> {
    Some(match tile {
        Tile::Solid => return None,
        Tile::Floor | Tile::Corridor => TILE_FLOOR,
        t if t.is_wall() => "#5b5f6b",
        Tile::Door => "#e8a33d",
        Tile::SecretDoor => "#9b59b6",
        Tile::Arch => "#c8b79a",
        Tile::Fence | Tile::Grate => "#8a8f99",
        Tile::Window => "#9fd3f0",
        Tile::Pillar => "#3d4048",
        Tile::Lava => "#d8431f",
        Tile::Bridge => "#8b5a2b",
        Tile::StairsUp => "#4aa3df",
        Tile::StairsDown => "#2c6e9b",
        Tile::Lamp => "#f4cf4a",
        Tile::LockedDoor => "#c0392b",
        Tile::OneWayDoor => "#e67e22",
        Tile::HeavyDoor => "#7f4f24",
        Tile::WarpPad => "#1abc9c",
        _ => TILE_FLOOR,
    })
}

/// The fill colour of a room kind in level pictures.
pub fn kind_colour(kind: &crate::graph::RoomKind) -> &'static str {
    use crate::graph::RoomKind;
    match kind {
        RoomKind::Entrance => "#7fc97f",
        RoomKind::Exit => "#6fa8dc",
        RoomKind::Boss => "#e06666",
        RoomKind::Reward => "#f1c232",
        RoomKind::Shop => "#76d7c4",
        RoomKind::Secret => "#b4a7d6",
        RoomKind::Hub => "#d9d2c5",
        RoomKind::Connector => "#9e9e9e",
        RoomKind::Normal => "#c9bfae",
        RoomKind::Custom(_) => "#e6b8af",
    }
}

/// A picture of a level of any recipe: rooms filled by kind and labelled with their id and
/// kind, walls, doors (secret doors purple, windows light blue), corridors; locked doors ringed
/// in red with the lock's key and one-way doors crossed by a blue arrow into the room they lead
/// to (where the level has a layout that places them), keys and switches marked in the rooms
/// they lie in; a margin of two tiles round it all.
///
/// # Complexity
/// `O(W · H + rooms + links)`.
///
/// # Examples
/// ```
/// use levelplan::Recipe;
/// use levelplan::export::svg::level_to_svg;
/// use levelplan::recipes::isaac::IsaacRecipe;
/// let level = IsaacRecipe::new(2, Default::default()).generate(3)?;
/// let svg = level_to_svg(&level, 4);
/// assert!(svg.starts_with("<svg") && svg.contains("boss"));
/// # Ok::<(), levelplan::RecipeError>(())
/// ```
pub fn level_to_svg(level: &crate::Level, scale: u32) -> String {
    use crate::graph::{Item, Opener};
    let map = &level.tiles;
    let room_of = |region: usize| level.region_rooms.get(region).copied().flatten();
    let kinds: Vec<Option<crate::graph::RoomKind>> = (0..level.region_rooms.len())
        .map(|r| {
            room_of(r).map(|id| {
                level
                    .graph
                    .room(id)
                    .map(|x| x.kind.clone())
                    .unwrap_or(crate::graph::RoomKind::Normal)
            })
        })
        .collect();
    // Each region's label and the keys and switches listed under it (none for a region that
    // is no room).
    let texts: Vec<(String, Vec<String>)> = (0..level.region_rooms.len())
        .map(|r| {
            let Some(id) = room_of(r) else {
                return (String::new(), Vec::new());
            };
            let mut text = id.to_string();
            let mut items = Vec::new();
            if let Some(room) = level.graph.room(id) {
                if room.kind != crate::graph::RoomKind::Normal {
                    text.push(' ');
                    text.push_str(room.kind.name());
                }
                items = room
                    .items
                    .iter()
                    .filter_map(|it| match it {
                        Item::Key(k) => Some(format!("key {k}")),
                        Item::Switch(k) => Some(format!("switch {k}")),
                        Item::SmallKey(_) => Some("small key".into()),
                        Item::Task(k) => Some(format!("task {k}")),
                        _ => None,
                    })
                    .collect();
            }
            (text, items)
        })
        .collect();
    let s = f64::from(scale);
    let size = (1.1 * s).max(7.0);
    // Half a label's width in pixels: bold sans-serif runs about 0.6 of its size per character.
    let half_width = |text: &str| 0.3 * size * text.chars().count() as f64;
    // The box (in tiles, round the anchor) that a room's label and items cover.
    let extent = |(text, items): &(String, Vec<String>)| -> (f64, f64, f64, f64) {
        let half = half_width(text) / s;
        let widest = items.iter().map(|t| t.chars().count()).max().unwrap_or(0) as f64;
        let top = -LABEL_RAISE - 0.5 * size / s;
        if items.is_empty() {
            (half, top, half, -LABEL_RAISE + 0.5 * size / s)
        } else {
            // Key lines start at the diamond, 1.2 tiles left of the anchor (0.35 wide each
            // way), their text 0.6 left of it, 0.8 of a tile high, a line every 1.1 tiles.
            let below = 0.9 + 1.1 * (items.len() - 1) as f64 + 0.5;
            (half.max(1.55), top, half.max(-0.6 + 0.48 * widest), below)
        }
    };
    let anchors = place_labels(
        &label_candidates(map, level.region_rooms.len()),
        &texts.iter().map(extent).collect::<Vec<_>>(),
    );
    let labels: Vec<Label> = anchors
        .iter()
        .zip(&texts)
        .filter(|(_, (text, _))| !text.is_empty())
        .filter_map(|(a, (text, _))| {
            a.map(|(x, y)| Label {
                x,
                y: y - LABEL_RAISE,
                text: text.clone(),
            })
        })
        .collect();
    // Sector levels colour their sectors by script (the start, exit and secret rooms by kind).
    let scripts: Vec<Option<usize>> = match &level.detail {
        crate::LevelDetail::Sectors { sectors, .. } => (0..level.region_rooms.len())
            .map(|r| room_of(r).and_then(|id| sectors.get(id.0 as usize).and_then(|s| s.script)))
            .collect(),
        _ => Vec::new(),
    };
    let svg = tilemap_to_svg(
        map,
        scale,
        |r| {
            let kind = kinds.get(r as usize).and_then(|k| k.as_ref());
            if let (Some(crate::graph::RoomKind::Normal), Some(Some(script))) =
                (kind, scripts.get(r as usize))
            {
                return Some(SCRIPT_COLOURS[script % SCRIPT_COLOURS.len()].to_string());
            }
            kind.map(|k| kind_colour(k).to_string())
        },
        &[],
    );
    let width = map.tiles.width() as f64 * s;
    let mut extra = String::new();
    for l in &labels {
        // The whole label stays in the picture; a light halo keeps it readable where it
        // crosses a wall.
        let half = half_width(&l.text);
        let x = if 2.0 * half >= width {
            width / 2.0
        } else {
            (l.x * s).clamp(half, width - half)
        };
        let _ = writeln!(
            extra,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"{:.1}\" font-weight=\"bold\" text-anchor=\"middle\" dominant-baseline=\"middle\" fill=\"#1b1b1b\" stroke-width=\"{:.1}\" {HALO}>{}</text>",
            x,
            l.y * s,
            size,
            0.25 * size,
            escape(&l.text)
        );
    }
    // Locks: a red ring on each locked door the layout places, with its key's name.
    let placed_links = level.layout.as_ref().map_or(&[][..], |l| &l.links[..]);
    for (l, placed) in placed_links.iter().enumerate() {
        let Some(link) = level
            .layout_links()
            .get(l)
            .and_then(|&id| level.graph.link(id))
        else {
            continue;
        };
        let Some(lock) = link.lock else { continue };
        let opener = match lock.opener {
            Opener::Key => format!("{}", lock.by),
            Opener::Switch => format!("switch {}", lock.by),
            Opener::Task => format!("task {}", lock.by),
            Opener::SmallKey => "small key".to_string(),
        };
        let d = placed.door_from;
        let (ox, oy) = level.tile_origin;
        let cx = (f64::from(d.a.x + d.b.x) / 2.0 - f64::from(ox)) * s;
        let cy = (f64::from(oy + 1) - f64::from(d.a.y + d.b.y) / 2.0) * s;
        let _ = writeln!(
            extra,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"#ff2020\" stroke-width=\"{:.1}\"/>\
             <text x=\"{cx:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" fill=\"#ff4040\" font-family=\"sans-serif\" text-anchor=\"middle\">{}</text>",
            1.4 * s,
            0.3 * s,
            cy - 1.6 * s,
            0.9 * s,
            escape(&opener)
        );
    }
    // Keys and switches: a gold diamond with the key's name, under the room's label.
    for (anchor, (_, items)) in anchors.iter().zip(&texts) {
        let Some((ax, ay)) = *anchor else { continue };
        for (j, text) in items.iter().enumerate() {
            let cx = ax * s;
            let cy = (ay + 0.9 + j as f64 * 1.1) * s;
            let r = 0.35 * s;
            let _ = writeln!(
                extra,
                "<path d=\"M{:.1} {:.1} l{r:.1} {r:.1} l-{r:.1} {r:.1} l-{r:.1} -{r:.1} z\" fill=\"#ffd700\" stroke=\"#7a5c00\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" fill=\"#3a2a00\" font-family=\"sans-serif\" stroke-width=\"{:.1}\" {HALO}>{}</text>",
                cx - 1.2 * s,
                cy - r,
                cx - 0.6 * s,
                cy + 0.3 * s,
                0.8 * s,
                0.2 * s,
                escape(text)
            );
        }
    }
    sector_marks(level, s, &mut extra);
    // One-way doors: an arrow through the door, pointing into the room it leads to.
    let centroids = region_centroids(map, level.region_rooms.len());
    for (l, placed) in placed_links.iter().enumerate() {
        let Some(&id) = level.layout_links().get(l) else {
            continue;
        };
        let (Some(link), Some((_, to))) = (level.graph.link(id), level.graph.endpoints(id)) else {
            continue;
        };
        if link.kind != crate::graph::LinkKind::OneWay {
            continue;
        }
        let Some(target) = level
            .region_rooms
            .iter()
            .position(|&r| r == Some(to))
            .and_then(|r| centroids[r])
        else {
            continue;
        };
        let d = placed.door_to;
        let (ox, oy) = level.tile_origin;
        let cx = f64::from(d.a.x + d.b.x) / 2.0 - f64::from(ox);
        let cy = f64::from(oy + 1) - f64::from(d.a.y + d.b.y) / 2.0;
        // The door runs along one axis; the arrow crosses it towards the far room.
        let (dx, dy) = if d.a.x == d.b.x {
            ((target.0 - cx).signum(), 0.0)
        } else {
            (0.0, (target.1 - cy).signum())
        };
        let (len, half) = (1.3, 0.7);
        let tip = (cx + dx * len, cy + dy * len);
        let back = (cx - dx * len, cy - dy * len);
        let (px, py) = (-dy * half, dx * half);
        let _ = writeln!(
            extra,
            "<path d=\"M{:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z\" fill=\"#2f6fd6\" stroke=\"#f2efe8\" stroke-width=\"{:.1}\"/>",
            tip.0 * s,
            tip.1 * s,
            (back.0 + px) * s,
            (back.1 + py) * s,
            (back.0 - px) * s,
            (back.1 - py) * s,
            0.15 * s
        );
    }
    with_margin(&svg, &extra, 2.0 * s)
}

/// Fills for the sectors of a sector level's scripts, by script number (round again after
/// the last).
pub const SCRIPT_COLOURS: [&str; 8] = [
    "#c9bfae", "#e7c9a0", "#c7d9a7", "#a9d1c9", "#c6b7d9", "#e3b5b5", "#d9d29a", "#b5c7e3",
];

/// A sector level's marks: heavy doors framed in black, each locked connection's first door
/// named by its opener in red, and a dot on each item's tile (gold for openers, red for the
/// exit switch) and on the start tile (green).
fn sector_marks(level: &crate::Level, s: f64, extra: &mut String) {
    use crate::graph::{Item, Opener};
    let crate::LevelDetail::Sectors { connections, .. } = &level.detail else {
        return;
    };
    let items = &level.items;
    for c in connections {
        let lock = level.graph.link(c.link).and_then(|l| l.lock);
        for (i, o) in c.openings.iter().enumerate() {
            let xs = o.cells.iter().flat_map(|&(a, b)| [a.0, b.0]);
            let ys = o.cells.iter().flat_map(|&(a, b)| [a.1, b.1]);
            let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0) + 1);
            let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0) + 1);
            if o.heavy() {
                let _ = writeln!(
                    extra,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#1b1b1b\" stroke-width=\"{:.1}\"/>",
                    x0 as f64 * s,
                    y0 as f64 * s,
                    (x1 - x0) as f64 * s,
                    (y1 - y0) as f64 * s,
                    0.25 * s
                );
            }
            if let (0, Some(lock)) = (i, lock) {
                let name = match lock.opener {
                    Opener::Key => format!("key {}", lock.by),
                    Opener::Task => format!("task {}", lock.by),
                    _ => format!("switch {}", lock.by),
                };
                let _ = writeln!(
                    extra,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" fill=\"#c00000\" font-family=\"sans-serif\" font-weight=\"bold\" text-anchor=\"middle\" stroke-width=\"{:.1}\" {HALO}>{}</text>",
                    (x0 + x1) as f64 / 2.0 * s,
                    y0 as f64 * s - 0.3 * s,
                    0.9 * s,
                    0.2 * s,
                    escape(&name)
                );
            }
        }
    }
    let dot = |extra: &mut String, (x, y): (usize, usize), fill: &str| {
        let _ = writeln!(
            extra,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"#1b1b1b\" stroke-width=\"{:.1}\"/>",
            (x as f64 + 0.5) * s,
            (y as f64 + 0.5) * s,
            0.45 * s,
            0.1 * s
        );
    };
    for placed in items {
        let fill = match placed.item {
            Item::Named(_) => "#e03030",
            _ => "#ffd700",
        };
        dot(extra, placed.at, fill);
    }
    if let Some(stairs) = level.stairs {
        dot(extra, stairs.up, "#30c030");
    }
}

/// The mean tile of each region's floor, in tiles (the middle of the tile).
fn region_centroids(map: &TileMap, regions: usize) -> Vec<Option<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0, 0usize); regions];
    for ((x, y), region) in map.regions.iter() {
        if let Some(sum) = region.and_then(|r| sums.get_mut(r as usize)) {
            sum.0 += x as f64 + 0.5;
            sum.1 += y as f64 + 0.5;
            sum.2 += 1;
        }
    }
    sums.into_iter()
        .map(|(x, y, n)| (n > 0).then(|| (x / n as f64, y / n as f64)))
        .collect()
}

/// `svg` (as [`tilemap_to_svg`] draws it) with `extra` drawn over it, and a margin of `margin`
/// pixels round the picture, so nothing touches its edge.
fn with_margin(svg: &str, extra: &str, margin: f64) -> String {
    // The header and the background are the first two lines; the rest is the picture.
    let mut lines = svg.splitn(3, '\n');
    let (Some(_), Some(_), Some(rest)) = (lines.next(), lines.next(), lines.next()) else {
        return svg.to_string();
    };
    let body = rest.strip_suffix("</svg>\n").unwrap_or(rest);
    let size = |attr: &str| -> f64 {
        svg.split(&format!(" {attr}=\""))
            .nth(1)
            .and_then(|t| t.split('"').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or(0.0)
    };
    let (w, h) = (size("width") + 2.0 * margin, size("height") + 2.0 * margin);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#22252b\"/>\n\
         <g transform=\"translate({margin} {margin})\">\n{body}{extra}</g>\n</svg>\n"
    )
}

/// The light outline drawn under label text (before its fill), with its width given apart.
const HALO: &str =
    "stroke=\"#f2efe8\" stroke-opacity=\"0.8\" paint-order=\"stroke\" stroke-linejoin=\"round\"";

/// How far (in tiles) a room's label sits above its anchor, to leave room for key lines below.
const LABEL_RAISE: f64 = 0.4;

/// Candidate tiles to carry each room's label, past which a label is not moved.
const LABEL_CANDIDATES: usize = 48;

/// Labels placed one room after another, rooms with the fewest candidates (the narrowest)
/// first: each at the first of its room's candidates where its box overlaps no label placed
/// before, or at its first candidate if every one does. A box runs from `x - left` to
/// `x + right` and from `y + top` to `y + bottom` round an anchor `(x, y)`, in tiles, with
/// `(left, top, right, bottom)` from `extents`.
fn place_labels(
    candidates: &[Vec<(f64, f64)>],
    extents: &[(f64, f64, f64, f64)],
) -> Vec<Option<(f64, f64)>> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| (candidates[i].len(), i));
    let mut boxes: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut placed = vec![None; candidates.len()];
    for i in order {
        let (l, t, r, b) = extents[i];
        let at = |&(x, y): &(f64, f64)| (x - l, y + t, x + r, y + b);
        let free = |c: &(f64, f64)| {
            let (x0, y0, x1, y1) = at(c);
            boxes
                .iter()
                .all(|&(a0, b0, a1, b1)| x1 <= a0 || a1 <= x0 || y1 <= b0 || b1 <= y0)
        };
        let list = &candidates[i];
        placed[i] = list.iter().find(|c| free(c)).or(list.first()).copied();
        if let Some(c) = placed[i] {
            boxes.push(at(&c));
        }
    }
    placed
}

/// Where each of `rooms` regions may carry its label, best first, in tile coordinates (a
/// tile's middle): the region's floor tiles by how far (in steps) they lie from any tile that
/// is not its floor, deepest first, so that labels sit on the floor even in L-, T- and U-shaped
/// rooms; of equally deep tiles, the nearest the mean of the region's floor tiles first, then
/// row order. At most [`LABEL_CANDIDATES`] per region; none for a region with no floor.
fn label_candidates(map: &TileMap, rooms: usize) -> Vec<Vec<(f64, f64)>> {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    // The room whose floor each tile is, if any.
    let owner: Vec<Option<u32>> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as i64, (i / w) as i64);
            match (map.tiles.get(x, y), map.regions.get(x, y)) {
                (Some(Tile::Floor), Some(&Some(r))) if (r as usize) < rooms => Some(r),
                _ => None,
            }
        })
        .collect();
    let room_at = |x: usize, y: usize| owner[y * w + x];
    // Steps to the nearest tile outside the tile's own floor: two passes of a city-block
    // distance transform; the map's edge counts as outside.
    let mut depth = vec![0u32; w * h];
    // One step more than a neighbour of the same floor; 1 next to anything else.
    let through = |r: u32, nx: usize, ny: usize, d: &[u32]| {
        if room_at(nx, ny) == Some(r) {
            d[ny * w + nx] + 1
        } else {
            1
        }
    };
    for y in 0..h {
        for x in 0..w {
            if let Some(r) = room_at(x, y) {
                depth[y * w + x] = if x > 0 && y > 0 {
                    through(r, x - 1, y, &depth).min(through(r, x, y - 1, &depth))
                } else {
                    1
                };
            }
        }
    }
    for y in (0..h).rev() {
        for x in (0..w).rev() {
            if let Some(r) = room_at(x, y) {
                depth[y * w + x] = if x + 1 < w && y + 1 < h {
                    depth[y * w + x]
                        .min(through(r, x + 1, y, &depth))
                        .min(through(r, x, y + 1, &depth))
                } else {
                    1
                };
            }
        }
    }
    let mut sums = vec![(0.0f64, 0.0f64, 0u32); rooms];
    for y in 0..h {
        for x in 0..w {
            if let Some(r) = room_at(x, y) {
                let s = &mut sums[r as usize];
                s.0 += x as f64 + 0.5;
                s.1 += y as f64 + 0.5;
                s.2 += 1;
            }
        }
    }
    // Per region: (deeper first, nearer the mean first, row order) for each floor tile.
    type Rank = (
        std::cmp::Reverse<u32>,
        ordered_float::OrderedFloat<f64>,
        usize,
    );
    let mut tiles: Vec<Vec<Rank>> = vec![Vec::new(); rooms];
    for y in 0..h {
        for x in 0..w {
            let Some(r) = room_at(x, y) else { continue };
            let (sx, sy, n) = sums[r as usize];
            let (mx, my) = (sx / f64::from(n), sy / f64::from(n));
            let off = (x as f64 + 0.5 - mx).powi(2) + (y as f64 + 0.5 - my).powi(2);
            tiles[r as usize].push((
                std::cmp::Reverse(depth[y * w + x]),
                ordered_float::OrderedFloat(off),
                y * w + x,
            ));
        }
    }
    tiles
        .into_iter()
        .map(|mut list| {
            list.sort_unstable();
            list.iter()
                .take(LABEL_CANDIDATES)
                .map(|&(_, _, i)| ((i % w) as f64 + 0.5, (i / w) as f64 + 0.5))
                .collect()
        })
        .collect()
}

/// A picture of where a failed layout got stuck ([`crate::layout::Planner::deepest`]): each
/// placed room as its outline, grey, labelled with its name; the rooms the stuck room links to
/// in red; corridors as dark cells; below, the layout's
/// [`caption`](crate::layout::PartialLayout::caption). North is up; `scale` pixels per cell.
///
/// # Complexity
/// `O(rooms · outline + corridor cells)`.
///
/// # Examples
/// ```
/// use levelplan::layout::{PartialLayout, PlacedRoom, Point, Transform};
/// let room = |name: &str, x: i32| PlacedRoom {
///     name: name.into(),
///     template: 0,
///     template_name: "square".into(),
///     transform: Transform::Identity,
///     position: Point::new(x, 0),
///     min: Point::new(x, 0),
///     outline: vec![
///         Point::new(x, 0),
///         Point::new(x, 6),
///         Point::new(x + 6, 6),
///         Point::new(x + 6, 0),
///     ],
///     corridor: false,
/// };
/// let stuck = PartialLayout {
///     rooms: vec![Some(room("hub", 0)), Some(room("east", 6)), None],
///     corridors: Vec::new(),
///     stuck: "west".into(),
///     stuck_next_to: vec!["hub".into()],
/// };
/// let svg = levelplan::export::svg::partial_layout_to_svg(&stuck, 10);
/// assert!(svg.starts_with("<svg") && svg.contains(">hub</text>"));
/// assert!(svg.contains("`west` does not fit next to `hub`"));
/// // A whole layout (no room stuck) is captioned with its count alone.
/// let whole = PartialLayout {
///     rooms: vec![Some(room("hub", 0)), Some(room("east", 6))],
///     corridors: Vec::new(),
///     stuck: String::new(),
///     stuck_next_to: Vec::new(),
/// };
/// let svg = levelplan::export::svg::partial_layout_to_svg(&whole, 10);
/// assert!(svg.contains("2 of 2 rooms placed<") && !svg.contains("does not fit"));
/// ```
pub fn partial_layout_to_svg(partial: &crate::layout::PartialLayout, scale: u32) -> String {
    let s = f64::from(scale.max(1));
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    let points = partial
        .rooms
        .iter()
        .flatten()
        .flat_map(|r| r.outline.iter().copied())
        .chain(partial.corridors.iter().flat_map(|(_, cells)| {
            cells
                .iter()
                .flat_map(|&c| [c, crate::layout::Point::new(c.x + 1, c.y + 1)])
        }));
    for p in points {
        (x0, y0) = (x0.min(p.x), y0.min(p.y));
        (x1, y1) = (x1.max(p.x), y1.max(p.y));
    }
    if x0 > x1 {
        (x0, y0, x1, y1) = (0, 0, 1, 1);
    }
    let words = partial.caption();
    let font = (1.2 * s).max(8.0);
    let caption = 3.0 * s;
    let h = f64::from(y1 - y0 + 2) * s;
    // Wide enough for the caption too (about 0.6 em a character).
    let w = (f64::from(x1 - x0 + 2) * s).max(words.chars().count() as f64 * 0.6 * font + s);
    // Level cell corner (x, y) to picture coordinates: north up, a cell of margin.
    let px = |x: i32| f64::from(x - x0 + 1) * s;
    let py = |y: i32| f64::from(y1 + 1 - y) * s;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{:.0}\" viewBox=\"0 0 {w:.1} {:.1}\">",
        h + caption,
        h + caption
    );
    let _ = writeln!(
        out,
        "<rect width=\"{w:.1}\" height=\"{:.1}\" fill=\"#f7f5ef\"/>",
        h + caption
    );
    for (_, cells) in &partial.corridors {
        for c in cells {
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{s:.1}\" height=\"{s:.1}\" fill=\"#555555\"/>",
                px(c.x),
                py(c.y + 1)
            );
        }
    }
    for room in partial.rooms.iter().flatten() {
        let near = partial.stuck_next_to.contains(&room.name);
        let points: Vec<String> = room
            .outline
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.x), py(p.y)))
            .collect();
        let _ = writeln!(
            out,
            "<polygon points=\"{}\" fill=\"{}\" stroke=\"#333333\" stroke-width=\"{:.1}\"/>",
            points.join(" "),
            if near { "#f08080" } else { "#d9d4c7" },
            (0.15 * s).max(1.0)
        );
        let n = room.outline.len().max(1) as f64;
        let cx = room.outline.iter().map(|p| px(p.x)).sum::<f64>() / n;
        let cy = room.outline.iter().map(|p| py(p.y)).sum::<f64>() / n;
        let _ = writeln!(
            out,
            "<text x=\"{cx:.1}\" y=\"{cy:.1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"{:.1}\" text-anchor=\"middle\" dominant-baseline=\"middle\" fill=\"#1b1b1b\">{}</text>",
            (1.1 * s).max(7.0),
            escape(&room.name)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"{font:.1}\" fill=\"#b00000\">{}</text>",
        0.5 * s,
        h + 2.0 * s,
        escape(&words)
    );
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws `rows` as a map: `.` floor of region 0, `,` floor of region 1, `#` wall.
    fn map(rows: &[&str]) -> TileMap {
        let mut m = TileMap::new(rows[0].len(), rows.len());
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let (tile, region) = match c {
                    '.' => (Tile::Floor, Some(0)),
                    ',' => (Tile::Floor, Some(1)),
                    _ => (Tile::Wall, None),
                };
                m.put(x as i64, y as i64, tile, region);
            }
        }
        m
    }

    #[test]
    fn labels_sit_on_the_floor_of_their_room() {
        // A U-shaped room (its mean lies in the gap between the arms) beside a small room.
        let m = map(&[
            "###########",
            "#...#...#,#",
            "#...#...#,#",
            "#...#...#,#",
            "#.......#,#",
            "#.......#,#",
            "###########",
        ]);
        let candidates = label_candidates(&m, 3);
        let anchors: Vec<Option<(f64, f64)>> =
            candidates.iter().map(|c| c.first().copied()).collect();
        let (x, y) = anchors[0].expect("region 0 has floor");
        let (x, y) = (x.floor() as i64, y.floor() as i64);
        assert_eq!(m.tiles.get(x, y), Some(&Tile::Floor));
        assert_eq!(m.regions.get(x, y), Some(&Some(0)));
        // The deepest tiles are two steps in (down the arms' middles and along the bottom
        // bar); of those, the one nearest the mean is in the bottom bar, next to the gap.
        assert_eq!((x, y), (3, 4));
        let (x, y) = anchors[1].expect("region 1 has floor");
        assert_eq!((x, y), (9.5, 3.5), "the middle of the one-tile-wide room");
        assert_eq!(anchors[2], None, "a region with no floor has no label");
    }

    #[test]
    fn labels_make_way_for_each_other() {
        let wide = (2.0, -0.5, 2.0, 0.5);
        // The second room's best place is under the first label: it takes its next one.
        let placed = place_labels(
            &[vec![(5.5, 5.5)], vec![(6.5, 5.5), (6.5, 7.5)]],
            &[wide, wide],
        );
        assert_eq!(placed, vec![Some((5.5, 5.5)), Some((6.5, 7.5))]);
        // With nowhere free it keeps its best; a room without candidates gets no label.
        let placed = place_labels(&[vec![(5.5, 5.5)], vec![(6.5, 5.5)], vec![]], &[wide; 3]);
        assert_eq!(placed, vec![Some((5.5, 5.5)), Some((6.5, 5.5)), None]);
    }
}
