// Command peer measures copies between two devices with rt.CopyPeer, in
// GB/s, for comparison with cudaMemcpyPeerAsync (peer.cu).
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/qdgo/qd/rt"
)

func main() {
	mib := flag.Int("mib", 1024, "MiB per copy")
	reps := flag.Int("reps", 10, "copies timed")
	onStream := flag.Bool("stream", false, "copy on a stream of the destination's device instead of its default stream")
	flag.Parse()
	log.SetFlags(0)
	devs, err := rt.OpenAll()
	if err != nil {
		log.Fatal(err)
	}
	defer rt.CloseAll(devs)
	if len(devs) < 2 {
		log.Fatalf("needs 2 devices, have %d", len(devs))
	}
	n := *mib << 20 / 4
	src, err := rt.Alloc[float32](devs[0], n)
	if err != nil {
		log.Fatal(err)
	}
	dst, err := rt.Alloc[float32](devs[1], n)
	if err != nil {
		log.Fatal(err)
	}
	direct, err := rt.EnablePeerAccess(devs[0], devs[1])
	if err != nil {
		log.Fatal(err)
	}
	var s *rt.Stream
	if *onStream {
		if s, err = devs[1].NewStream(); err != nil {
			log.Fatal(err)
		}
	}
	if err := rt.CopyPeer(dst, src, s); err != nil { // warm up
		log.Fatal(err)
	}
	if err := devs[1].SynchronizeAll(); err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	for range *reps {
		if err := rt.CopyPeer(dst, src, s); err != nil {
			log.Fatal(err)
		}
	}
	if err := devs[1].SynchronizeAll(); err != nil {
		log.Fatal(err)
	}
	secs := time.Since(start).Seconds()
	how := "staged through the host"
	if direct {
		how = "direct"
	}
	if *onStream {
		how += ", on a stream"
	}
	fmt.Printf("qd CopyPeer %d MiB (%s): %.1f GB/s\n", *mib, how, float64(*reps)*float64(n*4)/secs/1e9)
}
