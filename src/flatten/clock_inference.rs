//! Clock inference on the flat model (MLS 16.7). Flattening keeps the clock operators of
//! equations outside a `when Clock(...) then` as calls of reserved names (`$clock.sample`,
//! `$clock.subSample`, ..., see [`placeholder`]); this pass gives each equation its partition,
//! each clocked partition its clock, and then turns every clocked partition into one
//! when-equation on its clock's ticks. No placeholder survives it.
//!
//! Partitions: variables that appear in one equation are in one partition, except across the
//! data argument of `sample`, `hold`, `subSample`, `superSample` and `shiftSample`. A partition is
//! clocked when it is the result of `sample` or of a sub-clock operator, the argument of a
//! sub-clock operator, or the body of `when c then` with `c` a clock. Its clock comes from
//! `sample(u, c)`, `when c`, or a clocked partition it is related to by a sub-clock operator
//! (either way: a sub-sampled clock determines the clock it was sampled from).
//!
//! Clocks: `Clock(interval)`, `Clock(counter, resolution)` (periodic, first tick at 0),
//! `Clock(condition)` (an event clock), and `subSample`/`superSample`/`shiftSample` of a
//! periodic clock, kept as exact fractions of a base interval so that related clocks tick at
//! the same instants. Clock variables are removed once every equation on them is resolved.
//!
//! `when Clock() then` is a partition whose clock is inferred; `firstTick()` is true at the
//! first tick of its partition (periodic: by time; event clock: a Boolean flag the partition
//! sets at each tick). `shiftSample` and `backSample` by any counter move the first tick
//! (`backSample` back) and give `u`'s value from its last tick; before `u`'s first tick
//! `backSample` gives `u`'s start value (MLS 16.5.2). A `subSample`/`superSample` without its
//! factor is checked to be a whole factor between the clocks its two partitions get from
//! elsewhere (MLS 16.7). Refused with the MLS section: a clock variable without definition,
//! an inferred factor whose clocks are not both known otherwise, sub-clocks of event clocks,
//! `interval()` of an event clock, partitions whose clock is not determined, two different
//! clocks for one partition, clocked equations that are not `v = expr` in some variable.

use crate::dae::{BinOp, Equation, EquationKind, Expr, FlatModel, ScalarType, UnOp, VarId};
use crate::diag::{Diagnostic, Span};
use std::collections::{HashMap, HashSet};

/// The prefix of the reserved function names flattening uses for clock operators (`$` cannot
/// start a Modelica name, so no user function can have one).
pub const PREFIX: &str = "$clock.";

type R<T> = Result<T, Diagnostic>;

/// A clock operator kept for clock inference.
pub fn placeholder(name: &str, args: Vec<Expr>) -> Expr {
    Expr::UserCall {
        function: format!("{PREFIX}{name}"),
        args,
        output: 0,
        element: 0,
    }
}

fn as_op(e: &Expr) -> Option<(&str, &[Expr])> {
    match e {
        Expr::UserCall { function, args, .. } => {
            function.strip_prefix(PREFIX).map(|n| (n, args.as_slice()))
        }
        _ => None,
    }
}

/// Whether the model has anything for clock inference to do.
fn needed(m: &FlatModel, clock_vars: &HashSet<VarId>) -> bool {
    if !clock_vars.is_empty() {
        return true;
    }
    let mut found = false;
    for eq in &m.equations {
        visit_equation(eq, &mut |e| {
            e.visit(&mut |x| found |= as_op(x).is_some());
        });
    }
    found
}

fn visit_equation(eq: &Equation, f: &mut impl FnMut(&Expr)) {
    match &eq.kind {
        EquationKind::Simple { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        EquationKind::If { branches, else_ } => {
            for (c, b) in branches {
                f(c);
                b.iter().for_each(|e| visit_equation(e, f));
            }
            else_.iter().for_each(|e| visit_equation(e, f));
        }
        EquationKind::When { branches } => {
            for (c, b) in branches {
                f(c);
                b.iter().for_each(|e| visit_equation(e, f));
            }
        }
        EquationKind::Reinit { value, .. } => f(value),
        EquationKind::Assert {
            condition, message, ..
        } => {
            f(condition);
            f(message);
        }
        EquationKind::Terminate { message } => f(message),
    }
}

fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Der(a)
        | Expr::Pre(a)
        | Expr::Edge(a)
        | Expr::Change(a)
        | Expr::Unary(_, a)
        | Expr::NoEvent(a)
        | Expr::Smooth(_, a)
        | Expr::ToString(a, _) => vec![a],
        Expr::Binary(_, a, b) | Expr::Sample(a, b) => vec![a, b],
        Expr::Call(_, args) | Expr::UserCall { args, .. } => args.iter().collect(),
        Expr::Array { elements, .. } => elements.iter().collect(),
        Expr::If { branches, else_ } => {
            let mut v: Vec<&Expr> = branches.iter().flat_map(|(c, x)| [c, x]).collect();
            v.push(else_);
            v
        }
        _ => Vec::new(),
    }
}

/// An exact fraction `n / d` (`d > 0`, reduced).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ratio(i64, i64);

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

impl Ratio {
    fn new(n: i128, d: i128) -> Option<Ratio> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1) * d.signum();
        Some(Ratio(
            i64::try_from(n / g).ok()?,
            i64::try_from(d / g).ok()?,
        ))
    }
    fn mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(
            i128::from(self.0) * i128::from(o.0),
            i128::from(self.1) * i128::from(o.1),
        )
    }
    fn add(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(
            i128::from(self.0) * i128::from(o.1) + i128::from(o.0) * i128::from(self.1),
            i128::from(self.1) * i128::from(o.1),
        )
    }
    fn inverse(self) -> Option<Ratio> {
        Ratio::new(i128::from(self.1), i128::from(self.0))
    }
    fn times(self, base: f64) -> f64 {
        // One rounding for `n / d` when the base is 1 (`Clock(20, 1000)` ticks every 0.02).
        base * self.0 as f64 / self.1 as f64
    }
}

/// A clock: periodic (interval `base * interval`, first tick at `base * shift`) or an event
/// clock ticking when its condition becomes true.
#[derive(Clone, Debug, PartialEq)]
enum ClockVal {
    Periodic {
        base: f64,
        interval: Ratio,
        shift: Ratio,
    },
    Event(Expr),
}

