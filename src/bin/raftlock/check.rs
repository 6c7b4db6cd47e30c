//! `raftlock check TRACE.jsonl`: a trace from any implementation of the seed's lock service,
//! checked against the seed's rules (see `raftlock::check::trace`). Exit 0 when it passes, 1
//! with problems, 2 when the file cannot be read as a trace. The file is read line by line (a
//! second pass fetches the excerpts' lines), so memory does not grow with its length.

use clap::Args;
use raftlock::check::trace::{Report, TraceCheck};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::process::ExitCode;

#[derive(Args)]
pub struct CheckTrace {
    /// A trace in the project's JSON Lines format (docs/formats.md; what to write: docs/cli.md).
    trace: String,
    /// A machine-readable report on stdout (for autograding).
    #[arg(long)]
    json: bool,
    /// Report at most this many problems in full (the rest are counted).
    #[arg(long, value_name = "N", default_value_t = 20)]
    max: usize,
}

fn open(path: &str) -> Result<std::io::BufReader<std::fs::File>, String> {
    std::fs::File::open(path)
        .map(std::io::BufReader::new)
        .map_err(|e| format!("{path}: {e}"))
}

impl CheckTrace {
    pub fn exec(self) -> ExitCode {
        match self.run() {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                if self.json {
                    println!("{}", serde_json::json!({ "ok": false, "error": e }));
                } else {
                    eprintln!("raftlock: {e}");
                }
                ExitCode::from(2)
            }
        }
    }

    fn run(&self) -> Result<bool, String> {
        let size = std::fs::metadata(&self.trace).map_or(0, |m| m.len());
        let pb = crate::progress::bar(size / 1024, "check", "KB");
        let mut c = TraceCheck::new();
        c.max_findings = self.max.max(1);
        let mut reader = open(&self.trace)?;
        let (mut buf, mut n, mut read) = (String::new(), 0u64, 0u64);
        loop {
            buf.clear();
            let got = reader
                .read_line(&mut buf)
                .map_err(|e| format!("{}: line {}: {e}", self.trace, n + 1))?;
            if got == 0 {
                break;
            }
            n += 1;
            read += got as u64;
            c.line(n, &buf)
                .map_err(|e| format!("{}: {e}", self.trace))?;
            if n.is_multiple_of(65536) {
                pb.set_position(read / 1024);
            }
        }
        pb.finish_and_clear();
        let report = c.finish();
        let excerpts = self.excerpts(&report)?;
        if self.json {
            println!("{}", json(&report, &excerpts));
        } else {
            print!("{}", text(&report, &excerpts));
        }
        Ok(report.ok())
    }

    /// The text of every line an excerpt names, read again from the file.
    fn excerpts(&self, r: &Report) -> Result<BTreeMap<u64, String>, String> {
        let mut want: BTreeMap<u64, String> = r
            .findings
            .iter()
            .flat_map(|f| f.excerpt.iter().map(|&l| (l, String::new())))
            .collect();
        if want.is_empty() {
            return Ok(want);
        }
        let last = *want.keys().next_back().expect("not empty");
        for (i, line) in open(&self.trace)?.lines().enumerate() {
            let n = i as u64 + 1;
            if n > last {
                break;
            }
            if let Some(slot) = want.get_mut(&n) {
                *slot = line.map_err(|e| e.to_string())?.trim().to_string();
            }
        }
        Ok(want)
    }
}

fn fmt_t(t: Option<u64>) -> String {
    t.map_or(String::new(), |t| {
        format!(" (t = {}.{:06} s)", t / 1_000_000, t % 1_000_000)
    })
}

fn text(r: &Report, lines: &BTreeMap<u64, String>) -> String {
    let s = &r.seen;
    let mut out = format!(
        "check: {} lines: {} applies, {} role changes, {} storage writes ({} of other kinds)\n",
        s.lines, s.applies, s.roles, s.writes, s.ignored
    );
    for f in &r.findings {
        out += &format!(
            "FAIL line {}{} {}: {}\n  rule: {}\n",
            f.line,
            fmt_t(f.t_us),
            f.rule.name(),
            f.detail,
            f.rule.words(raftlock::lang::Lang::En)
        );
        for l in &f.excerpt {
            out += &format!("  {l:>8} | {}\n", lines.get(l).map_or("", String::as_str));
        }
    }
    if r.more > 0 {
        out += &format!("... and {} more problems (--max to list them)\n", r.more);
    }
    for m in &r.not_checked {
        out += &format!("not checked: {m}\n");
    }
    let n = r.findings.len() as u64 + r.more;
    out += &if n == 0 {
        "result: PASS\n".to_string()
    } else {
        format!(
            "result: FAIL, {n} problem{}\n",
            if n == 1 { "" } else { "s" }
        )
    };
    out
}

fn json(r: &Report, lines: &BTreeMap<u64, String>) -> String {
    let findings: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "line": f.line, "t_us": f.t_us, "rule": f.rule.name(), "words": f.rule.words(raftlock::lang::Lang::En),
                "detail": f.detail.en,
                "excerpt": f.excerpt.iter().map(|l| serde_json::json!({ "line": l, "text": lines.get(l) })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let s = &r.seen;
    serde_json::json!({
        "ok": r.ok(), "lines": s.lines, "applies": s.applies, "roles": s.roles, "writes": s.writes,
        "ignored": s.ignored, "findings": findings, "more": r.more, "not_checked": r.not_checked.iter().map(|m| &m.en).collect::<Vec<_>>(),
    })
    .to_string()
}
