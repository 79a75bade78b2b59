//! The four stages of Diablo's dungeons (`shared/spec/diablo.md`): each first carves a
//! passability blank, then turns it into tiles and stamps mini-sets, and takes a set piece
//! (see [`SetPiecePlacement`]). The budding, dividing walls, stairs and set-piece placement
//! they share live here.
//!
//! Bit-exact compatibility with the game is not a goal; the techniques, constants and
//! guarantees are.

pub mod catacombs;
pub mod cathedral;
pub mod caves;
pub mod hell;

use std::sync::OnceLock;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::seed;
use crate::tiles::Grid;
use crate::tiles::fix::FixRules;
use crate::tiles::miniset::{Miniset, MinisetSpec};
use crate::tiles::regions::fully_connected;
use crate::tiles::setpiece::SetPiece;
use crate::tiles::variants::Substitution;

/// Why a stage could not make a level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StageError {
    /// No level passed every check within the stage's attempt budget.
    #[error(
        "no {stage} level in {attempts} attempt{}: the last failed because {reason}",
        if *attempts == 1 { "" } else { "s" }
    )]
    NoLevel {
        /// The stage.
        stage: &'static str,
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        reason: String,
    },
    /// The set piece cannot go into this stage (too big for the room it goes in).
    #[error("the set piece `{piece}` cannot go into the {stage}: {reason}")]
    SetPiece {
        /// The stage.
        stage: &'static str,
        /// The set piece's name.
        piece: String,
        /// Why not.
        reason: String,
    },
}

/// A tile position `(x, y)`.
pub type TilePos = (usize, usize);

/// A rectangle `(x, y, w, h)` on a blank.
pub(crate) type Rect = (i64, i64, i64, i64);

use crate::graph::{LevelGraph, RoomId, RoomKind};
use crate::recipes::regions_to_graph;
use crate::tiles::regions::{contacts, find_regions};
use crate::tiles::{Tile, TileMap};

/// A generated stage level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    /// The dungeon level (1 to 16).
    pub level: u32,
    /// The seed it came from.
    pub seed: u64,
    /// The passability blank the tiles were made from (`true`: carved).
    pub blank: Grid<bool>,
    /// The tiles; each walkable tile's region is its room in `graph`.
    pub tiles: TileMap,
    /// The rooms (regions split by doors and arches) and their doors; the region holding the
    /// stairs up is the entrance, the one holding the stairs down the exit (unless both stairs
    /// are in one room).
    pub graph: LevelGraph,
    /// The room of the stairs up.
    pub start: RoomId,
    /// The room of the stairs down (may be `start` in a level that is one big room).
    pub goal: RoomId,
    /// Where the stairs up are (tile coordinates of their centre).
    pub stairs_up: TilePos,
    /// Where the stairs down are.
    pub stairs_down: TilePos,
    /// Blanks generated before one passed every check.
    pub attempts: u32,
    /// The set piece stamped into it, if any.
    #[serde(default)]
    pub set_piece: Option<crate::level::SetPieceRecord>,
    /// The tiles of each link's doorways (door and arch tiles), in link order.
    #[serde(default)]
    pub doors: Vec<Vec<TilePos>>,
}

/// Tiles that make up rooms (doors and arches join them).
pub(crate) fn room_tile(t: Tile) -> bool {
    t.walkable() && !matches!(t, Tile::Door | Tile::SecretDoor | Tile::Arch)
}

/// The last passes of every stage: the edge fixes (plain walls into vertical, horizontal and
/// corner walls, `fixtures/tiles/fixes.ron`; they only pick how a wall looks, so they reach
/// protected walls too, though not a set piece's), then the stage's tile substitution (`fixtures/tiles/variants.ron`,
/// protected tiles left plain). Returns the variants.
pub(crate) fn polish<R: Rng + ?Sized>(
    tiles: &mut Grid<Tile>,
    protected: &Grid<bool>,
    rng: &mut R,
    stage: &str,
    piece: &SetPiecePlacement<'_>,
) -> Grid<u8> {
    // The set piece's tiles stay as drawn.
    FixRules::builtin("edges")
        .expect("the built-in fixes have `edges`")
        .apply(tiles, &piece.mask);
    let mut variants = Grid::new(tiles.width(), tiles.height(), 0);
    if let Some(sub) = Substitution::builtin(stage) {
        sub.apply(tiles, &mut variants, protected, rng);
    }
    variants
}

