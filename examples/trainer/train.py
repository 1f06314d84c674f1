#!/usr/bin/env python3
"""A small but real trainer for Vernier's examples and tests.

Trains a multi-layer perceptron with mini-batch gradient descent on a seeded,
generated "two moons" data set (two interleaved half circles, not linearly
separable), using nothing but the Python standard library.

It follows the contract of AI Platform trainers:
  * hyperparameters arrive as flags (--learning_rate=0.01 ...), plus --job-dir;
  * every epoch prints `epoch=N loss=... val_loss=... accuracy=... weights=...`,
    the validation accuracy being the objective (weights, the model's size,
    is a second objective for examples/hptuning_multi_objective.yaml);
  * when CLOUD_ML_HP_METRIC_FILE is set, every epoch is also reported the way
    the cloudml-hypertune library does: the whole history rewritten to that
    file, one JSON object per line.

Example:
  python3 examples/trainer/train.py --learning_rate=0.05 --optimizer=adam \
      --hidden_layers=2 --job-dir=/tmp/run1
"""

import argparse
import collections
import json
import math
import os
import random
import sys
import time

DATA_SEED = 20240601  # The data set is the same for every trial; --seed is not.
NUM_POINTS = 600
VALIDATION_FRACTION = 0.2
NOISE = 0.2
HYPERTUNE_HISTORY = 100  # As many records as cloudml-hypertune keeps.


def make_moons(num_points, noise, rng):
    """Two interleaved half circles with Gaussian noise; labels 0 and 1."""
    points = []
    for i in range(num_points):
        label = i % 2
        angle = math.pi * rng.random()
        if label == 0:
            x, y = math.cos(angle), math.sin(angle)
        else:
            x, y = 1.0 - math.cos(angle), 0.5 - math.sin(angle)
        points.append(([x + rng.gauss(0.0, noise), y + rng.gauss(0.0, noise)], label))
    rng.shuffle(points)
    return points


def standardize(train, validation):
    dims = len(train[0][0])
    means = [sum(x[d] for x, _ in train) / len(train) for d in range(dims)]
    stds = [
        math.sqrt(sum((x[d] - means[d]) ** 2 for x, _ in train) / len(train)) or 1.0
        for d in range(dims)
    ]

    def scale(data):
        return [([(x[d] - means[d]) / stds[d] for d in range(dims)], y) for x, y in data]

    return scale(train), scale(validation)


class Layer:
    """A dense layer: weights[out][in] and biases[out]."""

    def __init__(self, inputs, outputs, rng):
        bound = math.sqrt(6.0 / (inputs + outputs))  # Glorot uniform.
        self.weights = [[rng.uniform(-bound, bound) for _ in range(inputs)] for _ in range(outputs)]
        self.biases = [0.0] * outputs

    def parameters(self):
        """(rows of the weight matrix, then the bias vector) as mutable lists."""
        return self.weights + [self.biases]


class Mlp:
    """ReLU hidden layers and one logistic output unit."""

    def __init__(self, inputs, hidden_layers, hidden_units, rng):
        sizes = [inputs] + [hidden_units] * hidden_layers + [1]
        self.layers = [Layer(sizes[i], sizes[i + 1], rng) for i in range(len(sizes) - 1)]

    def parameters(self):
        return [vector for layer in self.layers for vector in layer.parameters()]

    def forward(self, x):
        """Returns the output logit and the activations of every layer."""
        activations = [x]
        for index, layer in enumerate(self.layers):
            inputs = activations[-1]
            out = [
                b + sum(w * v for w, v in zip(row, inputs))
                for row, b in zip(layer.weights, layer.biases)
            ]
            if index < len(self.layers) - 1:
                out = [v if v > 0.0 else 0.0 for v in out]
            activations.append(out)
        return activations[-1][0], activations

    def backward(self, activations, output_gradient, gradients):
        """Adds d(loss)/d(parameters) for one example to `gradients`."""
        delta = [output_gradient]
        offset = len(gradients)
        for index in range(len(self.layers) - 1, -1, -1):
            layer = self.layers[index]
            inputs = activations[index]
            offset -= len(layer.weights) + 1
            for row, d in enumerate(delta):
                if d == 0.0:
                    continue
                grad_row = gradients[offset + row]
                for col, v in enumerate(inputs):
                    grad_row[col] += d * v
            bias_grad = gradients[offset + len(layer.weights)]
            for row, d in enumerate(delta):
                bias_grad[row] += d
            if index > 0:
                delta = [
                    sum(layer.weights[row][col] * delta[row] for row in range(len(delta)))
                    if inputs[col] > 0.0
                    else 0.0
                    for col in range(len(inputs))
                ]


def logistic_loss(logit, label):
    """Binary cross-entropy of sigmoid(logit), computed without overflow."""
    return max(logit, 0.0) - logit * label + math.log1p(math.exp(-abs(logit)))


def sigmoid(logit):
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    e = math.exp(logit)
    return e / (1.0 + e)


class Optimizer:
    def __init__(self, name, learning_rate, parameters, momentum=0.9):
        self.name = name
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.step_count = 0
        self.first = [[0.0] * len(v) for v in parameters]
        self.second = [[0.0] * len(v) for v in parameters]

    def apply(self, parameters, gradients, scale):
        self.step_count += 1
        lr = self.learning_rate
        if self.name == "adam":
            beta1, beta2, eps = 0.9, 0.999, 1e-8
            c1 = 1.0 - beta1**self.step_count
            c2 = 1.0 - beta2**self.step_count
        for vector, grad, m, s in zip(parameters, gradients, self.first, self.second):
            for i in range(len(vector)):
                g = grad[i] * scale
                if self.name == "sgd":
                    vector[i] -= lr * g
                elif self.name == "momentum":
                    m[i] = self.momentum * m[i] + g
                    vector[i] -= lr * m[i]
                else:
                    m[i] = beta1 * m[i] + (1.0 - beta1) * g
                    s[i] = beta2 * s[i] + (1.0 - beta2) * g * g
                    vector[i] -= lr * (m[i] / c1) / (math.sqrt(s[i] / c2) + eps)


