"""Helpers the example training scripts share: who this process is (from
TF_CONFIG), the synthetic data, where a run keeps its files, and the
per-task result a test reads."""

import hashlib
import json
import os
import tempfile

import numpy as np

FEATURES = 8


def tf_config():
    """TF_CONFIG as a dict ({} when unset: a job with a single replica)."""
    return json.loads(os.environ.get("TF_CONFIG") or "{}")


def task():
    """This process's task type and index."""
    t = tf_config().get("task", {})
    return t.get("type", "worker"), int(t.get("index", 0))


def task_name():
    """worker-1, chief-0..."""
    return "%s-%d" % task()


def run_dir():
    """The directory every task of this run shares: MODEL_DIR, else one
    under the temporary directory named by the job and the cluster's
    addresses. tfgen run gives each run fresh ports, kept across restarts,
    so a run never picks up another run's checkpoints but a restarted task
    finds its own."""
    d = os.environ.get("MODEL_DIR")
    if not d:
        cluster = json.dumps(tf_config().get("cluster", {}), sort_keys=True)
        job = os.environ.get("POD_NAME", "job").rsplit("-", 2)[0]
        d = os.path.join(tempfile.gettempdir(), "tfgen-%s-%s" % (job, hashlib.sha256(cluster.encode()).hexdigest()[:12]))
    os.makedirs(d, exist_ok=True)
    return d


def synthetic(n, seed):
    """n examples of y = x.w + 0.5 + noise, w fixed: a linear regression a
    dense layer learns in a few epochs."""
    w = np.linspace(-1.0, 1.0, FEATURES, dtype=np.float32).reshape(FEATURES, 1)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, FEATURES)).astype(np.float32)
    y = (x @ w + 0.5 + 0.01 * rng.normal(size=(n, 1))).astype(np.float32)
    return x, y


def count_start():
    """Counts the starts of this task in the run directory and returns the
    count (1 at the first start)."""
    path = os.path.join(run_dir(), "starts-%s" % task_name())
    with open(path, "a") as f:
        f.write("%d\n" % os.getpid())
    with open(path) as f:
        return len(f.read().split())


def write_result(result):
    """Prints this task's result and, when RESULTS_DIR is set, writes it to
    RESULTS_DIR/TASK.json (atomically: a reader never sees half of it)."""
    result = dict(result, task=task_name(), pid=os.getpid())
    print("result: " + json.dumps(result), flush=True)
    d = os.environ.get("RESULTS_DIR")
    if d:
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, task_name() + ".json")
        with open(path + ".tmp", "w") as f:
            json.dump(result, f)
        os.replace(path + ".tmp", path)
