//! The `generate` path (one for every recipe), the level outputs (DOT, JSON, RON, SVG, Tiled), and the
//! helpers that read flows, template libraries and Edgar files.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use levelplan::export::svg::level_to_svg;
use levelplan::export::text::{legend, level_to_ascii};
use levelplan::export::tiled::level_to_tmj;
use levelplan::graph::composite::decompose;
use levelplan::graph::summary::GraphSummary;
use levelplan::graph::{enclosures, to_dot_with_composites};
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::library::TemplateLibrary;
use levelplan::{
    Conditions, FlowTemplate, Level, LevelDetail, Recipe, RecipeError, RoomKind, RoomOrigin,
};

pub(crate) fn load_library(path: &Path) -> Result<TemplateLibrary, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = path.display().to_string();
    if path.extension().is_some_and(|e| e == "json") {
        TemplateLibrary::from_json(&text, &file)
    } else {
        TemplateLibrary::from_ron(&text, &file)
    }
    .map_err(|e| e.to_string())
}

pub(crate) fn read_edgar(path: &Path) -> Result<EdgarLevel, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
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

/// Writes a level document as JSON and/or RON, where asked.
pub(crate) fn write_document<T: serde::Serialize>(
    json: Option<&Path>,
    ron_path: Option<&Path>,
    document: &T,
) -> Result<(), String> {
    write_output(json, || {
        serde_json::to_string_pretty(document).expect("a level always serialises")
    })?;
    write_output(ron_path, || {
        ron::ser::to_string_pretty(document, ron::ser::PrettyConfig::default())
            .expect("a level always serialises")
    })
}

pub(crate) fn write_output(
    path: Option<&Path>,
    text: impl FnOnce() -> String,
) -> Result<(), String> {
    if let Some(path) = path {
        std::fs::write(path, text())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// `generate`, for every recipe: makes the level of `seed`, prints it (a summary line, the map
/// as text, what the map's characters mean, the walkthrough the solver proved) and writes the
/// outputs asked for, all from the one [`Level`].
pub(crate) fn generate(
    recipe: &dyn Recipe,
    seed: u64,
    [dot, json, ron_path, svg, tmj]: [Option<&Path>; 5],
) -> Result<ExitCode, String> {
    let level = recipe.generate(seed).map_err(|e| match e {
        RecipeError::Unsolvable { source, .. } => {
            format!("the level is not completable: {source}")
        }
        RecipeError::Failed { source, .. } => source.to_string(),
        other => other.to_string(),
    })?;
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
    write_output(dot, || {
        to_dot_with_composites(&level.graph, &title, &composites)
    })?;
    // Grid floor plans have big cells: half the scale keeps the picture a screen's size.
    let scale = if matches!(level.detail, LevelDetail::Isaac { .. }) {
        6
    } else {
        12
    };
    write_output(svg, || level_to_svg(&level, scale))?;
    write_output(tmj, || level_to_tmj(&level))?;
    write_document(json, ron_path, &level)?;
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
        _ => out.push_str(&format!("{}, seed {seed}\n", level.recipe)),
    }
    out.push_str(&level_to_ascii(level));
    if let Some(legend) = legend(level) {
        out.push_str(legend);
        out.push('\n');
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

/// Levels of a flow checked for holes by `check`.
pub(crate) const HOLE_SEEDS: u64 = 20;

/// A warning if levels made from `flow` (seeds `0..HOLE_SEEDS`) need a hole (see
/// `graph::enclosures`): how many, and the rooms of the first, by flow node.
pub(crate) fn hole_warning(flow: &FlowTemplate) -> Option<String> {
    let mut first: Option<(u64, String)> = None;
    let (mut made, mut holed) = (0, 0);
    for seed in 0..HOLE_SEEDS {
        let Ok(g) = flow.generate(seed, &Conditions::default()) else {
            continue;
        };
        made += 1;
        let found = enclosures(&g);
        let Some(e) = found.first() else { continue };
        holed += 1;
        if first.is_none() {
            let name = |r: levelplan::RoomId| match g.room(r).map(|room| &room.origin) {
                Some(RoomOrigin::FlowNode { node }) => format!("`{node}`"),
                Some(RoomOrigin::Chain { node, index }) => format!("`{node}`[{index}]"),
                Some(RoomOrigin::Injected { rule, .. }) => format!("`{rule}` ({r})"),
                _ => format!("`{r}`"),
            };
            let inside: Vec<String> = e.inside.iter().map(|&r| name(r)).collect();
            first = Some((seed, inside.join(", ")));
        }
    }
    let (seed, inside) = first?;
    Some(format!(
        "{holed} of {made} levels need a hole (a loop drawn round a room with rooms hanging off \
         it), which the layout finds only where a loop may close by a corridor round it; seed \
         {seed}: a loop must enclose {inside}"
    ))
}
