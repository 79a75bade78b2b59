//! Flow instantiation, per built-in flow.

use levelplan::graph::flow::Flow;
use levelplan::{Conditions, FlowTemplate, LevelRng};
use rand::SeedableRng;

fn main() {
    divan::main();
}

/// One level graph from a built-in flow (parsed and checked once, outside the timing).
#[divan::bench(args = FlowTemplate::builtin_names())]
fn instantiate(bencher: divan::Bencher, name: &str) {
    let flow = Flow::builtin(name).expect("built-in flow");
    let conditions = Conditions::default();
    let mut seed = 0u64;
    bencher.bench_local(|| {
        seed += 1;
        let mut rng = LevelRng::seed_from_u64(seed);
        flow.instantiate(&mut rng, &conditions)
            .expect("built-in flows instantiate")
    });
}

/// Parsing and validating a built-in flow's RON.
#[divan::bench(args = FlowTemplate::builtin_names())]
fn parse(name: &str) -> FlowTemplate {
    FlowTemplate::builtin(name).expect("built-in flow")
}

/// Validating a parsed flow (also done at the start of every instantiation).
#[divan::bench(args = FlowTemplate::builtin_names())]
fn validate(bencher: divan::Bencher, name: &str) {
    let flow = FlowTemplate::builtin(name).expect("built-in flow");
    bencher.bench_local(|| flow.validate("bench").is_ok());
}
