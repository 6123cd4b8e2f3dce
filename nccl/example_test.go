package nccl_test

import (
	"fmt"
	"os"
	"sync"

	"github.com/qdgo/qd/nccl"
	"github.com/qdgo/qd/rt"
)

// Four ranks, one per pretend CPU device, each a goroutine, add up their
// buffers.
func ExampleAllReduce() {
	os.Setenv("QD_CPU_DEVICES", "4")
	defer os.Unsetenv("QD_CPU_DEVICES")
	devs, err := rt.OpenAll(rt.WithBackend(rt.CPU))
	if err != nil {
		panic(err)
	}
	defer rt.CloseAll(devs)
	comms, err := nccl.InitAll(devs)
	if err != nil {
		panic(err)
	}
	sums := make([][]float32, len(comms))
	var wg sync.WaitGroup
	for _, c := range comms {
		wg.Go(func() {
			r := float32(c.Rank())
			b, err := rt.FromSlice(c.Device(), []float32{r, 10 * r})
			if err == nil {
				err = nccl.AllReduce(c, b, b, nccl.Sum, nil)
			}
			if err == nil {
				sums[c.Rank()], err = b.Read()
			}
			if err != nil {
				panic(err)
			}
		})
	}
	wg.Wait()
	fmt.Println(sums)
	// Output: [[6 60] [6 60] [6 60] [6 60]]
}
