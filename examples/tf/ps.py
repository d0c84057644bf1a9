"""ParameterServerStrategy: the chief is the coordinator and schedules
training steps with ClusterCoordinator onto the workers; the variables live
on the parameter servers. Workers and parameter servers only run a
TensorFlow server (tf.distribute.Server) and wait for ever: the job ends
when the chief does, and its clean-pod policy stops them.

A linear regression on synthetic data, as in mwms.py, as a custom training
loop with ClusterCoordinator (TensorFlow's parameter-server training guide
has this form too). Each step returns which worker ran it.
"""

import argparse
import collections

import tfjob

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--steps", type=int, default=20, help="steps per epoch")
parser.add_argument("--batch", type=int, default=32, help="batch size of each step")
args = parser.parse_args()

import tensorflow as tf  # noqa: E402

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
task_type, task_index = tfjob.task()

if task_type in ("worker", "ps"):
    print("%s: serving" % tfjob.task_name(), flush=True)
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=task_type, task_index=task_index,
                                  protocol=resolver.rpc_layer or "grpc", start=True)
    server.join()

strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
print("%s: coordinating %d workers" % (tfjob.task_name(), len(resolver.cluster_spec().as_dict()["worker"])), flush=True)

with strategy.scope():
    w = tf.Variable(tf.zeros([tfjob.FEATURES, 1]), name="w")
    b = tf.Variable(0.0, name="b")


def dataset_fn():
    x, y = tfjob.synthetic(2048, seed=1)
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2048).repeat().batch(args.batch)


@tf.function
def step(iterator):
    def replica_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.05 * dw)
        b.assign_sub(0.05 * db)
        return loss

    x, y = next(iterator)
    loss = strategy.run(replica_fn, args=(x, y))
    # Which worker ran this step: the test checks that every one did.
    return loss, tf.distribute.coordinator.experimental_get_current_worker_index()


iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))
losses, per_worker = [], collections.Counter()
for epoch in range(args.epochs):
    results = [coordinator.schedule(step, args=(iterator,)) for _ in range(args.steps)]
    coordinator.join()
    fetched = [r.fetch() for r in results]
    per_worker.update("worker-%d" % i for _, i in fetched)
    losses.append(float(sum(loss for loss, _ in fetched) / len(fetched)))
    print("%s: epoch %d: loss %.5f" % (tfjob.task_name(), epoch + 1, losses[-1]), flush=True)

tfjob.write_result({
    "strategy": "ParameterServerStrategy",
    "losses": losses,
    "steps_per_worker": dict(per_worker),
    "variable_devices": sorted({w.device, b.device}),
})
