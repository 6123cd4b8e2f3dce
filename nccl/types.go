package nccl

import (
	"fmt"
	"reflect"
	"unsafe"
)

// NCCL's numbers for the element types it reduces (ncclDataType_t).
var dataTypes = map[reflect.Kind]int{
	reflect.Int8: 0, reflect.Uint8: 1, reflect.Int32: 2, reflect.Uint32: 3,
	reflect.Int64: 4, reflect.Uint64: 5, reflect.Float32: 7, reflect.Float64: 8,
}

// dataType is NCCL's data type of buffers of T; int and uint are 64 bits.
func dataType[T any]() (int, error) {
	t := reflect.TypeFor[T]()
	k := t.Kind()
	switch {
	case k == reflect.Int && unsafe.Sizeof(int(0)) == 8:
		k = reflect.Int64
	case (k == reflect.Uint || k == reflect.Uintptr) && unsafe.Sizeof(uint(0)) == 8:
		k = reflect.Uint64
	}
	if dt, ok := dataTypes[k]; ok {
		return dt, nil
	}
	return 0, fmt.Errorf("NCCL has no element type %s; use int8, uint8, int32, uint32, int64, uint64, float32 or float64", t)
}

// ncclOps are NCCL's numbers for the reductions (ncclRedOp_t).
var ncclOps = map[Op]int{Sum: 0, Prod: 1, Max: 2, Min: 3, Avg: 4}
