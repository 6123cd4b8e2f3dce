package generated_test

import (
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/qdgo/qd/generated_test/mathkernels"
	"github.com/qdgo/qd/internal/testlong"
	"github.com/qdgo/qd/ir"
	"github.com/qdgo/qd/lower"
	"github.com/qdgo/qd/rt"
)

// mathCases are the kernels of package mathkernels, each applying a
// function of math or math/bits to every element.
var mathCases = func() []kernelCase {
	fns := map[string]any{
		"Abs": mathkernels.Abs, "Acos": mathkernels.Acos, "Acosh": mathkernels.Acosh, "Asin": mathkernels.Asin,
		"Asinh": mathkernels.Asinh, "Atan": mathkernels.Atan, "Atanh": mathkernels.Atanh, "Cbrt": mathkernels.Cbrt,
		"Ceil": mathkernels.Ceil, "Cosh": mathkernels.Cosh, "Erf": mathkernels.Erf, "Erfc": mathkernels.Erfc,
		"Erfcinv": mathkernels.Erfcinv, "Erfinv": mathkernels.Erfinv, "Exp": mathkernels.Exp, "Exp2": mathkernels.Exp2,
		"Expm1": mathkernels.Expm1, "Floor": mathkernels.Floor, "Log": mathkernels.Log, "Log10": mathkernels.Log10,
		"Log1p": mathkernels.Log1p, "Log2": mathkernels.Log2, "Logb": mathkernels.Logb, "Round": mathkernels.Round,
		"RoundToEven": mathkernels.RoundToEven, "Sinh": mathkernels.Sinh, "Sqrt": mathkernels.Sqrt, "Trunc": mathkernels.Trunc,

		"Atan2": mathkernels.Atan2, "Copysign": mathkernels.Copysign, "Dim": mathkernels.Dim, "Hypot": mathkernels.Hypot,
		"Max": mathkernels.Max, "Min": mathkernels.Min, "Mod": mathkernels.Mod, "Nextafter": mathkernels.Nextafter,
		"Pow": mathkernels.Pow, "Remainder": mathkernels.Remainder,

		"Sin": mathkernels.Sin, "Cos": mathkernels.Cos, "Sincos": mathkernels.Sincos, "Tan": mathkernels.Tan,
		"Tanh": mathkernels.Tanh, "Gamma": mathkernels.Gamma, "Lgamma": mathkernels.Lgamma, "Pow10": mathkernels.Pow10,
		"Bessel": mathkernels.Bessel, "BesselN": mathkernels.BesselN, "NarrowTrig": mathkernels.NarrowTrig,

		"CmplxUnary": mathkernels.CmplxUnary, "CmplxTrig": mathkernels.CmplxTrig, "CmplxInverse": mathkernels.CmplxInverse,
		"CmplxPow": mathkernels.CmplxPow, "CmplxParts": mathkernels.CmplxParts,

		"FMA": mathkernels.FMA, "Frexp": mathkernels.Frexp, "Ldexp": mathkernels.Ldexp, "Modf": mathkernels.Modf,
		"Ilogb": mathkernels.Ilogb, "Classify": mathkernels.Classify, "Specials": mathkernels.Specials,
		"Bits64": mathkernels.Bits64, "Bits32": mathkernels.Bits32, "Narrow": mathkernels.Narrow,

		"Counts64": mathkernels.Counts64, "Counts32": mathkernels.Counts32, "Counts16": mathkernels.Counts16,
		"Counts8": mathkernels.Counts8, "Counts": mathkernels.Counts,
		"Permute64": mathkernels.Permute64, "Permute32": mathkernels.Permute32, "Permute16": mathkernels.Permute16,
		"Permute8": mathkernels.Permute8, "Permute": mathkernels.Permute,
		"Carry64": mathkernels.Carry64, "Carry32": mathkernels.Carry32, "Carry": mathkernels.Carry,
		"Divide": mathkernels.Divide,
	}
	var cases []kernelCase
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		fn := fns[name]
		cases = append(cases, kernelCase{name: name, fn: fn, args: func(r *rand.Rand, n int) []any { return mathArgs(fn, r, n) }})
		if name == "CmplxPow" {
			cases[len(cases)-1].args = cmplxPowArgs
		}
	}
	return append(cases,
		kernelCase{name: "Random", fn: mathkernels.Random, args: func(r *rand.Rand, n int) []any {
			return []any{r.Uint64(), make([]uint32, n), make([]uint64, n), make([]float32, n), make([]float64, n), make([]float64, n)}
		}},
		kernelCase{name: "Prologue", fn: mathkernels.Prologue, args: func(r *rand.Rand, n int) []any {
			return []any{mathFloat(r), mathArgs(mathkernels.Exp, r, n)[0], make([]float64, n)}
		}},
		kernelCase{name: "MonteCarloPi", fn: mathkernels.MonteCarloPi, args: func(r *rand.Rand, n int) []any {
			return []any{r.Uint64(), 1 + r.IntN(64), make([]int, min(n, 4096))}
		}},
	)
}()

