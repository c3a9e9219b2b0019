//! `Modelica.Math.FastFourierTransform.realFFT` (C function `ModelicaFFT_kiss_fftr`) and the
//! impure random number generator of `Modelica.Math.Random.Utilities`
//! (`ModelicaRandom_setInternalState_xorshift1024star`,
//! `ModelicaRandom_impureRandom_xorshift1024star`), which minimo computes natively: the FFT of a
//! sum of two sines worked out by hand, and the impure draws compared with the xorshift64* /
//! xorshift1024* algorithms written out here. Needs the MSL beside the checkout (skipped with a
//! message otherwise).

mod flatten_common;
use flatten_common::{msl_library, simulate_with_library, write_model};

const FFT: &str = r#"
model FFTCheck
  import Modelica.Constants.pi;
  constant Integer N = 8;
  // mean 1, 2 sin at bin 1, 0.5 cos at bin 3
  parameter Real u[N] = {1 + 2*sin(2*pi*(i - 1)/N) + 0.5*cos(2*pi*3*(i - 1)/N) for i in 1:N};
  discrete Integer info;
  discrete Real A[5];
  discrete Real phi[5];
  Integer info0;
  Real A0[5];
  Real phi0[5];
algorithm
  // at run time: every amplitude scales with 1 + time, the phases stay
  when sample(0, 0.5) then
    (info, A, phi) := Modelica.Math.FastFourierTransform.realFFT(u*(1 + time), 5);
  end when;
  // at parameter time (arguments known before the run)
  (info0, A0, phi0) := Modelica.Math.FastFourierTransform.realFFT(u, 5);
  annotation(experiment(StopTime = 1, Interval = 0.5));
end FFTCheck;
"#;

/// ModelicaFFT.c divides |X[k]| by nf = N/2 + 1 (here 5), not by N/2: a sine of amplitude a
/// at bin k (|X[k]| = a N/2 = 4a) shows as 4a/5. `realFFT` puts the mean in A[1], gives the
/// phases in degrees (a sine is -90 degrees, a cosine 0) and zeroes the phases of amplitudes
/// below 1e-4 of the largest.
#[test]
fn real_fft_of_two_sines_gives_the_hand_computed_amplitudes_and_phases() {
    let Some(lib) = msl_library() else { return };
    let path = write_model("msl_fft_random", "FFTCheck.mo", FFT);
    let t = simulate_with_library(&lib, &[path.to_str().expect("utf-8 path")]);
    let amplitudes = [1.0, 2.0 * 4.0 / 5.0, 0.0, 0.5 * 4.0 / 5.0, 0.0];
    let phases = [0.0, -90.0, 0.0, 0.0, 0.0];
    for time in [0.0, 0.5, 1.0] {
        for (prefix, scale) in [("", 1.0 + time), ("0", 1.0)] {
            let info = t.at(&format!("info{prefix}"), time);
            assert_eq!(info, 0.0, "info{prefix} at {time}");
            for k in 0..5 {
                let a = t.at(&format!("A{prefix}[{}]", k + 1), time);
                let p = t.at(&format!("phi{prefix}[{}]", k + 1), time);
                assert!(
                    (a - amplitudes[k] * scale).abs() < 1e-12,
                    "A{prefix}[{}]({time}) = {a}, expected {}",
                    k + 1,
                    amplitudes[k] * scale
                );
                assert!(
                    (p - phases[k]).abs() < 1e-9,
                    "phi{prefix}[{}]({time}) = {p}, expected {}",
                    k + 1,
                    phases[k]
                );
            }
        }
    }
}

const RANDOM: &str = r#"
model ImpureDraws
  parameter Integer seed = 30020;
  parameter Integer id(fixed = false);
  discrete Real r(start = 0, fixed = true);
  discrete Integer i(start = 0, fixed = true);
initial equation
  id = Modelica.Math.Random.Utilities.initializeImpureRandom(seed);
algorithm
  // two draws per event, in call order
  when sample(0.1, 0.1) then
    r := Modelica.Math.Random.Utilities.impureRandom(id);
    i := Modelica.Math.Random.Utilities.impureRandomInteger(id, -1234, 2345);
  end when;
  annotation(experiment(StopTime = 0.55, Interval = 0.05));
end ImpureDraws;
"#;

fn join(lo: i32, hi: i32) -> u64 {
    u64::from(lo as u32) | (u64::from(hi as u32) << 32)
}

/// One xorshift64* step on two C ints (ModelicaRandom_xorshift64star).
fn xorshift64star(s: [i32; 2]) -> [i32; 2] {
    let mut x = join(s[0], s[1]);
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x = x.wrapping_mul(2_685_821_657_736_338_717);
    [x as u32 as i32, (x >> 32) as u32 as i32]
}

/// `initialStateWithXorshift64star(715827883, seed, 33)` of `initializeImpureRandom`.
fn impure_initial_state(seed: i32) -> Vec<i32> {
    let mut aux = [715_827_883, seed];
    for _ in 0..10 {
        aux = xorshift64star(aux);
    }
    let mut state = aux.to_vec();
    while state.len() < 32 {
        let n = state.len();
        state.extend(xorshift64star([state[n - 2], state[n - 1]]));
    }
    state.push(xorshift64star([state[30], state[31]])[0]);
    state
}

/// The first `n` numbers of xorshift1024* from `state` (16 64-bit words and the index p).
fn xorshift1024star_draws(state: &[i32], n: usize) -> Vec<f64> {
    let mut s: Vec<u64> = (0..16)
        .map(|i| join(state[2 * i], state[2 * i + 1]))
        .collect();
    let mut p = (state[32] & 15) as usize;
    (0..n)
        .map(|_| {
            let s0 = s[p];
            p = (p + 1) & 15;
            let mut s1 = s[p];
            s1 ^= s1 << 31;
            s1 ^= s1 >> 11;
            s[p] = s0 ^ (s0 >> 30) ^ s1;
            let x = s[p].wrapping_mul(1_181_783_497_276_652_981) as i64;
            x as f64 * 5.421_010_862_427_522e-20 + 0.5
        })
        .collect()
}

#[test]
fn impure_random_draws_the_xorshift1024star_sequence_in_call_order() {
    let Some(lib) = msl_library() else { return };
    let path = write_model("msl_fft_random", "ImpureDraws.mo", RANDOM);
    let t = simulate_with_library(&lib, &[path.to_str().expect("utf-8 path")]);
    let want = xorshift1024star_draws(&impure_initial_state(30020), 10);
    for (k, pair) in want.chunks(2).enumerate() {
        let time = 0.1 * (k + 1) as f64 + 0.01;
        let (r, i) = (t.at("r", time), t.at("i", time));
        assert_eq!(r, pair[0], "r after event {}", k + 1);
        // impureRandomInteger: min(imax, integer(r * (imax - imin + 1)) + imin)
        let want_i = ((pair[1] * 3580.0).floor() - 1234.0).min(2345.0);
        assert_eq!(i, want_i, "i after event {}", k + 1);
    }
}
