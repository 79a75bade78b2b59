//! A verifier anyone can run on a level file: reads the document `levelplan generate --json`
//! (or `--ron`) writes, of any recipe with a graph, and gives the solver's verdict with its
//! reasons.
//!
//! The document's graph is found where the recipes put it: a `graph` object at the top level
//! (the flow, Gungeon and Diablo recipes), inside `floor` (the Isaac recipe), or the document
//! itself if it is a bare graph (`LevelGraph::to_json`). The start and the goal are the
//! document's own where it names them (a Diablo stage's `start` and `goal`, else the
//! walkthrough's), and otherwise the solver's defaults (the entrance; the first exit, else the
//! first boss room).

use std::fmt;

use serde::Deserialize;

use super::level::{LevelGraph, RoomId};
use super::solve::{SolveOptions, Unsolvable, Walkthrough, solve_with};

/// What [`verify_level_document`] found: where the level is played from and to, and the
/// solver's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelVerdict {
    /// The level's graph, as read.
    pub graph: LevelGraph,
    /// Where the player starts (from the document, else the entrance).
    pub start: Option<RoomId>,
    /// The goal (from the document, else the solver's default).
    pub goal: Option<RoomId>,
    /// The walkthrough of an accepted level, or why it is not accepted.
    pub verdict: Result<Walkthrough, Unsolvable>,
    /// For a document with tiles, its game view checked against its graph and tiles
    /// ([`crate::view::check`]); `None` for a graph without tiles.
    pub view: Option<Result<(), crate::view::ViewError>>,
}

impl LevelVerdict {
    /// Whether the level is accepted: the goal can be reached, every part of the level is
    /// reached in some play, and no play gets stuck.
    pub fn accepted(&self) -> bool {
        self.verdict.is_ok() && !matches!(self.view, Some(Err(_)))
    }
}

impl fmt::Display for LevelVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(Err(e)) = &self.view {
            return writeln!(f, "rejected: the game view: {e}");
        }
        match &self.verdict {
            Ok(w) => {
                writeln!(
                    f,
                    "accepted: {} rooms, {} links; every play can still finish, from {} to {}",
                    self.graph.room_count(),
                    self.graph.link_count(),
                    w.start,
                    w.goal
                )?;
                for (i, step) in w.steps.iter().enumerate() {
                    writeln!(f, "  {:>2}. {step}", i + 1)?;
                }
                Ok(())
            }
            Err(e) => writeln!(f, "rejected: {e}"),
        }
    }
}

/// Why a level document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LevelFileError {
    /// Neither JSON nor RON.
    #[error("{file}: cannot read the document: {why}")]
    Format {
        /// The file, as given.
        file: String,
        /// The parser's message (with line and column).
        why: String,
    },
    /// No level graph where the recipes put one.
    #[error(
        "{file}: no level graph: expected a \"graph\" object (at the top level, or in \"floor\" for Isaac floors), or a bare graph with \"rooms\" and \"links\""
    )]
    NoGraph {
        /// The file.
        file: String,
    },
    /// The graph's records are wrong: the message names the record.
    #[error("{file}: {path}: {why}")]
    Graph {
        /// The file.
        file: String,
        /// Where the graph sits in the document (`graph`, `floor.graph`, or the top level).
        path: &'static str,
        /// What is wrong, naming the record.
        why: String,
    },
    /// A start or goal field that is not a room of the graph.
    #[error("{file}: \"{field}\" is {value}, which is not a room of the graph")]
    BadEnd {
        /// The file.
        file: String,
        /// The field (`start`, `goal`, `walkthrough.start`, `walkthrough.goal`).
        field: &'static str,
        /// What it holds.
        value: String,
    },
}

