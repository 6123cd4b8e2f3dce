package hip

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoCompiler is returned when hipcc cannot be found.
var ErrNoCompiler = errors.New("hipcc not found (set HIPCC, put it on the PATH, or install ROCm)")

// Compiler finds hipcc: $HIPCC, then hipcc on the PATH, then ROCm's
// default place.
func Compiler() (string, error) {
	if p := os.Getenv("HIPCC"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("hipcc"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/opt/rocm/bin/hipcc"); err == nil {
		return "/opt/rocm/bin/hipcc", nil
	}
	return "", ErrNoCompiler
}

// CodeObject compiles the HIP source of a module with hipcc into a code
// object for one AMD GPU target, such as "gfx90a" or
// "gfx942:sramecc+:xnack-": device code only and not bundled, the form the
// HIP driver loads for that target, with the line tables of the source's
// #line directives.
func CodeObject(hipcc, source, target string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "qd-hip-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "module.hip"), []byte(source), 0o644); err != nil {
		return nil, err
	}
	// Relative names and a fixed compilation directory keep the temporary
	// directory out of the line tables, so the same source always gives
	// the same bytes.
	cmd := exec.Command(hipcc, "-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output",
		"--offload-arch="+target, "-O3", "-ffp-contract=off", "-gline-tables-only",
		"-fdebug-compilation-dir=.", "-ffile-prefix-map="+dir+"=.", "-c", "module.hip", "-o", "module.co")
	cmd.Dir = dir
	if log, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s --offload-arch=%s: %v\n%s", filepath.Base(hipcc), target, err, strings.TrimSpace(string(log)))
	}
	return os.ReadFile(filepath.Join(dir, "module.co"))
}
