package generated_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/qdgo/qd/generated_test/kernels"
	"github.com/qdgo/qd/rt"
)

// plantedEnv makes TestSanitizerNamesGoLine, run again as a child of
// compute-sanitizer, launch the planted write itself.
const plantedEnv = "QD_PLANTED_WRITE"

// TestSanitizerNamesGoLine runs a kernel that writes out of range, its
// bounds checks left out, under compute-sanitizer's memcheck, and checks
// that the report names the Go file and line of the write: the line
// information of the PTX (.loc), which the driver's compiler keeps. It
// needs a CUDA GPU and compute-sanitizer (on PATH, in $CUDA_HOME/bin or
// /usr/local/cuda/bin). By hand:
//
//	go test -c -o gt.test ./generated_test && QD_PLANTED_WRITE=1 \
//	  compute-sanitizer --tool memcheck ./gt.test -test.run '^TestSanitizerNamesGoLine$'
func TestSanitizerNamesGoLine(t *testing.T) {
	if os.Getenv(plantedEnv) != "" {
		plantedWrite(t)
		return
	}
	sanitizer := findSanitizer()
	if sanitizer == "" {
		t.Skip("compute-sanitizer not found (on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin)")
	}
	if backend, _ := rt.ParseBackend(os.Getenv("QD_BACKEND")); backend == rt.HIP {
		t.Skip("compute-sanitizer checks CUDA GPUs")
	}
	openGPU(t).Close()
	cmd := exec.Command(sanitizer, "--tool", "memcheck", os.Args[0], "-test.run=^TestSanitizerNamesGoLine$", "-test.v")
	cmd.Env = append(os.Environ(), plantedEnv+"=1")
	out, _ := cmd.CombinedOutput() // the child fails: its kernel faulted
	report := string(out)
	want := fmt.Sprintf("planted.go:%d", sourceLine(t, "kernels/planted.go", "x[i+at] ="))
	if !strings.Contains(report, "Invalid __global__ write") {
		t.Fatalf("memcheck reported no invalid write:\n%s", report)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(want) + `\b`).MatchString(report) {
		t.Errorf("memcheck's report does not name %s:\n%s", want, report)
	}
}

// plantedWrite launches PlantedWrite 64 MiB past the end of its buffer.
func plantedWrite(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	ks, err := kernels.Load(dev)
	must(t, err)
	stubArgs, _, free, err := upload(dev, []any{make([]float32, 256), 1 << 24})
	must(t, err)
	defer free()
	must(t, callStub(ks, "PlantedWrite", stubArgs))
	t.Log(dev.Synchronize())
}

// findSanitizer returns the path of compute-sanitizer, or "".
func findSanitizer() string {
	if p, err := exec.LookPath("compute-sanitizer"); err == nil {
		return p
	}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		p := dir + "/bin/compute-sanitizer"
		if _, err := os.Stat(p); dir != "" && err == nil {
			return p
		}
	}
	return ""
}

// sourceLine returns the number of the first line of the file that
// contains text.
func sourceLine(t *testing.T, path, text string) int {
	src, err := os.ReadFile(path)
	must(t, err)
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", path, text)
	return 0
}