/// A built-in mini-set of `fixtures/tiles/minisets.ron`, by name.
pub(crate) fn miniset(name: &str) -> Miniset {
    static SETS: OnceLock<Vec<Miniset>> = OnceLock::new();
    SETS.get_or_init(|| {
        Miniset::list_from_ron(
            include_str!("../../../fixtures/tiles/minisets.ron"),
            "minisets.ron",
        )
        .expect("the built-in mini-sets are valid")
    })
    .iter()
    .find(|m| m.name == name)
    .cloned()
    .expect("a built-in mini-set")
}

/// The end of every stage: [`polish`] (with the stage's substitution), then regions, their
/// graph, and the tile map with regions set; kinds from the stairs.
#[allow(clippy::too_many_arguments)]
fn finish_stage<R: Rng + ?Sized>(
    stage: &str,
    level: u32,
    seed: u64,
    attempts: u32,
    blank: Grid<bool>,
    mut tiles: Grid<Tile>,
    protected: &Grid<bool>,
    rng: &mut R,
    (stairs_up, stairs_down): (TilePos, TilePos),
    piece: &SetPiecePlacement<'_>,
) -> Stage {
    let mut variants = polish(&mut tiles, protected, rng, stage, piece);
    let set_piece = piece.record();
    let connector = |t: Tile| matches!(t, Tile::Door | Tile::Arch);
    let mut regions = find_regions(&tiles, room_tile);
    // A doorway is a door between two rooms. One that opens onto three or more is no door:
    // its tiles become floor, joining those rooms into one. One with a single room on both
    // sides (the arches of a pillared hall, a door from a room into itself) is an archway of
    // that room: its tiles join the room's region, and a door tile there becomes an arch.
    let mut merged = false;
    for ((x, y), around) in doorway_sides(&tiles, &regions, connector) {
        if around.len() >= 3 {
            tiles.set(x as i64, y as i64, Tile::Floor);
            variants.set(x as i64, y as i64, 0);
            merged = true;
        }
    }
    if merged {
        regions = find_regions(&tiles, room_tile);
    }
    let inner: Vec<((usize, usize), u32)> = doorway_sides(&tiles, &regions, connector)
        .into_iter()
        .filter_map(|(p, around)| (around.len() == 1).then(|| (p, around[0])))
        .collect();
    for &((x, y), r) in &inner {
        if tiles.get(x as i64, y as i64) != Some(&Tile::Arch) {
            tiles.set(x as i64, y as i64, Tile::Arch);
            variants.set(x as i64, y as i64, 0);
        }
        regions.labels.set(x as i64, y as i64, Some(r));
        regions.sizes[r as usize] += 1;
    }
    let links = contacts(&tiles, &regions, connector);
    // Link `i` of the graph is contact `i`.
    let doors: Vec<Vec<TilePos>> = links.iter().map(|c| c.cells.clone()).collect();
    let mut graph = regions_to_graph(&regions, &links);
    let mut map = TileMap::new(tiles.width(), tiles.height());
    for ((x, y), &t) in tiles.iter() {
        let region = *regions.labels.get(x as i64, y as i64).expect("inside");
        map.put(x as i64, y as i64, t, region);
    }
    map.variants = variants;
    let room_at = |(x, y): TilePos| {
        RoomId(
            regions
                .labels
                .get(x as i64, y as i64)
                .copied()
                .flatten()
                .unwrap_or(0),
        )
    };
    let (start, goal) = (room_at(stairs_up), room_at(stairs_down));
    for (r, kind) in [(goal, RoomKind::Exit), (start, RoomKind::Entrance)] {
        if let Some(room) = graph.room_mut(r) {
            room.kind = kind;
        }
    }
    Stage {
        level,
        seed,
        blank,
        tiles: map,
        graph,
        start,
        goal,
        stairs_up,
        stairs_down,
        attempts,
        set_piece,
        doors,
    }
}

