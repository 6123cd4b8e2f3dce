package gostub

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/ir"
)

// stub writes the launch method of one kernel.
type stub struct {
	k     *Kernel
	index int   // the kernel's number in the module
	file  names // the file's names
	names stubNames
	// goParams holds the Go parameter of each IR parameter (arg).
	goParams []int
}

func newStub(k *Kernel, index int, file names) *stub {
	s := &stub{k: k, index: index, file: file}
	s.names = s.localNames(file)
	return s
}

func (s *stub) sig() *types.Signature { return s.k.Func.Type().(*types.Signature) }

// paramName is the name the stub uses for parameter i.
func (s *stub) paramName(i int) string { return s.names.params[i] }

// arg is the Go expression of the kernel's IR parameter i: a parameter of
// the stub, or a number inside a struct or array one (p.Taps[2]), which
// the IR passes flattened.
func (s *stub) arg(i int) *jen.Statement {
	if s.goParams == nil {
		params := s.sig().Params()
		for gi := range params.Len() {
			for range flatCount(params.At(gi).Type()) {
				s.goParams = append(s.goParams, gi)
			}
		}
	}
	gi := s.goParams[i]
	path := ir.GoPath(s.k.IR.Params[i].Name)[len(s.sig().Params().At(gi).Name()):]
	return jen.Id(s.paramName(gi) + path)
}

// flatCount is the number of IR parameters a parameter of type t is
// passed as: one per number a struct or array holds.
func flatCount(t types.Type) int {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		n := 0
		for i := range u.NumFields() {
			n += flatCount(u.Field(i).Type())
		}
		return n
	case *types.Array:
		return int(u.Len()) * flatCount(u.Elem())
	}
	return 1
}

// doc is the stub's comment: the kernel's own, then how the stub runs it.
func (s *stub) doc() []string {
	name := s.k.Func.Name()
	var lines []string
	if doc := strings.TrimRight(s.k.Doc, "\n"); doc != "" {
		lines = append(strings.Split(doc, "\n"), "")
	}
	return append(lines,
		fmt.Sprintf("%s launches kernel %s (%s) after the work already launched on", name, name, declaredAt(s.k)),
		"the device. Slice parameters are device buffers. It returns once the work",
		"is queued; on the CPU backend it runs the Go function.",
	)
}

// signature is the method's signature: slice parameters become buffers,
// scalars keep their types, and launch options come last.
func (s *stub) signature() *jen.Statement {
	var params []jen.Code
	for i := range s.sig().Params().Len() {
		t := s.sig().Params().At(i).Type()
		sl, isSlice := t.Underlying().(*types.Slice)
		switch {
		case isSlice && isPlainData(sl.Elem()):
			params = append(params, jen.Id(s.paramName(i)).Op("*").Qual(rtPath, "Buffer").Types(typeCode(sl.Elem())))
		case !isSlice && (isNumber(t) || isBool(t) || passedFlat(t)):
			params = append(params, jen.Id(s.paramName(i)).Add(typeCode(t)))
		default:
			// Reported by the analyzer; the skeleton, which is all that is
			// written for such a kernel, must still type-check.
			params = append(params, jen.Id(s.paramName(i)).Any())
		}
	}
	params = append(params, jen.Id(s.names.opts).Op("...").Qual(rtPath, "LaunchOption"))
	return jen.Func().Params(jen.Id(s.names.recv).Op("*").Id("Kernels")).Id(s.k.Func.Name()).Params(params...).Error()
}

