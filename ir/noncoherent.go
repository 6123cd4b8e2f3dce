package ir

// A kernel's variant with non-coherent loads. NVIDIA GPUs read memory that
// no thread writes during a kernel through a separate, non-coherent cache
// (PTX ld.global.nc), which is faster for data read more than once. CUDA C
// needs a programmer's const __restrict__ to use it; qd proves the first
// half itself (no store of the kernel goes to the slice) and checks the
// second at launch: the variant runs only when no slice the kernel may
// write overlaps one it loads non-coherently, and the plain entries run
// otherwise.

// NonCoherent is the plan of a kernel's variant: which loads read through
// the non-coherent cache, and which slices a launch compares to pick it.
type NonCoherent struct {
	// ReadOnly are the slice parameters the variant loads non-coherently,
	// and Written those the kernel may write; a launch takes the variant
	// when no slice of one overlaps a slice of the other.
	ReadOnly, Written []int
	loads             []map[[2]int]bool // per task: (block, instruction)
}

// NonCoherentName is the entry point of a task's variant. Go names have
// no $, and Symbol follows one with hex digits, so it names nothing else.
func NonCoherentName(task string) string { return task + "$nc" }

// HasVariant reports whether task number i of the kernel has loads of its
// own in the variant; the variant runs the others' plain entries.
func (nc *NonCoherent) HasVariant(task int) bool { return len(nc.loads[task]) > 0 }

// Load reports whether the variant of task number task reads instruction
// at of block through the non-coherent cache.
func (nc *NonCoherent) Load(task, block, at int) bool { return nc.loads[task][[2]int{block, at}] }

// Sources of an address beyond the slice parameters (bits 0 to
// maxNCParams-1): a constant table, other memory (scratch, variables),
// and anything not followed, which may point anywhere.
const (
	maxNCParams   = 61
	fromData      = 1 << 61
	fromOther     = 1 << 62
	fromAnything  = 1 << 63
	fromAnyParams = 1<<maxNCParams - 1
)

// PlanNonCoherent returns the plan of k's variant, or nil when it needs
// none: no task loads a slice that no store, atomic or called function
// of the kernel writes. A store through an address the analysis does not
// follow may write any slice, and leaves no slice read-only.
func PlanNonCoherent(k *Kernel) *NonCoherent {
	if len(k.Params) > maxNCParams {
		return nil
	}
	src := addressSources(k)
	var written uint64
	for bi, t := range k.Bodies() {
		for _, b := range t.Blocks {
			for _, in := range b.Instrs {
				if in.Op.Info().Memory.Writes() && in.Space == Global {
					s := src.of(bi, in.Args[0])
					if s == 0 {
						s = fromAnything // an address never assigned: be safe
					}
					written |= s
				}
			}
		}
	}
	if written&fromAnything != 0 {
		return nil
	}
	nc := &NonCoherent{loads: make([]map[[2]int]bool, len(k.Tasks))}
	var readOnly uint64
	for ti, t := range k.Tasks {
		bi := len(k.Funcs) + ti
		for _, b := range t.Blocks {
			for i, in := range b.Instrs {
				s := src.of(bi, in.Args...)
				if in.Op != OpLoad || in.Space != Global || s == 0 || s&(written|fromOther|fromAnything) != 0 {
					continue
				}
				if nc.loads[ti] == nil {
					nc.loads[ti] = map[[2]int]bool{}
				}
				nc.loads[ti][[2]int{b.Index, i}] = true
				readOnly |= s & fromAnyParams
			}
		}
	}
	if readOnly == 0 {
		return nil // only constant tables: nothing a launch could break
	}
	for p := range k.Params {
		if readOnly&(1<<p) != 0 {
			nc.ReadOnly = append(nc.ReadOnly, p)
		}
		if written&(1<<p) != 0 {
			nc.Written = append(nc.Written, p)
		}
	}
	return nc
}

// sources holds, per body (Kernel.Bodies) and register, the set of
// places the register's address may come from.
type sources [][]uint64

// of is the union of the sources of the operands; an immediate address
// comes from anywhere.
func (s sources) of(body int, args ...Arg) uint64 {
	if len(args) == 0 {
		return 0
	}
	a := args[0]
	if a.Imm {
		return fromAnything
	}
	return s[body][a.Reg]
}

// addressSources follows addresses from where they are made, through
// moves, element addresses and calls' arguments, to a fixed point. The IR
// is not SSA, so a register's sources are those of all its assignments.
func addressSources(k *Kernel) sources {
	bodies := k.Bodies()
	src := make(sources, len(bodies))
	for i, t := range bodies {
		src[i] = make([]uint64, len(t.Regs))
	}
	add := func(body int, r Reg, s uint64) bool {
		old := src[body][r]
		src[body][r] |= s
		return src[body][r] != old
	}
	for changed := true; changed; {
		changed = false
		for bi, t := range bodies {
			for _, b := range t.Blocks {
				for _, in := range b.Instrs {
					var s uint64
					switch in.Op {
					case OpParamBase:
						s = 1 << in.Aux
					case OpDataAddr:
						s = fromData
					case OpScratch, OpAddr:
						s = fromOther
					case OpElemAddr, OpMove:
						s = src.of(bi, in.Args[0])
					case OpCall:
						callee := k.Funcs[in.Aux]
						for i, a := range in.Args {
							if p := callee.Params[i]; callee.Regs[p] == Ptr {
								changed = add(int(in.Aux), p, src.of(bi, a)) || changed
							}
						}
						s = fromAnything
					default:
						s = fromAnything
					}
					for _, d := range in.Defs() {
						if t.Regs[d] == Ptr {
							changed = add(bi, d, s) || changed
						}
					}
				}
			}
		}
	}
	return src
}
