//! A hint for cells that are shell commands, not programs (`ls -la src`,
//! `cat a.txt | grep x`): models send them as `code` now and then. Asked
//! only for a cell that did not parse, so a program that uses `cat` or `ls`
//! as a name never gets it.

use crate::messages;

/// Commands a model is likely to type at a shell prompt.
#[rustfmt::skip]
const COMMANDS: [&str; 98] = [
    "apt", "apt-get", "awk", "bash", "brew", "bun", "bunx", "cargo", "cat", "cd", "chmod", "chown",
    "cp", "curl", "cut", "date", "deno", "df", "diff", "docker", "du", "echo", "env", "export",
    "file", "find", "gh", "git", "go", "grep", "gunzip", "gzip", "head", "history", "jq", "kill",
    "kubectl", "less", "ln", "locate", "ls", "lsof", "make", "man", "mkdir", "more", "mv", "nano",
    "netstat", "node", "nohup", "npm", "npx", "open", "pip", "pip3", "pkill", "pnpm", "printf",
    "ps", "pwd", "python", "python3", "rg", "rm", "rmdir", "rsync", "ruby", "rustc", "scp", "sed",
    "sh", "sort", "source", "ssh", "stat", "sudo", "tail", "tar", "tee", "top", "touch", "tr",
    "tree", "uname", "uniq", "unzip", "vim", "wc", "wget", "which", "whoami", "xargs", "yarn",
    "zip", "zsh", "tsc", "pytest",
];

/// The hint line for `code`, when its first line reads like a shell command.
pub(super) fn hint(code: &str) -> Option<String> {
    // The first line that is not blank or a `#` comment (`#!` counts).
    let line = code
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && (!line.starts_with('#') || line.starts_with("#!")))?;
    let line = line.strip_prefix("$ ").unwrap_or(line).trim_start();
    looks_like_shell(line)
        .then(|| messages::shell_hint(&crate::messages::cut(line.to_owned(), 120)))
}

/// Words that continue a JavaScript or TypeScript expression after a name.
const JS_CONTINUATIONS: [&str; 6] = ["as", "in", "of", "instanceof", "satisfies", "extends"];

fn looks_like_shell(line: &str) -> bool {
    if line.starts_with("./") || line.starts_with("#!") || line.starts_with("~/") {
        return true;
    }
    let mut tokens = line.split_whitespace();
    let (Some(word), Some(argument)) = (tokens.next(), tokens.next()) else {
        return false;
    };
    if !COMMANDS.contains(&word) || JS_CONTINUATIONS.contains(&argument) {
        return false;
    }
    // `find . = 1`: a name, then an operator, is JavaScript gone wrong.
    if tokens.next().is_some_and(|next| next.starts_with('=')) {
        return false;
    }
    argument_like(argument)
}

