// Package serial holds loops that run on one GPU thread although they
// look parallel: inside a top-level if or switch they are warned about,
// with the way to keep them parallel; inside other statements they are
// only noted (qdgen -v), and nothing is said of loops with the test inside.
package serial

//qd:kernel
func InsideIf(out []float32, on bool) {
	if on {
		for i := range out { // want `this loop runs serially, on one GPU thread, because it is inside an if statement: only loops that are statements of the kernel's body run in parallel; put the test inside the loop instead \(for i := range n \{ if cond \{ \.\.\. \} \}\), which keeps the loop parallel`
			out[i] = 1
		}
	}
}

//qd:kernel
func InsideElse(out []float32, on bool) {
	if on {
		out[0] = 1
	} else {
		for i := range out { // want `because it is inside an if statement`
			out[i] = 2
		}
	}
}

//qd:kernel
func InsideSwitch(out []int32, mode int) {
	switch mode {
	case 1:
		for i := range out { // want `this loop runs serially, on one GPU thread, because it is inside a switch statement`
			out[i] = int32(i)
		}
	}
}

// The test inside the loop keeps it parallel.
//
//qd:kernel
func TestInside(out []float32, on bool) {
	for i := range out {
		if on {
			out[i] = 1
		}
	}
}

// A loop in a block statement is only noted.
//
//qd:kernel
func InsideBlock(out []float32) {
	{
		for i := range out {
			out[i] = 1
		}
	}
}
