// Command coredns is the cluster DNS of the test cluster (see test/cluster),
// built from the Go module proxy by hack/tools/install.sh. It is CoreDNS's
// own entry point with only the plugins the test cluster's Corefile uses,
// which keeps the build to a fraction of CoreDNS's full plugin set.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

// In CoreDNS's own order (plugin.cfg): a query passes them top to bottom.
func init() {
	dnsserver.Directives = []string{"bind", "ready", "errors", "kubernetes"}
}

func main() { coremain.Run() }
