// Package deep has helpers that each call the one below twice: inlining
// them all would copy deep0 2^24 times.
package deep

func deep0(x int64) int64 { return x*3 + 1 }

func deep1(x int64) int64  { return deep0(deep0(x)) ^ 1 }
func deep2(x int64) int64  { return deep1(deep1(x)) ^ 2 }
func deep3(x int64) int64  { return deep2(deep2(x)) ^ 3 }
func deep4(x int64) int64  { return deep3(deep3(x)) ^ 4 }
func deep5(x int64) int64  { return deep4(deep4(x)) ^ 5 }
func deep6(x int64) int64  { return deep5(deep5(x)) ^ 6 }
func deep7(x int64) int64  { return deep6(deep6(x)) ^ 7 }
func deep8(x int64) int64  { return deep7(deep7(x)) ^ 8 }
func deep9(x int64) int64  { return deep8(deep8(x)) ^ 9 }
func deep10(x int64) int64 { return deep9(deep9(x)) ^ 10 }
func deep11(x int64) int64 { return deep10(deep10(x)) ^ 11 }
func deep12(x int64) int64 { return deep11(deep11(x)) ^ 12 }
func deep13(x int64) int64 { return deep12(deep12(x)) ^ 13 }
func deep14(x int64) int64 { return deep13(deep13(x)) ^ 14 }
func deep15(x int64) int64 { return deep14(deep14(x)) ^ 15 }
func deep16(x int64) int64 { return deep15(deep15(x)) ^ 16 }
func deep17(x int64) int64 { return deep16(deep16(x)) ^ 17 }
func deep18(x int64) int64 { return deep17(deep17(x)) ^ 18 }
func deep19(x int64) int64 { return deep18(deep18(x)) ^ 19 }
func deep20(x int64) int64 { return deep19(deep19(x)) ^ 20 }
func deep21(x int64) int64 { return deep20(deep20(x)) ^ 21 }
func deep22(x int64) int64 { return deep21(deep21(x)) ^ 22 }
func deep23(x int64) int64 { return deep22(deep22(x)) ^ 23 }
func deep24(x int64) int64 { return deep23(deep23(x)) ^ 24 }

//qd:kernel
func Deep(a []int64) {
	for i := range a {
		a[i] = deep24(a[i]) + deep12(a[i])
	}
}