/// Each tile `connector` accepts, with the regions its run of connector tiles (4-connected)
/// opens onto.
fn doorway_sides(
    tiles: &Grid<Tile>,
    regions: &crate::tiles::regions::Regions,
    connector: impl Fn(Tile) -> bool,
) -> Vec<((usize, usize), Vec<u32>)> {
    let runs = find_regions(tiles, connector);
    let mut around: Vec<Vec<u32>> = vec![Vec::new(); runs.sizes.len()];
    for ((x, y), run) in runs.labels.iter() {
        let Some(run) = run else { continue };
        for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
            if let Some(Some(r)) = regions.labels.get(x as i64 + dx, y as i64 + dy)
                && !around[*run as usize].contains(r)
            {
                around[*run as usize].push(*r);
            }
        }
    }
    runs.labels
        .iter()
        .filter_map(|(p, run)| run.map(|run| (p, around[run as usize].clone())))
        .collect()
}

/// The stairs up and down as 3 x 3 mini-sets on open floor (protected once placed), the stairs
/// down in another room than the stairs up, then the lockout check. Returns the two stairs'
/// centres, or why the level must be generated again.
pub(crate) fn place_stairs<R: Rng + ?Sized>(
    tiles: &mut Grid<Tile>,
    protected: &mut Grid<bool>,
    rng: &mut R,
    piece: &SetPiecePlacement<'_>,
) -> Result<(TilePos, TilePos), String> {
    let (given_up, given_down) = piece.stairs();
    let stairs = |name: &str, tile: char| -> Miniset {
        let spec = MinisetSpec {
            name: name.into(),
            search: vec!["...".into(); 3],
            replace: vec!["???".into(), format!("?{tile}?"), "???".into()],
            protect: true,
        };
        Miniset::new(&spec, "diablo").expect("a valid built-in mini-set")
    };
    let total = tiles.width() * tiles.height();
    // Stairs the set piece brings stand where it put them; the mini-sets' stairs are the
    // middle of the 3 x 3 they place (one right and down of its corner).
    let centre = |(x, y): TilePos| (x + 1, y + 1);
    let up = match given_up {
        Some(p) => p,
        None => centre(
            stairs("stairs up", '<')
                .place_once(tiles, protected, rng, total)
                .ok_or("the stairs up found no 3 x 3 floor")?,
        ),
    };
    // The stairs down go to another room than the stairs up: the up room is shielded.
    let rooms = find_regions(tiles, room_tile);
    let up_room = *rooms.labels.get(up.0 as i64, up.1 as i64).expect("inside");
    let mut shielded = protected.clone();
    for ((x, y), label) in rooms.labels.iter() {
        if label.is_some() && *label == up_room {
            shielded.set(x as i64, y as i64, true);
        }
    }
    // (A level that is one big room, as caves can be, takes them in the same room.)
    let down_stairs = stairs("stairs down", '>');
    let down = match given_down {
        Some(p) => p,
        None => centre(
            match down_stairs.place_once(tiles, &mut shielded, rng, total) {
                Some(p) => {
                    down_stairs.stamp(tiles, protected, p.0, p.1);
                    p
                }
                None => down_stairs
                    .place_once(tiles, protected, rng, total)
                    .ok_or("the stairs down found no 3 x 3 floor")?,
            },
        ),
    };
    // The lockout check: every walkable tile must be reachable.
    if !fully_connected(tiles, Tile::walkable) {
        return Err("the level fell apart into unconnected parts".into());
    }
    Ok((up, down))
}

