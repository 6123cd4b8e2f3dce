package opt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
)

// TestPassGoldens runs each pass of Default and PTX alone on the inputs in
// testdata/<pass>/X.ir and compares the IR after it with X.out.ir;
// go test ./opt -update rewrites those. Every pass needs an input.
func TestPassGoldens(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := PTX.Lookup(d.Name()); !ok {
			t.Errorf("testdata/%s: no pass of that name in Default or PTX", d.Name())
		}
	}
	tested := map[string]bool{}
	for _, pass := range PTX {
		if tested[pass.Name] {
			continue
		}
		tested[pass.Name] = true
		inputs, _ := filepath.Glob(filepath.Join("testdata", pass.Name, "*.ir"))
		n := 0
		for _, input := range inputs {
			if strings.HasSuffix(input, ".out.ir") {
				continue
			}
			n++
			t.Run(pass.Name+"/"+filepath.Base(input), func(t *testing.T) {
				checkPass(t, pass, input)
			})
		}
		if n == 0 {
			t.Errorf("pass %s has no golden test: add testdata/%s/X.ir and run go test ./opt -update", pass.Name, pass.Name)
		}
	}
}

func checkPass(t *testing.T, pass Pass, input string) {
	text, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ir.Parse(string(text))
	if err != nil {
		t.Fatalf("%s:%v", input, err)
	}
	for _, k := range ks {
		if err := k.Check(); err != nil {
			t.Fatalf("%s: the input is not valid IR: %v", input, err)
		}
		if err := (Pipeline{pass}).Run(k); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, strings.TrimSuffix(input, ".ir")+".out.ir", ir.FormatKernels(ks))
}
