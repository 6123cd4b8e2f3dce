package ir_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
)

// goldenIR lists every .ir file of the module.
func goldenIR(t *testing.T) []string {
	var files []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".ir") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestParseGoldens parses every .ir file of the module, checks the IR and
// prints it back unchanged (after the comment lines a generated file starts
// with, which the parser skips).
func TestParseGoldens(t *testing.T) {
	files := goldenIR(t)
	if len(files) < 4 {
		t.Fatalf("found only %d .ir files", len(files))
	}
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := ir.Parse(string(text))
		if err != nil {
			t.Errorf("%s:%v", path, err)
			continue
		}
		for _, k := range ks {
			if err := k.Check(); err != nil {
				t.Errorf("%s: kernel %s: %v", path, k.Name, err)
			}
		}
		body := string(text)
		for strings.HasPrefix(body, "#") || strings.HasPrefix(body, "\n") {
			_, body, _ = strings.Cut(body, "\n")
		}
		if got := ir.FormatKernels(ks); got != body {
			t.Errorf("%s does not print back as it was read:\n%s", path, golden.Diff(body, got))
		}
	}
}

// TestEveryOp prints one instruction of every op and type, parses it back
// and runs it on the interpreter, so that an op added to the table without
// the cases it needs fails here.
func TestEveryOp(t *testing.T) {
	seen := map[ir.Op]bool{}
	for _, immediates := range []bool{false, true} {
		for _, k := range irtest.OpKernels(immediates) {
			instrs := k.Tasks[0].Blocks[0].Instrs
			seen[instrs[len(instrs)-1].Op] = true
			if err := k.Check(); err != nil {
				t.Errorf("kernel %s: %v", k.Name, err)
				continue
			}
			text := k.String()
			ks, err := ir.Parse(text)
			if err != nil {
				t.Errorf("kernel %s: %v\n%s", k.Name, err, text)
				continue
			}
			if got := ir.FormatKernels(ks); got != text {
				t.Errorf("kernel %s does not print back as it was read:\n%s", k.Name, golden.Diff(text, got))
			}
			heap := &ir.Heap{}
			if err := (&ir.Interp{Mem: heap, Threads: 1, Out: io.Discard}).Run(ks[0], irtest.Values(heap)); err != nil {
				t.Errorf("kernel %s: %v", k.Name, err)
			}
		}
	}
	for _, op := range ir.Ops() {
		if !seen[op] {
			t.Errorf("no kernel for op %s", op)
		}
	}
}

// TestParseImmediates reads every kind of immediate the printer writes.
func TestParseImmediates(t *testing.T) {
	const text = `kernel K(x []f32, n i64, b bool)

task K_0 serial count=(sub.i64 (shl.i64.u8 (len x) 2) -9223372036854775808)
b0: # entry: with a comment
	r0 = const.f32 NaN
	r1 = const.f32 -0.0
	r2 = const.f64 +Inf
	r3 = const.f64 -Inf
	r4 = const.f32 1.5e-07
	r5 = const.u64 18446744073709551615
	r6 = const.i8 -128
	r7 = const.bool true
	r8 = add.f64 r2, 0.1
	r9 = param.bool b
	branch false, b1, b1
b1:
	r9 = move.bool r7
	return
`
	ks, err := ir.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := ks[0].Check(); err != nil {
		t.Fatal(err)
	}
	if got := ir.FormatKernels(ks); got != text {
		t.Errorf("printed back differently:\n%s", golden.Diff(text, got))
	}
	task := ks[0].Tasks[0]
	if task.Regs[9] != ir.Bool || task.Regs[5] != ir.Uint64 || task.Blocks[0].Comment != "entry: with a comment" {
		t.Errorf("registers %v, comment %q", task.Regs, task.Blocks[0].Comment)
	}
}

