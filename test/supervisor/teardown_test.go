package supervisor

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfgen/tfgen/pkg/record"
)

// TestTeardownByCleanPodPolicy: the chief succeeds and the job's other
// StatefulSets go to zero through the scale subresource, by policy.
func TestTeardownByCleanPodPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   map[string]int32
	}{
		{"Running", map[string]int32{"chief": 0, "ps": 0, "worker": 0}},
		{"All", map[string]int32{"chief": 0, "ps": 0, "worker": 0}},
		{"None", map[string]int32{"chief": 1, "ps": 2, "worker": 2}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			j := newJob(t, "chief:1:2222,ps:2:2222,worker:2:2222", map[string]int32{"chief": 1, "ps": 2, "worker": 2})
			j.pod("j-chief-0")
			j.keeper("--clean-pod-policy", tc.policy)
			p := start(t, j.supervisor("j-chief-0", j.cp.Kubeconfig(), "run", "--clean-pod-policy", tc.policy, "--", "true"))
			if s := j.WaitStatus("the job to end", (*record.Status).Ended); !s.IsTrue(record.JobSucceeded) || s.CompletionTime == nil {
				t.Errorf("status %+v: want Succeeded with a completion time", s)
			}
			j.WaitReplicas(tc.want)
			if code := p.stop(); code != 0 {
				t.Fatalf("exit code %d\n%s", code, p.out)
			}
			if diff := cmp.Diff(tc.want, j.Replicas()); diff != "" {
				t.Errorf("replicas (-want +got):\n%s", diff)
			}
			reasons := strings.Join(j.EventReasons(j.keeperName("0")), ",")
			for _, want := range []string{"JobSucceeded"} {
				if !strings.Contains(reasons, want) {
					t.Errorf("events %s: no %s", reasons, want)
				}
			}
		})
	}
}

// proxy forwards TCP connections to target while up; while down it
// refuses them (accepts and closes at once) and cuts the open ones.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.set(false) })
	go p.serve()
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up := p.up
		if up {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		go func() {
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			io.Copy(c, s)
			c.Close()
		}()
	}
}

func (p *proxy) set(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = up
	if !up {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}
