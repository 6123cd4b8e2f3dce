package ptx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/qdgo/qd/emit/ptx"
	"github.com/qdgo/qd/internal/golden"
	"github.com/qdgo/qd/internal/testlong"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
	"github.com/qdgo/qd/lower/lowertest"
)

// kernelDirs are the packages of test kernels whose PTX is checked.
var kernelDirs = []string{
	"../../lower/testdata/src/kernels",
	"../../generated_test/kernels",
	"../../generated_test/mathkernels",
	"../../generated_test/names",
	"../../example/saxpy",
	"../../example/computeab",
	"../../example/mandelbrot",
	"../../example/streams",
	"../../example/pipeline",
	"../../bench/kernels",
}

func load(t *testing.T) map[string][]*ir.Kernel {
	files := map[string][]*ir.Kernel{}
	for _, dir := range moduleDirs() {
		for _, f := range lowertest.Load(t, dir) {
			// The name of the file's directory is not enough: two are
			// named kernels.
			name := strings.NewReplacer("../", "", "/", "_").Replace(dir) + "_" + f.Name
			files[name] = f.Kernels
		}
	}
	return files
}

// moduleDirs are the directories of kernelDirs whose modules the tests of
// every module check: all of them under QD_LONG=1, and all but the math
// kernels otherwise, whose lowering compiles most of Go's package math and
// takes most of the time of loading them all (generated_test runs them
// against Go on every backend still).
func moduleDirs() []string {
	if testlong.Enabled() {
		return kernelDirs
	}
	var dirs []string
	for _, dir := range kernelDirs {
		if !strings.HasSuffix(dir, "/mathkernels") {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// TestGolden compares the PTX of the lowering's test kernels with
// testdata/<file>.ptx.
func TestGolden(t *testing.T) {
	for _, f := range lowertest.Load(t, kernelDirs[0]) {
		golden.Check(t, filepath.Join("testdata", f.Name+".ptx"), ptx.Module(f.Kernels))
	}
}

// TestFromIR emits the PTX of the IR in testdata/fromir/X.ir and compares
// it with X.ptx, without loading any Go package.
func TestFromIR(t *testing.T) {
	for name, ks := range fromIR(t) {
		golden.Check(t, filepath.Join("testdata", "fromir", name+".ptx"), ptx.Module(ks))
	}
}

// fromIR parses the kernels of testdata/fromir, by file name.
func fromIR(t *testing.T) map[string][]*ir.Kernel {
	files, _ := filepath.Glob(filepath.Join("testdata", "fromir", "*.ir"))
	if len(files) == 0 {
		t.Fatal("no testdata/fromir/*.ir")
	}
	kernels := map[string][]*ir.Kernel{}
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := ir.Parse(string(text))
		if err != nil {
			t.Fatalf("%s:%v", path, err)
		}
		for _, k := range ks {
			if err := k.Check(); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		kernels[strings.TrimSuffix(filepath.Base(path), ".ir")] = ks
	}
	return kernels
}

// TestEveryOp emits one instruction of every op, for every type it takes,
// with register and with immediate operands, so that an op without a case
// in the emitter fails here rather than in a user's kernel.
func TestEveryOp(t *testing.T) {
	for _, immediates := range []bool{false, true} {
		for _, k := range irtest.OpKernels(immediates) {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("kernel %s:\n%s\npanics: %v", k.Name, k, r)
					}
				}()
				ptx.Module([]*ir.Kernel{k})
			}()
		}
	}
}

