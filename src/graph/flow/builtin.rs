//! The built-in flows: RON files under `fixtures/flows`, embedded in the binary.

use super::FlowTemplate;

/// The flow `levelplan generate` uses when none is named.
pub const DEFAULT_FLOW: &str = "classic";

/// Every built-in flow as `(name, RON source)`; each is designed around one feature.
pub const BUILTIN_FLOWS: &[(&str, &str)] = &[
    (
        "classic",
        include_str!("../../../fixtures/flows/classic.ron"),
    ),
    (
        "big_loop",
        include_str!("../../../fixtures/flows/big_loop.ron"),
    ),
    ("fork", include_str!("../../../fixtures/flows/fork.ron")),
    (
        "one_way_reward",
        include_str!("../../../fixtures/flows/one_way_reward.ron"),
    ),
    (
        "hub_spokes",
        include_str!("../../../fixtures/flows/hub_spokes.ron"),
    ),
    (
        "long_chain",
        include_str!("../../../fixtures/flows/long_chain.ron"),
    ),
    (
        "secrets",
        include_str!("../../../fixtures/flows/secrets.ron"),
    ),
];

pub(super) fn builtin(name: &str) -> Option<FlowTemplate> {
    let (_, text) = BUILTIN_FLOWS.iter().find(|(n, _)| *n == name)?;
    let file = format!("fixtures/flows/{name}.ron");
    match FlowTemplate::from_ron(text, &file) {
        Ok(flow) => Some(flow),
        // The built-in files are checked by the test suite; this cannot happen in a release.
        Err(e) => panic!("built-in flow {file} is invalid: {e}"),
    }
}
