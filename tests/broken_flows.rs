//! Every file in fixtures/flows/broken is rejected with the message its `// expect:` lines give.

use std::path::Path;

use levelplan::{FlowError, FlowTemplate};

fn expectations(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("// expect: "))
        .collect()
}

/// Loads `fixtures/flows/broken/NAME.ron` and checks that it is rejected with a message that
/// names the file and contains every `// expect:` line of the file.
fn assert_rejected(name: &str) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/flows/broken/{name}.ron"));
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

/// One test per broken file.
macro_rules! broken {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                assert_rejected(stringify!($name));
            }
        )*
        const LISTED: &[&str] = &[$(stringify!($name)),*];
    };
}

broken!(
    bad_chance,
    chain_bad_letter,
    chain_cannot_grow,
    chain_mandatory_forever,
    chain_min_above_max,
    duplicate_id,
    injection_bad_lock_chance,
    injection_no_placement,
    loop_duplicates_tree_edge,
    loop_unknown,
    malformed,
    mandatory_with_chance,
    one_way_trap,
    root_not_entrance,
    selector_too_few_children,
    tree_cycle,
    two_entrances,
    two_parents,
    unknown_field,
    unknown_kind,
    unknown_node,
    unknown_pool,
    unknown_root,
    unreachable,
);

#[test]
fn every_file_in_the_broken_folder_has_its_test() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/flows/broken");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(files, LISTED, "add the new file to the broken! list");
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
    assert!(
        matches!(
            err,
            FlowError::Io {
                kind: std::io::ErrorKind::NotFound,
                ..
            }
        ),
        "{err}"
    );
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

/// Numbers a field cannot take are named with the field and the range, not as ron reports them
/// ("Integer is out of bounds").
#[test]
fn out_of_range_numbers_name_their_field() {
    let classic = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/flows/classic.ron"),
    )
    .unwrap();
    for (from, to, says) in [
        (
            "Chain(min: 2,",
            "Chain(min: -1,",
            "field `min`: -1 is out of range: it must be a whole number, 0 or more",
        ),
        (
            "RandomChild(min_distance: 2)",
            "RandomChild(min_distance: -2)",
            "field `min_distance`: -2 is out of range: it must be a whole number, 0 or more",
        ),
        (
            "Chain(min: 2,",
            "Chain(min: 99999999999999,",
            "field `min`: 99999999999999 is out of range: it is too large for this field",
        ),
    ] {
        assert!(classic.contains(from));
        let text = classic.replacen(from, to, 1);
        let e = FlowTemplate::from_ron(&text, "numbers.ron").unwrap_err();
        let message = e.to_string();
        assert!(message.starts_with("numbers.ron:"), "{message}");
        assert!(message.contains(says), "{message}");
    }
}
