//go:build !unix

package rt

func cpuTime() int64 { return 0 }
