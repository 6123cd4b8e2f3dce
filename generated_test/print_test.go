//go:build linux

package generated_test

import (
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt"
)

// printArgs draws the arguments of kernels.Prints for n elements: signed
// and unsigned integers of every size of digits, and floats of every
// size of exponent.
func printArgs(r *rand.Rand, n int) []any {
	a, u, f := make([]int32, n), make([]uint64, n), make([]float64, n)
	for i := range n {
		a[i] = int32(r.Uint32()) >> r.IntN(32)
		u[i] = r.Uint64() >> r.IntN(64)
		f[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	}
	return []any{a, u, f, n}
}

// capture runs fn with the process's standard output and error, file
// descriptors 1 and 2, written into pipes, and returns what each got:
// Go's print and println write to descriptor 2 themselves, fmt.Printf to
// os.Stdout, and device printf to descriptor 1 from the driver.
func capture(t *testing.T, fn func() error) (stdout, stderr string, err error) {
	t.Helper()
	var outs [2]string
	var saved [2]int
	done := make(chan struct{})
	for i, fd := range []int{1, 2} {
		r, w, perr := os.Pipe()
		if perr != nil {
			t.Fatal(perr)
		}
		if saved[i], perr = syscall.Dup(fd); perr != nil {
			t.Fatal(perr)
		}
		if perr := syscall.Dup3(int(w.Fd()), fd, 0); perr != nil {
			t.Fatal(perr)
		}
		w.Close()
		go func() {
			b, _ := io.ReadAll(r)
			r.Close()
			outs[i] = string(b)
			done <- struct{}{}
		}()
	}
	err = fn()
	for i, fd := range []int{1, 2} {
		if perr := syscall.Dup3(saved[i], fd, 0); perr != nil {
			t.Fatal(perr)
		}
		syscall.Close(saved[i])
	}
	<-done
	<-done
	return outs[0], outs[1], err
}

// sortedLines returns the lines of the texts, sorted: threads print in
// no defined order, and Go writes print's lines and fmt's to different
// files.
func sortedLines(texts ...string) []string {
	var lines []string
	for _, text := range texts {
		lines = append(lines, strings.SplitAfter(text, "\n")...)
	}
	lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" })
	slices.Sort(lines)
	return lines
}

// comparePrinted reports the lines printed that Go did not print, and
// those Go printed that were not.
func comparePrinted(t *testing.T, want, got []string) {
	t.Helper()
	if slices.Equal(want, got) {
		return
	}
	t.Errorf("printed %d lines, Go %d", len(got), len(want))
	for i, j, shown := 0, 0, 0; (i < len(want) || j < len(got)) && shown < 10; shown++ {
		switch {
		case j >= len(got) || i < len(want) && want[i] < got[j]:
			t.Errorf("missing: %q", want[i])
			i++
		case i >= len(want) || got[j] < want[i]:
			t.Errorf("extra:   %q", got[j])
			j++
		default:
			i, j, shown = i+1, j+1, shown-1
		}
	}
}

// goPrints runs kernels.Prints in Go and returns the lines it printed.
func goPrints(t *testing.T, args []any) []string {
	t.Helper()
	stdout, stderr, err := capture(t, func() error { return callGo(kernels.Prints, cloneArgs(args)) })
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(stdout, stderr)
}

// TestPrintsInterpreted compares what the interpreter prints for
// kernels.Prints, on grids of 1 and 3 threads, with what Go prints; its
// loop stays parallel.
func TestPrintsInterpreted(t *testing.T) {
	k := loadKernels(t)["Prints"]
	if k == nil {
		t.Fatal("kernel Prints was not lowered")
	}
	if len(k.Tasks) != 1 || k.Tasks[0].Kind != ir.Parallel {
		t.Fatalf("printing made the loop serial:\n%s", k)
	}
	r := rand.New(rand.NewPCG(20, 1))
	for _, n := range []int{1, 7, 300} {
		args := printArgs(r, n)
		want := goPrints(t, args)
		if len(want) != 3*n {
			t.Fatalf("Go printed %d lines for %d elements", len(want), n)
		}
		for _, threads := range []int{1, 3} {
			var out strings.Builder
			if err := interpretTo(k, cloneArgs(args), threads, &out); err != nil {
				t.Fatal(err)
			}
			comparePrinted(t, want, sortedLines(out.String()))
		}
	}
}

// TestPrintsGPU compares what the GPU prints for kernels.Prints, which
// the driver writes to the process's standard output when the launch is
// synchronized, with what Go prints.
func TestPrintsGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	for _, n := range []int{1, 7, 1000} { // within the driver's printf buffer, 1 MiB by default
		want, stdout, stderr := stubPrints(t, dev, n)
		if stderr != "" {
			t.Errorf("n=%d: the GPU run wrote to standard error: %q", n, stderr)
		}
		comparePrinted(t, want, sortedLines(stdout))
	}
}

// TestPrintsCPU checks that the CPU backend prints what Go prints, where
// Go prints it: its stub runs the Go function.
func TestPrintsCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	want, stdout, stderr := stubPrints(t, dev, 300)
	if !strings.Contains(stderr, "\ni 1 a ") || !strings.Contains(stdout, "|end|") {
		t.Errorf("println did not write to standard error or fmt.Printf not to standard output:\n%s\n%s", stdout, stderr)
	}
	comparePrinted(t, want, sortedLines(stdout, stderr))
}

// stubPrints runs kernels.Prints on n elements through its stub on dev,
// and returns the lines Go prints and what the run wrote to standard
// output and error.
func stubPrints(t *testing.T, dev *rt.Device, n int) (want []string, stdout, stderr string) {
	t.Helper()
	ks, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	args := printArgs(rand.New(rand.NewPCG(20, uint64(n))), n)
	want = goPrints(t, args)
	stubArgs, read, free, err := upload(dev, args)
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	stdout, stderr, err = capture(t, func() error {
		if err := callStub(ks, "Prints", stubArgs); err != nil {
			return err
		}
		if err := dev.Synchronize(); err != nil {
			return err
		}
		_, err := read()
		return err
	})
	if err != nil {
		t.Fatalf("n=%d: %v", n, err)
	}
	return want, stdout, stderr
}

// interpretTo is interpret with the prints written to out.
func interpretTo(k *ir.Kernel, args []any, threads int, out io.Writer) error {
	return interpretGridTo(k, args, threads, 0, out)
}
