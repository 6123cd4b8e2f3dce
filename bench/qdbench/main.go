// Command qdbench measures launch cost, saxpy bandwidth, the LCG spin
// loop, streams and an atomic histogram through the generated stubs of
// bench/kernels, StreamParallel blocks (eager and as cached graphs), a
// recorded pipeline over three streams, stream-ordered allocation, the
// module's load in new processes, a float sum as a reduction, the cost
// of bounds checks and the throughput of package math; it runs the same
// work written in CUDA C (bench/baseline) in the same process run, and
// prints both with their ratio. Bounds checks are measured against the
// same kernels without them (//qd:kernel nobounds): their row is the ratio
// of times.
//
//	nvcc -O3 -o /tmp/baseline bench/baseline/baseline.cu
//	CUDA_CACHE_DISABLE=1 qdbench -baseline /tmp/baseline
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
	"github.com/qdgo/qd/rt/rtimpl"
)

func main() {
	baseline := flag.String("baseline", "", "the CUDA C baseline program (bench/baseline/baseline.cu, built with nvcc -O3)")
	rounds := flag.Int("rounds", 5, "rounds of measurements, alternating with the baseline")
	loadChild := flag.Bool("load-child", false, "only load the module and print how long it took (run by qdbench itself)")
	flag.Parse()
	log.SetFlags(0)
	if *loadChild {
		loadOnly()
		return
	}
	first, second := loadTwice()

	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	fmt.Println("device", dev)

	start := time.Now()
	ks, err := kernels.Load(dev)
	check(err)
	loadTime := time.Since(start)

	// Our measurements and the CUDA C program's alternate, round after
	// round, and each figure is the median over the rounds: the host-side
	// figures drift with the machine's state more than they differ.
	oursRounds := map[string][]float64{}
	baseRounds := map[string][]float64{}
	for range *rounds {
		for k, v := range measure(dev, ks) {
			oursRounds[k] = append(oursRounds[k], v)
		}
		if *baseline == "" || baselineErr != "" {
			continue
		}
		values, device, err := runBaseline(*baseline)
		for k, v := range values {
			baseRounds[k] = append(baseRounds[k], v)
		}
		if device != "" {
			baseDevice = device
		}
		if err != nil {
			// Keep ours, and what the baseline printed before it failed.
			baselineErr = err.Error()
			fmt.Fprintf(os.Stderr, "qdbench: %s; measuring qd alone from here\n", baselineErr)
		}
	}
	ours, base := medians(oursRounds), medians(baseRounds)
	if baseDevice != "" {
		fmt.Println("baseline device:", baseDevice)
	}
	if baselineErr != "" {
		fmt.Printf("%s\n(its figures, where there are any, are from before it failed)\n", baselineErr)
	}
	fmt.Printf("rounds: %d (medians)\n", *rounds)

	fmt.Printf("module load in this process (bench/kernels%s): %.1f ms\n", cacheNote(), float64(loadTime.Microseconds())/1e3)
	fmt.Printf("module load in new processes, CUDA_CACHE_DISABLE=1: first %s, second %s\n", first, second)
	fmt.Printf("%-40s %12s %12s %8s\n", "measure", "qd", "CUDA C", "qd/C")
	row := func(label, key string) {
		q, b := ours[key], base[key]
		ratio := "-"
		if b != 0 {
			ratio = fmt.Sprintf("%.3f", q/b)
		}
		fmt.Printf("%-40s %12.3f %12.3f %8s\n", label, q, b, ratio)
	}
	row("host µs per empty launch (×256)", "launch_us")
	row("saxpy 2^28 f32 GB/s", "saxpy_gbps")
	row("LCG spin 10^6 iterations, ms", "spin_ms")
	row("host µs per launch on a stream", "launch_stream_us")
	row("stream create+close µs", "stream_create_close_us")
	row("event record+wait µs", "event_record_wait_us")
	row("16 one-block spins, 1 stream, ms", "spin16_serial_ms")
	row("16 streams vs 1: speedup", "spin16_speedup")
	row("2 spins on 2 streams + events: speedup", "join2_speedup")
	row("StreamParallel 2 spin blocks: speedup", "blocks2_speedup")
	row("StreamParallel 8 spin blocks: speedup", "blocks8_speedup")
	row("host µs: 4 plain launches", "four_plain_us")
	row("host µs: StreamParallel 4 tiny blocks", "four_blocks_us")
	row("256-bin histogram of 2^28 bytes GB/s", "hist_gbps")
	row("sum 2^28 f32 (reduction) GB/s", "sum_gbps")
	row("bounds checks on/off: gather", "checks_gather")
	row("bounds checks on/off: stencil", "checks_stencil")
	row("bounds checks on/off: saxpy", "checks_saxpy")
	row("bounds checks on/off: geometric mean", "checks_geomean")
	if ours["four_plain_us"] > 0 {
		fmt.Printf("%-40s %12.3f %12.3f\n", "  4 blocks / 4 plain launches", ours["four_blocks_us"]/ours["four_plain_us"], base["four_blocks_us"]/base["four_plain_us"])
	}
	row("host µs: 4 tiny blocks, eager fork/join", "four_blocks_eager_us")
	row("host µs: 4 tiny blocks, graph", "four_blocks_graph_us")
	row("host µs: 4 tiny blocks, graph, new args", "four_blocks_graph_update_us")
	if ours["four_blocks_eager_us"] > 0 && base["four_blocks_eager_us"] > 0 {
		fmt.Printf("%-40s %12.3f %12.3f\n", "  graph / eager fork/join (goal ≤ 0.35)", ours["four_blocks_graph_us"]/ours["four_blocks_eager_us"], base["four_blocks_graph_us"]/base["four_blocks_eager_us"])
		fmt.Printf("%-40s %12.3f\n", "  qd graph / C eager fork/join", ours["four_blocks_graph_us"]/base["four_blocks_eager_us"])
	}
	row("µs per 8 spin blocks, eager (GPU-bound)", "eight_blocks_eager_gpu_us")
	row("µs per 8 spin blocks, graph (GPU-bound)", "eight_blocks_graph_gpu_us")
	row("host µs: 3-stream pipeline, eager", "pipeline_eager_us")
	row("host µs: 3-stream pipeline, graph", "pipeline_graph_us")
	row("µs: pipeline eager, incl. GPU", "pipeline_eager_total_us")
	row("µs: pipeline graph, incl. GPU", "pipeline_graph_total_us")
	row("µs: Alloc+Free 1 MiB (C: cudaMalloc)", "alloc_free_us")
	row("µs: AllocOn+FreeOn 1 MiB (C: Async)", "alloc_free_async_us")
	mathRows(row)
	if r, ok := base["spin_result"]; ok && r != ours["spin_result"] {
		log.Fatalf("spin results differ: qd %v, CUDA C %v", ours["spin_result"], r)
	}
	fmt.Println("for times and on/off ratios lower is better; for GB/s, elements/s and speedups higher is better")
}

