//! Progress on long work (`ftwsim fuzz`, `ftwsim table`) through `indicatif`:
//! drawn on stderr when it is a terminal, hidden otherwise (a pipe, CI).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps of `unit`, on stderr if it is a terminal.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!("{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}} ({{elapsed}})");
    bar.set_style(ProgressStyle::with_template(&template).expect("a valid template").progress_chars("#>."));
    bar
}
