//! Compiled function code (`sim::fncode`) against the interpreter (`flatten::call_function`):
//! the same numbers, bit for bit, on every feature of the compiled subset; where the
//! interpreter stops with an error the code gives up (`None`), so the call falls back to the
//! interpreter and its message; what the subset does not cover is not compiled. The MSL's
//! R134a and IF97 property functions (the reason the code exists) are compared on a grid of
//! states when the MSL is beside the checkout.

mod flatten_common;

use minimo::dae::Function;
use minimo::diag::SourceMap;
use minimo::flatten::tensor::{Tensor, Val};
use minimo::flatten::{call_function, flatten_source_with};
use minimo::sim::fncode::Compiler;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

fn functions(src: &str, libs: &[PathBuf]) -> Arc<BTreeMap<String, Function>> {
    let mut sources = SourceMap::new();
    let flat = flatten_source_with(&mut sources, "t.mo", src, Some("M"), libs)
        .unwrap_or_else(|d| panic!("{:?}", d));
    Arc::new(flat.functions)
}

/// The interpreter's outputs for these inputs (`dims` per input, Integer inputs by `ints`).
fn interpret(
    fs: &BTreeMap<String, Function>,
    name: &str,
    dims: &[Vec<usize>],
    args: &[f64],
) -> Result<Vec<Vec<f64>>, String> {
    let f = &fs[name];
    let mut values = Vec::new();
    let mut k = 0;
    for (v, d) in f.inputs.iter().zip(dims) {
        let n: usize = d.iter().product();
        let data = args[k..k + n]
            .iter()
            .map(|&x| match v.ty {
                minimo::dae::ScalarType::Integer => Val::Int(x.round() as i64),
                minimo::dae::ScalarType::Boolean => Val::Bool(x != 0.0),
                _ => Val::Real(x),
            })
            .collect();
        k += n;
        values.push(Tensor::new(d.clone(), data));
    }
    let outs = call_function(fs, name, &values)?;
    Ok(outs.iter().map(|o| o.to_f64s().expect("numbers")).collect())
}

/// Compiles `name` and checks it against the interpreter on every argument vector.
fn same_as_interpreter(
    fs: &Arc<BTreeMap<String, Function>>,
    name: &str,
    dims: &[Vec<usize>],
    cases: &[Vec<f64>],
) {
    let code = Compiler::new(fs.clone())
        .compile(name, dims)
        .unwrap_or_else(|| panic!("`{name}` is not compiled"));
    for args in cases {
        let want = interpret(fs, name, dims, args);
        let got = code.run(args, &[]);
        match (&want, &got) {
            (Ok(w), Some(g)) => {
                let bits = |v: &Vec<Vec<f64>>| -> Vec<u64> {
                    v.iter().flatten().map(|x| x.to_bits()).collect()
                };
                assert_eq!(bits(w), bits(g), "`{name}`{args:?}: {w:?} vs {g:?}");
            }
            // The interpreter fails: the code must give up, so that the interpreter's error
            // is what the run reports.
            (Err(_), None) => {}
            _ => panic!("`{name}`{args:?}: interpreter {want:?}, code {got:?}"),
        }
    }
}

const SCALARS: &str = r#"
function loops
  input Real x;
  input Integer n;
  output Real s = 0;
  output Integer count;
  output Boolean big;
protected
  Integer i = 0;
algorithm
  for k in 1:n loop
    s := s + x^k / k - (if mod(k, 2) == 0 then sqrt(abs(x)) else exp(-x));
  end for;
  for k in n:-2:1 loop
    s := s + sign(x) * k;
  end for;
  while true loop
    i := i + 1;
    if i > 2 * n then
      break;
    elseif i == 7 then
      count := div(i * 3, 2) + rem(-i, 4);
    end if;
  end while;
  count := count + i + integer(x * 10) + max(n, 3) - min(n, 2);
  big := x > 1 and not (n < 0 or x < 0) or noEvent(s > 100);
  if big then
    return;
  end if;
  s := smooth(1, s * 2);
end loops;

function report
  input String message;
algorithm
  assert(false, message);
end report;

function bracket
  input Real a;
  input Real b;
  output Real m;
algorithm
  if a * b > 0 then
    report("no sign change in [" + String(a) + ", " + String(b) + "]");
  end if;
  m := (a + b) / 2;
end bracket;

function overflow
  input Integer n;
  output Integer m;
algorithm
  m := n * 100000 * 100000;
