// Builds the etcd server for the test control plane. Not part of tfgen.
module github.com/tfgen/tfgen/hack/tools/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 v3.7.3
