//! Sweep axes and the runs they give.
//!
//! An axis is `NAME=START:STOP:COUNT` (COUNT evenly spaced values, both ends included),
//! `NAME=V1,V2,...` (the values listed), `NAME=V` (one value) or, for random samples only,
//! `NAME=LO:HI` (uniform in [LO, HI]). A grid is the Cartesian product of the axes, the first
//! axis varying slowest. Samples draw each axis independently from a SplitMix64 stream of the
//! seed (written out here so the same seed gives the same runs in every version): a range
//! uniformly, a list or a START:STOP:COUNT axis one of its values with equal probability.

/// The values an axis takes.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Listed values (also START:STOP:COUNT, expanded).
    List(Vec<f64>),
    /// `LO:HI`: a continuous range, only for samples.
    Range(f64, f64),
}

/// One swept parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Values,
}

/// The largest number of runs a grid or sample set may have.
pub const MAX_RUNS: usize = 10_000_000;

fn number(s: &str, spec: &str) -> Result<f64, String> {
    let s = s.trim();
    let x = match s {
        "true" => 1.0,
        "false" => 0.0,
        _ => s
            .parse::<f64>()
            .map_err(|_| format!("`{spec}`: `{s}` is not a number"))?,
    };
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("`{spec}`: `{s}` is not a finite number"))
    }
}

