package testlong

import "testing"

func TestEnabled(t *testing.T) {
	for value, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true} {
		t.Setenv(Variable, value)
		if got := Enabled(); got != want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Variable, value, got, want)
		}
		if got := Pick(1, 2); got != map[bool]int{false: 1, true: 2}[want] {
			t.Errorf("%s=%q: Pick(1, 2) = %d", Variable, value, got)
		}
	}
}
