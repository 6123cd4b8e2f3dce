package rt

import (
	"strings"
	"testing"
)

// blockSpec has a block-level kernel that fits a block's shared memory
// and one that does not.
var blockSpec = &ModuleSpec{Package: "fake/blocks", Images: []Image{{Kind: ImagePTX, Data: "blocks ptx"}}, Kernels: []KernelSpec{{
	Name:  "Tiles",
	Tasks: []TaskSpec{{Entry: "tiles", Threads: 128, SharedBytes: 4096}},
}, {
	Name:  "Huge",
	Tasks: []TaskSpec{{Entry: "huge", Threads: 64, SharedBytes: 64 << 10}},
}}}

// TestLaunchBlocks checks that a block-level task is launched with one
// GPU block of its own size per block it counts, up to a few waves of
// the device (256 blocks of 128 threads on the fake one), over which its
// blocks stride, and that a task whose
// shared memory the device cannot give a block is a launch error naming
// the kernel and the limit.
func TestLaunchBlocks(t *testing.T) {
	_, drv, m := fakeModule(t, 0, blockSpec)
	drv.takeLog()
	launchCalls(t, m, drv, 0, []int64{100})
	expectLog(t, drv, "launch tiles grid 100×128 on default")
	launchCalls(t, m, drv, 0, []int64{1000})
	expectLog(t, drv, "launch tiles grid 256×128 on default")
	var args [16]byte
	err := m.Launch(1, []int64{10}, args[:], nil)
	if err == nil || !strings.Contains(err.Error(), "launch Huge") || !strings.Contains(err.Error(), "65536 bytes of shared memory") || !strings.Contains(err.Error(), "49152") {
		t.Errorf("launch of Huge: %v, want an error naming the kernel and the limit", err)
	}
}