var (
	baseDevice  string
	baselineErr string // why the baseline program failed, if it did
)

// runBaseline runs the CUDA C program once and reads its "name value"
// lines; when it fails, the error holds its standard error, and the
// values are those it printed before.
func runBaseline(path string) (values map[string]float64, device string, err error) {
	out, err := exec.Command(path).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && len(exit.Stderr) > 0 {
			err = fmt.Errorf("the baseline failed: %v\n%s", err, strings.TrimSpace(string(exit.Stderr)))
		} else {
			err = fmt.Errorf("the baseline failed: %v", err)
		}
	}
	values = map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		if v, perr := strconv.ParseFloat(value, 64); perr == nil {
			values[name] = v
		} else if name == "device" {
			device = value
		}
	}
	return values, device, err
}

// measure runs every benchmark once.
func measure(dev *rt.Device, ks *kernels.Kernels) map[string]float64 {
	ours := map[string]float64{
		"launch_us":  launchCost(dev, ks),
		"saxpy_gbps": saxpy(dev, ks),
	}
	ours["spin_ms"], ours["spin_result"] = spin(dev, ks)
	streamBench(dev, ks, ours)
	parallelBench(dev, ks, ours)
	forkJoinBench(dev, ks, ours)
	pipelineBench(dev, ks, ours)
	memoryBench(dev, ours)
	mathBenchmarks(dev, ks, ours)
	ours["hist_gbps"] = histogram(dev, ks)
	ours["sum_gbps"] = sumBench(dev, ks)
	checksBench(dev, ks, ours)
	return ours
}

