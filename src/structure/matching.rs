//! Maximum bipartite matching by augmenting paths (MC21 with look-ahead), iterative.
//!
//! Equations are tried in index order and neighbours in adjacency order, so the matching is
//! deterministic. The depth-first search keeps its own stack (long chains of 80k equations
//! would overflow the call stack) and marks visits with a stamp instead of clearing arrays, so
//! a failed search costs only what it visits. A failed search leaves the visited ("coloured")
//! equations and variables available: Pantelides differentiates exactly those.

use crate::dae::VarId;

#[derive(Clone, Debug, Default)]
pub struct Matching {
    /// `eq_of_var[v]`: the equation matched to variable `v`.
    pub eq_of_var: Vec<Option<usize>>,
    /// `var_of_eq[e]`: the variable matched to equation `e`.
    pub var_of_eq: Vec<Option<VarId>>,
}

impl Matching {
    pub fn new(n_eqs: usize, n_vars: usize) -> Matching {
        Matching {
            eq_of_var: vec![None; n_vars],
            var_of_eq: vec![None; n_eqs],
        }
    }
    pub fn grow(&mut self, n_eqs: usize, n_vars: usize) {
        if self.var_of_eq.len() < n_eqs {
            self.var_of_eq.resize(n_eqs, None);
        }
        if self.eq_of_var.len() < n_vars {
            self.eq_of_var.resize(n_vars, None);
        }
    }
    pub fn set(&mut self, e: usize, v: VarId) {
        self.var_of_eq[e] = Some(v);
        self.eq_of_var[v] = Some(e);
    }
    pub fn size(&self) -> usize {
        self.var_of_eq.iter().filter(|v| v.is_some()).count()
    }
}

/// Reusable search state.
#[derive(Default)]
pub struct Augmenter {
    eq_stamp: Vec<u32>,
    var_stamp: Vec<u32>,
    stamp: u32,
    stack: Vec<(usize, usize)>,
    path: Vec<VarId>,
    /// Equations visited by the last search.
    pub colored_eqs: Vec<usize>,
    /// Variables visited by the last search.
    pub colored_vars: Vec<VarId>,
}

impl Augmenter {
    /// Tries to match equation `start`, re-matching others along an augmenting path.
    pub fn augment(
        &mut self,
        adj: &[Vec<VarId>],
        allowed: &impl Fn(VarId) -> bool,
        m: &mut Matching,
        start: usize,
    ) -> bool {
        let n_vars = m.eq_of_var.len();
        if self.eq_stamp.len() < adj.len() {
            self.eq_stamp.resize(adj.len(), 0);
        }
        if self.var_stamp.len() < n_vars {
            self.var_stamp.resize(n_vars, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.eq_stamp.iter_mut().for_each(|s| *s = 0);
            self.var_stamp.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.colored_eqs.clear();
        self.colored_vars.clear();
        self.stack.clear();
        self.path.clear();
        self.stack.push((start, 0));
        self.eq_stamp[start] = stamp;
        self.colored_eqs.push(start);
        while let Some(&(e, pos)) = self.stack.last() {
            if pos == 0 {
                // Look-ahead: a free neighbour ends the search at once.
                if let Some(&v) = adj[e]
                    .iter()
                    .find(|&&v| allowed(v) && m.eq_of_var[v].is_none())
                {
                    if self.var_stamp[v] != stamp {
                        self.var_stamp[v] = stamp;
                        self.colored_vars.push(v);
                    }
                    self.finish(m, e, v);
                    return true;
                }
            }
            let mut next = None;
            let mut p = pos;
            while p < adj[e].len() {
                let v = adj[e][p];
                p += 1;
                if !allowed(v) || self.var_stamp[v] == stamp {
                    continue;
                }
                self.var_stamp[v] = stamp;
                self.colored_vars.push(v);
                match m.eq_of_var[v] {
                    None => {
                        self.finish(m, e, v);
                        return true;
                    }
                    Some(e2) if self.eq_stamp[e2] != stamp => {
                        self.eq_stamp[e2] = stamp;
                        self.colored_eqs.push(e2);
                        next = Some((v, e2));
                        break;
                    }
                    Some(_) => {}
                }
            }
            if let Some(top) = self.stack.last_mut() {
                top.1 = p.max(1);
            }
            match next {
                Some((v, e2)) => {
                    self.path.push(v);
                    self.stack.push((e2, 0));
                }
                None => {
                    self.stack.pop();
                    self.path.pop();
                }
            }
        }
        false
    }

    /// Flips the matching along the stack: the top equation takes `free`, each equation below
    /// takes the variable through which the search left it.
    fn finish(&mut self, m: &mut Matching, top: usize, free: VarId) {
        m.set(top, free);
        let n = self.stack.len();
        for i in (0..n - 1).rev() {
            let e = self.stack[i].0;
            let v = self.path[i];
            m.set(e, v);
        }
    }
}

/// A maximum matching of all equations (in order) over the allowed variables.
pub fn maximum(adj: &[Vec<VarId>], n_vars: usize, allowed: &impl Fn(VarId) -> bool) -> Matching {
    let mut m = Matching::new(adj.len(), n_vars);
    let mut aug = Augmenter::default();
    for e in 0..adj.len() {
        aug.augment(adj, allowed, &mut m, e);
    }
    m
}
