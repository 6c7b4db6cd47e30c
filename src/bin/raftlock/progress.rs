//! Progress on stderr for the long commands (`run`, `swarm`, `hunt`, `bench`). indicatif draws
//! only when stderr is a terminal: piped, redirected or in CI the output is unchanged, byte for
//! byte, and the bar is gone when the command prints its result.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps of `unit` ("s virtual", "seeds", "runs"), named `what`.
pub fn bar(len: u64, what: &str, unit: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(&format!(
            "{{prefix}} [{{bar:32}}] {{human_pos}}/{{human_len}} {unit} · {{msg}} · {{elapsed}}, about {{eta}} left"
        ))
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// A spinner for work of unknown length, with what it is doing as its message.
pub fn spinner(what: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{prefix} {spinner} {msg} · {elapsed}")
            .expect("the template is valid"),
    );
    pb.set_prefix(what.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}
