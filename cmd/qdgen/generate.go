package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qdgo/qd/analyzer"
	"github.com/qdgo/qd/emit"
	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/rt"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

type generator struct {
	output string   // file name in each package directory
	dump   string   // directory for each backend's device code and IR, or ""
	check  bool     // only verify that generated files are current
	cubins []string // architectures to embed cubins for (-cubin)
	ptxas  string   // the ptxas that builds them
	// hipTargets are the AMD GPUs to embed code objects for (-hip-arch),
	// which hipcc builds from the HIP source.
	hipTargets []string
	hipcc      string
	dir        string    // directory the patterns are relative to; "" for the current one
	stderr     io.Writer // diagnostics; os.Stderr when nil
}

var errFailed = errors.New("qdgen: errors in the packages above; nothing was generated")

func (g *generator) run(patterns []string) error {
	if g.stderr == nil {
		g.stderr = os.Stderr
	}
	pkgs, err := g.load(patterns)
	if err != nil {
		return err
	}
	failed := false
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			fmt.Fprintln(g.stderr, e)
			failed = true
		}
	})
	if failed {
		for _, p := range pkgs {
			g.removeStale(p)
		}
		return errFailed
	}
	prog, ssaPkgs := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	for _, sp := range ssaPkgs {
		if sp != nil {
			sp.Build()
		}
	}
	for _, p := range pkgs {
		if err := g.generate(prog, p); err != nil {
			failed = true
			if !errors.Is(err, errFailed) {
				fmt.Fprintln(g.stderr, err)
			}
		}
	}
	if failed {
		return errFailed
	}
	return nil
}

// load loads the packages with their syntax and types. Code of a package
// may use what qdgen generates (Load, Kernels and its methods) while that
// file is missing or stale; then the packages are loaded a second time with
// a skeleton of the generated file in its place, declaring those names with
// the kernels' current signatures.
func (g *generator) load(patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: g.dir}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("qdgen: %v", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("qdgen: no packages match %s", strings.Join(patterns, " "))
	}
	if !hasErrors(pkgs) {
		return pkgs, nil
	}
	// Without the generated files, only the kernels' signatures matter.
	light := &packages.Config{
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		BuildFlags: []string{"-tags=" + gostub.BuildTag},
		Dir:        g.dir,
	}
	roots, err := packages.Load(light, patterns...)
	if err != nil {
		return pkgs, nil
	}
	overlay := make(map[string][]byte)
	for _, p := range roots {
		path := g.outputPath(p)
		switch decls := lower.KernelDecls(p.Syntax); {
		case len(decls) > 0 && p.Types != nil:
			if src, err := gostub.Skeleton(stubPackage(p, decls, g.binaryImages())); err == nil {
				overlay[path] = src
			}
		case isGenerated(path):
			// No kernels any more: the old file is ignored, then removed.
			overlay[path] = []byte("package " + p.Name + "\n")
		}
	}
	if len(overlay) == 0 {
		return pkgs, nil
	}
	cfg.Overlay = overlay
	again, err := packages.Load(cfg, patterns...)
	if err != nil {
		return pkgs, nil
	}
	return again, nil
}

// hasErrors reports whether loading any of the packages or their
// dependencies failed.
func hasErrors(pkgs []*packages.Package) bool {
	failed := false
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		failed = failed || len(p.Errors) > 0
	})
	return failed
}

// generate checks and compiles the kernels of one package and writes its
// generated file.
func (g *generator) generate(prog *ssa.Program, p *packages.Package) error {
	decls := lower.KernelDecls(p.Syntax)
	kernels, diags := analyzer.Check(prog, p.Syntax, decls, p.TypesInfo, &lower.Config{})
	stubs := stubPackage(p, decls, g.binaryImages())
	if len(decls) > 0 {
		diags = append(diags, nameConflicts(p, g.output, gostub.Names(stubs))...)
	}
	if len(diags) > 0 {
		g.report(p.Fset, diags)
		g.removeStale(p)
		return errFailed
	}
	if len(decls) == 0 {
		if g.check && isGenerated(g.outputPath(p)) {
			return fmt.Errorf("qdgen: %s: package has no kernels; remove it", g.outputPath(p))
		}
		g.removeStale(p)
		return nil
	}
	src, outs, err := compile(stubs, kernels, g.binaries())
	var internal *emit.Error
	if errors.As(err, &internal) {
		g.report(p.Fset, []lower.Diagnostic{{Pos: internal.Kernel.Pos, Message: internal.Error()}})
		g.removeStale(p)
		return errFailed
	}
	if err != nil {
		g.removeStale(p)
		return fmt.Errorf("qdgen: %s: %v", p.PkgPath, err)
	}
	if g.check {
		if old, err := os.ReadFile(g.outputPath(p)); err != nil || !bytes.Equal(old, src) {
			return fmt.Errorf("qdgen: %s is not current; run go generate", g.outputPath(p))
		}
		return nil
	}
	if err := writeIfChanged(g.outputPath(p), src); err != nil {
		return fmt.Errorf("qdgen: %v", err)
	}
	if g.dump != "" {
		if err := g.writeDump(p, outs); err != nil {
			return fmt.Errorf("qdgen: %v", err)
		}
	}
	return nil
}

