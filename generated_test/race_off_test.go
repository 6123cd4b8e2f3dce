//go:build !race

package generated_test

const raceEnabled = false
