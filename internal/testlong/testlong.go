// Package testlong is the one switch for the project's long tests: those
// that compile every module with hipcc or ptxas, run thousands of random
// programs, or otherwise take minutes. Plain `go test ./...` runs a
// representative part of each and stays within a few minutes on a small
// machine; QD_LONG=1 runs everything, as CI does (.ci/run).
//
// The switch is an environment variable rather than a -long flag because
// `go test ./... -long` would fail in every package whose test binary does
// not define the flag.
package testlong

import (
	"os"
	"testing"
)

// Variable is the environment variable that turns the long tests on.
const Variable = "QD_LONG"

// Enabled reports whether the long tests run: QD_LONG is set to anything
// but "", "0" or "false".
func Enabled() bool {
	switch os.Getenv(Variable) {
	case "", "0", "false":
		return false
	}
	return true
}

// Skip skips t unless the long tests run, saying what it leaves out and
// how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("%s: a long test; QD_LONG=1 runs it", what)
	}
}

// Pick returns long when the long tests run, short otherwise: the size of
// a test's workload.
func Pick[T any](short, long T) T {
	if Enabled() {
		return long
	}
	return short
}
