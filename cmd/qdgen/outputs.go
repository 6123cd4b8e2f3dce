package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/qdgo/qd/emit/gostub"
)

// A package's generated files are its Go file and one file per image
// (gostub.ImageFile). All are made before any is written, so a failed run
// leaves them as they were; each is written atomically (writeFile), the
// images before the Go file that embeds them.

// genFile is one generated file of a package.
type genFile struct {
	name string // base name, in the package's directory
	data []byte
}

// writeFiles writes the files of the package in dir, then removes the
// image files of an earlier run that are not among them.
func (g *generator) writeFiles(dir string, files []genFile) error {
	for _, f := range files {
		if err := g.write(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return g.removeStaleImages(dir, files)
}

// checkFiles reports, for -check, the first file of the package in dir
// that is missing or differs, or an image file left from an earlier run.
func (g *generator) checkFiles(dir string, files []genFile) error {
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, f.data) {
			return fmt.Errorf("qdgen: %s is not current; run go generate", g.rel(path))
		}
	}
	if stale := g.staleImages(dir, files); len(stale) > 0 {
		return fmt.Errorf("qdgen: %s is left from a run with other backends or targets; run go generate", g.rel(stale[0]))
	}
	return nil
}

// staleImages lists the image files in dir, as the generated Go file's
// name makes them, that files does not hold.
func (g *generator) staleImages(dir string, files []genFile) []string {
	keep := make(map[string]bool)
	for _, f := range files {
		keep[f.name] = true
	}
	entries, _ := os.ReadDir(dir)
	var stale []string
	for _, e := range entries {
		if gostub.IsImageFile(g.output, e.Name()) && !keep[e.Name()] && e.Type().IsRegular() {
			stale = append(stale, filepath.Join(dir, e.Name()))
		}
	}
	return stale
}

// removeStaleImages removes the image files that files does not hold: a
// backend or a target dropped, or no kernels left.
func (g *generator) removeStaleImages(dir string, files []genFile) error {
	for _, path := range g.staleImages(dir, files) {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("qdgen: %v", err)
		}
		if g.verbose {
			fmt.Fprintf(g.stderr, "qdgen: removed %s\n", g.rel(path))
		}
	}
	return nil
}
