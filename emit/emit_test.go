package emit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower/lowertest"
	"github.com/qdgo/qd/opt"
	"github.com/qdgo/qd/rt/rtimpl"
)

func testKernels(t *testing.T) []*ir.Kernel {
	var kernels []*ir.Kernel
	for _, f := range lowertest.Load(t, "../lower/testdata/src/kernels") {
		kernels = append(kernels, f.Kernels...)
	}
	return kernels
}

// TestCompileKeepsInput checks that each backend compiles a copy.
func TestCompileKeepsInput(t *testing.T) {
	kernels := testKernels(t)
	var before []string
	for _, k := range kernels {
		before = append(before, k.String())
	}
	dropAll := Backend{Name: "none", Kind: rtimpl.ImagePTX, Emit: func([]*ir.Kernel) string { return "" },
		Pipeline: opt.Pipeline{{Name: "dropall", Kernel: func(k *ir.Kernel) { k.Tasks = nil }}}}
	if _, err := dropAll.Compile(kernels); err != nil {
		t.Fatal(err)
	}
	for i, k := range kernels {
		if k.String() != before[i] {
			t.Errorf("compiling changed kernel %s", k.Name)
		}
	}
}

// TestAddBackend shows what a backend is: a name, the kind of image it
// makes, its passes and its emitter. Every backend compiles every kernel;
// backends must agree on the launches.
func TestAddBackend(t *testing.T) {
	kernels := testKernels(t)
	names := Backend{Name: "names", Kind: rtimpl.ImagePTX, Pipeline: opt.Default, Emit: func(ks []*ir.Kernel) string {
		var entries []string
		for _, k := range ks {
			for _, task := range k.Tasks {
				entries = append(entries, task.Name)
			}
		}
		return strings.Join(entries, "\n")
	}}
	outs, err := CompileAll(append(slices.Clone(Backends), names), kernels)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != len(Backends)+1 || !strings.Contains(outs[len(Backends)].Image.Data, kernels[0].Tasks[0].Name) {
		t.Fatalf("outputs %v", outs)
	}
	if !strings.Contains(outs[0].Image.Data, ".entry "+kernels[0].Tasks[0].Name+"(") {
		t.Errorf("the PTX backend's image:\n%s", outs[0].Image.Data)
	}

	names.Pipeline = opt.Pipeline{{Name: "dropall", Kernel: func(k *ir.Kernel) { k.Tasks = nil }}}
	_, err = CompileAll(append(slices.Clone(Backends), names), kernels)
	var e *Error
	if !errors.As(err, &e) || e.Backend != "names" || !strings.Contains(err.Error(), "other launches than backend ptx's") {
		t.Errorf("backends with different launches: %v", err)
	}
}
