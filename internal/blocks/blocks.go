// Package blocks runs the qd.StreamParallel blocks of kernels on the CPU
// backend. Serially, a block is just called, which is its Go meaning. In
// the concurrent mode, meant for tests under the race detector, the blocks
// of each group are collected as the kernel calls qd.StreamParallel and,
// once the group is complete, run as goroutines started in random order,
// all finishing before the kernel's next statement.
package blocks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
)

var concurrent atomic.Bool

func init() {
	concurrent.Store(os.Getenv("QD_CPU_BLOCKS") == "concurrent")
}

// SetConcurrent turns the concurrent mode on or off.
func SetConcurrent(on bool) { concurrent.Store(on) }

// Concurrent reports whether the concurrent mode is on.
func Concurrent() bool { return concurrent.Load() }

var (
	running sync.Mutex // one kernel with concurrent blocks at a time
	current atomic.Pointer[plan]
)

// plan is the state of one kernel run: how many blocks each group has, and
// the blocks of the group being collected.
type plan struct {
	groups  []int
	group   int
	pending []func()
}

// Run runs kernel, whose groups have the given numbers of blocks, with the
// blocks of each group running concurrently.
func Run(groups []int, kernel func()) {
	running.Lock()
	defer running.Unlock()
	current.Store(&plan{groups: groups})
	defer current.Store(nil)
	kernel()
}

// Block takes a block that qd.StreamParallel was called with. It returns
// false when no concurrent run is under way: the caller then runs the
// block itself.
func Block(f func()) bool {
	p := current.Load()
	if p == nil {
		return false
	}
	if p.group >= len(p.groups) {
		f()
		return true
	}
	p.pending = append(p.pending, f)
	if len(p.pending) < p.groups[p.group] {
		return true
	}
	blocks := p.pending
	p.pending = nil
	p.group++
	rand.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	var wg sync.WaitGroup
	panics := make(chan any, len(blocks))
	for _, b := range blocks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panics <- v
				}
			}()
			b()
		}()
	}
	wg.Wait()
	close(panics)
	if v, ok := <-panics; ok {
		panic(fmt.Sprint(v))
	}
	return true
}
