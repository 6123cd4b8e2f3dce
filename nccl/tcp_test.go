package nccl

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qdgo/qd/rt"
)

// freeAddr is a loopback address no one listens at.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// tcpGroup makes size communicators over loopback TCP, each rank in its
// own goroutine, as separate processes would.
func tcpGroup(t *testing.T, size int, timeout time.Duration) []*Comm {
	t.Helper()
	t.Setenv("QD_CPU_DEVICES", fmt.Sprint(size))
	devs, err := rt.OpenAll(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.CloseAll(devs) })
	addr := freeAddr(t)
	comms := make([]*Comm, size)
	errs := make([]error, size)
	done := make(chan int)
	for r := range size {
		go func() {
			comms[r], errs[r] = InitRank(devs[r], r, size, addr, WithTimeout(timeout))
			done <- r
		}()
	}
	for range size {
		<-done
	}
	must(t, errs)
	t.Cleanup(func() {
		for _, c := range comms {
			if c != nil {
				c.Close()
			}
		}
	})
	return comms
}

func TestTCPCollectives(t *testing.T) {
	const size = 3
	comms := tcpGroup(t, size, 5*time.Second)
	got := make([][]float64, size)
	must(t, ranks(comms, func(c *Comm) error {
		r := float64(c.Rank())
		b, err := rt.FromSlice(c.Device(), []float64{r, r * r})
		if err != nil {
			return err
		}
		if err := AllReduce(c, b, b, Sum, nil); err != nil {
			return err
		}
		// Ring between ranks 1 and 2 goes through rank 0's relay.
		mine, _ := rt.FromSlice(c.Device(), []float64{100 * r})
		from, _ := rt.Alloc[float64](c.Device(), 1)
		if err := Send(c, mine, (c.Rank()+1)%size, nil); err != nil {
			return err
		}
		if err := Recv(c, from, (c.Rank()+size-1)%size, nil); err != nil {
			return err
		}
		x, _ := b.Read()
		y, _ := from.Read()
		got[c.Rank()] = append(x, y...)
		return nil
	}))
	for r := range size {
		want := []float64{3, 5, float64((r + size - 1) % size * 100)}
		if !slices.Equal(got[r], want) {
			t.Errorf("rank %d: %v, want %v", r, got[r], want)
		}
	}
}

func TestTCPRankNeverArrives(t *testing.T) {
	t.Setenv("QD_CPU_DEVICES", "3")
	devs, err := rt.OpenAll(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.CloseAll(devs)
	addr := freeAddr(t)
	joined := make(chan error, 1)
	go func() {
		c, err := InitRank(devs[1], 1, 3, addr, WithTimeout(2*time.Second))
		if err == nil {
			defer c.Close()
		}
		joined <- err
	}()
	_, err = InitRank(devs[0], 0, 3, addr, WithTimeout(200*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "rank 2 of 3 did not arrive") {
		t.Errorf("rank 0 without rank 2: %v, want an error naming rank 2", err)
	}
	<-joined
	_, err = InitRank(devs[1], 1, 3, freeAddr(t), WithTimeout(100*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "rank 0 did not listen") {
		t.Errorf("rank 1 without rank 0: %v", err)
	}
}

func TestTCPMismatchedCollective(t *testing.T) {
	comms := tcpGroup(t, 2, 2*time.Second)
	errs := ranks(comms, func(c *Comm) error {
		if c.Rank() == 1 {
			b, _ := rt.Alloc[int32](c.Device(), 3)
			return AllReduce(c, b, b, Sum, nil)
		}
		b, _ := rt.Alloc[float32](c.Device(), 3)
		return AllReduce(c, b, b, Sum, nil)
	})
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 1 called all-reduce of 3×int32") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestProcesses runs a group of real processes: this test binary, started
// once per rank with the variables a launcher sets.
func TestProcesses(t *testing.T) {
	if os.Getenv("QD_NCCL_TEST_RANK") != "" {
		t.Skip("a rank of TestProcesses")
	}
	const size = 3
	host, port, _ := net.SplitHostPort(freeAddr(t))
	cmds := make([]*exec.Cmd, size)
	outs := make([]strings.Builder, size)
	for r := range size {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRankProcess$", "-test.v")
		cmd.Env = append(os.Environ(), "QD_NCCL_TEST_RANK=1", "QD_BACKEND=cpu",
			fmt.Sprintf("RANK=%d", r), fmt.Sprintf("WORLD_SIZE=%d", size), "MASTER_ADDR="+host, "MASTER_PORT="+port)
		cmd.Stdout, cmd.Stderr = &outs[r], &outs[r]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[r] = cmd
	}
	for r, cmd := range cmds {
		if err := cmd.Wait(); err != nil || !strings.Contains(outs[r].String(), "sum 3\n") {
			t.Errorf("rank %d: %v\n%s", r, err, outs[r].String())
		}
	}
}

// TestRankProcess is one rank of TestProcesses.
func TestRankProcess(t *testing.T) {
	if os.Getenv("QD_NCCL_TEST_RANK") == "" {
		t.Skip("run by TestProcesses")
	}
	dev, err := rt.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	c, err := InitFromEnv(dev, WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, _ := rt.FromSlice(dev, []int64{int64(c.Rank())})
	if err := AllReduce(c, b, b, Sum, nil); err != nil {
		t.Fatal(err)
	}
	x, _ := b.Read()
	fmt.Printf("sum %d\n", x[0])
}
