// Command blocks measures the block-level examples (example/sgemm,
// transpose, scan, stencil, histogram) beside the same algorithms in CUDA
// C and the libraries' versions (bench/blocks/blocks.cu: cuBLAS, a
// device-to-device copy, CUB), in one run, and prints one table: each
// row's qd time, baseline time and their ratio, the baseline's time over
// qd's, so above 1 qd is faster. bench/blocks/run.sh builds the CUDA side
// and runs it.
//
//	blocks -bin bench/blocks/bin -cuda bench/blocks/bin/blocks-cuda
//
// The examples check their results against Go as they run; one that
// finds a mismatch fails, and its rows say so. Both sides time by the
// GPU's events: the examples the mean of their runs after a first one,
// the CUDA program the median of its runs after a first one.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The sizes; blocks.cu has the same.
const (
	sgemmN     = 4096
	transposeN = 8192
	scanN      = 1 << 28
	stencilN   = 8192
	histN      = 1 << 28
	histBlocks = 1024
)

// examples are the example programs and their arguments.
var examples = []struct {
	name string
	args []string
}{
	{"sgemm", []string{"-n", fmt.Sprint(sgemmN)}},
	{"transpose", []string{"-height", fmt.Sprint(transposeN), "-width", fmt.Sprint(transposeN)}},
	{"scan", []string{"-n", fmt.Sprint(scanN)}},
	{"stencil", []string{"-nx", fmt.Sprint(stencilN), "-ny", fmt.Sprint(stencilN)}},
	{"histogram", []string{"-n", fmt.Sprint(histN), "-blocks", fmt.Sprint(histBlocks)}},
}

// A row compares one qd kernel's time (an example's line "Name: t ms per
// run") with a baseline's: the CUDA program's line "name t checksum"
// (source "cuda" or "cuda-fma") or another qd kernel's (source "qd").
type row struct {
	label        string
	qd           string
	source, base string
	bytes        float64 // bytes read and written, for GB/s; 0 for none
}

var rows = []row{
	{"SGEMM 4096³ vs same tiling (CUDA, fmad off)", "Sgemm", "cuda", "sgemm_tiled", 0},
	{"SGEMM 4096³ vs cuBLAS", "Sgemm", "cuda", "sgemm_cublas", 0},
	{"SGEMM 4096³ vs cuBLAS pedantic", "Sgemm", "cuda", "sgemm_cublas_pedantic", 0},
	{"SGEMM fma 4096³ vs same tiling (CUDA, fmad on)", "SgemmFMA", "cuda-fma", "sgemm_tiled", 0},
	{"SGEMM fma 4096³ vs cuBLAS", "SgemmFMA", "cuda", "sgemm_cublas", 0},
	{"transpose 8192² vs same tiling (CUDA)", "Transpose", "cuda", "transpose_tiled", 8 * transposeN * transposeN},
	{"transpose 8192² vs D2D copy", "Transpose", "cuda", "copy_d2d", 8 * transposeN * transposeN},
	{"prefix sum 2^28 int32 vs same algorithm (CUDA)", "PrefixSum", "cuda", "scan_tiles", 8 * scanN},
	{"prefix sum 2^28 int32 vs CUB InclusiveSum", "PrefixSum", "cuda", "scan_cub", 8 * scanN},
	{"stencil halo 8192² vs qd flat stencil", "StencilHalo", "qd", "StencilFlat", 8 * stencilN * stencilN},
	{"stencil halo 8192² vs same tiling (CUDA)", "StencilHalo", "cuda", "stencil_halo", 8 * stencilN * stencilN},
	{"histogram 2^28 bytes vs same algorithm (CUDA)", "Histogram", "cuda", "histogram", histN},
}

func main() {
	bin := flag.String("bin", "bench/blocks/bin", "folder of the example programs")
	cuda := flag.String("cuda", "", "the CUDA program, built with --fmad=false")
	cudaFMA := flag.String("cuda-fma", "", "the CUDA program built with nvcc's default, fmad on (optional)")
	reps := flag.Int("reps", 20, "timed runs of each kernel")
	flag.Parse()
	log.SetFlags(0)

	times := map[string]map[string]float64{"qd": {}, "cuda": {}, "cuda-fma": {}}
	failed := map[string]string{} // qd kernel or source: why it has no time
	for _, ex := range examples {
		args := append(ex.args, "-reps", fmt.Sprint(*reps))
		out, err := run(filepath.Join(*bin, ex.name), args...)
		found := qdTimes(out)
		maps.Copy(times["qd"], found)
		if err != nil {
			for name := range found {
				failed[name] = ex.name + " failed"
			}
			failed[ex.name] = err.Error()
			fmt.Fprintf(os.Stderr, "blocks: %s: %v\n%s", ex.name, err, out)
		}
	}
	for source, path := range map[string]string{"cuda": *cuda, "cuda-fma": *cudaFMA} {
		if path == "" {
			failed[source] = "not run"
			continue
		}
		args := []string{fmt.Sprint(*reps)}
		if source == "cuda-fma" {
			args = append(args, "sgemm_tiled")
		}
		out, err := run(path, args...)
		if err != nil {
			failed[source] = err.Error()
			fmt.Fprintf(os.Stderr, "blocks: %s: %v\n%s", path, err, out)
		}
		found, device := baselineTimes(out)
		maps.Copy(times[source], found)
		if device != "" && source == "cuda" {
			fmt.Println("device:", device)
		}
	}
	table(os.Stdout, times, failed)
}

// qdLine is an example's line of timing.
var qdLine = regexp.MustCompile(`(?m)^(\w+): ([0-9.]+) ms per run`)

// qdTimes reads the kernels' times from an example's output.
func qdTimes(out string) map[string]float64 {
	times := map[string]float64{}
	for _, m := range qdLine.FindAllStringSubmatch(out, -1) {
		if v, err := strconv.ParseFloat(m[2], 64); err == nil {
			times[m[1]] = v
		}
	}
	return times
}

// baselineTimes reads the times and the device from the CUDA program's
// output: lines "name ms checksum" and "device name".
func baselineTimes(out string) (times map[string]float64, device string) {
	times = map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 2 && f[0] == "device":
			device = strings.Join(f[1:], " ")
		case len(f) >= 2:
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				times[f[0]] = v
			}
		}
	}
	return times, device
}

// run runs a program and returns what it printed.
func run(path string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// table prints the table, then what failed.
func table(out io.Writer, times map[string]map[string]float64, failed map[string]string) {
	w := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "kernel\tqd ms\tbaseline ms\tratio\tqd GB/s\tbaseline GB/s\t")
	for _, r := range rows {
		q, okq := times["qd"][r.qd]
		b, okb := times[r.source][r.base]
		cell := func(v float64, ok bool) string {
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%.3f", v)
		}
		gbps := func(v float64, ok bool) string {
			if !ok || r.bytes == 0 {
				return ""
			}
			return fmt.Sprintf("%.0f", r.bytes/v/1e6)
		}
		ratio := "-"
		if okq && okb && failed[r.qd] == "" {
			ratio = fmt.Sprintf("%.2f", b/q)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.label, cell(q, okq), cell(b, okb), ratio, gbps(q, okq), gbps(b, okb))
	}
	w.Flush()
	fmt.Fprintln(out, "ratio: the baseline's time over qd's; above 1, qd is faster")
	for _, what := range slices.Sorted(maps.Keys(failed)) {
		fmt.Fprintf(out, "%s: %s\n", what, failed[what])
	}
}
