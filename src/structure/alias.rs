//! Alias and trivial-equation elimination before matching.
//!
//! Equations that are linear with integer coefficients in the unknowns, with a constant part
//! made of literals and parameters (`a = b`, `a = -b`, `a = 3`, the flow sums of `connect`),
//! are used to eliminate one unknown whose coefficient is ±1, so no fraction ever appears
//! (fraction-free, exact). Which unknown goes is decided by what must not be lost: variables
//! with `stateSelect`, written under `der()`, with a `fixed` start or a start value are kept;
//! for `a = ±b + c` the eliminated variable's start, fixed, stateSelect and nominal are moved to
//! the kept one. Equations with three or more unknowns never eliminate a state candidate or a
//! variable with a fixed start. Substitution is bounded (terms and expansion steps), so the
//! pass is linear in the model size.

use super::expr::{add, any_var, fold, lit, mul, num, simplify, size, subst};
use super::work::{Role, WorkingSystem};
use crate::dae::{BinOp, Expr, ScalarType, StateSelect, UnOp, VarId, Variability};
use std::collections::BTreeMap;

/// `sum(coef * var) + constant`.
#[derive(Clone, Debug)]
struct LinForm {
    terms: BTreeMap<VarId, i64>,
    constant: Expr,
}

const MAX_TERMS: usize = 32;
const MAX_EXPANSIONS: usize = 64;
const MAX_CONST_SIZE: usize = 64;

impl LinForm {
    fn constant(c: Expr) -> LinForm {
        LinForm {
            terms: BTreeMap::new(),
            constant: c,
        }
    }
    fn scale(mut self, k: i64) -> LinForm {
        for c in self.terms.values_mut() {
            *c *= k;
        }
        self.constant = mul(lit(k as f64), self.constant);
        self
    }
    fn plus(mut self, other: LinForm) -> LinForm {
        for (v, c) in other.terms {
            let e = self.terms.entry(v).or_insert(0);
            *e += c;
            if *e == 0 {
                self.terms.remove(&v);
            }
        }
        self.constant = add(self.constant, other.constant);
        self
    }
    fn to_expr(&self) -> Expr {
        let mut e = lit(0.0);
        for (&v, &c) in &self.terms {
            e = match c {
                1 => add(e, Expr::Var(v)),
                -1 => super::expr::sub(e, Expr::Var(v)),
                c => add(e, mul(lit(c as f64), Expr::Var(v))),
            };
        }
        add(e, self.constant.clone())
    }
}

fn integer(e: &Expr) -> Option<i64> {
    match e {
        Expr::Integer(i) => Some(*i),
        Expr::Real(r) if r.fract() == 0.0 && r.abs() < 1e9 => Some(*r as i64),
        _ => None,
    }
}