def evaluate(model, data):
    """Mean loss and accuracy; a diverged model counts every example wrong."""
    total_loss = 0.0
    correct = 0
    for x, y in data:
        logit, _ = model.forward(x)
        if not math.isfinite(logit):
            return float("nan"), 0.0
        total_loss += logistic_loss(logit, y)
        correct += int((logit >= 0.0) == (y == 1))
    return total_loss / len(data), correct / len(data)


class HypertuneReporter:
    """Writes metrics the way the cloudml-hypertune library does."""

    def __init__(self, path, trial_id):
        self.path = path
        self.trial_id = trial_id
        self.history = collections.deque(maxlen=HYPERTUNE_HISTORY)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)

    def report(self, tag, value, global_step):
        self.history.append({
            "timestamp": time.time(),
            "trial": str(self.trial_id),
            tag: str(float(value)),
            "global_step": str(int(global_step)),
            "checkpoint_path": "",
        })
        with open(self.path, "w") as metric_file:
            for record in self.history:
                metric_file.write(json.dumps(record, sort_keys=True) + "\n")


def positive_float(text):
    value = float(text)
    if not value > 0.0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learning_rate", type=positive_float, default=0.01)
    parser.add_argument("--batch_size", type=positive_int, default=32)
    parser.add_argument("--hidden_layers", type=int, choices=range(0, 4), default=1)
    parser.add_argument("--hidden_units", type=positive_int, default=16)
    parser.add_argument("--optimizer", choices=["sgd", "momentum", "adam"], default="sgd")
    parser.add_argument("--momentum", type=float, default=0.9,
                        help="the momentum optimizer's coefficient, in [0, 1)")
    parser.add_argument("--epochs", type=positive_int, default=5)
    parser.add_argument("--job-dir", dest="job_dir", default="",
                        help="where the checkpoint and metrics JSON go")
    parser.add_argument("--seed", type=int, default=0, help="initialisation and shuffling")
    parser.add_argument("--report", choices=["stdout", "hypertune"], default="stdout",
                        help="how the objective reaches Vernier: printed name=value lines, or "
                             "the cloudml-hypertune file (printing goes on either way, so "
                             "the agent would see every epoch twice with both)")
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    started = time.monotonic()
    data = make_moons(NUM_POINTS, NOISE, random.Random(DATA_SEED))
    split = int(len(data) * (1.0 - VALIDATION_FRACTION))
    train, validation = standardize(data[:split], data[split:])

    rng = random.Random(args.seed)
    model = Mlp(2, args.hidden_layers, args.hidden_units, rng)
    parameters = model.parameters()
    weight_count = sum(len(values) for values in parameters)
    optimizer = Optimizer(args.optimizer, args.learning_rate, parameters, args.momentum)
    metric_path = os.environ.get("CLOUD_ML_HP_METRIC_FILE")
    hypertune = None
    if metric_path and args.report == "hypertune":
        hypertune = HypertuneReporter(metric_path, os.environ.get("CLOUD_ML_TRIAL_ID", "0"))
    print(f"training on {len(train)} examples, validating on {len(validation)}: "
          f"learning_rate {args.learning_rate} batch_size {args.batch_size} "
          f"hidden_layers {args.hidden_layers} hidden_units {args.hidden_units} "
          f"optimizer {args.optimizer} epochs {args.epochs} seed {args.seed}", flush=True)

    history = []
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(train)
        epoch_loss = 0.0
        for start in range(0, len(train), args.batch_size):
            batch = train[start:start + args.batch_size]
            gradients = [[0.0] * len(v) for v in parameters]
            for x, y in batch:
                logit, activations = model.forward(x)
                if not math.isfinite(logit):
                    epoch_loss = float("nan")
                    continue
                epoch_loss += logistic_loss(logit, y)
                model.backward(activations, sigmoid(logit) - y, gradients)
            optimizer.apply(parameters, gradients, 1.0 / len(batch))
        train_loss = epoch_loss / len(train)
        val_loss, accuracy = evaluate(model, validation)
        history.append({"epoch": epoch, "loss": train_loss, "val_loss": val_loss,
                        "accuracy": accuracy})
        # weights: the model's size, a second objective (smaller serves faster).
        print(f"epoch={epoch} loss={train_loss:.4f} val_loss={val_loss:.4f} "
              f"accuracy={accuracy:.4f} weights={weight_count}", flush=True)
        if hypertune is not None:
            hypertune.report("accuracy", accuracy, epoch)

    elapsed = time.monotonic() - started
    if args.job_dir:
        os.makedirs(args.job_dir, exist_ok=True)
        with open(os.path.join(args.job_dir, "checkpoint.json"), "w") as checkpoint:
            json.dump({"layers": [{"weights": layer.weights, "biases": layer.biases}
                                  for layer in model.layers]}, checkpoint)
        with open(os.path.join(args.job_dir, "metrics.json"), "w") as metrics:
            # "flags": the flags given, before defaults: what the tuner chose.
            flags = sorted({arg[2:].split("=", 1)[0] for arg in argv if arg.startswith("--")})
            json.dump({"hyperparameters": vars(args), "flags": flags, "history": history,
                       "final": history[-1], "elapsed_seconds": elapsed}, metrics, indent=2)
    print(f"done in {elapsed:.2f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
