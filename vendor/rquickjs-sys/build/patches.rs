//! code-mode patch: applies the patch series (`patches/NNNN-name.patch`, in file
//! name order) to the pristine QuickJS sources, in memory, before they are
//! written to OUT_DIR and compiled. No external `patch` binary (Windows
//! builders have none).
//!
//! Strict on purpose: every hunk's context and removed lines must match
//! exactly at the line its header names (no fuzz, no offset), so the result
//! is the one `node scripts/patches.mjs check` verifies, and a patch that no
//! longer fits (a version bump) stops the build with the patch, the file and
//! the hunk. Line endings are normalised to `\n` first, in the sources and
//! the patches, so a CRLF checkout applies the same way.
//!
//! A patch is a header (anything before the first `diff --git` or `---`/`+++`
//! pair) and git-style unified diffs with paths `a/<file>` and `b/<file>`
//! relative to `quickjs/`; `/dev/null` creates a file.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

struct Line {
    op: char,
    /// With its `\n`, unless a `\ No newline at end of file` followed it.
    text: String,
}

struct Hunk {
    header: String,
    old_start: usize,
    old_count: usize,
    lines: Vec<Line>,
}

struct FilePatch {
    /// `None` for `/dev/null`.
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<Hunk>,
}

/// Applies every patch of `patch_dir` in name order to `files` (file name
/// under `quickjs/` to text). Panics with the patch, file and hunk when one
/// does not apply.
pub fn apply_series(patch_dir: &Path, files: &mut BTreeMap<String, String>) {
    let mut names: Vec<String> = fs::read_dir(patch_dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", patch_dir.display()))
        .map(|entry| entry.expect("cannot read the patch directory").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".patch"))
        .collect();
    names.sort();
    for name in &names {
        let text = fs::read_to_string(patch_dir.join(name))
            .unwrap_or_else(|e| panic!("cannot read patch {name}: {e}"))
            .replace("\r\n", "\n");
        let patch = parse(&text).unwrap_or_else(|e| panic!("patch {name} is malformed: {e}"));
        if let Err(e) = apply(files, &patch) {
            panic!(
                "patch {name} does not apply to the pristine QuickJS sources: {e}\n\
                 (a version bump: rebase the series with `node scripts/patches.mjs unpack \
                 rquickjs-sys <dir> --onto <new crate>`, see vendor/rquickjs-sys/PATCHES.md)"
            );
        }
    }
}

fn path(field: &str) -> Result<Option<String>, String> {
    let path = field.split('\t').next().unwrap_or_default();
    if path == "/dev/null" {
        return Ok(None);
    }
    let rel = path
        .strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .ok_or_else(|| format!("path without a/ or b/: {path}"))?;
    if rel.starts_with('/') || rel.split('/').any(|part| part == "..") {
        return Err(format!("unsafe path {rel}"));
    }
    Ok(Some(rel.to_string()))
}

fn number(text: Option<&str>, default: usize) -> Result<usize, String> {
    match text {
        None => Ok(default),
        Some(text) => text.parse().map_err(|_| format!("bad number {text:?}")),
    }
}

/// `@@ -a,b +c,d @@ ...` as (a, b, c, d).
fn hunk_header(line: &str) -> Result<(usize, usize, usize, usize), String> {
    let bad = || format!("bad hunk header {line:?}");
    let ranges = line.strip_prefix("@@ -").ok_or_else(bad)?;
    let (ranges, _) = ranges.split_once(" @@").ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let mut old = old.splitn(2, ',');
    let mut new = new.splitn(2, ',');
    Ok((
        number(old.next(), 0)?,
        number(old.next(), 1)?,
        number(new.next(), 0)?,
        number(new.next(), 1)?,
    ))
}

