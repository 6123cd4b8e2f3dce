package hip_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/ir"
)

// An opCase is one kernel of the host test: one pure instruction on
// operands loaded from the slices a and b (or an immediate in place of
// one of them), its result stored to out. A third operand (fma's) is the
// immediate.
type opCase struct {
	in   ir.Instr // Op, Type, From and Space
	imm  int      // the operand that is an immediate: 0, 1, or -1 for none
	bits uint64   // the immediate
	a, b []uint64 // operand bits, normalized to their types
}

// An atomic case's kernel updates a[i] (through a local variable in local
// space) with b[i] (and, for a compare-and-swap, the immediate as the new
// value) and stores the old value to out[i].
func (c *opCase) atomic() bool { return c.in.Op.Info().Atomic }

// TestSemanticsOnHost compiles the HIP of one kernel for every pure op and
// type, with register and immediate operands, as host C++ under the
// undefined-behaviour sanitizer, runs it on edge and random operands and
// compares each result with the IR's reference semantics (ir.Fold): the
// C++ the emitter writes must compute Go's results without relying on
// anything C++ leaves undefined. It needs a host C++ compiler; under CI it
// must run.
func TestSemanticsOnHost(t *testing.T) {
	t.Parallel() // runs compilers for a while
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no host C++ compiler under CI: %v", err)
		}
		t.Skipf("no host C++ compiler (%s): %v", cxx, err)
	}
	cases := append(opCases(), atomicCases()...)
	var kernels []*ir.Kernel
	for i := range cases {
		kernels = append(kernels, cases[i].kernel(fmt.Sprintf("k%d", i)))
	}
	header, err := os.ReadFile(filepath.Join("testdata", "host.h"))
	if err != nil {
		t.Fatal(err)
	}
	var src bytes.Buffer
	src.Write(header)
	src.WriteString(hip.Module(kernels))
	writeMain(&src, kernels)
	dir := t.TempDir()
	cpp, exe := filepath.Join(dir, "ops.cpp"), filepath.Join(dir, "ops")
	if err := os.WriteFile(cpp, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cxx, "-std=c++17", "-O0", "-w", "-ffp-contract=off",
		"-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all", cpp, "-o", exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cxx, err, out)
	}
	var input bytes.Buffer
	for i := range cases {
		cases[i].writeInput(&input)
	}
	run := exec.Command(exe)
	run.Stdin = &input
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("running the kernels: %v\n%s", err, stderr.String())
	}
	checked := 0
	for i := range cases {
		out = cases[i].check(t, kernels[i], out)
		checked += len(cases[i].a)
	}
	t.Logf("%d kernels, %d results", len(cases), checked)
}

// opCases lists a case for every pure op, type and From type, with
// register operands, and for the binary ops with a few immediates in
// either place.
func opCases() []opCase {
	r := rand.New(rand.NewPCG(1, 2))
	var cases []opCase
	for _, op := range ir.Ops() {
		info := op.Info()
		if !info.Pure || op == ir.OpConst || op == ir.OpElemAddr {
			continue
		}
		froms := info.From.List()
		if len(froms) == 0 {
			froms = []ir.Type{ir.Invalid}
		}
		for _, typ := range info.Types.List() {
			for _, from := range froms {
				if info.SameSize && typ.Size() != from.Size() {
					continue
				}
				in := ir.Instr{Op: op, Type: typ, From: from}
				types := in.ArgTypes()
				a, b := operands(r, types)
				if len(types) > 2 {
					for k, e := range edges(types[2]) {
						if k%3 == 0 {
							cases = append(cases, opCase{in: in, imm: -1, bits: e, a: a, b: b})
						}
					}
					continue
				}
				cases = append(cases, opCase{in: in, imm: -1, a: a, b: b})
				if len(types) < 2 {
					continue
				}
				shift := op == ir.OpShl || op == ir.OpShr
				for k, e := range edges(types[1]) {
					// Counts of 1, the width less one, the width and one
					// more, of a few count types.
					countEdge := (k == 1 || k == 5 || k == 6 || k == 7) && (from == ir.Uint8 || from == ir.Int64 || from == ir.Uint64)
					if !shift && k%4 == 0 || shift && countEdge {
						cases = append(cases, opCase{in: in, imm: 1, bits: e, a: a, b: b})
					}
				}
				for k, e := range edges(types[0]) {
					if k%7 == 3 {
						cases = append(cases, opCase{in: in, imm: 0, bits: e, a: a, b: b})
					}
				}
			}
		}
	}
	return cases
}

