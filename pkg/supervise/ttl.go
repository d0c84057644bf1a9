package supervise

import (
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// ttlDue returns when the ended job n's TTL after finishing releases
// every replica, and whether it has a TTL.
func (j *Job) ttlDue(n *record.Status) (time.Time, bool) {
	if j.TTLAfterFinished == nil || n.CompletionTime == nil {
		return time.Time{}, false
	}
	return n.CompletionTime.Add(*j.TTLAfterFinished), true
}