/// Where a stage's set piece went: its cells (`mask`, kept as drawn by every later pass) and
/// its top-left tile. Each stage places it its own way: the Cathedral in the middle of one of
/// its chambers, the Catacombs in its first room (made to the piece's size), the Caves and
/// Hell at a free spot (all floor, unprotected) where the level stays in one piece.
#[derive(Debug, Clone)]
pub struct SetPiecePlacement<'a> {
    piece: Option<&'a SetPiece>,
    mask: Grid<bool>,
    at: Option<TilePos>,
}

impl<'a> SetPiecePlacement<'a> {
    pub(crate) fn new(piece: Option<&'a SetPiece>, width: usize, height: usize) -> Self {
        SetPiecePlacement {
            piece,
            mask: Grid::new(width, height, false),
            at: None,
        }
    }

    /// The set piece's size, if there is one.
    pub(crate) fn size(&self) -> Option<(usize, usize)> {
        self.piece.map(|p| (p.width(), p.height()))
    }

    /// Stamps the piece with its top-left cell at `(x, y)`.
    pub(crate) fn stamp(
        &mut self,
        tiles: &mut Grid<Tile>,
        protected: &mut Grid<bool>,
        (x, y): TilePos,
    ) {
        if let Some(p) = self.piece {
            p.stamp(tiles, protected, &mut self.mask, x, y);
            self.at = Some((x, y));
        }
    }

    /// Puts the piece at a free spot: every cell it sets on unprotected floor, and the
    /// walkable tiles still in one piece afterwards; spots tried in random order, at most 64.
    /// Nothing to do without a piece.
    pub(crate) fn place_free<R: Rng + ?Sized>(
        &mut self,
        tiles: &mut Grid<Tile>,
        protected: &mut Grid<bool>,
        rng: &mut R,
    ) -> Result<(), String> {
        let Some(piece) = self.piece else {
            return Ok(());
        };
        let mut spots: Vec<TilePos> = (0..tiles.height())
            .flat_map(|y| (0..tiles.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| piece.fits(tiles, protected, x, y, |t| t == Tile::Floor))
            .collect();
        seed::shuffle(rng, &mut spots);
        for &spot in spots.iter().take(64) {
            let mut trial = tiles.clone();
            let mut mask = Grid::new(tiles.width(), tiles.height(), false);
            let mut shield = protected.clone();
            piece.stamp(&mut trial, &mut shield, &mut mask, spot.0, spot.1);
            if fully_connected(&trial, Tile::walkable) {
                *tiles = trial;
                *protected = shield;
                self.mask = mask;
                self.at = Some(spot);
                return Ok(());
            }
        }
        Err(format!(
            "the set piece `{}` found no free spot that keeps the level in one piece ({} spots of floor)",
            piece.name,
            spots.len()
        ))
    }

    /// Whether `(x, y)` is one of the piece's cells.
    pub(crate) fn covers(&self, x: i64, y: i64) -> bool {
        self.mask.get(x, y) == Some(&true)
    }

    /// The stairs the piece brings, in level tiles.
    fn stairs(&self) -> (Option<TilePos>, Option<TilePos>) {
        let (Some(p), Some((x, y))) = (self.piece, self.at) else {
            return (None, None);
        };
        let place = |s: Option<TilePos>| s.map(|(sx, sy)| (x + sx, y + sy));
        (place(p.stairs_up()), place(p.stairs_down()))
    }

    /// What the level records of it.
    pub(crate) fn record(&self) -> Option<crate::level::SetPieceRecord> {
        let (p, at) = (self.piece?, self.at?);
        Some(crate::level::SetPieceRecord {
            name: p.name.clone(),
            at,
            size: (p.width(), p.height()),
        })
    }
}

/// Reads a set piece file: RON (`.ron`, see [`crate::tiles::setpiece`]) or a Tiled map drawn
/// with levelplan's tileset (`.tmj`, `.tmx`; see [`crate::layout::tiled::set_piece_from_tmj`]).
///
/// # Examples
/// ```
/// use levelplan::recipes::diablo::load_set_piece;
/// let piece = load_set_piece(std::path::Path::new("fixtures/setpieces/cathedral_shrine.ron"))?;
/// assert!(piece.width() <= 10 && piece.height() <= 10);
/// # Ok::<(), String>(())
/// ```
pub fn load_set_piece(path: &std::path::Path) -> Result<SetPiece, String> {
    let file = path.display().to_string();
    let text = crate::read_text_file(path)
        .map_err(|e| format!("set piece {file}: cannot read it: {e}"))?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("tmj") | Some("json") => {
            crate::layout::tiled::set_piece_from_tmj(&text, &file).map_err(|e| e.to_string())
        }
        Some("tmx") => {
            crate::layout::tiled::set_piece_from_tmx(&text, &file).map_err(|e| e.to_string())
        }
        _ => SetPiece::from_ron(&text, &file).map_err(|e| e.to_string()),
    }
}

