// Package ptxsum computes the sum that keys a module's PTX or source in
// the runtime's module cache. qdgen writes it into each generated module (rtimpl.Image.Sum),
// so that loading a module hashes nothing; the runtime computes it for
// modules written by hand.
package ptxsum

import (
	"crypto/sha256"
	"encoding/hex"
	"unsafe"
)

// Of is the hex SHA-256 of an image's data.
func Of(data string) string {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(data), len(data)))
	return hex.EncodeToString(sum[:])
}