// atomicCases lists a case for every atomic op and type, in global and
// local memory.
func atomicCases() []opCase {
	r := rand.New(rand.NewPCG(3, 4))
	var cases []opCase
	for _, op := range ir.Ops() {
		if !op.Info().Atomic {
			continue
		}
		for _, typ := range op.Info().Types.List() {
			for _, space := range []ir.Space{ir.Global, ir.Local} {
				a, b := operands(r, []ir.Type{typ, typ})
				cases = append(cases, opCase{in: ir.Instr{Op: op, Type: typ, Space: space}, imm: -1, bits: edges(typ)[3], a: a, b: b})
			}
		}
	}
	return cases
}

// operands draws pairs of operands: every pair of edge values, then
// random ones.
func operands(r *rand.Rand, types []ir.Type) (a, b []uint64) {
	second := ir.Int32
	if len(types) > 1 {
		second = types[1]
	}
	for _, x := range edges(types[0]) {
		for _, y := range edges(second) {
			a, b = append(a, x), append(b, y)
		}
	}
	for range 64 {
		a, b = append(a, random(r, types[0])), append(b, random(r, second))
	}
	return a, b
}

// edges are the values each type is tried with.
func edges(t ir.Type) []uint64 {
	switch {
	case t == ir.Bool:
		return []uint64{0, 1}
	case t == ir.Float32:
		var bits []uint64
		for _, f := range floatEdges {
			bits = append(bits, uint64(math.Float32bits(float32(f))))
		}
		return append(bits, 0x7fc00001, 0x00000001, 0x807fffff)
	case t == ir.Float64:
		var bits []uint64
		for _, f := range floatEdges {
			bits = append(bits, math.Float64bits(f))
		}
		return append(bits, 0x7ff8000000000001, 1, 0x800fffffffffffff)
	}
	w := uint64(t.Bits())
	vals := []uint64{0, 1, 2, 3, 7, w - 1, w, w + 1, 200, 0x5a5a5a5a5a5a5a5a, 1<<(w-1) - 1, 1 << (w - 1), ^uint64(0), ^uint64(1)}
	for i, v := range vals {
		vals[i] = t.Normalize(v)
	}
	return vals
}

var floatEdges = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 3, 7.75, -7.75, 1e20, -1e-20,
	math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 1e-310, 255.9, -128.5, 32768.5, -32769,
	2147483647.5, -2147483648.75, 4294967295.5, 4294967296, 9.3e18, -9.3e18, 1.8e19, 1.9e19}

func random(r *rand.Rand, t ir.Type) uint64 {
	switch t {
	case ir.Float32:
		if r.IntN(2) == 0 {
			return uint64(math.Float32bits(float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))))
		}
	case ir.Float64:
		if r.IntN(2) == 0 {
			return math.Float64bits(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))
		}
	}
	return t.Normalize(r.Uint64() >> r.IntN(64))
}

// memType is the type a value of type t is stored as.
func memType(t ir.Type) ir.Type {
	if t == ir.Bool {
		return ir.Uint8
	}
	return t
}

