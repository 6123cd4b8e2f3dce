// Command qdtypes measures what Go's types and loop nests cost in kernels:
// n-body over an array of structs and over separate slices, and a 2-D
// image kernel written as a perfectly nested pair of loops (and as one
// loop that divides its index), each beside the same kernel in CUDA C
// (bench/baseline/types.cu) run in the same command. Results are compared
// by hash: with the baseline built with --fmad=false they are the same
// bits.
//
//	nvcc -O3 --fmad=false -o /tmp/types bench/baseline/types.cu
//	nvcc -O3 -o /tmp/types-fmad bench/baseline/types.cu
//	qdtypes -baseline /tmp/types -baseline-fmad /tmp/types-fmad
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/qdgo/qd/bench/kernels"
	"github.com/qdgo/qd/rt"
)

const (
	bodies = 1 << 16
	steps  = 5
	dt     = 0.001
	soft   = 0.01
)

// shapes are the w×h images of the 2-D kernels: about 2^24 pixels each.
var shapes = []struct {
	name string
	w, h int
}{{"square", 4096, 4096}, {"wide", 1000, 16777}, {"narrow", 3, 5592405}}

func main() {
	baseline := flag.String("baseline", "", "bench/baseline/types.cu built with nvcc -O3 --fmad=false")
	fmad := flag.String("baseline-fmad", "", "the same built with nvcc -O3 (multiply-adds fused)")
	flag.Parse()
	log.SetFlags(0)
	dev, err := rt.Open(rt.WithBackend(rt.CUDA))
	check(err)
	defer dev.Close()
	fmt.Println("device", dev)
	ks, err := kernels.Load(dev)
	check(err)

	ours := map[string]float64{}
	hashes := map[string]uint64{}
	nbody(dev, ks, ours, hashes)
	shade(dev, ks, ours, hashes)
	base, baseHashes := runBaseline(*baseline)
	fused, _ := runBaseline(*fmad)

	fmt.Printf("%-28s %10s %10s %10s %8s %8s %s\n", "kernel (ms)", "qd", "C", "C fmad", "qd/C", "qd/fmad", "same bits as C")
	for _, key := range []string{"nbody_aos", "nbody_soa", "shade_square", "shade_wide", "shade_narrow",
		"shade1d_square", "shade1d_wide", "shade1d_narrow"} {
		cKey := strings.Replace(key, "shade1d", "shade", 1)
		same := "-"
		if h, ok := baseHashes[cKey]; ok {
			same = strconv.FormatBool(h == hashes[key])
		}
		fmt.Printf("%-28s %10.3f %10.3f %10.3f %8s %8s %s\n", key, ours[key], base[cKey], fused[cKey],
			ratio(ours[key], base[cKey]), ratio(ours[key], fused[cKey]), same)
	}
	fmt.Printf("AoS/SoA: qd %s, C %s\n", ratio(ours["nbody_aos"], ours["nbody_soa"]), ratio(base["nbody_aos"], base["nbody_soa"]))
	fmt.Println("shade is a nested pair of loops in qd and a 2-D grid of 32×8 blocks in C; shade1d is one loop dividing its index, in qd")
}

// nbody runs steps of both n-body kernels from the same bodies.
func nbody(dev *rt.Device, ks *kernels.Kernels, ms map[string]float64, hashes map[string]uint64) {
	host := initBodies()
	ps, err := rt.FromSlice(dev, host)
	check(err)
	defer ps.Free()
	ms["nbody_aos"] = timed(dev, steps, func() error { return ks.NBodyAoS(ps, dt, soft) })
	out, err := ps.Read()
	check(err)
	hashes["nbody_aos"] = hash(out)

	fields := make([][]float32, 7)
	for k := range fields {
		fields[k] = make([]float32, bodies)
	}
	for i, p := range host {
		fields[0][i], fields[1][i], fields[2][i] = p.Pos.X, p.Pos.Y, p.Pos.Z
		fields[3][i], fields[4][i], fields[5][i] = p.Vel.X, p.Vel.Y, p.Vel.Z
		fields[6][i] = p.Mass
	}
	b := make([]*rt.Buffer[float32], 7)
	for k := range b {
		b[k], err = rt.FromSlice(dev, fields[k])
		check(err)
		defer b[k].Free()
	}
	ms["nbody_soa"] = timed(dev, steps, func() error { return ks.NBodySoA(b[0], b[1], b[2], b[3], b[4], b[5], b[6], dt, soft) })
	for k := range b {
		fields[k], err = b[k].Read()
		check(err)
	}
	for i := range out {
		out[i] = kernels.Particle{Pos: kernels.Vec3{X: fields[0][i], Y: fields[1][i], Z: fields[2][i]},
			Vel: kernels.Vec3{X: fields[3][i], Y: fields[4][i], Z: fields[5][i]}, Mass: fields[6][i]}
	}
	hashes["nbody_soa"] = hash(out)
}

