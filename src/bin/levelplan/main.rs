//! The `levelplan` command line: its commands and their arguments, and the dispatch; the
//! one generate path (every recipe through `Recipe`) and the outputs live in `outputs`.

use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod outputs;
mod stats;

use levelplan::graph::flow::DEFAULT_FLOW;
use levelplan::graph::lock_and_key::LockPlan;
use levelplan::layout::Planner;
use levelplan::recipes::diablo::DiabloRecipe;
use levelplan::recipes::flow::FlowRecipe;
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::{IsaacParams, IsaacRecipe};
use levelplan::{Conditions, Flow, FlowTemplate, Recipe};
use outputs::*;

/// Graph-first procedural level planning.
///
/// A level is first planned as an abstract graph of rooms (pacing, loops, locks and keys,
/// secrets) from a hand-authored flow template; `generate` instantiates one from a seed and
/// prints what it built. The same flow and seed always give the same level.
#[derive(Parser)]
#[command(name = "levelplan", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Generate a level and print its map.
    ///
    /// With no options it makes a whole Gungeon-style level from the built-in default flow and
    /// template library, seed 1: the flow's graph, its locks proven by the solver, rooms laid
    /// out and rasterised; it prints the ASCII map and the walkthrough. `--recipe flow` stops at
    /// the graph; `--recipe isaac` makes a grid floor plan in the style of The Binding of Isaac;
    /// `--recipe cathedral`, `catacombs`, `caves` or `hell` one of Diablo's stages.
    Generate {
        #[command(flatten)]
        recipe: RecipeArgs,
        /// The level seed: the same flow and seed give the same level, byte for byte.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the graph as Graphviz DOT to this file, composites as clusters (render with
        /// `dot -Tsvg`).
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
        /// Write the level as JSON to this file: the graph, its composites and walkthrough.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write the level as RON to this file (the same document as --json).
        #[arg(long, value_name = "FILE")]
        ron: Option<PathBuf>,
        /// Write a picture of the tile map as SVG (recipes with tiles: isaac).
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Write the tile map as a Tiled map (.tmj) with rooms and doors as objects, and the
        /// tileset image it names (levelplan_tiles.png) beside it.
        #[arg(long, value_name = "FILE")]
        tmj: Option<PathBuf>,
        /// Write the level as an LDtk project (.ldtk): an IntGrid layer of walls, floor, doors
        /// and obstacles, and an entity layer of rooms, doors (lock, one-way, a reference to
        /// the opener), items, warps, start, goal and spawn slots.
        #[arg(long, value_name = "FILE")]
        ldtk: Option<PathBuf>,
        /// With --tmj: name this tileset image (relative to the map; one 16 x 16 tile per tile
        /// kind, in levelplan's order) instead of writing levelplan's own.
        #[arg(long, value_name = "IMAGE", requires = "tmj")]
        tileset: Option<String>,
    },
    /// A recipe's expressive range: metrics of many levels, with histograms and heatmaps.
    ///
    /// Makes the levels of seeds FROM to FROM + N - 1 in parallel and writes, into DIR,
    /// `levels.jsonl` (one line of metrics per seed, in seed order, written as levels come),
    /// `summary.json` (count, mean, percentiles and histogram per metric), an SVG histogram per
    /// metric, SVG heatmaps of metric pairs, and `index.html` showing them all. `--compare`
    /// overlays an earlier run's summary.
    Stats(stats::StatsArgs),
    /// Check flow files: syntax, node references, reachability, tree shape, chain bounds.
    ///
    /// Prints one line per file; exits non-zero if any file is invalid. A valid flow whose
    /// levels (seeds 0 to 19) need a hole, a loop drawn round a room with rooms hanging off
    /// it, which the layout finds only where a loop may close by a corridor round it, gets a
    /// warning line naming the rooms.
    Check {
        /// The flow files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Lay out a level description in the format of the Edgar generator
    /// (`edgar-neutral-level/1`) and write the layout in the shape of Edgar's layouts.
    Layout {
        /// The level description (JSON).
        #[arg(long, value_name = "FILE")]
        edgar: PathBuf,
        /// The seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the layout (JSON); without it, print it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// If no layout is found, also print a picture of where the search got stuck: the
        /// rooms it had placed at its deepest, and the room that did not fit (for a big level
        /// laid out in parts, the parts placed and the part that found no place).
        #[arg(long)]
        explain: bool,
        /// If no layout is found, also write that picture as SVG to this file.
        #[arg(long, value_name = "FILE")]
        explain_svg: Option<PathBuf>,
    },
    /// Check a layout (Edgar's shape) against its level description strictly: no overlaps,
    /// every connection with a door both templates allow on the shared boundary, corridor rooms
    /// joining exactly their two rooms, allowed templates and transformations, minimum distance.
    ///
    /// Exits non-zero and names the first violation if the layout is invalid.
    VerifyLayout {
        /// The level description (Edgar's format).
        level: PathBuf,
        /// The layout.
        layout: PathBuf,
    },
    /// Prove a level file completable by any player, or say why not.
    ///
    /// Reads the document `generate --json` (or `--ron`) writes, of any recipe with a graph, or
    /// a bare graph. Accepted: the goal can be reached, every non-secret room, opener and lock
    /// is reached in some play, and no play (skipping rooms and openers, spending small keys
    /// anywhere, taking one-way links) gets the player stuck. Exits 0 only for an accepted
    /// level; 1 for a rejected one, naming the rooms, links and openers involved; 2 for a file
    /// that cannot be read.
    VerifyLevel {
        /// The level document (JSON or RON).
        level: PathBuf,
        /// Where the player starts (a room id, as in `r0` or `0`); default: the document's, else
        /// the entrance.
        #[arg(long, value_parser = parse_room)]
        start: Option<levelplan::RoomId>,
        /// The goal; default: the document's, else the first exit, else the first boss room.
        #[arg(long, value_parser = parse_room)]
        goal: Option<levelplan::RoomId>,
        /// Check for a thorough player only (one who picks up every opener within reach before
        /// a one-way link): weaker, kept for comparison.
        #[arg(long)]
        thorough: bool,
    },
    /// List the built-in flows, or print one's source (a starting point for your own).
    Flows {
        /// Print this built-in flow's RON source.
        name: Option<String>,
    },
}

