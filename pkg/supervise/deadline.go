package supervise

import (
	"fmt"
	"time"

	"github.com/tfgen/tfgen/pkg/record"
)

// checkDeadline fails the job once its active deadline, counted from its
// recorded start, has passed, and otherwise asks to be woken then.
func (j *Job) checkDeadline(n *record.Status, now time.Time, ch *change) {
	if j.ActiveDeadline <= 0 || n.StartTime == nil {
		return
	}
	at := n.StartTime.Add(j.ActiveDeadline)
	if now.Before(at) {
		ch.wakeBy(at)
		return
	}
	note := fmt.Sprintf("the job ran past its active deadline of %v", j.ActiveDeadline)
	ch.events = append(ch.events, Event{Type: "Warning", Reason: ReasonDeadlineExceeded, Action: "Fail", Note: note})
	j.fail(n, ReasonDeadlineExceeded, note, now, ch)
}

// pastDeadline reports whether ended job n failed at its active deadline.
func pastDeadline(n *record.Status) bool {
	c := n.Condition(record.JobFailed)
	return c != nil && c.Status == record.ConditionTrue && c.Reason == ReasonDeadlineExceeded
}
