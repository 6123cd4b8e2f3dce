package nccl

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qdgo/qd/rt"
)

// The GPU tests run in either of the two process models: in one process
// driving every GPU, a goroutine per rank (go test), or as one rank per
// process under a launcher (qdrun -n N ./nccl.test -test.run GPU), which
// sets RANK and WORLD_SIZE. Each test runs its ranks' part with ranks and
// checks the ranks it drives, so the same tests pass in both.

var gpuGroup struct {
	once  sync.Once
	comms []*Comm
	skip  string
	err   error
}

// gpuComms returns the communicators this process drives: every GPU's, or
// under a launcher its rank's, made once for all the tests (a group of
// processes meets once); it skips the test without 2 GPUs or NCCL.
func gpuComms(t *testing.T) []*Comm {
	t.Helper()
	g := &gpuGroup
	g.once.Do(func() { g.comms, g.skip, g.err = openGPUGroup() })
	if g.skip != "" {
		t.Skip(g.skip)
	}
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.comms
}

// underLauncher reports whether this test process is a rank of a group a
// launcher started (not one of TestProcesses' CPU ranks).
func underLauncher() bool {
	return os.Getenv("WORLD_SIZE") != "" && os.Getenv("QD_NCCL_TEST_RANK") == ""
}

// openGPUGroup opens the group of gpuComms. With QD_BACKEND=cpu it opens
// pretend CPU devices instead (QD_CPU_DEVICES of them in one process), so
// that the tests' ranks and the launcher's variables are tested on CI.
func openGPUGroup() (comms []*Comm, skip string, err error) {
	backend := rt.CPU
	n := rt.CPUDevices()
	if b, _ := rt.ParseBackend(os.Getenv("QD_BACKEND")); b != rt.CPU {
		if n, err = rt.DeviceCount(rt.GPU); err != nil {
			return nil, fmt.Sprintf("needs GPUs: %v", err), nil
		}
		dev, err := rt.Open(rt.WithBackend(rt.GPU))
		if err != nil {
			return nil, fmt.Sprintf("needs GPUs: %v", err), nil
		}
		backend = dev.Backend()
		dev.Close()
		if _, err := loadLibrary(backend); err != nil {
			return nil, err.Error(), nil
		}
	}
	if underLauncher() {
		e, err := ReadEnv()
		if err != nil {
			return nil, "", err
		}
		local := e.LocalRank
		if backend == rt.CPU {
			local = 0 // every process has its own pretend devices
		} else if local >= n {
			return nil, "", fmt.Errorf("LOCAL_RANK %d, but this host has %d GPUs", local, n)
		}
		dev, err := rt.Open(rt.WithBackend(backend), rt.WithDevice(local))
		if err != nil {
			return nil, "", err
		}
		c, err := InitFromEnv(dev, WithTimeout(2*time.Minute))
		if err != nil {
			dev.Close()
			return nil, "", fmt.Errorf("rank %d of %d: %w", e.Rank, e.WorldSize, err)
		}
		return []*Comm{c}, "", nil
	}
	if n < 2 {
		return nil, fmt.Sprintf("needs 2 %s devices: have %d", backend, n), nil
	}
	devs, err := rt.OpenAll(rt.WithBackend(backend))
	if err != nil {
		return nil, "", err
	}
	if comms, err = InitAll(devs); err != nil {
		rt.CloseAll(devs)
	}
	return comms, "", err
}

// TestAllReduceGPU all-reduces across every GPU through NCCL, in place
// and out of place, by sum, maximum and minimum.
func TestAllReduceGPU(t *testing.T) {
	comms := gpuComms(t)
	size := comms[0].Size()
	ops := []Op{Sum, Max, Min}
	got := make([][][]float32, size)
	must(t, ranks(comms, func(c *Comm) error {
		for _, op := range ops {
			send, err := rt.FromSlice(c.Device(), rankData(c.Rank(), 1000))
			if err != nil {
				return err
			}
			recv := send
			if op != Sum {
				if recv, err = rt.Alloc[float32](c.Device(), 1000); err != nil {
					return err
				}
			}
			if err := AllReduce(c, send, recv, op, nil); err != nil {
				return fmt.Errorf("%v: %w", op, err)
			}
			x, err := recv.Read()
			if err != nil {
				return err
			}
			got[c.Rank()] = append(got[c.Rank()], x)
		}
		return nil
	}))
	for i, op := range ops {
		want := rankData(0, 1000)
		for r := 1; r < size; r++ {
			for j, v := range rankData(r, 1000) {
				switch op {
				case Sum:
					want[j] += v
				case Max:
					want[j] = max(want[j], v)
				case Min:
					want[j] = min(want[j], v)
				}
			}
		}
		for _, c := range comms {
			if g := got[c.Rank()]; len(g) <= i || !slices.Equal(g[i], want) {
				t.Errorf("rank %d: %v differs from the host's", c.Rank(), op)
			}
		}
	}
}