/// The recipes `generate` can run.
/// What makes a recipe, shared by `generate` and `stats`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct RecipeArgs {
    /// The generator: `gungeon` (a flow laid out with room templates), `flow` (the flow's
    /// graph only), `isaac` (grid floor plans), `cathedral`, `catacombs`, `caves` or `hell`
    /// (Diablo's stages), or `sectors` (geometry -> sector graph -> scripts -> doors).
    #[arg(long, value_enum, default_value_t = RecipeName::Gungeon)]
    pub(crate) recipe: RecipeName,
    /// Gungeon: a room template library (.ron or .json) instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub(crate) templates: Option<PathBuf>,
    /// The level (floor number): isaac grows with it; the cathedral's area threshold depends
    /// on it (1 to 4); the other stages record it.
    #[arg(long, default_value_t = 1, value_name = "L")]
    pub(crate) level: u32,
    /// Isaac: use Rebirth's large rooms (2x2, 2x1, L shapes, narrow corridors).
    #[arg(long)]
    pub(crate) large_rooms: bool,
    /// Isaac: the Curse of the Labyrinth (a double floor).
    #[arg(long)]
    pub(crate) labyrinth: bool,
    /// Gungeon: the most seconds one level may take (0: no limit). A level made within it
    /// is the level made without it; reaching it is an error.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub(crate) time_limit: f64,
    /// Isaac: the grid's size in rooms, COLUMNSxROWS (default 9x8; the start is in the
    /// middle). Higher levels need a bigger grid.
    #[arg(long, value_name = "WxH", value_parser = parse_grid)]
    pub(crate) grid: Option<(i32, i32)>,
    /// A built-in flow's name (see `levelplan flows`) or the path of a flow file (.ron).
    #[arg(long, default_value = DEFAULT_FLOW, value_name = "NAME|FILE")]
    pub(crate) flow: String,
    /// Set a condition flag for the flow's injection rules (repeatable).
    #[arg(long = "flag", value_name = "FLAG")]
    pub(crate) flags: Vec<String>,
    /// Plan this many extra locks on the level (regions behind locked doors, their openers
    /// placed before them) and prove the result with the solver.
    #[arg(long, default_value_t = 0, value_name = "K")]
    pub(crate) locks: usize,
    /// Of the extra locks, how many are small-key doors (any small key opens one, used up).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) small_keys: usize,
    /// Of the extra locks, how many are heavy doors opened by switches.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) switches: usize,
    /// Of the extra locks, how many open once a task is done (clear a room, solve a puzzle).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) tasks: usize,
    /// How many links back into earlier regions become one-way shortcuts.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) shortcuts: usize,
    /// Diablo stages: stamp this set piece into the level (RON, or a Tiled map drawn with
    /// levelplan's tileset; `fixtures/setpieces/` has one per stage).
    #[arg(long, value_name = "FILE")]
    pub(crate) set_piece: Option<PathBuf>,
    /// Sectors: the geometry generator (default bsp, or the settings file's).
    #[arg(long, value_enum, value_name = "GENERATOR")]
    pub(crate) geometry: Option<GeometryName>,
    /// Sectors: the field's width and height in cells (16 to 1024 each; default 64 64).
    #[arg(long, num_args = 2, value_names = ["W", "H"])]
    pub(crate) size: Option<Vec<usize>>,
    /// Sectors: a settings file (RON, the fields of `SectorParams`; fields left out keep
    /// their defaults). --geometry and --size override it.
    #[arg(long, value_name = "FILE")]
    pub(crate) sector_params: Option<PathBuf>,
}

