package main

//go:generate go tool qdgen

// JacobiRows sets each inner point of rows [lo, hi) of next to the average
// of its four neighbours in u; both are grids nx points wide. Columns 0
// and nx-1 are boundary and left as they are.
//
//qd:kernel
func JacobiRows(u, next []float32, nx, lo, hi int) {
	w := nx - 2
	for i := range (hi - lo) * w {
		p := (lo+i/w)*nx + 1 + i%w
		next[p] = 0.25 * (u[p-nx] + u[p+nx] + u[p-1] + u[p+1])
	}
}

// Change sets out[0] to the largest change of an inner point of rows
// [lo, hi) between u and next. It is a max reduction, which the GPU's
// threads combine in any order: the largest value is the same in every
// order, so the residual does not depend on how the grid is split.
//
//qd:kernel
func Change(u, next, out []float32, nx, lo, hi int) {
	w := nx - 2
	m := float32(0)
	for i := range (hi - lo) * w {
		p := (lo+i/w)*nx + 1 + i%w
		d := next[p] - u[p]
		m = max(m, d, -d)
	}
	out[0] = m
}
