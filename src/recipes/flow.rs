//! A flow's graph only: flow -> transforms and injections -> planned locks -> proof of
//! completion, and no space. What a designer inspects before any room is placed, and what
//! `levelplan generate --recipe flow` makes.

use crate::graph::flow::{Conditions, Flow, FlowError};
use crate::graph::lock_and_key::{self, LockPlan, PlanError};
use crate::graph::solve::solve;
use crate::{Level, RecipeError};

/// The stream the lock planner of a graph-only level draws from.
const LOCK_STAGE: &str = "locks";

/// Graph-only levels of one flow, as a [`crate::Recipe`]: the level has a graph and a
/// walkthrough, no tiles and no layout.
///
/// # Examples
/// ```
/// use levelplan::recipes::flow::FlowRecipe;
/// use levelplan::{Conditions, Flow, Recipe};
/// let recipe = FlowRecipe::new(Flow::builtin("classic").unwrap(), Conditions::default(), None);
/// let level = recipe.generate(7)?;
/// assert!(level.layout.is_none());
/// assert_eq!(level.walkthrough.goal, level.goal);
/// # Ok::<(), levelplan::RecipeError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FlowRecipe {
    flow: Flow,
    conditions: Conditions,
    locks: Option<LockPlan>,
}

/// Why a graph-only level could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlowRecipeError {
    /// The flow made no graph.
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// The lock planner found no plan.
    #[error("planning locks: {0}")]
    Locks(#[from] PlanError),
}

impl FlowRecipe {
    /// Levels of `flow` under `conditions`, with `locks` planned on top of the flow's own.
    pub fn new(flow: Flow, conditions: Conditions, locks: Option<LockPlan>) -> FlowRecipe {
        FlowRecipe {
            flow,
            conditions,
            locks,
        }
    }

    /// The flow.
    pub fn flow(&self) -> &Flow {
        &self.flow
    }
}

impl crate::Recipe for FlowRecipe {
    fn name(&self) -> &'static str {
        "flow"
    }

    fn generate(&self, seed: u64) -> Result<Level, RecipeError> {
        let failed = |e: FlowRecipeError| RecipeError::failed("flow", e);
        let mut graph = self
            .flow
            .generate(seed, &self.conditions)
            .map_err(|e| failed(e.into()))?;
        if let Some(plan) = self.locks.as_ref().filter(|p| p.locks > 0) {
            let mut rng = crate::seed::stream(seed, LOCK_STAGE);
            lock_and_key::plan(&mut graph, plan, &mut rng).map_err(|e| failed(e.into()))?;
        }
        let walkthrough = solve(&graph).map_err(|source| RecipeError::Unsolvable {
            recipe: "flow",
            source,
        })?;
        Ok(Level::graph_only(
            self.flow.name(),
            seed,
            graph,
            walkthrough,
        ))
    }
}
