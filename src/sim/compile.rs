//! From the sorted system to a [`Program`]: expressions become register instructions.
//!
//! Compilation happens once per run, after `--set` overrides: parameters are then known numbers
//! and fold into constants together with every sub-expression that depends only on them.
//! Identical sub-expressions share one register (common-subexpression elimination by
//! hash-consing `(op, operands)`), and `a*b + c` fuses into one `MulAdd` instruction.
//!
//! Relations outside `noEvent` do not compare at run time: they read a *relation register*
//! that only changes at events, and their operands define a zero-crossing function `a - b`
//! handed to the integrator's root finder. Inside `noEvent` a relation is an ordinary
//! comparison, so its branch switches inside the integrator's iterations without an event.

use super::compiler::Compiler;
use super::dead_code::eliminate_dead_code;
use super::funcall;
use super::initial_code::initial_equations;
use super::params::ParamValues;
use super::program::{Action, Program, SetMonitor, Step, WhenClause};
use super::tape::{Op, Reg};
use crate::dae::{Builtin, EquationKind, Expr, FlatModel, ScalarType, VarId, Variability};
use crate::diag::{Diagnostic, Span};
use crate::structure::tearing::{tear_block, tear_nonlinear_block};
use crate::structure::{BlockKind, SortedSystem};
use std::collections::{HashMap, HashSet};

/// The parameters whose bindings read (directly or through other bindings) a parameter with
/// `fixed = false` that the initial equations determine, in an order where each comes after
/// the ones its binding reads.
pub fn initial_dependent_parameters(model: &FlatModel) -> Vec<VarId> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Todo,
        Busy,
        No,
        Yes,
    }
    pub(super) fn visit(
        model: &FlatModel,
        v: VarId,
        marks: &mut [Mark],
        order: &mut Vec<VarId>,
    ) -> bool {
        match marks[v] {
            Mark::Yes => return true,
            Mark::No | Mark::Busy => return false,
            Mark::Todo => {}
        }
        let var = &model.variables[v];
        if super::params::is_initial_unknown(var) {
            marks[v] = Mark::Yes;
            return true;
        }
        let Some(b) = var
            .binding
            .as_ref()
            .filter(|_| var.variability == Variability::Parameter)
        else {
            marks[v] = Mark::No;
            return false;
        };
        marks[v] = Mark::Busy;
        let mut reads = Vec::new();
        b.visit(&mut |x| {
            if let Expr::Var(u) = x {
                reads.push(*u);
            }
        });
        let mut dep = false;
        for u in reads {
            dep |= visit(model, u, marks, order);
        }
        marks[v] = if dep { Mark::Yes } else { Mark::No };
        if dep {
            order.push(v);
        }
        dep
    }
    let n = model.variables.len();
    let mut marks = vec![Mark::Todo; n];
    let mut order = Vec::new();
    if !model
        .variables
        .iter()
        .any(super::params::is_initial_unknown)
    {
        return order;
    }
    for v in 0..n {
        visit(model, v, &mut marks, &mut order);
    }
    order
}

