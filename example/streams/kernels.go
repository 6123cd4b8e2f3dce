package main

//go:generate go tool qdgen

// Add writes a+b into c.
//
//qd:kernel
func Add(a, b, c []float32) {
	for i := range c {
		c[i] = a[i] + b[i]
	}
}

// Produce fills a with v, after a delay that makes ordering mistakes show.
//
//qd:kernel
func Produce(a []float32, v float32, delay int) {
	for i := range a {
		x := int64(i)
		for range delay {
			x = (1664525*x + 1013904223) % 2147483647
		}
		a[i] = v
		if x < 0 { // never true, but the GPU compiler cannot know: the delay stays
			a[i] = 0
		}
	}
}

// Consume copies a into b.
//
//qd:kernel
func Consume(a, b []float32) {
	for i := range b {
		b[i] = a[i]
	}
}