// kernel builds the case's kernel: thread i computes out[i] = op(a[i],
// b[i]).
func (c *opCase) kernel(name string) *ir.Kernel {
	if c.atomic() {
		return c.atomicKernel(name)
	}
	in := c.in
	types := in.ArgTypes()
	second := ir.Int32
	if len(types) > 1 {
		second = types[1]
	}
	result := in.ResultType()
	k := &ir.Kernel{Name: name, Params: []ir.Param{
		{Name: "a", Slice: true, Type: memType(types[0])},
		{Name: "b", Slice: true, Type: memType(second)},
		{Name: "out", Slice: true, Type: memType(result)},
	}}
	task := &ir.Task{Name: name + "_0", Kind: ir.Parallel}
	k.Tasks = []*ir.Task{task}
	entry, body, exit := task.NewBlock("entry"), task.NewBlock("body"), task.NewBlock("exit")
	emit := func(b *ir.Block, in ir.Instr) ir.Reg {
		if in.Dst == 0 {
			in.Dst = ir.NoReg
			if t := in.ResultType(); t != ir.Invalid {
				in.Dst = task.NewReg(t)
			}
		}
		b.Instrs = append(b.Instrs, in)
		return in.Dst
	}
	i := emit(entry, ir.Instr{Op: ir.OpThreadIndex})
	n := emit(entry, ir.Instr{Op: ir.OpParamLen, Aux: 2})
	inRange := emit(entry, ir.Instr{Op: ir.OpLt, Type: ir.Int64, Args: []ir.Arg{ir.R(i), ir.R(n)}})
	entry.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(inRange), Succs: [2]int{body.Index, exit.Index}}
	exit.Term = ir.Term{Kind: ir.Return}
	addr := func(param int64, t ir.Type) ir.Reg {
		base := emit(body, ir.Instr{Op: ir.OpParamBase, Aux: param})
		return emit(body, ir.Instr{Op: ir.OpElemAddr, Args: []ir.Arg{ir.R(base), ir.R(i)}, Aux: int64(memType(t).Size())})
	}
	for j, t := range types {
		if j == c.imm || j == 2 {
			in.Args = append(in.Args, ir.Imm(t, c.bits))
			continue
		}
		v := emit(body, ir.Instr{Op: ir.OpLoad, Type: memType(t), Args: []ir.Arg{ir.R(addr(int64(j), t))}})
		if t == ir.Bool {
			v = emit(body, ir.Instr{Op: ir.OpNe, Type: ir.Uint8, Args: []ir.Arg{ir.R(v), ir.Imm(ir.Uint8, 0)}})
		}
		in.Args = append(in.Args, ir.R(v))
	}
	in.Dst = 0
	v := emit(body, in)
	out := addr(2, result)
	if result != ir.Bool {
		emit(body, ir.Instr{Op: ir.OpStore, Type: result, Args: []ir.Arg{ir.R(out), ir.R(v)}})
		body.Term = ir.Term{Kind: ir.Return}
		return k
	}
	yes, no := task.NewBlock("true"), task.NewBlock("false")
	body.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(v), Succs: [2]int{yes.Index, no.Index}}
	for bit, b := range []*ir.Block{no, yes} {
		emit(b, ir.Instr{Op: ir.OpStore, Type: ir.Uint8, Args: []ir.Arg{ir.R(out), ir.Imm(ir.Uint8, uint64(bit))}})
		b.Term = ir.Term{Kind: ir.Return}
	}
	return k
}

func (c *opCase) atomicKernel(name string) *ir.Kernel {
	in, t := c.in, c.in.Type
	k := &ir.Kernel{Name: name, Params: []ir.Param{{Name: "a", Slice: true, Type: t}, {Name: "b", Slice: true, Type: t}, {Name: "out", Slice: true, Type: t}}}
	task := &ir.Task{Name: name + "_0", Kind: ir.Parallel, Vars: []ir.Var{{Name: "v", Space: ir.Local, Size: t.Size(), Align: t.Size()}}}
	k.Tasks = []*ir.Task{task}
	entry, body, exit := task.NewBlock("entry"), task.NewBlock("body"), task.NewBlock("exit")
	emit := func(in ir.Instr) ir.Reg {
		in.Dst = ir.NoReg
		if rt := in.ResultType(); rt != ir.Invalid {
			in.Dst = task.NewReg(rt)
		}
		b := body
		if in.Op == ir.OpThreadIndex || in.Op == ir.OpParamLen || in.Op == ir.OpLt {
			b = entry
		}
		b.Instrs = append(b.Instrs, in)
		return in.Dst
	}
	i := emit(ir.Instr{Op: ir.OpThreadIndex})
	n := emit(ir.Instr{Op: ir.OpParamLen, Aux: 2})
	entry.Term = ir.Term{Kind: ir.Branch, Cond: ir.R(emit(ir.Instr{Op: ir.OpLt, Type: ir.Int64, Args: []ir.Arg{ir.R(i), ir.R(n)}})), Succs: [2]int{body.Index, exit.Index}}
	exit.Term, body.Term = ir.Term{Kind: ir.Return}, ir.Term{Kind: ir.Return}
	addr := func(param int64) ir.Reg {
		base := emit(ir.Instr{Op: ir.OpParamBase, Aux: param})
		return emit(ir.Instr{Op: ir.OpElemAddr, Args: []ir.Arg{ir.R(base), ir.R(i)}, Aux: int64(t.Size())})
	}
	a := addr(0)
	p := a
	if in.Space == ir.Local {
		p = emit(ir.Instr{Op: ir.OpAddr, Aux: 0})
		x := emit(ir.Instr{Op: ir.OpLoad, Type: t, Args: []ir.Arg{ir.R(a)}})
		emit(ir.Instr{Op: ir.OpStore, Type: t, Space: ir.Local, Args: []ir.Arg{ir.R(p), ir.R(x)}})
	}
	in.Args = []ir.Arg{ir.R(p)}
	if len(in.ArgTypes()) > 1 {
		in.Args = append(in.Args, ir.R(emit(ir.Instr{Op: ir.OpLoad, Type: t, Args: []ir.Arg{ir.R(addr(1))}})))
	}
	if len(in.ArgTypes()) > 2 {
		in.Args = append(in.Args, ir.Imm(t, c.bits))
	}
	old := emit(in)
	if in.Space == ir.Local {
		y := emit(ir.Instr{Op: ir.OpLoad, Type: t, Space: ir.Local, Args: []ir.Arg{ir.R(p)}})
		emit(ir.Instr{Op: ir.OpStore, Type: t, Args: []ir.Arg{ir.R(a), ir.R(y)}})
	}
	if old != ir.NoReg {
		emit(ir.Instr{Op: ir.OpStore, Type: t, Args: []ir.Arg{ir.R(addr(2)), ir.R(old)}})
	}
	return k
}