/// A sub-clock: interval times `scale`, first tick `shift` of the old intervals later
/// (earlier when negative: `backSample`). With `infer`, the factor of a `subSample` or
/// `superSample` written without one, found from the clocks on both sides (MLS 16.7); `scale`
/// is then unused.
#[derive(Clone, Copy, Debug)]
struct Transform {
    scale: Ratio,
    shift: Ratio,
    infer: Option<Infer>,
}

/// Which way an inferred factor goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Infer {
    /// `subSample(u)`: the result's interval is a whole multiple of `u`'s.
    Sub,
    /// `superSample(u)`: `u`'s interval is a whole multiple of the result's.
    Super,
}

impl ClockVal {
    fn interval(&self) -> Option<f64> {
        match self {
            ClockVal::Periodic { base, interval, .. } => Some(interval.times(*base)),
            ClockVal::Event(_) => None,
        }
    }
    fn tick(&self) -> Expr {
        match self {
            ClockVal::Periodic {
                base,
                interval,
                shift,
            } => Expr::Sample(
                Box::new(Expr::Real(shift.times(*base))),
                Box::new(Expr::Real(interval.times(*base))),
            ),
            // Marked, so the simulator keeps a tick the partition's outputs would undo.
            ClockVal::Event(c) => Expr::Call(crate::dae::Builtin::EventClock, vec![c.clone()]),
        }
    }
    fn same(&self, o: &ClockVal) -> bool {
        let near = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300);
        match (self, o) {
            (
                ClockVal::Periodic {
                    base: b1,
                    shift: s1,
                    ..
                },
                ClockVal::Periodic {
                    base: b2,
                    shift: s2,
                    ..
                },
            ) => {
                near(self.interval().unwrap_or(0.0), o.interval().unwrap_or(0.0))
                    && near(s1.times(*b1), s2.times(*b2))
            }
            (ClockVal::Event(a), ClockVal::Event(b)) => a == b,
            _ => false,
        }
    }
    fn apply(&self, t: Transform, span: Span) -> R<ClockVal> {
        let overflow = || Diagnostic::error(span, "a clock's interval is too fine to be exact");
        if t.infer.is_some() {
            return Err(inferred_factor(span));
        }
        match self {
            ClockVal::Periodic {
                base,
                interval,
                shift,
            } => Ok(ClockVal::Periodic {
                base: *base,
                interval: interval.mul(t.scale).ok_or_else(overflow)?,
                shift: shift
                    .add(interval.mul(t.shift).ok_or_else(overflow)?)
                    .ok_or_else(overflow)?,
            }),
            ClockVal::Event(_) if t.scale == Ratio(1, 1) && t.shift == Ratio(0, 1) => {
                Ok(self.clone())
            }
            ClockVal::Event(_) => Err(Diagnostic::error(
                span,
                "sub-sampling, super-sampling or shifting an event clock (MLS 16.5.2) is not \
                 supported",
            )),
        }
    }
    /// The clock `c` such that `c.apply(t) == self`.
    fn unapply(&self, t: Transform, span: Span) -> R<ClockVal> {
        let overflow = || Diagnostic::error(span, "a clock's interval is too fine to be exact");
        if t.infer.is_some() {
            return Err(inferred_factor(span));
        }
        match self {
            ClockVal::Periodic {
                base,
                interval,
                shift,
            } => {
                let old = interval
                    .mul(t.scale.inverse().ok_or_else(overflow)?)
                    .ok_or_else(overflow)?;
                let back = old.mul(t.shift).ok_or_else(overflow)?;
                Ok(ClockVal::Periodic {
                    base: *base,
                    interval: old,
                    shift: shift.add(Ratio(-back.0, back.1)).ok_or_else(overflow)?,
                })
            }
            ClockVal::Event(_) => self.apply(t, span),
        }
    }
}

/// A sub-clock whose factor is inferred but one side's clock is not known.
fn inferred_factor(span: Span) -> Diagnostic {
    Diagnostic::error(
        span,
        "the factor of this `subSample`/`superSample` is inferred (MLS 16.7), which minimo \
         does only between two partitions whose clocks are both known otherwise",
    )
}

/// Whether `owner`'s clock is `arg`'s sub-sampled or super-sampled by a whole factor (an
/// inferred factor, MLS 16.7): same first tick, intervals in the ratio of a positive Integer.
fn fits_inferred(dir: Infer, owner: &ClockVal, arg: &ClockVal) -> bool {
    let (Some(io), Some(ia)) = (owner.interval(), arg.interval()) else {
        return owner.same(arg);
    };
    let q = match dir {
        Infer::Sub => io / ia,
        Infer::Super => ia / io,
    };
    let n = q.round();
    let first = |c: &ClockVal| match c {
        ClockVal::Periodic { base, shift, .. } => shift.times(*base),
        ClockVal::Event(_) => 0.0,
    };
    let (fo, fa) = (first(owner), first(arg));
    n >= 1.0 && (q - n).abs() <= 1e-9 * n && (fo - fa).abs() <= 1e-9 * io.min(ia)
}

#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(x) => x,
        }
    }
}

/// The value of a parameter expression (an argument of a clock operator).
fn number(m: &FlatModel, e: &Expr, depth: usize) -> Option<Num> {
    if depth > 64 {
        return None;
    }
    let n = |x: &Expr| number(m, x, depth + 1);
    Some(match e {
        Expr::Integer(i) => Num::Int(*i),
        Expr::Real(x) => Num::Real(*x),
        Expr::Var(v) => {
            let var = m.variables.get(*v)?;
            if var.is_unknown() {
                return None;
            }
            n(var.binding.as_ref()?)?
        }
        Expr::Unary(UnOp::Neg, a) => match n(a)? {
            Num::Int(i) => Num::Int(i.checked_neg()?),
            Num::Real(x) => Num::Real(-x),
        },
        Expr::Binary(op, a, b) => {
            let (a, b) = (n(a)?, n(b)?);
            match (op, a, b) {
                (BinOp::Add, Num::Int(x), Num::Int(y)) => Num::Int(x.checked_add(y)?),
                (BinOp::Sub, Num::Int(x), Num::Int(y)) => Num::Int(x.checked_sub(y)?),
                (BinOp::Mul, Num::Int(x), Num::Int(y)) => Num::Int(x.checked_mul(y)?),
                (BinOp::Add, ..) => Num::Real(a.f() + b.f()),
                (BinOp::Sub, ..) => Num::Real(a.f() - b.f()),
                (BinOp::Mul, ..) => Num::Real(a.f() * b.f()),
                (BinOp::Div, ..) => Num::Real(a.f() / b.f()),
                _ => return None,
            }
        }
        _ => return None,
    })
}

