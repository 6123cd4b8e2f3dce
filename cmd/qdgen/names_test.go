package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// tricky has kernels and parameters with the names that generated code
// uses for itself: the import of rt, the fields and receiver of Kernels,
// its variables, predeclared identifiers, the kernel's own name and the
// types of the parameters.
const tricky = `package k

import "github.com/qdgo/qd"

type Celsius float32

func rt() {} // a package-level rt

//qd:kernel
func qdk(a []float32) {
	for i := range a {
		a[i] = 1
	}
}

//qd:kernel
func dev(nil []float32, uint64 int64, int64 uint64, byte uint8, bool bool) {
	for i := range nil {
		if bool {
			nil[i] = float32(uint64) + float32(int64) + float32(byte)
		}
	}
}

//qd:kernel
func mod(mod []int32, qdX int32, arg1 int32, arg2 int32) {
	for i := range mod {
		mod[i] = qdX + arg1 + arg2
	}
}

//qd:kernel
func Temps(Celsius []Celsius, k Celsius, qd int) {
	for i := range Celsius {
		if qd > 0 {
			Celsius[i] += k
		}
	}
}

//qd:kernel
func Locals(s []int32, qdOpts, qdk, qdErr, qdArgs, qdCounts int, min, max int, len, error, Load int) {
	for i := range qdOpts + qdk + qdErr + qdArgs + qdCounts + min - max + len {
		s[i] = int32(error + Load)
	}
	qd.StreamParallel(func() {
		s[0]++
	})
}
`

const trickyUse = `package k

import (
	qrt "github.com/qdgo/qd/rt"
)

func use(dev *qrt.Device, f *qrt.Buffer[float32], i *qrt.Buffer[int32], c *qrt.Buffer[Celsius]) error {
	ks, err := Load(dev)
	if err != nil {
		return err
	}
	return errorsJoin(ks.qdk(f), ks.dev(f, 1, 2, 3, true), ks.mod(i, 1, 2, 3), ks.Temps(c, 1, 2),
		ks.Locals(i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ks.Device().Synchronize())
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
`

// TestGeneratedNamesCompile generates the stubs of kernels whose names
// and parameters collide with the names generated code would use, and
// builds the package.
func TestGeneratedNamesCompile(t *testing.T) {
	dir := module(t, map[string]string{"k/k.go": tricky, "k/use.go": trickyUse})
	if out, err := run(t, dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cmd := exec.Command("go", "vet", "./k")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generated package does not build: %v\n%s", err, out)
	}
}

// TestKernelNamesRejected checks the kernel names that no generated file
// could serve: a method of Kernels, and _.
func TestKernelNamesRejected(t *testing.T) {
	src := strings.Replace(tricky, "func qdk(", "func Device(", 1)
	src = strings.Replace(src, "func mod(", "func _(", 1)
	dir := module(t, map[string]string{"k/k.go": src})
	out, err := run(t, dir)
	if err == nil {
		t.Fatal("qdgen accepted kernels named Device and _")
	}
	for _, want := range []string{
		`k/k.go:10:6: kernel Device has the name of the method Kernels.Device of the file qdgen generates; rename the kernel`,
		`k/k.go:26:6: a kernel named _ cannot be launched: give it a name`,
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(out) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestTooManyArguments checks that a kernel whose arguments would not fit
// in a launch is reported at the parameter that goes past the limit.
func TestTooManyArguments(t *testing.T) {
	var params []string
	for i := range 256 {
		params = append(params, fmt.Sprintf("s%d", i))
	}
	src := "package k\n\n//qd:kernel\nfunc K(" + strings.Join(params, ", ") + " []int32, n int64) {\n\ts0[0] = int32(n)\n}\n"
	dir := module(t, map[string]string{"k/k.go": src})
	out, err := run(t, dir)
	want := "k/k.go:4:" + fmt.Sprint(len("func K(")+len(strings.Join(params, ", "))+len(" []int32, ")+1) +
		": kernel K's parameters up to n take 4104 bytes, more than the 4096 bytes a GPU launch can pass"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("want %q, got %v:\n%s", want, err, out)
	}
}