// mathLengths are the lengths math kernels are tried with: enough values
// to meet the rare paths of the algorithms.
var mathLengths = []int{1, 300, 1 << 16}

// mathSpecials are inputs at the special cases and the boundaries of the
// algorithms of package math.
var mathSpecials = []float64{0, math.Copysign(0, -1), 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1.5, -1.5,
	math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	1e-310, -1e-310, 0x1p-1022, math.MaxFloat64, -math.MaxFloat64, 1 << 52, 1 << 53, 1 << 63, 1e300, -1e300,
	709.782712893384, 709.79, -745.13321910194110842, -745.2, -708.4, 1024, -1074, -1075, 1023.5,
	math.Pi, math.Pi / 2, math.Pi / 4, math.E, math.Ln2, math.Sqrt2 / 2, 1 - 0x1p-53, 1 + 0x1p-52,
	1e-8, -1e-8, 0.9999, -0.9999, 1e-300, 0.375, 0.8750, 2.5, 6, 20, 1e10}

// cmplxPowSpecials are the values at the cases cmplx.Pow tells apart: a
// zero base (of either sign in either part) with an exponent of zero real
// part, of negative real part, real or not, of positive real part, or NaN;
// infinite and NaN bases and exponents; bases whose modulus overflows or
// is subnormal; odd, even and fractional real exponents. (Not NaN+Inf i:
// Pow(0, NaN+Inf i) panics in Go, "not reached".)
var cmplxPowSpecials = func() []complex128 {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1)
	return []complex128{
		0, complex(negZero, 0), complex(0, negZero), complex(negZero, negZero),
		1, -1, 2, -2, 3, -3, 0.5, -0.5, 1i, -1i, complex(0, 2), complex(-1, 1), complex(1.5, -2.5), complex(-2, 0.5),
		complex(inf, 0), complex(-inf, 0), complex(0, inf), complex(0, -inf), complex(inf, inf), complex(-inf, 1),
		complex(nan, 0), complex(0, nan), complex(nan, nan), complex(1, nan),
		complex(math.MaxFloat64, math.MaxFloat64), complex(1e-310, -1e-310), complex(1e300, 1), complex(1e-300, 0),
	}
}()

// cmplxPowArgs draws the arguments of CmplxPow: when there are enough
// elements, the first pair every value of cmplxPowSpecials as the base
// with every one as the exponent; the others are drawn by mathComplex.
func cmplxPowArgs(r *rand.Rand, n int) []any {
	x, y := make([]complex128, n), make([]complex128, n)
	k := len(cmplxPowSpecials)
	for j := range n {
		if n >= k*k && j < k*k {
			x[j], y[j] = cmplxPowSpecials[j/k], cmplxPowSpecials[j%k]
		} else {
			x[j], y[j] = mathComplex(r, j, false), mathComplex(r, j, false)
		}
	}
	return []any{x, y, make([]complex128, n)}
}