/// Sets every cell of the rectangle.
pub(crate) fn fill(blank: &mut Grid<bool>, (x, y, w, h): Rect) {
    for py in y..y + h {
        for px in x..x + w {
            blank.set(px, py, true);
        }
    }
}

/// Whether the rectangle lies inside the blank (no lower than `min` on either axis) and
/// holds no room cell.
fn clear(blank: &Grid<bool>, (x, y, w, h): Rect, min: i64) -> bool {
    x >= min
        && y >= min
        && x + w <= blank.width() as i64
        && y + h <= blank.height() as i64
        && (y..y + h).all(|py| (x..x + w).all(|px| blank.get(px, py) == Some(&false)))
}

/// Recursive budding: a room on one side of `parent` and its mirror on the other, sides 2, 4
/// or 6 (chances 2/5, 2/5, 1/5), touching the parent and one cell clear of everything else
/// (and of the blank's edges, no lower than `min`); the axis flips with chance 1/4, and
/// alternates for the children.
pub(crate) fn bud<R: Rng + ?Sized>(
    blank: &mut Grid<bool>,
    rng: &mut R,
    parent: Rect,
    vertical: bool,
    min: i64,
) {
    let vertical = if seed::chance(rng, 0.25) {
        !vertical
    } else {
        vertical
    };
    let (px, py, pw, ph) = parent;
    let side = |rng: &mut R| ((seed::below(rng, 5) + 2) & !1) as i64;
    let (mut w, mut h) = (2, 2);
    let mut first: Option<Rect> = None;
    for _ in 0..20 {
        w = side(rng);
        h = side(rng);
        let (x, y, test) = if vertical {
            let (x, y) = (px - w, py + ph / 2 - h / 2);
            (x, y, (x - 1, y - 1, w + 1, h + 2))
        } else {
            let (x, y) = (px + pw / 2 - w / 2, py - h);
            (x, y, (x - 1, y - 1, w + 2, h + 1))
        };
        if clear(blank, test, min) {
            first = Some((x, y, w, h));
            break;
        }
    }
    // The mirror room uses the last size tried, even when the first room failed.
    let second = if vertical {
        let (x, y) = (px + pw, py + ph / 2 - h / 2);
        clear(blank, (x, y - 1, w + 1, h + 2), min).then_some((x, y, w, h))
    } else {
        let (x, y) = (px + pw / 2 - w / 2, py + ph);
        clear(blank, (x - 1, y, w + 2, h + 1), min).then_some((x, y, w, h))
    };
    for r in first.iter().chain(second.iter()) {
        fill(blank, *r);
    }
    if let Some(r) = first {
        bud(blank, rng, r, !vertical, min);
    }
    if let Some(r) = second {
        bud(blank, rng, r, !vertical, min);
    }
}

/// Walls every solid tile that touches floor (8 neighbours): marching squares leave the
/// right and bottom edges of rooms open.
pub(crate) fn close_edges(tiles: &mut Grid<Tile>) {
    let snapshot = tiles.clone();
    for ((x, y), &t) in snapshot.iter() {
        if t != Tile::Solid {
            continue;
        }
        let (x, y) = (x as i64, y as i64);
        let near_floor = (-1..=1).any(|dy| {
            (-1..=1).any(|dx| snapshot.get(x + dx, y + dy).is_some_and(|n| n.walkable()))
        });
        if near_floor {
            tiles.set(x, y, Tile::Wall);
        }
    }
}

