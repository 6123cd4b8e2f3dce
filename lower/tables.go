package lower

import (
	"encoding/binary"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"sync"

	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/ssa"
)

// This file turns package-level variables that kernels read into constant
// tables (ir.Kernel.Data): a variable qualifies when its initial value is
// a constant expression (var gauss5 = [...]float32{1, 4, 6, 4, 1}, or
// var scale = 2 * math.Pi) and nothing in its package writes it after
// initialization. The table's bytes are the variable's value in Go's host
// layout, read from the package initializer go/ssa builds.

// table returns the register that holds the address of the table of g,
// computed once in the task's prologue. The uses of a variable that is
// not a table were reported (checkGlobal).
func (tb *taskBuilder) table(f *frame, g *ssa.Global) []ir.Reg {
	if r, ok := tb.ext[g]; ok {
		return r
	}
	r := tb.t.NewReg(ir.Ptr)
	tb.ext[g] = []ir.Reg{r}
	index, err := tb.l.tableIndex(g)
	if err != nil || index < 0 {
		return []ir.Reg{r} // reported, or a check without bodies
	}
	saved := tb.cur
	tb.cur = tb.pro
	tb.emit(ir.Instr{Op: ir.OpDataAddr, Type: ir.Ptr, Dst: r, Aux: int64(index)})
	tb.pro = tb.cur
	tb.cur = saved
	return []ir.Reg{r}
}

// checkGlobals reports the package-level variables instr uses that are not
// constant tables.
func (f *frame) checkGlobals(instr ssa.Instruction) bool {
	if st, ok := instr.(*ssa.Store); ok && rootGlobal(st.Addr) != nil {
		return true // reported by store
	}
	var ops [8]*ssa.Value
	for _, op := range instr.Operands(ops[:0]) {
		g, ok := (*op).(*ssa.Global)
		if !ok {
			continue
		}
		if _, err := f.tb.l.tableIndex(g); err != nil {
			f.errorf(instr.Pos(), "package-level variable %s cannot be used in a kernel: %v", g.Name(), err)
			return false
		}
	}
	return true
}

// tableIndex returns the index of g's table in the kernel's Data, adding
// it on first use, or -1 when g's package has no bodies to read it from
// in a check without them.
func (l *lowerer) tableIndex(g *ssa.Global) (int, error) {
	if i, ok := l.tables[g]; ok {
		return i, nil
	}
	elem := g.Type().Underlying().(*types.Pointer).Elem()
	if _, err := leaves(elem); err != nil {
		return 0, fmt.Errorf("it has type %s: %v", elem, err)
	}
	info := packageGlobals(g.Pkg)
	if info.unbuilt {
		if l.cfg.CheckOnly {
			return -1, nil
		}
		return 0, fmt.Errorf("the initializer of package %s is not available", g.Pkg.Pkg.Path())
	}
	if pos, ok := info.written[g]; ok {
		return 0, fmt.Errorf("it may be changed at %s (it is written there, or its address is passed on); kernels read only package-level variables that nothing changes after initialization (constant tables); pass the values in a slice instead", shortPos(l.fset, pos))
	}
	value, err := globalValue(g, info)
	if err != nil {
		return 0, err
	}
	if l.tables == nil {
		l.tables = make(map[*ssa.Global]int)
	}
	name := identifier(g.Name())
	for n := 2; l.dataNamed(name); n++ {
		name = fmt.Sprintf("%s_%d", identifier(g.Name()), n)
	}
	l.k.Data = append(l.k.Data, ir.Data{Name: name, Bytes: value, Align: int(hostSizes.Alignof(elem))})
	l.tables[g] = len(l.k.Data) - 1
	return len(l.k.Data) - 1, nil
}

func (l *lowerer) dataNamed(name string) bool {
	for _, d := range l.k.Data {
		if d.Name == name {
			return true
		}
	}
	return false
}

// shortPos is file:line of pos, for messages that name another place.
func shortPos(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}

