package gostub

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"github.com/qdgo/qd/internal/fault"
	"github.com/qdgo/qd/internal/ptxsum"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/rt/rtimpl"
)

const source = `package k

type Celsius float32

//qd:kernel
func Scale(a float32, x []Celsius, rt int) {}
`

// testPackage describes a package with one kernel, as qdgen would after
// compiling it.
func testPackage(t *testing.T) *Package {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "k.go", source, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("example.com/k", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fn := pkg.Scope().Lookup("Scale").(*types.Func)
	k := &ir.Kernel{
		Name: "Scale",
		Params: []ir.Param{
			{Name: "a", Type: ir.Float32},
			{Name: "x", Slice: true, Type: ir.Float32},
			{Name: "rt", Type: ir.Int64},
		},
		Tasks: []*ir.Task{{Name: "Scale_0", Kind: ir.Parallel,
			Count: &ir.Expr{Op: ir.OpParamLen, Type: ir.Int64, Aux: 1}}},
	}
	return &Package{
		Path:    "example.com/k",
		Name:    "k",
		Kernels: []Kernel{{Func: fn, Pos: fset.Position(fn.Pos()), IR: k, Doc: "Scale multiplies x by a.\n\n\tx[i] *= a\n"}},
		Images:  []rtimpl.Image{{Kind: rtimpl.ImagePTX, Data: ".version 7.0\n"}},
	}
}

// declared parses a generated file and returns its declarations by name,
// methods as Type.Method, each printed without its body or value.
func declared(t *testing.T, src []byte) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "qd_gen.go", src, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	print := func(n any) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return b.String()
	}
	decls := make(map[string]string)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil {
				name = "Kernels." + name
			}
			decls[name] = print(d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					decls[s.Name.Name] = "type"
				case *ast.ValueSpec:
					decls[s.Names[0].Name] = d.Tok.String()
				}
			}
		}
	}
	return decls
}

