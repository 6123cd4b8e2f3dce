package kernels

// Sum adds the elements of x into out[0]: a float reduction, deterministic
// for a launch configuration.
//
//qd:kernel
func Sum(x, out []float32) {
	var sum float32
	for i := range x {
		sum += x[i]
	}
	out[0] = sum
}
