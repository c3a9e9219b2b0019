//! Parameters evaluated at translation (MLS 18.3, `annotation(Evaluate = true)`).
//!
//! A parameter declared with `Evaluate = true` whose value is a parameter expression gets its
//! value as binding, like a structural parameter, and is flagged `evaluated`; so is a parameter
//! whose binding refers to evaluated parameters only (`C1(final C = CapVal)`), since its value
//! is then fixed as well. Structural analysis substitutes the values of flagged parameters into
//! the equations and simplifies them before matching, so `i = C*der(v)` with `C = 0` leaves no
//! state (what the modeler asked for by the annotation). Their value can then no longer change
//! without translating again: `--set` refuses them as it refuses structural parameters.

use super::Flattener;
use super::instance::InstId;
use crate::dae::{Expr, FlatModel, Variability};
use crate::syntax::ast;

impl Flattener<'_> {
    /// Marks the parameters to evaluate as structural (so [`Flattener::finish_parameters`]
    /// gives them their value as binding); returns them. Runs before `finish_parameters`.
    pub(super) fn evaluate_annotated(&mut self, model: &FlatModel) -> Vec<InstId> {
        let mut chosen: Vec<InstId> = Vec::new();
        let mut is_chosen = vec![false; model.variables.len()];
        for i in self.prims.clone() {
            if self.is_free_parameter(i, model) && self.has_evaluate_annotation(i) {
                self.take_value(i, model, &mut chosen, &mut is_chosen);
            }
        }
        // Parameters bound to evaluated parameters only: their value is fixed too. A chain
        // `a = b`, `b = c` is settled in as many rounds as it is long (few in practice).
        let mut changed = !chosen.is_empty();
        while changed {
            changed = false;
            for i in self.prims.clone() {
                // A zero-size array parameter has no variable to take (its `var0` may be
                // past the last variable): nothing to do, and no endless rounds.
                let done = self.var_range(i).is_empty()
                    || is_chosen.get(self.insts[i].var0).copied().unwrap_or(true);
                if done || !self.is_free_parameter(i, model) {
                    continue;
                }
                if self.bound_to_chosen(i, model, &is_chosen)
                    && self.take_value(i, model, &mut chosen, &mut is_chosen)
                {
                    changed = true;
                }
            }
        }
        chosen
    }

    /// Sets the `evaluated` flag of the chosen parameters (after `finish_parameters` gave them
    /// their values).
    pub(super) fn flag_evaluated(&self, chosen: &[InstId], model: &mut FlatModel) {
        for &i in chosen {
            for v in self.var_range(i) {
                if let Some(var) = model.variables.get_mut(v)
                    && var.structural
                {
                    var.evaluated = true;
                }
            }
        }
    }

    fn var_range(&self, i: InstId) -> std::ops::Range<usize> {
        let n: usize = match &self.insts[i].kind {
            super::instance::InstKind::Prim { dims, .. } => dims.iter().product(),
            _ => 0,
        };
        let v0 = self.insts[i].var0;
        v0..v0 + n
    }

    /// A parameter with a value (not `fixed = false`, which the initial equations determine).
    fn is_free_parameter(&self, i: InstId, model: &FlatModel) -> bool {
        let r = self.var_range(i);
        !r.is_empty()
            && model
                .variables
                .get(r.start)
                .is_some_and(|v| v.variability == Variability::Parameter && v.fixed != Some(false))
    }

    /// Evaluates `i`; a value that is no parameter expression leaves it symbolic (the
    /// annotation allows evaluation, it does not demand it).
    fn take_value(
        &mut self,
        i: InstId,
        model: &FlatModel,
        chosen: &mut Vec<InstId>,
        is_chosen: &mut [bool],
    ) -> bool {
        if self.reads_initialized_parameter(i, model) || self.param_value(i).is_err() {
            return false;
        }
        self.structural.insert(i);
        chosen.push(i);
        for v in self.var_range(i) {
            if v < model.variables.len() {
                is_chosen[v] = true;
            }
        }
        true
    }

    /// Whether the value of `i` depends, through bindings, on a parameter with `fixed = false`
    /// (JointRRR's `n_b`, computed by an initial equation): that value is known only after
    /// initialization, so evaluating now would take its start value and give a wrong answer;
    /// such a parameter stays symbolic.
    fn reads_initialized_parameter(&self, i: InstId, model: &FlatModel) -> bool {
        let mut stack: Vec<usize> = self.var_range(i).collect();
        let mut seen: std::collections::HashSet<usize> = stack.iter().copied().collect();
        while let Some(v) = stack.pop() {
            let Some(var) = model.variables.get(v) else {
                continue;
            };
            if var.variability == Variability::Parameter && var.fixed == Some(false) {
                return true;
            }
            if let Some(b) = &var.binding {
                b.visit(&mut |e| {
                    if let Expr::Var(x) = e
                        && seen.insert(*x)
                    {
                        stack.push(*x);
                    }
                });
            }
        }
        false
    }

    /// Whether every scalar of `i` has a binding that reads evaluated parameters and nothing
    /// else that varies (at least one of them).
    fn bound_to_chosen(&self, i: InstId, model: &FlatModel, is_chosen: &[bool]) -> bool {
        self.var_range(i).all(|v| {
            let Some(b) = model.variables.get(v).and_then(|x| x.binding.as_ref()) else {
                return false;
            };
            let (mut reads, mut others) = (false, false);
            b.visit(&mut |e| match e {
                Expr::Var(x) if is_chosen.get(*x) == Some(&true) => reads = true,
                Expr::Var(_) | Expr::Time => others = true,
                _ => {}
            });
            reads && !others
        })
    }

    /// Whether `i` is to be evaluated by `annotation(Evaluate = ...)`: MLS 18.3 applies the
    /// annotation of a hierarchical component to all its components, overriding their own
    /// setting, so the outermost enclosing declaration that has one decides. A record
    /// parameter `parameter R p = f(...) annotation(Evaluate = true)` thereby evaluates each
    /// field of `p` (the Spice3 transistors' model-line records), whose fields' own
    /// declarations in the record class carry no annotation.
    fn has_evaluate_annotation(&self, i: InstId) -> bool {
        let mut decided = None;
        let mut at = Some(i);
        while let Some(k) = at {
            if let Some(v) = self.insts[k]
                .elem
                .as_ref()
                .and_then(|e| evaluate_setting(e.decl()))
            {
                decided = Some(v);
            }
            at = self.insts[k].parent;
        }
        decided == Some(true)
    }
}

/// The literal value of `annotation(Evaluate = true/false)` on a declaration, if it has one.
fn evaluate_setting(decl: &ast::ComponentDecl) -> Option<bool> {
    let ann = decl.comment.annotation.as_ref()?;
    ann.modification.args.iter().find_map(|a| match a {
        ast::Argument::Modify {
            name,
            modification: Some(ast::Modification::Binding { expr, .. }),
            ..
        } if name.parts.len() == 1 && name.parts[0].name == "Evaluate" => match expr.kind {
            ast::ExprKind::Boolean(b) => Some(b),
            _ => None,
        },
        _ => None,
    })
}
