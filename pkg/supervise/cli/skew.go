//go:build !tfsupervisor_wrap

package cli

import (
	"context"
	"strings"
	"time"

	"github.com/tfgen/tfgen/pkg/kube/rest"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// versionTimeout bounds the read of the server's version, which only
// words the refusal.
const versionTimeout = 10 * time.Second

// refuseSkew checks the pod connect read against what its render needs
// (supervise.PodNeeds). When the API server dropped some of it, it
// records the replica refused and returns the error the container ends
// with, its termination message saying why: the pod's status then shows
// it. Started again, the container finds the refusal in its pod's record
// and goes on as a failed replica's supervisor does, never training.
func (o *options) refuseSkew(ctx context.Context, cfg *supervise.Config, d *deps, client *rest.Client, needs supervise.PodNeeds) error {
	if d.pod == nil || supervise.Refused(d.previous) {
		return nil
	}
	needs.Target = o.kubeVersion
	dropped := needs.Dropped(d.pod)
	if len(dropped) == 0 {
		return nil
	}
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	server, err := client.ServerVersion(vctx)
	cancel()
	if err != nil {
		cfg.Logf("%v", err)
	}
	if !needs.Skewed(server) {
		cfg.Logf("the pod lacks %s, though the API server (%s) is not older than its render's target (%s): not a version skew; going on", strings.Join(dropped, " and "), server, needs.Target)
		return nil
	}
	res := supervise.RefuseSkew(ctx, cfg, d.reporter, d.previous, supervise.SkewMessage(cfg.Self, needs.Target, server, dropped))
	if err := writeTermination(o.terminationLog, res); err != nil {
		cfg.Logf("%v", err)
	}
	return &ExitError{Code: 1}
}
