//go:build unix

package localrun

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/internal/testjob"
	"github.com/tfgen/tfgen/pkg/job"
)

// TestProcessEnv: each process gets its own TF_CONFIG with the cluster on
// localhost, one distinct port per replica, its task entry naming it, and
// its pod's identity.
func TestProcessEnv(t *testing.T) {
	dir := fifos(t, "sync-demo-ps-0", "sync-demo-worker-0", "sync-demo-worker-1")
	record := `printf '%s\n%s\n%s\n' "$TF_CONFIG" "$POD_NAME" "$POD_NAMESPACE" > "$DIR/$POD_NAME.env"; `
	others := record + `echo ok > "$DIR/sync-$POD_NAME"; exec sleep 600`
	j := testjob.New("demo").Namespace("team-a").
		Replica(job.Chief, 1, testjob.Shell(record+`for p in demo-ps-0 demo-worker-0 demo-worker-1; do read x < "$DIR/sync-$p"; done`), dirEnv(dir)).
		Replica(job.PS, 1, testjob.Shell(others), dirEnv(dir)).
		Replica(job.Worker, 5, testjob.Shell(others), dirEnv(dir)).
		Defaulted()
	s, out := run(t, context.Background(), j, PlanOptions{Replicas: map[string]int32{"worker": 2}}, Options{})
	if !s.Succeeded() {
		t.Fatalf("the job did not succeed: %v\n%s", s.Err(), out)
	}
	type tfConfig struct {
		Cluster map[string][]string `json:"cluster"`
		Task    struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
		} `json:"task"`
		Environment string `json:"environment"`
	}
	var cluster map[string][]string
	seen := map[string]bool{}
	for _, r := range s.Replicas {
		b, err := os.ReadFile(filepath.Join(dir, "demo-"+r.Ref.String()+".env"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(strings.TrimSuffix(string(b), "\n"), "\n", 3)
		if len(lines) != 3 {
			t.Fatalf("%s: %q: want TF_CONFIG, POD_NAME and POD_NAMESPACE", r.Ref, b)
		}
		var c tfConfig
		if err := json.Unmarshal([]byte(lines[0]), &c); err != nil {
			t.Fatalf("%s: TF_CONFIG %q: %v", r.Ref, lines[0], err)
		}
		if cluster == nil {
			cluster = c.Cluster
		} else if diff := cmp.Diff(cluster, c.Cluster); diff != "" {
			t.Errorf("%s: another cluster (-first +this):\n%s", r.Ref, diff)
		}
		if c.Task.Type != r.Ref.Type || c.Task.Index != int(r.Ref.Index) || c.Environment != "cloud" {
			t.Errorf("%s: task %+v, environment %q", r.Ref, c.Task, c.Environment)
		}
		if lines[1] != "demo-"+r.Ref.String() || lines[2] != "team-a" {
			t.Errorf("%s: POD_NAME %q, POD_NAMESPACE %q", r.Ref, lines[1], lines[2])
		}
	}
	if len(cluster["chief"]) != 1 || len(cluster["ps"]) != 1 || len(cluster["worker"]) != 2 {
		t.Fatalf("cluster %v: want 1 chief, 1 ps, 2 workers", cluster)
	}
	for _, addrs := range cluster {
		for _, a := range addrs {
			host, port, err := net.SplitHostPort(a)
			if err != nil || host != "localhost" || seen[port] {
				t.Errorf("address %s: want localhost and a port of its own (cluster %v)", a, cluster)
			}
			seen[port] = true
		}
	}
}
