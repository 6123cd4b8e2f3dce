package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"
)

// skeleton returns a stand-in for a package's generated file that declares
// what the real one declares, with empty bodies, so that the package can be
// type-checked before its first generation.
func skeleton(p *packages.Package, decls []*ast.FuncDecl) []byte {
	imports := map[string]string{"github.com/qdgo/qd/rt": "qdrt"}
	qualifier := func(pkg *types.Package) string {
		if pkg == p.Types {
			return ""
		}
		if name, ok := imports[pkg.Path()]; ok {
			return name
		}
		name := fmt.Sprintf("qdimport%d", len(imports))
		imports[pkg.Path()] = name
		return name
	}
	var body bytes.Buffer
	body.WriteString("type Kernels struct{}\n")
	body.WriteString("func Load(*qdrt.Device) (*Kernels, error) { return nil, nil }\n")
	body.WriteString("func (*Kernels) Device() *qdrt.Device { return nil }\n")
	body.WriteString("var qdModule *qdrt.ModuleSpec\nconst qdPTX = \"\"\n")
	for _, d := range decls {
		obj, ok := p.TypesInfo.Defs[d.Name].(*types.Func)
		if !ok {
			continue
		}
		sig := obj.Type().(*types.Signature)
		fmt.Fprintf(&body, "func (*Kernels) %s(", d.Name.Name)
		for i := range sig.Params().Len() {
			t := sig.Params().At(i).Type()
			if s, ok := t.Underlying().(*types.Slice); ok {
				fmt.Fprintf(&body, "*qdrt.Buffer[%s], ", types.TypeString(s.Elem(), qualifier))
			} else {
				fmt.Fprintf(&body, "%s, ", types.TypeString(t, qualifier))
			}
		}
		body.WriteString("...qdrt.LaunchOption) error { return nil }\n")
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "package %s\n\n", p.Name)
	paths := make([]string, 0, len(imports))
	for path := range imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fmt.Fprintf(&out, "import %s %q\n", imports[path], path)
	}
	out.Write(body.Bytes())
	return out.Bytes()
}
