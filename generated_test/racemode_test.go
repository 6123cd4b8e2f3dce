package generated_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"github.com/qdgo/qd/internal/iterations"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
)

// TestRaceModeFindsConflictsConcurrent runs the kernels of testdata/racy,
// whose iterations conflict, in the CPU race mode, each in a child process
// of this test binary: the race detector must report each, and nothing for
// the race-free one. It needs a binary built with -race, as CI builds it.
func TestRaceModeFindsConflictsConcurrent(t *testing.T) {
	if !raceEnabled {
		t.Skip("needs the race detector: go test -race (CI runs this test so)")
	}
	kernels := loadKernelsFrom(t, "testdata/racy", &lower.Config{SkipDependenceCheck: true})
	for _, c := range []struct {
		name string
		racy bool
	}{{"Sum", true}, {"Histogram", true}, {"PrefixSum", true}, {"Scale", false},
		{"ThreadWrite", true}, {"SharedWrite", true}, {"Reversed", false}} {
		t.Run(c.name, func(t *testing.T) {
			k := kernels[c.name]
			if k == nil {
				t.Fatalf("kernel %s was not lowered", c.name)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRaceModeChild$", "-test.v")
			cmd.Env = append(os.Environ(), "QD_RACE_MODE_CHILD="+k.String())
			out, err := cmd.CombinedOutput()
			reported := bytes.Contains(out, []byte("WARNING: DATA RACE"))
			ran := bytes.Contains(out, []byte("ran "+c.name))
			switch {
			case !ran:
				t.Fatalf("the child did not run the kernel: %v\n%s", err, out)
			case c.racy && (!reported || err == nil):
				t.Errorf("no race reported for %s: %v\n%s", c.name, err, out)
			case !c.racy && (reported || err != nil):
				t.Errorf("race-free %s: %v\n%s", c.name, err, out)
			}
		})
	}
}

// TestRaceModeChild runs the kernel whose IR is in $QD_RACE_MODE_CHILD in
// the race mode, on slices of 1000 elements whose integers are below 8;
// TestRaceModeFindsConflictsConcurrent starts it.
func TestRaceModeChild(t *testing.T) {
	text := os.Getenv("QD_RACE_MODE_CHILD")
	if text == "" {
		t.Skip("started by TestRaceModeFindsConflictsConcurrent")
	}
	ks, err := ir.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	k := ks[0]
	const n = 1000
	r := rand.New(rand.NewPCG(1, 2))
	slots, size := k.ArgSlots()
	args := make([]byte, size)
	var bufs []iterations.Buffer
	lens := make([]int64, len(k.Params))
	for _, s := range slots {
		if s.Param < 0 {
			continue // the runtime's own
		}
		p := k.Params[s.Param]
		if s.Part == ir.SlotLen {
			binary.LittleEndian.PutUint64(args[s.Offset:], n)
		}
		if s.Part != ir.SlotBase {
			continue
		}
		mem := make([]byte, n*p.Type.Size())
		for i := range n {
			bits := uint64(r.IntN(8))
			if p.Type == ir.Float32 {
				bits = uint64(math.Float32bits(float32(bits)))
			}
			for b := range p.Type.Size() {
				mem[i*p.Type.Size()+b] = byte(bits >> (8 * b))
			}
		}
		bufs = append(bufs, iterations.Buffer{Data: unsafe.Pointer(&mem[0]), Len: n})
		lens[s.Param] = n
	}
	counts := make([]int64, len(k.Tasks))
	for i, task := range k.Tasks {
		counts[i] = 1
		if task.Kind == ir.Parallel || task.Kind == ir.BlockLevel {
			counts[i] = int64(task.Count.Eval(func(int) uint64 { return 0 }, func(p int) int64 { return lens[p] }))
		}
	}
	if err := iterations.Run(k, counts, args, bufs, false); err != nil {
		t.Fatal(err)
	}
	t.Logf("ran %s", k.Name)
}
