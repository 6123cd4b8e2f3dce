package nccl

import (
	"strings"
	"testing"

	"github.com/qdgo/qd/rt"
)

// A missing library is an error naming it and how to get it.
func TestMissingLibrary(t *testing.T) {
	t.Setenv("QD_NCCL_LIB", "libnccl-missing.so.2")
	_, err := loadLibrary(rt.CUDA)
	if err == nil {
		t.Fatal("loading a missing library succeeded")
	}
	for _, want := range []string{"libnccl-missing.so.2", "QD_NCCL_LIB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v: does not say %q", err, want)
		}
	}
}
