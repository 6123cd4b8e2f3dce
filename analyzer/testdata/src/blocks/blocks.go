// Package blocks holds the diagnostics of block-level kernels: loops over
// qd.Blocks and qd.Threads that break their rules are reported where they
// do, and the kernels without a want comment must stay accepted.
package blocks

import "github.com/qdgo/qd"

//qd:kernel
func Good(out, in []float32) {
	for b := range qd.Blocks(len(in) / 64) {
		var s [64]float32
		var acc [64]float32
		for t := range qd.Threads(64) {
			s[t] = in[b*64+t]
			acc[t] = 2 * s[t]
		}
		for t := range qd.Threads(64) {
			out[b*64+t] = s[63-t] + acc[t]
		}
	}
}

//qd:kernel
func ThreadsAtTop(out []float32) {
	for t := range qd.Threads(64) { // want `qd.Threads must be the range of a loop in the body of a qd.Blocks loop: for t := range qd.Threads\(256\)`
		out[t] = 1
	}
}

//qd:kernel
func VariableThreads(out []float32, n int) {
	for b := range qd.Blocks(len(out) / n) {
		for t := range qd.Threads(n) { // want `qd.Threads needs a constant number of threads, which the block's size is made from: write a constant`
			out[b*n+t] = 1
		}
	}
}

//qd:kernel
func TooManyThreads(out []float32) {
	for b := range qd.Blocks(len(out) / 2048) {
		for t := range qd.Threads(2048) { // want `qd.Threads\(2048\): a block has 1 to 1024 threads`
			out[b*2048+t] = 1
		}
	}
}

//qd:kernel
func Nested(out []float32) {
	for b := range qd.Blocks(len(out) / 64) {
		for t := range qd.Threads(64) {
			if t > 0 {
				for u := range qd.Threads(64) { // want `a thread loop inside a thread loop: the outer loop's iterations are already threads; for a 2-D block of threads make the inner loop the only statement of the outer one`
					out[b*64+u] = 1
				}
			}
		}
	}
}

//qd:kernel
func StoreOutside(out []float32) {
	for b := range qd.Blocks(len(out) / 64) {
		out[b] = 0 // want `this statement writes memory in a qd.Blocks loop but outside its thread loops, where every thread of the block would run it: write in a thread loop`
		for t := range qd.Threads(64) {
			out[b*64+t] += 1
		}
	}
}

//qd:kernel
func TooMuchShared(out []float32) {
	for b := range qd.Blocks(len(out) / 256) { // want `the variables of this qd.Blocks loop's body take 65536 bytes of shared memory, more than the 49152 bytes a block may have on every GPU`
		var big [256][64]float32
		for t := range qd.Threads(256) {
			big[t][t%64] = 1
			big[(t+1)%256][0] = 2
			out[b*256+t] = big[t][0]
		}
	}
}

//qd:kernel
func SameElement(out, in []float32) {
	for b := range qd.Blocks(len(in) / 64) {
		for t := range qd.Threads(64) {
			out[b] = in[b*64+t] // want `every iteration of this thread loop writes out\[b\]: iterations run at the same time`
		}
	}
}

//qd:kernel
func Breaks(out []float32) {
	for b := range qd.Blocks(len(out) / 64) {
		for t := range qd.Threads(64) {
			if out[b*64+t] > 0 {
				break // want `break in a thread loop is not supported: the block's threads run its iterations at the same time; skip the rest of an iteration with continue instead`
			}
			out[b*64+t] = 1
		}
	}
}

//qd:kernel
func NoThreads(out []float32) {
	for b := range qd.Blocks(len(out)) { // want `this qd.Blocks loop has no thread loop: its blocks' threads run only in loops over qd.Threads\(n\) in its body`
		out[b] = 1
	}
}

//qd:kernel
func BlocksInside(out []float32) {
	if len(out) > 0 {
		for b := range qd.Blocks(len(out)) { // want `this loop runs serially, on one GPU thread` `qd.Blocks must be the range of a top-level loop of a kernel`
			out[b] = 1
		}
	}
}

//qd:kernel
func Carried(out, in []float32) {
	for b := range qd.Blocks(len(in) / 64) {
		var s float32
		for t := range qd.Threads(64) { // want `this thread loop combines a variable over its iterations, which are the block's threads running at the same time: keep a value per thread in an array indexed by the thread \(v\[t\]\) and combine them with qd.Sum after the loop`
			s += in[b*64+t]
		}
		for t := range qd.Threads(1) {
			out[b+t] = s
		}
	}
}

//qd:kernel
func Collectives(out []int32) {
	for b := range qd.Blocks(len(out) / 64) {
		var v [64]int32
		for t := range qd.Threads(64) {
			v[t] = out[b*64+t]
			_ = qd.Sum(v[:]) // want `qd.Sum in a kernel is a step of a whole block: call it in the body of a qd.Blocks loop, outside its thread loops`
		}
		qd.InclusiveScan(v[:])
		for t := range qd.Threads(64) {
			out[b*64+t] = v[t]
		}
	}
}

//qd:kernel
func SumOutside(out []int32) {
	out[0] = qd.Sum(out) // want `qd.Sum in a kernel is a step of a whole block`
}
