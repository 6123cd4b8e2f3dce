// Command sass compares the SASS of qd's kernels with nvcc's for the same
// algorithms, kernel by kernel and loop by loop, without a GPU: the
// instruction count of each function and of its innermost loops, and in
// those loops the global loads, 64-bit integer instructions, calls (the
// division routines), special-function instructions and moves into uniform
// registers (R2UR: on sm_90, reloads of the global-memory descriptor that
// nvcc's loops do not have). bench/sass/compare
// produces its inputs (cuobjdump -sass of both cubins) and runs it.
//
//	sass qd.sass nvcc.sass
package main

import (
	"bufio"
	"fmt"
	"log"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// instr is one SASS instruction.
type instr struct {
	addr   int
	opcode string // with modifiers, e.g. IMAD.WIDE.U32
	text   string
}

// function is one kernel's code.
type function struct {
	name   string
	instrs []instr
}

var (
	functionLine = regexp.MustCompile(`^\s*Function : (\S+)`)
	instrLine    = regexp.MustCompile(`^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;`)
	branchTarget = regexp.MustCompile(`\b(?:BRA|BRX)\b.*?\(?0x([0-9a-f]+)\)?`)
	mangled      = regexp.MustCompile(`^_Z(\d+)`)
)

// parse reads cuobjdump -sass output.
func parse(path string) map[string]*function {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fns := map[string]*function{}
	var cur *function
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := functionLine.FindStringSubmatch(line); m != nil {
			cur = &function{name: kernelName(m[1])}
			fns[cur.name] = cur
			continue
		}
		m := instrLine.FindStringSubmatch(line)
		if m == nil || cur == nil {
			continue
		}
		addr, _ := strconv.ParseInt(m[1], 16, 64)
		text := m[2]
		body := strings.TrimSpace(strings.TrimPrefix(text, predicate(text)))
		op, _, _ := strings.Cut(body, " ")
		cur.instrs = append(cur.instrs, instr{addr: int(addr), opcode: op, text: text})
	}
	return fns
}

func predicate(text string) string {
	if strings.HasPrefix(text, "@") {
		p, _, _ := strings.Cut(text, " ")
		return p
	}
	return ""
}

// kernelName maps nvcc's mangled names and qd's task names (Kernel_0) to
// the kernel's name.
func kernelName(sym string) string {
	if m := mangled.FindStringSubmatch(sym); m != nil {
		n, _ := strconv.Atoi(m[1])
		rest := sym[len(m[0]):]
		if n <= len(rest) {
			return rest[:n]
		}
	}
	if i := strings.LastIndex(sym, "_"); i > 0 {
		if _, err := strconv.Atoi(sym[i+1:]); err == nil {
			return sym[:i]
		}
	}
	return sym
}

// loop is a range of instructions closed by a backward branch.
type loop struct{ from, to int } // indices into instrs, inclusive

// innermostLoops finds the backward branches and keeps the loops that
// contain no other.
func (f *function) innermostLoops() []loop {
	index := map[int]int{}
	for i, in := range f.instrs {
		index[in.addr] = i
	}
	var loops []loop
	for i, in := range f.instrs {
		if !strings.HasPrefix(in.opcode, "BRA") {
			continue
		}
		m := branchTarget.FindStringSubmatch(in.text)
		if m == nil {
			continue
		}
		target, _ := strconv.ParseInt(m[1], 16, 64)
		if j, ok := index[int(target)]; ok && j < i {
			loops = append(loops, loop{j, i})
		}
	}
	var inner []loop
	for _, l := range loops {
		nested := false
		for _, o := range loops {
			if o != l && o.from >= l.from && o.to <= l.to {
				nested = true
			}
		}
		if !nested {
			inner = append(inner, l)
		}
	}
	return inner
}

// counts classifies a loop's instructions.
type counts struct {
	total, loads, wide, calls, special, uniform int
}

func (f *function) count(from, to int) counts {
	var c counts
	for _, in := range f.instrs[from : to+1] {
		if in.opcode == "NOP" {
			continue
		}
		c.total++
		op := in.opcode
		switch {
		case strings.HasPrefix(op, "LDG") || strings.HasPrefix(op, "LD.") || op == "LD":
			c.loads++
		case strings.HasPrefix(op, "CALL"):
			c.calls++
		case strings.HasPrefix(op, "MUFU"):
			c.special++
		case op == "R2UR":
			c.uniform++
		}
		if isWide(in) {
			c.wide++
		}
	}
	return c
}

// isWide reports a 64-bit integer instruction, or the high half of one:
// the carries (.X), wide multiplies, 64-bit compares (.EX) and shifts.
func isWide(in instr) bool {
	op := in.opcode
	return strings.Contains(op, ".WIDE") || strings.HasSuffix(op, ".X") || strings.Contains(op, ".X.") ||
		strings.Contains(op, ".EX") || strings.HasPrefix(op, "SHF") || strings.Contains(op, ".64") ||
		strings.HasPrefix(op, "IMAD.HI")
}

func (c counts) String() string {
	return fmt.Sprintf("%3d instrs %2d ldg %2d wide %d call %d mufu %d r2ur", c.total, c.loads, c.wide, c.calls, c.special, c.uniform)
}

func main() {
	log.SetFlags(0)
	if len(os.Args) != 3 {
		log.Fatal("usage: sass qd.sass nvcc.sass")
	}
	qd, nv := parse(os.Args[1]), parse(os.Args[2])
	var names []string
	for name := range qd {
		if nv[name] != nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	fmt.Printf("%-13s %14s   innermost loops (qd | nvcc)\n", "kernel", "instrs qd/nvcc")
	for _, name := range names {
		q, n := qd[name], nv[name]
		qt, nt := q.count(0, len(q.instrs)-1), n.count(0, len(n.instrs)-1)
		fmt.Printf("%-13s %6d / %-6d calls %d/%d\n", name, qt.total, nt.total, qt.calls, nt.calls)
		ql, nl := q.innermostLoops(), n.innermostLoops()
		for i := range max(len(ql), len(nl)) {
			left, right := "", ""
			if i < len(ql) {
				left = q.count(ql[i].from, ql[i].to).String()
			}
			if i < len(nl) {
				right = n.count(nl[i].from, nl[i].to).String()
			}
			fmt.Printf("    %-52s | %s\n", left, right)
		}
	}
}
