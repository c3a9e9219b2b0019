//! String values at run time (MLS 3.6, 3.7.1): before structural analysis every String
//! expression becomes a number, so the numeric pipeline (matching, events, `pre`) carries
//! Strings like Integers.
//!
//! Strings are discrete-time and built only from literals, other Strings, `+` and `String(b)`
//! of Booleans or enumerations, so the values a String variable can take form a finite set,
//! found here by a fixed point over the equations that give it a value. Every value the
//! model can produce goes into one sorted table; a String becomes its rank in that table.
//! Ranks keep the lexicographic order, so `==`, `<>`, `<`, ... compare ranks, and `a + b`
//! of variables becomes a choice over the pairs of their values. In `assert` and `terminate`
//! messages a String variable becomes a choice of texts again. A String whose values cannot
//! be listed before simulation (`String(x)` of a Real that changes in time, a String built up
//! at every event) is refused with the equation's location.

use crate::dae::{
    BinOp, Equation, EquationKind, Expr, FlatModel, ScalarType, StringFormat, ValueKind, VarId,
};
use crate::diag::{self, Diagnostic, Span};
use std::collections::{BTreeMap, BTreeSet};

/// At most this many String values in one model (a String grown at every event never ends).
const MAX_VALUES: usize = 10_000;
/// At most this many pairs in one run-time concatenation `a + b`.
const MAX_PAIRS: usize = 4_096;

type Set = BTreeSet<String>;
type DResult<T> = Result<T, Box<Diagnostic>>;

/// Replaces every String expression of `model` by its rank in the model's table of String
/// values (see the module comment). A model without Strings is left as it is.
pub fn lower(model: &mut FlatModel) -> diag::Result<()> {
    if !model.variables.iter().any(|v| v.ty == ScalarType::String) && !has_string_values(model) {
        return Ok(());
    }
    let mut l = Lowering {
        model,
        sets: BTreeMap::new(),
        poisoned: BTreeMap::new(),
        table: BTreeMap::new(),
    };
    let run = |l: &mut Lowering| -> DResult<()> {
        l.find_sets()?;
        l.build_table()?;
        l.rewrite()
    };
    run(&mut l).map_err(|d| vec![*d])
}

/// Whether a String literal or conversion appears outside messages.
fn has_string_values(model: &FlatModel) -> bool {
    let mut found = false;
    let mut check = |e: &Expr| {
        e.visit(&mut |x| found |= matches!(x, Expr::String(_) | Expr::ToString(..)));
    };
    for_each_value_expr(&model.equations, &mut check);
    for_each_value_expr(&model.initial_equations, &mut check);
    found
}

/// Calls `f` on every expression of `eqs` that is not a message.
fn for_each_value_expr(eqs: &[Equation], f: &mut impl FnMut(&Expr)) {
    for eq in eqs {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                f(lhs);
                f(rhs);
            }
            EquationKind::If { branches, else_ } => {
                for (c, body) in branches {
                    f(c);
                    for_each_value_expr(body, f);
                }
                for_each_value_expr(else_, f);
            }
            EquationKind::When { branches } => {
                for (c, body) in branches {
                    f(c);
                    for_each_value_expr(body, f);
                }
            }
            EquationKind::Reinit { value, .. } => f(value),
            EquationKind::Assert { condition, .. } => f(condition),
            EquationKind::Terminate { .. } => {}
        }
    }
}

struct Lowering<'m> {
    model: &'m mut FlatModel,
    /// The values each String variable can take.
    sets: BTreeMap<VarId, Set>,
    /// String parameters whose binding cannot be listed (a function call): the reason. Such a
    /// parameter is an error only where its value is used.
    poisoned: BTreeMap<VarId, String>,
    /// Every value, with its rank.
    table: BTreeMap<String, i64>,
}