/// Reads a level document and proves it, or says why not.
///
/// # Arguments
/// * `text`: the document, JSON or RON, as `levelplan generate --json` / `--ron` writes it (any
///   recipe), or a bare graph.
/// * `file`: its name, for messages.
/// * `options`: the solver's settings; a start or goal set here wins over the document's.
///
/// # Returns
/// A [`LevelVerdict`] (the solver's answer, accepted or not, with its reasons), or a
/// [`LevelFileError`] naming what in the document is wrong. Never panics on a document.
///
/// # Complexity
/// Linear in the document, plus the solver's cost.
///
/// # Examples
/// ```
/// use levelplan::graph::verify::verify_level_document;
/// use levelplan::{Conditions, FlowTemplate};
///
/// let level = FlowTemplate::builtin("classic").unwrap().generate(1, &Conditions::default())?;
/// let document = format!("{{\"flow\": \"classic\", \"graph\": {}}}", level.to_json());
/// let verdict = verify_level_document(&document, "level.json", &Default::default())?;
/// assert!(verdict.accepted(), "{verdict}");
///
/// let broken = document.replace("\"to\": 1,", "\"to\": 99,");
/// let err = verify_level_document(&broken, "level.json", &Default::default()).unwrap_err();
/// assert_eq!(err.to_string(), "level.json: graph: link l0 joins r99, which is not among the graph's rooms");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_level_document(
    text: &str,
    file: &str,
    options: &SolveOptions,
) -> Result<LevelVerdict, LevelFileError> {
    let document = read_document(text, file)?;
    let graph = document.graph;
    let end =
        |field: &'static str, value: Option<RoomId>| -> Result<Option<RoomId>, LevelFileError> {
            match value {
                None => Ok(None),
                Some(room) if graph.contains_room(room) => Ok(Some(room)),
                Some(room) => Err(LevelFileError::BadEnd {
                    file: file.to_string(),
                    field,
                    value: room.0.to_string(),
                }),
            }
        };
    let start = match end("start", document.start)? {
        Some(r) => Some(r),
        None => end("walkthrough.start", document.walkthrough.start)?,
    };
    let goal = match end("goal", document.goal)? {
        Some(r) => Some(r),
        None => end("walkthrough.goal", document.walkthrough.goal)?,
    };
    let solve_options = SolveOptions {
        start: options.start.or(start),
        goal: options.goal.or(goal),
        ..options.clone()
    };
    let verdict = solve_with(&graph, &solve_options);
    Ok(LevelVerdict {
        start: solve_options.start,
        goal: solve_options.goal,
        graph,
        verdict,
        view: game_view(text),
    })
}

/// The game view of a document that has tiles, checked; `None` for one without (a flow's
/// graph, a bare graph).
fn game_view(text: &str) -> Option<Result<(), crate::view::ViewError>> {
    let json = text.trim_start().starts_with('{');
    let has_tiles = if json {
        serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("tiles").cloned())
            .is_some()
    } else {
        text.contains("tiles:")
    };
    if !has_tiles {
        return None;
    }
    let read = if json {
        crate::Level::from_json(text)
    } else {
        crate::Level::from_ron(text)
    };
    Some(match read {
        Ok(level) => crate::view::check(&level),
        Err(e) => Err(crate::view::ViewError {
            field: "document",
            subject: "the level".into(),
            problem: e.to_string(),
        }),
    })
}

/// The parts of a level document the verifier reads; every other field is left alone.
#[derive(Deserialize)]
struct Document {
    graph: Option<LevelGraph>,
    floor: Option<FloorPart>,
    start: Option<RoomId>,
    goal: Option<RoomId>,
    #[serde(default)]
    walkthrough: Ends,
}

#[derive(Deserialize)]
struct FloorPart {
    graph: Option<LevelGraph>,
}

#[derive(Deserialize, Default)]
struct Ends {
    start: Option<RoomId>,
    goal: Option<RoomId>,
}

/// A document read: its graph and the ends it names.
struct Read {
    graph: LevelGraph,
    start: Option<RoomId>,
    goal: Option<RoomId>,
    walkthrough: Ends,
}

fn read_document(text: &str, file: &str) -> Result<Read, LevelFileError> {
    let json = text.trim_start().starts_with('{');
    // Where the graph sits, for messages.
    let path = |has: &dyn Fn(&str) -> bool| {
        if has("graph") {
            "graph"
        } else if has("floor") {
            "floor.graph"
        } else {
            "the top level"
        }
    };
    let graph_error = |path: &'static str, why: String| LevelFileError::Graph {
        file: file.to_string(),
        path,
        why,
    };
    let document: Document = if json {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| LevelFileError::Format {
                file: file.to_string(),
                why: e.to_string(),
            })?;
        let at = path(&|key| value.get(key).is_some());
        serde_json::from_value(value).map_err(|e| graph_error(at, e.to_string()))?
    } else {
        // The recipes' documents hold their graph plainly, not as `Some(..)`.
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| {
                let at = path(&|key| text.contains(&format!("{key}:")));
                if text.contains("rooms:") {
                    graph_error(at, e.to_string())
                } else {
                    LevelFileError::Format {
                        file: file.to_string(),
                        why: e.to_string(),
                    }
                }
            })?
    };
    let found = document
        .graph
        .or_else(|| document.floor.and_then(|f| f.graph));
    let graph = match found {
        Some(g) => g,
        None => {
            // A bare graph, as LevelGraph::to_json / to_ron write it.
            let has_rooms = text.contains("\"rooms\"") || text.contains("rooms:");
            if !has_rooms {
                return Err(LevelFileError::NoGraph {
                    file: file.to_string(),
                });
            }
            let bare = if json {
                LevelGraph::from_json(text)
            } else {
                LevelGraph::from_ron(text)
            };
            bare.map_err(|e| graph_error("the top level", e.to_string()))?
        }
    };
    Ok(Read {
        graph,
        start: document.start,
        goal: document.goal,
        walkthrough: document.walkthrough,
    })
}
