//! The `levelplan` command line: generate levels from flows, check flow files, list flows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use levelplan::graph::flow::DEFAULT_FLOW;
use levelplan::graph::{cycle_rank, dead_ends, distances_from, to_dot};
use levelplan::{Conditions, FlowTemplate, LevelGraph, LinkKind, LinkRole, RoomKind, RoomOrigin};

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

#[derive(Subcommand)]
enum Command {
    /// Generate a level graph from a flow and print a summary of it.
    ///
    /// With no options it uses the built-in default flow and seed 1.
    Generate {
        /// A built-in flow's name (see `levelplan flows`) or the path of a flow file (.ron).
        #[arg(long, default_value = DEFAULT_FLOW, value_name = "NAME|FILE")]
        flow: String,
        /// The level seed: the same flow and seed give the same level, byte for byte.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Set a condition flag for the flow's injection rules (repeatable).
        #[arg(long = "flag", value_name = "FLAG")]
        flags: Vec<String>,
        /// Write the graph as Graphviz DOT to this file (render with `dot -Tsvg`).
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
        /// Write the graph as JSON to this file.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write the graph as RON to this file.
        #[arg(long, value_name = "FILE")]
        ron: Option<PathBuf>,
    },
    /// Check flow files: syntax, node references, reachability, tree shape, chain bounds.
    ///
    /// Prints one line per file; exits non-zero if any file is invalid.
    Check {
        /// The flow files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// List the built-in flows, or print one's source (a starting point for your own).
    Flows {
        /// Print this built-in flow's RON source.
        name: Option<String>,
    },
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
            flow,
            seed,
            flags,
            dot,
            json,
            ron,
        } => {
            let template = load_flow(&flow)?;
            let conditions = flags
                .into_iter()
                .fold(Conditions::new(), Conditions::with_flag);
            let level = template
                .generate(seed, &conditions)
                .map_err(|e| e.to_string())?;
            print!("{}", summary(&template, seed, &level));
            let title = format!("{} (seed {seed})", template.name);
            write_output(dot.as_deref(), || to_dot(&level, &title))?;
            write_output(json.as_deref(), || level.to_json())?;
            write_output(ron.as_deref(), || level.to_ron())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { files } => {
            let mut failed = 0;
            for f in &files {
                match FlowTemplate::load(f) {
                    Ok(flow) => println!(
                        "ok: {} (flow \"{}\", {} nodes)",
                        f.display(),
                        flow.name,
                        flow.nodes.len()
                    ),
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

fn unknown_flow(name: &str) -> String {
    let names: Vec<&str> = FlowTemplate::builtin_names().collect();
    format!(
        "\"{name}\" is neither a built-in flow nor a file; built-in flows: {}",
        names.join(", ")
    )
}

fn load_flow(name_or_file: &str) -> Result<FlowTemplate, String> {
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

fn write_output(path: Option<&Path>, text: impl FnOnce() -> String) -> Result<(), String> {
    if let Some(path) = path {
        std::fs::write(path, text())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn summary(flow: &FlowTemplate, seed: u64, level: &LevelGraph) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "flow \"{}\", seed {seed}", flow.name);
    let loops = level
        .links()
        .filter(|(.., l)| l.role == LinkRole::Loop)
        .count();
    let one_way = level
        .links()
        .filter(|(.., l)| l.kind == LinkKind::OneWay)
        .count();
    let _ = writeln!(
        out,
        "  {} rooms, {} links, {} independent cycles ({loops} loop edges), {} locks, {one_way} one-way links",
        level.room_count(),
        level.link_count(),
        cycle_rank(level),
        level.locks().count()
    );
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for (_, r) in level.rooms() {
        *kinds.entry(r.kind.name().to_string()).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let _ = writeln!(out, "  rooms by kind: {}", kinds.join(", "));
    let Some(entrance) = level.entrance() else {
        return out;
    };
    let dist = distances_from(level, entrance);
    for kind in [RoomKind::Boss, RoomKind::Exit] {
        for r in level.rooms_of_kind(&kind) {
            if let Some(d) = dist.get(&r) {
                let _ = writeln!(out, "  {kind} {r} is {d} rooms from the entrance");
            }
        }
    }
    let _ = writeln!(out, "  dead ends: {}", dead_ends(level).len());
    for (id, from, to, link) in level.links() {
        if link.role == LinkRole::Loop {
            let way = if link.kind == LinkKind::OneWay {
                "one-way"
            } else {
                "two-way"
            };
            let _ = writeln!(out, "  loop {id}: {from} -> {to} ({way}, {:?})", link.kind);
        }
    }
    for (id, lock) in level.locks() {
        let (from, to) = level.endpoints(id).expect("lock link");
        let holders: Vec<String> = level
            .rooms()
            .filter(|(_, r)| {
                r.items
                    .iter()
                    .any(|i| i.opens().map(|(k, _)| k) == Some(lock.by))
            })
            .map(|(rid, r)| format!("{rid} ({})", r.kind))
            .collect();
        let _ = writeln!(
            out,
            "  lock {id}: {from} -> {to} needs {:?} {}, found in {}",
            lock.opener,
            lock.by,
            if holders.is_empty() {
                "nowhere".to_string()
            } else {
                holders.join(", ")
            }
        );
    }
    for (id, r) in level.rooms() {
        if let RoomOrigin::Injected { rule, placement } = &r.origin {
            let _ = writeln!(
                out,
                "  injected {id} ({}) by rule \"{rule}\", {}",
                r.kind,
                placement.name()
            );
        }
    }
    out
}
