package ir

import "fmt"

// Type is the type of an IR register or operation. Narrow integer types keep
// their width in the IR; each emitter decides how to hold them in machine
// registers, but every operation on them has Go's wraparound semantics.
type Type uint8

const (
	Invalid Type = iota
	Bool
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
	Ptr // a 64-bit device address
)

var typeNames = [...]string{
	Invalid: "invalid",
	Bool:    "bool",
	Int8:    "i8",
	Int16:   "i16",
	Int32:   "i32",
	Int64:   "i64",
	Uint8:   "u8",
	Uint16:  "u16",
	Uint32:  "u32",
	Uint64:  "u64",
	Float32: "f32",
	Float64: "f64",
	Ptr:     "ptr",
}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Size is the size of a value of type t in bytes, as stored in memory.
func (t Type) Size() int {
	switch t {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64, Ptr:
		return 8
	}
	return 0
}

// Bits is the width of t in bits.
func (t Type) Bits() int { return 8 * t.Size() }

func (t Type) IsInteger() bool { return t >= Int8 && t <= Uint64 }
func (t Type) IsSigned() bool  { return t >= Int8 && t <= Int64 }
func (t Type) IsUnsigned() bool {
	return t >= Uint8 && t <= Uint64
}
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 }

// Unsigned returns the unsigned type of the same width as the integer type t.
func (t Type) Unsigned() Type {
	if t.IsSigned() {
		return t + (Uint8 - Int8)
	}
	return t
}

// Signed returns the signed type of the same width as the integer type t.
func (t Type) Signed() Type {
	if t.IsUnsigned() {
		return t - (Uint8 - Int8)
	}
	return t
}

// Normalize brings a 64-bit pattern holding a value of type t into the
// canonical form used throughout the IR: integers are sign- or zero-extended
// from their width, float32 is kept as its 32-bit pattern, bool is 0 or 1.
func (t Type) Normalize(bits uint64) uint64 {
	switch t {
	case Bool:
		if bits != 0 {
			return 1
		}
		return 0
	case Int8:
		return uint64(int64(int8(bits)))
	case Int16:
		return uint64(int64(int16(bits)))
	case Int32:
		return uint64(int64(int32(bits)))
	case Uint8:
		return bits & 0xff
	case Uint16:
		return bits & 0xffff
	case Uint32, Float32:
		return bits & 0xffffffff
	}
	return bits
}
