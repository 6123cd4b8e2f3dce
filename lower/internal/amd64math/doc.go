// Package amd64math holds, in Go, the algorithms of the functions of
// package math that Go implements in amd64 assembly with results of their
// own: Exp, Log and Hypot. Kernels call math.Exp and compile Go's source of
// package math, except where that source calls its assembly (archExp,
// archLog, archHypot); package lower compiles these functions there
// instead, so that the GPU computes what Go computes on amd64.
//
// Each function follows its assembly instruction by instruction, and its
// tests compare it with package math bit for bit on amd64. Exp takes the
// path Go takes on CPUs with FMA (useFMA in math/exp_amd64.go), which every
// x86-64 CPU of the last decade has.
//
// Package lower reads these files as source (go:embed) and builds them into
// the program it lowers, against that program's package math.
package amd64math
