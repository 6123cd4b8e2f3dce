// Package genhash computes the sum of the sources a package's generated
// file is made from, which qdgen records in the file: qdgen compares it
// to skip a package whose sources have not changed without loading it,
// and qdvet reports a generated file whose sum is not its sources'. The
// file records no identity of the qdgen that made it, so that every build
// of one version of qdgen writes the same bytes.
//
// The sum covers the package directory's Go files other than tests and
// the generated file itself: their names and contents. It reads no other
// package, so a change in a helper of another package that a kernel calls
// does not change it.
package genhash

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Prefix starts the line of the generated file that records the sums.
const Prefix = "// Sources: "

// Sources returns the sum of the sources of the package in dir whose
// generated file is named output.
func Sources(dir, output string) (string, error) {
	return Files(dir, func(e os.DirEntry) bool { return isSource(e.Name(), output) && e.Type().IsRegular() })
}

// Files hashes the names, lengths and contents of the files of dir that
// keep selects, in name order.
func Files(dir string, keep func(os.DirEntry) bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range entries {
		if keep(e) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// isSource reports whether the file name is one of a package's sources.
func isSource(name, output string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && name != output &&
		!strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// Line is the line of the generated file that records the sum of its
// sources.
func Line(sources string) string { return Prefix + sources }

// Recorded reads the sum a generated file records, from its first lines.
func Recorded(path string) (sources string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for i := 0; i < 5 && s.Scan(); i++ {
		if rest, found := bytes.CutPrefix(s.Bytes(), []byte(Prefix)); found {
			return string(rest), true
		}
	}
	return "", false
}
