package ir

import "fmt"

// Space is the memory an address points into. Every address the IR
// computes stays in the space it came from, so emitters can use each
// space's own loads and stores.
type Space uint8

const (
	// Global memory holds the kernel's slices and constant tables.
	Global Space = iota
	// Shared memory is per block of threads: its threads see each other's
	// writes after a barrier.
	Shared
	// Local memory is private to one thread.
	Local
	numSpaces
)

var spaceNames = [numSpaces]string{Global: "global", Shared: "shared", Local: "local"}

func (s Space) String() string {
	if s < numSpaces {
		return spaceNames[s]
	}
	return fmt.Sprintf("space(%d)", uint8(s))
}

// spaceByName finds a space by its printed name.
func spaceByName(name string) (Space, bool) {
	for s, n := range spaceNames {
		if n == name {
			return Space(s), true
		}
	}
	return Global, false
}

// MaxBlockThreads is the most threads a block of a BlockLevel task may
// have: what every GPU qd targets allows.
const MaxBlockThreads = 1024

// MaxSharedBytes is the most shared memory a task may declare: the static
// shared memory every target allows a block (48 KiB on NVIDIA's GPUs; AMD's
// allow 64 KiB).
const MaxSharedBytes = 48 << 10

// SharedBytes is the shared memory t declares, its variables laid out in
// order, each at its alignment.
func (t *Task) SharedBytes() int {
	n := 0
	for _, v := range t.Vars {
		if v.Space == Shared {
			n = (n+v.Align-1)/v.Align*v.Align + v.Size
		}
	}
	return n
}

// Var is memory a task declares in shared or local space, such as a
// thread's array that is indexed by a variable, or a block's partial
// results: "var acc shared 1024 align 8". Its contents are undefined at
// the start of the task.
type Var struct {
	Name  string // an identifier, unique in the task
	Space Space  // Shared or Local
	Size  int    // in bytes
	Align int    // a power of two
}

// Data is a constant table of a kernel, in global memory, such as a
// package-level array that kernels only read: "data gauss5 align 4 =
// 0000803e...". Tables of the same name in kernels of one module are the
// same table.
type Data struct {
	Name  string // an identifier, unique in the kernel
	Bytes []byte
	Align int // a power of two
}

// isIdent reports whether s is an identifier of ASCII letters, digits and
// underscores, usable as a symbol by every emitter.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func checkAlign(align int) error {
	if align <= 0 || align&(align-1) != 0 {
		return fmt.Errorf("alignment %d is not a power of two", align)
	}
	return nil
}

// checkMemory verifies the kernel's tables and the task's variables.
func (k *Kernel) checkMemory(t *Task) error {
	for i, v := range t.Vars {
		switch {
		case !isIdent(v.Name):
			return fmt.Errorf("variable %d: name %q is not an identifier", i, v.Name)
		case v.Space != Shared && v.Space != Local:
			return fmt.Errorf("variable %s in %s memory: variables are shared or local", v.Name, v.Space)
		case v.Size <= 0:
			return fmt.Errorf("variable %s has size %d", v.Name, v.Size)
		}
		if err := checkAlign(v.Align); err != nil {
			return fmt.Errorf("variable %s: %w", v.Name, err)
		}
		for _, w := range t.Vars[:i] {
			if w.Name == v.Name {
				return fmt.Errorf("variable %s is declared twice", v.Name)
			}
		}
	}
	return nil
}

func (k *Kernel) checkData() error {
	for i, d := range k.Data {
		if !isIdent(d.Name) {
			return fmt.Errorf("table %d: name %q is not an identifier", i, d.Name)
		}
		if len(d.Bytes) == 0 {
			return fmt.Errorf("table %s is empty", d.Name)
		}
		if err := checkAlign(d.Align); err != nil {
			return fmt.Errorf("table %s: %w", d.Name, err)
		}
		for _, e := range k.Data[:i] {
			if e.Name == d.Name {
				return fmt.Errorf("table %s is declared twice", d.Name)
			}
		}
	}
	return nil
}

// ModuleTable is a constant table as a module declares it: once, under a
// symbol of its own.
type ModuleTable struct {
	Symbol string
	Data   Data
}

// ModuleTables lists the distinct constant tables of the kernels of one
// module, in order, and the symbol of each kernel's tables. Tables of one
// name are one table, declared as prefix+name; should two differ, the
// later gets a symbol of its own.
func ModuleTables(kernels []*Kernel, prefix string) ([]ModuleTable, map[*Kernel][]string) {
	var tables []ModuleTable
	symbols := map[*Kernel][]string{}
	declared := map[string][]byte{}
	for _, k := range kernels {
		for _, d := range k.Data {
			sym := prefix + d.Name
			for n := 1; ; n++ {
				if old, ok := declared[sym]; !ok || string(old) == string(d.Bytes) {
					break
				}
				sym = fmt.Sprintf("%s%s_%d", prefix, d.Name, n)
			}
			symbols[k] = append(symbols[k], sym)
			if _, ok := declared[sym]; !ok {
				declared[sym] = d.Bytes
				tables = append(tables, ModuleTable{Symbol: sym, Data: d})
			}
		}
	}
	return tables, symbols
}
