//! `Modelica.Electrical.Spice3` examples. Their pulse sources have the default width `inf`,
//! so the pulse's last phase divides by a zero-length fall: the relations must have their
//! values (`time < TD`) before any loop is solved at initialization (`events::init_relations`).
//! No reference results exist for Spice3 here; the checks are the circuits' logic.

mod flatten_common;

use flatten_common::{msl_library, simulate_with_library};

#[test]
fn nor_gate_follows_its_truth_table() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.Nor",
            "--interval",
            "0.05",
            "--vars",
            r"^(vin1\.v|vin2\.v|v\.v|mp2\.S\.v)$",
        ],
    );
    // Supply v: 0 until 0.5 s, 5 V from 0.6 s. vin2 (gates mp2, mn1): 5 V on [1.001, 3.001];
    // vin1 (gates mp1, mn2): 5 V on [2.001, 4.001]. The output node mp2.S charges and
    // discharges through 1e-5 F capacitances, so each level is checked once it has settled
    // to within 1 V of a rail (0.4 s or more after the last input change).
    for (time, v1, v2) in [
        (1.0, 0.0, 0.0),
        (2.0, 0.0, 5.0),
        (3.0, 5.0, 5.0),
        (5.0, 0.0, 0.0),
    ] {
        assert!((t.at("vin1.v", time) - v1).abs() < 1e-9, "vin1 at {time}");
        assert!((t.at("vin2.v", time) - v2).abs() < 1e-9, "vin2 at {time}");
        let out = t.at("mp2.S.v", time);
        if v1 == 0.0 && v2 == 0.0 {
            assert!(
                out > 3.9 && out <= 5.0 + 1e-6,
                "NOR(0, 0) at {time}: {out} V"
            );
        } else {
            assert!(out.abs() < 0.1, "NOR({v1}, {v2}) at {time}: {out} V");
        }
    }
    // Between the rails throughout (a CMOS gate cannot leave them by more than rounding).
    let c = t.col("mp2.S.v");
    assert!(t.rows.iter().all(|r| r[c] > -1e-6 && r[c] < 5.0 + 1e-6));
}

/// Two CMOS inverters in series whose transistors take their model cards from record
/// parameters, with `RD = RS = 0` by default: the drain and source resistances are fields of
/// the `Evaluate = true` model-line record, so `ird * 0 = D.v - Dinternal` joins the inner
/// node to the pin (MLS 18.3 applies the annotation to the record's fields) instead of giving
/// `ird = 0 / 0` at the start. vin ramps from 0 to 5 V between 2 s and 3 s.
#[test]
fn inverters_apart_record_invert_twice() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.InvertersApartRecord",
            "--vars",
            r"^(vin\.p\.v|mp1\.S\.v|mp2\.S\.v)$",
        ],
    );
    // Input low: the first output at the upper rail, the second at the lower one.
    assert!(t.at("vin.p.v", 1.5).abs() < 1e-9);
    assert!(t.at("mp1.S.v", 1.5) > 4.5, "{}", t.at("mp1.S.v", 1.5));
    assert!(t.at("mp2.S.v", 1.5) < 0.5, "{}", t.at("mp2.S.v", 1.5));
    // Input high: the other way round.
    assert!((t.at("vin.p.v", 5.0) - 5.0).abs() < 1e-9);
    assert!(t.at("mp1.S.v", 5.0) < 0.1, "{}", t.at("mp1.S.v", 5.0));
    assert!(t.at("mp2.S.v", 5.0) > 4.9, "{}", t.at("mp2.S.v", 5.0));
}

