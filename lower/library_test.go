package lower

import (
	"go/token"
	"go/types"
	"runtime"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestLibraryTables checks that every exported function of math,
// math/bits and math/cmplx has a row in the library tables, supported or with the reason
// it is not, so that a function a new Go release adds is decided on, and
// that every row names a function that exists.
func TestLibraryTables(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, "math", "math/bits", "math/cmplx")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		funcs := libraryPackages[p.PkgPath]
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			fn, ok := scope.Lookup(name).(*types.Func)
			if !ok || !fn.Exported() {
				continue
			}
			if _, ok := funcs[name]; !ok {
				t.Errorf("%s.%s has no row in the library table", p.Name, name)
			}
		}
		for name, lib := range funcs {
			if !token.IsExported(name) && runtime.GOARCH != "amd64" {
				continue // the assembly of package math on amd64
			}
			if _, ok := scope.Lookup(name).(*types.Func); !ok {
				t.Errorf("the library table of %s has a row for %s, which it does not declare", p.Name, name)
			}
			if lib.port != "" && lib.intrinsic != nil {
				t.Errorf("%s.%s is both an intrinsic and a port", p.Name, name)
			}
		}
	}
}
