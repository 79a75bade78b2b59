//! Flow templates: hand-authored level graphs and the transforms that vary them.
//!
//! A flow is a tree of nodes from a root (the entrance) plus loop edges, written by a designer
//! in a RON file (format in the crate README). At generation time the template is
//! instantiated into a [`LevelGraph`]:
//!
//! 1. the tree is walked depth-first from the root: optional nodes roll their include chance,
//!    *expanding* nodes become chains of rooms grown by weighted rewrite rules
//!    ([`NodeType::Chain`]), *selectors* build k of their n children chosen by weight
//!    ([`NodeType::Selector`]), and *sub-chain* nodes graft one sub-tree picked from a named
//!    pool ([`NodeType::SubChain`]);
//! 2. loop edges are added between the rooms built for their two ends;
//! 3. injection rules add rooms (shops, secrets, rewards...) where their placement says, if their
//!    chance and the caller's [`Conditions`] allow;
//! 4. every locked door gets its key, in a room the player can reach before that door.
//!
//! Everything follows `shared/spec/flows.md` ("Flows", "Flow transforms", and the node and
//! injection facts of its reference section).

mod build;
mod builtin;
mod chain;
mod inject;
mod validate;

use std::collections::BTreeSet;
use std::path::Path;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::level::{LevelGraph, RoomKind};

pub use build::MAX_ROOMS;
pub use builtin::{BUILTIN_FLOWS, DEFAULT_FLOW};

/// The name of the seed sub-stream flows draw from (see [`crate::seed::stream`]).
pub const FLOW_STAGE: &str = "flow";
pub use chain::evolve_chain;

/// A hand-authored flow: a tree of nodes from a root, loop edges, and injection rules.
///
/// Load one with [`FlowTemplate::from_ron`] or [`FlowTemplate::load`] (both validate it), or take
/// a built-in one with [`FlowTemplate::builtin`]. Instantiate it with
/// [`instantiate`](FlowTemplate::instantiate) or [`generate`](FlowTemplate::generate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowTemplate {
    /// The flow's name.
    pub name: String,
    /// What the flow is designed around, for designers.
    #[serde(default)]
    pub description: String,
    /// The id of the root node: the entrance, where the tree starts.
    pub root: String,
    /// The nodes.
    pub nodes: Vec<FlowNode>,
    /// Tree edges, parent to child. Every node but the root and sub-chain roots has exactly one.
    #[serde(default)]
    pub edges: Vec<TreeEdge>,
    /// Extra edges that close loops.
    #[serde(default)]
    pub loops: Vec<LoopEdge>,
    /// The flow's own injection rules, tried in order.
    #[serde(default)]
    pub injections: Vec<InjectionRule>,
    /// Shared injection sets, processed after the flow's own rules.
    #[serde(default)]
    pub injection_sets: Vec<InjectionSet>,
}

/// One node of a flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowNode {
    /// Unique id within the flow; edges refer to it.
    pub id: String,
    /// The kind of room built for it (for chains, the letters decide instead).
    #[serde(default = "default_kind")]
    pub kind: RoomKind,
    /// Tags copied onto the rooms built for it.
    #[serde(default)]
    pub tags: BTreeSet<String>,
    /// Probability that the node is built when its parent is; for a selector's child, its
    /// selection weight instead. Mandatory nodes must keep the default of 1.
    #[serde(default = "one")]
    pub chance: f64,
    /// Whether the node is always built ([`Priority::Mandatory`]) or may be left out.
    #[serde(default)]
    pub priority: Priority,
    /// Plain room, expanding chain, selector or sub-chain.
    #[serde(default)]
    pub node_type: NodeType,
    /// Makes this node the root of a sub-chain parked in a pool, grafted by
    /// [`NodeType::SubChain`] nodes instead of hanging from a tree edge.
    #[serde(default)]
    pub subchain: Option<SubChainMember>,
}

fn default_kind() -> RoomKind {
    RoomKind::Normal
}

fn one() -> f64 {
    1.0
}

fn half() -> f64 {
    0.5
}

fn initial_chain() -> String {
    "n".to_string()
}

/// Whether a node must be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Priority {
    /// Built whenever its parent is built.
    #[default]
    Mandatory,
    /// Built with its `chance`; later stages may also drop it when it does not fit.
    Optional,
}

