package rt

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestLiveList checks the device's list of what Close frees: objects
// freed in any order leave it, and Close frees exactly those left.
func TestLiveList(t *testing.T) {
	d, _ := openFake(0)
	var bufs []*Buffer[int32]
	var streams []*Stream
	for range 20 {
		b, err := Alloc[int32](d, 4)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		bufs, streams = append(bufs, b), append(streams, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kept := map[int]bool{}
	for _, i := range rng.Perm(20) {
		if i%3 == 0 {
			kept[i] = true
			continue
		}
		if err := bufs[i].Free(); err != nil {
			t.Fatal(err)
		}
		if err := streams[i].Close(); err != nil {
			t.Fatal(err)
		}
		bufs[i].Free() // twice is harmless
	}
	if got, want := len(d.live), 2*len(kept); got != want {
		t.Fatalf("%d objects live, want %d", got, want)
	}
	for i, l := range d.live {
		if *l.slot != i+1 {
			t.Errorf("entry %d has slot %d", i, *l.slot)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if live := d.Live(); live.Buffers != 0 || live.Streams != 0 {
		t.Errorf("after Close: %+v", live)
	}
	for i := range kept {
		if _, err := bufs[i].Read(); !errors.Is(err, ErrClosed) {
			t.Errorf("buffer %d after Close: %v", i, err)
		}
	}
}
