package main

import (
	"errors"
	"fmt"
	"go/ast"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qdgo/qd/analyzer"
	"github.com/qdgo/qd/emit"
	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/internal/genhash"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/rt/rtimpl"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

type generator struct {
	output  string   // file name in each package directory
	dump    string   // directory for each backend's device code and IR, or ""
	check   bool     // only verify that generated files are current
	verbose bool     // list the files written and removed; print the lowering's notes
	cubins  []string // architectures to embed cubins for (-cubin)
	ptxas   string   // the ptxas that builds them
	// hipTargets are the AMD GPUs to embed code objects for (-hip-arch),
	// which hipcc builds from the HIP source.
	hipTargets []string
	hipcc      string
	// backends make the images (-backends); all of emit.Backends when nil.
	backends []emit.Backend
	dir      string    // directory the patterns are relative to; "" for the current one
	stderr   io.Writer // diagnostics; os.Stderr when nil

	wd      string          // the absolute directory messages' paths are relative to
	overlay map[string]bool // files loaded as skeletons, not from disk
	printed map[string]bool // package errors printed, once each
	id      string          // this qdgen's identity (current.go), once computed
	loaded  bool            // whether the run loaded packages, which tests check
}

// errFailed marks a package whose failure was reported already.
var errFailed = errors.New("failed")

// run generates the files of the packages that match patterns. A package
// that fails is reported and keeps its files as they were; the others are
// generated all the same.
func (g *generator) run(patterns []string) error {
	if g.stderr == nil {
		g.stderr = os.Stderr
	}
	if err := checkOutputName(g.output); err != nil {
		return err
	}
	if g.backends == nil {
		g.backends = emit.Backends
	}
	if g.upToDate(patterns) {
		return nil
	}
	g.wd, _ = filepath.Abs(g.dir)
	g.printed = make(map[string]bool)
	g.loaded = true
	pkgs, err := g.load(patterns)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		g.warnings(p)
	}
	prog, ssaPkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	for _, sp := range ssaPkgs {
		if sp != nil {
			sp.Build()
		}
	}
	var failed []string
	for _, p := range pkgs {
		err := g.packageErrors(p)
		if err == nil {
			err = g.generate(prog, p)
		}
		if err != nil {
			if !errors.Is(err, errFailed) {
				fmt.Fprintln(g.stderr, err)
			}
			failed = append(failed, p.PkgPath)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("qdgen: %d of %d packages failed, their files unchanged: %s", len(failed), len(pkgs), strings.Join(failed, ", "))
	}
	return nil
}

// generate checks and compiles the kernels of one package and writes its
// generated file.
func (g *generator) generate(prog *ssa.Program, p *packages.Package) error {
	decls := lower.KernelDecls(p.Syntax)
	cfg := &lower.Config{}
	var notes, warnings []lower.Diagnostic
	cfg.Warn = func(d lower.Diagnostic) { warnings = append(warnings, d) }
	defer func() { g.reportWarnings(p.Fset, warnings) }()
	if g.verbose {
		cfg.Note = func(d lower.Diagnostic) { notes = append(notes, d) }
		defer func() { g.reportNotes(p.Fset, notes) }()
	}
	kernels, diags := analyzer.Check(prog, p.Syntax, decls, p.TypesInfo, cfg)
	stubs := g.stubPackage(p, decls)
	if len(decls) > 0 {
		diags = append(diags, nameConflicts(p, g.output, gostub.Names(stubs), decls)...)
	}
	if len(diags) > 0 {
		g.report(p.Fset, diags)
		return errFailed
	}
	path := g.outputPath(p)
	if len(decls) == 0 {
		return g.noKernels(path)
	}
	kernels = g.inlineCalledOnce(prog, p, decls, kernels, cfg)
	dir := filepath.Dir(path)
	sources, err := genhash.Sources(dir, g.output)
	if err != nil {
		return fmt.Errorf("qdgen: %s: %v", p.PkgPath, err)
	}
	stubs.Inputs = genhash.Line(sources)
	files, outs, err := g.compile(stubs, kernels)
	var internal *emit.Error
	if errors.As(err, &internal) {
		g.report(p.Fset, []lower.Diagnostic{{Pos: internal.Kernel.Pos, Message: internal.Error()}})
		return errFailed
	}
	if err != nil {
		return fmt.Errorf("qdgen: %s: %v", p.PkgPath, err)
	}
	if g.check {
		return g.checkFiles(dir, files)
	}
	if err := g.writeFiles(dir, files); err != nil {
		return err
	}
	g.saveStamp(dir)
	if g.dump != "" {
		if err := g.writeDump(p, outs); err != nil {
			return fmt.Errorf("qdgen: %v", err)
		}
	}
	return nil
}

// noKernels handles the generated file of a package without kernels: it
// has none, or only the placeholder a run under go generate leaves.
func (g *generator) noKernels(path string) error {
	dir := filepath.Dir(path)
	switch {
	case g.check && isGenerated(path) && !isPlaceholder(path):
		return fmt.Errorf("qdgen: %s: package has no kernels; remove it", g.rel(path))
	case g.check:
		if stale := g.staleImages(dir, nil); len(stale) > 0 {
			return fmt.Errorf("qdgen: %s: package has no kernels; remove it", g.rel(stale[0]))
		}
		return nil
	case isGenerated(path):
		if err := g.remove(path); err != nil {
			return err
		}
	}
	return g.removeStaleImages(dir, nil)
}

// binaries builds the cubins -cubin asks for and the code objects
// -hip-arch asks for, or is nil.
func (g *generator) binaries() func(rtimpl.Image) ([]rtimpl.Image, error) {
	if len(g.cubins) == 0 && len(g.hipTargets) == 0 {
		return nil
	}
	return func(img rtimpl.Image) ([]rtimpl.Image, error) {
		switch {
		case img.Kind == rtimpl.ImagePTX && len(g.cubins) > 0:
			return assemble(g.ptxas, img.Data, g.cubins)
		case img.Kind == rtimpl.ImageHIP && len(g.hipTargets) > 0:
			return codeObjects(g.hipcc, img.Data, g.hipTargets)
		}
		return nil, nil
	}
}

// binaryImages are the binary images the generated files carry, without
// their code.
func (g *generator) binaryImages() []rtimpl.Image {
	var images []rtimpl.Image
	for _, arch := range g.cubins {
		images = append(images, rtimpl.Image{Kind: rtimpl.ImageCubin, Arch: arch})
	}
	for _, target := range g.hipTargets {
		images = append(images, rtimpl.Image{Kind: rtimpl.ImageHSACO, Arch: target})
	}
	return images
}

// writeDump writes each backend's image of the package to the dump
// directory (package.ptx, package.hip, package.ir), and the IR it was
// emitted from, after the backend's passes, where it differs from the IR
// image (package.ptx.ir): one file per distinct content.
func (g *generator) writeDump(p *packages.Package, outs []*emit.Output) error {
	if err := os.MkdirAll(g.dump, 0o755); err != nil {
		return err
	}
	base := filepath.Join(g.dump, strings.NewReplacer("/", "_", ".", "_").Replace(p.PkgPath))
	var irImage string
	for _, out := range outs {
		if out.Image.Kind == rtimpl.ImageIR {
			irImage = out.Image.Data
		}
	}
	for _, out := range outs {
		name := base + "." + out.Backend.Name
		if err := writeIfChanged(name, []byte(out.Image.Data)); err != nil {
			return err
		}
		text := ir.FormatKernels(out.Kernels)
		if out.Image.Kind == rtimpl.ImageIR || emit.IRHeader+text == irImage {
			os.Remove(name + ".ir") // left by an earlier run
			continue
		}
		if err := writeIfChanged(name+".ir", []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

func (g *generator) outputPath(p *packages.Package) string {
	dir := p.Dir
	if dir == "" && len(p.GoFiles) > 0 {
		dir = filepath.Dir(p.GoFiles[0])
	}
	return filepath.Join(dir, g.output)
}

// checkOutputName checks the -o flag: a Go file of the package's own
// directory that the go command compiles.
func checkOutputName(name string) error {
	switch {
	case filepath.Base(name) != name || name == "." || name == "..":
		return fmt.Errorf("qdgen: -o %s: give a file name, which is written in each package's directory", name)
	case !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go"):
		return fmt.Errorf("qdgen: -o %s: the generated file must be a Go file of the package, named *.go but not *_test.go", name)
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_"):
		return fmt.Errorf("qdgen: -o %s: the go command ignores files whose names start with . or _", name)
	}
	return nil
}

// nameConflicts reports declarations of the package that its generated
// file would redeclare, and kernels named like the methods it declares.
func nameConflicts(p *packages.Package, output string, names []string, decls []*ast.FuncDecl) []lower.Diagnostic {
	var diags []lower.Diagnostic
	for _, name := range names {
		if obj := p.Types.Scope().Lookup(name); obj != nil && !inFile(p, obj.Pos(), output) {
			diags = append(diags, lower.Diagnostic{Pos: obj.Pos(),
				Message: fmt.Sprintf("%s is declared here, but the file qdgen generates for this package's kernels declares %s; rename it", name, name)})
		}
	}
	for _, d := range decls {
		if slices.Contains(gostub.Methods, d.Name.Name) {
			diags = append(diags, lower.Diagnostic{Pos: d.Name.Pos(),
				Message: fmt.Sprintf("kernel %s has the name of the method Kernels.%s of the file qdgen generates; rename the kernel", d.Name.Name, d.Name.Name)})
		}
	}
	return diags
}

// inlineCalledOnce returns the kernels with those that call a shared
// function (lower/libfuncs.go) that the module's optimized code calls from
// one place only lowered again, with the function inlined there: the call
// goes and no code is copied. The count is of the optimized code because
// the passes may copy a loop, and a call in it (opt's index narrowing
// keeps a checked copy of a loop): a function called in such a loop is
// not inlined, which would copy it. kernels are those of decls, in order.
func (g *generator) inlineCalledOnce(prog *ssa.Program, p *packages.Package, decls []*ast.FuncDecl, kernels []*ir.Kernel, cfg *lower.Config) []*ir.Kernel {
	if len(g.backends) == 0 || len(kernels) != len(decls) || lower.ModuleCalledOnce(kernels) == nil {
		return kernels // the passes do not make a function called once
	}
	var optimized []*ir.Kernel
	for _, k := range kernels {
		c := k.Clone()
		if err := g.backends[0].Pipeline.Run(c); err != nil {
			return kernels // reported when the backends compile them
		}
		optimized = append(optimized, c)
	}
	once := lower.ModuleCalledOnce(optimized)
	if once == nil {
		return kernels
	}
	again := *cfg
	again.CalledOnce = once
	again.Note, again.Warn = nil, nil // the first lowering reported them
	out := slices.Clone(kernels)
	for i, k := range kernels {
		if !lower.CallsAny(k, once) {
			continue
		}
		if k, diags := lower.Kernel(lower.KernelFunc(prog, p.TypesInfo, decls[i]), &again); len(diags) == 0 && k != nil {
			out[i] = k
		}
	}
	return out
}