// initBodies makes the bodies bench/baseline/types.cu starts from.
func initBodies() []kernels.Particle {
	ps := make([]kernels.Particle, bodies)
	for i := range ps {
		ps[i] = kernels.Particle{
			Pos:  kernels.Vec3{X: float32(i*7919%1000) / 100, Y: float32(i*104729%1000) / 100, Z: float32(i) / 1e4},
			Mass: 1 + float32(i%7),
		}
	}
	return ps
}

// shade runs the 2-D kernels on each shape.
func shade(dev *rt.Device, ks *kernels.Kernels, ms map[string]float64, hashes map[string]uint64) {
	most := 0
	for _, s := range shapes {
		most = max(most, s.w*s.h)
	}
	pixels := make([]float32, most)
	for i := range pixels {
		pixels[i] = float32(i % 1024)
	}
	in, err := rt.FromSlice(dev, pixels)
	check(err)
	defer in.Free()
	img, err := rt.Alloc[float32](dev, most)
	check(err)
	defer img.Free()
	for _, s := range shapes {
		n := s.w * s.h
		out := img.Slice(0, n)
		ms["shade_"+s.name] = timed(dev, 10, func() error { return ks.Shade2D(out, in, s.w, s.h) })
		got, err := out.Read()
		check(err)
		hashes["shade_"+s.name] = hash(got)
		ms["shade1d_"+s.name] = timed(dev, 10, func() error { return ks.Shade1D(out, in.Slice(0, n), s.w) })
		got, err = out.Read()
		check(err)
		hashes["shade1d_"+s.name] = hash(got)
	}
}

// timed returns the median GPU time of runs launches after one to warm
// up, measured with events.
func timed(dev *rt.Device, runs int, launch func() error) float64 {
	start, err := dev.NewEvent(rt.WithTiming())
	check(err)
	defer start.Close()
	end, err := dev.NewEvent(rt.WithTiming())
	check(err)
	defer end.Close()
	check(launch())
	var ms []float64
	for range runs {
		check(start.Record(nil))
		check(launch())
		check(end.Record(nil))
		check(end.Synchronize())
		d, err := rt.ElapsedTime(start, end)
		check(err)
		ms = append(ms, float64(d.Nanoseconds())/1e6)
	}
	slices.Sort(ms)
	return ms[len(ms)/2]
}

// runBaseline runs a build of types.cu and reads its figures and hashes.
func runBaseline(path string) (map[string]float64, map[string]uint64) {
	ms, hashes := map[string]float64{}, map[string]uint64{}
	if path == "" {
		return ms, hashes
	}
	out, err := exec.Command(path).Output()
	if err != nil {
		log.Fatalf("%s: %v\n%s", path, err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		if key, ok := strings.CutSuffix(name, "_hash"); ok {
			hashes[key], _ = strconv.ParseUint(value, 10, 64)
		} else if key, ok := strings.CutSuffix(name, "_ms"); ok {
			ms[key], _ = strconv.ParseFloat(value, 64)
		} else if name == "device" {
			fmt.Println("baseline device:", value)
		}
	}
	return ms, hashes
}

// hash is FNV-1a over the bytes of s, as types.cu computes it.
func hash[T any](s []T) uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(*new(T))))
	h := uint64(1469598103934665603)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", a/b)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
