//! Sparse LU for large algebraic blocks, with the symbolic factorization done once.
//!
//! The pattern of a block's Jacobian is known from the program structure (union of both branches
//! of every `if`), so the fill-reducing column order and the elimination structure are computed
//! once; each evaluation only refactors numerically (faer, partial pivoting within the pattern).
//! The vehicle's block of accelerations and constraint forces has a few hundred unknowns and a
//! few entries per row: a dense LU of it costs milliseconds, this one microseconds.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{LuRef, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// A square sparse matrix pattern in compressed columns, with the LU factorization state.
pub struct SparseLu {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// Values in the order of `row_idx`; filled through [`SparseLu::slot`].
    pub values: Vec<f64>,
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
    factor_scratch: MemBuffer,
    solve_scratch: MemBuffer,
    factored: bool,
}

impl std::fmt::Debug for SparseLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SparseLu(n = {}, nnz = {})", self.n, self.row_idx.len())
    }
}

impl SparseLu {
    /// The symbolic factorization of the pattern `rows[i]` = columns of row `i`. Returns `None`
    /// when the pattern is structurally singular (the dense LU then reports the column).
    pub fn new(n: usize, rows: &[Vec<usize>]) -> Option<SparseLu> {
        let mut cols: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, r) in rows.iter().enumerate() {
            for &j in r {
                cols[j].push(i);
            }
        }
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for c in &mut cols {
            c.sort_unstable();
            c.dedup();
            row_idx.extend_from_slice(c);
            col_ptr.push(row_idx.len());
        }
        let pattern = SymbolicSparseColMatRef::new_checked(n, n, &col_ptr, None, &row_idx);
        let symbolic = factorize_symbolic_lu(pattern, Default::default()).ok()?;
        let factor_scratch = MemBuffer::new(
            symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default()),
        );
        let solve_scratch = MemBuffer::new(symbolic.solve_in_place_scratch::<f64>(1, Par::Seq));
        let nnz = row_idx.len();
        Some(SparseLu {
            n,
            col_ptr,
            row_idx,
            values: vec![0.0; nnz],
            symbolic,
            numeric: NumericLu::new(),
            factor_scratch,
            solve_scratch,
            factored: false,
        })
    }

    /// Index into `values` of entry `(i, j)`, if it is in the pattern.
    pub fn slot(&self, i: usize, j: usize) -> Option<usize> {
        let (a, b) = (self.col_ptr[j], self.col_ptr[j + 1]);
        self.row_idx[a..b].binary_search(&i).ok().map(|k| a + k)
    }

    /// Factorizes the current `values`. Returns false when faer cannot (the caller falls back
    /// to the dense LU, which names the singular column).
    pub fn factor(&mut self) -> bool {
        let pattern = SymbolicSparseColMatRef::new_checked(
            self.n,
            self.n,
            &self.col_ptr,
            None,
            &self.row_idx,
        );
        let a = SparseColMatRef::new(pattern, &self.values);
        self.factored = self
            .symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                a,
                Par::Seq,
                MemStack::new(&mut self.factor_scratch),
                Default::default(),
            )
            .is_ok();
        self.factored
    }

    /// Solves `A x = b` in place with the last factorization.
    pub fn solve(&mut self, b: &mut [f64]) {
        if !self.factored {
            b.iter_mut().for_each(|x| *x = f64::NAN);
            return;
        }
        let lu = LuRef::new_unchecked(&self.symbolic, &self.numeric);
        let rhs = MatMut::from_column_major_slice_mut(&mut b[..self.n], self.n, 1);
        lu.solve_in_place_with_conj(
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut self.solve_scratch),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_lu_solves_a_system_that_needs_pivoting() {
        // [[0, 2, 1], [1, 1, 0], [3, 0, 1]]: the zero on the diagonal needs a row exchange.
        let a = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]];
        let rows: Vec<Vec<usize>> = a
            .iter()
            .map(|r| (0..3).filter(|&j| r[j] != 0.0).collect())
            .collect();
        let mut lu = SparseLu::new(3, &rows).unwrap();
        for (i, r) in a.iter().enumerate() {
            for (j, &x) in r.iter().enumerate() {
                if let Some(s) = lu.slot(i, j) {
                    lu.values[s] = x;
                }
            }
        }
        assert!(lu.factor());
        let x_true = [1.0, 2.0, 3.0];
        let mut b: Vec<f64> = a
            .iter()
            .map(|r| (0..3).map(|j| r[j] * x_true[j]).sum())
            .collect();
        lu.solve(&mut b);
        for i in 0..3 {
            assert!((b[i] - x_true[i]).abs() < 1e-13, "{b:?}");
        }
    }
}
