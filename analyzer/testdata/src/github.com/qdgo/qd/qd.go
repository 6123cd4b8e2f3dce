// Package qd turns ordinary Go functions into GPU kernels.
//
// Mark a function with a //qd:kernel line in its doc comment and run
// go generate with qdgen in the package:
//
//	//go:generate go run github.com/qdgo/qd/cmd/qdgen
//
//	//qd:kernel
//	func Saxpy(a float32, x, y []float32, n int) {
//		for i := range n {
//			y[i] = a*x[i] + y[i]
//		}
//	}
//
// qdgen compiles the kernels of the package for the GPU and writes typed
// launch stubs next to them: a Kernels type, created by Load, with one
// method per kernel that takes device buffers (rt.Buffer) for slice
// parameters, values for scalars, and launch options last:
//
//	dev, _ := rt.Open()
//	ks, _ := Load(dev)
//	x, _ := rt.FromSlice(dev, xs)
//	y, _ := rt.FromSlice(dev, ys)
//	err := ks.Saxpy(2, x, y, len(xs))
//
// A kernel's top-level loops run in parallel: each iteration on a GPU
// thread. Everything else runs as written, and a function called directly
// is plain Go: on the CPU backend the stub calls it, and tests compare GPU
// results with it.
//
// This package holds what kernel code itself calls. Called as plain Go,
// each of these functions simply runs its argument.
package qd

// StreamParallel runs f. In a kernel, consecutive StreamParallel blocks
// run concurrently on the GPU, each on its own stream, and all of them
// finish before the kernel's next statement runs.
func StreamParallel(f func()) { f() }