/// What a node turns into.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub enum NodeType {
    /// One room of the node's kind.
    #[default]
    Room,
    /// A linear chain of rooms, grown from `initial` by weighted rewrite rules until its length
    /// is drawn uniformly from `min..=max`; each letter is a room kind (see
    /// [`RoomKind::from_chain_letter`]). The first room takes the node's place under its parent;
    /// the node's children and loop edges hang from the last room.
    Chain {
        /// The starting string (default `"n"`).
        #[serde(default = "initial_chain")]
        initial: String,
        /// Minimum chain length (at least 1).
        min: u32,
        /// Maximum chain length (at most 64).
        max: u32,
        /// Rewrite rules.
        #[serde(default)]
        rules: Vec<ChainRule>,
    },
    /// Builds `k` of its children, `k` uniform in `min..=max`, drawn by their `chance` as
    /// weight. The selector itself is no room: chosen children hang from its parent.
    Selector {
        /// Fewest children to build.
        min: u32,
        /// Most children to build.
        max: u32,
        /// Whether the same child may be drawn more than once.
        #[serde(default)]
        duplicates: bool,
    },
    /// Grafts one sub-chain, picked uniformly among the members of the named pools whose copy
    /// limit is not used up. The node itself is no room.
    SubChain {
        /// Pool names to pick from.
        pools: Vec<String>,
    },
}

/// A rewrite rule of an expanding chain: replace one occurrence of `form` by `target`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainRule {
    /// The letters to find.
    pub form: String,
    /// The letters that replace them.
    pub target: String,
    /// Relative weight among the rules that apply.
    #[serde(default = "one")]
    pub weight: f64,
    /// Mandatory rules are applied, after the length is reached, until none applies.
    #[serde(default)]
    pub mandatory: bool,
}

/// Marks a node as the root of a sub-chain in a pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubChainMember {
    /// The pool's name.
    pub pool: String,
    /// How many times this sub-chain may be grafted in one level (default 1, at most 64).
    #[serde(default = "one_u32")]
    pub max_copies: u32,
}

fn one_u32() -> u32 {
    1
}

/// The door on an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum DoorType {
    /// An ordinary door (a secret passage when it leads into a secret room).
    #[default]
    Plain,
    /// A locked door; its key is placed where the player reaches it first.
    Locked,
    /// Passable only from the edge's `from` to its `to`.
    OneWay,
    /// A hidden passage.
    Secret,
}

/// A tree edge from parent to child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeEdge {
    /// Parent node id.
    pub from: String,
    /// Child node id.
    pub to: String,
    /// The door between them.
    #[serde(default)]
    pub door: DoorType,
}

/// An extra edge that closes a loop. With `door: OneWay` it is passable only from `from` to
/// `to`: the classic one-way loop whose far end holds a reward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopEdge {
    /// One end.
    pub from: String,
    /// The other end.
    pub to: String,
    /// The door between them.
    #[serde(default)]
    pub door: DoorType,
}

/// Where an injection rule puts its room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// A new child of a leaf (a room with no children that is not an exit, a secret room or a
    /// boss); falls back to [`Placement::RandomChild`] when there is no leaf.
    EndOfChain,
    /// A new child of a random standard room (normal, connector, hub) at least `min_distance`
    /// tree links from the entrance.
    RandomChild {
        /// Minimum depth of the parent.
        #[serde(default)]
        min_distance: u32,
    },
    /// Inserted between a random combat room and its parent; the combat room is a standard room
    /// at depth at least `min_distance` that lies on no loop.
    BeforeCombat {
        /// Minimum depth of the combat room.
        #[serde(default)]
        min_distance: u32,
    },
    /// Inserted between a boss room and its child (or as the boss's child when it has none).
    AfterBoss,
    /// Inserted between a hub and one of its children.
    HubChainStart,
    /// A new child of a hub.
    HubChild,
    /// Linked to the entrance by a warp (teleporter) only.
    NoLink,
}

impl Placement {
    /// A short name for summaries.
    pub fn name(&self) -> &'static str {
        match self {
            Placement::EndOfChain => "end of chain",
            Placement::RandomChild { .. } => "random child",
            Placement::BeforeCombat { .. } => "before combat",
            Placement::AfterBoss => "after boss",
            Placement::HubChainStart => "hub chain start",
            Placement::HubChild => "hub child",
            Placement::NoLink => "no link",
        }
    }
}

