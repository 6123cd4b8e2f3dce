package check

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
)

// TestGolden checks the kernels of testdata/*.check, IR as lowering leaves
// it, and compares the diagnostics and launch conditions with the golden
// file X.out. Each file begins with the description of its parallel
// loops, one line per fact, before the kernel's printed form:
//
//	loop T index=rN init=A bound=A wide=TYPE delta=D [versioned]
//	loop T counter=rN init=A count=A wide=TYPE   (a nest's inner level)
//	loop T fixed=rN                              (a nest's outer level)
//
// where T is the task's index and A a register (r5) or a constant.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.check"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			k, loops := parseCase(t, string(text))
			golden.Check(t, strings.TrimSuffix(path, ".check")+".out", checkAll(k, loops))
		})
	}
}

// checkAll runs both checks on k and prints what they find.
func checkAll(k *ir.Kernel, loops map[*ir.Task]*Loop) string {
	src := &irSource{k: k}
	var b strings.Builder
	deps := Dependences(k, loops, src)
	for _, d := range deps.Diagnostics {
		fmt.Fprintf(&b, "%s: %s\n", src.Where(d.Pos), d.Message)
	}
	diags, pairs := Blocks(k, loops, src)
	for _, d := range diags {
		fmt.Fprintf(&b, "%s: %s\n", src.Where(d.Pos), d.Message)
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, "disjoint at launch: %s %s\n", k.Params[p[0]].Name, k.Params[p[1]].Name)
	}
	for _, t := range k.Tasks {
		for _, c := range deps.Conditions[t] {
			fmt.Fprintf(&b, "%s runs in parallel when %s: %s\n", t.Name, c.Text, k.FormatExpr(c.Test))
		}
	}
	if b.Len() == 0 {
		return "no conflicts\n"
	}
	return b.String()
}

// parseCase reads a test case: the loop lines, then the kernel.
func parseCase(t *testing.T, text string) (*ir.Kernel, map[*ir.Task]*Loop) {
	lines := strings.Split(text, "\n")
	n := 0
	for n < len(lines) && strings.HasPrefix(lines[n], "loop ") {
		n++
	}
	ks, err := ir.Parse(strings.Join(lines[n:], "\n"))
	if err != nil || len(ks) != 1 {
		t.Fatalf("parse: %v (%d kernels)", err, len(ks))
	}
	k := ks[0]
	loops := map[*ir.Task]*Loop{}
	for _, line := range lines[:n] {
		words := strings.Fields(line)
		ti, err := strconv.Atoi(words[1])
		if err != nil || ti >= len(k.Tasks) {
			t.Fatalf("%q: no task %s", line, words[1])
		}
		lp := loops[k.Tasks[ti]]
		if lp == nil {
			lp = &Loop{Fixed: map[ir.Reg]bool{}, Counters: map[ir.Reg]Counter{}}
			loops[k.Tasks[ti]] = lp
		}
		fields := map[string]string{}
		for _, w := range words[2:] {
			key, value, _ := strings.Cut(w, "=")
			fields[key] = value
		}
		wide := ir.Int64
		if fields["wide"] == "u64" {
			wide = ir.Uint64
		}
		switch {
		case fields["index"] != "":
			lp.Index = parseArg(t, fields["index"]).Reg
			lp.Init, lp.Bound, lp.Wide = parseArg(t, fields["init"]), parseArg(t, fields["bound"]), wide
			lp.Delta, _ = strconv.ParseInt(fields["delta"], 10, 64)
			_, lp.Versioned = fields["versioned"]
		case fields["counter"] != "":
			lp.Counters[parseArg(t, fields["counter"]).Reg] = Counter{Init: parseArg(t, fields["init"]), Wide: wide, Count: parseArg(t, fields["count"])}
		case fields["fixed"] != "":
			lp.Fixed[parseArg(t, fields["fixed"]).Reg] = true
		default:
			t.Fatalf("%q: no index, counter or fixed", line)
		}
	}
	return k, loops
}

func parseArg(t *testing.T, s string) ir.Arg {
	if r, ok := strings.CutPrefix(s, "r"); ok {
		n, err := strconv.Atoi(r)
		if err != nil {
			t.Fatalf("register %q", s)
		}
		return ir.R(ir.Reg(n))
	}
	c, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("operand %q", s)
	}
	return ir.Imm(ir.Int64, uint64(c))
}

// irSource names an access by its place in the IR: task, block and
// instruction, as "Sum_1 b6:2", and the parameter it touches.
type irSource struct {
	k      *ir.Kernel
	places []string // by position - 1
}

func (s *irSource) Describe(in *ir.Instr, param int) (token.Pos, string) {
	for _, t := range s.k.Tasks {
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				if &b.Instrs[i] == in {
					s.places = append(s.places, fmt.Sprintf("%s b%d:%d", t.Name, b.Index, i))
					return token.Pos(len(s.places)), "an element of " + s.k.Params[param].Name
				}
			}
		}
	}
	return token.NoPos, "an element of " + s.k.Params[param].Name
}

func (s *irSource) Where(pos token.Pos) string {
	if pos < 1 || int(pos) > len(s.places) {
		return "?"
	}
	return s.places[pos-1]
}

// TestPositioned checks that a conflict whose access has no position in
// the source is reported at its task's loop, not at no position at all.
func TestPositioned(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "prefixsum.check"))
	if err != nil {
		t.Fatal(err)
	}
	k, loops := parseCase(t, string(text))
	for i, task := range k.Tasks {
		task.Pos = token.Pos(100 + i)
	}
	diags := Dependences(k, loops, unplaced{}).Diagnostics
	if len(diags) == 0 {
		t.Fatal("no conflict found")
	}
	for _, d := range diags {
		if d.Pos != k.Tasks[1].Pos {
			t.Errorf("%q at %d, want the task's position %d", d.Message, d.Pos, k.Tasks[1].Pos)
		}
	}
}

// unplaced is a Source that knows no positions.
type unplaced struct{}

func (unplaced) Describe(*ir.Instr, int) (token.Pos, string) { return token.NoPos, "an element" }
func (unplaced) Where(token.Pos) string                      { return "?" }
