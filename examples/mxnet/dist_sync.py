"""MXNet data-parallel training with the dist_sync kvstore (ps-lite): the
scheduler and the servers are this same script, which importing mxnet turns
into its role from DMLC_ROLE; each worker trains a linear regression on its
own shard of synthetic data and pushes its gradients to the servers, which
sum them over every worker at each step.

Each worker prints, and writes to RESULTS_DIR/worker-RANK.json when
RESULTS_DIR is set, its losses and what the kvstore said about the job.
"""

import argparse
import json
import os

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--batch", type=int, default=32)
args = parser.parse_args()

# On a scheduler or server, this import runs the role and exits when the
# workers are done.
import mxnet as mx  # noqa: E402
from mxnet import autograd, gluon  # noqa: E402

kv = mx.kv.create("dist_sync")
name = "worker-%d" % kv.rank
print("%s: %d workers" % (name, kv.num_workers), flush=True)

features = 8
w = np.linspace(-1.0, 1.0, features, dtype=np.float32).reshape(features, 1)
rng = np.random.default_rng(1 + kv.rank)  # a shard of its own
x = rng.normal(size=(1024, features)).astype(np.float32)
y = (x @ w + 0.5 + 0.01 * rng.normal(size=(1024, 1))).astype(np.float32)
data = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=args.batch, shuffle=True)

mx.random.seed(1)
net = gluon.nn.Dense(1, in_units=features)
net.initialize(mx.init.Zero())
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05}, kvstore=kv)
l2 = gluon.loss.L2Loss()

losses = []
for epoch in range(args.epochs):
    total, n = 0.0, 0
    for xb, yb in data:
        with autograd.record():
            loss = l2(net(xb), yb)
        loss.backward()
        trainer.step(args.batch * kv.num_workers)
        total += float(loss.mean().asscalar())
        n += 1
    losses.append(total / n)
    print("%s: epoch %d: loss %.5f" % (name, epoch + 1, losses[-1]), flush=True)

result = {"task": name, "kvstore": kv.type, "num_workers": kv.num_workers, "rank": kv.rank, "losses": losses,
          "weight": net.weight.data().asnumpy().ravel().tolist(), "node_host": os.environ.get("DMLC_NODE_HOST")}
print("result: " + json.dumps(result), flush=True)
if os.environ.get("RESULTS_DIR"):
    os.makedirs(os.environ["RESULTS_DIR"], exist_ok=True)
    path = os.path.join(os.environ["RESULTS_DIR"], name + ".json")
    with open(path + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(path + ".tmp", path)
