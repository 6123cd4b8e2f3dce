package opt

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/qdgo/qd/ir"
)

// TestDroppedBoundsTestsImplied builds the index bounds tests of the
// index32 goldens with every test and with those dropImplied and
// mergeNonnegative leave, and evaluates both on random sizes, from 3 (the
// goldens' stencils run their loops from 1 to w-1) to past int32: the
// tests must agree.
func TestDroppedBoundsTestsImplied(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "index32", "*.ir"))
	for _, input := range inputs {
		if filepath.Ext(input[:len(input)-3]) == ".out" {
			continue
		}
		src, err := os.ReadFile(input)
		if err != nil {
			t.Fatal(err)
		}
		guards := func(all bool) [][]*ir.Block {
			ks, err := ir.Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			keepAllBoundsTests = all
			defer func() { keepAllBoundsTests = false }()
			var out [][]*ir.Block
			for _, k := range ks {
				for _, task := range k.Bodies() {
					NarrowIndices(task)
					var gs []*ir.Block
					for _, b := range task.Blocks {
						if b.Comment == "index bounds" {
							gs = append(gs, b)
						}
					}
					out = append(out, gs)
				}
			}
			return out
		}
		all, lean := guards(true), guards(false)
		passed, failed := 0, 0
		rng := rand.New(rand.NewSource(1))
		sizes := []int64{3, 4, 5, 7, 100, 46340, 46341, 65536, 1 << 20, 1<<31 - 1, 1 << 31, 1 << 32, 1 << 40}
		for i := range all {
			for j := range all[i] {
				for trial := 0; trial < 3000; trial++ {
					env := map[string]uint64{}
					value := func(key string) uint64 {
						if v, ok := env[key]; ok {
							return v
						}
						v := sizes[rng.Intn(len(sizes))] + rng.Int63n(3)
						if rng.Intn(4) == 0 {
							v = 3 + rng.Int63n(1<<uint(rng.Intn(40)))
						}
						env[key] = uint64(v)
						return uint64(v)
					}
					a, b := evalGuard(t, all[i][j], value), evalGuard(t, lean[i][j], value)
					if a {
						passed++
					} else {
						failed++
					}
					if len(lean[i][j].Instrs) >= len(all[i][j].Instrs) {
						t.Errorf("%s: guard %d of task %d is no shorter without the implied tests", input, j, i)
					}
					if a != b {
						t.Fatalf("%s: guard %d of task %d: %v with every test, %v without the implied ones, at %v", input, j, i, a, b, env)
					}
				}
			}
		}
		// Both outcomes are tried.
		if passed+failed > 0 && (passed == 0 || failed == 0) {
			t.Errorf("%s: %d sizes passed the test, %d failed it", input, passed, failed)
		}
		t.Logf("%s: %d passed, %d failed", input, passed, failed)
	}
}

// evalGuard runs a test block on the values value gives its parameters,
// lengths, thread count and the registers it reads from before it.
func evalGuard(t *testing.T, b *ir.Block, value func(string) uint64) bool {
	regs := map[ir.Reg]uint64{}
	read := func(a ir.Arg) uint64 {
		if a.Imm {
			return a.Bits
		}
		if v, ok := regs[a.Reg]; ok {
			return v
		}
		return value(fmt.Sprint("r", a.Reg))
	}
	for _, in := range b.Instrs {
		var v uint64
		switch in.Op {
		case ir.OpParam:
			v = in.Type.Normalize(value(fmt.Sprint("param", in.Aux)))
		case ir.OpParamLen:
			v = value(fmt.Sprint("len", in.Aux))
		case ir.OpThreadCount:
			v = value("threads") % (1 << 41)
		default:
			args := make([]uint64, len(in.Args))
			for k, a := range in.Args {
				args[k] = read(a)
			}
			var err error
			if v, err = ir.Fold(&in, args); err != nil {
				t.Fatal(err)
			}
		}
		regs[in.Dst] = v
	}
	if b.Term.Kind != ir.Branch {
		return true
	}
	return read(b.Term.Cond) != 0
}
