// Command pipeline processes a large host array in chunks: each chunk is
// copied to the device, transformed and copied back on its own stream, from
// page-locked memory, so that the copies of one chunk overlap with the
// kernel of another. It compares the time with the same work on one stream
// and checks the result against the Go function.
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	size := flag.Int("n", 1<<26, "elements")
	chunks := flag.Int("chunks", 8, "chunks, each on its own stream")
	rounds := flag.Int("rounds", 8, "rounds of the transform per element")
	flag.Parse()
	log.SetFlags(0)

	dev, err := rt.Open()
	check(err)
	defer dev.Close()
	ks, err := Load(dev)
	check(err)

	in, err := rt.AllocHost[float32](dev, *size)
	check(err)
	defer in.Free()
	out, err := rt.AllocHost[float32](dev, *size)
	check(err)
	defer out.Free()
	for i := range in.Data() {
		in.Data()[i] = float32(i%1000) - 500
	}
	x, err := rt.Alloc[float32](dev, *size)
	check(err)
	defer x.Free()
	y, err := rt.Alloc[float32](dev, *size)
	check(err)
	defer y.Free()

	streams := make([]*rt.Stream, *chunks)
	for i := range streams {
		streams[i], err = dev.NewStream()
		check(err)
		defer streams[i].Close()
	}
	run := func(parallel bool) time.Duration {
		start := time.Now()
		per := *size / *chunks
		for c := range *chunks {
			lo, hi := c*per, (c+1)*per
			if c == *chunks-1 {
				hi = *size
			}
			s := streams[0]
			if parallel {
				s = streams[c]
			}
			check(x.Slice(lo, hi).CopyFromAsync(in.Data()[lo:hi], s))
			check(ks.Transform(x.Slice(lo, hi), y.Slice(lo, hi), *rounds, rt.OnStream(s)))
			check(y.Slice(lo, hi).CopyToAsync(out.Data()[lo:hi], s))
		}
		for _, s := range streams {
			check(s.Synchronize())
		}
		return time.Since(start)
	}
	run(true) // warm up
	serial := run(false)
	pipelined := run(true)

	// Each stage alone, on one stream: the pipeline cannot beat the
	// slowest of them.
	stage := func(f func(lo, hi int) error) time.Duration {
		start := time.Now()
		per := *size / *chunks
		for c := range *chunks {
			lo, hi := c*per, (c+1)*per
			if c == *chunks-1 {
				hi = *size
			}
			check(f(lo, hi))
		}
		check(streams[0].Synchronize())
		return time.Since(start)
	}
	s0 := streams[0]
	copyIn := stage(func(lo, hi int) error { return x.Slice(lo, hi).CopyFromAsync(in.Data()[lo:hi], s0) })
	compute := stage(func(lo, hi int) error {
		return ks.Transform(x.Slice(lo, hi), y.Slice(lo, hi), *rounds, rt.OnStream(s0))
	})
	copyOut := stage(func(lo, hi int) error { return y.Slice(lo, hi).CopyToAsync(out.Data()[lo:hi], s0) })
	slowest := max(copyIn, compute, copyOut)

	want := make([]float32, *size)
	Transform(in.Data(), want, *rounds)
	bad := 0
	for i := range want {
		if out.Data()[i] != want[i] {
			bad++
		}
	}
	fmt.Printf("pipeline on %s: %d elements in %d chunks: one stream %v, %d streams %v (%.2f× faster), %d mismatches\n",
		dev, *size, *chunks, serial.Round(time.Microsecond), *chunks, pipelined.Round(time.Microsecond),
		serial.Seconds()/pipelined.Seconds(), bad)
	fmt.Printf("stages alone: copy in %v, kernel %v, copy out %v; pipelined total is %.2f× the slowest stage\n",
		copyIn.Round(time.Microsecond), compute.Round(time.Microsecond), copyOut.Round(time.Microsecond),
		pipelined.Seconds()/slowest.Seconds())
	if bad > 0 {
		log.Fatal("FAIL")
	}
	fmt.Println("ok")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