// TestSurface checks that the generated file, its skeleton and Names
// declare the same names, and that the functions have the same signatures
// in the file and the skeleton.
func TestSurface(t *testing.T) {
	p := testPackage(t)
	file, err := File(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Kernels {
		p.Kernels[i].IR = nil // the skeleton is written before lowering
	}
	skel, err := Skeleton(p)
	if err != nil {
		t.Fatal(err)
	}
	inFile, inSkeleton := declared(t, file), declared(t, skel)
	for name, sig := range inFile {
		if inSkeleton[name] != sig {
			t.Errorf("%s: %q in the generated file, %q in the skeleton", name, sig, inSkeleton[name])
		}
	}
	for name := range inSkeleton {
		if _, ok := inFile[name]; !ok {
			t.Errorf("%s is only in the skeleton", name)
		}
	}
	var topLevel []string
	for name := range inFile {
		if !strings.HasPrefix(name, "Kernels.") {
			topLevel = append(topLevel, name)
		}
	}
	names := Names(p)
	slices.Sort(topLevel)
	slices.Sort(names)
	if !slices.Equal(names, topLevel) {
		t.Errorf("Names = %v; the file declares %v", names, topLevel)
	}
	want := "func(a float32, x *rt.Buffer[Celsius], arg2 int, qdOpts ...rt.LaunchOption) error"
	if got := inFile["Kernels.Scale"]; got != want {
		t.Errorf("stub signature %s, want %s", got, want)
	}
	if !bytes.HasPrefix(file, []byte(Header+"\n//go:build !"+BuildTag+"\n")) {
		t.Errorf("file header:\n%s", file[:80])
	}
}

// TestImageFiles checks that the generated file embeds each image from
// the file named after it, and that the skeleton, written while those
// files may be missing, embeds nothing.
func TestImageFiles(t *testing.T) {
	p := testPackage(t)
	p.Output = "kernels_gen.go"
	file, err := File(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"import (\n\t_ \"embed\"", "//\n//go:embed kernels_gen.ptx\nvar qdPTX string\n"} {
		if !bytes.Contains(file, []byte(want)) {
			t.Errorf("missing %q in\n%s", want, file)
		}
	}
	skel, err := Skeleton(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(skel, []byte("embed")) {
		t.Errorf("the skeleton embeds:\n%s", skel)
	}
	for _, c := range []struct {
		name string
		want bool
	}{
		{"qd_gen.ptx", true}, {"qd_gen.hip", true}, {"qd_gen.ir", true}, {"qd_gen.sm_80.cubin", true},
		{"qd_gen.gfx90a.hsaco", true}, {"qd_gen.go", false}, {"qd_gen.cubin", false}, {"qd_gen.x.ptx", false},
		{"other.ptx", false}, {"qd_gen.a.b.cubin", false},
	} {
		if got := IsImageFile("qd_gen.go", c.name); got != c.want {
			t.Errorf("IsImageFile(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDocComment checks that the kernel's doc comment heads its stub's.
func TestDocComment(t *testing.T) {
	file, err := File(testPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	want := "// Scale multiplies x by a.\n//\n//\tx[i] *= a\n//\n// Scale launches kernel Scale (k.go:"
	if !bytes.Contains(file, []byte(want)) {
		t.Errorf("stub comment:\n%s", file)
	}
}

// TestTargetImages checks that AMD code objects each get a variable named
// after their target, feature flags included, and carry the target.
func TestTargetImages(t *testing.T) {
	p := testPackage(t)
	p.Images = append(p.Images,
		rtimpl.Image{Kind: rtimpl.ImageHSACO, Arch: "gfx90a", Data: "\x7fELF\x00a"},
		rtimpl.Image{Kind: rtimpl.ImageHSACO, Arch: "gfx942:sramecc+:xnack-", Data: "\x7fELF\x00b"})
	file, err := File(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{Kind: rtimpl.ImageHSACO, Data: qdHSACO_gfx90a, Arch: "gfx90a"}`,
		`{Kind: rtimpl.ImageHSACO, Data: qdHSACO_gfx942_sramecc_on_xnack_off, Arch: "gfx942:sramecc+:xnack-"}`,
		"// qdHSACO_gfx942_sramecc_on_xnack_off is the HSACO for gfx942:sramecc+:xnack- of this package's kernels, from qd_gen.gfx942_sramecc_on_xnack_off.hsaco.",
		"//go:embed qd_gen.gfx90a.hsaco\nvar qdHSACO_gfx90a string",
	} {
		if !bytes.Contains(file, []byte(want)) {
			t.Errorf("missing %s in\n%s", want, file)
		}
	}
	if names := Names(p); !slices.Contains(names, "qdHSACO_gfx90a") {
		t.Errorf("Names = %v", names)
	}
}

// TestFaultKinds checks that the stubs can name every kind of fault.
func TestFaultKinds(t *testing.T) {
	for k := fault.Index; k <= fault.Divide; k++ {
		if faultKinds[k] == "" {
			t.Errorf("no rt constant for fault kind %s", k)
		}
	}
}

// TestImageSum checks that PTX and HIP images carry the sum that keys the
// runtime's module cache, so that loading them hashes nothing, and that
// the IR, which is not cached, carries none.
func TestImageSum(t *testing.T) {
	p := testPackage(t)
	p.Images = append(p.Images, rtimpl.Image{Kind: rtimpl.ImageHIP, Data: "extern \"C\" __global__ void k() {}\n"}, rtimpl.Image{Kind: rtimpl.ImageIR, Data: "ir"})
	file, err := File(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range p.Images[:2] {
		want := `Sum: "` + ptxsum.Of(img.Data) + `"`
		if !bytes.Contains(file, []byte(want)) {
			t.Errorf("no %s for %s in:\n%s", want, img.Kind, file)
		}
	}
	if n := bytes.Count(file, []byte("Sum: ")); n != 2 {
		t.Errorf("%d sums, want 2:\n%s", n, file)
	}
}
