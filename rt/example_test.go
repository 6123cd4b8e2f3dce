package rt_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/qdgo/qd/example/kernels"
	"github.com/qdgo/qd/rt"
)

// The examples run on the CPU backend, where a kernel runs as its Go
// function, so that their output is the same on every machine. Open()
// without options chooses a GPU when there is one.

// Open a device, load a package's kernels on it and launch one: the
// package's generated Load and Saxpy do what rt does for the launch.
func ExampleOpen() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	ks, err := kernels.Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	x, _ := rt.FromSlice(dev, []float32{1, 2, 3, 4})
	y, _ := rt.FromSlice(dev, []float32{10, 20, 30, 40})
	if err := ks.Saxpy(2, x, y, y.Len()); err != nil {
		log.Fatal(err)
	}
	out, err := y.Read() // waits for the launch
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dev.Backend(), out)
	// Output: cpu [12 24 36 48]
}

// FromSlice copies a slice to a new buffer of the device; Read copies it
// back. The buffer's element type is the slice's.
func ExampleFromSlice() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()

	b, err := rt.FromSlice(dev, []int32{3, 1, 4, 1, 5})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Free()
	part := b.Slice(1, 4) // shares b's memory
	got, err := part.Read()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Len(), got)
	// Output: 5 [1 4 1]
}

// A launch with OnStream is queued on that stream after the work already
// there; an asynchronous copy on the same stream runs after it, and
// Synchronize waits for both.
func ExampleOnStream() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		log.Fatal(err)
	}

	s, err := dev.NewStream()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	x, _ := rt.FromSlice(dev, []float32{1, 2, 3})
	if err := ks.Scale(10, x, x.Len(), rt.OnStream(s)); err != nil {
		log.Fatal(err)
	}
	out := make([]float32, x.Len())
	if err := x.CopyToAsync(out, s); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// Output: [10 20 30]
}

// Events order work across streams, and two events made WithTiming time
// the work between them.
func ExampleElapsedTime() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	s, err := dev.NewStream()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	start, _ := dev.NewEvent(rt.WithTiming())
	end, _ := dev.NewEvent(rt.WithTiming())
	x, _ := rt.FromSlice(dev, make([]float32, 1<<16))
	start.Record(s)
	if err := ks.Scale(2, x, x.Len(), rt.OnStream(s)); err != nil {
		log.Fatal(err)
	}
	end.Record(s)
	if err := end.Synchronize(); err != nil {
		log.Fatal(err)
	}
	took, err := rt.ElapsedTime(start, end)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("timed:", took >= 0)
	// Output: timed: true
}

// Record captures the launches a function makes into a graph, which
// launches them all at once, as often as needed; on the CPU backend a
// launch makes the recorded calls in order.
func ExampleDevice_Record() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	x, _ := rt.FromSlice(dev, []float32{1, 2, 3})
	y, _ := rt.FromSlice(dev, []float32{0, 0, 0})

	g, err := dev.Record(func(r *rt.Recorder) error {
		on := rt.OnStream(r.Stream())
		if err := ks.Saxpy(1, x, y, y.Len(), on); err != nil { // y += x
			return err
		}
		return ks.Scale(2, y, y.Len(), on) // y *= 2
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	s, _ := dev.NewStream()
	defer s.Close()
	for range 2 {
		if err := g.Launch(s); err != nil {
			log.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	out, _ := y.Read()
	fmt.Println(out) // two launches: (0+x)*2, then (that+x)*2
	// Output: [6 12 18]
}

// A trace records what the device runs, with its times; WriteFile writes
// it for chrome://tracing, Perfetto or qdtrace.
func ExampleDevice_StartTrace() {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	ks, err := kernels.Load(dev)
	if err != nil {
		log.Fatal(err)
	}
	x, _ := rt.FromSlice(dev, []float32{1, 2, 3})

	if err := dev.StartTrace(); err != nil {
		log.Fatal(err)
	}
	if err := ks.Scale(3, x, x.Len()); err != nil {
		log.Fatal(err)
	}
	tr, err := dev.StopTrace()
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range tr.Events {
		fmt.Println(e.Kind, e.Name)
	}
	dir, _ := os.MkdirTemp("", "trace")
	defer os.RemoveAll(dir)
	if err := tr.WriteFile(filepath.Join(dir, "trace.json")); err != nil {
		log.Fatal(err)
	}
	// Output: kernel Scale
}
