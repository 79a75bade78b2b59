//! The `generate` paths of each recipe, the level outputs (DOT, JSON, RON, SVG, Tiled), and the
//! helpers that read flows, template libraries and Edgar files.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use levelplan::export::svg::level_to_svg;
use levelplan::export::tiled::level_to_tmj;
use levelplan::graph::composite::decompose;
use levelplan::graph::{enclosures, to_dot_with_composites};
use levelplan::layout::edgar::EdgarLevel;
use levelplan::layout::library::TemplateLibrary;
use levelplan::recipes::gungeon::{self, GungeonParams};
use levelplan::recipes::isaac::{self, IsaacParams};
use levelplan::{Conditions, Flow, FlowTemplate, LevelGraph, RoomKind, RoomOrigin};

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

/// `generate --recipe gungeon`: the map as text, the walkthrough, and the outputs asked for.
pub(crate) fn gungeon_level(
    template: FlowTemplate,
    seed: u64,
    params: GungeonParams,
    [dot, json, ron_path, svg, tmj]: [Option<&Path>; 5],
) -> Result<ExitCode, String> {
    let name = template.name.clone();
    let flow = Flow::new(template, &name).map_err(|e| e.to_string())?;
    let generator = gungeon::Generator::new(flow, params).map_err(|e| e.to_string())?;
    let level = generator.generate(seed).map_err(|e| e.to_string())?;
    print!("{}", level.tiles.to_ascii());
    let placed = level.layout.as_ref().map_or(&[][..], |l| &l.links[..]);
    let corridors = placed.iter().filter(|l| !l.corridor.is_empty()).count();
    println!(
        "level from flow \"{name}\", seed {seed}: {} rooms, {} links ({corridors} by corridor), \
         {} x {} tiles, {} attempt(s)",
        level.graph.room_count(),
        placed.len(),
        level.tiles.tiles.width(),
        level.tiles.tiles.height(),
        level.attempts
    );
    let walkthrough = &level.walkthrough;
    println!(
        "walkthrough ({} rooms walked, {} revisited):",
        walkthrough.rooms_walked, walkthrough.rooms_revisited
    );
    for (i, step) in walkthrough.steps.iter().enumerate() {
        println!("  {:>2}. {step}", i + 1);
    }
    let composites = decompose(&level.graph);
    let title = format!("{name} (seed {seed})");
    write_output(dot, || {
        to_dot_with_composites(&level.graph, &title, &composites)
    })?;
    write_output(svg, || level_to_svg(&level, 12))?;
    write_output(tmj, || level_to_tmj(&level))?;
    write_document(json, ron_path, &level)?;
    Ok(ExitCode::SUCCESS)
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

/// `generate --recipe isaac`: the floor as text, a summary, and the outputs asked for.
pub(crate) fn isaac(
    level: u32,
    seed: u64,
    params: &IsaacParams,
    [dot, json, ron_path, svg, tmj]: [Option<&Path>; 5],
) -> Result<ExitCode, String> {
    let floor = isaac::generate(level, seed, params).map_err(|e| e.to_string())?;
    println!(
        "isaac floor, level {level}, seed {seed}: {} rooms ({} grown, then the secret room), {} dead ends, {} attempts",
        floor.rooms.len(),
        floor.room_target,
        floor.dead_ends.len(),
        floor.attempts
    );
    print!("{}", floor.to_ascii());
    println!(
        "S start, B boss, T treasure, $ shop, ? secret, * other special, # normal; - | doors, = \" inside large rooms"
    );
    let boss = floor.rooms.iter().find(|r| r.kind == RoomKind::Boss);
    if let Some(b) = boss {
        println!("boss {} is {} rooms from the start", b.id, b.distance);
    }
    println!(
        "secret room found after {} tries, touching at least {} rooms",
        floor.secret_tries, floor.secret_needed
    );
    let composites = decompose(&floor.graph);
    let title = format!("isaac level {level} (seed {seed})");
    write_output(dot, || {
        to_dot_with_composites(&floor.graph, &title, &composites)
    })?;
    // The floor's level, with the solver's proof: what every output is made from.
    let level = floor
        .into_level()
        .map_err(|e| format!("the floor is not completable: {e}"))?;
    write_output(svg, || level_to_svg(&level, 6))?;
    write_output(tmj, || level_to_tmj(&level))?;
    write_document(json, ron_path, &level)?;
    Ok(ExitCode::SUCCESS)
}

/// `generate --recipe cathedral|catacombs|caves|hell`: the level as text, a summary, and the outputs asked for.
pub(crate) fn diablo_stage(
    kind: levelplan::recipes::diablo::DiabloStage,
    level: u32,
    seed: u64,
    [dot, json, ron_path, svg, tmj]: [Option<&Path>; 5],
) -> Result<ExitCode, String> {
    use levelplan::recipes::diablo::DiabloRecipe;
    use levelplan::{Recipe, RecipeError};
    let recipe = kind.name();
    let stage = DiabloRecipe::new(kind, level)
        .generate(seed)
        .map_err(|e| match e {
            RecipeError::Unsolvable { source, .. } => {
                format!("the level is not completable: {source}")
            }
            RecipeError::Failed { source, .. } => source.to_string(),
            other => other.to_string(),
        })?;
    println!(
        "{recipe}, level {level}, seed {seed}: {} rooms, {} doors and arches between them, {} attempts",
        stage.graph.room_count(),
        stage.graph.link_count(),
        stage.attempts
    );
    print!("{}", stage.tiles.to_ascii());
    println!(
        "< stairs up, > stairs down, D door, A arch, f fence, o pillar, i lamp, ~ lava, = bridge; walls | - + * #"
    );
    println!(
        "from the stairs up to the stairs down: {} rooms walked",
        stage.walkthrough.rooms_walked
    );
    let composites = decompose(&stage.graph);
    let title = format!("{recipe} level {level} (seed {seed})");
    write_output(dot, || {
        to_dot_with_composites(&stage.graph, &title, &composites)
    })?;
    let level = stage;
    write_output(svg, || level_to_svg(&level, 12))?;
    write_output(tmj, || level_to_tmj(&level))?;
    write_document(json, ron_path, &level)?;
    Ok(ExitCode::SUCCESS)
}

/// What `generate --recipe flow` prints about a level: the flow and seed, then the library's
/// summary of the graph.
pub(crate) fn summary(flow: &FlowTemplate, seed: u64, level: &LevelGraph) -> String {
    format!(
        "flow \"{}\", seed {seed}\n{}",
        flow.name,
        levelplan::graph::summary::GraphSummary::of(level)
    )
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
