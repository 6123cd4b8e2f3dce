// Package analyzer checks //qd:kernel functions: everything in a kernel
// that cannot run on a GPU is reported with its position, what it is and
// what to do instead.
//
// Analyzer runs under go vet (go vet -vettool=$(which qdvet)), in editors
// through gopls-compatible drivers, and inside qdgen, which refuses to
// generate code for a package with diagnostics. The rules themselves are
// those of package lower: a kernel is acceptable exactly when it can be
// lowered.
package analyzer

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// Analyzer reports misuse of qd in kernels.
var Analyzer = &analysis.Analyzer{
	Name:      "qd",
	Doc:       "check that //qd:kernel functions use only what runs on a GPU",
	URL:       "https://pkg.go.dev/github.com/qdgo/qd/analyzer",
	Requires:  []*analysis.Analyzer{buildssa.Analyzer},
	FactTypes: []analysis.Fact{new(DeviceFunc)},
	Run:       run,
}

// DeviceFunc is the fact recorded for every exported function of a
// package: whether kernels of other packages may call it.
type DeviceFunc struct {
	Err  string // why it cannot be called from a kernel; empty if it can
	Pure bool   // it reads and writes no memory
}

func (*DeviceFunc) AFact() {}

func (f *DeviceFunc) String() string {
	if f.Err != "" {
		return "qd: not callable from kernels: " + f.Err
	}
	if f.Pure {
		return "qd: callable from kernels (pure)"
	}
	return "qd: callable from kernels"
}

func run(pass *analysis.Pass) (any, error) {
	if len(pass.Files) > 0 && lower.InStandardLibrary(pass.Fset, pass.Files[0].Pos()) {
		return nil, nil
	}
	ssaInfo := pass.ResultOf[buildssa.Analyzer].(*buildssa.SSA)
	cfg := &lower.Config{
		CheckOnly: true,
		External: func(fn *ssa.Function) (bool, error) {
			var fact DeviceFunc
			if obj := fn.Object(); obj != nil && pass.ImportObjectFact(obj, &fact) {
				if fact.Err != "" {
					return false, fmt.Errorf("%s", fact.Err)
				}
				return fact.Pure, nil
			}
			return false, fmt.Errorf("it is not an exported function of a checked package")
		},
		Warn: func(d lower.Diagnostic) {
			pass.Report(analysis.Diagnostic{Pos: d.Pos, Category: "warning", Message: d.Message})
		},
	}
	decls := lower.KernelDecls(pass.Files)
	_, diags := Check(ssaInfo.Pkg.Prog, pass.Files, decls, pass.TypesInfo, cfg)
	for _, d := range diags {
		pass.Report(analysis.Diagnostic{Pos: d.Pos, Message: d.Message})
	}
	for _, d := range MisspelledDirectives(pass.Files) {
		pass.Report(analysis.Diagnostic{Pos: d.Pos, Category: "warning", Message: d.Message})
	}
	exportFacts(pass, ssaInfo, decls, cfg)
	checkBufferElements(pass)
	return nil, nil
}

// Check checks and lowers the kernels of a package: decls are its
// //qd:kernel declarations (lower.KernelDecls of files), in source order.
// It reports every misuse of qd in them: qdgen generates code only when
// there is none.
func Check(prog *ssa.Program, files []*ast.File, decls []*ast.FuncDecl, info *types.Info, cfg *lower.Config) ([]*ir.Kernel, []lower.Diagnostic) {
	var kernels []*ir.Kernel
	var diags []lower.Diagnostic
	diags = append(diags, misplacedDirectives(files)...)
	outside := blocksOutsideKernels(files, info)
	for _, decl := range decls {
		if decl.Name.Name == "_" {
			diags = append(diags, lower.Diagnostic{Pos: decl.Name.Pos(), Message: "a kernel named _ cannot be launched: give it a name"})
			continue
		}
		fn := lower.KernelFunc(prog, info, decl)
		if fn == nil {
			diags = append(diags, lower.Diagnostic{Pos: decl.Pos(), Message: "internal error: no SSA for kernel " + decl.Name.Name})
			continue
		}
		k, ds := lower.Kernel(fn, cfg)
		diags = append(diags, ds...)
		if k != nil {
			kernels = append(kernels, k)
		}
	}
	// The lowering reports misplaced blocks it meets more precisely (in a
	// function a kernel calls, for one).
	reported := map[token.Pos]bool{}
	for _, d := range diags {
		reported[d.Pos] = true
	}
	for _, d := range outside {
		if !reported[d.Pos] {
			diags = append(diags, d)
		}
	}
	return kernels, diags
}

