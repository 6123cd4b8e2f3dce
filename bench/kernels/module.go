package kernels

import "github.com/qdgo/qd/rt/rtimpl"

// Module returns the description of this package's device code, for
// benchmarks of loading it.
func Module() *rtimpl.ModuleSpec { return qdModule }
