package ir_test

import (
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
)

// TestCheckCalls checks that the checker catches calls that do not match
// their callee, functions that call themselves or later functions, and
// functions among the tasks.
func TestCheckCalls(t *testing.T) {
	call := func(k *ir.Kernel) *ir.Instr {
		instrs := k.Tasks[0].Blocks[0].Instrs
		return &instrs[len(instrs)-1]
	}
	for _, c := range []struct {
		name   string
		change func(k *ir.Kernel)
		want   string
	}{
		{"unchanged", func(k *ir.Kernel) {}, ""},
		{"result type", func(k *ir.Kernel) { call(k).Results[0] = call(k).Results[1] }, "result 0: r4 has type bool, want i64"},
		{"result count", func(k *ir.Kernel) { call(k).Results = call(k).Results[:1] }, "1 results, want 2"},
		{"operand count", func(k *ir.Kernel) { call(k).Args = call(k).Args[:2] }, "2 operands, want 3"},
		{"no such function", func(k *ir.Kernel) { call(k).Aux = 7 }, "no function 7"},
		{"recursion", func(k *ir.Kernel) { k.Funcs[1].Blocks[0].Instrs[0].Aux = 1 }, "calls a function not listed before it"},
		{"results on an add", func(k *ir.Kernel) { k.Funcs[1].Blocks[0].Instrs[1].Results = []ir.Reg{3} }, "results on an op other than call"},
		{"function as a task", func(k *ir.Kernel) { k.Tasks = append(k.Tasks, k.Funcs[0]) }, "a function among the tasks"},
		{"task as a function", func(k *ir.Kernel) { k.Funcs[0].Kind = ir.Serial }, "kind serial"},
		{"parameters of a task", func(k *ir.Kernel) { k.Tasks[0].Params = []ir.Reg{0} }, "a parallel task with parameters"},
	} {
		k := irtest.CallKernel(false)
		c.change(k)
		err := k.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Check = %v, want %q", c.name, err, c.want)
		}
	}
}