/// A data-driven rule that adds a room to an instantiated flow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectionRule {
    /// Unique name; recorded on the rooms it adds and used for once-per-run bookkeeping.
    pub name: String,
    /// Kind of room to add.
    pub kind: RoomKind,
    /// Tags for the added room.
    #[serde(default)]
    pub tags: BTreeSet<String>,
    /// Possible placements; one is chosen uniformly each time the rule fires.
    pub placements: Vec<Placement>,
    /// Chance that the rule fires.
    #[serde(default = "one")]
    pub chance: f64,
    /// Chance that the door into the added room is locked.
    #[serde(default)]
    pub lock_chance: f64,
    /// Weight when a set with `only_one` picks one of its rules.
    #[serde(default = "one")]
    pub weight: f64,
    /// At most once per run: skipped when [`Conditions::spent`] holds its name.
    #[serde(default)]
    pub once_per_run: bool,
    /// Condition flags that must all be set.
    #[serde(default)]
    pub requires: Vec<String>,
    /// Condition flags that must all be unset.
    #[serde(default)]
    pub unless: Vec<String>,
}

/// A group of injection rules processed together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectionSet {
    /// The set's name.
    pub name: String,
    /// If set, the whole set fires with `chance_to_spawn_one` and then adds one rule's room,
    /// picked by weight among the eligible rules; otherwise every rule is tried, in a shuffled
    /// order.
    #[serde(default)]
    pub only_one: bool,
    /// Chance that an `only_one` set fires at all (default 0.5).
    #[serde(default = "half")]
    pub chance_to_spawn_one: f64,
    /// The rules.
    pub rules: Vec<InjectionRule>,
}

/// What the caller knows about the game state: condition flags for injection rules, and which
/// once-per-run rules already fired in this run.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Conditions {
    /// Flags that are set.
    pub flags: BTreeSet<String>,
    /// Names of once-per-run rules already used in this run.
    pub spent: BTreeSet<String>,
}

impl Conditions {
    /// No flags, nothing spent.
    pub fn new() -> Conditions {
        Conditions::default()
    }

    /// Sets a flag (builder style).
    pub fn with_flag(mut self, flag: impl Into<String>) -> Conditions {
        self.flags.insert(flag.into());
        self
    }

    /// Records every injection rule that added a room to `level` as used in this run, so
    /// that once-per-run rules do not fire again in the next level.
    pub fn mark_spent(&mut self, level: &LevelGraph) {
        for (_, room) in level.rooms() {
            if let super::level::RoomOrigin::Injected { rule, .. } = &room.origin {
                self.spent.insert(rule.clone());
            }
        }
    }
}

/// What can go wrong when reading, checking or instantiating a flow.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The file could not be read.
    #[error("{file}: cannot read the file: {message}")]
    Io {
        /// The file.
        file: String,
        /// The kind of failure (not found, permission denied, ...), for a program to act on.
        kind: std::io::ErrorKind,
        /// What the system said.
        message: String,
    },
    /// The file is not valid RON for a flow.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A field has a value that is not allowed.
    #[error("{file}: {place}: field `{field}`: {problem}")]
    Invalid {
        /// The file.
        file: String,
        /// The node, edge or rule (for example `node "hall"`).
        place: String,
        /// The field.
        field: String,
        /// What is wrong and what would be valid.
        problem: String,
    },
    /// An edge, loop or pool refers to a node that does not exist.
    #[error(
        "{file}: {place}: field `{field}` names node \"{name}\", which does not exist; known nodes: {known}"
    )]
    UnknownNode {
        /// The file.
        file: String,
        /// The edge or loop.
        place: String,
        /// The field.
        field: String,
        /// The unknown name.
        name: String,
        /// The node ids that do exist.
        known: String,
    },
    /// A node that no tree edge or sub-chain pool leads to.
    #[error(
        "{file}: node \"{node}\": cannot be reached from the root \"{root}\" by tree edges; add a tree edge to it, or make it a sub-chain root (field `subchain`) of a pool that a SubChain node uses"
    )]
    Unreachable {
        /// The file.
        file: String,
        /// The node.
        node: String,
        /// The flow's root.
        root: String,
    },
    /// The tree edges contain a cycle.
    #[error(
        "{file}: tree edges form a cycle: {cycle}; tree edges must form a tree below the root: close loops with `loops` instead"
    )]
    TreeCycle {
        /// The file.
        file: String,
        /// The nodes of the cycle, joined by arrows.
        cycle: String,
    },
    /// An expanding chain whose length bounds cannot be met.
    #[error("{file}: node \"{node}\": field `node_type`: impossible chain lengths: {problem}")]
    ChainLength {
        /// The file.
        file: String,
        /// The node.
        node: String,
        /// Why, and what would be valid.
        problem: String,
    },
    /// Instantiation could not satisfy a constraint within its budget.
    #[error("flow \"{flow}\": node \"{node}\": {problem}")]
    Generation {
        /// The flow's name.
        flow: String,
        /// The node.
        node: String,
        /// Which constraint failed.
        problem: String,
    },
}