// blocksOutsideKernels reports calls of qd.StreamParallel in functions that
// are not kernels, where they would only run their argument.
func blocksOutsideKernels(files []*ast.File, info *types.Info) []lower.Diagnostic {
	var diags []lower.Diagnostic
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || lower.HasDirective(fd.Doc) {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr:
					id = fun.Sel
				case *ast.Ident:
					id = fun
				}
				if id == nil {
					return true
				}
				if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == lower.QDPath && fn.Name() == "StreamParallel" {
					diags = append(diags, lower.Diagnostic{Pos: call.Lparen,
						Message: "qd.StreamParallel can only be called at the top level of a //qd:kernel function; here it just runs its argument"})
				}
				return true
			})
		}
	}
	return diags
}

// misplacedDirectives reports //qd:kernel comments that mark no function.
func misplacedDirectives(files []*ast.File) []lower.Diagnostic {
	var diags []lower.Diagnostic
	for _, f := range files {
		marked := make(map[*ast.CommentGroup]bool)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Doc != nil {
					marked[d.Doc] = true
				}
			case *ast.GenDecl:
				if lower.HasDirective(d.Doc) {
					marked[d.Doc] = true
					diags = append(diags, lower.Diagnostic{Pos: d.Pos(), Message: "//qd:kernel must be in the doc comment of a function declaration, not of a " + d.Tok.String() + " declaration"})
				}
			}
		}
		for _, cg := range f.Comments {
			if marked[cg] {
				continue
			}
			for _, c := range cg.List {
				if text := strings.TrimSpace(c.Text); text == lower.Directive || strings.HasPrefix(text, lower.Directive+" ") {
					diags = append(diags, lower.Diagnostic{Pos: c.Pos(), Message: "//qd:kernel must be in the doc comment of a function declaration"})
				}
			}
		}
	}
	return diags
}

// exportFacts records for each exported function of the package whether
// kernels may call it. decls are the package's kernels, which need none.
func exportFacts(pass *analysis.Pass, ssaInfo *buildssa.SSA, decls []*ast.FuncDecl, cfg *lower.Config) {
	kernels := make(map[types.Object]bool)
	for _, d := range decls {
		kernels[pass.TypesInfo.Defs[d.Name]] = true
	}
	for _, fn := range ssaInfo.SrcFuncs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || !obj.Exported() || fn.Parent() != nil || kernels[obj] {
			continue
		}
		fact := &DeviceFunc{}
		if diags := lower.CheckHelper(fn, cfg); len(diags) > 0 {
			d := diags[0]
			fact.Err = fmt.Sprintf("%s (%s)", d.Message, shortPosition(pass.Fset, d.Pos))
		} else {
			fact.Pure = lower.IsPureFunction(fn, cfg)
		}
		pass.ExportObjectFact(obj, fact)
	}
}

func shortPosition(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	name := p.Filename
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return fmt.Sprintf("%s:%d", name, p.Line)
}

// MisspelledDirectives reports comments that look meant to mark a kernel
// but do not: "// qd:kernel", "//qd:kernal", "//qd: kernel". They are
// warnings: the function is not a kernel, which is not an error in itself.
func MisspelledDirectives(files []*ast.File) []lower.Diagnostic {
	var diags []lower.Diagnostic
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if text := strings.TrimRight(c.Text, " \t"); looksLikeDirective(text) {
					diags = append(diags, lower.Diagnostic{Pos: c.Pos(),
						Message: fmt.Sprintf("%q is not a qd directive, so the function is not a kernel: write %s", text, lower.Directive)})
				}
			}
		}
	}
	return diags
}

// looksLikeDirective reports whether a comment reads like //qd:kernel
// with a space too many or a letter wrong.
func looksLikeDirective(text string) bool {
	if text == lower.Directive || strings.HasPrefix(text, lower.Directive+" ") {
		return false
	}
	squeezed := strings.ToLower(strings.Join(strings.Fields(strings.TrimPrefix(text, "//")), ""))
	name, ok := strings.CutPrefix(squeezed, "qd:")
	return ok && editDistance(name, "kernel") <= 2
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
