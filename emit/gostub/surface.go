package gostub

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/qdgo/qd/internal/ptxsum"
	"github.com/qdgo/qd/rt/rtimpl"
)

// form is which of the two files a declaration is written for.
type form int

const (
	full     form = iota // the generated file
	skeleton             // its stand-in before the first generation
)

// decl is one declaration of the generated file.
type decl struct {
	name string   // the package-level name it declares; "" for a method
	doc  []string // its doc comment, one line each
	// head is the declaration up to its body, value or type: its name and,
	// for a function, its signature. Both forms share it.
	head *jen.Statement
	// body is what follows head in the generated file; it is called only
	// for that form, since it may need the kernels' IR.
	body func() jen.Code
	// standIn is what follows head in the skeleton.
	standIn jen.Code
	// directive follows the doc comment in the generated file only: the
	// skeleton stands in while the files it names may be missing.
	directive string
}

func (d *decl) rest(f form) jen.Code {
	if f == skeleton {
		return d.standIn
	}
	return d.body()
}

// surface describes every declaration of the generated file of p, in the
// order the file has them.
func surface(p *Package) []decl {
	n := fileNames(p)
	decls := []decl{
		{
			name: "qdModule",
			doc:  []string{"qdModule describes the device code of this package's kernels."},
			head: jen.Var().Id("qdModule"),
			body: func() jen.Code {
				return jen.Op("=").Op("&").Qual(implPath, "ModuleSpec").Values(moduleSpec(p))
			},
			standIn: jen.Op("*").Qual(implPath, "ModuleSpec"),
		},
		{
			name: "Kernels",
			doc: []string{
				"Kernels launches this package's kernels on one device. Create it with Load;",
				"it is safe for use by many goroutines at once.",
			},
			head: jen.Type().Id("Kernels"),
			body: func() jen.Code { return kernelsType(n) },
			// The fields keep the skeleton's methods as they are in the
			// generated file; nothing outside the file uses them.
			standIn: kernelsType(n),
		},
		{
			name: "Load",
			doc: []string{
				"Load prepares this package's kernels on dev. The first call for a device",
				"compiles the device code; later calls return at once.",
			},
			head: jen.Func().Id("Load").Params(jen.Id("dev").Op("*").Qual(rtPath, "Device")).
				Params(jen.Op("*").Id("Kernels"), jen.Error()),
			body:    func() jen.Code { return loadBody(n) },
			standIn: standInBody,
		},
		{
			doc: []string{"Device returns the device the kernels run on."},
			head: jen.Func().Params(jen.Id("k").Op("*").Id("Kernels")).Id("Device").Params().
				Op("*").Qual(rtPath, "Device"),
			body:    func() jen.Code { return jen.Block(jen.Return(jen.Id("k").Dot(n.dev))) },
			standIn: standInBody,
		},
	}
	for i := range p.Kernels {
		s := newStub(&p.Kernels[i], i, n)
		decls = append(decls, decl{
			doc:     s.doc(),
			head:    s.signature(),
			body:    s.body,
			standIn: standInBody,
		})
	}
	for _, img := range p.Images {
		what := img.Kind.String()
		if img.Arch != "" {
			what += " for " + img.Arch
		}
		file := ImageFile(p.output(), img)
		decls = append(decls, decl{
			name:      imageConst(img),
			doc:       []string{fmt.Sprintf("%s is the %s of this package's kernels, from %s.", imageConst(img), what, file)},
			directive: "//go:embed " + file,
			head:      jen.Var().Id(imageConst(img)),
			body:      func() jen.Code { return jen.String() },
			standIn:   jen.String(),
		})
	}
	return decls
}

// standInBody is the body of every function in the skeleton.
var standInBody = jen.Block(jen.Panic(jen.Lit("qdgen skeleton")))

// imageConst names the variable that holds an image: qd, its kind, and
// for binary code its architecture, as in qdCubin_sm_80, or
// qdHSACO_gfx942_sramecc_on_xnack_off for "gfx942:sramecc+:xnack-".
func imageConst(img rtimpl.Image) string {
	if img.Arch != "" {
		return "qd" + img.Kind.String() + "_" + archIdent.Replace(img.Arch)
	}
	return "qd" + img.Kind.String()
}

// archIdent spells the feature flags of AMD targets in a Go identifier.
var archIdent = strings.NewReplacer(":", "_", "+", "_on", "-", "_off")

// imageKindConst is the rtimpl constant of an image kind: rtimpl names
// each kind Image followed by its String.
func imageKindConst(kind rtimpl.ImageKind) jen.Code {
	return jen.Qual(implPath, "Image"+kind.String())
}

func moduleSpec(p *Package) jen.Dict {
	var images []jen.Code
	for _, img := range p.Images {
		fields := []jen.Code{
			jen.Id("Kind").Op(":").Add(imageKindConst(img.Kind)),
			jen.Id("Data").Op(":").Id(imageConst(img)),
		}
		if img.Arch != "" {
			fields = append(fields, jen.Id("Arch").Op(":").Lit(img.Arch))
		}
		if (img.Kind == rtimpl.ImagePTX || img.Kind == rtimpl.ImageHIP) && img.Data != "" {
			fields = append(fields, jen.Id("Sum").Op(":").Lit(ptxsum.Of(img.Data)))
		}
		images = append(images, jen.Values(fields...))
	}
	var kernels []jen.Code
	for i := range p.Kernels {
		kernels = append(kernels, jen.Values(kernelSpec(&p.Kernels[i])))
	}
	return jen.Dict{
		jen.Id("Package"): jen.Lit(p.Path),
		jen.Id("Images"):  jen.Index().Qual(implPath, "Image").Values(images...),
		jen.Id("Kernels"): jen.Index().Qual(implPath, "KernelSpec").Values(kernels...),
	}
}

func kernelsType(n names) jen.Code {
	return jen.Struct(
		jen.Id(n.dev).Op("*").Qual(rtPath, "Device"),
		jen.Id(n.mod).Op("*").Qual(implPath, "Module"),
	)
}

func loadBody(n names) jen.Code {
	return jen.Block(
		jen.List(jen.Id("mod"), jen.Err()).Op(":=").Qual(implPath, "Load").Call(jen.Id("dev"), jen.Id("qdModule")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("Kernels").Values(jen.Dict{
			jen.Id(n.dev): jen.Id("dev"),
			jen.Id(n.mod): jen.Id("mod"),
		}), jen.Nil()),
	)
}

// declaredAt is the file and line the stub's comment names.
func declaredAt(k *Kernel) string {
	return fmt.Sprintf("%s:%d", filepath.Base(k.Pos.Filename), k.Pos.Line)
}