// body checks the buffers, packs the arguments and launches the tasks, or
// on the CPU backend runs the kernel there.
func (s *stub) body() jen.Code {
	k := s.k.IR
	name := k.Name
	var bufs, cpuArgs []jen.Code
	for i := range s.sig().Params().Len() {
		pv := s.sig().Params().At(i)
		id := s.paramName(i)
		if _, isSlice := pv.Type().Underlying().(*types.Slice); !isSlice {
			cpuArgs = append(cpuArgs, jen.Id(id))
			continue
		}
		bufs = append(bufs, jen.Id(id))
		slice := jen.Id(id).Dot("CPUSlice").Call()
		if _, named := pv.Type().(*types.Named); named {
			slice = typeCode(pv.Type()).Call(slice)
		}
		cpuArgs = append(cpuArgs, slice)
	}

	slots, size := k.ArgSlots()
	var body []jen.Code
	body = append(body,
		jen.If(jen.Id(s.names.err).Op(":=").Id(s.names.recv).Dot(s.file.mod).Dot("CheckBuffers").Call(
			append([]jen.Code{jen.Lit(name), jen.Id(s.names.opts)}, bufs...)...),
			jen.Id(s.names.err).Op("!=").Nil()).Block(jen.Return(jen.Id(s.names.err))),
	)
	for _, c := range k.Conflicts {
		a, b := s.arg(c[0]), s.arg(c[1])
		body = append(body, jen.If(jen.Id(s.names.err).Op(":=").Id(s.names.recv).Dot(s.file.mod).Dot("CheckDisjoint").Call(
			jen.Lit(name), jen.Lit(k.Params[c[0]].Name), a, jen.Lit(k.Params[c[1]].Name), b),
			jen.Id(s.names.err).Op("!=").Nil()).Block(jen.Return(jen.Id(s.names.err))))
	}
	body = append(body, jen.Var().Id(s.names.args).Index(jen.Lit(size)).Byte())
	for _, slot := range slots {
		body = append(body, s.put(slot))
	}
	var counts []jen.Code
	for _, t := range k.Tasks {
		switch {
		case (t.Kind == ir.Parallel || t.Kind == ir.BlockLevel) && t.Count != nil && t.Count.Op == ir.OpSub && t.Count.Type == ir.Int64:
			// end - start, which wraps around when the loop runs more than
			// 2^63 iterations: rtimpl.Iterations counts them without wrapping.
			counts = append(counts, jen.Qual(implPath, "Iterations").Call(s.expr(t.Count.Args[1]), s.expr(t.Count.Args[0])))
		case (t.Kind == ir.Parallel || t.Kind == ir.BlockLevel) && t.Count != nil:
			counts = append(counts, s.expr(t.Count))
		case t.Kind == ir.Parallel || t.Kind == ir.BlockLevel:
			counts = append(counts, jen.Qual(implPath, "UnknownCount"))
		default:
			counts = append(counts, jen.Lit(1))
		}
	}
	// The CPU backend runs the Go function, or, in its race mode, the IR on
	// the same arguments a GPU launch takes; on a stream of a recording it
	// keeps the call for the graph's launches. The closure of a kept call
	// must live on, that of a run need not: two literals keep runs from
	// allocating.
	cpuCall := func(method string) jen.Code {
		args := append([]jen.Code{jen.Lit(s.index), jen.Id(s.names.counts).Index(jen.Empty(), jen.Empty()),
			jen.Id(s.names.args).Index(jen.Empty(), jen.Empty()), jen.Id(s.names.opts),
			jen.Func().Params().Block(jen.Id(name).Call(cpuArgs...))}, bufs...)
		return jen.Return(jen.Id(s.names.recv).Dot(s.file.mod).Dot(method).Call(args...))
	}
	body = append(body,
		jen.Id(s.names.counts).Op(":=").Index(jen.Lit(len(counts))).Int64().Values(counts...),
		jen.If(jen.Id(s.names.recv).Dot(s.file.dev).Dot("IsCPU").Call()).Block(
			jen.If(jen.Id(s.names.recv).Dot(s.file.mod).Dot("Recording").Call(jen.Id(s.names.opts))).Block(cpuCall("RecordCPU")),
			cpuCall("RunCPU")),
		jen.Return(jen.Id(s.names.recv).Dot(s.file.mod).Dot("Launch").Call(
			jen.Lit(s.index), jen.Id(s.names.counts).Index(jen.Empty(), jen.Empty()), jen.Id(s.names.args).Index(jen.Empty(), jen.Empty()), jen.Id(s.names.opts))),
	)
	return jen.Block(body...)
}

// kernelSpec describes a kernel's tasks to the runtime.
func kernelSpec(k *Kernel) jen.Dict {
	var tasks []jen.Code
	for _, t := range k.IR.Tasks {
		task := jen.Dict{
			jen.Id("Entry"):    jen.Lit(t.Name),
			jen.Id("Parallel"): jen.Lit(t.Kind == ir.Parallel),
		}
		if t.Threads > 0 {
			task[jen.Id("Threads")] = jen.Lit(t.Threads)
		}
		if t.Uneven {
			task[jen.Id("Uneven")] = jen.True()
		}
		if n := t.SharedBytes(); t.Kind == ir.BlockLevel && n > 0 {
			task[jen.Id("SharedBytes")] = jen.Lit(n)
		}
		if t.StreamBlock > 0 {
			task[jen.Id("Block")] = jen.Lit(t.StreamBlock)
			task[jen.Id("Group")] = jen.Lit(t.Group)
		}
		tasks = append(tasks, jen.Values(task))
	}
	spec := jen.Dict{
		jen.Id("Name"):  jen.Lit(k.IR.Name),
		jen.Id("Tasks"): jen.Index().Qual(implPath, "TaskSpec").Values(tasks...),
	}
	if len(k.IR.Groups) > 0 {
		var groups []jen.Code
		for _, g := range k.IR.Groups {
			groups = append(groups, jen.Lit(g))
		}
		spec[jen.Id("Groups")] = jen.Index().Int().Values(groups...)
	}
	if len(k.IR.Sites) > 0 {
		var sites []jen.Code
		for _, s := range k.IR.Sites {
			site := jen.Dict{jen.Id("Kind"): jen.Qual(rtPath, faultKinds[s.Kind]), jen.Id("Pos"): jen.Lit(s.Pos())}
			if s.Unsigned {
				site[jen.Id("Unsigned")] = jen.True()
			}
			sites = append(sites, jen.Values(site))
		}
		spec[jen.Id("Faults")] = jen.Index().Qual(implPath, "FaultSite").Values(sites...)
	}
	if k.IR.Reductions > 0 {
		spec[jen.Id("ScratchFixed")] = jen.Lit(k.IR.ScratchFixed())
		spec[jen.Id("ScratchPerBlock")] = jen.Lit(k.IR.ScratchPerBlock())
	}
	return spec
}

