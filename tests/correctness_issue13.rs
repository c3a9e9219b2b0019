//! The crash, hang and wrong-result cases of issue 13 (other than event semantics), each run
//! through the `minimo` binary as a user would: a located error with exit code 1, or the right
//! result, within bounded time and memory. Deep inputs are generated.

use std::process::Output;

mod flatten_common;

/// Runs `minimo ARGS FILE EXTRA...` on `text` written to a fresh file.
fn minimo(name: &str, text: &str, args: &[&str], extra: &[&str]) -> Output {
    flatten_common::run_on_file("correctness", name, text, args, extra)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn division_by_zero_in_a_state_derivative_names_equation_variable_and_time() {
    let o = minimo(
        "div0.mo",
        "model D\n  Real x(start = 2, fixed = true);\n  Real k = if time < 0.25 then 1 else 0;\nequation\n  der(x) = 1 / k;\n  annotation(experiment(StopTime = 1));\nend D;\n",
        &["simulate"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("div0.mo:5:3"), "{err}");
    assert!(
        err.contains("`der(x)` became infinite at time 0.25"),
        "{err}"
    );
}

#[test]
fn square_root_of_a_negative_state_names_equation_variable_and_time() {
    let o = minimo(
        "sqrt.mo",
        "model S\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = sqrt(x - 2 + time);\nend S;\n",
        &["simulate"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("sqrt.mo:4:3"), "{err}");
    assert!(err.contains("`der(x)` became NaN at time 0"), "{err}");
}

#[test]
fn an_error_beyond_column_65535_is_rendered() {
    // miette pads the underline to the column with a format width, which panics above 65535.
    let text = format!(
        "model W\n  Real x(start = 1, fixed = true);{}Real y = zz;\nequation\n  der(x) = -x;\nend W;\n",
        " ".repeat(70_000)
    );
    let o = minimo("wide.mo", &text, &["simulate"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("wide.mo:2:70044: error: unknown name `zz`"),
        "{err}"
    );
    assert!(err.contains("Real y = zz;"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The excerpt is a window of the line, not 70000 columns.
    assert!(err.lines().all(|l| l.chars().count() < 400), "{err}");
}

#[test]
fn a_tiny_interval_is_refused_with_a_readable_number() {
    let o = minimo(
        "interval.mo",
        "model I\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\n  annotation(experiment(StopTime = 1, Interval = 1e-320));\nend I;\n",
        &["simulate"],
        &[],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the output interval 1e-320 gives"), "{err}");
}

#[test]
fn an_extends_chain_of_3000_classes_simulates() {
    let mut text = String::from(
        "package P\nmodel C0\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend C0;\n",
    );
    for i in 1..3000 {
        text.push_str(&format!("model C{i}\n  extends C{};\nend C{i};\n", i - 1));
    }
    text.push_str("end P;\n");
    let o = minimo("extends.mo", &text, &["simulate", "-m", "P.C2999"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    let last = out.lines().last().unwrap();
    let x: f64 = last.split(',').nth(1).unwrap().parse().unwrap();
    assert!((x - (-1f64).exp()).abs() < 1e-4, "{last}");
}

#[test]
fn a_function_call_chain_of_1500_stops_with_the_call_named() {
    let mut text = String::from(
        "package Q\nfunction f0\n  input Real u;\n  output Real y;\nalgorithm\n  y := u;\nend f0;\n",
    );
    for i in 1..1500 {
        text.push_str(&format!(
            "function f{i}\n  input Real u;\n  output Real y;\nalgorithm\n  y := f{}(u);\nend f{i};\n",
            i - 1
        ));
    }
    text.push_str("model M\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -f1499(x);\nend M;\nend Q;\n");
    let o = minimo("calls.mo", &text, &["simulate", "-m", "Q.M"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("because a function call failed"), "{err}");
    assert!(err.contains("calls nested more than 200 deep"), "{err}");
}

#[test]
fn a_model_containing_itself_is_refused() {
    let o = minimo("self.mo", "model M M m; end M;\n", &["simulate"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("`M` contains itself"), "{err}");
}

#[test]
fn recursive_imports_end_with_an_unknown_name() {
    let text = "package P\n  package A\n    import P.B.*;\n  end A;\n  package B\n    import P.A.*;\n  end B;\n  model M\n    import P.A.*;\n    Real x(start = 1, fixed = true);\n  equation\n    der(x) = -q * x;\n  end M;\nend P;\n";
    let o = minimo("imports.mo", text, &["simulate", "-m", "P.M"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown name `q`"), "{err}");
}

#[test]
fn an_outer_without_inner_shares_one_default_instance_with_a_warning() {
    let text = "model IO\n  model World\n    parameter Real g = 9.81;\n    Real s(start = 0, fixed = true);\n  equation\n    der(s) = 1;\n  end World;\n  model Body\n    outer World world;\n    Real v(start = 0, fixed = true);\n  equation\n    der(v) = -world.g * world.s;\n  end Body;\n  Body b1;\n  Body b2;\n  annotation(experiment(StopTime = 1));\nend IO;\n";
    let o = minimo("io.mo", text, &["simulate"], &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("warning: no `inner` declaration"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    let header = out.lines().next().unwrap();
    // One world for both bodies: a single `s` state.
    let worlds = header.split(',').filter(|c| c.ends_with("world.s")).count();
    assert_eq!(worlds, 1, "{header}");
}
