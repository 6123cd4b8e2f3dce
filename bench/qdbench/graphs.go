package main

import (
	"log"
	"time"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
)

// hostPer times run, which queues one iteration of work, over batches of
// 64: the host's time per iteration (the queueing alone), and the time per
// iteration including the wait for the GPU to finish the batch.
func hostPer(dev *rt.Device, run func() error) (host, total float64) {
	for range 64 {
		check(run())
	}
	check(dev.SynchronizeAll())
	var hosts, totals []float64
	for range 50 {
		t0 := time.Now()
		for range 64 {
			if err := run(); err != nil {
				log.Fatal(err)
			}
		}
		queued := time.Since(t0)
		check(dev.SynchronizeAll())
		hosts = append(hosts, float64(queued.Nanoseconds())/64/1e3)
		totals = append(totals, float64(time.Since(t0).Nanoseconds())/64/1e3)
	}
	return median(hosts), median(totals)
}

// forkJoinBench measures the kernel of four tiny blocks launched eagerly
// (fork and join through pooled streams and events) and as a cached graph,
// with the same arguments each time and with new ones, and eight spin
// blocks both ways, where the GPU's time dominates.
func forkJoinBench(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	bufs := make([]*rt.Buffer[int32], 8)
	for i := range bufs {
		var err error
		bufs[i], err = rt.Alloc[int32](dev, 1)
		check(err)
		defer bufs[i].Free()
	}
	four := func(opts ...rt.LaunchOption) func() error {
		return func() error { return ks.FourTiny(bufs[0], bufs[1], bufs[2], bufs[3], opts...) }
	}
	ours["four_blocks_eager_us"], _ = hostPer(dev, four(rt.Eager()))
	ours["four_blocks_graph_us"], _ = hostPer(dev, four())
	i := 0
	ours["four_blocks_graph_update_us"], _ = hostPer(dev, func() error {
		i++
		o := 4 * (i % 2) // the other four buffers: every node's arguments change
		return ks.FourTiny(bufs[o], bufs[o+1], bufs[o+2], bufs[o+3])
	})

	spins := make([]*rt.Buffer[int64], 8)
	for i := range spins {
		var err error
		spins[i], err = rt.Alloc[int64](dev, 1)
		check(err)
		defer spins[i].Free()
	}
	s := spins
	eight := func(opts ...rt.LaunchOption) func() error {
		return func() error { return ks.EightSpins(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], 20000, opts...) }
	}
	_, ours["eight_blocks_eager_gpu_us"] = hostPer(dev, eight(rt.Eager()))
	_, ours["eight_blocks_graph_gpu_us"] = hostPer(dev, eight())
}

// pipeline is the benchmark's recorded work, over three streams: two
// chunks copied in from page-locked memory and scaled on streams 1 and 2,
// added on stream 3 once both are done, and the sum copied out.
type pipeline struct {
	in1, in2, out *rt.HostBuffer[float32]
	x1, x2, y     *rt.Buffer[float32]
}

const pipelineSize = 4096

func newPipeline(dev *rt.Device) *pipeline {
	p := &pipeline{}
	var err error
	for _, h := range []**rt.HostBuffer[float32]{&p.in1, &p.in2, &p.out} {
		*h, err = rt.AllocHost[float32](dev, pipelineSize)
		check(err)
	}
	for _, b := range []**rt.Buffer[float32]{&p.x1, &p.x2, &p.y} {
		*b, err = rt.Alloc[float32](dev, pipelineSize)
		check(err)
	}
	for i := range pipelineSize {
		p.in1.Data()[i], p.in2.Data()[i] = float32(i), float32(2*i)
	}
	return p
}

func (p *pipeline) free() {
	for _, h := range []*rt.HostBuffer[float32]{p.in1, p.in2, p.out} {
		h.Free()
	}
	for _, b := range []*rt.Buffer[float32]{p.x1, p.x2, p.y} {
		b.Free()
	}
}