// globalsInfo is what one package's code does with its package-level
// variables.
type globalsInfo struct {
	unbuilt bool
	init    *ssa.Function
	written map[*ssa.Global]token.Pos // variables written after initialization, and where
}

var globalsCache sync.Map // *ssa.Package → *globalsInfo

// packageGlobals finds the package-level variables of pkg that its code
// writes, or whose address it passes on, outside its initializer.
func packageGlobals(pkg *ssa.Package) *globalsInfo {
	if v, ok := globalsCache.Load(pkg); ok {
		return v.(*globalsInfo)
	}
	pkg.Build()
	info := &globalsInfo{init: pkg.Func("init"), written: map[*ssa.Global]token.Pos{}}
	if info.init == nil || info.init.Blocks == nil || withoutBodies(pkg) {
		info.unbuilt = true
	}
	for _, fn := range packageFunctions(pkg) {
		if fn == info.init {
			continue
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var ops [8]*ssa.Value
				for _, op := range instr.Operands(ops[:0]) {
					if g, ok := (*op).(*ssa.Global); ok && g.Pkg == pkg && writes(instr) {
						if _, seen := info.written[g]; !seen {
							info.written[g] = instr.Pos()
						}
					}
				}
			}
		}
	}
	v, _ := globalsCache.LoadOrStore(pkg, info)
	return v.(*globalsInfo)
}

// withoutBodies reports whether pkg is a package of the standard library
// other than the library packages kernels call: qdgen loads those without
// their function bodies (internal/srcload), so what their code writes is
// unknown.
func withoutBodies(pkg *ssa.Package) bool {
	if libraryPackages[pkg.Pkg.Path()] != nil {
		return false
	}
	for _, m := range pkg.Members {
		if m.Pos().IsValid() {
			return InStandardLibrary(pkg.Prog.Fset, m.Pos())
		}
	}
	return false
}

// packageFunctions lists the functions of pkg with bodies: its functions,
// their function literals and the methods of its types.
func packageFunctions(pkg *ssa.Package) []*ssa.Function {
	var fns []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil || fn.Blocks == nil {
			return
		}
		fns = append(fns, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, m := range pkg.Members {
		switch m := m.(type) {
		case *ssa.Function:
			add(m)
		case *ssa.Type:
			if named, ok := m.Type().(*types.Named); !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) {
				continue
			}
			for _, t := range []types.Type{m.Type(), types.NewPointer(m.Type())} {
				mset := pkg.Prog.MethodSets.MethodSet(t)
				for i := range mset.Len() {
					if fn := pkg.Prog.MethodValue(mset.At(i)); fn != nil && fn.Pkg == pkg && fn.Synthetic == "" {
						add(fn)
					}
				}
			}
		}
	}
	return fns
}

// writes reports whether instr, which uses an address, may change what
// it points to: by a store, or by passing the address (or one derived from
// it) anywhere else than to a load or to a φ whose value is only read (a
// pointer that chooses between tables, as in pzero of math's j0.go).
func writes(instr ssa.Instruction) bool {
	return writesVia(instr, map[*ssa.Phi]bool{})
}

// writesVia is writes, with the φs already followed.
func writesVia(instr ssa.Instruction, phis map[*ssa.Phi]bool) bool {
	switch in := instr.(type) {
	case *ssa.UnOp:
		return in.Op != token.MUL
	case *ssa.DebugRef:
		return false
	case *ssa.Store:
		return true // a store of the address itself passes it on too
	case *ssa.FieldAddr, *ssa.IndexAddr, *ssa.Slice, *ssa.Phi:
		if phi, ok := in.(*ssa.Phi); ok {
			if phis[phi] {
				return false
			}
			phis[phi] = true
		}
		derived := in.(ssa.Value)
		if derived.Referrers() == nil {
			return false
		}
		for _, r := range *derived.Referrers() {
			if writesVia(r, phis) {
				return true
			}
		}
		return false
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return false
		}
	}
	return true
}

