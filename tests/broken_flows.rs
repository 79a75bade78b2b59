//! Every file in fixtures/flows/broken is rejected with the message its `// expect:` lines give.

use std::path::Path;

use levelplan::{FlowError, FlowTemplate};

fn expectations(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("// expect: "))
        .collect()
}

#[test]
fn every_broken_flow_fails_with_its_expected_message() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/flows/broken");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 20,
        "the broken-flow corpus shrank: {} files",
        files.len()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = expectations(&text);
        assert!(
            !expected.is_empty(),
            "{} has no `// expect:` line",
            path.display()
        );
        let err = match FlowTemplate::load(&path) {
            Ok(_) => panic!("{} was accepted", path.display()),
            Err(e) => e,
        };
        let message = err.to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "the message names the file: {message}"
        );
        for e in expected {
            assert!(
                message.contains(e),
                "{}:\n  message: {message}\n  expected to contain: {e}",
                path.display()
            );
        }
    }
}

#[test]
fn syntax_errors_carry_line_and_column() {
    let err = FlowTemplate::from_ron("(name: \"x\",\n root: 5)", "inline.ron").unwrap_err();
    match err {
        FlowError::Syntax { file, line, .. } => {
            assert_eq!(file, "inline.ron");
            assert_eq!(line, 2);
        }
        other => panic!("expected a syntax error, got {other}"),
    }
}

#[test]
fn a_missing_file_is_an_io_error() {
    let err = FlowTemplate::load("fixtures/flows/no_such_flow.ron").unwrap_err();
    assert!(matches!(err, FlowError::Io { .. }), "{err}");
    assert!(err.to_string().contains("no_such_flow.ron"));
}

#[test]
fn invalid_templates_built_in_code_are_rejected_at_instantiation() {
    let mut flow = FlowTemplate::builtin("classic").unwrap();
    flow.edges[0].to = "nowhere".into();
    let err = flow
        .generate(1, &levelplan::Conditions::default())
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("\"nowhere\", which does not exist"),
        "{err}"
    );
}