/// The sector recipe's geometry generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GeometryName {
    /// Binary space partition: rooms in leaves, corridors between them.
    Bsp,
    /// Room growth: seeds grown until they fill the level's outline.
    Growth,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RecipeName {
    /// A flow laid out with room templates (the default).
    Gungeon,
    /// A flow's graph only.
    Flow,
    /// Grid floor plans in the style of The Binding of Isaac.
    Isaac,
    /// Diablo's first stage.
    Cathedral,
    /// Diablo's second stage.
    Catacombs,
    /// Diablo's third stage.
    Caves,
    /// Diablo's fourth stage.
    Hell,
    /// Sector levels: geometry, its sector graph, a chain of lock-and-key scripts, doors and
    /// windows.
    Sectors,
}

impl RecipeName {
    /// The name as written on the command line.
    fn name(self) -> &'static str {
        match self {
            RecipeName::Gungeon => "gungeon",
            RecipeName::Flow => "flow",
            RecipeName::Isaac => "isaac",
            RecipeName::Cathedral => "cathedral",
            RecipeName::Catacombs => "catacombs",
            RecipeName::Caves => "caves",
            RecipeName::Hell => "hell",
            RecipeName::Sectors => "sectors",
        }
    }

    /// The Diablo stage, for the four Diablo recipes.
    fn diablo(self) -> Option<levelplan::recipes::diablo::DiabloStage> {
        use levelplan::recipes::diablo::DiabloStage;
        match self {
            RecipeName::Cathedral => Some(DiabloStage::Cathedral),
            RecipeName::Catacombs => Some(DiabloStage::Catacombs),
            RecipeName::Caves => Some(DiabloStage::Caves),
            RecipeName::Hell => Some(DiabloStage::Hell),
            _ => None,
        }
    }
}