fn parse(text: &str) -> Result<Vec<FilePatch>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let starts_file = |k: usize| {
        lines[k].starts_with("diff --git ")
            || (lines[k].starts_with("--- ")
                && lines.get(k + 1).is_some_and(|l| l.starts_with("+++ ")))
    };
    let mut i = 0;
    while i < lines.len() && !starts_file(i) {
        i += 1;
    }
    let mut files: Vec<FilePatch> = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        let at = i + 1;
        if line.starts_with("diff --git ")
            || line.starts_with("index ")
            || line.starts_with("new file mode ")
            || line.is_empty()
        {
            i += 1;
        } else if let Some(old) = line.strip_prefix("--- ") {
            let new = lines
                .get(i + 1)
                .and_then(|l| l.strip_prefix("+++ "))
                .ok_or_else(|| format!("line {at}: '---' without '+++'"))?;
            let (old, new) = (path(old)?, path(new)?);
            if new.is_none() {
                return Err(format!("line {at}: deleting a file is not supported"));
            }
            files.push(FilePatch {
                old,
                new,
                hunks: Vec::new(),
            });
            i += 2;
        } else if line.starts_with("@@ ") {
            let file = files
                .last_mut()
                .ok_or_else(|| format!("line {at}: hunk before any file"))?;
            let (old_start, old_count, _, new_count) = hunk_header(line)?;
            let mut hunk = Hunk {
                header: line.to_string(),
                old_start,
                old_count,
                lines: Vec::new(),
            };
            i += 1;
            let (mut old, mut new) = (0, 0);
            while old < old_count
                || new < new_count
                || lines.get(i).is_some_and(|l| l.starts_with('\\'))
            {
                let body = *lines
                    .get(i)
                    .ok_or_else(|| format!("hunk {line} ends early"))?;
                let op = body.chars().next().unwrap_or('?');
                match op {
                    '\\' => {
                        let last = hunk
                            .lines
                            .last_mut()
                            .ok_or_else(|| format!("line {}: '\\' before any line", i + 1))?;
                        last.text.pop();
                    }
                    ' ' | '-' | '+' => {
                        hunk.lines.push(Line {
                            op,
                            text: format!("{}\n", &body[1..]),
                        });
                        if op != '+' {
                            old += 1;
                        }
                        if op != '-' {
                            new += 1;
                        }
                        if old > old_count || new > new_count {
                            return Err(format!("hunk {line} is longer than its header says"));
                        }
                    }
                    _ => {
                        let at = i + 1;
                        return Err(format!("line {at}: not ' ', '-', '+' or '\\': {body:?}"));
                    }
                }
                i += 1;
            }
            file.hunks.push(hunk);
        } else if line == "-- " {
            break; // a format-patch signature
        } else {
            return Err(format!("line {at}: unexpected {line:?}"));
        }
    }
    if files.is_empty() {
        return Err("changes no file".into());
    }
    Ok(files)
}

fn apply(files: &mut BTreeMap<String, String>, patch: &[FilePatch]) -> Result<(), String> {
    for file in patch {
        let new = file.new.clone().expect("checked by parse");
        let Some(old) = &file.old else {
            if files.contains_key(&new) {
                return Err(format!("it creates {new}, which exists"));
            }
            let text = file.hunks.iter().flat_map(|h| &h.lines);
            files.insert(new, text.map(|l| l.text.as_str()).collect());
            continue;
        };
        let source = files
            .remove(old)
            .ok_or_else(|| format!("{old} is not among the sources"))?;
        let src: Vec<&str> = source.split_inclusive('\n').collect();
        let mut out = String::with_capacity(source.len() + 4096);
        let mut pos = 0;
        for hunk in &file.hunks {
            let old_lines: Vec<&str> = hunk
                .lines
                .iter()
                .filter(|l| l.op != '+')
                .map(|l| l.text.as_str())
                .collect();
            let at = if hunk.old_count == 0 {
                hunk.old_start
            } else {
                hunk.old_start.saturating_sub(1)
            };
            let fail = |k: usize| {
                let found = src
                    .get(at + k)
                    .map_or("<end of file>", |l| l.trim_end_matches('\n'));
                let expected = old_lines[k].trim_end_matches('\n');
                format!(
                    "file {old}, hunk {}: line {}: expected {expected:?}, found {found:?}",
                    hunk.header,
                    at + k + 1
                )
            };
            if at < pos {
                return Err(format!(
                    "file {old}, hunk {}: overlaps the previous hunk",
                    hunk.header
                ));
            }
            if let Some(k) = (0..old_lines.len()).find(|&k| src.get(at + k) != Some(&old_lines[k]))
            {
                return Err(fail(k));
            }
            out.extend(src[pos..at].iter().copied());
            for line in hunk.lines.iter().filter(|l| l.op != '-') {
                out.push_str(&line.text);
            }
            pos = at + old_lines.len();
        }
        out.extend(src[pos..].iter().copied());
        files.insert(new, out);
    }
    Ok(())
}