/// A compiler for `sys` with its registers: variables at their start values, parameters at
/// their values, then `time`, `initial()`, `terminal()` and the `homotopy` parameter λ.
fn compiler_for<'a>(sys: &'a SortedSystem, params: &'a ParamValues, start: &[f64]) -> Compiler<'a> {
    let model = &sys.model;
    let nvars = model.variables.len();
    let mut c = Compiler {
        model,
        params,
        code: Vec::new(),
        regs: start.to_vec(),
        konst: vec![None; nvars],
        consts: HashMap::new(),
        cse: HashMap::new(),
        stale: vec![false; nvars],
        stale_relations: Vec::new(),
        subs: HashMap::new(),
        section_start: 0,
        der_of: HashMap::new(),
        pre: HashMap::new(),
        pre_list: Vec::new(),
        relations: Vec::new(),
        rel_index: HashMap::new(),
        samples: Vec::new(),
        no_event: 0,
        time: 0,
        initial: 0,
        terminal: 0,
        homotopy: (0, false),
        delays: Vec::new(),
        in_when_body: false,
        errors: Vec::new(),
        initial_dependent: {
            let mut d = vec![false; nvars];
            for (i, v) in model.variables.iter().enumerate() {
                d[i] = super::params::is_initial_unknown(v);
            }
            for v in initial_dependent_parameters(model) {
                d[v] = true;
            }
            d
        },
        span: Span::DUMMY,
        calls: funcall::Calls::default(),
    };
    for (i, v) in model.variables.iter().enumerate() {
        if let Some(x) = v.derivative_of {
            c.der_of.insert(x, i);
        }
        if !v.is_unknown() {
            c.regs[i] = params.values[i];
        }
    }
    for s in &sys.states {
        c.der_of.insert(s.var, s.derivative);
    }
    c.time = c.new_reg(0.0);
    c.initial = c.new_reg(0.0);
    c.terminal = c.new_reg(0.0);
    c.homotopy.0 = c.new_reg(1.0);
    c
}

/// Compiles a sorted system, with parameter values already fixed.
pub fn compile(
    sys: &SortedSystem,
    params: &ParamValues,
    start: &[f64],
) -> crate::diag::Result<Program> {
    let model = &sys.model;
    let nvars = model.variables.len();
    let mut c = compiler_for(sys, params, start);

    // Main pass: blocks in BLT order, after the parameters whose bindings depend on
    // parameters the initial equations determine (`parameter Integer seed(fixed = false)`,
    // `parameter Integer actualSeed = if useGlobalSeed then seed else 0`): they are not
    // constants of the tape but computed from those unknowns (constant after initialization).
    let mut steps = Vec::new();
    let mut torn_sizes = Vec::new();
    let mut computed_by = vec![None; nvars];
    for v in initial_dependent_parameters(model) {
        let start_pc = c.code.len();
        c.section_start = start_pc;
        c.span = model.variables[v].span;
        let Some(b) = model.variables[v].binding.as_ref() else {
            continue;
        };
        c.expr_into(b, v as Reg, start_pc);
        steps.push(Step::Explicit {
            code: start_pc..c.code.len(),
            var: v,
            block: usize::MAX,
        });
        computed_by[v] = Some(steps.len() - 1);
    }
    c.mark_pending(sys.blocks.iter().flat_map(|b| b.vars.iter().copied()));
    for (bi, block) in sys.blocks.iter().enumerate() {
        let start_pc = c.code.len();
        c.section_start = start_pc;
        if let Some(&e0) = block.equations.first() {
            c.span = sys.equations.get(e0).map(|e| e.span).unwrap_or(Span::DUMMY);
        }
        match &block.kind {
            BlockKind::Explicit { expr } => {
                let Some(&var) = block.vars.first() else {
                    continue;
                };
                c.expr_into(expr, var as Reg, start_pc);
                // The variable is now computed: a later `Var(var)` reads its register.
                c.stale[var] = false;
                steps.push(Step::Explicit {
                    code: start_pc..c.code.len(),
                    var,
                    block: bi,
                });
                computed_by[var] = Some(steps.len() - 1);
            }
            BlockKind::Linear | BlockKind::Nonlinear => {
                // The unknowns hold the current iterate wherever the block's code reads them.
                for &v in &block.vars {
                    c.stale[v] = false;
                }
                steps.push(implicit_step(&mut c, sys, bi, start_pc, &mut torn_sizes));
                for &v in &block.vars {
                    computed_by[v] = Some(steps.len() - 1);
                }
            }
        }
    }

    // Eliminated variables.
    let elim_start = c.code.len();
    c.section_start = elim_start;
    for (v, e) in &sys.eliminated {
        c.span = model.variables[*v].span;
        c.expr_into(e, *v as Reg, elim_start);
    }
    let eliminated = elim_start..c.code.len();

    // Event code: when clauses, discrete equations and asserts.
    let ev_start = c.code.len();
    c.section_start = ev_start;
    c.refresh_relation_operands();
    let (mut whens, always) = event_clauses(&mut c, sys);
    let event_code = ev_start..c.code.len();
    // The `when` bodies, each run only when its branch fires (`when_bodies.rs`).
    super::when_bodies::compile_bodies(&mut c, sys, &mut whens);

    // Initial equations: assignments of discrete unknowns, the others as residuals `lhs - rhs`.
    let init_start = c.code.len();
    c.section_start = init_start;
    let discrete: HashSet<VarId> = sys.discrete_vars.iter().copied().collect();
    let (initial_residuals, initial_explicit, initial_assigns, initial_asserts) =
        initial_equations(&mut c, sys, &whens, &discrete);
    let initial_code = init_start..c.code.len();

    // Dynamic state sets: their constraint Jacobians.
    let ss_start = c.code.len();
    c.section_start = ss_start;
    let state_sets = state_set_monitors(&mut c, sys);
    let state_set_code = ss_start..c.code.len();

    if !c.errors.is_empty() {
        return Err(c.errors);
    }
    let (pre, pre_fixed) = pre_registers(&c, model, &discrete);
    let mut prog = Program {
        code: c.code,
        init_regs: c.regs,
        steps,
        eliminated,
        event_code,
        initial_code,
        initial_residuals,
        initial_explicit,
        initial_assigns,
        initial_asserts,
        relations: c.relations,
        samples: c.samples,
        whens,
        always,
        pre,
        pre_fixed,
        state_set_code,
        state_sets,
        states: sys.states.iter().map(|s| (s.var, s.derivative)).collect(),
        time: c.time,
        initial: c.initial,
        terminal: c.terminal,
        homotopy: c.homotopy.1.then_some(c.homotopy.0),
        delays: c.delays,
        computed_by,
        iteration_steps: Vec::new(),
        torn: torn_sizes,
    };
    eliminate_dead_code(&mut prog, nvars);
    prog.iteration_steps = iteration_steps(&prog, model);
    Ok(prog)
}