impl FlowTemplate {
    /// Parses and validates a flow written in RON. `file` names the source in error messages.
    ///
    /// # Examples
    ///
    /// ```
    /// use levelplan::FlowTemplate;
    /// let text = r#"(
    ///     name: "tiny",
    ///     root: "start",
    ///     nodes: [(id: "start", kind: Entrance), (id: "end", kind: Exit)],
    ///     edges: [(from: "start", to: "end")],
    /// )"#;
    /// let flow = FlowTemplate::from_ron(text, "tiny.ron")?;
    /// assert_eq!(flow.nodes.len(), 2);
    ///
    /// let broken = text.replace("to: \"end\"", "to: \"nowhere\"");
    /// let err = FlowTemplate::from_ron(&broken, "tiny.ron").unwrap_err();
    /// assert!(err.to_string().contains("node \"nowhere\", which does not exist"));
    /// # Ok::<(), levelplan::FlowError>(())
    /// ```
    pub fn from_ron(text: &str, file: &str) -> Result<FlowTemplate, FlowError> {
        let flow: FlowTemplate =
            crate::data::from_ron(text, true).map_err(|e| FlowError::Syntax {
                file: file.to_string(),
                line: e.line,
                column: e.column,
                message: e.message,
            })?;
        flow.validate(file)?;
        Ok(flow)
    }

    /// Reads, parses and validates a flow file.
    pub fn load(path: impl AsRef<Path>) -> Result<FlowTemplate, FlowError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = crate::data::read_text_file(path).map_err(|e| FlowError::Io {
            file: file.clone(),
            kind: e.kind(),
            message: e.to_string(),
        })?;
        FlowTemplate::from_ron(&text, &file)
    }

    /// The template as pretty RON (the format [`from_ron`](Self::from_ron) reads).
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("a flow template always serialises")
    }

    /// Checks the template: ids, references, reachability, tree shape, chain bounds, chances.
    /// `file` names the source in error messages. [`from_ron`](Self::from_ron) already calls it;
    /// call it again after editing a template in code.
    pub fn validate(&self, file: &str) -> Result<(), FlowError> {
        validate::validate(self, file)
    }

    /// Builds one level graph from the template, drawing every random choice from `rng`.
    ///
    /// The template is validated first, so an invalid one gives an error, never a panic. To
    /// generate many levels from one template, check it once with [`Flow::new`] and call
    /// [`Flow::instantiate`], which skips the check and reuses its lookup tables.
    ///
    /// # Errors
    /// [`FlowError::Generation`] if an expanding chain cannot reach its length bounds, a
    /// mandatory sub-chain finds its pools used up, or the level would pass [`MAX_ROOMS`];
    /// validation errors for invalid templates.
    ///
    /// # Examples
    ///
    /// ```
    /// use levelplan::{Conditions, FlowTemplate, LevelRng};
    /// use rand::SeedableRng;
    ///
    /// let flow = FlowTemplate::builtin("big_loop").unwrap();
    /// let mut rng = LevelRng::seed_from_u64(9);
    /// let level = flow.instantiate(&mut rng, &Conditions::default())?;
    /// assert!(levelplan::graph::has_cycle(&level));
    /// # Ok::<(), levelplan::FlowError>(())
    /// ```
    pub fn instantiate<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        conditions: &Conditions,
    ) -> Result<LevelGraph, FlowError> {
        self.validate(&format!("flow \"{}\"", self.name))?;
        build::instantiate(self, &build::Plan::new(self), rng, conditions)
    }

    /// Builds the level graph for a level seed: [`instantiate`](Self::instantiate) with the
    /// seed's `"flow"` sub-stream (see [`crate::seed`]).
    pub fn generate(&self, seed: u64, conditions: &Conditions) -> Result<LevelGraph, FlowError> {
        let mut rng = crate::seed::stream(seed, FLOW_STAGE);
        self.instantiate(&mut rng, conditions)
    }

    /// A built-in flow by name (see [`BUILTIN_FLOWS`]).
    pub fn builtin(name: &str) -> Option<FlowTemplate> {
        builtin::builtin(name)
    }

    /// The names of the built-in flows.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN_FLOWS.iter().map(|(name, _)| *name)
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&FlowNode> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// All injection rules: the flow's own, then those of each set.
    pub fn all_injection_rules(&self) -> impl Iterator<Item = &InjectionRule> {
        self.injections
            .iter()
            .chain(self.injection_sets.iter().flat_map(|s| s.rules.iter()))
    }
}