fn is_boolean(m: &FlatModel, e: &Expr) -> bool {
    match e {
        Expr::Boolean(_)
        | Expr::Sample(..)
        | Expr::Edge(_)
        | Expr::Change(_)
        | Expr::Initial
        | Expr::Terminal
        | Expr::Unary(UnOp::Not, _) => true,
        Expr::Binary(op, ..) => !matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow
        ),
        Expr::Var(v) => m
            .variables
            .get(*v)
            .is_some_and(|x| x.ty == ScalarType::Boolean),
        Expr::Pre(a) | Expr::NoEvent(a) => is_boolean(m, a),
        Expr::If { else_, .. } => is_boolean(m, else_),
        _ => false,
    }
}

const SUB_CLOCK: [&str; 4] = ["subSample", "superSample", "shiftSample", "backSample"];

/// A relation between partitions (nodes of the union-find).
enum Rel {
    /// `owner` ticks with this clock (`sample(u, c)`, `when c then`).
    Clock { owner: usize, clock: ClockVal },
    /// `owner` is clocked (`sample(u)`), its clock inferred.
    Clocked { owner: usize },
    /// `owner` is a sub-clock of `arg`'s partition.
    Sub {
        owner: usize,
        arg: usize,
        t: Transform,
        span: Span,
    },
    /// `hold(arg)`: `arg` must be clocked (or assigned in a when-equation).
    Hold { arg: usize, span: Span },
}

struct Inference<'a> {
    m: &'a FlatModel,
    clock_vars: &'a HashSet<VarId>,
    parent: Vec<usize>,
    rels: Vec<Rel>,
    /// Clock variables' defining expressions, by union-find root.
    defs: HashMap<usize, (Expr, Span)>,
    memo: HashMap<usize, ClockVal>,
    resolving: HashSet<usize>,
    /// Variables this pass adds (numbered after the model's), and by partition root the
    /// Boolean flag that its event clock has ticked (for `firstTick()`).
    new_vars: Vec<crate::dae::Variable>,
    ticked: HashMap<usize, VarId>,
}

/// Runs clock inference on `m` (see the module header); nothing to do without clock
/// variables or clock operators.
pub fn infer(m: &mut FlatModel, clock_vars: &HashSet<VarId>) -> Result<(), Vec<Diagnostic>> {
    if !needed(m, clock_vars) {
        return Ok(());
    }
    for eq in &m.initial_equations {
        let mut found = false;
        visit_equation(eq, &mut |e| {
            e.visit(&mut |x| found |= as_op(x).is_some() || is_var_in(x, clock_vars));
        });
        if found {
            return Err(vec![Diagnostic::error(
                eq.span,
                "clocks and clock operators in initial equations are not supported (MLS 16.9)",
            )]);
        }
    }
    let eqs = std::mem::take(&mut m.equations);
    let result = run(m, clock_vars, &eqs);
    match result {
        Ok((new, vars)) => {
            m.equations = new;
            m.variables.extend(vars);
            remove_clock_vars(m, clock_vars).map_err(|d| vec![d])
        }
        Err(d) => {
            m.equations = eqs;
            Err(vec![d])
        }
    }
}

fn is_var_in(e: &Expr, set: &HashSet<VarId>) -> bool {
    matches!(e, Expr::Var(v) if set.contains(v))
}

fn is_clock_equation(inf: &Inference, eq: &Equation) -> bool {
    match &eq.kind {
        EquationKind::Simple { lhs, rhs } => inf.is_clock(lhs) || inf.is_clock(rhs),
        _ => false,
    }
}

/// The equations after clock inference, and the variables it adds.
fn run(
    m: &FlatModel,
    clock_vars: &HashSet<VarId>,
    eqs: &[Equation],
) -> R<(Vec<Equation>, Vec<crate::dae::Variable>)> {
    let mut inf = Inference {
        m,
        clock_vars,
        parent: (0..m.variables.len()).collect(),
        rels: Vec::new(),
        defs: HashMap::new(),
        memo: HashMap::new(),
        resolving: HashSet::new(),
        new_vars: Vec::new(),
        ticked: HashMap::new(),
    };
    let (clock_eqs, data): (Vec<&Equation>, Vec<&Equation>) =
        eqs.iter().partition(|e| is_clock_equation(&inf, e));
    inf.clock_definitions(&clock_eqs)?;
    let mut nodes = Vec::with_capacity(data.len());
    for eq in &data {
        nodes.push(inf.scan_equation(eq)?);
    }
    let clocks = inf.propagate()?;
    let targets = when_targets(eqs);
    inf.check_holds(&clocks, &targets)?;
    let out = inf.rewrite(&data, &nodes, &clocks)?;
    Ok((out, inf.new_vars))
}

/// Variables assigned in when-equations with a Boolean condition (incl. `when Clock(...)`).
fn when_targets(eqs: &[Equation]) -> HashSet<VarId> {
    let mut out = HashSet::new();
    for eq in eqs {
        if let EquationKind::When { branches } = &eq.kind {
            for (_, b) in branches {
                for e in b {
                    if let EquationKind::Simple {
                        lhs: Expr::Var(v), ..
                    } = &e.kind
                    {
                        out.insert(*v);
                    }
                }
            }
        }
    }
    out
}