// mathFloat draws an input for a function of package math: a special
// value, any bit pattern, a value in [-4, 4), or one of any magnitude.
func mathFloat(r *rand.Rand) float64 {
	switch r.IntN(5) {
	case 0:
		return mathSpecials[r.IntN(len(mathSpecials))]
	case 1:
		return math.Float64frombits(r.Uint64())
	case 2:
		return (r.Float64() - 0.5) * 8
	case 3:
		return (r.Float64()*2 - 1) // the domain of Asin, Erfinv…
	}
	x := math.Pow(10, r.Float64()*40-20)
	if r.IntN(2) == 0 {
		x = -x
	}
	return x
}

// mathArgs draws the arguments of a math kernel: floats from mathFloat,
// complex numbers from mathComplex, ints in [-1100, 1100] (exponents,
// rotation counts, signs), and bits for unsigned integers. Long enough
// float arguments start with every pair of special values.
func mathArgs(fn any, r *rand.Rand, n int) []any {
	ft := reflect.TypeOf(fn)
	args := make([]any, ft.NumIn())
	floats := 0
	pairs := len(mathSpecials) * len(mathSpecials)
	for i := range args {
		t := ft.In(i)
		s := reflect.MakeSlice(t, n, n)
		stride := 1
		if k := t.Elem().Kind(); k == reflect.Float64 || k == reflect.Float32 {
			stride = [2]int{1, len(mathSpecials)}[min(floats, 1)]
			floats++
		}
		for j := range n {
			v := s.Index(j)
			switch t.Elem().Kind() {
			case reflect.Float64, reflect.Float32:
				if n >= pairs && j < pairs {
					v.SetFloat(mathSpecials[j/stride%len(mathSpecials)])
				} else {
					v.SetFloat(mathFloat(r))
				}
			case reflect.Complex128, reflect.Complex64:
				v.SetComplex(mathComplex(r, j, n >= pairs))
			case reflect.Int:
				v.SetInt(int64(r.IntN(2201) - 1100))
			default:
				v.Set(randomValue(t.Elem(), r))
			}
		}
		args[i] = s.Interface()
	}
	return args
}

// mathComplex draws element j of a complex argument: the first ones, where
// pairs is set, pair every special value with every other as real and
// imaginary parts; the others are parts from mathFloat.
func mathComplex(r *rand.Rand, j int, pairs bool) complex128 {
	k := len(mathSpecials)
	if pairs && j < k*k {
		return complex(mathSpecials[j/k], mathSpecials[j%k])
	}
	return complex(mathFloat(r), mathFloat(r))
}

func TestMathCPU(t *testing.T) {
	dev, err := rt.Open(rt.WithBackend(rt.CPU))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	runMath(t, dev)
}

// TestMathGPU runs every math kernel on the GPU and compares each result
// with Go's bit for bit.
func TestMathGPU(t *testing.T) {
	dev := openGPU(t)
	defer dev.Close()
	runMath(t, dev)
}

func runMath(t *testing.T, dev *rt.Device) {
	ks, err := mathkernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	runLoaded(t, dev, ks, mathCases, mathLengths)
}

// TestMathInterpreted runs the math kernels' IR on the interpreter. Their
// lowering compiles most of Go's package math, which takes minutes on a
// small machine: a long test (TestMathGPU runs the same cases on a GPU).
func TestMathInterpreted(t *testing.T) {
	testlong.Skip(t, "lowering and interpreting the math kernels")
	interpretCases(t, loadKernelsFrom(t, "mathkernels", &lower.Config{}), mathCases, []int{1, 300, 4099})
}

// TestMathImageInterpreted runs the math kernels of the IR image qdgen
// wrote (qd_gen.ir), which the CPU race mode runs: its kernels call the
// library functions they share as device functions, each printed once in
// the image. Each result must equal Go's bit for bit.
func TestMathImageInterpreted(t *testing.T) {
	text, err := os.ReadFile("mathkernels/qd_gen.ir")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := ir.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	kernels := map[string]*ir.Kernel{}
	calls := 0
	for _, k := range ks {
		if err := k.Check(); err != nil {
			t.Fatalf("kernel %s: %v", k.Name, err)
		}
		kernels[k.Name] = k
		calls += len(k.Funcs)
	}
	if calls == 0 {
		t.Fatal("no kernel of the image has device functions")
	}
	interpretCases(t, kernels, mathCases, []int{1, 300})
}
