package blocks

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestGroupRunsConcurrently runs a group of two blocks that can only
// finish if they run at the same time: each waits for the other.
func TestGroupRunsConcurrently(t *testing.T) {
	SetConcurrent(true)
	defer SetConcurrent(false)
	done := make(chan bool)
	go func() {
		Run([]int{2}, func() {
			a, b := make(chan int), make(chan int)
			Block(func() { a <- 1; <-b })
			Block(func() { <-a; b <- 2 })
		})
		done <- true
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocks of a group did not run at the same time")
	}
}

// TestGroupsInOrder checks that a group finishes before the kernel goes on
// and that blocks start in varying orders.
func TestGroupsInOrder(t *testing.T) {
	SetConcurrent(true)
	defer SetConcurrent(false)
	firsts := map[int]bool{}
	for range 200 {
		var first atomic.Int32
		var count atomic.Int32
		Run([]int{3, 1}, func() {
			for k := 1; k <= 3; k++ {
				Block(func() {
					first.CompareAndSwap(0, int32(k))
					count.Add(1)
				})
			}
			if count.Load() != 3 {
				t.Fatal("the kernel went on before its group finished")
			}
			ran := false
			Block(func() { ran = true })
			if !ran {
				t.Fatal("a group of one block did not run")
			}
		})
		firsts[int(first.Load())] = true
	}
	if len(firsts) < 2 {
		t.Errorf("blocks always started in the same order: %v", firsts)
	}
}

// TestSerialWhenOff checks that blocks just run when the mode is off.
func TestSerialWhenOff(t *testing.T) {
	SetConcurrent(false)
	if Block(func() {}) {
		t.Error("Block took a block with no concurrent run under way")
	}
}
