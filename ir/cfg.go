package ir

// This file holds the control-flow analyses shared by the passes and the
// front end: dominators and natural loops. NaturalLoops works on any graph
// whose nodes are numbered, so the lowering uses it over go/ssa's blocks
// and the passes over a task's.

// BlockSet is a set of block indices.
type BlockSet []uint64

// NewBlockSet returns an empty set for n blocks.
func NewBlockSet(n int) BlockSet { return make(BlockSet, (n+63)/64) }

// Has reports whether block i is in the set.
func (s BlockSet) Has(i int) bool { return i/64 < len(s) && s[i/64]&(1<<(i%64)) != 0 }

// Add puts block i in the set.
func (s BlockSet) Add(i int) { s[i/64] |= 1 << (i % 64) }

// Preds returns the predecessors of each block of t.
func (t *Task) Preds() [][]int {
	preds := make([][]int, len(t.Blocks))
	for i, b := range t.Blocks {
		for _, s := range b.Term.Successors() {
			preds[s] = append(preds[s], i)
		}
	}
	return preds
}

// Dominators computes, for each block of t, the set of blocks that dominate
// it, by iterating dom(b) = {b} ∪ ⋂ dom(p) over predecessors p to a fixpoint.
func (t *Task) Dominators() []BlockSet {
	n := len(t.Blocks)
	words := (n + 63) / 64
	preds := t.Preds()
	dom := make([]BlockSet, n)
	for i := range dom {
		dom[i] = make(BlockSet, words)
		if i == 0 {
			dom[0][0] = 1
			continue
		}
		for w := range dom[i] {
			dom[i][w] = ^uint64(0)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := 1; i < n; i++ {
			next := make(BlockSet, words)
			first := true
			for _, p := range preds[i] {
				if first {
					copy(next, dom[p])
					first = false
					continue
				}
				for w := range next {
					next[w] &= dom[p][w]
				}
			}
			next.Add(i)
			for w := range next {
				if next[w] != dom[i][w] {
					changed = true
				}
			}
			dom[i] = next
		}
	}
	return dom
}

// Loop is a natural loop: a header that dominates every block of the loop,
// and the blocks that reach a back edge to it without passing the header.
type Loop struct {
	Header  int
	In      []bool // indexed by block; blocks added after the loop was found are not in it
	Latches []int  // the sources of the back edges, in the order found
}

// Has reports whether block i is in the loop.
func (lp *Loop) Has(i int) bool { return i < len(lp.In) && lp.In[i] }

// Blocks lists the loop's blocks in index order.
func (lp *Loop) Blocks() []int {
	var bs []int
	for b, in := range lp.In {
		if in {
			bs = append(bs, b)
		}
	}
	return bs
}

// NaturalLoops finds the natural loops of a graph of n nodes, node 0 the
// entry: an edge b→h is a back edge when h dominates b, and the loop of h
// holds every node that reaches one of its back edges without passing h.
// Loops are returned in the order their first back edge is found, walking
// nodes in index order.
func NaturalLoops(n int, succs, preds func(int) []int, dominates func(a, b int) bool) []*Loop {
	byHeader := make(map[int]*Loop)
	var loops []*Loop
	for b := range n {
		for _, h := range succs(b) {
			if !dominates(h, b) {
				continue
			}
			lp := byHeader[h]
			if lp == nil {
				lp = &Loop{Header: h, In: make([]bool, n)}
				lp.In[h] = true
				byHeader[h] = lp
				loops = append(loops, lp)
			}
			lp.Latches = append(lp.Latches, b)
			stack := []int{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if lp.In[x] {
					continue
				}
				lp.In[x] = true
				stack = append(stack, preds(x)...)
			}
		}
	}
	return loops
}

// Outermost returns the loops not nested in another of loops.
func Outermost(loops []*Loop) []*Loop {
	var outer []*Loop
	for _, lp := range loops {
		nested := false
		for _, other := range loops {
			if other != lp && other.Has(lp.Header) {
				nested = true
				break
			}
		}
		if !nested {
			outer = append(outer, lp)
		}
	}
	return outer
}

// Innermost returns the loops that contain no other of loops.
func Innermost(loops []*Loop) []*Loop {
	var inner []*Loop
	for _, lp := range loops {
		nested := false
		for _, other := range loops {
			if other != lp && lp.Has(other.Header) {
				nested = true
				break
			}
		}
		if !nested {
			inner = append(inner, lp)
		}
	}
	return inner
}

// Loops finds the natural loops of t.
func (t *Task) Loops() []*Loop {
	dom := t.Dominators()
	preds := t.Preds()
	return NaturalLoops(len(t.Blocks),
		func(b int) []int { return t.Blocks[b].Term.Successors() },
		func(b int) []int { return preds[b] },
		func(a, b int) bool { return dom[b].Has(a) })
}

// Needed reports whether t must run: it writes memory, or it may never
// end. A Go function that runs forever must not return on the GPU either,
// so a task keeps the loops it does not know to end: every loop of a
// serial task, and in a parallel task the loops inside the one that
// strides over its iterations, which ends.
func (t *Task) Needed() bool {
	if t.HasEffects() {
		return true
	}
	loops := t.Loops()
	if t.Kind == Parallel || t.Kind == BlockLevel {
		return len(loops) > 1
	}
	return len(loops) > 0
}

// HasEffects reports whether t writes memory that outlives it or checks
// something: a task that does neither need not run. A write to a thread's
// local memory is not seen after the thread ends.
func (t *Task) HasEffects() bool {
	for _, b := range t.Blocks {
		for i := range b.Instrs {
			in := &b.Instrs[i]
			info := in.Op.Info()
			if info.SideEffects && !(in.Space == Local && info.Memory == MemWrite) {
				return true
			}
		}
	}
	return false
}
