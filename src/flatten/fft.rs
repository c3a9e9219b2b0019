//! The real FFT behind `Modelica.Math.FastFourierTransform` (`ModelicaFFT_kiss_fftr`, called by
//! `Internal.rawRealFFT`), computed natively: no C is linked.
//!
//! Semantics of ModelicaFFT.c (KissFFT as adapted for the MSL): for `u` of even length `nu`,
//! `X[k] = sum_n u[n] exp(-2 pi i k n / nu)` for `k = 0 .. nu/2`; the outputs are
//! `amplitudes[k] = |X[k]| / nf` with `nf = nu/2 + 1` (the MSL's own scaling, not `nu/2`) and
//! `phases[k] = atan2(Im X[k], Re X[k])` in radians (`realFFT` converts them to degrees).
//! `info` is 0, or 1 when `nu` is odd (the outputs are then left at zero, as the C code does not
//! write them). The transform is a mixed-radix decimation in time over the smallest prime
//! factors (any length works; lengths of the form 2^a 3^b 5^c, which `realFFTsamplePoints`
//! returns, are fast); it agrees with KissFFT up to rounding.

/// A complex number as (real, imaginary).
type C = (f64, f64);

fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `(info, amplitudes, phases)` of `ModelicaFFT_kiss_fftr` for the samples `u`.
pub fn kiss_fftr(u: &[f64]) -> (i64, Vec<f64>, Vec<f64>) {
    let nu = u.len();
    let nf = nu / 2 + 1;
    if !nu.is_multiple_of(2) {
        return (1, vec![0.0; nf], vec![0.0; nf]);
    }
    let x = dft(&u.iter().map(|&v| (v, 0.0)).collect::<Vec<_>>());
    let amplitudes = x[..nf]
        .iter()
        .map(|&(re, im)| (re * re + im * im).sqrt() / nf as f64)
        .collect();
    let phases = x[..nf].iter().map(|&(re, im)| im.atan2(re)).collect();
    (0, amplitudes, phases)
}

/// The discrete Fourier transform `X[k] = sum_n x[n] exp(-2 pi i k n / N)`.
pub fn dft(x: &[C]) -> Vec<C> {
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    // Twiddles of the full length; a sub-transform of length `len` uses every `n / len`-th.
    let tw: Vec<C> = (0..n)
        .map(|j| {
            let phase = -2.0 * std::f64::consts::PI * j as f64 / n as f64;
            (phase.cos(), phase.sin())
        })
        .collect();
    let mut out = vec![(0.0, 0.0); n];
    transform(x, 1, &tw, &mut out);
    out
}

/// The smallest prime factor of `n` (`n` itself when prime).
fn smallest_factor(n: usize) -> usize {
    [2, 3, 5]
        .into_iter()
        .chain((7..).step_by(2))
        .take_while(|&p| p * p <= n)
        .find(|&p| n.is_multiple_of(p))
        .unwrap_or(n)
}

/// The transform of `x[0], x[stride], ..` (`out.len()` elements) into `out`: `p` transforms of
/// length `m = len / p` over the decimated inputs, recombined with the twiddles.
fn transform(x: &[C], stride: usize, tw: &[C], out: &mut [C]) {
    let len = out.len();
    if len == 1 {
        out[0] = x[0];
        return;
    }
    let p = smallest_factor(len);
    let m = len / p;
    // Sub-transform r (inputs r, r + p, ..) goes to out[r*m .. (r+1)*m].
    for r in 0..p {
        transform(
            &x[r * stride..],
            stride * p,
            tw,
            &mut out[r * m..(r + 1) * m],
        );
    }
    let step = tw.len() / len;
    let subs = out.to_vec();
    for (k, slot) in out.iter_mut().enumerate() {
        let km = k % m;
        let mut acc = subs[km];
        for r in 1..p {
            // w_len^(r k), reduced modulo len so the index stays in the table.
            let w = tw[(r * k % len) * step];
            let s = mul(subs[r * m + km], w);
            acc = (acc.0 + s.0, acc.1 + s.1);
        }
        *slot = acc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dft_matches_the_definition_for_mixed_lengths() {
        for n in [1, 2, 3, 4, 5, 6, 7, 12, 30, 49, 60] {
            let x: Vec<C> = (0..n)
                .map(|i| ((i as f64 * 0.7).sin(), (i as f64 * 1.3).cos()))
                .collect();
            let got = dft(&x);
            for (k, g) in got.iter().enumerate() {
                let mut want = (0.0, 0.0);
                for (j, v) in x.iter().enumerate() {
                    let ph = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
                    let s = mul(*v, (ph.cos(), ph.sin()));
                    want = (want.0 + s.0, want.1 + s.1);
                }
                assert!(
                    (g.0 - want.0).abs() < 1e-12 && (g.1 - want.1).abs() < 1e-12,
                    "n = {n}, k = {k}: {g:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn odd_length_is_info_1() {
        assert_eq!(kiss_fftr(&[1.0, 2.0, 3.0]).0, 1);
    }
}