impl Lowering<'_> {
    fn is_string(&self, e: &Expr) -> bool {
        match e {
            Expr::String(_) | Expr::ToString(..) => true,
            Expr::Var(v) => self.model.variables.get(*v).map(|v| v.ty) == Some(ScalarType::String),
            Expr::Pre(a) | Expr::NoEvent(a) => self.is_string(a),
            Expr::Binary(BinOp::Add, a, b) => self.is_string(a) || self.is_string(b),
            Expr::If { else_, .. } => self.is_string(else_),
            Expr::UserCall {
                function, output, ..
            } => {
                self.model.functions.get(function).is_some_and(|f| {
                    f.outputs.get(*output).map(|o| o.ty) == Some(ScalarType::String)
                })
            }
            _ => false,
        }
    }

    /// The values a String expression can take, or why they cannot be listed.
    fn values(&self, e: &Expr) -> Result<Set, String> {
        Ok(match e {
            Expr::String(s) => Set::from([s.clone()]),
            Expr::Var(v) => {
                if let Some(why) = self.poisoned.get(v) {
                    return Err(why.clone());
                }
                self.sets.get(v).cloned().unwrap_or_default()
            }
            Expr::Pre(a) | Expr::NoEvent(a) => self.values(a)?,
            Expr::Binary(BinOp::Add, a, b) => {
                let (a, b) = (self.values(a)?, self.values(b)?);
                if a.len() * b.len() > MAX_PAIRS {
                    return Err(too_many());
                }
                a.iter()
                    .flat_map(|x| b.iter().map(move |y| format!("{x}{y}")))
                    .collect()
            }
            Expr::If { branches, else_ } => {
                let mut s = self.values(else_)?;
                for (_, x) in branches {
                    s.extend(self.values(x)?);
                }
                s
            }
            Expr::ToString(x, fmt) => {
                let kind = self.kind_of(x, fmt);
                match (&**x, kind) {
                    (Expr::Real(r), _) => Set::from([fmt.apply(*r, ValueKind::Real)?]),
                    (Expr::Integer(i), _) => Set::from([fmt.apply(*i as f64, ValueKind::Integer)?]),
                    (Expr::Boolean(b), _) => {
                        Set::from([fmt.apply(f64::from(u8::from(*b)), ValueKind::Boolean)?])
                    }
                    (_, Some(kind)) => {
                        let mut s = Set::new();
                        for x in kind_values(kind, fmt) {
                            s.insert(fmt.apply(x, kind)?);
                        }
                        s
                    }
                    _ => return Err(
                        "`String(x)` of a number that is known only during simulation cannot be stored: minimo keeps the String values of a model in a table made before simulation (such a conversion can be shown in the message of `assert` or `terminate`)".into(),
                    ),
                }
            }
            Expr::UserCall { function, .. } => {
                return Err(format!(
                    "the String result of `{function}` is known only during simulation; minimo keeps the String values of a model in a table made before simulation"
                ));
            }
            _ => return Err("this String expression is not supported".into()),
        })
    }

    /// The kind of a value converted by `String(x)` when it has few values (Boolean,
    /// enumeration through the format's literals).
    fn kind_of(&self, x: &Expr, fmt: &StringFormat) -> Option<ValueKind> {
        if fmt.literals.is_some() {
            return Some(ValueKind::Integer);
        }
        match crate::sim::compiler::value_kind(x, self.model) {
            ValueKind::Boolean => Some(ValueKind::Boolean),
            _ => None,
        }
    }

    /// The fixed point: each String variable gets the values of the sides its equations
    /// give it, starting from its start value (its value before the first event).
    fn find_sets(&mut self) -> DResult<()> {
        for (i, v) in self.model.variables.iter().enumerate() {
            if v.ty != ScalarType::String {
                continue;
            }
            let mut s = Set::new();
            let init = if v.is_unknown() {
                v.start.as_ref()
            } else {
                v.binding.as_ref().or(v.start.as_ref())
            };
            match init {
                Some(e) => match self.values(e) {
                    Ok(x) => s.extend(x),
                    Err(why) if !v.is_unknown() => {
                        self.poisoned.insert(i, why);
                    }
                    Err(why) => return Err(Box::new(Diagnostic::error(v.span, why))),
                },
                // MLS 4.8.5: the start value of a String is "".
                None => {
                    s.insert(String::new());
                }
            }
            self.sets.insert(i, s);
        }
        // Parameters may refer to each other: their sets settle in as many rounds as the
        // longest chain; unknowns grow until no equation adds a value.
        let mut eqs = Vec::new();
        collect_simple(&self.model.equations, &mut eqs);
        collect_simple(&self.model.initial_equations, &mut eqs);
        let params: Vec<VarId> = self.sets.keys().copied().collect();
        // Without a cycle the sets settle within one round per String variable; a cycle that
        // still adds values after twice that many builds ever longer Strings.
        let rounds = 2 * params.len() + 4;
        let mut last_change = Span::default();
        for _round in 0..rounds {
            let mut changed = false;
            for &p in &params {
                let v = &self.model.variables[p];
                if v.is_unknown() || self.poisoned.contains_key(&p) {
                    continue;
                }
                if let Some(b) = v.binding.as_ref().or(v.start.as_ref()) {
                    match self.values(b) {
                        Ok(x) => changed |= self.add(p, x, v.span)?,
                        Err(why) => {
                            self.poisoned.insert(p, why);
                            changed = true;
                        }
                    }
                }
            }
            for &(ref lhs, ref rhs, span) in &eqs {
                if !self.is_string(lhs) && !self.is_string(rhs) {
                    continue;
                }
                let mut given = false;
                for (target, source) in [(lhs, rhs), (rhs, lhs)] {
                    if let Expr::Var(v) = target
                        && self.sets.contains_key(v)
                        && self.model.variables[*v].is_unknown()
                    {
                        given = true;
                        let x = self
                            .values(source)
                            .map_err(|m| Box::new(Diagnostic::error(span, m)))?;
                        if self.add(*v, x, span)? {
                            changed = true;
                            last_change = span;
                        }
                    }
                }
                if !given {
                    return Err(Box::new(
                        Diagnostic::error(
                            span,
                            "a String equation needs a String variable alone on one side",
                        )
                        .with_help("write it as `s = <String expression>`"),
                    ));
                }
            }
            if !changed {
                return Ok(());
            }
        }
        Err(Box::new(Diagnostic::error(
            last_change,
            "this equation gives a String ever new values (it builds on its own previous value): minimo keeps the String values of a model in a table made before simulation, so their number must be finite",
        )))
    }

    fn add(&mut self, v: VarId, x: Set, span: Span) -> DResult<bool> {
        let s = self.sets.entry(v).or_default();
        let before = s.len();
        s.extend(x);
        if s.len() > MAX_VALUES {
            return Err(Box::new(Diagnostic::error(span, too_many()).with_note(
                format!(
                    "`{}` can take more than {MAX_VALUES} values",
                    self.model.variables[v].name
                ),
            )));
        }
        Ok(s.len() != before)
    }

    /// The sorted table: every value of every String expression outside messages.
    fn build_table(&mut self) -> DResult<()> {
        let mut all = Set::from([String::new()]);
        for s in self.sets.values() {
            all.extend(s.iter().cloned());
        }
        let mut exprs = Vec::new();
        let mut collect = |e: &Expr| exprs.push(e.clone());
        for_each_value_expr(&self.model.equations, &mut collect);
        for_each_value_expr(&self.model.initial_equations, &mut collect);
        for v in &self.model.variables {
            exprs.extend(v.binding.iter().chain(&v.start).cloned());
        }
        for e in &exprs {
            // A failure is reported with its place by `rewrite`, which meets the same
            // expression.
            self.collect_values(e, &mut all);
        }
        if all.len() > MAX_VALUES {
            return Err(Box::new(Diagnostic::error(
                model_span(self.model),
                too_many(),
            )));
        }
        self.table = all.into_iter().zip(0..).collect();
        Ok(())
    }

    /// Adds the values of every String sub-expression of `e` to `all`.
    fn collect_values(&self, e: &Expr, all: &mut Set) {
        if self.is_string(e)
            && let Ok(x) = self.values(e)
        {
            all.extend(x);
        }
        match e {
            Expr::Binary(_, a, b) => {
                self.collect_values(a, all);
                self.collect_values(b, all);
            }
            Expr::If { branches, else_ } => {
                for (c, x) in branches {
                    self.collect_values(c, all);
                    self.collect_values(x, all);
                }
                self.collect_values(else_, all);
            }
            Expr::Unary(_, a)
            | Expr::Pre(a)
            | Expr::NoEvent(a)
            | Expr::Change(a)
            | Expr::Edge(a)
            | Expr::Smooth(_, a) => self.collect_values(a, all),
            Expr::Call(_, args) | Expr::UserCall { args, .. } => {
                args.iter().for_each(|a| self.collect_values(a, all))
            }
            Expr::Array { elements, .. } => {
                elements.iter().for_each(|a| self.collect_values(a, all))
            }
            _ => {}
        }
    }

    fn id(&self, s: &str) -> Expr {
        // Every value is in the table (`build_table` collected them); 0 is "" otherwise.
        Expr::Integer(self.table.get(s).copied().unwrap_or(0))
    }

    fn rewrite(&mut self) -> DResult<()> {
        let mut vars = std::mem::take(&mut self.model.variables);
        for (i, v) in vars.iter_mut().enumerate() {
            if v.ty != ScalarType::String {
                continue;
            }
            if self.poisoned.contains_key(&i) {
                // Its value is needed nowhere unless an expression uses it (an error there).
                v.binding = None;
                v.start = None;
                continue;
            }
            let span = v.span;
            for e in [&mut v.binding, &mut v.start].into_iter().flatten() {
                *e = self
                    .string_id(e)
                    .map_err(|m| Box::new(Diagnostic::error(span, m)))?;
            }
        }
        self.model.variables = vars;
        for v in 0..self.model.variables.len() {
            let var = &self.model.variables[v];
            if var.ty == ScalarType::String
                || !var.binding.as_ref().is_some_and(|b| self.mentions(b))
            {
                continue;
            }
            let span = var.span;
            let b = var.binding.clone().unwrap_or(Expr::Integer(0));
            let b = self
                .value(&b)
                .map_err(|m| Box::new(Diagnostic::error(span, m)))?;
            self.model.variables[v].binding = Some(b);
        }
        let mut eqs = std::mem::take(&mut self.model.equations);
        self.rewrite_eqs(&mut eqs)?;
        self.model.equations = eqs;
        let mut eqs = std::mem::take(&mut self.model.initial_equations);
        self.rewrite_eqs(&mut eqs)?;
        self.model.initial_equations = eqs;
        Ok(())
    }

    /// Whether `e` has a String part (numeric bindings comparing String parameters).
    fn mentions(&self, e: &Expr) -> bool {
        let mut found = false;
        e.visit(&mut |x| found |= self.is_string(x));
        found
    }

    fn rewrite_eqs(&self, eqs: &mut [Equation]) -> DResult<()> {
        for eq in eqs {
            let span = eq.span;
            let at = |m: String| Box::new(Diagnostic::error(span, m));
            match &mut eq.kind {
                EquationKind::Simple { lhs, rhs } => {
                    if self.is_string(lhs) || self.is_string(rhs) {
                        *lhs = self.string_id(lhs).map_err(at)?;
                        *rhs = self.string_id(rhs).map_err(at)?;
                    } else {
                        *lhs = self.value(lhs).map_err(at)?;
                        *rhs = self.value(rhs).map_err(at)?;
                    }
                }
                EquationKind::If { branches, else_ } => {
                    for (c, body) in branches.iter_mut() {
                        *c = self.value(c).map_err(at)?;
                        self.rewrite_eqs(body)?;
                    }
                    self.rewrite_eqs(else_)?;
                }
                EquationKind::When { branches } => {
                    for (c, body) in branches.iter_mut() {
                        *c = self.value(c).map_err(at)?;
                        self.rewrite_eqs(body)?;
                    }
                }
                EquationKind::Reinit { value, .. } => *value = self.value(value).map_err(at)?,
                EquationKind::Assert {
                    condition, message, ..
                } => {
                    *condition = self.value(condition).map_err(at)?;
                    *message = self.message(message).map_err(at)?;
                }
                EquationKind::Terminate { message } => {
                    *message = self.message(message).map_err(at)?
                }
            }
        }
        Ok(())
    }

    /// A numeric expression with its String parts replaced (relations on Strings compare
    /// ranks).
    fn value(&self, e: &Expr) -> Result<Expr, String> {
        if self.is_string(e) {
            return self.string_id(e);
        }
        let b = |x: &Expr| self.value(x).map(Box::new);
        Ok(match e {
            Expr::Binary(op, a, c) => Expr::Binary(*op, b(a)?, b(c)?),
            Expr::Unary(op, a) => Expr::Unary(*op, b(a)?),
            Expr::Pre(a) => Expr::Pre(b(a)?),
            Expr::Edge(a) => Expr::Edge(b(a)?),
            Expr::Change(a) => Expr::Change(b(a)?),
            Expr::NoEvent(a) => Expr::NoEvent(b(a)?),
            Expr::Smooth(p, a) => Expr::Smooth(*p, b(a)?),
            Expr::Der(a) => Expr::Der(b(a)?),
            Expr::Sample(a, c) => Expr::Sample(b(a)?, b(c)?),
            Expr::Call(f, args) => Expr::Call(
                *f,
                args.iter()
                    .map(|a| self.value(a))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::UserCall {
                function,
                args,
                output,
                element,
            } => Expr::UserCall {
                function: function.clone(),
                args: args
                    .iter()
                    .enumerate()
                    .map(|(k, a)| self.call_arg(function, k, a))
                    .collect::<Result<_, _>>()?,
                output: *output,
                element: *element,
            },
            Expr::Array { dims, elements } => Expr::Array {
                dims: dims.clone(),
                elements: elements
                    .iter()
                    .map(|a| self.value(a))
                    .collect::<Result<_, _>>()?,
            },
            Expr::If { branches, else_ } => Expr::If {
                branches: branches
                    .iter()
                    .map(|(c, x)| Ok((self.value(c)?, self.value(x)?)))
                    .collect::<Result<_, String>>()?,
                else_: b(else_)?,
            },
            other => other.clone(),
        })
    }

    /// Argument `k` of a call of `function`: a String input keeps its text when it has one
    /// value (a function reads the text itself, e.g. a medium's `data.name`; the simulator
    /// passes it as a literal), every other argument is lowered as any value.
    fn call_arg(&self, function: &str, k: usize, a: &Expr) -> Result<Expr, String> {
        let string_input = self
            .model
            .functions
            .get(function)
            .and_then(|f| f.inputs.get(k))
            .is_some_and(|i| i.ty == ScalarType::String);
        if !string_input {
            return self.value(a);
        }
        // An array of Strings (a medium's `substanceNames`) is passed element by element.
        if let Expr::Array { dims, elements } = a {
            return Ok(Expr::Array {
                dims: dims.clone(),
                elements: elements
                    .iter()
                    .map(|e| self.string_arg(e))
                    .collect::<Result<_, _>>()?,
            });
        }
        self.string_arg(a)
    }

    /// A String argument of a function: its text when it has one value, else its rank.
    fn string_arg(&self, a: &Expr) -> Result<Expr, String> {
        if let Ok(values) = self.values(a)
            && values.len() == 1
            && let Some(text) = values.first()
        {
            return Ok(Expr::String(text.clone()));
        }
        self.value(a)
    }

    /// The rank of a String expression's value.
    fn string_id(&self, e: &Expr) -> Result<Expr, String> {
        let values = self.values(e)?;
        if values.len() == 1
            && let Some(s) = values.first()
        {
            return Ok(self.id(s));
        }
        Ok(match e {
            Expr::Var(_) => e.clone(),
            Expr::Pre(a) => Expr::Pre(Box::new(self.string_id(a)?)),
            Expr::NoEvent(a) => self.string_id(a)?,
            Expr::If { branches, else_ } => Expr::If {
                branches: branches
                    .iter()
                    .map(|(c, x)| Ok((self.value(c)?, self.string_id(x)?)))
                    .collect::<Result<_, String>>()?,
                else_: Box::new(self.string_id(else_)?),
            },
            Expr::Binary(BinOp::Add, a, b) => {
                // A choice over the values of `a`, then of `b`.
                let (va, vb) = (self.values(a)?, self.values(b)?);
                let (ia, ib) = (self.string_id(a)?, self.string_id(b)?);
                self.choose(&ia, &va, |x| {
                    self.choose(&ib, &vb, |y| self.id(&format!("{x}{y}")))
                })
            }
            Expr::ToString(x, fmt) => match self.kind_of(x, fmt) {
                Some(kind) => {
                    let x = self.value(x)?;
                    let mut branches = Vec::new();
                    let mut last = None;
                    for v in kind_values(kind, fmt) {
                        let text = self.id(&fmt.apply(v, kind)?);
                        if let Some(prev) = last.replace((v, text.clone())) {
                            let cond = Expr::binary(BinOp::Eq, x.clone(), Expr::Real(prev.0));
                            branches.push((Expr::NoEvent(Box::new(cond)), prev.1));
                        }
                    }
                    let else_ = last.map_or(Expr::Integer(0), |(_, t)| t);
                    Expr::If {
                        branches,
                        else_: Box::new(else_),
                    }
                }
                None => return Err(self.values(e).err().unwrap_or_default()),
            },
            _ => return Err("this String expression is not supported".into()),
        })
    }

    /// `if x == rank(v1) then f(v1) elseif ... else f(vn)` over the values of a String `x`.
    fn choose(&self, x: &Expr, values: &Set, f: impl Fn(&str) -> Expr) -> Expr {
        let mut it = values.iter().rev();
        let mut out = f(it.next().map_or("", |s| s.as_str()));
        for v in it {
            let cond = Expr::binary(BinOp::Eq, x.clone(), self.id(v));
            out = Expr::If {
                branches: vec![(Expr::NoEvent(Box::new(cond)), f(v))],
                else_: Box::new(out),
            };
        }
        out
    }

    /// A message: texts stay texts; a String variable becomes the choice of its texts.
    fn message(&self, e: &Expr) -> Result<Expr, String> {
        Ok(match e {
            Expr::String(_) => e.clone(),
            Expr::Binary(BinOp::Add, a, b) => {
                Expr::binary(BinOp::Add, self.message(a)?, self.message(b)?)
            }
            Expr::If { branches, else_ } => Expr::If {
                branches: branches
                    .iter()
                    .map(|(c, x)| Ok((self.value(c)?, self.message(x)?)))
                    .collect::<Result<_, String>>()?,
                else_: Box::new(self.message(else_)?),
            },
            Expr::ToString(x, fmt) => Expr::ToString(Box::new(self.value(x)?), fmt.clone()),
            Expr::Var(_) | Expr::Pre(_) if self.is_string(e) => {
                let values = self.values(e)?;
                let x = self.string_id(e)?;
                self.choose(&x, &values, |s| Expr::String(s.to_string()))
            }
            other => self.value(other)?,
        })
    }
}