/// The explicit steps of discrete variables inside mixed loops (see
/// [`Program::iteration_steps`]).
pub(super) fn iteration_steps(p: &Program, model: &FlatModel) -> Vec<usize> {
    const ELIMINATED: usize = usize::MAX;
    // Which step (or the eliminated section) writes each register, and with which instruction.
    let mut writer: HashMap<Reg, (usize, usize)> = HashMap::new();
    for (si, s) in p.steps.iter().enumerate() {
        let (Step::Explicit { code, .. } | Step::Implicit { code, .. }) = s;
        for k in code.clone() {
            writer.insert(p.code[k].dst, (si, k));
        }
        if let Step::Implicit { vars, .. } = s {
            for &v in vars {
                writer.insert(v as Reg, (si, usize::MAX));
            }
        }
    }
    for k in p.eliminated.clone() {
        writer.insert(p.code[k].dst, (ELIMINATED, k));
    }
    let relation_of: HashMap<Reg, usize> = p
        .relations
        .iter()
        .enumerate()
        .map(|(i, r)| (r.reg, i))
        .collect();
    // The latest step whose result `reg` depends on, looking through the temporaries of step
    // `s` itself and through eliminated variables.
    pub(super) fn source(
        p: &Program,
        writer: &HashMap<Reg, (usize, usize)>,
        reg: Reg,
        s: usize,
        depth: usize,
    ) -> Option<usize> {
        let &(ws, k) = writer.get(&reg)?;
        if (ws == s || ws == usize::MAX) && k != usize::MAX && depth < 64 {
            return p.code[k]
                .reads()
                .filter_map(|r| source(p, writer, r, s, depth + 1))
                .max();
        }
        (ws != s).then_some(ws)
    }
    let mut out = Vec::new();
    for (si, step) in p.steps.iter().enumerate() {
        let Step::Explicit { code, var, .. } = step else {
            continue;
        };
        let v = &model.variables[*var];
        let discrete = matches!(
            v.ty,
            ScalarType::Boolean
                | ScalarType::Integer
                | ScalarType::Enumeration
                | ScalarType::String
        ) || v.variability == Variability::Discrete;
        if !discrete {
            continue;
        }
        let in_loop = p.code[code.clone()]
            .iter()
            .flat_map(|i| i.reads())
            .any(|r| {
                relation_of.get(&r).is_some_and(|&ri| {
                    let rel = &p.relations[ri];
                    [rel.a, rel.b]
                        .iter()
                        .any(|&o| source(p, &writer, o, si, 0).is_some_and(|w| w > si))
                })
            });
        if in_loop {
            out.push(si);
        }
    }
    out
}

