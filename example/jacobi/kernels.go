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

// RowChange sets change[i] to the largest change of a point of row lo+i
// between u and next.
//
//qd:kernel
func RowChange(u, next, change []float32, nx, lo, hi int) {
	for i := range hi - lo {
		m := float32(0)
		for c := 1; c < nx-1; c++ {
			p := (lo+i)*nx + c
			d := next[p] - u[p]
			if d < 0 {
				d = -d
			}
			if d > m {
				m = d
			}
		}
		change[i] = m
	}
}

// ChunkMax sets part[i] to the largest of the n values of xs in chunk i,
// xs[i*chunk] up to chunk values on: the first level of the residual's
// reduction, a thread per chunk, so that MaxOf then reads one value per
// chunk rather than one per row.
//
//qd:kernel
func ChunkMax(xs, part []float32, n, chunk int) {
	for i := range (n + chunk - 1) / chunk {
		end := (i + 1) * chunk
		if end > n {
			end = n
		}
		m := float32(0)
		for j := i * chunk; j < end; j++ {
			if xs[j] > m {
				m = xs[j]
			}
		}
		part[i] = m
	}
}

// MaxOf sets out[0] to the largest of the n values of xs. The largest
// value does not depend on the order it is found in, so the residual is
// the same however the grid is split.
//
//qd:kernel
func MaxOf(xs, out []float32, n int) {
	for range 1 {
		m := float32(0)
		for j := 0; j < n; j++ {
			if xs[j] > m {
				m = xs[j]
			}
		}
		out[0] = m
	}
}
