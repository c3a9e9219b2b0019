//! Redeclared components keep the modifiers of the declaration they replace (MLS 7.3.2): the
//! MSL's voltage sources declare `replaceable SignalSource signalSource(final startTime =
//! startTime)` and the step source redeclares it as a `Step`; the start time must follow.

mod flatten_common;
use flatten_common::flat;

const LIB: &str = r#"
partial block Source
  parameter Real offset = 0;
  parameter Real startTime = 0;
  output Real y;
end Source;
block Step
  extends Source;
  parameter Real height = 1;
equation
  y = offset + (if time < startTime then 0 else height);
end Step;
block Ramp
  extends Source;
  parameter Real duration = 1;
equation
  y = offset + max(0, min(1, (time - startTime) / duration));
end Ramp;
partial model VoltageSource
  replaceable Source signalSource(final offset = offset, final startTime = startTime);
  parameter Real offset = 0;
  parameter Real startTime = 0;
  Real v;
equation
  v = signalSource.y;
end VoltageSource;
model StepVoltage
  parameter Real V = 1;
  extends VoltageSource(redeclare Step signalSource(final height = V));
end StepVoltage;
"#;

/// The binding of `name` in the flat text (`parameter Real name = <binding>;`).
fn binding(flat: &str, name: &str) -> String {
    flat.lines()
        .find_map(|l| {
            let (decl, rest) = l.split_once(" = ")?;
            decl.ends_with(&format!(" {name}"))
                .then(|| rest.trim_end_matches(';').to_string())
        })
        .unwrap_or_else(|| panic!("no binding of {name} in\n{flat}"))
}

#[test]
fn a_redeclaration_in_extends_keeps_the_original_modifiers() {
    let text = format!(
        "{LIB}\nmodel M\n  StepVoltage s(V = 2, startTime = 0.5, offset = 0.25);\nend M;\n"
    );
    let m = flat(&text, Some("M"));
    // Each of these is a reference to the source's own parameter, not the default 0.
    let st = binding(&m, "s.signalSource.startTime");
    assert!(st.contains("s.startTime"), "startTime lost: {st}");
    let off = binding(&m, "s.signalSource.offset");
    assert!(off.contains("s.offset"), "offset lost: {off}");
    let h = binding(&m, "s.signalSource.height");
    assert!(h.contains("s.V"), "height lost: {h}");
}

#[test]
fn a_redeclaration_by_modifier_keeps_the_original_modifiers() {
    let text = format!(
        "{LIB}\nmodel M\n  VS s(startTime = 0.5, redeclare Ramp signalSource(duration = 2));\nend M;\nmodel VS\n  extends VoltageSource;\nend VS;\n"
    );
    let m = flat(&text, Some("M"));
    let st = binding(&m, "s.signalSource.startTime");
    assert!(st.contains("s.startTime"), "startTime lost: {st}");
    let d = binding(&m, "s.signalSource.duration");
    assert!(d.contains('2'), "duration lost: {d}");
}

#[test]
fn a_constrainedby_clause_replaces_the_declaration_modifiers() {
    let text = format!(
        "{LIB}\nmodel W\n  parameter Real t0 = 0.3;\n  replaceable Step s(height = 5) constrainedby Source(startTime = t0);\nend W;\nmodel M\n  W w(redeclare Ramp s);\nend M;\n"
    );
    let m = flat(&text, Some("M"));
    let st = binding(&m, "w.s.startTime");
    assert!(st.contains("w.t0"), "constrainedby modifier lost: {st}");
    assert!(!m.contains("w.s.height"), "a Ramp has no height");
}
