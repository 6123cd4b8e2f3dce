package ir

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/internal/fault"
)

// Site is a place in a kernel's source where a check may fail: an index,
// a slice expression or an integer division. Its kind says what Go's
// runtime reports there: "site 0 index kernels.go:14:9"; a site whose
// index has an unsigned type prints it as unsigned: "site 1 index
// unsigned kernels.go:20:5".
type Site struct {
	Kind     fault.Kind
	Unsigned bool // the value checked has an unsigned type
	File     string
	Line     int
	Col      int
}

func (s Site) String() string {
	u := ""
	if s.Unsigned {
		u = " unsigned"
	}
	return fmt.Sprintf("%s%s %s:%d:%d", s.Kind, u, s.File, s.Line, s.Col)
}

// Pos is the site's position, as "kernels.go:14:9".
func (s Site) Pos() string { return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col) }

// checkKind reports whether the check op in may check a site of kind k.
func checkKind(op Op, k fault.Kind) bool {
	switch op {
	case OpCheckIndex:
		return k == fault.Index
	case OpCheckSlice:
		return k.Bounds() && k != fault.Index
	case OpCheckDivide:
		return k == fault.Divide || k == fault.Overflow
	}
	return false
}

// Failed reports whether the check in fails on its operand bits, and the
// values a fault records.
func Failed(in *Instr, args []uint64) (failed bool, x, y uint64) {
	switch in.Op {
	case OpCheckIndex:
		return args[0] >= args[1], args[0], args[1]
	case OpCheckSlice:
		return args[0] > args[1], args[0], args[1]
	case OpCheckDivide:
		return in.Type.Normalize(args[0]) == 0, 0, 0
	}
	return false, 0, 0
}

// A Fault is a check that failed in the interpreter: what Go would panic
// with.
type Fault struct {
	Task string
	Site Site
	X, Y uint64
}

func (f *Fault) Error() string {
	signed := f.Site.Kind.Bounds() && !f.Site.Unsigned
	return fmt.Sprintf("runtime error: %s (%s)", fault.Message(f.Site.Kind, f.X, signed, int64(f.Y)), f.Site.Pos())
}

// The scratch memory of a launch of a kernel with reductions: for each
// reduction r, a header of two 8-byte words (its final result, and the
// number of blocks whose partial results the grid left), then each block's
// partial results, block b's of reduction r at word b*Reductions + r.

// ScratchResult is the offset of reduction r's result.
func ScratchResult(r int) int64 { return 16 * int64(r) }

// ScratchBlocks is the offset of the number of partial results of
// reduction r.
func ScratchBlocks(r int) int64 { return 16*int64(r) + 8 }

// ScratchFixed is the size of the headers of k's scratch memory, and
// ScratchPerBlock the bytes it needs for each block of a parallel task.
func (k *Kernel) ScratchFixed() int    { return 16 * k.Reductions }
func (k *Kernel) ScratchPerBlock() int { return 8 * k.Reductions }

// checkSites verifies the kernel's fault sites: known kinds, and positions
// the printed form can hold.
func (k *Kernel) checkSites() error {
	for i, s := range k.Sites {
		if !s.Kind.Bounds() && s.Kind != fault.Divide && s.Kind != fault.Overflow {
			return fmt.Errorf("site %d has kind %s", i, s.Kind)
		}
		if s.File == "" || strings.ContainsAny(s.File, " \t#"+punctuation) {
			return fmt.Errorf("site %d: file name %q cannot be printed", i, s.File)
		}
	}
	return nil
}
