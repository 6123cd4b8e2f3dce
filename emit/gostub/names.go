package gostub

import (
	"fmt"
	"go/types"
	"strings"
)

// The generated file must compile whatever the user's names are. Names
// the file declares at package level are checked against the package's
// own (Names, and qdgen's diagnostics); every other name of the file is
// chosen here to be apart from the names the code around it refers to:
// the import names of rt and rtimpl apart from the package's declarations, the fields
// of Kernels apart from its methods, and in each stub the receiver, the
// parameters and the variables apart from each other and from the outer
// names the stub refers to (predeclared identifiers, rt, the kernel's Go
// function and the types of its parameters).

// Methods are the methods of Kernels other than the stubs: a kernel
// cannot have one of these names.
var Methods = []string{"Device"}

// names are the identifiers chosen for one package's generated file.
type names struct {
	rt       string // the import name of package rt
	impl     string // the import name of package rtimpl
	dev, mod string // the fields of Kernels
}

func fileNames(p *Package) names {
	taken := newScope(nil)
	if p.Declared != nil {
		for _, name := range p.Declared {
			taken.take(name)
		}
	}
	n := names{rt: taken.fresh("rt")}
	n.impl = taken.fresh("rtimpl")
	fields := newScope(nil)
	for _, m := range Methods {
		fields.take(m)
	}
	for _, k := range p.Kernels {
		fields.take(k.Func.Name())
	}
	n.dev, n.mod = fields.fresh("dev"), fields.fresh("mod")
	return n
}

// scope is a set of names taken.
type scope struct{ taken map[string]bool }

func newScope(names []string) *scope {
	s := &scope{taken: make(map[string]bool)}
	for _, n := range names {
		s.take(n)
	}
	return s
}

func (s *scope) take(name string) { s.taken[name] = true }

// fresh returns want, or want followed by a number, whichever is not
// taken yet, and takes it.
func (s *scope) fresh(want string) string {
	name := want
	for i := 2; s.taken[name] || name == "_" || name == ""; i++ {
		name = fmt.Sprintf("%s%d", strings.TrimRight(want, "_"), i)
	}
	s.take(name)
	return name
}

// stubNames are the local names of one stub.
type stubNames struct {
	recv, opts, err, args, counts string
	params                        []string
}

// localNames chooses the stub's local names. A parameter keeps its own
// name where that is free; others get argN.
func (s *stub) localNames(file names) stubNames {
	outer := newScope(types.Universe.Names())
	outer.take(file.rt)
	outer.take(file.impl)
	outer.take(s.k.Func.Name())
	sig := s.sig()
	for i := range sig.Params().Len() {
		referencedNames(sig.Params().At(i).Type(), outer)
	}
	var n stubNames
	for i := range sig.Params().Len() {
		name := sig.Params().At(i).Name()
		if outer.taken[name] || name == "_" || name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		n.params = append(n.params, outer.fresh(name))
	}
	n.recv, n.opts, n.err = outer.fresh("qdk"), outer.fresh("qdOpts"), outer.fresh("qdErr")
	n.args, n.counts = outer.fresh("qdArgs"), outer.fresh("qdCounts")
	return n
}

// referencedNames takes the names that writing t refers to: named types
// and the packages they come from.
func referencedNames(t types.Type, s *scope) {
	switch t := t.(type) {
	case *types.Named:
		s.take(t.Obj().Name())
		if t.Obj().Pkg() != nil {
			s.take(t.Obj().Pkg().Name())
		}
	case *types.Alias:
		s.take(t.Obj().Name())
		if t.Obj().Pkg() != nil {
			s.take(t.Obj().Pkg().Name())
		}
	case *types.Slice:
		referencedNames(t.Elem(), s)
	}
}
