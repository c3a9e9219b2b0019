//! The examples of the Modelica Standard Library 4.1.0 packages Blocks, Electrical.Analog,
//! Mechanics.Rotational and Mechanics.Translational against the official reference results,
//! in the tube of the MSL regression tests (2e-3 of the time span, 2e-3 of each signal's range).
//!
//! The library and the references are test data beside the checkout (`../shared/msl/`, never
//! copied into the repository; `MINIMO_MSL` names another folder holding `v4.1.0/` and
//! `reference/v4.1.0/`). Models that do not match yet are listed with their reason in
//! `tests/msl/known_failures.txt`: the test fails when a model that is not listed does not
//! match (a regression) and when a listed model matches (the list must shrink with it).

use minimo::regress::runner::{self, Config};
use minimo::regress::tube::Tolerance;
use std::path::PathBuf;
use std::time::Duration;

const PACKAGES: [&str; 4] = [
    "Modelica.Blocks",
    "Modelica.Electrical.Analog",
    "Modelica.Mechanics.Rotational",
    "Modelica.Mechanics.Translational",
];

fn msl_dir() -> PathBuf {
    let dir = std::env::var_os("MINIMO_MSL")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/msl"));
    assert!(
        dir.join("v4.1.0/Modelica/package.mo").is_file(),
        "\n\nTHE MSL TEST DATA IS MISSING: `{}` has no v4.1.0/Modelica/package.mo.\n\
         Put the shared test data beside the checkout (../shared/msl) or set MINIMO_MSL.\n",
        dir.display()
    );
    dir
}

#[test]
fn msl_examples_match_their_references() {
    let msl = msl_dir();
    let work_dir = std::env::temp_dir().join(format!("minimo-msl-{}", std::process::id()));
    std::fs::create_dir_all(&work_dir).expect("temporary folder");
    let config = Config {
        minimo: PathBuf::from(env!("CARGO_BIN_EXE_minimo")),
        library: msl.join("v4.1.0"),
        reference: msl.join("reference/v4.1.0"),
        packages: PACKAGES.iter().map(|s| s.to_string()).collect(),
        only: Vec::new(),
        work_dir: work_dir.clone(),
        jobs: 2,
        timeout: Duration::from_secs(120),
        tolerance: Tolerance::default(),
    };
    let cases = runner::discover(&config).expect("reference results");
    assert!(
        cases.len() >= 100,
        "only {} reference models found",
        cases.len()
    );
    let results = runner::run_all(&config, &cases, false);
    let _ = std::fs::remove_dir_all(&work_dir);
    let report = runner::report(&results, &config.packages);
    println!("{report}");
    let known_file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/msl/known_failures.txt");
    let known = runner::read_known_failures(&known_file).expect("known failures");
    for m in known.keys() {
        assert!(
            cases.iter().any(|c| &c.model == m),
            "{m} is listed as a known failure but has no reference result"
        );
    }
    let v = runner::verdict(&results, &known);
    let mut problems = Vec::new();
    for r in &v.regressions {
        problems.push(format!(
            "REGRESSION {} ({}): {}",
            r.model,
            r.outcome.label(),
            r.outcome.detail()
        ));
    }
    for m in &v.unexpected_passes {
        problems.push(format!(
            "NOW PASSES {m}: remove it from tests/msl/known_failures.txt"
        ));
    }
    assert!(problems.is_empty(), "\n{}\n\n{report}", problems.join("\n"));
}
