package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/tfgen/tfgen/test/harness"
)

// dryRunWorkers is how many creates are in flight at once: enough to
// keep the API server busy on two cores.
const dryRunWorkers = 8

// refusal is an object the API server refused, or accepted without some
// of its fields as sent (changes).
type refusal struct {
	src     source
	obj     harness.Object
	err     error
	changes []harness.FieldChange
	json    string
}

func (r *refusal) Error() string {
	if r.err != nil {
		return fmt.Sprintf("the API server refused %s: %v\nIt came from %s\nThe object:\n%s", harness.Describe(r.obj), r.err, r.src, r.json)
	}
	var b strings.Builder
	for _, c := range r.changes {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	return fmt.Sprintf("the API server accepted %s but would not store it as sent:\n%sIt came from %s\nThe object:\n%s", harness.Describe(r.obj), b.String(), r.src, r.json)
}

// send creates every object of batches once (an object equal to one
// already sent is skipped), dryRunWorkers at a time, compares what the
// server would store with what was sent (harness.Unkept), and returns
// how many it sent and the first refusal or change; with all, it goes on
// and returns every one.
func send(ctx context.Context, d *harness.DryRunner, batches []batch, all bool) (int, []*refusal, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type item struct {
		src source
		obj harness.Object
	}
	items := make(chan item)
	var (
		mu      sync.Mutex
		refused []*refusal
		wg      sync.WaitGroup
	)
	for range dryRunWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				got, err := d.Create(ctx, it.obj)
				var changes []harness.FieldChange
				if err == nil {
					changes = harness.Unkept(it.obj, got)
				}
				if (err != nil && ctx.Err() == nil) || len(changes) > 0 {
					b, _ := json.MarshalIndent(it.obj, "", "  ")
					mu.Lock()
					refused = append(refused, &refusal{src: it.src, obj: it.obj, err: err, changes: changes, json: string(b)})
					mu.Unlock()
					if !all {
						cancel()
					}
				}
			}
		}()
	}
	seen := map[string]bool{}
	sent := 0
feed:
	for _, b := range batches {
		for _, o := range b.objs {
			d.Relocate(o)
			key := shape(o, b.src.jobName)
			if seen[key] {
				continue
			}
			seen[key] = true
			select {
			case items <- item{b.src, o}:
				sent++
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(items)
	wg.Wait()
	if len(refused) > 0 {
		return sent, refused, nil
	}
	return sent, nil, context.Cause(ctx)
}

// shape is o as JSON with the digits of its job's name (job-123,
// a000123) made zeros wherever the name appears: two generated jobs'
// objects that differ only there are checked alike by the API server (a
// name's length and characters are what it checks), so one of them is
// sent.
func shape(o harness.Object, job string) string {
	b, _ := json.Marshal(o)
	if job == "" {
		return string(b)
	}
	zeroed := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0'
		}
		return r
	}, job)
	return strings.ReplaceAll(string(b), job, zeroed)
}
