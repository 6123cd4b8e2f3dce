package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/qdgo/qd/emit"
)

// chooseBackends reads the -backends list, such as "ptx,hip". The IR,
// which the CPU backend's race mode runs, is always generated; an empty
// list makes a package for the CPU alone.
func chooseBackends(list string) ([]emit.Backend, error) {
	var names []string
	if list != "" {
		names = strings.Split(list, ",")
	}
	var known []string
	for _, b := range emit.Backends {
		if b.Name != "ir" {
			known = append(known, b.Name)
		}
	}
	for _, name := range names {
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("qdgen: -backends: no backend %q; choose among %s", name, strings.Join(known, ", "))
		}
	}
	var chosen []emit.Backend
	for _, b := range emit.Backends {
		if b.Name == "ir" || slices.Contains(names, b.Name) {
			chosen = append(chosen, b)
		}
	}
	return chosen, nil
}

// allBackends is the default of -backends.
func allBackends() string {
	var names []string
	for _, b := range emit.Backends {
		if b.Name != "ir" {
			names = append(names, b.Name)
		}
	}
	return strings.Join(names, ",")
}
