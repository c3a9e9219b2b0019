//! Option values shared by the commands that integrate (`simulate`, `sweep`): the solver name
//! and the `--vars` pattern, parsed once with the same messages.

use crate::diag::closest_name;
use crate::sim::Method;

/// The integrator named `name`, or a usage message with the closest solver name.
pub fn solver(name: &str) -> Result<Method, String> {
    if let Some(m) = Method::parse(name) {
        return Ok(m);
    }
    let names = ["bdf", "esdirk34", "tr-bdf2", "tsit45"];
    // Close names, or the same letters in another order (`bfd`).
    let sorted = |s: &str| {
        let mut c: Vec<char> = s.chars().collect();
        c.sort_unstable();
        c
    };
    let hint = closest_name(name, names)
        .or_else(|| names.into_iter().find(|n| sorted(n) == sorted(name)))
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown solver `{name}`{hint}; use one of bdf, esdirk34, tr-bdf2, tsit45"
    ))
}

/// The `--vars` regular expression, or a usage message.
pub fn vars(pattern: Option<&str>) -> Result<Option<regex::Regex>, String> {
    pattern
        .map(regex::Regex::new)
        .transpose()
        .map_err(|e| format!("--vars is not a valid regular expression: {e}"))
}