impl Inference<'_> {
    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }
    fn node(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }
    fn name(&self, v: usize) -> String {
        self.m
            .variables
            .get(v)
            .map_or_else(|| "?".into(), |x| x.name.clone())
    }

    /// Whether `e` is a clock (a clock variable, a clock constructor or a sub-clock of one).
    fn is_clock(&self, e: &Expr) -> bool {
        match e {
            Expr::Var(v) => self.clock_vars.contains(v),
            _ => match as_op(e) {
                Some(("Clock", _)) => true,
                Some((n, args)) if SUB_CLOCK.contains(&n) => {
                    args.first().is_some_and(|a| self.is_clock(a))
                }
                _ => false,
            },
        }
    }

    fn clock_definitions(&mut self, eqs: &[&Equation]) -> R<()> {
        let mut defs = Vec::new();
        for eq in eqs {
            let EquationKind::Simple { lhs, rhs } = &eq.kind else {
                continue;
            };
            match (lhs, rhs) {
                (Expr::Var(a), Expr::Var(b))
                    if self.clock_vars.contains(a) && self.clock_vars.contains(b) =>
                {
                    self.union(*a, *b)
                }
                (Expr::Var(a), e) | (e, Expr::Var(a)) if self.clock_vars.contains(a) => {
                    defs.push((*a, e.clone(), eq.span))
                }
                _ => {
                    return Err(Diagnostic::error(
                        eq.span,
                        "an equation between clocks must have a clock variable on one side \
                         (MLS 16.3)",
                    ));
                }
            }
        }
        for (v, e, span) in defs {
            let r = self.find(v);
            if self.defs.insert(r, (e, span)).is_some() {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "clock `{}` is defined by more than one equation (MLS 16.3)",
                        self.name(v)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The clock of clock variable `v`.
    fn clock_var(&mut self, v: VarId, span: Span) -> R<ClockVal> {
        let r = self.find(v);
        if let Some(c) = self.memo.get(&r) {
            return Ok(c.clone());
        }
        let Some((e, at)) = self.defs.get(&r).cloned() else {
            return Err(Diagnostic::error(
                span,
                format!(
                    "clock `{}` has no defining equation (an inferred clock, MLS 16.7, is not \
                     supported)",
                    self.name(v)
                ),
            ));
        };
        if !self.resolving.insert(r) {
            return Err(Diagnostic::error(
                at,
                format!("clock `{}` is defined in terms of itself", self.name(v)),
            ));
        }
        let c = self.clock_of(&e, at)?;
        self.resolving.remove(&r);
        self.memo.insert(r, c.clone());
        Ok(c)
    }

    fn param(&self, e: &Expr, what: &str, span: Span) -> R<Num> {
        number(self.m, e, 0).ok_or_else(|| {
            Diagnostic::error(
                span,
                format!("the {what} of a clock must be a parameter expression (MLS 16.3)"),
            )
        })
    }

    fn int_param(&self, e: &Expr, what: &str, span: Span) -> R<i64> {
        match self.param(e, what, span)? {
            Num::Int(i) if i > 0 => Ok(i),
            Num::Real(x) if x.fract() == 0.0 && x > 0.0 && x < 9.0e15 => Ok(x as i64),
            _ => Err(Diagnostic::error(
                span,
                format!("the {what} of a clock must be a positive Integer (MLS 16.5.2)"),
            )),
        }
    }

    /// The clock a clock expression denotes.
    fn clock_of(&mut self, e: &Expr, span: Span) -> R<ClockVal> {
        if let Expr::Var(v) = e
            && self.clock_vars.contains(v)
        {
            return self.clock_var(*v, span);
        }
        match as_op(e) {
            Some(("Clock", args)) => self.constructor(args, span),
            Some((name, args)) if SUB_CLOCK.contains(&name) => {
                let base = self.clock_of(&args[0], span)?;
                let t = self.transform(name, &args[1..], span)?;
                base.apply(t, span)
            }
            _ => Err(Diagnostic::error(
                span,
                "this expression is not a clock (MLS 16.3)",
            )),
        }
    }

    fn constructor(&mut self, args: &[Expr], span: Span) -> R<ClockVal> {
        let Some(first) = args.first() else {
            return Err(Diagnostic::error(
                span,
                "the inferred clock `Clock()` (MLS 16.3) is not supported",
            ));
        };
        if self.is_clock(first) {
            // `Clock(c)`: the same clock (the solver-method form is refused at flattening).
            return self.clock_of(first, span);
        }
        if is_boolean(self.m, first) {
            return Ok(ClockVal::Event(first.clone()));
        }
        let zero = Ratio(0, 1);
        match (self.param(first, "interval", span)?, args.get(1)) {
            (Num::Int(n), r) => {
                let r = match r {
                    Some(r) => self.int_param(r, "resolution", span)?,
                    None => 1,
                };
                let interval = Ratio::new(i128::from(n), i128::from(r))
                    .filter(|q| q.0 > 0)
                    .ok_or_else(|| Diagnostic::error(span, "a clock interval must be > 0"))?;
                Ok(ClockVal::Periodic {
                    base: 1.0,
                    interval,
                    shift: zero,
                })
            }
            (Num::Real(x), None) if x > 0.0 => Ok(ClockVal::Periodic {
                base: x,
                interval: Ratio(1, 1),
                shift: zero,
            }),
            _ => Err(Diagnostic::error(
                span,
                "a clock interval must be > 0 (MLS 16.3)",
            )),
        }
    }

    /// The sub-clock a `subSample(u, n)`, `superSample(u, n)`, `shiftSample(u, k, r)` or
    /// `backSample(u, k, r)` makes.
    fn transform(&self, name: &str, args: &[Expr], span: Span) -> R<Transform> {
        let one = Ratio(1, 1);
        let zero = Ratio(0, 1);
        match name {
            "subSample" | "superSample" => {
                let Some(a) = args.first() else {
                    // The factor is inferred from the clocks on both sides (MLS 16.7).
                    return Ok(Transform {
                        scale: one,
                        shift: zero,
                        infer: Some(if name == "subSample" {
                            Infer::Sub
                        } else {
                            Infer::Super
                        }),
                    });
                };
                let n = i128::from(self.int_param(a, "factor", span)?);
                let scale = if name == "subSample" {
                    Ratio::new(n, 1)
                } else {
                    Ratio::new(1, n)
                };
                Ok(Transform {
                    scale: scale.unwrap_or(one),
                    shift: zero,
                    infer: None,
                })
            }
            "shiftSample" | "backSample" => {
                let Some(k) = args.first() else {
                    return Ok(Transform {
                        scale: one,
                        shift: zero,
                        infer: None,
                    });
                };
                let k = match self.param(k, "shift counter", span)? {
                    Num::Int(k) if k >= 0 => k,
                    _ => {
                        return Err(Diagnostic::error(
                            span,
                            format!("the counter of `{name}` must be an Integer >= 0 (MLS 16.5.2)"),
                        ));
                    }
                };
                let r = match args.get(1) {
                    Some(r) => self.int_param(r, "resolution", span)?,
                    None => 1,
                };
                // `backSample` moves the clock back: its first tick is earlier.
                let k = if name == "backSample" { -k } else { k };
                let shift = Ratio::new(i128::from(k), i128::from(r)).unwrap_or(zero);
                Ok(Transform {
                    scale: one,
                    shift,
                    infer: None,
                })
            }
            _ => Err(Diagnostic::error(
                span,
                format!("`{name}` (MLS 16.5.2) is not supported"),
            )),
        }
    }

    /// Unites the variables of `eq` and records the relations of its clock operators;
    /// returns the equation's node (`None` for a when-equation with a Boolean condition,
    /// which belongs to no clocked partition).
    fn scan_equation(&mut self, eq: &Equation) -> R<Option<usize>> {
        if let EquationKind::When { branches } = &eq.kind {
            let clock = match branches.first() {
                Some((c, _)) if branches.len() == 1 && self.is_clock(c) => c.clone(),
                _ => {
                    let mut bad = None;
                    visit_equation(eq, &mut |e| {
                        e.visit(&mut |x| {
                            if let Some((n, _)) = as_op(x)
                                && n != "hold"
                            {
                                bad.get_or_insert(n.to_string());
                            }
                        })
                    });
                    if let Some(n) = bad {
                        return Err(Diagnostic::error(
                            eq.span,
                            format!(
                                "`{n}` inside a when-equation whose condition is not a clock \
                                 (MLS 16.5)"
                            ),
                        ));
                    }
                    let mut res = Ok(());
                    visit_equation(eq, &mut |e| {
                        if res.is_ok() {
                            res = self.scan_holds(e, eq.span);
                        }
                    });
                    return res.map(|()| None);
                }
            };
            let owner = self.node();
            if matches!(as_op(&clock), Some(("Clock", []))) {
                // `when Clock() then`: the body's clock is inferred.
                self.rels.push(Rel::Clocked { owner });
            } else {
                let c = self.clock_of(&clock, eq.span)?;
                self.rels.push(Rel::Clock { owner, clock: c });
            }
            for b in &branches[0].1 {
                self.scan_parts(b, owner)?;
            }
            return Ok(Some(owner));
        }
        let owner = self.node();
        self.scan_parts(eq, owner)?;
        Ok(Some(owner))
    }

    /// `hold` in a when-equation with a Boolean condition (of a `when Clock(...)` variable).
    fn scan_holds(&mut self, e: &Expr, span: Span) -> R<()> {
        if let Some(("hold", args)) = as_op(e) {
            let arg = self.node();
            self.scan(&args[0], arg, span)?;
            self.rels.push(Rel::Hold { arg, span });
            return Ok(());
        }
        for c in children(e) {
            self.scan_holds(c, span)?;
        }
        Ok(())
    }

    fn scan_parts(&mut self, eq: &Equation, owner: usize) -> R<()> {
        let mut exprs = Vec::new();
        visit_equation(eq, &mut |e| exprs.push(e.clone()));
        if let EquationKind::When { .. } = &eq.kind {
            return Err(Diagnostic::error(
                eq.span,
                "when-equations cannot be nested",
            ));
        }
        for e in &exprs {
            self.scan(e, owner, eq.span)?;
        }
        Ok(())
    }

    fn scan(&mut self, e: &Expr, owner: usize, span: Span) -> R<()> {
        if let Expr::Var(v) = e {
            if self.clock_vars.contains(v) {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "clock `{}` used where a value is expected (MLS 16.3)",
                        self.name(*v)
                    ),
                ));
            }
            if self.m.variables[*v].is_unknown() {
                self.union(*v, owner);
            }
            return Ok(());
        }
        let Some((name, args)) = as_op(e) else {
            for c in children(e) {
                self.scan(c, owner, span)?;
            }
            return Ok(());
        };
        match name {
            "previous" | "interval" | "firstTick" => {
                for a in args {
                    self.scan(a, owner, span)?;
                }
                // Both exist only in a clocked partition.
                self.rels.push(Rel::Clocked { owner });
                Ok(())
            }
            "sample" => {
                let arg = self.node();
                self.scan(&args[0], arg, span)?;
                match args.get(1) {
                    Some(c) => {
                        let clock = self.clock_of(c, span)?;
                        self.rels.push(Rel::Clock { owner, clock });
                    }
                    None => self.rels.push(Rel::Clocked { owner }),
                }
                Ok(())
            }
            "hold" => {
                let arg = self.node();
                self.scan(&args[0], arg, span)?;
                self.rels.push(Rel::Hold { arg, span });
                Ok(())
            }
            n if SUB_CLOCK.contains(&n) && !self.is_clock(&args[0]) => {
                let t = self.transform(n, &args[1..], span)?;
                let arg = self.node();
                self.scan(&args[0], arg, span)?;
                self.rels.push(Rel::Sub {
                    owner,
                    arg,
                    t,
                    span,
                });
                Ok(())
            }
            _ => Err(Diagnostic::error(
                span,
                format!("a clock (`{name}`) used where a value is expected (MLS 16.3)"),
            )),
        }
    }

    /// The clock of every clocked partition, by union-find root.
    fn propagate(&mut self) -> R<HashMap<usize, Option<ClockVal>>> {
        let mut clocks: HashMap<usize, Option<ClockVal>> = HashMap::new();
        let rels = std::mem::take(&mut self.rels);
        for r in &rels {
            match r {
                Rel::Clock { owner, clock } => {
                    let o = self.find(*owner);
                    self.assign(&mut clocks, o, clock.clone(), None)?;
                }
                Rel::Clocked { owner } => {
                    let o = self.find(*owner);
                    clocks.entry(o).or_insert(None);
                }
                Rel::Sub { owner, arg, .. } => {
                    let (o, a) = (self.find(*owner), self.find(*arg));
                    clocks.entry(o).or_insert(None);
                    clocks.entry(a).or_insert(None);
                }
                Rel::Hold { .. } => {}
            }
        }
        loop {
            let mut changed = false;
            for r in &rels {
                let Rel::Sub {
                    owner,
                    arg,
                    t,
                    span,
                } = r
                else {
                    continue;
                };
                let (o, a) = (self.find(*owner), self.find(*arg));
                let (co, ca) = (clocks[&o].clone(), clocks[&a].clone());
                if let Some(dir) = t.infer {
                    // An inferred factor fixes no clock; it only has to fit both.
                    if let (Some(c), Some(d)) = (&co, &ca)
                        && !fits_inferred(dir, c, d)
                    {
                        let who = self.member(o).unwrap_or_default();
                        return Err(Diagnostic::error(
                            *span,
                            format!(
                                "no Integer factor relates the clock of `{who}` to the clock it \
                                 is sub- or super-sampled from (MLS 16.7)"
                            ),
                        ));
                    }
                    continue;
                }
                match (co, ca) {
                    (None, Some(c)) => {
                        clocks.insert(o, Some(c.apply(*t, *span)?));
                        changed = true;
                    }
                    (Some(c), None) => {
                        clocks.insert(a, Some(c.unapply(*t, *span)?));
                        changed = true;
                    }
                    (Some(c), Some(d)) => {
                        self.assign(&mut clocks, o, d.apply(*t, *span)?, Some(c))?;
                    }
                    (None, None) => {}
                }
            }
            if !changed {
                break;
            }
        }
        self.rels = rels;
        Ok(clocks)
    }

    fn assign(
        &self,
        clocks: &mut HashMap<usize, Option<ClockVal>>,
        root: usize,
        c: ClockVal,
        known: Option<ClockVal>,
    ) -> R<()> {
        let old = known.or_else(|| clocks.get(&root).cloned().flatten());
        match old {
            Some(o) if !o.same(&c) => {
                let who = self.member(root).unwrap_or_default();
                Err(Diagnostic::error(
                    Span::default(),
                    format!(
                        "the clocked partition of `{who}` gets two different clocks (MLS 16.7)"
                    ),
                ))
            }
            _ => {
                clocks.insert(root, Some(c));
                Ok(())
            }
        }
    }

    /// A variable of the partition with root `root`, for messages.
    fn member(&self, root: usize) -> Option<String> {
        (0..self.m.variables.len())
            .find(|&v| {
                let mut x = v;
                while self.parent[x] != x {
                    x = self.parent[x];
                }
                x == root && self.m.variables[v].is_unknown()
            })
            .map(|v| self.name(v))
    }

    fn check_holds(
        &mut self,
        clocks: &HashMap<usize, Option<ClockVal>>,
        targets: &HashSet<VarId>,
    ) -> R<()> {
        let holds: Vec<(usize, Span)> = self
            .rels
            .iter()
            .filter_map(|r| match r {
                Rel::Hold { arg, span } => Some((*arg, *span)),
                _ => None,
            })
            .collect();
        for (arg, span) in holds {
            let root = self.find(arg);
            if clocks.contains_key(&root) {
                continue;
            }
            let vars: Vec<usize> = (0..self.m.variables.len())
                .filter(|&v| self.m.variables[v].is_unknown() && self.find(v) == root)
                .collect();
            if let Some(v) = vars.iter().find(|v| !targets.contains(v)) {
                let name = self.name(*v);
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`hold({name})`: `{name}` is not in a clocked partition and not \
                         assigned in a clocked when-equation (MLS 16.7)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// What lowering the clock operators of one partition needs to know.
#[derive(Clone, Copy)]
struct Low<'a> {
    m: &'a FlatModel,
    /// The partition's clock (`None` outside clocked partitions).
    clock: Option<&'a ClockVal>,
    /// The partition's "has ticked" flag, for `firstTick()` of an event clock.
    ticked: Option<VarId>,
}

/// The value `backSample(u, k, r)` takes at its ticks on `clock` (MLS 16.5.2): `u`'s last
/// value, and `u`'s start value before `u`'s first tick, which is `k / r` intervals after the
/// first tick of `clock`. The ticks of `clock` are `1 / r` interval apart from `u`'s first
/// tick, so half of that separates the ones before it.
fn back_sample(low: Low, args: &[Expr], span: Span) -> R<Expr> {
    let Some(ClockVal::Periodic {
        base,
        interval,
        shift,
    }) = low.clock
    else {
        return Err(Diagnostic::error(
            span,
            "`backSample` of an event clock (MLS 16.5.2) is not supported",
        ));
    };
    let int = |e: Option<&Expr>| match e.and_then(|x| number(low.m, x, 0)) {
        Some(Num::Int(i)) => i as f64,
        Some(Num::Real(x)) => x,
        None => 1.0,
    };
    let (k, r) = (
        if args.len() > 1 {
            int(args.get(1))
        } else {
            0.0
        },
        int(args.get(2)),
    );
    let step = interval.times(*base);
    let first_u = shift.times(*base) + step * k / r;
    let u = args[0].clone();
    let start = match &u {
        Expr::Var(v) => low.m.variables[*v].start.clone(),
        _ => None,
    };
    let start = start.unwrap_or(if is_boolean(low.m, &u) {
        Expr::Boolean(false)
    } else {
        Expr::Integer(0)
    });
    Ok(Expr::If {
        branches: vec![(
            Expr::binary(BinOp::Lt, Expr::Time, Expr::Real(first_u - 0.5 * step / r)),
            start,
        )],
        else_: Box::new(u),
    })
}

/// Replaces the clock operators of `e` for the partition ticking with `low.clock`.
fn lower(e: &Expr, low: Low, span: Span) -> R<Expr> {
    let clock = low.clock;
    let mut err = None;
    let out = crate::structure::expr::rewrite(e, &mut |x| {
        let Some((name, args)) = as_op(&x) else {
            return x;
        };
        match name {
            "sample" => super::clocked::left_limit(args[0].clone()),
            "previous" => match &args[0] {
                Expr::Var(v) => Expr::Pre(Box::new(Expr::Var(*v))),
                other => super::clocked::left_limit(other.clone()),
            },
            // The clock argument of `sample(u, c)`: dropped with the call around it (a clock
            // anywhere else was refused by `scan`).
            "Clock" => x,
            // The value of `u` at its last tick (MLS 16.5.2), whatever the shift.
            "hold" | "subSample" | "superSample" | "shiftSample" => args[0].clone(),
            "backSample" => match back_sample(low, args, span) {
                Ok(v) => v,
                Err(d) => {
                    err.get_or_insert(d);
                    x
                }
            },
            "firstTick" => match clock {
                // Evaluated only at the partition's ticks (a when body), which are a whole
                // interval apart: half an interval after the first tick separates it.
                Some(ClockVal::Periodic {
                    base,
                    interval,
                    shift,
                }) => Expr::binary(
                    BinOp::Lt,
                    Expr::Time,
                    Expr::Real(shift.times(*base) + 0.5 * interval.times(*base)),
                ),
                // An event clock: true until the partition's flag is set at its first tick.
                Some(ClockVal::Event(_)) if low.ticked.is_some() => Expr::Unary(
                    UnOp::Not,
                    Box::new(Expr::Pre(Box::new(Expr::Var(low.ticked.unwrap_or(0))))),
                ),
                _ => {
                    err.get_or_insert_with(|| {
                        Diagnostic::error(
                            span,
                            "`firstTick` of an event clock (MLS 16.5.1) is not supported",
                        )
                    });
                    x
                }
            },
            "interval" => match clock.and_then(ClockVal::interval) {
                Some(i) => Expr::Real(i),
                None => {
                    err.get_or_insert_with(|| {
                        Diagnostic::error(
                            span,
                            "`interval` of an event clock (MLS 16.5.1) is not supported",
                        )
                    });
                    x
                }
            },
            _ => {
                err.get_or_insert_with(|| {
                    Diagnostic::error(span, format!("`{name}` left after clock inference"))
                });
                x
            }
        }
    });
    match err {
        Some(d) => Err(d),
        None => Ok(out),
    }
}

fn lower_equation(eq: &Equation, low: Low) -> R<Equation> {
    let l = |e: &Expr| lower(e, low, eq.span);
    let lb =
        |b: &[Equation]| -> R<Vec<Equation>> { b.iter().map(|e| lower_equation(e, low)).collect() };
    let kind = match &eq.kind {
        EquationKind::Simple { lhs, rhs } => EquationKind::Simple {
            lhs: l(lhs)?,
            rhs: l(rhs)?,
        },
        EquationKind::If { branches, else_ } => EquationKind::If {
            branches: branches
                .iter()
                .map(|(c, b)| Ok((l(c)?, lb(b)?)))
                .collect::<R<_>>()?,
            else_: lb(else_)?,
        },
        EquationKind::When { branches } => EquationKind::When {
            branches: branches
                .iter()
                .map(|(c, b)| Ok((l(c)?, lb(b)?)))
                .collect::<R<_>>()?,
        },
        EquationKind::Reinit { var, value } => EquationKind::Reinit {
            var: *var,
            value: l(value)?,
        },
        EquationKind::Assert {
            condition,
            message,
            warning,
        } => EquationKind::Assert {
            condition: l(condition)?,
            message: l(message)?,
            warning: *warning,
        },
        EquationKind::Terminate { message } => EquationKind::Terminate {
            message: l(message)?,
        },
    };
    Ok(Equation {
        kind,
        component: eq.component.clone(),
        span: eq.span,
    })
}

impl Inference<'_> {
    fn rewrite(
        &mut self,
        data: &[&Equation],
        nodes: &[Option<usize>],
        clocks: &HashMap<usize, Option<ClockVal>>,
    ) -> R<Vec<Equation>> {
        let mut out = Vec::new();
        let mut groups: Vec<(usize, Vec<Equation>)> = Vec::new();
        for (eq, node) in data.iter().zip(nodes) {
            let root = node.map(|n| self.find(n));
            let Some(entry) = root.and_then(|r| clocks.get(&r).map(|c| (r, c))) else {
                let low = Low {
                    m: self.m,
                    clock: None,
                    ticked: None,
                };
                out.push(lower_equation(eq, low)?);
                continue;
            };
            let (r, clock) = entry;
            let Some(clock) = clock else {
                let who = self.member(r).unwrap_or_default();
                return Err(Diagnostic::error(
                    eq.span,
                    format!(
                        "the clock of the clocked partition of `{who}` is not determined: no \
                         `sample(u, clock)`, clock variable or sub-clock relation fixes it \
                         (inferred clocks, MLS 16.7, are not supported)"
                    ),
                ));
            };
            let body: Vec<Equation> = match &eq.kind {
                EquationKind::When { branches } => branches[0].1.clone(),
                _ => vec![(*eq).clone()],
            };
            let k = match groups.iter().position(|(g, _)| *g == r) {
                Some(k) => k,
                None => {
                    groups.push((r, Vec::new()));
                    groups.len() - 1
                }
            };
            let ticked = self.ticked_flag(r, clock, eq);
            let low = Low {
                m: self.m,
                clock: Some(clock),
                ticked,
            };
            for b in &body {
                groups[k].1.push(lower_equation(b, low)?);
            }
        }
        for (r, body) in groups {
            let Some(Some(clock)) = clocks.get(&r) else {
                continue;
            };
            let vars: Vec<VarId> = (0..self.m.variables.len())
                .filter(|&v| self.m.variables[v].is_unknown() && self.find(v) == r)
                .collect();
            let span = body.first().map(|e| e.span).unwrap_or_default();
            let component = body
                .first()
                .map(|e| e.component.clone())
                .unwrap_or_default();
            let body = super::when_if::assignments(body);
            let mut body = self.orient(body, &vars)?;
            if let Some(&flag) = self.ticked.get(&r) {
                body.push(Equation {
                    kind: EquationKind::Simple {
                        lhs: Expr::Var(flag),
                        rhs: Expr::Boolean(true),
                    },
                    component: component.clone(),
                    span,
                });
            }
            out.push(Equation {
                kind: EquationKind::When {
                    branches: vec![(clock.tick(), body)],
                },
                component,
                span,
            });
        }
        Ok(out)
    }

    /// For `firstTick()` in `eq` on an event clock: the partition's flag that its clock has
    /// ticked (false before the first tick, set at every tick), made on first use.
    fn ticked_flag(&mut self, root: usize, clock: &ClockVal, eq: &Equation) -> Option<VarId> {
        if !matches!(clock, ClockVal::Event(_)) {
            return None;
        }
        if let Some(&v) = self.ticked.get(&root) {
            return Some(v);
        }
        let mut used = false;
        visit_equation(eq, &mut |e| {
            e.visit(&mut |x| used |= matches!(as_op(x), Some(("firstTick", _))))
        });
        if !used {
            return None;
        }
        let who = self.member(root).unwrap_or_default();
        let mut var = crate::dae::Variable::real(format!("$firstTick({who})"), eq.span);
        var.ty = ScalarType::Boolean;
        var.variability = crate::dae::Variability::Discrete;
        var.start = Some(Expr::Boolean(false));
        var.fixed = Some(true);
        let id = self.m.variables.len() + self.new_vars.len();
        self.new_vars.push(var);
        self.ticked.insert(root, id);
        Some(id)
    }

    /// The equations of a clocked partition as assignments `v = expr`, one per variable.
    fn orient(&self, body: Vec<Equation>, vars: &[VarId]) -> R<Vec<Equation>> {
        let index: HashMap<VarId, usize> = vars.iter().enumerate().map(|(k, v)| (*v, k)).collect();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut simple = Vec::new();
        let mut other = Vec::new();
        for eq in body {
            match &eq.kind {
                EquationKind::Simple { lhs, rhs } => {
                    let mut vs = Vec::new();
                    for side in [lhs, rhs] {
                        unknowns_outside_pre(side, &mut |v| {
                            if let Some(&k) = index.get(&v)
                                && !vs.contains(&k)
                            {
                                vs.push(k);
                            }
                        });
                    }
                    rows.push(vs);
                    simple.push(eq);
                }
                EquationKind::Assert { .. } => other.push(eq),
                _ => {
                    return Err(Diagnostic::error(
                        eq.span,
                        "this equation in a clocked partition is not supported (minimo needs \
                         `v = expr` equations there, MLS 16.7)",
                    ));
                }
            }
        }
        let who = vars.first().map(|v| self.name(*v)).unwrap_or_default();
        let span = simple.first().map(|e| e.span).unwrap_or_default();
        let matched = kuhn(&rows, vars.len());
        if simple.len() != vars.len() || matched.iter().any(Option::is_none) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "the clocked partition of `{who}` has {} equations for {} variables, or no \
                     way to assign each variable once (MLS 16.7)",
                    simple.len(),
                    vars.len()
                ),
            ));
        }
        let mut out = Vec::new();
        for (eq, k) in simple.into_iter().zip(matched) {
            let v = vars[k.unwrap_or(0)];
            let EquationKind::Simple { lhs, rhs } = eq.kind else {
                continue;
            };
            let value = match (&lhs, &rhs) {
                (Expr::Var(x), _) if *x == v => rhs,
                (_, Expr::Var(x)) if *x == v => lhs,
                _ => {
                    return Err(Diagnostic::error(
                        eq.span,
                        format!(
                            "minimo cannot solve this clocked equation for `{}`: it needs the \
                             form `{0} = expr` (MLS 16.7)",
                            self.name(v)
                        ),
                    ));
                }
            };
            out.push(Equation {
                kind: EquationKind::Simple {
                    lhs: Expr::Var(v),
                    rhs: value,
                },
                component: eq.component,
                span: eq.span,
            });
        }
        out.extend(other);
        Ok(out)
    }
}

