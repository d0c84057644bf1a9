// Command etcd is the etcd server, built from the Go module proxy for the
// test control plane (see hack/tools/install.sh). It is etcd's own entry
// point, so it takes etcd's usual flags.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
