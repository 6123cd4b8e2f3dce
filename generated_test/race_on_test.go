//go:build race

package generated_test

// raceEnabled reports whether the test binary runs under the race detector.
const raceEnabled = true
