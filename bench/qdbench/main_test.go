package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBaselineFails checks that a baseline that fails partway keeps
// the figures it printed and reports its standard error.
func TestRunBaselineFails(t *testing.T) {
	script := filepath.Join(t.TempDir(), "baseline")
	src := "#!/bin/sh\necho device Fake GPU\necho launch_us 3.5\necho 'baseline.cu:99: cudaMallocAsync: out of memory' >&2\nexit 1\n"
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	values, device, err := runBaseline(script)
	if err == nil || !strings.Contains(err.Error(), "cudaMallocAsync: out of memory") {
		t.Errorf("error %v, want the baseline's standard error", err)
	}
	if device != "Fake GPU" || values["launch_us"] != 3.5 {
		t.Errorf("figures %v on %q, want those printed before the failure", values, device)
	}
	if _, _, err := runBaseline(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing baseline ran")
	}
}