// writeMain adds the program that runs the kernels: for each, it reads n
// and the slices a and b from standard input, runs n threads one after
// the other and writes out, then a.
func writeMain(b *bytes.Buffer, kernels []*ir.Kernel) {
	b.WriteString("\ntypedef void (*kernel)(char *, i64, char *, i64, char *, i64);\n")
	b.WriteString("struct entry { kernel run; int a, b, out; };\nstatic const entry kernels[] = {\n")
	for _, k := range kernels {
		fmt.Fprintf(b, "\t{%s, %d, %d, %d},\n", k.Tasks[0].Name, k.Params[0].Type.Size(), k.Params[1].Type.Size(), k.Params[2].Type.Size())
	}
	b.WriteString(`};
int main() {
	for (const entry &k : kernels) {
		i64 n;
		if (fread(&n, 8, 1, stdin) != 1) return 2;
		char *a = (char *)calloc(n, k.a), *b = (char *)calloc(n, k.b), *out = (char *)calloc(n, k.out);
		if (fread(a, k.a, n, stdin) != (size_t)n || fread(b, k.b, n, stdin) != (size_t)n) return 3;
		gridDim.x = 1;
		blockDim.x = n;
		for (i64 i = 0; i < n; i++) {
			threadIdx.x = i;
			k.run(a, n, b, n, out, n);
		}
		fwrite(out, k.out, n, stdout);
		fwrite(a, k.a, n, stdout);
		free(a);
		free(b);
		free(out);
	}
	return 0;
}
`)
}

func (c *opCase) writeInput(w *bytes.Buffer) {
	binary.Write(w, binary.LittleEndian, int64(len(c.a)))
	types := c.in.ArgTypes()
	second := ir.Int32
	if len(types) > 1 {
		second = types[1]
	}
	put := func(vals []uint64, t ir.Type) {
		var buf [8]byte
		for _, v := range vals {
			binary.LittleEndian.PutUint64(buf[:], v)
			w.Write(buf[:memType(t).Size()])
		}
	}
	if c.atomic() {
		types, second = []ir.Type{c.in.Type}, c.in.Type
	}
	put(c.a, types[0])
	put(c.b, second)
}

// check compares the results at the start of out with the reference
// semantics and returns the rest of out.
func (c *opCase) check(t *testing.T, k *ir.Kernel, out []byte) []byte {
	t.Helper()
	if c.atomic() {
		return c.checkAtomic(t, k, out)
	}
	result := c.in.ResultType()
	size := memType(result).Size()
	bad := 0
	for i := range c.a {
		args := []uint64{c.a[i], c.b[i], c.bits}[:len(c.in.ArgTypes())]
		if c.imm >= 0 {
			args[c.imm] = c.bits
		}
		want := expected(&c.in, args)
		var buf [8]byte
		copy(buf[:], out[i*size:(i+1)*size])
		got := result.Normalize(binary.LittleEndian.Uint64(buf[:]))
		if !same(result, want, got) {
			if bad < 3 {
				t.Errorf("%s: %s of %#x: got %#x, want %#x", k.Name, formatInstr(k), args, got, want)
			}
			bad++
		}
	}
	return out[len(c.a)*(size+k.Params[0].Type.Size()):]
}