fn unknowns_outside_pre(e: &Expr, f: &mut impl FnMut(VarId)) {
    match e {
        Expr::Var(v) => f(*v),
        Expr::Pre(_) => {}
        _ => {
            for c in children(e) {
                unknowns_outside_pre(c, f);
            }
        }
    }
}

/// A perfect matching of rows to columns by augmenting paths (Kuhn); per row, its column.
fn kuhn(rows: &[Vec<usize>], ncols: usize) -> Vec<Option<usize>> {
    fn augment(
        r: usize,
        rows: &[Vec<usize>],
        seen: &mut [bool],
        col_row: &mut [Option<usize>],
    ) -> bool {
        for &c in &rows[r] {
            if seen[c] {
                continue;
            }
            seen[c] = true;
            if col_row[c].is_none_or(|r2| augment(r2, rows, seen, col_row)) {
                col_row[c] = Some(r);
                return true;
            }
        }
        false
    }
    let mut col_row = vec![None; ncols];
    for r in 0..rows.len() {
        let mut seen = vec![false; ncols];
        augment(r, rows, &mut seen, &mut col_row);
    }
    let mut row_col = vec![None; rows.len()];
    for (c, r) in col_row.iter().enumerate() {
        if let Some(r) = r {
            row_col[*r] = Some(c);
        }
    }
    row_col
}

