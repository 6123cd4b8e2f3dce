package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qdgo/qd/analyzer"
	"github.com/qdgo/qd/lower"
	"golang.org/x/tools/go/packages"
)

// Messages are "file:line:col: message", with paths relative to the
// working directory when they lie below it, as the go command prints them.

// report prints diagnostics in position order.
func (g *generator) report(fset *token.FileSet, diags []lower.Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	for _, d := range diags {
		pos := fset.Position(d.Pos)
		fmt.Fprintf(g.stderr, "%s:%d:%d: %s\n", g.rel(pos.Filename), pos.Line, pos.Column, d.Message)
	}
}

// reportNotes prints the lowering's notes as diagnostics marked "note: ".
func (g *generator) reportNotes(fset *token.FileSet, notes []lower.Diagnostic) {
	marked := make([]lower.Diagnostic, len(notes))
	for i, n := range notes {
		marked[i] = lower.Diagnostic{Pos: n.Pos, Message: "note: " + n.Message}
	}
	g.report(fset, marked)
}

// reportWarnings prints the lowering's warnings as diagnostics marked
// "warning: ", with or without -v: they point at code that most likely
// does not run as its writer meant.
func (g *generator) reportWarnings(fset *token.FileSet, warnings []lower.Diagnostic) {
	marked := make([]lower.Diagnostic, len(warnings))
	for i, w := range warnings {
		marked[i] = lower.Diagnostic{Pos: w.Pos, Message: "warning: " + w.Message}
	}
	g.report(fset, marked)
}

// rel returns path relative to the working directory, if it lies below it.
func (g *generator) rel(path string) string {
	if rel, err := filepath.Rel(g.wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// packageErrors prints the errors of loading p and its dependencies, each
// once per run, and returns errFailed if there were any.
func (g *generator) packageErrors(p *packages.Package) error {
	failed := false
	packages.Visit([]*packages.Package{p}, nil, func(q *packages.Package) {
		for _, e := range q.Errors {
			failed = true
			msg := g.formatError(e)
			if !g.printed[msg] {
				g.printed[msg] = true
				fmt.Fprintln(g.stderr, msg)
			}
		}
	})
	if failed {
		return errFailed
	}
	return nil
}

// formatError writes a package error with a relative path. An error in a
// skeleton, which is not on disk, is qdgen's own.
func (g *generator) formatError(e packages.Error) string {
	file, rest, ok := strings.Cut(e.Pos, ":")
	switch {
	case !ok || e.Pos == "" || e.Pos == "-":
		return e.Msg
	case g.overlay[file]:
		return fmt.Sprintf("%s: internal error: qdgen's stand-in for this generated file does not type-check: %s", g.rel(file), e.Msg)
	}
	return fmt.Sprintf("%s:%s: %s", g.rel(file), rest, e.Msg)
}

// warnings prints what looks meant for qdgen but does nothing: directives
// misspelled, and kernels in files the package does not compile (test
// files, files its build constraints exclude).
func (g *generator) warnings(p *packages.Package) {
	var diags []lower.Diagnostic
	diags = append(diags, analyzer.MisspelledDirectives(p.Syntax)...)
	fset := p.Fset
	for _, path := range g.uncompiledFiles(p) {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			continue
		}
		why := "it is a test file, which qdgen does not compile"
		if !strings.HasSuffix(path, "_test.go") {
			why = "its file is excluded from the build by build constraints"
		}
		for _, d := range lower.KernelDecls([]*ast.File{f}) {
			diags = append(diags, lower.Diagnostic{Pos: d.Name.Pos(),
				Message: fmt.Sprintf("kernel %s is not compiled: %s; move it to a file the package builds", d.Name.Name, why)})
		}
	}
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Pos < diags[j].Pos })
	for _, d := range diags {
		pos := fset.Position(d.Pos)
		fmt.Fprintf(g.stderr, "%s:%d:%d: warning: %s\n", g.rel(pos.Filename), pos.Line, pos.Column, d.Message)
	}
}

// uncompiledFiles lists the Go files of p's directory that its build does
// not compile, its generated file excepted.
func (g *generator) uncompiledFiles(p *packages.Package) []string {
	compiled := make(map[string]bool)
	for _, f := range p.CompiledGoFiles {
		compiled[f] = true
	}
	var files []string
	for _, f := range p.IgnoredFiles {
		if strings.HasSuffix(f, ".go") && !compiled[f] && filepath.Base(f) != g.output {
			files = append(files, f)
		}
	}
	if dir := filepath.Dir(g.outputPath(p)); dir != "" {
		tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		files = append(files, tests...)
	}
	return files
}
