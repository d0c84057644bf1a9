package supervise

import (
	"fmt"
	"strconv"
	"strings"
)

// Quota is how many workers must succeed for the job to succeed
// (successWorkers): a count, or a percentage of the job's workers.
type Quota struct {
	// N is the count, or the percentage when Percent.
	N int32
	// Percent says N is a percentage (1-100).
	Percent bool
}

// ParseQuota reads a count ("3", at least 1) or a percentage ("50%",
// 1-100%).
func ParseQuota(s string) (Quota, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	n, err := strconv.ParseInt(num, 10, 32)
	switch {
	case err != nil || n < 1:
		return Quota{}, fmt.Errorf("success workers %q: want a count of 1 or more, or a percentage such as 50%%", s)
	case pct && n > 100:
		return Quota{}, fmt.Errorf("success workers %q: a percentage is at most 100%%", s)
	}
	return Quota{N: int32(n), Percent: pct}, nil
}

func (q Quota) String() string {
	if q.Percent {
		return strconv.Itoa(int(q.N)) + "%"
	}
	return strconv.Itoa(int(q.N))
}

// Of returns how many of total workers must succeed: the percentage
// rounded up, or the count (at most total, the job may have been scaled
// down since).
func (q Quota) Of(total int32) int32 {
	if q.Percent {
		return int32((int64(q.N)*int64(total) + 99) / 100)
	}
	return min(q.N, total)
}
