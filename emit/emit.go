// Package emit turns kernel IR into device code, one image per backend.
// Each backend is a package of its own (emit/ptx, ...) and one line in
// Backends; qdgen compiles every package of kernels for each of them, and
// emit/gostub writes the images and the launch stubs into the package's
// generated file.
package emit

import (
	"fmt"
	"reflect"

	"github.com/qdgo/qd/emit/hip"
	"github.com/qdgo/qd/emit/ptx"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/opt"
	"github.com/qdgo/qd/rt"
)

// A Backend compiles kernel IR into one kind of device code.
type Backend struct {
	// Name names the backend in messages and the files qdgen -dump writes
	// (package.Name holds the image, package.Name.ir the IR it came from).
	Name string
	// Kind is the kind of image Emit returns; a runtime driver that loads
	// it runs the kernels.
	Kind rt.ImageKind
	// Pipeline holds the passes run, in order, on the backend's own copy
	// of the IR before Emit.
	Pipeline opt.Pipeline
	// Emit returns the image of a package's kernels.
	Emit func([]*ir.Kernel) string
}

// Backends lists every backend, in the order of the images in a module.
var Backends = []Backend{
	{Name: "ptx", Kind: rt.ImagePTX, Pipeline: opt.Default, Emit: ptx.Module},
	{Name: "hip", Kind: rt.ImageHIP, Pipeline: opt.Default, Emit: hip.Module},
	// The IR itself, which the CPU backend's race mode interprets.
	{Name: "ir", Kind: rt.ImageIR, Pipeline: opt.Default, Emit: ir.FormatKernels},
}

// Output is what one backend made of a package's kernels.
type Output struct {
	Backend *Backend
	Kernels []*ir.Kernel // the backend's copy of the IR, after its pipeline
	Image   rt.Image
}

// Compile runs the backend's pipeline over a copy of kernels, which it
// leaves as they are, and emits the image.
func (b *Backend) Compile(kernels []*ir.Kernel) (*Output, error) {
	optimized, err := b.optimize(kernels)
	if err != nil {
		return nil, err
	}
	return b.emit(optimized), nil
}

// optimize runs the backend's pipeline over a copy of kernels.
func (b *Backend) optimize(kernels []*ir.Kernel) ([]*ir.Kernel, error) {
	var cs []*ir.Kernel
	for _, k := range kernels {
		c := k.Clone()
		if err := b.Pipeline.Run(c); err != nil {
			return nil, &Error{Backend: b.Name, Kernel: k, Err: err}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// emit emits the image of kernels that went through the backend's
// pipeline.
func (b *Backend) emit(kernels []*ir.Kernel) *Output {
	return &Output{Backend: b, Kernels: kernels, Image: rt.Image{Kind: b.Kind, Data: b.Emit(kernels)}}
}

func cloneKernels(ks []*ir.Kernel) []*ir.Kernel {
	cs := make([]*ir.Kernel, len(ks))
	for i, k := range ks {
		cs[i] = k.Clone()
	}
	return cs
}

// samePipeline reports whether two pipelines are one slice of passes,
// whose results are then the same.
func samePipeline(p, q opt.Pipeline) bool {
	return len(p) == len(q) && (len(p) == 0 || &p[0] == &q[0])
}

// CompileAll compiles kernels with each of the backends. A module has one
// set of launch stubs for all its images, so the backends' pipelines must
// leave the kernels with the same launches: the same tasks, entry points,
// iteration counts and parameters.
//
// Backends that share a pipeline (one slice of passes) run it once: each
// emits its own copy of the result.
func CompileAll(backends []Backend, kernels []*ir.Kernel) ([]*Output, error) {
	var outs []*Output
	type result struct {
		pipeline opt.Pipeline
		kernels  []*ir.Kernel // as the pipeline left them, before any emit
	}
	var done []result
	for i := range backends {
		b := &backends[i]
		var optimized []*ir.Kernel
		for _, r := range done {
			if samePipeline(r.pipeline, b.Pipeline) {
				optimized = cloneKernels(r.kernels)
				break
			}
		}
		if optimized == nil {
			pristine, err := b.optimize(kernels)
			if err != nil {
				return nil, err
			}
			done = append(done, result{b.Pipeline, pristine})
			optimized = cloneKernels(pristine)
		}
		out := b.emit(optimized)
		if len(outs) > 0 {
			for j, k := range out.Kernels {
				if !reflect.DeepEqual(launchesOf(outs[0].Kernels[j]), launchesOf(k)) {
					return nil, &Error{Backend: out.Backend.Name, Kernel: kernels[j],
						Err: fmt.Errorf("its passes left other launches than backend %s's", outs[0].Backend.Name)}
				}
			}
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// launches is what the launch stubs and the runtime know of a kernel.
type launches struct {
	Params    []ir.Param
	Conflicts [][2]int
	Groups    []int
	Tasks     []taskLaunch
}

type taskLaunch struct {
	Name        string
	Kind        ir.TaskKind
	Count       *ir.Expr
	StreamBlock int
	Group       int
}

func launchesOf(k *ir.Kernel) launches {
	l := launches{Params: k.Params, Conflicts: k.Conflicts, Groups: k.Groups}
	for _, t := range k.Tasks {
		l.Tasks = append(l.Tasks, taskLaunch{t.Name, t.Kind, t.Count, t.StreamBlock, t.Group})
	}
	return l
}

// Error is an internal error of a backend compiling one kernel.
type Error struct {
	Backend string
	Kernel  *ir.Kernel
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("internal error: compiling kernel %s for %s: %v", e.Kernel.Name, e.Backend, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