func medians(rounds map[string][]float64) map[string]float64 {
	m := map[string]float64{}
	for k, v := range rounds {
		m[k] = median(v)
	}
	return m
}

func cacheNote() string {
	if os.Getenv("CUDA_CACHE_DISABLE") == "1" {
		return ", cache disabled"
	}
	return ""
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// loadOnly loads the module and prints how long it took, for loadTwice,
// and how long the first launch of one of its kernels took: the runtime
// looks up a kernel's function, which loads its code onto the GPU, at its
// first launch.
func loadOnly() {
	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	check(err)
	defer dev.Close()
	m, err := rtimpl.Load(dev, kernels.Module())
	check(err)
	from, took := m.LoadedFrom()
	ks, err := kernels.Load(dev) // the same module
	check(err)
	a, err := rt.Alloc[int32](dev, 1)
	check(err)
	start := time.Now()
	check(ks.Empty(a, 1))
	check(dev.Synchronize())
	first := time.Since(start)
	start = time.Now()
	check(ks.Empty(a, 1))
	check(dev.Synchronize())
	fmt.Printf("%.3f ms (%s); first launch of Empty %.3f ms, second %.3f ms\n", float64(took.Microseconds())/1e3, from,
		float64(first.Microseconds())/1e3, float64(time.Since(start).Microseconds())/1e3)
}

// loadTwice loads the module in two new processes that share a new module
// cache, with the driver's own cache off: the first compiles the PTX, the
// second loads the cubin the first cached.
func loadTwice() (first, second string) {
	dir, err := os.MkdirTemp("", "qdbench-cache")
	check(err)
	defer os.RemoveAll(dir)
	exe, err := os.Executable()
	check(err)
	var outs [2]string
	for i := range outs {
		cmd := exec.Command(exe, "-load-child")
		cmd.Env = append(os.Environ(), "QD_CACHE_DIR="+dir, "CUDA_CACHE_DISABLE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			log.Fatalf("load child: %v\n%s", err, out)
		}
		outs[i] = strings.TrimSpace(string(out))
	}
	return outs[0], outs[1]
}

// launchCost is the host time per launch of the empty kernel, in batches
// of 256 launches followed by a synchronize.
func launchCost(dev *rt.Device, ks *kernels.Kernels) float64 {
	a, err := rt.Alloc[int32](dev, 1)
	check(err)
	defer a.Free()
	const batch = 256
	for range 1000 {
		check(ks.Empty(a, 1))
	}
	check(dev.Synchronize())
	var per []float64
	for range 200 {
		t0 := time.Now()
		for range batch {
			if err := ks.Empty(a, 1); err != nil {
				log.Fatal(err)
			}
		}
		check(dev.Synchronize())
		per = append(per, float64(time.Since(t0).Nanoseconds())/batch/1e3)
	}
	return median(per)
}

// saxpy is the bandwidth of saxpy on 2^28 floats, 12 bytes per element.
func saxpy(dev *rt.Device, ks *kernels.Kernels) float64 {
	const n = 1 << 28
	x, err := rt.Alloc[float32](dev, n)
	check(err)
	defer x.Free()
	y, err := rt.Alloc[float32](dev, n)
	check(err)
	defer y.Free()
	check(x.Zero())
	check(y.Zero())
	for range 3 {
		check(ks.Saxpy(2, x, y, n))
	}
	check(dev.Synchronize())
	var secs []float64
	for range 20 {
		t0 := time.Now()
		check(ks.Saxpy(2, x, y, n))
		check(dev.Synchronize())
		secs = append(secs, time.Since(t0).Seconds())
	}
	return 12 * n / median(secs) / 1e9
}

// spin times the LCG loop on one thread and returns its result.
func spin(dev *rt.Device, ks *kernels.Kernels) (ms, result float64) {
	out, err := rt.Alloc[int64](dev, 1)
	check(err)
	defer out.Free()
	check(ks.Spin(out, 1000))
	check(dev.Synchronize())
	var secs []float64
	for range 5 {
		t0 := time.Now()
		check(ks.Spin(out, 1000000))
		check(dev.Synchronize())
		secs = append(secs, time.Since(t0).Seconds())
	}
	got, err := out.Read()
	check(err)
	want := make([]int64, 1)
	kernels.Spin(want, 1000000)
	if got[0] != want[0] {
		log.Fatalf("spin: GPU %d, Go %d", got[0], want[0])
	}
	return median(secs) * 1e3, float64(got[0])
}

// streamBench measures streams and events: launch cost on a stream,
// stream and event costs, and how much 16 one-block kernels gain from 16
// streams.
func streamBench(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	a, err := rt.Alloc[int32](dev, 1)
	check(err)
	defer a.Free()
	s1, err := dev.NewStream()
	check(err)
	defer s1.Close()
	s2, err := dev.NewStream()
	check(err)
	defer s2.Close()
	on1 := rt.OnStream(s1)
	for range 1000 {
		check(ks.Empty(a, 1, on1))
	}
	check(s1.Synchronize())
	var per []float64
	for range 200 {
		t0 := time.Now()
		for range 256 {
			if err := ks.Empty(a, 1, on1); err != nil {
				log.Fatal(err)
			}
		}
		check(s1.Synchronize())
		per = append(per, float64(time.Since(t0).Nanoseconds())/256/1e3)
	}
	ours["launch_stream_us"] = median(per)

	per = per[:0]
	for range 20 {
		t0 := time.Now()
		for range 100 {
			s, err := dev.NewStream()
			check(err)
			check(s.Close())
		}
		per = append(per, float64(time.Since(t0).Nanoseconds())/100/1e3)
	}
	ours["stream_create_close_us"] = median(per)

	ev, err := dev.NewEvent()
	check(err)
	defer ev.Close()
	per = per[:0]
	for range 20 {
		t0 := time.Now()
		for range 256 {
			check(ev.Record(s1))
			check(ev.Wait(s2))
		}
		per = append(per, float64(time.Since(t0).Nanoseconds())/256/1e3)
		check(dev.SynchronizeAll())
	}
	ours["event_record_wait_us"] = median(per)

	const k, spinIters = 16, 10000
	outs, err := rt.Alloc[int64](dev, k*256)
	check(err)
	defer outs.Free()
	streams := make([]*rt.Stream, k)
	for i := range streams {
		streams[i], err = dev.NewStream()
		check(err)
		defer streams[i].Close()
	}
	timeSpins := func(parallel bool) float64 {
		var secs []float64
		for r := range 6 {
			t0 := time.Now()
			for i := range k {
				s := s1
				if parallel {
					s = streams[i]
				}
				check(ks.Spin(outs.Slice(i*256, (i+1)*256), spinIters, rt.OnStream(s)))
			}
			check(dev.SynchronizeAll())
			if r > 0 {
				secs = append(secs, time.Since(t0).Seconds())
			}
		}
		return median(secs)
	}
	serial := timeSpins(false)
	ours["spin16_serial_ms"] = serial * 1e3
	ours["spin16_speedup"] = serial / timeSpins(true)

	// Two single-thread spins on two streams, joined into the default
	// stream by events, against the same two on one stream.
	one := []*rt.Buffer[int64]{outs.Slice(0, 1), outs.Slice(1, 2)}
	e1, err := dev.NewEvent()
	check(err)
	defer e1.Close()
	e2, err := dev.NewEvent()
	check(err)
	defer e2.Close()
	timeJoin := func(parallel bool) float64 {
		var secs []float64
		for r := range 4 {
			t0 := time.Now()
			sb := s1
			if parallel {
				sb = s2
			}
			check(ks.Spin(one[0], 200000, rt.OnStream(s1)))
			check(ks.Spin(one[1], 200000, rt.OnStream(sb)))
			check(e1.Record(s1))
			check(e2.Record(sb))
			check(e1.Wait(nil))
			check(e2.Wait(nil))
			check(dev.Synchronize())
			if r > 0 {
				secs = append(secs, time.Since(t0).Seconds())
			}
		}
		return median(secs)
	}
	ours["join2_speedup"] = timeJoin(false) / timeJoin(true)
}

// parallelBench measures qd.StreamParallel kernels: speedups of two and
// eight one-thread spin blocks over the same loops run one after the
// other, and the host cost of a kernel with four tiny blocks.
func parallelBench(dev *rt.Device, ks *kernels.Kernels, ours map[string]float64) {
	const iters = 200000
	spins := make([]*rt.Buffer[int64], 8)
	for i := range spins {
		var err error
		spins[i], err = rt.Alloc[int64](dev, 1)
		check(err)
		defer spins[i].Free()
	}
	timed := func(run func() error) float64 {
		var secs []float64
		for r := range 4 {
			t0 := time.Now()
			check(run())
			check(dev.Synchronize())
			if r > 0 {
				secs = append(secs, time.Since(t0).Seconds())
			}
		}
		return median(secs)
	}
	s := spins
	serial2 := timed(func() error { return ks.TwoSpinsSerial(s[0], s[1], iters) })
	ours["blocks2_speedup"] = serial2 / timed(func() error { return ks.TwoSpins(s[0], s[1], iters) })
	serial8 := timed(func() error {
		for i := 0; i < 8; i += 2 {
			if err := ks.TwoSpinsSerial(s[i], s[i+1], iters); err != nil {
				return err
			}
		}
		return nil
	})
	ours["blocks8_speedup"] = serial8 / timed(func() error { return ks.EightSpins(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], iters) })

	tiny := make([]*rt.Buffer[int32], 4)
	for i := range tiny {
		var err error
		tiny[i], err = rt.Alloc[int32](dev, 1)
		check(err)
		defer tiny[i].Free()
	}
	for mode := range 2 {
		var per []float64
		for range 50 {
			t0 := time.Now()
			for range 64 {
				if mode == 0 {
					for _, b := range tiny {
						if err := ks.Tiny(b); err != nil {
							log.Fatal(err)
						}
					}
				} else if err := ks.FourTiny(tiny[0], tiny[1], tiny[2], tiny[3]); err != nil {
					log.Fatal(err)
				}
			}
			check(dev.SynchronizeAll())
			per = append(per, float64(time.Since(t0).Nanoseconds())/64/1e3)
		}
		if mode == 0 {
			ours["four_plain_us"] = median(per)
		} else {
			ours["four_blocks_us"] = median(per)
		}
	}
}

// histogram is the rate, in GB/s of input, of a 256-bin histogram of 2^28
// bytes made with atomic.AddUint32; the CUDA C baseline counts the same
// bytes in per-block bins in shared memory first. The bytes are a
// multiplicative hash of their index, which both programs compute.
func histogram(dev *rt.Device, ks *kernels.Kernels) float64 {
	const n = 1 << 28
	host := make([]uint8, n)
	want := make([]uint32, 256)
	for i := range host {
		host[i] = uint8(uint32(i) * 2654435761 >> 24)
		want[host[i]]++
	}
	data, err := rt.FromSlice(dev, host)
	check(err)
	defer data.Free()
	bins, err := rt.Alloc[uint32](dev, 256)
	check(err)
	defer bins.Free()
	var secs []float64
	for r := range 11 {
		check(bins.Zero())
		t0 := time.Now()
		check(ks.Histogram(data, bins))
		check(dev.Synchronize())
		if r > 0 {
			secs = append(secs, time.Since(t0).Seconds())
		}
	}
	got, err := bins.Read()
	check(err)
	if !slices.Equal(got, want) {
		log.Fatalf("histogram: GPU %v, Go %v", got[:8], want[:8])
	}
	return n / median(secs) / 1e9
}
