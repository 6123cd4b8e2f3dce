package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/qdgo/qd/emit/gostub"
	"github.com/qdgo/qd/internal/genhash"
)

// A repeated run on unchanged packages returns without loading them, as
// go generate runs qdgen once per package. The generated file records the
// sum of its package's sources (genhash); a stamp in the user's cache
// records which qdgen, with which flags, last wrote or found current the
// package's generated files, and their sum. A run skips loading when every
// pattern is a directory whose sources, generated files and stamp all
// agree with this qdgen.

// upToDate reports whether every pattern names a package directory whose
// generated files are current, so that the run has nothing to do.
func (g *generator) upToDate(patterns []string) bool {
	if g.check || g.dump != "" || g.verbose {
		return false
	}
	for _, pattern := range patterns {
		dir, ok := g.patternDir(pattern)
		if !ok {
			return false
		}
		stamp, ok := g.stamp(dir)
		if !ok {
			return false
		}
		old, err := os.ReadFile(g.stampPath(dir))
		if err != nil || string(old) != stamp {
			return false
		}
	}
	return true
}

// patternDir is the directory a pattern names, if it is a plain path.
func (g *generator) patternDir(pattern string) (string, bool) {
	local := pattern == "." || pattern == ".." || strings.HasPrefix(pattern, "./") || strings.HasPrefix(pattern, "../") || filepath.IsAbs(pattern)
	if !local || strings.Contains(pattern, "...") {
		return "", false
	}
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(g.dir, pattern)
	}
	dir, err := filepath.Abs(pattern)
	return dir, err == nil
}

// saveStamp records that the generated files in dir are current. A stamp
// that cannot be written only costs the next run its shortcut.
func (g *generator) saveStamp(dir string) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	stamp, ok := g.stamp(dir)
	if !ok {
		return
	}
	path := g.stampPath(dir)
	if path == "" || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	writeIfChanged(path, []byte(stamp))
}

// stamp is what the stamp of dir holds while its generated files are
// current: this qdgen's identity, the sum of the package's sources that
// the generated file records, and the sum of the generated files.
func (g *generator) stamp(dir string) (string, bool) {
	id := g.identity()
	recorded, ok := genhash.Recorded(filepath.Join(dir, g.output))
	if id == "" || !ok {
		return "", false
	}
	if sources, err := genhash.Sources(dir, g.output); err != nil || sources != recorded {
		return "", false
	}
	files, err := genhash.Files(dir, func(e os.DirEntry) bool {
		return e.Name() == g.output || gostub.IsImageFile(g.output, e.Name())
	})
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("qdgen %s\nsources %s\nfiles %s\n", id, recorded, files), true
}

// stampPath is the file of dir's stamp in the user's cache, or "".
func (g *generator) stampPath(dir string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	key := sha256.Sum256([]byte(dir + "\x00" + g.output))
	return filepath.Join(cache, "qdgen", hex.EncodeToString(key[:16]))
}

// identity identifies this qdgen and the flags that shape what it writes:
// the sum of its executable, which any change of qd's code changes.
func (g *generator) identity() string {
	if g.id != "" {
		return g.id
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	var backends []string
	for _, b := range g.backends {
		backends = append(backends, b.Name)
	}
	fmt.Fprintf(h, "\x00%q %q %q %q", g.output, backends, g.cubins, g.hipTargets)
	g.id = hex.EncodeToString(h.Sum(nil))
	return g.id
}
