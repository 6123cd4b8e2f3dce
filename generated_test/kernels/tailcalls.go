package kernels

// GCD calls helpers that call themselves and each other as their last
// act: the calls run as loops.
//
//qd:kernel
func GCD(a, b, out []int64) {
	for i := range out {
		out[i] = gcd(a[i], b[i]) + collatz(a[i]&1023+1, 0)
	}
}

func gcd(a, b int64) int64 {
	if b == 0 {
		return a
	}
	return gcd(b, a%b)
}

// collatz counts the steps of the Collatz sequence from n to 1, through
// two functions that call each other.
func collatz(n, steps int64) int64 {
	if n == 1 {
		return steps
	}
	if n%2 == 0 {
		return collatz(n/2, steps+1)
	}
	return collatzOdd(n, steps)
}

func collatzOdd(n, steps int64) int64 {
	return collatz(3*n+1, steps+1)
}