/// A checked flow template, ready to instantiate many times.
///
/// [`Flow::new`] validates the template once and builds its lookup tables; every
/// [`instantiate`](Flow::instantiate) after that skips both. Use it when a game generates many
/// levels from the same flows.
///
/// # Examples
///
/// ```
/// use levelplan::graph::flow::Flow;
/// use levelplan::Conditions;
///
/// let flow = Flow::builtin("hub_spokes").unwrap();
/// let levels: Vec<_> = (0..10)
///     .map(|seed| flow.generate(seed, &Conditions::default()))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(levels.len(), 10);
/// # Ok::<(), levelplan::FlowError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    template: FlowTemplate,
    plan: build::Plan,
}

impl Flow {
    /// Validates `template` (`file` names it in error messages) and prepares it.
    pub fn new(template: FlowTemplate, file: &str) -> Result<Flow, FlowError> {
        template.validate(file)?;
        let plan = build::Plan::new(&template);
        Ok(Flow { template, plan })
    }

    /// Parses, validates and prepares a flow written in RON.
    pub fn from_ron(text: &str, file: &str) -> Result<Flow, FlowError> {
        let template = FlowTemplate::from_ron(text, file)?;
        let plan = build::Plan::new(&template);
        Ok(Flow { template, plan })
    }

    /// Reads, validates and prepares a flow file.
    pub fn load(path: impl AsRef<Path>) -> Result<Flow, FlowError> {
        let template = FlowTemplate::load(path)?;
        let plan = build::Plan::new(&template);
        Ok(Flow { template, plan })
    }

    /// A built-in flow by name (see [`BUILTIN_FLOWS`]).
    pub fn builtin(name: &str) -> Option<Flow> {
        let template = FlowTemplate::builtin(name)?;
        let plan = build::Plan::new(&template);
        Some(Flow { template, plan })
    }

    /// The template this flow was prepared from.
    pub fn template(&self) -> &FlowTemplate {
        &self.template
    }

    /// The flow's name.
    pub fn name(&self) -> &str {
        &self.template.name
    }

    /// Builds one level graph, drawing every random choice from `rng`; see
    /// [`FlowTemplate::instantiate`] for what happens and when it fails.
    ///
    /// # Complexity
    /// Roughly `O(N · (V + E) log V)` for `N` injection rules and a level of `V` rooms and `E`
    /// links, plus `O(K · (V + E) log V)` to place the keys of `K` locks. Built-in flows take
    /// a few microseconds (see `benches/flows.rs`).
    pub fn instantiate<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        conditions: &Conditions,
    ) -> Result<LevelGraph, FlowError> {
        build::instantiate(&self.template, &self.plan, rng, conditions)
    }

    /// Builds the level graph for a level seed, from its `"flow"` sub-stream.
    pub fn generate(&self, seed: u64, conditions: &Conditions) -> Result<LevelGraph, FlowError> {
        let mut rng = crate::seed::stream(seed, FLOW_STAGE);
        self.instantiate(&mut rng, conditions)
    }
}
