// Package qd turns ordinary Go functions into GPU kernels.
//
// Mark a function with a //qd:kernel line in its doc comment and run
// qdgen, a tool of your module (docs/own-module.md): go tool qdgen ./...
// for every package of the module at once, or go generate with
//
//	//go:generate go tool qdgen
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
// This package holds what kernel code itself calls: StreamParallel, and
// atomics for every numeric type (AtomicAdd, AtomicMin, AtomicMax), beside
// sync/atomic's. Called as plain Go they do what they do in a kernel:
// StreamParallel runs its argument, and the atomics update memory in one
// indivisible step.
package qd

import "github.com/qdgo/qd/internal/blocks"

// StreamParallel runs f. As a top-level statement of a kernel,
//
//	qd.StreamParallel(func() {
//		for i := range n {
//			a[i] = computeA(i)
//		}
//	})
//
// it makes f a block: consecutive blocks form a group, and the blocks of a
// group run at the same time on the GPU, each on a stream of its own, forked
// from and joined back into the stream the kernel was launched on. Loops in
// one block run in order on its stream. A plain statement between blocks
// ends a group: it runs after the group has joined, and the next group
// forks after it. Fork and join happen on the GPU with events; the host
// never waits.
//
// Blocks of one group must not write what another reads or writes; the
// analyzer reports such races. Called as plain Go, or on the CPU backend,
// StreamParallel just calls f, so blocks run one after the other in program
// order (rt.RunBlocksConcurrently runs them as goroutines instead, to
// expose dependencies under the race detector).
func StreamParallel(f func()) {
	if !blocks.Block(f) {
		f()
	}
}