/// The recipe the options describe, prepared once.
pub(crate) fn build_recipe(args: &RecipeArgs) -> Result<Box<dyn Recipe>, String> {
    let RecipeArgs {
        recipe,
        templates,
        level: floor_level,
        large_rooms,
        labyrinth,
        time_limit,
        grid,
        flow,
        flags,
        locks,
        small_keys,
        switches,
        tasks,
        shortcuts,
        geometry,
        size,
        sector_params,
        set_piece,
    } = args.clone();
    let flow_recipe = matches!(recipe, RecipeName::Flow | RecipeName::Gungeon);
    if !flow_recipe && flow != DEFAULT_FLOW {
        return Err(format!(
            "--flow works on flows; --recipe {} makes its own level",
            recipe.name()
        ));
    }
    if recipe == RecipeName::Sectors && locks > 0 {
        return Err(
            "--locks works on flows, gungeon, isaac and the Diablo stages; sector levels plan their own scripts".into(),
        );
    }
    let gates = small_keys + switches + tasks + shortcuts;
    if locks == 0 && gates > 0 {
        return Err("--small-keys, --switches, --tasks and --shortcuts need --locks K".into());
    }
    let lock_plan = (locks > 0).then_some(LockPlan {
        locks,
        small_key_locks: small_keys,
        switches,
        tasks,
        one_way_shortcuts: shortcuts,
        ..LockPlan::default()
    });
    if recipe != RecipeName::Isaac && (grid.is_some() || large_rooms || labyrinth) {
        return Err("--grid, --large-rooms and --labyrinth work with --recipe isaac".into());
    }
    if recipe != RecipeName::Gungeon && templates.is_some() {
        return Err("--templates works with --recipe gungeon".into());
    }
    if recipe != RecipeName::Sectors
        && (geometry.is_some() || size.is_some() || sector_params.is_some())
    {
        return Err("--geometry, --size and --sector-params work with --recipe sectors".into());
    }
    if recipe.diablo().is_none() && set_piece.is_some() {
        return Err(
            "--set-piece works with the Diablo stages (--recipe cathedral, catacombs, caves or hell)"
                .into(),
        );
    }
    let made: Box<dyn Recipe> = if recipe == RecipeName::Sectors {
        use levelplan::recipes::sectors::{Geometry, SectorParams, SectorRecipe};
        let mut params = match &sector_params {
            Some(path) => {
                let text = levelplan::read_text_file(path).map_err(|e| e.to_string())?;
                SectorParams::from_ron(&text, &path.display().to_string())
                    .map_err(|e| e.to_string())?
            }
            None => SectorParams::default(),
        };
        match geometry {
            Some(GeometryName::Bsp) => params.geometry = Geometry::Bsp,
            Some(GeometryName::Growth) => params.geometry = Geometry::Growth,
            None => {}
        }
        if let Some(size) = &size {
            params.width = size[0];
            params.height = size[1];
        }
        Box::new(SectorRecipe::new(params).map_err(|e| e.to_string())?)
    } else if let Some(stage) = recipe.diablo() {
        let mut made = DiabloRecipe::new(stage, floor_level);
        made.params.locks = lock_plan;
        if let Some(path) = &set_piece {
            made.params.set_piece = Some(levelplan::recipes::diablo::load_set_piece(path)?);
        }
        Box::new(made)
    } else if recipe == RecipeName::Isaac {
        let mut params = IsaacParams {
            large_rooms,
            labyrinth,
            flags: flags.into_iter().collect(),
            ..IsaacParams::default()
        };
        if let Some((w, h)) = grid {
            params.width = w;
            params.height = h;
            params.start = ((w + 1) / 2, (h - 1) / 2);
        }
        let mut made = IsaacRecipe::new(floor_level, params);
        made.locks = lock_plan;
        Box::new(made)
    } else {
        let template = load_flow(&flow)?;
        let name = template.name.clone();
        let flow = Flow::new(template, &name).map_err(|e| e.to_string())?;
        let conditions = flags
            .into_iter()
            .fold(Conditions::new(), Conditions::with_flag);
        if recipe == RecipeName::Gungeon {
            if !(time_limit.is_finite() && time_limit >= 0.0) {
                return Err(format!(
                    "--time-limit {time_limit}: give a number of seconds, 0 or more"
                ));
            }
            let mut params = GungeonParams {
                conditions,
                locks: lock_plan,
                time_limit: (time_limit > 0.0)
                    .then(|| std::time::Duration::from_secs_f64(time_limit.min(1e9))),
                ..GungeonParams::default()
            };
            if let Some(path) = &templates {
                params.library = load_library(path)?;
            }
            Box::new(Generator::new(flow, params).map_err(|e| e.to_string())?)
        } else {
            Box::new(FlowRecipe::new(flow, conditions, lock_plan))
        }
    };
    Ok(made)
}

