package qd

// Block-level kernels give a kernel the GPU's block of threads: memory the
// threads of a block share, and steps that all of them finish before any
// begins the next. They stay plain Go whose serial meaning the GPU
// reproduces:
//
//	for b := range qd.Blocks(n / 256) {     // one iteration per block
//		var v [256]int32                     // one array per block: shared memory
//		for t := range qd.Threads(256) {     // one iteration per thread of the block
//			v[t] = x[b*256+t]
//		}                                    // every thread is done before the next step
//		qd.InclusiveScan(v[:])               // a block-wide prefix sum
//		for t := range qd.Threads(256) {
//			y[b*256+t] = v[t]
//		}
//	}
//
// Run as Go, each thread loop finishes before the next statement begins,
// which is what a barrier guarantees on the GPU. The kernel-language
// reference (docs/language.md) gives the rules.

// Blocks returns n. As the range of a kernel's top-level loop,
//
//	for b := range qd.Blocks(nb) { ... }
//
// it makes each iteration one block of GPU threads, whose thread loops
// (Threads) run the block's threads. Two nested Blocks loops make a 2-D
// grid of blocks, the inner loop's index varying fastest.
func Blocks(n int) int { return n }

// Threads returns n. As the range of a loop directly inside a Blocks
// loop's body (or inside a serial loop there),
//
//	for t := range qd.Threads(256) { ... }
//
// it runs one iteration on each of the block's threads; n must be a
// constant. The loop ends with a barrier: every thread finishes its
// iteration before any thread goes on. Two nested Threads loops make a
// 2-D block of threads, the inner loop's index varying fastest. The
// iterations of one thread loop must not write what another iteration
// of it reads or writes, as with a kernel's parallel loops.
func Threads(n int) int { return n }

// InclusiveScan replaces each v[i] by v[0] + ... + v[i]. In a Blocks
// loop, with v a block's array of one element per thread, it is a
// block-wide scan that runs on the threads together (warp shuffles and
// shared memory). Integer results are exact; a float scan adds in another
// order than Go's and may round differently.
func InclusiveScan[T Number](v []T) {
	for i := 1; i < len(v); i++ {
		v[i] += v[i-1]
	}
}

// ExclusiveScan replaces each v[i] by v[0] + ... + v[i-1], and v[0] by 0,
// and returns the sum of all of v. In a Blocks loop it runs as
// InclusiveScan does.
func ExclusiveScan[T Number](v []T) (total T) {
	for i := range v {
		v[i], total = total, total+v[i]
	}
	return total
}

// Sum returns v[0] + ... + v[len(v)-1]. In a Blocks loop, with v a block's
// array of one element per thread, it is a block-wide reduction, and a
// float sum may round differently from Go's left-to-right order.
func Sum[T Number](v []T) T {
	var s T
	for _, x := range v {
		s += x
	}
	return s
}
