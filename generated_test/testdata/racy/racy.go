// Package racy holds kernels whose iterations conflict through memory,
// which the dependence check rejects; the tests lower them without it to
// show that the CPU race mode finds the conflicts under go test -race.
package racy

import "github.com/qdgo/qd"

//qd:kernel
func Sum(out, x []float32) {
	for i := range x {
		out[0] += x[i]
	}
}

//qd:kernel
func Histogram(data []byte, bins []uint32) {
	for _, b := range data {
		bins[b]++
	}
}

//qd:kernel
func PrefixSum(x []float32) {
	for i := 1; i < len(x); i++ {
		x[i] += x[i-1]
	}
}

// Scale is race-free, so the race mode must stay quiet on it.
//
//qd:kernel
func Scale(out, x []float32) {
	for i := range x {
		out[i] = x[i] * 2
	}
}

// ThreadWrite's threads all write one element of out in one thread loop.
//
//qd:kernel
func ThreadWrite(out, x []float32) {
	for b := range qd.Blocks(len(x) / 64) {
		for t := range qd.Threads(64) {
			out[b] = x[b*64+t]
		}
	}
}

// SharedWrite's threads all write one element of a block's shared array.
//
//qd:kernel
func SharedWrite(out, x []float32) {
	for b := range qd.Blocks(len(x) / 64) {
		var s [64]float32
		for t := range qd.Threads(64) {
			s[0] = x[b*64+t]
		}
		for t := range qd.Threads(64) {
			out[b*64+t] = s[0]
		}
	}
}

// Reversed is race-free: its thread loops are ordered by their barrier.
//
//qd:kernel
func Reversed(out, x []float32) {
	for b := range qd.Blocks(len(x) / 64) {
		var s [64]float32
		for t := range qd.Threads(64) {
			s[t] = x[b*64+t]
		}
		for t := range qd.Threads(64) {
			out[b*64+t] = s[63-t]
		}
	}
}
