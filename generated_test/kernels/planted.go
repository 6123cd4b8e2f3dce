package kernels

// PlantedWrite writes x[i+at] for each i of x with its bounds check left
// out (nobounds): with at past the end of x it writes outside the buffer,
// which the PTX's line information lets compute-sanitizer report at this
// file and line (TestSanitizerNamesGoLine).
//
//qd:kernel nobounds
func PlantedWrite(x []float32, at int) {
	for i := range x {
		x[i+at] = float32(i)
	}
}
