// Package timing times launches for the block-level examples, which print
// their kernels' times beside their results.
package timing

import (
	"time"

	"github.com/qdgo/qd/rt"
)

// Per runs f once to warm up, then reps times, and returns the time of
// one run: by the GPU's clock, between events recorded around the runs,
// or by the host's on the CPU, whose events record no time.
func Per(dev *rt.Device, reps int, f func() error) (time.Duration, error) {
	reps = max(reps, 1)
	start, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return 0, err
	}
	defer start.Close()
	end, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return 0, err
	}
	defer end.Close()
	if err := f(); err != nil {
		return 0, err
	}
	if err := dev.Synchronize(); err != nil {
		return 0, err
	}
	host := time.Now()
	if err := start.Record(nil); err != nil {
		return 0, err
	}
	for range reps {
		if err := f(); err != nil {
			return 0, err
		}
	}
	if err := end.Record(nil); err != nil {
		return 0, err
	}
	if err := dev.Synchronize(); err != nil {
		return 0, err
	}
	elapsed, err := rt.ElapsedTime(start, end)
	if err != nil {
		return 0, err
	}
	if elapsed == 0 {
		elapsed = time.Since(host)
	}
	return elapsed / time.Duration(reps), nil
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
