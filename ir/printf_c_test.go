package ir_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
)

// verbFlags are the flags Conv accepts with each verb, for an operand of
// a signed type (an unsigned %d takes "-0").
var verbFlags = map[byte]string{'d': "-+ 0", 'x': "-0", 'X': "-0", 'o': "-0#", 'c': "-", 'e': "-+ 0", 'E': "-+ 0", 'f': "-+ 0", 't': "-"}

// randomPrint draws a format of one to four conversions with random
// flags, widths and precisions, and finite operands for it.
func randomPrint(r *rand.Rand) (ir.Print, []uint64) {
	var p ir.Print
	var args []uint64
	var b strings.Builder
	verbs := "dxXocEef t"
	for range 1 + r.IntN(4) {
		verb := verbs[r.IntN(len(verbs))]
		if verb == ' ' {
			b.WriteString("%% ")
			continue
		}
		var t ir.Type
		switch verb {
		case 'e', 'E', 'f':
			t = []ir.Type{ir.Float32, ir.Float64}[r.IntN(2)]
		case 't':
			t = ir.Bool
		default:
			t = ir.Integers.List()[r.IntN(8)]
		}
		flags := verbFlags[verb]
		if verb == 'd' && t.IsUnsigned() {
			flags = "-0"
		}
		b.WriteString("|%")
		for _, f := range flags {
			if r.IntN(3) == 0 {
				b.WriteRune(f)
			}
		}
		if r.IntN(2) == 0 {
			fmt.Fprint(&b, 1+r.IntN(24))
		}
		if verb != 'c' && verb != 't' && r.IntN(2) == 0 {
			fmt.Fprintf(&b, ".%d", r.IntN(20))
		}
		b.WriteByte(verb)
		p.Types = append(p.Types, t)
		args = append(args, randomOperand(r, t))
	}
	b.WriteString("|\n")
	p.Format = b.String()
	return p, args
}

// randomOperand draws the bits of a finite value of type t, of any size.
func randomOperand(r *rand.Rand, t ir.Type) uint64 {
	switch {
	case t == ir.Bool:
		return uint64(r.IntN(2))
	case t == ir.Float32:
		return uint64(math.Float32bits(float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))))
	case t == ir.Float64:
		return math.Float64bits(r.NormFloat64() * math.Pow(10, float64(r.IntN(80)-40)))
	}
	return t.Normalize(r.Uint64() >> r.IntN(64))
}

// cLiteral writes an operand of type t as a C expression of the type C's
// printf is passed (ir.Print.CArgTypes).
func cLiteral(t, passed ir.Type, bits uint64) string {
	switch {
	case t == ir.Bool:
		return map[bool]string{true: `"true"`, false: `"false"`}[bits != 0]
	case t == ir.Float32:
		return fmt.Sprintf("%x", float64(math.Float32frombits(uint32(bits))))
	case t == ir.Float64:
		return fmt.Sprintf("%x", math.Float64frombits(bits))
	}
	v := t.Normalize(bits)
	switch passed {
	case ir.Int64:
		return fmt.Sprintf("(long long)%dULL", v)
	case ir.Uint64:
		return fmt.Sprintf("%dULL", v)
	case ir.Int32:
		return fmt.Sprintf("(int)%dLL", int64(v))
	}
	return fmt.Sprintf("(unsigned)%dULL", v)
}

// TestPrintAgreesWithC writes 5000 random formats with their operands as
// the interpreter does and as the host's C printf does, given the format
// and arguments the emitters pass (CFormat, CArgTypes): the text must be
// the same. It needs a C compiler.
func TestPrintAgreesWithC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to compare with C's printf")
	}
	r := rand.New(rand.NewPCG(3, 4))
	var src, want strings.Builder
	src.WriteString("#include <stdio.h>\nint main(void) {\n")
	for range 5000 {
		p, args := randomPrint(r)
		if err := (&ir.Kernel{Name: "K", Prints: []ir.Print{p}, Tasks: []*ir.Task{{Name: "K_0", Blocks: []*ir.Block{{}}}}}).Check(); err != nil {
			t.Fatalf("a random format does not check: %v", err)
		}
		if err := p.Write(&want, args); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&src, "\tprintf(%q", p.CFormat()) // Go's quoting is C's for these bytes
		for i, c := range p.CArgTypes() {
			fmt.Fprintf(&src, ", %s", cLiteral(p.Types[i], c, args[i]))
		}
		src.WriteString(");\n")
	}
	src.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.c"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-w", "-o", filepath.Join(dir, "p"), filepath.Join(dir, "p.c")).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "p")).Output()
	if err != nil {
		t.Fatal(err)
	}
	got, wantLines := strings.Split(string(out), "\n"), strings.Split(want.String(), "\n")
	if len(got) != len(wantLines) {
		t.Fatalf("C printed %d lines, the interpreter %d", len(got), len(wantLines))
	}
	for i := range got {
		if got[i] != wantLines[i] {
			t.Errorf("line %d: C printed %q, the interpreter %q", i, got[i], wantLines[i])
		}
	}
}