/// How dividing walls look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dividers {
    /// The Cathedral's: runs of 2 or more; `rand(4)`: 0 and 1 a wall with a door, 2 a wall
    /// with an arch, 3 a fence with a door; `rand(6) == 5` makes the door an arch.
    Cathedral,
    /// Hell's: runs of 4 or more, a wall with a doorway (an opening between two jambs) at
    /// `1 + rand(len - 3)`.
    Hell,
    /// The Caves': one in four candidates, a fence across floor with a one-tile gap.
    Caves,
}

/// Straight dividing walls: from a wall corner with open floor beside it (floor on both sides
/// of the run), a run of floor tiles ending on a wall becomes a wall with an opening at a
/// random place; openings are protected.
pub(crate) fn add_walls<R: Rng + ?Sized>(
    tiles: &mut Grid<Tile>,
    protected: &mut Grid<bool>,
    rng: &mut R,
    style: Dividers,
) {
    let (w, h) = (tiles.width() as i64, tiles.height() as i64);
    for y in 0..h {
        for x in 0..w {
            // Dividing walls start at the corners marching squares left where budded rooms
            // meet (and at the ends of walls placed before).
            let stub = tiles
                .get(x, y)
                .is_some_and(|t| matches!(t, Tile::WallCornerInner | Tile::WallCornerOuter));
            if !stub || protected.get(x, y) == Some(&true) {
                continue;
            }
            for (dx, dy) in [(1, 0), (0, 1)] {
                // Across the run: the two neighbours that must be open floor.
                let (sx, sy) = (dy, dx);
                let open = |px: i64, py: i64| {
                    tiles.get(px, py) == Some(&Tile::Floor) && protected.get(px, py) == Some(&false)
                };
                let mut len = 0;
                while open(x + dx * (len + 1), y + dy * (len + 1))
                    && open(x + dx * (len + 1) + sx, y + dy * (len + 1) + sy)
                    && open(x + dx * (len + 1) - sx, y + dy * (len + 1) - sy)
                {
                    len += 1;
                }
                let end = tiles.get(x + dx * (len + 1), y + dy * (len + 1)).copied();
                let shortest = if style == Dividers::Hell { 4 } else { 2 };
                if len < shortest || !end.is_some_and(|t| t.is_wall()) {
                    continue;
                }
                if style == Dividers::Caves && !seed::chance(rng, 0.25) {
                    continue;
                }
                let (line, door, at) = match style {
                    Dividers::Cathedral => {
                        let roll = seed::below(rng, 4);
                        let line = if roll == 3 { Tile::Fence } else { Tile::Wall };
                        let mut door = if roll == 2 { Tile::Arch } else { Tile::Door };
                        if seed::below(rng, 6) == 5 {
                            door = Tile::Arch;
                        }
                        (line, door, 1 + seed::below(rng, (len - 1) as u64) as i64)
                    }
                    // The opening sits between two jambs: one past the drawn offset.
                    Dividers::Hell => (
                        Tile::Wall,
                        Tile::Arch,
                        2 + seed::below(rng, (len - 3) as u64) as i64,
                    ),
                    // A fence with a one-tile gap.
                    Dividers::Caves => (
                        Tile::Fence,
                        Tile::Floor,
                        1 + seed::below(rng, (len - 1) as u64) as i64,
                    ),
                };
                for i in 1..=len {
                    let (px, py) = (x + dx * i, y + dy * i);
                    if i == at {
                        tiles.set(px, py, door);
                        protected.set(px, py, true);
                    } else {
                        tiles.set(px, py, line);
                    }
                }
            }
        }
    }
}

