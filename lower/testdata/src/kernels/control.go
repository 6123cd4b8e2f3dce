package kernels

// Labels leaves and continues nested loops by label inside each iteration.
//
//qd:kernel
func Labels(a []int32, limit int32) {
	for i := range a {
		count := int32(0)
	outer:
		for j := int32(0); j < limit; j++ {
			for k := range 8 {
				switch {
				case int32(k) > j:
					continue outer
				case k == 5:
					break outer
				}
				count++
			}
		}
		a[i] = count
	}
}

// Phases runs serial statements between parallel loops.
//
//qd:kernel
func Phases(a []float32, n int) {
	a[0] = 1
	for i := 1; i < n; i++ {
		a[i] = float32(i) * a[0]
	}
	if n > 2 {
		a[1] = a[0] + a[2]
	}
	for i := range n / 2 {
		a[2*i] += 1
	}
}
