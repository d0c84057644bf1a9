package schema

import (
	"strings"
	"unicode/utf8"
)

// Suggest returns the name among known that key most likely misspells, or
// "" when none is close: the same name in another case or with "_" or "-"
// (replica_specs, tf_port), else the nearest by edit distance (adjacent
// swaps count once) when it is within a quarter of the key's length.
func Suggest(key string, known []string) string {
	nk, lk, n := normalize(key), strings.ToLower(key), utf8.RuneCountInString(key)
	limit := max(1, min(3, len(key)/4))
	best, bestD := "", -1
	for _, k := range known {
		if normalize(k) == nk {
			return k
		}
		if abs(n-utf8.RuneCountInString(k)) > limit {
			continue // the distance is at least the difference in length
		}
		d := distance(lk, strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > limit || bestD >= len(key) {
		return ""
	}
	return best
}

func normalize(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// distance is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and swaps of adjacent characters.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