impl Stage {
    /// Proves the level completable from the stairs up to the stairs down.
    pub fn solve(
        &self,
    ) -> Result<crate::graph::solve::Walkthrough, crate::graph::solve::Unsolvable> {
        crate::graph::solve::solve_with(
            &self.graph,
            &crate::graph::solve::SolveOptions {
                start: Some(self.start),
                goal: Some(self.goal),
                ..Default::default()
            },
        )
    }
}

/// Settings of a Diablo stage; the defaults are the spec's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DiabloParams {
    /// Blanks tried before giving up; `None`: the stage's own budget (the cathedral and hell
    /// 200, the catacombs 500, the caves 5000 attempts).
    pub retry: Option<crate::layout::RetryPolicy>,
    /// A set piece to stamp into every level (see [`SetPiecePlacement`] for where each stage
    /// puts it); `None`: none.
    #[serde(default)]
    pub set_piece: Option<SetPiece>,
    /// Locks planned on the level, from the stairs up to the stairs down
    /// ([`crate::graph::lock_and_key::plan_between`]), proven like the rest; `None`: none. A
    /// level whose rooms cannot take them is made again from a derived seed, up to
    /// [`LOCK_ATTEMPTS`] times (a cave is often one open area: with one lock, 200 of 200
    /// seeds of caves levels 9 and 12 found one that takes it, with two, 194 of 200).
    #[serde(default)]
    pub locks: Option<crate::graph::lock_and_key::LockPlan>,
}

/// Levels a stage makes, from derived seeds, to find one whose rooms take the locks asked for.
pub const LOCK_ATTEMPTS: u32 = 20;

impl DiabloParams {
    /// The retry budget: the one set, else the stage's own `attempts`.
    pub(crate) fn retry_or(&self, attempts: u32) -> crate::layout::RetryPolicy {
        self.retry
            .unwrap_or(crate::layout::RetryPolicy::Attempts(attempts))
    }
}

/// Which of Diablo's four stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiabloStage {
    /// Levels 1 to 4.
    Cathedral,
    /// Levels 5 to 8.
    Catacombs,
    /// Levels 9 to 12.
    Caves,
    /// Levels 13 to 16.
    Hell,
}

impl DiabloStage {
    /// The stage's name, as `levelplan generate --recipe` spells it.
    pub fn name(self) -> &'static str {
        match self {
            DiabloStage::Cathedral => "cathedral",
            DiabloStage::Catacombs => "catacombs",
            DiabloStage::Caves => "caves",
            DiabloStage::Hell => "hell",
        }
    }
}

/// One of Diablo's stages prepared for one dungeon level: a [`crate::Recipe`].
#[derive(Debug, Clone, PartialEq)]
pub struct DiabloRecipe {
    /// The stage.
    pub stage: DiabloStage,
    /// The dungeon level (1 to 16).
    pub level: u32,
    /// The settings (default: the spec's).
    pub params: DiabloParams,
}

impl DiabloRecipe {
    /// The recipe for `stage` at dungeon `level`, with the spec's settings.
    pub fn new(stage: DiabloStage, level: u32) -> DiabloRecipe {
        DiabloRecipe {
            stage,
            level,
            params: DiabloParams::default(),
        }
    }
}

