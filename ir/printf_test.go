package ir_test

import (
	"strings"
	"testing"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/ir/irtest"
)

// TestPrintKernel prints the kernel of every verb on three threads, reads
// its text back and checks the interpreter's output line by line.
func TestPrintKernel(t *testing.T) {
	k := irtest.PrintKernel(false)
	if err := k.Check(); err != nil {
		t.Fatal(err)
	}
	text := k.String()
	if !strings.Contains(text, `format 0 i64 i8 u32 u64 u16 u8 f64 f32 f64 bool bool = "%d|%5d|`) {
		t.Errorf("the header does not show the format:\n%s", text)
	}
	ks, err := ir.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := ks[0].String(); got != text {
		t.Fatalf("printed again:\n%s\nwant:\n%s", got, text)
	}
	var out strings.Builder
	if err := (&ir.Interp{Mem: &ir.Heap{}, Threads: 3, Out: &out}).Run(ks[0], &ir.Values{Scalar: []uint64{0, 0}, Base: []uint64{0, 0}, Len: []int64{0, 0}}); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat(irtest.PrintOutput, 3); out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestPrintCFormat checks the format C's printf gets: lengths for 64-bit
// integers, u for unsigned decimals, s for bools.
func TestPrintCFormat(t *testing.T) {
	got := irtest.PrintFormat.CFormat()
	want := "%lld|%5d|%x|%-4llX|%#o|%c|%+.3e|%E|%8.2f|%s|%-6s|%%\n"
	if got != want {
		t.Errorf("CFormat = %q, want %q", got, want)
	}
	p := ir.Print{Format: "%d %d\n", Types: []ir.Type{ir.Uint64, ir.Uint8}}
	if got, want := p.CFormat(), "%llu %u\n"; got != want {
		t.Errorf("CFormat = %q, want %q", got, want)
	}
}

// TestPrintCheck rejects formats that do not fit their operands.
func TestPrintCheck(t *testing.T) {
	for _, tc := range []struct {
		p    ir.Print
		want string
	}{
		{ir.Print{Format: "%d", Types: []ir.Type{ir.Float32}}, "%d of f32"},
		{ir.Print{Format: "%f", Types: []ir.Type{ir.Int32}}, "%f of i32"},
		{ir.Print{Format: "%t", Types: []ir.Type{ir.Int32}}, "%t of i32"},
		{ir.Print{Format: "%+t", Types: []ir.Type{ir.Bool}}, "flag '+' with %t"},
		{ir.Print{Format: "%#e", Types: []ir.Type{ir.Float64}}, "flag '#' with %e"},
		{ir.Print{Format: "%g", Types: []ir.Type{ir.Float64}}, "unknown verb 'g'"},
		{ir.Print{Format: "%d %d", Types: []ir.Type{ir.Int32}}, "2 conversions for 1 operands"},
		{ir.Print{Format: "%5", Types: nil}, "ends inside a conversion"},
	} {
		k := &ir.Kernel{Name: "K", Prints: []ir.Print{tc.p}, Tasks: []*ir.Task{{Name: "K_0", Blocks: []*ir.Block{{}}}}}
		err := k.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %v: error %v, want %q", tc.p.Format, tc.p.Types, err, tc.want)
		}
	}
}
