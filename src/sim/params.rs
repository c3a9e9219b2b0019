//! Parameter values: `--set` overrides, then bindings evaluated in dependency order.
//!
//! Parameter bindings are expressions in other parameters (`k = 2*m`). They are evaluated once,
//! before compilation, by a small recursive evaluator with cycle detection; the compiled tape then
//! sees parameters as constants (so they fold away).

use super::tape::{apply, apply_builtin, bin_op};
use crate::dae::{Expr, FlatModel, UnOp, VarId, Variability};
use crate::diag::{Diagnostic, Span, closest_name};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Parses `NAME=VALUE` overrides and checks every name is a parameter of the model.
pub fn parse_overrides(
    model: &FlatModel,
    sets: &[String],
) -> crate::diag::Result<BTreeMap<VarId, f64>> {
    let mut out = BTreeMap::new();
    let mut errors = Vec::new();
    let by_name: BTreeMap<&str, VarId> = model
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.as_str(), i))
        .collect();
    for s in sets {
        let Some((name, value)) = s.split_once('=') else {
            errors.push(
                Diagnostic::error(
                    Span::DUMMY,
                    format!("`--set {s}` is not of the form NAME=VALUE"),
                )
                .with_help("write for example `--set R=100`"),
            );
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        let parsed = match value {
            "true" => Some(1.0),
            "false" => Some(0.0),
            v => v.parse::<f64>().ok(),
        };
        let Some(x) = parsed else {
            errors.push(Diagnostic::error(
                Span::DUMMY,
                format!("`--set {name}={value}`: `{value}` is not a number"),
            ));
            continue;
        };
        match by_name.get(name) {
            Some(&id) if model.variables[id].evaluated => {
                errors.push(evaluated_set_error(model, id, name, value));
            }
            Some(&id) if model.variables[id].structural => {
                let v = &model.variables[id];
                errors.push(
                    Diagnostic::error(
                        Span::DUMMY,
                        format!(
                            "`--set {name}={value}`: `{name}` fixes array sizes, `for` ranges, subscripts or \
                             conditions, so its value was used when the model was flattened"
                        ),
                    )
                    .with_secondary(v.span, "declared here")
                    .with_help(format!(
                        "change it in the model (for example `{name} = {value}` in its declaration or \
                         in a modifier) and run again"
                    )),
                );
            }
            Some(&id) if matches!(model.variables[id].variability, Variability::Parameter) => {
                out.insert(id, x);
            }
            Some(&id) => {
                let v = &model.variables[id];
                errors.push(
                    Diagnostic::error(
                        Span::DUMMY,
                        format!("`--set {name}`: `{name}` is not a parameter, so it cannot be set"),
                    )
                    .with_secondary(v.span, "declared here")
                    .with_help("only parameters can be changed with --set; change a variable's start value in the model"),
                );
            }
            None => {
                let params = model
                    .variables
                    .iter()
                    .filter(|v| v.variability == Variability::Parameter)
                    .map(|v| v.name.as_str());
                let mut d = Diagnostic::error(
                    Span::DUMMY,
                    format!("`--set {name}`: the model has no parameter `{name}`"),
                );
                if let Some(c) = closest_name(name, params) {
                    d = d.with_help(format!("did you mean `{c}`?"));
                }
                errors.push(d);
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// `--set` of a parameter evaluated at translation (`annotation(Evaluate = true)`, or bound to
/// such parameters only): its value is in the equations, so a new value needs translating again.
fn evaluated_set_error(model: &FlatModel, id: usize, name: &str, value: &str) -> Diagnostic {
    let v = &model.variables[id];
    Diagnostic::error(
        Span::DUMMY,
        format!(
            "`--set {name}={value}`: `{name}` is evaluated when the model is translated \
             (`annotation(Evaluate = true)` on it or on the parameters its value comes from, \
             MLS 18.3), so its value is part of the equations"
        ),
    )
    .with_secondary(v.span, "declared here")
    .with_help(format!(
        "change it in the model (for example `{name} = {value}` in its declaration or in a \
         modifier) and run again; the model's structure may change with it"
    ))
}

/// A parameter with `fixed = false` and no binding (MLS 8.6): an unknown of the initial system,
/// constant afterwards. Its `start` is the first guess.
pub fn is_initial_unknown(v: &crate::dae::Variable) -> bool {
    v.variability == Variability::Parameter && v.fixed == Some(false) && v.binding.is_none()
}

/// Values of parameters and constants (NaN for other variables).
pub struct ParamValues {
    pub values: Vec<f64>,
}

enum Mark {
    Todo,
    Busy,
    Done,
}

/// Evaluates every parameter and constant, after applying `overrides`.
pub fn evaluate(
    model: &FlatModel,
    overrides: &BTreeMap<VarId, f64>,
) -> crate::diag::Result<ParamValues> {
    let n = model.variables.len();
    let mut ev = Evaluator {
        model,
        values: Cow::Owned(vec![f64::NAN; n]),
        marks: (0..n).map(|_| Mark::Todo).collect(),
        overrides,
        errors: Vec::new(),
    };
    for i in 0..n {
        if !model.variables[i].is_unknown() {
            ev.param(i);
        }
    }
    if ev.errors.is_empty() {
        Ok(ParamValues {
            values: ev.values.into_owned(),
        })
    } else {
        Err(ev.errors)
    }
}

struct Evaluator<'a> {
    model: &'a FlatModel,
    /// Borrowed when every value is known (`eval_param_expr`): no copy per call, which made
    /// start values quadratic in the number of variables.
    values: Cow<'a, [f64]>,
    /// Empty: every value is done.
    marks: Vec<Mark>,
    overrides: &'a BTreeMap<VarId, f64>,
    errors: Vec<Diagnostic>,
}

impl Evaluator<'_> {
    fn param(&mut self, i: VarId) -> f64 {
        match self.marks.get(i) {
            None | Some(Mark::Done) => return self.values[i],
            Some(Mark::Busy) => {
                let v = &self.model.variables[i];
                self.errors.push(Diagnostic::error(
                    v.span,
                    format!("the binding of parameter `{}` depends on itself", v.name),
                ));
                self.marks[i] = Mark::Done;
                return f64::NAN;
            }
            Some(Mark::Todo) => {}
        }
        self.marks[i] = Mark::Busy;
        let var = &self.model.variables[i];
        let value = if let Some(&x) = self.overrides.get(&i) {
            x
        } else if var.ty == crate::dae::ScalarType::String
            && var.binding.is_none()
            && var.start.is_none()
        {
            // A String parameter whose values could not be listed before simulation
            // (`structure::string_values` removed its binding): an error where it is used.
            f64::NAN
        } else if let Some(b) = var.binding.as_ref().or(var.start.as_ref()) {
            let errors_before = self.errors.len();
            match self.eval(b) {
                // A parameter that is infinite or NaN (`1/a` with `a = 0`) is reported here, at
                // its binding: later it would surface as an equation that uses it.
                Ok(x)
                    if !x.is_finite()
                        && self.errors.len() == errors_before
                        && !self.uses_non_finite(b) =>
                {
                    self.errors.push(non_finite_parameter(self.model, i, b, x));
                    x
                }
                Ok(x) => x,
                Err(msg) => {
                    self.errors.push(Diagnostic::error(
                        var.span,
                        format!(
                            "cannot evaluate the value of parameter `{}`: {msg}",
                            var.name
                        ),
                    ));
                    f64::NAN
                }
            }
        } else if is_initial_unknown(var) {
            // Determined by the initial equations; the start value is only the first guess.
            0.0
        } else {
            self.errors.push(
                Diagnostic::error(var.span, format!("parameter `{}` has no value", var.name))
                    .with_help(format!(
                        "give it a binding (`= ...`) or set it with `--set {}=VALUE`",
                        var.name
                    )),
            );
            f64::NAN
        };
        self.values.to_mut()[i] = value;
        self.marks[i] = Mark::Done;
        value
    }

    /// Whether `e` reads a parameter that is already NaN or infinite (then reported at that
    /// parameter, not again at each one computed from it).
    fn uses_non_finite(&self, e: &Expr) -> bool {
        let mut found = false;
        e.visit(&mut |x| {
            if let Expr::Var(v) = x
                && self.values.get(*v).is_some_and(|x| !x.is_finite())
            {
                found = true;
            }
        });
        found
    }

    /// Evaluates an expression over parameters; `Err` names what is not a parameter expression.
    pub fn eval(&mut self, e: &Expr) -> Result<f64, String> {
        Ok(match e {
            Expr::Real(x) => *x,
            Expr::Integer(i) => *i as f64,
            Expr::Boolean(b) => f64::from(u8::from(*b)),
            Expr::Var(v) => {
                let var = &self.model.variables[*v];
                if var.is_unknown() {
                    return Err(format!("it depends on the variable `{}`", var.name));
                }
                self.param(*v)
            }
            Expr::Unary(UnOp::Neg, a) => -self.eval(a)?,
            Expr::Unary(UnOp::Not, a) => f64::from(u8::from(self.eval(a)? == 0.0)),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                apply(bin_op(*op), a, b, 0.0)
            }
            Expr::Call(f, args) => {
                let mut v = Vec::with_capacity(args.len());
                for a in args {
                    v.push(self.eval(a)?);
                }
                apply_builtin(*f, &v)?
            }
            Expr::If { branches, else_ } => {
                for (c, x) in branches {
                    if self.eval(c)? != 0.0 {
                        return self.eval(x);
                    }
                }
                self.eval(else_)?
            }
            Expr::NoEvent(a) | Expr::Smooth(_, a) => self.eval(a)?,
            Expr::UserCall {
                function,
                args,
                output,
                element,
            } => {
                let mut v = Vec::new();
                for a in crate::sim::funcall::scalar_args(args) {
                    v.push(self.eval(a)?);
                }
                let functions = &self.model.functions;
                crate::sim::funcall::call_once(functions, function, args, &v, *output, *element)?
            }
            other => {
                return Err(format!(
                    "`{}` is not allowed in a parameter expression",
                    kind(other)
                ));
            }
        })
    }
}

/// Evaluates an expression in parameters only (start values, sample intervals...).
pub fn eval_param_expr(model: &FlatModel, params: &ParamValues, e: &Expr) -> Result<f64, String> {
    let overrides = BTreeMap::new();
    let mut ev = Evaluator {
        model,
        values: Cow::Borrowed(&params.values),
        marks: Vec::new(),
        overrides: &overrides,
        errors: Vec::new(),
    };
    ev.eval(e)
}

fn kind(e: &Expr) -> &'static str {
    match e {
        Expr::Time => "time",
        Expr::Der(_) => "der",
        Expr::Pre(_) => "pre",
        Expr::UserCall { .. } => "a function call",
        Expr::String(_) => "a string",
        Expr::Sample(..) => "sample",
        _ => "this expression",
    }
}

/// The error for parameter `i` whose value `x` from `binding` is not finite.
fn non_finite_parameter(model: &FlatModel, i: VarId, binding: &Expr, x: f64) -> Diagnostic {
    let var = &model.variables[i];
    let text = crate::dae::print_expr(binding, &model.variables);
    let what = if x.is_nan() { "NaN" } else { "infinite" };
    let mut d = Diagnostic::error(
        var.span,
        format!("parameter `{}` = {text} is {what}", var.name),
    )
    .with_label(format!("the binding of `{}`", var.name))
    .with_help(
        "look for a division by zero, the square root or logarithm of a negative number, or an \
         overflow in the parameters it uses (`--set` can give them other values)",
    );
    if !var.component.is_empty() {
        d = d.with_note(format!("in component `{}`", var.component));
    }
    d
}
