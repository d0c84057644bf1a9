package versions

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tfgen/tfgen/test/harness"
)

// sendWorkers is how many dry-run creates are in flight at once on one
// server.
const sendWorkers = 4

// sent is one object created with dry-run, and what came of it.
type sent struct {
	obj     harness.Object
	err     error                 // the server refused it
	changes []harness.FieldChange // it accepted it, without these fields as sent
}

// send creates every object of objs on s with server-side dry-run and
// compares what the server would store with what was sent.
func (s *server) send(t *testing.T, objs []harness.Object) []sent {
	t.Helper()
	out := make([]sent, len(objs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range sendWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := objs[i]
				s.dry.Relocate(o)
				out[i].obj = o
				got, err := s.dry.Create(t.Context(), o)
				if err != nil {
					out[i].err = err
					continue
				}
				out[i].changes = harness.Unkept(o, got)
			}
		}()
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// checkKept fails t for every object of objs (what `what` rendered for
// s's minor) that s refuses or would not store as sent.
func (s *server) checkKept(t *testing.T, what string, objs []harness.Object) {
	t.Helper()
	if len(objs) == 0 {
		t.Fatalf("%s: no objects", what)
	}
	for _, r := range s.send(t, objs) {
		switch {
		case r.err != nil:
			t.Errorf("Kubernetes %s refused %s of %s: %v\n%s", s.minor, harness.Describe(r.obj), what, r.err, indent(r.obj))
		case len(r.changes) > 0:
			var b strings.Builder
			for _, c := range r.changes {
				fmt.Fprintf(&b, "  %s\n", c)
			}
			t.Errorf("Kubernetes %s accepted %s of %s but would not store it as sent:\n%sThe object:\n%s",
				s.minor, harness.Describe(r.obj), what, b.String(), indent(r.obj))
		}
	}
}

func indent(o harness.Object) string {
	b, _ := json.MarshalIndent(o, "", "  ")
	return string(b)
}
