package rt

import (
	"strings"
	"testing"
)

// TestElementTypes checks which element types buffers accept: plain data,
// not pointers, and that the error names the part that is not.
func TestElementTypes(t *testing.T) {
	type point struct {
		X, Y float32
		On   bool
		Hist [3]complex64
	}
	type named struct {
		N    int
		Name string
	}
	type nested struct {
		Inner [2]struct{ P *int }
	}
	d := cpu(t)
	ps, err := FromSlice(d, []point{{X: 1, Hist: [3]complex64{2i}}})
	if err != nil {
		t.Fatalf("a buffer of plain structs: %v", err)
	}
	if got, _ := ps.Read(); got[0].Hist[0] != 2i {
		t.Errorf("read back %v", got)
	}
	if _, err := Alloc[named](d, 1); err == nil || !strings.Contains(err.Error(), "field Name has type string") {
		t.Errorf("a struct with a string: %v", err)
	}
	if _, err := Alloc[nested](d, 1); err == nil || !strings.Contains(err.Error(), "field P of element of field Inner has type *int") {
		t.Errorf("a nested pointer: %v", err)
	}
	if _, err := AllocHost[*float32](d, 1); err == nil || !strings.Contains(err.Error(), "it has type *float32") {
		t.Errorf("a host buffer of pointers: %v", err)
	}
	// Slices, maps and functions, and what holds them, are not comparable:
	// Alloc[[]float32] does not compile.
}
