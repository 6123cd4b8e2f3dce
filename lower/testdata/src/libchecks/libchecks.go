package libchecks

import "math/bits"

// Checked calls helpers too large to inline at each call. Those that call
// bits.Div64 or bits.Div32, which check their arguments and panic, stay
// inlined, since a device function cannot reach the fault record; the
// one that does not becomes a device function.
//
//qd:kernel
func Checked(a, b []uint64) {
	for i := range len(a) {
		a[i] = div64(a[i], b[i]) + div64(b[i], a[i]) + div32(a[i], b[i]) + div32(b[i], a[i]) + plain(a[i], b[i]) + plain(b[i], a[i])
	}
}

func div64(x, y uint64) uint64 {
	q, r := bits.Div64(0, x, y|1)
	x, y = x*3+y>>1, y^x<<1
	x, y = x*5+y>>2, y^x<<2
	x, y = x*7+y>>3, y^x<<3
	x, y = x*9+y>>4, y^x<<4
	x, y = x*11+y>>5, y^x<<5
	x, y = x*13+y>>6, y^x<<6
	x, y = x*15+y>>7, y^x<<7
	x, y = x*17+y>>8, y^x<<1
	x, y = x*19+y>>9, y^x<<2
	x, y = x*21+y>>10, y^x<<3
	x, y = x*23+y>>11, y^x<<4
	x, y = x*25+y>>12, y^x<<5
	x, y = x*27+y>>13, y^x<<6
	x, y = x*29+y>>1, y^x<<7
	x, y = x*31+y>>2, y^x<<1
	x, y = x*33+y>>3, y^x<<2
	x, y = x*35+y>>4, y^x<<3
	x, y = x*37+y>>5, y^x<<4
	x, y = x*39+y>>6, y^x<<5
	x, y = x*41+y>>7, y^x<<6
	x, y = x*43+y>>8, y^x<<7
	x, y = x*45+y>>9, y^x<<1
	x, y = x*47+y>>10, y^x<<2
	x, y = x*49+y>>11, y^x<<3
	x, y = x*51+y>>12, y^x<<4
	x, y = x*53+y>>13, y^x<<5
	x, y = x*55+y>>1, y^x<<6
	x, y = x*57+y>>2, y^x<<7
	x, y = x*59+y>>3, y^x<<1
	x, y = x*61+y>>4, y^x<<2
	x, y = x*63+y>>5, y^x<<3
	x, y = x*65+y>>6, y^x<<4
	x, y = x*67+y>>7, y^x<<5
	x, y = x*69+y>>8, y^x<<6
	x, y = x*71+y>>9, y^x<<7
	x, y = x*73+y>>10, y^x<<1
	return x + y + q + r
}

func div32(x, y uint64) uint64 {
	q, r := bits.Div32(0, uint32(x), uint32(y|1))
	x, y = x*5+y>>1, y^x<<1
	x, y = x*7+y>>2, y^x<<2
	x, y = x*9+y>>3, y^x<<3
	x, y = x*11+y>>4, y^x<<4
	x, y = x*13+y>>5, y^x<<5
	x, y = x*15+y>>6, y^x<<6
	x, y = x*17+y>>7, y^x<<7
	x, y = x*19+y>>8, y^x<<1
	x, y = x*21+y>>9, y^x<<2
	x, y = x*23+y>>10, y^x<<3
	x, y = x*25+y>>11, y^x<<4
	x, y = x*27+y>>12, y^x<<5
	x, y = x*29+y>>13, y^x<<6
	x, y = x*31+y>>1, y^x<<7
	x, y = x*33+y>>2, y^x<<1
	x, y = x*35+y>>3, y^x<<2
	x, y = x*37+y>>4, y^x<<3
	x, y = x*39+y>>5, y^x<<4
	x, y = x*41+y>>6, y^x<<5
	x, y = x*43+y>>7, y^x<<6
	x, y = x*45+y>>8, y^x<<7
	x, y = x*47+y>>9, y^x<<1
	x, y = x*49+y>>10, y^x<<2
	x, y = x*51+y>>11, y^x<<3
	x, y = x*53+y>>12, y^x<<4
	x, y = x*55+y>>13, y^x<<5
	x, y = x*57+y>>1, y^x<<6
	x, y = x*59+y>>2, y^x<<7
	x, y = x*61+y>>3, y^x<<1
	x, y = x*63+y>>4, y^x<<2
	x, y = x*65+y>>5, y^x<<3
	x, y = x*67+y>>6, y^x<<4
	x, y = x*69+y>>7, y^x<<5
	x, y = x*71+y>>8, y^x<<6
	x, y = x*73+y>>9, y^x<<7
	x, y = x*75+y>>10, y^x<<1
	return x + y + uint64(q) + uint64(r)
}

func plain(x, y uint64) uint64 {
	x, y = x*7+y>>1, y^x<<1
	x, y = x*9+y>>2, y^x<<2
	x, y = x*11+y>>3, y^x<<3
	x, y = x*13+y>>4, y^x<<4
	x, y = x*15+y>>5, y^x<<5
	x, y = x*17+y>>6, y^x<<6
	x, y = x*19+y>>7, y^x<<7
	x, y = x*21+y>>8, y^x<<1
	x, y = x*23+y>>9, y^x<<2
	x, y = x*25+y>>10, y^x<<3
	x, y = x*27+y>>11, y^x<<4
	x, y = x*29+y>>12, y^x<<5
	x, y = x*31+y>>13, y^x<<6
	x, y = x*33+y>>1, y^x<<7
	x, y = x*35+y>>2, y^x<<1
	x, y = x*37+y>>3, y^x<<2
	x, y = x*39+y>>4, y^x<<3
	x, y = x*41+y>>5, y^x<<4
	x, y = x*43+y>>6, y^x<<5
	x, y = x*45+y>>7, y^x<<6
	x, y = x*47+y>>8, y^x<<7
	x, y = x*49+y>>9, y^x<<1
	x, y = x*51+y>>10, y^x<<2
	x, y = x*53+y>>11, y^x<<3
	x, y = x*55+y>>12, y^x<<4
	x, y = x*57+y>>13, y^x<<5
	x, y = x*59+y>>1, y^x<<6
	x, y = x*61+y>>2, y^x<<7
	x, y = x*63+y>>3, y^x<<1
	x, y = x*65+y>>4, y^x<<2
	x, y = x*67+y>>5, y^x<<3
	x, y = x*69+y>>6, y^x<<4
	x, y = x*71+y>>7, y^x<<5
	x, y = x*73+y>>8, y^x<<6
	x, y = x*75+y>>9, y^x<<7
	x, y = x*77+y>>10, y^x<<1
	return x + y
}