/// What a first argument at a prompt looks like: a flag (`-la`, `--fast`), a
/// mode (`+x`), a path (`.`, `./a`, `/etc`, `~/x`, `src/`, `a.txt`), a word,
/// a quoted string or a variable. Binary operators standing alone (`-`,
/// `/`, `>`) and generics (`<T>`) do not.
fn argument_like(argument: &str) -> bool {
    let mut chars = argument.chars();
    let first = chars.next().unwrap_or(' ');
    let second = chars.next();
    match first {
        '-' | '+' => second.is_some_and(|c| c.is_alphanumeric() || c == '-'),
        '.' | '/' | '~' => {
            argument.len() == 1
                || second.is_some_and(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '*'))
        }
        '"' | '\'' => true,
        '$' => second.is_some_and(|c| c.is_alphanumeric() || c == '{' || c == '('),
        c if c.is_alphanumeric() || c == '_' => argument.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '*' | ':' | '=' | '@' | ',')
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Language;
    use crate::source::prepare;

    /// Real shell lines a model has sent as `code`.
    const SHELL: [&str; 30] = [
        "ls -la src",
        "cat a.txt | grep x",
        "git status",
        "git log --oneline -5",
        "npm install",
        "npm run build && npm test",
        "grep -rn \"TODO\" src/",
        "find . -name '*.ts' | head",
        "cd packages/core && ls",
        "$ ls ~/projects",
        "curl -s https://example.com/api | jq .items",
        "echo \"hello\" > out.txt",
        "mkdir -p build/out",
        "rm -rf node_modules",
        "python3 script.py --fast",
        "pip install requests",
        "docker ps -a",
        "kubectl get pods -n prod",
        "cat package.json",
        "head -n 20 README.md",
        "tail -f logs/app.log",
        "wc -l src/*.rs",
        "sed -i 's/a/b/' file.txt",
        "./scripts/deploy.sh staging",
        "node --version",
        "cargo build --release",
        "du -sh .",
        "ps aux | grep node",
        "chmod +x run.sh",
        "which python",
    ];

    /// Cells that parse, several starting with the same words as names.
    const PROGRAMS: [&str; 30] = [
        "const ls = await tools.search('list files'); return ls",
        "let cat = 1; cat += 2; return cat",
        "const git = tools; return Object.keys(git)",
        "return 1",
        "const find = (xs, f) => xs.filter(f); return find([1, 2], (x) => x > 1)",
        "echo = 3; return echo",
        "const head = ALL_TOOLS.slice(0, 3); return head",
        "const npm = { install: () => 1 }; return npm.install()",
        "ls = [1, 2]; return ls.map((x) => x * 2)",
        "const cd = (dir) => dir; return cd('src')",
        "const grep = /x/; return grep.test('x')",
        "text('hello'); return null",
        "for (const tool of ALL_TOOLS) text(tool.name)",
        "const r = await tools.call('read', { path: 'a.txt' }); return r",
        "const node = { version: 1 }; return node.version",
        "return [1, 2, 3].map((x) => x + 1)",
        "if (true) { return 'yes' }",
        "// ls -la\nreturn 2",
        "/* cat a.txt */ return 3",
        "const date = new Date(0); return date.toISOString()",
        "const sort = (a) => [...a].sort(); return sort([3, 1])",
        "const which = 'a' in { a: 1 }; return which",
        "const make = () => ({}); return make()",
        "const tail = 'x'; return `${tail}y`",
        "json({ ok: true })",
        "const env = { A: 1 }; return env.A",
        "const open = await tools.search('open'); return open.length",
        "let file = 'a'; file = file + 'b'; return file",
        "const history = []; history.push(1); return history",
        "return await Promise.all([1, 2].map(async (x) => x))",
    ];

    #[test]
    fn shell_lines_get_the_hint_and_programs_never_do() {
        for line in SHELL {
            let error = prepare(line, Language::Javascript).map(|_| ()).unwrap_err();
            assert!(
                error.message().contains(messages::SHELL_HINT_START),
                "{line}: {}",
                error.message()
            );
            let error = prepare(line, Language::Typescript).map(|_| ()).unwrap_err();
            assert!(
                error.message().contains(messages::SHELL_HINT_START),
                "{line} (TS): {}",
                error.message()
            );
        }
        for program in PROGRAMS {
            assert!(prepare(program, Language::Javascript).is_ok(), "{program}");
            assert!(
                prepare(program, Language::Typescript).is_ok(),
                "{program} (TS)"
            );
        }
    }

    #[test]
    fn a_program_with_a_syntax_error_gets_no_hint() {
        for code in [
            "let x = ;",
            "cat = (1",
            "ls.map(x =>",
            "return {",
            "const find = 1 1",
        ] {
            let error = prepare(code, Language::Javascript).map(|_| ()).unwrap_err();
            assert!(
                !error.message().contains(messages::SHELL_HINT_START),
                "{code}: {}",
                error.message()
            );
        }
    }
}
