//go:build cgo

// The one definition of the table of driver functions that every Go file
// calling the CUDA driver shares.
#include "cuda_shim.h"

struct qd_cu_table qd_cu;
void *qd_cu_lib;
