package generated_test

import (
	"math/rand/v2"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// Private copies keep Go's checks: a byte past the bins, bins of length 0
// (a division by zero) and values shorter than data fault as in Go, on
// the copy's path and, with more bins than a copy holds, on the other.
var privateFaultCases = []kernelCase{
	{name: "CountBytes", fn: kernels.CountBytes, args: func(r *rand.Rand, n int) []any {
		bins := pick(r, 1, 17, 256, 300)
		data := make([]uint8, n)
		for i := range data {
			data[i] = uint8(r.IntN(bins))
			if r.IntN(4*n) == 0 {
				data[i] = uint8(r.Uint32()) // past the bins when there are fewer than 256
			}
		}
		return []any{data, randomCounts(r, bins)}
	}},
	{name: "CountValues", fn: kernels.CountValues, args: func(r *rand.Rand, n int) []any {
		return []any{randomWords(r, n), randomCounts(r, pick(r, 0, 1, 17, 17, 5000))}
	}},
	{name: "BinExtremes", fn: kernels.BinExtremes, args: func(r *rand.Rand, n int) []any {
		bins := pick(r, 17, 17, 0, 5000)
		return []any{randomWords(r, n), randomInts32(r, n-pick(r, 0, 0, 1, n)), randomInts32(r, bins), randomInts32(r, bins)}
	}},
}

// privateFaultDraws is the number of argument lists drawn for each kernel
// and length.
const privateFaultDraws = 40

// TestPrivateCopiesFaultsInterpreted runs the cases on the interpreter on
// one thread, where the fault is Go's own, and on blocks of several.
func TestPrivateCopiesFaultsInterpreted(t *testing.T) {
	compiled := loadKernels(t)
	dev := openCPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	for _, c := range privateFaultCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 6))
			faults, runs := 0, 0
			for _, n := range []int{1, 31, 200} {
				for range privateFaultDraws {
					args := drawArgs(c, r, n)
					want := stubOutcome(t, ks, dev, c, args)
					runs++
					if want.fault != "" {
						faults++
					}
					for _, grid := range []struct{ threads, block int }{{1, 0}, {3, 0}, {64, 32}} {
						got := cloneArgs(args)
						var o outcome
						if err := interpretGrid(compiled[c.name], got, grid.threads, grid.block); err != nil {
							o = faultOrFail(t, err)
						} else {
							o.args = got
						}
						sameOutcome(t, c.name, want, o, grid.threads == 1)
					}
				}
			}
			if faults == 0 || faults == runs {
				t.Errorf("%s: %d of %d launches fault: the draws should test both", c.name, faults, runs)
			}
		})
	}
}

// TestPrivateCopiesFaultsGPU runs the cases on the GPU against Go: the
// same results, or a fault of the same kind where Go faults; the blocks
// whose threads did not fail still finish.
func TestPrivateCopiesFaultsGPU(t *testing.T) {
	gpu := openGPU(t)
	defer gpu.Close()
	cpu := openCPU(t)
	defer cpu.Close()
	gks, err := kernels.Load(gpu)
	must(t, err)
	cks, err := kernels.Load(cpu)
	must(t, err)
	for _, c := range privateFaultCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
			for _, n := range []int{1, 31, 1000, 1<<20 + 3} {
				for range privateFaultDraws / 4 {
					args := drawArgs(c, r, n)
					want := stubOutcome(t, cks, cpu, c, args)
					sameOutcome(t, c.name, want, stubOutcome(t, gks, gpu, c, args), false)
					sameOutcome(t, c.name+" on 2 blocks of 32", want, stubOutcome(t, gks, gpu, c, args, rt.GridSize(2), rt.BlockSize(32)), false)
				}
			}
		})
	}
}
