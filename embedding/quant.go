package embedding

import "math"

// Quantize encodes a vector as one signed byte per dimension, scaled so
// that its largest component is ±127: a quarter of float32's size, and
// cosines within about 0.01 of the exact ones (a stored vector is only
// ever compared by angle, so its length need not survive).
func Quantize(v []float32) []byte {
	var m float32
	for _, x := range v {
		m = max(m, abs32(x))
	}
	out := make([]byte, len(v))
	if m == 0 {
		return out
	}
	s := 127 / m
	for i, x := range v {
		out[i] = byte(int8(round32(x * s)))
	}
	return out
}

// round32 rounds a float32 to the nearest integer, halves away from zero,
// as math.Round does, without its bit manipulation: for a float32 of at
// most 2^24, adding one half in float64 is exact (or, below 2^-30, can
// only stay below 1), so truncating the sum rounds.
func round32(x float32) int64 {
	f := float64(x)
	if f < 0 {
		return -int64(-f + 0.5)
	}
	return int64(f + 0.5)
}

// Dequantize decodes what Quantize encoded into dst (reused when large
// enough) as a unit vector, or the zero vector.
func Dequantize(dst []float32, b []byte) []float32 {
	if cap(dst) < len(b) {
		dst = make([]float32, len(b))
	}
	dst = dst[:len(b)]
	var sum float64
	for i, x := range b {
		f := float32(int8(x))
		dst[i] = f
		sum += float64(f * f)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range dst {
			dst[i] *= inv
		}
	}
	return dst
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
