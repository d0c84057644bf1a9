"""The sidecar evaluator: evaluates each checkpoint the chief writes (see
mwms.py --checkpoints) on held-out synthetic data, with Keras's
SidecarEvaluator, and finishes once it has evaluated the last epoch's.
It runs no TensorFlow server: nothing connects to it.

  --epochs N      the training's epoch count: ckpt-N is the last checkpoint
  --timeout S     give up (exit 1) when training has not finished by then
"""

import argparse
import os
import threading

import tfjob

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--timeout", type=float, default=600)
args = parser.parse_args()


def give_up():
    print("%s: no checkpoint of epoch %d after %gs, giving up" % (tfjob.task_name(), args.epochs, args.timeout), flush=True)
    os._exit(1)


watchdog = threading.Timer(args.timeout, give_up)
watchdog.daemon = True
watchdog.start()

import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

x, y = tfjob.synthetic(512, seed=2)  # not the training data
model = keras.Sequential([keras.Input((tfjob.FEATURES,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse")
baseline = float(model.evaluate(x, y, verbose=0))


class Record(keras.callbacks.Callback):
    """Records the loss of each evaluation and the training step of the
    checkpoint it evaluated."""

    def __init__(self):
        super().__init__()
        self.evaluations = []

    def on_test_end(self, logs=None):
        self.evaluations.append({"step": int(self.model.optimizer.iterations.numpy()), "loss": float(logs["loss"])})
        print("%s: checkpoint at step %d: loss %.5f" % (tfjob.task_name(), *self.evaluations[-1].values()), flush=True)


record = Record()
keras.utils.SidecarEvaluator(
    model=model,
    data=tf.data.Dataset.from_tensor_slices((x, y)).batch(64),
    checkpoint_dir=os.path.join(tfjob.run_dir(), "checkpoints"),
    max_evaluations=args.epochs,
    callbacks=[record],
).start()
tfjob.write_result({"untrained_loss": baseline, "evaluations": record.evaluations})
