package hip_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
	"github.com/qdgo/qd/lower/lowertest"
)

// TestGolden compares the HIP of the lowering's test kernels with
// testdata/<file>.hip.
func TestGolden(t *testing.T) {
	for _, f := range lowertest.Load(t, "../../lower/testdata/src/kernels") {
		golden.Check(t, filepath.Join("testdata", f.Name+".hip"), hip.Module(f.Kernels))
	}
}

// TestFromIR emits the HIP of the IR in testdata/fromir/X.ir and compares
// it with X.hip, without loading any Go package.
func TestFromIR(t *testing.T) {
	for name, ks := range fromIR(t) {
		golden.Check(t, filepath.Join("testdata", "fromir", name+".hip"), hip.Module(ks))
	}
}

// fromIR parses the kernels of testdata/fromir, by file name.
func fromIR(t *testing.T) map[string][]*ir.Kernel {
	files, _ := filepath.Glob(filepath.Join("testdata", "fromir", "*.ir"))
	if len(files) == 0 {
		t.Fatal("no testdata/fromir/*.ir")
	}
	kernels := map[string][]*ir.Kernel{}
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := ir.Parse(string(text))
		if err != nil {
			t.Fatalf("%s:%v", path, err)
		}
		for _, k := range ks {
			if err := k.Check(); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		kernels[strings.TrimSuffix(filepath.Base(path), ".ir")] = ks
	}
	return kernels
}

// TestEveryOp emits one instruction of every op, for every type it takes,
// with register and with immediate operands, so that an op without a case
// in the emitter fails here rather than in a user's kernel.
func TestEveryOp(t *testing.T) {
	for _, immediates := range []bool{false, true} {
		for _, k := range irtest.OpKernels(immediates) {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("kernel %s:\n%s\npanics: %v", k.Name, k, r)
					}
				}()
				hip.Module([]*ir.Kernel{k})
			}()
		}
	}
}

// TestCodegen checks properties of the emitted code, in the manner of the
// Go compiler's asmcheck tests: patterns a function must or must not have.
func TestCodegen(t *testing.T) {
	module := map[string]string{}
	for _, dir := range kernelDirs[:2] {
		for _, f := range lowertest.Load(t, dir) {
			module[filepath.Base(dir)+"_"+f.Name] = hip.Module(f.Kernels)
		}
	}
	for _, c := range []struct {
		module, function string
		must, never      []string
	}{
		// Division by constants becomes multiplication.
		{"kernels_basic", "Spin_0", []string{`__mul64hi\(`}, []string{`qd_div_`, `qd_rem_`, ` / `, ` % `}},
		// Signed integer arithmetic is done in unsigned types.
		{"kernels_basic", "Saxpy_0", []string{`\(u64\)r\d+ \+ \(u64\)r\d+`}, []string{`fma`}},
		// float64 math calls the double functions, float32 the float ones.
		{"kernels_kernels", "Floats_0", []string{`\bsqrt\(`, `\bfloor\(`}, []string{`sqrtf`, `__fsqrt`}},
		{"kernels_kernels", "Floats32_0", []string{`\bsqrtf\(`}, []string{`\bsqrt\(`}},
		// A variable shift count goes through a helper that checks it.
		{"kernels_kernels", "Shifts_0", []string{`qd_shl_i64\(`, `qd_shr_i8\(`}, nil},
	} {
		body := function(t, module[c.module], c.function)
		for _, re := range c.must {
			if !regexp.MustCompile(re).MatchString(body) {
				t.Errorf("%s: missing %s", c.function, re)
			}
		}
		for _, re := range c.never {
			if regexp.MustCompile(re).MatchString(body) {
				t.Errorf("%s: has %s", c.function, re)
			}
		}
	}
}

// function returns the text of one __global__ function of a module.
func function(t *testing.T, module, name string) string {
	t.Helper()
	start := strings.Index(module, " void "+name+"(")
	if start < 0 {
		t.Fatalf("no function %s", name)
	}
	end := strings.Index(module[start:], "\n}\n")
	return module[start : start+end]
}
