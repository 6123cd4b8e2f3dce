// Package racy holds kernels whose iterations conflict through memory,
// which the dependence check rejects; the tests lower them without it to
// show that the CPU race mode finds the conflicts under go test -race.
package racy

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
