package main

import (
	"testing"

	"github.com/qdgo/qd/internal/loadtime"
)

// TestModuleLoadGPU reports the module's first and cached loads in new
// processes.
func TestModuleLoadGPU(t *testing.T) { loadtime.Check(t, qdModule) }
