#!/usr/bin/env python3
"""A data-parallel trainer that runs as every replica of a distributed trial.

Standard library only. It reads TF_CONFIG as AI Platform (and `vernier serve`)
sets it:

  * the parameter server (`ps` 0) listens on its TF_CONFIG address, holds the
    model (a linear regression) and serves it until it is ended: parameter
    servers never exit by themselves;
  * the master (or chief) and every worker train on their own shard of the
    data: each step they pull the parameters, compute the gradient on their
    shard and push it; the parameter server averages the pushes of all of
    them and applies one update per step (synchronous data parallelism);
  * the master prints `step=N mse=...` on held-out data, the objective that
    `hptuning_distributed.yaml` tunes, and writes a checkpoint to --job-dir
    every few steps; a parameter server started again in the same job dir
    (a retry) resumes from it.

Without a `ps` in the cluster (a one-replica trial) the master trains alone.

Every replica writes what it saw (TF_CONFIG, CUDA_VISIBLE_DEVICES, the torch
variables) to JOB_DIR/replicas/ROLE-INDEX.json, for tests and for curious users.

  --crash-role ROLE --crash-step N: that role's replica 0 exits with code 3 at
  step N unless the run resumed from a checkpoint (to try retries).
"""

import argparse
import json
import os
import random
import socket
import sys
import threading
import time

FEATURES = 4
TRUE_WEIGHTS = [2.0, -1.0, 0.5, 3.0]
TRUE_BIAS = 0.7
CHECKPOINT_EVERY = 5


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learning_rate", type=float, default=0.05)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--examples_per_replica", type=int, default=256)
    parser.add_argument("--step_seconds", type=float, default=0.0,
                        help="sleep this long per step, to make trials last")
    parser.add_argument("--crash-role", default="")
    parser.add_argument("--crash-step", type=int, default=-1)
    parser.add_argument("--job-dir", required=True)
    return parser.parse_args()


def make_examples(seed, count):
    rng = random.Random(seed)
    examples = []
    for _ in range(count):
        x = [rng.uniform(-1, 1) for _ in range(FEATURES)]
        y = sum(w * v for w, v in zip(TRUE_WEIGHTS, x)) + TRUE_BIAS + rng.gauss(0, 0.1)
        examples.append((x, y))
    return examples


def predict(params, x):
    return sum(w * v for w, v in zip(params[:FEATURES], x)) + params[FEATURES]


def gradient(params, batch):
    grad = [0.0] * (FEATURES + 1)
    for x, y in batch:
        error = predict(params, x) - y
        for i in range(FEATURES):
            grad[i] += 2 * error * x[i] / len(batch)
        grad[FEATURES] += 2 * error / len(batch)
    return grad


def mse(params, examples):
    return sum((predict(params, x) - y) ** 2 for x, y in examples) / len(examples)


def split_address(address):
    host, port = address.rsplit(":", 1)
    return host, int(port)


def checkpoint_path(job_dir):
    return os.path.join(job_dir, "checkpoint.json")


def load_checkpoint(job_dir):
    try:
        with open(checkpoint_path(job_dir)) as f:
            saved = json.load(f)
        return saved["step"], saved["params"]
    except (OSError, ValueError, KeyError):
        return 0, [0.0] * (FEATURES + 1)


def save_checkpoint(job_dir, step, params):
    path = checkpoint_path(job_dir)
    with open(path + ".tmp", "w") as f:
        json.dump({"step": step, "params": params}, f)
    os.replace(path + ".tmp", path)


class ParameterServer:
    """Averages one gradient from each of `trainers` per step."""

    def __init__(self, trainers, learning_rate, step, params):
        self.trainers = trainers
        self.learning_rate = learning_rate
        self.step = step
        self.params = params
        self.pending = []
        self.lock = threading.Condition()

    def pull(self):
        with self.lock:
            return {"step": self.step, "params": self.params}

    def push(self, step, grad):
        with self.lock:
            if step == self.step:
                self.pending.append(grad)
                if len(self.pending) == self.trainers:
                    average = [sum(g[i] for g in self.pending) / self.trainers
                               for i in range(len(self.params))]
                    self.params = [p - self.learning_rate * g
                                   for p, g in zip(self.params, average)]
                    self.pending = []
                    self.step += 1
                    self.lock.notify_all()
            while self.step <= step:
                self.lock.wait()
            return {"step": self.step, "params": self.params}

    def serve_connection(self, connection):
        with connection, connection.makefile("rw") as stream:
            for line in stream:
                request = json.loads(line)
                if request["op"] == "pull":
                    reply = self.pull()
                else:
                    reply = self.push(request["step"], request["grad"])
                stream.write(json.dumps(reply) + "\n")
                stream.flush()