// faultKinds are the names of rt's constants for the kinds of faults.
var faultKinds = map[fault.Kind]string{
	fault.Index: "FaultIndex", fault.SliceAlen: "FaultSliceAlen", fault.SliceAcap: "FaultSliceAcap",
	fault.SliceB: "FaultSliceB", fault.Slice3Alen: "FaultSlice3Alen", fault.Slice3Acap: "FaultSlice3Acap",
	fault.Slice3B: "FaultSlice3B", fault.Slice3C: "FaultSlice3C", fault.Divide: "FaultDivide",
	fault.Overflow: "FaultOverflow",
}

// put writes one argument slot into the packed arguments.
func (s *stub) put(slot ir.ArgSlot) jen.Code {
	if slot.Part == ir.SlotLen || slot.Param < 0 {
		return jen.Null() // PutBuffer writes the length; the runtime its own
	}
	id := s.arg(slot.Param)
	args := jen.Id(s.names.args).Index(jen.Empty(), jen.Empty())
	off := jen.Lit(slot.Offset)
	if slot.Part == ir.SlotBase {
		return jen.Qual(implPath, "PutBuffer").Call(args, off, id)
	}
	var fn, conv string
	switch slot.Type {
	case ir.Bool:
		fn, conv = "PutBool", "bool"
	case ir.Int8, ir.Uint8:
		fn, conv = "PutUint8", "uint8"
	case ir.Int16, ir.Uint16:
		fn, conv = "PutUint16", "uint16"
	case ir.Int32, ir.Uint32:
		fn, conv = "PutUint32", "uint32"
	case ir.Float32:
		fn, conv = "PutFloat32", "float32"
	case ir.Float64:
		fn, conv = "PutFloat64", "float64"
	default:
		fn, conv = "PutUint64", "uint64"
	}
	return jen.Qual(implPath, fn).Call(args, off, jen.Id(conv).Call(id))
}

// typeCode writes a Go type.
func typeCode(t types.Type) *jen.Statement {
	switch t := t.(type) {
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Named:
		return objectCode(t.Obj())
	case *types.Alias:
		return objectCode(t.Obj())
	case *types.Slice:
		return jen.Index().Add(typeCode(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(typeCode(t.Elem()))
	case *types.Struct:
		var fields []jen.Code
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Embedded() {
				fields = append(fields, typeCode(f.Type()))
			} else {
				fields = append(fields, jen.Id(f.Name()).Add(typeCode(f.Type())))
			}
		}
		return jen.Struct(fields...)
	}
	return jen.Id(t.String())
}

func objectCode(obj *types.TypeName) *jen.Statement {
	if obj.Pkg() == nil {
		return jen.Id(obj.Name())
	}
	return jen.Qual(obj.Pkg().Path(), obj.Name())
}

// isNumber reports whether t is a type rt.Buffer may hold (rt.Number).
func isNumber(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsFloat) != 0 && b.Info()&types.IsUntyped == 0
}

// isPlainData reports whether a buffer can hold elements of type t:
// numbers, bools, complex numbers, and arrays and structs of these.
func isPlainData(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsInteger|types.IsFloat|types.IsComplex|types.IsBoolean) != 0 && u.Info()&types.IsUntyped == 0
	case *types.Array:
		return isPlainData(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if !isPlainData(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// passedFlat reports whether a parameter of type t is a struct or an
// array of plain data, passed by value, flattened.
func passedFlat(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Struct, *types.Array:
		return isPlainData(t) && !hasComplex(t)
	}
	return false
}

// hasComplex reports whether a value of type t holds a complex number.
func hasComplex(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsComplex != 0
	case *types.Array:
		return hasComplex(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if hasComplex(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}
