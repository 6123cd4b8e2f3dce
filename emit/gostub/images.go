package gostub

import (
	"strings"

	"github.com/qdgo/qd/rt/rtimpl"
)

// Each image is a file of its own beside the generated Go file, which
// embeds it (//go:embed): device code reads as itself in an editor and a
// diff, and the Go file stays the size of its stubs. An image file is named
// after the Go file with the image's extension, and for binary code its
// architecture: qd_gen.ptx, qd_gen.hip, qd_gen.ir, qd_gen.sm_80.cubin,
// qd_gen.gfx942_sramecc_on_xnack_off.hsaco.

// imageExt is the file extension of each kind of image.
var imageExt = map[rtimpl.ImageKind]string{
	rtimpl.ImagePTX: "ptx", rtimpl.ImageHIP: "hip", rtimpl.ImageIR: "ir", rtimpl.ImageCubin: "cubin", rtimpl.ImageHSACO: "hsaco",
}

// ImageFile is the name of the file that holds img beside the generated
// Go file named output.
func ImageFile(output string, img rtimpl.Image) string {
	name := strings.TrimSuffix(output, ".go") + "."
	if img.Arch != "" {
		name += archIdent.Replace(img.Arch) + "."
	}
	return name + imageExt[img.Kind]
}

// IsImageFile reports whether name has the form of an image file of the
// generated Go file named output, for whatever image: qdgen removes such
// files that the package's images no longer include.
func IsImageFile(output, name string) bool {
	rest, ok := strings.CutPrefix(name, strings.TrimSuffix(output, ".go")+".")
	if !ok {
		return false
	}
	for kind, ext := range imageExt {
		arch, ok := strings.CutSuffix(rest, "."+ext)
		binary := kind == rtimpl.ImageCubin || kind == rtimpl.ImageHSACO
		if rest == ext && !binary || ok && binary && arch != "" && !strings.Contains(arch, ".") {
			return true
		}
	}
	return false
}
