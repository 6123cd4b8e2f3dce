// Command qdsuite times the kernels of bench/suite through their generated
// stubs, runs the same kernels in CUDA C (bench/baseline/suite.cu and
// nests.cu built with nvcc -O3, and again with --fmad=false) and prints one
// table: each kernel's median time in qd and in both builds, the ratios,
// and whether qd's output has the checksum of the --fmad=false build, whose
// floating point is Go's. bench/suite/run.sh builds everything and runs it.
//
//	qdsuite -nvcc /tmp/suite,/tmp/nests -nofma /tmp/suite-nofma,/tmp/nests-nofma
//
// With -backend cpu it runs the Go functions, which gives the checksums
// every GPU build must reproduce (slowly: the sizes are a GPU's).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qdgo/qd/bench/suite"
	"github.com/qdgo/qd/rt"
)

func main() {
	nvcc := flag.String("nvcc", "", "bench/baseline/suite.cu and nests.cu built with nvcc -O3 (comma-separated)")
	nofma := flag.String("nofma", "", "the same built with nvcc -O3 --fmad=false (comma-separated)")
	reps := flag.Int("reps", 10, "timed launches per kernel, after one for the checksum")
	backend := flag.String("backend", "cuda", "cuda or cpu")
	only := flag.String("run", "", "run only the kernels matching this regular expression")
	flag.Parse()
	log.SetFlags(0)

	b := rt.CUDA
	if *backend == "cpu" {
		b = rt.CPU
	}
	dev, err := rt.Open(rt.WithBackend(b))
	check(err)
	defer dev.Close()
	ks, err := suite.Load(dev)
	check(err)
	filter := regexp.MustCompile(*only)

	fmt.Println("device:", dev)
	fmt.Println("date:", time.Now().UTC().Format("2006-01-02"))
	ours := map[string]result{}
	var names []string
	suites := map[string]string{}
	for _, c := range cases(dev, ks) {
		if !filter.MatchString(c.name) {
			continue
		}
		r, err := measure(dev, c, *reps)
		if err != nil {
			log.Fatalf("%s: %v", c.name, err)
		}
		ours[c.name] = r
		names = append(names, c.name)
		suites[c.name] = c.suite
	}
	withFMA, noFMA := baselines(*nvcc, *reps), baselines(*nofma, *reps)
	table(names, suites, filter, ours, withFMA, noFMA)
}

// result is one kernel's median time and output checksum.
type result struct {
	ms  float64
	sum uint64
}

// benchCase is one kernel with its inputs uploaded: launch runs it once,
// sum reads its output back and hashes it. suite names the group whose
// geometric mean it counts in.
type benchCase struct {
	suite  string
	name   string
	launch func() error
	sum    func() (uint64, error)
}

// measure launches c once for the checksum, then reps times, each between
// two timing events on the default stream.
func measure(dev *rt.Device, c benchCase, reps int) (result, error) {
	if err := c.launch(); err != nil {
		return result{}, err
	}
	sum, err := c.sum()
	if err != nil {
		return result{}, err
	}
	start, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return result{}, err
	}
	end, err := dev.NewEvent(rt.WithTiming())
	if err != nil {
		return result{}, err
	}
	var ms []float64
	for range reps {
		wall := time.Now()
		if err := start.Record(nil); err != nil {
			return result{}, err
		}
		if err := c.launch(); err != nil {
			return result{}, err
		}
		if err := end.Record(nil); err != nil {
			return result{}, err
		}
		if err := end.Synchronize(); err != nil {
			return result{}, err
		}
		d, err := rt.ElapsedTime(start, end)
		if err != nil {
			return result{}, err
		}
		if d == 0 { // the CPU backend has no timing events
			d = time.Since(wall)
		}
		ms = append(ms, float64(d.Nanoseconds())/1e6)
	}
	slices.Sort(ms)
	return result{ms: ms[len(ms)/2], sum: sum}, nil
}

