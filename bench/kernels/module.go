package kernels

import "github.com/qdgo/qd/rt"

// Module returns the description of this package's device code, for
// benchmarks of loading it.
func Module() *rt.ModuleSpec { return qdModule }