// TestParseErrors checks that errors give the position and what was
// expected there.
func TestParseErrors(t *testing.T) {
	const head = "kernel K(x []f32, n i64)\n\ntask K_0 serial\nb0:\n"
	for _, c := range []struct{ text, want string }{
		{"kernal K()\n", `1:1: expected "kernel", found "kernal"`},
		{"kernel K(x []f33)\n", `1:14: expected a type, found "f33"`},
		{"kernel K(x f32\n", `1:15: expected ",", found end of line`},
		{"kernel K()\ngroups [1 x]\n", `2:11: expected a block count, found "x"`},
		{"kernel K(x []f32)\ndisjoint x y\n", `2:12: kernel K has no parameter y`},
		{"kernel K(x []f32)\ndisjoint x $5\n", `2:12: kernel K has no parameter $5`},
		{"kernel K()\n# a note\n", `2:1: expected "func", "task" or "kernel", found "#"`},
		{"kernel K()\n\nfunc F(r0 i64) (r1 i64)\nb0:\n\treturn\n", `3:17: result r1 is never defined`},
		{"kernel K()\n\nfunc F(r0 i64) (r0 f32)\nb0:\n\treturn\n", `3:17: result r0 is f32, but defined as i64 at 3:8`},
		{"kernel K()\n\nfunc F() ()\nb0:\n\treturn\n\ntask K_0 serial\nb0:\n\tr0 = call F()\n\treturn\n", `9:12: F has 0 results, not 1`},
		{"kernel K()\n\ntask K_0 serial\nb0:\n\tcall G()\n\treturn\n", `5:7: kernel K has no function G before this`},
		{"kernel K()\n\nfunc F(r0 i64) ()\nb0:\n\treturn\n\ntask K_0 serial\nb0:\n\tcall F(1.5)\n\treturn\n", `9:9: expected a register or an immediate of type i64, found "1.5"`},
		{"kernel K()\n\ntask K_0 sometimes\n", `3:10: expected "serial", "parallel" or "blocks", found "sometimes"`},
		{"kernel K(n i64)\n\ntask K_0 parallel count=(lt.i64 (param n) 1)\n", `3:26: lt is not allowed in a host expression`},
		{"kernel K(n i64)\n\ntask K_0 parallel count=(len n)\n", `3:26: len needs a slice parameter`},
		{"kernel K()\n\ntask K_0 serial\nb1:\n", `4:1: expected block label b0, found "b1"`},
		{"kernel K()\n\ntask K_0 serial\n", `4:1: expected block label b0:, found ""`},
		{head + "\tr0 = add.i64 r1, 2\n\treturn\n", `5:15: r1 is used but never defined, so its type is unknown`},
		{head + "\tr0 = const.i64 1\n\tr0 = const.f32 1.0\n\treturn\n", `6:2: r0 is defined as f32 here but as i64 at 5:2`},
		{head + "\tr0 = const.i8 300\n\treturn\n", `5:16: expected a register or an immediate of type i8, found "300"`},
		{head + "\tr0 = frob.i64 1\n\treturn\n", `5:7: unknown op "frob"`},
		{head + "\tr0 = convert.i64 r1\n\treturn\n", `5:7: expected convert.TYPE.TYPE, found "convert.i64"`},
		{head + "\tr0 = base.ptr x\n\treturn\n", `5:7: expected base, found "base.ptr"`},
		{head + "\tr0 = store.f32 r1, 1.0\n\treturn\n", `5:2: store has no result`},
		{head + "\tr0 = len x\n\tr1 = elemaddr r0, r0\n\treturn\n", `6:22: expected ",", found end of line`},
		{head + "\tr0 = len x # why\n\treturn\n", `5:13: a comment may follow only a block label`},
		{head + "\tr0 = len x\n", `6:1: expected an instruction or a terminator, found end of text`},
		{head + "\tjump b4\n", `5:7: task K_0 has no block b4`},
		{"kernel K()\n\ntask K_0 serial\nb0: fallback=b3\n\treturn\n", `4:14: task K_0 has no block b3`},
		{"kernel K()\n\ntask K_0 serial\nb0: fallback b1\n\treturn\n", `4:14: expected "=", found "b1"`},
		{head + "\tbranch r0, b0, b0\n", `5:9: r0 is used but never defined, so its type is unknown`},
		{head + "\treturn\n\tr0 = len x\n", `6:2: expected block label b1:, found "r0"`},
	} {
		_, err := ir.Parse(c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", c.text, err, c.want)
		}
	}
}

// TestParseHeader checks that comments before the first kernel, such as a
// generated file's header, are skipped.
func TestParseHeader(t *testing.T) {
	const kernel = "kernel K()\n\ntask K_0 serial\nb0:\n\treturn\n"
	ks, err := ir.Parse("# Code generated by qdgen. DO NOT EDIT.\n# second line\n\n" + kernel)
	if err != nil {
		t.Fatal(err)
	}
	if got := ir.FormatKernels(ks); got != kernel {
		t.Errorf("parsed %q", got)
	}
}