// baselines runs each of the comma-separated builds and merges their
// results.
func baselines(paths string, reps int) map[string]result {
	if paths == "" {
		return nil
	}
	results := map[string]result{}
	for _, path := range strings.Split(paths, ",") {
		maps.Copy(results, baseline(path, reps))
	}
	return results
}

// baseline runs a build of suite.cu or nests.cu and reads its "name ms
// checksum" lines.
func baseline(path string, reps int) map[string]result {
	out, err := exec.Command(path, strconv.Itoa(reps)).Output()
	if err != nil {
		log.Fatalf("%s: %v\n%s", path, err, out)
	}
	results := map[string]result{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			continue
		}
		ms, err1 := strconv.ParseFloat(f[1], 64)
		sum, err2 := strconv.ParseUint(f[2], 16, 64)
		if err1 == nil && err2 == nil {
			results[f[0]] = result{ms, sum}
		}
	}
	return results
}

// table prints the comparison and the summary the suite's goal is stated
// in: the geometric mean of qd / nvcc --fmad=false and the worst kernel,
// for each suite and for all together. Kernels that only the baselines
// ran (qd rejects them today) are listed last.
func table(names []string, suites map[string]string, filter *regexp.Regexp, ours, withFMA, noFMA map[string]result) {
	fmt.Printf("%-14s %10s %10s %14s %9s %15s  %s\n", "kernel", "qd ms", "nvcc ms", "nvcc-nofma ms", "qd/nvcc", "qd/nvcc-nofma", "checksum")
	all, mismatches := &summary{}, 0
	bySuite := map[string]*summary{}
	var order []string
	for _, name := range names {
		q := ours[name]
		f, hasF := withFMA[name]
		nf, hasNF := noFMA[name]
		ratio := func(b result, ok bool) string {
			if !ok || b.ms == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", q.ms/b.ms)
		}
		status := fmt.Sprintf("%016x", q.sum)
		if hasNF {
			status = "= nofma"
			if q.sum != nf.sum {
				status = fmt.Sprintf("DIFFERS (qd %016x, nofma %016x)", q.sum, nf.sum)
				mismatches++
			}
			if hasF && f.sum != nf.sum {
				status += ", nvcc's FMA differs"
			}
			if nf.ms > 0 {
				s := bySuite[suites[name]]
				if s == nil {
					s = &summary{}
					bySuite[suites[name]] = s
					order = append(order, suites[name])
				}
				s.add(name, q.ms/nf.ms)
				all.add(name, q.ms/nf.ms)
			}
		}
		fmt.Printf("%-14s %10.4f %10s %14s %9s %15s  %s\n", name, q.ms, msOf(f, hasF), msOf(nf, hasNF), ratio(f, hasF), ratio(nf, hasNF), status)
	}
	for _, name := range slices.Sorted(maps.Keys(noFMA)) {
		if _, ran := ours[name]; !ran && filter.MatchString(name) {
			fmt.Printf("%-14s %10s %10s %14.4f %9s %15s  %s\n", name, "rejected", "-", noFMA[name].ms, "-", "-", "qd rejects this kernel")
		}
	}
	for _, name := range order {
		bySuite[name].print(name)
	}
	if len(order) > 1 {
		all.print("all")
	}
	if all.n > 0 {
		fmt.Printf("checksum mismatches: %d\n", mismatches)
	}
}

// summary accumulates the ratios of one group of kernels.
type summary struct {
	logSum, worst float64
	n             int
	worstName     string
}

func (s *summary) add(name string, ratio float64) {
	s.logSum += math.Log(ratio)
	s.n++
	if ratio > s.worst {
		s.worst, s.worstName = ratio, name
	}
}

func (s *summary) print(group string) {
	fmt.Printf("%s: geometric mean qd/nvcc-nofma %.3f (goal <= 1.03); worst %s %.3f (goal <= 1.15)\n",
		group, math.Exp(s.logSum/float64(s.n)), s.worstName, s.worst)
}

func msOf(r result, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.4f", r.ms)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