/// Removes the clock variables (no equation refers to them any more) and renumbers the rest.
fn remove_clock_vars(m: &mut FlatModel, clock_vars: &HashSet<VarId>) -> R<()> {
    if clock_vars.is_empty() {
        return Ok(());
    }
    // A clock variable still referred to (a binding, an attribute) would be renumbered into
    // nothing: stop with its name instead.
    let mut left = None;
    for v in &m.variables {
        for e in [&v.binding, &v.start, &v.nominal, &v.min, &v.max]
            .into_iter()
            .flatten()
        {
            e.visit(&mut |x| {
                if let Expr::Var(c) = x
                    && clock_vars.contains(c)
                {
                    left.get_or_insert((*c, v.span));
                }
            });
        }
    }
    for eq in &m.equations {
        visit_equation(eq, &mut |e| {
            e.visit(&mut |x| {
                if let Expr::Var(c) = x
                    && clock_vars.contains(c)
                {
                    left.get_or_insert((*c, eq.span));
                }
            })
        });
    }
    if let Some((c, span)) = left {
        return Err(Diagnostic::error(
            span,
            format!(
                "clock `{}` used where a value is expected (MLS 16.3)",
                m.variables[c].name
            ),
        ));
    }
    let mut new_id = vec![usize::MAX; m.variables.len()];
    let mut next = 0;
    for (k, slot) in new_id.iter_mut().enumerate() {
        if !clock_vars.contains(&k) {
            *slot = next;
            next += 1;
        }
    }
    let vars = std::mem::take(&mut m.variables);
    m.variables = vars
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !clock_vars.contains(k))
        .map(|(_, v)| v)
        .collect();
    let map = |e: &Expr| {
        crate::structure::expr::rewrite(e, &mut |x| match x {
            Expr::Var(v) => Expr::Var(new_id[v]),
            other => other,
        })
    };
    for v in m.variables.iter_mut() {
        for slot in [
            &mut v.binding,
            &mut v.start,
            &mut v.nominal,
            &mut v.min,
            &mut v.max,
        ] {
            if let Some(e) = slot.as_mut() {
                *e = map(e);
            }
        }
        if let Some(d) = v.derivative_of.as_mut() {
            *d = new_id[*d];
        }
    }
    for eq in m.equations.iter_mut().chain(m.initial_equations.iter_mut()) {
        remap_equation(eq, &map, &new_id);
    }
    Ok(())
}

fn remap_equation(eq: &mut Equation, map: &impl Fn(&Expr) -> Expr, new_id: &[usize]) {
    match &mut eq.kind {
        EquationKind::Simple { lhs, rhs } => {
            *lhs = map(lhs);
            *rhs = map(rhs);
        }
        EquationKind::If { branches, else_ } => {
            for (c, b) in branches.iter_mut() {
                *c = map(c);
                b.iter_mut().for_each(|e| remap_equation(e, map, new_id));
            }
            else_
                .iter_mut()
                .for_each(|e| remap_equation(e, map, new_id));
        }
        EquationKind::When { branches } => {
            for (c, b) in branches.iter_mut() {
                *c = map(c);
                b.iter_mut().for_each(|e| remap_equation(e, map, new_id));
            }
        }
        EquationKind::Reinit { var, value } => {
            *var = new_id[*var];
            *value = map(value);
        }
        EquationKind::Assert {
            condition, message, ..
        } => {
            *condition = map(condition);
            *message = map(message);
        }
        EquationKind::Terminate { message } => *message = map(message),
    }
}
