//! napi's set-up, and the table of the binding's JavaScript halves
//! (`src-js/*.js`): each module's text and the modules it `require`s, read
//! from its `require('./name.js')` calls, so that the Rust side never lists
//! them by hand (`src/js.rs` `load`).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    napi_build::setup();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-js");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("src-js/ is readable")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".js"))
        .collect();
    names.sort();
    let mut table = String::from("&[\n");
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let source = std::fs::read_to_string(&path).expect("a module of src-js/ is readable");
        let requires = requires(&source);
        for required in &requires {
            assert!(
                names.contains(required),
                "src-js/{name} requires ./{required}, which is not in src-js/"
            );
        }
        let _ = writeln!(
            table,
            "    crate::js::Module {{ name: {name:?}, source: include_str!({path:?}), requires: &{requires:?} }},",
            path = path.display().to_string(),
        );
    }
    table.push_str("]\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("src_js.rs");
    std::fs::write(out, table).expect("OUT_DIR is writable");
}

/// The `./name.js` modules `source` requires, in order, each once.
fn requires(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("require('./") {
        rest = &rest[at + "require('./".len()..];
        let Some(end) = rest.find("')") else { break };
        let name = rest[..end].to_owned();
        if !found.contains(&name) {
            found.push(name);
        }
        rest = &rest[end..];
    }
    found
}
