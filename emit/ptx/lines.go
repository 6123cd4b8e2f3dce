package ptx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qdgo/qd/ir"
)

// Line information: the module declares the Go files its code comes from
// (.file), and the code says where each run of instructions of one Go line
// starts (.loc file line column), so that the driver's compiler, given
// line information on (rt passes it), maps machine code to Go lines for
// compute-sanitizer, cuda-gdb and the profilers. It changes no
// instruction, so the code runs as fast as without it.

// declareFiles writes the .file directives of the kernels' source files,
// numbered from 1, and returns each file's number.
func declareFiles(b *strings.Builder, kernels []*ir.Kernel) map[string]int {
	files := map[string]int{}
	for i, name := range ir.SourceFiles(kernels) {
		files[name] = i + 1
		fmt.Fprintf(b, ".file %d %s\n", i+1, strconv.Quote(name))
	}
	return files
}

// locate writes a .loc before an instruction of another Go line than the
// last one located.
func (e *entry) locate(in *ir.Instr) {
	l, ok := e.k.LineOf(in.Pos)
	if !ok || l.File == e.loc.File && l.Line == e.loc.Line {
		return
	}
	e.loc = l
	fmt.Fprintf(&e.body, "\t.loc %d %d %d\n", e.files[l.File], l.Line, l.Col)
}
