//! Defaults of function inputs are looked up where they are written (MLS 5.3): an input
//! inherited by `redeclare function extends` may read a name imported by the base function's
//! package, which the derived function does not inherit (imports are not inherited, MLS
//! 13.2.1). The MSL pattern: `crossArea = pi*diameter^2/4` in
//! `Modelica.Fluid.Pipes.BaseClasses.WallFriction.PartialWallFriction` (imports `pi`).

use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

const MODEL: &str = r#"
package P
  partial package Base
    import Q.Constants.pi;
    replaceable partial function area
      input Real d;
      input Real a = pi*d^2/4;
      output Real y;
    end area;
  end Base;
  package Impl
    extends Base;
    redeclare function extends area
    algorithm
      y := a;
    end area;
  end Impl;
end P;
package Q
  package Constants
    constant Real pi = 3.14159265358979;
  end Constants;
end Q;
model ImportedDefault
  Real y = P.Impl.area(2*time + 1);
end ImportedDefault;
"#;

/// `y = pi (2 t + 1)^2 / 4`. Before: "unknown name `pi` in function `P.Impl.area`".
#[test]
fn inherited_input_default_reads_a_name_imported_by_the_base_package() {
    let flat = minimo::flatten::flatten_source("defaults.mo", MODEL, Some("ImportedDefault"))
        .unwrap_or_else(|e| panic!("{e}"));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap();
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.1),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap();
    for &t in &[0.0, 0.5, 1.0] {
        // The model's own (truncated) `pi`, not `std::f64::consts::PI`.
        #[allow(clippy::approx_constant)]
        let pi = 3.14159265358979;
        let want = pi * (2.0 * t + 1.0) * (2.0 * t + 1.0) / 4.0;
        let got = r.value_at("y", t).unwrap();
        assert!(
            (got - want).abs() < 1e-9 * want,
            "y({t}) = {got}, not {want}"
        );
    }
}
