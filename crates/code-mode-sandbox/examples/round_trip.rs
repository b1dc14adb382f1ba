//! The round trip of one request over a sandbox's channel (a Unix socket,
//! blocking reads on both sides), the floor under a nested call in process
//! isolation: `cargo run --profile ci -p code-mode-sandbox --example round_trip`.
//! Not a test: timings live in benchmarks.

#[cfg(unix)]
fn main() {
    use std::io::{BufRead, BufReader, Write};
    use std::path::Path;
    use std::time::Instant;

    use code_mode_sandbox::launch::{self, Options};

    let binary = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/ci/code-mode-sandbox");
    let mut sandbox = launch::start(&binary, &Options::default()).expect("the sandbox starts");
    let mut lines = BufReader::new(sandbox.channel.try_clone().expect("the channel clones"));
    let mut line = String::new();
    lines.read_line(&mut line).expect("ready");
    let mut times = Vec::new();
    for _ in 0..20_000 {
        line.clear();
        let started = Instant::now();
        sandbox
            .channel
            .write_all(b"ping\n")
            .expect("the request goes");
        lines.read_line(&mut line).expect("the answer comes");
        times.push(started.elapsed().as_nanos() as f64 / 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "ping round trip over the channel, 20,000: median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs",
        at(0.5),
        at(0.9),
        at(0.99)
    );
    let _ = sandbox.child.kill();
    let _ = sandbox.child.wait();
}

#[cfg(not(unix))]
fn main() {}
