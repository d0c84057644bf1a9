"""Keras fit under MultiWorkerMirroredStrategy (ring all-reduce over gRPC,
as on CPUs), on synthetic data: every worker, and the chief when there is
one, trains the same model on its shard of each batch.

  --checkpoints   the chief writes the weights after each epoch to
                  RUN_DIR/checkpoints/ckpt-EPOCH, for an evaluator (evaluate.py)
  --backup        Keras BackupAndRestore: a restarted task resumes from the
                  last epoch it finished
  --tensorboard   Keras' TensorBoard callback writes event files to
                  RUN_DIR/tensorboard (it needs the tensorboard package)
  --kill-at-epoch N
                  fault injection: after epoch N, this task kills itself with
                  SIGKILL (exit code 137), at its first start only

A task whose peer dies or restarts exits with code 143, for a restart.
"""

import argparse
import os
import signal
import sys

import tfjob

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--steps", type=int, default=20, help="steps per epoch")
parser.add_argument("--batch", type=int, default=64, help="global batch size")
parser.add_argument("--checkpoints", action="store_true")
parser.add_argument("--backup", action="store_true")
parser.add_argument("--tensorboard", action="store_true")
parser.add_argument("--kill-at-epoch", type=int, default=0)
parser.add_argument("--kill-task", default="worker-1", help="the task --kill-at-epoch kills")
args = parser.parse_args()

RESTART_EXIT_CODE = 143

import tensorflow as tf  # noqa: E402

# The strategy comes first: it starts this task's gRPC server, and
# TensorFlow must not have run anything before.
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    communication_options=tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING))

# tf_keras is Keras 2, which TensorFlow's multi-worker guides use: Keras 3
# (TensorFlow's default since 2.16) cannot fit under this strategy
# (keras-team/keras#20585).
import tf_keras as keras  # noqa: E402

starts = tfjob.count_start()
name = tfjob.task_name()
print("%s: start %d, %d replicas in sync" % (name, starts, strategy.num_replicas_in_sync), flush=True)

x, y = tfjob.synthetic(2048, seed=1)
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2048, seed=1).repeat().batch(args.batch).with_options(options)

with strategy.scope():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((tfjob.FEATURES,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse")

run_dir = tfjob.run_dir()


class KillOnce(keras.callbacks.Callback):
    """Kills this process after an epoch, at its first start only."""

    def on_epoch_end(self, epoch, logs=None):
        if epoch + 1 == args.kill_at_epoch and starts == 1 and name == args.kill_task:
            print("%s: killing myself after epoch %d" % (name, epoch + 1), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)


class Epochs(keras.callbacks.Callback):
    """Records the epochs this start ran, numbered from 1."""

    def __init__(self):
        super().__init__()
        self.epochs = []

    def on_epoch_begin(self, epoch, logs=None):
        self.epochs.append(epoch + 1)


epochs = Epochs()
callbacks = [epochs]
if args.backup:
    # Every task names the same directory; only the chief's backup is kept.
    callbacks.append(keras.callbacks.BackupAndRestore(os.path.join(run_dir, "backup")))
if args.checkpoints:
    # The chief's go to checkpoints/ckpt-EPOCH, the others' to temporary
    # directories; evaluate.py stops after ckpt-EPOCHS.
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "checkpoints", "ckpt-{epoch}"), save_weights_only=True))
if args.tensorboard:
    # The chief (worker 0 here) writes to tensorboard/train; the others to
    # temporary directories beside it, removed at the end.
    callbacks.append(keras.callbacks.TensorBoard(os.path.join(run_dir, "tensorboard")))
if args.kill_at_epoch:
    callbacks.append(KillOnce())

try:
    history = model.fit(dataset, epochs=args.epochs, steps_per_epoch=args.steps, callbacks=callbacks, verbose=2)
except (tf.errors.AbortedError, tf.errors.UnavailableError) as e:
    # A peer died or restarted: TensorFlow aborts every task's collectives,
    # and each must start again (from the backup, with --backup). 143 is the
    # exit code TensorFlow's own preemption handling uses to ask for a
    # restart; restart policy ExitCode retries it, where it takes 1, an
    # uncaught exception's, for a permanent failure.
    print("%s: lost a peer (%s), exiting for a restart" % (name, type(e).__name__), flush=True)
    sys.exit(RESTART_EXIT_CODE)
tfjob.write_result({
    "strategy": "MultiWorkerMirroredStrategy",
    "replicas_in_sync": strategy.num_replicas_in_sync,
    "starts": starts,
    "epochs": epochs.epochs,
    "losses": [float(v) for v in history.history["loss"]],
})
