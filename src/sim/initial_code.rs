//! The initial equations compiled: an equation that gives a discrete unknown (or its `pre`)
//! becomes an assignment, checked against a second equation or a `when initial()` branch giving
//! the same unknown; every other equation a residual `lhs - rhs`.

use super::compiler::Compiler;
use super::program::{Action, InitAssign, WhenClause};
use super::tape::{Op, Reg};
use crate::dae::{EquationKind, Expr, VarId};
use crate::diag::{Diagnostic, Span};
use crate::structure::SortedSystem;
use std::collections::{HashMap, HashSet};

/// [`Program::initial_residuals`], [`Program::initial_explicit`], [`Program::initial_assigns`].
pub(super) type InitialEquations = (
    Vec<(Reg, usize)>,
    Vec<Option<(VarId, Reg)>>,
    Vec<InitAssign>,
    Vec<Action>,
);

/// The initial equations: assignments of discrete unknowns (each determined once, and not also
/// by a `when initial()` branch), the others as residuals `lhs - rhs` with the variable each
/// gives explicitly, if any.
pub(super) fn initial_equations(
    c: &mut Compiler,
    sys: &SortedSystem,
    whens: &[WhenClause],
    discrete: &HashSet<VarId>,
) -> InitialEquations {
    let model = &sys.model;
    let mut initial_residuals = Vec::new();
    let mut initial_explicit = Vec::new();
    let mut initial_assigns = Vec::new();
    let mut initial_asserts = Vec::new();
    // Variables that a `when initial()` branch assigns: determined by that branch at
    // initialization.
    let mut at_initial: HashMap<VarId, Span> = HashMap::new();
    for w in whens {
        for (b, (_, actions)) in w.branches.iter().enumerate() {
            for a in actions {
                if let (true, Action::Assign { var, .. }) = (w.initial[b], a) {
                    at_initial.insert(*var, w.span);
                }
            }
        }
    }
    // Which initial equation determines each discrete unknown (`(var, pre only)`).
    let mut determined: HashMap<(VarId, bool), usize> = HashMap::new();
    let defs = super::initial_alias::discrete_defs(sys);
    for i in super::initial_alias::order(&model.initial_equations, &defs, discrete) {
        let eq = &model.initial_equations[i];
        c.span = eq.span;
        match &eq.kind {
            EquationKind::Simple { lhs, rhs } => {
                let (lhs, rhs) = &super::initial_alias::resolve_sides(
                    lhs,
                    rhs,
                    &defs,
                    discrete,
                    |k| determined.contains_key(&k),
                );
                let target = init_target(lhs, rhs, discrete)
                    .or_else(|| init_target(rhs, lhs, discrete).map(|(v, p, _)| (v, p, lhs)))
                    // `q = y` with `y` already determined (by a `when initial()` branch, or
                    // by its fixed start value) and `q` a parameter with `fixed = false`:
                    // the equation determines `q` (a residual), not `y`.
                    .filter(|&(v, pre_only, value)| {
                        let given = at_initial.contains_key(&v)
                            || model.variables[v].fixed == Some(true);
                        pre_only || !given || !reads_initial_unknown(value, model)
                    });
                let Some((var, pre_only, value)) = target else {
                    let (l, r) = (c.expr(lhs), c.expr(rhs));
                    let res = c.emit(Op::Sub, l, r, 0);
                    initial_residuals.push((res, i));
                    let reads = |e: &Expr, v: VarId| {
                        let mut found = false;
                        e.visit(&mut |x| found |= matches!(x, Expr::Var(u) if *u == v));
                        found
                    };
                    initial_explicit.push(match (lhs, rhs) {
                        (Expr::Var(v), e) if !reads(e, *v) => Some((*v, r)),
                        (e, Expr::Var(v)) if !reads(e, *v) => Some((*v, l)),
                        _ => None,
                    });
                    continue;
                };
                let set_var = discrete.contains(&var) && !at_initial.contains_key(&var);
                let name = &model.variables[var].name;
                if !pre_only && let Some(&span) = at_initial.get(&var) {
                    c.errors.push(
                        Diagnostic::error(
                            eq.span,
                            format!("the initial system is over-specified: `{name}` is given by this initial equation and by a `when initial()` branch"),
                        )
                        .with_secondary(span, "this `when` also assigns it at initialization")
                        .with_help("remove one of the two"),
                    );
                    continue;
                }
                // `v = e` and `pre(v) = e` determine the same unknown when `v = pre(v)`.
                let key = (var, pre_only && !set_var);
                if let Some(&first) = determined.get(&key) {
                    c.errors.push(
                        Diagnostic::error(
                            eq.span,
                            format!("the initial system is over-specified: `{name}` is determined by two initial equations"),
                        )
                        .with_secondary(model.initial_equations[first].span, "first determined here")
                        .with_help("remove one of the two initial equations"),
                    );
                    continue;
                }
                determined.insert(key, i);
                let value = c.expr(value);
                initial_assigns.push(InitAssign {
                    var,
                    set_var: set_var || !pre_only,
                    pre: None,
                    value,
                    eq: i,
                });
            }
            EquationKind::Assert { .. } => initial_asserts.extend(super::compile::action(c, eq)),
            _ => c.errors.push(
                Diagnostic::error(
                    eq.span,
                    "only equations `a = b` and `assert` are supported in `initial equation` sections",
                )
                .with_help("write the initial condition as a plain equation"),
            ),
        }
    }
    for a in &mut initial_assigns {
        a.pre = c.pre.get(&a.var).copied();
    }
    (
        initial_residuals,
        initial_explicit,
        initial_assigns,
        initial_asserts,
    )
}

/// The discrete unknown an initial equation `target = value` determines, if any: a variable
/// assigned in `when` (`v = e`) or the `pre` of any variable (`pre(v) = e`, then `true`), when
/// `value` does not itself read it (that would be an implicit equation: a residual).
/// Whether `e` reads an unknown of the initial system that is not discrete (a parameter with
/// `fixed = false`).
fn reads_initial_unknown(e: &Expr, model: &crate::dae::FlatModel) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        if let Expr::Var(v) = x {
            found |= super::params::is_initial_unknown(&model.variables[*v]);
        }
    });
    found
}

pub(super) fn init_target<'e>(
    target: &Expr,
    value: &'e Expr,
    discrete: &HashSet<VarId>,
) -> Option<(VarId, bool, &'e Expr)> {
    let (var, pre_only) = match target {
        Expr::Var(v) if discrete.contains(v) => (*v, false),
        Expr::Pre(a) => match **a {
            Expr::Var(v) => (v, true),
            _ => return None,
        },
        _ => return None,
    };
    let mut reads_itself = false;
    value.visit(&mut |x| reads_itself |= matches!(x, Expr::Var(v) if *v == var));
    (!reads_itself).then_some((var, pre_only, value))
}