/// Parses `NAME=START:STOP:COUNT`, `NAME=LO:HI`, `NAME=V1,V2,...` or `NAME=V`.
pub fn parse_axis(spec: &str) -> Result<Axis, String> {
    let Some((name, rhs)) = spec.split_once('=') else {
        return Err(format!(
            "`{spec}` is not of the form NAME=START:STOP:COUNT or NAME=V1,V2,... \
             (for example `k=1:10:10`)"
        ));
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{spec}`: the parameter name is missing"));
    }
    let rhs = rhs.trim();
    let values = if rhs.contains(':') {
        let parts: Vec<&str> = rhs.split(':').collect();
        match parts.as_slice() {
            [lo, hi] => {
                let (lo, hi) = (number(lo, spec)?, number(hi, spec)?);
                if hi < lo {
                    return Err(format!(
                        "`{spec}`: the range ends ({hi}) below its start ({lo})"
                    ));
                }
                Values::Range(lo, hi)
            }
            [a, b, n] => {
                let (a, b) = (number(a, spec)?, number(b, spec)?);
                let n: usize = n.trim().parse().map_err(|_| {
                    format!(
                        "`{spec}`: the count `{}` is not a positive whole number",
                        n.trim()
                    )
                })?;
                if n == 0 || n > MAX_RUNS {
                    return Err(format!(
                        "`{spec}`: the count must be between 1 and {MAX_RUNS}"
                    ));
                }
                let v = if n == 1 {
                    vec![a]
                } else {
                    let step = (b - a) / (n - 1) as f64;
                    (0..n)
                        .map(|i| if i + 1 == n { b } else { a + step * i as f64 })
                        .collect()
                };
                Values::List(v)
            }
            _ => {
                return Err(format!(
                    "`{spec}`: write START:STOP:COUNT (for example `k=1:10:10`) or LO:HI"
                ));
            }
        }
    } else {
        let v = rhs
            .split(',')
            .map(|s| number(s, spec))
            .collect::<Result<Vec<f64>, String>>()?;
        Values::List(v)
    };
    Ok(Axis {
        name: name.to_string(),
        values,
    })
}

/// Checks no parameter is swept twice.
fn distinct(axes: &[Axis]) -> Result<(), String> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.name == a.name) {
            return Err(format!("`{}` is swept twice", a.name));
        }
    }
    Ok(())
}

/// The Cartesian product of the axes, one row of values (in axis order) per run.
pub fn grid(axes: &[Axis]) -> Result<Vec<Vec<f64>>, String> {
    distinct(axes)?;
    let mut lists = Vec::new();
    let mut total: usize = 1;
    for a in axes {
        match &a.values {
            Values::List(v) => {
                total = total.saturating_mul(v.len());
                lists.push(v.as_slice());
            }
            Values::Range(lo, hi) => {
                return Err(format!(
                    "`{}={lo}:{hi}` is a range without a count: give one \
                     (`{}={lo}:{hi}:10`), or draw random samples with --samples N",
                    a.name, a.name
                ));
            }
        }
    }
    if total > MAX_RUNS {
        return Err(format!(
            "the grid has {total} runs; at most {MAX_RUNS} are allowed"
        ));
    }
    let mut runs = Vec::with_capacity(total);
    for k in 0..total {
        // Mixed radix, the last axis fastest.
        let mut rest = k;
        let mut row = vec![0.0; lists.len()];
        for (j, l) in lists.iter().enumerate().rev() {
            row[j] = l[rest % l.len()];
            rest /= l.len();
        }
        runs.push(row);
    }
    Ok(runs)
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator whose stream is fixed by its seed.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// `n` random runs drawn from the axes with `seed`.
pub fn samples(axes: &[Axis], n: usize, seed: u64) -> Result<Vec<Vec<f64>>, String> {
    distinct(axes)?;
    if n == 0 || n > MAX_RUNS {
        return Err(format!("--samples must be between 1 and {MAX_RUNS}"));
    }
    for a in axes {
        if matches!(&a.values, Values::List(v) if v.is_empty()) {
            return Err(format!("`{}` has no values", a.name));
        }
    }
    let mut rng = SplitMix64(seed);
    let mut runs = Vec::with_capacity(n);
    for _ in 0..n {
        let row = axes
            .iter()
            .map(|a| {
                let u = rng.next_f64();
                match &a.values {
                    Values::Range(lo, hi) => lo + (hi - lo) * u,
                    Values::List(v) => v[((u * v.len() as f64) as usize).min(v.len() - 1)],
                }
            })
            .collect();
        runs.push(row);
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_list_and_range() {
        let a = parse_axis("k=1:10:10").unwrap();
        assert_eq!(a.values, Values::List((1..=10).map(f64::from).collect()));
        let b = parse_axis(" mu = 0.1, 0.2 ").unwrap();
        assert_eq!(b.name, "mu");
        assert_eq!(b.values, Values::List(vec![0.1, 0.2]));
        assert_eq!(parse_axis("x=0:1").unwrap().values, Values::Range(0.0, 1.0));
        for bad in [
            "k",
            "=1",
            "k=1:x:3",
            "k=1:2:0",
            "k=1:2:3:4",
            "k=2:1",
            "k=a,b",
            "k=inf",
        ] {
            assert!(parse_axis(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn grid_last_axis_fastest() {
        let axes = [
            parse_axis("a=1,2").unwrap(),
            parse_axis("b=10,20,30").unwrap(),
        ];
        let g = grid(&axes).unwrap();
        assert_eq!(g.len(), 6);
        assert_eq!(g[0], vec![1.0, 10.0]);
        assert_eq!(g[1], vec![1.0, 20.0]);
        assert_eq!(g[5], vec![2.0, 30.0]);
        assert!(grid(&[parse_axis("a=0:1").unwrap()]).is_err());
        assert!(grid(&[parse_axis("a=1").unwrap(), parse_axis("a=2").unwrap()]).is_err());
    }

    #[test]
    fn samples_repeat_with_the_seed_and_stay_in_range() {
        let axes = [parse_axis("x=2:3").unwrap(), parse_axis("n=3,4,5").unwrap()];
        let s = samples(&axes, 500, 7).unwrap();
        assert_eq!(s, samples(&axes, 500, 7).unwrap());
        assert_ne!(s, samples(&axes, 500, 8).unwrap());
        assert!(s.iter().all(|r| (2.0..=3.0).contains(&r[0])));
        for n in [3.0, 4.0, 5.0] {
            assert!(s.iter().any(|r| r[1] == n));
        }
        assert!(s.iter().all(|r| [3.0, 4.0, 5.0].contains(&r[1])));
    }
}
