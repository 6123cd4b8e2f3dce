//go:build cgo

package rt

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCopyPeerOnFakeCUDA copies between two devices through qd's CUDA
// driver, its shim and the driver's calls, over testdata/peerfake: a
// libcuda.so.1 of two devices whose memory is the host's, so that the data
// can be checked, and whose peer calls check their arguments and log what
// they did. The driver library loads once per process, so the copies run
// in a child process that finds the fake through LD_LIBRARY_PATH.
func TestCopyPeerOnFakeCUDA(t *testing.T) {
	if os.Getenv("QD_PEERFAKE_CHILD") == "1" {
		copyPeerOnFake(t)
		return
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libcuda.so.1")
	if out, err := exec.Command(gcc, "-O2", "-shared", "-fPIC", "-o", lib, filepath.Join("testdata", "peerfake", "peerfake.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the fake: %v\n%s", err, out)
	}
	// Peer access both ways, each with the pool's access, once; then the
	// three copies of copyPeerOnFake.
	direct := []string{
		"enable peer access 1 to 0", "pool of 0 reachable from 1",
		"enable peer access 0 to 1", "pool of 1 reachable from 0",
		"copy from 0 to 1, 4096 bytes", "copy from 1 to 0, 4096 bytes", "copy from 0 to 1, 4096 bytes",
	}
	for _, tc := range []struct {
		name string
		env  []string
		want []string // the fake's log
	}{
		{"direct", nil, direct},
		// cuMemAlloc's memory rather than the pool's: qd still makes the
		// pool, and grants it.
		{"memory pools off", []string{"QD_MEMPOOL=off"}, direct},
		{"no peer access", []string{"QD_PEERFAKE_NO_PEER=1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCopyPeerOnFakeCUDA$", "-test.v")
			cmd.Env = append(os.Environ(), "QD_PEERFAKE_CHILD=1", "LD_LIBRARY_PATH="+dir, "QD_PEERFAKE_LOG="+log,
				"QD_CACHE=off", "QD_TRACE=", "QD_BACKEND=")
			cmd.Env = append(cmd.Env, tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			if tc.want == nil {
				if !strings.Contains(string(out), "direct: false") {
					t.Errorf("the child did not find the copies staged:\n%s", out)
				}
			}
			data, _ := os.ReadFile(log)
			got := strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], "_", " ")
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("the fake driver did\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// copyPeerOnFake is the child of TestCopyPeerOnFakeCUDA: copies between
// the fake's two devices, one way, back on a stream, and again, each
// checked.
func copyPeerOnFake(t *testing.T) {
	devs, err := OpenAll(WithBackend(CUDA))
	if err != nil {
		t.Fatal(err)
	}
	defer CloseAll(devs)
	if len(devs) != 2 || !strings.Contains(devs[0].String(), "peerfake") {
		t.Fatalf("opened %v, not the fake's two devices", devs)
	}
	want := make([]int32, 1024)
	for i := range want {
		want[i] = int32(i*7 + 1)
	}
	src, err := FromSlice(devs[0], want)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := Alloc[int32](devs[1], len(want))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Alloc[int32](devs[0], len(want))
	if err != nil {
		t.Fatal(err)
	}
	s, err := devs[0].NewStream()
	if err != nil {
		t.Fatal(err)
	}
	direct, err := EnablePeerAccess(devs[1], devs[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("direct: %v", direct)
	for i, c := range []struct {
		dst, src *Buffer[int32]
		s        *Stream
	}{{dst, src, nil}, {back, dst, s}, {dst, src, nil}} {
		if err := c.dst.Memset(0, c.s); err != nil {
			t.Fatal(err)
		}
		if err := CopyPeer(c.dst, c.src, c.s); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
		if c.s != nil {
			if err := c.s.Synchronize(); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := c.dst.Read(); err != nil || !slices.Equal(got, want) {
			t.Fatalf("copy %d: the destination differs (%v)", i, err)
		}
	}
}
