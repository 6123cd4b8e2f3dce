// Package nilptr holds kernels with nil pointers. Go faults where one is
// dereferenced; a kernel's pointer points to a variable or to an element
// of a slice or table, so qd rejects a nil pointer where the kernel first
// reads it, before it could run.
package nilptr

type P struct{ X, Y float32 }

//qd:kernel
func Deref(out []int) {
	for i := range out {
		var p *int
		out[i] = *p // want `nil pointers are not supported in kernels: a pointer in a kernel points to a variable or to an element of a slice or table`
	}
}

//qd:kernel
func Field(ps []P) {
	for i := range ps {
		var p *P
		p.X = ps[i].Y // want `nil pointers are not supported`
	}
}

// A nil merged into a pointer on one path is reported where the merged
// pointer is read.
//
//qd:kernel
func MaybeNil(a []float32, c bool) {
	for i := range a {
		p := &a[i]
		if c {
			p = nil
		}
		*p = 1 // want `nil pointers are not supported`
	}
}

//qd:kernel
func Method(ps []P) {
	for i := range ps {
		var p *P
		ps[i].X = p.Get() // want `nil pointers are not supported`
	}
}

func (p *P) Get() float32 { return p.X } // want Get:`qd: callable from kernels`

//qd:kernel
func Compare(a []float32) {
	for i := range a {
		p := &a[i]
		if p != nil { // want `operator != on \*float32 is not supported in kernels: pointers are not supported`
			*p = 1
		}
	}
}
