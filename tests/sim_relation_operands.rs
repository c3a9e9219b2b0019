//! Relation operands that read variables the sorted main pass computes later. The sorting leaves
//! a relation's operands out of the order (the relation holds its value between events), so
//! `contact := -d + 0.1 < -0.2` may be compiled before `d := ...`; the operands must still be
//! the current point's values when the zero-crossing functions and the event iteration read
//! them, and common-subexpression sharing must not hand the early `-d + 0.1` to a later step.
//! Expected values are worked out by hand from the model's text.

mod flatten_common;

use flatten_common::{close, last, sim_options, simulate_text};

/// `d = x1 - x2` (through a parameter, so it is not an alias and gets a step of its own, after
/// `contact`). Contact when d > 0.3, at t = 0.3; then u = d - 0.1 follows u' = 1 + u from
/// u(0.3) = 0.2, so u = 1.2 exp(t - 0.3) - 1 and d(1) = 1.2 exp(0.7) - 0.9 = 1.5165032. Before
/// the fix `ratio` read the previous evaluation's `-d + 0.1` (d(1) = 1.51479, and the recorded
/// `ratio` disagreed with the recorded `d`).
const STALE: &str = "
model Stale
  Real x1(start = 0, fixed = true);
  Real x2(start = 0, fixed = true);
  Boolean contact;
  Real ratio;
  Real d;
  parameter Real k = 1;
equation
  contact = -d + 0.1 < -0.2;
  ratio = if contact then -d + 0.1 else 0;
  der(x1) = 1;
  der(x2) = ratio;
  d = k*(x1 - x2);
end Stale;
";

#[test]
fn a_relation_compiled_before_its_operand_s_step_reads_the_current_point() {
    let r = simulate_text(STALE, &sim_options(1.0, 0.01, 1e-8)).unwrap_or_else(|e| panic!("{e}"));
    let d = last(&r, "d");
    close(d, 1.2 * 0.7f64.exp() - 0.9, 2e-5, "d(1)");
    close(
        last(&r, "ratio"),
        0.1 - d,
        1e-12,
        "ratio = -d + 0.1 in the recorded row",
    );
    close(last(&r, "contact"), 1.0, 0.0, "contact");
}