end overflow;

function checked
  input Real x;
  output Real y;
algorithm
  assert(x >= 0, "x must not be negative: " + String(x));
  y := log(x);
end checked;

model M
  Real a = loops(time, 5);
  Real b = overflow(3);
  Real c = checked(time);
  Real d = bracket(time, -1);
end M;
"#;

#[test]
fn scalar_code_matches_the_interpreter() {
    let fs = functions(SCALARS, &[]);
    let mut cases = Vec::new();
    for x in [-2.5, -1.0, 0.0, 0.3, 1.0, 1.7, 4.0, f64::NAN] {
        for n in [-3.0, 0.0, 1.0, 4.0, 7.0, 12.0] {
            cases.push(vec![x, n]);
        }
    }
    same_as_interpreter(&fs, "loops", &[vec![], vec![]], &cases);
    // Integer overflow: the interpreter stops, the code gives up.
    same_as_interpreter(
        &fs,
        "overflow",
        &[vec![]],
        &[vec![1.0], vec![0.0], vec![-1.0]],
    );
    let code = Compiler::new(fs.clone())
        .compile("overflow", &[vec![]])
        .expect("compiled");
    assert!(code.run(&[1.0], &[]).is_none());
    // A failed assert: the interpreter makes the call again and reports the message.
    same_as_interpreter(&fs, "checked", &[vec![]], &[vec![2.0], vec![-1.0]]);
    // A call the code cannot make, reached or not.
    same_as_interpreter(
        &fs,
        "bracket",
        &[vec![], vec![]],
        &[vec![1.0, -1.0], vec![1.0, 2.0]],
    );
}

const ARRAYS: &str = r#"
function spline
  input Real x;
  input Real c[4];
  output Real y;
algorithm
  y := c[4] + x * (c[3] + x * (c[2] + x * c[1]));
end spline;

function interval
  input Real x;
  input Real breaks[:];
  output Integer i;
  output Integer error = 0;
protected
  Integer n = scalar(size(breaks)) - 1;
  Integer ix = 1;
  Integer m = n;
algorithm
  i := 1;
  if x < breaks[1] or x >= breaks[n] then
    error := 1;
  end if;
  if x < breaks[1] or x >= breaks[2] then
    while m <> ix loop
      if x < breaks[m] then
        n := m;
      else
        ix := m;
      end if;
      m := integer(div(ix + n, 2));
    end while;
    i := ix;
  end if;
end interval;

function table
  input Real x;
  output Real y;
  output Real v[3];
protected
  Real b[:] = {0.0, 0.5, 1.0, 2.0, 4.0};
  Real c[4, 4] = {{1, 2, 3, 4}, {0.5, -1, 2, 0}, {0, 0, 1, 1}, {2, 1, 0, -1}};
  Integer k;
  Integer err;
  Real w[3];
algorithm
  (k, err) := interval(x, b);
  y := spline(x - b[k], c[k, 1:4]) + spline(x, c[end, :]) + spline(1, {x, 2 * x, 3, k});
  for j in 1:3 loop
    w[j] := c[j, k] * j;
  end for;
  v := {w[3], w[2], w[1]};
  v[2] := v[2] + err + size(c, 1);
  w := v;
  v := w;
end table;

function reductions
  input Real x;
  input Integer n;
  output Real y;
  output Integer k;
protected
  Real v[4] = {1.5, -2, x, 0.25};
  Integer w[3] = {3, -1, 2};
algorithm
  y := sum(v) + product(v[i] + x for i in 1:3) + max(v) - min(v[j] * x for j in 1:n);
  k := sum(w) + product(w) + max(w[i] * n for i in 1:3) + sum(i for i in n:-1:1);
end reductions;

function rows
  input Real m[:, 2];
  output Real s[size(m, 1)];
algorithm
  for i in 1:size(m, 1) loop
    s[i] := m[i, 1] - m[i, 2];
  end for;
end rows;

model M
  Real y = table(time);
  Real r[3] = rows({{1, time}, {2, 3}, {4, 5}});
  Real z = reductions(time, 2);
end M;
"#;

