package job

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// MaxSeconds is the longest duration tfsupervisor's flags hold, in seconds:
// a Go time.Duration (int64 nanoseconds), about 292 years. It bounds the
// job's durations in seconds (activeDeadlineSeconds, a pod template's
// terminationGracePeriodSeconds).
const MaxSeconds = math.MaxInt64 / int64(time.Second)

// MaxDuration is MaxSeconds as tfsupervisor's duration flags spell it.
const MaxDuration = time.Duration(math.MaxInt64)

// Problems of a duration in seconds, as validation reports them.
var (
	SecondsTooLong     = fmt.Sprintf("must be at most %d (about 292 years, the longest duration tfsupervisor holds)", MaxSeconds)
	SecondsNotPositive = "must be greater than 0"
	SecondsNegative    = "must be greater than or equal to 0"
)

// durationSyntax is what time.ParseDuration reads when the value fits.
var durationSyntax = regexp.MustCompile(`^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`)

// CheckDuration returns the problem of v as a duration tfsupervisor takes
// as a flag (--evaluator-grace): "" for one of 0 or more that fits in
// MaxDuration.
func CheckDuration(v string) string {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil && durationSyntax.MatchString(v) && !strings.HasPrefix(v, "-"):
		return fmt.Sprintf("must be at most %dh (about 292 years, the longest duration tfsupervisor holds)", MaxDuration/time.Hour)
	case err != nil || d < 0:
		return "must be a duration of 0 or more, such as 10m or 90s"
	}
	return ""
}
