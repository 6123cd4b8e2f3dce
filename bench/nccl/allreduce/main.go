// Command allreduce measures package nccl's all-reduce of 1 GiB of float32
// as bus bandwidth, NCCL's measure (bytes / time × 2(n-1)/n), for
// comparison with PyTorch's (allreduce.py) and NCCL's own tests. It runs
// in either process model: alone, one process drives every GPU, a
// goroutine per rank; under a launcher (qdrun -n N, which sets RANK and
// WORLD_SIZE), each process is one rank on the GPU of its LOCAL_RANK.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

func main() {
	mib := flag.Int("mib", 1024, "MiB of float32 per all-reduce")
	warm := flag.Int("warmup", 5, "all-reduces before the timed ones")
	reps := flag.Int("reps", 20, "all-reduces timed")
	flag.Parse()
	log.SetFlags(0)
	n := *mib << 20 / 4
	if os.Getenv("WORLD_SIZE") != "" {
		rank(n, *warm, *reps)
		return
	}
	devs, err := rt.OpenAll(rt.WithBackend(rt.GPU))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.CloseAll(devs)
	comms, err := nccl.InitAll(devs)
	if err != nil {
		log.Fatal(err)
	}
	secs := make([]float64, len(comms))
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for i, c := range comms {
		wg.Go(func() { secs[i], errs[i] = measure(c, n, *warm, *reps) })
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			log.Fatalf("rank %d: %v", r, err)
		}
	}
	report("one process", len(comms), n, slices.Max(secs), devs[0])
}

// rank is one process of a group a launcher started.
func rank(n, warm, reps int) {
	e, err := nccl.ReadEnv()
	if err != nil {
		log.Fatal(err)
	}
	dev, err := rt.Open(rt.WithBackend(rt.GPU), rt.WithDevice(e.LocalRank))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	c, err := nccl.InitFromEnv(dev)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	secs, err := measure(c, n, warm, reps)
	if err != nil {
		log.Fatalf("rank %d: %v", c.Rank(), err)
	}
	if c.Rank() == 0 {
		report(fmt.Sprintf("%d processes", c.Size()), c.Size(), n, secs, dev)
	}
}

// measure all-reduces n float32 warm times, then reps times timed, on a
// stream of the rank's device, and returns the seconds of one. The
// warm-up ends with the stream synchronized on every rank, so the timed
// all-reduces start together.
func measure(c *nccl.Comm, n, warm, reps int) (float64, error) {
	d := c.Device()
	s, err := d.NewStream()
	if err != nil {
		return 0, err
	}
	defer s.Close()
	b, err := rt.Alloc[float32](d, n)
	if err != nil {
		return 0, err
	}
	defer b.Free()
	if err := b.Memset(0, s); err != nil {
		return 0, err
	}
	for range warm {
		if err := nccl.AllReduce(c, b, b, nccl.Sum, s); err != nil {
			return 0, err
		}
	}
	if err := s.Synchronize(); err != nil {
		return 0, err
	}
	start := time.Now()
	for range reps {
		if err := nccl.AllReduce(c, b, b, nccl.Sum, s); err != nil {
			return 0, err
		}
	}
	if err := s.Synchronize(); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds() / float64(reps), nil
}

func report(model string, size, n int, secs float64, dev *rt.Device) {
	bytes := float64(n) * 4
	bus := bytes / secs * 2 * float64(size-1) / float64(size) / 1e9
	fmt.Printf("qd nccl.AllReduce %d MiB float32 on %d GPUs, %s (%v): %.1f GB/s bus bandwidth\n", n*4>>20, size, model, dev, bus)
}