impl Stage {
    /// This stage as the crate's one [`crate::Level`] shape, with its proof of completion.
    pub fn into_level(
        self,
        recipe: DiabloStage,
        rivers: &[caves::River],
    ) -> Result<crate::Level, crate::graph::solve::Unsolvable> {
        let walkthrough = self.solve()?;
        // The tile map's region `i` is room `i` of the graph.
        let region_rooms = (0..self.graph.room_bound() as u32)
            .map(|i| Some(RoomId(i)).filter(|&r| self.graph.contains_room(r)))
            .collect();
        let passages = self
            .doors
            .iter()
            .enumerate()
            .map(|(i, tiles)| {
                let open = tiles
                    .iter()
                    .all(|&(x, y)| self.tiles.tiles.get(x as i64, y as i64) == Some(&Tile::Arch));
                crate::view::Passage {
                    link: crate::LinkId(i as u32),
                    tiles: tiles.clone(),
                    kind: if open {
                        crate::DoorKind::Open
                    } else {
                        crate::DoorKind::Plain
                    },
                }
            })
            .collect();
        let mut level = crate::Level {
            recipe: recipe.name().to_string(),
            seed: self.seed,
            attempts: self.attempts,
            start: self.start,
            goal: self.goal,
            walkthrough,
            tiles: self.tiles,
            region_rooms,
            layout: None,
            tile_origin: (0, 0),
            stairs: Some(crate::Stairs {
                up: self.stairs_up,
                down: self.stairs_down,
            }),
            start_tile: None,
            goal_tile: None,
            rooms: Vec::new(),
            doors: Vec::new(),
            warps: Vec::new(),
            items: Vec::new(),
            detail: crate::LevelDetail::Diablo {
                level: self.level,
                set_piece: self.set_piece,
                blank: self.blank,
                rivers: rivers
                    .iter()
                    .map(|r| crate::RiverRecord {
                        cells: r.cells.clone(),
                        bridge: r.bridge,
                    })
                    .collect(),
            },
            graph: self.graph,
        };
        crate::view::attach(
            &mut level,
            crate::view::ViewParts {
                passages,
                start_tile: Some(self.stairs_up),
                goal_tile: Some(self.stairs_down),
                items: None,
                room_boxes: None,
            },
        );
        Ok(level)
    }
}

impl crate::Recipe for DiabloRecipe {
    fn name(&self) -> &'static str {
        self.stage.name()
    }

    fn generate(&self, seed: u64) -> Result<crate::Level, crate::RecipeError> {
        let name = self.stage.name();
        let failed = |e| crate::RecipeError::failed(name, e);
        let make = |seed: u64| -> Result<(Stage, Vec<caves::River>), crate::RecipeError> {
            Ok(match self.stage {
                DiabloStage::Cathedral => (
                    cathedral::generate_with(self.level, seed, &self.params).map_err(failed)?,
                    Vec::new(),
                ),
                DiabloStage::Catacombs => (
                    catacombs::generate_with(self.level, seed, &self.params).map_err(failed)?,
                    Vec::new(),
                ),
                DiabloStage::Caves => {
                    caves::generate_with(self.level, seed, &self.params).map_err(failed)?
                }
                DiabloStage::Hell => (
                    hell::generate_with(self.level, seed, &self.params).map_err(failed)?,
                    Vec::new(),
                ),
            })
        };
        let (stage, rivers) = match &self.params.locks {
            None => make(seed)?,
            Some(plan) => {
                let mut last = None;
                let mut made = None;
                for attempt in 0..LOCK_ATTEMPTS {
                    let sub = if attempt == 0 {
                        seed
                    } else {
                        seed::sub_seed(seed, &format!("diablo locks retry {attempt}"))
                    };
                    let (mut stage, rivers) = make(sub)?;
                    let mut rng = seed::stream(sub, "diablo locks");
                    let (start, goal) = (stage.start, stage.goal);
                    match crate::graph::lock_and_key::plan_between(
                        &mut stage.graph,
                        start,
                        goal,
                        plan,
                        &mut rng,
                    ) {
                        Ok(_) => {
                            stage.seed = seed;
                            made = Some((stage, rivers));
                            break;
                        }
                        Err(e) => last = Some(e),
                    }
                }
                match made {
                    Some(m) => m,
                    None => {
                        return Err(failed(StageError::NoLevel {
                            stage: name,
                            attempts: LOCK_ATTEMPTS,
                            reason: format!(
                                "its rooms cannot take the locks asked for: {}",
                                last.map_or_else(String::new, |e| e.to_string())
                            ),
                        }));
                    }
                }
            }
        };
        stage
            .into_level(self.stage, &rivers)
            .map_err(|source| crate::RecipeError::Unsolvable {
                recipe: name,
                source,
            })
    }
}
