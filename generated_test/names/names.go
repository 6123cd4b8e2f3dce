// Package names has kernels whose names are not ASCII, which device code
// spells with escapes, and kernels at the limit of the arguments a launch
// can pass.
package names

//go:generate go tool qdgen

// Größe doubles the elements of ä.
//
//qd:kernel
func Größe(ä []float32, faktor float32) {
	for i := range ä {
		ä[i] *= faktor
	}
	ä[0] += 1
}

// Ω数 counts.
//
//qd:kernel
func Ω数(s []int32) {
	for i := range s {
		s[i] = int32(i)
	}
}
