package opt

import (
	"encoding/binary"

	"github.com/qdgo/qd/ir"
)

// FoldTableLoads replaces each load from a known place in a constant table
// by the constant it reads, and drops the tables no task reads any more:
// a package-level scalar becomes an immediate, and so does an element of
// an array table indexed by a constant.
func FoldTableLoads(k *ir.Kernel) {
	for _, t := range k.Bodies() {
		places := exactPlaces(t)
		folded := false
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				in := &b.Instrs[i]
				p, ok := places[in]
				if in.Op != ir.OpLoad || !ok || p.at.kind != table {
					continue
				}
				bytes := k.Data[p.at.index].Bytes
				size := int64(in.Type.Size())
				if p.off < 0 || p.off+size > int64(len(bytes)) {
					continue // out of bounds: left to fail as it would
				}
				*in = ir.Instr{Op: ir.OpMove, Type: in.Type, Dst: in.Dst, Pos: in.Pos,
					Args: []ir.Arg{ir.Imm(in.Type, readLeaf(bytes[p.off:p.off+size]))}}
				folded = true
			}
		}
		if folded {
			RemoveDeadCode(t)
		}
	}
	dropUnreadTables(k)
}

// readLeaf reads a little-endian scalar.
func readLeaf(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// dropUnreadTables deletes the tables no dataaddr names and renumbers the
// others.
func dropUnreadTables(k *ir.Kernel) {
	read := make([]bool, len(k.Data))
	for _, t := range k.Bodies() {
		for _, b := range t.Blocks {
			for _, in := range b.Instrs {
				if in.Op == ir.OpDataAddr {
					read[in.Aux] = true
				}
			}
		}
	}
	index := make([]int64, len(k.Data))
	kept := k.Data[:0]
	for i, d := range k.Data {
		index[i] = int64(len(kept))
		if read[i] {
			kept = append(kept, d)
		}
	}
	k.Data = kept
	for _, t := range k.Bodies() {
		for _, b := range t.Blocks {
			for i := range b.Instrs {
				if in := &b.Instrs[i]; in.Op == ir.OpDataAddr {
					in.Aux = index[in.Aux]
				}
			}
		}
	}
}