// checkAtomic compares each old value and what the op left in memory with
// ir.AtomicUpdate.
func (c *opCase) checkAtomic(t *testing.T, k *ir.Kernel, out []byte) []byte {
	t.Helper()
	typ := c.in.Type
	size, n := typ.Size(), len(c.a)
	value := func(b []byte) uint64 {
		var buf [8]byte
		copy(buf[:], b[:size])
		return typ.Normalize(binary.LittleEndian.Uint64(buf[:]))
	}
	bad := 0
	for i := range c.a {
		args := []uint64{c.b[i], c.bits}[:len(c.in.ArgTypes())-1]
		mem, write := ir.AtomicUpdate(&c.in, c.a[i], args)
		if !write {
			mem = c.a[i]
		}
		got, gotMem := value(out[i*size:]), value(out[(n+i)*size:])
		if c.in.Op != ir.OpAtomicStore && !same(typ, c.a[i], got) || !same(typ, mem, gotMem) {
			if bad < 3 {
				t.Errorf("%s: %s %s of %#x with %#x: old %#x, memory %#x; want %#x, %#x", k.Name, c.in.Op, c.in.Space, c.a[i], args, got, gotMem, c.a[i], mem)
			}
			bad++
		}
	}
	return out[2*n*size:]
}

func formatInstr(k *ir.Kernel) string {
	for _, b := range k.Tasks[0].Blocks {
		for j := range b.Instrs {
			in := &b.Instrs[j]
			if in.Op != ir.OpLoad && in.Op != ir.OpStore && in.Op != ir.OpElemAddr && in.Op != ir.OpParamBase &&
				in.Op != ir.OpThreadIndex && in.Op != ir.OpParamLen && !(in.Op == ir.OpLt && b.Index == 0) &&
				!(in.Op == ir.OpNe && in.Type == ir.Uint8 && in.Args[1].Imm) {
				return strings.TrimSpace(k.FormatInstr(k.Tasks[0], in))
			}
		}
	}
	return "?"
}

// expected is the reference result. Integer division by zero, a panic in
// Go, gives 0; a float converted to an integer it cannot represent, which
// Go leaves to the implementation, gives what PTX gives.
func expected(in *ir.Instr, args []uint64) uint64 {
	if in.Op == ir.OpConvert && in.From.IsFloat() && in.Type.IsInteger() {
		return saturatingConvert(in.From, in.Type, args[0])
	}
	v, err := ir.Fold(in, args)
	if err != nil {
		return 0
	}
	return v
}

// saturatingConvert converts as PTX's cvt.rzi does, to 32 bits for the
// narrow types: NaN gives 0, values beyond the range its nearest end.
func saturatingConvert(from, to ir.Type, bits uint64) uint64 {
	f := math.Float64frombits(bits)
	if from == ir.Float32 {
		f = float64(math.Float32frombits(uint32(bits)))
	}
	t := to
	if t.Size() < 4 {
		t = ir.Int32
		if to.IsUnsigned() {
			t = ir.Uint32
		}
	}
	f = math.Trunc(f)
	var v uint64
	switch {
	case f != f:
		v = 0
	case t.IsSigned() && f < -math.Ldexp(1, t.Bits()-1):
		v = 1 << (t.Bits() - 1)
	case t.IsSigned() && f >= math.Ldexp(1, t.Bits()-1):
		v = 1<<(t.Bits()-1) - 1
	case t.IsSigned():
		v = uint64(int64(f))
	case f < 0:
		v = 0
	case f >= math.Ldexp(1, t.Bits()):
		v = ^uint64(0)
	default:
		v = uint64(f)
	}
	return to.Normalize(v)
}

// same compares results bit for bit, with every NaN equal to every other.
func same(t ir.Type, x, y uint64) bool {
	switch t {
	case ir.Float32:
		f, g := math.Float32frombits(uint32(x)), math.Float32frombits(uint32(y))
		return x == y || f != f && g != g
	case ir.Float64:
		f, g := math.Float64frombits(x), math.Float64frombits(y)
		return x == y || f != f && g != g
	}
	return x == y
}
