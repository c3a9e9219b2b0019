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

/// A package choice passed down through two levels (`redeclare package Medium = Medium`
/// written in `C` and in `D`): the name means the enclosing instance's redeclared package
/// (MLS 7.3), so the constant read through it is the chosen medium's, not the default's.
/// minimo used to give 10 for all four with exit 0.
const MEDIA: &str = r#"
model Media
  package P
    constant Integer y = 10;
  end P;
  package M1
    extends P(y = 100);
  end M1;
  package M2 = M1(y = 200);
  model B
    replaceable package Medium = P;
    parameter Integer y = Medium.y;
  end B;
  model C
    replaceable package Medium = P;
    B b(redeclare replaceable package Medium = Medium);
  end C;
  model D
    replaceable package Medium = P;
    C c(b(redeclare replaceable package Medium = Medium));
  end D;
  C c1(redeclare package Medium = M1);
  D d1(redeclare package Medium = M1);
  D d2(redeclare package Medium = M2);
  C c0;
end Media;
"#;

#[test]
fn a_package_choice_passed_down_is_the_enclosing_instance_choice() {
    let m = flat(MEDIA, Some("Media"));
    assert_eq!(binding(&m, "c1.b.y"), "100");
    assert_eq!(binding(&m, "d1.c.b.y"), "100");
    assert_eq!(binding(&m, "d2.c.b.y"), "200");
    assert_eq!(binding(&m, "c0.b.y"), "10");
}

/// `E.X` for a class `E` whose `extends` modifier redeclares `X` names the new class (MLS
/// 7.3), both in a declaration and as a base class; a replacement that does not fit the
/// constraint is refused there too.
#[test]
fn a_class_redeclared_in_an_extends_modifier_is_found_by_a_composite_name() {
    let text = "model M
  model B
    Real x = 2.0;
    Real y = 3.0;
  end B;
  model B2
    extends B(x = 7);
  end B2;
  package D
    replaceable model X = B;
  end D;
  package E
    extends D(redeclare model X = B2);
  end E;
  E.X z;
end M;
";
    let f = flat(text, Some("M"));
    assert!(f.contains("z.x = 7"), "{f}");
    let text = "model M
  model A
    Real x = 1.0;
  end A;
  model B
    Real x = 2.0;
    Real y = 3.0;
  end B;
  package D
    replaceable model X = B constrainedby B;
  end D;
  package E
    extends D(redeclare model X = A);
  end E;
  E.X z;
end M;
";
    flatten_common::assert_err(text, Some("M"), &["redeclaration of `X` is not compatible"]);
}

/// MLS 7.3.2: a class redeclared in a base's `extends` modifier with its own `constrainedby`
/// (`extends C(replaceable model X = B constrainedby B)`) constrains a redeclaration further
/// out even though that one overrides it in the merged modifiers: `A` lacks `B`'s `y`.
#[test]
fn a_constraint_set_in_an_extends_modifier_binds_the_redeclaration_that_overrides_it() {
    let lib = "  class A
    Real x = 1.0;
  end A;
  class B
    Real x = 2.0;
    Real y = 3.0;
  end B;
  class B2
    Real x = 4.0;
    Real y = 5.0;
  end B2;
  class C
    replaceable class X = A;
    X xx;
  end C;
  class D
    extends C(replaceable model X = B constrainedby B);
  end D;
";
    let bad = format!(
        "model M\n{lib}  class E\n    extends D(redeclare model X = A);\n  end E;\n  E e;\nend M;\n"
    );
    flatten_common::assert_err(
        &bad,
        Some("M"),
        &["redeclaration of `X` is not compatible", "no component `y`"],
    );
    let good = format!(
        "model M\n{lib}  class E\n    extends D(redeclare model X = B2);\n  end E;\n  E e;\nend M;\n"
    );
    let f = flat(&good, Some("M"));
    assert!(f.contains("e.xx.y = 5.0"), "{f}");
}