// issue queues one iteration on s1, s2 and s3, ordered by e1 and e2; start
// (when not nil) is the point the three streams wait for first.
func (p *pipeline) issue(ks *kernels.Kernels, s1, s2, s3 *rt.Stream, start, e1, e2 *rt.Event) error {
	if start != nil {
		for _, s := range []*rt.Stream{s1, s2} {
			if err := start.Wait(s); err != nil {
				return err
			}
		}
	}
	steps := []func() error{
		func() error { return p.x1.CopyFromAsync(p.in1.Data(), s1) },
		func() error { return ks.Scale(p.x1, 2, rt.OnStream(s1)) },
		func() error { return e1.Record(s1) },
		func() error { return p.x2.CopyFromAsync(p.in2.Data(), s2) },
		func() error { return ks.Scale(p.x2, 3, rt.OnStream(s2)) },
		func() error { return e2.Record(s2) },
		func() error { return e1.Wait(s3) },
		func() error { return e2.Wait(s3) },
		func() error { return ks.Add(p.x1, p.x2, p.y, rt.OnStream(s3)) },
		func() error { return p.y.CopyToAsync(p.out.Data(), s3) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	if start != nil {
		return start.Record(s3) // the next iteration starts after this one
	}
	return nil
}

func (p *pipeline) check() {
	for i, v := range p.out.Data() {
		if want := 2*p.in1.Data()[i] + 3*p.in2.Data()[i]; v != want {
			log.Fatalf("pipeline: out[%d] = %v, want %v", i, v, want)
		}
	}
}

// pipelineBench measures the pipeline issued call by call and replayed as
// a recorded graph.
func pipelineBench(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	p := newPipeline(dev)
	defer p.free()
	streams := make([]*rt.Stream, 4)
	events := make([]*rt.Event, 3)
	for i := range streams {
		var err error
		streams[i], err = dev.NewStream()
		check(err)
		defer streams[i].Close()
	}
	for i := range events {
		var err error
		events[i], err = dev.NewEvent()
		check(err)
		defer events[i].Close()
	}
	s, e := streams, events
	ours["pipeline_eager_us"], ours["pipeline_eager_total_us"] = hostPer(dev, func() error {
		return p.issue(ks, s[0], s[1], s[2], e[0], e[1], e[2])
	})
	p.check()
	g, err := dev.Record(func(r *rt.Recorder) error {
		return p.issue(ks, r.Stream(), r.Stream(), r.Stream(), nil, r.Event(), r.Event())
	})
	check(err)
	defer g.Close()
	p.out.Data()[0] = -1
	ours["pipeline_graph_us"], ours["pipeline_graph_total_us"] = hostPer(dev, func() error { return g.Launch(s[3]) })
	p.check()
}

// memoryBench measures allocating and freeing a 1 MiB buffer: Alloc and
// Free (usable on every stream, freed after the streams that used it) and
// AllocOn and FreeOn (ordered on one stream).
func memoryBench(dev *rt.Device, ours map[string]float64) {
	const size = 1 << 18 // float32s: 1 MiB
	s, err := dev.NewStream()
	check(err)
	defer s.Close()
	per := func(f func() error) float64 {
		var times []float64
		for range 20 {
			t0 := time.Now()
			for range 256 {
				if err := f(); err != nil {
					log.Fatal(err)
				}
			}
			times = append(times, float64(time.Since(t0).Nanoseconds())/256/1e3)
			check(dev.SynchronizeAll())
		}
		return median(times)
	}
	ours["alloc_free_us"] = per(func() error {
		b, err := rt.Alloc[float32](dev, size)
		if err != nil {
			return err
		}
		return b.Free()
	})
	ours["alloc_free_async_us"] = per(func() error {
		b, err := rt.AllocOn[float32](dev, size, s)
		if err != nil {
			return err
		}
		return b.FreeOn(s)
	})
}