#[test]
fn array_code_matches_the_interpreter() {
    let fs = functions(ARRAYS, &[]);
    let cases: Vec<Vec<f64>> = [-1.0, 0.0, 0.25, 0.5, 1.5, 3.9, 4.0, 7.0]
        .iter()
        .map(|&x| vec![x])
        .collect();
    same_as_interpreter(&fs, "table", &[vec![]], &cases);
    let mut red = Vec::new();
    for x in [-1.0, 0.0, 0.5, 3.0] {
        // n = 0: `min` of no element, an error of the interpreter.
        for n in [0.0, 1.0, 4.0] {
            red.push(vec![x, n]);
        }
    }
    same_as_interpreter(&fs, "reductions", &[vec![], vec![]], &red);
    same_as_interpreter(
        &fs,
        "rows",
        &[vec![3, 2]],
        &[vec![1.0, 0.5, 2.0, 3.0, 4.0, 5.0]],
    );
    // Sizes are part of the compiled code: the same function for another size.
    same_as_interpreter(&fs, "rows", &[vec![1, 2]], &[vec![7.0, 0.25]]);
}

#[test]
fn an_index_out_of_range_gives_up_to_the_interpreter() {
    let src = r#"
function pick
  input Real v[3];
  input Integer k;
  output Real y;
algorithm
  y := v[k];
end pick;
model M
  Real y = pick({1, 2, time}, 2);
end M;
"#;
    let fs = functions(src, &[]);
    let cases = [0.0, 1.0, 3.0, 4.0, -1.0].map(|k| vec![1.0, 2.0, 3.0, k]);
    same_as_interpreter(&fs, "pick", &[vec![3], vec![]], &cases);
    let code = Compiler::new(fs.clone())
        .compile("pick", &[vec![3], vec![]])
        .expect("compiled");
    assert!(code.run(&[1.0, 2.0, 3.0, 4.0], &[]).is_none());
}

#[test]
fn what_the_subset_does_not_cover_is_not_compiled() {
    let src = r#"
function named
  input Real x;
  output String s;
algorithm
  s := String(x);
end named;
function fact
  input Integer n;
  output Integer f;
algorithm
  f := if n <= 1 then 1 else n * fact(n - 1);
end fact;
function uses
  input Real x;
  output Real y;
algorithm
  y := x + fact(3);
end uses;
function total
  input Real v[:];
  output Real s;
algorithm
  s := sum(v .* v);
end total;
model M
  parameter String s = named(1.5);
  Real y = uses(time);
  Real z = total({1, time});
end M;
"#;
    let fs = functions(src, &[]);
    let mut c = Compiler::new(fs.clone());
    assert!(c.compile("named", &[vec![]]).is_none(), "a String");
    assert!(c.compile("fact", &[vec![]]).is_none(), "recursive");
    assert!(
        c.compile("uses", &[vec![]]).is_none(),
        "calls a recursive one"
    );
    assert!(
        c.compile("total", &[vec![2]]).is_none(),
        "an array expression"
    );
}

#[test]
fn msl_property_functions_match_the_interpreter() {
    let Some(lib) = flatten_common::msl_library() else {
        return;
    };
    let src = r#"
model M
  Real d;
  Real T;
  Real err;
  Real rho = Modelica.Media.Water.IF97_Utilities.rho_ph(1e5 + time, 4e5);
equation
  (d, T, err) = Modelica.Media.R134a.R134a_ph.dtofphOnePhase(1e5 + time, 2e5, 0.01, 0.01);
end M;
"#;
    let fs = functions(src, &[lib]);
    let mut cases = Vec::new();
    for p in [5e4, 1.01325e5, 1e6, 3e6, 5e6] {
        for h in [1.0e5, 1.5e5, 2.5e5, 4.2e5, 5e5] {
            cases.push(vec![p, h, 0.01, 0.01]);
        }
    }
    same_as_interpreter(
        &fs,
        "Modelica.Media.R134a.R134a_ph.dtofphOnePhase",
        &[vec![], vec![], vec![], vec![]],
        &cases,
    );
    let water: Vec<Vec<f64>> = [
        (1e5, 4e5),
        (1e5, 2.7e6),
        (1e7, 1e6),
        (3e6, 3.2e6),
        (2e7, 2.5e6),
    ]
    .iter()
    .map(|&(p, h)| vec![p, h])
    .collect();
    let name = fs
        .keys()
        .find(|k| k.ends_with("IF97_Utilities.rho_ph"))
        .expect("rho_ph is called")
        .clone();
    let arity = fs[&name].inputs.len();
    let water: Vec<Vec<f64>> = water
        .into_iter()
        .map(|mut a| {
            a.resize(arity, 0.0);
            a
        })
        .collect();
    same_as_interpreter(&fs, &name, &vec![vec![]; arity], &water);
}
