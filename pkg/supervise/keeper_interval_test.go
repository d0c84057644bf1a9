package supervise

import (
	"testing"
	"time"

	"github.com/tfgen/tfgen/pkg/cluster"
)

// TestWriteIntervalGrowsWithTheJob: each write of the status is an event
// for every replica's watch, so a job of more than StatusFanOut replicas
// writes what decides nothing less often, in proportion; a set interval
// stands.
func TestWriteIntervalGrowsWithTheJob(t *testing.T) {
	for _, tt := range []struct {
		roles string
		set   time.Duration
		want  time.Duration
	}{
		{"worker:1:1", 0, DefaultWriteInterval},
		{"chief:1:1,worker:199:1", 0, DefaultWriteInterval},
		{"ps:2:1,worker:498:1", 0, 2500 * time.Millisecond},
		{"ps:2:1,worker:998:1", 0, 5 * time.Second},
		{"ps:2:1,worker:998:1", -1, -1},
		{"ps:2:1,worker:998:1", time.Second, time.Second},
	} {
		roles, err := cluster.ParseRoles(tt.roles)
		if err != nil {
			t.Fatal(err)
		}
		k := &Keeper{Job: &Job{Name: "j", Layout: &cluster.Layout{Job: "j", Roles: roles}}, WriteInterval: tt.set}
		if got := k.interval(); got != tt.want {
			t.Errorf("%s, WriteInterval %v: interval %v, want %v", tt.roles, tt.set, got, tt.want)
		}
	}
}