// TestAssemble assembles emitted modules with ptxas for the oldest and
// newest targets the output promises: by default the module of every op,
// the modules made from IR text and those of the lowering's test kernels
// and of saxpy, for sm_70 and sm_90; under QD_LONG=1 every module for
// sm_70, sm_80 and sm_90. Without ptxas the test skips, except under CI,
// where .ci/run installs it.
func TestAssemble(t *testing.T) {
	ptxas := findPtxas()
	if ptxas == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ptxas not found under CI (set PTXAS or put it on PATH; .ci/run installs it)")
		}
		t.Skip("ptxas not found: set PTXAS or run .ci/ptxas")
	}
	dir := t.TempDir()
	modules := map[string][]*ir.Kernel{}
	archs := []string{"sm_70", "sm_90"}
	if testlong.Enabled() {
		modules = load(t)
		archs = []string{"sm_70", "sm_80", "sm_90"}
	} else {
		for _, d := range []string{kernelDirs[0], "../../example/saxpy"} {
			for _, f := range lowertest.Load(t, d) {
				modules[filepath.Base(d)+"_"+f.Name] = f.Kernels
			}
		}
	}
	for name, ks := range fromIR(t) {
		modules["fromir_"+name] = ks
	}
	modules["ops"] = append(irtest.OpKernels(false), irtest.OpKernels(true)...)
	for name, ks := range modules {
		src := filepath.Join(dir, name+".ptx")
		if err := os.WriteFile(src, []byte(ptx.Module(ks)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, arch := range archs {
			out, err := exec.Command(ptxas, "-arch="+arch, src, "-o", filepath.Join(dir, name+"."+arch+".cubin")).CombinedOutput()
			if err != nil {
				t.Errorf("ptxas -arch=%s %s: %v\n%s", arch, name, err, out)
			}
		}
	}
}

func findPtxas() string {
	if p := os.Getenv("PTXAS"); p != "" {
		return p
	}
	if p, err := exec.LookPath("ptxas"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "qd-tools", "bin", "ptxas")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// entry returns the body of one entry point of a module.
func entry(t *testing.T, module, name string) string {
	t.Helper()
	start := strings.Index(module, ".entry "+name+"(")
	if start < 0 { // a device function
		start = strings.Index(module, " "+name+"(\n")
	}
	if start < 0 {
		t.Fatalf("no entry %s", name)
	}
	end := strings.Index(module[start:], "\n}\n")
	return module[start : start+end]
}

// TestCodegen checks properties of the emitted code, in the manner of the
// Go compiler's asmcheck tests: patterns an entry must or must not have.
func TestCodegen(t *testing.T) {
	files := map[string][]*ir.Kernel{}
	for _, dir := range kernelDirs[:2] {
		for _, f := range lowertest.Load(t, dir) {
			files[filepath.Join(dir, f.Name)] = f.Kernels // both directories are named kernels
		}
	}
	all := map[string]*ir.Kernel{}
	var kernels []*ir.Kernel
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, k := range files[name] {
			if all[k.Name] == nil {
				all[k.Name] = k
				kernels = append(kernels, k)
			}
		}
	}
	module := ptx.Module(kernels)
	for _, c := range []struct {
		entry       string
		must, never []string
	}{
		// Division by constants becomes multiplication.
		{entry: "Spin_0", must: []string{`mul\.hi\.s64`}, never: []string{`\bdiv\.`, `\brem\.`}},
		// Float arithmetic is rounded explicitly, so it is never contracted
		// into FMA, and division is IEEE.
		{entry: "Saxpy_0", must: []string{`mul\.rn\.f32`, `add\.rn\.f32`}, never: []string{`\bfma\b`, `\bmad\.f`}},
		{entry: "Floats_0", must: []string{`div\.rn\.f64`, `sqrt\.rn\.f64`, `cvt\.rmi\.f64\.f64`}, never: []string{`\.approx`, `\.ftz`}},
		// float32(math.Sqrt(float64(x))) stays in float32.
		{entry: "Floats32_0", must: []string{`sqrt\.rn\.f32`}, never: []string{`sqrt\.rn\.f64`}},
		// Narrow integers are re-extended after arithmetic, signed ones by
		// cvt (TestNoBitFieldExtract says why).
		{entry: "Narrow_0", must: []string{`cvt\.s32\.s8 %r\d+, %r\d+`, `cvt\.s32\.s16 %r\d+, %r\d+`, `and\.b32 %r\d+, %r\d+, 255`}, never: []string{`\bbfe\.`}},
		// A 64-bit shift count is clamped before the shift.
		{entry: "Shifts_0", must: []string{`min\.u64`}},
		// Structs in slices are read and written field by field in global
		// memory, a bool as a byte; local structs and arrays indexed by
		// constants live in registers; tables are read from global memory.
		{entry: "Move_0", must: []string{`ld\.global\.u8`, `st\.global\.f32`}, never: []string{`\.local`}},
		{entry: "Filter_0", must: []string{`ld\.global\.f32 %f\d+, \[%rd\d+\]`}, never: []string{`\.local`}},
		// Complex division is the runtime's, in float64 for complex64.
		{entry: "Divide_0", must: []string{`div\.rn\.f64`, `cvt\.rn\.f32\.f64`}, never: []string{`div\.rn\.f32`}},
		// A loop nest divides only to split each thread's first index.
		{entry: "Image_0", must: []string{`div\.u64`}, never: []string{`rem\.`}},
		// A nest's own tests keep a[y] and b[x] in range: out's index is
		// its one check.
		{entry: "Outer_0", must: []string{`\$Lfault_0:`}, never: []string{`\$Lfault_1:`}},
		// A reduction over a nest: one partial result per thread over all
		// its levels, combined as a single loop's.
		{entry: "NestSum_0", must: []string{`div\.u64`, `shfl\.sync\.down\.b32`, `bar\.sync 0`, `st\.shared\.f32`}},
		// Arrays indexed by variables: the table's index is checked against
		// its length, those a loop's test, a remainder or a mask keep in
		// range are not; the local array lives in local memory.
		{entry: "Lookup_0", must: []string{`setp\.ge\.u64 %pt\d+, %rd\d+, 4;`, `ld\.local\.f32`},
			// Once in each copy of the loop (opt.HoistChecks).
			never: []string{`(?s)(setp\.ge\.u64 %pt\d+, %rd\d+, 4;.*){3}`}},
		// Helpers too large to inline everywhere are called.
		{entry: "Chain_0", must: []string{`call \(call\d+_ret\), Chain\$chain\d+, \(call\d+_arg0\)`}},
		{entry: "MultiResults_0", must: []string{`call \(call\d+_ret\), MultiResults\$mixAll,`}},
		// A loop over a table, unrolled fully, reads the table at constant
		// positions: the loads become immediates.
		{entry: "Blur5_0", never: []string{`qdata_gauss5`}},
		// A function of structs, arrays and complex numbers is called too.
		{entry: "StructCalls_0", must: []string{`call \(call\d+_ret\), StructCalls\$spin,`}},
		// The function's own variables are in local memory, never
		// addressed as global.
		{entry: "StructCalls$spin", must: []string{`st\.local\.`}, never: []string{`\.global\.`}},
		// Loops written as range 3 and range 8 are unrolled fully: the
		// index is a constant in each copy, and x/16 is x*(1/16).
		{entry: "ClampedWindow_0", never: []string{`cvt\.rn\.f32\.s64`, `div\.rn\.f32`, `setp\.\w+\.s64 %p\d+, -?\d+, -?\d+;`}},
		// A loop of 100 rounds counts in 32 bits.
		{entry: "Rounds_0", must: []string{`setp\.lt\.s32 %p\d+, %r\d+, 100;`}, never: []string{`setp\.lt\.s64 %p\d+, %rd\d+, 100;`}},
		// math and math/bits use the GPU's instructions: math.FMA and the
		// FMA path of Exp, RoundToEven, bit counts and permutations.
		{entry: "Library_0", must: []string{`fma\.rn\.f64`, `cvt\.rni\.f64\.f64`, `popc\.b32`, `clz\.b32`, `brev\.b32`, `brev\.b64`, `prmt\.b32`},
			never: []string{`\.approx`, `\.ftz`}},
		// A check branches to a fault path after the body, which claims the
		// module's record with a compare-and-swap and ends the thread; a
		// loop over a slice indexes it unchecked.
		{entry: "Checked_1", must: []string{`setp\.ge\.u64 %pt\d+, %rd\d+, %rd\d+;\n\t@%pt\d+ bra \$Lfault_\d+`, `setp\.eq\.s64`,
			`atom\.global\.cas\.b32 %rt\d+, \[qd_fault_claim\]`, `membar\.sys`, `\bexit;`}},
		{entry: "Labels_0", never: []string{`\$Lfault`}},
		// Checks that a test before the loop decides leave the loop's
		// copy that runs when none can fail: its loads follow each other
		// without a conditional branch between them (the unrolled copies
		// of Columns' inner loop too).
		{entry: "Offsets_0", must: []string{`(ld\.global\.f32[^@]*){4}st\.global\.f32`}},
		{entry: "Columns_0", must: []string{`(ld\.global\.f32[^@]*){4}`}},
		{entry: "TableLookup_0", must: []string{`ld\.global\.u8[^@]*ld\.global\.u16[^@]*st\.global\.u16`}},
		{entry: "Fixed_0", must: []string{`(ld\.global\.f32[^@]*){2}st\.global\.f32`}},
		// nobounds leaves out the bounds checks, not the division's.
		{entry: "Unchecked_0", must: []string{`setp\.eq\.s32`}, never: []string{`setp\.ge\.u64`}},
		// A reduction shuffles within warps and meets at a barrier; its
		// loop runs four iterations in a row, four loads without a branch.
		{entry: "Sum_0", must: []string{`shfl\.sync\.down\.b32`, `bar\.sync 0`, `st\.shared\.f32`,
			`(ld\.global\.f32[^@]*){4}\n\$L_\d+:\n\tadd\.s64[^\n]*\n\tbra\.uni`}},
		{entry: "Sum_1", must: []string{`ld\.shared\.f32`, `%ctaid\.x|%tid\.x`}},
		// Atomic adds are one instruction, float ones too; Go's min and max
		// of floats and narrow elements take compare-and-swap loops (on an
		// element's address, unlike the claim of a fault record).
		{entry: "Histogram_0", must: []string{`atom\.global\.add\.u32`}, never: []string{`atom\.global\.cas\.b\d+ [^,]+, \[%`}},
		// The histogram's bins of bytes are counted in a copy in shared
		// memory, zeroed and added back after barriers.
		{entry: "Histogram_0", must: []string{`\.shared \.align 4 \.b8 qvar_private\d+\[1024\]`, `st\.shared\.u32`,
			`atom\.shared\.add\.u32`, `bar\.sync 0[^$]*(\n[^\n]*)*bar\.sync 0`, `ld\.shared\.u32`}},
		{entry: "FloatSums_0", must: []string{`atom\.global\.add\.f32`, `atom\.global\.add\.f64`}, never: []string{`atom\.global\.cas\.b\d+ [^,]+, \[%`}},
		{entry: "Extremes_0", must: []string{`atom\.global\.cas\.b64`, `atom\.global\.cas\.b32`, `atom\.global\.min\.s64`, `atom\.global\.max\.s64`, `bfi\.b32`}},
	} {
		body := entry(t, module, c.entry)
		for _, re := range c.must {
			if !regexp.MustCompile(re).MatchString(body) {
				t.Errorf("%s: missing %s", c.entry, re)
			}
		}
		for _, re := range c.never {
			if regexp.MustCompile(re).MatchString(body) {
				t.Errorf("%s: has %s", c.entry, re)
			}
		}
	}
}

// TestNoBitFieldExtract checks that no emitted module uses bfe. ptxas
// (CUDA 11.8 and 13.0) and the driver's JIT compile an unsigned
// int-to-float conversion (cvt.rn.f32.u32, cvt.rn.f64.u32) of a value
// sign-extended by bfe.s32 as a conversion of the signed narrow value,
// which is wrong for negative values; cvt.s32.s8 and cvt.s32.s16 are
// compiled correctly. TestConversionsGPU runs the patterns on a GPU.
func TestNoBitFieldExtract(t *testing.T) {
	modules := load(t)
	modules["ops"] = append(irtest.OpKernels(false), irtest.OpKernels(true)...)
	for name, ks := range fromIR(t) {
		modules["fromir_"+name] = ks
	}
	bfe := regexp.MustCompile(`(?m)^.*\bbfe\..*$`)
	for name, ks := range modules {
		if m := bfe.FindString(ptx.Module(ks)); m != "" {
			t.Errorf("%s: %s", name, strings.TrimSpace(m))
		}
	}
}

// TestSuiteCodegen checks what the optimizations do to the benchmark
// kernels of bench/suite, so that a change that loses one fails here.
func TestSuiteCodegen(t *testing.T) {
	var kernels []*ir.Kernel
	for _, f := range lowertest.Load(t, "../../bench/suite") {
		kernels = append(kernels, f.Kernels...)
	}
	module := ptx.Module(kernels)
	count := func(body, re string) int { return len(regexp.MustCompile(re).FindAllString(body, -1)) }
	// A small grid-stride loop runs four iterations at a time and the
	// ones left one by one: its body is there five times.
	const bodies = 5
	for _, c := range []struct {
		entry string
		re    string
		n     int // how many times re occurs
	}{
		// p/w and p%w divide once, in 32 bits when both fit. The divisor
		// does not change, so its check leaves the loop with the index
		// checks. The neighbours' checks, under the test for the border,
		// are decided for a window of p: the loop runs with its checks
		// before the window and after it (a body each), and without them
		// inside it, four iterations at a time (five bodies). The 32-bit
		// division multiplies by a reciprocal of w, divided once before
		// the loops: no division in 32 bits is left in a loop.
		// In 64 bits, only the pieces before and after the window divide:
		// where the 32-bit test fails, the window hands its iterations
		// to the checked piece after it.
		{"Stencil2D_0", `\bdiv\.s64`, 2},
		{"Stencil2D_0", `\bmul\.hi\.u32`, bodies + 2},
		{"Stencil2D_0", `\bdiv\.u32`, 2},
		{"Stencil2D_0", `bra \$Lfault`, 2 * (6 + 1)}, // the pieces before and after the window alone
		{"Stencil3D_0", `\bmul\.hi\.u32`, 3 * (bodies + 2)},
		{"Stencil3D_0", `\bdiv\.u32`, 2 * 3},
		{"Stencil2D_0", `\brem\.`, 0},
		// Unrolled grid-stride loops keep every thread a multiprocessor
		// can hold: at most 32 registers, asked of ptxas. A loop that is
		// not unrolled leaves the count to ptxas.
		{"Stencil2D_0", `\.maxnreg 32\b`, 1},
		{"Stencil3D_0", `\.maxnreg 32\b`, 1},
		{"DigitSum_0", `\.maxnreg`, 0},
		// Whether both operands fit in 32 bits is one 32-bit test of the
		// high words, never a 64-bit comparison of the shifted value.
		{"DigitSum_0", `setp\.eq\.u32 %p\d+, %r\d+, 0;`, 2},
		{"DigitSum_0", `setp\.eq\.u64 %p\d+, %rd\d+, 0;`, 0},
		// The digit loop divides by a base no loop changes: its check
		// leaves both loops with the grid-stride loop's index checks, so
		// only the copy with checks tests it. Neither copy's digit loop
		// is unrolled, as the division is long.
		{"DigitSum_0", `setp\.eq\.s64 %pt\d+, %rd\d+, 0;`, 1},
		{"DigitSum_0", `\bdiv\.s64`, 2},
		{"Transpose_0", `\brem\.`, 0},
		// The 3×3 window is unrolled fully: nine loads, no comparison
		// of constants, no multiplication by one. Its clamped indices are
		// checked before the loop, in the copy without checks, and the
		// copy with them checks each.
		{"Blur_0", `ld\.global\.u8`, 2 * 9},
		{"Blur_0", `bra \$Lfault`, 9 + 1},
		// The sum of nine bytes fits in 32 bits: sum/9 multiplies in 32
		// bits, in each copy, not in 64.
		{"Blur_0", `mul\.hi\.u32 %r\d+, %r\d+, 3340530120;`, 2},
		{"Blur_0", `mul\.hi\.[su]64`, 1}, // the test of the bounds before the loop
		// uint8(sum/9) is only stored: st.global.u8 writes its low byte,
		// and nothing masks the bits above.
		{"Blur_0", `and\.b32 %r\d+, %r\d+, 255;`, 0},
		{"Blur_0", `setp\.\w+\.s64 %p\d+, -?\d+, -?\d+;`, 0},
		{"Blur_0", `mul\.lo\.s64 %rd\d+, %rd\d+, 1;`, 0},
		// Division by 16 and 8 is multiplication by 1/16 and 1/8; by 3 it
		// stays a division. The eight scenarios are unrolled and folded.
		// The copy without checks runs four iterations at a time, then
		// one; the checked copy one.
		{"Options_0", `div\.rn\.f32`, bodies + 1},
		{"Options_0", `mul\.rn\.f32 %f\d+, %f\d+, 0f3E000000;`, bodies + 1},
		{"Options_0", `cvt\.rn\.f32\.s64`, 0},
		// The scenario at k = 4 multiplies by 1, which is the price
		// itself: seven prices are products, and so is the × 0.95.
		{"Options_0", `mul\.rn\.f32 %f\d+, %f\d+, 0f3F800000;`, 0},
		{"Options_0", `mul\.rn\.f32 %f\d+, %f\d+, 0f3F[0-9A-F]+;`, (7 + 1) * (bodies + 1)},
		// w-1 and h-1 are computed once for the nine clamps, before the
		// grid-stride loop, and len(out)-1 once for the test of the
		// 32-bit copy (which adds -1 to w and h for its bounds of the
		// clamps, [min(0, h-1), h-1]); the thread count less 1 it no
		// longer tests, since the sum of len(out)-1 and the thread count
		// is tested.
		{"Blur_0", `sub\.s64 %rd\d+, %rd\d+, 1;`, 2 + 1},
		// The grid-stride loop without checks tests its bound once per
		// four iterations (in 32 bits, where the launch-time test allows
		// 32-bit steps), and once per iteration for the last ones; the
		// four copies' elements are addressed from one pointer per slice.
		// The checked copy tests once per iteration.
		{"Daxpy_0", `setp\.lt\.s64`, 2},
		{"Daxpy_0", `ld\.global\.f64`, 2 * (bodies + 1)},
		{"Daxpy_0", `mad\.lo\.s64`, 2 + 2 + 2},
		// The seven neighbours of the 3-D stencil are addressed from
		// in[p]: the two at ±1 with constant offsets, the others adding
		// offsets computed once. Its loop without checks runs four
		// iterations at a time too, between the pieces before and after
		// the window.
		{"Stencil3D_0", `ld\.global\.f32`, 7 * (bodies + 2)},
		{"Stencil3D_0", `add\.s64 %rd\d+, %rd\d+, -?4;`, 2 * (bodies + 2)},
		{"Stencil3D_0", `mad\.lo\.s64`, 2 * 4}, // in[p] and out[p] before each loop: four at a time, the rest, before and after the window
		// i = p/n and j = p%n share one division (in each copy): in 32
		// unsigned bits in the 32-bit copy, by a reciprocal of n computed
		// before the loop, and in the copy with checks in 64 bits where
		// the operands do not fit in 32.
		{"Matmul_0", `\bdiv\.s64`, 1},
		{"Matmul_0", `div\.u32 %r\d+, 4294967295, %r\d+;`, 2},
		// Transpose's index (p%h)*w + p/h is decided before its loop, by
		// one division of len(out)-1 by h: only the copy with checks
		// checks it, and h.
		{"Transpose_0", `bra \$Lfault`, 2},
		// max(x, 0) is a comparison and a select.
		{"Options_0", `setp\.gtu\.f32`, 8 * (bodies + 1)},
		// The inner products step pointers, the one along a row by 4
		// bytes, in each of the unrolled copies (Matmul's body, two loads
		// an iteration, is unrolled sixteen times) and the remainder loop
		// of the copy without checks. The copies that keep their checks are not
		// unrolled, so that their registers do not cost the fast copy
		// occupancy. Matmul's inner loop comes once without checks and
		// twice with them (its own copy, and the outer loop's); MatVec's
		// once without and once with: x[j], j < n, is decided before the
		// outer loop, by n ≤ len(x).
		{"Matmul_0", `add\.s64 %rd\d+, %rd\d+, 4;`, 16 + 1 + 2},
		{"MatVec_0", `add\.s64 %rd\d+, %rd\d+, 4;`, 8 + 1 + 1},
		{"Matmul_0", `ld\.global\.f32`, 2*(16+1) + 2*2},
		// A column's norm loads once an iteration: its loop is unrolled
		// sixteen times, as an inner product's is, then the remainder
		// loop, and the
		// copy with checks. The pointer down the column steps by the row
		// length in bytes, a 32-bit count widened by one multiply before
		// the loop, where a test finds it fits (opt.NarrowPointerSteps):
		// ptxas folds it into each step. So do the inner products' steps
		// down a column of b.
		{"ColNorm_0", `ld\.global\.f32`, 16 + 1 + 1},
		{"ColNorms_0", `ld\.global\.f32`, 16 + 1 + 1},
		{"ColNorm_0", `mul\.wide\.s32 %rd\d+, %r\d+, 4;`, 1},
		{"ColNorms_0", `mul\.wide\.s32 %rd\d+, %r\d+, 4;`, 1},
		{"Matmul_0", `mul\.wide\.s32 %rd\d+, %r\d+, 4;`, 1},
		{"Gemm_0", `mul\.wide\.s32 %rd\d+, %r\d+, 4;`, 1},
	} {
		if got := count(entry(t, module, c.entry), c.re); got != c.n {
			t.Errorf("%s: %d of %s, want %d", c.entry, got, c.re, c.n)
		}
	}
}

// TestSharedLibraryFunction checks that the kernels of a module that call
// math.Exp (Library and Exponential of the lowering's test kernels) call
// one device function of the module, written once, and that ptxas, where
// present, accepts the module.
func TestSharedLibraryFunction(t *testing.T) {
	var kernels []*ir.Kernel
	for _, f := range lowertest.Load(t, kernelDirs[0]) {
		if f.Name == "library" {
			kernels = f.Kernels
		}
	}
	module := ptx.Module(kernels)
	if n := strings.Count(module, ") amd64math$Exp(\n"); n != 1 {
		t.Errorf("the module defines amd64math$Exp %d times, want once", n)
	}
	for _, entry := range []string{"Library_0", "Exponential_0"} {
		start := strings.Index(module, ".entry "+entry+"(")
		if start < 0 {
			t.Fatalf("no entry %s", entry)
		}
		body := module[start:]
		if end := strings.Index(body[1:], "\n.visible .entry "); end >= 0 {
			body = body[:end]
		}
		if !strings.Contains(body, "amd64math$Exp, (") {
			t.Errorf("%s does not call amd64math$Exp", entry)
		}
	}
	ptxas := findPtxas()
	if ptxas == "" {
		t.Skip("ptxas not found: set PTXAS or run .ci/ptxas")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "library.ptx")
	if err := os.WriteFile(src, []byte(module), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ptxas, "-arch=sm_90", src, "-o", filepath.Join(dir, "library.cubin")).CombinedOutput(); err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
}
