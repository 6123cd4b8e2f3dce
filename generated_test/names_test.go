package generated_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qdgo/qd/generated_test/names"
	"github.com/qdgo/qd/rt"
)

// nameCases have names that are not ASCII, or as many arguments as a
// launch can pass.
var nameCases = []kernelCase{
	{name: "Größe", fn: names.Größe},
	{name: "Ω数", fn: names.Ω数},
}

func runNames(t *testing.T, dev *rt.Device) {
	ks, err := names.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	runLoaded(t, dev, ks, nameCases, lengths)
	t.Run("Wide", func(t *testing.T) { runWide(t, dev, ks) })
}

// runWide launches Wide, whose 257 parameters reflection cannot pass.
func runWide(t *testing.T, dev *rt.Device, ks *names.Kernels) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 300
	want := make([][]int32, names.WideSlices)
	bufs := make([]*rt.Buffer[int32], names.WideSlices)
	for i := range want {
		start := randomArgs(func([]int32) {}, r, n)[0].([]int32)
		b, err := rt.FromSlice(dev, start)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		bufs[i], want[i] = b, slices.Clone(start)
	}
	a, b := r.Int64N(1000), r.Int64N(1000)
	names.CallWide(want, a, b)
	if err := names.LaunchWide(ks, bufs, a, b); err != nil {
		t.Fatal(err)
	}
	for i, buf := range bufs {
		got, err := buf.Read()
		if err != nil {
			t.Fatal(err)
		}
		compareArgs(t, fmt.Sprintf("slice %d", i), []any{want[i]}, []any{got})
	}
}

func TestNamesCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runNames(t, dev)
}

// TestNamesGPU loads entry points whose names hold escapes, and launches a
// kernel with 4096 bytes of arguments.
func TestNamesGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runNames(t, dev)
}
