package endless

import "github.com/qdgo/qd"

// Loops that can never end are reported where they start; loops that may
// end are not.

//qd:kernel
func AfterLoop(a []float32) {
	for i := range a {
		a[i] = 1
	}
	for { // want `this loop never ends: it has no condition and no break or return`
	}
}

//qd:kernel
func InParallelLoop(a []float32) {
	for i := range a {
		a[i] = 1
		for { // want `this loop never ends`
			a[i]++
		}
	}
}

//qd:kernel
func InHelper(a []int32, n int) {
	a[0] = spin(n)
}

func spin(n int) int32 {
outer:
	for { // want `this loop never ends`
		for { // continue outer leaves this loop, not the outer one
			n++
			if n > 10 {
				continue outer
			}
			for {
				break // leaves only the loop it is in
			}
		}
	}
}

//qd:kernel
func InBlock(a []int32) {
	qd.StreamParallel(func() {
		for { // want `this loop never ends`
			a[0]++
		}
	})
}

//qd:kernel
func Ending(a []int32, n int) {
	a[0] = leave(n) + ret(n) + loops(a)
}

func loops(a []int32) int32 {
	for {
		if a[0] > 3 {
			break
		}
		a[0]++
	}
outer:
	for {
		switch {
		case a[1] > 3:
			break outer
		}
		a[1]++
	}
	return a[0]
}
func leave(n int) int32 {
outer:
	for {
		for {
			n++
			if n > 10 {
				break outer
			}
		}
	}
	return int32(n)
}

func ret(n int) int32 {
	for {
		switch {
		case n > 10:
			return int32(n)
		}
		n++
	}
}