pub(super) fn action(c: &mut Compiler, eq: &crate::dae::Equation) -> Option<Action> {
    c.span = eq.span;
    match &eq.kind {
        EquationKind::Simple {
            lhs: Expr::Var(v),
            rhs,
        } => {
            let value = c.expr(rhs);
            Some(Action::Assign { var: *v, value })
        }
        EquationKind::Reinit { var, value } => {
            let value = c.expr(value);
            Some(Action::Reinit { var: *var, value })
        }
        EquationKind::Assert {
            condition,
            message,
            warning,
        } => {
            let condition = c.expr(condition);
            let message = c.message(message);
            Some(Action::Assert {
                condition,
                message,
                warning: *warning,
                span: eq.span,
            })
        }
        EquationKind::Terminate { message } => Some(Action::Terminate {
            message: c.message(message),
        }),
        _ => {
            c.errors.push(
                Diagnostic::error(eq.span, "this kind of equation is not supported inside `when` by the simulator")
                    .with_help("inside `when`, assign a variable (`v = expr;`), use `reinit`, `assert` or `terminate`"),
            );
            None
        }
    }
}

/// The step of an algebraic block `bi` whose code starts at `start_pc`: torn when tearing
/// applies (the assignments first, then the residuals of the equations left over), with the
/// registers its code reads from outside.
fn implicit_step(
    c: &mut Compiler,
    sys: &SortedSystem,
    bi: usize,
    start_pc: usize,
    torn_sizes: &mut Vec<(usize, usize)>,
) -> Step {
    let block = &sys.blocks[bi];
    let torn =
        tear_block(&sys.equations, block).or_else(|| tear_nonlinear_block(&sys.equations, block));
    // Torn: the assignments first, then the residuals of the equations left over.
    let (unknowns, residual_eqs) = match &torn {
        Some(t) => {
            torn_sizes.push((block.vars.len(), t.tears.len()));
            for (ei, v, expr) in &t.inner {
                c.span = sys.equations[*ei].span;
                c.expr_into(expr, *v as Reg, start_pc);
            }
            (t.tears.clone(), t.residuals.clone())
        }
        None => (block.vars.clone(), block.equations.clone()),
    };
    let mut residuals = Vec::new();
    for &ei in &residual_eqs {
        let Some(eq) = sys.equations.get(ei) else {
            c.errors.push(Diagnostic::error(
                Span::DUMMY,
                format!("block {bi} refers to a missing equation {ei}"),
            ));
            continue;
        };
        c.span = eq.span;
        let r = c.residual(&eq.residual);
        residuals.push(r);
    }
    let code = start_pc..c.code.len();
    // Registers read but not written by the block code, other than its unknowns.
    // A set local to the block: the register file can be large, blocks are small.
    let mut written: std::collections::HashSet<Reg> =
        c.code[code.clone()].iter().map(|i| i.dst).collect();
    written.extend(unknowns.iter().map(|&v| v as Reg));
    let mut inputs = Vec::new();
    for i in &c.code[code.clone()] {
        for o in i.reads() {
            if c.konst[o as usize].is_none() && written.insert(o) {
                inputs.push(o);
            }
        }
    }
    let linear = block.kind == BlockKind::Linear;
    Step::Implicit {
        code,
        vars: unknowns,
        residuals,
        inputs,
        linear,
        torn: torn.is_some(),
        block: bi,
    }
}