def run_parameter_server(address, trainers, args):
    step, params = load_checkpoint(args.job_dir)
    server = ParameterServer(trainers, args.learning_rate, step, params)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(split_address(address))
    listener.listen(trainers)
    print(f"parameter server on {address} for {trainers} trainers from step {step}", flush=True)
    while True:  # Ended by the service once the master is done.
        connection, _ = listener.accept()
        threading.Thread(target=server.serve_connection, args=(connection,), daemon=True).start()


class ParameterClient:
    def __init__(self, address):
        deadline = time.monotonic() + 60
        while True:
            try:
                self.connection = socket.create_connection(split_address(address), timeout=120)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.stream = self.connection.makefile("rw")

    def call(self, request):
        self.stream.write(json.dumps(request) + "\n")
        self.stream.flush()
        line = self.stream.readline()
        if not line:
            raise ConnectionError("the parameter server closed the connection")
        return json.loads(line)


def train(role, index, cluster, args):
    trainers = [("master", 0)] if "master" in cluster else [("chief", 0)]
    trainers += [("worker", i) for i in range(len(cluster.get("worker", [])))]
    shard = trainers.index((role, index))
    examples = make_examples(seed=1000 + shard, count=args.examples_per_replica)
    held_out = make_examples(seed=1, count=200)
    rng = random.Random(shard)
    is_master = role in ("master", "chief")

    ps = cluster.get("ps", [])
    client = ParameterClient(ps[0]) if ps else None
    if client:
        state = client.call({"op": "pull"})
    else:
        step, params = load_checkpoint(args.job_dir)
        state = {"step": step, "params": params}
    resumed_from = state["step"]
    if resumed_from > 0:
        print(f"resuming from the checkpoint of step {resumed_from}", flush=True)

    while state["step"] < args.steps:
        step = state["step"]
        if (role == args.crash_role and index == 0 and step == args.crash_step
                and resumed_from == 0):
            print(f"crashing at step {step} as asked (--crash-role {role})", flush=True)
            sys.exit(3)
        batch = rng.sample(examples, min(args.batch_size, len(examples)))
        grad = gradient(state["params"], batch)
        if client:
            state = client.call({"op": "push", "step": step, "grad": grad})
        else:
            params = [p - args.learning_rate * g for p, g in zip(state["params"], grad)]
            state = {"step": step + 1, "params": params}
        if is_master:
            print(f"step={state['step']} mse={mse(state['params'], held_out):.6f}", flush=True)
            if state["step"] % CHECKPOINT_EVERY == 0 or state["step"] == args.steps:
                save_checkpoint(args.job_dir, state["step"], state["params"])
        if args.step_seconds > 0:
            time.sleep(args.step_seconds)


def record_environment(job_dir, role, index):
    seen = {name: os.environ.get(name) for name in (
        "TF_CONFIG", "CUDA_VISIBLE_DEVICES", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
        "LOCAL_RANK", "CLOUD_ML_TRIAL_ID", "CLOUD_ML_JOB_ID")}
    seen["pid"] = os.getpid()
    directory = os.path.join(job_dir, "replicas")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{role}-{index}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(seen, f)
    os.replace(path + ".tmp", path)


def main():
    args = parse_args()
    config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    cluster = config.get("cluster") or {"master": ["127.0.0.1:0"]}
    task = config.get("task") or {"type": "master", "index": 0}
    role, index = task["type"], int(task["index"])
    os.makedirs(args.job_dir, exist_ok=True)
    record_environment(args.job_dir, role, index)
    print(f"{role}-{index} of trial {task.get('trial', '?')}: cluster {json.dumps(cluster)}, "
          f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}", flush=True)
    if role == "ps":
        trainers = len(cluster.get("master", cluster.get("chief", []))) + len(
            cluster.get("worker", []))
        run_parameter_server(cluster["ps"][index], trainers, args)
    elif role == "evaluator":
        print("evaluators have nothing to do in this example", flush=True)
    else:
        train(role, index, cluster, args)


if __name__ == "__main__":
    main()
