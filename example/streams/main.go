// Command streams shows explicit streams and events: two kernels on two
// streams (the Numba tutorial's example, with the dependency between them
// made explicit by an event), and a producer and a consumer on two
// streams joined by an event. Every result is checked against the same Go
// functions run on the host.
package main

import (
	"fmt"
	"log"

	"github.com/qdgo/qd/rt"
)

func main() {
	log.SetFlags(0)
	dev, err := rt.Open()
	check(err)
	defer dev.Close()
	ks, err := Load(dev)
	check(err)
	twoStreams(dev, ks)
	producerConsumer(dev, ks)
	fmt.Println("ok")
}

// twoStreams runs c = a + b on stream 1 and a = b + c on stream 2. The
// second kernel reads what the first one writes, so an event orders them;
// without it the two would race.
func twoStreams(dev *rt.Device, ks *Kernels) {
	const size = 1000000
	aHost, bHost := make([]float32, size), make([]float32, size)
	for i := range aHost {
		aHost[i] = float32(i)
		bHost[i] = float32(i) * 2
	}
	a, err := rt.FromSlice(dev, aHost)
	check(err)
	defer a.Free()
	b, err := rt.FromSlice(dev, bHost)
	check(err)
	defer b.Free()
	c, err := rt.Alloc[float32](dev, size)
	check(err)
	defer c.Free()

	s1, err := dev.NewStream()
	check(err)
	defer s1.Close()
	s2, err := dev.NewStream()
	check(err)
	defer s2.Close()
	cReady, err := dev.NewEvent()
	check(err)
	defer cReady.Close()

	check(ks.Add(a, b, c, rt.OnStream(s1)))
	check(cReady.Record(s1))
	check(cReady.Wait(s2))
	check(ks.Add(b, c, a, rt.OnStream(s2)))
	check(s1.Synchronize())
	check(s2.Synchronize())

	cHost := make([]float32, size)
	Add(aHost, bHost, cHost)
	Add(bHost, cHost, aHost)
	compare("two streams: c", c, cHost)
	compare("two streams: a", a, aHost)
}

// producerConsumer is the example of the streams documentation of
// Quadrants (the Python GPU programming framework whose streams qd
// follows): produce on s1, record an event, make s2 wait for it, consume
// on s2.
func producerConsumer(dev *rt.Device, ks *Kernels) {
	const size = 1 << 20
	a, err := rt.Alloc[float32](dev, size)
	check(err)
	defer a.Free()
	b, err := rt.Alloc[float32](dev, size)
	check(err)
	defer b.Free()
	check(a.Zero())

	s1, err := dev.NewStream()
	check(err)
	defer s1.Close()
	s2, err := dev.NewStream()
	check(err)
	defer s2.Close()
	e, err := dev.NewEvent()
	check(err)
	defer e.Close()

	check(ks.Produce(a, 10, 2000, rt.OnStream(s1)))
	check(e.Record(s1))                      // the point s1 reaches once Produce is done
	check(e.Wait(s2))                        // s2 waits for it on the GPU
	check(ks.Consume(a, b, rt.OnStream(s2))) // safe to read a
	check(s2.Synchronize())

	aHost, bHost := make([]float32, size), make([]float32, size)
	Produce(aHost, 10, 2000)
	Consume(aHost, bHost)
	compare("producer/consumer: b", b, bHost)
}

func compare(what string, got *rt.Buffer[float32], want []float32) {
	host, err := got.Read()
	check(err)
	bad := 0
	for i := range want {
		if host[i] != want[i] {
			bad++
		}
	}
	fmt.Printf("%s on %s: %d elements, %d mismatches\n", what, got.Device(), len(want), bad)
	if bad > 0 {
		log.Fatal("FAIL")
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
