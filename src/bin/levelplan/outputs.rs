//! The `generate` path (one for every recipe), the level outputs (DOT, JSON, RON, SVG, Tiled,
//! LDtk), and the
//! helpers that read flows, template libraries and Edgar files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use levelplan::export::svg::level_to_svg;
use levelplan::export::text::{legend, level_to_ascii};
use levelplan::export::tiled::{level_to_tmj, level_to_tmj_using};
use levelplan::graph::composite::decompose;
use levelplan::graph::summary::GraphSummary;
use levelplan::graph::{enclosures, to_dot_with_composites};
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::library::TemplateLibrary;
use levelplan::recipes::flow::FlowRecipe;
use levelplan::{
    Conditions, Flow, FlowTemplate, Level, LevelDetail, Recipe, RecipeError, RoomKind, RoomOrigin,
};

pub(crate) fn load_library(path: &Path) -> Result<TemplateLibrary, String> {
    // Every fault in it is reported with the file's name.
    TemplateLibrary::load(path).map_err(|e| e.to_string())
}

pub(crate) fn read_edgar(path: &Path) -> Result<EdgarLevel, String> {
    let text = levelplan::read_text_file(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    EdgarLevel::from_json(&text, &path.display().to_string()).map_err(|e| e.to_string())
}

pub(crate) fn unknown_flow(name: &str) -> String {
    let names: Vec<&str> = FlowTemplate::builtin_names().collect();
    format!(
        "\"{name}\" is neither a built-in flow nor a file; built-in flows: {}",
        names.join(", ")
    )
}

pub(crate) fn load_flow(name_or_file: &str) -> Result<FlowTemplate, String> {
    if let Some(flow) = FlowTemplate::builtin(name_or_file) {
        return Ok(flow);
    }
    let path = Path::new(name_or_file);
    if path.exists() {
        FlowTemplate::load(path).map_err(|e| e.to_string())
    } else {
        Err(unknown_flow(name_or_file))
    }
}

/// Files a command writes, written whole or not at all: each goes to a temporary file beside
/// its target, and only when every one is written are they renamed into place. On a failure
/// the temporary files are removed and the targets are left as they were.
#[derive(Default)]
pub(crate) struct Outputs {
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl Outputs {
    /// Adds `path` (where asked) with the text `text` makes.
    pub(crate) fn add(&mut self, path: Option<&Path>, text: impl FnOnce() -> String) {
        if let Some(path) = path {
            self.files.push((path.to_path_buf(), text().into_bytes()));
        }
    }

    /// Adds a binary file.
    pub(crate) fn add_bytes(&mut self, path: &Path, bytes: Vec<u8>) {
        self.files.push((path.to_path_buf(), bytes));
    }

    /// Writes every file, or none. Targets that exist and are not plain files (a terminal,
    /// `/dev/stdout`, a pipe) cannot be replaced: they are written to directly, after every
    /// temporary file is ready and before any is renamed.
    pub(crate) fn write(self) -> Result<(), String> {
        let mut staged: Vec<(PathBuf, &Path)> = Vec::new();
        let undo = |staged: &[(PathBuf, &Path)]| {
            for (tmp, _) in staged {
                let _ = fs::remove_file(tmp);
            }
        };
        let special = |path: &Path| fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        for (path, text) in &self.files {
            if path.is_dir() {
                undo(&staged);
                return Err(format!(
                    "{}: cannot write: it is a directory",
                    path.display()
                ));
            }
            if special(path) {
                continue;
            }
            let name = path
                .file_name()
                .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
            let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
            if let Err(e) = fs::write(&tmp, text) {
                let _ = fs::remove_file(&tmp);
                undo(&staged);
                return Err(format!("{}: cannot write: {e}", path.display()));
            }
            staged.push((tmp, path));
        }
        for (path, text) in self.files.iter().filter(|(p, _)| special(p)) {
            if let Err(e) = fs::write(path, text) {
                undo(&staged);
                return Err(format!("{}: cannot write: {e}", path.display()));
            }
        }
        for (i, (tmp, path)) in staged.iter().enumerate() {
            if let Err(e) = fs::rename(tmp, path) {
                undo(&staged[i..]);
                return Err(format!("{}: cannot write: {e}", path.display()));
            }
        }
        for (path, _) in &self.files {
            println!("wrote {}", path.display());
        }
        Ok(())
    }
}

/// A recipe's failure as the CLI says it: the recipe's own error, or why the level made is not
/// completable.
pub(crate) fn recipe_message(e: &RecipeError) -> String {
    match e {
        RecipeError::Unsolvable { source, .. } => {
            format!("the level is not completable: {source}")
        }
        RecipeError::Failed { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// Refuses a command whose outputs name one file twice (after making paths absolute).
pub(crate) fn distinct_outputs(paths: &[Option<&Path>]) -> Result<(), String> {
    let mut seen: Vec<(PathBuf, &Path)> = Vec::new();
    for path in paths.iter().flatten() {
        let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some((_, first)) = seen.iter().find(|(p, _)| *p == full) {
            return Err(format!(
                "{} and {} are the same file: give each output its own path",
                first.display(),
                path.display()
            ));
        }
        seen.push((full, path));
    }
    Ok(())
}

/// `generate`, for every recipe: makes the level of `seed`, prints it (a summary line, the map
/// as text, what the map's characters mean, the walkthrough the solver proved) and writes the
/// outputs asked for, all from the one [`Level`].
pub(crate) fn generate(
    recipe: &dyn Recipe,
    seed: u64,
    [dot, json, ron_path, svg, tmj, ldtk]: [Option<&Path>; 6],
    tileset: Option<&str>,
) -> Result<ExitCode, String> {
    let level = recipe.generate(seed).map_err(|e| recipe_message(&e))?;
    print!("{}", describe(&level));
    let walkthrough = &level.walkthrough;
    println!(
        "walkthrough ({} rooms walked, {} revisited):",
        walkthrough.rooms_walked, walkthrough.rooms_revisited
    );
    for (i, step) in walkthrough.steps.iter().enumerate() {
        println!("  {:>2}. {step}", i + 1);
    }
    let composites = decompose(&level.graph);
    let title = format!("{} (seed {seed})", name(&level));
    // Grid floor plans have big cells: half the scale keeps the picture a screen's size.
    let scale = if matches!(level.detail, LevelDetail::Isaac { .. }) {
        6
    } else {
        12
    };
    let mut out = Outputs::default();
    out.add(dot, || {
        to_dot_with_composites(&level.graph, &title, &composites)
    });
    out.add(svg, || level_to_svg(&level, scale));
    match tileset {
        // The game's own tileset image: named, not written.
        Some(image) => out.add(tmj, || level_to_tmj_using(&level, image)),
        None => {
            out.add(tmj, || level_to_tmj(&level));
            // The tileset image the map names, beside it.
            if let Some(map) = tmj {
                let image = map
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(levelplan::export::tiled::TILESET_IMAGE);
                out.add_bytes(&image, levelplan::export::tiled::tileset_png());
            }
        }
    }
    out.add(ldtk, || levelplan::export::ldtk::level_to_ldtk(&level));
    out.add(json, || {
        serde_json::to_string_pretty(&level).expect("a level always serialises")
    });
    out.add(ron_path, || {
        ron::ser::to_string_pretty(&level, ron::ser::PrettyConfig::default())
            .expect("a level always serialises")
    });
    out.write()?;
    Ok(ExitCode::SUCCESS)
}

/// What the level is called in titles: its flow, or its recipe and floor.
fn name(level: &Level) -> String {
    match &level.detail {
        LevelDetail::Flow { flow } | LevelDetail::Gungeon { flow, .. } => flow.clone(),
        LevelDetail::Isaac { level: floor, .. } | LevelDetail::Diablo { level: floor, .. } => {
            format!("{} level {floor}", level.recipe)
        }
        _ => level.recipe.clone(),
    }
}

/// A level as `generate` prints it before the walkthrough: a summary line, the map as text and
/// its legend, and what the recipe adds (the graph's summary for a graph-only level, the
/// boss's distance on a grid floor).
pub(crate) fn describe(level: &Level) -> String {
    let seed = level.seed;
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    let mut out = String::new();
    match &level.detail {
        LevelDetail::Flow { flow } => {
            out.push_str(&format!(
                "flow \"{flow}\", seed {seed}\n{}",
                GraphSummary::of(&level.graph)
            ));
        }
        LevelDetail::Gungeon { flow, .. } => {
            let placed = level.layout.as_ref().map_or(&[][..], |l| &l.links[..]);
            let corridors = placed.iter().filter(|l| !l.corridor.is_empty()).count();
            out.push_str(&format!(
                "level from flow \"{flow}\", seed {seed}: {} rooms, {} links ({corridors} by \
                 corridor), {w} x {h} tiles, {} attempt(s)\n",
                level.graph.room_count(),
                placed.len(),
                level.attempts
            ));
        }
        LevelDetail::Isaac {
            level: floor,
            rooms,
            ..
        } => {
            out.push_str(&format!(
                "isaac floor, level {floor}, seed {seed}: {} rooms, {} dead ends, {} attempt(s)\n",
                rooms.len(),
                levelplan::graph::dead_ends(&level.graph).len(),
                level.attempts
            ));
        }
        LevelDetail::Diablo { level: floor, .. } => {
            out.push_str(&format!(
                "{}, level {floor}, seed {seed}: {} rooms, {} doors and arches between them, \
                 {w} x {h} tiles, {} attempt(s)\n",
                level.recipe,
                level.graph.room_count(),
                level.graph.link_count(),
                level.attempts
            ));
        }
        LevelDetail::Sectors {
            geometry,
            size,
            sectors,
            connections,
            scripts,
            ..
        } => {
            let secret = sectors
                .iter()
                .filter(|s| {
                    level
                        .graph
                        .room(s.room)
                        .is_some_and(|r| r.kind == RoomKind::Secret)
                })
                .count();
            let openings = connections.iter().flat_map(|c| &c.openings);
            let (mut doors, mut heavy, mut windows) = (0, 0, 0);
            for o in openings {
                match o.kind {
                    levelplan::OpeningKind::Door if o.heavy() => heavy += 1,
                    levelplan::OpeningKind::Door => doors += 1,
                    levelplan::OpeningKind::Window => windows += 1,
                    _ => {}
                }
            }
            out.push_str(&format!(
                "sectors ({geometry}), {} x {}, seed {seed}: {} sectors ({secret} secret), {} \
                 connections, {} scripts, {doors} doors, {heavy} heavy doors, {windows} windows, \
                 {} attempt(s)\n",
                size.0,
                size.1,
                sectors.len(),
                connections.len(),
                scripts.len(),
                level.attempts
            ));
        }
        _ => out.push_str(&format!("{}, seed {seed}\n", level.recipe)),
    }
    out.push_str(&level_to_ascii(level));
    if let Some(legend) = legend(level) {
        out.push_str(legend);
        out.push('\n');
    }
    if let LevelDetail::Sectors { scripts, .. } = &level.detail {
        out.push_str("scripts, in the order the player opens them:\n");
        for (i, s) in scripts.iter().enumerate().rev() {
            let rooms: Vec<String> = s.rooms.iter().map(|r| r.to_string()).collect();
            let opener = match s.lock.opener {
                levelplan::Opener::Key => "key",
                levelplan::Opener::Task => "task",
                levelplan::Opener::SmallKey => "small key",
                _ => "switch",
            };
            out.push_str(&format!(
                "  script {i}: the {opener} {} in {} opens {} door(s) to {}\n",
                s.lock.by,
                s.opener_room,
                s.links.len(),
                rooms.join(", ")
            ));
        }
        out.push_str(&format!("  the exit switch is in {}\n", level.goal));
    }
    if let LevelDetail::Isaac { rooms, .. } = &level.detail {
        let boss = rooms.iter().find(|r| {
            level
                .graph
                .room(r.room)
                .is_some_and(|room| room.kind == RoomKind::Boss)
        });
        if let Some(b) = boss {
            out.push_str(&format!(
                "boss {} is {} rooms from the start\n",
                b.room, b.distance
            ));
        }
    }
    out
}

/// Why `generate --recipe flow` would fail on this flow, if it fails on any of the seeds
/// `0..HOLE_SEEDS`: the flow's levels are made and proven completable by the solver, as
/// `generate` does; the first failure is named with its seed.
pub(crate) fn generate_failure(flow: &FlowTemplate) -> Option<String> {
    let prepared = match Flow::new(flow.clone(), &flow.name) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    let recipe = FlowRecipe::new(prepared, Conditions::default(), None);
    let failures: Vec<(u64, RecipeError)> = (0..HOLE_SEEDS)
        .filter_map(|seed| recipe.generate(seed).err().map(|e| (seed, e)))
        .collect();
    let (seed, first) = failures.first()?;
    let why = recipe_message(first);
    Some(format!(
        "`generate` fails on {} of {HOLE_SEEDS} seeds; seed {seed}: {why}",
        failures.len()
    ))
}

/// Levels of a flow checked for holes by `check`.
pub(crate) const HOLE_SEEDS: u64 = 20;

/// A warning if levels made from `flow` (seeds `0..HOLE_SEEDS`) need a hole (see
/// `graph::enclosures`): how many, the rooms of the first level's biggest hole, by flow
/// node, and how many rooms the biggest hole of any level must hold.
pub(crate) fn hole_warning(flow: &FlowTemplate) -> Option<String> {
    let mut first: Option<(u64, String, usize)> = None;
    let (mut made, mut holed, mut most) = (0, 0, 0);
    for seed in 0..HOLE_SEEDS {
        let Ok(g) = flow.generate(seed, &Conditions::default()) else {
            continue;
        };
        made += 1;
        let found = enclosures(&g);
        let Some(e) = found.iter().rev().max_by_key(|e| e.rooms_held()) else {
            continue;
        };
        holed += 1;
        most = most.max(e.rooms_held());
        if first.is_none() {
            let name = |r: levelplan::RoomId| match g.room(r).map(|room| &room.origin) {
                Some(RoomOrigin::FlowNode { node }) => format!("`{node}`"),
                Some(RoomOrigin::Chain { node, index }) => format!("`{node}`[{index}]"),
                Some(RoomOrigin::Injected { rule, .. }) => format!("`{rule}` ({r})"),
                _ => format!("`{r}`"),
            };
            let inside: Vec<String> = e.inside.iter().map(|&r| name(r)).collect();
            first = Some((seed, inside.join(", "), e.rooms_held()));
        }
    }
    let (seed, inside, held) = first?;
    let rooms = |n: usize| format!("{n} room{}", if n == 1 { "" } else { "s" });
    Some(format!(
        "{holed} of {made} levels need a hole (a loop drawn round a room with rooms hanging off \
         it), which the layout finds only where a loop may close by a corridor round it; seed \
         {seed}: a loop must enclose {inside} ({} in all, with what hangs off; the biggest hole \
         of the {made} levels holds {})",
        rooms(held),
        rooms(most)
    ))
}
