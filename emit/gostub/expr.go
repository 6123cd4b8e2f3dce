package gostub

import (
	"github.com/dave/jennifer/jen"
	"github.com/qdgo/qd/ir"
)

// goTypes are the Go types of the IR's integer types.
var goTypes = map[ir.Type]string{
	ir.Int8: "int8", ir.Int16: "int16", ir.Int32: "int32", ir.Int64: "int64",
	ir.Uint8: "uint8", ir.Uint16: "uint16", ir.Uint32: "uint32", ir.Uint64: "uint64",
}

var exprOps = map[ir.Op]string{
	ir.OpAdd: "+", ir.OpSub: "-", ir.OpMul: "*", ir.OpDiv: "/", ir.OpRem: "%",
	ir.OpAnd: "&", ir.OpOr: "|", ir.OpXor: "^", ir.OpAndNot: "&^", ir.OpShl: "<<", ir.OpShr: ">>",
}

// expr writes a host expression as Go, with the same wraparound.
func (s *stub) expr(e *ir.Expr) jen.Code {
	typ := goTypes[e.Type]
	switch e.Op {
	case ir.OpConst:
		return jen.Id(typ).Call(jen.Id(ir.FormatBits(e.Type, e.Bits)))
	case ir.OpParam:
		return jen.Id(typ).Call(s.arg(int(e.Aux)))
	case ir.OpParamLen:
		return jen.Id(typ).Call(s.arg(int(e.Aux)).Dot("Len").Call())
	case ir.OpConvert:
		return jen.Id(typ).Call(s.expr(e.Args[0]))
	case ir.OpNeg:
		return jen.Parens(jen.Op("-").Add(s.expr(e.Args[0])))
	case ir.OpNot:
		return jen.Parens(jen.Op("^").Add(s.expr(e.Args[0])))
	case ir.OpMin, ir.OpMax:
		return jen.Id(e.Op.String()).Call(s.expr(e.Args[0]), s.expr(e.Args[1]))
	case ir.OpShl, ir.OpShr:
		// Counts read as unsigned, as in the IR: a negative count shifts
		// everything out instead of panicking.
		return jen.Parens(s.expr(e.Args[0]).(*jen.Statement).Op(exprOps[e.Op]).Uint64().Call(s.expr(e.Args[1])))
	}
	return jen.Parens(s.expr(e.Args[0]).(*jen.Statement).Op(exprOps[e.Op]).Add(s.expr(e.Args[1])))
}
