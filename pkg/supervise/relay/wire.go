// Package relay carries a wrap-mode replica's supervision between its two
// containers, so that the job's API credentials stay out of the training
// container: `tfsupervisor run`, inside the training container, does the
// process work and sends each report over a Unix socket on a volume the
// pod shares; `tfsupervisor watch --socket`, a native sidecar that alone
// holds the job's token, publishes them on its own pod and sends back the
// job's status as it changes.
//
// The protocol is one JSON object per line, either way. The server speaks
// first: a hello with the replica's record as it knows it (its pod's
// annotations, then the latest report), then the job's status at once and
// after each change. The client sends reports and flush requests; the
// server answers each flush once everything before it was delivered.
package relay

import (
	"github.com/tfgen/tfgen/pkg/record"
	"github.com/tfgen/tfgen/pkg/supervise"
)

// message is one line on the socket.
type message struct {
	// From the server.
	Hello   *hello         `json:"hello,omitempty"`
	Status  *record.Status `json:"status,omitempty"`
	Flushed uint64         `json:"flushed,omitempty"`
	// From the client.
	Report *supervise.Report `json:"report,omitempty"`
	Flush  uint64            `json:"flush,omitempty"`
}

// hello opens a connection.
type hello struct {
	// Previous is the replica's record as the server knows it; nil when
	// the replica has none yet.
	Previous *record.Replica `json:"previous,omitempty"`
}

// maxLine bounds one line: a job's status with its bounded lists, or a
// report, is far smaller.
const maxLine = 4 << 20

// lineBuffer is where reading a line starts: a report or a small job's
// status fits; a longer line grows the buffer, up to maxLine. Each
// connection holds it on both sides for its whole life.
const lineBuffer = 4 << 10