/// A grid size on the command line: `12x10`.
fn parse_grid(text: &str) -> Result<(i32, i32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{text}` is not a grid size (write COLUMNSxROWS, e.g. 12x10)"))?;
    let side = |s: &str| {
        s.trim()
            .parse::<i32>()
            .ok()
            .filter(|n| (2..=64).contains(n))
            .ok_or_else(|| format!("`{text}`: each side must be a whole number from 2 to 64"))
    };
    Ok((side(w)?, side(h)?))
}

/// A room id on the command line: `r7` or `7`.
fn parse_room(text: &str) -> Result<levelplan::RoomId, String> {
    text.trim_start_matches('r')
        .parse::<u32>()
        .map(levelplan::RoomId)
        .map_err(|_| format!("`{text}` is not a room id (write r7 or 7)"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Generate {
            recipe,
            seed,
            dot,
            json,
            ron,
            svg,
            tmj,
            ldtk,
            tileset,
        } => {
            let outputs = [
                dot.as_deref(),
                json.as_deref(),
                ron.as_deref(),
                svg.as_deref(),
                tmj.as_deref(),
                ldtk.as_deref(),
            ];
            distinct_outputs(&outputs)?;
            if recipe.recipe == RecipeName::Flow
                && (svg.is_some() || tmj.is_some() || ldtk.is_some())
            {
                return Err(
                    "--svg, --tmj and --ldtk need a recipe with a tile map; --recipe flow \
                     makes only the graph"
                        .into(),
                );
            }
            let made = build_recipe(&recipe)?;
            generate(&*made, seed, outputs, tileset.as_deref())
        }
        Command::Stats(args) => stats::run(&args, build_recipe(&args.recipe)?),
        Command::Check { files } => {
            let mut failed = 0;
            for f in &files {
                match FlowTemplate::load(f)
                    .map_err(|e| e.to_string())
                    .and_then(|flow| {
                        // Every rule `generate` relies on: levels of the first seeds are made and
                        // proven completable, as `generate --recipe flow` does.
                        match generate_failure(&flow) {
                            Some(why) => Err(format!("{}: {why}", f.display())),
                            None => Ok(flow),
                        }
                    }) {
                    Ok(flow) => {
                        println!(
                            "ok: {} (flow \"{}\", {} nodes)",
                            f.display(),
                            flow.name,
                            flow.nodes.len()
                        );
                        if let Some(warning) = hole_warning(&flow) {
                            println!("warning: {}: {warning}", f.display());
                        }
                    }
                    Err(e) => {
                        failed += 1;
                        println!("invalid: {e}");
                    }
                }
            }
            if failed > 0 {
                Err(format!(
                    "{failed} of {} flow files are invalid",
                    files.len()
                ))
            } else {
                Ok(ExitCode::SUCCESS)
            }
        }
        Command::Layout {
            edgar,
            seed,
            out,
            explain,
            explain_svg,
        } => {
            distinct_outputs(&[out.as_deref(), explain_svg.as_deref()])?;
            let level = read_edgar(&edgar)?;
            let planner = Planner::new(level.problem.clone())
                .map_err(|e| format!("{}: {e}", edgar.display()))?;
            let layout = planner.layout(seed).map_err(|e| {
                let mut text = format!("{}: {e}", edgar.display());
                let wanted = explain || explain_svg.is_some();
                // A big level laid out in parts shows where its parts got stuck (the
                // room-by-room search it falls back on rarely says more).
                let picture = wanted
                    .then(|| {
                        planner
                            .deepest_parts(seed)
                            .map(|p| ("fitting the level's parts together", p))
                            .or_else(|| planner.deepest(seed).map(|p| ("the search", p)))
                    })
                    .flatten();
                if let Some((what, stuck)) = picture {
                    if explain {
                        text.push_str(&format!("\nwhere {what} got stuck:\n"));
                        text.push_str(&stuck.to_ascii());
                    }
                    if let Some(path) = &explain_svg {
                        let svg = levelplan::export::svg::partial_layout_to_svg(&stuck, 12);
                        match fs::write(path, svg) {
                            Ok(()) => text.push_str(&format!(
                                "\na picture of where {what} got stuck is in {}",
                                path.display()
                            )),
                            Err(err) => {
                                text.push_str(&format!("\ncannot write {}: {err}", path.display()))
                            }
                        }
                    }
                }
                text
            })?;
            let text = level.layout_to_json(&layout);
            match out {
                Some(path) => {
                    let mut files = Outputs::default();
                    files.add(Some(&path), || text + "\n");
                    files.write()?;
                    eprintln!(
                        "{}: {} rooms laid out in {} attempt(s), written to {}",
                        level.name,
                        layout.rooms.len(),
                        layout.attempts,
                        path.display()
                    );
                }
                None => println!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::VerifyLayout { level, layout } => {
            let lvl = read_edgar(&level)?;
            let text = levelplan::read_text_file(&layout)
                .map_err(|e| format!("cannot read {}: {e}", layout.display()))?;
            match lvl
                .verify_json(&text, &layout.display().to_string())
                .map_err(|e| e.to_string())?
            {
                Ok(()) => {
                    println!(
                        "valid: {} is a layout of {}",
                        layout.display(),
                        level.display()
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(v) => Err(format!("invalid: {}: {v}", layout.display())),
            }
        }
        Command::VerifyLevel {
            level,
            start,
            goal,
            thorough,
        } => {
            let text = levelplan::read_text_file(&level)
                .map_err(|e| format!("cannot read {}: {e}", level.display()))?;
            let options = levelplan::graph::solve::SolveOptions {
                start,
                goal,
                model: if thorough {
                    levelplan::graph::solve::PlayerModel::Thorough
                } else {
                    levelplan::graph::solve::PlayerModel::Skipping
                },
                ..Default::default()
            };
            match levelplan::graph::verify::verify_level_document(
                &text,
                &level.display().to_string(),
                &options,
            ) {
                Ok(verdict) => {
                    print!("{verdict}");
                    Ok(if verdict.accepted() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    })
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(ExitCode::from(2))
                }
            }
        }
        Command::Flows { name: None } => {
            for name in FlowTemplate::builtin_names() {
                let flow = FlowTemplate::builtin(name).expect("built-in flows are valid");
                let marker = if name == DEFAULT_FLOW {
                    " (default)"
                } else {
                    ""
                };
                println!("{name}{marker}\n    {}", flow.description);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Flows { name: Some(name) } => {
            let (_, text) = levelplan::graph::flow::BUILTIN_FLOWS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| unknown_flow(&name))?;
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
