package record

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// IndexSet is a set of replica indices, kept and written as sorted runs:
// "0-3,5". Its size grows with the number of runs, not of indices. The
// zero value is empty.
type IndexSet struct {
	runs []run // sorted, disjoint, not adjacent
}

type run struct{ lo, hi int32 }

// find returns the first run whose hi >= i.
func (s *IndexSet) find(i int32) int {
	return sort.Search(len(s.runs), func(k int) bool { return s.runs[k].hi >= i })
}

// Has reports whether i is in the set.
func (s *IndexSet) Has(i int32) bool {
	if s == nil {
		return false
	}
	k := s.find(i)
	return k < len(s.runs) && s.runs[k].lo <= i
}

// Add adds i, and reports whether it was new.
func (s *IndexSet) Add(i int32) bool {
	if s.Has(i) {
		return false
	}
	k := s.find(i)
	joinPrev := k > 0 && s.runs[k-1].hi == i-1
	joinNext := k < len(s.runs) && s.runs[k].lo == i+1
	switch {
	case joinPrev && joinNext:
		s.runs[k-1].hi = s.runs[k].hi
		s.runs = append(s.runs[:k], s.runs[k+1:]...)
	case joinPrev:
		s.runs[k-1].hi = i
	case joinNext:
		s.runs[k].lo = i
	default:
		s.runs = append(s.runs, run{})
		copy(s.runs[k+1:], s.runs[k:])
		s.runs[k] = run{i, i}
	}
	return true
}

// Count returns how many indices of [0, n) are in the set.
func (s *IndexSet) Count(n int32) int32 {
	if s == nil {
		return 0
	}
	var c int32
	for _, r := range s.runs {
		if r.lo >= n {
			break
		}
		c += min(r.hi, n-1) - r.lo + 1
	}
	return c
}

// String writes the set as runs, "0-3,5" ("" when empty).
func (s *IndexSet) String() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	for k, r := range s.runs {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(r.lo)))
		if r.hi > r.lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(int(r.hi)))
		}
	}
	return b.String()
}

// ParseIndexSet reads "0-3,5".
func ParseIndexSet(v string) (*IndexSet, error) {
	s := &IndexSet{}
	for _, f := range strings.Split(v, ",") {
		if f == "" {
			continue
		}
		lo, hi, isRun := strings.Cut(f, "-")
		a, err1 := strconv.ParseInt(lo, 10, 32)
		b, err2 := a, error(nil)
		if isRun {
			b, err2 = strconv.ParseInt(hi, 10, 32)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("index set %q: want runs such as 0-3,5", v)
		}
		if n := len(s.runs); n > 0 && int32(a) <= s.runs[n-1].hi+1 {
			return nil, fmt.Errorf("index set %q: runs must be sorted and apart", v)
		}
		s.runs = append(s.runs, run{int32(a), int32(b)})
	}
	return s, nil
}

// MarshalJSON implements json.Marshaler.
func (s *IndexSet) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON implements json.Unmarshaler.
func (s *IndexSet) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	p, err := ParseIndexSet(v)
	if err != nil {
		return err
	}
	*s = *p
	return nil
}
