package embedding

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// foldScratch is the reusable memory of fold.
type foldScratch struct {
	tmp    []feature
	bounds []int32
	tf     [64]float64 // 1 + ln n by n, filled on first use (1 + ln n > 0)
}

// smallBucket is the largest bucket fold sorts by insertion; a larger one
// (many features sharing their top bits: repeats of one feature, or
// hashes chosen to collide) goes to pdqsort, so that no text costs more
// than n log n.
const smallBucket = 24

// fold returns the distinct features of fs in increasing hash order, each
// weighted by its sublinear term frequency (1 + ln tf) times the largest
// weight it occurs with. The order is the one sorting fs by hash gives,
// which the callers' floating-point sums depend on, but it is reached in
// expected linear time: the hashes are uniform (mix's output), so spreading
// them over about len(fs)/2 buckets by their top bits leaves a few in each
// bucket to sort by insertion. The result aliases sc's memory.
func fold(fs []feature, sc *foldScratch) []feature {
	n := len(fs)
	if cap(sc.tmp) < n {
		sc.tmp = make([]feature, n)
	}
	tmp := sc.tmp[:n]
	if n <= smallBucket {
		copy(tmp, fs)
		insertionSort(tmp)
		return sc.foldRuns(tmp, tmp[:0])
	}
	b := min(bits.Len(uint(n-1))-1, 16) // n/2 ≤ 2^b < n buckets, at most 65,536
	shift := 64 - b
	nb := 1 << b
	if cap(sc.bounds) < nb+1 {
		sc.bounds = make([]int32, nb+1)
	}
	bounds := sc.bounds[:nb+1]
	clear(bounds)
	for _, f := range fs {
		bounds[f.hash>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		bounds[i] += bounds[i-1]
	}
	// bounds[k] is where bucket k starts; filling moves it to where the
	// bucket ends, which is where bucket k+1 starts.
	for _, f := range fs {
		k := f.hash >> shift
		tmp[bounds[k]] = f
		bounds[k]++
	}
	// Equal hashes share a bucket: each is folded on its own, in order,
	// into the front of tmp (never past its own start).
	out := tmp[:0]
	start := int32(0)
	for _, end := range bounds[:nb] {
		switch bucket := tmp[start:end]; {
		case len(bucket) == 1:
			out = append(out, sc.weight(bucket[0]))
		case len(bucket) > smallBucket:
			slices.SortFunc(bucket, func(a, b feature) int { return cmp.Compare(a.hash, b.hash) })
			out = sc.foldRuns(bucket, out)
		case len(bucket) > 1:
			insertionSort(bucket)
			out = sc.foldRuns(bucket, out)
		}
		start = end
	}
	return out
}

// foldRuns appends each run of equal hashes of the sorted fs to out as one
// feature; out may share fs's memory up to fs's start.
func (sc *foldScratch) foldRuns(fs, out []feature) []feature {
	for i := 0; i < len(fs); {
		f := fs[i]
		j := i + 1
		for ; j < len(fs) && fs[j].hash == f.hash; j++ {
			f.w = max(f.w, fs[j].w)
			f.n += fs[j].n
		}
		out = append(out, sc.weight(f))
		i = j
	}
	return out
}

// weight weights a feature seen f.n times: 1 + ln tf times its weight
// (the multiplication by 1 + ln 1 = 1 skipped).
func (sc *foldScratch) weight(f feature) feature {
	if f.n > 1 {
		if f.n < len(sc.tf) {
			if sc.tf[f.n] == 0 {
				sc.tf[f.n] = 1 + math.Log(float64(f.n))
			}
			f.w *= sc.tf[f.n]
		} else {
			f.w *= 1 + math.Log(float64(f.n))
		}
	}
	f.n = 1
	return f
}

func insertionSort(fs []feature) {
	for i := 1; i < len(fs); i++ {
		f := fs[i]
		j := i
		for j > 0 && fs[j-1].hash > f.hash {
			fs[j] = fs[j-1]
			j--
		}
		fs[j] = f
	}
}