/// The linear integer form of `e`, if it has one.
fn lin_form(e: &Expr, work: &WorkingSystem) -> Option<LinForm> {
    match e {
        Expr::Var(v) => match work.role[*v] {
            Role::Unknown if work.is_continuous(*v) => Some(LinForm {
                terms: BTreeMap::from([(*v, 1)]),
                constant: lit(0.0),
            }),
            Role::Known => Some(LinForm::constant(e.clone())),
            _ => None,
        },
        Expr::Integer(_) | Expr::Real(_) => Some(LinForm::constant(e.clone())),
        Expr::Unary(UnOp::Neg, a) => Some(lin_form(a, work)?.scale(-1)),
        // `smooth(p, e)` is `e` (a constant capacitance `smooth(1, Cjc*f(v))` with `Cjc = 0`).
        Expr::Smooth(_, a) => lin_form(a, work),
        Expr::Binary(BinOp::Add, a, b) => Some(lin_form(a, work)?.plus(lin_form(b, work)?)),
        Expr::Binary(BinOp::Sub, a, b) => {
            Some(lin_form(a, work)?.plus(lin_form(b, work)?.scale(-1)))
        }
        Expr::Binary(BinOp::Mul, a, b) => {
            let (la, lb) = (lin_form(a, work)?, lin_form(b, work)?);
            match (la.terms.is_empty(), lb.terms.is_empty()) {
                (true, true) => Some(LinForm::constant(mul(la.constant, lb.constant))),
                (true, false) => Some(lb.scale(integer(a)?)),
                (false, true) => Some(la.scale(integer(b)?)),
                (false, false) => None,
            }
        }
        Expr::Binary(BinOp::Div, a, b) => {
            let (la, lb) = (lin_form(a, work)?, lin_form(b, work)?);
            if la.terms.is_empty() && lb.terms.is_empty() {
                Some(LinForm::constant(Expr::binary(
                    BinOp::Div,
                    la.constant,
                    lb.constant,
                )))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// How much we want to keep a variable (higher = keep).
fn keep_priority(
    work: &WorkingSystem,
    v: VarId,
) -> (
    StateSelect,
    bool,
    bool,
    bool,
    std::cmp::Reverse<usize>,
    std::cmp::Reverse<VarId>,
) {
    let var = &work.model.variables[v];
    (
        var.state_select,
        work.in_der[v],
        var.fixed == Some(true),
        var.start.is_some(),
        std::cmp::Reverse(var.name.matches('.').count()),
        std::cmp::Reverse(v),
    )
}

/// Runs the elimination; the used equations are removed from `work.eqs`.
pub fn eliminate(
    work: &mut WorkingSystem,
    protected: &[VarId],
    discrete: &mut [crate::dae::Equation],
) {
    let n = work.model.variables.len();
    let mut is_protected = vec![false; n];
    for &p in protected {
        if p < n {
            is_protected[p] = true;
        }
    }
    let mut form: Vec<Option<LinForm>> = vec![None; n];
    let mut order: Vec<VarId> = Vec::new();
    let mut used = vec![false; work.eqs.len()];
    // `ei` indexes both `work.eqs` and `used`.
    #[allow(clippy::needless_range_loop)]
    for ei in 0..work.eqs.len() {
        let Some(mut lf) = lin_form(&work.eqs[ei].residual, work) else {
            continue;
        };
        if lf.terms.len() > MAX_TERMS || any_var(&lf.constant, &|v| work.role[v] != Role::Known) {
            continue;
        }
        // Express the equation in variables not eliminated yet.
        let mut steps = 0;
        let mut ok = true;
        while let Some((&v, &c)) = lf.terms.iter().find(|(v, _)| form[**v].is_some()) {
            steps += 1;
            if steps > MAX_EXPANSIONS || lf.terms.len() > MAX_TERMS {
                ok = false;
                break;
            }
            lf.terms.remove(&v);
            let f = form[v]
                .clone()
                .unwrap_or_else(|| LinForm::constant(lit(0.0)));
            lf = lf.plus(f.scale(c));
        }
        if !ok || lf.terms.is_empty() || size(&lf.constant) > MAX_CONST_SIZE {
            // An equation with no unknown left stays: matching reports it as redundant.
            continue;
        }
        let multi = lf.terms.len() > 2;
        let victim = lf
            .terms
            .iter()
            .filter(|(v, c)| {
                let var = &work.model.variables[**v];
                c.abs() == 1
                    && !is_protected[**v]
                    && var.ty == ScalarType::Real
                    && var.variability == Variability::Continuous
                    && !(multi
                        && (work.in_der[**v]
                            || var.fixed == Some(true)
                            || var.state_select >= StateSelect::Prefer
                            || var.start.is_some()))
            })
            .map(|(v, _)| *v)
            .min_by_key(|&v| keep_priority(work, v));
        let Some(victim) = victim else { continue };
        if lf.terms.len() == 2 {
            let other = lf
                .terms
                .keys()
                .copied()
                .find(|&k| k != victim)
                .unwrap_or(victim);
            let (a, b) = (&work.model.variables[victim], &work.model.variables[other]);
            // Two fixed start values: keeping both needs both variables.
            if a.fixed == Some(true) && b.fixed == Some(true) {
                continue;
            }
        }
        // victim = -(rest + constant) / c with c = ±1.
        let c = lf.terms[&victim];
        lf.terms.remove(&victim);
        let solved = lf.scale(-c);
        // An alias hands its start, `fixed` and stateSelect on at once, so that later
        // equations see them on the variable kept (a chain `r_0 = frame.r_0 = f.r_0` ending in
        // `f.r_0 = a.r_0 + r_rel` must not eliminate the end of the chain that now carries
        // the fixed start).
        if solved.terms.len() == 1 {
            merge_attributes(work, victim, Some(&solved));
        }
        form[victim] = Some(solved);
        order.push(victim);
        used[ei] = true;
    }
    // Final forms in non-eliminated variables: a form only refers to variables eliminated later.
    let mut exprs: Vec<Option<Expr>> = vec![None; n];
    let mut finals: Vec<Option<LinForm>> = vec![None; n];
    for &v in order.iter().rev() {
        let mut lf = form[v]
            .clone()
            .unwrap_or_else(|| LinForm::constant(lit(0.0)));
        let later: Vec<(VarId, i64)> = lf
            .terms
            .iter()
            .filter(|(u, _)| finals[**u].is_some())
            .map(|(u, c)| (*u, *c))
            .collect();
        for (u, c) in later {
            lf.terms.remove(&u);
            let fu = finals[u]
                .clone()
                .unwrap_or_else(|| LinForm::constant(lit(0.0)));
            lf = lf.plus(fu.scale(c));
        }
        exprs[v] = Some(simplify(&lf.to_expr()));
        finals[v] = Some(lf);
    }
    for &v in &order {
        merge_attributes(work, v, finals[v].as_ref());
        work.role[v] = Role::Eliminated;
    }
    // Substitute into everything that remains.
    let lookup = |v: VarId| exprs.get(v).and_then(|e| e.clone());
    let mut kept = Vec::with_capacity(work.eqs.len());
    for (ei, mut eq) in std::mem::take(&mut work.eqs).into_iter().enumerate() {
        if used[ei] {
            continue;
        }
        // A variable found constant leaves terms such as `0*der(v)` (a zero capacitance):
        // they go before matching, so the structure is the one these values give.
        let constant = any_var(&eq.residual, &|v| {
            exprs
                .get(v)
                .and_then(|e| e.as_ref())
                .is_some_and(|e| num(e).is_some())
        });
        eq.residual = subst(&eq.residual, &lookup);
        if constant {
            eq.residual = fold(&eq.residual);
        }
        kept.push(eq);
    }
    work.eqs = Vec::new();
    work.eq_deriv.clear();
    work.eq_parent.clear();
    for eq in kept {
        work.push_eq(eq);
    }
    for eq in work
        .model
        .initial_equations
        .iter_mut()
        .chain(discrete.iter_mut())
    {
        subst_equation(&mut eq.kind, &lookup);
    }
    for &v in &order {
        if let Some(e) = exprs[v].take() {
            work.eliminated.push((v, e));
        }
    }
}

pub fn subst_equation(kind: &mut crate::dae::EquationKind, f: &impl Fn(VarId) -> Option<Expr>) {
    use crate::dae::EquationKind as K;
    match kind {
        K::Simple { lhs, rhs } => {
            *lhs = subst(lhs, f);
            *rhs = subst(rhs, f);
        }
        K::If { branches, else_ } => {
            for (c, b) in branches {
                *c = subst(c, f);
                for e in b {
                    subst_equation(&mut e.kind, f);
                }
            }
            for e in else_ {
                subst_equation(&mut e.kind, f);
            }
        }
        K::When { branches } => {
            for (c, b) in branches {
                *c = subst(c, f);
                for e in b {
                    subst_equation(&mut e.kind, f);
                }
            }
        }
        K::Reinit { value, .. } => *value = subst(value, f),
        K::Assert {
            condition, message, ..
        } => {
            *condition = subst(condition, f);
            *message = subst(message, f);
        }
        K::Terminate { message } => *message = subst(message, f),
    }
}

/// For `v = s*k + c` (one kept variable, integer `s`), moves `v`'s attributes onto `k`.
fn merge_attributes(work: &mut WorkingSystem, v: VarId, lf: Option<&LinForm>) {
    let Some(lf) = lf else { return };
    if lf.terms.len() != 1 {
        return;
    }
    let Some((&k, &s)) = lf.terms.iter().next() else {
        return;
    };
    let from = work.model.variables[v].clone();
    let to = &mut work.model.variables[k];
    // k = (v - c)/s: the eliminated variable's coefficient is ±1, the kept one's any integer
    // (`y = 2*x` moves y's start 3 onto x as 1.5).
    let convert = |e: &Expr| match simplify(&super::expr::div(
        super::expr::sub(e.clone(), lf.constant.clone()),
        lit(s as f64),
    )) {
        // Keep a Real literal Real (the simplifier folds integral values to Integer).
        Expr::Integer(i) if matches!(e, Expr::Real(_)) => Expr::Real(i as f64),
        other => other,
    };
    let from_fixed = from.fixed == Some(true);
    if let Some(start) = &from.start
        && (to.start.is_none() || (from_fixed && to.fixed != Some(true)))
    {
        to.start = Some(convert(start));
        if from.fixed.is_some() {
            to.fixed = from.fixed;
        }
    }
    if to.state_select < from.state_select {
        to.state_select = from.state_select;
    }
    if to.nominal.is_none() {
        to.nominal = from.nominal.clone();
    }
    if work.in_der[v] {
        work.in_der[k] = true;
    }
}