/// A depletion NMOS (VTO = -2 V, level 1) in saturation at VDS = 10 V, the gate pulsed between
/// 0 and 5 V: the drain current follows (VGS - VTO)^2, so the two levels are in the ratio
/// (7/2)^2 = 12.25 (LAMBDA = 0), and the 0 V level is KP/2 * W/L * 2^2 (TOX is not given,
/// so the level-1 model keeps KP at its default 2e-5 A/V^2 rather than UO * Cox).
#[test]
fn mosfet_characterization_current_is_square_law() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.Spice3BenchmarkMosfetCharacterization",
            "--vars",
            r"^(VGS\.p\.v|M1\.D\.i)$",
        ],
    );
    let (low, high) = (t.at("M1.D.i", 3.5e-8), t.at("M1.D.i", 4.5e-8));
    assert!(t.at("VGS.p.v", 3.5e-8).abs() < 1e-9);
    assert!((t.at("VGS.p.v", 4.5e-8) - 5.0).abs() < 1e-9);
    assert!((high / low - 12.25).abs() < 1e-3, "{high} / {low}");
    // W/L = 6/4; the gmin conductances add some 1e-11 A.
    let expected = 2e-5 / 2.0 * 1.5 * 4.0;
    assert!((low / expected - 1.0).abs() < 1e-4, "{low} vs {expected}");
}

/// A diode bridge on a 10 V, 200 Hz sine into 10 ohm: both half waves come out positive,
/// two diode drops below the peak.
#[test]
fn graetz_rectifies_both_half_waves() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.Graetz",
            "--vars",
            r"^(vsin\.v|rout\.v)$",
        ],
    );
    for peak in [0.00125, 0.00375, 0.00625] {
        assert!((t.at("vsin.v", peak).abs() - 10.0).abs() < 1e-6);
        let out = t.at("rout.v", peak);
        assert!(out > 8.0 && out < 9.0, "rout.v at {peak}: {out}");
    }
    // Near the sine's zero crossings the junction capacitances (CJO = 1e-7 F) carry about
    // C * dv/dt = 1e-7 * 2*pi*200*10 A, so the output dips a few mV below zero, never more.
    let c = t.col("rout.v");
    assert!(t.rows.iter().all(|r| r[c] > -0.02 && r[c] < 10.0));
}

/// An astable multivibrator of two NPN transistors (model cards without RC/RE, evaluated to
/// zero resistances): once its supply has ramped to 8 V (at 0.0105 s), the collector
/// `r4.p.v` swings between its saturation level (about 0.1 V) and about 7.3 V with a steady
/// period (3.1 ms here).
#[test]
fn oscillator_oscillates_with_a_steady_period() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.Oscillator",
            "--vars",
            r"^(v\.p\.v|r4\.p\.v)$",
        ],
    );
    assert!((t.at("v.p.v", 0.012) - 8.0).abs() < 1e-9);
    let c = t.col("r4.p.v");
    let ups: Vec<f64> = t
        .rows
        .windows(2)
        .filter(|w| w[0][0] > 0.011 && w[0][c] < 4.0 && w[1][c] >= 4.0)
        .map(|w| w[1][0])
        .collect();
    assert!(ups.len() >= 4, "rising edges after 11 ms: {ups:?}");
    let periods: Vec<f64> = ups.windows(2).map(|w| w[1] - w[0]).collect();
    let (lo, hi) = periods
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &p| (l.min(p), h.max(p)));
    assert!(hi - lo < 0.1 * lo, "periods {periods:?}");
    assert!(t.rows.iter().all(|r| r[c] > -1e-6 && r[c] < 8.0));
}

/// CascodeCircuit's JFETs leave CGS and CGD at their default 0, so the source node's voltage
/// derivative has no coefficient at t = 0: minimo cannot run it (a state with a zero "mass" needs
/// a DAE integrator), and must say so with the variable, the time and the likely cause.
#[test]
fn a_zero_capacitance_node_is_named_with_its_cause() {
    let Some(lib) = msl_library() else {
        return;
    };
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args([
            "simulate",
            "-m",
            "Modelica.Electrical.Spice3.Examples.CascodeCircuit",
            "-o",
        ])
        .arg(std::env::temp_dir().join(format!("minimo_cascode_{}.csv", std::process::id())))
        .arg("--lib")
        .arg(&lib)
        .output()
        .expect("minimo runs");
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    for want in [
        "at time 0",
        "no pivot for `der(J1.S.v)`",
        "`der(J1.S.v)` is not determined at this point",
        "`J1.S.v` cannot be integrated as a state",
        "capacitance",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
}
