package main

import (
	"strings"
	"testing"
)

// The times come from an example's lines and the CUDA program's, and a
// row's ratio is the baseline's time over qd's.
func TestTable(t *testing.T) {
	qd := qdTimes("Sgemm: 20.000 ms per run, 6872 GFLOP/s, 4096x4096x4096 on cuda\nSgemmFMA: 10.5 ms per run, 13000 GFLOP/s\nok\n")
	if qd["Sgemm"] != 20 || qd["SgemmFMA"] != 10.5 || len(qd) != 2 {
		t.Fatalf("qd times %v", qd)
	}
	cuda, device := baselineTimes("device NVIDIA H100 80GB HBM3\nsgemm_tiled 19.0000 0123456789abcdef\nsgemm_cublas 8.4000 0123456789abcdef\n")
	if device != "NVIDIA H100 80GB HBM3" || cuda["sgemm_tiled"] != 19 || cuda["sgemm_cublas"] != 8.4 {
		t.Fatalf("baseline times %v, device %q", cuda, device)
	}
	var out strings.Builder
	table(&out, map[string]map[string]float64{"qd": qd, "cuda": cuda, "cuda-fma": {}}, map[string]string{"cuda-fma": "not run"})
	for label, want := range map[string]string{
		"SGEMM 4096³ vs same tiling (CUDA, fmad off)": "20.000 19.000 0.95",
		"SGEMM fma 4096³ vs cuBLAS":                   "10.500 8.400 0.80",
		"SGEMM 4096³ vs cuBLAS pedantic":              "20.000 - -",
	} {
		if got := cells(out.String(), label); got != want {
			t.Errorf("row %q: %q, want %q", label, got, want)
		}
	}
	if !strings.Contains(out.String(), "\ncuda-fma: not run\n") {
		t.Errorf("the table does not say the fma build was not run:\n%s", out.String())
	}
}

// cells returns the cells of the table's row with the label, one space
// apart.
func cells(table, label string) string {
	for line := range strings.Lines(table) {
		if rest, ok := strings.CutPrefix(line, label+"  "); ok {
			return strings.Join(strings.Fields(rest), " ")
		}
	}
	return ""
}