/// MLS 8.6: a `when` branch is active during initialization only in the forms `when initial()`
/// and `when {..., initial(), ...}`; `initial()` inside another expression (`foo(initial())`,
/// `not initial()`) does not enable it.
fn enabled_at_initialization(cond: &Expr) -> bool {
    match cond {
        Expr::Initial => true,
        Expr::Array { elements, .. } => elements.iter().any(|e| matches!(e, Expr::Initial)),
        _ => false,
    }
}

/// The `when` clauses (a register per branch condition, the elements of vector conditions, the
/// actions of each branch) and the actions of the other discrete equations, run at every event.
fn event_clauses(c: &mut Compiler, sys: &SortedSystem) -> (Vec<WhenClause>, Vec<Action>) {
    let mut whens = Vec::new();
    let mut always = Vec::new();
    for eq in &sys.discrete_equations {
        c.span = eq.span;
        match &eq.kind {
            EquationKind::When { branches } => {
                let mut out = Vec::new();
                let mut initial = Vec::new();
                let mut elements = Vec::new();
                for (cond, _body) in branches {
                    let has_initial = enabled_at_initialization(cond);
                    let regs: Vec<Reg> = match cond {
                        Expr::Array { elements, .. } => {
                            elements.iter().map(|e| c.expr(e)).collect()
                        }
                        _ => vec![c.expr(cond)],
                    };
                    let r = regs[1..]
                        .iter()
                        .fold(regs[0], |acc, &x| c.emit(Op::Or, acc, x, 0));
                    // The actions: `when_bodies::compile_bodies`, after the event code.
                    out.push((r, Vec::new()));
                    initial.push(has_initial);
                    elements.push(regs);
                }
                let clocked = matches!(
                    branches.as_slice(),
                    [(Expr::Call(Builtin::EventClock, _), _)]
                );
                whens.push(WhenClause {
                    branches: out,
                    elements,
                    initial,
                    bodies: Vec::new(),
                    clocked,
                    span: eq.span,
                });
            }
            _ => {
                if let Some(a) = action(c, eq) {
                    always.push(a);
                }
            }
        }
    }
    (whens, always)
}

/// The constraint Jacobians of the dynamic state sets, compiled so that a run can watch them.
fn state_set_monitors(c: &mut Compiler, sys: &SortedSystem) -> Vec<SetMonitor> {
    let mut state_sets = Vec::new();
    for set in &sys.state_sets {
        let entries = set
            .jacobian
            .iter()
            .map(|(r, col, e)| (*r, *col, c.expr(e)))
            .collect();
        let dummy_cols = set
            .dummies
            .iter()
            .filter_map(|d| set.candidates.iter().position(|x| x == d))
            .collect();
        state_sets.push(SetMonitor {
            rows: set.equations.len(),
            cols: set.candidates.len(),
            entries,
            dummy_cols,
            candidate_states: set.candidate_states.clone(),
        });
    }
    state_sets
}

/// The `(variable, pre register)` pairs in a deterministic order, and the pre registers of
/// fixed discrete variables (their start values are `pre` at initialization).
fn pre_registers(
    c: &Compiler,
    model: &FlatModel,
    discrete: &HashSet<VarId>,
) -> (Vec<(Reg, Reg)>, Vec<Reg>) {
    // Sort pre registers for deterministic order.
    let mut pre = c.pre_list.clone();
    pre.sort();
    let pre_fixed = pre
        .iter()
        .filter(|&&(v, _)| {
            let var = &model.variables[v as usize];
            var.fixed == Some(true)
                && (matches!(
                    var.ty,
                    ScalarType::Boolean
                        | ScalarType::Integer
                        | ScalarType::Enumeration
                        | ScalarType::String
                ) || var.variability == Variability::Discrete
                    || discrete.contains(&(v as usize)))
        })
        .map(|&(_, p)| p)
        .collect();
    (pre, pre_fixed)
}
