//! `Modelica.Math.Matrices` on the LAPACK routines minimo computes natively (`dgesv`,
//! `dgetrf`, `dgetrs`, `dgelsy`, `dgglse`): solutions worked out by hand, at parameter time and
//! at run time, and a singular system stopping with the MSL's own message. Needs the MSL beside
//! the checkout (skipped with a message otherwise).

mod flatten_common;
use flatten_common::{msl_library, run_on_file, simulate_with_library, write_model};

const MODEL: &str = r#"
model UseMatrices
  import Modelica.Math.Matrices;
  parameter Real A[3, 3] = [2, 1, 0; 1, 3, 1; 0, 1, 4];
  // A * {1, 1, 1} = {3, 5, 5}
  parameter Real x[3] = Matrices.solve(A, {3, 5, 5});
  Real X[3, 2] = Matrices.solve2(A, [3, 6; 5, 10; 5, 10]);
  // 2 (3*4 - 1*1) - 1 (1*4 - 0) = 18
  Real d = Matrices.det(A);
  // y = t^2 + 1 through four points: coefficients highest power first
  Real p[3] = Modelica.Math.Polynomials.fitting({0, 1, 2, 3}, {1, 2, 5, 10}, 2);
  // y = 1 + 2 t fitted exactly
  Real xl[2] = Matrices.leastSquares([1, 0; 1, 1; 1, 2; 1, 3], {1, 3, 5, 7});
  // min |x - {1, 3}| subject to x1 + x2 = 2: {0, 2}
  Real xe[2] = Matrices.equalityLeastSquares([1, 0; 0, 1], {1, 3}, [1, 1], {2});
  // at run time: A * z = {3, 5, 5} * (1 + time), so z = (1 + time) * {1, 1, 1}
  // x is solved at parameter time; xo shows it in the results
  Real xo[3] = x;
  Real z[3] = Matrices.solve(A, {3, 5, 5} * (1 + time));
  annotation(experiment(StopTime = 1, Interval = 0.5));
end UseMatrices;
"#;

#[test]
fn matrices_functions_give_the_hand_computed_values() {
    let Some(lib) = msl_library() else { return };
    let path = write_model("msl_matrices", "UseMatrices.mo", MODEL);
    let t = simulate_with_library(&lib, &[path.to_str().expect("utf-8 path")]);
    let expect = [
        ("xo[1]", 1.0),
        ("xo[2]", 1.0),
        ("xo[3]", 1.0),
        ("X[2,1]", 1.0),
        ("X[3,2]", 2.0),
        ("d", 18.0),
        ("p[1]", 1.0),
        ("p[2]", 0.0),
        ("p[3]", 1.0),
        ("xl[1]", 1.0),
        ("xl[2]", 2.0),
        ("xe[1]", 0.0),
        ("xe[2]", 2.0),
    ];
    for (name, want) in expect {
        let got = t.at(name, 0.0);
        assert!(
            (got - want).abs() < 1e-10,
            "{name} = {got}, expected {want}"
        );
    }
    for (time, want) in [(0.0, 1.0), (0.5, 1.5), (1.0, 2.0)] {
        for k in 1..=3 {
            let got = t.at(&format!("z[{k}]"), time);
            assert!(
                (got - want).abs() < 1e-10,
                "z[{k}]({time}) = {got}, expected {want}"
            );
        }
    }
}

#[test]
fn a_singular_system_stops_with_the_msl_message() {
    let Some(lib) = msl_library() else { return };
    let model = r#"
model Singular
  parameter Real x[2] = Modelica.Math.Matrices.solve([1, 2; 2, 4], {1, 2});
  Real y = x[1] * time;
end Singular;
"#;
    let out = run_on_file(
        "msl_matrices",
        "Singular.mo",
        model,
        &[
            "simulate",
            "--lib",
            lib.to_str().expect("utf-8 path"),
            "-o",
            "/dev/null",
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("(A is singular)"), "{err}");
}
