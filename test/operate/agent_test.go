package operate

import (
	"sync"

	"github.com/tfgen/tfgen/test/nodeagent"
)

// agent is the package's node agent, started by the first test that
// needs it.
var agent struct {
	once sync.Once
	a    *nodeagent.Agent
	err  error
}

// stopAgent stops the node agent if it was started.
func stopAgent() {
	if agent.a != nil {
		agent.a.Stop()
	}
}
