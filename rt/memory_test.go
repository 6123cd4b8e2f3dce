package rt

import (
	"errors"
	"strings"
	"testing"
)

// TestFreeStreamOrdered checks that Free waits, on the GPU, for the
// streams a buffer was used on, and for nothing else.
func TestFreeStreamOrdered(t *testing.T) {
	d, drv, m := fakeModule(t, 0, forkSpec)
	a, _ := d.NewStream()
	b, _ := d.NewStream()
	an, bn := drv.name(a.handle), drv.name(b.handle)
	use := func(buf *Buffer[float32], s *Stream) {
		t.Helper()
		opts := []LaunchOption{OnStream(s)}
		if err := CheckBuffers(d, "K", opts, buf); err != nil {
			t.Fatal(err)
		}
		if err := m.Launch(0, []int64{1, 1, 1, 1, 1}, nil, opts); err != nil {
			t.Fatal(err)
		}
	}
	free := func(buf *Buffer[float32]) string {
		t.Helper()
		drv.takeLog()
		if err := buf.Free(); err != nil {
			t.Fatal(err)
		}
		for _, l := range drv.takeLog() {
			if strings.HasPrefix(l, "free") {
				return l
			}
		}
		return "no free"
	}
	x, _ := Alloc[float32](d, 16)
	if got, want := free(x), "free m1 on s2 after []"; got != want {
		t.Errorf("a buffer never used: %q, want %q", got, want)
	}
	x, _ = Alloc[float32](d, 16)
	use(x, a)
	if got, want := free(x), "free m2 on "+an+" after []"; got != want {
		t.Errorf("a buffer used on one stream: %q, want %q", got, want)
	}
	x, _ = Alloc[float32](d, 16)
	use(x, a)
	use(x, b)
	use(x.Slice(2, 4), a) // a view marks its buffer
	if got, want := free(x), "free m3 on s2 after ["+an+" "+bn+"]"; got != want {
		t.Errorf("a buffer used on two streams: %q, want %q", got, want)
	}
	x, _ = Alloc[float32](d, 16)
	x.CopyFrom(make([]float32, 16))
	use(x, a)
	if got, want := free(x), "free m4 on s2 after [default "+an+"]"; got != want {
		t.Errorf("a buffer copied to and used on a stream: %q, want %q", got, want)
	}
	x, _ = Alloc[float32](d, 16)
	use(x, a)
	a.Close()
	if got, want := free(x), "free m5 on s2 after []"; got != want {
		t.Errorf("a buffer used on a closed stream: %q, want %q", got, want)
	}

	var streams []*Stream
	for range useSlots + 1 {
		s, _ := d.NewStream()
		streams = append(streams, s)
	}
	x, _ = Alloc[float32](d, 16)
	for _, s := range streams {
		use(x, s)
	}
	// More streams than a buffer remembers: after every open stream
	// (b, and the new ones; a is closed).
	if got := free(x); !strings.HasPrefix(got, "free m6 on s2 after [default") || strings.Count(got, " s") != 2+len(streams) || strings.Contains(got, an) {
		t.Errorf("a buffer used on %d streams: %q", len(streams), got)
	}

	x, _ = AllocOn[float32](d, 16, b)
	if err := x.FreeOn(b); err != nil {
		t.Fatal(err)
	}
	if got := drv.takeLog(); len(got) != 2 || got[0] != "alloc m7 on "+bn+" wait false" || got[1] != "free m7 on "+bn+" after []" {
		t.Errorf("AllocOn and FreeOn: %q", got)
	}
	x, _ = Alloc[float32](d, 16)
	if got := drv.takeLog(); len(got) != 1 || got[0] != "alloc m8 on s1 wait true" {
		t.Errorf("Alloc: %q", got)
	}
	if err := x.Slice(0, 1).Free(); err == nil {
		t.Error("freeing a view succeeded")
	}
}

// TestFreeWithoutPools checks that a driver without memory pools frees
// with its plain free, which waits for the device.
func TestFreeWithoutPools(t *testing.T) {
	t.Setenv("QD_MEMPOOL", "off")
	d, drv := openFake(0)
	defer d.Close()
	x, _ := Alloc[int32](d, 4)
	drv.takeLog()
	x.Free()
	if got := drv.takeLog(); len(got) != 1 || got[0] != "free m1" {
		t.Errorf("free without pools: %q", got)
	}
	if _, err := AllocOn[int32](d, 4, nil); err != nil {
		t.Errorf("AllocOn without pools: %v", err)
	}
	closed, _ := d.NewStream()
	closed.Close()
	if _, err := AllocOn[int32](d, 4, closed); !errors.Is(err, ErrClosed) {
		t.Errorf("AllocOn a closed stream: %v", err)
	}
}

// TestAllocWholeWords checks that device memory comes in whole 32-bit
// words: an atomic on a byte or a 16-bit element updates its aligned word,
// which must lie inside the allocation.
func TestAllocWholeWords(t *testing.T) {
	for _, pooled := range []bool{true, false} {
		d, drv := openFake(0)
		d.mem.pooled = pooled
		check := func(got error, want uintptr) {
			t.Helper()
			if got != nil {
				t.Fatal(got)
			}
			if n := drv.sizes[len(drv.sizes)-1]; n != want {
				t.Errorf("pooled %v: allocated %d bytes, want %d", pooled, n, want)
			}
		}
		_, err := Alloc[int8](d, 3)
		check(err, 4)
		_, err = Alloc[uint16](d, 5)
		check(err, 12)
		_, err = Alloc[int8](d, 8)
		check(err, 8)
		_, err = Alloc[float64](d, 1)
		check(err, 8)
		d.Close()
	}
}
