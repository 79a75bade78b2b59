//! The README's promises: its version, its library example, its flow-format example.

#[test]
fn readme_flow_format_example_is_a_valid_flow() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("```ron\n").expect("a RON block") + "```ron\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let flow = levelplan::FlowTemplate::from_ron(&readme[start..end], "README.md").unwrap();
    assert_eq!(flow.name, "castle");
    let conditions = levelplan::Conditions::new().with_flag("met_merchant");
    for seed in 0..50 {
        let level = flow.generate(seed, &conditions).unwrap();
        assert_eq!(
            levelplan::graph::distances_from(&level, level.entrance().unwrap()).len(),
            level.room_count()
        );
    }
}

#[test]
fn readme_commands_are_the_documented_ones() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("cargo run --release -- generate "));
    assert!(readme.contains("\ncargo test "));
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(
        ci.contains(" cargo test\n"),
        ".ci/run runs the README's test command"
    );
}