// globalValue computes the initial value of g in memory by running the
// part of its package's initializer that builds it: allocations of
// composite literals, stores of constants through constant field and
// element addresses, and copies of whole values. Anything else that
// reaches g means g is initialized at run time.
func globalValue(g *ssa.Global, info *globalsInfo) ([]byte, error) {
	in := &initRun{target: g, objects: map[ssa.Value][]byte{}, values: map[ssa.Value][]byte{}, ptrs: map[ssa.Value]pointer{}}
	elem := g.Type().Underlying().(*types.Pointer).Elem()
	in.objects[g] = make([]byte, max(hostSizes.Sizeof(elem), 1))
	for _, b := range info.init.Blocks {
		for _, instr := range b.Instrs {
			if err := in.step(instr); err != nil {
				return nil, err
			}
		}
	}
	return in.objects[g], nil
}

// pointer is an address into one of an initRun's objects.
type pointer struct {
	object ssa.Value
	off    int64
}

type initRun struct {
	target  *ssa.Global
	objects map[ssa.Value][]byte  // the target and the allocations of the initializer
	values  map[ssa.Value][]byte  // known values, in memory layout
	ptrs    map[ssa.Value]pointer // known addresses
}

var errRuntimeInit = fmt.Errorf("its initial value is not a constant expression, so it is computed at run time; kernels read only package-level variables initialized with constants (constant tables)")

func (in *initRun) step(instr ssa.Instruction) error {
	switch v := instr.(type) {
	case *ssa.Alloc:
		elem := v.Type().Underlying().(*types.Pointer).Elem()
		in.objects[v] = make([]byte, hostSizes.Sizeof(elem))
		in.ptrs[v] = pointer{v, 0}
	case *ssa.FieldAddr:
		if p, ok := in.pointerOf(v.X); ok {
			in.ptrs[v] = pointer{p.object, p.off + fieldOffset(v.X.Type().Underlying().(*types.Pointer).Elem(), v.Field)}
		}
	case *ssa.IndexAddr:
		p, ok := in.pointerOf(v.X)
		c, isConst := v.Index.(*ssa.Const)
		if ok && isConst {
			i, _ := constant.Int64Val(c.Value)
			at := v.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
			in.ptrs[v] = pointer{p.object, p.off + i*elemSize(at.Elem())}
		}
	case *ssa.UnOp:
		if p, ok := in.pointerOf(v.X); ok && v.Op == token.MUL {
			size := hostSizes.Sizeof(v.Type())
			in.values[v] = append([]byte(nil), in.objects[p.object][p.off:p.off+size]...)
		}
	case *ssa.Store:
		p, ok := in.pointerOf(v.Addr)
		if !ok {
			if rootGlobal(v.Addr) == in.target {
				return errRuntimeInit
			}
			return nil
		}
		bytes, known := in.valueOf(v.Val)
		if !known {
			if p.object == ssa.Value(in.target) {
				return errRuntimeInit
			}
			return nil
		}
		copy(in.objects[p.object][p.off:], bytes)
	}
	return nil
}

func (in *initRun) pointerOf(v ssa.Value) (pointer, bool) {
	if v == ssa.Value(in.target) {
		return pointer{v, 0}, true
	}
	p, ok := in.ptrs[v]
	return p, ok
}

// valueOf returns the bytes of a constant or a copied value.
func (in *initRun) valueOf(v ssa.Value) ([]byte, bool) {
	if b, ok := in.values[v]; ok {
		return b, true
	}
	c, ok := v.(*ssa.Const)
	if !ok {
		return nil, false
	}
	args, ok := constLeaves(c)
	if !ok {
		return nil, false
	}
	ls, _ := leaves(c.Type())
	out := make([]byte, hostSizes.Sizeof(c.Type()))
	for i, l := range ls {
		putLeaf(out[l.off:], l.typ, args[i].Bits)
	}
	return out, true
}

// putLeaf writes a scalar's bits in memory, little-endian.
func putLeaf(b []byte, t ir.Type, bits uint64) {
	switch t.Size() {
	case 1:
		b[0] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(bits))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(bits))
	case 8:
		binary.LittleEndian.PutUint64(b, bits)
	}
}
