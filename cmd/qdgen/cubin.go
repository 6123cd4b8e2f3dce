package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/qdgo/qd/rt/rtimpl"
)

// With -cubin, qdgen also assembles each package's PTX for the listed
// architectures with ptxas and embeds the cubins beside it; rt loads the
// one for the GPU's architecture (same major version, minor no later)
// without compiling, and falls back to the PTX on other GPUs. A cubin loads
// only on drivers at least as new as the ptxas that built it, so build
// them with the oldest ptxas that knows every listed architecture.

// cubinArchs reads the -cubin list, such as "sm_80,sm_90".
func cubinArchs(list string) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	var archs []string
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		var n int
		if _, err := fmt.Sscanf(a, "sm_%d", &n); err != nil || n < 50 {
			return nil, fmt.Errorf("qdgen: -cubin: %q is not an architecture such as sm_80", a)
		}
		archs = append(archs, a)
	}
	return archs, nil
}

// findPtxas is the ptxas -ptxas names, else $PTXAS, else the one on PATH.
func findPtxas(flagValue string) (string, error) {
	for _, p := range []string{flagValue, os.Getenv("PTXAS")} {
		if p != "" {
			return p, nil
		}
	}
	p, err := exec.LookPath("ptxas")
	if err != nil {
		return "", fmt.Errorf("qdgen: -cubin needs ptxas (the CUDA toolkit's, or set -ptxas or PTXAS)")
	}
	return p, nil
}

// assemble builds one cubin of ptx for each architecture, keeping the line
// information of its .loc directives.
func assemble(ptxas, ptx string, archs []string) ([]rtimpl.Image, error) {
	dir, err := os.MkdirTemp("", "qdgen-cubin")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "module.ptx")
	if err := os.WriteFile(src, []byte(ptx), 0o644); err != nil {
		return nil, err
	}
	var images []rtimpl.Image
	for _, arch := range archs {
		out := filepath.Join(dir, arch+".cubin")
		if msg, err := exec.Command(ptxas, "-arch="+arch, "-lineinfo", "-o", out, src).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ptxas -arch=%s: %v\n%s", arch, err, msg)
		}
		bin, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		images = append(images, rtimpl.Image{Kind: rtimpl.ImageCubin, Arch: arch, Data: string(bin)})
	}
	return images, nil
}
