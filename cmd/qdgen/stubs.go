package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"

	"github.com/qdgo/qd/emit"
	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt/rtimpl"
	"golang.org/x/tools/go/packages"
)

// stubPackage describes the generated file of p, whose kernels are decls,
// as far as the source tells: enough for its skeleton and its names. The
// file carries the binaries (their kinds and architectures) beside the
// backends' images.
func (g *generator) stubPackage(p *packages.Package, decls []*ast.FuncDecl) *gostub.Package {
	output := g.output
	sp := &gostub.Package{Path: p.PkgPath, Name: p.Name, Output: output}
	if p.Types != nil {
		for _, name := range p.Types.Scope().Names() {
			if !inFile(p, p.Types.Scope().Lookup(name).Pos(), output) {
				sp.Declared = append(sp.Declared, name)
			}
		}
	}
	for _, d := range decls {
		if slices.Contains(gostub.Methods, d.Name.Name) {
			continue // reported; the skeleton must still compile
		}
		if fn, ok := p.TypesInfo.Defs[d.Name].(*types.Func); ok {
			sp.Kernels = append(sp.Kernels, gostub.Kernel{Func: fn, Pos: p.Fset.Position(d.Pos()), Doc: d.Doc.Text()})
		}
	}
	for _, b := range g.backends {
		sp.Images = append(sp.Images, rtimpl.Image{Kind: b.Kind})
	}
	sp.Images = append(sp.Images, g.binaryImages()...)
	return sp
}

// compile compiles the kernels with the chosen backends and returns the
// package's generated files: an image file of each backend's image and of
// each binary made of it (-cubin, -hip-arch), then the Go file that embeds
// them.
func (g *generator) compile(stubs *gostub.Package, kernels []*ir.Kernel) ([]genFile, []*emit.Output, error) {
	outs, err := emit.CompileAll(g.backends, kernels)
	if err != nil {
		return nil, nil, err
	}
	if err := addOutputs(stubs, outs); err != nil {
		return nil, nil, err
	}
	if binaries := g.binaries(); binaries != nil {
		for _, out := range outs {
			images, err := binaries(out.Image)
			if err != nil {
				return nil, nil, err
			}
			stubs.Images = append(stubs.Images, images...)
		}
	}
	src, err := gostub.File(stubs)
	if err != nil {
		return nil, nil, err
	}
	var files []genFile
	for _, img := range stubs.Images {
		files = append(files, genFile{gostub.ImageFile(g.output, img), []byte(img.Data)})
	}
	return append(files, genFile{g.output, src}), outs, nil
}

// addOutputs completes sp with what the backends compiled: the images,
// and the kernels' IR, which is the same for every backend as far as the
// stubs see it.
func addOutputs(sp *gostub.Package, outs []*emit.Output) error {
	if len(outs) == 0 {
		return fmt.Errorf("emit.Backends lists no backend")
	}
	if len(sp.Kernels) != len(outs[0].Kernels) {
		return fmt.Errorf("no type information for some of the kernels")
	}
	// The device code names a kernel by its place in the module (in a
	// fault record), so the stubs list the kernels in the images' order.
	for i := range sp.Kernels {
		k := &sp.Kernels[i]
		if name := outs[0].Kernels[i].Name; name != k.Func.Name() {
			return fmt.Errorf("kernel %s was compiled in the place of %s", name, k.Func.Name())
		}
		k.IR = outs[0].Kernels[i]
	}
	sp.Images = sp.Images[:0]
	for _, out := range outs {
		sp.Images = append(sp.Images, out.Image)
	}
	return nil
}

// inFile reports whether pos lies in the package's file of the given
// base name.
func inFile(p *packages.Package, pos token.Pos, name string) bool {
	return filepath.Base(p.Fset.Position(pos).Filename) == name
}
