package job

import (
	"fmt"
	"math"
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