// binaries builds the cubins -cubin asks for and the code objects
// -hip-arch asks for, or is nil.
func (g *generator) binaries() func(rt.Image) ([]rt.Image, error) {
	if len(g.cubins) == 0 && len(g.hipTargets) == 0 {
		return nil
	}
	return func(img rt.Image) ([]rt.Image, error) {
		switch {
		case img.Kind == rt.ImagePTX && len(g.cubins) > 0:
			return assemble(g.ptxas, img.Data, g.cubins)
		case img.Kind == rt.ImageHIP && len(g.hipTargets) > 0:
			return codeObjects(g.hipcc, img.Data, g.hipTargets)
		}
		return nil, nil
	}
}

// binaryImages are the binary images the generated files carry, without
// their code.
func (g *generator) binaryImages() []rt.Image {
	var images []rt.Image
	for _, arch := range g.cubins {
		images = append(images, rt.Image{Kind: rt.ImageCubin, Arch: arch})
	}
	for _, target := range g.hipTargets {
		images = append(images, rt.Image{Kind: rt.ImageHSACO, Arch: target})
	}
	return images
}

// writeDump writes each backend's image of the package and the IR it was
// emitted from, after the backend's passes, to the dump directory.
func (g *generator) writeDump(p *packages.Package, outs []*emit.Output) error {
	if err := os.MkdirAll(g.dump, 0o755); err != nil {
		return err
	}
	base := filepath.Join(g.dump, strings.NewReplacer("/", "_", ".", "_").Replace(p.PkgPath))
	for _, out := range outs {
		var text strings.Builder
		for i, k := range out.Kernels {
			if i > 0 {
				text.WriteString("\n")
			}
			text.WriteString(k.String())
		}
		name := base + "." + out.Backend.Name
		if err := writeIfChanged(name, []byte(out.Image.Data)); err != nil {
			return err
		}
		if err := writeIfChanged(name+".ir", []byte(text.String())); err != nil {
			return err
		}
	}
	return nil
}

// report prints diagnostics as the Go tools do: file:line:col: message.
func (g *generator) report(fset *token.FileSet, diags []lower.Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	for _, d := range diags {
		pos := fset.Position(d.Pos)
		name := pos.Filename
		if wd, err := filepath.Abs(g.dir); err == nil {
			if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
				name = rel
			}
		}
		fmt.Fprintf(g.stderr, "%s:%d:%d: %s\n", name, pos.Line, pos.Column, d.Message)
	}
}

func (g *generator) outputPath(p *packages.Package) string {
	dir := p.Dir
	if dir == "" && len(p.GoFiles) > 0 {
		dir = filepath.Dir(p.GoFiles[0])
	}
	return filepath.Join(dir, g.output)
}

// removeStale deletes the package's generated file, if there is one: after
// a failed run it would not match the code any more.
func (g *generator) removeStale(p *packages.Package) {
	if g.check {
		return
	}
	path := g.outputPath(p)
	if isGenerated(path) {
		os.Remove(path)
	}
}

func isGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(gostub.Header))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == gostub.Header
}

// writeIfChanged replaces path with data atomically, through a temporary
// file in the same directory, unless it already holds data. It refuses to
// overwrite a file qdgen did not write.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		if filepath.Ext(path) == ".go" && !isGenerated(path) {
			return fmt.Errorf("%s exists and was not generated by qdgen; not overwriting it", path)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".qdgen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// nameConflicts reports declarations of the package that its generated
// file would redeclare.
func nameConflicts(p *packages.Package, output string, names []string) []lower.Diagnostic {
	isOutput := func(pos token.Pos) bool {
		return filepath.Base(p.Fset.Position(pos).Filename) == output
	}
	var diags []lower.Diagnostic
	for _, name := range names {
		if obj := p.Types.Scope().Lookup(name); obj != nil && !isOutput(obj.Pos()) {
			diags = append(diags, lower.Diagnostic{Pos: obj.Pos(),
				Message: fmt.Sprintf("%s is declared here, but the file qdgen generates for this package's kernels declares %s; rename it", name, name)})
		}
	}
	return diags
}