// TestCollectivesGPU runs the other collectives across every GPU:
// broadcast, a ring of sends and receives on a stream, reduce, all-gather
// and reduce-scatter.
func TestCollectivesGPU(t *testing.T) {
	comms := gpuComms(t)
	size := comms[0].Size()
	type result struct{ bcast, ring, reduced, gathered, scattered []int32 }
	got := make([]result, size)
	must(t, ranks(comms, func(c *Comm) error {
		d, r := c.Device(), int32(c.Rank())
		s, err := d.NewStream()
		if err != nil {
			return err
		}
		defer s.Close()
		var res result
		b, err := rt.FromSlice(d, []int32{r, 10})
		if err != nil {
			return err
		}
		if err := Broadcast(c, b, b, size-1, s); err != nil {
			return err
		}
		mine, _ := rt.FromSlice(d, []int32{r * 100})
		from, _ := rt.Alloc[int32](d, 1)
		err = c.Group(func() error {
			if err := Send(c, mine, (c.Rank()+1)%size, s); err != nil {
				return err
			}
			return Recv(c, from, (c.Rank()+size-1)%size, s)
		})
		if err != nil {
			return err
		}
		send, _ := rt.FromSlice(d, slices.Repeat([]int32{r, r * r}, size))
		red, _ := rt.Alloc[int32](d, 2*size)
		if err := Reduce(c, send, red, Sum, 0, s); err != nil {
			return err
		}
		all, _ := rt.Alloc[int32](d, 2*size)
		if err := AllGather(c, send.Slice(0, 2), all, s); err != nil {
			return err
		}
		part, _ := rt.Alloc[int32](d, 2)
		if err := ReduceScatter(c, send, part, Max, s); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		for _, x := range []struct {
			b   *rt.Buffer[int32]
			out *[]int32
		}{{b, &res.bcast}, {from, &res.ring}, {red, &res.reduced}, {all, &res.gathered}, {part, &res.scattered}} {
			if *x.out, err = x.b.Read(); err != nil {
				return err
			}
		}
		got[c.Rank()] = res
		return nil
	}))
	var sum, sumSq int32
	var gathered []int32
	for r := range int32(size) {
		sum, sumSq = sum+r, sumSq+r*r
		gathered = append(gathered, r, r*r)
	}
	last := int32(size - 1)
	for _, c := range comms {
		r, res := c.Rank(), got[c.Rank()]
		if want := []int32{last, 10}; !slices.Equal(res.bcast, want) {
			t.Errorf("rank %d broadcast: %v, want %v", r, res.bcast, want)
		}
		if want := []int32{int32((r+size-1)%size) * 100}; !slices.Equal(res.ring, want) {
			t.Errorf("rank %d ring: %v, want %v", r, res.ring, want)
		}
		if want := slices.Repeat([]int32{sum, sumSq}, size); r == 0 && !slices.Equal(res.reduced, want) {
			t.Errorf("rank 0 reduce: %v, want %v", res.reduced, want)
		}
		if !slices.Equal(res.gathered, gathered) {
			t.Errorf("rank %d all-gather: %v, want %v", r, res.gathered, gathered)
		}
		if want := []int32{last, last * last}; !slices.Equal(res.scattered, want) {
			t.Errorf("rank %d reduce-scatter: %v, want %v", r, res.scattered, want)
		}
	}
}

// TestGPUTestsAsRanks runs the GPU tests as a launcher would, 3 processes
// of this test binary each one rank, on the CPU backend: the same tests
// pass there as in one process.
func TestGPUTestsAsRanks(t *testing.T) {
	if underLauncher() {
		t.Skip("a rank of a group already")
	}
	const size = 3
	host, port, _ := net.SplitHostPort(freeAddr(t))
	cmds := make([]*exec.Cmd, size)
	outs := make([]strings.Builder, size)
	for r := range size {
		cmd := exec.Command(os.Args[0], "-test.run=GPU$", "-test.v")
		cmd.Env = append(os.Environ(), "QD_BACKEND=cpu", fmt.Sprintf("RANK=%d", r), fmt.Sprintf("LOCAL_RANK=%d", r),
			fmt.Sprintf("WORLD_SIZE=%d", size), "MASTER_ADDR="+host, "MASTER_PORT="+port)
		cmd.Stdout, cmd.Stderr = &outs[r], &outs[r]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[r] = cmd
	}
	for r, cmd := range cmds {
		err := cmd.Wait()
		out := outs[r].String()
		if err != nil || !strings.Contains(out, "--- PASS: TestAllReduceGPU") || !strings.Contains(out, "--- PASS: TestCollectivesGPU") ||
			!strings.Contains(out, "--- PASS: TestRecordAllReduceGPU") {
			t.Errorf("rank %d: %v\n%s", r, err, out)
		}
	}
}

// TestGPUTestsOnCPUDevices runs the GPU tests in one process over 4
// pretend CPU devices.
func TestGPUTestsOnCPUDevices(t *testing.T) {
	if underLauncher() {
		t.Skip("a rank of a group")
	}
	cmd := exec.Command(os.Args[0], "-test.run=GPU$", "-test.v")
	cmd.Env = append(os.Environ(), "QD_BACKEND=cpu", "QD_CPU_DEVICES=4")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS") != 3 {
		t.Errorf("%v\n%s", err, out)
	}
}
