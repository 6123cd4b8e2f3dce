package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/qdgo/qd/ir"
	"golang.org/x/tools/go/packages"
)

const rtPath = "github.com/qdgo/qd/rt"

// stubs writes the generated Go file of a package: the device code, and a
// Kernels type with one launch method per kernel.
func stubs(p *packages.Package, decls []*ast.FuncDecl, kernels []*ir.Kernel, module string) ([]byte, error) {
	f := jen.NewFilePathName(p.PkgPath, p.Name)
	f.HeaderComment(generatedHeader[len("// "):])
	f.HeaderComment("//go:build !" + buildTag)
	f.ImportName(rtPath, "rt")

	byName := kernelDecls(decls)
	var specs []jen.Code
	for _, k := range kernels {
		var tasks []jen.Code
		for _, t := range k.Tasks {
			task := jen.Dict{
				jen.Id("Entry"):    jen.Lit(t.Name),
				jen.Id("Parallel"): jen.Lit(t.Kind == ir.Parallel),
			}
			if t.StreamBlock > 0 {
				task[jen.Id("Block")] = jen.Lit(t.StreamBlock)
				task[jen.Id("Group")] = jen.Lit(t.Group)
			}
			tasks = append(tasks, jen.Values(task))
		}
		spec := jen.Dict{
			jen.Id("Name"):  jen.Lit(k.Name),
			jen.Id("Tasks"): jen.Index().Qual(rtPath, "TaskSpec").Values(tasks...),
		}
		if len(k.Groups) > 0 {
			var groups []jen.Code
			for _, g := range k.Groups {
				groups = append(groups, jen.Lit(g))
			}
			spec[jen.Id("Groups")] = jen.Index().Int().Values(groups...)
		}
		specs = append(specs, jen.Values(spec))
	}
	f.Comment("qdModule describes the device code of this package's kernels.")
	f.Var().Id("qdModule").Op("=").Op("&").Qual(rtPath, "ModuleSpec").Values(jen.Dict{
		jen.Id("Package"): jen.Lit(p.PkgPath),
		jen.Id("Images"): jen.Index().Qual(rtPath, "Image").Values(jen.Values(
			jen.Id("Kind").Op(":").Qual(rtPath, "ImagePTX"), jen.Id("Data").Op(":").Id("qdPTX"))),
		jen.Id("Kernels"): jen.Index().Qual(rtPath, "KernelSpec").Values(specs...),
	})

	f.Comment("Kernels launches this package's kernels on one device. Create it with Load;")
	f.Comment("it is safe for use by many goroutines at once.")
	f.Type().Id("Kernels").Struct(
		jen.Id("dev").Op("*").Qual(rtPath, "Device"),
		jen.Id("mod").Op("*").Qual(rtPath, "Module"),
	)
	f.Comment("Load prepares this package's kernels on dev. The first call for a device")
	f.Comment("compiles the device code; later calls return at once.")
	f.Func().Id("Load").Params(jen.Id("dev").Op("*").Qual(rtPath, "Device")).
		Params(jen.Op("*").Id("Kernels"), jen.Error()).Block(
		jen.List(jen.Id("mod"), jen.Err()).Op(":=").Id("dev").Dot("Load").Call(jen.Id("qdModule")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("Kernels").Values(jen.Dict{
			jen.Id("dev"): jen.Id("dev"),
			jen.Id("mod"): jen.Id("mod"),
		}), jen.Nil()),
	)
	f.Comment("Device returns the device the kernels run on.")
	f.Func().Params(jen.Id("k").Op("*").Id("Kernels")).Id("Device").Params().
		Op("*").Qual(rtPath, "Device").Block(jen.Return(jen.Id("k").Dot("dev")))

	for i, k := range kernels {
		decl := byName[k.Name]
		obj, ok := p.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok {
			return nil, fmt.Errorf("no type information for kernel %s", k.Name)
		}
		sg := stubGen{p: p, k: k, sig: obj.Type().(*types.Signature), index: i}
		sg.write(f, filepath.Base(p.Fset.Position(decl.Pos()).Filename), p.Fset.Position(decl.Pos()).Line)
	}

	f.Comment("qdPTX is the PTX of this package's kernels.")
	f.Const().Id("qdPTX").Op("=").Id("`" + module + "`")

	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stubGen writes the launch method of one kernel.
type stubGen struct {
	p     *packages.Package
	k     *ir.Kernel
	sig   *types.Signature
	index int
}

// paramName is the name the stub uses for parameter i.
func (sg *stubGen) paramName(i int) string {
	name := sg.sig.Params().At(i).Name()
	if name == "" || name == "_" || name == "rt" || strings.HasPrefix(name, "qd") {
		return fmt.Sprintf("arg%d", i) // the stub's own names start with qd
	}
	return name
}

func (sg *stubGen) write(f *jen.File, file string, line int) {
	name := sg.k.Name
	var params, bufs, cpuArgs []jen.Code
	for i, kp := range sg.k.Params {
		pv := sg.sig.Params().At(i)
		id := sg.paramName(i)
		if kp.Slice {
			elem := pv.Type().Underlying().(*types.Slice).Elem()
			params = append(params, jen.Id(id).Op("*").Qual(rtPath, "Buffer").Types(typeCode(elem)))
			bufs = append(bufs, jen.Id(id))
			slice := jen.Id(id).Dot("CPUSlice").Call()
			if _, named := pv.Type().(*types.Named); named {
				slice = typeCode(pv.Type()).Call(slice)
			}
			cpuArgs = append(cpuArgs, slice)
			continue
		}
		params = append(params, jen.Id(id).Add(typeCode(pv.Type())))
		cpuArgs = append(cpuArgs, jen.Id(id))
	}
	params = append(params, jen.Id("qdOpts").Op("...").Qual(rtPath, "LaunchOption"))

	slots, size := sg.k.ArgSlots()
	var body []jen.Code
	body = append(body,
		jen.If(jen.Id("qdErr").Op(":=").Qual(rtPath, "CheckBuffers").Call(
			append([]jen.Code{jen.Id("qdk").Dot("dev"), jen.Lit(name)}, bufs...)...),
			jen.Id("qdErr").Op("!=").Nil()).Block(jen.Return(jen.Id("qdErr"))),
	)
	for _, c := range sg.k.Conflicts {
		a, b := sg.paramName(c[0]), sg.paramName(c[1])
		body = append(body, jen.If(jen.Id("qdErr").Op(":=").Qual(rtPath, "CheckDisjoint").Call(
			jen.Lit(name), jen.Lit(a), jen.Id(a), jen.Lit(b), jen.Id(b)),
			jen.Id("qdErr").Op("!=").Nil()).Block(jen.Return(jen.Id("qdErr"))))
	}
	body = append(body,
		jen.If(jen.Id("qdk").Dot("dev").Dot("IsCPU").Call()).Block(
			jen.Return(jen.Id("qdk").Dot("mod").Dot("RunCPU").Call(jen.Lit(sg.index), jen.Id("qdOpts"),
				jen.Func().Params().Block(jen.Id(name).Call(cpuArgs...))))),
		jen.Var().Id("qdArgs").Index(jen.Lit(size)).Byte(),
	)
	for _, s := range slots {
		body = append(body, sg.put(s))
	}
	var counts []jen.Code
	for _, t := range sg.k.Tasks {
		switch {
		case t.Kind == ir.Parallel && t.Count != nil:
			counts = append(counts, sg.expr(t.Count))
		case t.Kind == ir.Parallel:
			counts = append(counts, jen.Qual(rtPath, "UnknownCount"))
		default:
			counts = append(counts, jen.Lit(1))
		}
	}
	body = append(body,
		jen.Id("qdCounts").Op(":=").Index(jen.Lit(len(counts))).Int64().Values(counts...),
		jen.Return(jen.Id("qdk").Dot("mod").Dot("Launch").Call(
			jen.Lit(sg.index), jen.Id("qdCounts").Index(jen.Empty(), jen.Empty()), jen.Id("qdArgs").Index(jen.Empty(), jen.Empty()), jen.Id("qdOpts"))),
	)
	f.Commentf("%s launches kernel %s (%s:%d) after the work already launched on", name, name, file, line)
	f.Comment("the device. Slice parameters are device buffers. It returns once the work")
	f.Comment("is queued; on the CPU backend it runs the Go function.")
	f.Func().Params(jen.Id("qdk").Op("*").Id("Kernels")).Id(name).Params(params...).Error().Block(body...)
}

// put writes one argument slot into the packed arguments.
func (sg *stubGen) put(s ir.ArgSlot) jen.Code {
	id := jen.Id(sg.paramName(s.Param))
	args := jen.Id("qdArgs").Index(jen.Empty(), jen.Empty())
	off := jen.Lit(s.Offset)
	switch s.Part {
	case ir.SlotBase:
		return jen.Qual(rtPath, "PutBuffer").Call(args, off, id)
	case ir.SlotLen:
		return jen.Null() // PutBuffer writes the length too
	}
	var fn, conv string
	switch s.Type {
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
	return jen.Qual(rtPath, fn).Call(args, off, jen.Id(conv).Call(id))
}

// goTypes are the Go types of the IR's integer types.
var goTypes = map[ir.Type]string{
	ir.Int8: "int8", ir.Int16: "int16", ir.Int32: "int32", ir.Int64: "int64",
	ir.Uint8: "uint8", ir.Uint16: "uint16", ir.Uint32: "uint32", ir.Uint64: "uint64",
}

var exprOps = map[ir.Op]string{
	ir.OpAdd: "+", ir.OpSub: "-", ir.OpMul: "*", ir.OpDiv: "/", ir.OpRem: "%",
	ir.OpAnd: "&", ir.OpOr: "|", ir.OpXor: "^", ir.OpAndNot: "&^", ir.OpShl: "<<", ir.OpShr: ">>",
}

// expr writes a host expression as Go, with the same wraparound.
func (sg *stubGen) expr(e *ir.Expr) jen.Code {
	typ := goTypes[e.Type]
	switch e.Op {
	case ir.OpConst:
		return jen.Id(typ).Call(jen.Id(ir.FormatBits(e.Type, e.Bits)))
	case ir.OpParam:
		return jen.Id(typ).Call(jen.Id(sg.paramName(int(e.Aux))))
	case ir.OpParamLen:
		return jen.Id(typ).Call(jen.Id(sg.paramName(int(e.Aux))).Dot("Len").Call())
	case ir.OpConvert:
		return jen.Id(typ).Call(sg.expr(e.Args[0]))
	case ir.OpNeg:
		return jen.Parens(jen.Op("-").Add(sg.expr(e.Args[0])))
	case ir.OpNot:
		return jen.Parens(jen.Op("^").Add(sg.expr(e.Args[0])))
	case ir.OpMin, ir.OpMax:
		return jen.Id(e.Op.String()).Call(sg.expr(e.Args[0]), sg.expr(e.Args[1]))
	case ir.OpShl, ir.OpShr:
		// Counts read as unsigned, as in the IR: a negative count shifts
		// everything out instead of panicking.
		return jen.Parens(sg.expr(e.Args[0]).(*jen.Statement).Op(exprOps[e.Op]).Uint64().Call(sg.expr(e.Args[1])))
	}
	return jen.Parens(sg.expr(e.Args[0]).(*jen.Statement).Op(exprOps[e.Op]).Add(sg.expr(e.Args[1])))
}

// typeCode writes a Go type.
func typeCode(t types.Type) *jen.Statement {
	switch t := t.(type) {
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil {
			return jen.Id(obj.Name())
		}
		return jen.Qual(obj.Pkg().Path(), obj.Name())
	case *types.Alias:
		obj := t.Obj()
		if obj.Pkg() == nil {
			return jen.Id(obj.Name())
		}
		return jen.Qual(obj.Pkg().Path(), obj.Name())
	case *types.Slice:
		return jen.Index().Add(typeCode(t.Elem()))
	}
	return jen.Id(t.String())
}
