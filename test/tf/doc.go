// Package tf runs real TensorFlow (and MXNet) jobs: the examples
// examples/tf-*.yaml and examples/mxjob-dist-sync.yaml under `tfgen run`,
// and the parameter-server job through the whole cluster path (render,
// apply to a real control plane, pods run by the node agent, status,
// teardown). The training scripts write each task's result (its losses,
// which workers took part) to RESULTS_DIR, and the tests check that real
// training happened as well as how the job ended.
//
// The frameworks come from make tf: $TFGEN_TF_VENV and $TFGEN_MXNET_VENV
// are the virtualenvs (make e2e sets them). Without them the tests fail;
// they never skip.
package tf
