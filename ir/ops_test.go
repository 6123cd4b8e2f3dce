package ir

import (
	"fmt"
	"testing"
)

// validRule reports whether r is OfType, OfFrom or a fixed valid type.
func validRule(r TypeRule) bool {
	return r == OfType || r == OfFrom || Type(r) > Invalid && Type(r) <= Ptr
}

// TestOpTable checks that every op has a complete and consistent row.
func TestOpTable(t *testing.T) {
	if len(Ops()) != int(numOps)-1 {
		t.Fatalf("Ops lists %d ops, want %d", len(Ops()), numOps-1)
	}
	names := map[string]Op{}
	for _, op := range Ops() {
		info := op.Info()
		errorf := func(format string, args ...any) {
			t.Errorf("op %d (%s): %s", op, info.Name, fmt.Sprintf(format, args...))
		}
		if info.Name == "" {
			errorf("no row in the op table")
			continue
		}
		if other, ok := names[info.Name]; ok {
			errorf("name also used by op %d", other)
		}
		names[info.Name] = op
		if info.Result != NoResult && !validRule(info.Result) {
			errorf("result rule %d", info.Result)
		}
		if info.Types == 0 && (info.Result == OfType || info.Result == OfFrom) {
			errorf("an untyped op needs a fixed result type")
		}
		usesFrom := info.Result == OfFrom
		for i, r := range info.Operands {
			if !validRule(r) {
				errorf("operand %d has rule %d", i, r)
			}
			usesFrom = usesFrom || r == OfFrom
		}
		if usesFrom != (info.From != 0) {
			errorf("From types %v, but operands read From: %v", info.From.List(), usesFrom)
		}
		if info.Memory != MemNone && (len(info.Operands) == 0 || info.Operands[0] != Fixed(Ptr)) {
			errorf("touches memory, but its first operand is not the address")
		}
		if info.Memory.Writes() && !info.SideEffects {
			errorf("writes memory without side effects")
		}
		if info.Pure && (info.Memory != MemNone || info.SideEffects || info.Parallel || info.Aux == ScalarParam || info.Aux == SliceParam) {
			errorf("pure, but depends on more than its operands")
		}
		if info.Expr && !info.Pure && info.Aux != ScalarParam && info.Aux != SliceParam {
			errorf("host expressions can compute only pure ops and parameters")
		}
		if info.Commutative && (len(info.Operands) != 2 || info.Operands[0] != info.Operands[1] || info.Mirror != OpInvalid) {
			errorf("commutative, but not a binary op with operands alike")
		}
		if m := info.Mirror; m != OpInvalid && (m.Info().Mirror != op || len(info.Operands) != 2) {
			errorf("mirror %s does not mirror back", m)
		}
	}
	if (numOps-1).String() == "op?" || numOps.String() != "op?" {
		t.Error("String does not cover exactly the ops")
	}
}

// TestPureOps checks that evalPure computes exactly the ops the table
// marks pure, for every type they take.
func TestPureOps(t *testing.T) {
	for _, op := range Ops() {
		info := op.Info()
		types := info.Types.List()
		if info.Types == 0 {
			types = []Type{info.Result.Of(&Instr{})} // an untyped op's type is fixed
		}
		for _, typ := range types {
			in := Instr{Op: op, Type: typ, From: Int32, Aux: 4}
			if info.From != 0 {
				in.From = info.From.List()[0]
			}
			args := make([]uint64, len(info.Operands))
			for i := range args {
				args[i] = 1
			}
			_, err := evalPure(&in, args)
			if (err == nil) != info.Pure {
				t.Errorf("%s.%s: evalPure gives %v, but the table says pure is %v", op, typ, err, info.Pure)
			}
		}
	}
}
