package ir_test

import (
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
)

// sharedText holds two kernels that call the same function lib$twice,
// each with its own table: the second prints the function as a reference
// to the first's, and reads it with its own table and callee.
const sharedText = `kernel A(a []i64)
data t align 8 = 0100000000000000

func lib$one() (r0 i64)
b0:
	r1 = dataaddr t
	r0 = load.i64 r1
	return

func lib$twice(r0 i64) (r1 i64)
b0:
	r2 = call lib$one()
	r3 = add.i64 r0, r2
	r1 = add.i64 r3, r2
	return

task A_0 serial
b0:
	r0 = base a
	r1 = load.i64 r0
	r2 = call lib$twice(r1)
	store.i64 r0, r2
	return

kernel B(b []i64)
data u align 8 = 0500000000000000
data t align 8 = 0200000000000000

func lib$one = A

func lib$twice = A

task B_0 serial
b0:
	r0 = base b
	r1 = load.i64 r0
	r2 = call lib$twice(r1)
	store.i64 r0, r2
	return
`

// TestSharedFunctions checks that FormatKernels prints a function the
// same as one of its name printed before as a reference to it, that Parse
// reads it again in its kernel (whose table t is another), and that the
// text survives the round trip.
func TestSharedFunctions(t *testing.T) {
	ks, err := ir.Parse(sharedText)
	if err != nil {
		t.Fatal(err)
	}
	if got := ir.FormatKernels(ks); got != sharedText {
		t.Errorf("printed:\n%s\nwant:\n%s", got, sharedText)
	}
	b := ks[1]
	if err := b.Check(); err != nil {
		t.Fatal(err)
	}
	if len(b.Funcs) != 2 || b.Funcs[1].Name != "lib$twice" {
		t.Fatalf("B has functions %v", b.Funcs)
	}
	load := b.Funcs[0].Blocks[0].Instrs[0]
	if load.Op != ir.OpDataAddr || b.Data[load.Aux].Name != "t" || load.Aux != 1 {
		t.Errorf("B's lib$one reads table %d, want B's t (1)", load.Aux)
	}
	if s := b.String(); !strings.Contains(s, "func lib$twice(r0 i64) (r1 i64)") {
		t.Errorf("B alone does not print its function in full:\n%s", s)
	}
	if _, err := ir.Parse("kernel A()\n\nfunc f = Z\n"); err == nil || !strings.Contains(err.Error(), "no kernel Z before this has a function f") {
		t.Errorf("a reference to no function: %v", err)
	}
}
