package main

import (
	"fmt"
	"strings"

	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/internal/srcload"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/packages"
)

// load loads the packages with their syntax and types. Code of a package
// may use what qdgen generates (Load, Kernels and its methods) while that
// file is missing or stale; then the packages are loaded a second time with
// a skeleton of the generated file in its place, declaring those names with
// the kernels' current signatures.
func (g *generator) load(patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: g.dir}
	pkgs, err := srcload.Load(cfg, patterns...)
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
			if src, err := gostub.Skeleton(g.stubPackage(p, decls)); err == nil {
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
	again, err := srcload.Load(cfg, patterns...)
	if err != nil {
		return pkgs, nil
	}
	g.overlay = make(map[string]bool)
	for path := range overlay {
		g.overlay[path] = true
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
