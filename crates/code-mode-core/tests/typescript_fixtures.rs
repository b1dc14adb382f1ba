//! TypeScript stripping fixtures: `fixtures/typescript/<name>.ts` must strip to
//! `<name>.js` byte for byte. Run with `UPDATE_FIXTURES=1` to rewrite the `.js` files.

use std::fs;
use std::path::Path;

use code_mode_core::config::Language;
use code_mode_core::source::prepare;

#[test]
fn typescript_fixtures_strip_as_recorded() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/typescript");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ts") {
            continue;
        }
        seen += 1;
        let source = fs::read_to_string(&path).unwrap();
        let script = prepare(&source, Language::Typescript)
            .unwrap_or_else(|e| panic!("{}: {:?}", path.display(), e))
            .script;
        let expected_path = path.with_extension("js");
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            fs::write(&expected_path, &script).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "missing {}; run with UPDATE_FIXTURES=1",
                expected_path.display()
            )
        });
        assert_eq!(script, expected, "{}", path.display());
    }
    assert!(seen >= 3, "expected fixture files in {}", dir.display());
}

#[test]
fn strip_only_keeps_every_line_in_place() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/typescript");
    let source = fs::read_to_string(dir.join("generics.ts")).unwrap();
    let script = prepare(&source, Language::Typescript).unwrap().script;
    // One wrapper line above; every user line keeps its number and its columns.
    let marker = source.lines().position(|l| l.contains("MARKER")).unwrap();
    let line = source.lines().nth(marker).unwrap();
    assert_eq!(
        script.lines().nth(marker + 1).unwrap().find("MARKER"),
        line.find("MARKER")
    );
    for (user, stripped) in source.lines().zip(script.lines().skip(1)) {
        assert_eq!(user.len(), stripped.len(), "{user:?} -> {stripped:?}");
    }
}