/// The values `String(x)` can convert when `x` has few values.
fn kind_values(kind: ValueKind, fmt: &StringFormat) -> Vec<f64> {
    match (kind, &fmt.literals) {
        (ValueKind::Boolean, _) => vec![0.0, 1.0],
        (_, Some(l)) => (1..=l.len()).map(|i| i as f64).collect(),
        _ => Vec::new(),
    }
}

fn too_many() -> String {
    format!(
        "a String here can take more than {MAX_VALUES} values: minimo keeps the String values of a model in a table made before simulation"
    )
}

/// The `lhs = rhs` equations (in every branch) with their places.
fn collect_simple(eqs: &[Equation], out: &mut Vec<(Expr, Expr, Span)>) {
    for eq in eqs {
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => out.push((lhs.clone(), rhs.clone(), eq.span)),
            EquationKind::If { branches, else_ } => {
                for (_, body) in branches {
                    collect_simple(body, out);
                }
                collect_simple(else_, out);
            }
            EquationKind::When { branches } => {
                for (_, body) in branches {
                    collect_simple(body, out);
                }
            }
            _ => {}
        }
    }
}

/// A place for an error about the model as a whole: its first equation.
fn model_span(model: &FlatModel) -> Span {
    model.equations.first().map_or(Span::default(), |e| e.span)
}
