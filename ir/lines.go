package ir

import (
	"go/token"
	"path/filepath"
)

// Line information. Device code names the Go line each instruction comes
// from (PTX .loc, HIP #line), so that compute-sanitizer, cuda-gdb and
// profilers report a fault or a hot spot at file:line of the kernel's
// source. Files are named by their base name, as fault sites are, so that
// generated code does not depend on where the module lies on disk.

// Line is a place in a kernel's source: "kernels.go:14:9".
type Line struct {
	File      string // the file's base name
	Line, Col int
}

// LineOf returns the line of pos, one of the kernel's positions; ok is
// false when pos is not known, or the kernel has no Source.
func (k *Kernel) LineOf(pos token.Pos) (l Line, ok bool) {
	if k.Source == nil || !pos.IsValid() {
		return Line{}, false
	}
	p := k.Source.Position(pos)
	if p.Filename == "" || p.Line == 0 {
		return Line{}, false
	}
	return Line{File: filepath.Base(p.Filename), Line: p.Line, Col: p.Column}, true
}

// SourceFiles lists the files the kernels' code comes from, in the order
// emitters write the code (each kernel's functions, then its tasks), each
// once: the file table of a module's line information.
func SourceFiles(kernels []*Kernel) []string {
	var files []string
	seen := map[string]bool{}
	for _, k := range kernels {
		if k.Source == nil {
			continue
		}
		for _, t := range k.Bodies() {
			for _, b := range t.Blocks {
				for i := range b.Instrs {
					l, ok := k.LineOf(b.Instrs[i].Pos)
					if ok && !seen[l.File] {
						seen[l.File] = true
						files = append(files, l.File)
					}
				}
			}
		}
	}
	return files
}
